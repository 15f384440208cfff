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
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// runner is one Run as it goes: what each step found or started, for the
// steps after it.
type runner struct {
	o     RunOptions
	hooks RunHooks
	h     hostfs.FS
	start time.Time
	dir   string

	wd      *launch.Watchdog
	svc     *launch.Service
	pid     int
	unready error // the service runs and did not answer in time: diagnosed, not left

	facts *sysinfo.Facts
	pr    *probe.Result
	check []finding.Finding

	jvm    *jvmSide
	watch  *serviceWatch
	engine *engineRun
	ropts  RecordOptions
}

// folder picks the run folder: --out, or a new default one (claimed: made
// here, removed again if the run never starts).
func (r *runner) folder() (claimed bool, err error) {
	r.dir = r.o.Out
	if r.dir != "" {
		return false, nil
	}
	host, _ := os.Hostname()
	if r.dir, err = ClaimDefaultDir(r.start, host); err != nil {
		return false, err
	}
	return true, nil
}

// preconditions are checked before anything is started or switched on: a
// folder that cannot be the run's is known now, not after the warm-up.
func (r *runner) preconditions() error {
	if err := CheckOut(r.dir); err != nil {
		return err
	}
	if err := CheckSpace(r.dir, r.o.Load.Duration+r.o.WarmUp); err != nil {
		return err
	}
	if r.o.Start != "" && r.o.Target != "" {
		if err := CheckPortFree(r.o.Target); err != nil {
			return err
		}
	}
	return nil
}

// watchdog undoes what an earlier run killed with its watchdog left on,
// and starts a watchdog of our own that outlives us to undo what this run
// starts and switches on, should we be killed (SIGKILL runs no defer).
// It says whether the run has one to end (Done).
func (r *runner) watchdog() bool {
	getenv := r.o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	journals := launch.JournalDir(getenv)
	for _, t := range launch.RecoverJournals(journals) {
		r.hooks.note(finding.T("%s", "%s"), t)
	}
	if r.o.Start == "" && r.o.PID == 0 && !r.o.JVMAuto && r.o.JMeter == nil {
		return false
	}
	var err error
	r.wd, err = launch.StartWatchdog(journals)
	if err != nil {
		r.hooks.note(finding.T("no watchdog: %v (a kill of tuneloop would leave the service and its JFR running)",
			"没有看护进程：%v（杀死 tuneloop 会让服务及其 JFR 继续运行）"), err)
	}
	return true
}

// launchService checks a --pid target and starts the --start service,
// noted to the watchdog.
func (r *runner) launchService() (err error) {
	r.pid = r.o.PID
	if r.pid != 0 {
		// A stopped JVM (state T) answers nothing: say so now rather than
		// after the start timeout.
		if err := attach.CheckRunnable(r.pid); err != nil {
			return err
		}
	}
	if r.o.Start == "" {
		return nil
	}
	r.svc, err = launch.Start(r.o.Start, r.dir+".service.log")
	if err != nil {
		return err
	}
	r.svc.StopTimeout = r.o.StopTimeout
	grace := r.o.StopTimeout
	if grace <= 0 {
		grace = launch.DefaultStopTimeout
	}
	r.wd.Note(launch.Entry{Op: launch.OpService, PGID: r.svc.Cmd.Process.Pid, GraceMS: grace.Milliseconds(), Started: launch.ProcStart(r.svc.Cmd.Process.Pid)})
	if r.o.KeepService {
		r.wd.Note(launch.Entry{Op: launch.OpKeep})
	}
	return nil
}

// stopService stops the started service (unless kept) and moves its log
// into the run folder once that exists.
func (r *runner) stopService() {
	if !r.o.KeepService {
		r.svc.Stop()
		if t := r.svc.KilledText(); t != nil {
			r.hooks.note(finding.T("%s", "%s"), *t)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, "raw")); err == nil {
		_ = os.Rename(r.svc.LogPath, filepath.Join(r.dir, "raw", "service.log"))
	}
}

// awaitService waits until the service answers and finds the JVM it
// started. A JVM that runs and does not answer is diagnosed instead of
// left: the run becomes a short probe of it.
func (r *runner) awaitService(ctx context.Context) error {
	o := &r.o
	if r.svc != nil {
		r.hooks.note(finding.T("started %s", "已启动 %s"), o.Start)
		if o.Target != "" {
			if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, r.svc); err != nil {
				if r.unready = notReady(err); r.unready == nil {
					return err
				}
			}
		}
		if r.pid = r.svc.WaitJVM(ctx, r.h, 5*time.Second); r.pid == 0 {
			if r.unready != nil {
				return r.unready
			}
			return finding.Errorf(finding.T("--start %q: no JVM found among the processes it started", "--start %q：在它启动的进程中没有找到 JVM"), o.Start)
		}
	} else if o.Target != "" {
		if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, nil); err != nil {
			if r.unready = notReady(err); r.unready == nil || (r.pid == 0 && !o.JVMAuto) {
				return err
			}
		}
	}
	if r.unready != nil {
		// A short probe load (its requests time out), three thread dumps a
		// second apart, the GC state, and the verdict.
		r.hooks.note(finding.T("%v; diagnosing why (3 thread dumps a second apart)", "%v；正在诊断原因（间隔一秒的 3 次线程转储）"), r.unready)
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
	return nil
}

// audit collects the host facts and evaluates the knowledge base on them
// (with the probe of this host, when there is one).
func (r *runner) audit(ctx context.Context) {
	r.facts = sysinfo.Collect(r.h, sysinfo.Options{})
	pr, _, note, perr := probe.For(r.o.Probe, orDefault(r.o.ProbeRoot, probe.DefaultRoot), ProbeLookup(ctx, r.o.Catalog, r.o.NoCatalog, r.o.Getenv), r.facts)
	if perr != nil {
		note = finding.Tf(finding.T("--probe: %v: not used", "--probe：%v：未使用"), perr)
	}
	if !note.IsZero() {
		r.hooks.note(finding.T("%s", "%s"), note)
	}
	r.pr = pr
	r.check = rules.EvaluateProbe(rules.All(), r.facts, r.o.Profile, pr.Costs(probe.RunFile))
}

// findJVM picks the JVM (--jvm auto), notes it to the watchdog and makes
// the side that switches GC logging and JFR on in it.
func (r *runner) findJVM() {
	if r.pid == 0 && r.o.JVMAuto {
		if tgt, err := pickTarget(r.h, r.facts, 0, true); err == nil && tgt != nil {
			r.pid = tgt.PID
		}
	}
	if r.pid != 0 {
		r.wd.Note(launch.Entry{Op: launch.OpJVM, PID: r.pid, Started: launch.ProcStart(r.pid)})
	}
	r.jvm = &jvmSide{pid: r.pid, wd: r.wd}
}

// warmUp loads the service for --warm-up (the built-in generator; JMeter
// warms up on its own); a service that ended meanwhile ends the run.
func (r *runner) warmUp(ctx context.Context) error {
	if r.o.JTLWatch == "" && r.o.JMeter == nil && r.o.WarmUp > 0 {
		r.hooks.note(finding.T("warming up for %s", "预热 %s"), r.o.WarmUp)
		wcfg := r.o.Load
		wcfg.Duration, wcfg.OnSecond = r.o.WarmUp, nil
		if _, err := loadgen.Generate(ctx, wcfg); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	} else if r.engine == nil {
		return nil
	}
	if se := r.watch.gone(); se != nil {
		return finding.Errorf(finding.T("during the warm-up, %s; its log ends with:\n%s", "预热期间，%s；其日志结尾：\n%s"),
			serviceEndText(se), finding.Safe(strings.Join(se.LastLog, "\n")))
	}
	return nil
}

// recorder is the record side of the measured window: the same tick loop
// as `record`, over the load and one interval more.
func (r *runner) recorder() func(ctx context.Context, started func()) (*recording, error) {
	dumps := r.o.ThreadDumps
	if r.pid == 0 {
		dumps = 0
	}
	r.ropts = RecordOptions{Duration: r.o.Load.Duration + r.o.Interval, Interval: r.o.Interval, PID: r.pid, Out: r.dir,
		Catalog: r.o.Catalog, NoCatalog: r.o.NoCatalog, Getenv: r.o.Getenv, Argv: r.o.Argv, ThreadDumps: dumps}
	return func(ctx context.Context, started func()) (*recording, error) {
		return record(ctx, r.h, r.facts, r.ropts, RecordHooks{OnStart: func(string) { started() }, Warn: func(err error) {
			r.hooks.note(finding.T("%v", "%v"), err)
		}})
	}
}

// load is the load side of the measured window: a JTL watched, JMeter
// measured, the probe of an unready service, or the built-in generator
// with its stall watch (a stall cancels the run through cancelRun).
func (r *runner) load(cancelRun context.CancelCauseFunc) func(ctx context.Context) (*loadgen.Summary, error) {
	o := r.o
	return func(ctx context.Context) (*loadgen.Summary, error) {
		loadStart := time.Now()
		if r.watch != nil {
			r.watch.loadStarted(loadStart)
		}
		if o.JTLWatch != "" {
			select {
			case <-ctx.Done():
			case <-time.After(o.Load.Duration):
			}
			return importWindow(o.JTLWatch, loadStart, time.Now())
		}
		if r.engine != nil {
			// No stall watch: JMeter writes its JTL in buffered pieces, so
			// a quiet second says little; the service watch still holds.
			return r.engine.measure(ctx, o, r.hooks)
		}
		cfg := o.Load
		if r.unready != nil {
			return probeLoad(ctx, cfg, o.Target)
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
			if r.hooks.OnLoad != nil {
				r.hooks.OnLoad(p)
			}
			// A service that answered its probe and then nothing for a
			// while: stop now and look at it.
			if o.Target != "" && stall.see(p) {
				cancelRun(&errStalled{at: stall.last})
			}
		}
		return loadgen.Generate(ctx, cfg)
	}
}

// probeLoad is the probe of a service that never answered: a port that
// never opened (it hung before listening) is what the probe found, not a
// failure of the run.
func probeLoad(ctx context.Context, cfg loadgen.Config, target string) (*loadgen.Summary, error) {
	sum, err := loadgen.Generate(ctx, cfg)
	var te *loadgen.TargetError
	if errors.As(err, &te) {
		select { // the recorder's dumps and samples go on over the probe's time
		case <-ctx.Done():
		case <-time.After(cfg.Duration):
		}
		return &loadgen.Summary{Source: "probe", Target: target, Requests: 1, Errors: 1,
			ErrorKinds: map[string]int64{te.Kind.String(): 1}}, nil
	}
	return sum, err
}

// serviceEnd is how the service ended during the window (nil: it did
// not): exited, or stopped answering (then its threads say why). The
// evidence up to that moment is the run's, analysed as such.
func (r *runner) serviceEnd(ctx, runCtx context.Context, rec *recording, sum *loadgen.Summary) *runfolder.ServiceEnd {
	se := r.watch.close()
	var stalled *errStalled
	if se == nil && errors.As(context.Cause(runCtx), &stalled) {
		r.hooks.note(finding.T("the service stopped answering at %+.1f s of the load: taking 3 thread dumps a second apart",
			"服务在负载的第 %+.1f 秒停止应答：正在间隔一秒抓取 3 次线程转储"), stalled.at.Seconds())
		if r.pid != 0 {
			dumpStalled(context.WithoutCancel(ctx), rec, r.pid)
		}
		se = &runfolder.ServiceEnd{PID: r.pid, ExitCode: -1, AtS: stalled.at.Seconds(), Hung: true}
		if r.svc != nil {
			se.LastLog = r.svc.LogLines(10)
		}
	}
	if se != nil {
		rec.w.Manifest().Service = se
		rec.reason = serviceEndText(se).EN
		rec.status = runfolder.Interrupted
		if sum != nil {
			sum.Interrupted = true
		}
	}
	return se
}

// generatorCost puts the load generator's own CPU in the manifest: the
// process's getrusage, the recorder's samplers included, less their
// measured cost (load.json holds the generator's own). JMeter's CPU is
// its own processes' (/proc): nothing to take out.
func (r *runner) generatorCost(rec *recording, sum *loadgen.Summary) {
	mc := rec.w.Manifest().Cost
	if sum == nil || sum.ClientCPU <= 0 || mc == nil {
		return
	}
	if r.engine != nil {
		mc.Generator = &runfolder.GeneratorCost{CPUPct: sum.ClientCPU, ProcessCPUPct: sum.ClientCPU, Cores: runtime.NumCPU(), Engine: "jmeter"}
		return
	}
	mc.Generator = generatorCost(sum.ClientCPU, runtime.GOMAXPROCS(0), mc)
	sum.ClientCPU = math.Round(mc.Generator.CPUPct*1000) / 1000
}

// writeLayers writes load.json, check.json, the probe and the load detail
// into the folder; a write that fails (a full disk) stops nothing: the
// first error is returned and the rest still written.
func (r *runner) writeLayers(rec *recording, sum *loadgen.Summary) (*loaddetail.Detail, error) {
	var writeErr error
	if err := runfolder.WriteJSONAtomic(filepath.Join(r.dir, verdict.LoadFile), sum); err != nil {
		writeErr = err
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(r.dir, verdict.CheckFile), r.check); err != nil && writeErr == nil {
		writeErr = err
	}
	if r.pr != nil {
		// The probe goes with the run: analyze reads it offline.
		if err := runfolder.WriteJSONAtomic(filepath.Join(r.dir, probe.RunFile), r.pr); err != nil && writeErr == nil {
			writeErr = err
		} else if err == nil {
			rec.w.Manifest().Raw = append(rec.w.Manifest().Raw, probe.RunFile)
		}
	}
	var detail *loaddetail.Detail
	if r.o.Detail != nil && sum != nil {
		if detail = r.o.Detail.Detail(sum); detail != nil {
			if err := runfolder.WriteJSONAtomic(filepath.Join(r.dir, loaddetail.File), detail); err != nil && writeErr == nil {
				writeErr = err
			}
		}
	}
	return detail, writeErr
}

// collect writes the layers into the folder, collects GC logs and JFR
// from the JVM (switched off again), and finishes the recording: the
// verdict, once. What was measured is still diagnosed, printed and kept
// when the folder cannot be completed; the manifest says why.
func (r *runner) collect(ctx context.Context, rec *recording, sum *loadgen.Summary, se *runfolder.ServiceEnd) (*RunResult, error) {
	detail, writeErr := r.writeLayers(rec, sum)
	jfrOn := r.jvm.jfr != ""
	// Collected and switched off also after Ctrl-C (the run ends with what
	// it has, the JVM is left as it was found), within a bound of its own.
	cctx, cancelCollect := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancelCollect()
	_, lost := r.jvm.collect(cctx, r.dir, func(err error) { r.hooks.note(finding.T("%v", "%v"), err) })
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
	r.jvm.abandon(cctx)
	if se != nil {
		launch.RemoveStaleAttach(r.pid)
	}
	if writeErr != nil {
		rec.reason = strings.TrimPrefix(rec.reason+"; ", "; ") + "the run folder could not be completed: " + writeErr.Error()
		rec.status = runfolder.Interrupted
	}
	done, err := rec.finish(ctx, r.ropts, RecordHooks{Warn: func(err error) { r.hooks.note(finding.T("%v", "%v"), err) }})
	var we *runfolder.WriteError
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
	res := &RunResult{Folder: done.Folder, Layers: done.Layers, Decision: done.Decision, Recorder: done.Folder.Manifest.Cost,
		Service: se, Load: sum, WriteErr: writeErr, Unready: r.unready}
	if done.Layers != nil && done.Layers.Load == nil {
		done.Layers.Load = sum // measured, though load.json could not be written
	}
	if done.Layers != nil && done.Layers.LoadDetail == nil {
		done.Layers.LoadDetail = detail
	}
	if _, err := os.Stat(filepath.Join(r.dir, JFRFile)); jfrOn && err == nil {
		res.JFR = JFRFile
	}
	return res, nil
}
