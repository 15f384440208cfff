package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// CompareOptions are the flags of `tuneloop compare`.
type CompareOptions struct {
	Output       string // text, markdown or json
	Lang         string
	FailOnRegPct float64 // 0: no gate
}

func newCompareCmd(env *Env) *cobra.Command {
	o := &CompareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BEFORE AFTER",
		Short: "Set two runs side by side: TPS, latency, CPU, threads, GC and findings, before and after a change",
		Long: `Compare two run folders of 'tuneloop run' or 'tuneloop record' (or run's report.json):
throughput (whole run, and the median of its second half, after the JIT),
latency percentiles, errors, CPU, the JVM's CPU per request, the share of
working threads blocked or waiting, GC throughput and pauses, each run's
verdict, and which findings the change made go away, which it brought and
which are still there.

--fail-on-regression PCT exits 3 when throughput fell or p99 latency rose by
more than PCT percent, or the error rate rose by more than 0.1 point: a gate
for CI.`,
		Example: `  tuneloop compare runs/before runs/after
  tuneloop compare runs/before runs/after --output markdown > tuning.md
  tuneloop compare baseline/report.json runs/candidate --fail-on-regression 5`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunCompare(cmd.Context(), env, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, markdown or json")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.Float64Var(&o.FailOnRegPct, "fail-on-regression", 0, "exit 3 when throughput fell or p99 rose by more than this percent, or the error rate rose")
	return cmd
}

// RunCompare compares two runs and prints the result.
func RunCompare(ctx context.Context, env *Env, o *CompareOptions, before, after string) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	switch o.Output {
	case "text", "markdown", "json":
	default:
		return usageErr(finding.T("--output: unknown format %q (want text, markdown or json)", "--output：未知格式 %q（应为 text、markdown 或 json）"), o.Output)
	}
	if o.FailOnRegPct < 0 {
		return usageErr(finding.T("--fail-on-regression: %v is negative", "--fail-on-regression：%v 为负数"), o.FailOnRegPct)
	}
	b, err := loadRunPage(before, lang)
	if err != nil {
		return err
	}
	a, err := loadRunPage(after, lang)
	if err != nil {
		return err
	}
	c := compare.Compare(b, a)
	regressed := o.FailOnRegPct > 0 && c.Gate(o.FailOnRegPct)
	switch o.Output {
	case "json":
		err = report.WriteJSON(env.Stdout, c)
	case "markdown":
		err = compare.WriteMarkdown(env.Stdout, c, lang, o.FailOnRegPct)
	default:
		err = compare.WriteText(env.Stdout, c, lang, o.FailOnRegPct)
	}
	if err != nil {
		return err
	}
	if regressed {
		return &ExitError{Code: ExitFindings}
	}
	return ctx.Err()
}

// loadRunPage reads a run's report.json; a run folder without one (made by
// `tuneloop record`, with or without a load.json beside it) is diagnosed
// and paged the way `run` does.
func loadRunPage(path string, lang finding.Lang) (*report.RunPage, error) {
	if _, err := os.Stat(filepath.Join(path, "report.json")); err == nil || !run.IsRunDir(path) {
		return compare.Load(path)
	}
	L, err := verdict.Load(path)
	if err != nil {
		return nil, err
	}
	p := report.NewRunPage(L, verdict.Decide(L), lang)
	return p, nil
}
