package html

// Scales (the shared time domain, round ticks, downsampling) and the
// number and duration formats every chart and table uses.

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/report"
)

// timeRange is the time domain every time chart shares, so they line up.
type timeRange struct {
	t0, t1 time.Time
	// b0, b1 shade the verdict's window (seconds since t0; none when b1 <= b0).
	b0, b1 float64
	// off is added to the axis labels: t0 is off seconds on the axis's
	// clock (a GC log's JVM uptime), 0 for time since t0.
	off float64
}

func (r timeRange) secs(t time.Time) float64 { return t.Sub(r.t0).Seconds() }
func (r timeRange) span() float64            { return math.Max(r.t1.Sub(r.t0).Seconds(), 1) }

// timeDomain spans every timestamp of the page's time series.
func timeDomain(p *report.RunPage) timeRange {
	var r timeRange
	see := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if r.t0.IsZero() || t.Before(r.t0) {
			r.t0 = t
		}
		if t.After(r.t1) {
			r.t1 = t
		}
	}
	if p.Load != nil {
		for _, x := range p.Load.Series {
			see(x.T)
		}
	}
	for _, x := range p.CPU {
		see(x.T)
	}
	for _, x := range p.Softirq {
		see(x.T)
	}
	for _, x := range p.ThreadStates {
		see(x.T)
	}
	return r
}

// downsample averages (or takes the max of) ys into at most n buckets of consecutive points.
func downsample(xs, ys []float64, n int, useMax bool) ([]float64, []float64) {
	m := min(len(xs), len(ys))
	if m <= n {
		return xs[:m], ys[:m]
	}
	ox := make([]float64, 0, n)
	oy := make([]float64, 0, n)
	for b := 0; b < n; b++ {
		lo, hi := b*m/n, (b+1)*m/n
		if hi <= lo {
			continue
		}
		var sx, sy float64
		my := math.Inf(-1)
		for i := lo; i < hi; i++ {
			sx += xs[i]
			sy += ys[i]
			my = max(my, ys[i])
		}
		k := float64(hi - lo)
		ox = append(ox, sx/k)
		if useMax {
			oy = append(oy, my)
		} else {
			oy = append(oy, sy/k)
		}
	}
	return ox, oy
}

// niceTicks returns 0 and round ticks up to a round maximum >= vmax.
func niceTicks(vmax float64, n int) ([]float64, float64) {
	if !(vmax > 0) || math.IsInf(vmax, 0) {
		vmax = 1
	}
	step := niceStep(vmax/float64(n), false)
	top := math.Ceil(vmax/step-1e-9) * step
	var ts []float64
	for v := 0.0; v <= top+step/2; v += step {
		ts = append(ts, v)
	}
	return ts, top
}

// niceStep is the round step at or above raw: 1-2-2.5-5 decades, or
// clock-friendly seconds with secs.
func niceStep(raw float64, secs bool) float64 {
	if secs {
		for _, s := range []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400} {
			if s >= raw {
				return s
			}
		}
		return math.Ceil(raw/86400) * 86400
	}
	if raw <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// fmtDur says seconds as 42s, 2m30s or 2h01m.
func fmtDur(s float64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%gs", math.Round(s))
	case s < 7200:
		m, sec := int(s)/60, int(s)%60
		if sec == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%02ds", m, sec)
	default:
		hh, m := int(s)/3600, (int(s)%3600)/60
		return fmt.Sprintf("%dh%02dm", hh, m)
	}
}

// fmtNum says v in at most three significant digits, with k/M/G; – for NaN and ±Inf.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case a >= 1e9:
		return trimZero(fmt.Sprintf("%.1f", v/1e9)) + "G"
	case a >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case a >= 1e4:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	case a >= 100 || a == 0:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return trimZero(fmt.Sprintf("%.1f", v))
	default:
		return trimZero(fmt.Sprintf("%.2f", v))
	}
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtInt says n with thousands separators.
func fmtInt(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// textWidth estimates the width of s in 11px SVG text: CJK is about twice Latin.
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if r >= 0x2e80 {
			w += 11
		} else {
			w += 6.5
		}
	}
	return w
}

func fmtPct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 { // -1: not measurable (a GC log without timestamps)
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

// finite maps NaN and ±Inf (a broken sample) to 0.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// clamp keeps v in [lo, hi]; NaN becomes lo.
func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return lo
	}
	return math.Min(math.Max(v, lo), hi)
}
