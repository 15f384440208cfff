package html

// The run page's JFR views beyond the CPU flame graph: the lock table with
// the time waited per lock class (joined to the dumps' rows), and the
// flame graphs of CPU, allocation, lock (and wall clock) behind a switch
// that needs no script (radio inputs and CSS; the zoom script works on
// every graph).

import (
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// runProfilesHTML holds the run page's "runlocks" and "runflames" pieces,
// parsed with the run page's body.
const runProfilesHTML = `{{define "runlocks"}}<section id="sec-locks">
 <h2>{{.L.locks}}</h2>
 <div class="sub">{{.L.lkjfrnote}}</div>
 <table class="grid locks"><thead><tr><th class="n">{{.L.waiters}}</th><th class="n">{{.L.lkwaited}}</th><th>{{.L.lock}}</th><th>{{.L.class}}</th><th>{{.L.kind}}</th><th>{{.L.owner}}</th><th>{{.L.ownerruns}}</th><th class="n">{{.L.dumps}}</th><th>{{.L.lksource}}</th></tr></thead><tbody>
 {{range .LockJFR}}<tr><td class="n">{{if .Waiters}}<b>{{.Waiters}}</b>{{else}}–{{end}}</td><td class="n nw">{{if .Waited}}<b>{{.Waited}}</b><br><span class="st">{{.Events}}{{if .Share}} · {{.Share}}{{end}}</span>{{if .Thin}}<br><span class="st thin">{{$.L.lkthin}}</span>{{end}}{{else}}–{{end}}</td><td class="nw">{{if .Lock}}<code>{{.Lock}}</code>{{else}}–{{end}}</td><td class="cls">{{range .Class}}{{.}}<wbr>{{end}}</td><td class="nw">{{.Kind}}</td><td class="own">{{if .Owner}}{{.Owner}}{{if .OwnerState}} <span class="st">{{.OwnerState}}</span>{{end}}{{else}}—{{end}}</td><td class="frame">{{range .OwnerFrame}}{{.}}<wbr>{{end}}</td><td class="n">{{if .Dumps}}{{.Dumps}}{{else}}–{{end}}</td><td class="nw lksrc-{{.SourceID}}">{{.Source}}</td></tr>{{with .Sites}}<tr class="wn"><td></td><td colspan="8" class="frame">{{$.L.lksites}}: {{range $i, $s := .}}{{if $i}}; {{end}}{{range $s.Frame}}{{.}}<wbr>{{end}} ({{$s.Waited}}, {{$s.Events}}){{end}}</td></tr>{{end}}
 {{end}}</tbody></table>
 {{if .LockMore}}<div class="sub">+{{.LockMore}} {{.L.more}}</div>{{end}}
</section>{{end}}
{{define "runflames"}}<section id="sec-flame">
 <h2>{{.L.flame}}</h2>
 {{range .Flames}}<input type="radio" class="fkr" name="flame-kind" id="fk-{{.ID}}"{{if .First}} checked{{end}}>{{end}}
 <div class="fktabs" role="group" aria-label="{{.L.fkswitch}}">{{range .Flames}}<label for="fk-{{.ID}}">{{.Label}}</label>{{end}}</div>
 {{range $k := .Flames}}<div class="fkind fk-{{$k.ID}}">
 {{with $k.Flame}}<div class="sub">{{if .Source}}{{.Source}} · {{end}}{{$.L.ptotalv}} {{$k.Total}} · {{.Shown}}/{{.Nodes}} {{$.L.flamecut}} · <span class="hint">{{$k.Help}}</span> <button type="button" class="flame-reset"{{if $k.First}} id="flame-reset"{{end}} hidden>{{$k.Reset}}</button></div>
 <div class="flame" id="{{if $k.First}}flame{{else}}flame-{{$k.ID}}{{end}}" style="height:{{.Height}}px">
 {{range .Frames}}<div class="fr" style="left:{{.Left}}%;width:{{.Width}}%;bottom:{{.Bottom}}px;background:{{.Color}}" title="{{.Title}}">{{if .Label}}{{.Name}}{{end}}</div>
 {{end}}</div>
 <div class="flame-info"{{if $k.First}} id="flame-info"{{end}}>&nbsp;</div>{{end}}
 </div>{{end}}
</section>{{end}}`

// runProfileLabels are the words of these pieces.
func runProfileLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"lkwaited":  finding.T("waited (JFR)", "等待时间（JFR）"),
		"lksource":  finding.T("source", "来源"),
		"lksites":   finding.T("where threads waited (first frame outside the JDK; time, events)", "线程等待处（JDK 之外的第一帧；时间，事件数）"),
		"lkthin":    finding.T("thin: under 20 events", "证据少：不足 20 个事件"),
		"lkjfrnote": finding.T("Waiters: the most threads one thread dump caught queued on the lock. Waited: the time all threads spent blocked on the lock's class over the JFR recording (monitor enter and park events over 10 ms; threads waiting for work left out), its events and its share of the working threads' time.", "等待者：单次线程转储中排队等待该锁的最多线程数。等待时间：JFR 记录期间所有线程阻塞在该锁类上的总时间（超过 10 ms 的 monitor enter 与 park 事件；不含等待任务的空闲线程）、事件数及其占工作线程时间的比例。"),
		"lkdumps":   finding.T("dumps only", "仅线程转储"),
		"lkjfr":     finding.T("JFR only", "仅 JFR"),
		"lkboth":    finding.T("dumps and JFR", "线程转储与 JFR"),
		"lkevents":  finding.T("events", "个事件"),
		"fkswitch":  finding.T("profile shown", "显示的剖析"),
		"fkcpu":     finding.T("CPU", "CPU"),
		"fkalloc":   finding.T("allocation", "内存分配"),
		"fklock":    finding.T("lock", "锁"),
		"fkwall":    finding.T("wall clock", "墙钟时间"),
		"fkhelpcpu": finding.T("width = share of CPU samples; click a frame to zoom, click the bottom frame to reset", "宽度 = CPU 采样占比；点击帧放大，点击最底部帧复原"),
		"fkhelpalloc": finding.T("width = share of the bytes allocated; click a frame to zoom, click the bottom frame to reset",
			"宽度 = 分配字节占比；点击帧放大，点击最底部帧复原"),
		"fkhelplock": finding.T("width = share of the time waited (leaf: the lock's class); click a frame to zoom, click the bottom frame to reset",
			"宽度 = 等待时间占比（叶子帧为锁的类）；点击帧放大，点击最底部帧复原"),
		"fkhelpwall": finding.T("width = share of wall-clock samples; click a frame to zoom, click the bottom frame to reset",
			"宽度 = 墙钟采样占比；点击帧放大，点击最底部帧复原"),
		"ptotalv": finding.T("total", "总量"),
	}
}

// lockJFRView is a lock row with the recording's wait beside the dumps'.
type lockJFRView struct {
	lockView
	Waited, Events, Share string
	Thin                  bool
	Source, SourceID      string
	Sites                 []lockSiteView
}

type lockSiteView struct {
	Frame          []string
	Waited, Events string
}

// runLocksSection is the lock table with the JFR columns, nil when the run
// has no lock profile (the dumps' table is drawn instead).
func runLocksSection(locks []report.LockRow, L map[string]string) ([]lockJFRView, int) {
	if len(locks) == 0 || locks[0].Source == "" {
		return nil, 0
	}
	base, more := lockSection(locks)
	out := make([]lockJFRView, 0, len(base))
	for i, b := range base {
		lk := locks[i]
		v := lockJFRView{lockView: b, SourceID: map[string]string{"dumps": "dumps", "jfr": "jfr", "dumps+jfr": "both"}[lk.Source]}
		v.Source = L["lk"+v.SourceID]
		if w := lk.Wait; w != nil {
			v.Waited = fmtMS(w.WaitedMS)
			v.Events = fmtInt(int64(w.Events)) + " " + L["lkevents"]
			if w.SharePct > 0 {
				v.Share = fmtPct(w.SharePct) + "%"
			}
			v.Thin = w.Thin
			for _, s := range w.Sites {
				v.Sites = append(v.Sites, lockSiteView{Frame: breakable(s.Frame), Waited: fmtMS(s.WaitedMS), Events: fmtInt(int64(s.Events))})
			}
		}
		out = append(out, v)
	}
	return out, more
}

// fmtMS says milliseconds as ms, or s from 10 s up.
func fmtMS(ms float64) string {
	if ms >= 10_000 {
		return fmtNum(ms/1000) + " s"
	}
	return fmtNum(ms) + " ms"
}

// flameKindView is one graph behind the switch.
type flameKindView struct {
	ID, Label   string
	First       bool
	Flame       *flameHTML
	Total, Help string
	Reset       string
}

// runFlames lays out the CPU graph and the recording's other profiles;
// nil when there is no other profile (the single graph is drawn instead).
func runFlames(p *report.RunPage, L map[string]string) []flameKindView {
	if len(p.Flames) == 0 {
		return nil
	}
	var out []flameKindView
	add := func(kind, unit, source string, root *report.FlameNode, total int64) {
		f := flameSectionUnit(root, source, unit, L)
		if f == nil {
			return
		}
		out = append(out, flameKindView{ID: kind, Label: L["fk"+kind], First: len(out) == 0, Flame: f,
			Total: fmtValue(total, unit, L), Help: L["fkhelp"+kind], Reset: L["reset"]})
	}
	if p.Flame != nil {
		add("cpu", "samples", finding.SafeOneLine(p.FlameSource), p.Flame, int64(p.Flame.Value))
	}
	for _, k := range p.Flames {
		if _, ok := L["fk"+k.Kind]; !ok {
			continue // a kind this page does not know
		}
		add(k.Kind, k.Unit, finding.SafeOneLine(k.Source), k.Tree, k.Total)
	}
	if len(out) < 2 {
		return nil
	}
	for i := range out {
		if out[i].ID == "cpu" && out[i].Flame != nil {
			out[i].Total += " " + L["samples"]
		}
	}
	return out
}

// addRunProfileLabels adds these pieces' words to the page's labels.
func addRunProfileLabels(L map[string]string, l finding.Lang) {
	for k, v := range runProfileLabels() {
		if _, ok := L[k]; !ok {
			L[k] = v.In(l)
		}
	}
}

// fmtUnitValue is a flame frame's value in its unit, for its tooltip.
func fmtUnitValue(v int64, unit string, L map[string]string) string {
	if unit == "" || unit == "samples" {
		return fmt.Sprintf("%s %s", fmtInt(v), L["samples"])
	}
	return fmtValue(v, unit, L)
}
