package report

// The run page's views of the JFR recording beyond the CPU flame graph:
// the lock profile joined to the dumps' lock table by lock class, and the
// allocation, lock and wall-clock flame graphs the page switches between.

import (
	"fmt"
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stacks"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// LockWait is the JFR lock profile's time waited on one lock class.
type LockWait struct {
	WaitedMS float64 `json:"waited_ms"`
	Events   int     `json:"events"`
	// SharePct is the waited time over the run's working-thread time (the
	// working threads the dumps saw times the recorded span); 0: unknown.
	SharePct float64 `json:"share_pct,omitempty"`
	// Thin: fewer than verdict.ThinEvents events, a few long waits rather
	// than a steady queue.
	Thin  bool       `json:"thin,omitempty"`
	Sites []LockSite `json:"sites,omitempty"`
}

// LockSite is where threads entered or parked on the lock: the first frame
// outside the JDK.
type LockSite struct {
	Frame    string  `json:"frame"`
	WaitedMS float64 `json:"waited_ms"`
	Events   int     `json:"events"`
}

// FlameKind is one profile of the recording as a flame graph.
type FlameKind struct {
	Kind   string     `json:"kind"` // alloc, lock, wall
	Unit   string     `json:"unit"` // bytes, nanoseconds, samples
	Events int        `json:"events"`
	Total  int64      `json:"total"`
	Source string     `json:"source"`
	Tree   *FlameNode `json:"tree"`
}

// maxJFROnlyLocks caps the rows of lock classes only the recording saw.
const maxJFROnlyLocks = 10

// joinLockWaits joins the recording's lock waits to the dumps' rows by
// lock class: the first (most waiters) row of a class gets its wait; a
// class only the recording saw gets a row of its own, after the dumps'.
// Without a lock profile the rows are left as they are.
func joinLockWaits(rows []LockRow, L *verdict.Layers) []LockRow {
	if L.Lock == nil {
		return rows
	}
	joined := map[string]bool{}
	for i := range rows {
		rows[i].Source = "dumps"
		if joined[rows[i].Class] {
			continue
		}
		if w := L.LockWaitOf(rows[i].Class); w != nil {
			rows[i].Source, rows[i].Wait = "dumps+jfr", lockWait(w)
			joined[rows[i].Class] = true
		}
	}
	n := 0
	for i := range L.LockWaits {
		w := &L.LockWaits[i]
		if joined[w.Class] || n == maxJFROnlyLocks {
			continue
		}
		n++
		rows = append(rows, LockRow{Class: w.Class, Kind: w.Kind, Source: "jfr", Wait: lockWait(w)})
	}
	return rows
}

func lockWait(w *verdict.LockWait) *LockWait {
	v := &LockWait{WaitedMS: float64(w.WaitNS) / 1e6, Events: w.Events, SharePct: 100 * w.Share, Thin: w.Thin()}
	for _, s := range w.Sites {
		v.Sites = append(v.Sites, LockSite{Frame: s.Frame, WaitedMS: float64(s.WaitNS) / 1e6, Events: s.Events})
	}
	return v
}

// flameKinds are the recording's allocation, lock and wall-clock profiles
// that hold samples, in that order.
func flameKinds(L *verdict.Layers) []FlameKind {
	var out []FlameKind
	add := func(p *stacks.Profile, source string) {
		if p == nil || p.Total <= 0 {
			return
		}
		out = append(out, FlameKind{Kind: string(p.Kind), Unit: p.Unit, Events: p.Events, Total: p.Total,
			Source: fmt.Sprintf(source, p.Events), Tree: p.Tree()})
	}
	add(L.Alloc, "%d JFR allocation samples")
	add(L.Lock, "%d JFR monitor enter and park events (threads waiting for work left out)")
	add(L.Wall, "%d wall-clock samples")
	return out
}

// topLockWaits is how many lock lines the text and Markdown outputs give.
const topLockWaits = 3

// LockWaitLines says the most waited locks of the recording, one line
// each: class, time waited, events, share, where; "" lines when the run
// has no lock profile.
func LockWaitLines(p *RunPage) []finding.Text {
	var rows []*LockRow
	for i := range p.Locks {
		if p.Locks[i].Wait != nil {
			rows = append(rows, &p.Locks[i])
		}
	}
	// Most waited first, whatever the dumps' order.
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].Wait.WaitedMS > rows[j-1].Wait.WaitedMS; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	var out []finding.Text
	for i, r := range rows {
		if i == topLockWaits {
			break
		}
		w := r.Wait
		t := finding.Tf(finding.T("%s: waited %s over %d events", "%s：等待 %s，基于 %d 个事件"), finding.SafeLine(r.Class), waitedText(w.WaitedMS), w.Events)
		if w.SharePct > 0 {
			t = finding.Tf(finding.T("%s (%s of the working threads' time)", "%s（占工作线程时间的 %s）"), t, verdict.SharePct(w.SharePct))
		}
		if len(w.Sites) > 0 {
			t = finding.Tf(finding.T("%s, most at %s", "%s，主要在 %s"), t, finding.SafeLine(w.Sites[0].Frame))
		}
		if r.Waiters > 0 {
			t = finding.Tf(finding.T("%s; up to %d waiters in a dump", "%s；单次转储中最多 %d 个等待者"), t, r.Waiters)
		}
		if w.Thin {
			t = finding.Tf(finding.T("%s; thin evidence (under %d events)", "%s；证据较少（不足 %d 个事件）"), t, verdict.ThinEvents)
		}
		out = append(out, t)
	}
	return out
}

// writeLockWaitsText writes LockWaitLines for a terminal under a heading;
// nothing when there are none.
func writeLockWaitsText(w io.Writer, p *RunPage) error {
	lines := LockWaitLines(p)
	if len(lines) == 0 {
		return nil
	}
	l := p.Lang
	if _, err := fmt.Fprintf(w, "\n%s\n", finding.T("Lock waits (JFR):", "锁等待（JFR）：").In(l)); err != nil {
		return err
	}
	for _, t := range lines {
		if _, err := fmt.Fprintf(w, "  %s\n", t.In(l)); err != nil {
			return err
		}
	}
	return nil
}

// waitedText says milliseconds as ms under 10 s, else s.
func waitedText(ms float64) string {
	if ms < 10_000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f s", ms/1000)
}

// sourceText says a lock row's source.
func sourceText(src string) finding.Text {
	switch src {
	case "dumps":
		return finding.T("dumps only", "仅线程转储")
	case "jfr":
		return finding.T("JFR only", "仅 JFR")
	case "dumps+jfr":
		return finding.T("dumps and JFR", "线程转储与 JFR")
	}
	return finding.T(src, src)
}
