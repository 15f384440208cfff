package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// RunList is the document of `tuneloop runs`: the catalog's runs, newest
// first, and how many probes it also holds. Its JSON is the runs alone.
type RunList struct {
	Catalog string // the catalog's file
	Runs    []catalog.Entry
	Probes  int
}

// ProbeList is the document of `tuneloop runs --probes`; its JSON is the
// probes alone.
type ProbeList struct {
	Catalog string
	Probes  []catalog.ProbeEntry
}

// TrendSeries is one service and scenario over its runs, with its change
// points; the document of `tuneloop runs trend` is a list of them.
type TrendSeries struct {
	Service  string              `json:"service"`
	Scenario string              `json:"scenario"`
	Runs     []catalog.Point     `json:"runs"`
	TPSCP    []stats.ChangePoint `json:"tps_change_points"`
	P99CP    []stats.ChangePoint `json:"p99_change_points"`
}

// Trend is the document of `tuneloop runs trend`; its JSON is the series.
type Trend struct {
	Catalog string
	Series  []TrendSeries
}

// RunsFormats are the formats of the three catalog documents (WriteRunList,
// WriteProbeList, WriteTrend).
func RunsFormats() Formats { return TextJSON() }

// Clock is a duration as a clock: 05:07, or 1:02:03 past an hour.
func Clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// WriteRunList writes the runs of the catalog in f (RunsFormats).
func WriteRunList(w io.Writer, d *RunList, f Format, l finding.Lang) error {
	if f == JSON {
		es := d.Runs
		if es == nil {
			es = []catalog.Entry{}
		}
		return WriteJSON(w, es)
	}
	if len(d.Runs) == 0 {
		fmt.Fprintf(w, "%s (%s)\n", finding.T("No runs recorded yet.", "还没有运行记录。").In(l), d.Catalog)
		return writeProbesHint(w, d.Probes, l)
	}
	tw := finding.NewTable(w, 2, false) // by display width: zh headers, names
	fmt.Fprintln(tw, finding.T("ID\tSTART (UTC)\tLENGTH\tSTATUS\tTARGET\tFINDINGS\tTOP\tFOLDER", "ID\t开始 (UTC)\t时长\t状态\t目标\t诊断数\t首要\t目录").In(l))
	for _, e := range d.Runs {
		length := "-"
		if !e.End.IsZero() {
			length = Clock(e.End.Sub(e.Start))
		}
		status := runStatusText(e.Status).In(l)
		if e.Status == runfolder.Recording {
			status += finding.T(" (incomplete)", "（不完整）").In(l)
		}
		dir := e.Dir
		if e.Missing {
			dir += finding.T(" (missing)", "（已不存在）").In(l)
		}
		target := "-"
		if e.PID != 0 {
			target = fmt.Sprintf("%s/%d", e.Comm, e.PID)
		}
		// The catalog's strings come from manifests (the target's comm, the
		// ID): one line each, harmless on a terminal, no tab to break columns.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", finding.SafeLine(e.ID), e.Start.UTC().Format("2006-01-02 15:04:05"), length,
			finding.SafeLine(status), finding.SafeLine(target), e.Findings, finding.SafeLine(orDash(e.Top)), finding.SafeLine(dir))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeProbesHint(w, d.Probes, l)
}

// writeProbesHint says, under the runs, how many probes the catalog holds
// and how to list them (nothing when none).
func writeProbesHint(w io.Writer, n int, l finding.Lang) error {
	if n == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s\n", finding.Tf(finding.T("and %d probes: tuneloop runs --probes", "另有 %d 次探测：tuneloop runs --probes"), n).In(l))
	return err
}

// WriteProbeList writes the probes of the catalog, newest first, in f.
func WriteProbeList(w io.Writer, d *ProbeList, f Format, l finding.Lang) error {
	if f == JSON {
		ps := d.Probes
		if ps == nil {
			ps = []catalog.ProbeEntry{}
		}
		return WriteJSON(w, ps)
	}
	if len(d.Probes) == 0 {
		fmt.Fprintf(w, "%s (%s)\n", finding.T("No probes catalogued yet (tuneloop probe takes one).", "还没有探测记录（用 tuneloop probe 进行一次探测）。").In(l), d.Catalog)
		return nil
	}
	tw := finding.NewTable(w, 2, false)
	fmt.Fprintln(tw, finding.T("ID\tSTART (UTC)\tLENGTH\tSTATUS\tHOST\tKERNEL\tCPU\tPARTS\tFIGURES\tFOLDER", "ID\t开始 (UTC)\t时长\t状态\t主机\t内核\tCPU\t部分\t指标数\t目录").In(l))
	for _, e := range d.Probes {
		length := "-"
		if !e.End.IsZero() {
			length = Clock(e.End.Sub(e.Start))
		}
		dir := e.Dir
		if e.Missing {
			dir += finding.T(" (missing)", "（已不存在）").In(l)
		}
		cpu := orDash(e.CPUModel)
		if e.CPUs > 0 {
			cpu = fmt.Sprintf("%s x%d", cpu, e.CPUs)
		}
		parts := strings.Join(e.Parts, ",")
		if e.Quick {
			parts += " (quick)"
		}
		// From probe.json, which may come from anywhere: one line each.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", finding.SafeLine(e.ID), e.Start.UTC().Format("2006-01-02 15:04:05"), length,
			probeStatusText(e.Status).In(l), finding.SafeLine(orDash(e.Host)), finding.SafeLine(orDash(e.Kernel)), finding.SafeLine(cpu),
			finding.SafeLine(orDash(parts)), e.Figures, finding.SafeLine(dir))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// probeStatusText is a probe's status in both languages.
func probeStatusText(s string) finding.Text {
	switch s {
	case probe.StatusComplete:
		return finding.T("complete", "完成")
	case probe.StatusInterrupted:
		return finding.T("interrupted", "已中断")
	case probe.StatusProbing:
		return finding.T("probing (incomplete)", "探测中（不完整）")
	}
	return finding.T(s, s)
}

// runStatusText is a run status in both languages.
func runStatusText(s runfolder.Status) finding.Text {
	switch s {
	case runfolder.Complete:
		return finding.T("complete", "完成")
	case runfolder.Interrupted:
		return finding.T("interrupted", "已中断")
	case runfolder.Recording:
		return finding.T("recording", "记录中")
	}
	return finding.T(string(s), string(s))
}

// WriteTrend writes TPS and p99 over runs with their change points in f.
func WriteTrend(w io.Writer, d *Trend, f Format, l finding.Lang) error {
	if f == JSON {
		series := d.Series
		if series == nil {
			series = []TrendSeries{}
		}
		return WriteJSON(w, series)
	}
	if len(d.Series) == 0 {
		fmt.Fprintf(w, "%s (%s)\n", finding.T("No runs with a load in the catalog.", "运行记录目录中没有带负载的运行。").In(l), d.Catalog)
		return nil
	}
	for _, s := range d.Series {
		if err := writeTrendSeries(w, s, l); err != nil {
			return err
		}
	}
	return nil
}

// writeTrendSeries is one series: a row per run, each change point marked
// where it entered.
func writeTrendSeries(w io.Writer, s TrendSeries, l finding.Lang) error {
	fmt.Fprintf(w, "%s  %s\n", finding.SafeLine(s.Service), finding.SafeLine(ModelText(s.Scenario).In(l)))
	marks := map[int][]string{}
	mark := func(cps []stats.ChangePoint, name string, higher bool) {
		for _, cp := range cps {
			word := finding.T("improvement", "改善")
			if (cp.ChangePct() < 0) == higher {
				word = finding.T("REGRESSION entered here", "从这里开始回退")
			}
			marks[cp.Index] = append(marks[cp.Index], fmt.Sprintf("<- %s %+.1f%% (p=%.3f) %s", name, cp.ChangePct(), cp.P, word.In(l)))
		}
	}
	mark(s.TPSCP, "TPS", true)
	mark(s.P99CP, "p99", false)
	tw := finding.NewTable(w, 2, false) // by display width: zh headers, names
	fmt.Fprintln(tw, finding.T("#\tSTART (UTC)\tRUN\tTPS\tP99 MS\t", "#\t开始 (UTC)\t运行\tTPS\tP99 MS\t").In(l))
	for j, r := range s.Runs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%.2f\t%s\n", j+1, r.Start.Format("2006-01-02 15:04:05"), finding.SafeLine(r.ID), r.TPS, r.P99MS, strings.Join(marks[j], "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Runs) < 2*stats.MinSegment {
		fmt.Fprintf(w, "  %s\n", finding.Tf(finding.T("%d runs: change points need at least %d", "%d 次运行：检测变化点至少需要 %d 次"), len(s.Runs), 2*stats.MinSegment).In(l))
	}
	fmt.Fprintln(w)
	return nil
}

// AddedLine is the line `runs add` and `runs rebuild` print for each
// folder put into the catalog (a run folder or a probe folder).
func AddedLine(dir string, isProbe bool, l finding.Lang) string {
	what := finding.T("added", "已添加")
	if isProbe {
		what = finding.T("added probe", "已添加探测")
	}
	return what.In(l) + " " + finding.SafeLine(dir)
}
