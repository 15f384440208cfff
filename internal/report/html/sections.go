package html

// The section builders: each turns one part of the RunPage into the view
// the template draws (KPIs, charts, table rows), or nil when the run has
// nothing for it.

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// cpuPart is one CPU component, in stacking order, with its colour.
type cpuPart struct {
	Name, Color string
	get         func(report.CPUShare) float64
}

// cpuParts are the stacked components, in the Okabe-Ito colour-blind-safe palette.
func cpuParts() []cpuPart {
	return []cpuPart{
		{"us", "#0072B2", func(c report.CPUShare) float64 { return c.Us }},
		{"sy", "#D55E00", func(c report.CPUShare) float64 { return c.Sy }},
		{"hi", "#CC79A7", func(c report.CPUShare) float64 { return c.Hi }},
		{"si", "#E69F00", func(c report.CPUShare) float64 { return c.Si }},
		{"wa", "#56B4E9", func(c report.CPUShare) float64 { return c.Wa }},
		{"st", "#009E73", func(c report.CPUShare) float64 { return c.St }},
	}
}

// stateColors are the thread states in stacking order and their colours;
// any other state is grey.
func stateColors() []legendItem {
	return []legendItem{
		{"RUNNABLE", "#009E73"},
		{"BLOCKED", "#D55E00"},
		{"WAITING", "#0072B2"},
		{"TIMED_WAITING", "#56B4E9"},
		{"NEW", "#F0E442"},
		{"TERMINATED", "#000000"},
	}
}

// loadHTML is the load section: where the load came from and its KPIs.
type loadHTML struct {
	Source, Model string
	KPIs          []kpi
}

// kpi is one big number; Class "bad" marks it red, "text" for words.
type kpi struct{ Label, Value, Unit, Class string }

// cpuHTML is the CPU section for N CPUs.
type cpuHTML struct {
	N      int
	All    template.HTML
	Multi  []template.HTML // small multiples, or nil
	Heats  []*heatStrip    // many CPUs: one row per CPU
	Legend []legendItem
}

// softHTML is the softirq section.
type softHTML struct {
	Bars   template.HTML
	Heat   *heatStrip
	Legend []legendItem
}

// threadsHTML is the thread-state section.
type threadsHTML struct {
	Chart  template.HTML
	Legend []legendItem
}

// gcHTML is the GC section.
type gcHTML struct {
	KPIs    []kpi
	Chart   template.HTML
	Legend  []legendItem
	Verdict string
}

// lockView is a LockRow made safe, with Java names cut where a line may break.
type lockView struct {
	Lock, Kind, Owner, OwnerState string
	Class, OwnerFrame             []string
	Waiters, Dumps                int
	Names                         []string // waiting threads (dump pages)
}

// lockSection is the first maxLockRows locks, made safe, and how many more
// there are.
func lockSection(locks []report.LockRow) ([]lockView, int) {
	var rows []lockView
	for i, lk := range locks {
		if i == maxLockRows {
			return rows, len(locks) - maxLockRows
		}
		rows = append(rows, lockView{Lock: finding.SafeOneLine(lk.Lock), Class: breakable(lk.Class), Kind: finding.SafeOneLine(lk.Kind),
			Owner: finding.SafeOneLine(lk.Owner), OwnerState: finding.SafeOneLine(lk.OwnerState), OwnerFrame: breakable(lk.OwnerFrame),
			Waiters: lk.Waiters, Dumps: lk.Dumps})
	}
	return rows, 0
}

// breakable cuts a Java name after '.', '$' and '(' so the page can wrap
// it there (<wbr>) instead of in the middle of a word.
func breakable(s string) []string {
	s = finding.SafeOneLine(s)
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c == '.' || c == '$' || c == '(' || c == '/') && i+1-start >= 4 {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// findingView is a finding made safe, in the page's language.
type findingView struct {
	Rank                           int
	Sev, SevLabel, Key, Anchor     string
	Category, Title, Observed, Why string
	Recommended, Apply, Revert     string
	Persist, Note, Risk, Workload  string
	Reason, Confidence             string
	Reboot                         bool
	Evidence                       []finding.Evidence
	Refs                           []string
}

// viewFinding makes a finding safe to show in language l; rank 0 is unranked.
func viewFinding(f *finding.Finding, rank int, l finding.Lang) findingView {
	txt := func(t finding.Text) string { return strings.TrimSpace(finding.Safe(t.In(l))) }
	lit := func(s string) string { return strings.TrimSpace(finding.Safe(s)) }
	fv := findingView{
		Rank: rank, Sev: f.Severity.String(), SevLabel: f.Severity.Label(l),
		Key: finding.SafeOneLine(f.Key()), Anchor: "f-" + report.Anchor(f.Key()), Category: finding.SafeOneLine(f.Category),
		Title: finding.SafeOneLine(f.Title.In(l)), Observed: txt(f.Observed), Why: txt(f.Why), Recommended: txt(f.Recommended),
		Apply: lit(f.Fix.Apply), Revert: lit(f.Fix.Revert), Persist: lit(f.Fix.Persist), Note: txt(f.Fix.Note),
		Reboot: f.Fix.Reboot, Risk: txt(f.Risk), Workload: txt(f.Workload), Reason: txt(f.Reason),
	}
	if fv.Sev != "critical" && fv.Sev != "warning" {
		fv.Sev = "info"
	}
	if f.Confidence > 0 {
		fv.Confidence = fmt.Sprintf("%.0f%%", 100*f.Confidence)
	}
	for _, e := range f.Evidence {
		fv.Evidence = append(fv.Evidence, finding.Evidence{Key: finding.SafeOneLine(e.Key), Value: finding.Safe(e.Value), Source: finding.SafeOneLine(e.Source)})
	}
	for _, r := range f.References {
		fv.Refs = append(fv.Refs, finding.SafeOneLine(r))
	}
	return fv
}

// ---- sections ----

// loadSection is the load KPIs and the throughput and latency charts.
func loadSection(lv *report.LoadView, tr timeRange, L map[string]string, l finding.Lang) (*loadHTML, []template.HTML) {
	if lv == nil {
		return nil, nil
	}
	h := &loadHTML{Source: finding.SafeOneLine(lv.Source), Model: finding.SafeOneLine(report.ModelText(lv.Model).In(l))}
	errPct := 0.0
	if lv.Requests > 0 {
		errPct = 100 * float64(lv.Errors) / float64(lv.Requests)
	}
	errClass := ""
	if lv.Errors > 0 {
		errClass = "bad"
	}
	h.KPIs = []kpi{
		{L["tps"], fmtNum(lv.TPS), "/s", ""},
		{"p50", fmtNum(lv.P50MS), "ms", ""},
		{"p90", fmtNum(lv.P90MS), "ms", ""},
		{"p99", fmtNum(lv.P99MS), "ms", ""},
		{L["max"], fmtNum(lv.MaxMS), "ms", ""},
		{L["mean"], fmtNum(lv.MeanMS), "ms", ""},
		{L["requests"], fmtInt(lv.Requests), "", ""},
		{L["errors"], fmtInt(lv.Errors), fmt.Sprintf("(%.2f%%)", errPct), errClass},
	}
	n := len(lv.Series)
	if n == 0 || tr.t0.IsZero() {
		return h, nil
	}
	xs := make([]float64, n)
	tps := make([]float64, n)
	errs := make([]float64, n)
	p50 := make([]float64, n)
	p99 := make([]float64, n)
	for i, pt := range lv.Series {
		xs[i], tps[i], errs[i], p50[i], p99[i] = tr.secs(pt.T), pt.TPS, float64(pt.Errors), pt.P50MS, pt.P99MS
	}
	c1 := lineChart(tr, 170, L["tpsaxis"], []lineSeries{
		{L["tps"], "#0072B2", xs, tps, false, true},
	}, false, &chartMarks{Name: L["errs"], Color: "#D55E00", Unit: L["errors"], X: xs, N: errs})
	c2 := lineChart(tr, 170, "ms", []lineSeries{
		{"p99", "#D55E00", xs, p99, true, false},
		{"p50", "#0072B2", xs, p50, false, false},
	}, true, nil)
	return h, []template.HTML{c1, c2}
}

// cpuSection is the mean CPU split over time, then one small chart per
// CPU or, past smallMultiples CPUs, busy and kernel heat strips.
func cpuSection(ticks []report.CPUTick, tr timeRange, L map[string]string) *cpuHTML {
	if len(ticks) == 0 || tr.t0.IsZero() {
		return nil
	}
	ncpu := 0
	for _, t := range ticks {
		ncpu = max(ncpu, len(t.PerCPU))
	}
	if ncpu == 0 {
		return nil
	}
	parts := cpuParts()
	h := &cpuHTML{N: ncpu}
	for _, c := range parts {
		h.Legend = append(h.Legend, legendItem{c.Name, c.Color})
	}
	xs := make([]float64, len(ticks))
	for i, t := range ticks {
		xs[i] = tr.secs(t.T)
	}
	// per CPU per part series; the mean over CPUs for the top chart
	part := func(cpu int, k int) []float64 {
		out := make([]float64, len(ticks))
		for i, t := range ticks {
			if cpu < 0 {
				var s float64
				for _, c := range t.PerCPU {
					s += parts[k].get(c)
				}
				if len(t.PerCPU) > 0 {
					out[i] = s / float64(len(t.PerCPU))
				}
			} else if cpu < len(t.PerCPU) {
				out[i] = parts[k].get(t.PerCPU[cpu])
			}
		}
		return out
	}
	stack := func(cpu int) [][]float64 {
		ys := make([][]float64, len(parts))
		for k := range parts {
			ys[k] = part(cpu, k)
		}
		return ys
	}
	colors := make([]string, len(parts))
	names := make([]string, len(parts))
	for k, c := range parts {
		colors[k], names[k] = c.Color, c.Name
	}
	h.All = areaChart(tr, 1200, 170, L["cpuall"], "%", xs, stack(-1), colors, names, true)
	if ncpu <= smallMultiples {
		for c := 0; c < ncpu; c++ {
			w := 590.0
			if ncpu > 2 {
				w = 290
			}
			h.Multi = append(h.Multi, areaChart(tr, w, 120, fmt.Sprintf("CPU %d", c), "%", xs, stack(c), colors, names, false))
		}
		return h
	}
	busy := make([][]float64, ncpu)
	kern := make([][]float64, ncpu)
	for c := range busy {
		busy[c] = make([]float64, len(ticks))
		kern[c] = make([]float64, len(ticks))
	}
	for i, t := range ticks {
		for c, s := range t.PerCPU {
			busy[c][i] = s.Us + s.Sy + s.Hi + s.Si + s.Wa + s.St
			kern[c][i] = s.Sy + s.Hi + s.Si
		}
	}
	kpeak := 0.0
	for _, row := range kern {
		kpeak = max(kpeak, slices.Max(row))
	}
	_, ktop := niceTicks(max(kpeak, 5), 4)
	ktop = min(ktop, 100)
	h.Heats = append(h.Heats, newHeat(busy, xs, tr, 100, false, L["cpuheat"], "0%", "100%"),
		newHeat(kern, xs, tr, ktop, false, L["cpukern"], "0%", fmtNum(ktop)+"%"))
	return h
}

// softirqSection is the mean softirqs per CPU and the NET_RX heat strip.
func softirqSection(ticks []report.SoftirqTick, tr timeRange, L map[string]string) *softHTML {
	if len(ticks) == 0 {
		return nil
	}
	ncpu := 0
	for _, t := range ticks {
		ncpu = max(ncpu, len(t.All), len(t.NetRx))
	}
	if ncpu == 0 {
		return nil
	}
	all := make([]float64, ncpu)
	rx := make([]float64, ncpu)
	for _, t := range ticks {
		for c, v := range t.All {
			all[c] += finite(v)
		}
		for c, v := range t.NetRx {
			rx[c] += finite(v)
		}
	}
	other := make([]float64, ncpu)
	for c := range all {
		all[c] /= float64(len(ticks))
		rx[c] /= float64(len(ticks))
		other[c] = math.Max(all[c]-rx[c], 0)
	}
	h := &softHTML{Legend: []legendItem{{"NET_RX", "#D55E00"}, {L["othersirq"], "#B8C4D0"}}}
	h.Bars = barChart(1200, 180, L["softmean"], [][]float64{rx, other}, []string{"#D55E00", "#B8C4D0"}, []string{"NET_RX", L["othersirq"]})
	if len(ticks) > 1 && !tr.t0.IsZero() {
		xs := make([]float64, len(ticks))
		grid := make([][]float64, ncpu)
		for c := range grid {
			grid[c] = make([]float64, len(ticks))
		}
		peak := 0.0
		for i, t := range ticks {
			xs[i] = tr.secs(t.T)
			for c, v := range t.NetRx {
				grid[c][i] = finite(v)
				peak = max(peak, grid[c][i])
			}
		}
		if peak > 0 {
			h.Heat = newHeat(grid, xs, tr, peak, true, L["netrxheat"], "0", fmtNum(peak)+"/s")
		}
	}
	return h
}

// threadsSection is the thread states of each dump, stacked.
func threadsSection(ss []report.ThreadStateSample, tr timeRange, L map[string]string) *threadsHTML {
	if len(ss) == 0 {
		return nil
	}
	// fixed states first, then any other state seen, sorted
	seen := map[string]bool{}
	for _, s := range ss {
		for k, n := range s.Counts {
			if n > 0 {
				seen[k] = true
			}
		}
	}
	var names, colors []string
	for _, sc := range stateColors() {
		if seen[sc.Name] {
			names, colors = append(names, sc.Name), append(colors, sc.Color)
			delete(seen, sc.Name)
		}
	}
	var rest []string
	for k := range seen {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	greys := []string{"#999999", "#777777", "#BBBBBB", "#555555"}
	for i, k := range rest {
		names, colors = append(names, k), append(colors, greys[i%len(greys)])
	}
	h := &threadsHTML{}
	for i := range names {
		h.Legend = append(h.Legend, legendItem{finding.SafeOneLine(names[i]), colors[i]})
	}
	h.Chart = stackedBars(tr, ss, names, colors, L["threadsaxis"])
	return h
}

// gcSection is the GC KPIs and the pause scatter.
func gcSection(g *report.GCView, L map[string]string, l finding.Lang) *gcHTML {
	if g == nil {
		return nil
	}
	h := &gcHTML{Verdict: strings.TrimSpace(finding.Safe(g.Verdict.In(l)))}
	tpClass := ""
	if g.Headline().ThroughputLow() {
		tpClass = "bad"
	}
	fullClass := ""
	if g.FullGCs > 0 {
		fullClass = "bad"
	}
	p50, p99 := "–", "–" // too few pauses for percentiles: gclog's threshold
	if g.Headline().Percentiles() {
		p50, p99 = fmtNum(g.PauseP50MS), fmtNum(g.PauseP99MS)
	}
	h.KPIs = []kpi{
		{L["collector"], finding.SafeOneLine(g.Collector), "", "text"},
		{L["throughput"], fmtPct(g.ThroughputPct), "%", tpClass},
		{L["pauses"], fmtInt(int64(g.Pauses)), "", ""},
		{"p50", p50, "ms", ""},
		{"p99", p99, "ms", ""},
		{L["max"], fmtNum(g.PauseMaxMS), "ms", ""},
		{L["fullgcs"], fmtInt(int64(g.FullGCs)), "", fullClass},
	}
	if len(g.Timeline) > 0 {
		h.Chart, h.Legend = gcScatter(g.Timeline, L, nil)
	}
	return h
}
