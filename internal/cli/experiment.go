package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/experiment"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/version"
)

// ExperimentOptions are the flags of `tuneloop experiment`.
type ExperimentOptions struct {
	Plan      string
	Out       string
	Output    string // text, markdown or json on stdout
	Lang      string
	Journal   string
	Catalog   string
	NoCatalog bool
	Argv      []string
}

func newExperimentCmd(env *Env) *cobra.Command {
	o := &ExperimentOptions{}
	cmd := &cobra.Command{
		Use:   "experiment PLAN.yaml [--out DIR]",
		Short: helpText(finding.T("Try knobs (JVM options, properties, env, limits, CPU/NUMA binding, config files, sysctl/sysfs) in interleaved trials and report the gain with its interval", "在交错试验中尝试各项设置（JVM 选项、系统属性、环境变量、资源限制、CPU/NUMA 绑定、配置文件、sysctl/sysfs），并报告收益及其区间")),
		Long: helpText(finding.T(
			`Run the experiment a plan describes: a service (a start command, or the pid of
a running one for host knobs only), a load, and knobs with candidate values.
Every combination is an arm; the baseline is each knob at its baseline value.

Each trial applies the arm's host knobs through the apply journal, starts the
service with the arm's JVM options and properties in JAVA_TOOL_OPTIONS and its
env variables (nothing of the user's is edited), process limits and a CPU
set or NUMA node set on the start command before it runs (read back from
/proc/PID/limits and /proc/PID/status), configuration files copied into the
trial's folder and passed as the property the knob names (the original only
read, its hash checked after), checks in the running JVM
(VM.flags -all, VM.system_properties) that every option took effect (a flag
on the start command wins over JAVA_TOOL_OPTIONS: such a trial is refused and
the conflicting flag named), warms up, measures with the run flow (one run
folder per trial, in the catalog unless --no-catalog), stops the service and
reverts the host knobs. Arms run in interleaved blocks, a fresh seeded order
per block. From 5 arms on, successive halving drops the worse half after each
round (by the 95% interval against the leader, else by the mean) and gives
the survivors twice the trials. The winner is then re-measured against the
baseline in a fresh interleaved block: that comparison alone is the gain.

The trial log DIR/trials.jsonl is fsync'd per step: run the same command with
the same --out to continue after Ctrl-C or a crash (what a killed run left
applied is reverted first). DIR gets report.html, report.md and report.json.`,
			`运行计划所描述的实验：一个服务（启动命令，或仅用于主机设置的运行中进程的 pid）、
一种负载，以及带候选值的各项设置。每种组合是一个试验组；基线是各设置取其基线值。

每次试验：通过 apply 日志应用该组的主机设置，用 JAVA_TOOL_OPTIONS 传入该组的 JVM
选项与系统属性并设置其环境变量后启动服务（不修改用户的任何文件），在启动命令运行前
为其设置进程资源限制与 CPU 集合或 NUMA 节点（从 /proc/PID/limits 与 /proc/PID/status
回读核对），把配置文件复制到该试验的目录并以设置所指定的系统属性传给服务（原文件只读，
事后核对其哈希），在运行中的 JVM 里核对（VM.flags -all、VM.system_properties）每个选项都已生效（启动命令上的标志
优先于 JAVA_TOOL_OPTIONS：这样的试验会被拒绝，并指出冲突的标志），预热，用 run
流程测量（每次试验一个运行目录，除非 --no-catalog 否则加入运行记录目录），停止服务
并撤销主机设置。各组按交错区组运行，每个区组用新的带种子的顺序。5 个组起使用逐次
减半：每轮后淘汰较差的一半（依据相对领先者的 95% 区间，否则依据均值），幸存者的
试验次数加倍。最后胜出组在新的交错区组中与基线重新对比：只有这一对比才作为收益。

试验日志 DIR/trials.jsonl 每一步都 fsync：Ctrl-C 或崩溃后用同一个 --out 运行同一
命令即可继续（被杀死的运行遗留的设置会先被撤销）。DIR 中会生成 report.html、
report.md 和 report.json。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop experiment plan.yaml --out runs/heap-gc
  tuneloop experiment plan.yaml --out runs/heap-gc -o json   # continue, JSON on stdout`,
			`  tuneloop experiment plan.yaml --out runs/heap-gc
  tuneloop experiment plan.yaml --out runs/heap-gc -o json   # 继续运行，JSON 输出到标准输出`,
		)),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Plan = args[0]
			return RunExperiment(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "", helpText(finding.T("experiment folder (default runs/<time>-experiment); the same folder again continues it", "实验目录（默认 runs/<时间>-experiment）；再次使用同一目录即继续该实验")))
	outputFlagNote(f, &o.Output, experiment.Formats(), finding.T("on stdout; the folder gets every format", "用于标准输出；目录中总是写出每种格式"))
	langFlag(f, &o.Lang)
	journalFlag(f, &o.Journal)
	catalogFlag(f, &o.Catalog, catalogOfRuns)
	f.BoolVar(&o.NoCatalog, "no-catalog", false, helpText(finding.T("do not add the trials' run folders to the catalog", "不把各次试验的运行目录加入运行记录目录")))
	return cmd
}

// RunExperiment is the whole `experiment` command; tests call it directly.
func RunExperiment(ctx context.Context, env *Env, o *ExperimentOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, experiment.Formats())
	if err != nil {
		return err
	}
	plan, err := experiment.ReadPlanFile(o.Plan)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("runs", time.Now().UTC().Format("20060102-150405")+"-experiment")
	}
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	journal := journalOf(env, o.Journal)
	note := func(t finding.Text) { fmt.Fprintln(env.Stderr, finding.Safe(t.In(lang))) }
	runner := &experiment.HostRunner{Plan: plan, Roots: hostfs.Live(), Journal: journal, Owner: "experiment:" + out,
		Catalog: o.Catalog, NoCatalog: o.NoCatalog, Getenv: env.Getenv, Argv: o.Argv, Note: note}
	doc, runErr := experiment.Conduct(ctx, experiment.Options{Plan: plan, Out: out, Runner: runner, Note: note,
		LeftOpen: func() ([]string, error) { return experiment.RevertLeftOpen(journal, runner.Owner) },
		Tool:     report.Tool{Name: "tuneloop", Version: version.Version}})
	if doc != nil {
		if err := experiment.WriteFiles(out, doc, lang); err != nil {
			note(finding.Tf(finding.T("the reports could not be written: %v", "无法写入报告：%v"), err))
		}
		werr := experiment.Write(env.Stdout, doc, format, lang)
		if format == report.Text {
			fmt.Fprintf(env.Stdout, "\n%s %s\n", finding.T("Report:", "报告：").In(lang), finding.SafeLine(filepath.Join(out, "report.html")))
		}
		if werr != nil && runErr == nil {
			runErr = werr
		}
	}
	if runErr != nil {
		if errors.Is(runErr, experiment.ErrStopped) {
			return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("stopped; to continue: tuneloop experiment %s --out %s",
				"已停止；继续运行：tuneloop experiment %s --out %s"), o.Plan, out)}
		}
		return &ExitError{Code: ExitFailure, Err: runErr}
	}
	return nil
}
