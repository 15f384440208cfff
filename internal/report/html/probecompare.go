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

// probeCompareHTML is the body of the page comparing two probes: the same
// look as the probe page, each figure with both sides' rounds on one
// scale and the change with its 95% interval around no change.
const probeCompareHTML = `{{template "head" .}}<body>
{{template "top" .}}<main>
<section id="sec-summary">
 <div class="kpis">{{template "kpilist" .}}</div>
 <p class="sub">{{.L.howto}}</p>
</section>
{{range .Parts}}<section id="sec-{{.ID}}">
 <h2>{{.Title}}</h2>
 <table class="grid"><thead><tr><th>{{$.L.figure}}</th><th class="n">A</th><th class="n">{{$.L.interval}} A</th><th class="n">B</th><th class="n">{{$.L.interval}} B</th><th>{{$.L.unit}}</th><th>{{$.L.rounds}}</th><th class="n">{{$.L.change}}</th><th>{{$.L.changebar}}</th><th>{{$.L.verdict}}</th></tr></thead><tbody>
 {{range .Rows}}<tr><td class="txt" title="{{.ID}}">{{.Name}}</td><td class="n"><b>{{.A}}</b></td><td class="n">{{.AInterval}}</td><td class="n"><b>{{.B}}</b></td><td class="n">{{.BInterval}}</td><td>{{.Unit}}</td><td>{{.Strips}}</td><td class="n nw">{{.Change}}</td><td>{{.Bar}}</td><td class="nw">{{if eq .Class "worse"}}<span class="badge sev-critical">{{.Verdict}}</span>{{else if eq .Class "better"}}<span class="ok">{{.Verdict}}</span>{{else}}{{.Verdict}}{{end}}</td></tr>
 {{end}}</tbody></table>
</section>
{{end}}{{if or .Differences .Explain}}<section id="sec-settings">
 <h2>{{.L.settings}}</h2>
 {{with .Differences}}<table class="grid"><thead><tr><th>{{$.L.setting}}</th><th>A</th><th>B</th><th>{{$.L.moves}}</th></tr></thead><tbody>
 {{range .}}<tr><td class="txt">{{.What}}</td><td class="txt">{{.A}}</td><td class="txt">{{.B}}</td><td class="txt">{{.Moves}}</td></tr>
 {{end}}</tbody></table>{{end}}
 {{range .Explain}}<p class="note">{{.}}</p>
 {{end}}</section>
{{end}}{{with .Checks}}<section id="sec-checks">
 <h2>{{$.L.checks}}</h2>
 <table class="grid"><thead><tr><th>{{$.L.side}}</th><th>{{$.L.severity}}</th><th>{{$.L.finding}}</th></tr></thead><tbody>
 {{range .}}<tr><td><b>{{.Side}}</b></td><td class="nw">{{.Severity}}</td><td class="txt"><code>{{.ID}}</code>{{if .Subject}} [{{.Subject}}]{{end}} {{.Title}}</td></tr>
 {{end}}</tbody></table>
 <p class="sub">{{$.L.checkshint}}</p>
</section>
{{end}}</main>
{{template "foot" .}}`

type probeCompareView struct {
	frame
	KPIs        []kpi
	Parts       []probeComparePartHTML
	Differences []report.ProbeDiffView
	Explain     []string
	Checks      []report.ProbeCheckView
}

type probeComparePartHTML struct {
	ID, Title string
	Rows      []probeCompareRowHTML
}

type probeCompareRowHTML struct {
	ID, Name, Unit, A, B, AInterval, BInterval, Change, Verdict, Class string
	Strips, Bar                                                        template.HTML
}

func probeCompareLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"report":     finding.T("tuneloop compare (probes)", "tuneloop 比较（平台探测）"),
		"title":      finding.T("B against A, figure by figure", "逐项比较 B 与 A"),
		"figure":     finding.T("figure", "指标"),
		"interval":   finding.T("95%", "95%"),
		"unit":       finding.T("unit", "单位"),
		"rounds":     finding.T("rounds: A (top), B (bottom)", "各轮：A（上）、B（下）"),
		"change":     finding.T("B vs A [95%]", "B 相对 A [95%]"),
		"changebar":  finding.T("change and its interval (0 in the middle)", "变化及其区间（中线为 0）"),
		"verdict":    finding.T("verdict", "判定"),
		"worse":      finding.T("B worse", "B 更差"),
		"better":     finding.T("B better", "B 更好"),
		"same":       finding.T("no significant difference", "无显著差异"),
		"howto":      finding.T("A change is significant when its 95% interval (Welch's t over the rounds) leaves out no change; each side's rounds are drawn as dots over its interval's bar, both on one scale.", "当变化的 95% 区间（对各轮做 Welch t 检验）不包含 0 时，差异才算显著；每侧的各轮画为区间条上的点，两侧使用同一刻度。"),
		"settings":   finding.T("Host settings that differ", "不同的主机设置"),
		"setting":    finding.T("setting", "设置"),
		"moves":      finding.T("figures it moves", "影响的指标"),
		"checks":     finding.T("Check findings on one side only", "只在一侧出现的 check 发现"),
		"side":       finding.T("side", "一侧"),
		"severity":   finding.T("severity", "严重级别"),
		"finding":    finding.T("finding", "发现"),
		"checkshint": finding.T("tuneloop check on that host explains each, with its fix.", "在该主机上运行 tuneloop check 可得到每条的解释与修复方法。"),
		"generated":  finding.T("generated", "生成于"),
		"quick":      finding.T("--quick: fewer rounds, wider intervals", "--quick：轮数较少，区间较宽"),
	}
}

// WriteProbeCompare writes the self-contained page of a comparison of two
// probes.
func WriteProbeCompare(w io.Writer, p *report.ProbeComparePage) error {
	if p == nil {
		return fmt.Errorf("html: nil probe comparison page")
	}
	l := pageLang(p.Lang)
	L := localized(probeCompareLabels(), l)
	v := &probeCompareView{frame: newFrame(l, L), Differences: p.Differences, Explain: p.Explain, Checks: p.Checks}
	v.Title, v.Tool = L["title"], finding.SafeOneLine(p.Tool)
	v.HostLine = finding.SafeOneLine("A: " + p.A.HostLine + "  ·  B: " + p.B.HostLine)
	for _, s := range []struct {
		name string
		side report.ProbeSideView
	}{{"A", p.A}, {"B", p.B}} {
		v.Meta = append(v.Meta, [2]string{s.name, finding.SafeOneLine(s.side.Label + " · " + s.side.Start)})
		if s.side.Quick {
			v.Notice = append(v.Notice, s.name+": "+L["quick"])
		}
	}
	v.KPIs = []kpi{{L["worse"], fmtInt(int64(p.Worse)), "", cond(p.Worse > 0, "bad", "")}, {L["better"], fmtInt(int64(p.Better)), "", ""},
		{L["same"], fmtInt(int64(p.Same)), "", ""}}
	v.Nav.add(true, "sec-summary", L["title"])
	for _, part := range p.Parts {
		ph := probeComparePartHTML{ID: part.ID, Title: part.Title}
		for _, r := range part.Rows {
			ph.Rows = append(ph.Rows, probeCompareRowHTML{ID: r.ID, Name: r.Name, Unit: r.Unit, A: r.A, B: r.B, AInterval: r.AInterval, BInterval: r.BInterval,
				Change: r.Change, Verdict: r.Verdict, Class: r.Class, Strips: sidesStrip(r), Bar: changeBar(r)})
		}
		v.Parts = append(v.Parts, ph)
		v.Nav.add(true, "sec-"+part.ID, part.Title)
	}
	v.Nav.add(len(p.Differences) > 0 || len(p.Explain) > 0, "sec-settings", L["settings"])
	v.Nav.add(len(p.Checks) > 0, "sec-checks", L["checks"])
	return writePage(w, "probecompare", probeCompareHTML, v)
}

func cond(ok bool, a, b string) string {
	if ok {
		return a
	}
	return b
}

// sidesStrip draws both sides' rounds, A above B, as dots over their
// intervals' bars with the median as a tick, on one scale from the
// smallest to the largest of them all.
func sidesStrip(r report.ProbeCompareRowView) template.HTML {
	const w, h = 180, 26
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	var all []float64
	for _, v := range slices.Concat(r.ARounds, r.BRounds, []float64{r.ALo, r.AHi, r.BLo, r.BHi}) {
		if finite(v) {
			all = append(all, v)
		}
	}
	if len(all) == 0 {
		return ""
	}
	mn, mx := slices.Min(all), slices.Max(all)
	if mx <= mn {
		mx = mn + math.Max(math.Abs(mn)*0.01, 1e-9)
	}
	x := func(v float64) float64 { return 4 + (w-8)*clamp((v-mn)/(mx-mn), 0, 1) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="rounds A and B">`, w, h, w, h)
	for i, s := range []struct {
		rounds      []float64
		lo, hi, med float64
		bar, dot    string
	}{{r.ARounds, r.ALo, r.AHi, r.AMed, "#d5d9e0", "#868e96"}, {r.BRounds, r.BLo, r.BHi, r.BMed, "#c5d3ea", "#4c6ef5"}} {
		y := 7 + 12*float64(i)
		if finite(s.lo) && finite(s.hi) {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="6" fill="%s"/>`, x(s.lo), y-3, math.Max(1, x(s.hi)-x(s.lo)), s.bar)
		}
		for _, v := range s.rounds {
			if finite(v) {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s" fill-opacity="0.75"/>`, x(v), y, s.dot)
			}
		}
		if finite(s.med) {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#222" stroke-width="1.5"/>`, x(s.med), x(s.med), y-5, y+5)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// changeBar draws the change of B against A as a point on its 95%
// interval's bar around a line at no change, red when B is significantly
// worse, green when better; the scale is symmetric and at least ±10%.
func changeBar(r report.ProbeCompareRowView) template.HTML {
	if math.IsNaN(r.ChangePct) || math.IsInf(r.ChangePct, 0) {
		return ""
	}
	const w, h = 140, 16
	span := 10.0
	for _, v := range []float64{r.ChangePct, r.LoPct, r.HiPct} {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			span = math.Max(span, math.Abs(v)*1.1)
		}
	}
	x := func(v float64) float64 { return w/2 + (w/2-4)*clamp(v/span, -1, 1) }
	col := "#868e96"
	switch r.Class {
	case "worse":
		col = "#c92a2a"
	case "better":
		col = "#2b8a3e"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="change">`, w, h, w, h)
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="1" y2="15" stroke="#adb5bd" stroke-dasharray="2 2"/>`, w/2, w/2)
	if !math.IsNaN(r.LoPct) && !math.IsNaN(r.HiPct) {
		fmt.Fprintf(&b, `<rect x="%.1f" y="6" width="%.1f" height="4" fill="%s" fill-opacity="0.45"/>`, x(r.LoPct), math.Max(1, x(r.HiPct)-x(r.LoPct)), col)
	}
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="8" r="3.2" fill="%s"><title>%+.1f%%</title></circle>`, x(r.ChangePct), col, r.ChangePct)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
