package multihost

import (
	"fmt"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// CrossID is the finding of the cross-host reading.
const CrossID = "hosts.db_saturated_app_waits"

// Thresholds of the cross-host reading: a disk busy this much of the
// time, or CPUs this busy, is saturated (iostat's %util and mpstat's
// busy, as the host findings read them); this many app threads in socket
// reads is a wait on a downstream.
const (
	diskUtilSat   = 90.0
	cpuBusySat    = 90.0
	minSocketWait = 2
)

// CrossInput is what the cross-host rule reads: the app host's run and the
// db host's, each on the local timeline.
type CrossInput struct{ App, DB *HostRun }

// CrossRules is the cross-host rule set: one rule, of the app host's dumps
// against the db host's ticks.
func CrossRules() []finding.Rule[*CrossInput] {
	return []finding.Rule[*CrossInput]{{
		ID: CrossID, Category: "hosts", Severity: finding.Warning,
		Title:       finding.T("the db host's disk or CPU is saturated while app threads wait in socket reads to it", "数据库主机的磁盘或 CPU 已饱和，而应用线程正在等待对它的 Socket 读取"),
		Checks:      finding.Tf(finding.T("At the moment of at least one app thread dump with %d or more threads in socket reads (and of at least half of such dumps), the db host's tick covering it shows a disk at %.0f%% util or more, or CPUs %.0f%% busy or more; both clocks measured, the moments matched within their bounds.", "在至少一次（且不少于一半）出现 %d 个以上 Socket 读取线程的应用线程转储时刻，数据库主机覆盖该时刻的采样显示磁盘 util 不低于 %.0f%% 或 CPU 繁忙不低于 %.0f%%；两台主机的时钟均已测量，时刻在误差范围内对齐。"), minSocketWait, diskUtilSat, cpuBusySat),
		Why:         finding.T("Threads in a socket read hold a worker while the database answers; a database host out of disk or CPU answers slowly, so the app's latency is the db host's saturation.", "处于 Socket 读取中的线程在等待数据库应答时占用着工作线程；数据库主机的磁盘或 CPU 饱和时应答变慢，应用的延迟来自数据库主机的饱和。"),
		Recommended: finding.T("Look at the db host's section: the queries that read or write most (slow query log), its disk (iostat -x 1) and its indexes; the app's connection pool only hides this wait.", "查看数据库主机一节：读写最多的查询（慢查询日志）、磁盘（iostat -x 1）与索引；应用的连接池只会掩盖这一等待。"),
		Risk:        finding.T("None: this is a diagnosis.", "无：这是诊断结论。"),
		Workload:    finding.T("an app tier in front of a database, recorded together (tuneloop run --host APP --host DB)", "数据库前的应用层，一起录制（tuneloop run --host APP --host DB）"),
		Reads:       []string{"the app host's raw/threaddump-*.txt and their times", "the db host's raw/samples.jsonl.gz (/proc/diskstats, /proc/stat)", ManifestFile + " (clock offsets and bounds)"},
		References:  []string{"The USE Method (Brendan Gregg, brendangregg.com)", "iostat(1) manual page (%util, r_await, w_await, aqu-sz)"},
		Eval:        evalCross,
	}}
}

// CrossHost says "the db host's disk is saturated while app threads wait in
// socket reads to it" when, at the time of at least one app thread dump
// (and of at least half of the dumps that show socket reads), the db host's
// tick covering that moment (both on the local timeline, within the clock
// bounds, so both clocks measured) shows a saturated disk or CPU. It holds
// only when both do, and carries the numbers of each matching moment.
func CrossHost(app, db *HostRun) (finding.Finding, bool) {
	fs := finding.Evaluate(CrossRules(), &CrossInput{App: app, DB: db})
	if len(fs) == 0 || fs[0].Status != finding.Fail {
		return finding.Finding{}, false
	}
	return fs[0], true
}

func evalCross(in *CrossInput) []finding.Outcome {
	app, db := in.App, in.DB
	// Moments compared across hosts need both clocks measured.
	if app == nil || db == nil || app.Layers == nil || db.Layers == nil || db.Layers.Series == nil || !app.Aligned || !db.Aligned {
		return nil
	}
	A, D := app.Layers, db.Layers
	slack := app.Bound + db.Bound
	waits, hits := 0, 0
	var ev []finding.Evidence
	var from, to time.Time
	var what string
	for i, d := range A.Dumps {
		if i >= len(A.DumpTimes) || A.DumpTimes[i].IsZero() {
			continue
		}
		n := socketReads(d)
		if n < minSocketWait {
			continue
		}
		waits++
		t := A.DumpTimes[i]
		tk := tickAt(D.Series, t, slack)
		if tk == nil {
			continue
		}
		sat, text := saturated(tk)
		if !sat {
			continue
		}
		hits++
		if from.IsZero() || t.Before(from) {
			from = t
		}
		if t.After(to) {
			to = t
		}
		if what == "" {
			what = strings.SplitN(text, " ", 2)[0]
		}
		ev = append(ev, finding.Evidence{Key: "at " + t.UTC().Format("15:04:05.000"),
			Value:  fmt.Sprintf("%d app threads in socket reads; %s host %s", n, db.Entry.Name, text),
			Source: fmt.Sprintf("%s thread dump %d, %s tick ending %s", app.Entry.Name, i+1, db.Entry.Name, tk.T.UTC().Format("15:04:05"))})
	}
	if hits == 0 || hits*2 < waits {
		return nil
	}
	ev = append(ev, finding.Evidence{Key: "clock_bound_ms", Value: fmt.Sprintf("±%.1f", float64(slack)/float64(time.Millisecond)),
		Source: ManifestFile})
	if ds := downstreamTo(app, db); ds != "" {
		ev = append(ev, finding.Evidence{Key: "app_connections_to_db", Value: ds, Source: app.Entry.Name + " sockets"})
	}
	res := finding.T("disk", "磁盘")
	if what == "cpu" {
		res = finding.T("CPU", "CPU")
	}
	return []finding.Outcome{{Status: finding.Fail, Subject: db.Entry.Name,
		Title: finding.Tf(finding.T("the db host's %s is saturated while app threads wait in socket reads to it", "数据库主机的%s已饱和，而应用线程正在等待对它的 Socket 读取"), res),
		Observed: finding.Tf(finding.T("In %d of %d app thread dumps with threads in socket reads, the db host %s was saturated at the same moment (clocks aligned within ±%s).",
			"在 %[2]d 次出现 Socket 读取等待的应用线程转储中，有 %[1]d 次数据库主机 %[3]s 在同一时刻已饱和（时钟对齐误差 ±%[4]s）。"),
			hits, waits, finding.SafeLine(db.Entry.Name), slack.Round(time.Microsecond)),
		Evidence:   ev,
		Confidence: float64(hits) / float64(waits),
		Window:     &finding.Window{From: from, To: to},
	}}
}

// socketReads counts the threads of a dump inside a socket read.
func socketReads(d *threaddump.Dump) int {
	n := 0
	for i := range d.Threads {
		if threaddump.ActivityOf(d.Threads[i]) == threaddump.ActSocketRead {
			n++
		}
	}
	return n
}

// tickAt is the tick whose interval covers t, widened by slack (nil: none).
func tickAt(s *diagnose.Series, t time.Time, slack time.Duration) *diagnose.Tick {
	for i := range s.Ticks {
		tk := &s.Ticks[i]
		start := tk.Begin()
		if !t.Before(start.Add(-slack)) && !t.After(tk.T.Add(slack)) {
			return tk
		}
	}
	return nil
}

// saturated says whether a db tick shows a saturated disk or CPU, and the
// numbers ("disk sda util 97% r_await 41.0 ms w_await 12.0 ms", "cpu busy 96%").
func saturated(tk *diagnose.Tick) (bool, string) {
	for _, d := range tk.Disks {
		if d.Util >= diskUtilSat {
			return true, fmt.Sprintf("disk %s util %.0f%%, r_await %.1f ms, w_await %.1f ms, queue %.1f", finding.SafeLine(d.Name), d.Util, d.RAwait, d.WAwait, d.AquSz)
		}
	}
	if tk.All != nil && tk.All.Busy() >= cpuBusySat {
		return true, fmt.Sprintf("cpu busy %.0f%% (us %.0f sy %.0f)", tk.All.Busy(), tk.All.User, tk.All.System)
	}
	return false, ""
}

// downstreamTo names the app's connections to the db host's address, when
// the dumps saw any ("" none: a dump does not say which socket a thread reads).
func downstreamTo(app, db *HostRun) string {
	host := nameOf(db.Entry.Address)
	for _, e := range app.Layers.Downstream {
		h := e.Remote
		if i := strings.LastIndexByte(h, ':'); i > 0 {
			h = h[:i]
		}
		if strings.Trim(h, "[]") == host {
			return fmt.Sprintf("%s: %d connections", finding.SafeLine(e.Remote), e.Conns)
		}
	}
	return ""
}
