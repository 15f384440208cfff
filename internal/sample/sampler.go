// Package sample holds the periodic samplers behind `tuneloop record`: each
// tick a Collector reads the host's cumulative counters (/proc/stat,
// softirqs, interrupts, meminfo, vmstat, NUMA, diskstats, net/dev, TCP, PSI)
// and the target process and its threads into one Snapshot. Snapshots hold
// raw counters as read; the pure Delta functions (delta.go) turn two of them
// into rates and percentages the way mpstat, iostat -x and pidstat -t do.
//
// Samplers are listed explicitly in All (one file per kernel file, as in
// node_exporter) and every run records ok/unavailable/failed with its reason
// and its own cost. A file the kernel does not have (PSI before 4.20, no NUMA
// tree) makes its sampler unavailable once; it is not read again. A target
// process that exits makes the process samplers unavailable and the rest go
// on.
//
// Use (the record command): New(hostfs.Live(), Options{PID: pid}) once;
// each tick Collect(now, &snaps[i%2]) and NewEncoder(file).Encode(snap) to
// raw/samples.jsonl.gz; Delta(prev, cur) for rates; offline, Replay(file, fn)
// walks the rates of a recorded run. Available lists the samplers for
// --help; Options.Enable/Disable pick them (tcpstates is off by default).
//
// The hot path is the per-thread read (stat, status, schedstat for every
// thread of a JVM with hundreds of threads, every second). It goes through
// raw openat/read into one reused buffer and hand-written byte scanning, with
// no regexp and almost no allocation; see threads.go and the benchmarks.
package sample

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"

	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// Sampler reads one source into a Snapshot. Sample sets only its own part of
// s and returns an error when it could not: one wrapping ErrUnavailable,
// fs.ErrNotExist or fs.ErrPermission means "this host cannot tell"
// (unavailable); anything else is a failure (a parse error, an I/O error).
// A sampler may fill part of s and still return a parse error.
type Sampler interface {
	Sample(s *Snapshot) error
}

// ErrUnavailable marks a source the host does not have (wrap it with %w).
var ErrUnavailable = errors.New("unavailable")

// ErrParse marks malformed input; the message names the line.
var ErrParse = errors.New("malformed")

// Env is what a sampler factory gets: the roots, the target and the
// collector's shared read buffer.
type Env struct {
	FS  hostfs.FS
	PID int // target process; 0 = none
	r   *reader
}

// Factory builds one sampler for a collector. It returns ErrUnavailable (or
// nil, nil) when the sampler does not apply, e.g. a process sampler with no
// target.
type Factory func(env *Env) (Sampler, error)

// Spec is one sampler: its name (for --enable/--disable and the run
// manifest), whether record runs it by default, and its factory.
type Spec struct {
	Name    string
	Default bool
	New     Factory
}

// All lists every sampler, by name. The list is built on each call (as
// rules.All is), so no caller can change what another one sees.
func All() []Spec {
	return []Spec{
		{"cpu", true, newStatSampler},
		{"diskstats", true, newDiskSampler},
		{"interrupts", true, newIRQSampler},
		{"loadavg", true, newLoadSampler},
		{"meminfo", true, newMeminfoSampler},
		{"netdev", true, newNetDevSampler},
		{"numa", true, newNUMASampler},
		{"process", true, newProcSampler},
		{"psi", true, newPSISampler},
		{"softirqs", true, newSoftirqSampler},
		{"tcp", true, newTCPSampler},
		{"tcpstates", false, newTCPStatesSampler}, // one line per socket: costly on a busy host
		{"threads", true, newThreadSampler},
		{"vmstat", true, newVmstatSampler},
	}
}

// Available maps every sampler name to whether it is on by default (for
// --help and the run manifest).
func Available() map[string]bool {
	all := All()
	m := make(map[string]bool, len(all))
	for _, r := range all {
		m[r.Name] = r.Default
	}
	return m
}

// Status of one sampler run.
type Status string

const (
	StatusOK          Status = "ok"
	StatusUnavailable Status = "unavailable"
	StatusFailed      Status = "failed"
)

// Outcome is one sampler's result in one tick: status, the reason when not
// ok, and what the run cost in wall time. The reason is given the first
// time it appears (and again when it changes), not every tick: a sampler
// unavailable or failing for the whole run says why once.
type Outcome struct {
	Name   string `json:"n"`
	Status Status `json:"s"`
	Reason string `json:"why,omitempty"`
	CostUS int64  `json:"us"` // wall microseconds spent in the sampler
}

// Options configure a Collector.
type Options struct {
	// PID is the target process; 0 samples the host only.
	PID int
	// Disable then Enable override the default set by sampler name
	// (Enable wins: disable all, enable one).
	Enable, Disable []string
	// OnPanic hears about a sampler that panicked (a bug: that tick's part
	// is marked failed). Tests use it to fail loudly.
	OnPanic func(name string, v any, stack []byte)
}

// Collector runs the enabled samplers each tick. It is not safe for
// concurrent use: one goroutine calls Collect.
type Collector struct {
	env     *Env
	runs    []*run
	onPanic func(string, any, []byte)
	tick    int64
}

type run struct {
	name       string
	s          Sampler
	retired    *Outcome // unavailable for good: reported, not read again
	lastReason string   // of the previous failed tick
}

// New builds a Collector over h. Unknown names in opts are an error, so a
// typo on the command line is not silently ignored.
func New(h hostfs.FS, opts Options) (*Collector, error) {
	all := All()
	want := Available()
	for _, n := range opts.Disable {
		if _, ok := want[n]; !ok {
			return nil, fmt.Errorf("unknown sampler %q (have %v)", n, names())
		}
		want[n] = false
	}
	for _, n := range opts.Enable {
		if _, ok := want[n]; !ok {
			return nil, fmt.Errorf("unknown sampler %q (have %v)", n, names())
		}
		want[n] = true
	}
	env := &Env{FS: h, PID: opts.PID, r: newReader()}
	c := &Collector{env: env, onPanic: opts.OnPanic}
	for _, r := range all {
		if !want[r.Name] {
			continue
		}
		s, err := r.New(env)
		ru := &run{name: r.Name, s: s}
		if err != nil || s == nil {
			if err == nil {
				continue // does not apply (no target): not listed at all
			}
			ru.retired = &Outcome{Name: r.Name, Status: classify(err), Reason: err.Error()}
		}
		c.runs = append(c.runs, ru)
	}
	return c, nil
}

func names() []string {
	var n []string
	for _, r := range All() {
		n = append(n, r.Name)
	}
	return n
}

// Samplers lists the samplers this collector runs (retired ones included).
func (c *Collector) Samplers() []string {
	var n []string
	for _, r := range c.runs {
		n = append(n, r.name)
	}
	return n
}

// Collect runs every sampler once and fills dst, which is reset first and
// whose slices and maps are reused (alternate two Snapshots to sample
// without garbage). A nil dst allocates a new Snapshot. Collect never fails:
// each sampler's outcome is in dst.Samplers.
func (c *Collector) Collect(now time.Time, dst *Snapshot) *Snapshot {
	if dst == nil {
		dst = new(Snapshot)
	}
	dst.reset()
	c.tick++
	// Wall time only (no monotonic reading): Delta then gives the same
	// numbers live and when a run folder is replayed.
	dst.Time = now.Round(0).UTC()
	dst.Tick = c.tick
	start := time.Now()
	for _, r := range c.runs {
		if r.retired != nil {
			o := *r.retired
			if c.tick > 1 {
				o.Reason = "" // said once, on the first tick
			}
			dst.Samplers = append(dst.Samplers, o)
			continue
		}
		t0 := time.Now()
		err := c.runOne(r, dst)
		o := Outcome{Name: r.name, Status: StatusOK, CostUS: time.Since(t0).Microseconds()}
		if err != nil {
			o.Status = classify(err)
			o.Reason = err.Error()
			if o.Status == StatusUnavailable {
				r.retired = &Outcome{Name: r.name, Status: o.Status, Reason: o.Reason}
			} else if o.Reason == r.lastReason {
				o.Reason = "" // said on an earlier tick
			} else {
				r.lastReason = o.Reason
			}
		} else {
			r.lastReason = ""
		}
		dst.Samplers = append(dst.Samplers, o)
	}
	dst.CostUS = time.Since(start).Microseconds()
	dst.Self = selfUsage()
	return dst
}

func (c *Collector) runOne(r *run, s *Snapshot) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if c.onPanic != nil {
				c.onPanic(r.name, v, debug.Stack())
			}
			err = fmt.Errorf("bug: sampler panicked: %v", v)
		}
	}()
	return r.s.Sample(s)
}

// classify maps an error to a status: a source that is not there (or not
// ours to read) is unavailable, the rest failed.
func classify(err error) Status {
	switch {
	case err == nil:
		return StatusOK
	case errors.As(err, new(partial)):
		return StatusFailed // some data read: worth trying again next tick
	case errors.Is(err, ErrUnavailable), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission),
		errors.Is(err, syscall.ESRCH), errors.Is(err, syscall.ENOTSUP):
		return StatusUnavailable
	}
	return StatusFailed
}

// selfUsage is the recorder's own CPU and peak RSS so far (getrusage), so a
// run folder proves what recording cost.
func selfUsage() SelfUsage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return SelfUsage{}
	}
	return SelfUsage{
		CPUUS:    ru.Utime.Sec*1e6 + int64(ru.Utime.Usec) + ru.Stime.Sec*1e6 + int64(ru.Stime.Usec),
		MaxRSSKB: int64(ru.Maxrss),
	}
}
