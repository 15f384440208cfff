package gclog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// The one sentence says what WriteText's rows say, in the same words and
// units, and gives p99 only from as many pauses as the Pauses row does.
func TestHeadlineLineIsWriteTextsWords(t *testing.T) {
	r, err := Analyze(FileSources("testdata/live/jdk25-parallel-12s.log"), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	if s.Pauses < MinJudgePauses || s.ThroughputPct < 0 {
		t.Fatalf("want a judged log: %d pauses, throughput %v", s.Pauses, s.ThroughputPct)
	}
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteText(&b, s, r.Findings, lang); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		line := s.Headline(r.Findings).Line().In(lang)
		for _, w := range []struct {
			row  finding.Text
			part string
		}{
			{lThroughput, finding.Tf(lPct, s.ThroughputPct).In(lang)},
			{lPauses, "p99 " + ms(s.PauseP99Ms)},
			{lPauses, finding.T("max ", "最长 ").In(lang) + ms(s.PauseMaxMs)},
			{lFull, finding.Tf(lTimes, s.FullGCs).In(lang)},
		} {
			if !strings.Contains(line, w.part) || !strings.Contains(lineWith(text, w.row.In(lang)), w.part) {
				t.Errorf("%s: %q in the sentence %q and in the %s row %q", lang, w.part, line, w.row.In(lang), lineWith(text, w.row.In(lang)))
			}
		}
		if !strings.Contains(line, s.CollectorName) {
			t.Errorf("%s: no collector %q in %q", lang, s.CollectorName, line)
		}
	}
}

// Few pauses: no p99 (the Pauses row gives none either); no throughput:
// "n/a" as the row says for a log without time; the verdict only when
// gc.not-the-bottleneck passed.
func TestHeadlineLineThresholds(t *testing.T) {
	pass := finding.Finding{ID: "gc.not-the-bottleneck", Status: finding.Pass, Title: finding.T("GC is not the problem", "GC 不是问题所在")}
	for _, tc := range []struct {
		name string
		h    Headline
		fs   []finding.Finding
		lang finding.Lang
		want []string
		not  []string
	}{
		{"few-en", Headline{Collector: "G1", ThroughputPct: -1, Pauses: MinJudgePauses - 1, PauseP99Ms: 12.5, PauseMaxMs: 20, FullGCs: 1}, nil, finding.EN,
			[]string{"Collector G1", "Throughput n/a", "Pauses 4, max 20.0 ms", "Full GCs 1."}, []string{"p99", "not the problem"}},
		{"few-zh", Headline{Collector: "G1", ThroughputPct: -1, Pauses: MinJudgePauses - 1, PauseP99Ms: 12.5, PauseMaxMs: 20, FullGCs: 1}, nil, finding.ZH,
			[]string{"收集器 G1", "吞吐量 无", "停顿 4 次，最长 20.0 ms", "Full GC 1 次。"}, []string{"p99"}},
		{"enough-en", Headline{Collector: "Parallel", ThroughputPct: 99.5, Pauses: 40, PauseP99Ms: 0.4, PauseMaxMs: 150}, []finding.Finding{pass}, finding.EN,
			[]string{"Throughput 99.50 %", "Pauses 40, p99 0.400 ms, max 150 ms", "Full GCs 0. GC is not the problem"}, nil},
		{"enough-zh", Headline{Collector: "Parallel", ThroughputPct: 99.5, Pauses: 40, PauseP99Ms: 0.4, PauseMaxMs: 150}, []finding.Finding{pass}, finding.ZH,
			[]string{"吞吐量 99.50%", "停顿 40 次，p99 0.400 ms，最长 150 ms", "Full GC 0 次。GC 不是问题所在"}, nil},
		{"none", Headline{Collector: "Serial", ThroughputPct: -1}, nil, finding.EN, []string{"Pauses 0;"}, []string{"max"}},
	} {
		h := tc.h
		if tc.fs != nil {
			h.Verdict = Summary{}.Headline(tc.fs).Verdict
		}
		hasAll(t, tc.name+": sentence", h.Line().In(tc.lang), tc.want, tc.not)
	}
	// a not-the-bottleneck finding that did not pass (a rule that panicked) is no verdict
	if v := (Summary{}).Headline([]finding.Finding{{ID: "gc.not-the-bottleneck", Status: finding.Unavailable, Title: pass.Title}}).Verdict; !v.IsZero() {
		t.Errorf("unavailable finding read as the verdict %q", v.EN)
	}
}

// hasAll fails when s lacks one of want or has one of not.
func hasAll(t *testing.T, what, s string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s %q lacks %q", what, s, w)
		}
	}
	for _, n := range not {
		if strings.Contains(s, n) {
			t.Errorf("%s %q has %q", what, s, n)
		}
	}
}
