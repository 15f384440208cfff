package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// EvaluateJVM (jvm PID, analyze --cmdline) keeps only the jvm.* rules that
// decided, named after the subject; a misconfigured JVM's failures are among
// them, a healthy one's are not.
func TestEvaluateJVM(t *testing.T) {
	ids := func(fs []finding.Finding, st finding.Status) []string {
		var out []string
		for _, f := range fs {
			if f.Status == st {
				out = append(out, f.ID)
			}
		}
		return out
	}
	check := func(name string, fs []finding.Finding) {
		t.Helper()
		if len(fs) == 0 {
			t.Fatalf("%s: no jvm.* check decided", name)
		}
		for _, f := range fs {
			if !strings.HasPrefix(f.ID, "jvm.") {
				t.Errorf("%s: %s is not a jvm.* rule", name, f.ID)
			}
			if f.Status != finding.Fail && f.Status != finding.Pass {
				t.Errorf("%s: %s kept with status %s", name, f.ID, f.Status)
			}
			if f.Subject != "pid 4321" {
				t.Errorf("%s: %s subject %q, want %q", name, f.ID, f.Subject, "pid 4321")
			}
		}
	}
	healthy := healthyHost()
	hf := EvaluateJVM(healthy, JavaWeb, "pid 4321")
	check("healthy", hf)
	bad := kunpeng2s4n()
	bf := EvaluateJVM(bad, JavaWeb, "pid 4321")
	check("misconfigured", bf)
	fails := ids(bf, finding.Fail)
	if len(fails) <= len(ids(hf, finding.Fail)) {
		t.Errorf("misconfigured JVM (Xms 2g, Xmx 16g, no GC log): failures %v, no more than the healthy one's %v", fails, ids(hf, finding.Fail))
	}
	// the unequal heap bounds are the failure of the healthy JVM's rule
	if !slices.Contains(fails, "jvm.heap.xms-xmx") || slices.Contains(ids(hf, finding.Fail), "jvm.heap.xms-xmx") {
		t.Errorf("Xms 2g with Xmx 16g: want jvm.heap.xms-xmx failed there only; failures %v, healthy %v", fails, ids(hf, finding.Fail))
	}
}
