package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/report"
)

// A log of one pause (a real JDK 8 G1 log): the page's p50 and p99 tiles
// say "–" as gclog's text gives no percentiles for it, and the max tile
// keeps the pause; a log of many pauses shows its p99.
func TestGCTilesPercentilesNeedEnoughPauses(t *testing.T) {
	tile := func(page, label string) string {
		k := `<div class="k">` + label + `</div><div class="v">`
		i := strings.Index(page, k)
		if i < 0 {
			return ""
		}
		rest := page[i+len(k):]
		return rest[:strings.Index(rest, "<")]
	}
	for _, tc := range []struct {
		file     string
		p99      string
		fewPause bool
	}{
		{"../../jvm/gclog/testdata/corpus/openjdk_SampleSun1_8_0G1SystemGcYoung.txt", "–", true},
		{"../../jvm/gclog/testdata/live/jdk25-parallel-12s.log", "", false},
	} {
		rs, evs, err := report.AnalyzeGC(t.Context(), gclog.FileSources(tc.file), gclog.DefaultThresholds())
		if err != nil {
			t.Fatal(err)
		}
		p := report.NewGCPage(rs, evs, finding.EN)
		s := p.JVMs[0].Summary
		if few := s.Pauses < gclog.MinJudgePauses; few != tc.fewPause {
			t.Fatalf("%s: %d pauses", tc.file, s.Pauses)
		}
		var b bytes.Buffer
		if err := WriteGC(&b, p); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		p50, p99, mx := tile(page, "p50"), tile(page, "p99"), tile(page, "max")
		if tc.fewPause {
			if p50 != "–" || p99 != "–" || mx == "–" || mx == "" {
				t.Errorf("%s (%d pause): tiles p50 %q, p99 %q, max %q; want –, –, the pause", tc.file, s.Pauses, p50, p99, mx)
			}
		} else if p99 == "–" || p99 == "" || p50 == "–" {
			t.Errorf("%s (%d pauses): tiles p50 %q, p99 %q", tc.file, s.Pauses, p50, p99)
		}
	}
}
