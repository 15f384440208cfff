package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/run/catalog"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/version"
)

// RecordOptions are the flags of `tuneloop record`.
type RecordOptions struct {
	Duration time.Duration // 0: until interrupted
	Interval time.Duration
	PID      int
	JVM      string // "auto": the single (or largest) running JVM
	Out      string // run folder; default ./runs/<timestamp>-<host>
	Catalog  string // catalog database; default $XDG_DATA_HOME/tuneloop/runs.db
	// NoCatalog skips the catalog (tests, read-only homes).
	NoCatalog bool
	Enable    []string
	Disable   []string
	Output    string // text or json
	Lang      string
	FailOn    string
	// Argv is the command line recorded in the manifest (os.Args by default).
	Argv []string
	// ThreadDumps is how many JVM thread dumps to take during the run
	// (attaching to the target; 0 = none). They are spread over the
	// duration (every 10 s when recording until Ctrl-C) and let the
	// diagnosis name what a hot or blocked thread runs.
	ThreadDumps int
	// Quiet suppresses the live status line even on a terminal.
	Quiet bool
	// OnStart is called with the run folder once recording has begun
	// (tests use it to kill or signal the recorder).
	OnStart func(dir string)
}

func newRecordCmd(env *Env) *cobra.Command {
	o := &RecordOptions{}
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Record host and process evidence under load, then diagnose the bottleneck",
		Long: `Sample the host (per-CPU time, softirqs, interrupts, memory, NUMA, disks,
network, TCP, PSI) and optionally a target process and each of its threads,
every --interval, while your own load runs. Stop after --duration or on Ctrl-C.

The run is saved as a folder (manifest.json with the host facts and the exact
command line, raw/samples.jsonl.gz, derived/series.json, findings.json) that
'tuneloop analyze RUN_DIR' diagnoses again offline, here or on another
machine, and is listed by 'tuneloop runs'. The ranked findings are printed at
the end: the likely root cause first, with the numbers and the time window.

Samplers (--enable/--disable): ` + samplerHelp() + `.

Exit status: 0 when the run was recorded, 3 with --fail-on when a finding at
or above that severity exists, 1 on error, 2 on bad usage.`,
		Example: `  tuneloop record --duration 10m --jvm auto
  tuneloop record --duration 5m --interval 1s --pid 12345
  tuneloop record --pid 12345                      # until Ctrl-C
  tuneloop record --duration 5m --jvm auto --thread-dumps 3   # join hot threads to their stacks
  tuneloop record --duration 2m --out /data/runs/before-tuning`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Argv == nil {
				o.Argv = os.Args
			}
			return RunRecord(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.DurationVarP(&o.Duration, "duration", "d", 0, "how long to record (e.g. 10m); 0 = until Ctrl-C")
	f.DurationVarP(&o.Interval, "interval", "i", time.Second, "sampling interval")
	f.IntVarP(&o.PID, "pid", "p", 0, "target process: sample it and each of its threads")
	f.StringVar(&o.JVM, "jvm", "", `"auto": target the running JVM (the largest when several)`)
	f.StringVar(&o.Out, "out", "", "run folder (default ./runs/<timestamp>-<host>)")
	f.StringVar(&o.Catalog, "catalog", "", "catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)")
	f.BoolVar(&o.NoCatalog, "no-catalog", false, "do not add the run to the catalog")
	f.StringSliceVar(&o.Enable, "enable", nil, "samplers to turn on (e.g. tcpstates)")
	f.StringSliceVar(&o.Disable, "disable", nil, "samplers to turn off")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or markdown")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.StringVar(&o.FailOn, "fail-on", "", "exit 3 if a finding is at least this severe: warning or critical")
	f.IntVar(&o.ThreadDumps, "thread-dumps", 0, "take N thread dumps of the JVM target during the run (attaches to it; joins hot threads to their stacks)")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no live status line")
	return cmd
}

// samplerHelp lists the samplers, the ones off by default marked.
func samplerHelp() string {
	var names []string
	for n, on := range sample.Available() {
		if !on {
			n += " (off by default)"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// langOpt resolves --lang against the environment.
func langOpt(env *Env, s string) (finding.Lang, error) {
	if s == "" {
		return env.Lang(), nil
	}
	l, err := finding.ParseLang(s)
	if err != nil {
		return l, usageErr(finding.T("--lang: %v", "--lang:%v"), err)
	}
	env.useLang(l)
	return l, nil
}

func failOnOpt(s string) (*finding.Severity, error) {
	if s == "" {
		return nil, nil
	}
	v, err := finding.ParseSeverity(s)
	if err != nil || v == finding.Info {
		return nil, usageErr(finding.T("--fail-on: want warning or critical, got %q", "--fail-on：应为 warning 或 critical，实际为 %q"), s)
	}
	return &v, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// RunRecord is the whole `record` command; tests call it directly.
func RunRecord(ctx context.Context, env *Env, o *RecordOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	switch {
	case o.Output != "text" && o.Output != "json" && o.Output != "markdown" && o.Output != "md":
		return usageErr(finding.T("--output: unknown format %q (want text, json or markdown)", "--output：未知格式 %q（应为 text、json 或 markdown）"), o.Output)
	case o.Interval < 10*time.Millisecond:
		return usageErr(finding.T("--interval: %s is too short (at least 10ms)", "--interval:%s 太短（至少 10ms）"), o.Interval)
	case o.Duration < 0:
		return usageErr(finding.T("--duration: must not be negative", "--duration：不能为负数"))
	case o.Duration > 0 && o.Duration < 2*o.Interval:
		return usageErr(finding.T("--duration %s: must cover at least two intervals of %s", "--duration %s：至少要覆盖两个 %s 的采样间隔"), o.Duration, o.Interval)
	case o.PID != 0 && o.JVM != "":
		return usageErr(finding.T("--pid and --jvm are exclusive", "--pid 与 --jvm 不能同时使用"))
	case o.JVM != "" && o.JVM != "auto":
		return usageErr(finding.T("--jvm: only \"auto\" is supported (or give --pid)", "--jvm：只支持 \"auto\"（或使用 --pid）"))
	case o.PID < 0:
		return usageErr(finding.T("--pid: %d is not a process id", "--pid:%d 不是有效的进程号"), o.PID)
	case o.ThreadDumps < 0 || o.ThreadDumps > 100:
		return usageErr(finding.T("--thread-dumps: want 0 to 100, got %d", "--thread-dumps：应为 0 到 100，实际为 %d"), o.ThreadDumps)
	case o.ThreadDumps > 0 && o.PID == 0 && o.JVM == "":
		return usageErr(finding.T("--thread-dumps needs a JVM target (--pid or --jvm auto)", "--thread-dumps 需要 JVM 目标（--pid 或 --jvm auto）"))
	}
	h := hostfs.Live()
	facts := sysinfo.Collect(h, sysinfo.Options{})
	target, err := pickTarget(h, facts, o)
	if err != nil {
		return err
	}
	pid := 0
	if target != nil {
		pid = target.PID
	}
	coll, err := sample.New(h, sample.Options{PID: pid, Enable: o.Enable, Disable: o.Disable})
	if err != nil {
		return usageErr(finding.T("%v", "%v"), err)
	}
	start := time.Now()
	host := facts.Hostname.Value
	if host == "" {
		host = "host"
	}
	dir := o.Out
	if dir == "" {
		dir = filepath.Join("runs", start.UTC().Format("20060102-150405")+"-"+unsafeName.ReplaceAllString(host, "_"))
	}
	// Every sampler: on (run), off (not selected) or n/a (needs a target).
	samplers := map[string]string{}
	for n := range sample.Available() {
		samplers[n] = "off"
	}
	running := map[string]bool{}
	for _, n := range coll.Samplers() {
		running[n] = true
		samplers[n] = "on"
	}
	if pid == 0 {
		for _, n := range []string{"process", "threads"} {
			if _, ok := samplers[n]; ok && !running[n] && !slices.Contains(o.Disable, n) {
				samplers[n] = "n/a (no target)"
			}
		}
	}
	m := run.Manifest{Tool: run.Tool{Name: "tuneloop", Version: version.Version}, Host: host, Argv: o.Argv,
		Start: start.UTC(), IntervalMS: o.Interval.Milliseconds(), DurationMS: o.Duration.Milliseconds(),
		Target: target, Samplers: samplers, Facts: facts}
	w, err := run.Create(dir, m)
	if err != nil {
		return err
	}
	if o.OnStart != nil {
		o.OnStart(dir)
	}
	status, reason, lerr := recordLoop(ctx, env, o, coll, w, start, pid, lang)
	if lerr != nil {
		w.Abort()
		return fmt.Errorf("recording to %s: %w (the folder keeps what was written)", dir, lerr)
	}
	end := time.Now()
	if pid != 0 {
		// Where the target's memory lives, per NUMA node (once: reading it
		// walks the page tables). A target that exited has none.
		if b, err := os.ReadFile(h.ProcPath(strconv.Itoa(pid), "numa_maps")); err == nil && len(b) > 0 {
			if err := w.SaveRaw(run.NUMAMapsFile, b); err != nil {
				fmt.Fprintf(env.Stderr, "tuneloop: %v\n", err)
			} else {
				mf := w.Manifest()
				mf.Raw = append(mf.Raw, run.NUMAMapsFile)
			}
		}
	}
	// Diagnose from the folder, exactly as `analyze` will.
	mf := w.Manifest()
	mf.Reason = reason
	folder := &run.Folder{Dir: dir, Manifest: *mf}
	res, err := diagnose.Analyze(folder)
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Finish(status, end, res.Series, res.Findings); err != nil {
		return err
	}
	folder, err = run.Open(dir)
	if err != nil {
		return err
	}
	if !o.NoCatalog {
		if err := addToCatalog(context.WithoutCancel(ctx), env, o.Catalog, folder, res.Findings); err != nil {
			fmt.Fprintf(env.Stderr, "tuneloop: %s: %v\n", finding.T("warning: run not added to the catalog", "警告：运行记录未加入目录").In(lang), err)
		}
	}
	if err := writeRunReport(env.Stdout, folder, res, o.Output, lang); err != nil {
		return err
	}
	if o.Output == "text" {
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("run folder:", "运行目录：").In(lang), dir)
	}
	if failOn != nil {
		if worst, any := finding.Worst(res.Findings); any && worst >= *failOn {
			return &ExitError{Code: ExitFindings}
		}
	}
	return nil
}

// pickTarget resolves --pid or --jvm auto.
func pickTarget(h hostfs.FS, facts *sysinfo.Facts, o *RecordOptions) (*run.Target, error) {
	if o.PID > 0 {
		b, err := os.ReadFile(h.ProcPath(strconv.Itoa(o.PID), "comm"))
		if err != nil {
			return nil, usageErr(finding.T("--pid %d: no such process", "--pid %d：没有这个进程"), o.PID)
		}
		return &run.Target{PID: o.PID, Comm: strings.TrimSpace(string(b)), How: "pid"}, nil
	}
	if o.JVM != "auto" {
		return nil, nil
	}
	if !facts.JVMs.OK || len(facts.JVMs.Value) == 0 {
		return nil, &ExitError{Code: ExitFailure, Err: errors.New("--jvm auto: no running JVM found (give --pid)")}
	}
	jvms := append([]sysinfo.JVM(nil), facts.JVMs.Value...)
	sort.SliceStable(jvms, func(i, j int) bool { return jvms[i].RSSKB > jvms[j].RSSKB })
	j := jvms[0]
	comm := "java"
	if j.MainClass != "" {
		comm = "java " + j.MainClass
	}
	return &run.Target{PID: j.PID, Comm: comm, How: "jvm-auto"}, nil
}

// recordLoop samples until the duration, ctx or the target ends.
func recordLoop(ctx context.Context, env *Env, o *RecordOptions, coll *sample.Collector, w *run.Writer,
	start time.Time, pid int, lang finding.Lang) (run.Status, string, error) {
	var snaps [2]sample.Snapshot
	live := env.Terminal && !o.Quiet && o.Output == "text"
	var dumps *dumper
	if o.ThreadDumps > 0 && pid != 0 {
		every := 10 * time.Second
		if o.Duration > 0 {
			every = o.Duration / time.Duration(o.ThreadDumps+1)
		}
		dumps = &dumper{pid: pid, n: o.ThreadDumps, every: every, next: start.Add(every), w: w}
		defer dumps.finish(w.Manifest())
	}
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	unavailable := map[string]string{}
	var cpuUS0, tickUS int64
	status, reason := run.Complete, ""
	n := 0
	for {
		cur := coll.Collect(time.Now(), &snaps[n%2])
		for _, oc := range cur.Samplers {
			if oc.Status == sample.StatusUnavailable && oc.Reason != "" {
				unavailable[oc.Name] = oc.Reason
			}
		}
		if err := w.Append(cur); err != nil {
			return "", "", err
		}
		if dumps != nil {
			dumps.maybe(ctx, time.Now())
		}
		if n == 0 {
			cpuUS0 = cur.Self.CPUUS
		}
		if live && n > 0 {
			if r, err := sample.Delta(&snaps[(n+1)%2], cur); err == nil {
				statusLine(env.Stdout, r, time.Since(start), o.Duration, lang)
			}
		}
		n++
		tickUS += cur.CostUS
		m := w.Manifest()
		m.Unavailable = unavailable
		if el := cur.Time.Sub(start.UTC()); el > 0 {
			m.Cost = &run.Cost{CPUPctOfCore: 100 * float64(cur.Self.CPUUS-cpuUS0) / float64(el.Microseconds()),
				MaxRSSKB: cur.Self.MaxRSSKB, AvgTickUS: tickUS / int64(n)}
		}
		if pid != 0 && cur.Proc == nil && !cur.OK("process") && n > 1 {
			status, reason = run.Interrupted, fmt.Sprintf("target process %d exited", pid)
			break
		}
		if o.Duration > 0 && time.Since(start) >= o.Duration {
			break
		}
		select {
		case <-ctx.Done():
			status, reason = run.Interrupted, "interrupted (Ctrl-C or SIGTERM)"
			if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
				reason = "stopped: " + cause.Error()
			}
		case <-tick.C:
			continue
		}
		break
	}
	if live {
		fmt.Fprint(env.Stdout, "\r\033[K")
	}
	return status, reason, nil
}

// When a dump shows a contended lock changing hands, the dumper takes up to
// lookAgain more, lookAgainAfter apart, into the same file (the analysis
// reads each): on a saturated host the woken owner of a short critical
// section waits for a CPU, and every dump can catch that instead of the
// work it does under the lock.
const (
	lookAgain      = 2
	lookAgainAfter = 50 * time.Millisecond
)

// dumper takes JVM thread dumps in the background during a run, one at a
// time, so sampling goes on while the JVM writes a dump.
type dumper struct {
	pid   int
	n     int
	every time.Duration
	next  time.Time
	w     *run.Writer
	taken int

	busy atomic.Bool // a dump is in progress
	stop atomic.Bool // attaching failed: no more attempts
	wg   sync.WaitGroup
	vm   *attach.VM // used by one dump goroutine at a time (busy)

	mu    sync.Mutex
	files []string
	err   string
}

func (d *dumper) maybe(ctx context.Context, now time.Time) {
	if d.taken >= d.n || now.Before(d.next) || d.stop.Load() || d.busy.Load() {
		return
	}
	d.taken++
	d.next = d.next.Add(d.every)
	d.busy.Store(true)
	d.wg.Add(1)
	go func(k int) {
		defer d.wg.Done()
		defer d.busy.Store(false)
		fail := func(err error) {
			d.stop.Store(true)
			d.mu.Lock()
			d.err = err.Error()
			d.mu.Unlock()
		}
		if d.vm == nil {
			vm, err := attach.AttachContext(ctx, d.pid, attach.Options{Timeout: 5 * time.Second})
			if err != nil {
				fail(err)
				return
			}
			d.vm = vm
		}
		out, err := d.vm.ThreadPrint(ctx)
		if err != nil {
			fail(err)
			return
		}
		// A contended lock caught changing hands says nothing of what its
		// holder does: look again, a moment later, into the same file.
		last := out
		for range lookAgain {
			if !threaddump.HolderUnseen(last) || d.stop.Load() {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(lookAgainAfter):
			}
			if ctx.Err() != nil {
				break
			}
			if last, err = d.vm.ThreadPrint(ctx); err != nil {
				break // the dump taken stands
			}
			out += "\n" + last
		}
		name := run.ThreadDumpPrefix + strconv.Itoa(k) + ".txt"
		if err := d.w.SaveRaw(name, []byte(out)); err != nil {
			fail(err)
			return
		}
		d.mu.Lock()
		d.files = append(d.files, name)
		d.mu.Unlock()
	}(d.taken)
}

// finish waits for a dump in progress and notes the files (or why there
// are none) in the manifest.
func (d *dumper) finish(m *run.Manifest) {
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	m.Raw = append(m.Raw, d.files...)
	if d.err != "" {
		if m.Unavailable == nil {
			m.Unavailable = map[string]string{}
		}
		m.Unavailable["threaddump"] = d.err
	}
}

// statusLine redraws the one-line live status.
func statusLine(w io.Writer, r *sample.Rates, el, total time.Duration, lang finding.Lang) {
	var b strings.Builder
	b.WriteString("\r\033[K● ")
	b.WriteString(clock(el))
	if total > 0 {
		b.WriteString(" / " + clock(total) + " (" + finding.T("left ", "剩余 ").In(lang) + clock(max(total-el, 0)) + ")")
	}
	if c := r.CPU; c != nil {
		fmt.Fprintf(&b, "  CPU us %.1f sy %.1f si %.1f id %.1f", c.All.User+c.All.Nice, c.All.System, c.All.SoftIRQ+c.All.IRQ, c.All.Idle)
	}
	if p := r.Proc; p != nil {
		fmt.Fprintf(&b, "  proc %.0f%%", p.CPUPct)
	}
	if t := r.Threads; t != nil && len(t.Threads) > 0 {
		top := t.Threads[0]
		fmt.Fprintf(&b, "  top %q tid=%d %.0f%%", top.Name, top.TID, top.CPUPct)
	}
	io.WriteString(w, b.String())
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func catalogPath(env *Env, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return catalog.DefaultPath(env.Getenv)
}

func addToCatalog(ctx context.Context, env *Env, path string, f *run.Folder, fs []finding.Finding) error {
	p, err := catalogPath(env, path)
	if err != nil {
		return err
	}
	c, err := catalog.Open(ctx, p)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Put(ctx, entryOf(f, fs))
}

func entryOf(f *run.Folder, fs []finding.Finding) catalog.Entry {
	m := &f.Manifest
	e := catalog.Entry{ID: m.ID, Dir: f.Dir, Host: m.Host, Start: m.Start, End: m.End, Status: m.Status, Command: strings.Join(m.Argv, " ")}
	if m.Target != nil {
		e.PID, e.Comm = m.Target.PID, m.Target.Comm
	}
	for i := range fs {
		if fs[i].Status == finding.Fail {
			e.Findings++
			if e.Top == "" {
				e.Top = fs[i].Key()
			}
		}
	}
	return e
}

// writeRunReport renders a diagnosed run folder.
func writeRunReport(w io.Writer, f *run.Folder, res *diagnose.Result, output string, lang finding.Lang) error {
	m := &f.Manifest
	r := &report.Run{Schema: report.RunSchema, Tool: report.Tool{Name: "tuneloop", Version: version.Version},
		GeneratedAt: time.Now().UTC(), Dir: f.Dir, ID: m.ID, Status: string(m.Status), Incomplete: m.Incomplete(), Reason: m.Reason,
		Start: m.Start, End: m.End, Command: strings.Join(m.Argv, " "), IntervalMS: m.IntervalMS,
		Host: report.HostOf(m.Facts, "run "+m.ID), BadLines: res.Series.BadLines, Stats: res.Series.Summarize(), Findings: res.Findings}
	if m.Target != nil {
		r.TargetPID, r.TargetComm = m.Target.PID, m.Target.Comm
	}
	if m.Cost != nil {
		r.CostCPUPct, r.CostMaxRSSKB = m.Cost.CPUPctOfCore, m.Cost.MaxRSSKB
	}
	var err error
	switch output {
	case "json":
		err = report.WriteRunJSON(w, r)
	case "markdown", "md":
		err = report.WriteRunMarkdown(w, r, lang)
	default:
		err = report.WriteRunText(w, r, lang)
	}
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}
