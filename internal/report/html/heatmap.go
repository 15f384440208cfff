package html

// Heat strips: many CPUs over time as one data: PNG (a pixel per CPU and
// time bucket) inside an SVG with the labels, the time axis and the scale.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// heatStrip is a per-CPU heat map: one SVG holding the CPU labels, a data:
// PNG (one pixel per CPU and time bucket, stretched without smoothing), the
// time axis and the colour scale.
type heatStrip struct {
	SVG template.HTML
}

// newHeat draws grid (rows: CPUs) over xs with a colour scale from 0 (lo)
// to vmax (hi), titled title.
func newHeat(grid [][]float64, xs []float64, tr timeRange, vmax float64, logScale bool, title, lo, hi string) *heatStrip {
	n := len(grid)
	const w = 1200.0
	ih := float64(heatHeight(n))
	x0, x1, y0 := padL, w-padR, 4.0
	y1 := y0 + ih
	h := y1 + 40
	var b strings.Builder
	svgOpen(&b, w, h, title)
	fmt.Fprintf(&b, `<image x="%.1f" y="%.1f" width="%.1f" height="%.1f" preserveAspectRatio="none" style="image-rendering:pixelated;image-rendering:crisp-edges" href="%s"/>`,
		x0, y0, x1-x0, ih, heatPNG(grid, xs, tr, vmax, logScale))
	fmt.Fprintf(&b, `<rect class="frame" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none"/>`, x0, y0, x1-x0, ih)
	every := 1
	switch {
	case n > 64:
		every = 16
	case n > 16:
		every = 8
	case n > 8:
		every = 2
	}
	label := func(c int) {
		fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%d</text>`, x0-5, y0+ih*(float64(c)+0.5)/float64(n)+3.5, c)
	}
	for c := 0; c < n; c += every {
		label(c)
	}
	if last := n - 1; last%every != 0 && n > 1 && every > 1 {
		label(last)
	}
	fmt.Fprintf(&b, `<text class="unit" x="4" y="%.1f">CPU</text>`, y0+ih/2+4)
	xAxis(&b, tr, x0, x1, y1)
	sx := x1 - 220.0
	for i := 0; i < 20; i++ {
		c := viridis(float64(i) / 19)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="8" height="9" fill="#%02x%02x%02x"/>`, sx+float64(i)*8, y1+26, c.R, c.G, c.B)
	}
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, sx-4, y1+34, finding.SafeHTML(lo))
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f">%s</text>`, sx+164, y1+34, finding.SafeHTML(hi))
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f">%s</text>`, x0, y1+34, finding.SafeHTML(fmt.Sprintf("%s · %d CPUs", title, n)))
	b.WriteString(`</svg>`)
	return &heatStrip{SVG: template.HTML(b.String())}
}

// heatPNG renders grid (rows: CPUs, columns: ticks at xs) as a PNG, one
// pixel per CPU and column, on the viridis scale from 0 to vmax; the page
// stretches it with image-rendering: pixelated.
// With logScale the colour follows log(1+v), so a quiet CPU next to a
// saturated one still shows.
func heatPNG(grid [][]float64, xs []float64, tr timeRange, vmax float64, logScale bool) template.URL {
	cols := min(maxHeatColumns, max(len(xs), 1))
	span := tr.span()
	img := image.NewRGBA(image.Rect(0, 0, cols, len(grid)))
	for r, row := range grid {
		sum := make([]float64, cols)
		cnt := make([]float64, cols)
		for i, v := range row {
			if i >= len(xs) {
				break
			}
			c := int(clamp(xs[i]/span, 0, 0.999999) * float64(cols))
			sum[c] += v
			cnt[c]++
		}
		last := -1.0
		for c := 0; c < cols; c++ {
			v := last
			if cnt[c] > 0 {
				v = sum[c] / cnt[c]
				last = v
			}
			if v < 0 {
				img.Set(c, r, color.RGBA{240, 240, 240, 255})
				continue
			}
			if logScale {
				img.Set(c, r, viridis(math.Log1p(v)/math.Log1p(vmax)))
			} else {
				img.Set(c, r, viridis(v/vmax))
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// heatHeight is the strip's height: rows of 2 to 14 pixels.
func heatHeight(ncpu int) int { return ncpu * min(14, max(2, 256/max(ncpu, 1))) }

// viridis maps f in [0, 1] to the viridis scale (perceptually even, readable
// in grey and by the colour-blind); NaN is its bottom.
func viridis(f float64) color.RGBA {
	viridisStops := [...][3]float64{
		{68, 1, 84}, {72, 40, 120}, {62, 74, 137}, {49, 104, 142}, {38, 130, 142},
		{31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {181, 222, 43}, {253, 231, 37},
	}
	if math.IsNaN(f) {
		f = 0
	}
	f = clamp(f, 0, 1) * float64(len(viridisStops)-1)
	i := int(f)
	if i >= len(viridisStops)-1 {
		i = len(viridisStops) - 2
	}
	t := f - float64(i)
	a, z := viridisStops[i], viridisStops[i+1]
	mix := func(k int) uint8 { return uint8(a[k] + (z[k]-a[k])*t + 0.5) }
	return color.RGBA{mix(0), mix(1), mix(2), 255}
}
