package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/promexport"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/verdict"
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
	L, err := verdict.LoadContext(ctx, dir)
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx)
	}
	if err != nil {
		return err
	}
	if L.Series == nil || len(L.Series.Ticks) == 0 {
		return finding.Errorf(finding.T("%s: the run has no recorded series to export", "%s：该运行没有可导出的记录序列"), finding.SafeLine(dir))
	}
	if o.Out == "" || o.Out == "-" {
		return promexport.WriteOpenMetrics(env.Stdout, L.Series, L.Load)
	}
	// A temporary file renamed over FILE: a failed export leaves no half file.
	tmp, err := os.CreateTemp(filepath.Dir(o.Out), ".tuneloop-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := promexport.WriteOpenMetrics(tmp, L.Series, L.Load); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), o.Out)
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

// promLive is a started exporter; nil when neither flag was given.
type promLive struct {
	e      *promexport.Exporter
	srv    *promexport.Server
	dir    string
	warn   func(error)
	warned bool
}

// start checks the flags and starts serving; close with stop.
func (p *promOptions) start(env *Env, lang finding.Lang) (*promLive, error) {
	if p.Listen == "" && p.Textfile == "" {
		return nil, nil
	}
	l := &promLive{e: promexport.New(""), dir: p.Textfile, warn: func(err error) {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Localize(err, lang))
	}}
	if p.Textfile != "" {
		if st, err := os.Stat(p.Textfile); err != nil || !st.IsDir() {
			return nil, usageErr(finding.T("--prometheus-textfile %s: not a folder", "--prometheus-textfile %s：不是目录"), finding.SafeLine(p.Textfile))
		}
	}
	if p.Listen != "" {
		srv, err := l.e.Serve(p.Listen)
		if err != nil {
			return nil, usageErr(finding.T("%v", "%v（无法在该地址监听）"), err)
		}
		l.srv = srv
		fmt.Fprintf(env.Stderr, "tuneloop: %s http://%s/metrics\n", finding.T("Prometheus metrics at", "Prometheus 指标地址").In(lang), srv.Addr())
	}
	return l, nil
}

// onTick wraps next (may be nil) to feed the exporter first.
func (l *promLive) onTick(next func(*sample.Rates, time.Duration)) func(*sample.Rates, time.Duration) {
	if l == nil {
		return next
	}
	return func(r *sample.Rates, el time.Duration) {
		l.e.Tick(r)
		l.textfile()
		if next != nil {
			next(r, el)
		}
	}
}

// onLoad wraps next (may be nil) to feed the exporter the load's second.
func (l *promLive) onLoad(next func(loadgen.Progress)) func(loadgen.Progress) {
	if l == nil {
		return next
	}
	return func(p loadgen.Progress) {
		l.e.Load(p)
		l.textfile()
		if next != nil {
			next(p)
		}
	}
}

// textfile rewrites the textfile, if asked for; a failure is said once, not
// every tick. Only one hook calls it (the tick in record, the load's second
// in run), so it needs no lock.
func (l *promLive) textfile() {
	if l.dir == "" {
		return
	}
	if err := l.e.WriteTextfile(l.dir); err != nil && !l.warned {
		l.warned = true
		l.warn(err)
	}
}

func (l *promLive) stop() {
	if l != nil && l.srv != nil {
		l.srv.Close()
	}
}
