package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// RunOptions say what `tuneloop run` does; the cli has validated them.
type RunOptions struct {
	Target   string         // URL polled until the service answers ("" with JTLWatch)
	Load     loadgen.Config // the measured load (Duration is the measured window)
	WarmUp   time.Duration
	Interval time.Duration
	// ThreadDumps thread dumps of the JVM are spread over the load.
	ThreadDumps  int
	Start        string        // shell command starting the service; "" = it runs already
	StartTimeout time.Duration // default 90 s
	StopTimeout  time.Duration // the service's grace to exit at the end (default 10 s)
	// KeepService leaves a --start service running at the end (and when
	// tuneloop is killed): by default it belongs to the run.
	KeepService bool
	PID         int
	JVMAuto     bool
	// JTLWatch is a JMeter JTL an external load writes: no load is
	// generated, its samples in the run window are the load result.
	JTLWatch string
	// JMeter, when set, sends the load instead of tuneloop's generator:
	// Load.Duration is the window, the warm-up excluded the same way.
	JMeter  *JMeterLoad
	Out     string
	Profile rules.Profile // for the host audit
	// Probe is a probe folder of this host whose figures the audit and the
	// verdict cite (copied into the run as probe.RunFile); "" looks for
	// the newest finished probe of this host in the catalog (not with
	// NoCatalog) or under ProbeRoot (default probe.DefaultRoot). A probe
	// of another host is not used (a note).
	Probe, ProbeRoot string
	Catalog          string
	NoCatalog        bool
	Getenv           func(string) string
	NoGCLog          bool
	NoJFR            bool
	Argv             []string
	// Detail, when set, sees every sample of the measured load (besides
	// Load.Sink) and is kept in the folder as loaddetail.File when the load
	// ends, also when it was cut short: the report's load over time.
	Detail LoadDetailer
}

// LoadDetailer records a load's samples into its detail over time
// (report.LoadRecorder), given the load's summary at the end.
type LoadDetailer interface {
	loadgen.SampleSink
	Detail(*loadgen.Summary) *loaddetail.Detail
}

// RunHooks are the caller's view of a run in progress; any may be nil.
type RunHooks struct {
	// Note hears each step and what could not be done without failing the
	// run (no GC log, no JFR).
	Note func(msg finding.Text)
	// OnLoad is called once a second during the measured load.
	OnLoad func(p loadgen.Progress)
}

// RunResult is a finished run: its folder, every layer parsed once and the
// decision, for the cli to page and print.
type RunResult struct {
	Folder   *run.Folder
	Layers   *verdict.Layers
	Decision *verdict.Decision
	JFR      string    // JFRFile when a recording was collected
	Recorder *run.Cost // what the recorder cost (not the load generator)
	// Service is set when the service ended during the run: the run
	// stopped then, and what it holds covers the time until then.
	Service *run.ServiceEnd
	// Unready is set when the service did not answer in time: the run was
	// then a short diagnosis of why (thread dumps, GC, a probe load).
	Unready error
	// Load is the measured load's summary, also when it could not be saved.
	Load *loadgen.Summary
	// WriteErr is a failure to write the folder at the end (a full disk):
	// Layers and Decision hold what was measured, the manifest says why
	// the folder is incomplete.
	WriteErr error
}

// ServiceEndText is how the service ended, in one line, for the caller's
// message.
func ServiceEndText(se *run.ServiceEnd) finding.Text { return serviceEndText(se) }

func (h RunHooks) note(t finding.Text, args ...any) {
	if h.Note != nil {
		h.Note(finding.Tf(t, args...))
	}
}

// Run launches the service (when asked), waits until it answers, finds its
// JVM, audits the host, switches GC logging and JFR on, warms up, then runs
// the measured load and the recorder side by side and collects every layer
// into the run folder, diagnosed.
func Run(ctx context.Context, o RunOptions, hooks RunHooks) (res *RunResult, err error) {
	var unready error // the service runs and did not answer in time: diagnosed, not left
	h := hostfs.Live()
	start := time.Now()
	if o.StartTimeout <= 0 {
		o.StartTimeout = 90 * time.Second
	}
	dir := o.Out
	if dir == "" {
		host, _ := os.Hostname()
		if dir, err = ClaimDefaultDir(start, host); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				_ = os.Remove(dir) // only while still empty: the run never started
			}
		}()
	}
	// Before anything is started or switched on: a folder that cannot be
	// the run's is known now, not after the warm-up.
	if err := CheckOut(dir); err != nil {
		return nil, err
	}
	if err := CheckSpace(dir, o.Load.Duration+o.WarmUp); err != nil {
		return nil, err
	}
	if o.Start != "" && o.Target != "" {
		if err := CheckPortFree(o.Target); err != nil {
			return nil, err
		}
	}

	// 0. What an earlier run killed with its watchdog left on, undone; a
	// watchdog of our own outlives us to undo what this run starts and
	// switches on, should we be killed (SIGKILL runs no defer).
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	journals := launch.JournalDir(getenv)
	for _, t := range launch.RecoverJournals(journals) {
		hooks.note(finding.T("%s", "%s"), t)
	}
	var wd *launch.Watchdog
	if o.Start != "" || o.PID != 0 || o.JVMAuto || o.JMeter != nil {
		wd, err = launch.StartWatchdog(journals)
		if err != nil {
			hooks.note(finding.T("no watchdog: %v (a kill of tuneloop would leave the service and its JFR running)",
				"没有看护进程：%v（杀死 tuneloop 会让服务及其 JFR 继续运行）"), err)
		}
		defer wd.Done() // after the service is stopped: defers run last-in first-out
	}

	// 1. The service.
	pid := o.PID
	if pid != 0 {
		// A stopped JVM (state T) answers nothing: say so now rather than
		// after the start timeout.
		if err := attach.CheckRunnable(pid); err != nil {
			return nil, err
		}
	}
	var svc *launch.Service
	if o.Start != "" {
		svc, err = launch.Start(o.Start, dir+".service.log")
		if err != nil {
			return nil, err
		}
		svc.StopTimeout = o.StopTimeout
		grace := o.StopTimeout
		if grace <= 0 {
			grace = launch.DefaultStopTimeout
		}
		wd.Note(launch.Entry{Op: launch.OpService, PGID: svc.Cmd.Process.Pid, GraceMS: grace.Milliseconds(), Started: launch.ProcStart(svc.Cmd.Process.Pid)})
		if o.KeepService {
			wd.Note(launch.Entry{Op: launch.OpKeep})
		}
		defer func() {
			if !o.KeepService {
				svc.Stop()
				if t := svc.KilledText(); t != nil {
					hooks.note(finding.T("%s", "%s"), *t)
				}
			}
			// The service log belongs in the run folder once it exists.
			if _, err := os.Stat(filepath.Join(dir, "raw")); err == nil {
				_ = os.Rename(svc.LogPath, filepath.Join(dir, "raw", "service.log"))
			}
		}()
		hooks.note(finding.T("started %s", "已启动 %s"), o.Start)
		if o.Target != "" {
			if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, svc); err != nil {
				if unready = notReady(err); unready == nil {
					return nil, err
				}
			}
		}
		if pid = svc.WaitJVM(ctx, h, 5*time.Second); pid == 0 {
			if unready != nil {
				return nil, unready
			}
			return nil, finding.Errorf(finding.T("--start %q: no JVM found among the processes it started", "--start %q：在它启动的进程中没有找到 JVM"), o.Start)
		}
	} else if o.Target != "" {
		if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, nil); err != nil {
			if unready = notReady(err); unready == nil || (pid == 0 && !o.JVMAuto) {
				return nil, err
			}
		}
	}
	if unready != nil {
		// A JVM that runs and does not answer: instead of leaving, look at
		// what it does: a short probe load (its requests time out), three
		// thread dumps a second apart, the GC state, and the verdict.
		hooks.note(finding.T("%v; diagnosing why (3 thread dumps a second apart)", "%v；正在诊断原因（间隔一秒的 3 次线程转储）"), unready)
		o.WarmUp, o.NoJFR, o.ThreadDumps = 0, true, 3
		o.Interval = min(o.Interval, 500*time.Millisecond)
		if o.Interval <= 0 {
			o.Interval = 500 * time.Millisecond
		}
		o.Load.Duration, o.Load.Timeout = 4*time.Second, time.Second
		o.Load.Users, o.Load.Rate = 2, 0
		if o.JMeter != nil { // the probe is ours: JMeter's start would outlast it
			o.JMeter, o.Load.Requests, o.Load.Sequence, o.Load.Groups = nil, []loadgen.Request{{URL: o.Target}}, false, nil
		}
	}

	// 2. The host audit, before any load.
	facts := sysinfo.Collect(h, sysinfo.Options{})
	pr, _, note, perr := probe.For(o.Probe, orDefault(o.ProbeRoot, probe.DefaultRoot), ProbeLookup(ctx, o.Catalog, o.NoCatalog, getenv), facts)
	if perr != nil {
		note = finding.Tf(finding.T("--probe: %v: not used", "--probe：%v：未使用"), perr)
	}
	if !note.IsZero() {
		hooks.note(finding.T("%s", "%s"), note)
	}
	check := rules.EvaluateProbe(rules.All(), facts, o.Profile, pr.Costs(probe.RunFile))

	// 3. GC logging, switched on at run time when it is off.
	if pid == 0 && o.JVMAuto {
		if tgt, err := pickTarget(h, facts, 0, true); err == nil && tgt != nil {
			pid = tgt.PID
		}
	}
	if pid != 0 {
		wd.Note(launch.Entry{Op: launch.OpJVM, PID: pid, Started: launch.ProcStart(pid)})
	}
	jvm := &jvmSide{pid: pid, wd: wd}
	defer func() {
		if err != nil {
			jvm.abandon(ctx)
		}
	}()
	// From here the service's end stops the run at once (runCtx's cause).
	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	var watch *serviceWatch
	if svc != nil || pid != 0 {
		watch = watchService(svc, pid, cancelRun)
		defer watch.close()
	}
	if pid != 0 && !o.NoGCLog {
		if err := jvm.enableGCLog(ctx, start); err != nil {
			hooks.note(finding.T("GC log not available: %v", "无法获取 GC 日志：%v"), err)
		}
	}

	// 4. Warm-up, then load and record together. JMeter starts now (a JVM
	// takes seconds): its warm-up is the time after its first sample.
	var engine *engineRun
	if o.JMeter != nil {
		engine, err = startEngine(runCtx, o, dir, wd, hooks)
		if err != nil {
			return nil, err
		}
		defer func() {
			engine.stop()
			engine.keep(dir)
		}()
		if se := watch.gone(); se != nil {
			return nil, finding.Errorf(finding.T("during the warm-up, %s; its log ends with:\n%s", "预热期间，%s；其日志结尾：\n%s"),
				serviceEndText(se), finding.Safe(strings.Join(se.LastLog, "\n")))
		}
	}
	if o.JTLWatch == "" && o.JMeter == nil && o.WarmUp > 0 {
		hooks.note(finding.T("warming up for %s", "预热 %s"), o.WarmUp)
		wcfg := o.Load
		wcfg.Duration, wcfg.OnSecond = o.WarmUp, nil
		if _, err := loadgen.Run(runCtx, wcfg); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if se := watch.gone(); se != nil {
			return nil, finding.Errorf(finding.T("during the warm-up, %s; its log ends with:\n%s", "预热期间，%s；其日志结尾：\n%s"),
				serviceEndText(se), finding.Safe(strings.Join(se.LastLog, "\n")))
		}
	}
	// JFR execution samples for the flame graph, over the measured window.
	if pid != 0 && !o.NoJFR {
		if err := jvm.startJFR(runCtx, start); err != nil {
			hooks.note(finding.T("JFR not available: %v", "无法使用 JFR：%v"), err)
		}
	}
	dumps := o.ThreadDumps
	if pid == 0 {
		dumps = 0
	}
	ropts := RecordOptions{Duration: o.Load.Duration + o.Interval, Interval: o.Interval, PID: pid, Out: dir,
		Catalog: o.Catalog, NoCatalog: o.NoCatalog, Getenv: o.Getenv, Argv: o.Argv, ThreadDumps: dumps}
	recorder := func(ctx context.Context, started func()) (*recording, error) {
		return record(ctx, h, facts, ropts, RecordHooks{OnStart: func(string) { started() }, Warn: func(err error) {
			hooks.note(finding.T("%v", "%v"), err)
		}})
	}
	var loadStart time.Time
	load := func(ctx context.Context) (*loadgen.Summary, error) {
		loadStart = time.Now()
		if watch != nil {
			watch.loadStarted(loadStart)
		}
		if o.JTLWatch != "" {
			select {
			case <-ctx.Done():
			case <-time.After(o.Load.Duration):
			}
			return importWindow(o.JTLWatch, loadStart, time.Now())
		}
		if engine != nil {
			// No stall watch: JMeter writes its JTL in buffered pieces, so
			// a quiet second says little; the service watch still holds.
			return engine.measure(ctx, o, hooks)
		}
		cfg := o.Load
		if unready != nil {
			// The probe of a service that never answered: a port that never
			// opened (it hung before listening) is what the probe found, not
			// a failure of the run.
			sum, err := loadgen.Run(ctx, cfg)
			var te *loadgen.TargetError
			if errors.As(err, &te) {
				select { // the recorder's dumps and samples go on over the probe's time
				case <-ctx.Done():
				case <-time.After(cfg.Duration):
				}
				return &loadgen.Summary{Source: "probe", Target: o.Target, Requests: 1, Errors: 1,
					ErrorKinds: map[string]int64{te.Kind.String(): 1}}, nil
			}
			return sum, err
		}
		if o.Detail != nil {
			cfg.Sink = loadgen.Tee(cfg.Sink, o.Detail)
		}
		timeout := cfg.Timeout
		if timeout <= 0 {
			timeout = 10 * time.Second // loadgen's default
		}
		stall := stallWatch{firstWait: timeout + stallAfter}
		cfg.OnSecond = func(p loadgen.Progress) {
			if hooks.OnLoad != nil {
				hooks.OnLoad(p)
			}
			// A service that answered its probe and then nothing for a
			// while: stop now and look at it (not when unready: its probe
			// load is meant to get no answer).
			if unready == nil && o.Target != "" && stall.see(p) {
				cancelRun(&errStalled{at: stall.last})
			}
		}
		return loadgen.Run(ctx, cfg)
	}
	rec, sum, err := together(runCtx, recorder, load)
	if err != nil {
		return nil, err
	}
	se := watch.close()
	var stalled *errStalled
	if se == nil && errors.As(context.Cause(runCtx), &stalled) {
		// Stopped answering: its threads now say why.
		hooks.note(finding.T("the service stopped answering at %+.1f s of the load: taking 3 thread dumps a second apart",
			"服务在负载的第 %+.1f 秒停止应答：正在间隔一秒抓取 3 次线程转储"), stalled.at.Seconds())
		if pid != 0 {
			dumpStalled(context.WithoutCancel(ctx), rec, pid)
		}
		se = &run.ServiceEnd{PID: pid, ExitCode: -1, AtS: stalled.at.Seconds(), Hung: true}
		if svc != nil {
			se.LastLog = svc.LogLines(10)
		}
	}
	if se != nil {
		// The evidence up to that moment is the run's, analysed as such.
		rec.w.Manifest().Service = se
		rec.reason = serviceEndText(se).EN
		rec.status = run.Interrupted
		if sum != nil {
			sum.Interrupted = true
		}
	}

	// The generator's CPU is getrusage of this process, the recorder's
	// samplers included: their measured cost is taken out, so load.json
	// holds the generator's own (the manifest keeps the process's too).
	// JMeter's CPU is its own processes' (/proc): nothing to take out.
	if mc := rec.w.Manifest().Cost; sum != nil && sum.ClientCPU > 0 && mc != nil {
		if engine != nil {
			mc.Generator = &run.GeneratorCost{CPUPct: sum.ClientCPU, ProcessCPUPct: sum.ClientCPU, Cores: runtime.NumCPU(), Engine: "jmeter"}
		} else {
			mc.Generator = generatorCost(sum.ClientCPU, runtime.GOMAXPROCS(0), mc)
			sum.ClientCPU = math.Round(mc.Generator.CPUPct*1000) / 1000
		}
	}

	// 5. Collect the layers into the folder. A write that fails (a full
	// disk) stops nothing: what was measured is still diagnosed, printed
	// and kept, and the manifest says why the folder is incomplete.
	var writeErr error
	if err := run.WriteJSONAtomic(filepath.Join(dir, verdict.LoadFile), sum); err != nil {
		writeErr = err
	}
	if err := run.WriteJSONAtomic(filepath.Join(dir, verdict.CheckFile), check); err != nil && writeErr == nil {
		writeErr = err
	}
	if pr != nil {
		// The probe goes with the run: analyze reads it offline.
		if err := run.WriteJSONAtomic(filepath.Join(dir, probe.RunFile), pr); err != nil && writeErr == nil {
			writeErr = err
		} else if err == nil {
			rec.w.Manifest().Raw = append(rec.w.Manifest().Raw, probe.RunFile)
		}
	}
	var detail *loaddetail.Detail
	if o.Detail != nil && sum != nil {
		if detail = o.Detail.Detail(sum); detail != nil {
			if err := run.WriteJSONAtomic(filepath.Join(dir, loaddetail.File), detail); err != nil && writeErr == nil {
				writeErr = err
			}
		}
	}
	jfrOn := jvm.jfr != ""
	// Collected and switched off also after Ctrl-C (the run ends with what
	// it has, the JVM is left as it was found), within a bound of its own.
	cctx, cancelCollect := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancelCollect()
	_, lost := jvm.collect(cctx, dir, func(err error) { hooks.note(finding.T("%v", "%v"), err) })
	if len(lost) > 0 {
		lostErr := fmt.Errorf("not kept whole: %s", strings.Join(lost, "; "))
		if writeErr == nil {
			writeErr = lostErr
		} else {
			writeErr = fmt.Errorf("%w; %v", writeErr, lostErr)
		}
	}
	// What could not be collected (a dead JVM, a failed attach) is still
	// switched off, and its files in /tmp removed.
	jvm.abandon(cctx)
	if se != nil {
		launch.RemoveStaleAttach(pid)
	}
	if writeErr != nil {
		rec.reason = strings.TrimPrefix(rec.reason+"; ", "; ") + "the run folder could not be completed: " + writeErr.Error()
		rec.status = run.Interrupted
	}
	done, err := rec.finish(ctx, ropts, RecordHooks{Warn: func(err error) { hooks.note(finding.T("%v", "%v"), err) }})
	var we *run.WriteError
	if errors.As(err, &we) && done != nil {
		if writeErr != nil {
			writeErr = fmt.Errorf("%w; %v", we, writeErr) // and what else was lost
		} else {
			writeErr = we
		}
		err = nil
	}
	if err != nil {
		return nil, err
	}
	res = &RunResult{Folder: done.Folder, Layers: done.Layers, Decision: done.Decision, Recorder: done.Folder.Manifest.Cost,
		Service: se, Load: sum, WriteErr: writeErr, Unready: unready}
	if done.Layers != nil && done.Layers.Load == nil {
		done.Layers.Load = sum // measured, though load.json could not be written
	}
	if done.Layers != nil && done.Layers.LoadDetail == nil {
		done.Layers.LoadDetail = detail
	}
	if _, err := os.Stat(filepath.Join(dir, JFRFile)); jfrOn && err == nil {
		res.JFR = JFRFile
	}
	return res, nil
}

// together runs the measured load and the recorder side by side: the load
// starts once the recorder has its folder, and an error on either side
// stops the other at once. The recorder ends on its own (its duration) once
// the load is done.
func together(ctx context.Context,
	recorder func(ctx context.Context, started func()) (*recording, error),
	load func(ctx context.Context) (*loadgen.Summary, error)) (*recording, *loadgen.Summary, error) {
	recCtx, stopRec := context.WithCancel(ctx)
	defer stopRec()
	loadCtx, stopLoad := context.WithCancelCause(ctx)
	defer stopLoad(nil)
	started := make(chan struct{})
	done := make(chan struct{})
	var rec *recording
	var recErr error
	go func() {
		defer close(done)
		rec, recErr = recorder(recCtx, func() { close(started) })
		if recErr != nil {
			stopLoad(fmt.Errorf("the recorder failed: %w", recErr))
		} else {
			// It ends after the load unless the target ended or ctx did:
			// the load has nothing left to measure then.
			stopLoad(errRecorderEnded)
		}
	}()
	select {
	case <-started:
	case <-done:
		if recErr == nil {
			recErr = errors.New("the recorder ended before it started")
		}
		return nil, nil, recErr
	}
	sum, lerr := load(loadCtx)
	if lerr != nil {
		stopRec()
	}
	<-done
	switch {
	case recErr != nil:
		return nil, nil, recErr
	case lerr != nil:
		return nil, nil, lerr
	case ctx.Err() == nil && loadCtx.Err() != nil && !errors.Is(context.Cause(loadCtx), errRecorderEnded):
		return nil, nil, context.Cause(loadCtx)
	}
	return rec, sum, nil
}

// notReady is err when it is a running service that did not answer in
// time; nil for any other failure (it exited, Ctrl-C).
func notReady(err error) error {
	var nr *launch.NotReadyError
	if errors.As(err, &nr) {
		return err
	}
	return nil
}

// errRecorderEnded stops a load whose recorder ended before it (the
// target exited).
var errRecorderEnded = errors.New("the recorder ended (the target exited)")

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
