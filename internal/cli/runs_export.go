package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/session"
)

// RunsExportOptions are the flags of `tuneloop runs export`.
type RunsExportOptions struct {
	OpenMetrics bool
	Out         string // "" or "-": standard output
}

// newRunsExportCmd is `tuneloop runs export --openmetrics RUN_DIR [-o FILE]`.
func newRunsExportCmd(env *Env, ro *RunsOptions) *cobra.Command {
	o := &RunsExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --openmetrics RUN_DIR [-o FILE]",
		Short: helpText(finding.T("Write a finished run's series as OpenMetrics, to load into Prometheus", "把已完成运行的时间序列写成 OpenMetrics，以便导入 Prometheus")),
		Long: helpText(finding.T(
			`Write the per-tick series of a run folder (CPU, softirqs, load, memory,
disks, TCP, the target process and its top threads, the load's requests and
latency) as an OpenMetrics file with a timestamp on every sample, ending
with "# EOF". Load it into an existing Prometheus with
'promtool tsdb create-blocks-from openmetrics FILE DIR' and move the blocks
into its data folder. The metric names are those of --prometheus-listen.`,
			`把运行目录中逐周期的时间序列（CPU、软中断、负载、内存、磁盘、TCP、目标进程
及其最忙的线程、负载的请求数与延迟）写成 OpenMetrics 文件，每个样本带时间戳，
以 "# EOF" 结尾。用 'promtool tsdb create-blocks-from openmetrics FILE DIR'
导入已有的 Prometheus，再把生成的块移入其数据目录。指标名与 --prometheus-listen 相同。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop runs export --openmetrics runs/20261125-1000-app1 -o run.om
  promtool tsdb create-blocks-from openmetrics run.om ./blocks`,
			`  tuneloop runs export --openmetrics runs/20261125-1000-app1 -o run.om
  promtool tsdb create-blocks-from openmetrics run.om ./blocks`,
		)),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := langOpt(env, ro.Lang); err != nil { // runs' --lang
				return err
			}
			return RunRunsExport(cmd.Context(), env, o, args[0])
		},
	}
	cmd.Flags().BoolVar(&o.OpenMetrics, "openmetrics", false, helpText(finding.T("write OpenMetrics text with timestamps (the only format so far)", "写出带时间戳的 OpenMetrics 文本（目前唯一的格式）")))
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", helpText(finding.T("write to this file instead of standard output", "写入该文件，而不是标准输出")))
	return cmd
}

// RunRunsExport writes dir's series in the chosen format.
func RunRunsExport(ctx context.Context, env *Env, o *RunsExportOptions, dir string) error {
	if !o.OpenMetrics {
		return usageErr(finding.T("runs export: choose a format (--openmetrics)", "runs export：请选择格式（--openmetrics）"))
	}
	err := session.ExportOpenMetrics(ctx, dir, env.Stdout, o.Out)
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx)
	}
	return err
}

// promOptions are --prometheus-listen and --prometheus-textfile of record and run.
type promOptions struct {
	Listen   string
	Textfile string
}

func (p *promOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.Listen, "prometheus-listen", "", helpText(finding.T("serve the live metrics for Prometheus on this address (e.g. 127.0.0.1:9464, path /metrics)", "在该地址为 Prometheus 提供实时指标（如 127.0.0.1:9464，路径 /metrics）")))
	cmd.Flags().StringVar(&p.Textfile, "prometheus-textfile", "", helpText(finding.T("write the live metrics each tick into this folder for the node_exporter textfile collector", "每个采样周期把实时指标写入该目录，供 node_exporter 的 textfile collector 读取")))
}

// localOnly refuses the exporter where the recorder runs on another host.
func (p *promOptions) localOnly() error {
	if p.Listen != "" || p.Textfile != "" {
		return usageErr(finding.T("--host: --prometheus-listen and --prometheus-textfile are not available for a remote host yet", "--host：远端主机暂不支持 --prometheus-listen 与 --prometheus-textfile"))
	}
	return nil
}

// start checks the flags and starts the exporter (session.StartProm), saying
// where it serves; nil when neither flag was given. Close with Stop.
func (p *promOptions) start(env *Env, lang finding.Lang) (*session.Prom, error) {
	l, err := session.StartProm(p.Listen, p.Textfile, func(err error) {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Localize(err, lang))
	})
	if err != nil {
		return nil, sessionErr(err)
	}
	if addr := l.Addr(); addr != "" {
		fmt.Fprintf(env.Stderr, "tuneloop: %s http://%s/metrics\n", finding.T("Prometheus metrics at", "Prometheus 指标地址").In(lang), addr)
	}
	return l, nil
}
