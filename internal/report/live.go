package report

// The one-line live status each long command redraws on a terminal.

import (
	"fmt"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/sample"
)

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

// RunLiveLine is the status line of `tuneloop run` during its load of
// total.
func RunLiveLine(p loadgen.Progress, total time.Duration, l finding.Lang) string {
	return fmt.Sprintf("● %s / %s  TPS %.0f  p99 %.1f ms  %s %d", Clock(p.Elapsed), Clock(total),
		float64(p.Last.Requests), p.Last.P99, finding.T("errors", "错误").In(l), p.Errors)
}

// WindowLiveLine is the status line of `load --versus` after window i of
// n: the side loaded (a or b) and that window's TPS and p99.
func WindowLiveLine(i, n int, side string, tps, p99 float64, l finding.Lang) string {
	return fmt.Sprintf("%s %d/%d  %s  %.0f TPS  p99 %.1f ms", finding.T("window", "窗口").In(l), i, n, side, tps, p99)
}

// RecordLiveLine is the status line of `tuneloop record` el into total
// (0: until stopped): host CPU, the process and its busiest thread.
func RecordLiveLine(r *sample.Rates, el, total time.Duration, l finding.Lang) string {
	var b strings.Builder
	b.WriteString("● ")
	b.WriteString(Clock(el))
	if total > 0 {
		b.WriteString(" / " + Clock(total) + " (" + finding.T("left ", "剩余 ").In(l) + Clock(max(total-el, 0)) + ")")
	}
	if c := r.CPU; c != nil {
		fmt.Fprintf(&b, "  CPU us %.1f sy %.1f si %.1f id %.1f", c.All.User+c.All.Nice, c.All.System, c.All.SoftIRQ+c.All.IRQ, c.All.Idle)
	}
	if p := r.Proc; p != nil {
		fmt.Fprintf(&b, "  proc %.0f%%", p.CPUPct)
	}
	if t := r.Threads; t != nil && len(t.Threads) > 0 {
		top := t.Threads[0]
		fmt.Fprintf(&b, "  top \"%s\" tid=%d %.0f%%", finding.SafeLine(top.Name), top.TID, top.CPUPct) // the name is the target's
	}
	return b.String()
}
