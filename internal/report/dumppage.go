package report

// The page of a set of thread dumps (`tuneloop analyze dump*.txt -o html`):
// threads by state and pool in each dump, the contended locks with their
// owners and waiters, deadlocks, threads stuck across dumps, a flame graph
// of the RUNNABLE stacks, and every finding of the set.

import (
	"fmt"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// DumpPageSchema names DumpPage's JSON.
const DumpPageSchema = "tuneloop.dump-page/v1"

// maxWaiterNames caps the waiting threads named per lock.
const maxWaiterNames = 30

// DumpPage is the document of one JVM's thread dumps.
type DumpPage struct {
	PageHead
	// Dumps is one row per dump, in the set's (time) order.
	Dumps []DumpRow `json:"dumps"`
	// ThreadStates is per dump, T zero when the dump has no timestamp.
	ThreadStates []ThreadStateSample      `json:"thread_states"`
	Locks        []DumpLock               `json:"locks,omitempty"`
	Deadlocks    []DumpDeadlock           `json:"deadlocks,omitempty"`
	Stuck        []threaddump.StuckThread `json:"stuck,omitempty"`
	Flame        *FlameNode               `json:"flame,omitempty"`
	FlameSource  string                   `json:"flame_source,omitempty"`
	Findings     []finding.Finding        `json:"findings"`
	Unreadable   []threaddump.SetError    `json:"unreadable,omitempty"`
	Duplicates   []threaddump.Duplicate   `json:"duplicates,omitempty"`
}

// DumpRow is one dump: where it came from, its threads by state and pool.
type DumpRow struct {
	Source     string                  `json:"source"`
	Line       int                     `json:"line"`
	Time       string                  `json:"time,omitempty"`
	VM         string                  `json:"vm,omitempty"`
	Threads    int                     `json:"threads"`
	Java       int                     `json:"java"`
	VMInternal int                     `json:"vm_internal"`
	Idle       int                     `json:"idle"`
	States     []threaddump.StateCount `json:"states"`
	Pools      []threaddump.Pool       `json:"pools"`
}

// DumpLock is a contended lock (merged over the dumps, LockRow) with the
// threads waiting for it in the dump where it had the most.
type DumpLock struct {
	LockRow
	WaiterNames []string `json:"waiter_names"`
	// MoreWaiters is how many waiters are not named (past maxWaiterNames).
	MoreWaiters int `json:"more_waiters,omitempty"`
}

// DumpDeadlock is one deadlock cycle and in how many dumps it was seen.
type DumpDeadlock struct {
	Threads []string `json:"threads"`
	Locks   []string `json:"locks"` // Locks[i] is what Threads[i] waits for
	Dumps   int      `json:"dumps"`
}

// NewDumpPage reduces an analysed set of dumps to what its page draws.
func NewDumpPage(set *threaddump.Set, lang finding.Lang) *DumpPage {
	p := &DumpPage{PageHead: newPageHead(DumpPageSchema, "", lang)}
	if set == nil {
		return p
	}
	p.Findings, p.Unreadable, p.Duplicates = set.Findings, set.Unreadable, set.Duplicates
	var names []string
	for i, d := range set.Dumps {
		if i < len(set.Sources) && (len(names) == 0 || names[len(names)-1] != set.Sources[i]) {
			names = append(names, set.Sources[i])
		}
		r := set.Reports[i]
		row := DumpRow{Source: d.Source, Line: d.Line, Time: d.Time, VM: d.VM, Threads: r.Threads, Java: r.Java,
			VMInternal: r.VMInternal, Idle: r.Idle, States: r.States}
		if i < len(set.Sources) {
			row.Source = set.Sources[i]
		}
		for _, pl := range r.Pools {
			c := *pl
			c.Threads = nil
			row.Pools = append(row.Pools, c)
		}
		p.Dumps = append(p.Dumps, row)
		counts := map[string]int{}
		for _, sc := range r.States {
			counts[string(sc.State)] += sc.Count
		}
		p.ThreadStates = append(p.ThreadStates, ThreadStateSample{T: dumpTime(d.Time), Counts: counts, BlockedWaitingPct: new(100 * r.BlockedWaitingShare)})
	}
	p.Title = strings.Join(names, ", ")
	if len(names) > 3 {
		p.Title = fmt.Sprintf("%s … %s (%d files)", names[0], names[len(names)-1], len(names))
	}
	p.Locks = dumpLocks(set.Reports)
	p.Deadlocks = dumpDeadlocks(set.Reports)
	if set.Series != nil {
		p.Stuck = set.Series.Stuck
	}
	if fl, n := flameFromDumps(set.Dumps); fl != nil {
		p.Flame = fl
		p.FlameSource = fmt.Sprintf("%d RUNNABLE stacks in %d thread dumps", n, len(set.Dumps))
	}
	return p
}

// dumpTime reads a dump's timestamp line; zero when it has none or another form.
func dumpTime(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t
}

// dumpLocks is lockRows with the names of the waiters, from the dump in
// which the lock had the most.
func dumpLocks(reports []*threaddump.Report) []DumpLock {
	rows := lockRows(reports)
	out := make([]DumpLock, 0, len(rows))
	for _, row := range rows {
		dl := DumpLock{LockRow: row}
		var best *threaddump.Lock
		for _, r := range reports {
			for _, l := range r.Locks {
				if l.Ref.Addr == row.Lock && l.Ref.Class == row.Class && (best == nil || l.NWaiter > best.NWaiter) {
					best = l
				}
			}
		}
		if best != nil {
			for i, t := range best.Waiters {
				if i == maxWaiterNames {
					dl.MoreWaiters = len(best.Waiters) - maxWaiterNames
					break
				}
				dl.WaiterNames = append(dl.WaiterNames, t.Name)
			}
		}
		out = append(out, dl)
	}
	return out
}

// dumpDeadlocks lists each deadlock cycle once, with the dumps it is in.
func dumpDeadlocks(reports []*threaddump.Report) []DumpDeadlock {
	var out []DumpDeadlock
	at := map[string]int{}
	for _, r := range reports {
		for _, d := range r.Deadlocks {
			key := strings.Join(d.Names, "\x00")
			if i, ok := at[key]; ok {
				out[i].Dumps++
				continue
			}
			dd := DumpDeadlock{Threads: d.Names, Dumps: 1}
			for _, l := range d.Locks {
				dd.Locks = append(dd.Locks, l.String())
			}
			at[key] = len(out)
			out = append(out, dd)
		}
	}
	return out
}
