package html

// analyze's pages: standalone GC logs (WriteGC), thread dumps (WriteDumps,
// dumps.go) or both on one page (WriteAnalyze). They share the run page's
// frame, pieces, CSS, charts and formats; only their sections are theirs.

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

//go:embed assets/analyze.html
var analyzeHTML string

// analyzeView is the page of `tuneloop analyze -o html`: a section per
// JVM's GC logs, then the thread dumps.
type analyzeView struct {
	frame
	JVMs []*gcJVMView
	Dump *dumpView
}

// gcJVMView is one JVM's GC section. It carries L, Findings and Unavail
// for the shared "findinglist" piece.
type gcJVMView struct {
	L          map[string]string
	ID, Name   string
	Files      []string
	Short      string
	KPIs       []kpi
	Verdict    string
	TimeNote   string
	Heap, Gens template.HTML
	Pauses     template.HTML
	PauseKinds []legendItem
	Rates      template.HTML
	PointNote  string
	Tables     []aggTable
	Findings   []findingView
	Unavail    []findingView
	Passed     []findingView
}

// WriteGC writes the page of GC logs alone.
func WriteGC(w io.Writer, p *report.GCPage) error {
	if p == nil {
		return fmt.Errorf("html: nil GC page")
	}
	return WriteAnalyze(w, p, nil)
}

// WriteAnalyze writes one self-contained page of what `analyze` read: the
// GC logs (gc, nil for none) and the thread dumps (d, nil for none), in
// the language of the first one given.
func WriteAnalyze(w io.Writer, gc *report.GCPage, d *report.DumpPage) error {
	if gc == nil && d == nil {
		return fmt.Errorf("html: nothing to write (no GC log and no thread dump)")
	}
	var l finding.Lang
	var tool report.Tool
	var title []string
	if gc != nil {
		l, tool = gc.Lang, gc.Tool
		title = append(title, gc.Title)
	}
	if d != nil {
		if gc == nil {
			l, tool = d.Lang, d.Tool
		}
		title = append(title, d.Title)
	}
	l = pageLang(l)
	L := analyzeLabelsIn(l)
	switch {
	case d == nil:
		L["report"] = L["gcreport"]
	case gc == nil:
		L["report"] = L["dumpreport"]
	default:
		L["report"] = L["analyzereport"]
	}
	v := &analyzeView{frame: newFrame(l, L)}
	for _, t := range title {
		if t = finding.SafeOneLine(t); t != "" && v.Title != "" {
			v.Title += "; " + t
		} else if t != "" {
			v.Title = t
		}
	}
	if v.Title == "" {
		v.Title = L["report"]
	}
	v.Tool = toolLine(tool)
	var all []finding.Finding
	if gc != nil {
		for i := range gc.JVMs {
			j := gcJVM(&gc.JVMs[i], i, len(gc.JVMs), L, l)
			v.JVMs = append(v.JVMs, j)
			v.Nav.add(true, j.ID, j.Name)
			all = append(all, gc.JVMs[i].Findings...)
		}
	}
	if d != nil {
		v.Dump = dumpSection(d, L, l)
		v.Notice = append(v.Notice, v.Dump.Notice...)
		v.Nav = append(v.Nav, v.Dump.Nav...)
		all = append(all, d.Findings...)
	}
	c := finding.Count(all)
	v.Counts = fmt.Sprintf(L["counts"], c.Critical, c.Warning, c.Info)
	v.Data = map[string]any{"lang": string(l), "title": v.Title, "samples": L["samples"], "reset": L["reset"]}
	return writePage(w, "analyze", analyzeHTML, v)
}

// gcJVM is the section of JVM i of n.
func gcJVM(j *report.GCJVM, i, n int, L map[string]string, l finding.Lang) *gcJVMView {
	s := &j.Summary
	v := &gcJVMView{L: L, ID: fmt.Sprintf("sec-jvm-%d", i+1), Name: L["gc"]}
	if n > 1 {
		v.Name = fmt.Sprintf("%s · JVM %d", L["gc"], i+1)
	}
	for _, f := range s.Files {
		desc := f.Format + ", " + f.Collector
		if f.JVMVersion != "" {
			desc += ", JDK " + f.JVMVersion
		}
		v.Files = append(v.Files, finding.SafeOneLine(fmt.Sprintf("%s (%s): "+L["filestats"], f.Name, desc, f.Lines, f.Events, f.Unparsed)))
	}
	if j.Short.EN != "" {
		v.Short = finding.SafeOneLine(j.Short.In(l))
	}
	// the run page's GC KPIs, then what a GC log alone adds
	g := gcSection(report.NewGCView(*s, j.Findings), L, l)
	v.KPIs, v.Verdict = g.KPIs, g.Verdict
	unjudged := func(k *kpi) {
		if v.Short != "" {
			k.Value, k.Unit, k.Class = L["tooshort"], "", "text"
		}
	}
	unjudged(&v.KPIs[1])
	rate := func(label string, mbs float64) kpi {
		k := kpi{label, fmtNum(mbs), "MiB/s", ""}
		if mbs < 0 {
			k.Value, k.Unit = "–", ""
			unjudged(&k)
		}
		return k
	}
	dur := kpi{L["duration"], fmtDur(s.DurationS), "", ""}
	if !s.HasTime {
		dur.Value = "–"
	}
	v.KPIs = append(v.KPIs, dur, rate(L["allocrate"], s.AllocRateMBs), rate(L["promorate"], s.PromotionRateMBs))
	if s.HeapMaxKB > 0 {
		v.KPIs = append(v.KPIs, kpi{L["heapmax"], fmtNum(float64(s.HeapMaxKB) / 1024), "MiB", ""})
	}
	if s.Degenerated > 0 {
		v.KPIs = append(v.KPIs, kpi{L["degenerated"], fmtInt(int64(s.Degenerated)), fmtNum(s.DegeneratedMs) + " ms", "bad"})
	}
	v.Tables = []aggTable{{"bycause", aggRows(s.ByCause, 15)}, {"bykind", aggRows(s.ByKind, 20)}}
	var passed []finding.Finding
	for _, f := range j.Findings {
		if f.Status == finding.Pass || f.Status == finding.Skipped {
			passed = append(passed, f)
		}
	}
	v.Findings, v.Unavail = findingViews(j.Findings, l)
	for i := range passed {
		v.Passed = append(v.Passed, viewFinding(&passed[i], 0, l))
	}
	gcCharts(v, j, L)
	return v
}

// aggTable is a table of event groups under the label Head.
type aggTable struct {
	Head string
	Rows [][4]string // name, count, total ms, max ms
}

// aggRows is the first limit groups as table cells.
func aggRows(as []report.GCAgg, limit int) [][4]string {
	var out [][4]string
	for i, a := range as {
		if i == limit {
			break
		}
		out = append(out, [4]string{finding.SafeOneLine(a.Name), fmtInt(int64(a.Count)), fmtNum(a.TotalMs), fmtNum(a.MaxMs)})
	}
	return out
}

// gcCharts draws the heap, generation, pause and rate charts of one JVM
// on one time axis, so they line up.
func gcCharts(v *gcJVMView, j *report.GCJVM, L map[string]string) {
	if len(j.Heap) == 0 && len(j.Pauses) == 0 {
		return
	}
	from, to := math.Inf(1), math.Inf(-1)
	for _, h := range j.Heap {
		from, to = min(from, h.T), max(to, h.T)
	}
	for _, p := range j.Pauses {
		from, to = min(from, p.UptimeS), max(to, p.UptimeS)
	}
	step := niceStep(max(to-from, 1)/10, true)
	from = math.Floor(max(from, 0)/step) * step
	dom := &gcDomain{from: from, to: to, label: L["uptime"]}
	if j.Clock == "wall" {
		dom.label = fmt.Sprintf(L["sincestart"], j.Start.UTC().Format("15:04:05"))
		v.TimeNote = dom.label
	} else {
		v.TimeNote = L["uptime"]
	}
	t0 := time.Unix(0, 0)
	tr := timeRange{t0: t0, t1: t0.Add(time.Duration(max(to-from, 1) * float64(time.Second))), off: from}
	v.PointNote = fmt.Sprintf(L["pointnote"], j.Collections, j.PauseEvents)
	if len(j.Heap) < j.Collections || len(j.Pauses) < j.PauseEvents {
		v.PointNote += fmt.Sprintf(L["pointmerged"], len(j.Heap), len(j.Pauses))
	}
	if j.Untimed > 0 {
		v.PointNote += fmt.Sprintf(L["untimed"], j.Untimed)
	}
	// one series of the known values of a field, in MB
	series := func(name, color string, useMax bool, get func(report.GCHeapPoint) int64) (lineSeries, bool) {
		s := lineSeries{Name: name, Color: color, UseMax: useMax}
		for _, h := range j.Heap {
			if kb := get(h); kb >= 0 {
				s.X, s.Y = append(s.X, h.T-from), append(s.Y, float64(kb)/1024)
			}
		}
		return s, len(s.X) > 0
	}
	pick := func(ss ...func() (lineSeries, bool)) []lineSeries {
		var out []lineSeries
		for _, f := range ss {
			if s, ok := f(); ok {
				out = append(out, s)
			}
		}
		return out
	}
	field := func(name, color string, useMax bool, get func(report.GCHeapPoint) int64) func() (lineSeries, bool) {
		return func() (lineSeries, bool) { return series(name, color, useMax, get) }
	}
	if ss := pick(
		field(L["committed"], "#999999", true, func(h report.GCHeapPoint) int64 { return h.TotalKB }),
		field(L["heapbefore"], "#D55E00", true, func(h report.GCHeapPoint) int64 { return h.BeforeKB }),
		field(L["heapafter"], "#0072B2", false, func(h report.GCHeapPoint) int64 { return h.AfterKB }),
	); len(ss) > 0 {
		v.Heap = lineChart(tr, 220, "MiB", ss, false, nil)
	}
	if j.Generations {
		if ss := pick(
			field(L["youngbefore"], "#E69F00", true, func(h report.GCHeapPoint) int64 { return h.YoungBeforeKB }),
			field(L["youngafter"], "#56B4E9", false, func(h report.GCHeapPoint) int64 { return h.YoungAfterKB }),
			field(L["oldbefore"], "#CC79A7", true, func(h report.GCHeapPoint) int64 { return h.OldBeforeKB }),
			field(L["oldafter"], "#009E73", false, func(h report.GCHeapPoint) int64 { return h.OldAfterKB }),
		); len(ss) > 0 {
			v.Gens = lineChart(tr, 200, "MiB", ss, false, nil)
		}
	}
	if len(j.Pauses) > 0 {
		v.Pauses, v.PauseKinds = gcScatter(j.Pauses, L, dom)
	}
	if len(j.Rates) > 0 {
		alloc := lineSeries{Name: L["allocrate"], Color: "#0072B2", Fill: true}
		promo := lineSeries{Name: L["promorate"], Color: "#D55E00"}
		for _, r := range j.Rates {
			alloc.X, alloc.Y = append(alloc.X, r.T-from), append(alloc.Y, r.AllocMBs)
			if r.PromoMBs >= 0 {
				promo.X, promo.Y = append(promo.X, r.T-from), append(promo.Y, r.PromoMBs)
			}
		}
		ss := []lineSeries{alloc}
		if len(promo.X) > 0 {
			ss = append(ss, promo)
		}
		v.Rates = lineChart(tr, 180, "MiB/s", ss, false, nil)
	}
}

// analyzeLabels are the words of analyze's pages, beside the run page's.
func analyzeLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"gcreport":      finding.T("tuneloop GC log report", "tuneloop GC 日志报告"),
		"dumpreport":    finding.T("tuneloop thread dump report", "tuneloop 线程转储报告"),
		"analyzereport": finding.T("tuneloop analysis report", "tuneloop 分析报告"),
		"filestats":     finding.T("%d lines, %d events, %d unparsed", "%d 行，%d 个事件，%d 行未解析"),
		"tooshort":      finding.T("too short to judge", "记录太短，无法判断"),
		"duration":      finding.T("log covers", "日志时长"),
		"allocrate":     finding.T("allocation rate", "分配速率"),
		"promorate":     finding.T("promotion rate", "晋升速率"),
		"heapmax":       finding.T("max heap", "最大堆"),
		"degenerated":   finding.T("degenerated GCs", "退化 GC"),
		"heapchart":     finding.T("Heap before and after each collection", "每次回收前后的堆占用"),
		"genchart":      finding.T("Young and old generation before and after each collection", "每次回收前后的新生代与老年代"),
		"pausechart":    finding.T("Pauses over time, by kind", "停顿随时间变化（按类型）"),
		"ratechart":     finding.T("Allocation and promotion rate over time", "分配与晋升速率随时间变化"),
		"committed":     finding.T("heap committed", "已提交堆"),
		"heapbefore":    finding.T("before GC", "GC 前"),
		"heapafter":     finding.T("after GC", "GC 后"),
		"youngbefore":   finding.T("young before", "新生代 GC 前"),
		"youngafter":    finding.T("young after", "新生代 GC 后"),
		"oldbefore":     finding.T("old before", "老年代 GC 前"),
		"oldafter":      finding.T("old after", "老年代 GC 后"),
		"pointnote":     finding.T("%d collections, %d pauses", "%d 次回收，%d 次停顿"),
		"pointmerged":   finding.T(" (drawn as %d and %d points: neighbours merged, peaks kept)", "（合并相邻点后绘制 %d 个和 %d 个点，保留峰值）"),
		"untimed":       finding.T("; %d events without a time are not drawn", "；%d 个无时间戳的事件未绘制"),
		"bycause":       finding.T("Pauses by cause", "按原因统计的停顿"),
		"bykind":        finding.T("Events by type", "按类型统计的事件"),
		"name":          finding.T("name", "名称"),
		"count":         finding.T("count", "次数"),
		"totalms":       finding.T("total ms", "合计毫秒"),
		"maxms":         finding.T("max ms", "最长毫秒"),
		"passed":        finding.T("Checked, no problem", "已检查，无问题"),
		"files":         finding.T("files", "文件"),
		"dumptable":     finding.T("Thread dumps", "线程转储"),
		"line":          finding.T("line", "行"),
		"java":          finding.T("Java threads", "Java 线程"),
		"vmthreads":     finding.T("VM threads", "JVM 内部线程"),
		"idle":          finding.T("idle", "空闲"),
		"pools":         finding.T("Threads by pool and state", "按线程池和状态统计的线程"),
		"pool":          finding.T("pool", "线程池"),
		"size":          finding.T("size", "线程数"),
		"busy":          finding.T("busy", "忙碌"),
		"waitcol":       finding.T("waiting", "等待"),
		"deadlocks":     finding.T("Deadlocks", "死锁"),
		"waitsfor":      finding.T("waits for", "等待"),
		"stuck":         finding.T("Threads stuck across dumps", "多次转储中卡住的线程"),
		"thread":        finding.T("thread", "线程"),
		"state":         finding.T("state", "状态"),
		"top":           finding.T("top frame", "栈顶帧"),
		"app":           finding.T("application frame", "应用帧"),
		"unreadable":    finding.T("not read", "未能读取"),
		"duplicate":     finding.T("counted once: the same dump as", "只计一次：与此转储相同"),
		"nodumps":       finding.T("No thread dump could be read.", "没有可读取的线程转储。"),
	}
}

// analyzeLabelsIn is the run page's labels and analyze's, in one language.
func analyzeLabelsIn(l finding.Lang) map[string]string {
	L := labelsIn(l)
	for k, v := range analyzeLabels() {
		L[k] = v.In(l)
	}
	return L
}
