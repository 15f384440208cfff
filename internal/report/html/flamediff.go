package html

// The differential flame graph page (`compare BEFORE AFTER --flame-diff
// F`): the shared head, header and footer pieces around one flame graph of
// the merged before/after tree and the tables of the frames that grew and
// shrank most. A frame is as wide as its value before and after together
// (so a frame that vanished is still seen), red where it grew and blue
// where it shrank, the deeper the colour the bigger the change against the
// biggest change on the page (Brendan Gregg's differential flame graphs).

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// flameDiffHTML is the page body; the pieces come from assets/pieces.html.
const flameDiffHTML = `{{template "head" .}}<body>
{{template "top" .}}
<main>
{{with .Flame}}<section id="sec-flame">
 <h2>{{$.L.dflame}}</h2>
 <div class="legend"><span><i style="background:#e65a5a"></i>{{$.L.dgrew}}</span><span><i style="background:#5a8ce6"></i>{{$.L.dshrank}}</span><span><i style="background:#e8e8e8"></i>{{$.L.dsame}}</span><span class="hint">{{$.L.dwidth}}</span></div>
 <div class="sub">{{.Shown}}/{{.Nodes}} {{$.L.flamecut}} · <span class="hint">{{$.L.dhelp}}</span> <button type="button" id="flame-reset" class="flame-reset" hidden>{{$.L.reset}}</button></div>
 <div class="flame" id="flame" style="height:{{.Height}}px">
 {{range .Frames}}<div class="fr" style="left:{{.Left}}%;width:{{.Width}}%;bottom:{{.Bottom}}px;background:{{.Color}};color:{{.Ink}}" title="{{.Title}}">{{if .Label}}{{.Name}}{{end}}</div>
 {{end}}</div>
 <div class="flame-info" id="flame-info">&nbsp;</div>
</section>{{end}}
{{range .Tables}}<section id="{{.ID}}">
 <h2>{{.Heading}}</h2>
 {{if .Rows}}<table class="grid"><thead><tr><th>{{$.L.pframe}}</th><th class="n">{{$.L.dbefore}}</th><th class="n">{{$.L.dafter}}</th><th class="n">{{$.L.ddelta}}</th><th></th></tr></thead><tbody>
 {{range .Rows}}<tr><td class="frame"><code>{{index . 0}}</code></td><td class="n">{{index . 1}}</td><td class="n">{{index . 2}}</td><td class="n"><b>{{index . 3}}</b></td><td>{{index . 4}}</td></tr>
 {{end}}</tbody></table>{{else}}<p class="sub">{{$.L.dnone}}</p>{{end}}
</section>
{{end}}
</main>
{{template "foot" .}}`

// flameDiffView is what the page template draws.
type flameDiffView struct {
	frame
	Flame  *diffFlameHTML
	Tables []diffTable
}

// diffFlameHTML is the flame graph section with each frame's text colour
// (white on the deepest reds and blues).
type diffFlameHTML struct {
	flameHTML
	Frames []diffFrameHTML
}

type diffFrameHTML struct {
	flameFrame
	Ink string
}

// diffTable is the grew or shrank table: frame, before, after, delta, mark.
type diffTable struct {
	ID, Heading string
	Rows        [][5]string
}

// flameDiffLabels are this page's own words.
func flameDiffLabels() map[string]finding.Text {
	return map[string]finding.Text{
		"dreport":  finding.T("tuneloop differential profile", "tuneloop 差分剖析"),
		"dflame":   finding.T("Differential flame graph", "差分火焰图"),
		"dgrew":    finding.T("grew", "增长"),
		"dshrank":  finding.T("shrank", "减少"),
		"dsame":    finding.T("about the same", "基本不变"),
		"dwidth":   finding.T("width = before and after together; colour = change of the frame's total", "宽度 = 改动前与改动后之和；颜色 = 该帧总值的变化"),
		"dhelp":    finding.T("hover for before/after/change; click a frame to zoom, click the bottom frame to reset", "悬停查看改动前/后/变化；点击帧放大，点击最底部帧复原"),
		"dgrewtop": finding.T("Frames that grew most (self)", "增长最多的帧（自身）"),
		"dshrtop":  finding.T("Frames that shrank most (self)", "减少最多的帧（自身）"),
		"dbefore":  finding.T("before", "改动前"),
		"dafter":   finding.T("after", "改动后"),
		"ddelta":   finding.T("change", "变化"),
		"dnew":     finding.T("new", "新出现"),
		"dgone":    finding.T("gone", "已消失"),
		"dnone":    finding.T("None.", "无。"),
		"dnorm":    finding.T("normalised", "归一化"),
		"dkind":    finding.T("profile", "剖析类型"),
		"dtotal":   finding.T("total", "总量"),
		"pframe":   finding.T("frame", "帧"),
		"dempty":   finding.T("Neither side holds a sample of this kind.", "两侧都没有该类型的采样。"),
	}
}

// WriteFlameDiff writes the differential flame graph page as one
// self-contained HTML document in p.Lang.
func WriteFlameDiff(w io.Writer, p *report.FlameDiffPage) error {
	if p == nil {
		return fmt.Errorf("html: nil flame diff page")
	}
	l := pageLang(p.Lang)
	L := labelsIn(l)
	for k, v := range flameDiffLabels() {
		L[k] = v.In(l)
	}
	L["report"] = L["dreport"]
	v := &flameDiffView{frame: newFrame(l, L)}
	v.Title = finding.SafeOneLine(p.Title)
	v.Tool = toolLine(p.Tool)
	v.HostLine = finding.SafeOneLine(p.Before.Name) + " → " + finding.SafeOneLine(p.After.Name)
	val := func(x float64) string { return report.FlameDiffValue(x, p.Unit, p.Norm) }
	side := func(s report.FlameDiffSide) string {
		t := report.FlameValue(s.Total, p.Unit)
		if p.Unit == "samples" {
			t += " " + L["samples"]
		}
		if s.Requests > 0 {
			t += fmt.Sprintf(" · %s req", fmtInt(s.Requests))
		}
		return t
	}
	v.Meta = [][2]string{{L["dkind"], finding.SafeOneLine(p.Kind)}, {L["dbefore"] + " · " + L["dtotal"], side(p.Before)},
		{L["dafter"] + " · " + L["dtotal"], side(p.After)}, {L["dnorm"], finding.SafeOneLine(p.NormText.In(l))}}
	for _, n := range p.Notes {
		v.Notice = append(v.Notice, finding.SafeOneLine(n.In(l)))
	}
	if f := diffFlameSection(p.Root, val, L); f != nil {
		v.Flame = &diffFlameHTML{flameHTML: *f}
		for _, fr := range f.Frames {
			ink := "#1b1b1b"
			if deepColor(fr.Color) {
				ink = "#ffffff"
			}
			v.Flame.Frames = append(v.Flame.Frames, diffFrameHTML{flameFrame: fr, Ink: ink})
		}
	}
	if v.Flame == nil {
		v.Notice = append(v.Notice, L["dempty"])
	} else {
		v.Nav = append(v.Nav, [2]string{"sec-flame", L["dflame"]})
	}
	rows := func(fs []stacks.FrameDelta) [][5]string {
		var out [][5]string
		for _, f := range fs {
			mark := ""
			switch {
			case f.New:
				mark = L["dnew"]
			case f.Gone:
				mark = L["dgone"]
			}
			out = append(out, [5]string{finding.SafeOneLine(f.Frame), val(f.Before), val(f.After), report.FlameDiffDelta(f.Delta, p.Unit, p.Norm), mark})
		}
		return out
	}
	v.Tables = []diffTable{{ID: "sec-grew", Heading: L["dgrewtop"], Rows: rows(p.Grew)}, {ID: "sec-shrank", Heading: L["dshrtop"], Rows: rows(p.Shrank)}}
	v.Nav = append(v.Nav, [2]string{"sec-grew", L["dgrewtop"]}, [2]string{"sec-shrank", L["dshrtop"]})
	return writePage(w, "flamediff", flameDiffHTML, v)
}

// diffFlameSection lays out the merged tree, cut to the maxFlameNodes
// widest frames; nil when neither side has a sample.
func diffFlameSection(root *stacks.DiffNode, val func(float64) string, L map[string]string) *flameHTML {
	if root == nil || root.Before+root.After <= 0 {
		return nil
	}
	weight := func(n *stacks.DiffNode) float64 { return n.Before + n.After }
	// Every node with its depth; the widest kept. A child is never wider
	// than its parent, so sorting by width (parents first on a tie) keeps
	// the kept set connected.
	type item struct {
		n     *stacks.DiffNode
		depth int
	}
	var all []item
	var walkAll func(n *stacks.DiffNode, d int)
	walkAll = func(n *stacks.DiffNode, d int) {
		all = append(all, item{n, d})
		for _, c := range n.Children {
			if c != nil {
				walkAll(c, d+1)
			}
		}
	}
	walkAll(root, 0)
	sort.SliceStable(all, func(i, j int) bool {
		if wi, wj := weight(all[i].n), weight(all[j].n); wi != wj {
			return wi > wj
		}
		return all[i].depth < all[j].depth
	})
	keep := map[*stacks.DiffNode]bool{}
	maxDelta := 0.0
	for _, it := range all {
		if len(keep) == maxFlameNodes || weight(it.n) <= 0 {
			break
		}
		keep[it.n] = true
		if it.depth > 0 {
			maxDelta = math.Max(maxDelta, math.Abs(it.n.After-it.n.Before))
		}
	}
	f := &flameHTML{Total: int(math.Round(weight(root))), Nodes: len(all)}
	const rowH = 17
	maxDepth := 0
	rw := weight(root)
	var walk func(n *stacks.DiffNode, x float64, depth int)
	walk = func(n *stacks.DiffNode, x float64, depth int) {
		maxDepth = max(maxDepth, depth)
		w := weight(n) / rw
		name := finding.SafeOneLine(n.Name)
		if depth == 0 && name == "" {
			name = "all"
		}
		d := n.After - n.Before
		change := ""
		if n.Before > 0 {
			change = fmt.Sprintf(" (%+.0f%%)", 100*d/n.Before)
		}
		f.Frames = append(f.Frames, flameFrame{
			Left: fmt.Sprintf("%.4f", 100*x), Width: fmt.Sprintf("%.4f", 100*w), Bottom: fmt.Sprint(depth * rowH),
			Name: name,
			Title: fmt.Sprintf("%s\n%s %s · %s %s · %s %s%s", name, L["dbefore"], val(n.Before), L["dafter"], val(n.After),
				L["ddelta"], signed(val(d), d), change),
			Color: diffColor(d, maxDelta, depth == 0), Label: 100*w >= 2.5,
		})
		kids := make([]*stacks.DiffNode, 0, len(n.Children))
		for _, c := range n.Children {
			if c != nil && keep[c] {
				kids = append(kids, c)
			}
		}
		slices.SortStableFunc(kids, func(a, b *stacks.DiffNode) int { return cmp.Compare(a.Name, b.Name) })
		cx := x
		for _, c := range kids {
			walk(c, cx, depth+1)
			cx += weight(c) / rw
		}
	}
	walk(root, 0, 0)
	f.Shown = len(f.Frames)
	f.Height = (maxDepth + 1) * rowH
	return f
}

func signed(s string, v float64) string {
	if v > 0 {
		return "+" + s
	}
	return s
}

// deepColor: a diffColor too dark for dark text (its pale channels low).
func deepColor(c string) bool {
	var r, g, b int
	if _, err := fmt.Sscanf(c, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return false
	}
	return min(r, g, b) < 140
}

// diffColor: red for growth, blue for a fall, the deeper the bigger the
// change against the page's biggest; near white below 2% of it.
func diffColor(d, maxDelta float64, root bool) string {
	if root || maxDelta <= 0 || math.Abs(d) < 0.02*maxDelta {
		return "#e8e8e8"
	}
	r := math.Min(1, math.Abs(d)/maxDelta)
	fade := 232 - int(math.Round(170*r)) // 232 (pale) .. 62 (deep)
	if d > 0 {
		return fmt.Sprintf("#%02x%02x%02x", 240, fade, fade)
	}
	return fmt.Sprintf("#%02x%02x%02x", fade, fade, 240)
}
