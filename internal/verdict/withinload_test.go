package verdict

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// A recorder that ran before and after the load (a remote host's: it
// starts with a lead and stops last) holds idle ticks around the load. On
// the whole series the CPUs, saturated all through the load, are busy in
// fewer than half the ticks and no longer "saturated"; over the load's
// window (WithinLoad) they are again, as a local run of the same load
// says.
func TestWithinLoadJudgesTheLoadNotTheRecorder(t *testing.T) {
	L, err := Load(filepath.Join("testdata", "runs", "cpu-hot"))
	if err != nil {
		t.Fatal(err)
	}
	saturated := func(L *Layers) bool {
		return slices.ContainsFunc(L.Recorded, func(f finding.Finding) bool {
			return f.ID == diagnose.IDCPUSaturated && f.Status == finding.Fail
		})
	}
	if !saturated(L) || L.Load == nil {
		t.Fatalf("the fixture is not a saturated run with a load: %v", L.Load == nil)
	}
	ticks := L.Series.Ticks
	first, last := ticks[0], ticks[len(ticks)-1]
	idle := func(end time.Time, secs float64) diagnose.Tick {
		return diagnose.Tick{T: end, Secs: secs, All: &diagnose.CPU{User: 1, Idle: 99}}
	}
	// As many idle ticks before and after as the load has, and the load's
	// window from the first to the last loaded tick.
	var pad []diagnose.Tick
	for i := len(ticks); i > 0; i-- {
		pad = append(pad, idle(first.T.Add(-time.Duration(float64(i)*first.Secs*float64(time.Second))), first.Secs))
	}
	padded := append(pad, ticks...)
	for i := 1; i <= len(ticks); i++ {
		padded = append(padded, idle(last.T.Add(time.Duration(float64(i)*last.Secs*float64(time.Second))), last.Secs))
	}
	L.Series.Ticks = padded
	L.Stats = L.Series.Summarize()
	L.diagnose()
	if saturated(L) {
		t.Fatal("the padded series is still saturated: the test proves nothing")
	}
	load := *L.Load
	load.Start = first.T.Add(-time.Duration(first.Secs * float64(time.Second)))
	load.Duration = last.T.Sub(load.Start).Seconds()
	L.Load = &load
	L.WithinLoad()
	if len(L.Series.Ticks) != len(ticks) || !saturated(L) {
		t.Errorf("over the load's window: %d ticks (want %d), saturated %v", len(L.Series.Ticks), len(ticks), saturated(L))
	}
	if d := Decide(L); d.Branch != CPUSaturated {
		t.Errorf("verdict over the load's window: branch %v, want the saturated CPUs", d.Branch)
	}
}
