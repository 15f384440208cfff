package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/stats"
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
	pf.StringVar(&o.Catalog, "catalog", "", helpText(finding.T("catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)", "运行记录目录（默认 $XDG_DATA_HOME/tuneloop/runs.db 或 ~/.local/share/tuneloop/runs.db）")))
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", helpText(finding.T("output format: text or json", "输出格式：text 或 json")))
	cmd.Flags().BoolVar(&o.Probes, "probes", false, helpText(finding.T("list the catalogued probes (tuneloop probe) instead of the runs", "列出运行记录目录中的探测（tuneloop probe），而不是运行")))
	pf.StringVar(&o.Lang, "lang", "", helpText(finding.T("language: en or zh (default from LANG)", "语言：en 或 zh（默认取自 LANG）")))
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
	tc.Flags().StringVarP(&trend.Output, "output", "o", "text", helpText(finding.T("output format: text or json", "输出格式：text 或 json")))
	cmd.AddCommand(tc)
	return cmd
}

// RunRuns lists the catalog.
func RunRuns(ctx context.Context, env *Env, o *RunsOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if _, err := outputFormat(o.Output, report.TextJSON()); err != nil {
		return err
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	if o.Probes {
		return listProbes(ctx, env, c, o.Output, lang)
	}
	es, err := c.List(ctx)
	if err != nil {
		return err
	}
	if o.Output == "json" {
		if es == nil {
			es = []catalog.Entry{}
		}
		return report.WriteJSON(env.Stdout, es)
	}
	if len(es) == 0 {
		fmt.Fprintf(env.Stdout, "%s (%s)\n", finding.T("No runs recorded yet.", "还没有运行记录。").In(lang), c.Path)
		return probesHint(ctx, env, c, lang)
	}
	tw := finding.NewTable(env.Stdout, 2, false) // by display width: zh headers, names
	hdr := finding.T("ID\tSTART (UTC)\tLENGTH\tSTATUS\tTARGET\tFINDINGS\tTOP\tFOLDER", "ID\t开始 (UTC)\t时长\t状态\t目标\t诊断数\t首要\t目录").In(lang)
	fmt.Fprintln(tw, hdr)
	for _, e := range es {
		length := "-"
		if !e.End.IsZero() {
			length = clock(e.End.Sub(e.Start))
		}
		status := statusText(e.Status).In(lang)
		if e.Status == runfolder.Recording {
			status += finding.T(" (incomplete)", "（不完整）").In(lang)
		}
		dir := e.Dir
		if e.Missing {
			dir += finding.T(" (missing)", "（已不存在）").In(lang)
		}
		target := "-"
		if e.PID != 0 {
			target = fmt.Sprintf("%s/%d", e.Comm, e.PID)
		}
		top := e.Top
		if top == "" {
			top = "-"
		}
		// The catalog's strings come from manifests (the target's comm, the
		// ID): one line each, harmless on a terminal, no tab to break columns.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", finding.SafeLine(e.ID), e.Start.UTC().Format("2006-01-02 15:04:05"), length,
			finding.SafeLine(status), finding.SafeLine(target), e.Findings, finding.SafeLine(top), finding.SafeLine(dir))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return probesHint(ctx, env, c, lang)
}

// probesHint says, under the runs, how many probes the catalog holds and
// how to list them (nothing when none).
func probesHint(ctx context.Context, env *Env, c *catalog.Catalog, lang finding.Lang) error {
	ps, err := c.ListProbes(ctx)
	if err != nil || len(ps) == 0 {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "\n%s\n", finding.Tf(finding.T("and %d probes: tuneloop runs --probes", "另有 %d 次探测：tuneloop runs --probes"), len(ps)).In(lang))
	return err
}

// listProbes lists the catalog's probes, newest first.
func listProbes(ctx context.Context, env *Env, c *catalog.Catalog, output string, lang finding.Lang) error {
	ps, err := c.ListProbes(ctx)
	if err != nil {
		return err
	}
	if output == "json" {
		if ps == nil {
			ps = []catalog.ProbeEntry{}
		}
		return report.WriteJSON(env.Stdout, ps)
	}
	if len(ps) == 0 {
		fmt.Fprintf(env.Stdout, "%s (%s)\n", finding.T("No probes catalogued yet (tuneloop probe takes one).", "还没有探测记录（用 tuneloop probe 进行一次探测）。").In(lang), c.Path)
		return nil
	}
	tw := finding.NewTable(env.Stdout, 2, false)
	fmt.Fprintln(tw, finding.T("ID\tSTART (UTC)\tLENGTH\tSTATUS\tHOST\tKERNEL\tCPU\tPARTS\tFIGURES\tFOLDER", "ID\t开始 (UTC)\t时长\t状态\t主机\t内核\tCPU\t部分\t指标数\t目录").In(lang))
	for _, e := range ps {
		length := "-"
		if !e.End.IsZero() {
			length = clock(e.End.Sub(e.Start))
		}
		dir := e.Dir
		if e.Missing {
			dir += finding.T(" (missing)", "（已不存在）").In(lang)
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
			probeStatusText(e.Status).In(lang), finding.SafeLine(orDash(e.Host)), finding.SafeLine(orDash(e.Kernel)), finding.SafeLine(cpu),
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

// statusText is a run status in both languages.
func statusText(s runfolder.Status) finding.Text {
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
	for _, d := range dirs {
		if !runfolder.IsRunDir(d) && probe.IsDir(d) {
			if _, err := c.AddProbe(ctx, d); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s %s\n", finding.T("added probe", "已添加探测").In(lang), finding.SafeLine(d))
			continue
		}
		f, err := runfolder.Open(d)
		if err != nil {
			return err
		}
		fs, err := f.Findings()
		if err != nil {
			return err
		}
		if err := c.Put(ctx, entryOf(f, fs)); err != nil {
			return err
		}
		if h, ok := headlineOf(d); ok {
			if err := c.PutHeadline(ctx, d, h); err != nil {
				return err
			}
		}
		fmt.Fprintf(env.Stdout, "%s %s\n", finding.T("added", "已添加").In(lang), finding.SafeLine(d))
	}
	return nil
}

// headlineOf reads a run folder's report.json for the history.
func headlineOf(dir string) (catalog.Headline, bool) {
	p, err := compare.Load(dir)
	if err != nil || p.Load == nil || p.Load.TPS <= 0 {
		return catalog.Headline{}, false
	}
	return catalog.Headline{Service: compare.Service(p), Scenario: p.Load.Model, TPS: p.Load.TPS, P99MS: p.Load.P99MS}, true
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
	var missing []string
	for _, d := range dirs {
		ok, err := c.RemoveDir(ctx, d)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, finding.SafeLine(d))
			continue
		}
		fmt.Fprintf(env.Stdout, "%s %s\n", finding.T("removed", "已移除").In(lang), finding.SafeLine(d))
	}
	if len(missing) > 0 {
		return finding.Errorf(finding.T("not in the catalog: %s", "不在运行记录目录中：%s"), strings.Join(missing, ", "))
	}
	return nil
}

// TrendOptions are the flags of `tuneloop runs trend`.
type TrendOptions struct {
	Service string
	Output  string
}

// Series is one service and scenario over its runs, with its change points.
type trendSeries struct {
	Service  string              `json:"service"`
	Scenario string              `json:"scenario"`
	Runs     []catalog.Point     `json:"runs"`
	TPSCP    []stats.ChangePoint `json:"tps_change_points"`
	P99CP    []stats.ChangePoint `json:"p99_change_points"`
}

// trendP is the significance of a change point.
const trendP = 0.05

// RunRunsTrend prints TPS and p99 over runs with their change points.
func RunRunsTrend(ctx context.Context, env *Env, o *RunsOptions, t *TrendOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if _, err := outputFormat(t.Output, report.TextJSON()); err != nil {
		return err
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	// Runs catalogued before the history: their report.json, if any.
	missing, err := c.MissingHeadline(ctx)
	if err != nil {
		return err
	}
	for _, d := range missing {
		if h, ok := headlineOf(d); ok {
			if err := c.PutHeadline(ctx, d, h); err != nil {
				return err
			}
		}
	}
	pts, err := c.History(ctx, t.Service)
	if err != nil {
		return err
	}
	var series []trendSeries
	for _, p := range pts {
		if n := len(series); n == 0 || series[n-1].Service != p.Service || series[n-1].Scenario != p.Scenario {
			series = append(series, trendSeries{Service: p.Service, Scenario: p.Scenario})
		}
		s := &series[len(series)-1]
		s.Runs = append(s.Runs, p)
	}
	for i := range series {
		s := &series[i]
		tps, p99 := make([]float64, len(s.Runs)), make([]float64, len(s.Runs))
		for j, r := range s.Runs {
			tps[j], p99[j] = r.TPS, r.P99MS
		}
		s.TPSCP, s.P99CP = stats.ChangePoints(tps, trendP), stats.ChangePoints(p99, trendP)
		if s.TPSCP == nil {
			s.TPSCP = []stats.ChangePoint{}
		}
		if s.P99CP == nil {
			s.P99CP = []stats.ChangePoint{}
		}
	}
	if t.Output == "json" {
		if series == nil {
			series = []trendSeries{}
		}
		return report.WriteJSON(env.Stdout, series)
	}
	if len(series) == 0 {
		fmt.Fprintf(env.Stdout, "%s (%s)\n", finding.T("No runs with a load in the catalog.", "运行记录目录中没有带负载的运行。").In(lang), c.Path)
		return nil
	}
	for _, s := range series {
		fmt.Fprintf(env.Stdout, "%s  %s\n", finding.SafeLine(s.Service), finding.SafeLine(report.ModelText(s.Scenario).In(lang)))
		marks := map[int][]string{}
		mark := func(cps []stats.ChangePoint, name string, higher bool) {
			for _, cp := range cps {
				word := finding.T("improvement", "改善")
				if (cp.ChangePct() < 0) == higher {
					word = finding.T("REGRESSION entered here", "从这里开始回退")
				}
				marks[cp.Index] = append(marks[cp.Index], fmt.Sprintf("<- %s %+.1f%% (p=%.3f) %s", name, cp.ChangePct(), cp.P, word.In(lang)))
			}
		}
		mark(s.TPSCP, "TPS", true)
		mark(s.P99CP, "p99", false)
		tw := finding.NewTable(env.Stdout, 2, false) // by display width: zh headers, names
		fmt.Fprintln(tw, finding.T("#\tSTART (UTC)\tRUN\tTPS\tP99 MS\t", "#\t开始 (UTC)\t运行\tTPS\tP99 MS\t").In(lang))
		for j, r := range s.Runs {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%.2f\t%s\n", j+1, r.Start.Format("2006-01-02 15:04:05"), finding.SafeLine(r.ID), r.TPS, r.P99MS, strings.Join(marks[j], "; "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(s.Runs) < 2*stats.MinSegment {
			fmt.Fprintf(env.Stdout, "  %s\n", finding.Tf(finding.T("%d runs: change points need at least %d", "%d 次运行：检测变化点至少需要 %d 次"), len(s.Runs), 2*stats.MinSegment).In(lang))
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

func openCatalog(ctx context.Context, env *Env, flag string) (*catalog.Catalog, error) {
	p, err := catalogPath(env, flag)
	if err != nil {
		return nil, err
	}
	c, err := catalog.Open(ctx, p)
	if err == nil && c.Recovered != nil {
		// Damaged, moved aside: rebuild from the run folders it can find.
		r, _ := session.RebuildCatalog(ctx, c, []string{"runs"})
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", session.CatalogRecovered(c, r).In(env.Lang()))
	}
	return c, err
}
