package gclog

// Rotated logs: -Xlog:...:filecount=N writes gc.log, gc.log.0 ... gc.log.N-1
// in a ring; -XX:+UseGCLogFileRotation writes gc.log.0, gc.log.1 ...
// gc.log.N.current. Files are ordered by the first timestamp inside them,
// then by the number in the name, then joined into one summary.

import (
	"bufio"
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

// FileSources wraps paths as sources read from disk.
func FileSources(paths ...string) []Source {
	out := make([]Source, len(paths))
	for i, p := range paths {
		out[i] = Source{Name: p, Open: func() (io.ReadCloser, error) { return os.Open(p) }}
	}
	return out
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
	base := filepath.Base(name)
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
// not a GC log is an error naming it.
func Analyze(srcs []Source, th Thresholds) (*Report, error) { return AnalyzeEach(srcs, th, nil) }

// AnalyzeEach is Analyze that also hands every event to fn (nil: none) in
// the same pass, for callers that draw the events as well.
func AnalyzeEach(srcs []Source, th Thresholds, fn func(*Event)) (*Report, error) {
	if len(srcs) == 0 {
		return nil, errors.New("no GC log given")
	}
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
		st, err := Parse(rc, s.Name, add)
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
