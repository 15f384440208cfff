package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
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
	PID          int
	JVMAuto      bool
	// JTLWatch is a JMeter JTL an external load writes: no load is
	// generated, its samples in the run window are the load result.
	JTLWatch  string
	Out       string
	Profile   rules.Profile // for the host audit
	Catalog   string
	NoCatalog bool
	Getenv    func(string) string
	NoGCLog   bool
	NoJFR     bool
	Argv      []string
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
}

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
	h := hostfs.Live()
	start := time.Now()
	if o.StartTimeout <= 0 {
		o.StartTimeout = 90 * time.Second
	}
	dir := o.Out
	if dir == "" {
		host, _ := os.Hostname()
		dir = DefaultDir(start, host)
	}
	// Before anything is started or switched on: a folder that cannot be
	// the run's is known now, not after the warm-up.
	if err := CheckOut(dir); err != nil {
		return nil, err
	}

	// 1. The service.
	pid := o.PID
	if o.Start != "" {
		svc, err := launch.Start(o.Start, dir+".service.log")
		if err != nil {
			return nil, err
		}
		svc.StopTimeout = o.StopTimeout
		defer func() {
			svc.Stop()
			// The service log belongs in the run folder once it exists.
			if _, err := os.Stat(filepath.Join(dir, "raw")); err == nil {
				_ = os.Rename(svc.LogPath, filepath.Join(dir, "raw", "service.log"))
			}
		}()
		hooks.note(finding.T("started %s", "已启动 %s"), o.Start)
		if o.Target != "" {
			if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, svc); err != nil {
				return nil, err
			}
		}
		if pid = svc.WaitJVM(ctx, h, 5*time.Second); pid == 0 {
			return nil, finding.Errorf(finding.T("--start %q: no JVM found among the processes it started", "--start %q：在它启动的进程中没有找到 JVM"), o.Start)
		}
	} else if o.Target != "" {
		if err := launch.WaitReady(ctx, o.Target, o.StartTimeout, nil); err != nil {
			return nil, err
		}
	}

	// 2. The host audit, before any load.
	facts := sysinfo.Collect(h, sysinfo.Options{})
	check := rules.Evaluate(rules.All(), facts, o.Profile)

	// 3. GC logging, switched on at run time when it is off.
	if pid == 0 && o.JVMAuto {
		if tgt, err := pickTarget(h, facts, 0, true); err == nil && tgt != nil {
			pid = tgt.PID
		}
	}
	jvm := &jvmSide{pid: pid}
	defer func() {
		if err != nil {
			jvm.abandon(ctx)
		}
	}()
	if pid != 0 && !o.NoGCLog {
		if err := jvm.enableGCLog(ctx, start); err != nil {
			hooks.note(finding.T("GC log not available: %v", "无法获取 GC 日志：%v"), err)
		}
	}

	// 4. Warm-up, then load and record together.
	if o.JTLWatch == "" && o.WarmUp > 0 {
		hooks.note(finding.T("warming up for %s", "预热 %s"), o.WarmUp)
		wcfg := o.Load
		wcfg.Duration, wcfg.OnSecond = o.WarmUp, nil
		if _, err := loadgen.Run(ctx, wcfg); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	// JFR execution samples for the flame graph, over the measured window.
	if pid != 0 && !o.NoJFR {
		if err := jvm.startJFR(ctx, start); err != nil {
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
		if o.JTLWatch != "" {
			select {
			case <-ctx.Done():
			case <-time.After(o.Load.Duration):
			}
			return importWindow(o.JTLWatch, loadStart, time.Now())
		}
		cfg := o.Load
		cfg.OnSecond = hooks.OnLoad
		return loadgen.Run(ctx, cfg)
	}
	rec, sum, err := together(ctx, recorder, load)
	if err != nil {
		return nil, err
	}

	// 5. Collect the layers into the folder.
	if err := run.WriteJSONAtomic(filepath.Join(dir, verdict.LoadFile), sum); err != nil {
		return nil, err
	}
	if err := run.WriteJSONAtomic(filepath.Join(dir, verdict.CheckFile), check); err != nil {
		return nil, err
	}
	jfrOn := jvm.jfr != ""
	jvm.collect(ctx, dir, func(err error) { hooks.note(finding.T("%v", "%v"), err) })
	done, err := rec.finish(ctx, ropts, RecordHooks{Warn: func(err error) { hooks.note(finding.T("%v", "%v"), err) }})
	if err != nil {
		return nil, err
	}
	res = &RunResult{Folder: done.Folder, Layers: done.Layers, Decision: done.Decision, Recorder: done.Folder.Manifest.Cost}
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
	case ctx.Err() == nil && loadCtx.Err() != nil:
		return nil, nil, context.Cause(loadCtx)
	}
	return rec, sum, nil
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
