package multihost

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// The app host's folder alone is a whole run folder: Load judges it over
// the load too, so it gives the run's verdict (CI once saw the folder alone
// say nothing while the run said near-saturated).
func TestAppFolderAloneJudgedOverTheLoad(t *testing.T) {
	fix := filepath.Join("testdata", "host-cpu-saturated")
	r, err := Load(fix, nil)
	if err != nil {
		t.Fatal(err)
	}
	L, err := verdict.Load(Dir(fix, "127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := verdict.Decide(L), r.App.Decision; a.Branch != b.Branch {
		t.Errorf("the folder alone: %v, in the run: %v", a.Branch, b.Branch)
	}
}

// WriteLoad puts the run's load on this machine's clock and the app host's
// copy on that host's: the folder alone then windows its own series, and
// Load (which moves the series by the offset) uses the run's load.
func TestWriteLoadOnEachClock(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("testdata", "host-cpu-saturated"), dir)
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	const off = 3 * time.Second
	before, after := m.Hosts[0].Before.OffsetNS, m.Hosts[0].After.OffsetNS
	m.Hosts[0].Before.OffsetNS += int64(off)
	m.Hosts[0].After.OffsetNS += int64(off)
	sum, err := verdict.ReadLoad(dir)
	if err != nil || sum == nil {
		t.Fatalf("load.json: %v", err)
	}
	if err := WriteLoad(dir, m, sum); err != nil {
		t.Fatal(err)
	}
	top, _ := verdict.ReadLoad(dir)
	app, _ := verdict.ReadLoad(Dir(dir, "127.0.0.1"))
	want := sum.Start.Add(off + time.Duration(before+after)/2)
	if !top.Start.Equal(sum.Start) || !app.Start.Equal(want) {
		t.Errorf("load.json starts %v (want %v), the app's copy %v (want %v)", top.Start, sum.Start, app.Start, want)
	}
	// A folder without an app host's folder: only the run's load.json.
	m.Hosts[0].Role = RoleDB
	if err := WriteLoad(t.TempDir(), m, sum); err != nil {
		t.Fatal(err)
	}
}
