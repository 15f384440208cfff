// Package runfolder is a run folder: the raw evidence `tuneloop record` saves so
// that diagnosis can be re-run offline, on this machine or another one.
//
//	RUN_DIR/
//	  manifest.json        schema tuneloop.run/v1: tool, host facts, argv, times, target, status
//	  raw/samples.jsonl    one sample.Snapshot per tick (appended; fsync every few ticks)
//	  derived/series.json  per-tick series for reports (written at the end)
//	  findings.json        ranked findings (written at the end)
//
// The manifest is written first with status "recording" and replaced
// atomically (temp file + rename) at the end, so a folder is never corrupt:
// a recorder killed with SIGKILL leaves a manifest that says "recording",
// whole sample lines (plus at most one torn last line, which the reader
// skips), and no findings. Open reads such a folder and says it is
// incomplete.
//
// The catalog of runs (catalog.go) is a SQLite database; it is an index
// only: a run folder is complete without it.
package runfolder

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Schema names the manifest format; an incompatible change bumps it.
const Schema = "tuneloop.run/v1"

// File names inside a run folder.
const (
	ManifestFile = "manifest.json"
	// SamplesFile is gzip-compressed JSON lines (about 7x smaller); runs
	// recorded before it was compressed have SamplesFilePlain instead.
	SamplesFile      = "raw/samples.jsonl.gz"
	SamplesFilePlain = "raw/samples.jsonl"
	SeriesFile       = "derived/series.json"
	FindingsFile     = "findings.json"
	// NUMAMapsFile is the target's /proc/PID/numa_maps, read once at the
	// end of the run (where its memory lives, per NUMA node).
	NUMAMapsFile = "raw/numa_maps.txt"
	// ThreadDumpPrefix names the JVM thread dumps taken during the run:
	// raw/threaddump-1.txt, raw/threaddump-2.txt, ...
	ThreadDumpPrefix = "raw/threaddump-"
)

// Status of a run folder.
type Status string

const (
	// Recording: the recorder is running, or was killed before it finished.
	Recording Status = "recording"
	// Complete: the recorder ran to the end (duration reached).
	Complete Status = "complete"
	// Interrupted: stopped early by the user (Ctrl-C) or because the target
	// exited, and finalised properly.
	Interrupted Status = "interrupted"
)

// Manifest describes a run.
type Manifest struct {
	Schema string    `json:"schema"`
	Tool   Tool      `json:"tool"`
	ID     string    `json:"id"` // folder base name: <timestamp>-<host>
	Host   string    `json:"host"`
	Argv   []string  `json:"argv"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end,omitzero"`
	Status Status    `json:"status"`
	Reason string    `json:"reason,omitempty"` // why it ended early
	// IntervalMS is the sampling interval; DurationMS the requested duration
	// (0: until interrupted).
	IntervalMS int64   `json:"interval_ms"`
	DurationMS int64   `json:"duration_ms"`
	Target     *Target `json:"target,omitempty"`
	// Samplers: every registered sampler -> "on" or "off"; Unavailable:
	// those that could not run here, with the reason (filled at the end).
	Samplers    map[string]string `json:"samplers"`
	Unavailable map[string]string `json:"unavailable,omitempty"`
	Ticks       int64             `json:"ticks"` // snapshots written (final manifest only)
	// Raw lists the raw files besides the samples (thread dumps, numa_maps).
	Raw []string `json:"raw,omitempty"`
	// Cost is what recording cost, from the recorder's own getrusage.
	Cost  *Cost          `json:"cost,omitempty"`
	Facts *sysinfo.Facts `json:"facts"`
	// Service is set when the service under test ended during the run
	// (`run`): the evidence up to that moment is the run's.
	Service *ServiceEnd `json:"service,omitempty"`
}

// ServiceEnd is how the service under test ended during a run.
type ServiceEnd struct {
	PID int `json:"pid"`
	// ExitCode is the shell's exit status as a shell reports it (128+N
	// for a death by signal N: 137 for SIGKILL); -1 when not known (a
	// service tuneloop did not start).
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"` // "SIGKILL" when one is known
	// AtS is when it was seen gone, in seconds from the start of the
	// measured load (negative: before it).
	AtS float64 `json:"at_s"`
	// LastLog are the last lines of its log (its stdout and stderr), as
	// written: the reader sanitises them.
	LastLog []string `json:"last_log,omitempty"`
	// Hung: it still ran but stopped answering (no successful response
	// for a while); AtS is when the last one came.
	Hung bool `json:"hung,omitempty"`
}

// Tool identifies the recorder.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target is the process a run watched.
type Target struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm,omitempty"`
	// How it was chosen: "pid" (--pid) or "jvm-auto".
	How string `json:"how,omitempty"`
}

// Cost is the recorder's own resource use over the run and, apart, the
// other costs of measuring: the load generator's own CPU and what JFR and
// attach cost inside the target.
type Cost struct {
	CPUPctOfCore float64 `json:"cpu_pct_of_core"`
	MaxRSSKB     int64   `json:"max_rss_kb"`
	AvgTickUS    int64   `json:"avg_tick_us"`
	// Generator is the load generator's own CPU under `run` (nil otherwise).
	Generator *GeneratorCost `json:"generator,omitempty"`
	// InTarget is the CPU of the target JVM's JFR and Attach Listener
	// threads over the recording (nil without per-thread samples of a JVM).
	InTarget *TargetCost `json:"in_target,omitempty"`
}

// GeneratorCost is the load generator's CPU without the recorder's: under
// `run` both are one process, whose getrusage holds both.
type GeneratorCost struct {
	CPUPct        float64 `json:"cpu_pct"`         // its own, % of Cores
	ProcessCPUPct float64 `json:"process_cpu_pct"` // the whole process (getrusage), % of Cores
	Cores         int     `json:"cores"`
	// Engine is "jmeter" when JMeter sent the load: CPUPct is then its
	// processes' on this host (/proc), the recorder not in it.
	Engine string `json:"engine,omitempty"`
}

// TargetCost is what JFR and attach cost inside the target JVM, from the
// per-thread samples of its threads named "JFR ..." and "Attach Listener".
type TargetCost struct {
	CPUMS     int64    `json:"cpu_ms"`
	PctOfCore float64  `json:"pct_of_core"`
	Seconds   float64  `json:"seconds"` // between the first and the last sample
	Samples   int      `json:"samples"`
	Threads   []string `json:"threads"` // their names (comm), as the target set them
}

// Incomplete reports whether the recorder never finalised the folder.
func (m *Manifest) Incomplete() bool { return m.Status == Recording }

// WriteJSONAtomic writes v as indented JSON to path through a temp file in
// the same directory, fsynced and renamed over path: readers see the old or
// the new file, never half of one.
func WriteJSONAtomic(path string, v any) error {
	var buf bytes.Buffer
	if err := finding.WriteJSON(&buf, v); err != nil {
		return err
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// WriteFileAtomic writes b to path as WriteJSONAtomic does: a temp file in
// the same directory, fsynced, renamed over path.
func WriteFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// Document is one file of a document's formats: its name in the folder
// and the writer of that format.
type Document struct {
	Name  string
	Write func(io.Writer) error
}

// WriteDocuments writes each file in dir, each rendered whole before it
// is written (WriteFileAtomic): a renderer that fails or a full disk
// leaves the file as it was, and the other files are still written.
// The error names every file that was not.
func WriteDocuments(dir string, files ...Document) error {
	var errs []error
	for _, f := range files {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Name, err))
			continue
		}
		if err := WriteFileAtomic(filepath.Join(dir, f.Name), b.Bytes()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Writer records into a new run folder.
type Writer struct {
	Dir       string
	m         Manifest
	f         *os.File
	gz        *gzip.Writer
	enc       *sample.Encoder
	syncEvery int
	n         int64
	err       error
}

// SyncEvery is how many ticks pass between fsyncs of the samples file.
const SyncEvery = 5

// Create makes dir (which must not exist or be empty), writes the manifest
// with status Recording and opens the samples file.
func Create(dir string, m Manifest) (*Writer, error) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("run folder %s already exists and is not empty", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the run folder: %w", err)
	}
	// raw/ is made exclusively: of two runs given one folder at once, one
	// gets it and the other is refused (both saw it empty above).
	if err := os.Mkdir(filepath.Join(dir, "raw"), 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("run folder %s is being used by another run", dir)
		}
		return nil, fmt.Errorf("creating the run folder: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "derived"), 0o755); err != nil {
		return nil, fmt.Errorf("creating the run folder: %w", err)
	}
	m.Schema = Schema
	m.Status = Recording
	if m.ID == "" {
		m.ID = filepath.Base(dir)
	}
	if err := WriteJSONAtomic(filepath.Join(dir, ManifestFile), &m); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, SamplesFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("creating the samples file: %w", err)
	}
	gz := gzip.NewWriter(f)
	return &Writer{Dir: dir, m: m, f: f, gz: gz, enc: sample.NewEncoder(gz), syncEvery: SyncEvery}, nil
}

// Manifest returns the manifest as it will be written (callers may edit it
// before Finish through the pointer).
func (w *Writer) Manifest() *Manifest { return &w.m }

// Append writes one snapshot as a line, fsyncing every SyncEvery ticks.
// After a write error every later call returns it.
func (w *Writer) Append(s *sample.Snapshot) error {
	if w.err != nil {
		return w.err
	}
	if err := w.enc.Encode(s); err != nil {
		w.err = fmt.Errorf("writing samples: %w", err)
		return w.err
	}
	// A sync flush per tick puts whole lines in the file, as the plain file
	// had: a killed recorder loses nothing that was sampled.
	if err := w.gz.Flush(); err != nil {
		w.err = fmt.Errorf("writing samples: %w", err)
		return w.err
	}
	w.n++
	if w.n%int64(w.syncEvery) == 0 {
		if err := w.f.Sync(); err != nil {
			w.err = fmt.Errorf("syncing samples: %w", err)
			return w.err
		}
	}
	return nil
}

// SaveRaw writes one more raw file (name relative to the run folder, e.g.
// NUMAMapsFile) through a temp file and rename.
func (w *Writer) SaveRaw(name string, b []byte) error {
	path := filepath.Join(w.Dir, name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// Ticks is the number of snapshots written.
func (w *Writer) Ticks() int64 { return w.n }

// Finish closes the samples, writes series and findings (either may be
// nil), and then the final manifest with status, end time and tick count.
// The manifest goes last: a folder whose manifest is final is whole.
//
// A write that fails (a full disk) loses nothing already written: the
// manifest is still made final, status interrupted and the failure as its
// reason, rewritten in place when no new file fits, and the error returned
// is a *WriteError.
func (w *Writer) Finish(status Status, end time.Time, series any, findings []finding.Finding) error {
	err := w.gz.Close()
	if serr := w.f.Sync(); err == nil {
		err = serr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		err = fmt.Errorf("closing samples: %w", err)
	}
	if err == nil && series != nil {
		err = WriteJSONAtomic(filepath.Join(w.Dir, SeriesFile), series)
	}
	if err == nil && findings != nil {
		err = WriteJSONAtomic(filepath.Join(w.Dir, FindingsFile), findings)
	}
	w.m.Status = status
	w.m.End = end.UTC()
	w.m.Ticks = w.n
	if err == nil {
		if err = WriteJSONAtomic(filepath.Join(w.Dir, ManifestFile), &w.m); err == nil {
			return nil
		}
	}
	return w.failed(err)
}

// WriteError is a run folder that could not be completed; what it holds
// is whole and its manifest says why (when even that could be written).
type WriteError struct {
	Err error
	// Marked: the manifest was rewritten with status interrupted and the
	// failure as its reason.
	Marked bool
}

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// failed marks the manifest with the write failure and returns it.
func (w *Writer) failed(err error) error {
	w.m.Status = Interrupted
	reason := "the run folder could not be completed: " + err.Error()
	if w.m.Reason != "" {
		reason = w.m.Reason + "; " + reason
	}
	w.m.Reason = reason
	path := filepath.Join(w.Dir, ManifestFile)
	marked := WriteJSONAtomic(path, &w.m) == nil || rewriteInPlace(path, &w.m) == nil
	return &WriteError{Err: err, Marked: marked}
}

// rewriteInPlace overwrites path with v as compact JSON in the blocks the
// file already has (the indented original is larger), for a disk with no
// room for a temp file. Not atomic: the last resort.
func rewriteInPlace(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	// Only within the blocks already allocated: a write that needs a new
	// one could fail half way and leave no manifest at all.
	var st syscall.Stat_t
	err = syscall.Fstat(int(f.Fd()), &st)
	if err == nil && st.Blocks*512 < int64(len(b)) {
		err = fmt.Errorf("%s: the final manifest does not fit in the old one's space", path)
	}
	if err == nil {
		_, err = f.WriteAt(b, 0)
	}
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// MarkFailed records a failure that happened after Finish (the load's
// summary or the reports could not be written) in the final manifest.
func MarkFailed(dir string, m *Manifest, err error) bool {
	m.Status = Interrupted
	reason := "the run folder could not be completed: " + err.Error()
	if m.Reason != "" {
		reason = m.Reason + "; " + reason
	}
	m.Reason = reason
	path := filepath.Join(dir, ManifestFile)
	return WriteJSONAtomic(path, m) == nil || rewriteInPlace(path, m) == nil
}

// Abort closes the samples file without finalising (the folder stays
// "recording", as after a crash).
func (w *Writer) Abort() { w.f.Close() }

// Folder is a run folder opened for reading.
type Folder struct {
	Dir      string
	Manifest Manifest
}

// ErrNotRun means the directory has no run manifest.
var ErrNotRun = finding.Errorf(finding.T("not a run folder (no manifest.json)", "不是运行目录（没有 manifest.json）"))

// IsRunDir reports whether dir looks like a run folder.
func IsRunDir(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, ManifestFile))
	return err == nil && st.Mode().IsRegular()
}

// Open reads dir's manifest. A manifest of another schema is an error.
func Open(dir string) (*Folder, error) {
	b, err := ReadInside(dir, ManifestFile, MaxManifest)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRun)
	}
	if err != nil {
		return nil, err
	}
	f := &Folder{Dir: dir}
	if err := json.Unmarshal(b, &f.Manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	if f.Manifest.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, this tuneloop reads %q", filepath.Join(dir, ManifestFile), f.Manifest.Schema, Schema)
	}
	if f.Manifest.Facts == nil {
		f.Manifest.Facts = &sysinfo.Facts{}
	}
	return f, nil
}

// Samples opens the raw samples for reading (Replay them): the compressed
// file, or the plain one of an older run. A stream cut short by a killed
// recorder reads to its last whole flush.
func (f *Folder) Samples() (io.ReadCloser, error) {
	fh, err := OpenInside(f.Dir, SamplesFile)
	if errors.Is(err, os.ErrNotExist) {
		if fh, err = OpenInside(f.Dir, SamplesFilePlain); err == nil {
			return struct {
				io.Reader
				io.Closer
			}{&cappedReader{r: fh, left: MaxSamplesRead, name: fh.Name()}, fh}, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the samples: %w", err)
	}
	rc, err := OpenSamples(fh)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{&cappedReader{r: rc, left: MaxSamplesRead, name: fh.Name()}, rc}, nil
}

// OpenSamples reads a compressed samples stream, closing rc with it.
func OpenSamples(rc io.ReadCloser) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(rc)
	if err == io.EOF || err == io.ErrUnexpectedEOF { // killed before the first tick was whole
		return io.NopCloser(strings.NewReader("")), rc.Close()
	}
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("reading the samples: %w", err)
	}
	return &samplesReader{zr: zr, c: rc}, nil
}

type samplesReader struct {
	zr *gzip.Reader
	c  io.Closer
}

func (r *samplesReader) Read(p []byte) (int, error) {
	n, err := r.zr.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF // no gzip trailer: the recorder was killed; what was flushed is whole
	}
	return n, err
}

func (r *samplesReader) Close() error { r.zr.Close(); return r.c.Close() }

// Raw reads a raw file other than the samples (e.g. NUMAMapsFile); nil
// and no error when the run does not have it.
func (f *Folder) Raw(name string) ([]byte, error) {
	b, err := ReadInside(f.Dir, name, MaxRaw)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// RawFiles lists the raw files whose names (relative to the run folder)
// start with prefix, e.g. ThreadDumpPrefix, in natural order (2 before 10).
func (f *Folder) RawFiles(prefix string) ([]string, error) {
	dir, base := filepath.Split(prefix)
	if dir != "" {
		// raw/ itself must be a folder of the run, not a link out of it.
		if st, err := os.Lstat(filepath.Join(f.Dir, dir)); err == nil && !st.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: filepath.Join(f.Dir, dir), Err: ErrNotRegular}
		}
	}
	ents, err := os.ReadDir(filepath.Join(f.Dir, dir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, base) && !strings.HasSuffix(n, ".tmp") {
			out = append(out, dir+n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) < len(out[j])
		}
		return out[i] < out[j]
	})
	return out, nil
}

// Findings reads findings.json; nil and no error when there is none (an
// incomplete run).
func (f *Folder) Findings() ([]finding.Finding, error) {
	b, err := ReadInside(f.Dir, FindingsFile, MaxFindings)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var fs []finding.Finding
	if err := json.Unmarshal(b, &fs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(f.Dir, FindingsFile), err)
	}
	return fs, nil
}
