package multihost

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/verdict"
)

// The app host of a multi-host run is judged over the load, as a local
// run is: its recorder ran 2 s before the warm-up and 2 s after the load,
// and over all of it the saturated CPUs averaged 48% busy (the verdict
// said latency-bound, "the CPUs were 48% busy"). A real CI run's folder.
func TestAppHostJudgedOverTheLoad(t *testing.T) {
	r, err := Load(filepath.Join("testdata", "host-cpu-saturated"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.App == nil || r.App.Decision == nil || r.App.Decision.Verdict == nil {
		t.Fatalf("no app host verdict: %+v", r.App)
	}
	d := r.App.Decision
	if d.Branch != verdict.CPUSaturated || !strings.Contains(d.Verdict.Observed.EN, "busy on average") {
		t.Errorf("app host: branch %v, %s\n%s", d.Branch, d.Verdict.Title.EN, d.Verdict.Observed.EN)
	}
	// The window is the load's: ticks outside it are not the verdict's.
	load := r.App.Layers.Load
	for _, tk := range r.App.Layers.Series.Ticks {
		if !tk.T.After(load.Start) {
			t.Errorf("a tick ending %v, before the load started at %v, is judged", tk.T, load.Start)
		}
	}
}
