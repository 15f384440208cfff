package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// LoadFormats are WriteLoad's; the page is html.WriteLoad.
func LoadFormats() Formats { return TextJSON() }

// WriteLoad writes the summary of `tuneloop load` in f (LoadFormats), its
// one switch.
func WriteLoad(w io.Writer, s *loadgen.Summary, f Format, l finding.Lang) error {
	if f == JSON {
		return WriteJSON(w, s)
	}
	return loadgen.WriteText(w, s, l)
}

// LoadLiveLine is the status line shown once a second on a terminal
// while a load runs.
func LoadLiveLine(p loadgen.Progress, l finding.Lang) string {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	var b strings.Builder
	b.WriteString(fmtSecs(p.Elapsed))
	if p.Warmup {
		b.WriteString(t(" warm-up", " 预热"))
	}
	fmt.Fprintf(&b, t("  TPS %d  p50 %s  p99 %s  requests %d  errors %d", "  TPS %d  p50 %s  p99 %s  请求 %d  错误 %d"), p.Last.Requests,
		fmtLiveMS(p.Last.P50), fmtLiveMS(p.Last.P99), p.Requests, p.Errors)
	if p.Remaining >= 0 {
		b.WriteString(t("  remaining ", "  剩余 ") + fmtSecs(p.Remaining))
	}
	return b.String()
}

func fmtSecs(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

func fmtLiveMS(ms float64) string {
	if ms >= 100 {
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	}
	return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
}
