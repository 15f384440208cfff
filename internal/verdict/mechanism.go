package verdict

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// saturatedBusy: at this mean CPU busy % the CPUs are the limit; a queue
// behind a lock is then read against where the CPU samples are.
const saturatedBusy = 85

// Evidence gathers what the mechanism catalogue reads from a run's
// layers: the threads' time from the dumps (and JFR's events when the
// recording holds them), the GC's causes, the host's saturation.
func Evidence(L *Layers) *mechanism.Evidence {
	e := &mechanism.Evidence{Events: map[string]int{}, Frameworks: map[string]bool{}}
	e.BusyPct, e.UserPct, e.SysPct = L.Stats.Busy, L.Stats.User, L.Stats.System
	e.CPUs = L.onlineCPUs()
	e.Saturated = L.Stats.Ticks > 0 && L.Stats.Busy >= saturatedBusy
	for _, f := range L.Recorded {
		if f.Severity >= finding.Warning && strings.HasPrefix(f.ID, "run.") {
			e.HostFindings = append(e.HostFindings, f.ID)
		}
	}
	// The delayed-ACK finding is the verdict's own (from the load and the
	// TCP counters), not a recorded one.
	if f := delayedACK(L); f != nil && !slices.Contains(e.HostFindings, f.ID) {
		e.HostFindings = append(e.HostFindings, f.ID)
	}
	if othersTakeCPU(L, e) {
		e.HostFindings = append(e.HostFindings, IDCPUOthers)
	}
	for i, d := range L.Dumps {
		if i < len(L.Reports) {
			e.Slices = append(e.Slices, dumpSlices(d, L.Reports[i])...)
			e.Dumps++
			if len(L.Reports[i].Deadlocks) > 0 {
				e.Deadlock = true
			}
		}
	}
	// A JFR stack is cut at 64 frames from the leaf and may lose the loop
	// that says what a thread is for: a thread the dumps show takes the
	// role its whole stack there gave.
	byName := map[string]mechanism.Slice{}
	for _, s := range e.Slices {
		if _, ok := byName[s.Thread]; !ok || s.State != mechanism.Idle {
			byName[s.Thread] = s
		}
	}
	for _, s := range L.Threads {
		if d, ok := byName[s.Thread]; ok {
			s.Role, s.Pool = d.Role, d.Pool
		}
		e.Slices = append(e.Slices, s)
	}
	if L.Alloc != nil {
		for _, a := range L.Alloc.Samples {
			// Root first, the allocated class as the leaf (left out): the
			// frames leaf first here.
			st := make([]mechanism.Frame, 0, len(a.Stack))
			for i := len(a.Stack) - 2; i >= 0; i-- {
				st = append(st, mechanism.Frame{Method: a.Stack[i]})
			}
			e.Alloc = append(e.Alloc, mechanism.Slice{Stack: st, Weight: float64(a.Value), Events: max(a.Events, 1), Source: mechanism.FromJFR})
		}
	}
	for _, s := range L.Threads {
		e.JFREvents += s.Events
	}
	for k, n := range L.ThreadRead.Events {
		e.Events["jfr."+string(k)] = n
	}
	gcFacts(L, e)
	frameworks(e)
	return e
}

// gcFacts copies the GC log's causes.
func gcFacts(L *Layers, e *mechanism.Evidence) {
	e.GC.PausePct, e.GC.LiveAfterFullPct = -1, -1
	if L.GC == nil {
		return
	}
	s := &L.GC.Summary
	e.GC.Collector, e.GC.Pauses = s.CollectorName, s.Pauses
	if s.ThroughputPct >= 0 {
		e.GC.PausePct = 100 - s.ThroughputPct
	}
	e.GC.Full, e.GC.Humongous, e.GC.ToSpaceExhausted = s.FullGCs, s.HumongousGCs, s.ToSpaceExhausted
	e.GC.Explicit, e.GC.Metadata, e.GC.PromotionFailed, e.GC.ConcurrentFailure = s.ExplicitGCs, s.MetadataGCs, s.PromotionFailed, s.ConcModeFailures
	if s.AllocRateMBs > 0 {
		e.GC.AllocMBs = s.AllocRateMBs
	}
	if s.HeapMaxKB > 0 {
		e.GC.HeapMaxMB = float64(s.HeapMaxKB) / 1024
		// The heap still used after old/full collections (the trend's
		// fitted end), as a share of the heap: what a larger heap must hold.
		if h := s.HeapAfter; h.Basis == "old" && h.Points >= minLivePoints && h.LastKB > 0 {
			e.GC.LiveAfterFullPct = min(100, 100*h.LastKB/float64(s.HeapMaxKB))
		}
	}
	for _, f := range L.GC.Findings {
		if f.Severity >= finding.Warning {
			e.GC.Findings = append(e.GC.Findings, f.ID)
		}
	}
}

// minLivePoints: old collections the live-after-full trend needs.
const minLivePoints = 3

// IDCPUOthers is the host fact the verdict derives for the catalogue (not
// a finding of its own: run.cpu.saturated says it in words): the CPUs are
// saturated and the service used under diagnose.OthersShare of the busy
// cores, or the hypervisor steals them.
const IDCPUOthers = "run.cpu.others"

func othersTakeCPU(L *Layers, e *mechanism.Evidence) bool {
	for _, h := range e.HostFindings {
		if h == diagnose.IDSteal {
			return true
		}
	}
	if !e.Saturated || e.CPUs == 0 || L.Stats.ProcCPU < 0 {
		return false
	}
	busyCores := L.Stats.Busy / 100 * float64(e.CPUs)
	return L.Stats.ProcCPU/100 < diagnose.OthersShare*busyCores
}

// frameworks names the frameworks and libraries the threads run, by
// threadrole.Library (the one list of library frames): a fix is said for
// the framework in use. The JDK's own frames and generated ones name none.
func frameworks(e *mechanism.Evidence) {
	seen := map[string]bool{}
	for i := range e.Slices {
		for _, f := range e.Slices[i].Stack {
			if seen[f.Method] {
				continue
			}
			seen[f.Method] = true
			if lib := threadrole.Library(f.Method); lib != "" && lib != "jdk" && lib != "generated" {
				e.Frameworks[lib] = true
			}
		}
	}
}

// dumpSlices is every thread of one dump as a slice of weight 1.
func dumpSlices(d *threaddump.Dump, r *threaddump.Report) []mechanism.Slice {
	owners := map[string]*threaddump.Thread{}
	for _, t := range d.Threads {
		for _, l := range t.Locked {
			owners[l.Key()] = t
		}
		for _, l := range t.OwnableSynchronizers {
			owners[l.Key()] = t
		}
	}
	out := make([]mechanism.Slice, 0, len(d.Threads))
	for _, t := range d.Threads {
		st := frames(t.Stack())
		// The role from the thread's own frames: on JDK 21+ a carrier's
		// Stack() is the mounted virtual thread's.
		methods := make([]string, len(t.Frames))
		for i, f := range t.Frames {
			methods[i] = f.Method
		}
		role := threadrole.Classify(t.Name, methods)
		s := mechanism.Slice{Thread: t.Name, Role: string(role.Kind), Pool: role.Pool, Stack: st, Weight: 1, Events: 1, Source: mechanism.FromDumps}
		s.State = stateOf(t)
		switch {
		case r.IsIdle(t):
			s.State = mechanism.Idle
		case len(st) == 0 && s.State == mechanism.Running:
			// No frame says what it runs (an unmounted virtual thread, a
			// VM thread): no time of the account.
			s.State = mechanism.Idle
		case role.Kind == threadrole.VirtualCarrier && slices.ContainsFunc(t.Frames, func(f threaddump.Frame) bool {
			return strings.HasPrefix(f.Method, "jdk.internal.vm.Continuation.run")
		}):
			// A carrier's time is its mounted virtual thread's, which the
			// dump lists on its own: counted there.
			s.State = mechanism.Idle
		}
		var wait []threaddump.LockRef
		switch {
		case len(t.WaitingToLock) > 0:
			wait = t.WaitingToLock
		case len(t.Parking) > 0:
			wait = t.Parking
		case len(t.WaitingOn) > 0:
			wait = t.WaitingOn
		}
		if len(wait) > 0 {
			s.Lock = wait[0].Class
			if h := owners[wait[0].Key()]; h != nil && h != t {
				s.Holder = frames(h.Stack())
			}
		}
		out = append(out, s)
	}
	return out
}

func stateOf(t *threaddump.Thread) mechanism.State {
	switch threaddump.ActivityOf(t) {
	case threaddump.ActFsync, threaddump.ActFileRead, threaddump.ActFileWrite, threaddump.ActFileIO:
		return mechanism.File
	case threaddump.ActSocketRead, threaddump.ActSocketWrite:
		return mechanism.Socket
	case threaddump.ActSleep:
		return mechanism.Sleeping
	case threaddump.ActBlocked:
		return mechanism.Blocked
	case threaddump.ActWaiting:
		if len(t.Parking) > 0 || slices.ContainsFunc(t.Stack(), func(f threaddump.Frame) bool {
			return strings.HasPrefix(f.Method, "jdk.internal.misc.Unsafe.park") || strings.HasPrefix(f.Method, "sun.misc.Unsafe.park")
		}) {
			return mechanism.Parked
		}
		return mechanism.Waiting
	case threaddump.ActRunning:
		return mechanism.Running
	}
	return mechanism.Idle
}

// frames converts a dump's stack (leaf first) with line numbers.
func frames(fs []threaddump.Frame) []mechanism.Frame {
	out := make([]mechanism.Frame, len(fs))
	for i, f := range fs {
		out[i] = mechanism.Frame{Method: f.Method, Line: lineOf(f.Source)}
	}
	return out
}

// lineOf reads the line of "Foo.java:123" (0: none).
func lineOf(src string) int {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return 0
	}
	return n
}

// families are the mechanism families that can explain a branch.
func families(b Branch) []mechanism.Family {
	switch b {
	case Deadlock:
		return []mechanism.Family{mechanism.Lock}
	case Softirq:
		return []mechanism.Family{mechanism.Host}
	case DelayedACK:
		return []mechanism.Family{mechanism.IO}
	case GCCritical, GC:
		return []mechanism.Family{mechanism.GC}
	case CPUSaturated, HostTooSmall:
		return []mechanism.Family{mechanism.CPU, mechanism.Logging, mechanism.Lock, mechanism.JVM, mechanism.EventLoop}
	case SerialStage:
		return []mechanism.Family{mechanism.CPU, mechanism.Pool, mechanism.Wait, mechanism.Lock, mechanism.Logging, mechanism.EventLoop}
	case IO:
		return []mechanism.Family{mechanism.IO, mechanism.Lock, mechanism.Logging, mechanism.Wait}
	case GeneratorSaturated, None, ServiceExited:
		return []mechanism.Family{"-"} // no mechanism of the service explains these
	}
	// Locks, pools, waits, a hung or stalled service, a latency-bound run.
	return []mechanism.Family{mechanism.Lock, mechanism.Logging, mechanism.Pool, mechanism.Wait, mechanism.EventLoop,
		mechanism.IO, mechanism.JVM, mechanism.GC}
}

// familiesOf narrows families for a service that stopped answering or got
// no answer to what its cause was read from: the GC log (GC), the dumps
// (locks, pools, waits, logging, event loops), its own log (none).
func familiesOf(b Branch, root *finding.Finding) []mechanism.Family {
	if b == CPUSaturated && root.EvidenceValue(diagnose.EvidenceByOthers) != "" {
		// Other processes took the CPUs: the service's own mechanism is
		// whatever its threads wait on, not its CPU work.
		return []mechanism.Family{mechanism.Lock, mechanism.Logging, mechanism.Pool, mechanism.Wait, mechanism.EventLoop,
			mechanism.IO, mechanism.JVM, mechanism.GC, mechanism.Host}
	}
	if b != ServiceStalled && b != Unanswered {
		return families(b)
	}
	switch {
	case strings.HasPrefix(root.ID, "gc."):
		return []mechanism.Family{mechanism.GC}
	case strings.HasPrefix(root.ID, "threaddump."), root.ID == IDServiceStalled, root.ID == IDHung:
		// A cause read from the dumps, or none named yet: what the
		// stalled threads wait on.
		return []mechanism.Family{mechanism.Lock, mechanism.Logging, mechanism.Pool, mechanism.Wait, mechanism.EventLoop, mechanism.IO, mechanism.JVM}
	}
	return []mechanism.Family{"-"}
}

// cpuIsTheCause: the CPUs are saturated and the catalogue's best
// explanation over every family is CPU work (a queue's share, read against
// the running share, ranked behind it).
func cpuIsTheCause(ev *mechanism.Evidence) bool {
	if !ev.Saturated {
		return false
	}
	ns := mechanism.Name(ev)
	return len(ns) > 0 && ns[0].Entry.Family == mechanism.CPU
}

// withMechanism names the mechanism in the verdict: its name in the title
// when it is specific, the account line and the code line in what was
// seen, its evidence, and its fix for the framework in use.
func withMechanism(v *finding.Finding, n *mechanism.Named, b Branch) {
	f := &n.Finding
	// A service that stopped answering or deadlocked keeps that headline,
	// and so does a cause read from host facts alone (a NIC's interrupts,
	// a delayed ACK): there the mechanism adds its evidence and, when the
	// framework in use has a fix of its own, that fix.
	stalled := b == ServiceStalled || b == Unanswered || b == Deadlock
	factsOnly := n.Match.Of == 0
	if !n.Entry.Generic && !stalled && !factsOnly {
		v.Title = finding.Text{EN: "Root cause: " + f.Title.EN, ZH: "根因：" + f.Title.ZH}
	}
	if !factsOnly || n.Match.HasCode {
		v.Observed = finding.Text{EN: v.Observed.EN + "\nMechanism: " + f.Title.EN + ": " + f.Observed.EN,
			ZH: v.Observed.ZH + "\n机制：" + f.Title.ZH + "：" + f.Observed.ZH}
	}
	v.Evidence = append(slices.Clip(v.Evidence), f.Evidence...)
	uncaused := v.Subject == IDServiceStalled || strings.HasPrefix(v.Subject, IDServiceStalled+"/") || strings.HasPrefix(v.Subject, IDHung)
	if (stalled && !uncaused) || (factsOnly && f.EvidenceValue("fix_for") == "" && !n.Match.HasCode) {
		return // the root's own fix stands
	}
	if uncaused {
		// The dumps named no culprit; the time account of them and of the
		// recording names a mechanism: say so instead.
		v.Observed.EN = strings.Replace(v.Observed.EN, "nothing in them names a culprit", "no dump finding names a culprit, the threads' time names the mechanism below", 1)
		v.Observed.ZH = strings.Replace(v.Observed.ZH, "其中没有找到原因", "转储的诊断未指出原因，线程的时间账指向下面的机制", 1)
	}
	if !f.Recommended.IsZero() {
		code := f.EvidenceValue("code")
		rec := f.Recommended
		if code != "" {
			rec = finding.Tf(finding.T("At %s: %s", "在 %s：%s"), code, rec)
		}
		if n.Entry.Generic && !v.Recommended.IsZero() {
			rec = finding.Tf(finding.T("%s %s", "%s%s"), rec, v.Recommended)
		}
		v.Recommended = rec
		if f.Fix.Apply != "" || v.Fix.Apply == "" || strings.HasPrefix(v.Fix.Apply, "tuneloop jvm") {
			v.Fix = f.Fix
		}
	}
	if factsOnly {
		return // the root's why and risk say the same, with its numbers
	}
	v.Why = f.Why
	if !f.Risk.IsZero() {
		v.Risk = f.Risk
	}
	if v.Confidence > f.Confidence && f.Confidence > 0 {
		v.Confidence = (v.Confidence + f.Confidence) / 2
	}
}

// toolAdvice are the words of advice to capture evidence with another tool.
var toolAdvice = []string{"async-profiler", "asprof", "jstack", "jcmd", "tuneloop jvm", "thread dump", "Profile the hot",
	"profiling", "JFR or", "take more", "线程转储", "剖析", "做 profiling", "线程栈"}

// pointToEvidence keeps the verdict from sending the user to a tool whose
// evidence the run already holds: such advice is replaced by the report's
// own section (the flame graph, the thread dumps); advice to capture what
// the run lacks stays.
func pointToEvidence(L *Layers, v *finding.Finding) {
	hasJFR, hasDumps := L.Stacks != nil && L.Samples > 0, len(L.Dumps) > 0
	if !hasJFR && !hasDumps {
		return
	}
	en, cutEN := dropAdvice(v.Recommended.EN, []string{"; ", ". "})
	zh, cutZH := dropAdvice(v.Recommended.ZH, []string{"；", "。"})
	if fx := v.Fix.Apply + " " + v.Fix.Note.EN; containsAny(fx, toolAdvice) {
		v.Fix = finding.Fix{}
		cutEN, cutZH = true, true
	}
	if !cutEN && !cutZH {
		return
	}
	var ptr finding.Text
	switch {
	case hasJFR && hasDumps:
		ptr = finding.T("The run already holds the evidence: its CPU flame graph and lock table (report sections \"CPU profile\" and \"Locks\") and its thread dumps (raw/threaddump-*.txt, section \"Threads\").",
			"本次运行已包含所需证据：CPU 火焰图与锁表（报告的“CPU 剖析”与“锁”部分），以及线程转储（raw/threaddump-*.txt，“线程”部分）。")
	case hasJFR:
		ptr = finding.T("The run already holds the evidence: its CPU flame graph and lock table (report sections \"CPU profile\" and \"Locks\").",
			"本次运行已包含所需证据：CPU 火焰图与锁表（报告的“CPU 剖析”与“锁”部分）。")
	default:
		ptr = finding.T("The run already holds the evidence: its thread dumps (raw/threaddump-*.txt, report section \"Threads\").",
			"本次运行已包含所需证据：线程转储（raw/threaddump-*.txt，报告的“线程”部分）。")
	}
	v.Recommended = finding.T(strings.TrimSpace(en+" "+ptr.EN), strings.TrimSpace(zh+ptr.ZH))
}

// dropAdvice removes the clauses of s that advise a capture tool.
func dropAdvice(s string, seps []string) (string, bool) {
	parts := []string{s}
	for _, sep := range seps {
		var next []string
		for _, p := range parts {
			for i, q := range strings.Split(p, sep) {
				if i < len(strings.Split(p, sep))-1 {
					q += sep
				}
				next = append(next, q)
			}
		}
		parts = next
	}
	var keep []string
	cut := false
	for _, p := range parts {
		if containsAny(p, toolAdvice) {
			cut = true
			continue
		}
		keep = append(keep, p)
	}
	return strings.TrimSpace(strings.Join(keep, "")), cut
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
