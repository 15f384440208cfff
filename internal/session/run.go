package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
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
	Folder   *runfolder.Folder
	Layers   *verdict.Layers
	Decision *verdict.Decision
	JFR      string          // JFRFile when a recording was collected
	Recorder *runfolder.Cost // what the recorder cost (not the load generator)
	// Service is set when the service ended during the run: the run
	// stopped then, and what it holds covers the time until then.
	Service *runfolder.ServiceEnd
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
func ServiceEndText(se *runfolder.ServiceEnd) finding.Text { return serviceEndText(se) }

func (h RunHooks) note(t finding.Text, args ...any) {
	if h.Note != nil {
		h.Note(finding.Tf(t, args...))
	}
}

// LoadAndRecord launches the service (when asked), waits until it answers, finds its
// JVM, audits the host, switches GC logging and JFR on, warms up, then runs
// the measured load and the recorder side by side and collects every layer
// into the run folder, diagnosed. Each step is a method of runner
// (runsteps.go); what a step starts is undone here, last first.
func LoadAndRecord(ctx context.Context, o RunOptions, hooks RunHooks) (res *RunResult, err error) {
	r := &runner{o: o, hooks: hooks, h: hostfs.Live(), start: time.Now()}
	if r.o.StartTimeout <= 0 {
		r.o.StartTimeout = 90 * time.Second
	}
	claimed, err := r.folder()
	if err != nil {
		return nil, err
	}
	if claimed {
		defer func() {
			if err != nil {
				_ = os.Remove(r.dir) // only while still empty: the run never started
			}
		}()
	}
	if err := r.preconditions(); err != nil {
		return nil, err
	}
	if r.watchdog() {
		defer r.wd.Done() // after the service is stopped: defers run last-in first-out
	}
	// 1. The service.
	if err := r.launchService(); err != nil {
		return nil, err
	}
	if r.svc != nil {
		defer r.stopService()
	}
	if err := r.awaitService(ctx); err != nil {
		return nil, err
	}
	// 2. The host audit, before any load.
	r.audit(ctx)
	// 3. GC logging, switched on at run time when it is off.
	r.findJVM()
	defer func() {
		if err != nil {
			r.jvm.abandon(ctx)
		}
	}()
	// From here the service's end stops the run at once (runCtx's cause).
	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	if r.svc != nil || r.pid != 0 {
		r.watch = watchService(r.svc, r.pid, cancelRun)
		defer r.watch.close()
	}
	if r.pid != 0 && !r.o.NoGCLog {
		if err := r.jvm.enableGCLog(ctx, r.start); err != nil {
			hooks.note(finding.T("GC log not available: %v", "无法获取 GC 日志：%v"), err)
		}
	}
	// 4. Warm-up, then load and record together. JMeter starts now (a JVM
	// takes seconds): its warm-up is the time after its first sample.
	if o.JMeter != nil {
		if r.engine, err = startEngine(runCtx, r.o, r.dir, r.wd, hooks); err != nil {
			return nil, err
		}
		defer func() {
			r.engine.stop()
			r.engine.keep(r.dir)
		}()
	}
	if err := r.warmUp(runCtx); err != nil {
		return nil, err
	}
	// JFR execution samples for the flame graph, over the measured window.
	if r.pid != 0 && !r.o.NoJFR {
		if err := r.jvm.startJFR(runCtx, r.start); err != nil {
			hooks.note(finding.T("JFR not available: %v", "无法使用 JFR：%v"), err)
		}
	}
	rec, sum, err := together(runCtx, r.recorder(), r.load(cancelRun))
	if err != nil {
		return nil, err
	}
	se := r.serviceEnd(ctx, runCtx, rec, sum)
	r.generatorCost(rec, sum)
	// 5. Collect the layers into the folder.
	return r.collect(ctx, rec, sum, se)
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
			stopLoad(finding.Errorf(finding.T("the recorder failed: %v", "记录器失败：%v"), recErr))
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
			recErr = finding.Errorf(finding.T("the recorder ended before it started", "记录器在开始前就结束了"))
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
