package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

func TestHostsView(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	series := &diagnose.Series{Ticks: []diagnose.Tick{{T: t0, Secs: 1, All: &diagnose.CPU{User: 20, Idle: 50, Iowait: 30},
		Disks: []diagnose.Disk{{Name: "sda", Util: 40}, {Name: "sdb", Util: 97}}}}}
	disk := finding.Finding{ID: "run.disk.saturated", Status: finding.Fail, Severity: finding.Critical, Subject: "sdb",
		Title: finding.T("disk sdb saturated", "磁盘 sdb 饱和")}
	lost := finding.T("connection lost | *bold*", "连接中断")
	app := &multihost.HostRun{Entry: multihost.Entry{Host: multihost.Host{Name: "app1", Role: "app", Address: "app1"}},
		Layers: &verdict.Layers{}, Decision: &verdict.Decision{Findings: []finding.Finding{disk}}, Aligned: true}
	r := &multihost.Loaded{Hosts: []*multihost.HostRun{
		{Entry: multihost.Entry{Host: multihost.Host{Name: "db|1", Role: "db", Address: "db1"}, Lost: &lost,
			Before: &multihost.Clock{OffsetNS: 3e9}, After: &multihost.Clock{OffsetNS: 3e9 + 2e6}},
			Layers: &verdict.Layers{Series: series}, Decision: &verdict.Decision{Verdict: &disk, Findings: []finding.Finding{disk}},
			Shift: 3*time.Second + time.Millisecond, Bound: 1500 * time.Microsecond, Aligned: true},
		app,
	}, App: app}
	v := NewHosts(r, finding.EN)
	if v.Hosts[0].Name != "app1" || !v.Hosts[0].Main || v.Hosts[1].Main {
		t.Fatalf("the app host first and main: %+v", v.Hosts)
	}
	db := v.Hosts[1]
	if db.OffsetMS != 3001 || db.BoundMS != 1.5 || db.DriftMS == nil || *db.DriftMS != 2 || len(db.Series) != 1 ||
		db.Series[0].DiskUtil != 97 || db.Series[0].Disk != "sdb" || db.Series[0].Busy != 20 || len(db.Findings) != 0 || db.Verdict == nil {
		t.Errorf("db host: %+v", db)
	}
	var txt, md bytes.Buffer
	writeHostsText(&txt, v, finding.ZH)
	writeHostsMarkdown(&md, v, finding.EN)
	for _, want := range []string{"db|1 [db] db1", "时钟偏差 +3001.0 ms ±1.5 ms", "运行期间漂移 +2.0 ms", "丢失： 连接中断", "结论： 磁盘 sdb 饱和", "其结论与发现即上面"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	for _, want := range []string{"## Hosts (one timeline)", `| db\|1 | db | db1 |`, `**LOST:** connection lost \| \*bold\*`, "clock +3001.0 ms ±1.5 ms"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func TestClockMS(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		sign bool
		want string
	}{{0.042, true, "+42 µs"}, {-0.5, true, "-500 µs"}, {0, true, "+0 µs"}, {3000.06, true, "+3000.1 ms"}, {1, false, "1.0 ms"}, {-12.34, false, "-12.3 ms"}} {
		if got := ClockMS(c.ms, c.sign); got != c.want {
			t.Errorf("ClockMS(%v, %v) = %q, want %q", c.ms, c.sign, got, c.want)
		}
	}
}
