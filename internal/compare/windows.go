package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// DesignWindows: one load alternating between two running services in
// short windows (A B B A ...), judged pair by pair over adjacent windows.
const DesignWindows = "windows"

// WindowPair is one pair of adjacent windows: the before (A) and after (B)
// service's throughput and p99 over its window.
type WindowPair struct {
	BeforeTPS, AfterTPS float64
	BeforeP99, AfterP99 float64
}

// FromWindows judges an alternating load (session.Versus): throughput and
// p99 by the paired t interval over the pairs' log ratios, as interleaved
// runs are, so a change can be told from a neighbour's noise within a
// minute. before and after name the two services; powerPct sizes the
// "run K more" advice (here: pairs to add).
func FromWindows(before, after string, pairs []WindowPair, window string, powerPct float64) *Comparison {
	if powerPct <= 0 {
		powerPct = DefaultPowerPct
	}
	model := finding.T(window+" windows", window+" 窗口")
	c := &Comparison{Schema: Schema, Before: Side{Dir: before, Model: model, Runs: []RunInfo{}},
		After: Side{Dir: after, Model: model, Runs: []RunInfo{}}, Design: DesignWindows, Pairs: len(pairs),
		PowerPct: powerPct, Stats: []Stat{}, Rows: []Row{}, Gone: []FindingRef{}, New: []FindingRef{}, Persist: []FindingRef{}}
	col := func(f func(WindowPair) float64) [][]float64 {
		out := make([][]float64, len(pairs))
		for i, p := range pairs {
			if v := f(p); v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				out[i] = []float64{v}
			}
		}
		return out
	}
	metrics := []struct {
		def       metricDef
		before, a func(WindowPair) float64
	}{
		{metricDef{"tps", finding.T("Throughput (per window)", "吞吐量（每个窗口）"), "TPS", Higher},
			func(p WindowPair) float64 { return p.BeforeTPS }, func(p WindowPair) float64 { return p.AfterTPS }},
		{metricDef{"p99_ms", finding.T("Latency p99 (per window)", "时延 p99（每个窗口）"), "ms", Lower},
			func(p WindowPair) float64 { return p.BeforeP99 }, func(p WindowPair) float64 { return p.AfterP99 }},
	}
	for _, m := range metrics {
		e, ok := stats.ComparePaired(col(m.before), col(m.a))
		if !ok || e.Method != stats.MethodPaired {
			continue // fewer than 2 usable pairs: nothing to judge
		}
		c.Stats = append(c.Stats, estimateStat(m.def, e, powerPct))
	}
	return c
}

// WriteWindowsText prints an alternating load's comparison: the two
// services, the table with intervals, the design, and the gate (gate > 0).
func WriteWindowsText(w io.Writer, c *Comparison, lang finding.Lang, gate float64) error {
	L := labelsFor(lang)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n", L.title)
	for _, s := range c.sides(L) {
		fmt.Fprintf(bw, "  %s: %s\n", s.name, finding.SafeLine(s.side.Dir))
	}
	bw.WriteString("\n")
	if len(c.Stats) == 0 {
		fmt.Fprintln(bw, finding.T("fewer than 2 pairs of windows with requests: nothing to judge", "有请求的窗口不足 2 对：无法判断").In(lang))
	} else {
		writeTable(bw, statRows(c, L))
	}
	fmt.Fprintf(bw, "  %s\n", c.designText().In(lang))
	writeGateText(bw, c, L, lang, gate)
	return bw.Flush()
}
