package html

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// probeHTML is the probe page's body.
const probeHTML = `{{template "head" .}}<body>
{{template "top" .}}<main>
{{range .Parts}}<section id="sec-{{.ID}}">
 <h2>{{.Title}}</h2>
 <table class="grid"><thead><tr><th>{{$.L.figure}}</th><th class="n">{{$.L.median}}</th><th class="n">{{$.L.interval}}</th><th>{{$.L.unit}}</th><th>{{$.L.rounds}}</th><th class="n">{{$.L.busy}}</th><th>{{$.L.note}}</th></tr></thead><tbody>
 {{range .Rows}}<tr><td class="txt" title="{{.ID}}">{{.Name}}</td><td class="n"><b>{{.Median}}</b></td><td class="n">{{.Interval}}</td><td>{{.Unit}}</td><td>{{.Strip}}</td><td class="n">{{.Busy}}</td><td class="txt">{{if .Failed}}<b>{{end}}{{.Note}}{{if .Failed}}</b>{{end}}</td></tr>
 {{end}}</tbody></table>
</section>
{{end}}{{with .PerCPU}}<p class="sub">{{.}}</p>
{{end}}{{with .Matrix}}<section id="sec-c2c">
 <h2>{{$.L.c2c}}</h2>
 <p class="sub">{{$.L.c2cnote}}</p>
 <div class="chartbox">{{.}}</div>
</section>
{{end}}{{range .Dists}}<section id="sec-dist">
 <h2>{{.Name}}</h2>
 <div class="chartbox">{{.Chart}}</div>
</section>
{{end}}</main>
{{template "foot" .}}`

type probeView struct {
	frame
	PerCPU string
	Parts  []probePartHTML
	Matrix template.HTML
	Dists  []probeDistHTML
}

type probePartHTML struct {
	ID, Title string
	Rows      []probeRowHTML
}

type probeRowHTML struct {
	ID, Name, Median, Interval, Unit, Busy, Note string
	Failed                                       bool
	Strip                                        template.HTML
}

type probeDistHTML struct {
	Name  string
	Chart template.HTML
}

func probeLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"report":    finding.T("tuneloop probe", "tuneloop 平台探测"),
		"figure":    finding.T("figure", "指标"),
		"median":    finding.T("median", "中位数"),
		"interval":  finding.T("95% interval", "95% 区间"),
		"unit":      finding.T("unit", "单位"),
		"rounds":    finding.T("rounds (dots), interval (bar)", "各轮（点）与区间（条）"),
		"busy":      finding.T("others busy", "他人占用"),
		"note":      finding.T("note", "说明"),
		"c2c":       finding.T("Core to core: cache line one way (ns)", "核间缓存行单程延迟（ns）"),
		"c2cnote":   finding.T("Two threads pinned to a pair of CPUs bounce one cache line; each cell is the median over rounds. Dark: near (SMT siblings, same cluster); bright: far (another socket or die).", "两个线程分别绑定到一对 CPU 上来回传递同一缓存行；每格为各轮中位数。深色：近（SMT 兄弟核、同簇）；亮色：远（另一路或另一 die）。"),
		"when":      finding.T("when", "时间"),
		"host":      finding.T("host", "主机"),
		"generated": finding.T("generated", "生成于"),
	}
}

// WriteProbe writes the probe's self-contained page.
func WriteProbe(w io.Writer, p *report.ProbePage) error {
	if p == nil {
		return fmt.Errorf("html: nil probe page")
	}
	l := pageLang(p.Lang)
	L := localized(probeLabels(), l)
	v := &probeView{frame: newFrame(l, L)}
	v.Title, v.HostLine, v.Tool = L["report"], finding.SafeOneLine(p.HostLine), finding.SafeOneLine(p.Tool)
	v.Meta = [][2]string{{L["when"], finding.SafeOneLine(p.Meta)}}
	for _, d := range p.Different {
		v.Meta = append(v.Meta, [2]string{L["host"], finding.SafeOneLine(d)})
	}
	v.Notice = append(v.Notice, p.Notes...)
	v.PerCPU = finding.SafeOneLine(p.PerCPU)
	for _, part := range p.Parts {
		ph := probePartHTML{ID: part.ID, Title: part.Title}
		for _, r := range part.Rows {
			ph.Rows = append(ph.Rows, probeRowHTML{ID: r.ID, Name: r.Name, Median: r.Median, Interval: r.Interval, Unit: r.Unit, Busy: r.Busy,
				Note: r.Note, Failed: r.Failed, Strip: roundStrip(r.Rounds, r.Lo, r.Hi, r.Med)})
		}
		v.Parts = append(v.Parts, ph)
		v.Nav.add(true, "sec-"+part.ID, part.Title)
	}
	if p.Matrix != nil {
		v.Matrix = matrixSVG(p.Matrix.CPUs, p.Matrix.NS)
		v.Nav.add(true, "sec-c2c", L["c2c"])
	}
	for _, d := range p.Dists {
		v.Dists = append(v.Dists, probeDistHTML{Name: d.Name, Chart: distSVG(d)})
	}
	return writePage(w, "probe", probeHTML, v)
}

// roundStrip draws a figure's rounds as dots over its interval's bar, on
// a scale from the smallest to the largest of them.
func roundStrip(rounds []float64, lo, hi, med float64) template.HTML {
	const w, h = 160, 16
	vals := slices.DeleteFunc(slices.Clone(rounds), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
	if len(vals) == 0 {
		return ""
	}
	mn, mx := slices.Min(vals), slices.Max(vals)
	if mx <= mn {
		mx = mn + math.Max(math.Abs(mn)*0.01, 1e-9)
	}
	x := func(v float64) float64 { return 4 + (w-8)*clamp((v-mn)/(mx-mn), 0, 1) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="rounds">`, w, h, w, h)
	if !math.IsNaN(lo) && !math.IsNaN(hi) {
		fmt.Fprintf(&b, `<rect x="%.1f" y="5" width="%.1f" height="6" fill="#c5d3ea"/>`, x(lo), math.Max(1, x(hi)-x(lo)))
	}
	for _, v := range vals {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="8" r="2.2" fill="#4c6ef5" fill-opacity="0.7"/>`, x(v))
	}
	if !math.IsNaN(med) {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="2" y2="14" stroke="#222" stroke-width="1.5"/>`, x(med), x(med))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// matrixSVG is the core-to-core heat map: viridis from the fastest pair
// (dark) to the slowest (bright), the value in each cell when they fit.
func matrixSVG(cpus []int, ns [][]float64) template.HTML {
	n := len(cpus)
	if n == 0 {
		return ""
	}
	cell := max(12, min(48, 640/n))
	left, top := 44, 20
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range ns {
		for _, v := range ns[i] {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return ""
	}
	W, H := left+cell*n+8, top+cell*n+8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="core to core">`, W, H, W, H)
	for i, c := range cpus {
		if n <= 32 || i%4 == 0 {
			fmt.Fprintf(&b, `<text class="ax" x="%d" y="%d" text-anchor="end">cpu%d</text>`, left-4, top+i*cell+cell/2+4, c)
			fmt.Fprintf(&b, `<text class="ax" x="%d" y="%d" text-anchor="middle">%d</text>`, left+i*cell+cell/2, top-6, c)
		}
	}
	for i := range n {
		for j := range n {
			v := ns[i][j]
			x, y := left+j*cell, top+i*cell
			if math.IsNaN(v) {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#eee"/>`, x, y, cell, cell)
				continue
			}
			f := 0.0
			if hi > lo {
				f = (v - lo) / (hi - lo)
			}
			c := viridis(f)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#%02x%02x%02x"><title>cpu%d ↔ cpu%d: %.0f ns</title></rect>`, x, y, cell, cell, c.R, c.G, c.B, cpus[i], cpus[j], v)
			if cell >= 28 {
				fg := "#fff"
				if f > 0.6 {
					fg = "#000"
				}
				fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="%s">%.0f</text>`, x+cell/2, y+cell/2+4, fg, v)
			}
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// distSVG draws a latency distribution as bars over power-of-two buckets.
func distSVG(d report.ProbeDistView) template.HTML {
	if len(d.Buckets) == 0 {
		return ""
	}
	var top int64
	for _, x := range d.Buckets {
		top = max(top, x.Count)
	}
	const bw, h, left = 40, 120, 10
	W := left + bw*len(d.Buckets) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="distribution">`, W, h+34, W, h+34)
	for i, x := range d.Buckets {
		bh := float64(h) * float64(x.Count) / float64(max(top, 1))
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#4c6ef5"><title>≤ %g µs: %d</title></rect>`, left+i*bw+2, float64(h)-bh+12, bw-4, bh, x.LeUS, x.Count)
		fmt.Fprintf(&b, `<text class="ax" x="%d" y="%d" text-anchor="middle">%d</text>`, left+i*bw+bw/2, int(float64(h)-bh)+10, x.Count)
		fmt.Fprintf(&b, `<text class="ax" x="%d" y="%d" text-anchor="middle">≤%s</text>`, left+i*bw+bw/2, h+26, usShort(x.LeUS))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func usShort(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%gs", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%gms", us/1e3)
	}
	return fmt.Sprintf("%gµs", us)
}
