package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// TestRunCosts: the three costs of measuring, each for what it is, in
// English and Chinese: the recorder's own, the load generator's own (the
// recorder's taken out of the process's getrusage) and JFR and attach in
// the service with its evidence; a thread name from the target is
// sanitised.
func TestRunCosts(t *testing.T) {
	r := &RunSummary{Schema: RunSchema, ID: "x", Status: "complete", CostCPUPct: 0.94, CostMaxRSSKB: 32516,
		CostGenerator: &runfolder.GeneratorCost{CPUPct: 27.53, ProcessCPUPct: 28, Cores: 2},
		CostInTarget: &runfolder.TargetCost{CPUMS: 58, PctOfCore: 0.69, Seconds: 8.5, Samples: 18,
			Threads: []string{"Attach Listener", "JFR Thread Samp", "evil\x1b[2Jname"}}}
	want := map[finding.Lang][]string{
		finding.EN: {
			"recording cost: 0.94% of one core, 31.8 MiB peak RSS\n",
			"load generator's own CPU: 27.5% of 2 cores (the process's 28.0% less the recorder's 0.94% of one core)\n",
			"JFR and attach in the service: 0.69% of one core (58 ms CPU over 8 s; 18 per-thread samples of Attach Listener, JFR Thread Samp, evil",
		},
		finding.ZH: {
			"记录开销：0.94% 个核，峰值 RSS 31.8 MiB\n",
			"压测端自身 CPU：2 个核的 27.5%（进程总计 28.0% 减去记录器的 0.94% 个核）\n",
			"服务内的 JFR 与 attach：0.69% 个核（8 秒内 CPU 58 ms；18 次逐线程采样：Attach Listener, JFR Thread Samp, evil",
		},
	}
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		var whole, costs bytes.Buffer
		if err := WriteRun(&whole, &RunPage{Brief: true, Lang: l, Run: r}, Text); err != nil {
			t.Fatal(err)
		}
		writeCosts(&costs, r, l)
		for _, w := range want[l] {
			if !strings.Contains(costs.String(), w) || !strings.Contains(whole.String(), w) {
				t.Errorf("%s: missing %q in\n%s", l, w, costs.String())
			}
		}
		if s := costs.String(); strings.Contains(s, "\x1b") || strings.Contains(s, "%!") || strings.Count(s, "\n") != 3 {
			t.Errorf("%s: want 3 clean lines:\n%q", l, s)
		}
	}
	var none bytes.Buffer
	if writeCosts(&none, &RunSummary{}, finding.EN); none.Len() != 0 {
		t.Errorf("a run without costs: %q", none.String())
	}
}
