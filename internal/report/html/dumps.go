package html

// The thread dump part of analyze's page: each dump's threads by state,
// by pool and state, the contended locks (the shared lock table, with the
// waiting threads named), deadlocks, stuck threads, the flame graph of the
// RUNNABLE stacks and every finding of the set.

import (
	"fmt"
	"io"
	"slices"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// dumpView is the dump sections; it carries L, Locks, LockMore, Flame,
// Findings and Unavail for the shared pieces.
type dumpView struct {
	L         map[string]string
	Notice    []string
	Nav       navList
	StateCols []string
	Rows      []dumpRowView
	Threads   *threadsHTML
	TimeNote  string
	Pools     []dumpPoolsView
	Locks     []lockView
	LockMore  int
	Deadlocks []deadlockView
	Stuck     []stuckView
	Flame     *flameHTML
	Findings  []findingView
	Unavail   []findingView
}

// dumpRowView is one dump's line of the dump table.
type dumpRowView struct {
	N                       int
	Source, Time            string
	Line                    int
	Threads, Java, VM, Idle int
	Counts                  []int // per StateCols
}

// dumpPoolsView is one dump's pool table.
type dumpPoolsView struct {
	Title string
	Open  bool
	Rows  []poolRow
}

type poolRow struct {
	Name                                         string
	Size, Busy, Idle, Runnable, Blocked, Waiting int
}

type deadlockView struct {
	Threads, Locks []string
	Dumps          int
}

type stuckView struct {
	Name, State string
	Top, App    []string
	Dumps       int
}

// WriteDumps writes the page of a set of thread dumps alone.
func WriteDumps(w io.Writer, d *report.DumpPage) error {
	if d == nil {
		return fmt.Errorf("html: nil dump page")
	}
	return WriteAnalyze(w, nil, d)
}

// dumpSection reduces the dump page to its view in language l.
func dumpSection(d *report.DumpPage, L map[string]string, l finding.Lang) *dumpView {
	v := &dumpView{L: L}
	for _, u := range d.Unreadable {
		v.Notice = append(v.Notice, L["unreadable"]+": "+finding.SafeOneLine(u.Message))
	}
	for _, dup := range d.Duplicates {
		v.Notice = append(v.Notice, fmt.Sprintf("%s:%d — %s %s", finding.SafeOneLine(dup.Source), dup.Line, L["duplicate"], finding.SafeOneLine(dup.SameAs)))
	}
	// states in the run page's order, then any other, sorted
	seen := map[string]bool{}
	for _, s := range d.ThreadStates {
		for k, n := range s.Counts {
			seen[k] = seen[k] || n > 0
		}
	}
	for _, sc := range stateColors() {
		if seen[sc.Name] {
			v.StateCols = append(v.StateCols, sc.Name)
			delete(seen, sc.Name)
		}
	}
	var rest []string
	for k, ok := range seen {
		if ok {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	v.StateCols = append(v.StateCols, rest...)
	// Bars at their time when every dump has a distinct one (dumps taken
	// within the timestamp's second would be drawn on top of each other);
	// else in sequence.
	var tr timeRange
	for i, s := range d.ThreadStates {
		if s.T.IsZero() || (i > 0 && !s.T.After(d.ThreadStates[i-1].T)) {
			tr = timeRange{}
			break
		}
		if i == 0 {
			tr.t0 = s.T
		}
		tr.t1 = s.T
	}
	for i, r := range d.Dumps {
		row := dumpRowView{N: i + 1, Source: finding.SafeOneLine(r.Source), Line: r.Line, Time: finding.SafeOneLine(r.Time), Threads: r.Threads, Java: r.Java, VM: r.VMInternal, Idle: r.Idle}
		for _, st := range v.StateCols {
			row.Counts = append(row.Counts, d.ThreadStates[i].Counts[st])
		}
		v.Rows = append(v.Rows, row)
		pv := dumpPoolsView{Title: fmt.Sprintf("#%d %s:%d %s", i+1, row.Source, r.Line, row.Time), Open: i == len(d.Dumps)-1}
		for _, p := range r.Pools {
			pv.Rows = append(pv.Rows, poolRow{finding.SafeOneLine(p.Name), p.Size, p.Busy, p.Idle, p.Runnable, p.Blocked, p.Waiting})
		}
		if len(pv.Rows) > 0 {
			v.Pools = append(v.Pools, pv)
		}
	}
	if !tr.t0.IsZero() {
		v.TimeNote = fmt.Sprintf(L["sincestart"], tr.t0.UTC().Format("15:04:05"))
	}
	v.Threads = threadsSection(d.ThreadStates, tr, L)
	rows := make([]report.LockRow, len(d.Locks))
	for i, lk := range d.Locks {
		rows[i] = lk.LockRow
	}
	v.Locks, v.LockMore = lockSection(rows)
	for i := range v.Locks {
		lk := d.Locks[i]
		for _, n := range lk.WaiterNames {
			v.Locks[i].Names = append(v.Locks[i].Names, finding.SafeOneLine(n))
		}
		if lk.MoreWaiters > 0 {
			v.Locks[i].Names = append(v.Locks[i].Names, fmt.Sprintf("+%d %s", lk.MoreWaiters, L["more"]))
		}
	}
	for _, dl := range d.Deadlocks {
		dv := deadlockView{Dumps: dl.Dumps}
		for _, t := range dl.Threads {
			dv.Threads = append(dv.Threads, finding.SafeOneLine(t))
		}
		for i := range dv.Threads {
			lk := ""
			if i < len(dl.Locks) {
				lk = finding.SafeOneLine(dl.Locks[i])
			}
			dv.Locks = append(dv.Locks, lk)
		}
		v.Deadlocks = append(v.Deadlocks, dv)
	}
	for _, s := range d.Stuck {
		v.Stuck = append(v.Stuck, stuckView{Name: finding.SafeOneLine(s.Name), State: finding.SafeOneLine(string(s.State)), Top: breakable(s.Top.String()), App: breakable(s.App.String()), Dumps: s.Dumps})
	}
	v.Flame = flameSection(d.Flame, finding.SafeOneLine(d.FlameSource), L)
	v.Findings, v.Unavail = findingViews(d.Findings, l)
	nav := func(ok bool, id, k string) { v.Nav.add(ok, id, L[k]) }
	nav(true, "sec-dumps", "dumptable")
	nav(v.Pools != nil, "sec-pools", "pools")
	nav(v.Deadlocks != nil, "sec-deadlocks", "deadlocks")
	nav(v.Locks != nil, "sec-locks", "locks")
	nav(v.Stuck != nil, "sec-stuck", "stuck")
	nav(v.Flame != nil, "sec-flame", "flame")
	nav(v.Findings != nil || v.Unavail != nil, "sec-findings", "findings")
	return v
}
