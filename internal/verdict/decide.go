package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// ID is the finding that states a run's root cause across layers.
const ID = "run.verdict"

// Branch names which rule of Decide named the root cause.
type Branch string

// The branches, most specific first (the order Decide tries them).
const (
	Deadlock     Branch = "deadlock"       // threads deadlocked in a dump
	Unanswered   Branch = "service-hung"   // the load got no answer at all
	Softirq      Branch = "softirq"        // NIC interrupts concentrated on few CPUs
	SerialStage  Branch = "serial-stage"   // one saturated thread caps throughput
	GCCritical   Branch = "gc-critical"    // GC takes so much time that every thread stalls
	LockMost     Branch = "lock"           // a critical culprit most working threads queue on
	LockCPURoom  Branch = "lock-cpu-room"  // a lesser culprit while the CPU had room
	GC           Branch = "gc"             // GC at warning level
	CPUSaturated Branch = "cpu"            // the host's CPUs are saturated
	IO           Branch = "io"             // disk, memory pressure, iowait or the network (retransmits, listen overflows, a saturated NIC)
	HostTooSmall Branch = "host-too-small" // CPU near saturation with no single cause
	DelayedACK   Branch = "delayed-ack"    // latency quantised by TCP's delayed ACK
	LatencyBound Branch = "latency-bound"  // a closed-model run bound by waits off the CPUs
	// GeneratorSaturated: the load generator took most of the CPUs.
	GeneratorSaturated Branch = "generator-saturated"
	None               Branch = "none" // nothing crossed a threshold
)

// nearSaturated: at this mean CPU busy % a run always has a root cause,
// even when no rule names a more specific one.
const nearSaturated = 85

// lockNeedsRoom: below this mean CPU busy %, a warning-level lock culprit
// is the cause; above it, a saturated CPU explains the queue as well.
const lockNeedsRoom = 75

// Decision is a run's diagnosis: the root cause and every finding ranked,
// the verdict first.
type Decision struct {
	Branch Branch
	// Verdict is the root cause with each layer's evidence (nil: none).
	Verdict *finding.Finding
	// Findings are all findings of the run, symptoms linked to their
	// causes, ranked, the verdict first; the host audit is not among them.
	Findings []finding.Finding
	// Account is the threads' time by role and state; Mechanisms what the
	// catalogue named for the verdict's branch, best first (the verdict
	// names the first).
	Account    *mechanism.Account
	Mechanisms []mechanism.Named
}

// culpritExclude are thread-dump findings that are readings (shares, stuck
// threads, hot frames), not a cause (a library lock, a pool, a downstream).
var culpritExclude = map[string]bool{"threaddump.blocked-share": true, "threaddump.no-ownable": true,
	"threaddump.hot-frames": true, "threaddump.stuck": true}

// Decide names one root cause with the evidence of each layer, and ranks
// every finding of the run behind it. It never changes L.
func Decide(L *Layers) *Decision {
	// The host layer's symptoms are already linked to their causes
	// (diagnose links them: a hot CPU to the softirq or serial thread
	// behind it); Decide joins the layers.
	recorded := append([]finding.Finding{}, L.Recorded...) // never nil: an empty run has "[]" findings
	all := append(recorded, L.Problems...)
	if L.GC != nil {
		all = append(all, L.GC.Findings...)
	}
	finding.Sort(all)
	ev := Evidence(L)
	d := &Decision{Branch: None, Findings: all, Account: ev.Account()}
	root, branch, layers := decide(L, recorded, ev)
	if root == nil {
		return d
	}
	v := verdictFinding(L, root, layers)
	ev.Note(root.ID)
	d.Mechanisms = mechanism.Name(ev, familiesOf(branch, root)...)
	if len(d.Mechanisms) > 0 {
		withMechanism(v, &d.Mechanisms[0], branch)
		probeCost(L, ev, v, &d.Mechanisms[0])
	}
	pointToEvidence(L, v)
	if branch == LockMost || branch == LockCPURoom {
		waitEvidence(L, root, v) // evidence only: the branch is decided
		if sc := serialStageCost(L, root); sc != nil {
			v.Evidence = append(slices.Clip(v.Evidence), sc.evidence()...)
		}
	}
	d.Branch, d.Verdict = branch, v
	d.Findings = append([]finding.Finding{*v}, all...)
	return d
}

// decide picks the root cause and the layer lines that support it.
func decide(L *Layers, recorded []finding.Finding, ev *mechanism.Evidence) (*finding.Finding, Branch, []finding.Text) {
	var dumpFindings []finding.Finding
	for _, f := range recorded {
		if strings.HasPrefix(f.ID, "threaddump.") {
			dumpFindings = append(dumpFindings, f)
		}
	}
	finding.Sort(dumpFindings)
	e := evidence{L: L}
	culprit := func(min finding.Severity) *finding.Finding {
		return find(dumpFindings, func(f *finding.Finding) bool { return !culpritExclude[f.ID] && f.Severity >= min })
	}
	var gcCause *finding.Finding
	if L.GC != nil {
		gcCause = find(L.GC.Findings, func(f *finding.Finding) bool { return f.Severity >= finding.Warning && f.ID != "gc.unparsed-lines" })
	}
	ioCause := func(f *finding.Finding) bool {
		return f.Severity >= finding.Warning && (strings.HasPrefix(f.ID, "run.disk") || strings.HasPrefix(f.ID, "run.mem") ||
			strings.HasPrefix(f.ID, "run.io") || strings.HasPrefix(f.ID, "run.net."))
	}
	busy := L.Stats.Busy
	// Each computed once: the switch tests and returns them.
	delayed, generator, waiting := delayedACK(L), generatorSaturated(L), latencyBound(L)
	switch {
	case L.Folder != nil && L.Folder.Manifest.Service != nil && L.Folder.Manifest.Service.Hung:
		// It stopped answering: a deadlock in its dumps, an
		// OutOfMemoryError in its log, a GC log ending in full GCs back to
		// back, or what its working threads wait on, in that order (each
		// explains the ones after it).
		se := L.Folder.Manifest.Service
		if c := find(dumpFindings, id("threaddump.deadlock")); c != nil {
			return serviceStalled(se, c, fromDumps), ServiceStalled, e.lines(e.load, e.blocked)
		}
		if c := outOfMemory(se); c != nil {
			return serviceStalled(se, c, fromLog), ServiceStalled, e.lines(e.load, e.gcAtEndLine, e.blocked)
		}
		if c := gcOutOfMemory(L); c != nil {
			return serviceStalled(se, c, fromGCLog), ServiceStalled, e.lines(e.load, e.gcAtEndLine, e.blocked)
		}
		if c := gcAtEnd(L); c != nil {
			return serviceStalled(se, c, fromGCLog), ServiceStalled, e.lines(e.load, e.blocked)
		}
		return serviceStalled(se, culprit(finding.Warning), fromDumps), ServiceStalled, e.lines(e.load, e.blocked)
	case L.Folder != nil && L.Folder.Manifest.Service != nil:
		// Nothing measured after it means anything: said first.
		return serviceExited(L.Folder.Manifest.Service), ServiceExited, e.lines(e.load, e.cpu)
	case find(dumpFindings, id("threaddump.deadlock")) != nil:
		return find(dumpFindings, id("threaddump.deadlock")), Deadlock, e.lines(e.load, e.blocked)
	case unanswered(L.Load):
		if c := gcOutOfMemory(L); c != nil {
			return unansweredBecause(L.Load, c, fromGCLog), Unanswered, e.lines(e.load, e.gcAtEndLine, e.blocked)
		}
		if c := gcAtEnd(L); c != nil {
			// Collecting back to back stops every thread: it explains
			// whatever the dumps show them waiting on.
			return unansweredBecause(L.Load, c, fromGCLog), Unanswered, e.lines(e.load, e.blocked)
		}
		if c := culprit(finding.Warning); c != nil {
			return c, Unanswered, e.lines(e.load, e.blocked)
		}
		return hung(L.Load), Unanswered, e.lines(e.load, e.cpu, e.blocked)
	case find(recorded, id("run.irq.")) != nil:
		return find(recorded, id("run.irq.")), Softirq, e.lines(e.load, e.cpu)
	case delayed != nil:
		// Specific and measured (latency at the kernel's 40 ms with a
		// delayed ACK per request): it outranks the threads it leaves
		// waiting in socket reads.
		return delayed, DelayedACK, e.lines(e.load, e.cpu)
	case find(recorded, id(diagnose.IDSerialThread)) != nil:
		return find(recorded, id(diagnose.IDSerialThread)), SerialStage, e.lines(e.load, e.cpu)
	case gcCause != nil && gcCause.Severity == finding.Critical:
		// GC eating a large share of the time stalls every thread, lock
		// holders included: the queues behind locks are its symptom.
		return gcCause, GCCritical, e.lines(e.load, e.cpu, e.blocked)
	case culprit(finding.Warning) != nil && cpuIsTheCause(ev):
		// A queue while the CPUs are saturated and the request threads'
		// largest share is running: the queue is the saturation's symptom.
		if c := find(recorded, id(diagnose.IDCPUSaturated)); c != nil {
			return c, CPUSaturated, e.lines(e.load, e.jvmCPU, e.blocked)
		}
		return hostTooSmall(L), CPUSaturated, e.lines(e.load, e.jvmCPU, e.blocked)
	case culprit(finding.Critical) != nil:
		c := culprit(finding.Critical)
		return c, LockMost, e.lines(e.load, e.cpu, e.blocked, e.waited(c), e.ifDownstream(c), e.servers(c), e.stageCost(c))
	case busy < lockNeedsRoom && culprit(finding.Warning) != nil:
		c := culprit(finding.Warning)
		return c, LockCPURoom, e.lines(e.load, e.cpu, e.blocked, e.waited(c), e.ifDownstream(c), e.servers(c), e.stageCost(c))
	case gcCause != nil:
		return gcCause, GC, e.lines(e.load, e.cpu)
	case generator != nil:
		return generator, GeneratorSaturated, e.lines(e.load, e.cpu)
	case find(recorded, id(diagnose.IDCPUSaturated)) != nil:
		ls := e.lines(e.load, e.jvmCPU)
		if hf := find(dumpFindings, id("threaddump.hot-frames")); hf != nil {
			ls = append(ls, hf.Observed)
		}
		return find(recorded, id(diagnose.IDCPUSaturated)), CPUSaturated, ls
	case find(recorded, ioCause) != nil:
		return find(recorded, ioCause), IO, e.lines(e.load, e.cpu)
	case busy >= nearSaturated || find(recorded, runQueue) != nil:
		return hostTooSmall(L), HostTooSmall, e.lines(e.load, e.jvmCPU)
	case waiting != nil:
		return waiting, LatencyBound, e.lines(e.load, e.blocked)
	}
	return nil, None, nil
}

// runQueue is a run queue longer than the CPUs at warning level.
func runQueue(f *finding.Finding) bool {
	return f.ID == diagnose.IDRunQueue && f.Severity >= finding.Warning
}

// unanswered is a load that sent requests and got no answer to any: all
// failed, or none completed and some were still in flight at the end.
func unanswered(s *loadgen.Summary) bool {
	return s != nil && ((s.Requests > 0 && s.Errors >= s.Requests) || (s.Requests == 0 && s.Aborted > 0))
}

// IDHung is the root cause when the service answered no request and the
// dumps name no culprit.
const IDHung = "run.service-unanswered"

func hung(s *loadgen.Summary) *finding.Finding {
	return &finding.Finding{ID: IDHung, Category: "run", Status: finding.Fail, Severity: finding.Critical, Confidence: 0.6,
		Subject: s.Target,
		Title:   finding.T("The service answered none of the requests", "服务没有应答任何请求"),
		Observed: finding.Tf(finding.T("%d of %d requests failed and %d were still unanswered at the end; no thread dump names a culprit.",
			"%d/%d 个请求失败，结束时仍有 %d 个未得到应答；线程转储中没有找到原因。"), s.Errors, s.Requests, s.Aborted),
		Recommended: finding.T("Check the service log and take thread dumps while it does not answer (tuneloop jvm PID --dump 3).",
			"查看服务日志，并在其无响应时抓取线程转储（tuneloop jvm PID --dump 3）。")}
}

// unansweredBecause is hung's finding with a cause read outside the
// dumps (from): named by the cause's ID, as serviceStalled does.
func unansweredBecause(s *loadgen.Summary, cause *finding.Finding, from finding.Text) *finding.Finding {
	f := hung(s)
	f.ID, f.Subject, f.Severity, f.Confidence = cause.ID, cause.Subject, cause.Severity, cause.Confidence
	f.Title = finding.Tf(finding.T("The service answered none of the requests: %s", "服务没有应答任何请求：%s"), cause.Title)
	f.Observed = finding.Tf(finding.T("%d of %d requests failed and %d were still unanswered at the end; %s: %s",
		"%d/%d 个请求失败，结束时仍有 %d 个未得到应答；%s：%s"), s.Errors, s.Requests, s.Aborted, from, cause.Observed)
	f.Why, f.Recommended, f.Risk, f.Fix = cause.Why, cause.Recommended, cause.Risk, cause.Fix
	f.Evidence = append(slices.Clip(f.Evidence), cause.Evidence...)
	return f
}

func find(fs []finding.Finding, pred func(*finding.Finding) bool) *finding.Finding {
	for i := range fs {
		if fs[i].Status == finding.Fail && pred(&fs[i]) {
			return &fs[i]
		}
	}
	return nil
}

func id(prefix string) func(*finding.Finding) bool {
	return func(f *finding.Finding) bool { return strings.HasPrefix(f.ID, prefix) }
}

// evidence writes one line per layer for the verdict.
type evidence struct{ L *Layers }

func (e evidence) lines(fs ...func() (finding.Text, bool)) []finding.Text {
	var out []finding.Text
	for _, f := range fs {
		if t, ok := f(); ok {
			out = append(out, t)
		}
	}
	return out
}

// ifDownstream adds the endpoints when the culprit is a wait on a remote.
func (e evidence) ifDownstream(c *finding.Finding) func() (finding.Text, bool) {
	return func() (finding.Text, bool) {
		if !strings.Contains(c.ID, "downstream") {
			return finding.Text{}, false
		}
		return e.downstream()
	}
}

func (e evidence) load() (finding.Text, bool) {
	s := e.L.Load
	if s == nil {
		return finding.Text{}, false
	}
	model := s.Model
	if model == "" {
		model = s.Source
	}
	return finding.Tf(finding.T("Load: %.1f TPS, p99 %.1f ms, %d errors of %d requests (%s).", "负载：%.1f TPS，p99 %.1f ms，%d/%d 个请求出错（%s）。"),
		s.TPS, s.Latency.P99, s.Errors, s.Requests, loadgen.ModelText(model)), true
}

func (e evidence) cpu() (finding.Text, bool) {
	st := e.L.Stats
	if st.Ticks == 0 {
		return finding.Text{}, false
	}
	return finding.Tf(finding.T("CPU: %.0f%% busy on average (us %.0f%%, sy %.0f%%, si+hi %.0f%%, wa %.0f%%).", "CPU：平均繁忙 %.0f%%（us %.0f%%，sy %.0f%%，si+hi %.0f%%，wa %.0f%%）。"),
		st.Busy, st.User, st.System, st.Soft, st.Iowait), true
}

func (e evidence) jvmCPU() (finding.Text, bool) {
	if e.L.Stats.ProcCPU < 0 {
		return finding.Text{}, false
	}
	return finding.Tf(finding.T("The JVM used %.0f%% of one core on average.", "JVM 平均占用 %.0f%% 个核。"), e.L.Stats.ProcCPU), true
}

// blocked is the dump with the largest share of working threads blocked or
// waiting.
func (e evidence) blocked() (finding.Text, bool) {
	best := -1.0
	var r *threaddump.Report
	for _, d := range e.L.Reports {
		if d.BlockedWaitingShare > best {
			best, r = d.BlockedWaitingShare, d
		}
	}
	if r == nil || r.Active == 0 {
		return finding.Text{}, false // no working thread: no share to state
	}
	// The Chinese sentence names the count first: indexed verbs.
	return finding.Tf(finding.T("Threads: %.0f%% of the %d working threads blocked or waiting (idle pool threads excluded).", "线程：%[2]d 个工作线程中 %.0[1]f%% 处于阻塞或等待（不含空闲池线程）。"),
		100*r.BlockedWaitingShare, r.Active), true
}

// verdictFinding is the root cause restated with each layer's evidence and,
// as the practice documents conclude, GC stated plainly either way.
func verdictFinding(L *Layers, root *finding.Finding, layers []finding.Text) *finding.Finding {
	if L.GC != nil && !strings.HasPrefix(root.ID, "gc.") {
		s := L.GC.Summary
		notIt := find(L.GC.Findings, func(f *finding.Finding) bool { return f.ID == "gc.not-the-bottleneck" }) != nil
		if notIt || s.ThroughputPct >= 98 {
			layers = append(layers, finding.Tf(finding.T("GC: throughput %.1f%%, p99 pause %.1f ms: GC is not the bottleneck.", "GC：吞吐率 %.1f%%，p99 停顿 %.1f ms：GC 不是瓶颈。"), s.ThroughputPct, s.PauseP99Ms))
		}
	}
	v := *root
	v.ID, v.Category, v.Subject = ID, "run", root.Key()
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

// IDHostTooSmall is the root cause when the CPUs were near saturation and
// nothing more specific explains it.
const IDHostTooSmall = "run.cpu.near-saturated"

func hostTooSmall(L *Layers) *finding.Finding {
	st := L.Stats
	f := &finding.Finding{ID: IDHostTooSmall, Category: "run", Status: finding.Fail, Severity: finding.Warning, Confidence: 0.5,
		Subject: "all-cpus",
		Title:   finding.T("The CPUs are near saturation or oversubscribed: the host is small for this load", "CPU 接近饱和或超额：对这个负载来说主机偏小"),
		Observed: finding.Tf(finding.T("CPU %.0f%% busy on average (us %.0f%%, sy %.0f%%, si+hi %.0f%%); no single thread, lock or GC explains it.",
			"CPU 平均繁忙 %.0f%%（us %.0f%%，sy %.0f%%，si+hi %.0f%%）；没有单个线程、锁或 GC 能解释。"), st.Busy, st.User, st.System, st.Soft),
		Recommended: finding.T("Profile the hot code (JFR or async-profiler), give the service more cores, or run the load generator on another host.",
			"对热点代码做剖析（JFR 或 async-profiler），给服务更多 CPU 核，或把压测机放到另一台主机上。")}
	if L.Load != nil && L.Load.ClientCPU > 0 {
		f.Observed = finding.Tf(finding.T("%s The load generator itself used %.0f%% of the cores.", "%s 压测工具自身占用了 %.0f%% 的 CPU。"), f.Observed, L.Load.ClientCPU)
		f.Evidence = append(f.Evidence, finding.Evidence{Key: "load_generator_cpu_pct", Value: fmt.Sprintf("%.0f", L.Load.ClientCPU), Source: LoadFile})
	}
	f.Evidence = append(f.Evidence, finding.Evidence{Key: "cpu_busy_pct", Value: fmt.Sprintf("%.1f", st.Busy), Source: "raw/samples.jsonl.gz"})
	if rq := find(L.Recorded, runQueue); rq != nil {
		f.Observed = finding.Tf(finding.T("%s %s", "%s%s"), f.Observed, rq.Observed)
		f.Evidence = append(f.Evidence, finding.Evidence{Key: "see_also", Value: rq.Key()})
	}
	return f
}

// IDServiceExited is the root cause when the service ended during the run.
const IDServiceExited = "run.service-exited"

// serviceExited says how and when the service ended, with the last lines of
// its log (the service's own text: sanitised here, once, for every writer).
func serviceExited(se *runfolder.ServiceEnd) *finding.Finding {
	how := finding.T("the service exited", "服务退出")
	switch {
	case se.ExitCode >= 0 && se.Signal != "":
		how = finding.Tf(finding.T("the service exited with code %d (%s)", "服务以退出码 %d 退出（%s）"), se.ExitCode, se.Signal)
	case se.ExitCode >= 0:
		how = finding.Tf(finding.T("the service exited with code %d", "服务以退出码 %d 退出"), se.ExitCode)
	}
	lines := make([]string, 0, len(se.LastLog))
	for _, l := range se.LastLog {
		if l = strings.TrimSpace(finding.SafeLine(l)); l != "" {
			lines = append(lines, l)
		}
	}
	last := finding.T("its log is empty", "其日志为空")
	if n := len(lines); n > 0 {
		l := lines[n-1]
		if len(l) > 160 {
			l = l[:160] + "..."
		}
		last = finding.Tf(finding.T("last log lines: %s", "日志最后几行：%s"), l)
	}
	f := &finding.Finding{ID: IDServiceExited, Category: "run", Status: finding.Fail, Severity: finding.Critical, Confidence: 1,
		Subject: fmt.Sprintf("pid %d", se.PID),
		Title: finding.Tf(finding.T("%s at %+.1f s of the load; %s", "%s，发生在负载的第 %+.1f 秒；%s"), finding.Text{
			EN: strings.ToUpper(how.EN[:1]) + how.EN[1:], ZH: how.ZH}, se.AtS, last),
		Observed: finding.Tf(finding.T("The service (pid %d) ended %+.1f s into the measured load; the load was stopped then, and what this run shows covers the time until then. Its log ends with:\n%s",
			"服务（pid %d）在测量负载开始后 %+.1f 秒结束；负载随即停止，本次运行的证据只覆盖到这一刻。其日志结尾：\n%s"), se.PID, se.AtS, strings.Join(lines, "\n")),
		Recommended: finding.T("Read the whole service log (raw/service.log in the run folder): an exit code of 137 is SIGKILL (the kernel's OOM killer: dmesg; a container memory limit; an operator), 143 SIGTERM, 134 an abort (hs_err_pid*.log in the working directory), 1 an exception at the top of main.",
			"阅读完整的服务日志（运行目录中的 raw/service.log）：退出码 137 表示 SIGKILL（内核 OOM killer：查看 dmesg；容器内存限制；或被人为杀死），143 表示 SIGTERM，134 表示 abort（工作目录中的 hs_err_pid*.log），1 表示 main 抛出了异常。"),
		Evidence: []finding.Evidence{{Key: "exit_code", Value: fmt.Sprint(se.ExitCode), Source: runfolder.ManifestFile},
			{Key: "at_s", Value: fmt.Sprintf("%.1f", se.AtS), Source: runfolder.ManifestFile}}}
	return f
}

// ServiceExited is the branch of a service that ended during the run
// (tried first: the rest of the evidence covers the run until then).
const ServiceExited Branch = "service-exited"

// ServiceStalled is the branch of a service that stopped answering during
// the run (tried first, with ServiceExited).
const ServiceStalled Branch = "service-stalled"

// IDServiceStalled is the root cause when the service stopped answering.
const IDServiceStalled = "run.service-stalled"

// Where a hung service's cause was read, as serviceStalled says it.
var (
	fromDumps = finding.T("in the thread dumps taken then", "当时抓取的线程转储显示")
	fromLog   = finding.T("in its log", "其日志显示")
	fromGCLog = finding.T("in its GC log", "其 GC 日志显示")
)

// serviceStalled says when the service stopped answering and, when its
// thread dumps, its log or its GC log (from) name one, why.
func serviceStalled(se *runfolder.ServiceEnd, cause *finding.Finding, from finding.Text) *finding.Finding {
	f := &finding.Finding{ID: IDServiceStalled, Category: "run", Status: finding.Fail, Severity: finding.Critical, Confidence: 0.7,
		Subject: fmt.Sprintf("pid %d", se.PID),
		Title:   finding.Tf(finding.T("The service stopped answering at %+.1f s of the load", "服务在负载的第 %+.1f 秒停止应答"), se.AtS),
		Observed: finding.Tf(finding.T("No request succeeded after %+.1f s; the load was stopped and three thread dumps taken a second apart; nothing in them names a culprit.",
			"第 %+.1f 秒之后没有请求成功；负载随即停止，并间隔一秒抓取了三次线程转储；其中没有找到原因。"), se.AtS),
		Recommended: finding.T("Read the thread dumps in raw/ (tuneloop analyze RUN_DIR) and the service log, and take more while it does not answer (tuneloop jvm PID --dump 3).",
			"阅读 raw/ 中的线程转储（tuneloop analyze RUN_DIR）和服务日志，并在其无响应时继续抓取（tuneloop jvm PID --dump 3）。"),
		Evidence: []finding.Evidence{{Key: "at_s", Value: fmt.Sprintf("%.1f", se.AtS), Source: runfolder.ManifestFile}}}
	if cause != nil {
		f.Title = finding.Tf(finding.T("The service stopped answering at %+.1f s of the load: %s", "服务在负载的第 %+.1f 秒停止应答：%s"), se.AtS, cause.Title)
		f.Observed = finding.Tf(finding.T("No request succeeded after %+.1f s; %s: %s",
			"第 %+.1f 秒之后没有请求成功；%s：%s"), se.AtS, from, cause.Observed)
		f.Recommended, f.Fix = cause.Recommended, cause.Fix
		f.Why, f.Risk = cause.Why, cause.Risk
		if from == fromDumps {
			f.Evidence = append(f.Evidence, finding.Evidence{Key: "see_also", Value: cause.Key()})
		} else {
			// Read from the log or the GC log here, listed nowhere else.
			f.Evidence = append(f.Evidence, cause.Evidence...)
		}
		// The verdict names the cause (what a CI gate or compare matches
		// on); its title says the service stopped answering because of it.
		f.ID, f.Subject = cause.ID, cause.Subject
	}
	return f
}
