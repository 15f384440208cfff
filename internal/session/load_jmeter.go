package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
	"github.com/tuneloop/tuneloop/internal/jmx"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
)

// LoadJMeterOptions are `tuneloop load --jmx PLAN --engine jmeter`: the
// plan and JMeter (JMeterLoad), the window, and what to keep.
type LoadJMeterOptions struct {
	JMeterLoad
	Duration time.Duration // 0: the plan's own bounds (a plan that loops forever runs loadgen.DefaultDuration)
	WarmUp   time.Duration
	Record   bool   // keep the samples for the load page (the returned recorder)
	JTL      string // copy JMeter's JTL here
	Getenv   func(string) string
	// Note hears what the load could not do as asked (no watchdog, a
	// plan bounded by -d); Progress (nil: quiet) JMeter's start.
	Note, Progress func(finding.Text)
	OnSecond       func(loadgen.Progress) // once a second during the window (nil: none)
}

// LoadJMeter is `tuneloop load --jmx PLAN` with JMeter sending the load:
// the plan's own bounds unless a duration or users are given (then each
// thread group runs that long, with those users), the JTL followed into
// the same summary as the built-in generator's, JMeter stopped at the end,
// on ctx's end, and by the watchdog when tuneloop is killed. JMeter's
// files are removed, unless it failed (the error names where they are).
func LoadJMeter(ctx context.Context, o LoadJMeterOptions) (*loadgen.Summary, *report.LoadRecorder, error) {
	note := func(t finding.Text) {
		if o.Note != nil {
			o.Note(t)
		}
	}
	// A load is always bounded: a plan that loops forever runs -d (10 s by default).
	if o.Duration == 0 && !PlanBounded(o.Plan, o.Props) {
		o.Duration = loadgen.DefaultDuration
		note(finding.Tf(finding.T("the plan loops until stopped: running it for %s (-d)", "计划会一直循环直到被停止：运行 %s（-d）"), o.Duration))
	}
	tmp, err := os.MkdirTemp("", "tuneloop-jmeter-")
	if err != nil {
		return nil, nil, err
	}
	keepTmp := false
	defer func() {
		if !keepTmp {
			os.RemoveAll(tmp)
		}
	}()
	plan := o.Plan
	if o.Duration > 0 || o.Users > 0 || o.Rate > 0 {
		secs := 0
		if o.Duration > 0 {
			secs = int((o.WarmUp+o.Duration+jmeterStartTimeout)/time.Second) + 30
		}
		out, _, err := o.planCopy(secs, len(o.Engines))
		if err != nil {
			return nil, nil, err
		}
		plan = filepath.Join(tmp, "plan.jmx")
		if err := os.WriteFile(plan, out, 0o644); err != nil {
			return nil, nil, err
		}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	wd, err := launch.StartWatchdog(launch.JournalDir(getenv))
	if err != nil {
		note(finding.Tf(finding.T("no watchdog: %v (a kill of tuneloop would leave JMeter running)",
			"没有看护进程：%v（杀死 tuneloop 会让 JMeter 继续运行）"), err))
	}
	defer wd.Done()
	eng, err := jmeter.Start(jmeter.Options{Install: o.Install, Plan: plan, Dir: tmp, Props: o.Props, Remote: o.addrs()})
	if err != nil {
		return nil, nil, err
	}
	wd.Note(launch.Entry{Op: launch.OpEngine, PGID: eng.PID(), GraceMS: 2000, Started: launch.ProcStart(eng.PID())})
	defer func() {
		eng.Kill()
		wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: eng.PID()})
	}()
	if o.Progress != nil {
		o.Progress(finding.Tf(finding.T("JMeter %s started (pid %d), waiting for its first sample", "JMeter %s 已启动（pid %d），等待第一个样本"),
			o.Install.Home, eng.PID()))
	}
	fail := func(err error) error {
		keepTmp = true
		return finding.Errorf(finding.T("%v\n(JMeter's files are kept in %s)", "%v\n（JMeter 的文件保留在 %s）"), err, tmp)
	}
	if err := eng.WaitFirst(ctx, jmeterStartTimeout); err != nil {
		return nil, nil, fail(err)
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
			return nil, nil, fail(ctx.Err())
		case <-eng.Done():
		case <-time.After(o.WarmUp):
		}
		from = time.Now()
	}
	var rec *report.LoadRecorder
	var sink loadgen.SampleSink
	if o.Record {
		rec = report.NewLoadRecorder()
		sink = rec
	}
	sum, err := eng.Measure(ctx, jmeter.MeasureOptions{From: from, Duration: o.Duration, Target: o.Plan, Sink: sink, OnSecond: o.OnSecond,
		RampUp: o.rampUp()})
	if err != nil {
		return nil, nil, fail(err)
	}
	if o.JTL != "" {
		if err := copyFile(eng.JTL, o.JTL); err != nil {
			return nil, nil, fmt.Errorf("--jtl: %w", err)
		}
	}
	return sum, rec, nil
}

// rampUp is the plan's longest thread-group ramp-up (groups start
// together), 0 when the plan cannot be read.
func (j *JMeterLoad) rampUp() time.Duration {
	props, err := JProps(j.Props)
	if err != nil {
		return 0
	}
	p, _, _, _ := jmx.Load(j.Plan, props)
	var r time.Duration
	if p != nil {
		for _, g := range p.Groups {
			r = max(r, g.RampUp)
		}
	}
	return r
}

// PlanBounded reports a plan whose every thread group ends by itself (a
// loop count or a scheduler duration), as far as the plan reader sees;
// jprops are its -J name=value.
func PlanBounded(path string, jprops []string) bool {
	props, err := JProps(jprops)
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

// JProps is -J name=value (a JMeter property) as a map.
func JProps(jprops []string) (map[string]string, error) {
	props := map[string]string{}
	for _, kv := range jprops {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErr(finding.T("-J %q: want name=value", "-J %q：格式应为 name=value"), kv)
		}
		props[strings.TrimSpace(k)] = v
	}
	return props, nil
}

// PlanNeedsJMeter says why the built-in generator cannot run the plan at
// path (up to four of the elements it cannot run, and how many more), or
// nothing when it runs every element (or cannot read the plan: its own
// reading then says why). jprops are the plan's -J name=value; a malformed
// one is a UsageError.
func PlanNeedsJMeter(path string, jprops []string) (finding.Text, error) {
	props, err := JProps(jprops)
	if err != nil {
		return finding.Text{}, err
	}
	p, _, _, err := jmx.Load(path, props)
	if p == nil || len(p.Unsupported) == 0 && err == nil {
		return finding.Text{}, nil
	}
	var names []string
	for _, it := range p.Unsupported {
		names = append(names, it.String())
		if len(names) == 4 {
			break
		}
	}
	if more := len(p.Unsupported) - len(names); more > 0 {
		names = append(names, fmt.Sprintf("+%d", more))
	}
	if err != nil && len(p.Unsupported) == 0 {
		names = append(names, finding.SafeLine(err.Error()))
	}
	return finding.Tf(finding.T("the built-in generator cannot run %s: JMeter runs the plan",
		"内置负载生成器无法执行 %s：由 JMeter 执行该计划"), strings.Join(names, ", ")), nil
}
