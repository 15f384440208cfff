package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/stacks"
	"github.com/tuneloop/tuneloop/internal/version"
)

// verdictID is the finding that states a run's root cause across layers.
const verdictID = "run.verdict"

// runLayers is what one run produced, layer by layer, for the verdict.
type runLayers struct {
	stats    diagnose.Stats
	load     *loadgen.Summary
	recorded []finding.Finding // host and process diagnosis (diagnose), incl. dump findings
	dumps    []*threaddump.Report
	gc       *gclog.Report
	check    []finding.Finding
}

// buildRunPage gathers every layer of a finished run into the report page
// and returns it with all findings ranked, the verdict first.
func buildRunPage(f *run.Folder, res *diagnose.Result, sum *loadgen.Summary, check []finding.Finding, gcFiles []string, lang finding.Lang) (*report.RunPage, []finding.Finding) {
	m := &f.Manifest
	L := runLayers{stats: res.Series.Summarize(), load: sum, recorded: res.Findings, check: check}
	p := &report.RunPage{Schema: report.RunPageSchema, Lang: lang}

	// Thread dumps taken during the run.
	var dumps []*threaddump.Dump
	var dumpTimes []time.Time
	if files, err := f.RawFiles(run.ThreadDumpPrefix); err == nil {
		for _, name := range files {
			b, err := f.Raw(name)
			if err != nil {
				continue
			}
			ds, err := threaddump.Parse(name, bytes.NewReader(b))
			if err != nil {
				continue
			}
			st, _ := os.Stat(f.Dir + "/" + name)
			for _, d := range ds {
				dumps = append(dumps, d)
				t := time.Time{}
				if st != nil {
					t = st.ModTime().UTC()
				}
				dumpTimes = append(dumpTimes, t)
				L.dumps = append(L.dumps, threaddump.Analyze(d))
			}
		}
	}
	// The dumps' own and series findings are already in res.Findings
	// (diagnose reads the same files); only the GC layer is new here.
	var extra []finding.Finding
	// GC log switched on for the run.
	if len(gcFiles) > 0 {
		if r, err := gclog.Analyze(gclog.FileSources(gcFiles...), gclog.DefaultThresholds()); err == nil {
			L.gc = r
			extra = append(extra, r.Findings...)
			p.GC = gcView(r, gcFiles)
		}
	}
	all := append(append([]finding.Finding{}, res.Findings...), extra...)
	finding.Sort(all)
	if v := verdict(&L); v != nil {
		p.Verdict = v
		all = append([]finding.Finding{*v}, all...)
	}

	r := &report.Run{Schema: report.RunSchema, Tool: report.Tool{Name: "tuneloop", Version: version.Version},
		GeneratedAt: time.Now().UTC(), Dir: f.Dir, ID: m.ID, Status: string(m.Status), Incomplete: m.Incomplete(), Reason: m.Reason,
		Start: m.Start, End: m.End, Command: strings.Join(m.Argv, " "), IntervalMS: m.IntervalMS,
		Host: report.HostOf(m.Facts, "run "+m.ID), BadLines: res.Series.BadLines, Stats: L.stats, Findings: all}
	if m.Target != nil {
		r.TargetPID, r.TargetComm = m.Target.PID, m.Target.Comm
	}
	if m.Cost != nil {
		r.CostCPUPct, r.CostMaxRSSKB = m.Cost.CPUPctOfCore, m.Cost.MaxRSSKB
	}
	r.Summary = finding.Count(all)
	p.Run = r
	p.Title = "tuneloop run " + m.ID
	if sum != nil {
		if sum.Target != "" {
			p.Title += " @ " + sum.Target
		}
		p.Load = loadView(sum)
	}
	for _, c := range check {
		if c.Status == finding.Fail && c.Severity >= finding.Warning {
			p.Check = append(p.Check, c)
		}
	}
	p.CPU, p.Softirq = cpuViews(res.Series)
	for i, r := range L.dumps {
		counts := map[string]int{}
		for _, sc := range r.States {
			counts[string(sc.State)] += sc.Count
		}
		p.ThreadStates = append(p.ThreadStates, report.ThreadStateSample{T: dumpTimes[i], Counts: counts, BlockedWaitingPct: new(100 * r.BlockedWaitingShare)})
	}
	p.Locks = lockRows(L.dumps)
	// JFR execution samples (every 10-20 ms per thread) beat a few dumps.
	if b, err := os.ReadFile(filepath.Join(f.Dir, jfrRecording)); err == nil {
		root := &report.FlameNode{Name: "all"}
		if n, err := stacks.JFRExecutionSamples(b, func(st []string) { root.Add(st, 1) }); err == nil && n > 0 {
			p.Flame = root
			p.FlameSource = fmt.Sprintf("%d JFR execution samples", n)
		}
	}
	if p.Flame == nil {
		if fl, n := flameFromDumps(dumps); fl != nil {
			p.Flame = fl
			p.FlameSource = fmt.Sprintf("%d RUNNABLE stacks in %d thread dumps", n, len(dumps))
		}
	}
	p.Facts = factRows(r.Host)
	return p, all
}

func loadView(s *loadgen.Summary) *report.LoadView {
	v := &report.LoadView{Source: s.Source, Requests: s.Requests, Errors: s.Errors, TPS: s.TPS,
		MeanMS: s.Latency.Mean, P50MS: s.Latency.P50, P90MS: s.Latency.P90, P99MS: s.Latency.P99, MaxMS: s.Latency.Max}
	switch {
	case s.Model != "":
		v.Model = s.Model
	case s.Users > 0:
		v.Model = fmt.Sprintf("closed, %d users", s.Users)
	}
	for _, sec := range s.Series {
		v.Series = append(v.Series, report.LoadPoint{T: s.Start.Add(time.Duration(sec.T) * time.Second), TPS: float64(sec.Requests),
			P50MS: sec.P50, P99MS: sec.P99, Errors: sec.Errors})
	}
	return v
}

func cpuViews(s *diagnose.Series) ([]report.CPUTick, []report.SoftirqTick) {
	var cpu []report.CPUTick
	var si []report.SoftirqTick
	for _, t := range s.Ticks {
		if len(t.CPUs) > 0 {
			ct := report.CPUTick{T: t.T}
			for _, c := range t.CPUs {
				ct.PerCPU = append(ct.PerCPU, report.CPUShare{Us: c.User, Sy: c.System, Hi: c.IRQ, Si: c.Soft, Wa: c.Iowait, St: c.Steal})
			}
			cpu = append(cpu, ct)
		}
		if len(t.Softirq) > 0 {
			// Zeros, not null, on CPUs or ticks without NET_RX.
			st := report.SoftirqTick{T: t.T, All: make([]float64, len(s.CPUs)), NetRx: make([]float64, len(s.CPUs))}
			for typ, per := range t.Softirq {
				for i, v := range per {
					if i < len(st.All) {
						st.All[i] += v
						if typ == "NET_RX" {
							st.NetRx[i] = v
						}
					}
				}
			}
			si = append(si, st)
		}
	}
	return cpu, si
}

// lockRows merges the contended locks of every dump: the same lock (class
// and address) counts once, with its most waiters and in how many dumps.
func lockRows(reports []*threaddump.Report) []report.LockRow {
	rows := map[string]*report.LockRow{}
	for _, r := range reports {
		for _, l := range r.Locks {
			if l.NWaiter == 0 {
				continue
			}
			key := l.Ref.Class + "@" + l.Ref.Addr
			row := rows[key]
			if row == nil {
				row = &report.LockRow{Lock: l.Ref.Addr, Class: l.Ref.Class, Kind: l.Kind}
				rows[key] = row
			}
			row.Dumps++
			if l.NWaiter >= row.Waiters {
				row.Waiters = l.NWaiter
				row.Owner = l.OwnerName
				if l.Owner != nil {
					row.OwnerState = string(l.Owner.State)
				}
				row.OwnerFrame = l.OwnerDoing()
			}
		}
	}
	out := make([]report.LockRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Waiters != out[j].Waiters {
			return out[i].Waiters > out[j].Waiters
		}
		return out[i].Class+out[i].Lock < out[j].Class+out[j].Lock
	})
	if len(out) > 20 {
		out = out[:20]
	}
	return out
}

// flameFromDumps merges the stacks of RUNNABLE Java threads of every dump
// (a sampling profile at the dump interval), root frame first.
func flameFromDumps(dumps []*threaddump.Dump) (*report.FlameNode, int) {
	root := &report.FlameNode{Name: "all"}
	n := 0
	for _, d := range dumps {
		for _, t := range d.Threads {
			if t.State != threaddump.StateRunnable || len(t.Frames) == 0 {
				continue
			}
			stack := make([]string, 0, len(t.Frames))
			for i := len(t.Frames) - 1; i >= 0; i-- {
				stack = append(stack, t.Frames[i].Method)
			}
			root.Add(stack, 1)
			n++
		}
	}
	if n == 0 {
		return nil, 0
	}
	return root, n
}

func gcView(r *gclog.Report, files []string) *report.GCView {
	s := r.Summary
	v := &report.GCView{Collector: s.CollectorName, ThroughputPct: s.ThroughputPct, Pauses: s.Pauses,
		PauseP50MS: s.PauseP50Ms, PauseP99MS: s.PauseP99Ms, PauseMaxMS: s.PauseMaxMs, FullGCs: s.FullGCs}
	for _, f := range r.Findings {
		if f.ID == "gc.not-the-bottleneck" {
			v.Verdict = f.Title
		}
	}
	const maxPoints = 2000
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			continue
		}
		_, _ = gclog.Parse(fh, path, func(e *gclog.Event) {
			if e.PauseMs > 0 && e.Uptime >= 0 && len(v.Timeline) < maxPoints && e.Kind.IsPause() {
				v.Timeline = append(v.Timeline, report.GCPause{UptimeS: e.Uptime, MS: e.PauseMs, Kind: e.Kind.String()})
			}
		})
		fh.Close()
	}
	return v
}

func factRows(h report.Host) [][2]string {
	var rows [][2]string
	add := func(k, v string) {
		if v != "" && v != "0" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("host", h.Hostname)
	add("os", h.OS)
	add("kernel", h.Kernel)
	add("arch", h.Arch)
	add("cpu", h.CPU)
	add("logical CPUs", fmt.Sprint(h.Logical))
	add("sockets", fmt.Sprint(h.Sockets))
	add("NUMA nodes", fmt.Sprint(h.NUMANodes))
	if h.MemTotalKB > 0 {
		add("memory", fmt.Sprintf("%.1f GiB", float64(h.MemTotalKB)/(1<<20)))
	}
	add("hypervisor", h.Hypervisor)
	return rows
}

// culpritExclude are thread-dump findings that are readings (shares, stuck
// threads, hot frames), not a cause (a library lock, a pool, a downstream).
var culpritExclude = map[string]bool{"threaddump.blocked-share": true, "threaddump.no-ownable": true, "threaddump.hot-frames": true, "threaddump.stuck": true}

// verdict reasons across the layers the way the seeds' engineers did and
// names one root cause with the evidence of each layer, or returns nil when
// the run shows no bottleneck.
func verdict(L *runLayers) *finding.Finding {
	find := func(fs []finding.Finding, pred func(*finding.Finding) bool) *finding.Finding {
		for i := range fs {
			if fs[i].Status == finding.Fail && pred(&fs[i]) {
				return &fs[i]
			}
		}
		return nil
	}
	// The diagnosis already read every dump of the run (one finding per
	// problem, from the dump that shows it best).
	var dumpFindings []finding.Finding
	for _, f := range L.recorded {
		if strings.HasPrefix(f.ID, "threaddump.") {
			dumpFindings = append(dumpFindings, f)
		}
	}
	finding.Sort(dumpFindings)

	var root *finding.Finding
	var layers []finding.Text
	busy := L.stats.Busy
	loadLine := func() {
		if L.load != nil {
			layers = append(layers, finding.Tf(finding.T("Load: %.1f TPS, p99 %.1f ms, %d errors of %d requests (%s).", "负载：%.1f TPS，p99 %.1f ms，%d/%d 个请求出错（%s）。"),
				L.load.TPS, L.load.Latency.P99, L.load.Errors, L.load.Requests, report.ModelText(orDefaultStr(L.load.Model, L.load.Source))))
		}
	}
	cpuLine := func() {
		layers = append(layers, finding.Tf(finding.T("CPU: %.0f%% busy on average (us %.0f%%, sy %.0f%%, si+hi %.0f%%, wa %.0f%%).", "CPU：平均繁忙 %.0f%%（us %.0f%%，sy %.0f%%，si+hi %.0f%%，wa %.0f%%）。"),
			busy, L.stats.User, L.stats.System, L.stats.Soft, L.stats.Iowait))
	}
	blockedLine := func() {
		best := -1.0
		var r *threaddump.Report
		for _, d := range L.dumps {
			if d.BlockedWaitingShare > best {
				best, r = d.BlockedWaitingShare, d
			}
		}
		if r != nil {
			// The Chinese sentence names the count first: indexed verbs.
			layers = append(layers, finding.Tf(finding.T("Threads: %.0f%% of the %d working threads blocked or waiting (idle pool threads excluded).", "线程：%[2]d 个工作线程中 %.0[1]f%% 处于阻塞或等待（不含空闲池线程）。"),
				100*r.BlockedWaitingShare, r.Active))
		}
	}
	id := func(p string) func(*finding.Finding) bool {
		return func(f *finding.Finding) bool { return strings.HasPrefix(f.ID, p) }
	}

	culprit := func(minSev finding.Severity) *finding.Finding {
		return find(dumpFindings, func(f *finding.Finding) bool { return !culpritExclude[f.ID] && f.Severity >= minSev })
	}
	gcCause := func() *finding.Finding {
		if L.gc == nil {
			return nil
		}
		return find(L.gc.Findings, func(f *finding.Finding) bool { return f.Severity >= finding.Warning && f.ID != "gc.unparsed-lines" })
	}
	ioCause := func(f *finding.Finding) bool {
		return f.Severity >= finding.Warning && (strings.HasPrefix(f.ID, "run.disk") || strings.HasPrefix(f.ID, "run.mem") || strings.HasPrefix(f.ID, "run.io"))
	}
	// Most specific first: a deadlock or an IRQ imbalance explains everything
	// after it; a single hot thread, a critical GC problem, or a lock most
	// working threads queue on caps throughput whatever the CPU shows (with
	// the load generator on the same host, CPU is busy anyway); a lesser lock
	// counts only when the CPU had room; then GC, CPU, I/O.
	switch {
	case find(dumpFindings, id("threaddump.deadlock")) != nil:
		root = find(dumpFindings, id("threaddump.deadlock"))
		loadLine()
		blockedLine()
	case find(L.recorded, id("run.irq.")) != nil:
		root = find(L.recorded, id("run.irq."))
		loadLine()
		cpuLine()
	case find(L.recorded, id("run.thread.serial")) != nil:
		root = find(L.recorded, id("run.thread.serial"))
		loadLine()
		cpuLine()
	case gcCause() != nil && gcCause().Severity == finding.Critical:
		// GC eating a large share of the time stalls every thread, lock
		// holders included: the queues behind locks are its symptom.
		root = gcCause()
		loadLine()
		cpuLine()
		blockedLine()
	case culprit(finding.Critical) != nil:
		root = culprit(finding.Critical)
		loadLine()
		cpuLine()
		blockedLine()
	case busy < 75 && culprit(finding.Warning) != nil:
		root = culprit(finding.Warning)
		loadLine()
		cpuLine()
		blockedLine()
	case gcCause() != nil:
		root = gcCause()
		loadLine()
		cpuLine()
	case find(L.recorded, id("run.cpu.saturated")) != nil:
		root = find(L.recorded, id("run.cpu.saturated"))
		loadLine()
		if L.stats.ProcCPU >= 0 {
			layers = append(layers, finding.Tf(finding.T("The JVM used %.0f%% of one core on average.", "JVM 平均占用 %.0f%% 个核。"), L.stats.ProcCPU))
		}
		if hf := find(dumpFindings, id("threaddump.hot-frames")); hf != nil {
			layers = append(layers, hf.Observed)
		}
	case find(L.recorded, ioCause) != nil:
		root = find(L.recorded, ioCause)
		loadLine()
		cpuLine()
	}
	if root == nil {
		return nil
	}
	// GC, stated plainly either way, as the seeds conclude.
	if L.gc != nil && !strings.HasPrefix(root.ID, "gc.") {
		s := L.gc.Summary
		if find(L.gc.Findings, func(f *finding.Finding) bool { return f.ID == "gc.not-the-bottleneck" }) != nil || s.ThroughputPct >= 98 {
			layers = append(layers, finding.Tf(finding.T("GC: throughput %.1f%%, p99 pause %.1f ms: GC is not the bottleneck.", "GC：吞吐率 %.1f%%，p99 停顿 %.1f ms：GC 不是瓶颈。"), s.ThroughputPct, s.PauseP99Ms))
		}
	}
	v := *root
	v.ID, v.Category, v.Subject = verdictID, "run", root.Key()
	v.Title = finding.Text{EN: "Root cause: " + root.Title.EN, ZH: "根因：" + root.Title.ZH}
	var en, zh []string
	for _, t := range layers {
		en, zh = append(en, t.EN), append(zh, t.ZH)
	}
	en = append(en, "=> "+root.Observed.EN)
	zh = append(zh, "=> "+root.Observed.ZH)
	v.Observed = finding.T(strings.Join(en, "\n"), strings.Join(zh, "\n"))
	v.Severity = max(root.Severity, finding.Warning)
	v.Confidence = min(1, max(root.Confidence, 0.5)+0.1*float64(len(layers)-1))
	return &v
}
