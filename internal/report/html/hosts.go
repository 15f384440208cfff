package html

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// hostsPiece is the section of a multi-host run: the cross-host reading,
// then one block per host (its clock alignment, what was lost, its
// verdict and findings, its CPU and busiest disk on the run's timeline).
const hostsPiece = `<section id="sec-hosts">
 <h2>{{.H.title}}</h2>
 {{with .Cross}}<div class="verdict sev-{{.Sev}}"><div class="vhead"><span class="badge sev-{{.Sev}}">{{.SevLabel}}</span><span class="vlabel">{{$.H.cross}}</span><code class="fid">{{.Key}}</code></div>
  <h3 class="vtitle">{{.Title}}</h3>{{if .Observed}}<p class="txt">{{.Observed}}</p>{{end}}
  {{with .Evidence}}<table class="ev"><thead><tr><th>{{$.H.source}}</th><th>{{$.H.key}}</th><th>{{$.H.value}}</th></tr></thead><tbody>
  {{range .}}<tr><td class="src">{{.Source}}</td><td>{{.Key}}</td><td class="val">{{.Value}}</td></tr>{{end}}</tbody></table>{{end}}</div>{{end}}
 <table class="facts"><thead><tr><th>{{.H.host}}</th><th>{{.H.role}}</th><th>{{.H.address}}</th><th>{{.H.arch}}</th><th>{{.H.clock}}</th><th>{{.H.files}}</th></tr></thead><tbody>
 {{range .Hosts}}<tr><td><a href="#host-{{.ID}}">{{.Name}}</a></td><td>{{.Role}}</td><td>{{.Address}}</td><td>{{.Arch}}</td><td>{{.Clock}}</td><td>{{.Files}}</td></tr>{{end}}
 </tbody></table>
 {{range .Hosts}}<div class="host" id="host-{{.ID}}">
  <h3>{{.Name}} <small>{{.Role}} · {{.Address}}</small></h3>
  {{if .Lost}}<p class="notice">{{$.H.lost}}: {{.Lost}}</p>{{end}}
  {{if .Unreadable}}<p class="notice">{{$.H.unreadable}}: {{.Unreadable}}</p>{{end}}
  {{if .Verdict}}<p><b>{{$.H.verdict}}:</b> {{.Verdict}}</p>{{end}}
  {{with .Findings}}<ul>{{range .}}<li><span class="badge sev-{{.Sev}}">{{.SevLabel}}</span> <code>{{.Key}}</code> {{.Title}}</li>{{end}}</ul>{{end}}
  {{if .Chart}}<div class="chartbox">{{.Chart}}</div>{{end}}
 </div>{{end}}
</section>
`

// hostLabels are the section's words.
func hostLabels(l finding.Lang) map[string]string {
	m := map[string]finding.Text{
		"title": finding.T("Hosts (one timeline)", "主机（同一时间轴）"), "cross": finding.T("across hosts", "跨主机"),
		"source": finding.T("source", "来源"), "key": finding.T("reading", "读数"), "value": finding.T("value", "值"),
		"host": finding.T("host", "主机"), "role": finding.T("role", "角色"), "address": finding.T("address", "地址"),
		"arch": finding.T("arch", "架构"), "clock": finding.T("clock (remote − here)", "时钟（远端 − 本机）"),
		"files": finding.T("files", "文件"), "lost": finding.T("LOST", "丢失"), "unreadable": finding.T("unreadable", "无法读取"),
		"verdict": finding.T("its verdict", "该主机结论"),
		"busy":    finding.T("CPU busy %", "CPU 忙 %"), "iowait": finding.T("iowait %", "iowait %"), "disk": finding.T("busiest disk %util", "最忙磁盘 %util"),
	}
	out := map[string]string{}
	for k, t := range m {
		out[k] = t.In(l)
	}
	return out
}

type hostHTML struct {
	ID, Name, Role, Address, Arch, Clock string
	Files                                int
	Lost, Unreadable, Verdict            string
	Findings                             []findingView
	Chart                                template.HTML
}

// hostsSection renders the hosts of a multi-host run ("" when v is nil) on
// the page's time range (each host's series are already on this host's
// timeline).
func hostsSection(v *report.HostsView, tr timeRange, l finding.Lang) template.HTML {
	if v == nil || len(v.Hosts) == 0 {
		return ""
	}
	H := hostLabels(l)
	if tr.t0.IsZero() {
		for _, h := range v.Hosts {
			for _, p := range h.Series {
				if tr.t0.IsZero() || p.T.Before(tr.t0) {
					tr.t0 = p.T
				}
				if p.T.After(tr.t1) {
					tr.t1 = p.T
				}
			}
		}
	}
	view := struct {
		H     map[string]string
		Cross *findingView
		Hosts []hostHTML
	}{H: H}
	if v.Cross != nil {
		fv := viewFinding(v.Cross, 0, l)
		view.Cross = &fv
	}
	for i := range v.Hosts {
		h := &v.Hosts[i]
		hh := hostHTML{ID: fmt.Sprint(i + 1), Name: finding.SafeOneLine(h.Name), Role: finding.SafeOneLine(h.Role), Address: finding.SafeOneLine(h.Address),
			Arch: finding.SafeOneLine(h.Arch), Clock: finding.SafeOneLine(h.ClockLine(l)), Files: h.Files, Unreadable: finding.SafeOneLine(h.Unreadable)}
		if h.Lost != nil {
			hh.Lost = finding.SafeOneLine(h.Lost.In(l))
		}
		if h.Verdict != nil {
			hh.Verdict = finding.SafeOneLine(h.Verdict.Title.In(l))
		}
		for j := range h.Findings {
			hh.Findings = append(hh.Findings, viewFinding(&h.Findings[j], 0, l))
		}
		if len(h.Series) > 1 && !tr.t0.IsZero() {
			var xs, busy, wa, disk []float64
			for _, p := range h.Series {
				xs = append(xs, tr.secs(p.T))
				busy, wa, disk = append(busy, p.Busy), append(wa, p.Iowait), append(disk, p.DiskUtil)
			}
			hh.Chart = lineChart(tr, 150, "%", []lineSeries{
				{Name: H["busy"], Color: "#3b6fb6", X: xs, Y: busy},
				{Name: H["iowait"], Color: "#d08a2e", X: xs, Y: wa},
				{Name: H["disk"], Color: "#b83c3c", X: xs, Y: disk, UseMax: true},
			}, false, nil)
		}
		view.Hosts = append(view.Hosts, hh)
	}
	var b bytes.Buffer
	tmpl, err := template.New("hosts").Parse(hostsPiece)
	if err == nil {
		err = tmpl.Execute(&b, view)
	}
	if err != nil {
		return template.HTML("<p>" + template.HTMLEscapeString(err.Error()) + "</p>")
	}
	return template.HTML(b.String())
}
