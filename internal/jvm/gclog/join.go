package gclog

// Rotated logs: -Xlog:...:filecount=N writes gc.log, gc.log.0 ... gc.log.N-1
// in a ring; -XX:+UseGCLogFileRotation writes gc.log.0, gc.log.1 ...
// gc.log.N.current. Files are ordered by the first timestamp inside them,
// then by the number in the name, then joined into one summary.

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Source is one GC log file to read.
type Source struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// FileSources wraps paths as sources read from disk; gzip-compressed files
// (gc.log.1.gz from a rotation script) are recognised by their magic bytes,
// whatever their name, and read decompressed.
func FileSources(paths ...string) []Source {
	out := make([]Source, len(paths))
	for i, p := range paths {
		out[i] = Source{Name: p, Open: func() (io.ReadCloser, error) { return OpenFile(p) }}
	}
	return out
}

// OpenFile opens a GC log, decompressing it when it is gzip. Callers that
// sniff a file's kind should read through it so a .gz log is seen as one.
func OpenFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return maybeGzip(f)
}

// maybeGzip returns rc, or a decompressing reader over it when rc starts
// with the gzip magic; closing the result closes rc.
func maybeGzip(rc io.ReadCloser) (io.ReadCloser, error) {
	br := bufio.NewReader(rc)
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return gzReadCloser{zr, rc}, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{br, rc}, nil
}

type gzReadCloser struct {
	*gzip.Reader
	under io.Closer
}

func (g gzReadCloser) Close() error {
	g.Reader.Close()
	return g.under.Close()
}

// firstTime finds the first timestamp in the first lines of r.
func firstTime(r io.Reader) (t float64, uptime, ok bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var d decor
	jp := jdk8Parser{}
	for n := 0; n < 2000 && sc.Scan(); n++ {
		b := sc.Bytes()
		if _, isU := splitDecorators(b, &d); isU {
			up, wall := d.times()
			if up >= 0 {
				return up, true, true
			}
			if !wall.IsZero() {
				return float64(wall.UnixNano()) / 1e9, false, true
			}
			continue
		}
		wall, up, _, _ := jp.prefix(b)
		if up >= 0 {
			return up, true, true
		}
		if !wall.IsZero() {
			return float64(wall.UnixNano()) / 1e9, false, true
		}
	}
	return 0, false, false
}

// rotationIndex orders names: gc.log.0 < gc.log.1 < ... < gc.log.3.current,
// and an unnumbered gc.log (the live unified file) last.
func rotationIndex(name string) float64 {
	base := strings.TrimSuffix(filepath.Base(name), ".gz")
	if strings.HasSuffix(base, ".current") {
		return 1e9
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		if n, err := strconv.Atoi(base[i+1:]); err == nil {
			return float64(n)
		}
	}
	return 1e9 + 1
}

// Order sorts sources of one JVM's rotated logs into time order.
func Order(srcs []Source) ([]Source, error) {
	type keyed struct {
		s      Source
		t      float64
		uptime bool
		ok     bool
		idx    float64
	}
	ks := make([]keyed, len(srcs))
	sameClock := true
	for i, s := range srcs {
		rc, err := s.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		t, up, ok := firstTime(rc)
		rc.Close()
		ks[i] = keyed{s: s, t: t, uptime: up, ok: ok, idx: rotationIndex(s.Name)}
	}
	first := -1
	for i := range ks {
		if ks[i].ok {
			if first >= 0 && ks[i].uptime != ks[first].uptime {
				sameClock = false
			}
			if first < 0 {
				first = i
			}
		}
	}
	// Files with timestamps in time order, then files without (a header-only
	// ".current" file), each group by the number in the name. With mixed
	// clocks (uptime in some, wall time in others) only names can order them.
	sort.SliceStable(ks, func(i, j int) bool {
		if sameClock {
			if ks[i].ok != ks[j].ok {
				return ks[i].ok
			}
			if ks[i].ok && ks[i].t != ks[j].t {
				return ks[i].t < ks[j].t
			}
		}
		if ks[i].idx != ks[j].idx {
			return ks[i].idx < ks[j].idx
		}
		return ks[i].s.Name < ks[j].s.Name
	})
	out := make([]Source, len(ks))
	for i := range ks {
		out[i] = ks[i].s
	}
	return out, nil
}

// Report is the analysis of one log or one set of rotated logs.
type Report struct {
	Summary  Summary           `json:"summary"`
	Findings []finding.Finding `json:"findings"`
}

// Analyze orders the sources (rotated files of one JVM), parses them in a
// single streaming pass each and returns KPIs and findings. Any file that is
// not a GC log is an error naming it; files of different JVMs are refused
// with a *MixedJVMsError (use AnalyzeSets for them).
func Analyze(srcs []Source, th Thresholds) (*Report, error) {
	return AnalyzeEachContext(context.Background(), srcs, th, nil)
}

// AnalyzeContext is Analyze that stops when ctx is done.
func AnalyzeContext(ctx context.Context, srcs []Source, th Thresholds) (*Report, error) {
	return AnalyzeEachContext(ctx, srcs, th, nil)
}

// AnalyzeEach is Analyze that also hands every event to fn (nil: none) in
// the same pass, for callers that draw the events as well.
func AnalyzeEach(srcs []Source, th Thresholds, fn func(*Event)) (*Report, error) {
	return AnalyzeEachContext(context.Background(), srcs, th, fn)
}

// AnalyzeEachContext is AnalyzeEach that stops when ctx is done.
func AnalyzeEachContext(ctx context.Context, srcs []Source, th Thresholds, fn func(*Event)) (*Report, error) {
	if len(srcs) == 0 {
		return nil, errors.New("no GC log given")
	}
	if len(srcs) == 1 { // one file is one JVM: no identity pass
		return analyzeOrdered(ctx, srcs, th, fn)
	}
	sets, err := groupByJVM(ctx, srcs)
	if err != nil {
		return nil, err
	}
	if len(sets) > 1 {
		return nil, mixedError(sets)
	}
	return analyzeOrdered(ctx, sets[0].srcs(), th, fn)
}

// AnalyzeSets analyses GC logs that may come from several JVMs: files are
// grouped by JVM (collector, JVM start time, pid, heap size, overlapping
// uptimes), the rotated parts of each JVM joined, and one report returned
// per JVM, in the order of the first file of each set as given. With more
// than one set, each report carries a gc.separate-jvms finding saying so.
func AnalyzeSets(srcs []Source, th Thresholds) ([]*Report, error) {
	return AnalyzeSetsContext(context.Background(), srcs, th)
}

// AnalyzeSetsContext is AnalyzeSets that stops when ctx is done.
func AnalyzeSetsContext(ctx context.Context, srcs []Source, th Thresholds) ([]*Report, error) {
	if len(srcs) == 0 {
		return nil, errors.New("no GC log given")
	}
	if len(srcs) == 1 {
		r, err := analyzeOrdered(ctx, srcs, th, nil)
		if err != nil {
			return nil, err
		}
		return []*Report{r}, nil
	}
	sets, err := groupByJVM(ctx, srcs)
	if err != nil {
		return nil, err
	}
	out := make([]*Report, 0, len(sets))
	for _, set := range sets {
		r, err := analyzeOrdered(ctx, set.srcs(), th, nil)
		if err != nil {
			return nil, err
		}
		if len(sets) > 1 {
			r.Findings = append(r.Findings, separateFinding(set, sets)...)
			finding.Sort(r.Findings)
		}
		out = append(out, r)
	}
	return out, nil
}

// analyzeOrdered orders the sources of one JVM and summarises them.
func analyzeOrdered(ctx context.Context, srcs []Source, th Thresholds, fn func(*Event)) (*Report, error) {
	ordered, err := Order(srcs)
	if err != nil {
		return nil, err
	}
	sum := NewSummariser()
	for _, s := range ordered {
		rc, err := s.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		add := sum.Add
		if fn != nil {
			add = func(e *Event) { sum.Add(e); fn(e) }
		}
		st, err := ParseContext(ctx, rc, s.Name, DefaultLimits(), add)
		rc.Close()
		if err != nil {
			return nil, err
		}
		sum.AddStats(st)
	}
	sm := sum.Summary()
	subject := srcs[0].Name
	if len(srcs) > 1 {
		subject = fmt.Sprintf("%s (+%d rotated)", ordered[len(ordered)-1].Name, len(srcs)-1)
	}
	return &Report{Summary: sm, Findings: Findings(sm, th, subject)}, nil
}
