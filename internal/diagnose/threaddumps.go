package diagnose

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// DumpFile is a JVM thread dump taken during the run (raw/threaddump-N.txt).
type DumpFile struct {
	Name string
	Data []byte
}

// IDThreadDumps marks thread dumps of the run that could not be read.
const IDThreadDumps = "run.threaddumps"

// loadDumps parses the run's thread dumps in order; the last one is what the
// hot threads are joined to (by nid = TID).
func (c *ctx) loadDumps() []finding.Finding {
	var out []finding.Finding
	var all []*threaddump.Dump
	var names []string
	for _, f := range c.in.ThreadDumps {
		ds, err := threaddump.Parse(f.Name, bytes.NewReader(f.Data))
		if err != nil || len(ds) == 0 {
			why := "no thread dump in the file"
			if err != nil {
				why = err.Error()
			}
			out = append(out, finding.Finding{ID: IDThreadDumps, Category: "run", Status: finding.Unavailable, Subject: f.Name,
				Title:  finding.T("Thread dump unreadable", "线程转储无法读取"),
				Reason: finding.Tf(finding.T("%s", "%s"), why)})
			continue
		}
		for range ds {
			names = append(names, f.Name)
		}
		all = append(all, ds...)
	}
	if len(all) == 0 {
		return out
	}
	reports := make([]*threaddump.Report, len(all))
	for i, d := range all {
		reports[i] = threaddump.Analyze(d)
	}
	c.dump = all[len(all)-1]
	c.dumpRep = reports[len(reports)-1]
	keep := func(fs []finding.Finding) {
		for _, f := range fs {
			if f.Status == finding.Fail {
				out = append(out, f)
			}
		}
	}
	// Every dump counts: one is an instant that can miss or misread a lock.
	keep(threaddump.FindingsOver(reports, names))
	if len(all) >= 2 {
		keep(threaddump.SeriesFindings(threaddump.NewSeries(reports), run0(c.in.ThreadDumps)))
	}
	return out
}

func run0(fs []DumpFile) string {
	if len(fs) == 1 {
		return fs[0].Name
	}
	return fmt.Sprintf("%s … %s", fs[0].Name, fs[len(fs)-1].Name)
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
func (c *ctx) joinStack(f *finding.Finding, tid int) {
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
func (c *ctx) dumpWaiting(f *finding.Finding) {
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
