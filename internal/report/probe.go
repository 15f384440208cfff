package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
)

// partTitles name the probe's parts.
func partTitle(part string) finding.Text {
	switch part {
	case probe.PartNet:
		return finding.T("Network", "网络")
	case probe.PartCPU:
		return finding.T("CPU and kernel", "CPU 与内核")
	case probe.PartMem:
		return finding.T("Memory", "内存")
	case probe.PartDisk:
		return finding.T("Disk", "磁盘")
	}
	return finding.T(part, part)
}

// FmtProbeValue prints a figure's value with 3 significant digits.
func FmtProbeValue(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "—"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// ProbeInterval is "[lo, hi]" with the coverage when under 95%.
func ProbeInterval(f *probe.Figure) string {
	if len(f.Rounds) == 0 {
		return "—"
	}
	s := fmt.Sprintf("[%s, %s]", FmtProbeValue(f.Lo), FmtProbeValue(f.Hi))
	if !f.OK {
		s += fmt.Sprintf(" %.0f%%", 100*f.Coverage)
	}
	return s
}

// ProbeBusy is the CPU others used while the figure ran, "—" when unknown.
func ProbeBusy(f *probe.Figure) string {
	if f.OthersBusyPct < 0 {
		return "—"
	}
	s := fmt.Sprintf("%.0f%%", f.OthersBusyPct)
	if f.StealPct > 0.5 {
		s += fmt.Sprintf(" (steal %.0f%%)", f.StealPct)
	}
	return s
}

// ProbeHostLine is the one-line description of a probed host.
func ProbeHostLine(h probe.Host) string {
	parts := []string{h.Name, h.Kernel, h.Arch}
	if h.CPUModel != "" {
		parts = append(parts, h.CPUModel)
	}
	parts = append(parts, fmt.Sprintf("%d CPUs", h.CPUs), fmt.Sprintf("%d NUMA", max(h.Nodes, 1)))
	if h.Clocksource != "" {
		parts = append(parts, "clock "+h.Clocksource)
	}
	if h.THP != "" {
		parts = append(parts, "THP "+h.THP)
	}
	return finding.SafeLine(strings.Join(parts, " · "))
}

// ProbeMeta is the probe's second line: when, how long, rounds, peer, disk.
func ProbeMeta(r *probe.Result, l finding.Lang) string {
	s := fmt.Sprintf("%s · %.1f s · %s %d", r.Start.UTC().Format("2006-01-02 15:04:05Z"), r.End.Sub(r.Start).Seconds(),
		finding.T("rounds per figure", "每项轮数").In(l), r.Rounds)
	if r.Quick {
		s += " · --quick"
	}
	if r.Peer != "" {
		s += " · " + finding.T("peer", "对端").In(l) + " " + probe.PeerText(r.Peer).In(l)
	}
	if t := r.PlacementText(); !t.IsZero() {
		s += " · " + t.In(l)
	}
	if r.Dir != "" {
		s += fmt.Sprintf(" · %s %s (%s)", finding.T("disk", "磁盘").In(l), r.Dir, r.DiskFS)
	}
	if r.Interrupted {
		s += " · " + finding.T("INTERRUPTED", "已中断").In(l)
	}
	return finding.SafeLine(s)
}

func probeNotes(r *probe.Result, l finding.Lang) []string {
	var out []string
	for _, n := range r.Notes {
		out = append(out, finding.SafeLine(n.In(l)))
	}
	for _, s := range r.Skipped {
		out = append(out, finding.SafeLine(fmt.Sprintf("%s %s: %s", finding.T("not measured", "未测量").In(l), s.Part, s.Why.In(l))))
	}
	return out
}

// writeProbeText writes a probe as aligned text.
func writeProbeText(w io.Writer, r *probe.Result, l finding.Lang) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tuneloop probe · %s\n%s\n", ProbeHostLine(r.Host), ProbeMeta(r, l))
	t := finding.NewTable(&b, 2, false)
	for _, part := range r.Parts {
		var rows []*probe.Figure
		for i := range r.Figures {
			if r.Figures[i].Part == part {
				rows = append(rows, &r.Figures[i])
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(t, "\n%s\t%s\t%s\t%s\t%s\t\n", strings.ToUpper(partTitle(part).In(l)), finding.T("median", "中位数").In(l),
			finding.T("95% interval", "95% 区间").In(l), finding.T("unit", "单位").In(l), finding.T("others busy", "他人占用").In(l))
		for _, f := range rows {
			note := f.Note.In(l)
			if f.Err != "" {
				note = strings.TrimSpace(note + " " + finding.T("error: ", "错误：").In(l) + f.Err)
			}
			fmt.Fprintf(t, "  %s\t%s\t%s\t%s\t%s\t%s\n", finding.SafeLine(f.Name.In(l)), FmtProbeValue(f.Median), ProbeInterval(f), f.Unit, ProbeBusy(f), finding.SafeLine(note))
		}
	}
	t.Flush()
	if s := PerCPULine(r, l); s != "" {
		fmt.Fprintf(&b, "\n%s\n", s)
	}
	if m := r.Matrix; m != nil {
		fmt.Fprintf(&b, "\n%s\n", finding.T("Core to core, cache line one way (ns; median of rounds):", "核间缓存行单程延迟（ns；各轮中位数）：").In(l))
		writeMatrixText(&b, m)
	}
	for _, f := range r.Figures {
		if len(f.Dist) > 0 {
			fmt.Fprintf(&b, "\n%s (%s):\n", finding.SafeLine(f.Name.In(l)), finding.T("every operation", "全部操作").In(l))
			writeDistText(&b, f.Dist)
		}
	}
	if n := probeNotes(r, l); len(n) > 0 {
		b.WriteString("\n")
		for _, s := range n {
			fmt.Fprintf(&b, "note: %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMatrixText(b *strings.Builder, m *probe.Matrix) {
	t := finding.NewTable(b, 1, true)
	fmt.Fprint(t, "\t")
	for _, c := range m.CPUs {
		fmt.Fprintf(t, "cpu%d\t", c)
	}
	fmt.Fprintln(t)
	for i, c := range m.CPUs {
		fmt.Fprintf(t, "cpu%d\t", c)
		for j := range m.CPUs {
			if math.IsNaN(m.NS[i][j]) {
				fmt.Fprint(t, "-\t")
			} else {
				fmt.Fprintf(t, "%.0f\t", m.NS[i][j])
			}
		}
		fmt.Fprintln(t)
	}
	t.Flush()
}

func writeDistText(b *strings.Builder, d []probe.Bucket) {
	var top int64
	for _, x := range d {
		top = max(top, x.Count)
	}
	for _, x := range d {
		bar := strings.Repeat("#", int(math.Ceil(40*float64(x.Count)/float64(max(top, 1)))))
		fmt.Fprintf(b, "  <= %8s  %7d  %s\n", fmtUS(x.LeUS), x.Count, bar)
	}
}

func fmtUS(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.0f s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.0f ms", us/1e3)
	}
	return fmt.Sprintf("%.0f µs", us)
}

// writeProbeMarkdown writes a probe as Markdown tables.
func writeProbeMarkdown(w io.Writer, r *probe.Result, l finding.Lang) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# tuneloop probe\n\n%s  \n%s\n", finding.SafeMarkdown(ProbeHostLine(r.Host)), finding.SafeMarkdown(ProbeMeta(r, l)))
	for _, part := range r.Parts {
		first := true
		for i := range r.Figures {
			f := &r.Figures[i]
			if f.Part != part {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n\n| %s | %s | %s | %s | %s | %s |\n|---|--:|--:|---|--:|---|\n", partTitle(part).In(l),
					finding.T("figure", "指标").In(l), finding.T("median", "中位数").In(l), finding.T("95% interval", "95% 区间").In(l),
					finding.T("unit", "单位").In(l), finding.T("others busy", "他人占用").In(l), finding.T("note", "说明").In(l))
				first = false
			}
			note := f.Note.In(l)
			if f.Err != "" {
				note = strings.TrimSpace(note + " error: " + f.Err)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", finding.SafeMarkdown(f.Name.In(l)), FmtProbeValue(f.Median), ProbeInterval(f), f.Unit, ProbeBusy(f), finding.SafeMarkdown(note))
		}
	}
	if s := PerCPULine(r, l); s != "" {
		fmt.Fprintf(&b, "\n%s\n", s)
	}
	if m := r.Matrix; m != nil {
		fmt.Fprintf(&b, "\n## %s\n\n|  |", finding.T("Core to core (ns, one way)", "核间延迟（ns，单程）").In(l))
		for _, c := range m.CPUs {
			fmt.Fprintf(&b, " cpu%d |", c)
		}
		b.WriteString("\n|---|" + strings.Repeat("--:|", len(m.CPUs)) + "\n")
		for i, c := range m.CPUs {
			fmt.Fprintf(&b, "| cpu%d |", c)
			for j := range m.CPUs {
				if math.IsNaN(m.NS[i][j]) {
					b.WriteString(" — |")
				} else {
					fmt.Fprintf(&b, " %.0f |", m.NS[i][j])
				}
			}
			b.WriteString("\n")
		}
	}
	if n := probeNotes(r, l); len(n) > 0 {
		b.WriteString("\n")
		for _, s := range n {
			fmt.Fprintf(&b, "- %s\n", finding.SafeMarkdown(s))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PerCPULine is the integer kernel per CPU on one line ("" without).
func PerCPULine(r *probe.Result, l finding.Lang) string {
	if len(r.PerCPU) == 0 {
		return ""
	}
	parts := make([]string, 0, len(r.PerCPU))
	for _, c := range r.PerCPU {
		parts = append(parts, fmt.Sprintf("cpu%d %s", c.CPU, FmtProbeValue(c.Value)))
	}
	return finding.T("Integer kernel per CPU (Gop/s): ", "各 CPU 的整数运算（Gop/s）：").In(l) + strings.Join(parts, " · ")
}

// ProbeVerdict is a compared figure's verdict in l.
func ProbeVerdict(v string, l finding.Lang) string {
	switch v {
	case probe.Better:
		return finding.T("B better", "B 更好").In(l)
	case probe.Worse:
		return finding.T("B WORSE", "B 更差").In(l)
	case probe.Same:
		return finding.T("no significant difference", "无显著差异").In(l)
	case probe.TooFew:
		return finding.T("too few rounds to tell", "轮数太少，无法判断").In(l)
	}
	return finding.T("not on both sides", "两侧不全").In(l)
}

// FmtProbeChange is "+12.3% [+8.1%, +16.4%]".
func FmtProbeChange(r *probe.CompareRow) string {
	switch {
	case math.IsNaN(r.ChangePct):
		return "—"
	case math.IsNaN(r.LoPct):
		return fmt.Sprintf("%+.1f%%", r.ChangePct)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", r.ChangePct, r.LoPct, r.HiPct)
}

func sideValue(f *probe.Figure) string {
	if f == nil || len(f.Rounds) == 0 {
		return "—"
	}
	return FmtProbeValue(f.Median)
}

// writeProbeCompareText writes a comparison of two probes as text.
func writeProbeCompareText(w io.Writer, c *probe.Comparison, l finding.Lang) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tuneloop compare (probes)\nA: %s\n   %s · %s\nB: %s\n   %s · %s\n\n", finding.SafeLine(c.A.Label), ProbeHostLine(c.A.Host), c.A.Start,
		finding.SafeLine(c.B.Label), ProbeHostLine(c.B.Host), c.B.Start)
	t := finding.NewTable(&b, 2, false)
	fmt.Fprintf(t, "%s\t%s\tA\tB\t%s\t%s\t\n", finding.T("figure", "指标").In(l), finding.T("unit", "单位").In(l),
		finding.T("B vs A [95%]", "B 相对 A [95%]").In(l), finding.T("verdict", "判定").In(l))
	for i := range c.Rows {
		r := &c.Rows[i]
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t\n", finding.SafeLine(r.Name.In(l)), r.Unit, sideValue(r.A), sideValue(r.B), FmtProbeChange(r), ProbeVerdict(r.Verdict, l))
	}
	t.Flush()
	if len(c.Differences) > 0 {
		fmt.Fprintf(&b, "\n%s\n", finding.T("Host settings that differ:", "不同的主机设置：").In(l))
		for _, d := range c.Differences {
			fmt.Fprintf(&b, "  %s\n    A: %s\n    B: %s\n", d.What.In(l), finding.SafeLine(d.A), finding.SafeLine(d.B))
		}
	}
	for _, e := range c.Explain {
		fmt.Fprintf(&b, "\n%s", finding.SafeLine(e.In(l)))
	}
	if len(c.Explain) > 0 {
		b.WriteString("\n")
	}
	if len(c.Checks) > 0 {
		fmt.Fprintf(&b, "\n%s\n", finding.T("check findings on one side only (tuneloop check explains each):", "只在一侧出现的 check 发现（tuneloop check 会逐条解释）：").In(l))
		for _, x := range c.Checks {
			subj := ""
			if x.Subject != "" {
				subj = " [" + finding.SafeLine(x.Subject) + "]"
			}
			fmt.Fprintf(&b, "  %s  %-8s %s%s: %s\n", strings.ToUpper(x.Side), x.Severity, x.ID, subj, finding.SafeLine(x.Title.In(l)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeProbeCompareMarkdown writes a comparison of two probes as Markdown.
func writeProbeCompareMarkdown(w io.Writer, c *probe.Comparison, l finding.Lang) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# tuneloop compare (probes)\n\n- A: %s — %s\n- B: %s — %s\n\n| %s | %s | A | B | %s | %s |\n|---|---|--:|--:|--:|---|\n",
		finding.SafeMarkdown(c.A.Label), finding.SafeMarkdown(ProbeHostLine(c.A.Host)), finding.SafeMarkdown(c.B.Label), finding.SafeMarkdown(ProbeHostLine(c.B.Host)),
		finding.T("figure", "指标").In(l), finding.T("unit", "单位").In(l), finding.T("B vs A [95%]", "B 相对 A [95%]").In(l), finding.T("verdict", "判定").In(l))
	for i := range c.Rows {
		r := &c.Rows[i]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", finding.SafeMarkdown(r.Name.In(l)), r.Unit, sideValue(r.A), sideValue(r.B), FmtProbeChange(r), ProbeVerdict(r.Verdict, l))
	}
	if len(c.Differences) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n| | A | B |\n|---|---|---|\n", finding.T("Host settings that differ", "不同的主机设置").In(l))
		for _, d := range c.Differences {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", d.What.In(l), finding.SafeMarkdown(d.A), finding.SafeMarkdown(d.B))
		}
	}
	for _, e := range c.Explain {
		fmt.Fprintf(&b, "\n- %s", finding.SafeMarkdown(e.In(l)))
	}
	b.WriteString("\n")
	if len(c.Checks) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n| | %s | %s |\n|---|---|---|\n", finding.T("Check findings on one side only", "只在一侧出现的 check 发现").In(l),
			finding.T("finding", "发现").In(l), finding.T("severity", "严重级别").In(l))
		for _, x := range c.Checks {
			fmt.Fprintf(&b, "| %s | `%s` %s | %s |\n", strings.ToUpper(x.Side), x.ID, finding.SafeMarkdown(x.Title.In(l)), x.Severity)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ProbePage is a probe as the HTML page draws it, in one language: every
// string already made safe text.
type ProbePage struct {
	Lang      finding.Lang
	Tool      string
	HostLine  string
	Meta      string
	Parts     []ProbePartView
	Matrix    *probe.Matrix
	Dists     []ProbeDistView
	Notes     []string
	Different []string // host facts worth a glance (mitigations, THP)
	PerCPU    string   // the integer kernel per CPU, one line
}

// ProbePartView is one part's table.
type ProbePartView struct {
	ID, Title string
	Rows      []ProbeRowView
}

// ProbeRowView is one figure.
type ProbeRowView struct {
	ID, Name, Median, Interval, Unit, Busy, Note string
	Failed                                       bool
	// Rounds, Lo, Hi and Med draw the row's strip of rounds.
	Rounds      []float64
	Lo, Hi, Med float64
}

// ProbeDistView is a latency distribution.
type ProbeDistView struct {
	Name    string
	Buckets []probe.Bucket
}

// NewProbePage builds the page of r in l.
func NewProbePage(r *probe.Result, l finding.Lang) *ProbePage {
	p := &ProbePage{Lang: l, Tool: finding.SafeLine(r.Tool), HostLine: ProbeHostLine(r.Host), Meta: ProbeMeta(r, l), Matrix: r.Matrix, Notes: probeNotes(r, l),
		PerCPU: PerCPULine(r, l)}
	for _, part := range r.Parts {
		v := ProbePartView{ID: part, Title: partTitle(part).In(l)}
		for i := range r.Figures {
			f := &r.Figures[i]
			if f.Part != part {
				continue
			}
			note := f.Note.In(l)
			if f.Err != "" {
				note = strings.TrimSpace(note + " " + finding.T("error: ", "错误：").In(l) + f.Err)
			}
			v.Rows = append(v.Rows, ProbeRowView{ID: f.ID, Name: finding.SafeLine(f.Name.In(l)), Median: FmtProbeValue(f.Median), Interval: ProbeInterval(f),
				Unit: f.Unit, Busy: ProbeBusy(f), Note: finding.SafeLine(note), Failed: f.Err != "", Rounds: f.Rounds, Lo: f.Lo, Hi: f.Hi, Med: f.Median})
			if len(f.Dist) > 0 {
				p.Dists = append(p.Dists, ProbeDistView{Name: finding.SafeLine(f.Name.In(l) + finding.T(": every operation", "：全部操作").In(l)), Buckets: f.Dist})
			}
		}
		if len(v.Rows) > 0 {
			p.Parts = append(p.Parts, v)
		}
	}
	h := r.Host
	if len(h.Mitigations) > 0 {
		var on []string
		for k, v := range h.Mitigations {
			if strings.HasPrefix(v, "Mitigation") {
				on = append(on, k)
			}
		}
		slices.Sort(on)
		p.Different = append(p.Different, finding.SafeLine(fmt.Sprintf("%s: %s", finding.T("mitigations on", "已启用的漏洞缓解").In(l), orNone(on))))
	}
	return p
}

func orNone(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ", ")
}
