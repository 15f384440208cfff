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

// The branches; which one wins when several hold is the order of the
// decision table's rows (decision.go), most specific first.
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

// decide picks the root cause and the layer lines that support it: the
// first row of the decision table that names one.
func decide(L *Layers, recorded []finding.Finding, ev *mechanism.Evidence) (*finding.Finding, Branch, []finding.Text) {
	in := newInput(L, recorded, ev)
	for _, s := range decision {
		if root := s.Root(in); root != nil {
			return root, s.Branch, s.Layers(evidence{L: L, dumps: in.Dumps}, root)
		}
	}
	return nil, None, nil
}

// newInput is the verdict rules' input: the layers and the findings made
// of them so far.
func newInput(L *Layers, recorded []finding.Finding, ev *mechanism.Evidence) *Input {
	in := &Input{L: L, Recorded: recorded, Ev: ev}
	if L.Folder != nil {
		in.Service = L.Folder.Manifest.Service
	}
	for _, f := range recorded {
		if strings.HasPrefix(f.ID, "threaddump.") {
			in.Dumps = append(in.Dumps, f)
		}
	}
	finding.Sort(in.Dumps)
	if L.GC != nil {
		in.GCCause = find(L.GC.Findings, func(f *finding.Finding) bool { return f.Severity >= finding.Warning && f.ID != "gc.unparsed-lines" })
	}
	return in
}

// culprit is the first thread-dump finding that names a cause (not a
// reading) at min or above.
func (in *Input) culprit(min finding.Severity) *finding.Finding {
	return find(in.Dumps, func(f *finding.Finding) bool { return !culpritExclude[f.ID] && f.Severity >= min })
}

// ioCause is a disk, memory, I/O or network finding at warning level.
func ioCause(f *finding.Finding) bool {
	return f.Severity >= finding.Warning && (strings.HasPrefix(f.ID, "run.disk") || strings.HasPrefix(f.ID, "run.mem") ||
		strings.HasPrefix(f.ID, "run.io") || strings.HasPrefix(f.ID, "run.net."))
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

// evalUnanswered: a load that got no answer at all, and why when the GC
// log says so (its own out-of-memory, then full GCs back to back at its
// end: collecting back to back stops every thread, so it explains whatever
// the dumps show them waiting on). A culprit in the dumps, and no such GC
// log, leaves the dumps' finding to name it.
func evalUnanswered(in *Input) []finding.Outcome {
	s := in.L.Load
	if !unanswered(s) {
		return nil
	}
	cause := gcOutOfMemory(in.L)
	if cause == nil {
		cause = in.cause(IDServiceInGC)
	}
	if cause == nil {
		if in.culprit(finding.Warning) != nil {
			return nil
		}
		return []finding.Outcome{{Status: finding.Fail, Confidence: 0.6, Subject: s.Target,
			Observed: finding.Tf(finding.T("%d of %d requests failed and %d were still unanswered at the end; no thread dump names a culprit.",
				"%d/%d 个请求失败，结束时仍有 %d 个未得到应答；线程转储中没有找到原因。"), s.Errors, s.Requests, s.Aborted)}}
	}
	o := restate(cause, finding.Tf(finding.T("The service answered none of the requests: %s", "服务没有应答任何请求：%s"), cause.Title))
	o.Severity, o.SevSet = cause.Severity, true
	o.Observed = finding.Tf(finding.T("%d of %d requests failed and %d were still unanswered at the end; %s: %s",
		"%d/%d 个请求失败，结束时仍有 %d 个未得到应答；%s：%s"), s.Errors, s.Requests, s.Aborted, fromGCLog, cause.Observed)
	o.Evidence = append([]finding.Evidence(nil), cause.Evidence...)
	return []finding.Outcome{o}
}

// restate is an outcome that names cause (what a CI gate or compare
// matches on) under title: its ID, subject, confidence, why, advice, fix,
// risk and references.
func restate(cause *finding.Finding, title finding.Text) finding.Outcome {
	return finding.Outcome{ID: cause.ID, Subject: cause.Subject, Status: finding.Fail, Confidence: cause.Confidence, Title: title,
		Why: cause.Why, Recommended: cause.Recommended, Fix: cause.Fix, Risk: cause.Risk, References: cause.References}
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

// evidence writes one line per layer for the verdict; dumps are the
// thread dumps' findings, ranked.
type evidence struct {
	L     *Layers
	dumps []finding.Finding
}

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
		// The GC summary's one sentence (gclog.Headline.Line, as every page
		// says it), then why it is not the cause.
		h := L.GC.Summary.Headline(L.GC.Findings)
		switch {
		case !h.Verdict.IsZero(): // gc.not-the-bottleneck passed: Line ends with it
			layers = append(layers, finding.Join(finding.T("GC: ", "GC："), h.Line(), finding.T(".", "。")))
		case h.ThroughputPct >= 98:
			layers = append(layers, finding.Join(finding.T("GC: ", "GC："), h.Line(),
				finding.T(" At this throughput GC is not the bottleneck.", "在此吞吐率下 GC 不是瓶颈。")))
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

// evalNearSaturated: the CPUs near saturation (busy on average, or a run
// queue longer than the CPUs at warning level), whatever else is named.
func evalNearSaturated(in *Input) []finding.Outcome {
	L, st := in.L, in.L.Stats
	rq := find(L.Recorded, runQueue)
	if st.Busy < nearSaturated && rq == nil {
		return nil
	}
	o := finding.Outcome{Status: finding.Fail, Confidence: 0.5, Subject: "all-cpus",
		Observed: finding.Tf(finding.T("CPU %.0f%% busy on average (us %.0f%%, sy %.0f%%, si+hi %.0f%%); no single thread, lock or GC explains it.",
			"CPU 平均繁忙 %.0f%%（us %.0f%%，sy %.0f%%，si+hi %.0f%%）；没有单个线程、锁或 GC 能解释。"), st.Busy, st.User, st.System, st.Soft)}
	if L.Load != nil && L.Load.ClientCPU > 0 {
		o.Observed = finding.Tf(finding.T("%s The load generator itself used %.0f%% of the cores.", "%s 压测工具自身占用了 %.0f%% 的 CPU。"), o.Observed, L.Load.ClientCPU)
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "load_generator_cpu_pct", Value: fmt.Sprintf("%.0f", L.Load.ClientCPU), Source: LoadFile})
	}
	o.Evidence = append(o.Evidence, finding.Evidence{Key: "cpu_busy_pct", Value: fmt.Sprintf("%.1f", st.Busy), Source: "raw/samples.jsonl.gz"})
	if rq != nil {
		o.Observed = finding.Tf(finding.T("%s %s", "%s%s"), o.Observed, rq.Observed)
		o.Evidence = append(o.Evidence, finding.Evidence{Key: "see_also", Value: rq.Key()})
	}
	return []finding.Outcome{o}
}

// IDServiceExited is the root cause when the service ended during the run.
const IDServiceExited = "run.service-exited"

// evalServiceExited: the service ended during the run (it did not hang);
// says how and when, with the last lines of its log (the service's own
// text: sanitised here, once, for every writer).
func evalServiceExited(in *Input) []finding.Outcome {
	se := in.Service
	if se == nil || se.Hung {
		return nil
	}
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
	return []finding.Outcome{{Status: finding.Fail, Confidence: 1, Subject: fmt.Sprintf("pid %d", se.PID),
		Title: finding.Tf(finding.T("%s at %+.1f s of the load; %s", "%s，发生在负载的第 %+.1f 秒；%s"), finding.Text{
			EN: strings.ToUpper(how.EN[:1]) + how.EN[1:], ZH: how.ZH}, se.AtS, last),
		Observed: finding.Tf(finding.T("The service (pid %d) ended %+.1f s into the measured load; the load was stopped then, and what this run shows covers the time until then. Its log ends with:\n%s",
			"服务（pid %d）在测量负载开始后 %+.1f 秒结束；负载随即停止，本次运行的证据只覆盖到这一刻。其日志结尾：\n%s"), se.PID, se.AtS, strings.Join(lines, "\n")),
		Evidence: []finding.Evidence{{Key: "exit_code", Value: fmt.Sprint(se.ExitCode), Source: runfolder.ManifestFile},
			{Key: "at_s", Value: fmt.Sprintf("%.1f", se.AtS), Source: runfolder.ManifestFile}}}}
}

// ServiceExited is the branch of a service that ended during the run
// (tried first: the rest of the evidence covers the run until then).
const ServiceExited Branch = "service-exited"

// ServiceStalled is the branch of a service that stopped answering during
// the run (tried first, with ServiceExited).
const ServiceStalled Branch = "service-stalled"

// IDServiceStalled is the root cause when the service stopped answering.
const IDServiceStalled = "run.service-stalled"

// Where a hung service's cause was read, as evalServiceStalled says it.
var (
	fromDumps = finding.T("in the thread dumps taken then", "当时抓取的线程转储显示")
	fromLog   = finding.T("in its log", "其日志显示")
	fromGCLog = finding.T("in its GC log", "其 GC 日志显示")
)

// evalServiceStalled says when the service stopped answering and, when
// its thread dumps, its log or its GC log name one, why: a deadlock in its
// dumps, an OutOfMemoryError in its log, a GC log ending in its own
// out-of-memory or in full GCs back to back, or what its working threads
// wait on, in that order (each explains the ones after it).
func evalServiceStalled(in *Input) []finding.Outcome {
	se := in.Service
	if se == nil || !se.Hung {
		return nil
	}
	o := finding.Outcome{Status: finding.Fail, Confidence: 0.7, Subject: fmt.Sprintf("pid %d", se.PID),
		Title: finding.Tf(finding.T("The service stopped answering at %+.1f s of the load", "服务在负载的第 %+.1f 秒停止应答"), se.AtS),
		Observed: finding.Tf(finding.T("No request succeeded after %+.1f s; the load was stopped and three thread dumps taken a second apart; nothing in them names a culprit.",
			"第 %+.1f 秒之后没有请求成功；负载随即停止，并间隔一秒抓取了三次线程转储；其中没有找到原因。"), se.AtS),
		Evidence: []finding.Evidence{{Key: "at_s", Value: fmt.Sprintf("%.1f", se.AtS), Source: runfolder.ManifestFile}}}
	cause, from := in.stalledBy()
	if cause == nil {
		return []finding.Outcome{o}
	}
	// The verdict names the cause (what a CI gate or compare matches on);
	// its title says the service stopped answering because of it.
	c := restate(cause, finding.Tf(finding.T("The service stopped answering at %+.1f s of the load: %s", "服务在负载的第 %+.1f 秒停止应答：%s"), se.AtS, cause.Title))
	c.Confidence = o.Confidence
	c.Observed = finding.Tf(finding.T("No request succeeded after %+.1f s; %s: %s", "第 %+.1f 秒之后没有请求成功；%s：%s"), se.AtS, from, cause.Observed)
	if from == fromDumps {
		c.Evidence = append(o.Evidence, finding.Evidence{Key: "see_also", Value: cause.Key()})
	} else {
		// Read from the log or the GC log here, listed nowhere else.
		c.Evidence = append(o.Evidence, cause.Evidence...)
	}
	return []finding.Outcome{c}
}

// stalledBy is why a hung service stopped answering, and where that was
// read (nil: nothing says).
func (in *Input) stalledBy() (*finding.Finding, finding.Text) {
	if c := find(in.Dumps, id("threaddump.deadlock")); c != nil {
		return c, fromDumps
	}
	if c := in.cause(IDServiceOOM); c != nil {
		return c, fromLog
	}
	if c := gcOutOfMemory(in.L); c != nil {
		return c, fromGCLog
	}
	if c := in.cause(IDServiceInGC); c != nil {
		return c, fromGCLog
	}
	if c := in.culprit(finding.Warning); c != nil {
		return c, fromDumps
	}
	return nil, fromDumps
}
