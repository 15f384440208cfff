// Package verdict reads a run folder once and decides its root cause.
//
// Load parses every file of a run folder (the raw samples into a series,
// every thread dump, the GC logs, the JFR stacks, load.json, check.json)
// into one Layers value; Decide is the one place where a run's root cause
// is decided across those layers, the way the practice documents reason:
// a deadlock or an IRQ imbalance explains everything after it; a single
// saturated thread, a critical GC problem or a lock most working threads
// queue on caps throughput whatever the CPU shows; a lesser lock counts
// only when the CPU had room; then GC, CPU and I/O. Everything that renders
// a run (record's summary, run's page, compare, analyze RUN_DIR) starts
// from Load and Decide, so "why did it blame X?" has one place to read.
package verdict

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// Files of a run folder besides the recorder's (run.*File).
const (
	LoadFile   = "load.json"         // the load generator's summary (loadgen.Summary)
	CheckFile  = "check.json"        // the host audit taken before the load
	JFRFile    = "raw/recording.jfr" // JFR recording over the measured load
	GCLogGlob  = "raw/gc-*.log"      // GC logs copied from the JVM
	maxJSONLen = 64 << 20            // load.json / check.json larger than this are refused
	maxDumpLen = 256 << 20           // a thread dump file larger than this is refused
)

// Layers is everything one run produced, parsed once.
type Layers struct {
	Folder *runfolder.Folder
	Series *diagnose.Series
	Stats  diagnose.Stats
	// Recorded are the host and process findings over the series (their
	// symptoms linked to their causes) and the dumps' findings.
	Recorded []finding.Finding
	// DumpSet is the run's thread dumps read as one set (nil: none);
	// Dumps and Reports are its dumps in time order and their analyses.
	DumpSet   *threaddump.Set
	Dumps     []*threaddump.Dump
	Reports   []*threaddump.Report
	DumpTimes []time.Time // when each dump's file was written (zero if unknown)
	// numaMaps is the target's numa_maps as read (nil: none), kept for
	// diagnosing the series again over the load's window (WithinLoad).
	numaMaps []byte
	// Downstream are the remote endpoints the target had connections open
	// to when the dumps were taken, most connections first.
	Downstream []Endpoint
	// GC is the analysis of the GC logs switched on for the run (nil: none).
	GC       *gclog.Report
	GCFiles  []string
	GCPauses []GCPause
	// GCLast: the log's last pauses (at most gcLastKept), in order.
	GCLast []GCPause
	// Stacks are the JFR execution samples merged (nil: no recording).
	Stacks  *stacks.Node
	Samples int
	// Alloc and Lock are the recording's allocation and lock profiles, read
	// in the same pass as Stacks (nil: no recording; a recording without
	// such events gives a profile with no samples and a Note). Lock leaves
	// out threads waiting for work (idle pools): LockIdleNS is what that
	// removed. Wall is async-profiler's wall-clock samples, only when the
	// recording holds them.
	Alloc, Lock, Wall *stacks.Profile
	LockIdleNS        int64
	// LockWaits is Lock by lock class and call site, most waited first.
	LockWaits []LockWait
	// Threads are the recording's per-thread samples and timed events as
	// slices of the time account (nil: no recording); ThreadRead what the
	// reader found besides (periods, thresholds, events per kind).
	Threads    []mechanism.Slice
	ThreadRead stacks.JFRThreadRead
	// Load is the load result (nil: record without load).
	Load *loadgen.Summary
	// LoadDetail is the load over time (raw/load-detail.json; nil: not
	// recorded, or unreadable, then said in Problems).
	LoadDetail *loaddetail.Detail
	// Check is the host audit taken at the start (nil: none).
	Check []finding.Finding
	// Probe is the platform measured by `tuneloop probe` on the run's host
	// (probe.RunFile; nil: none, or of another host, then in Problems).
	Probe *probe.Result
	// Problems are the files of the folder that could not be read, as
	// unavailable findings; the rest of the run is still diagnosed.
	Problems []finding.Finding
}

// GCPause is one stop-the-world pause, for the report's timeline.
type GCPause struct {
	UptimeS float64 `json:"uptime_s"`
	MS      float64 `json:"ms"`
	Kind    string  `json:"kind"`
}

// maxGCPauses caps the pauses kept for the timeline; gcLastKept are the
// last pauses of the log, kept whatever its length (how it ended).
const (
	maxGCPauses = 2000
	gcLastKept  = 64
)

// Load reads and parses every file of the run folder dir once; it cannot
// be interrupted (LoadContext can).
func Load(dir string) (*Layers, error) { return LoadContext(context.Background(), dir) }

// LoadContext is Load that stops when ctx is done: between files, inside
// the raw samples and inside each GC log (a folder from anyone may hold a
// log of gigabytes). It then returns no Layers and an error that wraps
// ctx.Err() and names the file it was reading.
func LoadContext(ctx context.Context, dir string) (*Layers, error) { return load(ctx, dir, false) }

// diagnose reads the host and process findings off the series.
func (L *Layers) diagnose() {
	f := L.Folder
	L.Recorded = diagnose.Diagnose(diagnose.Input{Facts: f.Manifest.Facts, Target: f.Manifest.Target, Series: L.Series,
		Start: f.Manifest.Start, NUMAMaps: L.numaMaps, Dumps: L.DumpSet})
}

// WithinLoad diagnoses the series again over the load's measured window
// only (the ticks whose interval overlaps it). A recorder that ran before
// and after the load, as a remote host's does (it starts first, with a
// lead, and stops last), would otherwise count its idle seconds against
// a condition that held all through the load: a condition must hold in
// half the ticks (diagnose.MinFrac). It changes nothing without a load or
// its start, when every tick is in the window already, or when fewer than
// diagnose.MinTicks would be left. Load does it for every folder (a
// local run's recorder starts with the load and stops a tick after it, so
// at most its last tick goes); multihost calls it after moving a remote
// host's series onto the load's clock (LoadWholeContext, Shift).
func (L *Layers) WithinLoad() {
	if L.windowSeries() {
		L.diagnose()
	}
}

// windowSeries keeps the ticks overlapping the load's measured window
// (WithinLoad's rule) and says whether any went.
func (L *Layers) windowSeries() bool {
	s := L.Load
	if s == nil || s.Start.IsZero() || s.Duration <= 0 || L.Series == nil || L.Folder == nil {
		return false
	}
	from, to := s.Start, s.Start.Add(time.Duration(s.Duration*float64(time.Second)))
	var kept []diagnose.Tick
	for _, t := range L.Series.Ticks {
		if t.T.After(from) && t.Begin().Before(to) {
			kept = append(kept, t)
		}
	}
	if len(kept) == len(L.Series.Ticks) || len(kept) < diagnose.MinTicks {
		return false
	}
	series := *L.Series
	series.Ticks = kept
	L.Series = &series
	L.Stats = L.Series.Summarize()
	return true
}

// FromFolder is Load of a folder already opened (its manifest may carry
// a reason not yet written, as at the end of a recording). It cannot be
// interrupted: a recording ended by Ctrl-C is still diagnosed.
func FromFolder(f *runfolder.Folder) (*Layers, error) {
	return FromFolderContext(context.Background(), f)
}

// FromFolderContext is FromFolder that stops when ctx is done, as
// LoadContext does.
func FromFolderContext(ctx context.Context, f *runfolder.Folder) (*Layers, error) {
	return fromFolder(ctx, f, false)
}

// LoadWholeContext is LoadContext judged over the whole recording, not
// the load's window: for a caller that moves the series onto another
// clock first (a remote host's, multihost.Shift) and then calls WithinLoad.
func LoadWholeContext(ctx context.Context, dir string) (*Layers, error) { return load(ctx, dir, true) }

func load(ctx context.Context, dir string, whole bool) (*Layers, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		return nil, err
	}
	return fromFolder(ctx, f, whole)
}

// fromFolder reads the folder's layers; unless whole, the host's series is
// then judged over the load's window (WithinLoad).
func fromFolder(ctx context.Context, f *runfolder.Folder, whole bool) (*Layers, error) {
	L := &Layers{Folder: f}
	rc, err := f.Samples()
	if err != nil {
		return nil, err
	}
	L.Series, err = diagnose.Build(input.ContextReader(ctx, rc))
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(f.Dir, runfolder.SamplesFile), err)
	}
	L.Stats = L.Series.Summarize()
	nm, err := f.Raw(runfolder.NUMAMapsFile)
	if err != nil {
		nm = nil // unreadable: that rule is skipped
	}
	// Every dump of the run, read once as a set: ordered by time, copies
	// counted once; diagnose joins its hot threads to the last one.
	var inputs []threaddump.Input
	mtime := map[string]time.Time{}
	names, _ := f.RawFiles(runfolder.ThreadDumpPrefix)
	for _, n := range names {
		if err := stopped(ctx, f.Dir, n); err != nil {
			return nil, err
		}
		st, err := os.Stat(filepath.Join(f.Dir, n))
		if err == nil && st.Size() == 0 {
			continue
		}
		if err == nil {
			mtime[n] = st.ModTime().UTC()
		}
		// Read when the set comes to it: one file in memory at a time.
		inputs = append(inputs, threaddump.Input{Name: n, R: &lazyFile{L: L, name: n}})
	}
	if len(inputs) > 0 {
		L.DumpSet = threaddump.ReadSetContext(ctx, inputs)
		if err := stopped(ctx, f.Dir, runfolder.ThreadDumpPrefix+"*"); err != nil {
			return nil, err
		}
		L.Dumps, L.Reports = L.DumpSet.Dumps, L.DumpSet.Reports
		for _, src := range L.DumpSet.Sources {
			L.DumpTimes = append(L.DumpTimes, mtime[src])
		}
	}
	L.numaMaps = nm
	// The load first: unless whole, the host is diagnosed over its window.
	if err := stopped(ctx, f.Dir, LoadFile); err != nil {
		return nil, err
	}
	if s, err := ReadLoad(f.Dir); err != nil {
		L.problem(LoadFile, err)
	} else if s != nil {
		L.Load = s
	}
	if !whole {
		L.windowSeries()
	}
	L.diagnose()

	if err := L.loadGC(ctx); err != nil {
		return nil, err
	}
	// The per-thread events first: the recording's span is the time its
	// lock waits are a share of.
	if err := L.loadJFRThreads(ctx); err != nil {
		return nil, err
	}
	if err := L.loadJFR(ctx); err != nil {
		return nil, err
	}
	if err := stopped(ctx, f.Dir, SocketsPrefix+"*"); err != nil {
		return nil, err
	}
	L.loadSockets()
	// load-detail.json and check.json are small (capped): one look at ctx
	// before them.
	if err := stopped(ctx, f.Dir, loaddetail.File); err != nil {
		return nil, err
	}
	if b, ok := L.readFile(loaddetail.File, loaddetail.MaxBytes); ok {
		if d, err := loaddetail.Decode(b); err != nil {
			L.problem(loaddetail.File, err)
		} else {
			L.LoadDetail = d
		}
	}
	if b, ok := L.readJSON(CheckFile); ok {
		var fs []finding.Finding
		if L.unmarshal(CheckFile, b, &fs) {
			L.Check = fs
		}
	}
	if b, ok := L.readFile(probe.RunFile, probe.MaxFileBytes); ok && len(b) > 0 {
		L.loadProbe(b)
	}
	return L, nil
}

// stopped is ctx's error, naming the file of the folder about to be read.
func stopped(ctx context.Context, dir, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

// loadGC analyses the run's GC logs in one pass each, keeping the pauses
// for the timeline as they stream by. Its error is only ctx's: a log that
// cannot be read is a problem of the run, not an error.
func (L *Layers) loadGC(ctx context.Context) error {
	files, _ := filepath.Glob(filepath.Join(L.Folder.Dir, GCLogGlob))
	if len(files) == 0 {
		return nil
	}
	// Named relative to the folder: finding keys stay the same wherever
	// the folder is (compare matches them across runs and machines).
	srcs := make([]gclog.Source, 0, len(files))
	for _, path := range files {
		rel, _ := filepath.Rel(L.Folder.Dir, path)
		fh, err := runfolder.OpenInside(L.Folder.Dir, rel)
		if err != nil {
			L.problem(rel, err)
			continue
		}
		fh.Close()
		srcs = append(srcs, gclog.Source{Name: rel, Open: func() (io.ReadCloser, error) { return runfolder.OpenInside(L.Folder.Dir, rel) }})
	}
	if len(srcs) == 0 {
		return nil
	}
	if err := stopped(ctx, L.Folder.Dir, GCLogGlob); err != nil {
		return err
	}
	r, err := gclog.AnalyzeEachContext(ctx, srcs, gclog.DefaultThresholds(), func(e *gclog.Event) {
		if e.PauseMs > 0 && e.Uptime >= 0 && e.Kind.IsPause() {
			p := GCPause{UptimeS: e.Uptime, MS: e.PauseMs, Kind: e.Kind.String()}
			if len(L.GCPauses) < maxGCPauses {
				L.GCPauses = append(L.GCPauses, p)
			}
			if len(L.GCLast) == gcLastKept {
				L.GCLast = append(L.GCLast[:0], L.GCLast[1:]...)
			}
			L.GCLast = append(L.GCLast, p)
		}
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%s: %w", L.Folder.Dir, err) // gclog names the file and line
	}
	if err != nil {
		L.problem(GCLogGlob, err)
		return nil
	}
	L.GC, L.GCFiles = r, files
	return nil
}

// loadJFR reads the recording once, a chunk at a time (memory is one chunk
// and the profiles): the execution samples into one stack tree, and the
// allocation and lock profiles beside it. ctx stops the read between and
// inside chunks; the error is only ctx's.
func (L *Layers) loadJFR(ctx context.Context) error {
	if err := stopped(ctx, L.Folder.Dir, JFRFile); err != nil {
		return err
	}
	fh, err := runfolder.OpenInside(L.Folder.Dir, JFRFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		L.problem(JFRFile, err)
		return nil
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.Size() > maxJFRLen {
		L.problem(JFRFile, finding.Errorf(finding.T("%s: over %d MB, larger than tuneloop reads: not a file tuneloop wrote, or a damaged one",
			"%s：超过 %d MB，超出 tuneloop 读取的上限：不是 tuneloop 写的文件，或者已损坏"), filepath.Join(L.Folder.Dir, JFRFile), maxJFRLen>>20))
		return nil
	}
	ps, _, err := stacks.JFRProfilesFrom(ctx, io.LimitReader(fh, maxJFRLen), stacks.CPU, stacks.Alloc, stacks.Lock, stacks.Wall)
	if err := stopped(ctx, L.Folder.Dir, JFRFile); err != nil {
		return err
	}
	if err != nil {
		L.problem(JFRFile, err)
		return nil
	}
	if cpu := ps[stacks.CPU]; cpu.Events > 0 {
		L.Stacks, L.Samples = cpu.Tree(), cpu.Events
	}
	L.Alloc, L.Lock = ps[stacks.Alloc], ps[stacks.Lock]
	if w := ps[stacks.Wall]; w.Unit == "samples" && w.Events > 0 {
		L.Wall = w // JFR's own wall view is CPU plus lock: shown as those two
	}
	L.LockIdleNS = L.Lock.DropIdleWaits()
	L.Lock.Events = 0
	for _, s := range L.Lock.Samples {
		L.Lock.Events += max(s.Events, 1)
	}
	L.LockWaits = lockWaits(L.Lock, L.threadNS())
	return nil
}

// maxJFRLen: a recording larger than this is refused (a run's is a few MB).
const maxJFRLen = 1 << 30

// threadNS is the run's working-thread time in nanoseconds: the working
// threads the dumps saw on average (idle pool threads left out) times the
// recorded span; 0 when either is unknown.
func (L *Layers) threadNS() float64 {
	m := L.Folder.Manifest
	span := m.End.Sub(m.Start)
	// The recording covers the warm-up too, and waits that began before
	// the measured window: its span when longer.
	if r := time.Duration(L.ThreadRead.End - L.ThreadRead.Start); L.ThreadRead.Start > 0 && r > span {
		span = r
	}
	if len(L.Reports) == 0 || span <= 0 {
		return 0
	}
	active := 0
	for _, r := range L.Reports {
		active += r.Active
	}
	return float64(active) / float64(len(L.Reports)) * float64(span.Nanoseconds())
}

func (L *Layers) readJSON(name string) ([]byte, bool) { return L.readFile(name, maxJSONLen) }

// ReadLoad reads dir's load.json as untrusted (inside the folder, capped):
// nil when there is none, or it is JSON null.
func ReadLoad(dir string) (*loadgen.Summary, error) {
	b, err := runfolder.ReadInside(dir, LoadFile, maxJSONLen)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &loadgen.Summary{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, err
	}
	if isNull(b) {
		return nil, nil
	}
	return s, nil
}

// readFile reads a regular file of the folder, at most limit bytes, as
// untrusted (runfolder.ReadInside: no link followed, raw/ itself included, no
// device or FIFO read); a missing file is not a problem, anything else is
// said.
func (L *Layers) readFile(name string, limit int64) ([]byte, bool) {
	b, err := runfolder.ReadInside(L.Folder.Dir, name, limit)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		L.problem(name, err)
		return nil, false
	}
	return b, true
}

// lazyFile reads a run file on its first Read (through readFile: inside
// the folder, capped at maxDumpLen) and lets it go at the end.
type lazyFile struct {
	L    *Layers
	name string
	r    *bytes.Reader
	done bool
}

func (z *lazyFile) Read(p []byte) (int, error) {
	if z.r == nil {
		if z.done {
			return 0, io.EOF
		}
		b, _ := z.L.readFile(z.name, maxDumpLen) // a problem of the run when unreadable
		z.r = bytes.NewReader(b)
	}
	n, err := z.r.Read(p)
	if err == io.EOF {
		z.r, z.done = nil, true
	}
	return n, err
}

func (L *Layers) unmarshal(name string, b []byte, v any) bool {
	if err := json.Unmarshal(b, v); err != nil {
		L.problem(name, err)
		return false
	}
	return true
}

// IDUnreadable marks a file of the run folder that could not be read.
const IDUnreadable = "run.file-unreadable"

func (L *Layers) problem(name string, err error) {
	u := &Unused{File: name, Why: finding.Tf(finding.T("%s: %v", "%s：%v"), name, err)}
	L.Problems = append(L.Problems, verdictRules[IDUnreadable].Evaluate(&Input{L: L, Unreadable: u})...)
}
