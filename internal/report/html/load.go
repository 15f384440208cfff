package html

// The load test page (`tuneloop load --html`): the summary, throughput and
// p50/p90/p99 over time, per label, errors by kind and status code over
// time, the latency distribution as an HDR percentile plot, and the open
// model's send lag. It shares the run page's frame, pieces, CSS, charts and
// formats; WriteLoadSection draws the same sections for another page.

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/units"
)

// palette is the colour-blind-safe (Okabe-Ito) order of series colours.
var palette = [...]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// maxLineSeries bounds the lines of one chart (labels, codes, kinds).
const maxLineSeries = 8

// loadView is what the load template draws.
type loadView struct {
	frame
	Sections *loadSections
}

// loadSections are the page's sections, shared with WriteLoadSection.
type loadSections struct {
	L          map[string]string
	KPIs       []kpi
	Facts      [][2]string
	SeriesNote string
	Throughput template.HTML
	Latency    template.HTML
	Labels     []labelRow
	LabelTPS   template.HTML
	LabelP90   template.HTML
	Kinds      [][2]string
	Codes      [][2]string
	ErrChart   template.HTML
	CodeChart  template.HTML
	Dist       template.HTML
	DistNote   string
	Open       [][2]string
	Lag        template.HTML
}

// labelRow is one row of the per-label table, formatted.
type labelRow struct {
	Label, Requests, Errors, ErrPct, TPS, Mean, P50, P90, P99, Max, Recv string
}

// WriteLoad writes the load test page as one self-contained HTML document.
func WriteLoad(w io.Writer, p *report.LoadPage) error {
	if p == nil || p.Summary == nil {
		return fmt.Errorf("html: nil load page")
	}
	l := pageLang(p.Lang)
	L := loadLabelsIn(l)
	v := &loadView{frame: newFrame(l, L), Sections: loadSectionsOf(p, L, l)}
	v.Title = p.Title
	if v.Title == "" {
		v.Title = L["loadreport"]
	}
	L["report"] = L["loadreport"]
	v.Tool = toolLine(p.Tool)
	for _, n := range p.Notes {
		v.Notice = append(v.Notice, finding.SafeLine(n.In(l)))
	}
	v.Counts = fmt.Sprintf(L["loadcounts"], fmtInt(p.Summary.Requests), fmtInt(p.Summary.Errors), fmtNum(p.Summary.Duration))
	v.Nav.add(true, "sec-load-summary", L["summary"])
	v.Nav.add(v.Sections.Throughput != "", "sec-load-time", L["overtime"])
	v.Nav.add(len(v.Sections.Labels) > 0, "sec-load-labels", L["perlabel"])
	v.Nav.add(len(v.Sections.Kinds)+len(v.Sections.Codes) > 0, "sec-load-errors", L["errcodes"])
	v.Nav.add(v.Sections.Dist != "", "sec-load-dist", L["dist"])
	v.Nav.add(len(v.Sections.Open) > 0, "sec-load-open", L["openmodel"])
	v.Data = map[string]any{"lang": string(l), "title": v.Title}
	return writePage(w, "load", loadPageHTML+`{{template "head" .}}<body>
{{template "top" .}}<main>
{{template "loadsections" .Sections}}
</main>
{{template "foot" .}}`, v)
}

// WriteLoadSection writes the load sections alone (no head, no frame), for
// a page that has its own: the run report's hook. Its CSS classes are the
// run page's.
func WriteLoadSection(w io.Writer, p *report.LoadPage) error {
	if p == nil || p.Summary == nil {
		return fmt.Errorf("html: nil load page")
	}
	l := pageLang(p.Lang)
	t, err := template.New("loadsection").Parse(piecesHTML)
	if err == nil {
		_, err = t.Parse(loadPageHTML + `{{template "loadsections" .}}`)
	}
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, loadSectionsOf(p, loadLabelsIn(l), l)); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// loadSectionsOf builds every section of p.
func loadSectionsOf(p *report.LoadPage, L map[string]string, l finding.Lang) *loadSections {
	s := p.Summary
	v := &loadSections{L: L}
	lat := s.Latency
	errClass := ""
	if s.Errors > 0 {
		errClass = "bad"
	}
	v.KPIs = []kpi{
		{L["tps"], fmtNum(s.TPS), "/s", ""},
		{"p50", fmtNum(lat.P50), "ms", ""},
		{"p90", fmtNum(lat.P90), "ms", ""},
		{"p99", fmtNum(lat.P99), "ms", ""},
		{"p99.9", fmtNum(lat.P999), "ms", ""},
		{L["max"], fmtNum(lat.Max), "ms", ""},
		{L["mean"], fmtNum(lat.Mean), "ms", ""},
		{L["requests"], fmtInt(s.Requests), "", ""},
		{L["errors"], fmtInt(s.Errors), fmt.Sprintf("(%.2f%%)", s.ErrorPct), errClass},
	}
	v.Facts = append(v.Facts, [2]string{L["target"], finding.SafeLine(s.Target)})
	model := finding.SafeOneLine(report.ModelText(s.Model).In(l))
	switch {
	case s.Open != nil:
		model += fmt.Sprintf(" · %s/s · %s %d", fmtNum(s.Open.Rate), L["connections"], s.Connections)
	case s.Users > 0:
		model += fmt.Sprintf(" · %d %s", s.Users, L["users"])
	}
	v.Facts = append(v.Facts, [2]string{L["model"], model})
	v.Facts = append(v.Facts, [2]string{L["duration"], fmtNum(s.Duration) + " s"})
	if !s.Start.IsZero() {
		v.Facts = append(v.Facts, [2]string{L["start"], s.Start.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	v.Facts = append(v.Facts, [2]string{L["requests"], fmtInt(s.Requests)})
	v.Facts = append(v.Facts, [2]string{L["errors"], fmt.Sprintf("%s (%.2f%%)", fmtInt(s.Errors), s.ErrorPct)})
	if s.Warmup > 0 {
		v.Facts = append(v.Facts, [2]string{L["warmup"], fmtInt(s.Warmup)})
	}
	if s.Aborted > 0 {
		v.Facts = append(v.Facts, [2]string{L["aborted"], fmtInt(s.Aborted)})
	}
	if s.BytesIn > 0 || s.BytesOut > 0 {
		v.Facts = append(v.Facts, [2]string{L["bytes"], units.FormatBytesScaled(float64(s.BytesIn), 1) + " / " + units.FormatBytesScaled(float64(s.BytesOut), 1)})
	}
	if s.ClientCPU > 0 {
		v.Facts = append(v.Facts, [2]string{L["gencpu"], fmtPct(s.ClientCPU) + "%"})
	}
	v.Facts = append(v.Facts, [2]string{L["source"], finding.SafeLine(s.Source)})

	timeCharts(v, p, L, l)
	for _, r := range s.Labels {
		v.Labels = append(v.Labels, labelRow{Label: finding.SafeLine(r.Label), Requests: fmtInt(r.Requests), Errors: fmtInt(r.Errors),
			ErrPct: fmt.Sprintf("%.2f", r.ErrorPct), TPS: fmtNum(r.TPS), Mean: fmtNum(r.Mean), P50: fmtNum(r.P50),
			P90: fmtNum(r.P90), P99: fmtNum(r.P99), Max: fmtNum(r.Max), Recv: fmtNum(r.RecvKBps)})
	}
	v.Kinds = countRows(s.ErrorKinds, func(k string) string { return finding.SafeOneLine(report.LoadErrorKindText(k).In(l)) })
	v.Codes = countRows(s.StatusCodes, finding.SafeLine)
	v.Dist = percentileChart(p.Percentiles, L)
	if p.Series == "summary" {
		v.DistNote = L["distsummary"]
		v.SeriesNote = L["seriessummary"]
	}
	if o := s.Open; o != nil {
		v.Open = [][2]string{
			{L["rate"], fmtNum(o.Rate) + "/s"}, {L["scheduled"], fmtInt(o.Scheduled)}, {L["sent"], fmtInt(o.Sent)},
			{L["missed"], fmtInt(o.Missed)}, {L["late"], fmtInt(o.Late)},
			{L["meanlag"], fmtNum(o.MeanLagMS) + " ms"}, {L["maxlag"], fmtNum(o.MaxLagMS) + " ms"},
			{L["uncorrected"], "p50 " + fmtNum(o.Uncorrected.P50) + " · p99 " + fmtNum(o.Uncorrected.P99) + " ms"},
		}
		if o.Behind != "" {
			v.Open = append(v.Open, [2]string{L["behind"], L["behind-"+o.Behind]})
		}
	}
	return v
}

// countRows is a count map as rows, biggest first.
func countRows(m map[string]int64, name func(string) string) [][2]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var rows [][2]string
	for _, k := range keys {
		rows = append(rows, [2]string{name(k), fmtInt(m[k])})
	}
	return rows
}

// series is one line: its points where ys is a number.
func series(name, color string, xs, ys []float64, useMax bool) lineSeries {
	s := lineSeries{Name: name, Color: color, UseMax: useMax}
	for i := range xs {
		if !math.IsNaN(ys[i]) {
			s.X = append(s.X, xs[i])
			s.Y = append(s.Y, ys[i])
		}
	}
	return s
}

// timeCharts draws the charts over time: on the shared lineChart, seconds
// since the first second of the load.
func timeCharts(v *loadSections, p *report.LoadPage, L map[string]string, l finding.Lang) {
	n := len(p.Seconds)
	if n == 0 {
		return
	}
	t0 := time.Unix(0, 0).UTC()
	tr := timeRange{t0: t0, t1: t0.Add(time.Duration(p.Seconds[n-1].T) * time.Second)}
	xs := make([]float64, n)
	col := func(f func(report.LoadSecond) float64) []float64 {
		ys := make([]float64, n)
		for i, s := range p.Seconds {
			ys[i] = f(s)
		}
		return ys
	}
	for i, s := range p.Seconds {
		xs[i] = float64(s.T)
	}
	tps := col(func(s report.LoadSecond) float64 { return rate(s, s.Requests) })
	errs := col(func(s report.LoadSecond) float64 { return rate(s, s.Errors) })
	tpsLine := series(L["tps"], palette[0], xs, tps, false)
	tpsLine.Fill = true
	v.Throughput = lineChart(tr, 190, L["tpsaxis"], []lineSeries{tpsLine},
		false, &chartMarks{Name: L["errs"], Color: palette[1], Unit: L["errors"], X: xs, N: errs})
	v.Latency = lineChart(tr, 210, "ms", []lineSeries{
		series("p99", palette[1], xs, col(func(s report.LoadSecond) float64 { return s.P99 }), true),
		series("p90", palette[4], xs, col(func(s report.LoadSecond) float64 { return s.P90 }), true),
		series("p50", palette[0], xs, col(func(s report.LoadSecond) float64 { return s.P50 }), false),
	}, true, nil)
	if len(p.Labels) > 1 {
		var tpsL, p90L []lineSeries
		for i, ls := range p.Labels[:min(len(p.Labels), maxLineSeries)] {
			ys := make([]float64, n)
			for j, r := range ls.Requests {
				ys[j] = rate(p.Seconds[j], r)
			}
			tpsL = append(tpsL, series(ls.Label, palette[i], xs, ys, false))
			p90L = append(p90L, series(ls.Label, palette[i], xs, ls.P90, true))
		}
		v.LabelTPS = lineChart(tr, 190, L["tpsaxis"], tpsL, false, nil)
		v.LabelP90 = lineChart(tr, 210, "p90 ms", p90L, true, nil)
	}
	// Errors by kind and responses by status code, a line each (the biggest).
	kinds, codes := map[string]int64{}, map[string]int64{}
	lagged := false
	for _, s := range p.Seconds {
		for k, c := range s.Kinds {
			kinds[k] += c
		}
		for k, c := range s.Codes {
			codes[k] += c
		}
		lagged = lagged || s.Lagged > 0
	}
	v.ErrChart = countChart(tr, xs, p.Seconds, kinds, func(s report.LoadSecond) map[string]int64 { return s.Kinds },
		func(k string) string { return finding.SafeOneLine(report.LoadErrorKindText(k).In(l)) }, L["errsaxis"])
	if len(codes) > 1 || p.Summary.Errors > 0 {
		v.CodeChart = countChart(tr, xs, p.Seconds, codes, func(s report.LoadSecond) map[string]int64 { return s.Codes }, finding.SafeLine, L["codesaxis"])
	}
	if lagged {
		v.Lag = lineChart(tr, 190, L["lagaxis"], []lineSeries{
			series(L["maxlag"], palette[1], xs, col(func(s report.LoadSecond) float64 { return s.LagMax }), true),
			series(L["meanlag"], palette[0], xs, col(func(s report.LoadSecond) float64 { return s.LagMean }), false),
		}, true, nil)
	}
}

// minSpan is the least part of a second whose count is drawn as a rate:
// less is too few requests to say one.
const minSpan = 0.2

// rate is n per second of s's span; NaN (not drawn) for a sliver of a second.
func rate(s report.LoadSecond, n int64) float64 {
	if s.Span < minSpan {
		return math.NaN()
	}
	return float64(n) / s.Span
}

// countChart draws one line per key of totals (the biggest), per second.
func countChart(tr timeRange, xs []float64, secs []report.LoadSecond, totals map[string]int64, of func(report.LoadSecond) map[string]int64, name func(string) string, unit string) template.HTML {
	if len(totals) == 0 {
		return ""
	}
	keys := make([]string, 0, len(totals))
	for k := range totals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if totals[keys[i]] != totals[keys[j]] {
			return totals[keys[i]] > totals[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var ss []lineSeries
	for i, k := range keys[:min(len(keys), maxLineSeries)] {
		ys := make([]float64, len(secs))
		for j, s := range secs {
			ys[j] = rate(s, of(s)[k])
		}
		ss = append(ss, series(name(k), palette[i], xs, ys, true))
	}
	return lineChart(tr, 170, unit, ss, false, nil)
}

// percentileChart is HDR's percentile plot: latency (y, ms) at each
// percentile, the x axis logarithmic in 1/(1-p) so the tail (99%, 99.9%,
// 99.99%, 99.999%) gets as much room as the body.
func percentileChart(pts []report.PercentilePoint, L map[string]string) template.HTML {
	if len(pts) == 0 {
		return ""
	}
	const w, h, xmax = 1200.0, 260.0, 5.0
	var b strings.Builder
	svgOpen(&b, w, h, L["dist"])
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax := 0.0
	for _, p := range pts {
		ymax = max(ymax, finite(p.MS))
	}
	ticks, top := niceTicks(ymax, 4)
	yAxis(&b, ticks, top, x0, x1, y0, y1, "ms")
	X := func(pct float64) float64 {
		k := xmax
		if pct < 100 {
			k = math.Min(-math.Log10(1-pct/100), xmax)
		}
		return x0 + (x1-x0)*k/xmax
	}
	for k, label := range []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"} {
		x := x0 + (x1-x0)*float64(k)/xmax
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, y0, x, y1)
		fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, y1+15, label)
	}
	var pts2 strings.Builder
	for _, p := range pts {
		fmt.Fprintf(&pts2, "%.1f,%.1f ", X(p.Pct), y1-(y1-y0)*clamp(finite(p.MS)/top, 0, 1))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.8" stroke-linejoin="round" points="%s"/>`, palette[0], strings.TrimSpace(pts2.String()))
	for _, p := range pts {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2" fill="%s"><title>%s%% %s ms</title></circle>`,
			X(p.Pct), y1-(y1-y0)*clamp(finite(p.MS)/top, 0, 1), palette[0], trimZero(fmt.Sprintf("%.4f", p.Pct)), fmtNum(p.MS))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
