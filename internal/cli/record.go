package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/session"
)

// RecordOptions are the flags of `tuneloop record`.
type RecordOptions struct {
	Duration time.Duration // 0: until interrupted
	Interval time.Duration
	PID      int
	JVM      string // "auto": the single (or largest) running JVM
	Out      string // run folder; default ./runs/<timestamp>-<host>
	Catalog  string // catalog database; default $XDG_DATA_HOME/tuneloop/runs.db
	// NoCatalog skips the catalog (tests, read-only homes).
	NoCatalog bool
	Enable    []string
	Disable   []string
	Output    string // text or json
	Lang      string
	FailOn    string
	// Argv is the command line recorded in the manifest (os.Args by default).
	Argv []string
	// ThreadDumps is how many JVM thread dumps to take during the run
	// (attaching to the target; 0 = none). They are spread over the
	// duration (every 10 s when recording until Ctrl-C) and let the
	// diagnosis name what a hot or blocked thread runs.
	ThreadDumps int
	// Quiet suppresses the live status line even on a terminal.
	Quiet bool
	// OnStart is called with the run folder once recording has begun
	// (tests use it to kill or signal the recorder).
	OnStart func(dir string)
	// Prom are --prometheus-listen and --prometheus-textfile.
	Prom promOptions
	// Remote is --host and how to reach it.
	Remote hostOptions
}

func newRecordCmd(env *Env) *cobra.Command {
	o := &RecordOptions{}
	cmd := &cobra.Command{
		Use:   "record",
		Short: helpText(finding.T("Record host and process evidence under load, then diagnose the bottleneck", "在负载下记录主机和进程的证据，然后诊断瓶颈")),
		Long: helpText(finding.T(
			`Sample the host (per-CPU time, softirqs, interrupts, memory, NUMA, disks,
network, TCP, PSI) and optionally a target process and each of its threads,
every --interval, while your own load runs. Stop after --duration or on Ctrl-C.

The run is saved as a folder (manifest.json with the host facts and the exact
command line, raw/samples.jsonl.gz, derived/series.json, findings.json) that
'tuneloop analyze RUN_DIR' diagnoses again offline, here or on another
machine, and is listed by 'tuneloop runs'. The ranked findings are printed at
the end: the likely root cause first, with the numbers and the time window.

Samplers (--enable/--disable): `+samplerHelp().EN+`.

Exit status: 0 when the run was recorded, 3 with --fail-on when a finding at
or above that severity exists, 1 on error, 2 on bad usage.`,
			`在你自己的负载运行期间，每隔 --interval 采样一次主机（逐 CPU 时间、软中断、
中断、内存、NUMA、磁盘、网络、TCP、PSI），并可选地采样一个目标进程及其每个
线程。到达 --duration 或按下 Ctrl-C 时停止。

本次运行保存为一个运行目录（manifest.json 含主机信息和完整的命令行，以及
raw/samples.jsonl.gz、derived/series.json、findings.json），可在本机或其他
机器上用 'tuneloop analyze RUN_DIR' 离线重新诊断，并由 'tuneloop runs' 列出。
结束时输出按优先级排列的发现：最可能的根因排在最前，并附数值和时间窗口。

采样器（--enable/--disable）：`+samplerHelp().ZH+`。

退出码：运行记录完成时为 0；指定了 --fail-on 且存在达到或高于该严重级别的
发现时为 3；出错时为 1；用法错误时为 2。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop record --duration 10m --jvm auto
  tuneloop record --duration 5m --interval 1s --pid 12345
  tuneloop record --pid 12345                      # until Ctrl-C
  tuneloop record --duration 5m --jvm auto --thread-dumps 3   # join hot threads to their stacks
  tuneloop record --duration 2m --out /data/runs/before-tuning`,
			`  tuneloop record --duration 10m --jvm auto
  tuneloop record --duration 5m --interval 1s --pid 12345
  tuneloop record --pid 12345                      # 一直记录到按下 Ctrl-C
  tuneloop record --duration 5m --jvm auto --thread-dumps 3   # 把热点线程对应到其调用栈
  tuneloop record --duration 2m --out /data/runs/before-tuning`,
		)),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Argv == nil {
				o.Argv = os.Args
			}
			return RunRecord(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.DurationVarP(&o.Duration, "duration", "d", 0, helpText(finding.T("how long to record (e.g. 10m); 0 = until Ctrl-C", "记录时长（例如 10m）；0 表示一直记录到按下 Ctrl-C")))
	f.DurationVarP(&o.Interval, "interval", "i", time.Second, helpText(finding.T("sampling interval", "采样间隔")))
	f.IntVarP(&o.PID, "pid", "p", 0, helpText(finding.T("target process: sample it and each of its threads", "目标进程：采样该进程及其每个线程")))
	f.StringVar(&o.JVM, "jvm", "", helpText(finding.T(`"auto": target the running JVM (the largest when several)`, `"auto"：以运行中的 JVM 为目标（有多个时取最大的）`)))
	f.StringVar(&o.Out, "out", "", helpText(finding.T("run folder (default ./runs/<timestamp>-<host>)", "运行目录（默认 ./runs/<timestamp>-<host>）")))
	catalogFlag(f, &o.Catalog, catalogOfRuns)
	f.BoolVar(&o.NoCatalog, "no-catalog", false, helpText(finding.T("do not add the run to the catalog", "不把本次运行加入运行记录目录")))
	f.StringSliceVar(&o.Enable, "enable", nil, helpText(finding.T("samplers to turn on (e.g. tcpstates)", "要开启的采样器（例如 tcpstates）")))
	f.StringSliceVar(&o.Disable, "disable", nil, helpText(finding.T("samplers to turn off", "要关闭的采样器")))
	outputFlag(f, &o.Output, report.RunFormats())
	langFlag(f, &o.Lang)
	failOnFlag(f, &o.FailOn)
	f.IntVar(&o.ThreadDumps, "thread-dumps", 0, helpText(finding.T("take N thread dumps of the JVM target during the run (attaches to it; joins hot threads to their stacks)", "运行期间对目标 JVM 采集 N 次线程转储（会 attach 到该 JVM；把热点线程对应到其调用栈）")))
	f.BoolVarP(&o.Quiet, "quiet", "q", false, helpText(finding.T("no live status line", "不显示实时状态行")))
	o.Prom.flags(cmd)
	o.Remote.flagsMulti(cmd)
	return cmd
}

// samplerHelp lists the samplers, the ones off by default marked: the
// names stay as they are typed on the command line.
func samplerHelp() finding.Text {
	var names []string
	off := map[string]bool{}
	for n, on := range sample.Available() {
		names = append(names, n)
		off[n] = !on
	}
	sort.Strings(names)
	var en, zh []string
	for _, n := range names {
		e, z := n, n
		if off[n] {
			e, z = n+" (off by default)", n+"（默认关闭）"
		}
		en, zh = append(en, e), append(zh, z)
	}
	return finding.T(strings.Join(en, ", "), strings.Join(zh, "、"))
}

// langOpt resolves --lang against the environment.
func langOpt(env *Env, s string) (finding.Lang, error) {
	if s == "" {
		return env.Lang(), nil
	}
	l, err := finding.ParseLang(s)
	if err != nil {
		return l, usageErr(finding.T("--lang: %v", "--lang:%v"), err)
	}
	env.useLang(l)
	return l, nil
}

// RunRecord is the whole `record` command; tests call it directly.
func RunRecord(ctx context.Context, env *Env, o *RecordOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	switch {
	case !report.RunFormats().Has(report.Format(o.Output)):
		_, err := outputFormat(o.Output, report.RunFormats())
		return err
	case o.Interval < 10*time.Millisecond:
		return usageErr(finding.T("--interval: %s is too short (at least 10ms)", "--interval:%s 太短（至少 10ms）"), o.Interval)
	case o.Duration < 0:
		return usageErr(finding.T("--duration: must not be negative", "--duration：不能为负数"))
	case o.Duration > 0 && o.Duration < 2*o.Interval:
		return usageErr(finding.T("--duration %s: must cover at least two intervals of %s", "--duration %s：至少要覆盖两个 %s 的采样间隔"), o.Duration, o.Interval)
	case o.PID != 0 && o.JVM != "":
		return usageErr(finding.T("--pid and --jvm are exclusive", "--pid 与 --jvm 不能同时使用"))
	case o.JVM != "" && o.JVM != "auto":
		return usageErr(finding.T("--jvm: only \"auto\" is supported (or give --pid)", "--jvm：只支持 \"auto\"（或使用 --pid）"))
	case o.PID < 0:
		return usageErr(finding.T("--pid: %d is not a process id", "--pid:%d 不是有效的进程号"), o.PID)
	case o.ThreadDumps < 0 || o.ThreadDumps > 100:
		return usageErr(finding.T("--thread-dumps: want 0 to 100, got %d", "--thread-dumps：应为 0 到 100，实际为 %d"), o.ThreadDumps)
	case o.ThreadDumps > 0 && o.PID == 0 && o.JVM == "":
		return usageErr(finding.T("--thread-dumps needs a JVM target (--pid or --jvm auto)", "--thread-dumps 需要 JVM 目标（--pid 或 --jvm auto）"))
	}
	if o.Remote.multi() {
		return runRecordHosts(ctx, env, o, lang, failOn)
	}
	if o.Remote.Host != "" {
		return runRecordRemote(ctx, env, o, lang, failOn)
	}
	hooks := session.RecordHooks{OnStart: o.OnStart, Warn: func(err error) {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Localize(err, lang))
	}}
	live := newLiveStatus(env, env.Stdout, o.Quiet || o.Output != "text")
	if live.on {
		hooks.OnTick = func(r *sample.Rates, el time.Duration) { live.show(report.RecordLiveLine(r, el, o.Duration, lang)) }
	}
	prom, err := o.Prom.start(env, lang)
	if err != nil {
		return err
	}
	defer prom.Stop()
	hooks.OnTick = prom.OnTick(hooks.OnTick)
	rec, err := session.Record(ctx, session.RecordOptions{Duration: o.Duration, Interval: o.Interval, PID: o.PID,
		JVMAuto: o.JVM == "auto", Out: o.Out, Catalog: o.Catalog, NoCatalog: o.NoCatalog, Getenv: env.Getenv,
		Enable: o.Enable, Disable: o.Disable, Argv: o.Argv, ThreadDumps: o.ThreadDumps}, hooks)
	live.clear()
	if err != nil && (rec == nil || rec.Layers == nil) {
		return sessionErr(err)
	}
	// With an error here the folder could not be completed (a full disk):
	// what was measured is still reported, then the error.
	if werr := writeRunReport(env.Stdout, report.NewRunBrief(rec.Layers, rec.Decision, lang), o.Output); werr != nil {
		return werr
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("the run folder could not be completed (%v): the report above is what was measured; the folder keeps what was written and its manifest says why",
			"运行目录未能写完整（%v）：上面的报告就是测得的结果；目录保留了已写入的内容，其 manifest 记录了原因"), err)}
	}
	if o.Output == "text" {
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("run folder:", "运行目录：").In(lang), rec.Folder.Dir)
	}
	return failOnGate(failOn, rec.Decision.Findings)
}

// sessionErr gives a usage error of the session its exit code.
func sessionErr(err error) error {
	var ue *session.UsageError
	if errors.As(err, &ue) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return err
}

func catalogPath(env *Env, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return catalog.DefaultPath(env.Getenv)
}

// writeRunReport writes a run's brief (record, analyze RUN_DIR) in the
// --output format (validated before; text otherwise).
func writeRunReport(w io.Writer, p *report.RunPage, output string) error {
	f, ok := report.RunFormats().Parse(output)
	if !ok {
		f = report.Text
	}
	if err := report.WriteRun(w, p, f); err != nil {
		return finding.Errorf(finding.T("writing the report: %v", "写报告：%v"), err)
	}
	return nil
}
