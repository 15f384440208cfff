package verdict

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/stacks"
)

// jfrFixtures are the run folders of testdata/runs that hold a JFR
// recording.
func jfrFixtures(t *testing.T) []string {
	t.Helper()
	jfrs, err := filepath.Glob("testdata/runs/*/raw/*.jfr")
	if err != nil || len(jfrs) == 0 {
		t.Fatalf("no run folder with a JFR recording under testdata/runs (%v)", err)
	}
	var dirs []string
	for _, j := range jfrs {
		dirs = append(dirs, filepath.Dir(filepath.Dir(j)))
	}
	return dirs
}

// The lock profile of a real run and its thread dumps name the same lock:
// the class threads waited on longest in the recording is the class the
// dumps saw the most threads queue on.
func TestLockProfileNamesTheDumpsLock(t *testing.T) {
	for _, dir := range jfrFixtures(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			L, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(L.Problems) > 0 {
				t.Fatalf("problems: %v", L.Problems[0].Reason.EN)
			}
			if L.Stacks == nil || L.Samples == 0 || L.Alloc == nil || L.Lock == nil {
				t.Fatalf("profiles missing: %d CPU samples, alloc %+v, lock %+v", L.Samples, L.Alloc != nil, L.Lock != nil)
			}
			// A service whose threads wait on sockets, not locks (the
			// dispatcher's run), records few allocations and no lock wait.
			if L.Alloc.Events == 0 || L.Lock.Events == 0 {
				t.Skipf("%d allocation and %d lock events: no lock to compare", L.Alloc.Events, L.Lock.Events)
			}
			if L.Alloc.Unit != "bytes" || L.Alloc.Total <= 0 || L.Lock.Unit != "nanoseconds" {
				t.Errorf("units: alloc %s %d, lock %s", L.Alloc.Unit, L.Alloc.Total, L.Lock.Unit)
			}
			topDump, most := "", 0
			for _, r := range L.Reports {
				for _, l := range r.Locks {
					if l.NWaiter > most {
						topDump, most = l.Ref.Class, l.NWaiter
					}
				}
			}
			if topDump == "" || len(L.LockWaits) == 0 {
				t.Fatalf("dump lock %q, %d JFR lock classes", topDump, len(L.LockWaits))
			}
			if most < 3 {
				t.Skipf("no queue in the dumps to compare with (at most %d waiter on %s)", most, topDump)
			}
			top := L.LockWaits[0]
			// Where the queues are symptoms (saturated CPUs, not a lock
			// verdict), JFR's long waits and the dumps' instants may see
			// different locks: the two are compared where a lock is the cause.
			if b := Decide(L).Branch; b != LockMost && b != LockCPURoom {
				t.Skipf("branch %s: the queues are not the cause", b)
			}
			if top.Class != monitorClass(topDump) {
				t.Errorf("JFR's most waited lock %s (%d ms), the dumps' most queued %s (%d waiters)", top.Class, top.WaitNS/1e6, topDump, most)
			}
			if top.Thin() || top.Share <= 0 || top.Share > 1.5 || len(top.Sites) == 0 || strings.HasPrefix(top.Sites[0].Frame, "java.") {
				t.Errorf("top lock wait %+v", top)
			}
			// Idle pool threads waiting for work are not lock waits.
			for _, w := range L.LockWaits {
				for _, s := range w.Sites {
					if strings.Contains(s.Frame, "getTask") || strings.Contains(s.Frame, "TaskQueue.poll") {
						t.Errorf("an idle wait counted as a lock wait: %s at %s", w.Class, s.Frame)
					}
				}
			}
			if L.LockIdleNS <= 0 {
				t.Errorf("no idle waits dropped from a Tomcat service's recording")
			}
			d := Decide(L)
			if d.Branch != LockMost && d.Branch != LockCPURoom {
				t.Skipf("branch %s: no lock verdict to cite the wait in", d.Branch)
			}
			v := d.Verdict
			if !strings.Contains(v.Observed.EN, "JFR: threads waited ") || !strings.Contains(v.Observed.EN, top.Class) || !strings.Contains(v.Observed.ZH, "JFR：线程在") {
				t.Errorf("the verdict does not cite the waited time:\n%s", v.Observed.EN)
			}
			keys := map[string]string{}
			for _, e := range v.Evidence {
				keys[e.Key] = e.Value
			}
			if keys["jfr_lock_wait_ms"] == "" || keys["jfr_lock_events"] == "" {
				t.Errorf("evidence %v", v.Evidence)
			}
			t.Logf("%s: %s", d.Branch, v.Observed.EN)
		})
	}
}

// lockWaits groups by class, then by the first frame outside the JDK; a
// class with few events is thin; the share is of the thread time given.
func TestLockWaitsByClassAndSite(t *testing.T) {
	p := &stacks.Profile{Kind: stacks.Lock, Unit: "nanoseconds", Samples: []stacks.Sample{
		{Stack: []string{"java.lang.Thread.run", "com.acme.Orders.save", "java.util.concurrent.locks.LockSupport.park", "[park] java.util.concurrent.locks.ReentrantLock$NonfairSync"}, Value: 3e9, Events: 30},
		{Stack: []string{"java.lang.Thread.run", "com.acme.Orders.list", "java.util.concurrent.locks.LockSupport.park", "[park] java.util.concurrent.locks.ReentrantLock$NonfairSync"}, Value: 1e9, Events: 10},
		{Stack: []string{"java.lang.Thread.run", "com.acme.Cache.get", "[lock] com.acme.Cache"}, Value: 5e8, Events: 3},
		{Stack: []string{"java.lang.Thread.run", "java.lang.Object.wait"}, Value: 9e9, Events: 9}, // not a lock wait
	}}
	ws := lockWaits(p, 10e9)
	if len(ws) != 2 {
		t.Fatalf("%d classes: %+v", len(ws), ws)
	}
	rl, c := ws[0], ws[1]
	if rl.Class != "java.util.concurrent.locks.ReentrantLock$NonfairSync" || rl.Kind != "juc" || rl.WaitNS != 4e9 || rl.Events != 40 || rl.Share != 0.4 {
		t.Errorf("first %+v", rl)
	}
	if len(rl.Sites) != 2 || rl.Sites[0].Frame != "com.acme.Orders.save" || rl.Sites[0].Events != 30 || rl.Sites[1].Frame != "com.acme.Orders.list" {
		t.Errorf("sites %+v", rl.Sites)
	}
	if rl.Thin() || !c.Thin() || c.Kind != "monitor" || c.Sites[0].Frame != "com.acme.Cache.get" {
		t.Errorf("thin %v/%v, second %+v", rl.Thin(), c.Thin(), c)
	}
	if ws := lockWaits(p, 0); ws[0].Share != 0 {
		t.Errorf("a share without the thread time: %v", ws[0].Share)
	}
}
