package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readDumps(t *testing.T, paths ...string) *threaddump.Set {
	t.Helper()
	var ins []threaddump.Input
	for _, p := range paths {
		f, err := os.Open(filepath.Join("../jvm/threaddump/testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		ins = append(ins, threaddump.Input{Name: filepath.Base(p), R: f})
	}
	return threaddump.ReadSet(ins)
}

// The zoo's fsync series: 48 request threads queue on the journal's lock;
// the page names its owner and its waiters, each dump's pools and time.
func TestNewDumpPageContention(t *testing.T) {
	const dir = "jdk17_zoo_fsync_series/"
	p := NewDumpPage(readDumps(t, dir+"dump1.txt", dir+"dump2.txt", dir+"dump3.txt", dir+"dump4.txt"), finding.EN)
	if len(p.Dumps) != 4 || len(p.ThreadStates) != 4 || p.Title != "dump1.txt … dump4.txt (4 files)" {
		t.Fatalf("%d dumps, %d state samples, title %q", len(p.Dumps), len(p.ThreadStates), p.Title)
	}
	if p.ThreadStates[0].T.IsZero() || p.ThreadStates[0].Counts["BLOCKED"] == 0 {
		t.Errorf("first dump: %+v", p.ThreadStates[0])
	}
	if len(p.Locks) == 0 {
		t.Fatal("no contended lock")
	}
	lk := p.Locks[0]
	if lk.Class != "com.example.zoo.Journal" || lk.Owner == "" || lk.Waiters < 40 || len(lk.WaiterNames) != maxWaiterNames || lk.MoreWaiters != lk.Waiters-maxWaiterNames {
		t.Errorf("top lock %s owned by %q: %d waiters, %d named, %d more", lk.Class, lk.Owner, lk.Waiters, len(lk.WaiterNames), lk.MoreWaiters)
	}
	pools := p.Dumps[3].Pools
	if len(pools) == 0 || pools[0].Size < 40 || pools[0].Threads != nil {
		t.Errorf("last dump's pools: %+v", pools)
	}
	if p.Flame == nil || p.FlameSource == "" {
		t.Error("no flame graph")
	}
	fails := 0
	for _, f := range p.Findings {
		if f.Status == finding.Fail {
			fails++
		}
	}
	if fails == 0 {
		t.Error("no failing finding")
	}
}

// A deadlock is listed once with the lock each thread waits for.
func TestNewDumpPageDeadlock(t *testing.T) {
	p := NewDumpPage(readDumps(t, "jdk17_deadlock_jcmd.txt"), finding.ZH)
	if len(p.Deadlocks) == 0 {
		t.Fatal("no deadlock")
	}
	d := p.Deadlocks[0]
	if len(d.Threads) < 2 || len(d.Locks) != len(d.Threads) || d.Dumps != 1 {
		t.Errorf("deadlock %+v", d)
	}
	if NewDumpPage(nil, finding.EN) == nil {
		t.Error("nil set: nil page")
	}
}
