package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// VerdictText is a stats verdict in language l.
func VerdictText(g *Gain, l finding.Lang) string {
	if g == nil {
		return ""
	}
	var t finding.Text
	switch g.Verdict {
	case "better":
		t = finding.T("better", "更好")
	case "worse":
		t = finding.T("worse", "更差")
	case "no significant change":
		t = finding.T("no significant change", "无显著变化")
	case "inconclusive":
		t = finding.Tf(finding.T("inconclusive: run %s more", "尚无定论：再运行 %s 次"), stats.MoreRuns(g.MoreRuns))
		if g.Why != nil {
			t = finding.Tf(finding.T("%s (%s)", "%s（%s）"), t, *g.Why)
		}
	default:
		return finding.SafeLine(g.Verdict)
	}
	return t.In(l)
}

// FmtInterval is "mean [lo, hi]" with digits that suit the magnitude.
func FmtInterval(iv Interval) string {
	if iv.N == 0 || math.IsNaN(iv.Mean) {
		return "—"
	}
	if iv.N < 2 || iv.Lo == iv.Hi {
		return fmtMag(iv.Mean)
	}
	return fmt.Sprintf("%s [%s, %s]", fmtMag(iv.Mean), fmtMag(iv.Lo), fmtMag(iv.Hi))
}

func fmtMag(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// FmtGain is "+12.3% [+8.1%, +16.4%]".
func FmtGain(g *Gain) string {
	if g == nil {
		return "—"
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", g.Pct, g.LoPct, g.HiPct)
}

// ExperimentStatus is an arm's status word in l.
func ExperimentStatus(s string, l finding.Lang) string {
	m := map[string]finding.Text{
		"baseline":   finding.T("baseline", "基线"),
		"winner":     finding.T("winner", "胜出"),
		"dropped":    finding.T("dropped", "淘汰"),
		"refused":    finding.T("refused", "拒绝"),
		"constraint": finding.T("breaks a constraint", "违反约束"),
		"measured":   finding.T("measured", "已测量"),
	}
	if t, ok := m[s]; ok {
		return t.In(l)
	}
	return finding.SafeLine(s)
}

// ModeText is the search mode in l.
func ModeText(mode string, l finding.Lang) string {
	switch mode {
	case "grid":
		return finding.T("every arm (grid), interleaved", "全部组合（网格），交错进行").In(l)
	case "successive halving":
		return finding.T("successive halving, interleaved", "逐次减半，交错进行").In(l)
	}
	return finding.SafeLine(mode)
}

// experimentHead is the few lines that say what was tried.
func experimentHead(e *Experiment, l finding.Lang) []string {
	obj := finding.Tf(finding.T("maximise %s", "最大化 %s"), e.Metric)
	if e.Higher < 0 {
		obj = finding.Tf(finding.T("minimise %s", "最小化 %s"), e.Metric)
	}
	s := obj.In(l)
	if e.P99BoundMS > 0 {
		s += fmt.Sprintf(", p99 <= %g ms", e.P99BoundMS)
	}
	if e.ErrorBoundPct > 0 {
		s += fmt.Sprintf(", errors <= %g%%", e.ErrorBoundPct)
	}
	return []string{
		finding.T("Service", "服务").In(l) + ": " + finding.SafeLine(e.Service),
		finding.T("Target", "目标").In(l) + ": " + finding.SafeLine(e.Target) + " · " + finding.SafeLine(e.Load.In(l)),
		finding.T("Objective", "目标函数").In(l) + ": " + s,
		fmt.Sprintf("%s: %s · %s %d · seed %d", finding.T("Search", "搜索").In(l), ModeText(e.Mode, l), finding.T("repetitions", "重复次数").In(l), e.Repetitions, e.Seed),
		finding.T("Overlay", "启动覆盖层").In(l) + ": " + e.Overlay.In(l),
	}
}

// ConfirmLine is the headline: the winner's gain over the baseline in its
// fresh interleaved block, or why there is none.
func ConfirmLine(e *Experiment, l finding.Lang) string {
	c := e.Confirm
	if c == nil || c.Objective == nil {
		if e.Winner == "" {
			return finding.T("No arm met the constraints: nothing to re-measure against the baseline.",
				"没有满足约束的组合：无需与基线重新对比。").In(l)
		}
		return finding.T("The winner was not re-measured against the baseline (the experiment stopped first).",
			"胜出组合尚未与基线重新对比（实验已先停止）。").In(l)
	}
	return finding.Tf(finding.T("Gain of %s (%s) over the baseline, re-measured in a fresh interleaved block of %d trials each: %s %s: %s",
		"%s（%s）相对基线的收益（在新的交错区组中各重测 %d 次）：%s %s：%s"),
		c.Arm, finding.SafeLine(c.Label), c.Trials, e.Metric, FmtGain(c.Objective), VerdictText(c.Objective, l)).In(l)
}

// writeExperimentText writes the experiment's table for a terminal.
func writeExperimentText(w io.Writer, e *Experiment, l finding.Lang) error {
	b := bufio.NewWriter(w)
	for _, s := range experimentHead(e, l) {
		fmt.Fprintln(b, s)
	}
	fmt.Fprintln(b)
	tw := finding.NewTable(b, 2, false) // by display width: zh headers and labels
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", "arm", finding.T("settings", "设置").In(l), finding.T("trials", "试验").In(l),
		"TPS [95%]", "p99 ms [95%]", finding.T("errors", "错误").In(l), finding.T("vs baseline", "相对基线").In(l), finding.T("verdict", "判定").In(l), finding.T("status", "状态").In(l))
	for _, a := range e.Arms {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%.2f%%\t%s\t%s\t%s\n", finding.SafeLine(a.ID), finding.SafeLine(a.Label), a.Trials,
			FmtInterval(a.TPS), FmtInterval(a.P99MS), nan0(a.ErrorPct), FmtGain(a.Gain), VerdictText(a.Gain, l), ExperimentStatus(a.Status, l))
	}
	tw.Flush()
	var why []string
	for _, a := range e.Arms {
		if w := a.Why.In(l); w != "" {
			why = append(why, fmt.Sprintf("  %s: %s", finding.SafeLine(a.ID), finding.SafeLine(w)))
		}
	}
	if len(why) > 0 {
		fmt.Fprintln(b)
		fmt.Fprintln(b, strings.Join(why, "\n"))
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, ConfirmLine(e, l))
	if c := e.Confirm; c != nil && c.TPS != nil {
		fmt.Fprintf(b, "  TPS %s -> %s (%s); p99 %s -> %s ms (%s)\n", FmtInterval(c.Base), FmtInterval(c.Win), FmtGain(c.TPS),
			FmtInterval(c.BaseP), FmtInterval(c.WinP), FmtGain(c.P99))
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, finding.T("Changed and undone:", "已更改并已撤销：").In(l))
	for _, c := range e.Changes {
		mark := "undone"
		if !c.Undone {
			mark = "OPEN"
		}
		fmt.Fprintf(b, "  [%s] %s %s: %s\n", mark, finding.SafeLine(c.Arm), finding.SafeLine(c.What), finding.SafeLine(c.Undo.In(l)))
	}
	if len(e.Changes) == 0 {
		fmt.Fprintln(b, "  "+finding.T("nothing", "无").In(l))
	}
	for _, n := range e.Notes {
		fmt.Fprintln(b, finding.Safe(n.In(l)))
	}
	if e.Stopped != nil {
		fmt.Fprintln(b, finding.Safe(e.Stopped.In(l)))
	}
	return b.Flush()
}

func nan0(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// writeExperimentMarkdown writes the experiment as a Markdown page.
func writeExperimentMarkdown(w io.Writer, e *Experiment, l finding.Lang) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# %s\n\n", finding.T("tuneloop experiment", "tuneloop 调优实验").In(l))
	for _, s := range experimentHead(e, l) {
		fmt.Fprintf(b, "- %s\n", finding.SafeMarkdown(s))
	}
	fmt.Fprintf(b, "\n**%s**\n\n", finding.SafeMarkdown(ConfirmLine(e, l)))
	fmt.Fprintf(b, "| arm | %s | %s | TPS [95%%] | p99 ms [95%%] | %s | %s | %s | %s |\n|---|---|--:|--:|--:|--:|--:|---|---|\n",
		finding.T("settings", "设置").In(l), finding.T("trials", "试验").In(l), finding.T("errors", "错误").In(l),
		finding.T("vs baseline", "相对基线").In(l), finding.T("verdict", "判定").In(l), finding.T("status", "状态").In(l))
	for _, a := range e.Arms {
		st := ExperimentStatus(a.Status, l)
		if w := a.Why.In(l); w != "" {
			st += ": " + w
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %.2f%% | %s | %s | %s |\n", finding.SafeMarkdown(a.ID), finding.SafeMarkdown(a.Label), a.Trials,
			FmtInterval(a.TPS), FmtInterval(a.P99MS), nan0(a.ErrorPct), FmtGain(a.Gain), finding.SafeMarkdown(VerdictText(a.Gain, l)), finding.SafeMarkdown(st))
	}
	if c := e.Confirm; c != nil && c.TPS != nil {
		fmt.Fprintf(b, "\n%s: TPS %s → %s (%s); p99 %s → %s ms (%s)\n", finding.T("Re-measured", "重新测量").In(l),
			FmtInterval(c.Base), FmtInterval(c.Win), FmtGain(c.TPS), FmtInterval(c.BaseP), FmtInterval(c.WinP), FmtGain(c.P99))
	}
	fmt.Fprintf(b, "\n## %s\n\n", finding.T("Changed and undone", "已更改并已撤销").In(l))
	for _, c := range e.Changes {
		mark := "undone"
		if !c.Undone {
			mark = "**OPEN**"
		}
		fmt.Fprintf(b, "- %s `%s` %s: %s\n", mark, finding.SafeMarkdown(c.Arm), finding.SafeMarkdown(c.What), finding.SafeMarkdown(c.Undo.In(l)))
	}
	if len(e.Changes) == 0 {
		fmt.Fprintf(b, "- %s\n", finding.T("nothing", "无").In(l))
	}
	fmt.Fprintf(b, "\n## %s\n\n| # | key | arm | TPS | p99 ms | status | folder |\n|--:|---|---|--:|--:|---|---|\n", finding.T("Trials", "试验").In(l))
	for _, t := range e.Trials {
		fmt.Fprintf(b, "| %d | %s | %s | %.1f | %.1f | %s | %s |\n", t.Seq, finding.SafeMarkdown(t.Key), finding.SafeMarkdown(t.Arm), nan0(t.TPS), nan0(t.P99MS),
			finding.SafeMarkdown(t.Status), finding.SafeMarkdown(t.Dir))
	}
	for _, n := range e.Notes {
		fmt.Fprintf(b, "\n> %s\n", finding.SafeMarkdown(n.In(l)))
	}
	if e.Stopped != nil {
		fmt.Fprintf(b, "\n> %s\n", finding.SafeMarkdown(e.Stopped.In(l)))
	}
	return b.Flush()
}

// WriteExperiment writes the experiment document as text, Markdown or
// JSON for experiment.Write, the document's one switch (its page is
// html.WriteExperiment, which report cannot import).
func WriteExperiment(w io.Writer, e *Experiment, f Format, l finding.Lang) error {
	switch f {
	case JSON:
		return WriteJSON(w, e)
	case Markdown:
		return writeExperimentMarkdown(w, e, l)
	}
	return writeExperimentText(w, e, l)
}
