package diagnose

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// IDThreadDumps marks thread dumps of the run that could not be read.
const IDThreadDumps = "run.threaddumps"

// loadDumps takes the run's thread dumps, read once as a set by the caller
// (threaddump.ReadSet: ordered by time, copies counted once); the last one
// is what the hot threads are joined to (by nid = TID).
func (c *ctx) loadDumps() []finding.Finding {
	set := c.in.Dumps
	if set == nil {
		return nil
	}
	r := dumpsRule()
	out := r.Evaluate(c)
	c.dump, c.dumpRep = set.Last()
	// Every dump counts: one is an instant that can miss or misread a lock.
	for _, f := range set.Findings {
		if f.Status == finding.Fail {
			out = append(out, f)
		}
	}
	return out
}

// javaThread finds the thread with native id tid in the last dump.
func (c *ctx) javaThread(tid int) *threaddump.Thread {
	if c.dump == nil {
		return nil
	}
	for _, t := range c.dump.Threads {
		if t.NativeID == int64(tid) {
			return t
		}
	}
	return nil
}

// joinStack adds what the hot thread runs (from the last dump) to f.
func (c *ctx) joinStack(f *finding.Outcome, tid int) {
	jt := c.javaThread(tid)
	if jt == nil {
		return
	}
	var frames []string
	for i, fr := range jt.Stack() {
		if i == 6 {
			break
		}
		frames = append(frames, "at "+fr.String())
	}
	state := string(jt.State)
	if jt.StateDetail != "" {
		state += " (" + jt.StateDetail + ")"
	}
	if state == "" {
		state = jt.RawState
	}
	if top := jt.Top().String(); top != "" {
		f.Observed.EN += fmt.Sprintf(" In the thread dump it is Java thread %q, %s, at %s.", jt.Name, state, top)
		f.Observed.ZH += fmt.Sprintf(" 线程转储中它是 Java 线程 %q，%s，位于 %s。", jt.Name, state, top)
	} else {
		f.Observed.EN += fmt.Sprintf(" In the thread dump it is %q (%s).", jt.Name, state)
		f.Observed.ZH += fmt.Sprintf(" 线程转储中它是 %q（%s）。", jt.Name, state)
	}
	f.Evidence = append(f.Evidence, ev("java_thread", fmt.Sprintf("%q %s", jt.Name, state), "raw/threaddump (nid="+nid(tid)+")"))
	if len(frames) > 0 {
		f.Evidence = append(f.Evidence, ev("stack", strings.Join(frames, "\n"), ""))
	}
}

// dumpWaiting summarises the last dump for the concurrency finding.
func (c *ctx) dumpWaiting(f *finding.Outcome) {
	r := c.dumpRep
	if r == nil {
		return
	}
	f.Evidence = append(f.Evidence, ev("working_threads_blocked_or_waiting",
		fmt.Sprintf("%d + %d of %d (%s)", r.Blocked, r.Waiting, r.Active, pct(100*r.BlockedWaitingShare)), "raw/threaddump"))
	if len(r.Locks) > 0 && r.Locks[0].NWaiter > 0 {
		l := r.Locks[0]
		f.Evidence = append(f.Evidence, ev("most_contended_lock", fmt.Sprintf("%s <%s> %d waiters, held by %q", l.Ref.Class, l.Ref.Addr, l.NWaiter, l.OwnerName), "raw/threaddump"))
		f.Confidence = min(1, f.Confidence+0.2)
	}
}
