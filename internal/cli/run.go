package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/session"
)

// RunOptions are the flags of `tuneloop run`.
type RunOptions struct {
	Target       string
	Users        int
	Rate         float64
	Duration     time.Duration
	WarmUp       time.Duration
	Interval     time.Duration
	DumpEvery    time.Duration
	Start        string
	StartTimeout time.Duration
	StopTimeout  time.Duration
	KeepService  bool
	PID          int
	JVM          string
	Scenario     string
	JMX          string
	JProps       []string
	JMXSkip      bool
	JTLWatch     string
	Engine       engineOptions // --engine, --jmeter, --jmeter-remote
	Out          string
	Output       string // text, json or markdown on stdout
	Lang         string
	Profile      string
	FailOn       string
	Catalog      string
	NoCatalog    bool
	NoGCLog      bool
	NoJFR        bool
	Quiet        bool
	Argv         []string
	Repeat       int // --repeat N: N runs into Out/run-1..N
	Prom         promOptions
	Remote       hostOptions // --host, --hosts: load here, record there
	// Probe is a probe folder of this host (--probe); "" looks for the
	// newest of this host under ProbeRoot (default probe.DefaultRoot).
	Probe, ProbeRoot string

	// --start-b / --target-b: a second variant, run interleaved with the
	// first (a1 b1 a2 b2 ...) into Out/a and Out/b, then compared.
	StartB, TargetB string
	FailOnRegPct    float64 // the A/B comparison's gate (compare --fail-on-regression)
}

func newRunCmd(env *Env) *cobra.Command {
	o := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run --target URL [-c N | --rate R] [-d 2m] [--start CMD | --pid PID | --jvm auto]",
		Short: "Load the service while recording host and JVM, then diagnose and write the report",
		Long: `The whole loop in one command: optionally start the service and wait until it
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
finding at or above that severity exists, 1 on error: also when the service
exited during the run, when it never answered (then run takes three thread
dumps and reports what the JVM was doing), when the load got no answer at
all, or when the run
folder could not be completed (a full disk); the report of what was measured
is still printed and kept. 2 on bad usage.`,
		Example: `  tuneloop run --target http://127.0.0.1:8080/api -c 60 -d 2m --jvm auto
  tuneloop run --target http://127.0.0.1:8080/api -c 50 -d 1m --start 'java -jar app.jar'
  tuneloop run --target http://127.0.0.1:8080/api --rate 2000 -d 5m --pid 4127 --lang zh
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jtl-watch results.jtl --pid 4127  # JMeter drives the load
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jmx plan.jmx --engine jmeter --pid 4127`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(o.Argv) == 0 {
				o.Argv = os.Args
			}
			if o.StartB != "" || o.TargetB != "" {
				return runAB(cmd.Context(), env, o)
			}
			if o.Repeat > 1 {
				_, err := session.Repeat(cmd.Context(), session.RepeatOptions{N: o.Repeat, Out: o.Out}, func(ctx context.Context, _, dir string) error {
					one := *o
					one.Out = dir
					return RunRun(ctx, env, &one)
				})
				return err
			}
			return RunRun(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Target, "target", "", "URL to load (and to poll until the service answers)")
	f.IntVarP(&o.Users, "users", "c", 0, "closed model: concurrent users (default 50 unless --rate)")
	f.Float64Var(&o.Rate, "rate", 0, "open model: requests per second")
	f.DurationVarP(&o.Duration, "duration", "d", 60*time.Second, "measured load duration")
	f.DurationVar(&o.WarmUp, "warm-up", -1, "warm-up load before measuring (default: a tenth of --duration, at most 30s)")
	f.DurationVar(&o.Interval, "interval", time.Second, "sampling interval")
	f.DurationVar(&o.DumpEvery, "dump-every", 0, "take a thread dump this often (default: 5 dumps over the run)")
	f.StringVar(&o.Start, "start", "", "start the service with this shell command, stop it at the end")
	f.DurationVar(&o.StartTimeout, "start-timeout", 90*time.Second, "how long to wait for the service to answer")
	f.DurationVar(&o.StopTimeout, "stop-timeout", 10*time.Second, "--start: how long the service has to exit after SIGTERM before SIGKILL")
	f.BoolVar(&o.KeepService, "keep-service", false, "--start: leave the service running at the end")
	f.IntVar(&o.PID, "pid", 0, "PID of the JVM to record")
	f.StringVar(&o.JVM, "jvm", "", `"auto": the largest running JVM`)
	f.StringVarP(&o.Scenario, "scenario", "f", "", "YAML scenario for the load (see tuneloop load)")
	f.StringVar(&o.JMX, "jmx", "", "JMeter test plan for the load (see tuneloop load); the run's -d bounds it")
	f.StringArrayVarP(&o.JProps, "jmeter-property", "J", nil, "JMeter property name=value for ${__P(name)} in --jmx (repeatable)")
	f.BoolVar(&o.JMXSkip, "jmx-skip-unsupported", false, "run a --jmx plan without the elements tuneloop cannot run (listed) instead of refusing it")
	o.Engine.flags(cmd)
	f.StringVar(&o.JTLWatch, "jtl-watch", "", "an external load writes this JMeter JTL: no load is generated, its samples in the run window are the load result")
	f.StringVar(&o.Out, "out", "", "run folder (default ./runs/<timestamp>-<host>)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or markdown")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), "workload profile for the host audit")
	f.StringVar(&o.FailOn, "fail-on", "", "exit 3 if a finding is at least this severe: warning or critical")
	f.StringVar(&o.Probe, "probe", "", "a probe folder of this host ('tuneloop probe'), copied into the run: the verdict and the host audit cite its figures (default: the newest probe of this host under ./probes)")
	f.StringVar(&o.Catalog, "catalog", "", "catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)")
	f.BoolVar(&o.NoCatalog, "no-catalog", false, "do not add the run to the catalog")
	f.BoolVar(&o.NoGCLog, "no-gc-log", false, "do not switch GC logging on in the JVM")
	f.BoolVar(&o.NoJFR, "no-jfr", false, "do not record a JFR profile during the load")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no live status line")
	o.Prom.flags(cmd)
	o.Remote.flagsMulti(cmd)
	f.IntVar(&o.Repeat, "repeat", 1, "run the same load N times into --out/run-1..N, for 'tuneloop compare' with confidence intervals")
	f.StringVar(&o.StartB, "start-b", "", "--repeat N: also start variant B with this command and run A and B in turn (A1 B1 A2 B2 ...) into --out/a and --out/b, then compare them as pairs")
	f.StringVar(&o.TargetB, "target-b", "", "--repeat N: also load variant B at this URL (a second running service), A and B in turn, then compare them as pairs")
	f.Float64Var(&o.FailOnRegPct, "fail-on-regression", 0, "with --start-b/--target-b: exit 3 when B regressed significantly beyond this percent (as compare; 4: inconclusive)")
	return cmd
}

// runAB runs variants A and B in turn, --repeat pairs (session.RepeatAB),
// each run's summary on stderr, then prints their comparison, judged pair
// by pair, on stdout with compare's gate and exit codes.
func runAB(ctx context.Context, env *Env, o *RunOptions) error {
	if o.Repeat < 2 {
		return usageErr(finding.T("--start-b/--target-b need --repeat N with N >= 2 (pairs of runs; 3 or more recommended)", "--start-b/--target-b 需要 --repeat N 且 N >= 2（成对运行；建议 3 次及以上）"))
	}
	quiet := *env
	quiet.Stdout = env.Stderr
	dirA, dirB, err := session.RepeatAB(ctx, session.RepeatOptions{N: o.Repeat, Out: o.Out}, session.Variant{Start: o.Start, Target: o.Target},
		session.Variant{Start: orDefaultStr(o.StartB, o.Start), Target: orDefaultStr(o.TargetB, o.Target)},
		func(ctx context.Context, v session.Variant, dir string) error {
			one := *o
			one.Out, one.Start, one.Target = dir, v.Start, v.Target
			return RunRun(ctx, &quiet, &one)
		})
	if err != nil {
		return err
	}
	return RunCompareArgs(ctx, env, &CompareOptions{Output: o.Output, Lang: o.Lang, FailOnRegPct: o.FailOnRegPct, Design: compare.DesignPaired}, []string{dirA, dirB}, -1)
}

// RunRun is the whole `run` command; tests call it directly.
func RunRun(ctx context.Context, env *Env, o *RunOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	profile, err := rules.ParseProfile(orDefaultStr(o.Profile, string(rules.JavaWeb)))
	if err != nil {
		return usageErr(finding.T("--profile: %v", "--profile:%v"), err)
	}
	switch {
	case o.Target == "" && o.JTLWatch == "":
		return usageErr(finding.T("--target URL is required (or --jtl-watch for an external load)", "需要 --target URL（外部压测时用 --jtl-watch）"))
	case o.Users > 0 && o.Rate > 0:
		return usageErr(finding.T("-c/--users and --rate are exclusive", "-c/--users 与 --rate 不能同时使用"))
	case o.FailOnRegPct != 0 && o.StartB == "" && o.TargetB == "":
		return usageErr(finding.T("--fail-on-regression gates an A/B run: give --start-b or --target-b (or gate two run folders with tuneloop compare)",
			"--fail-on-regression 用于 A/B 运行：请给出 --start-b 或 --target-b（或用 tuneloop compare 对两个运行目录做门禁）"))
	case o.Duration < 2*o.Interval:
		return usageErr(finding.T("--duration %s: too short for --interval %s", "--duration %s：对 --interval %s 来说太短"), o.Duration, o.Interval)
	case !report.RunFormats().Has(report.Format(o.Output)):
		_, err := outputFormat(o.Output, report.RunFormats())
		return err
	case o.PID != 0 && (o.JVM != "" || o.Start != ""):
		return usageErr(finding.T("--pid excludes --jvm and --start", "--pid 不能与 --jvm、--start 同时使用"))
	}
	usersGiven := o.Users > 0
	if o.Users == 0 && o.Rate == 0 {
		o.Users = 50
	}
	if o.WarmUp < 0 {
		o.WarmUp = min(o.Duration/10, 30*time.Second)
	}
	ec, err := chooseEngine(o.Engine, o.JMX, o.JProps, o.JMXSkip, env)
	if err != nil {
		return err
	}
	var jm *session.JMeterLoad
	var cfg loadgen.Config
	if ec.Install != nil {
		switch {
		case o.Rate > 0:
			return usageErr(finding.T("--rate: with JMeter as the engine the plan sets the pace (a Constant Throughput Timer); give --engine builtin for --rate",
				"--rate：以 JMeter 为引擎时由计划控制节奏（Constant Throughput Timer）；要用 --rate 请给出 --engine builtin"))
		case o.JTLWatch != "":
			return usageErr(finding.T("--jtl-watch reads a JMeter you started yourself: not with --engine jmeter", "--jtl-watch 读取你自己启动的 JMeter：不能与 --engine jmeter 同时使用"))
		case o.Remote.File != "" || len(o.Remote.Hosts) > 0:
			return usageErr(finding.T("--host/--hosts with --engine jmeter is not supported yet: run JMeter's engines with --jmeter-remote and record the hosts separately",
				"--host/--hosts 暂不支持与 --engine jmeter 同时使用：请用 --jmeter-remote 运行 JMeter 引擎，并分别记录各主机"))
		}
		if ec.Why.EN != "" {
			fmt.Fprintf(env.Stderr, "tuneloop: %s\n", ec.Why.In(lang))
		}
		jm = &session.JMeterLoad{Install: ec.Install, Plan: o.JMX, Props: o.JProps, Remote: ec.Remote}
		if usersGiven {
			jm.Users = o.Users
		}
		cfg = loadgen.Config{Duration: o.Duration, Users: o.Users}
	} else if cfg, err = runLoadConfig(o, env); err != nil {
		return err
	}
	dumps := 5
	if o.DumpEvery > 0 {
		dumps = max(1, int(o.Duration/o.DumpEvery))
	}
	if o.Probe != "" {
		if o.Remote.File != "" || len(o.Remote.Hosts) > 0 {
			return usageErr(finding.T("--probe is for a run on this host: not with --host/--hosts", "--probe 用于本机上的运行：不能与 --host/--hosts 同时使用"))
		}
		if _, _, err := probe.Read(o.Probe); err != nil {
			return usageErr(finding.T("--probe: %v", "--probe：%v"), err)
		}
	}
	if o.Remote.File != "" || len(o.Remote.Hosts) > 0 {
		return runRunHosts(ctx, env, o, cfg, dumps, lang, failOn)
	}
	var hooks session.RunHooks
	if o.Output == "text" {
		hooks.Note = func(msg finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", msg.In(lang)) }
	}
	live := o.Output == "text" && !o.Quiet && env.Terminal
	if live {
		hooks.OnLoad = func(p loadgen.Progress) {
			fmt.Fprintf(env.Stderr, "\r\033[K● %s / %s  TPS %.0f  p99 %.1f ms  %s %d", clock(p.Elapsed), clock(o.Duration),
				float64(p.Last.Requests), p.Last.P99, finding.T("errors", "错误").In(lang), p.Errors)
		}
	}
	prom, err := o.Prom.start(env, lang)
	if err != nil {
		return err
	}
	defer prom.stop()
	hooks.OnLoad = prom.onLoad(hooks.OnLoad)
	res, err := session.Run(ctx, session.RunOptions{Target: o.Target, Load: cfg, WarmUp: o.WarmUp, Interval: o.Interval,
		ThreadDumps: dumps, Start: o.Start, StartTimeout: o.StartTimeout, StopTimeout: o.StopTimeout, KeepService: o.KeepService, PID: o.PID,
		JVMAuto: o.JVM == "auto", JTLWatch: o.JTLWatch, JMeter: jm, Out: o.Out, Profile: profile, Catalog: o.Catalog,
		NoCatalog: o.NoCatalog, Getenv: env.Getenv, NoGCLog: o.NoGCLog, NoJFR: o.NoJFR, Argv: o.Argv,
		Probe: o.Probe, ProbeRoot: o.ProbeRoot, Detail: report.NewLoadRecorder()}, hooks)
	if live {
		fmt.Fprint(env.Stderr, "\r\033[K")
	}
	if err != nil {
		return sessionErr(err)
	}
	dir := res.Folder.Dir
	page, all := report.NewRunPage(res.Layers, res.Decision, lang), res.Decision.Findings
	page.Folder = dir
	// A report that cannot be written (a full disk) does not hide what was
	// measured: it is printed below and the manifest says why.
	writeErr := res.WriteErr
	if writeErr == nil {
		if err := writeRunReports(dir, page); err != nil {
			writeErr = err
			run.MarkFailed(dir, &res.Folder.Manifest, err)
		}
	}
	if err = writeRunReport(env.Stdout, page, o.Output); err != nil {
		return err
	}
	switch {
	case res.Service != nil:
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%s: the run stopped then; the report covers the run until that moment",
			"%s：运行随即停止；报告只覆盖到这一刻"), session.ServiceEndText(res.Service))}
	case res.Unready != nil:
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%v: the report above says what the JVM was doing instead (thread dumps, GC)",
			"%v：上面的报告说明了 JVM 当时在做什么（线程转储、GC）"), res.Unready)}
	case writeErr != nil:
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("the run folder %s could not be completed (%v): the summary above is what was measured; the folder keeps what was written and its manifest says why",
			"运行目录 %s 未能写完整（%v）：上面的摘要就是测得的结果；目录保留了已写入的内容，其 manifest 记录了原因"), dir, writeErr)}
	case res.Load != nil && res.Load.NoSuccess() != nil:
		return &ExitError{Code: ExitFailure, Err: res.Load.NoSuccess()}
	}
	if failOn != nil {
		if worst, any := finding.Worst(all); any && worst >= *failOn {
			return &ExitError{Code: ExitFindings}
		}
	}
	return nil
}

func orDefaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// runLoadConfig turns the flags (and the scenario) into a load config.
func runLoadConfig(o *RunOptions, env *Env) (loadgen.Config, error) {
	if o.JMX != "" {
		// The plan's users, requests and pauses; the run's duration bounds it.
		cfg, err := jmxConfig(o.JMX, o.JProps, o.JMXSkip, env)
		cfg.Duration, cfg.MaxRequests = o.Duration, 0
		cfg.Unloop()
		return cfg, err
	}
	cfg := loadgen.Config{Users: o.Users, Rate: o.Rate, Duration: o.Duration}
	if o.Target != "" {
		cfg.Requests = []loadgen.Request{{URL: o.Target}}
	}
	if o.Scenario != "" {
		if err := loadgen.LoadScenario(o.Scenario, &cfg); err != nil {
			return cfg, err
		}
		cfg.Duration = o.Duration
	}
	return cfg, nil
}

// jfrRecording is the run's JFR file in its raw/ folder.
const jfrRecording = session.JFRFile

// writeRunReports writes report.html, report.md and report.json into dir.
func writeRunReports(dir string, p *report.RunPage) error {
	for _, r := range []struct {
		name  string
		write func(io.Writer, *report.RunPage) error
	}{
		{"report.html", html.WriteRun},
		{"report.md", func(w io.Writer, p *report.RunPage) error { return report.WriteRun(w, p, report.Markdown) }},
		{"report.json", func(w io.Writer, p *report.RunPage) error { return report.WriteRun(w, p, report.JSON) }},
	} {
		var b bytes.Buffer
		if err := r.write(&b, p); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
