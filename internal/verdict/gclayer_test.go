package verdict

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
)

// The verdict clears GC in the GC summary's own sentence: a p99 only
// from enough pauses (of two pauses it is the longest, not a
// distribution), the GC rules' plain answer when they gave it, and
// "not the bottleneck" on high throughput alone only as that.
func TestVerdictGCLayerIsTheGCSentence(t *testing.T) {
	root := &finding.Finding{ID: "threaddump.lock.x", Title: finding.T("lock", "锁"), Observed: finding.T("waiters", "等待者")}
	pass := finding.Finding{ID: "gc.not-the-bottleneck", Status: finding.Pass, Title: finding.T("GC is not the problem", "GC 不是问题所在")}
	for _, c := range []struct {
		name    string
		s       gclog.Summary
		fs      []finding.Finding
		want    []string
		wantNot []string
		noLayer bool
	}{
		{name: "cleared by the rules", s: gclog.Summary{CollectorName: "G1", ThroughputPct: 99.4, Pauses: 40, PauseP99Ms: 5.5, PauseMaxMs: 6}, fs: []finding.Finding{pass},
			want: []string{"GC: Collector G1", "99.40 %", "p99 5.5 ms", "GC is not the problem."}},
		{name: "two pauses: no p99", s: gclog.Summary{CollectorName: "G1", ThroughputPct: 99.9, Pauses: 2, PauseP99Ms: 190, PauseMaxMs: 190},
			want: []string{"Pauses 2", "max 190 ms", "At this throughput GC is not the bottleneck."}, wantNot: []string{"p99"}},
		{name: "GC takes time", s: gclog.Summary{CollectorName: "Parallel", ThroughputPct: 90, Pauses: 50, PauseP99Ms: 300}, noLayer: true},
	} {
		v := verdictFinding(&Layers{GC: &gclog.Report{Summary: c.s, Findings: c.fs}}, root, []finding.Text{finding.T("CPU: x", "CPU：x")})
		got := v.Observed.EN
		if c.noLayer {
			if strings.Contains(got, "GC") {
				t.Errorf("%s: GC cleared at %.0f%% throughput:\n%s", c.name, c.s.ThroughputPct, got)
			}
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q missing:\n%s", c.name, w, got)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q present:\n%s", c.name, w, got)
			}
		}
		if !strings.Contains(v.Observed.ZH, "GC：") {
			t.Errorf("%s: no Chinese GC layer:\n%s", c.name, v.Observed.ZH)
		}
	}
}
