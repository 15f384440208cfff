package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// DesignWindows: one load alternating between two running services in
// short windows (A B B A ...), judged pair by pair over adjacent windows.
const DesignWindows = "windows"

// WindowPair is one pair of adjacent windows: the before (A) and after (B)
// service's throughput, p99 and latency distribution over its window.
type WindowPair struct {
	BeforeTPS, AfterTPS float64
	BeforeP99, AfterP99 float64
	// BeforeLatency and AfterLatency are the windows' latencies (ms); when
	// given, p99 is judged on each side's windows pooled.
	BeforeLatency, AfterLatency stats.Dist
}

// FromWindows judges an alternating load (session.Versus), so that a
// change can be told from a neighbour's noise within a minute: throughput
// by the paired t interval over the pairs' log ratios, as interleaved runs
// are; p99 as the p99 of each side's windows pooled (the load's p99, not a
// mean of 1 s windows' p99s, each resting on a few dozen requests), its
// interval bootstrapped over the pairs (stats.ComparePooledQuantile says
// when that is steadier and when not). Without latency distributions p99
// falls back to the paired t over per-window p99s.
// before and after name the two services; powerPct sizes the "run K more"
// advice (here: pairs to add).
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
	tps := metricDef{"tps", finding.T("Throughput (per window)", "吞吐量（每个窗口）"), "TPS", Higher}
	if e, ok := stats.ComparePaired(col(func(p WindowPair) float64 { return p.BeforeTPS }), col(func(p WindowPair) float64 { return p.AfterTPS })); ok && e.Method == stats.MethodPaired {
		c.Stats = append(c.Stats, estimateStat(tps, e, powerPct))
	} // else fewer than 2 usable pairs: nothing to judge
	var bl, al []stats.Dist
	for _, p := range pairs {
		bl, al = append(bl, p.BeforeLatency), append(al, p.AfterLatency)
	}
	if e, ok := stats.ComparePooledQuantile(bl, al, 0.99); ok {
		p99 := metricDef{"p99_ms", finding.T("Latency p99 (windows pooled)", "时延 p99（各窗口合并）"), "ms", Lower}
		c.Stats = append(c.Stats, estimateStat(p99, e, powerPct))
	} else if e, ok := stats.ComparePaired(col(func(p WindowPair) float64 { return p.BeforeP99 }), col(func(p WindowPair) float64 { return p.AfterP99 })); ok && e.Method == stats.MethodPaired {
		p99 := metricDef{"p99_ms", finding.T("Latency p99 (per window)", "时延 p99（每个窗口）"), "ms", Lower}
		c.Stats = append(c.Stats, estimateStat(p99, e, powerPct))
	}
	return c
}

// WriteWindows writes an alternating load's comparison (load --versus) as
// f (report.LoadFormats): its JSON, or the text of writeWindowsText
// followed by each warning.
func WriteWindows(w io.Writer, c *Comparison, f report.Format, lang finding.Lang, gate float64) error {
	if f == report.JSON {
		return report.WriteJSON(w, c)
	}
	if err := writeWindowsText(w, c, lang, gate); err != nil {
		return err
	}
	for _, x := range c.Warnings {
		if _, err := fmt.Fprintf(w, "%s: %s\n", finding.T("Warning", "警告").In(lang), x.In(lang)); err != nil {
			return err
		}
	}
	return nil
}

// writeWindowsText prints an alternating load's comparison: the two
// services, the table with intervals, the design, and the gate (gate > 0).
func writeWindowsText(w io.Writer, c *Comparison, lang finding.Lang, gate float64) error {
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
