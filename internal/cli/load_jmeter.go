package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
	"github.com/tuneloop/tuneloop/internal/jmx"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
)

// jmeterStartTimeout bounds JMeter's start until its first sample (a JVM,
// and for remote engines the RMI handshake with each).
const jmeterStartTimeout = 2 * time.Minute

// runLoadJMeter is `tuneloop load --jmx PLAN` with JMeter sending the load:
// the plan's own bounds unless -d or -c are given (then each thread group
// runs that long, with those users), the JTL followed into the same summary
// and page as the built-in generator's, JMeter stopped at the end, on
// Ctrl-C, and by the watchdog when tuneloop is killed.
func runLoadJMeter(ctx context.Context, env *Env, o *LoadOptions, ec engineChoice) error {
	lang := env.Lang()
	for _, bad := range []struct {
		set  bool
		flag string
	}{{o.Requests > 0, "-n"}, {o.Connections > 0, "--connections"}, {o.RampUp > 0, "--ramp-up"},
		{o.Think > 0, "--think"}, {o.Timeout > 0, "--timeout"}, {len(o.Headers) > 0, "-H"}, {o.NoKeepAlive, "--no-keepalive"},
		{o.Insecure, "-k"}, {o.HTTP2, "--http2"}, {o.ExpectBody != "" || len(o.ExpectStatus) > 0, "--expect-*"}} {
		if bad.set {
			return usageErr(finding.T("%s: with JMeter as the engine the plan sets this (its timers, thread groups, HTTP settings); give --engine builtin to use the flag",
				"%s：以 JMeter 为引擎时由计划设置（其定时器、线程组、HTTP 设置）；要使用该参数请给出 --engine builtin"), bad.flag)
		}
	}
	if o.Users < 0 || o.Duration < 0 || o.WarmUp < 0 {
		return usageErr(finding.T("counts and durations must not be negative", "数量和时长不能为负数"))
	}
	if ec.Why.EN != "" {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", ec.Why.In(lang))
	}
	// A load is always bounded: a plan that loops forever runs -d (10 s by default).
	if o.Duration == 0 && !planBounded(o.JMX, o.JProps) {
		o.Duration = loadgen.DefaultDuration
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Tf(finding.T("the plan loops until stopped: running it for %s (-d)", "计划会一直循环直到被停止：运行 %s（-d）"), o.Duration).In(lang))
	}
	tmp, err := os.MkdirTemp("", "tuneloop-jmeter-")
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	keepTmp := false
	defer func() {
		if !keepTmp {
			os.RemoveAll(tmp)
		}
	}()
	plan := o.JMX
	if o.Duration > 0 || o.Users > 0 || o.Rate > 0 {
		b, err := os.ReadFile(o.JMX)
		if err != nil {
			return usageErr(finding.T("--jmx: %v", "--jmx：%v"), err)
		}
		rp := jmeter.RunPlan{Users: o.Users, Rate: o.Rate}
		if len(ec.Remote) > 0 {
			rp.Rate /= float64(len(ec.Remote)) // each engine runs the whole plan
		}
		if o.Duration > 0 {
			rp.Seconds = int((o.WarmUp+o.Duration+jmeterStartTimeout)/time.Second) + 30
		}
		if len(ec.Remote) == 0 {
			if abs, err := filepath.Abs(o.JMX); err == nil {
				rp.BaseDir = filepath.Dir(abs)
			}
		}
		out, _, err := jmeter.ForRun(b, rp)
		if err != nil {
			return usageErr(finding.T("--jmx %s: %v", "--jmx %s：%v"), o.JMX, err)
		}
		plan = filepath.Join(tmp, "plan.jmx")
		if err := os.WriteFile(plan, out, 0o644); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	wd, err := launch.StartWatchdog(launch.JournalDir(env.Getenv))
	if err != nil {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Tf(finding.T("no watchdog: %v (a kill of tuneloop would leave JMeter running)",
			"没有看护进程：%v（杀死 tuneloop 会让 JMeter 继续运行）"), err).In(lang))
	}
	defer wd.Done()
	eng, err := jmeter.Start(jmeter.Options{Install: ec.Install, Plan: plan, Dir: tmp, Props: o.JProps, Remote: ec.Remote})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	wd.Note(launch.Entry{Op: launch.OpEngine, PGID: eng.PID(), GraceMS: 2000, Started: launch.ProcStart(eng.PID())})
	defer func() {
		eng.Kill()
		wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: eng.PID()})
	}()
	if !o.Quiet {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Tf(finding.T("JMeter %s started (pid %d), waiting for its first sample", "JMeter %s 已启动（pid %d），等待第一个样本"),
			ec.Install.Home, eng.PID()).In(lang))
	}
	fail := func(err error) error {
		keepTmp = true
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%v\n(JMeter's files are kept in %s)", "%v\n（JMeter 的文件保留在 %s）"), err, tmp)}
	}
	if err := eng.WaitFirst(ctx, jmeterStartTimeout); err != nil {
		return fail(err)
	}
	// A plan bounded by itself counts from JMeter's start; a window of -d
	// starts at the first sample (JMeter's start-up, seconds of a JVM and
	// for remote engines their handshake, is not the window's).
	from := eng.Started
	if o.Duration > 0 {
		from = time.Now()
	}
	if o.WarmUp > 0 {
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-eng.Done():
		case <-time.After(o.WarmUp):
		}
		from = time.Now()
	}
	var rec *report.LoadRecorder
	var sink loadgen.SampleSink
	if o.HTML != "" {
		rec = report.NewLoadRecorder()
		sink = rec
	}
	live := newLiveStatus(env, env.Stderr, o.Quiet)
	var onSecond func(loadgen.Progress)
	if live.on {
		onSecond = func(p loadgen.Progress) { live.show(report.LoadLiveLine(p, lang)) }
	}
	sum, err := eng.Measure(ctx, jmeter.MeasureOptions{From: from, Duration: o.Duration, Target: o.JMX, Sink: sink, OnSecond: onSecond})
	live.clear()
	if err != nil {
		return fail(err)
	}
	if o.JTL != "" {
		if err := copyFile(eng.JTL, o.JTL); err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--jtl: %w", err)}
		}
	}
	return emitSummary(env, o, sum, rec)
}

// planBounded reports a plan whose every thread group ends by itself (a
// loop count or a scheduler duration), as far as the plan reader sees.
func planBounded(path string, jprops []string) bool {
	props, err := jpropMap(jprops)
	if err != nil {
		return false
	}
	p, _, _, _ := jmx.Load(path, props)
	if p == nil || len(p.Groups) == 0 {
		return false
	}
	for _, g := range p.Groups {
		if g.Loops < 0 && g.Duration == 0 {
			return false
		}
	}
	return true
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
