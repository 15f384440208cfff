package html

import "github.com/tuneloop/tuneloop/internal/finding"

// loadPageHTML defines "loadsections", drawn with a *loadSections: the load
// page's body, and the run report's load hook (WriteLoadSection).
const loadPageHTML = `{{define "loadsections"}}
<section id="sec-load-summary">
 <h2>{{.L.summary}}</h2>
 <div class="kpis">{{template "kpilist" .}}</div>
 <table class="grid"><tbody>{{range .Facts}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</tbody></table>
</section>
{{if .Throughput}}
<section id="sec-load-time">
 <h2>{{.L.overtime}}</h2>
 {{if .SeriesNote}}<div class="sub">{{.SeriesNote}}</div>{{end}}
 <h3>{{.L.tpschart}}</h3><div class="chartbox">{{.Throughput}}</div>
 <h3>{{.L.latchart}}</h3><div class="chartbox">{{.Latency}}</div>
</section>
{{end}}
{{if .Labels}}
<section id="sec-load-labels">
 <h2>{{.L.perlabel}}</h2>
 <table class="grid"><thead><tr><th>{{.L.label}}</th><th class="n">{{.L.requests}}</th><th class="n">{{.L.errors}}</th><th class="n">{{.L.errpct}}</th><th class="n">{{.L.tps}} /s</th><th class="n">{{.L.mean}} ms</th><th class="n">p50 ms</th><th class="n">p90 ms</th><th class="n">p99 ms</th><th class="n">{{.L.max}} ms</th><th class="n">{{.L.recv}}</th></tr></thead><tbody>
 {{range .Labels}}<tr><td>{{.Label}}</td><td class="n">{{.Requests}}</td><td class="n">{{.Errors}}</td><td class="n">{{.ErrPct}}</td><td class="n">{{.TPS}}</td><td class="n">{{.Mean}}</td><td class="n">{{.P50}}</td><td class="n">{{.P90}}</td><td class="n">{{.P99}}</td><td class="n">{{.Max}}</td><td class="n">{{.Recv}}</td></tr>{{end}}
 </tbody></table>
 {{if .LabelTPS}}<h3>{{.L.labeltps}}</h3><div class="chartbox">{{.LabelTPS}}</div>
 <h3>{{.L.labelp90}}</h3><div class="chartbox">{{.LabelP90}}</div>{{end}}
</section>
{{end}}
{{if or .Kinds .Codes}}
<section id="sec-load-errors">
 <h2>{{.L.errcodes}}</h2>
 {{if .Kinds}}<h3>{{.L.bykind}}</h3><table class="grid"><tbody>{{range .Kinds}}<tr><td>{{index . 0}}</td><td class="n">{{index . 1}}</td></tr>{{end}}</tbody></table>{{end}}
 {{if .ErrChart}}<div class="chartbox">{{.ErrChart}}</div>{{end}}
 {{if .Codes}}<h3>{{.L.bycode}}</h3><table class="grid"><tbody>{{range .Codes}}<tr><td>{{index . 0}}</td><td class="n">{{index . 1}}</td></tr>{{end}}</tbody></table>{{end}}
 {{if .CodeChart}}<div class="chartbox">{{.CodeChart}}</div>{{end}}
</section>
{{end}}
{{if .Dist}}
<section id="sec-load-dist">
 <h2>{{.L.dist}}</h2>
 <div class="sub">{{.L.disthelp}}{{if .DistNote}} · {{.DistNote}}{{end}}</div>
 <div class="chartbox">{{.Dist}}</div>
</section>
{{end}}
{{if .Open}}
<section id="sec-load-open">
 <h2>{{.L.openmodel}}</h2>
 <table class="grid"><tbody>{{range .Open}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</tbody></table>
 {{if .Lag}}<h3>{{.L.lagchart}}</h3><div class="chartbox">{{.Lag}}</div>{{end}}
</section>
{{end}}
{{end}}`

// loadLabels are the load page's own words.
func loadLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"loadreport":       finding.T("tuneloop load report", "tuneloop 压测报告"),
		"loadcounts":       finding.T("%s requests · %s errors · %s s", "%s 个请求 · %s 个错误 · %s 秒"),
		"summary":          finding.T("Summary", "概要"),
		"overtime":         finding.T("Over time", "随时间变化"),
		"tpschart":         finding.T("Throughput (requests per second) and errors", "吞吐（每秒请求数）与错误"),
		"latchart":         finding.T("Latency p50, p90 and p99 per second", "每秒延迟 p50、p90、p99"),
		"perlabel":         finding.T("Per label", "按标签"),
		"label":            finding.T("label", "标签"),
		"errpct":           finding.T("error %", "错误率 %"),
		"recv":             finding.T("received KB/s", "接收 KB/s"),
		"labeltps":         finding.T("Requests per second, per label", "各标签每秒请求数"),
		"labelp90":         finding.T("p90 latency per second, per label", "各标签每秒 p90 延迟"),
		"errcodes":         finding.T("Errors and status codes", "错误与状态码"),
		"bykind":           finding.T("Errors by kind", "错误类型"),
		"bycode":           finding.T("Responses by HTTP status code", "按 HTTP 状态码统计的响应"),
		"errsaxis":         finding.T("errors/s", "错误/秒"),
		"codesaxis":        finding.T("responses/s", "响应/秒"),
		"dist":             finding.T("Latency distribution", "延迟分布"),
		"disthelp":         finding.T("latency at each percentile (HDR percentile plot); the x axis gives the tail as much room as the body", "各百分位的延迟（HDR 百分位图）；横轴让尾部与主体占同样宽度"),
		"distsummary":      finding.T("from the summary's percentiles only", "仅来自汇总中的百分位"),
		"seriessummary":    finding.T("from the summary's per-second series: no p90, no per-label or per-code lines", "来自汇总的每秒序列：没有 p90，也没有按标签或状态码的曲线"),
		"openmodel":        finding.T("Open model: the schedule", "开放模型：发送计划"),
		"rate":             finding.T("rate", "速率"),
		"scheduled":        finding.T("sends due", "应发送"),
		"sent":             finding.T("sent", "已发送"),
		"missed":           finding.T("missed (never sent)", "未发出"),
		"late":             finding.T("late (over 5 ms)", "延迟发送（超过 5 ms）"),
		"meanlag":          finding.T("mean send lag", "平均发送延迟"),
		"maxlag":           finding.T("max send lag", "最大发送延迟"),
		"uncorrected":      finding.T("latency from the actual send", "从实际发送时刻起的延迟"),
		"behind":           finding.T("held back by", "拖慢发送的一方"),
		"behind-server":    finding.T("the server (its connections were held)", "服务端（连接被占用）"),
		"behind-generator": finding.T("the generator (it could not keep up)", "负载生成器（跟不上）"),
		"lagchart":         finding.T("Send lag behind the schedule, per second", "每秒发送相对计划的延迟"),
		"lagaxis":          finding.T("lag ms", "延迟 ms"),
		"target":           finding.T("target", "目标"),
		"model":            finding.T("model", "模型"),
		"users":            finding.T("users", "个用户"),
		"connections":      finding.T("connections", "连接数"),
		"duration":         finding.T("measured duration", "测量时长"),
		"start":            finding.T("start", "开始"),
		"warmup":           finding.T("warm-up requests (excluded)", "预热请求（不计入）"),
		"aborted":          finding.T("in flight at the end (excluded)", "结束时仍在进行（不计入）"),
		"bytes":            finding.T("received / sent", "接收 / 发送"),
		"gencpu":           finding.T("generator CPU", "生成器 CPU"),
	}
}

// loadLabelsIn is the run page's labels with the load page's, in l.
func loadLabelsIn(l finding.Lang) map[string]string {
	L := labelsIn(l)
	for k, v := range loadLabels() {
		L[k] = v.In(l)
	}
	return L
}
