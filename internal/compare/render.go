package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stats"
)

type labels struct {
	title, before, after, change, metric, verdict, gone, new, persist, unsure, none, gate, gatePass, model string
	ci, runs, readings, runsHdr, warnings, inconclusive, more, setBound                                    string
	runCols                                                                                                []string
	verdicts                                                                                               map[string]string
}

var labelsEN = labels{
	title: "Before / after", before: "before", after: "after", change: "change", metric: "metric",
	verdict: "Verdict", gone: "Gone (fixed by the change)", new: "New (brought by the change)",
	persist: "Still there", unsure: "On one side only, in too few runs to tell from chance", none: "none", gate: "REGRESSION", gatePass: "no regression beyond %.0f%%", model: "load",
	ci: "95% CI", runs: "runs", readings: "Readings (means over runs; a reading's verdict is a 2% band, no interval)",
	runsHdr: "Runs (steady state; host load from each run's own samples)", warnings: "Warning", inconclusive: "INCONCLUSIVE",
	more:     "run %s more",
	setBound: "sets shift more than launches can beat: interleave",
	runCols:  []string{"side", "run", "warm-up s", "steady s", "TPS", "p99 ms", "host busy", "other CPU", "steal"},
	verdicts: map[string]string{"better": "better", "worse": "WORSE", "same": "same", "no significant change": "~ no significant change", "inconclusive": "inconclusive"},
}

var labelsZH = labels{
	title: "改动前 / 改动后", before: "改动前", after: "改动后", change: "变化", metric: "指标",
	verdict: "结论", gone: "已消失（被本次改动解决）", new: "新出现（由本次改动引入）",
	persist: "仍然存在", unsure: "只在一侧出现，但出现的运行次数太少，无法与偶然区分", none: "无", gate: "性能回退", gatePass: "没有超过 %.0f%% 的回退", model: "负载",
	ci: "95% 置信区间", runs: "运行次数", readings: "读数（各次运行的均值；读数的结论按 2% 区间判断，没有置信区间）",
	runsHdr: "各次运行（稳态；主机负载取自每次运行自己的采样）", warnings: "警告", inconclusive: "无法判断",
	more:     "再运行 %s 次",
	setBound: "组间偏移大于增加启动所能弥补的：请交替运行",
	runCols:  []string{"侧", "运行", "预热 s", "稳态 s", "TPS", "p99 ms", "主机繁忙", "其他进程 CPU", "窃取"},
	verdicts: map[string]string{"better": "变好", "worse": "变差", "same": "持平", "no significant change": "~ 无显著变化", "inconclusive": "无法判断"},
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
	g := []namedGroup{{L.gone, c.Gone}, {L.new, c.New}, {L.persist, c.Persist}}
	if len(c.Unsure) > 0 {
		g = append(g, namedGroup{L.unsure, c.Unsure})
	}
	return g
}

// runsOf says in how many runs of each side f failed ("; before 0/5,
// after 3/5"), when a side has several.
func (c *Comparison) runsOf(L labels, f FindingRef) string {
	nb, na := len(c.Before.Runs), len(c.After.Runs)
	if nb < 2 && na < 2 {
		return ""
	}
	return fmt.Sprintf("; %s %d/%d, %s %d/%d", L.before, f.RunsBefore, nb, L.after, f.RunsAfter, na)
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

// writeText renders c as a terminal table in lang; gate is the
// --fail-on-regression percentage (0: none).
func writeText(w io.Writer, c *Comparison, lang finding.Lang, gate float64) error {
	L := labelsFor(lang)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n", L.title)
	for _, s := range c.sides(L) {
		fmt.Fprintf(bw, "  %s: %s  %s", s.name, finding.SafeOneLine(s.side.Dir), s.side.Start)
		if m := s.side.Model.In(lang); m != "" {
			fmt.Fprintf(bw, "  (%s)", m)
		}
		bw.WriteString("\n")
	}
	bw.WriteString("\n")
	if len(c.Stats) > 0 {
		writeTable(bw, statRows(c, L))
		fmt.Fprintf(bw, "  %s\n", c.designText().In(lang))
		for _, s := range c.Stats {
			if s.Why != nil {
				fmt.Fprintf(bw, "  %s: %s\n", s.Label.In(lang), finding.SafeOneLine(s.Why.In(lang)))
			}
		}
		bw.WriteString("\n")
	}
	if len(c.Stats) > 0 {
		fmt.Fprintf(bw, "%s\n", L.readings)
	}
	rows := [][]string{{L.metric, L.before, L.after, L.change, ""}}
	for _, r := range c.Rows {
		rows = append(rows, []string{r.Label.In(lang), value(r.Before, r.Unit), value(r.After, r.Unit), change(r), L.verdicts[r.Verdict]})
	}
	writeTable(bw, rows)
	bw.WriteString("\n")
	if runs := runRows(c, L); len(runs) > 2 {
		fmt.Fprintf(bw, "%s\n", L.runsHdr)
		writeTable(bw, runs)
		bw.WriteString("\n")
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(bw, "%s: %s\n", L.warnings, finding.SafeOneLine(w.In(lang)))
	}
	if len(c.Warnings) > 0 {
		bw.WriteString("\n")
	}
	for _, s := range c.sides(L) {
		fmt.Fprintf(bw, "%s (%s): %s\n", L.verdict, s.name, finding.SafeOneLine(s.side.verdictIn(L, lang)))
	}
	for _, g := range c.groups(L) {
		fmt.Fprintf(bw, "\n%s:\n", g.name)
		if len(g.fs) == 0 {
			fmt.Fprintf(bw, "  %s\n", L.none)
		}
		for _, f := range g.fs {
			fmt.Fprintf(bw, "  [%s] %s  (%s%s)\n", f.Severity.Label(lang), finding.SafeOneLine(f.Title.In(lang)), finding.SafeOneLine(f.Key), c.runsOf(L, f))
		}
	}
	writeGateText(bw, c, L, lang, gate)
	return bw.Flush()
}

// writeGateText is the gate's verdict (gate > 0): passed, or each
// regression and each metric it could not judge.
func writeGateText(bw *bufio.Writer, c *Comparison, L labels, lang finding.Lang, gate float64) {
	if gate <= 0 {
		return
	}
	bw.WriteString("\n")
	if len(c.Regressions) == 0 {
		fmt.Fprintf(bw, L.gatePass+"\n", gate)
	}
	for _, r := range c.Regressions {
		fmt.Fprintf(bw, "%s: %s\n", L.gate, r.In(lang))
	}
	for _, r := range c.Inconclusive {
		fmt.Fprintf(bw, "%s: %s\n", L.inconclusive, r.In(lang))
	}
}

// statVerdict is a Stat's verdict in words, with the runs to add.
func statVerdict(s Stat, L labels) string {
	v := L.verdicts[s.Verdict]
	switch {
	case s.Verdict == "inconclusive" && s.SetSpread != nil && s.SetSpread.Blocks:
		v += ": " + L.setBound
	case s.Verdict == "inconclusive":
		v += ": " + fmt.Sprintf(L.more, stats.MoreRuns(s.MoreRuns))
	}
	return v
}

func ciText(s Stat) string { return fmt.Sprintf("[%+.1f%%, %+.1f%%]", s.LoPct, s.HiPct) }

func statRows(c *Comparison, L labels) [][]string {
	rows := [][]string{{L.metric, L.before, L.after, L.change, L.ci, L.runs, "U p", ""}}
	for _, s := range c.Stats {
		p := "-"
		if s.UTestP != nil {
			p = fmt.Sprintf("%.3f", *s.UTestP)
		}
		rows = append(rows, []string{s.Label.In(langOf(L)), value(s.Before, s.Unit), value(s.After, s.Unit), fmt.Sprintf("%+.1f%%", s.ChangePct),
			ciText(s), fmt.Sprintf("%d/%d", s.NBefore, s.NAfter), p, statVerdict(s, L)})
	}
	return rows
}

func langOf(L labels) finding.Lang {
	if L.title == labelsZH.title {
		return finding.ZH
	}
	return finding.EN
}

func opt(v *float64, unit string) string {
	if v == nil {
		return "-"
	}
	return value(*v, unit)
}

// runRows is the per-run table: header, then one row per run.
func runRows(c *Comparison, L labels) [][]string {
	rows := [][]string{L.runCols}
	for _, sd := range c.sides(L) {
		for _, r := range sd.side.Runs {
			rows = append(rows, []string{sd.name, finding.SafeLine(r.Dir), fmt.Sprint(r.WarmUpS), fmt.Sprint(r.SteadyS), opt(r.TPS, "TPS"), opt(r.P99MS, ""),
				opt(r.HostBusyPct, "%"), opt(r.OtherCPUPct, "%"), opt(r.StealPct, "%")})
		}
	}
	return rows
}

// writeTable aligns columns by display width (finding.Columns): text
// (the first and last column) on the left, numbers on the right.
func writeTable(w *bufio.Writer, rows [][]string) {
	n := len(rows[0])
	for _, l := range finding.Columns(rows, "  ", func(i int) bool { return i > 0 && i < n-1 }) {
		w.WriteString("  " + l + " \n")
	}
}

// writeMarkdown renders c as Markdown, for a report or a pull request.
func writeMarkdown(w io.Writer, c *Comparison, lang finding.Lang, gate float64) error {
	L := labelsFor(lang)
	bw := bufio.NewWriter(w)
	md, code := finding.SafeMarkdown, finding.SafeMarkdownSpan
	fmt.Fprintf(bw, "## %s\n\n", L.title)
	fmt.Fprintf(bw, "- **%s**: `%s` %s %s\n", L.before, code(c.Before.Dir), c.Before.Start, md(c.Before.Model.In(lang)))
	fmt.Fprintf(bw, "- **%s**: `%s` %s %s\n\n", L.after, code(c.After.Dir), c.After.Start, md(c.After.Model.In(lang)))
	if len(c.Stats) > 0 {
		rows := statRows(c, L)
		fmt.Fprintf(bw, "| %s |\n|---|---:|---:|---:|---:|---:|---:|---|\n", strings.Join(rows[0], " | "))
		for _, r := range rows[1:] {
			r[0] = md(r[0])
			fmt.Fprintf(bw, "| %s |\n", strings.Join(r, " | "))
		}
		fmt.Fprintf(bw, "\n%s\n\n", md(c.designText().In(lang)))
		for _, s := range c.Stats {
			if s.Why != nil {
				fmt.Fprintf(bw, "- %s: %s\n", md(s.Label.In(lang)), md(s.Why.In(lang)))
			}
		}
		fmt.Fprintf(bw, "**%s**\n\n", md(L.readings))
	}
	fmt.Fprintf(bw, "| %s | %s | %s | %s | |\n|---|---:|---:|---:|---|\n", L.metric, L.before, L.after, L.change)
	for _, r := range c.Rows {
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", md(r.Label.In(lang)), value(r.Before, r.Unit), value(r.After, r.Unit), change(r), L.verdicts[r.Verdict])
	}
	bw.WriteString("\n")
	if runs := runRows(c, L); len(runs) > 2 {
		fmt.Fprintf(bw, "**%s**\n\n| %s |\n|---|---|%s\n", md(L.runsHdr), strings.Join(runs[0], " | "), strings.Repeat("---:|", len(runs[0])-2))
		for _, r := range runs[1:] {
			r[1] = "`" + finding.SafeMarkdownCode(r[1]) + "`" // a table cell: | escaped too
			fmt.Fprintf(bw, "| %s |\n", strings.Join(r, " | "))
		}
		bw.WriteString("\n")
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(bw, "> **%s**: %s\n\n", L.warnings, md(w.In(lang)))
	}
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
			fmt.Fprintf(bw, "- **%s** %s (`%s`%s)\n", f.Severity.Label(lang), md(f.Title.In(lang)), code(f.Key), c.runsOf(L, f))
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
		for _, r := range c.Inconclusive {
			fmt.Fprintf(bw, "- **%s**: %s\n", L.inconclusive, md(r.In(lang)))
		}
	}
	return bw.Flush()
}

// Formats are what Write writes a comparison of runs as.
func Formats() report.Formats {
	return report.Formats{report.Text, report.Markdown, report.JSON, report.JUnit}
}

// Write writes c in f (Formats), the one switch every format of a
// comparison of runs comes from; fd, when not nil, is the differential
// flame graph's summary (text and Markdown after the table, JSON beside
// it); gate is --fail-on-regression.
func Write(w io.Writer, c *Comparison, fd *report.FlameDiffPage, f report.Format, lang finding.Lang, gate float64) error {
	switch f {
	case report.JSON:
		if fd != nil {
			return report.WriteJSON(w, WithFlameDiff{Comparison: c, FlameDiff: FlameDiffJSON(fd)})
		}
		return report.WriteJSON(w, c)
	case report.Markdown:
		if err := writeMarkdown(w, c, lang, gate); err != nil {
			return err
		}
		return writeFlameMarkdown(w, fd, lang)
	case report.JUnit:
		return writeJUnit(w, c, lang, gate)
	}
	if err := writeText(w, c, lang, gate); err != nil {
		return err
	}
	return writeFlameText(w, fd, lang)
}
