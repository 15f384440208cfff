package gclog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// A log with time but too little of it says so where a ratio would be,
// instead of a bare "n/a"; a log without time keeps "n/a".
func TestWriteTextTooShort(t *testing.T) {
	short := Summary{HasTime: true, DurationS: 0.5, Pauses: 2, ThroughputPct: -1, AllocRateMBs: -1, PromotionRateMBs: -1}
	untimed := Summary{Pauses: 2, ThroughputPct: -1, AllocRateMBs: -1, PromotionRateMBs: -1}
	for _, tc := range []struct {
		name string
		s    Summary
		lang finding.Lang
		want string
		not  string
	}{
		{"short-en", short, finding.EN, "too short to judge (2 pauses over 0.5 s)", "n/a"},
		{"short-zh", short, finding.ZH, "记录太短，无法判断（0.5 秒内 2 次停顿）", "  无"},
		{"untimed", untimed, finding.EN, "n/a", "too short"},
	} {
		var b bytes.Buffer
		if err := WriteText(&b, tc.s, nil, tc.lang); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, row := range []string{lThroughput.In(tc.lang), lAlloc.In(tc.lang), lPromo.In(tc.lang)} {
			line := lineWith(out, row)
			if !strings.Contains(line, tc.want) || strings.Contains(line, tc.not) {
				t.Errorf("%s: %s row %q, want %q", tc.name, row, line, tc.want)
			}
		}
	}
	if _, ok := ShortToJudge(Summary{HasTime: true, DurationS: 60, Pauses: 40}); ok {
		t.Error("a minute with 40 pauses called too short")
	}
	if _, ok := ShortToJudge(Summary{HasTime: true, DurationS: 60, Pauses: 3}); !ok {
		t.Error("3 pauses not too short")
	}
}

// Shenandoah's degenerated GCs are in the failures row with their time.
func TestWriteTextDegenerated(t *testing.T) {
	s := Summary{HasTime: true, DurationS: 30, Pauses: 9, ThroughputPct: 99, Degenerated: 3, DegeneratedMs: 412.5}
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteText(&b, s, nil, lang); err != nil {
			t.Fatal(err)
		}
		line := lineWith(b.String(), lFailures.In(lang))
		if !strings.Contains(line, "degenerated 3") || !strings.Contains(line, "412 ms") {
			t.Errorf("%s: failures row %q", lang, line)
		}
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// The Pauses row gives percentiles only from enough pauses: of one pause,
// p50 = p95 = p99 = that pause says nothing about a distribution.
func TestWriteTextPausePercentilesNeedEnoughPauses(t *testing.T) {
	few := Summary{HasTime: true, DurationS: 0.2, Pauses: 1, PauseTotalMs: 12.5, PauseAvgMs: 12.5, PauseP50Ms: 12.5, PauseP95Ms: 12.5, PauseP99Ms: 12.5, PauseMaxMs: 12.5,
		ThroughputPct: -1, AllocRateMBs: -1, PromotionRateMBs: -1}
	four := few
	four.Pauses, four.PauseTotalMs, four.PauseMaxMs = MinJudgePauses-1, 40, 20
	enough := few
	enough.Pauses, enough.PauseTotalMs, enough.PauseAvgMs, enough.PauseP50Ms, enough.PauseP95Ms, enough.PauseP99Ms, enough.PauseMaxMs = MinJudgePauses, 50, 10, 9, 14, 15, 15
	for _, tc := range []struct {
		name string
		s    Summary
		lang finding.Lang
		want []string
		not  []string
	}{
		{"one-en", few, finding.EN, []string{"1, total 12.5 ms, max 12.5 ms (percentiles need 5 pauses or more)"}, []string{"p50", "p95", "p99", "avg"}},
		{"one-zh", few, finding.ZH, []string{"1 次，合计 12.5 ms，最长 12.5 ms（至少 5 次停顿才给出百分位）"}, []string{"p50", "p99", "平均"}},
		{"four-en", four, finding.EN, []string{"4, total 40.0 ms, max 20.0 ms"}, []string{"p50", "p99"}},
		{"five-en", enough, finding.EN, []string{"5, total 50.0 ms, avg 10.0 ms, p50 9.0 ms, p95 14.0 ms, p99 15.0 ms, max 15.0 ms"}, []string{"percentiles need"}},
		{"none-en", Summary{ThroughputPct: -1, AllocRateMBs: -1, PromotionRateMBs: -1}, finding.EN, []string{"0"}, []string{"p50", "max"}},
	} {
		var b bytes.Buffer
		if err := WriteText(&b, tc.s, nil, tc.lang); err != nil {
			t.Fatal(err)
		}
		hasAll(t, tc.name+": Pauses row", lineWith(b.String(), "  "+lPauses.In(tc.lang)+" "), tc.want, tc.not)
	}
}
