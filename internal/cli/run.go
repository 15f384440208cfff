package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/session"
)

func newRunCmd(env *Env) *cobra.Command {
	o := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run --target URL [-c N | --rate R] [-d 2m] [--start CMD | --pid PID | --jvm auto]",
		Short: helpText(finding.T("Load the service while recording host and JVM, then diagnose and write the report", "对服务施加负载，同时记录主机和 JVM，然后诊断并写出报告")),
		Long: helpText(finding.T(
			`The whole loop in one command: optionally start the service and wait until it
answers, audit the host (check), switch GC logging on at run time, warm up,
then load the service while recording the host and the JVM (per-CPU time,
softirqs, per-thread CPU, periodic thread dumps), and finally diagnose across
the layers and write one run folder with report.html (self-contained),
report.md and report.json.

The verdict joins the layers as an engineer would: low CPU + blocked request
threads + the lock they wait for and what its holder does -> the root cause
and its fix; GC throughput high -> GC is not the bottleneck.

A service started with --start belongs to the run: it is stopped at the end
(SIGTERM to its JVM, --stop-timeout, then SIGKILL), and so is everything the
run switched on in it (JFR, GC logging), even when tuneloop itself is killed;
--keep-service leaves it running.

Exit status: 0 when the run completed, 3 when --fail-on is given and a
finding at or above that severity exists (in any run of --repeat, judged
after the last), 1 on error: also when the service
exited during the run, when it never answered (then run takes three thread
dumps and reports what the JVM was doing), when the load got no answer at
all, or when the run
folder could not be completed (a full disk); the report of what was measured
is still printed and kept. 2 on bad usage.`,
			`一条命令走完整个闭环：可选地启动服务并等待其应答，审计主机（check），在运行时
开启 GC 日志，预热，然后对服务施加负载，同时记录主机和 JVM（逐 CPU 时间、
软中断、逐线程 CPU、周期性线程转储），最后跨层诊断，写出一个运行目录，内含
report.html（自包含）、report.md 和 report.json。

结论像工程师一样把各层关联起来：CPU 低 + 请求线程阻塞 + 它们等待的锁及其持有者
正在做什么 -> 根因及其修复方法；GC 吞吐量高 -> GC 不是瓶颈。

用 --start 启动的服务属于本次运行：结束时会停止它（向其 JVM 发送 SIGTERM，等待
--stop-timeout，然后 SIGKILL），运行中在它里面开启的一切（JFR、GC 日志）也会关闭，
即使 tuneloop 自身被杀死也是如此；--keep-service 让服务继续运行。

退出码：运行完成为 0；给出 --fail-on 且存在达到该严重级别的发现时为 3（--repeat 的任一次运行中，
在最后一次之后判定）；出错为 1：
服务在运行中退出、服务始终没有应答（此时会抓取 3 次线程转储并报告 JVM 当时在做什么）、
负载完全没有得到应答、或运行目录未能写完整（磁盘已满）时也为 1，
此时测得结果的报告仍会打印并保留。用法错误为 2。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop run --target http://127.0.0.1:8080/api -c 60 -d 2m --jvm auto
  tuneloop run --target http://127.0.0.1:8080/api -c 50 -d 1m --start 'java -jar app.jar'
  tuneloop run --target http://127.0.0.1:8080/api --rate 2000 -d 5m --pid 4127 --lang zh
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jtl-watch results.jtl --pid 4127  # JMeter drives the load
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jmx plan.jmx --engine jmeter --pid 4127`,
			`  tuneloop run --target http://127.0.0.1:8080/api -c 60 -d 2m --jvm auto
  tuneloop run --target http://127.0.0.1:8080/api -c 50 -d 1m --start 'java -jar app.jar'
  tuneloop run --target http://127.0.0.1:8080/api --rate 2000 -d 5m --pid 4127 --lang zh
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jtl-watch results.jtl --pid 4127  # 由 JMeter 施加负载
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jmx plan.jmx --engine jmeter --pid 4127`,
		)),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(o.Argv) == 0 {
				o.Argv = os.Args
			}
			return RunRun(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Target, "target", "", helpText(finding.T("URL to load (and to poll until the service answers)", "施加负载的 URL（也用于轮询，直到服务应答）")))
	f.IntVarP(&o.Users, "users", "c", 0, helpText(finding.T("closed model: concurrent users (default 50 unless --rate)", "闭合模型：并发用户数（未指定 --rate 时默认 50）")))
	f.Float64Var(&o.Rate, "rate", 0, helpText(finding.T("open model: requests per second", "开放模型：每秒请求数")))
	f.DurationVarP(&o.Duration, "duration", "d", 60*time.Second, helpText(finding.T("measured load duration", "计入结果的负载时长")))
	f.DurationVar(&o.WarmUp, "warm-up", -1, helpText(finding.T("warm-up load before measuring (default: a tenth of --duration, at most 30s)", "测量前的预热负载时长（默认：--duration 的十分之一，最多 30s）")))
	f.DurationVar(&o.Interval, "interval", time.Second, helpText(finding.T("sampling interval", "采样间隔")))
	f.DurationVar(&o.DumpEvery, "dump-every", 0, helpText(finding.T("take a thread dump this often (default: 5 dumps over the run)", "每隔这么长时间采集一次线程转储（默认：整个运行期间共 5 次）")))
	f.StringVar(&o.Start, "start", "", helpText(finding.T("start the service with this shell command, stop it at the end", "用该 shell 命令启动服务，结束时将其停止")))
	f.DurationVar(&o.StartTimeout, "start-timeout", 90*time.Second, helpText(finding.T("how long to wait for the service to answer", "等待服务应答的最长时间")))
	f.DurationVar(&o.StopTimeout, "stop-timeout", 10*time.Second, helpText(finding.T("--start: how long the service has to exit after SIGTERM before SIGKILL", "--start：服务收到 SIGTERM 后在 SIGKILL 之前可用于退出的时间")))
	f.BoolVar(&o.KeepService, "keep-service", false, helpText(finding.T("--start: leave the service running at the end", "--start：结束时让服务继续运行")))
	f.IntVar(&o.PID, "pid", 0, helpText(finding.T("PID of the JVM to record", "要记录的 JVM 的 PID")))
	f.StringVar(&o.JVM, "jvm", "", helpText(finding.T(`"auto": the largest running JVM`, `"auto"：运行中最大的 JVM`)))
	f.StringVarP(&o.Scenario, "scenario", "f", "", helpText(finding.T("YAML scenario for the load (see tuneloop load)", "负载使用的 YAML 场景文件（见 tuneloop load）")))
	f.StringVar(&o.JMX, "jmx", "", helpText(finding.T("JMeter test plan for the load (see tuneloop load); the run's -d bounds it", "负载使用的 JMeter 测试计划（见 tuneloop load）；由本次运行的 -d 限定时长")))
	f.StringArrayVarP(&o.JProps, "jmeter-property", "J", nil, helpText(finding.T("JMeter property name=value for ${__P(name)} in --jmx (repeatable)", "--jmx 中 ${__P(name)} 使用的 JMeter 属性 name=value（可重复指定）")))
	f.BoolVar(&o.JMXSkip, "jmx-skip-unsupported", false, helpText(finding.T("run a --jmx plan without the elements tuneloop cannot run (listed) instead of refusing it", "跳过 tuneloop 无法执行的元素（会列出）继续执行 --jmx 计划，而不是拒绝执行")))
	o.Engine.flags(cmd)
	f.StringVar(&o.JTLWatch, "jtl-watch", "", helpText(finding.T("an external load writes this JMeter JTL: no load is generated, its samples in the run window are the load result", "由外部压测写入该 JMeter JTL：tuneloop 不产生负载，以运行时间窗口内的样本作为负载结果")))
	f.StringVar(&o.Out, "out", "", helpText(finding.T("run folder (default ./runs/<timestamp>-<host>)", "运行目录（默认 ./runs/<timestamp>-<host>）")))
	outputFlag(f, &o.Output, report.RunFormats())
	langFlag(f, &o.Lang)
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("workload profile for the host audit", "主机审计使用的负载配置档")))
	failOnFlag(f, &o.FailOn)
	f.StringVar(&o.Probe, "probe", "", helpText(finding.T("a probe folder of this host ('tuneloop probe'), copied into the run: the verdict and the host audit cite its figures (default: the newest finished probe of this host in the catalog, unless --no-catalog, or under ./probes)", "本机的探测目录（'tuneloop probe'），会复制进运行目录：结论与主机审计引用其中的指标（默认：运行记录目录中（除非 --no-catalog）或 ./probes 下本机最新的已完成探测结果）")))
	catalogFlag(f, &o.Catalog, catalogOfRuns)
	f.BoolVar(&o.NoCatalog, "no-catalog", false, helpText(finding.T("do not add the run to the catalog", "不把本次运行加入运行记录目录")))
	f.BoolVar(&o.NoGCLog, "no-gc-log", false, helpText(finding.T("do not switch GC logging on in the JVM", "不在 JVM 中开启 GC 日志")))
	f.BoolVar(&o.NoJFR, "no-jfr", false, helpText(finding.T("do not record a JFR profile during the load", "负载期间不录制 JFR 剖析数据")))
	f.BoolVarP(&o.Quiet, "quiet", "q", false, helpText(finding.T("no live status line", "不显示实时状态行")))
	o.Prom.flags(cmd)
	o.Remote.flagsMulti(cmd)
	f.IntVar(&o.Repeat, "repeat", 1, helpText(finding.T("run the same load N times into --out/run-1..N, for 'tuneloop compare' with confidence intervals", "把同样的负载运行 N 次，写入 --out/run-1..N，供 'tuneloop compare' 计算置信区间")))
	f.StringVar(&o.StartB, "start-b", "", helpText(finding.T("--repeat N: also start variant B with this command and run A and B in turn (A1 B1 A2 B2 ...) into --out/a and --out/b, then compare them as pairs", "配合 --repeat N：再用该命令启动变体 B，A 与 B 轮流运行（A1 B1 A2 B2 ...），写入 --out/a 与 --out/b，然后按配对比较")))
	f.StringVar(&o.TargetB, "target-b", "", helpText(finding.T("--repeat N: also load variant B at this URL (a second running service), A and B in turn, then compare them as pairs", "配合 --repeat N：再压测该 URL 上的变体 B（另一个正在运行的服务），A 与 B 轮流进行，然后按配对比较")))
	f.Float64Var(&o.FailOnRegPct, "fail-on-regression", 0, helpText(finding.T("with --start-b/--target-b: exit 3 when B regressed significantly beyond this percent (as compare; 4: inconclusive)", "配合 --start-b/--target-b：B 显著回退且超过该百分比时以退出码 3 结束（同 compare；4 表示无法判断）")))
	return cmd
}

// RunRun is the whole `run` command (one run, --repeat N, or A and B
// interleaved then compared); tests call it directly.
func RunRun(ctx context.Context, env *Env, o *RunOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	profile, err := profileOpt(o.Profile)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, report.RunFormats())
	if err != nil {
		return err
	}
	o.Output = string(format)
	if err := o.check(); err != nil {
		return err
	}
	usersGiven, dumps := o.fillDefaults()
	o.Engine.hosts = o.Remote.any()
	jm, cfg, err := runLoad(o, env, lang, usersGiven)
	if err != nil {
		return err
	}
	var hosts *session.HostsOptions
	if o.Remote.any() {
		if hosts, err = runHostsOptions(env, o, cfg, jm, dumps, lang); err != nil {
			return err
		}
	}
	var hooks session.RunHooks
	if o.Output == "text" {
		hooks.Note = func(msg finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", msg.In(lang)) }
	}
	live := newLiveStatus(env, env.Stderr, o.Quiet || o.Output != "text")
	if live.on {
		hooks.OnLoad = func(p loadgen.Progress) { live.show(report.RunLiveLine(p, o.Duration, lang)) }
	}
	prom, err := o.Prom.start(env, lang)
	if err != nil {
		return err
	}
	defer prom.Stop()
	hooks.OnLoad = prom.OnLoad(hooks.OnLoad)
	so := session.SeriesOptions{Run: session.RunOptions{Target: o.Target, Load: cfg, WarmUp: o.WarmUp, Interval: o.Interval,
		ThreadDumps: dumps, Start: o.Start, StartTimeout: o.StartTimeout, StopTimeout: o.StopTimeout, KeepService: o.KeepService, PID: o.PID,
		JVMAuto: o.JVM == "auto", JTLWatch: o.JTLWatch, JMeter: jm, Out: o.Out, Profile: profile, Catalog: o.Catalog,
		NoCatalog: o.NoCatalog, Getenv: env.Getenv, NoGCLog: o.NoGCLog, NoJFR: o.NoJFR, Argv: o.Argv,
		Probe: o.Probe, ProbeRoot: o.ProbeRoot}, Hooks: hooks, Lang: lang, Repeat: o.Repeat}
	// Each run's summary: on stdout, or on stderr when the A/B comparison
	// is what stdout gets.
	out := env.Stdout
	if ab := o.StartB != "" || o.TargetB != ""; ab {
		if so.B, err = variantB(o, env, jm == nil, usersGiven); err != nil {
			return err
		}
		so.FailOnRegPct, out = o.FailOnRegPct, env.Stderr
	}
	so.Hosts = hosts
	// --fail-on is judged once, over every run: a finding in run 1 of
	// --repeat 8 must not cut runs 2-8, or the A/B comparison, short.
	var gate error
	judge := func(fs []finding.Finding) {
		if gate == nil {
			gate = failOnGate(failOn, fs)
		}
	}
	so.DoneHosts = func(r *session.HostsResult) error {
		judge(r.Findings)
		return writeHosts(out, r, o.Output, lang, nil)
	}
	so.Done = func(r *session.Reported) error {
		live.clear()
		judge(r.Decision.Findings)
		return writeRunDone(out, r, o.Output, lang, nil)
	}
	res, err := session.Series(ctx, so)
	if err != nil {
		live.clear()
		return sessionErr(err)
	}
	if c := res.Comparison; c != nil {
		if err := writeComparison(env.Stdout, c, nil, report.Format(o.Output), lang, o.FailOnRegPct); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return gate
}

// writeRunDone prints one finished run's summary; a run that failed
// (service ended, never answered, folder incomplete, no answer to the
// load) exits 1 after it, else --fail-on decides.
func writeRunDone(w io.Writer, r *session.Reported, output string, lang finding.Lang, failOn *finding.Severity) error {
	if r.Page.Folder == "" {
		r.Page.Folder = r.Folder.Dir
	}
	if err := writeRunReport(w, r.Page, output); err != nil {
		return err
	}
	if ferr := r.Failure(); ferr != nil {
		return &ExitError{Code: ExitFailure, Err: ferr}
	}
	return failOnGate(failOn, r.Decision.Findings)
}
