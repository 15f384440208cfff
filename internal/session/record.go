package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
	"github.com/tuneloop/tuneloop/internal/version"
)

// RecordOptions say what to record; the cli has validated them.
type RecordOptions struct {
	Duration time.Duration // 0: until ctx ends
	Interval time.Duration
	PID      int  // target process; 0 with JVMAuto false: the host only
	JVMAuto  bool // target the running JVM with the largest RSS
	Out      string
	// Catalog is the catalog database ("" = the default path, found with
	// Getenv); NoCatalog skips it.
	Catalog   string
	NoCatalog bool
	Getenv    func(string) string
	Enable    []string
	Disable   []string
	Argv      []string // the command line, for the manifest
	// ThreadDumps JVM thread dumps are spread over the duration (every 10 s
	// when there is none).
	ThreadDumps int
}

// RecordHooks are the caller's view of a recording in progress; any may be nil.
type RecordHooks struct {
	// OnStart is called with the run folder once it exists and before the
	// first tick.
	OnStart func(dir string)
	// OnTick is called after each tick but the first, with the rates since
	// the one before (the live status line).
	OnTick func(r *sample.Rates, elapsed time.Duration)
	// Warn hears what went wrong without failing the run (numa_maps not
	// saved, the catalog not updated).
	Warn func(err error)
}

// RecordResult is a finished run folder, its layers parsed once and its
// root cause decided.
type RecordResult struct {
	Folder   *runfolder.Folder
	Layers   *verdict.Layers
	Decision *verdict.Decision
}

// Record samples the host (and the target) until the duration, ctx or the
// target ends, then diagnoses the folder, finishes it and adds it to the
// catalog.
func Record(ctx context.Context, o RecordOptions, hooks RecordHooks) (*RecordResult, error) {
	if o.Out != "" {
		if err := CheckOut(o.Out); err != nil {
			return nil, err
		}
	}
	h := hostfs.Live()
	rec, err := record(ctx, h, sysinfo.Collect(h, sysinfo.Options{}), o, hooks)
	if err != nil {
		return nil, err
	}
	return rec.finish(ctx, o, hooks)
}

// recording is a run folder whose sampling has ended and that is not yet
// diagnosed: run adds the load and the JVM's layers before it is.
type recording struct {
	w      *runfolder.Writer
	dir    string
	status runfolder.Status
	reason string
	end    time.Time
}

// record samples into a new folder until the duration, ctx or the target
// ends, with the host facts already read (run reads them for its audit).
func record(ctx context.Context, h hostfs.FS, facts *sysinfo.Facts, o RecordOptions, hooks RecordHooks) (*recording, error) {
	target, err := pickTarget(h, facts, o.PID, o.JVMAuto)
	if err != nil {
		return nil, err
	}
	pid := 0
	if target != nil {
		pid = target.PID
	}
	coll, err := sample.New(h, sample.Options{PID: pid, Enable: o.Enable, Disable: o.Disable})
	if err != nil {
		return nil, usageErr(finding.T("%v", "%v"), err)
	}
	start := time.Now()
	dir := o.Out
	if dir == "" {
		if dir, err = ClaimDefaultDir(start, facts.Hostname.Value); err != nil {
			return nil, err
		}
	}
	m := runfolder.Manifest{Tool: runfolder.Tool{Name: "tuneloop", Version: version.Version}, Host: orDefault(facts.Hostname.Value, "host"),
		Argv: o.Argv, Start: start.UTC(), IntervalMS: o.Interval.Milliseconds(), DurationMS: o.Duration.Milliseconds(),
		Target: target, Samplers: samplerStates(coll, pid, o.Disable), Facts: facts}
	w, err := runfolder.Create(dir, m)
	if err != nil {
		return nil, err
	}
	if !o.NoCatalog {
		// Listed from its start, as recording: a recorder killed with
		// SIGKILL stays in `runs` as incomplete. Brief: a busy catalog does
		// not hold up the recording (the entry is written again at the end).
		_ = addToCatalog(context.WithoutCancel(ctx), o.Catalog, o.Getenv, &runfolder.Folder{Dir: dir, Manifest: *w.Manifest()}, nil, 3*time.Second, func(err error) { warn(hooks, err) })
	}
	if hooks.OnStart != nil {
		hooks.OnStart(dir)
	}
	l := &loop{o: o, hooks: hooks, coll: coll, w: w, start: start, pid: pid}
	status, reason, err := l.run(ctx)
	if err != nil {
		w.Abort()
		return nil, finding.Errorf(finding.T("recording to %s: %v (the folder keeps what was written)", "记录到 %s：%v（目录中保留已写入的内容）"), finding.SafeLine(dir), err)
	}
	end := time.Now()
	if pid != 0 {
		// Where the target's memory lives, per NUMA node (once: reading it
		// walks the page tables). A target that exited has none.
		if b, err := os.ReadFile(h.ProcPath(strconv.Itoa(pid), "numa_maps")); err == nil && len(b) > 0 {
			if err := w.SaveRaw(runfolder.NUMAMapsFile, b); err != nil {
				warn(hooks, err)
			} else {
				w.Manifest().Raw = append(w.Manifest().Raw, runfolder.NUMAMapsFile)
			}
		}
	}
	return &recording{w: w, dir: dir, status: status, reason: reason, end: end}, nil
}

// finish reads every layer of the folder once, decides the root cause,
// writes the series and the ranked findings, marks the folder complete (or
// interrupted) and adds it to the catalog.
func (r *recording) finish(ctx context.Context, o RecordOptions, hooks RecordHooks) (*RecordResult, error) {
	mf := r.w.Manifest()
	mf.Reason = r.reason
	L, err := verdict.FromFolder(&runfolder.Folder{Dir: r.dir, Manifest: *mf})
	if err != nil {
		r.w.Abort()
		return nil, err
	}
	d := verdict.Decide(L)
	if err := r.w.Finish(r.status, r.end, L.Series, d.Findings); err != nil {
		var we *runfolder.WriteError
		if !errors.As(err, &we) {
			return nil, err
		}
		// A full disk: what was measured is diagnosed and returned with
		// the error; the folder keeps what was written, its manifest why.
		L.Folder = &runfolder.Folder{Dir: r.dir, Manifest: *r.w.Manifest()}
		if !o.NoCatalog {
			// Catalogued as it stands (incomplete when its manifest could
			// not be finished), so `runs` shows it.
			f := *L.Folder
			f.Manifest.Status = runfolder.Recording // listed as incomplete: its manifest may not say why
			_ = addToCatalog(context.WithoutCancel(ctx), o.Catalog, o.Getenv, &f, d.Findings, 0, func(err error) { warn(hooks, err) })
		}
		return &RecordResult{Folder: L.Folder, Layers: L, Decision: d}, fmt.Errorf("%s: %w", r.dir, err)
	}
	folder, err := runfolder.Open(r.dir)
	if err != nil {
		return nil, err
	}
	L.Folder = folder
	if !o.NoCatalog {
		if err := addToCatalog(context.WithoutCancel(ctx), o.Catalog, o.Getenv, folder, d.Findings, 0, func(err error) { warn(hooks, err) }); err != nil {
			warn(hooks, finding.Errorf(finding.T("warning: run not added to the catalog: %v", "警告：运行记录未加入目录：%v"), err))
		}
	}
	return &RecordResult{Folder: folder, Layers: L, Decision: d}, nil
}

func warn(h RecordHooks, err error) {
	if h.Warn != nil {
		h.Warn(err)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// samplerStates says of every sampler: on (run), off (not selected) or
// n/a (needs a target).
func samplerStates(coll *sample.Collector, pid int, disabled []string) map[string]string {
	states := map[string]string{}
	for n := range sample.Available() {
		states[n] = "off"
	}
	running := map[string]bool{}
	for _, n := range coll.Samplers() {
		running[n] = true
		states[n] = "on"
	}
	if pid == 0 {
		for _, n := range []string{"process", "threads"} {
			if _, ok := states[n]; ok && !running[n] && !slices.Contains(disabled, n) {
				states[n] = "n/a (no target)"
			}
		}
	}
	return states
}

// loop is one recording's tick loop.
type loop struct {
	o     RecordOptions
	hooks RecordHooks
	coll  *sample.Collector
	w     *runfolder.Writer
	start time.Time
	pid   int
	dumps *dumper // nil: no thread dumps
}

// run samples until the duration, ctx or the target ends.
func (l *loop) run(ctx context.Context) (runfolder.Status, string, error) {
	var snaps [2]sample.Snapshot
	if l.o.ThreadDumps > 0 && l.pid != 0 {
		every := 10 * time.Second
		if l.o.Duration > 0 {
			every = l.o.Duration / time.Duration(l.o.ThreadDumps+1)
		}
		d := &dumper{pid: l.pid, n: l.o.ThreadDumps, every: every, next: l.start.Add(every), w: l.w}
		defer d.finish(l.w.Manifest())
		l.dumps = d
	}
	tick := time.NewTicker(l.o.Interval)
	defer tick.Stop()
	unavailable := map[string]string{}
	var costUS int64 // the samplers' own time, summed over the ticks
	var inTarget targetCost
	n := 0
	for {
		cur := l.coll.Collect(time.Now(), &snaps[n%2])
		for _, oc := range cur.Samplers {
			if oc.Status == sample.StatusUnavailable && oc.Reason != "" {
				unavailable[oc.Name] = oc.Reason
			}
		}
		if err := l.w.Append(cur); err != nil {
			// A full disk ends the recording, not the run: what was written
			// is whole and is diagnosed; the manifest will say why.
			return runfolder.Interrupted, "writing the samples failed: " + err.Error(), nil
		}
		if l.dumps != nil {
			l.dumps.maybe(ctx, time.Now())
		}
		if l.hooks.OnTick != nil && n > 0 {
			if r, err := sample.Delta(&snaps[(n+1)%2], cur); err == nil {
				l.hooks.OnTick(r, time.Since(l.start))
			}
		}
		n++
		costUS += cur.CostUS
		m := l.w.Manifest()
		m.Unavailable = unavailable
		if el := cur.Time.Sub(l.start.UTC()); el > 0 {
			m.Cost = recordingCost(costUS, n, el, cur.Self.MaxRSSKB)
		}
		if l.pid != 0 && len(cur.Threads) > 0 {
			inTarget.add(cur)
			if m.Cost != nil {
				m.Cost.InTarget = inTarget.cost()
			}
		}
		if l.pid != 0 && cur.Proc == nil && !cur.OK("process") && n > 1 {
			return runfolder.Interrupted, fmt.Sprintf("target process %d exited", l.pid), nil
		}
		if l.o.Duration > 0 && time.Since(l.start) >= l.o.Duration {
			return runfolder.Complete, "", nil
		}
		select {
		case <-ctx.Done():
			reason := "interrupted (Ctrl-C or SIGTERM)"
			if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
				reason = "stopped: " + cause.Error()
			}
			return runfolder.Interrupted, reason, nil
		case <-tick.C:
		}
	}
}

// recordingCost is what the recorder itself cost: the samplers' measured
// time over the elapsed time, as a percentage of one core. It is not
// getrusage of the whole process, which under `run` also holds the load
// generator.
func recordingCost(costUS int64, ticks int, elapsed time.Duration, maxRSSKB int64) *runfolder.Cost {
	return &runfolder.Cost{CPUPctOfCore: 100 * float64(costUS) / float64(elapsed.Microseconds()),
		MaxRSSKB: maxRSSKB, AvgTickUS: costUS / int64(ticks)}
}

// targetCost sums the CPU of the target JVM's own JFR and attach threads
// over the recording: the cost of being measured, as the target pays it.
// A thread seen at the first sample counts from its CPU then; one born
// later (JFR's threads start with the recording) from zero.
type targetCost struct {
	base, last map[threadKey]uint64 // CPU ns
	names      []string
	first      time.Time
	end        time.Time
	samples    int
}

// threadKey tells a reused TID from the thread that had it.
type threadKey struct {
	tid   int
	start uint64
}

// recordingThread says whether a JVM thread belongs to JFR or the attach
// mechanism, by its comm (15 bytes: "JFR Recorder Th", "JFR Periodic Ta",
// "JFR Thread Samp", "JFR Recording S", "JFR Shutdown Ho").
func recordingThread(name string) bool {
	return strings.HasPrefix(name, "JFR ") || name == "Attach Listener"
}

func (c *targetCost) add(s *sample.Snapshot) {
	if c.base == nil {
		c.base, c.last, c.first = map[threadKey]uint64{}, map[threadKey]uint64{}, s.Time
	}
	// schedstat's run time in ns when the kernel keeps it, else the
	// USER_HZ ticks of stat.
	sched := false
	for i := range s.Threads {
		if s.Threads[i].RunNS > 0 {
			sched = true
			break
		}
	}
	for i := range s.Threads {
		th := &s.Threads[i]
		if !recordingThread(th.Name) {
			continue
		}
		ns := th.RunNS
		if !sched {
			ns = (th.Utime + th.Stime) * uint64(time.Second/sample.UserHZ)
		}
		k := threadKey{th.TID, th.Start}
		if _, seen := c.last[k]; !seen {
			if c.samples == 0 {
				c.base[k] = ns
			}
			if !slices.Contains(c.names, th.Name) {
				c.names = append(c.names, th.Name)
			}
		}
		c.last[k] = ns
	}
	c.samples++
	c.end = s.Time
}

// cost is the sum so far; nil before two samples and for a target with
// no JFR or attach thread (not a JVM, or one never attached to).
func (c *targetCost) cost() *runfolder.TargetCost {
	el := c.end.Sub(c.first)
	if c.samples < 2 || el <= 0 || len(c.names) == 0 {
		return nil
	}
	var ns uint64
	for k, v := range c.last {
		if b := c.base[k]; v > b {
			ns += v - b
		}
	}
	return &runfolder.TargetCost{CPUMS: int64(ns / 1e6), PctOfCore: 100 * float64(ns) / float64(el.Nanoseconds()),
		Seconds: el.Seconds(), Samples: c.samples, Threads: slices.Sorted(slices.Values(c.names))}
}

// generatorCost is the load generator's own CPU: under run, getrusage of
// the process (loadgen's ClientCPU, % of cores) also holds the recorder's
// samplers, whose measured cost (% of one core) is taken out here.
func generatorCost(processPct float64, cores int, rec *runfolder.Cost) *runfolder.GeneratorCost {
	g := &runfolder.GeneratorCost{CPUPct: processPct, ProcessCPUPct: processPct, Cores: max(cores, 1)}
	if rec != nil {
		g.CPUPct = max(0, processPct-rec.CPUPctOfCore/float64(g.Cores))
	}
	return g
}
