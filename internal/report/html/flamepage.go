package html

// The page of one profile (`tuneloop jvm PID --profile KIND`): the run
// page's head, header, flame graph and footer pieces around a table of the
// top frames by self and by total value.

import (
	"fmt"
	"io"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// flamePageHTML is the page body; the pieces come from assets/pieces.html.
const flamePageHTML = `{{template "head" .}}<body>
{{template "top" .}}
<main>
{{template "flame" .}}
{{if .Top}}<section id="sec-top">
 <h2>{{.L.ptop}}</h2>
 <table class="grid"><thead><tr><th class="n">{{.L.pself}}</th><th class="n">%</th><th>{{.L.pframe}}</th><th class="n">{{.L.ptotal}}</th><th class="n">%</th><th>{{.L.pframe}}</th></tr></thead><tbody>
 {{range .Top}}<tr><td class="n">{{index . 0}}</td><td class="n">{{index . 1}}</td><td class="frame"><code>{{index . 2}}</code></td><td class="n">{{index . 3}}</td><td class="n">{{index . 4}}</td><td class="frame"><code>{{index . 5}}</code></td></tr>
 {{end}}</tbody></table>
</section>{{end}}
{{if or .Findings .Unavail}}<section id="sec-findings">
 <h2>{{.L.findings}}</h2>
{{template "findinglist" .}}
</section>{{end}}
</main>
{{template "foot" .}}`

// flamePageView is what the page template draws.
type flamePageView struct {
	frame
	Flame *flameHTML
	Top   [][6]string // self value, self %, frame, total value, total %, frame
	// The native catalogue's findings (the shared "findinglist" piece).
	Findings, Unavail []findingView
}

// flamePageLabels are this page's own words.
func flamePageLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"preport":          finding.T("tuneloop profile", "tuneloop 性能剖析"),
		"ptop":             finding.T("Top frames", "热点帧"),
		"pself":            finding.T("self", "自身"),
		"ptotal":           finding.T("total", "总计"),
		"pframe":           finding.T("frame", "帧"),
		"pkind":            finding.T("profile", "剖析类型"),
		"pcpu":             finding.T("CPU (Java code on a CPU)", "CPU（Java 代码占用 CPU）"),
		"palloc":           finding.T("allocation (bytes allocated)", "内存分配（分配字节数）"),
		"plock":            finding.T("lock (time blocked on monitors and parked)", "锁（阻塞于监视器与 park 的时间）"),
		"pwall":            finding.T("wall clock (every thread's time)", "墙钟时间（所有线程的时间）"),
		"pnative":          finding.T("native (Java, native and kernel frames on the CPU)", "原生（CPU 上的 Java、原生与内核帧）"),
		"pduration":        finding.T("recorded", "记录时长"),
		"pstopped":         finding.T("stopped early (interrupted)", "提前停止（被中断）"),
		"pevents":          finding.T("events", "事件数"),
		"ptotalv":          finding.T("total", "总量"),
		"precorded":        finding.T("recorded with", "记录命令"),
		"pfiles":           finding.T("files", "文件"),
		"pempty":           finding.T("The recording holds no event of this kind.", "记录中没有该类型的事件。"),
		"unit-samples":     finding.T("samples", "个采样"),
		"unit-bytes":       finding.T("bytes", "字节"),
		"unit-nanoseconds": finding.T("ns", "纳秒"),
	}
}

// WriteFlame writes the page of one profile as one self-contained HTML
// document in p.Lang.
func WriteFlame(w io.Writer, p *report.FlamePage) error {
	if p == nil {
		return fmt.Errorf("html: nil flame page")
	}
	l := pageLang(p.Lang)
	L := labelsIn(l)
	for k, v := range flamePageLabels() {
		L[k] = v.In(l)
	}
	L["report"] = L["preport"]
	if u, ok := L["unit-"+p.Unit]; ok {
		L["samples"] = u // the flame piece's unit word
	}
	v := &flamePageView{frame: newFrame(l, L)}
	v.Title = finding.SafeOneLine(p.Title)
	if v.Title == "" {
		v.Title = L["preport"]
	}
	v.Tool = "tuneloop"
	if p.Tool.Name != "" {
		v.Tool = finding.SafeOneLine(p.Tool.Name)
	}
	if p.Tool.Version != "" {
		v.Tool += " " + finding.SafeOneLine(p.Tool.Version)
	}
	if !p.Start.IsZero() {
		v.Gen = p.Start.UTC().Format(time.RFC3339)
	}
	v.HostLine = finding.SafeOneLine(p.Target)
	if p.Version != "" {
		v.HostLine += " · " + finding.SafeOneLine(p.Version)
	}
	kind := L["p"+p.Kind]
	if kind == "" {
		kind = finding.SafeOneLine(p.Kind)
	}
	dur := fmtDur(p.Duration.Seconds())
	if p.Interrupted {
		dur += " · " + L["pstopped"]
	}
	v.Meta = [][2]string{{L["pkind"], kind}, {L["pduration"], dur}, {L["pevents"], fmtInt(int64(p.Events))},
		{L["ptotalv"], fmtValue(p.Total, p.Unit, L)}}
	if p.Command != "" {
		v.Meta = append(v.Meta, [2]string{L["precorded"], finding.SafeOneLine(p.Command)})
	}
	for _, role := range []string{"collapsed", "pprof", "jfr"} {
		if f := p.Files[role]; f != "" {
			v.Meta = append(v.Meta, [2]string{L["pfiles"] + " · " + role, finding.SafeOneLine(f)})
		}
	}
	for _, n := range p.Notes {
		v.Notice = append(v.Notice, finding.SafeOneLine(n.In(l)))
	}
	if p.Total == 0 {
		v.Notice = append(v.Notice, L["pempty"])
	}
	v.Flame = flameSection(p.Flame, kind, L)
	if v.Flame != nil {
		v.Nav = append(v.Nav, [2]string{"sec-flame", L["flame"]})
	}
	pct := func(x int64) string {
		if p.Total <= 0 {
			return "–"
		}
		return fmtPct(100 * float64(x) / float64(p.Total))
	}
	for i := 0; i < max(len(p.BySelf), len(p.ByTotal)); i++ {
		var row [6]string
		if i < len(p.BySelf) {
			s := p.BySelf[i]
			row[0], row[1], row[2] = fmtValue(s.Self, p.Unit, L), pct(s.Self), finding.SafeOneLine(s.Frame)
		}
		if i < len(p.ByTotal) {
			s := p.ByTotal[i]
			row[3], row[4], row[5] = fmtValue(s.Total, p.Unit, L), pct(s.Total), finding.SafeOneLine(s.Frame)
		}
		v.Top = append(v.Top, row)
	}
	if len(v.Top) > 0 {
		v.Nav = append(v.Nav, [2]string{"sec-top", L["ptop"]})
	}
	v.Findings, v.Unavail = findingViews(p.Findings, l)
	if len(v.Findings)+len(v.Unavail) > 0 {
		v.Nav = append(v.Nav, [2]string{"sec-findings", L["findings"]})
	}
	return writePage(w, "profile", flamePageHTML, v)
}

// fmtValue says a profile value in its unit: samples as a count, bytes
// with k/M/G, nanoseconds as milliseconds or seconds.
func fmtValue(v int64, unit string, L map[string]string) string {
	switch unit {
	case "bytes":
		return fmtNum(float64(v)) + "B"
	case "nanoseconds":
		if v >= 1e9 {
			return fmtNum(float64(v)/1e9) + " s"
		}
		return fmtNum(float64(v)/1e6) + " ms"
	}
	return fmtInt(v)
}
