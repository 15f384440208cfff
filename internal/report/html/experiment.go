package html

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// experimentHTML is the experiment page's body (the head, header and
// footer are the shared pieces).
const experimentHTML = `{{template "head" .}}<body>
{{template "top" .}}<main>
<section id="sec-gain">
 <h2>{{.L.gain}}</h2>
 <p class="gcverdict"><b>{{.Headline}}</b></p>
 {{with .Confirm}}<table class="grid"><thead><tr><th></th><th class="n">TPS [95%]</th><th class="n">p99 ms [95%]</th></tr></thead><tbody>
 <tr><td>{{$.L.baseline}}</td><td class="n">{{.BaseTPS}}</td><td class="n">{{.BaseP99}}</td></tr>
 <tr><td>{{.Arm}} · {{.Label}}</td><td class="n">{{.WinTPS}}</td><td class="n">{{.WinP99}}</td></tr>
 <tr><td>{{$.L.change}}</td><td class="n">{{.TPS}} · {{.TPSVerdict}}</td><td class="n">{{.P99}} · {{.P99Verdict}}</td></tr>
 </tbody></table>{{end}}
</section>
<section id="sec-arms">
 <h2>{{.L.arms}}</h2>
 <div class="chartbox">{{.Chart}}</div>
 <table class="grid"><thead><tr><th>arm</th><th>{{.L.settings}}</th><th class="n">{{.L.trials}}</th><th class="n">TPS [95%]</th><th class="n">p99 ms [95%]</th><th class="n">{{.L.errors}}</th><th class="n">{{.L.vsbase}}</th><th>{{.L.verdict}}</th><th>{{.L.status}}</th></tr></thead><tbody>
 {{range .Arms}}<tr><td><code>{{.ID}}</code></td><td class="txt">{{.Label}}</td><td class="n">{{.Trials}}</td><td class="n">{{.TPS}}</td><td class="n">{{.P99}}</td><td class="n">{{.Errors}}</td><td class="n">{{.Gain}}</td><td>{{.Verdict}}</td><td class="txt">{{.Status}}{{if .Why}}: {{.Why}}{{end}}</td></tr>
 {{end}}</tbody></table>
 <p class="sub">{{.L.screennote}}</p>
</section>
<section id="sec-changes">
 <h2>{{.L.changes}}</h2>
 <table class="grid"><tbody>{{range .Changes}}<tr><td>{{if .Undone}}✓ {{$.L.undone}}{{else}}<b>{{$.L.open}}</b>{{end}}</td><td><code>{{.Arm}}</code></td><td class="txt"><code>{{.What}}</code></td><td class="txt">{{.Undo}}</td></tr>{{else}}<tr><td>{{.L.nothing}}</td></tr>{{end}}</tbody></table>
</section>
<section id="sec-trials">
 <h2>{{.L.trialsh}}</h2>
 <table class="grid"><thead><tr><th class="n">#</th><th>key</th><th>arm</th><th class="n">TPS</th><th class="n">p99 ms</th><th>{{.L.status}}</th><th>{{.L.folder}}</th></tr></thead><tbody>
 {{range .Trials}}<tr><td class="n">{{.Seq}}</td><td><code>{{.Key}}</code></td><td>{{.Arm}}</td><td class="n">{{.TPS}}</td><td class="n">{{.P99}}</td><td>{{.Status}}</td><td class="txt">{{.Dir}}</td></tr>
 {{end}}</tbody></table>
</section>
</main>
{{template "foot" .}}`

type experimentView struct {
	frame
	Headline string
	Confirm  *confirmView
	Chart    template.HTML
	Arms     []armView
	Changes  []changeView
	Trials   []trialView
}

type confirmView struct {
	Arm, Label, BaseTPS, WinTPS, BaseP99, WinP99 string
	TPS, P99, TPSVerdict, P99Verdict             string
}

type armView struct {
	ID, Label, TPS, P99, Errors, Gain, Verdict, Status, Why string
	Trials                                                  int
}

type changeView struct {
	Arm, What, Undo string
	Undone          bool
}

type trialView struct {
	Seq                             int
	Key, Arm, TPS, P99, Status, Dir string
}

func experimentLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"report":     finding.T("tuneloop experiment", "tuneloop 调优实验"),
		"generated":  finding.T("generated", "生成于"),
		"gain":       finding.T("The gain (winner re-measured against the baseline)", "收益（胜出组合与基线重新对比）"),
		"baseline":   finding.T("baseline", "基线"),
		"change":     finding.T("change [95%]", "变化 [95%]"),
		"arms":       finding.T("Arms (screening)", "各组合（筛选）"),
		"settings":   finding.T("settings", "设置"),
		"trials":     finding.T("trials", "试验"),
		"errors":     finding.T("errors", "错误"),
		"vsbase":     finding.T("vs baseline", "相对基线"),
		"verdict":    finding.T("verdict", "判定"),
		"status":     finding.T("status", "状态"),
		"screennote": finding.T("Screening numbers choose the winner; only its fresh interleaved re-measurement above is claimed as the gain.", "筛选数字只用于选出胜出组合；只有上面新的交错重测结果才作为收益。"),
		"changes":    finding.T("Changed and undone", "已更改并已撤销"),
		"undone":     finding.T("undone", "已撤销"),
		"open":       finding.T("STILL APPLIED", "仍在生效"),
		"nothing":    finding.T("nothing", "无"),
		"trialsh":    finding.T("Trials in the order they ran", "按运行顺序的试验"),
		"folder":     finding.T("run folder", "运行目录"),
		"target":     finding.T("target", "目标"),
		"load":       finding.T("load", "负载"),
		"search":     finding.T("search", "搜索"),
		"reps":       finding.T("repetitions", "重复次数"),
		"overlay":    finding.T("launch overlay", "启动覆盖层"),
	}
}

// WriteExperiment writes the experiment's self-contained page in l.
func WriteExperiment(w io.Writer, e *report.Experiment, l finding.Lang) error {
	if e == nil {
		return fmt.Errorf("html: nil experiment")
	}
	l = pageLang(l)
	L := localized(experimentLabels(), l)
	v := &experimentView{frame: newFrame(l, L)}
	v.Title = L["report"]
	v.Tool, v.HostLine = toolLine(e.Tool), finding.SafeOneLine(e.Service)
	v.Meta = [][2]string{{L["target"], finding.SafeOneLine(e.Target)}, {L["load"], finding.SafeOneLine(e.Load.In(l))},
		{L["search"], fmt.Sprintf("%s · %s %d · seed %d", report.ModeText(e.Mode, l), L["reps"], e.Repetitions, e.Seed)}, {L["overlay"], finding.SafeOneLine(e.Overlay.In(l))}}
	if e.Stopped != nil {
		v.Notice = append(v.Notice, finding.Safe(e.Stopped.In(l)))
	}
	for _, n := range e.Notes {
		v.Notice = append(v.Notice, finding.Safe(n.In(l)))
	}
	v.Nav.add(true, "sec-gain", L["gain"])
	v.Nav.add(true, "sec-arms", L["arms"])
	v.Nav.add(true, "sec-changes", L["changes"])
	v.Nav.add(true, "sec-trials", L["trialsh"])
	v.Headline = finding.SafeLine(report.ConfirmLine(e, l))
	if c := e.Confirm; c != nil && c.TPS != nil && c.P99 != nil {
		v.Confirm = &confirmView{Arm: finding.SafeOneLine(c.Arm), Label: finding.SafeOneLine(c.Label), BaseTPS: report.FmtInterval(c.Base), WinTPS: report.FmtInterval(c.Win),
			BaseP99: report.FmtInterval(c.BaseP), WinP99: report.FmtInterval(c.WinP), TPS: report.FmtGain(c.TPS), P99: report.FmtGain(c.P99),
			TPSVerdict: report.VerdictText(c.TPS, l), P99Verdict: report.VerdictText(c.P99, l)}
	}
	for _, a := range e.Arms {
		v.Arms = append(v.Arms, armView{ID: finding.SafeOneLine(a.ID), Label: finding.SafeOneLine(a.Label), Trials: a.Trials, TPS: report.FmtInterval(a.TPS),
			P99: report.FmtInterval(a.P99MS), Errors: fmt.Sprintf("%.2f%%", finite(a.ErrorPct)), Gain: report.FmtGain(a.Gain),
			Verdict: report.VerdictText(a.Gain, l), Status: report.ExperimentStatus(a.Status, l), Why: finding.SafeLine(a.Why.In(l))})
	}
	v.Chart = experimentChart(e)
	for _, c := range e.Changes {
		v.Changes = append(v.Changes, changeView{Arm: finding.SafeOneLine(c.Arm), What: finding.SafeOneLine(c.What), Undo: finding.SafeLine(c.Undo.In(l)), Undone: c.Undone})
	}
	for _, t := range e.Trials {
		v.Trials = append(v.Trials, trialView{Seq: t.Seq, Key: finding.SafeOneLine(t.Key), Arm: finding.SafeOneLine(t.Arm), TPS: fmt.Sprintf("%.1f", finite(t.TPS)),
			P99: fmt.Sprintf("%.1f", finite(t.P99MS)), Status: finding.SafeOneLine(t.Status), Dir: finding.SafeOneLine(t.Dir)})
	}
	return writePage(w, "experiment", experimentHTML, v)
}

// experimentChart draws each arm's TPS mean as a bar with its 95% interval
// as a whisker, clipped at the plot's edge (a two-trial interval can span
// orders of magnitude), the numbers in a column on the right (inline SVG;
// labels through SafeHTML).
func experimentChart(e *report.Experiment) template.HTML {
	if len(e.Arms) == 0 {
		return ""
	}
	const rowH, left, right, width = 22, 60, 170, 1000
	top := 0.0
	for _, a := range e.Arms {
		top = math.Max(top, finite(a.TPS.Mean))
	}
	if top <= 0 {
		return ""
	}
	top *= 1.5
	plotR := float64(width - right)
	x := func(v float64) float64 { return clamp(left+(plotR-left)*finite(v)/top, left, plotR) }
	var b strings.Builder
	h := rowH*len(e.Arms) + 6
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="TPS [95%%]">`, width, h)
	for i, a := range e.Arms {
		y := float64(i*rowH + 4)
		color := "#7a8ca3"
		switch a.Status {
		case "baseline":
			color = "#4c6ef5"
		case "winner":
			color = "#2b8a3e"
		case "dropped", "refused", "constraint":
			color = "#c9ced6"
		}
		fmt.Fprintf(&b, `<text class="ax" x="%d" y="%.0f" text-anchor="end">%s</text>`, left-6, y+13, finding.SafeHTML(a.ID))
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="%.1f" height="14" fill="%s"/>`, left, y+2, x(a.TPS.Mean)-left, color)
		if a.TPS.N > 1 && a.TPS.Hi > a.TPS.Lo {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#222" stroke-width="1.5"/>`, x(a.TPS.Lo), x(a.TPS.Hi), y+9, y+9)
			if a.TPS.Hi > top {
				fmt.Fprintf(&b, `<path d="M%.1f %.0f l6 4 l-6 4z" fill="#222"/>`, plotR, y+5)
			}
		}
		fmt.Fprintf(&b, `<text class="ax" x="%d" y="%.0f" text-anchor="end">%s</text>`, width-4, y+13, finding.SafeHTML(report.FmtInterval(a.TPS)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
