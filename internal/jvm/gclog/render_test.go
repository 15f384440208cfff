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
