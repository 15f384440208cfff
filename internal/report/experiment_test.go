package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func experimentFixture() *Experiment {
	g := &Gain{Pct: 128.7, LoPct: 40.2, HiPct: 210.5, Verdict: "better"}
	return &Experiment{Schema: ExperimentSchema, Service: "java -jar zoo.jar", Target: "http://127.0.0.1:1/api", Load: finding.T("16 users", "16 个用户"),
		Repetitions: 2, Metric: "tps", Higher: 1, Mode: "grid", P99BoundMS: 3000,
		Arms: []ExperimentArm{
			{ID: "base", Label: "baseline", Trials: 2, TPS: Interval{Mean: 252, Lo: 86.7, Hi: 726, N: 2}, Status: "baseline"},
			{ID: "arm3", Label: "heap=-Xmx256m | gc=*Parallel*\x1b[2J", Trials: 2, TPS: Interval{Mean: 734, Lo: 400, Hi: 1000, N: 2}, Gain: g, Status: "winner"},
			{ID: "arm1", Label: "gc=-XX:+UseParallelGC", Trials: 2, Gain: &Gain{Pct: 1.4, LoPct: -50, HiPct: 80, Verdict: "inconclusive", MoreRuns: 7}, Status: "measured"},
		},
		Winner:  "arm3",
		Confirm: &ExperimentConfirm{Arm: "arm3", Label: "heap=-Xmx256m", Trials: 3, TPS: g, P99: &Gain{Pct: -12}, Objective: g},
		Changes: []ExperimentChange{{Arm: "arm3", What: "JAVA_TOOL_OPTIONS=-Xmx256m", Undone: true, Undo: finding.T("ended with the launch", "随启动结束")}},
		Trials:  []ExperimentTrial{{Seq: 1, Key: "screen/0/0/base", Arm: "base", TPS: 252, Status: "done"}},
	}
}

func TestExperimentWriters(t *testing.T) {
	e := experimentFixture()
	var txt, md, zh, js bytes.Buffer
	if err := writeExperimentText(&txt, e, finding.EN); err != nil {
		t.Fatal(err)
	}
	if err := writeExperimentMarkdown(&md, e, finding.EN); err != nil {
		t.Fatal(err)
	}
	if err := writeExperimentText(&zh, e, finding.ZH); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, e); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Gain of arm3 (heap=-Xmx256m) over the baseline, re-measured in a fresh interleaved block of 3 trials each: tps +128.7% [+40.2%, +210.5%]: better",
		"inconclusive: run 7 more", "252 [86.7, 726]", "[undone] arm3 JAVA_TOOL_OPTIONS=-Xmx256m", "p99 <= 3000 ms"} {
		if !strings.Contains(txt.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, txt.String())
		}
	}
	if strings.Contains(txt.String(), "\x1b") || strings.Contains(md.String(), "\x1b") {
		t.Errorf("a control character from the plan reached the output")
	}
	// A label's | and * do not break the Markdown table or turn bold.
	if !strings.Contains(md.String(), `heap=-Xmx256m \| gc=\*Parallel\*`) {
		t.Errorf("markdown did not escape the label:\n%s", md.String())
	}
	if !strings.Contains(zh.String(), "相对基线的收益") || !strings.Contains(zh.String(), "尚无定论：再运行 7 次") {
		t.Errorf("zh:\n%s", zh.String())
	}
	var back Experiment
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Confirm.Objective.Verdict != "better" || back.Schema != ExperimentSchema {
		t.Errorf("json round trip: %v %+v", err, back.Confirm)
	}
}
