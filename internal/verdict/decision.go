package verdict

import (
	"slices"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// step is one row of the decision: Root names the row's root cause (nil:
// the row does not apply), Layers the lines of each layer's evidence the
// verdict states with it.
type step struct {
	Branch Branch
	Root   func(*Input) *finding.Finding
	Layers func(e evidence, root *finding.Finding) []finding.Text
}

// decision is which cause wins when several hold, as data: the first row
// that names a root decides, most specific first. Its causes are the
// verdict's rules (Rules) and the findings of the other layers (the host
// diagnosis, the dumps, the GC log).
var decision = []step{
	// It stopped answering: the rule says why, from its dumps, its log or
	// its GC log (each explains the ones after it).
	{ServiceStalled, cause(IDServiceStalled), withGCEnd},
	// It ended: nothing measured after it means anything.
	{ServiceExited, cause(IDServiceExited), loadCPU},
	{Deadlock, dump("threaddump.deadlock"), loadBlocked},
	// No answer at all: why from the GC log, or no culprit anywhere ...
	{Unanswered, cause(IDHung), withGCEnd},
	// ... else what the dumps show the threads waiting on.
	{Unanswered, when(func(in *Input) bool { return unanswered(in.L.Load) }, culprit(finding.Warning)), loadBlocked},
	{Softirq, recorded("run.irq."), loadCPU},
	// Specific and measured (latency at the kernel's 40 ms with a delayed
	// ACK per request): it outranks the threads it leaves waiting in
	// socket reads.
	{DelayedACK, cause(IDDelayedACK), loadCPU},
	{SerialStage, recorded(diagnose.IDSerialThread), loadCPU},
	// GC eating a large share of the time stalls every thread, lock
	// holders included: the queues behind locks are its symptom.
	{GCCritical, gcCause(finding.Critical), loadCPUBlocked},
	// A queue while the CPUs are saturated and the request threads'
	// largest share is running: the queue is the saturation's symptom.
	{CPUSaturated, when(queueOnSaturatedCPU, recorded(diagnose.IDCPUSaturated)), loadJVMBlocked},
	{CPUSaturated, when(queueOnSaturatedCPU, cause(IDHostTooSmall)), loadJVMBlocked},
	{LockMost, culprit(finding.Critical), lockLayers},
	{LockCPURoom, when(func(in *Input) bool { return in.L.Stats.Busy < lockNeedsRoom }, culprit(finding.Warning)), lockLayers},
	{GC, gcCause(finding.Warning), loadCPU},
	{GeneratorSaturated, cause(IDGeneratorSaturated), loadCPU},
	// CPUs other processes saturate are not the cause of a service whose
	// request threads mostly wait on a socket, a lock or a file.
	{CPUSaturated, when(cpuConcernsService, recorded(diagnose.IDCPUSaturated)), cpuWithHotFrames},
	{IO, func(in *Input) *finding.Finding { return find(in.Recorded, ioCause) }, loadCPU},
	{HostTooSmall, when(cpuConcernsService, cause(IDHostTooSmall)), loadJVM},
	{LatencyBound, cause(IDLatencyBound), loadBlocked},
}

// The rows' roots.

func cause(id string) func(*Input) *finding.Finding {
	return func(in *Input) *finding.Finding { return in.cause(id) }
}

func dump(prefix string) func(*Input) *finding.Finding {
	return func(in *Input) *finding.Finding { return find(in.Dumps, id(prefix)) }
}

func recorded(prefix string) func(*Input) *finding.Finding {
	return func(in *Input) *finding.Finding { return find(in.Recorded, id(prefix)) }
}

func culprit(min finding.Severity) func(*Input) *finding.Finding {
	return func(in *Input) *finding.Finding { return in.culprit(min) }
}

func gcCause(min finding.Severity) func(*Input) *finding.Finding {
	return func(in *Input) *finding.Finding {
		if in.GCCause != nil && in.GCCause.Severity >= min {
			return in.GCCause
		}
		return nil
	}
}

// when is root where cond holds.
func when(cond func(*Input) bool, root func(*Input) *finding.Finding) func(*Input) *finding.Finding {
	return func(in *Input) *finding.Finding {
		if !cond(in) {
			return nil
		}
		return root(in)
	}
}

// queueOnSaturatedCPU: a thread-dump culprit while the mechanism
// catalogue names the saturated CPUs first.
func queueOnSaturatedCPU(in *Input) bool {
	return in.culprit(finding.Warning) != nil && cpuIsTheCause(in.Ev)
}

// cpuConcernsService: saturated CPUs bear on the service unless other
// processes took them (IDCPUOthers) while its request threads waited off
// the CPU: a source that holds enough of their time must show running as
// their largest state. Any source will do: JFR samples a few threads a
// period, so 50 busy threads' running time is a fraction in its book while
// their park and socket events count whole, where the dumps see them
// RUNNABLE. With no source to judge by, the host's figures decide.
func cpuConcernsService(in *Input) bool {
	if !slices.Contains(in.Ev.HostFindings, IDCPUOthers) {
		return true
	}
	acc := in.Ev.Account()
	judged := false
	for _, src := range []mechanism.Source{mechanism.FromJFR, mechanism.FromDumps} {
		if b := acc.Book(src); b != nil && b.RequestEvents >= mechanism.MinEvents(src) {
			judged = true
			if st, _ := b.Largest(); st == mechanism.Running {
				return true
			}
		}
	}
	return !judged
}

// The rows' layers.

func loadCPU(e evidence, _ *finding.Finding) []finding.Text     { return e.lines(e.load, e.cpu) }
func loadBlocked(e evidence, _ *finding.Finding) []finding.Text { return e.lines(e.load, e.blocked) }
func loadJVM(e evidence, _ *finding.Finding) []finding.Text     { return e.lines(e.load, e.jvmCPU) }

func loadCPUBlocked(e evidence, _ *finding.Finding) []finding.Text {
	return e.lines(e.load, e.cpu, e.blocked)
}

func loadJVMBlocked(e evidence, _ *finding.Finding) []finding.Text {
	return e.lines(e.load, e.jvmCPU, e.blocked)
}

func lockLayers(e evidence, c *finding.Finding) []finding.Text {
	return e.lines(e.load, e.cpu, e.blocked, e.waited(c), e.ifDownstream(c), e.servers(c), e.stageCost(c))
}

// cpuWithHotFrames adds the dumps' hot frames to the CPU lines.
func cpuWithHotFrames(e evidence, _ *finding.Finding) []finding.Text {
	ls := e.lines(e.load, e.jvmCPU)
	if hf := find(e.dumps, id("threaddump.hot-frames")); hf != nil {
		ls = append(ls, hf.Observed)
	}
	return ls
}

// withGCEnd are the lines of a service that answers nothing: the CPUs when
// nothing says why, and the GC log's end when the cause was read elsewhere
// (its log's or the GC log's out-of-memory).
func withGCEnd(e evidence, root *finding.Finding) []finding.Text {
	noCause := func() (finding.Text, bool) {
		if root.ID != IDHung {
			return finding.Text{}, false
		}
		return e.cpu()
	}
	gcEnd := func() (finding.Text, bool) {
		if root.ID != IDServiceOOM && root.ID != "gc.out-of-memory" {
			return finding.Text{}, false
		}
		return e.gcAtEndLine()
	}
	return e.lines(e.load, noCause, gcEnd, e.blocked)
}
