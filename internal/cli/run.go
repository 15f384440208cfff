package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
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
	f.StringVar(&o.Probe, "probe", "", "a probe folder of this host ('tuneloop probe'), copied into the run: the verdict and the host audit cite its figures (default: the newest finished probe of this host in the catalog, unless --no-catalog, or under ./probes)")
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

// RunRun is the whole `run` command (one run, --repeat N, or A and B
// interleaved then compared); tests call it directly.
func RunRun(ctx context.Context, env *Env, o *RunOptions) error {
	ab := o.StartB != "" || o.TargetB != ""
	if ab && o.Repeat < 2 {
		return usageErr(finding.T("--start-b/--target-b need --repeat N with N >= 2 (pairs of runs; 6 or more for a verdict at 95%%, 8 for --fail-on-regression)", "--start-b/--target-b 需要 --repeat N 且 N >= 2（成对运行；95%% 水平的结论至少需要 6 对，--fail-on-regression 至少需要 8 对）"))
	}
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
	format, err := outputFormat(o.Output, report.RunFormats())
	if err != nil {
		return err
	}
	o.Output = string(format)
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
	case o.PID != 0 && (o.JVM != "" || o.Start != "" || o.StartB != ""):
		return usageErr(finding.T("--pid excludes --jvm and --start", "--pid 不能与 --jvm、--start 同时使用"))
	}
	usersGiven := o.Users > 0
	if o.Users == 0 && o.Rate == 0 {
		o.Users = 50
	}
	if o.WarmUp < 0 {
		o.WarmUp = min(o.Duration/10, 30*time.Second)
	}
	o.Engine.hosts = o.Remote.File != "" || len(o.Remote.Hosts) > 0
	ec, err := chooseEngine(o.Engine, o.JMX, o.JProps, o.JMXSkip, env)
	if err != nil {
		return err
	}
	var jm *session.JMeterLoad
	var cfg loadgen.Config
	if ec.Install != nil {
		if o.JTLWatch != "" {
			return usageErr(finding.T("--jtl-watch reads a JMeter you started yourself: not with --engine jmeter", "--jtl-watch 读取你自己启动的 JMeter：不能与 --engine jmeter 同时使用"))
		}
		if ec.Why.EN != "" {
			fmt.Fprintf(env.Stderr, "tuneloop: %s\n", ec.Why.In(lang))
		}
		jm = &session.JMeterLoad{Install: ec.Install, Plan: o.JMX, Props: o.JProps, Remote: ec.Remote, Rate: o.Rate}
		if usersGiven {
			jm.Users = o.Users
		}
		cfg = loadgen.Config{Duration: o.Duration, Users: o.Users}
		if o.Remote.File != "" || len(o.Remote.Hosts) > 0 {
			return runJMeterHosts(ctx, env, o, jm, lang, failOn)
		}
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
	var hosts *session.HostsOptions
	if o.Remote.File != "" || len(o.Remote.Hosts) > 0 {
		if hosts, err = runHostsOptions(env, o, cfg, dumps, lang); err != nil {
			return err
		}
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
	so := session.SeriesOptions{Run: session.RunOptions{Target: o.Target, Load: cfg, WarmUp: o.WarmUp, Interval: o.Interval,
		ThreadDumps: dumps, Start: o.Start, StartTimeout: o.StartTimeout, StopTimeout: o.StopTimeout, KeepService: o.KeepService, PID: o.PID,
		JVMAuto: o.JVM == "auto", JTLWatch: o.JTLWatch, JMeter: jm, Out: o.Out, Profile: profile, Catalog: o.Catalog,
		NoCatalog: o.NoCatalog, Getenv: env.Getenv, NoGCLog: o.NoGCLog, NoJFR: o.NoJFR, Argv: o.Argv,
		Probe: o.Probe, ProbeRoot: o.ProbeRoot}, Hooks: hooks, Lang: lang, Repeat: o.Repeat}
	// Each run's summary: on stdout, or on stderr when the A/B comparison
	// is what stdout gets.
	out := env.Stdout
	if ab {
		so.B, so.FailOnRegPct, out = &session.Variant{Start: o.StartB, Target: o.TargetB}, o.FailOnRegPct, env.Stderr
		if ec.Install == nil && o.TargetB != "" {
			// B's load goes to B's URL (a plan or scenario keeps its own).
			ob := *o
			ob.Target = o.TargetB
			cfgB, err := runLoadConfig(&ob, env)
			if err != nil {
				return err
			}
			so.B.Load = &cfgB
		}
	}
	so.Hosts = hosts
	so.DoneHosts = func(r *session.HostsResult) error { return writeHosts(out, r, o.Output, lang, failOn) }
	so.Done = func(r *session.Reported) error {
		if live {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		return writeRunDone(out, r, o.Output, lang, failOn)
	}
	res, err := session.Series(ctx, so)
	if err != nil {
		if live {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		return sessionErr(err)
	}
	if c := res.Comparison; c != nil {
		regressed := o.FailOnRegPct > 0 && c.Gate(o.FailOnRegPct)
		if err := compare.Write(env.Stdout, c, nil, report.Format(o.Output), lang, o.FailOnRegPct); err != nil {
			return err
		}
		if err := comparisonExit(c, o.FailOnRegPct, regressed); err != nil {
			return err
		}
		return ctx.Err()
	}
	return nil
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
