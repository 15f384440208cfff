package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

type labels struct {
	title, before, after, change, metric, verdict, gone, new, persist, none, gate, gatePass, model string
	verdicts                                                                                       map[string]string
}

var labelsEN = labels{
	title: "Before / after", before: "before", after: "after", change: "change", metric: "metric",
	verdict: "Verdict", gone: "Gone (fixed by the change)", new: "New (brought by the change)",
	persist: "Still there", none: "none", gate: "REGRESSION", gatePass: "no regression beyond %.0f%%", model: "load",
	verdicts: map[string]string{"better": "better", "worse": "WORSE", "same": "same"},
}

var labelsZH = labels{
	title: "改动前 / 改动后", before: "改动前", after: "改动后", change: "变化", metric: "指标",
	verdict: "结论", gone: "已消失（被本次改动解决）", new: "新出现（由本次改动引入）",
	persist: "仍然存在", none: "无", gate: "性能回退", gatePass: "没有超过 %.0f%% 的回退", model: "负载",
	verdicts: map[string]string{"better": "变好", "worse": "变差", "same": "持平"},
}

func labelsFor(l finding.Lang) labels {
	if l == finding.ZH {
		return labelsZH
	}
	return labelsEN
}

type namedSide struct {
	name string
	side Side
}

type namedGroup struct {
	name string
	fs   []FindingRef
}

func (c *Comparison) sides(L labels) []namedSide {
	return []namedSide{{L.before, c.Before}, {L.after, c.After}}
}

func (c *Comparison) groups(L labels) []namedGroup {
	return []namedGroup{{L.gone, c.Gone}, {L.new, c.New}, {L.persist, c.Persist}}
}

// verdictIn is a side's verdict title in lang, or "none".
func (s Side) verdictIn(L labels, lang finding.Lang) string {
	if s.Verdict == nil {
		return L.none
	}
	return s.Verdict.In(lang)
}

func change(r Row) string {
	if math.IsNaN(r.ChangePct) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", r.ChangePct)
}

func value(v float64, unit string) string {
	if math.IsNaN(v) {
		return "-"
	}
	if unit == "" || unit == "TPS" {
		return num(v)
	}
	if unit == "%" {
		return num(v) + "%"
	}
	return num(v) + " " + unit
}

// WriteText renders c as a terminal table in lang; gate is the
// --fail-on-regression percentage (0: none).
func WriteText(w io.Writer, c *Comparison, lang finding.Lang, gate float64) error {
	L := labelsFor(lang)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n", L.title)
	for _, s := range c.sides(L) {
		fmt.Fprintf(bw, "  %s: %s  %s", s.name, report.OneLine(s.side.Dir), s.side.Start)
		if m := s.side.Model.In(lang); m != "" {
			fmt.Fprintf(bw, "  (%s)", m)
		}
		bw.WriteString("\n")
	}
	bw.WriteString("\n")
	rows := [][]string{{L.metric, L.before, L.after, L.change, ""}}
	for _, r := range c.Rows {
		rows = append(rows, []string{r.Label.In(lang), value(r.Before, r.Unit), value(r.After, r.Unit), change(r), L.verdicts[r.Verdict]})
	}
	writeTable(bw, rows)
	bw.WriteString("\n")
	for _, s := range c.sides(L) {
		fmt.Fprintf(bw, "%s (%s): %s\n", L.verdict, s.name, report.OneLine(s.side.verdictIn(L, lang)))
	}
	for _, g := range c.groups(L) {
		fmt.Fprintf(bw, "\n%s:\n", g.name)
		if len(g.fs) == 0 {
			fmt.Fprintf(bw, "  %s\n", L.none)
		}
		for _, f := range g.fs {
			fmt.Fprintf(bw, "  [%s] %s  (%s)\n", f.Severity.Label(lang), report.OneLine(f.Title.In(lang)), report.OneLine(f.Key))
		}
	}
	if gate > 0 {
		bw.WriteString("\n")
		if len(c.Regressions) == 0 {
			fmt.Fprintf(bw, L.gatePass+"\n", gate)
		}
		for _, r := range c.Regressions {
			fmt.Fprintf(bw, "%s: %s\n", L.gate, r.In(lang))
		}
	}
	return bw.Flush()
}

// writeTable aligns columns by display width (a Chinese character takes two).
func writeTable(w *bufio.Writer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], finding.DisplayWidth(c))
		}
	}
	for _, r := range rows {
		w.WriteString(" ")
		for i, c := range r {
			pad := widths[i] - finding.DisplayWidth(c)
			if i == 0 || i == len(r)-1 {
				w.WriteString(" " + c + strings.Repeat(" ", pad)) // text: left
			} else {
				w.WriteString(" " + strings.Repeat(" ", pad) + c) // numbers: right
			}
			w.WriteString(" ")
		}
		w.WriteString("\n")
	}
}

// WriteMarkdown renders c as Markdown, for a report or a pull request.
func WriteMarkdown(w io.Writer, c *Comparison, lang finding.Lang, gate float64) error {
	L := labelsFor(lang)
	bw := bufio.NewWriter(w)
	md, code := report.MarkdownCell, report.MarkdownCode
	fmt.Fprintf(bw, "## %s\n\n", L.title)
	fmt.Fprintf(bw, "- **%s**: `%s` %s %s\n", L.before, code(c.Before.Dir), c.Before.Start, md(c.Before.Model.In(lang)))
	fmt.Fprintf(bw, "- **%s**: `%s` %s %s\n\n", L.after, code(c.After.Dir), c.After.Start, md(c.After.Model.In(lang)))
	fmt.Fprintf(bw, "| %s | %s | %s | %s | |\n|---|---:|---:|---:|---|\n", L.metric, L.before, L.after, L.change)
	for _, r := range c.Rows {
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", md(r.Label.In(lang)), value(r.Before, r.Unit), value(r.After, r.Unit), change(r), L.verdicts[r.Verdict])
	}
	bw.WriteString("\n")
	for _, s := range c.sides(L) {
		fmt.Fprintf(bw, "**%s (%s)**: %s\n\n", L.verdict, s.name, md(s.side.verdictIn(L, lang)))
	}
	for _, g := range c.groups(L) {
		fmt.Fprintf(bw, "### %s\n\n", g.name)
		if len(g.fs) == 0 {
			fmt.Fprintf(bw, "%s\n\n", L.none)
			continue
		}
		for _, f := range g.fs {
			fmt.Fprintf(bw, "- **%s** %s (`%s`)\n", f.Severity.Label(lang), md(f.Title.In(lang)), code(f.Key))
		}
		bw.WriteString("\n")
	}
	if gate > 0 {
		if len(c.Regressions) == 0 {
			fmt.Fprintf(bw, L.gatePass+"\n", gate)
		}
		for _, r := range c.Regressions {
			fmt.Fprintf(bw, "- **%s**: %s\n", L.gate, md(r.In(lang)))
		}
	}
	return bw.Flush()
}
