package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
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
	PID          int
	JVM          string
	Scenario     string
	JTLWatch     string
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
and its fix; GC throughput high -> GC is not the bottleneck.`,
		Example: `  tuneloop run --target http://127.0.0.1:8080/api -c 60 -d 2m --jvm auto
  tuneloop run --target http://127.0.0.1:8080/api -c 50 -d 1m --start 'java -jar app.jar'
  tuneloop run --target http://127.0.0.1:8080/api --rate 2000 -d 5m --pid 4127 --lang zh
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jtl-watch results.jtl --pid 4127  # JMeter drives the load`,
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
	f.IntVar(&o.PID, "pid", 0, "PID of the JVM to record")
	f.StringVar(&o.JVM, "jvm", "", `"auto": the largest running JVM`)
	f.StringVarP(&o.Scenario, "scenario", "f", "", "YAML scenario for the load (see tuneloop load)")
	f.StringVar(&o.JTLWatch, "jtl-watch", "", "an external load writes this JMeter JTL: no load is generated, its samples in the run window are the load result")
	f.StringVar(&o.Out, "out", "", "run folder (default ./runs/<timestamp>-<host>)")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or markdown")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), "workload profile for the host audit")
	f.StringVar(&o.FailOn, "fail-on", "", "exit 3 if a finding is at least this severe: warning or critical")
	f.StringVar(&o.Catalog, "catalog", "", "catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)")
	f.BoolVar(&o.NoCatalog, "no-catalog", false, "do not add the run to the catalog")
	f.BoolVar(&o.NoGCLog, "no-gc-log", false, "do not switch GC logging on in the JVM")
	f.BoolVar(&o.NoJFR, "no-jfr", false, "do not record a JFR profile during the load")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no live status line")
	return cmd
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
	case o.Duration < 2*o.Interval:
		return usageErr(finding.T("--duration %s: too short for --interval %s", "--duration %s：对 --interval %s 来说太短"), o.Duration, o.Interval)
	case o.Output != "text" && o.Output != "json" && o.Output != "markdown":
		return usageErr(finding.T("--output: want text, json or markdown", "--output：应为 text、json 或 markdown"))
	case o.PID != 0 && (o.JVM != "" || o.Start != ""):
		return usageErr(finding.T("--pid excludes --jvm and --start", "--pid 不能与 --jvm、--start 同时使用"))
	}
	if o.Users == 0 && o.Rate == 0 {
		o.Users = 50
	}
	if o.WarmUp < 0 {
		o.WarmUp = min(o.Duration/10, 30*time.Second)
	}
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	h := hostfs.Live()
	start := time.Now()
	dir := o.Out
	if dir == "" {
		host, _ := os.Hostname()
		dir = filepath.Join("runs", start.UTC().Format("20060102-150405")+"-"+unsafeName.ReplaceAllString(orDefaultStr(host, "host"), "_"))
	}
	if _, err := os.Stat(filepath.Join(dir, run.ManifestFile)); err == nil {
		return fmt.Errorf("%s already holds a run: choose another --out", dir)
	}
	say := func(format string, args ...any) {
		if o.Output == "text" {
			fmt.Fprintf(env.Stderr, "tuneloop: "+format+"\n", args...)
		}
	}

	// 1. The service.
	var svc *launch.Service
	if o.Start != "" {
		svc, err = launch.Start(o.Start, filepath.Join(dir+".service.log"))
		if err != nil {
			return err
		}
		defer func() {
			svc.Stop()
			// The service log belongs in the run folder once it exists.
			if _, err := os.Stat(dir); err == nil {
				_ = os.Rename(svc.LogPath, filepath.Join(dir, "raw", "service.log"))
			}
		}()
		say("%s %s", t("started", "已启动"), o.Start)
	}
	if o.Target != "" {
		if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, svc); err != nil {
			return err
		}
	}
	pid := o.PID
	if svc != nil {
		for i := 0; i < 50 && pid == 0; i++ {
			if pid = launch.FindJVM(h, svc.Cmd.Process.Pid); pid == 0 {
				time.Sleep(100 * time.Millisecond)
			}
		}
		if pid == 0 {
			return fmt.Errorf("--start %q: no JVM found among the processes it started", o.Start)
		}
	}

	// 2. The host audit, before any load.
	facts := sysinfo.Collect(h, sysinfo.Options{})
	checkFindings := rules.Evaluate(rules.All(), facts, profile)

	// 3. GC logging, switched on at run time when it is off.
	var gcl *attach.GCLog
	if pid == 0 && o.JVM == "auto" {
		if tgt, err := pickTarget(h, facts, &RecordOptions{JVM: "auto"}); err == nil && tgt != nil {
			pid = tgt.PID
		}
	}
	if pid != 0 && !o.NoGCLog {
		if g, err := enableGCLog(ctx, pid, start); err != nil {
			say("%s: %v", t("GC log not available", "无法获取 GC 日志"), err)
		} else {
			gcl = g
		}
	}

	// 4. Warm-up, then load and record together.
	cfg, err := runLoadConfig(o)
	if err != nil {
		return err
	}
	if o.JTLWatch == "" && o.WarmUp > 0 {
		say("%s %s", t("warming up for", "预热"), o.WarmUp)
		wcfg := cfg
		wcfg.Duration, wcfg.OnSecond = o.WarmUp, nil
		if _, err := loadgen.Run(ctx, wcfg); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	// JFR execution samples for the flame graph, over the measured window.
	var jfrFile string
	if pid != 0 && !o.NoJFR {
		if jfrFile, err = startJFR(ctx, pid, start); err != nil {
			say("%s: %v", t("JFR not available", "无法使用 JFR"), err)
		}
	}
	dumps := 5
	if o.DumpEvery > 0 {
		dumps = max(1, int(o.Duration/o.DumpEvery))
	}
	if pid == 0 {
		dumps = 0
	}
	started := make(chan struct{})
	var recErr error
	var recOut bytes.Buffer
	var wg sync.WaitGroup
	recCtx, stopRec := context.WithCancel(ctx)
	defer stopRec()
	wg.Add(1)
	go func() {
		defer wg.Done()
		renv := &Env{Stdout: &recOut, Stderr: io.Discard, Getenv: env.Getenv}
		recErr = RunRecord(recCtx, renv, &RecordOptions{Duration: o.Duration + o.Interval, Interval: o.Interval,
			PID: pid, Out: dir, Catalog: o.Catalog, NoCatalog: o.NoCatalog, Output: "json", Lang: string(lang),
			Argv: o.Argv, ThreadDumps: dumps, Quiet: true, OnStart: func(string) { close(started) }})
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		stopRec()
		wg.Wait()
		return fmt.Errorf("the recorder did not start: %v", recErr)
	}
	loadStart := time.Now()
	var sum *loadgen.Summary
	if o.JTLWatch == "" {
		if o.Output == "text" && !o.Quiet && env.Terminal {
			cfg.OnSecond = func(p loadgen.Progress) {
				fmt.Fprintf(env.Stderr, "\r\033[K● %s / %s  TPS %.0f  p99 %.1f ms  %s %d", clock(p.Elapsed), clock(o.Duration),
					float64(p.Last.Requests), p.Last.P99, t("errors", "错误"), p.Errors)
			}
		}
		sum, err = loadgen.Run(ctx, cfg)
		if cfg.OnSecond != nil {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		if err != nil {
			stopRec()
			wg.Wait()
			return err
		}
	} else {
		select {
		case <-ctx.Done():
		case <-time.After(o.Duration):
		}
	}
	wg.Wait()
	if recErr != nil {
		return recErr
	}
	if o.JTLWatch != "" {
		if sum, err = importWindow(o.JTLWatch, loadStart, time.Now()); err != nil {
			return err
		}
	}

	// 5. Collect the layers into the folder.
	folder, err := run.Open(dir)
	if err != nil {
		return err
	}
	if err := run.WriteJSONAtomic(filepath.Join(dir, "load.json"), sum); err != nil {
		return err
	}
	if err := run.WriteJSONAtomic(filepath.Join(dir, "check.json"), checkFindings); err != nil {
		return err
	}
	var gcFiles []string
	if gcl != nil {
		gcFiles = collectGCLog(ctx, pid, gcl, dir)
	}
	if jfrFile != "" {
		if err := collectJFR(ctx, pid, jfrFile, dir); err != nil {
			say("%s: %v", t("JFR recording not collected", "未能收集 JFR 记录"), err)
		}
	}
	res, err := diagnose.Analyze(folder)
	if err != nil {
		return err
	}
	page, all := buildRunPage(folder, res, sum, checkFindings, gcFiles, lang)
	if err := writeRunReports(dir, page); err != nil {
		return err
	}

	switch o.Output {
	case "json":
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(page)
	case "markdown":
		err = report.WriteRunPageMarkdown(env.Stdout, page)
	default:
		err = writeRunSummaryText(env.Stdout, page, dir, lang)
	}
	if err != nil {
		return err
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
func runLoadConfig(o *RunOptions) (loadgen.Config, error) {
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

// importWindow summarises the samples of a JMeter JTL that fall in [from, to].
func importWindow(path string, from, to time.Time) (*loadgen.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--jtl-watch: %w", err)
	}
	defer f.Close()
	r, err := jtl.ImportWindow(f, from, to)
	if err != nil {
		return nil, fmt.Errorf("--jtl-watch %s: %w", path, err)
	}
	r.Summary.Source = path
	return r.Summary, nil
}

// enableGCLog attaches and switches GC logging on to a file in the JVM's
// /tmp, unless it already logs GC to a file.
func enableGCLog(ctx context.Context, pid int, start time.Time) (*attach.GCLog, error) {
	vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	g, err := vm.EnableGCLog(ctx, fmt.Sprintf("/tmp/tuneloop-gc-%d-%d.log", pid, start.Unix()))
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// jfrRecording is the run's JFR file in its raw/ folder.
const jfrRecording = "raw/recording.jfr"

// startJFR starts a profiling JFR recording in the JVM, to a file in its /tmp.
func startJFR(ctx context.Context, pid int, start time.Time) (string, error) {
	vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second})
	if err != nil {
		return "", err
	}
	file := fmt.Sprintf("/tmp/tuneloop-%d-%d.jfr", pid, start.Unix())
	if _, err := vm.Execute(ctx, "JFR.start", "name=tuneloop", "settings=profile", "filename="+file); err != nil {
		return "", err
	}
	return file, nil
}

// collectJFR stops the recording (which writes it) and moves it into raw/.
func collectJFR(ctx context.Context, pid int, file, dir string) error {
	vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	if _, err := vm.Execute(ctx, "JFR.stop", "name=tuneloop"); err != nil {
		return err
	}
	src := fmt.Sprintf("/proc/%d/root%s", pid, file)
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	_ = os.Remove(src) // ours: leave nothing behind in the JVM's /tmp
	return os.WriteFile(filepath.Join(dir, jfrRecording), b, 0o644)
}

// collectGCLog copies the GC log (and its rotated parts) into raw/ and
// switches off the output tuneloop switched on.
func collectGCLog(ctx context.Context, pid int, g *attach.GCLog, dir string) []string {
	if g.File == "" {
		return nil
	}
	if g.Enabled {
		if vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second}); err == nil {
			_, _ = vm.Execute(ctx, "VM.log", fmt.Sprintf("output=#%d", g.Index), "what=all=off")
		}
	}
	root := fmt.Sprintf("/proc/%d/root", pid)
	matches, _ := filepath.Glob(root + g.File + "*")
	sort.Strings(matches)
	var out []string
	for i, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil || len(b) == 0 {
			continue
		}
		name := filepath.Join(dir, "raw", "gc-"+strconv.Itoa(i)+".log")
		if err := os.WriteFile(name, b, 0o644); err == nil {
			out = append(out, name)
		}
		if g.Enabled {
			_ = os.Remove(m) // our own file: leave nothing behind in the JVM's /tmp
		}
	}
	return out
}

// writeRunReports writes report.html, report.md and report.json into dir.
func writeRunReports(dir string, p *report.RunPage) error {
	for _, r := range []struct {
		name  string
		write func(io.Writer, *report.RunPage) error
	}{
		{"report.html", report.WriteRunHTML},
		{"report.md", report.WriteRunPageMarkdown},
		{"report.json", func(w io.Writer, p *report.RunPage) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(p)
		}},
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

// writeRunSummaryText is what `run` prints: the verdict, the load, the top
// findings and where the reports are.
func writeRunSummaryText(w io.Writer, p *report.RunPage, dir string, l finding.Lang) error {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	fmt.Fprintf(w, "%s\n", p.Title)
	if p.Load != nil {
		fmt.Fprintf(w, "%s: %.1f TPS, p50 %.1f ms, p99 %.1f ms, %s %d/%d (%s)\n", t("load", "负载"), p.Load.TPS, p.Load.P50MS, p.Load.P99MS,
			t("errors", "错误"), p.Load.Errors, p.Load.Requests, report.ModelText(p.Load.Model).In(l))
	}
	if v := p.Verdict; v != nil {
		fmt.Fprintf(w, "\n%s %s\n", t("VERDICT:", "结论："), v.Title.In(l))
		for _, line := range strings.Split(v.Observed.In(l), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
		if rec := v.Recommended.In(l); rec != "" {
			fmt.Fprintf(w, "  %s %s\n", t("fix:", "修复："), rec)
		}
		if v.Fix.Apply != "" {
			for _, line := range strings.Split(v.Fix.Apply, "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
		if r := v.Risk.In(l); r != "" {
			fmt.Fprintf(w, "  %s %s\n", t("trade-off:", "代价："), r)
		}
	} else {
		fmt.Fprintf(w, "\n%s\n", t("VERDICT: no bottleneck found in this run.", "结论：本次运行未发现瓶颈。"))
	}
	n := 0
	for _, f := range p.Run.Findings {
		if f.Status != finding.Fail || f.ID == verdictID {
			continue
		}
		if n == 0 {
			fmt.Fprintf(w, "\n%s\n", t("Findings (ranked):", "发现（按优先级）："))
		}
		if n++; n > 8 {
			fmt.Fprintf(w, "  ... %s\n", t("see the report for the rest", "其余见报告"))
			break
		}
		fmt.Fprintf(w, "  [%s] %s  %s\n", f.Severity.Label(l), f.Key(), oneLineCLI(f.Title.In(l)))
	}
	fmt.Fprintf(w, "\n%s %s\n", t("report:", "报告："), filepath.Join(dir, "report.html"))
	return nil
}
