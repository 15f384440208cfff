package cli

import (
	"context"
	"io"
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
	// Catalog holds earlier sets of the service (default: the default
	// catalog); NoCatalog: read none.
	Catalog   string
	NoCatalog bool
}

// ExitInconclusive: the gate could not tell a gated metric from noise.
const ExitInconclusive = 4

func newCompareCmd(env *Env) *cobra.Command {
	o := &CompareOptions{}
	cmd := &cobra.Command{
		Use:   "compare BEFORE AFTER | BEFORE... -- AFTER... | --steps BASE STEP...",
		Short: helpText(finding.T("Set two runs side by side: TPS, latency, CPU, threads, GC and findings, before and after a change", "对比两次运行：改动前后的 TPS、时延、CPU、线程、GC 与发现")),
		Long: helpText(finding.T(
			`Compare run folders of 'tuneloop run' or 'tuneloop record' (or run's report.json):
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
			`对比 'tuneloop run' 或 'tuneloop record' 的运行目录（或 run 写出的 report.json）：
每次运行稳态（自动识别并去掉预热秒数）的吞吐量与时延 p50/p99，给出 95% 置信区间和
结论（变好、变差、无显著变化，或无法判断：再运行 K 次）；然后是读数（整次运行的
TPS、百分位、错误、CPU、每个请求的 JVM CPU 时间、阻塞或等待的线程、GC）、每次运行
的主机负载与 CPU 窃取、各次运行的结论，以及本次改动消除了哪些发现、引入了哪些、
哪些仍然存在。

每侧多次运行：BEFORE... -- AFTER...，或把 'tuneloop run --repeat N' 的目录（其中的
run-1..N）作为 BEFORE 或 AFTER。交替进行的运行（A B A B ...，即 'run --start-b' 的
做法；由开始时间识别，或用 --design paired 指定）逐对判断：对各对比值的对数做配对 t
区间，邻居负载的漂移因此抵消。否则重复单位是 JVM 启动（每次运行一次启动）：每侧 2 次
及以上启动时，对各次启动均值（取对数）做 Welch t 区间，并对同样的启动做精确
Mann-Whitney U 检验，两者一致才下结论（否则判为无法判断并说明原因：启动次数不足以让
秩检验达到水平、各次启动分成几组、有一次偏离很远）；每侧一次启动时为其逐秒数据的分块
自助法，不含启动之间的波动。吞吐量分成几组的启动会被报告，并给出运行目录中区分它们的
数据。一侧来自不同的主机、内核、JDK 或 CPU 数（取自 manifest）时给出警告，门禁拒绝
判断（仅 JVM 参数不同时只警告，参数可能正是要比较的改动）；两侧相隔一小时以上记录时，
区间按一次启动的波动加宽。
--steps BASE STEP1 STEP2... 输出调优表：每一步相对上一步和相对基线的提升及其区间。

--fail-on-regression PCT 按区间而不是按点值做 CI 门禁：吞吐量或 p99 显著变差（其 99%
区间不含 0，且基于启动时 U 检验在 1% 水平下一致：每侧至少 5 次启动才可能做到）且该区间
远端超过 PCT（吞吐量下界低于 -PCT，p99 上界高于 +PCT），或错误率上升超过 0.1 个百分点时
失败。退出码：0 通过，3 回退，4 无法判断（门禁指标在 PCT 精度下无法与噪声区分：每侧再
运行 N 次），1 出错，2 用法错误。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop compare runs/before runs/after
  tuneloop compare runs/a1 runs/a2 runs/a3 -- runs/b1 runs/b2 runs/b3 --fail-on-regression 5
  tuneloop compare runs/before runs/after --output markdown > tuning.md
  tuneloop compare --steps runs/base runs/heap runs/gc runs/async-log
  tuneloop compare baseline/report.json runs/candidate --fail-on-regression 5 -o junit > compare.xml
  tuneloop compare runs/before runs/after --flame-diff diff.html --flame-kind lock
  tuneloop compare before.jfr after.jfr --flame-diff diff.html`,
			`  tuneloop compare runs/before runs/after
  tuneloop compare runs/a1 runs/a2 runs/a3 -- runs/b1 runs/b2 runs/b3 --fail-on-regression 5
  tuneloop compare runs/before runs/after --output markdown > tuning.md
  tuneloop compare --steps runs/base runs/heap runs/gc runs/async-log
  tuneloop compare baseline/report.json runs/candidate --fail-on-regression 5 -o junit > compare.xml
  tuneloop compare runs/before runs/after --flame-diff diff.html --flame-kind lock
  tuneloop compare before.jfr after.jfr --flame-diff diff.html`,
		)),
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunCompareArgs(cmd.Context(), env, o, args, cmd.ArgsLenAtDash())
		},
	}
	f := cmd.Flags()
	outputFlagNote(f, &o.Output, compare.CommandFormats(), finding.T("junit gates runs; html draws probes", "junit 用于运行的门禁；html 用于探测结果的页面"))
	langFlag(f, &o.Lang)
	f.Float64Var(&o.FailOnRegPct, "fail-on-regression", 0, helpText(finding.T("exit 3 when throughput or p99 regressed significantly with the interval's far bound beyond this percent, or the error rate rose", "吞吐量或 p99 显著变差且区间远端超过该百分比，或错误率上升时，以退出码 3 结束")))
	f.StringVar(&o.Design, "design", "", helpText(finding.T("paired: the i-th runs of the sides are a pair; unpaired: two sets (default: paired when the start times show the runs interleaved)", "paired：两侧的第 i 次运行为一对；unpaired：两组独立运行（默认：开始时间显示交替进行时按配对处理）")))
	f.BoolVar(&o.Steps, "steps", false, helpText(finding.T("the arguments are a baseline and tuning steps in order: print each step's gain", "参数依次为基线与各调优步骤：输出每一步的提升")))
	f.StringVar(&o.FlameDiff, "flame-diff", "", helpText(finding.T("write the differential flame graph of the runs' JFR recordings (or of two .jfr or collapsed files given as BEFORE AFTER) to this page, and list the frames that grew and shrank most", "把各运行 JFR 记录的差分火焰图（或以 BEFORE AFTER 给出的两个 .jfr 或折叠调用栈文件的差分火焰图）写入该页面，并列出增长与减少最多的帧")))
	catalogFlag(f, &o.Catalog, catalogOfSets)
	f.BoolVar(&o.NoCatalog, "no-catalog", false, helpText(finding.T("read no earlier sets from the catalog: two sets taken apart are then judged without the set-to-set shift they measure", "不从运行记录目录读取之前的运行组：分开采集的两组运行将不计入其测得的组间偏移")))
	f.StringVar(&o.FlameKind, "flame-kind", "cpu", helpText(finding.T("the profile --flame-diff compares: cpu, alloc, lock or wall", "--flame-diff 比较的剖析类型：cpu、alloc、lock 或 wall")))
	return cmd
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
	if pa, pb := compare.IsProbe(args[0]), len(args) > 1 && compare.IsProbe(args[1]); pa || pb {
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
	kind, err := flameKind(o)
	if err != nil {
		return err
	}
	so := session.CompareOptions{Before: bArgs, After: aArgs, Judge: compare.Options{PowerPct: o.FailOnRegPct, Design: o.Design},
		FlameDiff: o.FlameDiff, FlameKind: kind, Lang: lang}
	if !o.NoCatalog {
		// No default catalog (no home directory): no history, no error.
		so.Catalog, _ = catalogPath(env, o.Catalog)
	}
	if o.FlameDiff != "" && session.AllProfileFiles(ctx, args) {
		return compareProfileFiles(ctx, env, o, so)
	}
	c, fd, err := session.CompareRuns(ctx, so)
	if err != nil {
		return err
	}
	saidPage(env, o.FlameDiff, lang)
	if err := writeComparison(env.Stdout, c, fd, format, lang, o.FailOnRegPct); err != nil {
		return err
	}
	return ctx.Err()
}

// writeComparison writes c, then gives the regression gate's exit when
// gatePct is set (compare, and run's A/B series).
func writeComparison(w io.Writer, c *compare.Comparison, fd *report.FlameDiffPage, format report.Format, lang finding.Lang, gatePct float64) error {
	regressed := gatePct > 0 && c.Gate(gatePct)
	if err := compare.Write(w, c, fd, format, lang, gatePct); err != nil {
		return err
	}
	return comparisonExit(c, gatePct, regressed)
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
	steps, err := session.CompareSteps(ctx, args, lang)
	if err != nil {
		return err
	}
	return compare.WriteSteps(env.Stdout, steps, format, lang)
}

// compareProbes says per figure whether B differs from A significantly.
func compareProbes(env *Env, o *CompareOptions, a, b string, lang finding.Lang) error {
	if o.FailOnRegPct > 0 || o.FlameDiff != "" || o.Output == "junit" {
		return usageErr(finding.T("comparing probes: --fail-on-regression, --flame-diff and junit are for runs", "比较探测结果时不支持 --fail-on-regression、--flame-diff 与 junit（它们用于运行）"))
	}
	format, err := outputFormat(o.Output, compare.ProbeFormats())
	if err != nil {
		return err
	}
	c, err := compare.Probes(a, b)
	if err != nil {
		return err
	}
	return compare.WriteProbes(env.Stdout, c, format, lang)
}
