package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/session"
)

// RunsOptions are the flags of `tuneloop runs`.
type RunsOptions struct {
	Catalog string
	Output  string // text or json
	Lang    string
	// Probes lists the catalog's probe folders instead of its runs.
	Probes bool
}

func newRunsCmd(env *Env) *cobra.Command {
	o := &RunsOptions{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: helpText(finding.T("List recorded runs and probes (the catalog), or add and remove their folders", "列出已记录的运行与探测（运行记录目录），或在其中添加、移除它们的目录")),
		Long: helpText(finding.T(
			`List the runs 'tuneloop record' and 'tuneloop run' saved, newest first, from
the catalog ($XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db;
--catalog to use another); --probes lists the probes 'tuneloop probe' took
instead (host, kernel, CPU model, parts, time, folder). Both are listed from
their start: one killed before its end shows as incomplete. A run or probe
folder copied from another machine is added with 'tuneloop runs add DIR'.
'run' and 'check' cite the newest finished probe of their host found in the
catalog or under ./probes. The catalog is an index only: each folder is
complete on its own ('tuneloop analyze DIR', 'tuneloop compare PROBE_A PROBE_B').`,
			`从运行记录目录（$XDG_DATA_HOME/tuneloop/runs.db 或
~/.local/share/tuneloop/runs.db；用 --catalog 指定其他位置）中列出
'tuneloop record' 与 'tuneloop run' 保存的运行，最新的在前；--probes 改为列出
'tuneloop probe' 做过的探测（主机、内核、CPU 型号、部分、时间、目录）。两者都从开始时
就被记录：在结束前被终止的显示为不完整。从其他机器复制来的运行目录或探测目录用
'tuneloop runs add DIR' 加入。'run' 与 'check' 引用运行记录目录中或 ./probes 下
本机最新的已完成探测。运行记录目录只是索引：每个目录本身都是完整的
（'tuneloop analyze DIR'、'tuneloop compare PROBE_A PROBE_B'）。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop runs
  tuneloop runs --probes
  tuneloop runs --output json
  tuneloop runs add /tmp/from-prod/20261121-090001-kp920-app01
  tuneloop runs rm runs/20261121-090001-kp920-app01`,
			`  tuneloop runs
  tuneloop runs --probes
  tuneloop runs --output json
  tuneloop runs add /tmp/from-prod/20261121-090001-kp920-app01
  tuneloop runs rm runs/20261121-090001-kp920-app01`,
		)),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return RunRuns(cmd.Context(), env, o) },
	}
	pf := cmd.PersistentFlags()
	catalogFlag(pf, &o.Catalog, catalogOfRuns)
	outputFlag(cmd.Flags(), &o.Output, report.RunsFormats())
	cmd.Flags().BoolVar(&o.Probes, "probes", false, helpText(finding.T("list the catalogued probes (tuneloop probe) instead of the runs", "列出运行记录目录中的探测（tuneloop probe），而不是运行")))
	langFlag(pf, &o.Lang)
	cmd.AddCommand(&cobra.Command{
		Use:   "add DIR...",
		Short: helpText(finding.T("Add run or probe folders to the catalog (e.g. copied from another machine)", "把运行目录或探测目录加入运行记录目录（例如从其他机器复制来的）")),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRunsAdd(cmd.Context(), env, o, args)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "rm DIR...",
		Short: helpText(finding.T("Remove run or probe folders from the catalog (the folders are left alone)", "从运行记录目录中移除运行目录或探测目录（目录本身不会被删除）")),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRunsRemove(cmd.Context(), env, o, args)
		},
	})
	cmd.AddCommand(newRunsRebuildCmd(env, o))
	cmd.AddCommand(newRunsExportCmd(env, o))
	trend := &TrendOptions{}
	tc := &cobra.Command{
		Use:   "trend [--service URL]",
		Short: helpText(finding.T("TPS and p99 of a service over its runs, with the run where a change entered", "某个服务历次运行的 TPS 与 p99，并标出变化开始的那次运行")),
		Long: helpText(finding.T(
			`Show throughput and p99 latency over the catalog's runs, oldest first, per
service (target URL) and scenario (load model), and mark change points: the
run where the level changed, found by E-divisive means with a permutation
test (199 seeded shuffles, p < 0.05; at least 3 runs a segment), so the same
history always gives the same marks. A fall in TPS or a rise in p99 is marked
as a regression with the run that introduced it. Runs catalogued before the
history existed are read from their report.json.`,
			`按服务（目标 URL）和场景（负载模型）显示运行记录目录中历次运行的吞吐量与 p99 时延
（从旧到新），并标出变化点：水平发生变化的那次运行，用 E-divisive 均值法检测，显著性
用置换检验（固定种子的 199 次置换，p < 0.05；每段至少 3 次运行），同样的历史总是
得到同样的标记。TPS 下降或 p99 上升标为回退，并指出引入它的那次运行。历史功能之前
加入目录的运行从其 report.json 读取。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop runs trend
  tuneloop runs trend --service http://127.0.0.1:8080/api -o json`,
			`  tuneloop runs trend
  tuneloop runs trend --service http://127.0.0.1:8080/api -o json`,
		)),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return RunRunsTrend(cmd.Context(), env, o, trend)
		},
	}
	tc.Flags().StringVar(&trend.Service, "service", "", helpText(finding.T("only this service (the target URL as the runs used it)", "只看该服务（运行时使用的目标 URL）")))
	outputFlag(tc.Flags(), &trend.Output, report.RunsFormats())
	cmd.AddCommand(tc)
	return cmd
}

// RunRuns lists the catalog.
func RunRuns(ctx context.Context, env *Env, o *RunsOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, report.RunsFormats())
	if err != nil {
		return err
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	if o.Probes {
		d, err := session.ProbeList(ctx, c)
		if err != nil {
			return err
		}
		return report.WriteProbeList(env.Stdout, d, format, lang)
	}
	d, err := session.RunList(ctx, c)
	if err != nil {
		return err
	}
	return report.WriteRunList(env.Stdout, d, format, lang)
}

// RunRunsAdd adds run folders to the catalog, with their saved findings
// and, when a report.json is there, their service and headline numbers.
func RunRunsAdd(ctx context.Context, env *Env, catPath string, dirs []string) error {
	return runRunsAdd(ctx, env, &RunsOptions{Catalog: catPath}, dirs)
}

func runRunsAdd(ctx context.Context, env *Env, o *RunsOptions, dirs []string) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	return session.AddRuns(ctx, c, dirs, func(d string, isProbe bool) {
		fmt.Fprintln(env.Stdout, report.AddedLine(d, isProbe, lang))
	})
}

// RunRunsRemove drops run folders from the catalog; a folder it does not
// hold is an error (after the others are removed).
func RunRunsRemove(ctx context.Context, env *Env, catPath string, dirs []string) error {
	return runRunsRemove(ctx, env, &RunsOptions{Catalog: catPath}, dirs)
}

func runRunsRemove(ctx context.Context, env *Env, o *RunsOptions, dirs []string) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	return session.RemoveRuns(ctx, c, dirs, func(d string) {
		fmt.Fprintf(env.Stdout, "%s %s\n", finding.T("removed", "已移除").In(lang), finding.SafeLine(d))
	})
}

// TrendOptions are the flags of `tuneloop runs trend`.
type TrendOptions struct {
	Service string
	Output  string
}

// RunRunsTrend prints TPS and p99 over runs with their change points.
func RunRunsTrend(ctx context.Context, env *Env, o *RunsOptions, t *TrendOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(t.Output, report.RunsFormats())
	if err != nil {
		return err
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	d, err := session.Trend(ctx, c, t.Service)
	if err != nil {
		return err
	}
	return report.WriteTrend(env.Stdout, d, format, lang)
}

func openCatalog(ctx context.Context, env *Env, flag string) (*catalog.Catalog, error) {
	p, err := catalogPath(env, flag)
	if err != nil {
		return nil, err
	}
	return session.OpenCatalog(ctx, p, func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(env.Lang())) })
}
