package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/run"
)

// runsDir holds real recorded run folders (the verdict's table test reads
// the same ones).
const runsDir = "../verdict/testdata/runs"

func analyzeDir(t *testing.T, dir string) []finding.Finding {
	t.Helper()
	f, err := run.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(f)
	if err != nil {
		t.Fatal(err)
	}
	return r.Findings
}

// healthyWithDumps copies the healthy run (a 200/s open-model load the
// service kept up with) and puts the thread dumps of run src in place of
// its own ("" for none).
func healthyWithDumps(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, filepath.Join(runsDir, "healthy"), dir)
	old, _ := filepath.Glob(filepath.Join(dir, run.ThreadDumpPrefix+"*"))
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if src == "" {
		return dir
	}
	dumps, _ := filepath.Glob(filepath.Join(runsDir, src, run.ThreadDumpPrefix+"*"))
	if len(dumps) == 0 {
		t.Fatalf("%s has no thread dumps", src)
	}
	for _, p := range dumps {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "raw", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The healthy run's host is idle under load, but its dumps show no working
// thread waiting: the service had room, which is no warning.
func TestIdleUnderLoadHealthyHadRoom(t *testing.T) {
	fs := analyzeDir(t, filepath.Join(runsDir, "healthy"))
	f := find(fs, IDIdleUnderLoad)
	if f == nil {
		t.Fatalf("the healthy run's idle host under load is not reported at all: %v", ids(fs))
	}
	if f.Severity != finding.Info {
		t.Errorf("severity %s, want info: %s", f.Severity, f.Title.EN)
	}
	if !strings.Contains(f.Title.EN, "room at this load") || !strings.Contains(f.Title.EN, "no queueing") || !strings.Contains(f.Title.ZH, "余量") {
		t.Errorf("title: %q / %q", f.Title.EN, f.Title.ZH)
	}
	if strings.Contains(f.Why.EN, "waiting on something other than CPU") {
		t.Errorf("still claims the threads wait: %s", f.Why.EN)
	}
	if !strings.Contains(f.Observed.EN, "0 of 0 working threads were off CPU") {
		t.Errorf("observed does not say what the dumps show: %s", f.Observed.EN)
	}
	// A user's check: a healthy service gets no warning about CPU or threads.
	for _, x := range fs {
		if (x.Category == "cpu" || x.Category == "thread" || x.Category == "threaddump") && x.Severity >= finding.Warning {
			t.Errorf("healthy run: %s %s %q", x.Severity, x.ID, x.Title.EN)
		}
	}
}

// The same idle host keeps its warning when nothing contradicts it (no
// dumps) or when the dumps show working threads queueing: on a pool (real
// dumps of pool-starvation, 50 of 50 working threads waiting) or on a
// downstream (remote-call, threads in socket reads: RUNNABLE, yet off CPU).
func TestIdleUnderLoadWarnsWhenDumpsQueue(t *testing.T) {
	for _, src := range []string{"", "pool-starvation", "remote-call", "future-serial"} {
		fs := analyzeDir(t, healthyWithDumps(t, src))
		f := find(fs, IDIdleUnderLoad)
		if f == nil {
			t.Errorf("dumps %q: no idle-under-load finding: %v", src, ids(fs))
			continue
		}
		if f.Severity != finding.Warning || !strings.Contains(f.Title.EN, "concurrency-bound") {
			t.Errorf("dumps %q: %s %q, want the concurrency-bound warning", src, f.Severity, f.Title.EN)
		}
	}
}
