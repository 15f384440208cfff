package profile

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/stacks"
)

// Two profiles of one JVM at once (two users, or a CPU and a lock profile
// side by side): each recording has its own name, so neither JFR.start
// refuses the second nor does one's JFR.stop end the other's. Before, both
// were named "tuneloop-profile": the second start failed, or the first
// stop ended the other's recording.
func TestCaptureTwoAtOnce(t *testing.T) {
	pid := startService(t, javaOnPath(t))
	kinds := []stacks.Kind{stacks.CPU, stacks.Lock}
	want := []time.Duration{4 * time.Second, 2 * time.Second}
	res := make([]*Result, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The second starts while the first records and ends before
			// it: a stop by a shared name ends the first's recording.
			time.Sleep(time.Duration(i) * 500 * time.Millisecond)
			res[i], errs[i] = Capture(context.Background(), pid, k, want[i], Options{})
		}()
	}
	wg.Wait()
	for i, k := range kinds {
		if errs[i] != nil {
			t.Fatalf("%s: %v", k, errs[i])
		}
		r := res[i]
		if r.Interrupted || r.Duration < want[i] || len(r.JFR) == 0 || r.Profile == nil || r.Profile.Total == 0 {
			t.Errorf("%s: interrupted %v after %v, %d bytes, profile %v", k, r.Interrupted, r.Duration, len(r.JFR), r.Profile)
		}
	}
	if res[0].Command == res[1].Command {
		t.Errorf("both captures sent %q", res[0].Command)
	}
	// Each recording holds its own kind's events over its own time.
	if share(res[0].Profile, "Svc.burn") < share(res[0].Profile, "Svc.holdGate") {
		t.Errorf("cpu: burn %.0f%%, holdGate %.0f%%", 100*share(res[0].Profile, "Svc.burn"), 100*share(res[0].Profile, "Svc.holdGate"))
	}
	if share(res[1].Profile, "Svc.holdGate") < 0.5 {
		t.Errorf("lock: holdGate %.0f%% of the lock time", 100*share(res[1].Profile, "Svc.holdGate"))
	}
	if left := leftBehind(pid); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
