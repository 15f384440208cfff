package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

func experimentDoc() *report.Experiment {
	g := &report.Gain{Pct: 42.5, LoPct: 30.1, HiPct: 55.2, Verdict: "better"}
	return &report.Experiment{
		Schema: report.ExperimentSchema, Service: "java -jar zoo.jar <script>alert(1)</script>", Target: "http://127.0.0.1:18080/report",
		Load: finding.T("4 users, 8s", "4 个用户，8s"), Repetitions: 2, Seed: 1, Metric: "tps", Higher: 1, Mode: "grid",
		Arms: []report.ExperimentArm{
			{ID: "base", Label: "baseline", Trials: 2, TPS: report.Interval{Mean: 900, Lo: 850, Hi: 950, N: 2}, Status: "baseline"},
			{ID: "arm1", Label: "heap=-Xmx256m\x1b[31m", Trials: 2, TPS: report.Interval{Mean: 1300, Lo: 1200, Hi: 1400, N: 2}, Gain: g, Status: "winner"},
			{ID: "arm2", Label: "gc=-XX:+UseSerialGC", Trials: 2, TPS: report.Interval{Mean: 700, Lo: 600, Hi: 800, N: 2}, Status: "refused",
				Why: finding.T("-XX:+UseSerialGC did not take effect", "-XX:+UseSerialGC 未生效")},
		},
		Winner:  "arm1",
		Confirm: &report.ExperimentConfirm{Arm: "arm1", Label: "heap=-Xmx256m", Trials: 2, TPS: g, P99: &report.Gain{Pct: -20, LoPct: -30, HiPct: -10, Verdict: "better"}, Objective: g},
		Changes: []report.ExperimentChange{{Arm: "arm1", What: "JAVA_TOOL_OPTIONS=-Xmx256m", Undone: true, Undo: finding.T("ended with the launch", "随启动结束")},
			{Arm: "arm2", What: "sysctl vm.swappiness=10", Undone: false, Undo: finding.T("STILL APPLIED", "仍在生效")}},
		Trials: []report.ExperimentTrial{{Seq: 1, Key: "screen/0/0/base", Arm: "base", TPS: 900, Status: "done"}},
	}
}

func TestWriteExperiment(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteExperiment(&b, experimentDoc(), l); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if !strings.Contains(page, "default-src 'none'") {
			t.Errorf("%s: no CSP", l)
		}
		if strings.Contains(page, "<script>alert") || strings.Contains(page, "\x1b") {
			t.Errorf("%s: hostile text reached the page raw", l)
		}
		if strings.Contains(page, "src=\"http") || strings.Contains(page, "href=\"http") {
			t.Errorf("%s: a network reference", l)
		}
		want := map[finding.Lang][]string{
			finding.EN: {"Gain of arm1", "55.2%]", "STILL APPLIED", "did not take effect", "<svg"},
			finding.ZH: {"相对基线的收益", "55.2%]", "仍在生效", "未生效", "更好"},
		}[l]
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page lacks %q", l, w)
			}
		}
	}
}
