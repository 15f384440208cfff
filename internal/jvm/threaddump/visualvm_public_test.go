package threaddump

import "testing"

// Two VisualVM / JMX-remote dumps published by other projects (origin and
// licence in testdata/README.md): what their readers would check by eye.
func TestVisualVMPublicSamples(t *testing.T) {
	t.Run("kafka-1305", func(t *testing.T) {
		ds := readFixture(t, "kafka1305_visualvm_jmx.tdump")
		if len(ds) != 1 || ds[0].Format != FormatVisualVM || len(ds[0].Threads) != 4 || ds[0].Dropped != 0 || !ds[0].Truncated.IsZero() {
			t.Fatalf("%d dumps; want one VisualVM dump of 4 threads, nothing dropped", len(ds))
		}
		d := ds[0]
		send := threadNamed(d, "Controller-265-to-broker-265-send-thread")
		if send == nil || send.ID != 113 || send.State != StateTimedWaiting || len(send.Frames) != 10 ||
			len(send.Locked) != 1 || send.Locked[0].Key() != "java.lang.Object@6dbf14a7" {
			t.Errorf("send thread: %+v", send)
		}
		owner := threadNamed(d, "kafka-scheduler-0")
		if owner == nil || owner.ID != 117 || len(owner.OwnableSynchronizers) != 2 || len(owner.Parking) != 1 ||
			owner.Parking[0].Class != "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject" {
			t.Fatalf("scheduler: %+v", owner)
		}
		// The controller lock: two threads park on the ReentrantLock the
		// scheduler holds (the hang the JIRA issue describes).
		for _, name := range []string{"Thread-4", "ZkClient-EventThread-18-/kafka-shadow"} {
			w := threadNamed(d, name)
			if w == nil || w.State != StateWaiting || len(w.Parking) != 1 || w.Parking[0].Key() != owner.OwnableSynchronizers[0].Key() {
				t.Errorf("%s: %+v", name, w)
			}
		}
		r := Analyze(d)
		var ctl *Lock
		for _, l := range r.Locks {
			if l.Ref.Key() == "java.util.concurrent.locks.ReentrantLock$NonfairSync@4836840" {
				ctl = l
			}
		}
		if ctl == nil || ctl.OwnerName != "kafka-scheduler-0" || ctl.NWaiter != 2 {
			t.Errorf("controller lock in the analysis: %+v", ctl)
		}
	})
	t.Run("scala-blitz", func(t *testing.T) {
		ds := readFixture(t, "scalablitz_visualvm.tdump")
		if len(ds) != 1 || ds[0].Format != FormatVisualVM || len(ds[0].Threads) != 5 {
			t.Fatalf("want one VisualVM dump of 5 threads: %d dumps", len(ds))
		}
		d := ds[0]
		states := map[State]int{}
		for _, th := range d.Threads {
			states[th.State]++
		}
		if states[StateWaiting] != 4 || states[StateRunnable] != 1 {
			t.Errorf("states %v; want 4 WAITING, 1 RUNNABLE", states)
		}
		m := threadNamed(d, "main")
		if m == nil || m.ID != 1 || len(m.Frames) != 40 || len(m.WaitingOn) != 1 ||
			m.WaitingOn[0].Addr != "1beaed6" || m.WaitingOn[0].Class != "scala.collection.workstealing.Workstealing$Ptr" {
			t.Errorf("main: %+v", m)
		}
		fj := threadNamed(d, "ForkJoinPool-1-worker-2")
		if fj == nil || len(fj.Parking) != 1 || fj.Parking[0].Class != "scala.concurrent.forkjoin.ForkJoinPool" {
			t.Errorf("fork-join worker: %+v", fj)
		}
		if sd := threadNamed(d, "Signal Dispatcher"); sd == nil || len(sd.Frames) != 0 {
			t.Errorf("signal dispatcher: %+v", sd)
		}
	})
}
