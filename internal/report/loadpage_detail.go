package report

// The recorder's data as a run folder keeps it (loaddetail.Detail): the
// load page is always drawn from a detail, whether the recorder just ran
// (`tuneloop load --html`) or a run folder is read again (`tuneloop run`'s
// report), so both pages draw the same thing.

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// Detail is what the recorder saw, bounded for a file: one row a second, or
// a few seconds a row past loaddetail.MaxRows seconds; the busiest labels'
// series; at most loaddetail.MaxKeys status codes (the rest as "other").
// s gives the measured window (the rows' spans) and the labels' count; nil
// when nothing was recorded.
func (rec *LoadRecorder) Detail(s *loadgen.Summary) *loaddetail.Detail {
	m := rec.merged()
	if m.all.TotalCount() == 0 {
		return nil
	}
	keys := make([]int64, 0, len(m.secs))
	for k := range m.secs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	first, last := keys[0], keys[len(keys)-1]
	n := int(last-first) + 1
	w := (n + loaddetail.MaxRows - 1) / loaddetail.MaxRows
	rows := (n + w - 1) / w
	d := &loaddetail.Detail{Schema: loaddetail.Schema, Start: first, Width: w, Seconds: n, Rows: make([]loaddetail.Row, rows)}
	hists := make([]*hdr.Histogram, rows)
	perLabel := make([][]logHist, rows)
	for i := range d.Rows {
		r := &d.Rows[i]
		r.T = i * w
		// Seconds are wall-clock seconds (of the intended send time); the
		// measured window rarely starts or ends on one.
		lo, hi := float64(first+int64(r.T)), float64(first+int64(min(r.T+w, n)))
		r.Span = hi - lo
		if s != nil && !s.Start.IsZero() && s.Duration > 0 {
			from := float64(s.Start.UnixNano()) / 1e9
			r.Span = math.Max(0, math.Min(hi, from+s.Duration)-math.Max(lo, from))
		}
		perLabel[i] = make([]logHist, len(m.names))
	}
	codes := map[string]int64{}
	lagSum := make([]int64, rows)
	for _, k := range keys {
		sec := m.secs[k]
		i := int(k-first) / w
		r := &d.Rows[i]
		switch {
		case w == 1:
			hists[i] = sec.h
		case hists[i] == nil:
			hists[i] = hdr.New(1, histTopUS, 2)
			fallthrough
		default:
			hists[i].Merge(sec.h)
		}
		r.N += sec.n
		r.Errors += sec.errs
		r.Kinds = addCounts(r.Kinds, sec.kinds)
		for c, c2 := range sec.codes {
			if r.Codes == nil {
				r.Codes = map[string]int64{}
			}
			r.Codes[strconv.Itoa(c)] += c2
		}
		for c, c2 := range sec.texts {
			if r.Codes == nil {
				r.Codes = map[string]int64{}
			}
			r.Codes[cutKey(c)] += c2
		}
		lagSum[i] += sec.lagSum
		r.LagMax = math.Max(r.LagMax, float64(sec.lagMax)/1000)
		r.Lagged += sec.lagN
		for li, h := range sec.perLabel {
			if h != nil {
				dh := &perLabel[i][li]
				dh.n += h.n
				for b, c := range h.counts {
					dh.counts[b] += c
				}
			}
		}
	}
	totals := make([]int64, len(m.names))
	for i := range d.Rows {
		r := &d.Rows[i]
		for c, c2 := range r.Codes {
			codes[c] += c2
		}
		if h := hists[i]; h != nil && h.TotalCount() > 0 {
			q := h.ValueAtPercentilesSlice([]float64{50, 90, 99})
			mx := float64(h.Max()) / 1000
			r.P50, r.P90, r.P99, r.Max = math.Min(float64(q[0])/1000, mx), math.Min(float64(q[1])/1000, mx), math.Min(float64(q[2])/1000, mx), mx
		}
		if r.Lagged > 0 {
			r.LagMean = float64(lagSum[i]) / float64(r.Lagged) / 1000
		}
		for li := range perLabel[i] {
			totals[li] += perLabel[i][li].n
		}
	}
	foldCodes(d, codes)
	order := make([]int, len(m.names))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return totals[order[a]] > totals[order[b]] })
	kept := order[:min(len(order), loaddetail.MaxLabels)]
	for _, li := range kept {
		l := loaddetail.Label{Label: cutLabel(m.names[li]), N: make([]int64, rows), P90: make([]float64, rows)}
		for i := range d.Rows {
			if h := &perLabel[i][li]; h.n > 0 {
				l.N[i], l.P90[i] = h.n, h.quantile(0.9)/1000
			}
		}
		d.Labels = append(d.Labels, l)
	}
	all := len(m.names)
	if s != nil {
		all = max(all, len(s.Labels))
	}
	d.LabelsDropped = all - len(kept)
	// The percentile plot: HDR's iteration by percentile ticks (5 per halving
	// of the remaining distance to 100%), up to 99.999%.
	top := float64(m.all.Max()) / 1000
	for _, pct := range plotPercentiles() {
		v := float64(m.all.ValueAtQuantile(pct)) / 1000
		d.Percentiles = append(d.Percentiles, loaddetail.Point{Pct: pct, MS: math.Min(v, top)})
	}
	return d
}

// foldCodes keeps the most frequent status codes (totals) and counts the
// rest as "other", so a load that saw many distinct codes stays bounded.
func foldCodes(d *loaddetail.Detail, totals map[string]int64) {
	if len(totals) <= loaddetail.MaxKeys {
		return
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
	keep := map[string]bool{}
	for _, k := range keys[:loaddetail.MaxKeys-1] {
		keep[k] = true
	}
	for i := range d.Rows {
		r := &d.Rows[i]
		for k, n := range r.Codes {
			if !keep[k] {
				delete(r.Codes, k)
				r.Codes["other"] += n
			}
		}
	}
}

// cutKey bounds a status code that is not a number (an imported result's).
func cutKey(s string) string { return cut(s, 64) }

// cutLabel bounds a label's name in the file.
func cutLabel(s string) string { return cut(s, 1024) }

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return strings.ToValidUTF8(s, "")
}

// fromDetail fills the page's series from a detail: a row without requests
// has no latency (NaN, not drawn), one without lagged sends no lag.
func (p *LoadPage) fromDetail(d *loaddetail.Detail) {
	nan := math.NaN()
	p.Seconds = make([]LoadSecond, len(d.Rows))
	for i, r := range d.Rows {
		s := LoadSecond{T: r.T, Requests: r.N, Errors: r.Errors, Kinds: r.Kinds, Codes: r.Codes, Span: r.Span,
			P50: nan, P90: nan, P99: nan, Max: nan, LagMean: nan, LagMax: nan}
		if r.N > 0 {
			s.P50, s.P90, s.P99, s.Max = r.P50, r.P90, r.P99, r.Max
		}
		if r.Lagged > 0 {
			s.LagMean, s.LagMax, s.Lagged = r.LagMean, r.LagMax, r.Lagged
		}
		p.Seconds[i] = s
	}
	for _, l := range d.Labels {
		ls := LoadLabelSeries{Label: finding.SafeLine(l.Label), Requests: l.N, P90: make([]float64, len(l.P90))}
		for i, v := range l.P90 {
			ls.P90[i] = nan
			if l.N[i] > 0 {
				ls.P90[i] = v
			}
		}
		p.Labels = append(p.Labels, ls)
	}
	for _, pt := range d.Percentiles {
		p.Percentiles = append(p.Percentiles, PercentilePoint{Pct: pt.Pct, MS: pt.MS})
	}
	if d.Width > 1 {
		p.Notes = append(p.Notes, finding.Tf(finding.T("The load lasted %d s: each point over time covers %d s (the file keeps at most %d rows).",
			"压测持续 %d 秒：随时间变化的每个点覆盖 %d 秒（文件最多保存 %d 行）。"), d.Seconds, d.Width, loaddetail.MaxRows))
	}
	if d.LabelsDropped > 0 {
		p.Notes = append(p.Notes, finding.Tf(finding.T("%d labels have no lines over time (the %d busiest do); the per-label table has them all.",
			"%d 个标签没有随时间变化的曲线（只画最繁忙的 %d 个）；按标签的表格包含全部标签。"), d.LabelsDropped, len(d.Labels)))
	}
}
