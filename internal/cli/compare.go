package cli

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
)

// CompareOptions are the flags of `tuneloop compare`.
type CompareOptions struct {
	Output       string // text, markdown, json or junit
	Lang         string
	FailOnRegPct float64 // 0: no gate
	Steps        bool    // the arguments are a baseline and steps, in order
	Design       string  // compare.DesignAuto (""), DesignPaired or DesignUnpaired
	// FlameDiff is the differential flame graph page to write, FlameKind
	// its profile kind (profile_out.go).
	FlameDiff, FlameKind string
}

// ExitInconclusive: the gate could not tell a gated metric from noise.
const ExitInconclusive = 4

func newCompareCmd(env *Env) *cobra.Command {
	o := &CompareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BEFORE AFTER | BEFORE... -- AFTER... | --steps BASE STEP...",
		Short: "Set two runs side by side: TPS, latency, CPU, threads, GC and findings, before and after a change",
		Long: `Compare run folders of 'tuneloop run' or 'tuneloop record' (or run's report.json):
throughput and latency p50/p99 over each run's steady state (warm-up seconds
detected and dropped) with a 95% confidence interval and a verdict (better,
worse, no significant change, or inconclusive: run K more), then the
readings (whole-run TPS, percentiles, errors, CPU, the JVM's CPU per request,
threads blocked or waiting, GC), each run's host load and CPU steal, each
run's verdict, and which findings the change made go away, which it brought
and which are still there.

Several runs per side: BEFORE... -- AFTER..., or a folder of 'tuneloop run
--repeat N' (its run-1..N) as BEFORE or AFTER. Runs taken in turn (A B A B
..., as 'run --start-b' takes them; seen from their start times, or
--design paired) are judged pair by pair: a paired t on the per-pair log
ratios, so a neighbour's drift cancels. Otherwise the unit of replication is
the JVM launch (each run is one): with 2+ launches a side, Welch's t on the
per-launch means (log scale) and an exact Mann-Whitney U-test over the same
launches, and a verdict only when both agree (else inconclusive, saying why:
too few launches for the rank test, launches in several groups, one far
off); with one launch a side, a block bootstrap over its seconds, which
covers no launch-to-launch spread. Launches whose throughput falls into
groups are reported with what the run folders show separates them. A side
from another host, kernel, JDK or CPU count (from the manifests) is warned
about and the gate refuses it (other JVM flags: a warning, they may be the
change); sides recorded more than an hour apart get an interval widened by
one launch's spread.
--steps BASE STEP1 STEP2... prints the tuning table: each step's gain over
the previous step and over the baseline, with intervals.

--fail-on-regression PCT gates CI on the interval, not the point: it fails
when throughput or p99 changed for the worse significantly (its 99%
interval excludes 0, and over launches the U-test agrees at 1%: 5 launches
a side is the fewest that can) and that interval's far bound is beyond PCT
(throughput's lower bound below -PCT, p99's upper bound above +PCT), or the
error rate rose by more than 0.1 point. Exit status: 0 passed, 3
regression, 4 inconclusive (a gated metric cannot be told from noise at
PCT: run N more a side), 1 error, 2 bad usage.`,
		Example: `  tuneloop compare runs/before runs/after
  tuneloop compare runs/a1 runs/a2 runs/a3 -- runs/b1 runs/b2 runs/b3 --fail-on-regression 5
  tuneloop compare runs/before runs/after --output markdown > tuning.md
  tuneloop compare --steps runs/base runs/heap runs/gc runs/async-log
  tuneloop compare baseline/report.json runs/candidate --fail-on-regression 5 -o junit > compare.xml
  tuneloop compare runs/before runs/after --flame-diff diff.html --flame-kind lock
  tuneloop compare before.jfr after.jfr --flame-diff diff.html`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunCompareArgs(cmd.Context(), env, o, args, cmd.ArgsLenAtDash())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, markdown, json or junit")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.Float64Var(&o.FailOnRegPct, "fail-on-regression", 0, "exit 3 when throughput or p99 regressed significantly with the interval's far bound beyond this percent, or the error rate rose")
	f.StringVar(&o.Design, "design", "", "paired: the i-th runs of the sides are a pair; unpaired: two sets (default: paired when the start times show the runs interleaved)")
	f.BoolVar(&o.Steps, "steps", false, "the arguments are a baseline and tuning steps in order: print each step's gain")
	f.StringVar(&o.FlameDiff, "flame-diff", "", "write the differential flame graph of the runs' JFR recordings (or of two .jfr or collapsed files given as BEFORE AFTER) to this page, and list the frames that grew and shrank most")
	f.StringVar(&o.FlameKind, "flame-kind", "cpu", "the profile --flame-diff compares: cpu, alloc, lock or wall")
	return cmd
}

// RunCompare compares two runs (or two --repeat folders) and prints the result.
func RunCompare(ctx context.Context, env *Env, o *CompareOptions, before, after string) error {
	return RunCompareArgs(ctx, env, o, []string{before, after}, -1)
}

// RunCompareArgs is the whole command: dash is the index of "--" in args
// (-1: none).
func RunCompareArgs(ctx context.Context, env *Env, o *CompareOptions, args []string, dash int) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if o.Design != compare.DesignAuto && o.Design != compare.DesignPaired && o.Design != compare.DesignUnpaired {
		return usageErr(finding.T("--design: want paired or unpaired", "--design：应为 paired 或 unpaired"))
	}
	if o.FailOnRegPct < 0 {
		return usageErr(finding.T("--fail-on-regression: %v is negative", "--fail-on-regression：%v 为负数"), o.FailOnRegPct)
	}
	if o.Steps {
		switch {
		case dash >= 0:
			return usageErr(finding.T("--steps takes the steps in order, without --", "--steps 按顺序接收各步骤，不用 --"))
		case o.FailOnRegPct > 0 || o.Output == "junit":
			return usageErr(finding.T("--steps prints the tuning table: gate with two sides (BEFORE -- AFTER) instead", "--steps 只输出调优表：门禁请使用两侧比较（BEFORE -- AFTER）"))
		}
		format, err := outputFormat(o.Output, compare.StepsFormats())
		if err != nil {
			return err
		}
		return compareSteps(ctx, env, args, format, lang)
	}
	if pa, pb := isProbe(args[0]), len(args) > 1 && isProbe(args[1]); pa || pb {
		if !pa || !pb || len(args) != 2 || dash >= 0 || o.Steps {
			return usageErr(finding.T("a probe compares with one other probe: tuneloop compare PROBE_A PROBE_B", "探测结果只能与另一个探测结果比较：tuneloop compare PROBE_A PROBE_B"))
		}
		return compareProbes(env, o, args[0], args[1], lang)
	}
	format, err := outputFormat(o.Output, compare.Formats())
	if err != nil {
		return err
	}
	o.Output = string(format) // "md" is markdown
	// After "--" cobra passes flags through as arguments: one that is no
	// file was meant as a flag.
	for _, a := range args[max(dash, 0):] {
		if _, err := os.Stat(a); dash >= 0 && strings.HasPrefix(a, "-") && err != nil {
			return usageErr(finding.T("%s after --: everything after -- is a run folder; put flags before the runs", "%s 位于 -- 之后：-- 之后的都是运行目录；请把参数选项放在运行目录之前"), finding.SafeLine(a))
		}
	}
	var bArgs, aArgs []string
	switch {
	case dash >= 0 && (dash == 0 || dash == len(args)):
		return usageErr(finding.T("runs before -- runs after: a side is empty", "改动前的运行 -- 改动后的运行：有一侧为空"))
	case dash >= 0:
		bArgs, aArgs = args[:dash], args[dash:]
	case len(args) == 2:
		bArgs, aArgs = args[:1], args[1:]
	default:
		return usageErr(finding.T("%d run folders: separate the runs before from the runs after with --, or use --steps", "%d 个运行目录：请用 -- 分隔改动前与改动后的运行，或使用 --steps"), len(args))
	}
	if o.FlameDiff != "" && allProfileFiles(ctx, args) {
		return compareProfileFiles(ctx, env, o, bArgs, aArgs, lang)
	}
	b, err := session.LoadInputs(ctx, bArgs, lang)
	if err != nil {
		return err
	}
	a, err := session.LoadInputs(ctx, aArgs, lang)
	if err != nil {
		return err
	}
	c := compare.CompareSetsWith(b, a, compare.Options{PowerPct: o.FailOnRegPct, Design: o.Design})
	regressed := o.FailOnRegPct > 0 && c.Gate(o.FailOnRegPct)
	fd, err := flameDiffRuns(env, o, b, a, lang)
	if err != nil {
		return err
	}
	if err := compare.Write(env.Stdout, c, fd, format, lang, o.FailOnRegPct); err != nil {
		return err
	}
	if err := comparisonExit(c, o.FailOnRegPct, regressed); err != nil {
		return err
	}
	return ctx.Err()
}

// comparisonExit is the regression gate's exit: 3 regressed, 4 inconclusive.
func comparisonExit(c *compare.Comparison, gatePct float64, regressed bool) error {
	if regressed {
		return &ExitError{Code: ExitFindings}
	}
	if gatePct > 0 && len(c.Inconclusive) > 0 {
		return &ExitError{Code: ExitInconclusive}
	}
	return nil
}

func compareSteps(ctx context.Context, env *Env, args []string, format report.Format, lang finding.Lang) error {
	var steps [][]compare.Input
	for _, p := range args {
		in, err := session.LoadInputs(ctx, []string{p}, lang)
		if err != nil {
			return err
		}
		steps = append(steps, in)
	}
	return compare.WriteSteps(env.Stdout, compare.CompareSteps(args, steps, 0), format, lang)
}
