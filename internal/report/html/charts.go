package html

// Server-side SVG charts: line and stacked-area series over the shared time
// axis, per-CPU and per-dump stacked bars, the GC pause scatter, their axes
// and marks, and the shaded window of the verdict. Text written into the
// SVG goes through finding.SafeHTML; numbers through the formats.

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// Margins of the plot area inside a chart, in SVG pixels.
const padL, padR, padT, padB = 58.0, 16.0, 22.0, 28.0

// legendItem is one swatch of a legend.
type legendItem struct{ Name, Color string }

// lineSeries is one line of a lineChart.
type lineSeries struct {
	Name   string
	Color  string
	X, Y   []float64
	UseMax bool // downsample by max (p99) instead of mean
	Fill   bool
}

// svgOpen starts a chart of w×h pixels labelled for screen readers.
func svgOpen(b *strings.Builder, w, h float64, label string) {
	fmt.Fprintf(b, `<svg class="chart" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s" preserveAspectRatio="xMinYMin meet">`, w, h, w, h, finding.SafeHTML(label))
}

// xAxis draws time ticks along the bottom of the plot area [x0,x1] (pixels) at y1.
func xAxis(b *strings.Builder, tr timeRange, x0, x1, y1 float64) {
	xAxisFrom(b, tr, tr.off, x0, x1, y1)
}

// xAxisFrom labels the axis with seconds offset by off (round ticks of the offset time).
func xAxisFrom(b *strings.Builder, tr timeRange, off, x0, x1, y1 float64) {
	span := tr.span()
	step := niceStep(span/math.Max(2, math.Floor((x1-x0)/90)), true)
	for v := math.Ceil(off/step-1e-9) * step; v-off <= span+1e-9; v += step {
		if v == 0 {
			v = 0 // not -0
		}
		x := x0 + (x1-x0)*(v-off)/span
		fmt.Fprintf(b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, y1, x, y1+4)
		fmt.Fprintf(b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, y1+15, fmtDur(v))
	}
}

// yAxis draws horizontal grid lines and labels for [0,ymax] (values), returns nothing.
func yAxis(b *strings.Builder, ticks []float64, ymax, x0, x1, y0, y1 float64, unit string) {
	for _, t := range ticks {
		y := y1 - (y1-y0)*t/ymax
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y, x1, y)
		fmt.Fprintf(b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x0-5, y+3.5, fmtNum(t))
	}
	fmt.Fprintf(b, `<text class="unit" x="%.1f" y="%.1f">%s</text>`, 4.0, y0-9, finding.SafeHTML(unit))
	fmt.Fprintf(b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y1, x1, y1)
}

// chartMarks are events drawn as dots along the top of a chart (errors).
type chartMarks struct {
	Name, Color, Unit string
	X, N              []float64
}

// band shades the verdict's window on a time chart, under the series.
func band(b *strings.Builder, tr timeRange, x0, x1, y0, y1 float64) {
	if tr.b1 <= tr.b0 {
		return
	}
	span := tr.span()
	bx0 := x0 + (x1-x0)*clamp(tr.b0/span, 0, 1)
	bx1 := x0 + (x1-x0)*clamp(tr.b1/span, 0, 1)
	fmt.Fprintf(b, `<rect class="band" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, bx0, y0, max(bx1-bx0, 1), y1-y0)
}

// lineChart draws series over the shared time axis. With logOK and a range
// of more than 50×, the y axis is logarithmic (latency: p50 and p99 both
// stay readable).
func lineChart(tr timeRange, h float64, unit string, ss []lineSeries, logOK bool, marks *chartMarks) template.HTML {
	const w = 1200.0
	var b strings.Builder
	svgOpen(&b, w, h, unit)
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax, ymin := 0.0, math.Inf(1)
	for _, s := range ss {
		for _, y := range s.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				ymax = max(ymax, y)
				if y > 0 {
					ymin = min(ymin, y)
				}
			}
		}
	}
	var Y func(v float64) float64
	if logOK && ymax > 0 && ymax/ymin > 50 {
		lo := math.Pow(10, math.Floor(math.Log10(ymin)))
		hi := math.Pow(10, math.Ceil(math.Log10(ymax)))
		ll, lh := math.Log10(lo), math.Log10(hi)
		Y = func(v float64) float64 {
			if !(v > 0) {
				return y1
			}
			return y1 - (y1-y0)*clamp((math.Log10(v)-ll)/(lh-ll), 0, 1)
		}
		var ticks []float64
		for d := lo; d <= hi*1.0001; d *= 10 {
			ticks = append(ticks, d)
			if lh-ll <= 2 && d < hi {
				ticks = append(ticks, 2*d, 5*d)
			}
		}
		for _, t := range ticks {
			y := Y(t)
			fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y, x1, y)
			fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x0-5, y+3.5, fmtNum(t))
		}
		fmt.Fprintf(&b, `<text class="unit" x="4" y="%.1f">%s</text>`, y0-9, finding.SafeHTML(unit+" (log)"))
		fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y1, x1, y1)
	} else {
		var ticks []float64
		ticks, ymax = niceTicks(ymax, 4)
		yAxis(&b, ticks, ymax, x0, x1, y0, y1, unit)
		Y = func(v float64) float64 { return y1 - (y1-y0)*clamp(v/ymax, 0, 1) }
	}
	xAxis(&b, tr, x0, x1, y1)
	band(&b, tr, x0, x1, y0, y1)
	span := tr.span()
	X := func(s float64) float64 { return x0 + (x1-x0)*clamp(s/span, 0, 1) }
	for _, s := range ss {
		xs, ys := downsample(s.X, s.Y, maxSeriesPoints, s.UseMax)
		if len(xs) == 0 {
			continue
		}
		var pts strings.Builder
		for i := range xs {
			fmt.Fprintf(&pts, "%.1f,%.1f ", X(xs[i]), Y(ys[i]))
		}
		if s.Fill {
			fmt.Fprintf(&b, `<polygon fill="%s" fill-opacity="0.12" points="%.1f,%.1f %s%.1f,%.1f"/>`, s.Color, X(xs[0]), y1, pts.String(), X(xs[len(xs)-1]), y1)
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" stroke-linejoin="round" points="%s"/>`, s.Color, strings.TrimSpace(pts.String()))
	}
	type legend struct{ name, color string }
	var lg []legend
	for _, s := range ss {
		lg = append(lg, legend{s.Name, s.Color})
	}
	if marks != nil {
		xs, ns := downsample(marks.X, marks.N, maxSeriesPoints, true)
		any := false
		for i := range xs {
			if n := ns[i]; n > 0 && !math.IsInf(n, 0) {
				any = true
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>%s %s %s</title></circle>`,
					X(xs[i]), y0+2, clamp(1.5+math.Log10(n+1)*1.5, 2, 5), marks.Color, fmtDur(xs[i]), fmtNum(n), finding.SafeHTML(marks.Unit))
			}
		}
		if any {
			lg = append(lg, legend{marks.Name, marks.Color})
		}
	}
	// legend, top right
	lx := x1
	for i := len(lg) - 1; i >= 0; i-- {
		lx -= 14 + textWidth(lg[i].name) + 12
		if marks != nil && lg[i].name == marks.Name {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="6" r="3.5" fill="%s"/>`, lx+5, lg[i].color)
		} else {
			fmt.Fprintf(&b, `<rect x="%.1f" y="4" width="12" height="3" fill="%s"/>`, lx, lg[i].color)
		}
		fmt.Fprintf(&b, `<text class="lg" x="%.1f" y="10">%s</text>`, lx+16, finding.SafeHTML(lg[i].name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// areaChart draws stacked areas of ys (each a series over xs) on a 0..100 scale.
func areaChart(tr timeRange, w, h float64, title, unit string, xs []float64, ys [][]float64, colors, names []string, big bool) template.HTML {
	var b strings.Builder
	svgOpen(&b, w, h, title)
	l := padL
	if !big {
		l = 34
	}
	x0, x1, y0, y1 := l, w-8, padT, h-padB
	ticks := []float64{0, 25, 50, 75, 100}
	if !big {
		ticks = []float64{0, 50, 100}
	}
	yAxis(&b, ticks, 100, x0, x1, y0, y1, "")
	xAxis(&b, tr, x0, x1, y1)
	band(&b, tr, x0, x1, y0, y1)
	fmt.Fprintf(&b, `<text class="ctitle" x="%.1f" y="%.1f">%s</text>`, x0, y0-8, finding.SafeHTML(title))
	if big {
		fmt.Fprintf(&b, `<text class="unit" x="4" y="%.1f">%%</text>`, y0-9)
	}
	span := tr.span()
	X := func(s float64) float64 { return x0 + (x1-x0)*clamp(s/span, 0, 1) }
	Y := func(v float64) float64 { return y1 - (y1-y0)*clamp(v/100, 0, 1) }
	// downsample each part by mean on the same buckets
	var dx []float64
	parts := make([][]float64, len(ys))
	for k := range ys {
		dx, parts[k] = downsample(xs, ys[k], maxSeriesPoints, false)
	}
	cum := make([]float64, len(dx))
	for k := range parts {
		if len(dx) == 0 {
			break
		}
		top := make([]float64, len(dx))
		nonzero := false
		for i := range dx {
			top[i] = cum[i] + parts[k][i]
			if parts[k][i] > 0.05 {
				nonzero = true
			}
		}
		if nonzero {
			var pts strings.Builder
			for i := range dx {
				fmt.Fprintf(&pts, "%.1f,%.1f ", X(dx[i]), Y(top[i]))
			}
			for i := len(dx) - 1; i >= 0; i-- {
				fmt.Fprintf(&pts, "%.1f,%.1f ", X(dx[i]), Y(cum[i]))
			}
			fmt.Fprintf(&b, `<polygon fill="%s" points="%s"><title>%s</title></polygon>`, colors[k], strings.TrimSpace(pts.String()), finding.SafeHTML(names[k]))
		}
		cum = top
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barChart draws one stacked bar per CPU.
func barChart(w, h float64, title string, parts [][]float64, colors, names []string) template.HTML {
	var b strings.Builder
	svgOpen(&b, w, h, title)
	n := len(parts[0])
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for k := range parts {
			s += parts[k][i]
		}
		ymax = max(ymax, s)
	}
	ticks, ymax := niceTicks(ymax, 4)
	yAxis(&b, ticks, ymax, x0, x1, y0, y1, "/s")
	fmt.Fprintf(&b, `<text class="ctitle" x="%.1f" y="%.1f">%s</text>`, x0+30, y0-9, finding.SafeHTML(title))
	slot := (x1 - x0) / float64(n)
	bw := clamp(slot*0.75, 1, 48)
	labelEvery := int(math.Ceil(float64(n) / 32))
	for i := 0; i < n; i++ {
		x := x0 + slot*float64(i) + (slot-bw)/2
		cum := 0.0
		tip := fmt.Sprintf("CPU %d", i)
		for k := range parts {
			tip += fmt.Sprintf(" · %s %s/s", names[k], fmtNum(parts[k][i]))
		}
		fmt.Fprintf(&b, `<g><title>%s</title>`, finding.SafeHTML(tip))
		for k := range parts {
			v := parts[k][i]
			if !(v > 0) || math.IsInf(v, 0) {
				continue
			}
			ya := y1 - (y1-y0)*(cum+v)/ymax
			yb := y1 - (y1-y0)*cum/ymax
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, ya, bw, math.Max(yb-ya, 0.5), colors[k])
			cum += v
		}
		b.WriteString(`</g>`)
		if i%labelEvery == 0 {
			fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x+bw/2, y1+13, i)
		}
	}
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">CPU</text>`, x0-5, y1+13)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// stackedBars draws one bar per thread dump, stacked by state in the order
// of names; at its time when every dump has one, else in sequence.
func stackedBars(tr timeRange, ss []report.ThreadStateSample, names, colors []string, unit string) template.HTML {
	const w, h = 1200.0, 200.0
	var b strings.Builder
	svgOpen(&b, w, h, unit)
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax := 0.0
	for _, s := range ss {
		t := 0
		for _, n := range s.Counts {
			t += max(n, 0)
		}
		ymax = max(ymax, float64(t))
	}
	ticks, ymax := niceTicks(ymax, 4)
	yAxis(&b, ticks, ymax, x0, x1, y0, y1, unit)
	timed := !tr.t0.IsZero()
	for _, s := range ss {
		if s.T.IsZero() {
			timed = false
		}
	}
	n := len(ss)
	var bw float64
	var X func(i int) float64
	if timed {
		xAxis(&b, tr, x0, x1, y1)
		span := tr.span()
		gap := x1 - x0
		for i := 1; i < n; i++ {
			gap = math.Min(gap, (x1-x0)*tr.secs(ss[i].T)/span-(x1-x0)*tr.secs(ss[i-1].T)/span)
		}
		bw = clamp(gap*0.7, 2, 40)
		X = func(i int) float64 { return clamp(x0+(x1-x0)*tr.secs(ss[i].T)/span-bw/2, x0, x1-bw) }
	} else {
		slot := (x1 - x0) / float64(n)
		bw = clamp(slot*0.7, 1, 40)
		X = func(i int) float64 { return x0 + slot*float64(i) + (slot-bw)/2 }
		every := int(math.Ceil(float64(n) / 30))
		for i := 0; i < n; i += every {
			fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">#%d</text>`, X(i)+bw/2, y1+15, i+1)
		}
	}
	for i, s := range ss {
		x := X(i)
		tip := fmt.Sprintf("#%d", i+1)
		if timed {
			tip += " +" + fmtDur(tr.secs(s.T))
		}
		for _, name := range names {
			if c := s.Counts[name]; c > 0 {
				tip += fmt.Sprintf(" · %s %d", name, c)
			}
		}
		fmt.Fprintf(&b, `<g><title>%s</title>`, finding.SafeHTML(tip))
		cum := 0.0
		for k, name := range names {
			v := float64(max(s.Counts[name], 0))
			if v == 0 {
				continue
			}
			ya := y1 - (y1-y0)*(cum+v)/ymax
			yb := y1 - (y1-y0)*cum/ymax
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, ya, bw, math.Max(yb-ya, 0.5), colors[k])
			cum += v
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// gcDomain is a GC chart's time axis: from, to seconds on the log's clock,
// named label.
type gcDomain struct {
	from, to float64
	label    string
}

// gcScatter draws every GC pause at its JVM uptime, coloured by kind, the
// longest with tooltips; the legend lists the kinds in order of appearance.
// The axis spans the pauses, or dom when given (charts that line up).
func gcScatter(tl []report.GCPause, L map[string]string, dom *gcDomain) (template.HTML, []legendItem) {
	const w, h = 1200.0, 220.0
	pts := tl
	if len(pts) > maxGCPoints {
		// keep the longest pauses and an even sample of the rest
		idx := make([]int, len(tl))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(tl[b].MS, tl[a].MS) })
		keep := map[int]bool{}
		for _, i := range idx[:maxGCPoints/4] {
			keep[i] = true
		}
		step := float64(len(tl)) / float64(maxGCPoints-len(keep))
		for f := 0.0; f < float64(len(tl)); f += step {
			keep[int(f)] = true
		}
		pts = nil
		for i := range tl {
			if keep[i] {
				pts = append(pts, tl[i])
			}
		}
	}
	kinds := map[string]string{}
	var legend []legendItem
	kindColor := func(k string) string {
		k = finding.SafeOneLine(k)
		if c, ok := kinds[k]; ok {
			return c
		}
		// Okabe-Ito order, colour-blind safe
		palette := [...]string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}
		c := palette[len(kinds)%len(palette)]
		switch strings.ToLower(k) {
		case "full":
			c = "#D55E00"
		}
		kinds[k] = c
		legend = append(legend, legendItem{k, c})
		return c
	}
	xmin, xmax, ymax := math.Inf(1), 0.0, 0.0
	for _, p := range pts {
		xmin, xmax, ymax = min(xmin, p.UptimeS), max(xmax, p.UptimeS), max(ymax, p.MS)
	}
	// start the axis at a round time before the first pause, not at JVM start
	xmin = math.Floor(math.Max(xmin, 0)/niceStep((xmax-xmin)/10, true)) * niceStep((xmax-xmin)/10, true)
	axis := L["uptime"]
	if dom != nil {
		xmin, xmax, axis = dom.from, dom.to, dom.label
	}
	var b strings.Builder
	svgOpen(&b, w, h, L["pausems"])
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ticks, ymax := niceTicks(ymax, 4)
	yAxis(&b, ticks, ymax, x0, x1, y0, y1, "ms")
	xr := timeRange{t0: time.Unix(0, 0), t1: time.Unix(0, 0).Add(time.Duration(math.Max(xmax-xmin, 1) * float64(time.Second)))}
	xAxisFrom(&b, xr, xmin, x0, x1, y1)
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x1, y0-9, finding.SafeHTML(axis))
	span := xr.span()
	X := func(p report.GCPause) float64 { return x0 + (x1-x0)*clamp((p.UptimeS-xmin)/span, 0, 1) }
	Y := func(p report.GCPause) float64 { return y1 - (y1-y0)*clamp(p.MS/ymax, 0, 1) }
	// Every pause is a dot of one path per kind (compact: a few bytes a
	// pause); the longest pauses get their own circle with a tooltip.
	paths := map[string]*strings.Builder{}
	var order []string
	for _, p := range pts {
		c := kindColor(p.Kind)
		pb := paths[c]
		if pb == nil {
			pb = &strings.Builder{}
			paths[c] = pb
			order = append(order, c)
		}
		fmt.Fprintf(pb, "M%.1f %.1fh0", X(p), Y(p))
	}
	for _, c := range order {
		fmt.Fprintf(&b, `<path d="%s" stroke="%s" stroke-width="6" stroke-linecap="round" stroke-opacity="0.75" fill="none"/>`, paths[c].String(), c)
	}
	top := slices.Clone(pts)
	slices.SortFunc(top, func(a, b report.GCPause) int { return cmp.Compare(b.MS, a.MS) })
	for _, p := range top[:min(len(top), 40)] {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0"><title>%s %s ms @ %s</title></circle>`,
			X(p), Y(p), kindColor(p.Kind), finding.SafeHTML(p.Kind), fmtNum(p.MS), fmtDur(p.UptimeS))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), legend
}
