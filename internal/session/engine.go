package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// JMeterLoad is a run's load sent by JMeter instead of tuneloop's
// generator (`run --engine jmeter`).
type JMeterLoad struct {
	Install *jmeter.Install
	Plan    string              // the user's plan; the run's copy is rewritten (jmeter.ForRun)
	Props   []string            // -J name=value
	Engines []jmeter.RemoteSpec // --jmeter-remote: jmeter-server engines; none: JMeter sends the load itself
	Users   int                 // > 0: every thread group runs this many users
	Rate    float64             // > 0: samples/s in all, paced by a timer in the plan copy (jmeter.RunPlan.Rate)
}

// addrs are the engines' host:port, as JMeter's -R takes them.
func (j *JMeterLoad) addrs() []string {
	var a []string
	for _, e := range j.Engines {
		a = append(a, e.Addr)
	}
	return a
}

// planCopy is the run's copy of the user's plan: its thread groups loop for
// secs, the rate is split between the engines (each runs the whole plan),
// and a plan JMeter runs here finds its CSV files beside the user's.
func (j *JMeterLoad) planCopy(secs, engines int) (plan []byte, groups int, err error) {
	b, err := os.ReadFile(j.Plan)
	if err != nil {
		return nil, 0, usageErr(finding.T("--jmx: %v", "--jmx：%v"), err)
	}
	rp := jmeter.RunPlan{Users: j.Users, Seconds: secs, Rate: j.Rate}
	if engines > 0 {
		rp.Rate /= float64(engines)
	} else if abs, err := filepath.Abs(j.Plan); err == nil {
		rp.BaseDir = filepath.Dir(abs)
	}
	if plan, groups, err = jmeter.ForRun(b, rp); err != nil {
		return nil, 0, usageErr(finding.T("--jmx %s: %v", "--jmx %s：%v"), j.Plan, err)
	}
	return plan, groups, nil
}

// EngineDir is where a run keeps JMeter's plan, JTL and logs in its folder.
const EngineDir = "raw/jmeter"

// engineRun is JMeter started for a run.
type engineRun struct {
	eng *jmeter.Engine
	tmp string // dir + ".jmeter" until the folder exists
	wd  *launch.Watchdog
}

// startEngine rewrites the plan so that JMeter's thread groups loop for
// the warm-up and the window (and a margin: JMeter also ends by itself
// should the stop never come), starts JMeter, tells the watchdog, waits
// for its first sample and lets the warm-up pass.
func startEngine(ctx context.Context, o RunOptions, dir string, wd *launch.Watchdog, hooks RunHooks) (*engineRun, error) {
	j := o.JMeter
	tmp := dir + ".jmeter"
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	secs := int((o.WarmUp+o.Load.Duration+o.StartTimeout)/time.Second) + 30
	remote := j.addrs()
	plan, groups, err := j.planCopy(secs, len(remote))
	if err != nil {
		return nil, err
	}
	if groups == 0 {
		hooks.note(finding.T("the plan has no standard thread group: JMeter runs it as written, until the run's time is up", "计划中没有标准线程组：JMeter 按原样执行，直到运行时间结束"))
	}
	copyPath := filepath.Join(tmp, "plan.jmx")
	if err := os.WriteFile(copyPath, plan, 0o644); err != nil {
		return nil, err
	}
	eng, err := jmeter.Start(jmeter.Options{Install: j.Install, Plan: copyPath, Dir: tmp, Props: j.Props, Remote: remote})
	if err != nil {
		return nil, err
	}
	wd.Note(launch.Entry{Op: launch.OpEngine, PGID: eng.PID(), GraceMS: 2000, Started: launch.ProcStart(eng.PID())})
	er := &engineRun{eng: eng, tmp: tmp, wd: wd}
	if len(remote) > 0 {
		hooks.note(finding.T("JMeter started (pid %d) as the controller of %d engines", "JMeter 已启动（pid %d），作为 %d 个引擎的控制端"), eng.PID(), len(remote))
	} else {
		hooks.note(finding.T("JMeter started (pid %d)", "JMeter 已启动（pid %d）"), eng.PID())
	}
	if err := eng.WaitFirst(ctx, o.StartTimeout); err != nil {
		er.stop()
		return er, err
	}
	if o.WarmUp > 0 {
		hooks.note(finding.T("warming up for %s", "预热 %s"), o.WarmUp)
		select {
		case <-ctx.Done():
			er.stop()
			return er, ctx.Err()
		case <-eng.Done():
			er.stop()
			return er, finding.Errorf(finding.T("JMeter ended during the warm-up; %s ends with:\n%s", "JMeter 在预热期间结束；%s 的结尾：\n%s"), tmp, eng.Tail(1500))
		case <-time.After(o.WarmUp):
		}
	}
	return er, nil
}

// measure is the run's load: JMeter's samples in the window from now.
func (er *engineRun) measure(ctx context.Context, o RunOptions, hooks RunHooks) (*loadgen.Summary, error) {
	var sink loadgen.SampleSink
	if o.Detail != nil {
		sink = o.Detail
	}
	target := o.Target
	if target == "" {
		target = o.JMeter.Plan
	}
	sum, err := er.eng.Measure(ctx, jmeter.MeasureOptions{From: time.Now(), Duration: o.Load.Duration, Target: target, Sink: sink,
		OnSecond: hooks.OnLoad, RampUp: o.JMeter.rampUp()})
	er.wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: er.eng.PID()})
	if errors.Is(err, context.Canceled) && sum == nil {
		return &loadgen.Summary{Source: "jmeter", Engine: "jmeter", Target: target, Interrupted: true}, nil
	}
	return sum, err
}

// stop ends JMeter at once (a run that failed before its window).
func (er *engineRun) stop() {
	if er == nil {
		return
	}
	er.eng.Kill()
	er.wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: er.eng.PID()})
}

// keep moves JMeter's files into the run folder (raw/jmeter), once it exists.
func (er *engineRun) keep(dir string) {
	if er == nil {
		return
	}
	if _, err := os.Stat(filepath.Join(dir, "raw")); err != nil {
		return
	}
	if err := os.Rename(er.tmp, filepath.Join(dir, EngineDir)); err != nil {
		return
	}
}
