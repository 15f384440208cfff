package html

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// hostsPage is a run page with two hosts, one lost, the cross-host reading
// and a host name a hostile hosts file could give.
func hostsPage(l finding.Lang) *report.RunPage {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	var app, db []report.HostPoint
	for i := range 20 {
		t := t0.Add(time.Duration(i) * time.Second)
		app = append(app, report.HostPoint{T: t, Busy: 30 + float64(i%3), Iowait: 1})
		db = append(db, report.HostPoint{T: t, Busy: 20, Iowait: 35, DiskUtil: 60 + 2*float64(i), Disk: "sdb"})
	}
	lost := finding.T("connection to 10.0.0.9:22 lost after 7s", "与 10.0.0.9:22 的连接在 7s 后中断")
	drift := 0.04
	cross := finding.Finding{ID: "hosts.db_saturated_app_waits", Status: finding.Fail, Severity: finding.Warning, Subject: "db1",
		Title:    finding.T("the db host's disk is saturated while app threads wait in socket reads to it", "数据库主机的磁盘已饱和，而应用线程正在等待对它的 Socket 读取"),
		Evidence: []finding.Evidence{{Key: "at 12:00:12.500", Value: "6 app threads in socket reads; db1 host disk sdb util 97%", Source: "app1 thread dump 3"}}}
	return &report.RunPage{Schema: report.RunPageSchema, Lang: l, Title: "tuneloop run multi", Run: &report.RunSummary{ID: "multi"},
		Hosts: &report.HostsView{Cross: &cross, Hosts: []report.HostView{
			{Name: "app1", Role: "app", Address: "deploy@10.0.0.5", Arch: "arm64", Aligned: true, OffsetMS: 0.1, BoundMS: 0.2, DriftMS: &drift, Files: 12, Main: true, Series: app},
			{Name: "db1<script>", Role: "db", Address: "10.0.0.9", Arch: "amd64", Aligned: true, OffsetMS: 3000.1, BoundMS: 0.3, Files: 3, Lost: &lost, Series: db},
		}}}
}

func TestHostsSection(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteRun(&b, hostsPage(l)); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if p := os.Getenv("TUNELOOP_HOSTS_PAGE"); p != "" { // to look at it
			os.WriteFile(p+"-"+string(l)+".html", b.Bytes(), 0o644)
		}
		want := []string{`<section id="sec-hosts">`, `href="#sec-hosts"`, `href="#host-2"`, "db1&lt;script&gt;", "<svg", "sdb util 97%"}
		if l == finding.ZH {
			want = append(want, "主机（同一时间轴）", "与 10.0.0.9:22 的连接在 7s 后中断", "时钟偏差 &#43;3000.1 ms ±300 µs")
		} else {
			want = append(want, "Hosts (one timeline)", "LOST: connection to 10.0.0.9:22 lost after 7s", "clock &#43;3000.1 ms ±300 µs", "drift &#43;40 µs")
		}
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", l, w)
			}
		}
		if strings.Contains(page, "db1<script>") {
			t.Errorf("%s: a host name reached the page unescaped", l)
		}
	}
	// A one-host run's page has no hosts section.
	p := hostsPage(finding.EN)
	p.Hosts = nil
	var b bytes.Buffer
	if err := WriteRun(&b, p); err != nil || strings.Contains(b.String(), "sec-hosts") {
		t.Errorf("one host: %v, section drawn: %v", err, strings.Contains(b.String(), "sec-hosts"))
	}
}
