package compare

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// StepsSchema of Steps in JSON.
const StepsSchema = "tuneloop.compare-steps/v1"

// Steps is the seeds' tuning table: a baseline and the steps after it, in
// order, each with its gain over the previous step and over the baseline.
type Steps struct {
	Schema   string  `json:"schema"`
	PowerPct float64 `json:"power_pct"`
	Steps    []Step  `json:"steps"`
}

// Step is one row of the tuning table.
type Step struct {
	// Dir is the step's path as given (a run folder or a --repeat folder).
	Dir  string    `json:"dir"`
	Runs []RunInfo `json:"runs"`
	// VsPrevious and VsBaseline are empty for the baseline.
	VsPrevious []Stat          `json:"vs_previous"`
	VsBaseline []Stat          `json:"vs_baseline"`
	Warnings   []finding.Text  `json:"warnings,omitempty"`
	Verdict    *finding.Text   `json:"verdict,omitempty"`
	Model      finding.Text    `json:"model"`
	page       *report.RunPage // the first run, for the title
}

// CompareSteps builds the tuning table; names are the paths as given, one
// set of runs per step.
func CompareSteps(names []string, steps [][]Input, powerPct float64) *Steps {
	if powerPct <= 0 {
		powerPct = DefaultPowerPct
	}
	out := &Steps{Schema: StepsSchema, PowerPct: powerPct}
	for i, in := range steps {
		s := sideOf(in)
		st := Step{Dir: names[i], Runs: s.Runs, Verdict: s.Verdict, Model: s.Model, VsPrevious: []Stat{}, VsBaseline: []Stat{}, page: in[0].Page}
		if i > 0 {
			prev := CompareSets(steps[i-1], in, powerPct)
			st.VsPrevious, st.Warnings = prev.Stats, prev.Warnings
			if i > 1 {
				st.VsBaseline = CompareSets(steps[0], in, powerPct).Stats
			} else {
				st.VsBaseline = prev.Stats
			}
		}
		out.Steps = append(out.Steps, st)
	}
	return out
}

func statOf(ss []Stat, key string) (Stat, bool) {
	for _, s := range ss {
		if s.Key == key {
			return s, true
		}
	}
	return Stat{}, false
}

// gain is "+12.3% [+8.1%, +16.0%] better" or "-".
func gain(ss []Stat, key string, L labels) string {
	s, ok := statOf(ss, key)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%+.1f%% %s %s", s.ChangePct, ciText(s), statVerdict(s, L))
}

var stepLabels = map[finding.Lang][]string{
	finding.EN: {"Tuning steps", "step", "runs", "TPS", "p99 ms", "TPS vs previous", "TPS vs baseline", "p99 vs previous", "p99 vs baseline", "baseline"},
	finding.ZH: {"调优步骤", "步骤", "运行次数", "TPS", "p99 ms", "TPS 相比上一步", "TPS 相比基线", "p99 相比上一步", "p99 相比基线", "基线"},
}

// stepsMethod says how the table's intervals were computed.
func stepsMethod() finding.Text {
	return finding.T("Interval: paired t on per-pair log ratios where a step's runs were interleaved with those it is compared to; else Welch t on per-run means (log) with 2+ runs a side, else a block bootstrap over steady-state seconds",
		"区间：某一步的运行与被比较的运行交替进行时，为各组比值对数的配对 t 区间；否则每侧 2 次及以上运行时为各次运行均值（取对数）的 Welch t 区间，再否则为稳态逐秒数据的分块自助法")
}

func (s *Steps) table(lang finding.Lang) [][]string {
	L, H := labelsFor(lang), stepLabels[lang]
	rows := [][]string{H[1:9]}
	for i, st := range s.Steps {
		tps, p99 := "-", "-"
		if x, ok := meanOf(st.Runs, func(r RunInfo) *float64 { return r.TPS }); ok {
			tps = num(x)
		}
		if x, ok := meanOf(st.Runs, func(r RunInfo) *float64 { return r.P99MS }); ok {
			p99 = num(x)
		}
		name := finding.SafeLine(st.Dir)
		if i == 0 {
			name += " (" + H[9] + ")"
		}
		rows = append(rows, []string{name, fmt.Sprint(len(st.Runs)), tps, p99,
			gain(st.VsPrevious, "tps", L), gain(st.VsBaseline, "tps", L), gain(st.VsPrevious, "p99_ms", L), gain(st.VsBaseline, "p99_ms", L)})
	}
	return rows
}

func meanOf(rs []RunInfo, f func(RunInfo) *float64) (float64, bool) {
	var sum float64
	n := 0
	for _, r := range rs {
		if v := f(r); v != nil {
			sum += *v
			n++
		}
	}
	return sum / float64(max(n, 1)), n > 0
}

// writeStepsText renders the tuning table for a terminal.
func writeStepsText(w io.Writer, s *Steps, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", stepLabels[lang][0])
	writeTable(bw, s.table(lang))
	L := labelsFor(lang)
	fmt.Fprintf(bw, "\n  %s\n", stepsMethod().In(lang))
	for _, st := range s.Steps {
		for _, wn := range st.Warnings {
			fmt.Fprintf(bw, "%s (%s): %s\n", L.warnings, finding.SafeLine(st.Dir), finding.SafeOneLine(wn.In(lang)))
		}
	}
	return bw.Flush()
}

// writeStepsMarkdown renders the tuning table as Markdown.
func writeStepsMarkdown(w io.Writer, s *Steps, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## %s\n\n", stepLabels[lang][0])
	rows := s.table(lang)
	fmt.Fprintf(bw, "| %s |\n|---|---:|---:|---:|---:|---:|---:|---:|\n", strings.Join(rows[0], " | "))
	for _, r := range rows[1:] {
		r[0] = finding.SafeMarkdown(r[0])
		fmt.Fprintf(bw, "| %s |\n", strings.Join(r, " | "))
	}
	L := labelsFor(lang)
	fmt.Fprintf(bw, "\n%s\n", finding.SafeMarkdown(stepsMethod().In(lang)))
	for _, st := range s.Steps {
		for _, wn := range st.Warnings {
			fmt.Fprintf(bw, "\n> **%s** (`%s`): %s\n", L.warnings, finding.SafeMarkdownSpan(st.Dir), finding.SafeMarkdown(wn.In(lang)))
		}
	}
	return bw.Flush()
}

// StepsFormats are what WriteSteps writes the tuning table as.
func StepsFormats() report.Formats { return report.Formats{report.Text, report.Markdown, report.JSON} }

// WriteSteps writes s in f (StepsFormats), its one switch.
func WriteSteps(w io.Writer, s *Steps, f report.Format, lang finding.Lang) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, s)
	case report.Markdown:
		return writeStepsMarkdown(w, s, lang)
	}
	return writeStepsText(w, s, lang)
}
