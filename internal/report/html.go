package report

// WriteRunHTML renders a RunPage as one self-contained HTML file: no
// network at all (a Content-Security-Policy forbids it even by mistake),
// charts drawn server-side as inline SVG (and heat strips as data: PNGs),
// a small inline script only for zooming the flame graph.
//
// Every string of the RunPage may be hostile (thread names, lock classes,
// URLs from the target). Strings reach the page only through html/template
// (contextual escaping) after finding.Safe (valid UTF-8, no control characters);
// the few strings written into the server-side SVG go through esc().

import (
	"bytes"
	"cmp"
	"container/heap"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

//go:embed assets/report.css
var reportCSS string

//go:embed assets/report.js
var reportJS string

// Caps that keep the page small whatever the run's length or width.
const (
	maxSeriesPoints = 600  // points per line or area series
	maxHeatColumns  = 600  // columns of a per-CPU heat strip
	maxFlameNodes   = 2000 // frames of the flame graph, biggest first
	maxLockRows     = 20
	maxGCPoints     = 2000
	smallMultiples  = 16 // up to this many CPUs: one chart per CPU; more: heat strips
)

// htmlLabels are the page's words in both languages.
var htmlLabels = map[string]finding.Text{
	"report":       finding.T("tuneloop run report", "tuneloop 运行报告"),
	"verdict":      finding.T("Verdict", "结论"),
	"rootcause":    finding.T("Root cause", "根因"),
	"noverdict":    finding.T("No bottleneck found in this run: nothing crossed a diagnosis threshold.", "本次记录未发现瓶颈：没有指标超过诊断阈值。"),
	"seen":         finding.T("What was seen", "现状"),
	"fix":          finding.T("Fix", "修复"),
	"apply":        finding.T("apply", "执行"),
	"revert":       finding.T("revert", "回退"),
	"persist":      finding.T("persist", "持久化"),
	"note":         finding.T("note", "说明"),
	"reboot":       finding.T("needs a reboot", "需要重启生效"),
	"effect":       finding.T("Expected effect and trade-off", "预期效果与代价"),
	"support":      finding.T("Supporting evidence", "支撑证据"),
	"evidence":     finding.T("evidence", "证据"),
	"key":          finding.T("what", "指标"),
	"value":        finding.T("value", "值"),
	"source":       finding.T("source", "来源"),
	"why":          finding.T("why", "原因"),
	"recommend":    finding.T("recommend", "建议"),
	"risk":         finding.T("risk", "风险"),
	"for":          finding.T("applies to", "适用"),
	"ref":          finding.T("references", "参考"),
	"confidence":   finding.T("confidence", "置信度"),
	"load":         finding.T("Load", "负载"),
	"requests":     finding.T("requests", "请求数"),
	"errors":       finding.T("errors", "错误"),
	"tps":          finding.T("throughput", "吞吐"),
	"mean":         finding.T("mean", "平均"),
	"max":          finding.T("max", "最大"),
	"loadseries":   finding.T("Throughput and latency over time", "吞吐与延迟随时间变化"),
	"tpsaxis":      finding.T("requests/s", "请求/秒"),
	"errs":         finding.T("errors/s", "错误/秒"),
	"latency":      finding.T("latency", "延迟"),
	"cpu":          finding.T("CPU per core", "各 CPU 使用率"),
	"cpuall":       finding.T("all CPUs (mean)", "全部 CPU（平均）"),
	"cpuheat":      finding.T("busy % per CPU (us+sy+hi+si+wa+st), one row per CPU", "各 CPU 忙碌百分比（us+sy+hi+si+wa+st），每行一个 CPU"),
	"softirq":      finding.T("Softirq per CPU", "各 CPU 软中断"),
	"softmean":     finding.T("mean softirqs/s per CPU over the run", "整个记录期间各 CPU 平均软中断/秒"),
	"netrxheat":    finding.T("NET_RX/s per CPU over time (log colour scale), one row per CPU", "各 CPU NET_RX/秒随时间变化（对数色标），每行一个 CPU"),
	"cpukern":      finding.T("kernel % per CPU (sy+hi+si), one row per CPU", "各 CPU 内核态百分比（sy+hi+si），每行一个 CPU"),
	"othersirq":    finding.T("other softirqs", "其他软中断"),
	"threads":      finding.T("Thread states per dump", "各次线程转储的线程状态"),
	"threadsaxis":  finding.T("threads", "线程数"),
	"locks":        finding.T("Contended locks", "竞争的锁"),
	"lock":         finding.T("lock", "锁"),
	"class":        finding.T("class", "类"),
	"kind":         finding.T("kind", "类型"),
	"waiters":      finding.T("waiters", "等待者"),
	"owner":        finding.T("owner", "持有者"),
	"ownerruns":    finding.T("owner is running", "持有者正在执行"),
	"dumps":        finding.T("dumps", "转储次数"),
	"more":         finding.T("more not shown", "条未显示"),
	"gc":           finding.T("Garbage collection", "垃圾回收"),
	"collector":    finding.T("collector", "收集器"),
	"throughput":   finding.T("GC throughput", "GC 吞吐"),
	"pauses":       finding.T("pauses", "停顿次数"),
	"fullgcs":      finding.T("full GCs", "Full GC"),
	"pausems":      finding.T("pause ms", "停顿毫秒"),
	"uptime":       finding.T("JVM uptime", "JVM 运行时间"),
	"flame":        finding.T("Hot stacks (flame graph)", "热点调用栈（火焰图）"),
	"flamehelp":    finding.T("width = share of samples; click a frame to zoom, click the bottom frame to reset", "宽度 = 采样占比；点击帧放大，点击最底部帧复原"),
	"samples":      finding.T("samples", "次采样"),
	"reset":        finding.T("reset zoom", "复原"),
	"flamecut":     finding.T("frames shown (the biggest)", "个帧（最大的）已显示"),
	"findings":     finding.T("Findings", "诊断"),
	"unavailable":  finding.T("Could not diagnose", "无法诊断"),
	"check":        finding.T("Host audit failures", "主机检查未通过项"),
	"facts":        finding.T("Host facts", "主机信息"),
	"severity":     finding.T("severity", "级别"),
	"finding":      finding.T("finding", "诊断项"),
	"generated":    finding.T("generated", "生成于"),
	"folder":       finding.T("folder", "目录"),
	"time":         finding.T("time", "时间"),
	"status":       finding.T("status", "状态"),
	"command":      finding.T("command", "命令"),
	"target":       finding.T("target", "目标"),
	"incomplete":   finding.T("INCOMPLETE: the recorder stopped without finishing (killed?); diagnosed the samples that were saved.", "不完整：记录进程未正常结束（被杀？）；仅根据已保存的采样诊断。"),
	"endedearly":   finding.T("ended early", "提前结束"),
	"counts":       finding.T("%d critical · %d warning · %d info", "严重 %d · 警告 %d · 提示 %d"),
	"nodata":       finding.T("no data", "无数据"),
	"sincestart":   finding.T("time since %s UTC", "自 %s UTC 起的时间"),
	"bandnote":     finding.T("; shaded: when the verdict held (%s – %s)", "；阴影：结论成立的时段（%s – %s）"),
	"contents":     finding.T("Contents", "目录"),
	"busy":         finding.T("busy", "忙碌"),
	"cpunum":       finding.T("CPU", "CPU"),
	"recordcost":   finding.T("recording cost", "记录开销"),
	"threadsdumps": finding.T("threads per state in each thread dump", "每次线程转储中各状态的线程数"),
}

// CPU components, in stacking order, with the Okabe-Ito colour-blind-safe palette.
var cpuParts = []struct {
	Name, Color string
	get         func(CPUShare) float64
}{
	{"us", "#0072B2", func(c CPUShare) float64 { return c.Us }},
	{"sy", "#D55E00", func(c CPUShare) float64 { return c.Sy }},
	{"hi", "#CC79A7", func(c CPUShare) float64 { return c.Hi }},
	{"si", "#E69F00", func(c CPUShare) float64 { return c.Si }},
	{"wa", "#56B4E9", func(c CPUShare) float64 { return c.Wa }},
	{"st", "#009E73", func(c CPUShare) float64 { return c.St }},
}

// Thread states in stacking order and their colours; others are grey.
var stateColors = []struct{ Name, Color string }{
	{"RUNNABLE", "#009E73"},
	{"BLOCKED", "#D55E00"},
	{"WAITING", "#0072B2"},
	{"TIMED_WAITING", "#56B4E9"},
	{"NEW", "#F0E442"},
	{"TERMINATED", "#000000"},
}

// Colours for series and categories beyond the fixed ones (Okabe-Ito order).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

type htmlView struct {
	Lang     string
	L        map[string]string
	CSS      template.CSS
	JS       template.JS
	Data     map[string]any // JSON for the script
	Title    string
	HostLine string
	Meta     [][2]string
	Notice   []string
	Counts   string
	Verdict  *findingView
	NoFind   bool
	Load     *loadHTML
	Series   []template.HTML
	TimeNote string
	CPU      *cpuHTML
	Softirq  *softHTML
	Threads  *threadsHTML
	Locks    []lockView
	LockMore int
	GC       *gcHTML
	Flame    *flameHTML
	Findings []findingView
	Unavail  []findingView
	Check    []findingView
	Facts    [][2]string
	Nav      [][2]string // section id, heading
	Tool     string
	Gen      string
}

type legendItem struct{ Name, Color string }

type loadHTML struct {
	Source, Model string
	KPIs          []kpi
}

type kpi struct{ Label, Value, Unit, Class string }

type cpuHTML struct {
	N      int
	All    template.HTML
	Multi  []template.HTML // small multiples, or nil
	Heats  []*heatStrip    // many CPUs: one row per CPU
	Legend []legendItem
}

type softHTML struct {
	Bars   template.HTML
	Heat   *heatStrip
	Legend []legendItem
}

// heatStrip is a per-CPU heat map: one SVG holding the CPU labels, a data:
// PNG (one pixel per CPU and time bucket, stretched without smoothing), the
// time axis and the colour scale.
type heatStrip struct {
	SVG template.HTML
}

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
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, sx-4, y1+34, esc(lo))
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f">%s</text>`, sx+164, y1+34, esc(hi))
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f">%s</text>`, x0, y1+34, esc(fmt.Sprintf("%s · %d CPUs", title, n)))
	b.WriteString(`</svg>`)
	return &heatStrip{SVG: template.HTML(b.String())}
}

type threadsHTML struct {
	Chart  template.HTML
	Legend []legendItem
}

type gcHTML struct {
	KPIs    []kpi
	Chart   template.HTML
	Legend  []legendItem
	Verdict string
}

type flameHTML struct {
	Source string
	Height int
	Total  int
	Shown  int
	Nodes  int
	Frames []flameFrame
}

type flameFrame struct {
	Left, Width, Bottom string // CSS numbers
	Name, Title, Color  string
	Label               bool
}

// lockView is a LockRow made safe, with Java names cut where a line may break.
type lockView struct {
	Lock, Kind, Owner, OwnerState string
	Class, OwnerFrame             []string
	Waiters, Dumps                int
}

// breakable cuts a Java name after '.', '$' and '(' so the page can wrap
// it there (<wbr>) instead of in the middle of a word.
func breakable(s string) []string {
	s = oneLine(s)
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c == '.' || c == '$' || c == '(' || c == '/') && i+1-start >= 4 {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

type findingView struct {
	Rank                           int
	Sev, SevLabel, Key, Anchor     string
	Category, Title, Observed, Why string
	Recommended, Apply, Revert     string
	Persist, Note, Risk, Workload  string
	Reason, Confidence             string
	Reboot                         bool
	Evidence                       []finding.Evidence
	Refs                           []string
}

//go:embed assets/report.html
var runHTML string

var runTemplate = template.Must(template.New("run").Parse(runHTML))

// WriteRunHTML writes the run page as one self-contained HTML document in p.Lang.
func WriteRunHTML(w io.Writer, p *RunPage) error {
	if p == nil {
		return fmt.Errorf("report: nil run page")
	}
	v := buildView(p)
	var b bytes.Buffer
	if err := runTemplate.Execute(&b, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func buildView(p *RunPage) *htmlView {
	l := p.Lang
	if l != finding.ZH {
		l = finding.EN
	}
	L := make(map[string]string, len(htmlLabels))
	for k, t := range htmlLabels {
		L[k] = t.In(l)
	}
	v := &htmlView{Lang: string(l), L: L, CSS: template.CSS(reportCSS), JS: template.JS(reportJS)}
	v.Title = oneLine(p.Title)
	r := p.Run
	if r == nil {
		r = &Run{}
	}
	if v.Title == "" {
		v.Title = oneLine(r.ID)
	}
	v.HostLine = oneLine(r.Host.line(l))
	add := func(k, val string) {
		if val = oneLine(val); val != "" {
			v.Meta = append(v.Meta, [2]string{L[k], val})
		}
	}
	add("folder", r.Dir)
	if !r.Start.IsZero() {
		span := r.Start.UTC().Format("2006-01-02 15:04:05")
		if !r.End.IsZero() {
			span += " – " + r.End.UTC().Format("15:04:05")
		}
		add("time", span+" UTC")
	}
	add("status", r.Status)
	add("command", r.Command)
	if r.TargetPID != 0 {
		add("target", fmt.Sprintf("%s (pid %d)", r.TargetComm, r.TargetPID))
	}
	if r.CostCPUPct > 0 || r.CostMaxRSSKB > 0 {
		add("recordcost", fmt.Sprintf("%.2f%% CPU, %.1f MiB RSS", r.CostCPUPct, float64(r.CostMaxRSSKB)/1024))
	}
	if r.Incomplete {
		v.Notice = append(v.Notice, L["incomplete"])
	}
	if r.Reason != "" {
		v.Notice = append(v.Notice, L["endedearly"]+": "+oneLine(r.Reason))
	}
	c := finding.Count(r.Findings)
	v.Counts = fmt.Sprintf(L["counts"], c.Critical, c.Warning, c.Info)
	v.Tool = "tuneloop"
	if r.Tool.Name != "" {
		v.Tool = oneLine(r.Tool.Name)
	}
	if r.Tool.Version != "" {
		v.Tool += " " + oneLine(r.Tool.Version)
	}
	if !r.GeneratedAt.IsZero() {
		v.Gen = r.GeneratedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}

	if p.Verdict != nil {
		fv := viewFinding(p.Verdict, 0, l)
		v.Verdict = &fv
	} else {
		v.NoFind = c.Fail == 0
	}
	rank := 0
	for i := range r.Findings {
		f := &r.Findings[i]
		switch f.Status {
		case finding.Fail:
			rank++
			v.Findings = append(v.Findings, viewFinding(f, rank, l))
		case finding.Unavailable:
			v.Unavail = append(v.Unavail, viewFinding(f, 0, l))
		}
	}
	for i := range p.Check {
		if p.Check[i].Status == finding.Fail || p.Check[i].Status == "" {
			v.Check = append(v.Check, viewFinding(&p.Check[i], 0, l))
		}
	}
	for _, f := range p.Facts {
		if k, val := oneLine(f[0]), finding.Safe(f[1]); k != "" || val != "" {
			v.Facts = append(v.Facts, [2]string{k, val})
		}
	}

	tr := timeDomain(p)
	if !tr.t0.IsZero() {
		v.TimeNote = fmt.Sprintf(L["sincestart"], tr.t0.UTC().Format("15:04:05"))
		// The verdict's window, unless it is the whole run (nothing to point at).
		if w := p.Verdict; w != nil && w.Window != nil {
			b0, b1 := tr.secs(w.Window.From), tr.secs(w.Window.To)
			if b1 > b0 && b1-b0 < 0.9*tr.span() {
				tr.b0, tr.b1 = max(b0, 0), b1
				v.TimeNote += fmt.Sprintf(L["bandnote"], w.Window.From.UTC().Format("15:04:05"), w.Window.To.UTC().Format("15:04:05"))
			}
		}
	}
	v.Load, v.Series = loadSection(p.Load, tr, L, p.Lang)
	v.CPU = cpuSection(p.CPU, tr, L)
	v.Softirq = softirqSection(p.Softirq, tr, L)
	v.Threads = threadsSection(p.ThreadStates, tr, L)
	for i, lk := range p.Locks {
		if i == maxLockRows {
			v.LockMore = len(p.Locks) - maxLockRows
			break
		}
		v.Locks = append(v.Locks, lockView{Lock: oneLine(lk.Lock), Class: breakable(lk.Class), Kind: oneLine(lk.Kind),
			Owner: oneLine(lk.Owner), OwnerState: oneLine(lk.OwnerState), OwnerFrame: breakable(lk.OwnerFrame),
			Waiters: lk.Waiters, Dumps: lk.Dumps})
	}
	v.GC = gcSection(p.GC, L, l)
	v.Flame = flameSection(p.Flame, oneLine(p.FlameSource), L)
	nav := func(ok bool, id, k string) {
		if ok {
			v.Nav = append(v.Nav, [2]string{id, L[k]})
		}
	}
	nav(true, "sec-verdict", "verdict")
	nav(v.Series != nil, "sec-load", "loadseries")
	nav(v.CPU != nil, "sec-cpu", "cpu")
	nav(v.Softirq != nil, "sec-softirq", "softirq")
	nav(v.Threads != nil, "sec-threads", "threads")
	nav(v.Locks != nil, "sec-locks", "locks")
	nav(v.GC != nil, "sec-gc", "gc")
	nav(v.Flame != nil, "sec-flame", "flame")
	nav(v.Findings != nil || v.Unavail != nil, "sec-findings", "findings")
	nav(v.Check != nil, "sec-check", "check")
	nav(v.Facts != nil, "sec-facts", "facts")
	v.Data = map[string]any{"lang": string(l), "title": v.Title, "samples": L["samples"], "reset": L["reset"]}
	return v
}

func viewFinding(f *finding.Finding, rank int, l finding.Lang) findingView {
	txt := func(t finding.Text) string { return strings.TrimSpace(finding.Safe(t.In(l))) }
	lit := func(s string) string { return strings.TrimSpace(finding.Safe(s)) }
	fv := findingView{
		Rank: rank, Sev: f.Severity.String(), SevLabel: f.Severity.Label(l),
		Key: oneLine(f.Key()), Anchor: "f-" + anchor(f.Key()), Category: oneLine(f.Category),
		Title: oneLine(f.Title.In(l)), Observed: txt(f.Observed), Why: txt(f.Why), Recommended: txt(f.Recommended),
		Apply: lit(f.Fix.Apply), Revert: lit(f.Fix.Revert), Persist: lit(f.Fix.Persist), Note: txt(f.Fix.Note),
		Reboot: f.Fix.Reboot, Risk: txt(f.Risk), Workload: txt(f.Workload), Reason: txt(f.Reason),
	}
	if fv.Sev != "critical" && fv.Sev != "warning" {
		fv.Sev = "info"
	}
	if f.Confidence > 0 {
		fv.Confidence = fmt.Sprintf("%.0f%%", 100*f.Confidence)
	}
	for _, e := range f.Evidence {
		fv.Evidence = append(fv.Evidence, finding.Evidence{Key: oneLine(e.Key), Value: finding.Safe(e.Value), Source: oneLine(e.Source)})
	}
	for _, r := range f.References {
		fv.Refs = append(fv.Refs, oneLine(r))
	}
	return fv
}

// ---- time domain shared by every time chart, so they line up ----

type timeRange struct {
	t0, t1 time.Time
	// b0, b1 shade the verdict's window (seconds since t0; none when b1 <= b0).
	b0, b1 float64
}

// band shades the verdict's window on a time chart, under the series.
func band(b *strings.Builder, tr timeRange, x0, x1, y0, y1 float64) {
	if tr.b1 <= tr.b0 {
		return
	}
	span := tr.span()
	bx0 := x0 + (x1-x0)*clamp(tr.b0/span, 0, 1)
	bx1 := x0 + (x1-x0)*clamp(tr.b1/span, 0, 1)
	fmt.Fprintf(b, `<rect class="band" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, bx0, y0, max(bx1-bx0, 1), y1-y0)
}

func (r timeRange) secs(t time.Time) float64 { return t.Sub(r.t0).Seconds() }
func (r timeRange) span() float64            { return math.Max(r.t1.Sub(r.t0).Seconds(), 1) }

func timeDomain(p *RunPage) timeRange {
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

// ---- sections ----

func loadSection(lv *LoadView, tr timeRange, L map[string]string, l finding.Lang) (*loadHTML, []template.HTML) {
	if lv == nil {
		return nil, nil
	}
	h := &loadHTML{Source: oneLine(lv.Source), Model: oneLine(ModelText(lv.Model).In(l))}
	errPct := 0.0
	if lv.Requests > 0 {
		errPct = 100 * float64(lv.Errors) / float64(lv.Requests)
	}
	errClass := ""
	if lv.Errors > 0 {
		errClass = "bad"
	}
	h.KPIs = []kpi{
		{L["tps"], fmtNum(lv.TPS), "/s", ""},
		{"p50", fmtNum(lv.P50MS), "ms", ""},
		{"p90", fmtNum(lv.P90MS), "ms", ""},
		{"p99", fmtNum(lv.P99MS), "ms", ""},
		{L["max"], fmtNum(lv.MaxMS), "ms", ""},
		{L["mean"], fmtNum(lv.MeanMS), "ms", ""},
		{L["requests"], fmtInt(lv.Requests), "", ""},
		{L["errors"], fmtInt(lv.Errors), fmt.Sprintf("(%.2f%%)", errPct), errClass},
	}
	n := len(lv.Series)
	if n == 0 || tr.t0.IsZero() {
		return h, nil
	}
	xs := make([]float64, n)
	tps := make([]float64, n)
	errs := make([]float64, n)
	p50 := make([]float64, n)
	p99 := make([]float64, n)
	for i, pt := range lv.Series {
		xs[i], tps[i], errs[i], p50[i], p99[i] = tr.secs(pt.T), pt.TPS, float64(pt.Errors), pt.P50MS, pt.P99MS
	}
	c1 := lineChart(tr, 170, L["tpsaxis"], []lineSeries{
		{L["tps"], "#0072B2", xs, tps, false, true},
	}, false, &chartMarks{Name: L["errs"], Color: "#D55E00", Unit: L["errors"], X: xs, N: errs})
	c2 := lineChart(tr, 170, "ms", []lineSeries{
		{"p99", "#D55E00", xs, p99, true, false},
		{"p50", "#0072B2", xs, p50, false, false},
	}, true, nil)
	return h, []template.HTML{c1, c2}
}

func cpuSection(ticks []CPUTick, tr timeRange, L map[string]string) *cpuHTML {
	if len(ticks) == 0 || tr.t0.IsZero() {
		return nil
	}
	ncpu := 0
	for _, t := range ticks {
		ncpu = max(ncpu, len(t.PerCPU))
	}
	if ncpu == 0 {
		return nil
	}
	h := &cpuHTML{N: ncpu}
	for _, c := range cpuParts {
		h.Legend = append(h.Legend, legendItem{c.Name, c.Color})
	}
	xs := make([]float64, len(ticks))
	for i, t := range ticks {
		xs[i] = tr.secs(t.T)
	}
	// per CPU per part series; the mean over CPUs for the top chart
	part := func(cpu int, k int) []float64 {
		out := make([]float64, len(ticks))
		for i, t := range ticks {
			if cpu < 0 {
				var s float64
				for _, c := range t.PerCPU {
					s += cpuParts[k].get(c)
				}
				if len(t.PerCPU) > 0 {
					out[i] = s / float64(len(t.PerCPU))
				}
			} else if cpu < len(t.PerCPU) {
				out[i] = cpuParts[k].get(t.PerCPU[cpu])
			}
		}
		return out
	}
	stack := func(cpu int) [][]float64 {
		ys := make([][]float64, len(cpuParts))
		for k := range cpuParts {
			ys[k] = part(cpu, k)
		}
		return ys
	}
	colors := make([]string, len(cpuParts))
	names := make([]string, len(cpuParts))
	for k, c := range cpuParts {
		colors[k], names[k] = c.Color, c.Name
	}
	h.All = areaChart(tr, 1200, 170, L["cpuall"], "%", xs, stack(-1), colors, names, true)
	if ncpu <= smallMultiples {
		for c := 0; c < ncpu; c++ {
			w := 590.0
			if ncpu > 2 {
				w = 290
			}
			h.Multi = append(h.Multi, areaChart(tr, w, 120, fmt.Sprintf("CPU %d", c), "%", xs, stack(c), colors, names, false))
		}
		return h
	}
	busy := make([][]float64, ncpu)
	kern := make([][]float64, ncpu)
	for c := range busy {
		busy[c] = make([]float64, len(ticks))
		kern[c] = make([]float64, len(ticks))
	}
	for i, t := range ticks {
		for c, s := range t.PerCPU {
			busy[c][i] = s.Us + s.Sy + s.Hi + s.Si + s.Wa + s.St
			kern[c][i] = s.Sy + s.Hi + s.Si
		}
	}
	kpeak := 0.0
	for _, row := range kern {
		kpeak = max(kpeak, slices.Max(row))
	}
	_, ktop := niceTicks(max(kpeak, 5), 4)
	ktop = min(ktop, 100)
	h.Heats = append(h.Heats, newHeat(busy, xs, tr, 100, false, L["cpuheat"], "0%", "100%"),
		newHeat(kern, xs, tr, ktop, false, L["cpukern"], "0%", fmtNum(ktop)+"%"))
	return h
}

func softirqSection(ticks []SoftirqTick, tr timeRange, L map[string]string) *softHTML {
	if len(ticks) == 0 {
		return nil
	}
	ncpu := 0
	for _, t := range ticks {
		ncpu = max(ncpu, len(t.All), len(t.NetRx))
	}
	if ncpu == 0 {
		return nil
	}
	all := make([]float64, ncpu)
	rx := make([]float64, ncpu)
	for _, t := range ticks {
		for c, v := range t.All {
			all[c] += finite(v)
		}
		for c, v := range t.NetRx {
			rx[c] += finite(v)
		}
	}
	other := make([]float64, ncpu)
	for c := range all {
		all[c] /= float64(len(ticks))
		rx[c] /= float64(len(ticks))
		other[c] = math.Max(all[c]-rx[c], 0)
	}
	h := &softHTML{Legend: []legendItem{{"NET_RX", "#D55E00"}, {L["othersirq"], "#B8C4D0"}}}
	h.Bars = barChart(1200, 180, L["softmean"], [][]float64{rx, other}, []string{"#D55E00", "#B8C4D0"}, []string{"NET_RX", L["othersirq"]})
	if len(ticks) > 1 && !tr.t0.IsZero() {
		xs := make([]float64, len(ticks))
		grid := make([][]float64, ncpu)
		for c := range grid {
			grid[c] = make([]float64, len(ticks))
		}
		peak := 0.0
		for i, t := range ticks {
			xs[i] = tr.secs(t.T)
			for c, v := range t.NetRx {
				grid[c][i] = finite(v)
				peak = max(peak, grid[c][i])
			}
		}
		if peak > 0 {
			h.Heat = newHeat(grid, xs, tr, peak, true, L["netrxheat"], "0", fmtNum(peak)+"/s")
		}
	}
	return h
}

func threadsSection(ss []ThreadStateSample, tr timeRange, L map[string]string) *threadsHTML {
	if len(ss) == 0 {
		return nil
	}
	// fixed states first, then any other state seen, sorted
	seen := map[string]bool{}
	for _, s := range ss {
		for k, n := range s.Counts {
			if n > 0 {
				seen[k] = true
			}
		}
	}
	var names, colors []string
	for _, sc := range stateColors {
		if seen[sc.Name] {
			names, colors = append(names, sc.Name), append(colors, sc.Color)
			delete(seen, sc.Name)
		}
	}
	var rest []string
	for k := range seen {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	greys := []string{"#999999", "#777777", "#BBBBBB", "#555555"}
	for i, k := range rest {
		names, colors = append(names, k), append(colors, greys[i%len(greys)])
	}
	h := &threadsHTML{}
	for i := range names {
		h.Legend = append(h.Legend, legendItem{oneLine(names[i]), colors[i]})
	}
	h.Chart = stackedBars(tr, ss, names, colors, L["threadsaxis"])
	return h
}

func gcSection(g *GCView, L map[string]string, l finding.Lang) *gcHTML {
	if g == nil {
		return nil
	}
	h := &gcHTML{Verdict: strings.TrimSpace(finding.Safe(g.Verdict.In(l)))}
	tpClass := ""
	if g.ThroughputPct > 0 && g.ThroughputPct < 95 {
		tpClass = "bad"
	}
	fullClass := ""
	if g.FullGCs > 0 {
		fullClass = "bad"
	}
	h.KPIs = []kpi{
		{L["collector"], oneLine(g.Collector), "", "text"},
		{L["throughput"], fmtPct(g.ThroughputPct), "%", tpClass},
		{L["pauses"], fmtInt(int64(g.Pauses)), "", ""},
		{"p50", fmtNum(g.PauseP50MS), "ms", ""},
		{"p99", fmtNum(g.PauseP99MS), "ms", ""},
		{L["max"], fmtNum(g.PauseMaxMS), "ms", ""},
		{L["fullgcs"], fmtInt(int64(g.FullGCs)), "", fullClass},
	}
	if len(g.Timeline) > 0 {
		h.Chart, h.Legend = gcScatter(g.Timeline, L)
	}
	return h
}

// ---- flame graph ----

type flameItem struct {
	n     *FlameNode
	depth int
}

type flameHeap []flameItem

func (h flameHeap) Len() int           { return len(h) }
func (h flameHeap) Less(i, j int) bool { return h[i].n.Value > h[j].n.Value }
func (h flameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *flameHeap) Push(x any)        { *h = append(*h, x.(flameItem)) }
func (h *flameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func flameSection(root *FlameNode, source string, L map[string]string) *flameHTML {
	if root == nil || root.Value <= 0 {
		return nil
	}
	total := 0
	var count func(n *FlameNode)
	count = func(n *FlameNode) {
		total++
		for _, c := range n.Children {
			if c != nil {
				count(c)
			}
		}
	}
	count(root)
	// Keep the biggest nodes: a child is never bigger than its parent, so
	// taking from a max-heap seeded with the root keeps the set connected.
	keep := map[*FlameNode]bool{}
	h := &flameHeap{{root, 0}}
	for h.Len() > 0 && len(keep) < maxFlameNodes {
		it := heap.Pop(h).(flameItem)
		if it.n.Value <= 0 {
			continue
		}
		keep[it.n] = true
		for _, c := range it.n.Children {
			if c != nil {
				heap.Push(h, flameItem{c, it.depth + 1})
			}
		}
	}
	f := &flameHTML{Source: source, Total: root.Value, Nodes: total}
	const rowH = 17
	maxDepth := 0
	rv := float64(root.Value)
	var walk func(n *FlameNode, x float64, depth int)
	walk = func(n *FlameNode, x float64, depth int) {
		maxDepth = max(maxDepth, depth)
		w := float64(n.Value) / rv
		name := oneLine(n.Name)
		if depth == 0 && name == "" {
			name = "all"
		}
		pct := 100 * w
		f.Frames = append(f.Frames, flameFrame{
			Left: fmt.Sprintf("%.4f", 100*x), Width: fmt.Sprintf("%.4f", 100*w), Bottom: fmt.Sprint(depth * rowH),
			Name:  name,
			Title: fmt.Sprintf("%s\n%s %s (%.2f%%)", name, fmtInt(int64(n.Value)), L["samples"], pct),
			Color: flameColor(name, depth == 0), Label: pct >= 2.5,
		})
		kids := make([]*FlameNode, 0, len(n.Children))
		for _, c := range n.Children {
			if c != nil && keep[c] {
				kids = append(kids, c)
			}
		}
		// alphabetical, like the classic flame graph, so the order is stable
		slices.SortStableFunc(kids, func(a, b *FlameNode) int { return cmp.Compare(a.Name, b.Name) })
		cx := x
		for _, c := range kids {
			walk(c, cx, depth+1)
			cx += float64(c.Value) / rv
		}
	}
	walk(root, 0, 0)
	f.Shown = len(f.Frames)
	f.Height = (maxDepth + 1) * rowH
	return f
}

// flameColor is a warm colour derived from the frame name (stable across
// renders), JVM/JDK frames slightly cooler so application code stands out.
func flameColor(name string, root bool) string {
	if root {
		return "#c8c8c8"
	}
	var hsh uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		hsh = (hsh ^ uint32(name[i])) * 16777619
	}
	f := float64(hsh%1000) / 1000
	if strings.HasPrefix(name, "java.") || strings.HasPrefix(name, "jdk.") || strings.HasPrefix(name, "sun.") {
		return fmt.Sprintf("#%02x%02x%02x", 200+int(40*f), 170+int(50*f), 90+int(40*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", 225+int(30*f), 110+int(100*f), 50+int(40*f))
}

// ---- SVG charts ----

const (
	padL, padR, padT, padB = 58.0, 16.0, 22.0, 28.0
)

type lineSeries struct {
	Name   string
	Color  string
	X, Y   []float64
	UseMax bool // downsample by max (p99) instead of mean
	Fill   bool
}

// esc makes s safe as SVG/HTML text or attribute value.
func esc(s string) string { return template.HTMLEscapeString(oneLine(s)) }

func svgOpen(b *strings.Builder, w, h float64, label string) {
	fmt.Fprintf(b, `<svg class="chart" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s" preserveAspectRatio="xMinYMin meet">`, w, h, w, h, esc(label))
}

// xAxis draws time ticks along the bottom of the plot area [x0,x1] (pixels) at y1.
func xAxis(b *strings.Builder, tr timeRange, x0, x1, y1 float64) { xAxisFrom(b, tr, 0, x0, x1, y1) }

// xAxisFrom labels the axis with seconds offset by off (round ticks of the offset time).
func xAxisFrom(b *strings.Builder, tr timeRange, off, x0, x1, y1 float64) {
	span := tr.span()
	step := niceStep(span/math.Max(2, math.Floor((x1-x0)/90)), true)
	for v := math.Ceil(off/step-1e-9) * step; v-off <= span+1e-9; v += step {
		if v == 0 {
			v = 0 // not -0
		}
		x := x0 + (x1-x0)*(v-off)/span
		fmt.Fprintf(b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, y1, x, y1+4)
		fmt.Fprintf(b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, y1+15, fmtDur(v))
	}
}

// yAxis draws horizontal grid lines and labels for [0,ymax] (values), returns nothing.
func yAxis(b *strings.Builder, ticks []float64, ymax, x0, x1, y0, y1 float64, unit string) {
	for _, t := range ticks {
		y := y1 - (y1-y0)*t/ymax
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y, x1, y)
		fmt.Fprintf(b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x0-5, y+3.5, fmtNum(t))
	}
	fmt.Fprintf(b, `<text class="unit" x="%.1f" y="%.1f">%s</text>`, 4.0, y0-9, esc(unit))
	fmt.Fprintf(b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y1, x1, y1)
}

// chartMarks are events drawn as dots along the top of a chart (errors).
type chartMarks struct {
	Name, Color, Unit string
	X, N              []float64
}

// lineChart draws series over the shared time axis. With logOK and a range
// of more than 50×, the y axis is logarithmic (latency: p50 and p99 both
// stay readable).
func lineChart(tr timeRange, h float64, unit string, ss []lineSeries, logOK bool, marks *chartMarks) template.HTML {
	const w = 1200.0
	var b strings.Builder
	svgOpen(&b, w, h, unit)
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax, ymin := 0.0, math.Inf(1)
	for _, s := range ss {
		for _, y := range s.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				ymax = max(ymax, y)
				if y > 0 {
					ymin = min(ymin, y)
				}
			}
		}
	}
	var Y func(v float64) float64
	if logOK && ymax > 0 && ymax/ymin > 50 {
		lo := math.Pow(10, math.Floor(math.Log10(ymin)))
		hi := math.Pow(10, math.Ceil(math.Log10(ymax)))
		ll, lh := math.Log10(lo), math.Log10(hi)
		Y = func(v float64) float64 {
			if !(v > 0) {
				return y1
			}
			return y1 - (y1-y0)*clamp((math.Log10(v)-ll)/(lh-ll), 0, 1)
		}
		var ticks []float64
		for d := lo; d <= hi*1.0001; d *= 10 {
			ticks = append(ticks, d)
			if lh-ll <= 2 && d < hi {
				ticks = append(ticks, 2*d, 5*d)
			}
		}
		for _, t := range ticks {
			y := Y(t)
			fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y, x1, y)
			fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x0-5, y+3.5, fmtNum(t))
		}
		fmt.Fprintf(&b, `<text class="unit" x="4" y="%.1f">%s</text>`, y0-9, esc(unit+" (log)"))
		fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y1, x1, y1)
	} else {
		var ticks []float64
		ticks, ymax = niceTicks(ymax, 4)
		yAxis(&b, ticks, ymax, x0, x1, y0, y1, unit)
		Y = func(v float64) float64 { return y1 - (y1-y0)*clamp(v/ymax, 0, 1) }
	}
	xAxis(&b, tr, x0, x1, y1)
	band(&b, tr, x0, x1, y0, y1)
	span := tr.span()
	X := func(s float64) float64 { return x0 + (x1-x0)*clamp(s/span, 0, 1) }
	for _, s := range ss {
		xs, ys := downsample(s.X, s.Y, maxSeriesPoints, s.UseMax)
		if len(xs) == 0 {
			continue
		}
		var pts strings.Builder
		for i := range xs {
			fmt.Fprintf(&pts, "%.1f,%.1f ", X(xs[i]), Y(ys[i]))
		}
		if s.Fill {
			fmt.Fprintf(&b, `<polygon fill="%s" fill-opacity="0.12" points="%.1f,%.1f %s%.1f,%.1f"/>`, s.Color, X(xs[0]), y1, pts.String(), X(xs[len(xs)-1]), y1)
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" stroke-linejoin="round" points="%s"/>`, s.Color, strings.TrimSpace(pts.String()))
	}
	type legend struct{ name, color string }
	var lg []legend
	for _, s := range ss {
		lg = append(lg, legend{s.Name, s.Color})
	}
	if marks != nil {
		xs, ns := downsample(marks.X, marks.N, maxSeriesPoints, true)
		any := false
		for i := range xs {
			if n := ns[i]; n > 0 && !math.IsInf(n, 0) {
				any = true
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>%s %s %s</title></circle>`,
					X(xs[i]), y0+2, clamp(1.5+math.Log10(n+1)*1.5, 2, 5), marks.Color, fmtDur(xs[i]), fmtNum(n), esc(marks.Unit))
			}
		}
		if any {
			lg = append(lg, legend{marks.Name, marks.Color})
		}
	}
	// legend, top right
	lx := x1
	for i := len(lg) - 1; i >= 0; i-- {
		lx -= 14 + textWidth(lg[i].name) + 12
		if marks != nil && lg[i].name == marks.Name {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="6" r="3.5" fill="%s"/>`, lx+5, lg[i].color)
		} else {
			fmt.Fprintf(&b, `<rect x="%.1f" y="4" width="12" height="3" fill="%s"/>`, lx, lg[i].color)
		}
		fmt.Fprintf(&b, `<text class="lg" x="%.1f" y="10">%s</text>`, lx+16, esc(lg[i].name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// areaChart draws stacked areas of ys (each a series over xs) on a 0..100 scale.
func areaChart(tr timeRange, w, h float64, title, unit string, xs []float64, ys [][]float64, colors, names []string, big bool) template.HTML {
	var b strings.Builder
	svgOpen(&b, w, h, title)
	l := padL
	if !big {
		l = 34
	}
	x0, x1, y0, y1 := l, w-8, padT, h-padB
	ticks := []float64{0, 25, 50, 75, 100}
	if !big {
		ticks = []float64{0, 50, 100}
	}
	yAxis(&b, ticks, 100, x0, x1, y0, y1, "")
	xAxis(&b, tr, x0, x1, y1)
	band(&b, tr, x0, x1, y0, y1)
	fmt.Fprintf(&b, `<text class="ctitle" x="%.1f" y="%.1f">%s</text>`, x0, y0-8, esc(title))
	if big {
		fmt.Fprintf(&b, `<text class="unit" x="4" y="%.1f">%%</text>`, y0-9)
	}
	span := tr.span()
	X := func(s float64) float64 { return x0 + (x1-x0)*clamp(s/span, 0, 1) }
	Y := func(v float64) float64 { return y1 - (y1-y0)*clamp(v/100, 0, 1) }
	// downsample each part by mean on the same buckets
	var dx []float64
	parts := make([][]float64, len(ys))
	for k := range ys {
		dx, parts[k] = downsample(xs, ys[k], maxSeriesPoints, false)
	}
	cum := make([]float64, len(dx))
	for k := range parts {
		if len(dx) == 0 {
			break
		}
		top := make([]float64, len(dx))
		nonzero := false
		for i := range dx {
			top[i] = cum[i] + parts[k][i]
			if parts[k][i] > 0.05 {
				nonzero = true
			}
		}
		if nonzero {
			var pts strings.Builder
			for i := range dx {
				fmt.Fprintf(&pts, "%.1f,%.1f ", X(dx[i]), Y(top[i]))
			}
			for i := len(dx) - 1; i >= 0; i-- {
				fmt.Fprintf(&pts, "%.1f,%.1f ", X(dx[i]), Y(cum[i]))
			}
			fmt.Fprintf(&b, `<polygon fill="%s" points="%s"><title>%s</title></polygon>`, colors[k], strings.TrimSpace(pts.String()), esc(names[k]))
		}
		cum = top
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barChart draws one stacked bar per CPU.
func barChart(w, h float64, title string, parts [][]float64, colors, names []string) template.HTML {
	var b strings.Builder
	svgOpen(&b, w, h, title)
	n := len(parts[0])
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for k := range parts {
			s += parts[k][i]
		}
		ymax = max(ymax, s)
	}
	ticks, ymax := niceTicks(ymax, 4)
	yAxis(&b, ticks, ymax, x0, x1, y0, y1, "/s")
	fmt.Fprintf(&b, `<text class="ctitle" x="%.1f" y="%.1f">%s</text>`, x0+30, y0-9, esc(title))
	slot := (x1 - x0) / float64(n)
	bw := clamp(slot*0.75, 1, 48)
	labelEvery := int(math.Ceil(float64(n) / 32))
	for i := 0; i < n; i++ {
		x := x0 + slot*float64(i) + (slot-bw)/2
		cum := 0.0
		tip := fmt.Sprintf("CPU %d", i)
		for k := range parts {
			tip += fmt.Sprintf(" · %s %s/s", names[k], fmtNum(parts[k][i]))
		}
		fmt.Fprintf(&b, `<g><title>%s</title>`, esc(tip))
		for k := range parts {
			v := parts[k][i]
			if !(v > 0) || math.IsInf(v, 0) {
				continue
			}
			ya := y1 - (y1-y0)*(cum+v)/ymax
			yb := y1 - (y1-y0)*cum/ymax
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, ya, bw, math.Max(yb-ya, 0.5), colors[k])
			cum += v
		}
		b.WriteString(`</g>`)
		if i%labelEvery == 0 {
			fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x+bw/2, y1+13, i)
		}
	}
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">CPU</text>`, x0-5, y1+13)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func stackedBars(tr timeRange, ss []ThreadStateSample, names, colors []string, unit string) template.HTML {
	const w, h = 1200.0, 200.0
	var b strings.Builder
	svgOpen(&b, w, h, unit)
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ymax := 0.0
	for _, s := range ss {
		t := 0
		for _, n := range s.Counts {
			t += max(n, 0)
		}
		ymax = max(ymax, float64(t))
	}
	ticks, ymax := niceTicks(ymax, 4)
	yAxis(&b, ticks, ymax, x0, x1, y0, y1, unit)
	timed := !tr.t0.IsZero()
	for _, s := range ss {
		if s.T.IsZero() {
			timed = false
		}
	}
	n := len(ss)
	var bw float64
	var X func(i int) float64
	if timed {
		xAxis(&b, tr, x0, x1, y1)
		span := tr.span()
		gap := x1 - x0
		for i := 1; i < n; i++ {
			gap = math.Min(gap, (x1-x0)*tr.secs(ss[i].T)/span-(x1-x0)*tr.secs(ss[i-1].T)/span)
		}
		bw = clamp(gap*0.7, 2, 40)
		X = func(i int) float64 { return clamp(x0+(x1-x0)*tr.secs(ss[i].T)/span-bw/2, x0, x1-bw) }
	} else {
		slot := (x1 - x0) / float64(n)
		bw = clamp(slot*0.7, 1, 40)
		X = func(i int) float64 { return x0 + slot*float64(i) + (slot-bw)/2 }
		every := int(math.Ceil(float64(n) / 30))
		for i := 0; i < n; i += every {
			fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="middle">#%d</text>`, X(i)+bw/2, y1+15, i+1)
		}
	}
	for i, s := range ss {
		x := X(i)
		tip := fmt.Sprintf("#%d", i+1)
		if timed {
			tip += " +" + fmtDur(tr.secs(s.T))
		}
		for _, name := range names {
			if c := s.Counts[name]; c > 0 {
				tip += fmt.Sprintf(" · %s %d", name, c)
			}
		}
		fmt.Fprintf(&b, `<g><title>%s</title>`, esc(tip))
		cum := 0.0
		for k, name := range names {
			v := float64(max(s.Counts[name], 0))
			if v == 0 {
				continue
			}
			ya := y1 - (y1-y0)*(cum+v)/ymax
			yb := y1 - (y1-y0)*cum/ymax
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, ya, bw, math.Max(yb-ya, 0.5), colors[k])
			cum += v
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func gcScatter(tl []GCPause, L map[string]string) (template.HTML, []legendItem) {
	const w, h = 1200.0, 220.0
	pts := tl
	if len(pts) > maxGCPoints {
		// keep the longest pauses and an even sample of the rest
		idx := make([]int, len(tl))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(tl[b].MS, tl[a].MS) })
		keep := map[int]bool{}
		for _, i := range idx[:maxGCPoints/4] {
			keep[i] = true
		}
		step := float64(len(tl)) / float64(maxGCPoints-len(keep))
		for f := 0.0; f < float64(len(tl)); f += step {
			keep[int(f)] = true
		}
		pts = nil
		for i := range tl {
			if keep[i] {
				pts = append(pts, tl[i])
			}
		}
	}
	kinds := map[string]string{}
	var legend []legendItem
	kindColor := func(k string) string {
		k = oneLine(k)
		if c, ok := kinds[k]; ok {
			return c
		}
		c := palette[len(kinds)%len(palette)]
		switch strings.ToLower(k) {
		case "full":
			c = "#D55E00"
		}
		kinds[k] = c
		legend = append(legend, legendItem{k, c})
		return c
	}
	xmin, xmax, ymax := math.Inf(1), 0.0, 0.0
	for _, p := range pts {
		xmin, xmax, ymax = min(xmin, p.UptimeS), max(xmax, p.UptimeS), max(ymax, p.MS)
	}
	// start the axis at a round time before the first pause, not at JVM start
	xmin = math.Floor(math.Max(xmin, 0)/niceStep((xmax-xmin)/10, true)) * niceStep((xmax-xmin)/10, true)
	var b strings.Builder
	svgOpen(&b, w, h, L["pausems"])
	x0, x1, y0, y1 := padL, w-padR, padT, h-padB
	ticks, ymax := niceTicks(ymax, 4)
	yAxis(&b, ticks, ymax, x0, x1, y0, y1, "ms")
	xr := timeRange{t0: time.Unix(0, 0), t1: time.Unix(0, 0).Add(time.Duration(math.Max(xmax-xmin, 1) * float64(time.Second)))}
	xAxisFrom(&b, xr, xmin, x0, x1, y1)
	fmt.Fprintf(&b, `<text class="ax" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x1, y0-9, esc(L["uptime"]))
	span := xr.span()
	X := func(p GCPause) float64 { return x0 + (x1-x0)*clamp((p.UptimeS-xmin)/span, 0, 1) }
	Y := func(p GCPause) float64 { return y1 - (y1-y0)*clamp(p.MS/ymax, 0, 1) }
	// Every pause is a dot of one path per kind (compact: a few bytes a
	// pause); the longest pauses get their own circle with a tooltip.
	paths := map[string]*strings.Builder{}
	var order []string
	for _, p := range pts {
		c := kindColor(p.Kind)
		pb := paths[c]
		if pb == nil {
			pb = &strings.Builder{}
			paths[c] = pb
			order = append(order, c)
		}
		fmt.Fprintf(pb, "M%.1f %.1fh0", X(p), Y(p))
	}
	for _, c := range order {
		fmt.Fprintf(&b, `<path d="%s" stroke="%s" stroke-width="6" stroke-linecap="round" stroke-opacity="0.75" fill="none"/>`, paths[c].String(), c)
	}
	top := slices.Clone(pts)
	slices.SortFunc(top, func(a, b GCPause) int { return cmp.Compare(b.MS, a.MS) })
	for _, p := range top[:min(len(top), 40)] {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0"><title>%s %s ms @ %s</title></circle>`,
			X(p), Y(p), kindColor(p.Kind), esc(p.Kind), fmtNum(p.MS), fmtDur(p.UptimeS))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()), legend
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

var viridisStops = [][3]float64{
	{68, 1, 84}, {72, 40, 120}, {62, 74, 137}, {49, 104, 142}, {38, 130, 142},
	{31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {181, 222, 43}, {253, 231, 37},
}

func viridis(f float64) color.RGBA {
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

func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return lo
	}
	return math.Min(math.Max(v, lo), hi)
}
