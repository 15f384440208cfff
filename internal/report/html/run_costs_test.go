package html

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// TestWriteRunCosts: the run page's header shows each cost of measuring
// for what it is, in the page's language, next to the recording cost; a
// thread name from the target is escaped.
func TestWriteRunCosts(t *testing.T) {
	for l, want := range map[finding.Lang][]string{
		finding.EN: {"load generator&#39;s own CPU", "27.5% of 2 cores (the process&#39;s 28.0% less the recorder&#39;s 0.40% of one core)",
			"JFR and attach in the service", "0.69% of one core (58 ms CPU over 8 s; 18 per-thread samples of Attach Listener, &lt;b&gt;JFR"},
		finding.ZH: {"压测端自身 CPU", "2 个核的 27.5%", "服务内的 JFR 与 attach", "0.69% 个核（8 秒内 CPU 58 ms；18 次逐线程采样"},
	} {
		p := htmlFixture(2, l)
		p.Run.CostGenerator = &runfolder.GeneratorCost{CPUPct: 27.53, ProcessCPUPct: 28, Cores: 2}
		p.Run.CostInTarget = &runfolder.TargetCost{CPUMS: 58, PctOfCore: 0.69, Seconds: 8.5, Samples: 18, Threads: []string{"Attach Listener", "<b>JFR"}}
		s := renderHTML(t, p)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: missing %q", l, w)
			}
		}
		if strings.Contains(s, "<b>JFR") {
			t.Errorf("%s: a target's thread name reached the page unescaped", l)
		}
	}
}
