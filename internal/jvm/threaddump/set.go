package threaddump

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// A set of thread dumps of one JVM, the way every command reads them: parse
// each input, analyse each dump, order by time, and report each problem once
// (FindingsOver) beside what persists across dumps (SeriesFindings).

// Input is one file of thread dumps: its name (for messages and evidence)
// and its content.
type Input struct {
	Name string
	R    io.Reader
}

// SetError is an input that could not be read, or only in part.
type SetError struct {
	Name    string `json:"name"`
	Message string `json:"error"`
	Err     error  `json:"-"` // wraps ErrNotThreadDump when it is no dump at all
}

// Duplicate is a dump identical to one already in the set (the same file
// given twice, or one dump pasted twice): counted once, so a copy is not
// mistaken for threads stuck across dumps.
type Duplicate struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	SameAs string `json:"same_as"` // "source:line" of the dump kept
}

// Set is the analysis of several thread dumps of one JVM.
type Set struct {
	Dumps   []*Dump   `json:"-"`
	Reports []*Report `json:"reports"`
	// Sources[i] names the input Dumps[i] came from.
	Sources []string `json:"sources"`
	// Series is the across-dumps analysis; nil with fewer than two dumps.
	Series *Series `json:"series,omitempty"`
	// Findings: each problem once, from the dump that shows it best, then
	// what persists across dumps.
	Findings   []finding.Finding `json:"findings"`
	Unreadable []SetError        `json:"unreadable,omitempty"`
	Duplicates []Duplicate       `json:"duplicates,omitempty"`
	// DuplicatesMore counts identical dumps past the first
	// maxDuplicatesListed, which are listed.
	DuplicatesMore int `json:"duplicates_more,omitempty"`
	// Thinned is set when the inputs held more dumps than a set keeps.
	Thinned *Thinning `json:"thinned,omitempty"`
}

// Thinning says that a set held more dumps than are kept: Kept of Read
// distinct dumps, one every Every in the order read, so the kept ones still
// span the whole input. Memory is what is kept, not the input.
type Thinning struct {
	Read  int `json:"read"`
	Kept  int `json:"kept"`
	Every int `json:"every"`
}

// The most a set keeps: dumps, and threads over all kept dumps (a dump of
// 1,000 threads holds a few MB parsed). Past either, every other kept dump
// is let go and the stride doubles.
const (
	maxSetDumps   = 256
	maxSetThreads = 200_000
	// maxDuplicatesListed: identical dumps past these are counted only.
	maxDuplicatesListed = 100
)

// ReadSet is ReadSetContext without a context.
func ReadSet(inputs []Input) *Set { return ReadSetContext(context.Background(), inputs) }

// ReadSetContext parses and analyses inputs, each streamed a dump at a
// time. An input that fails is recorded in Unreadable and the others still
// count (dumps parsed before an error in the middle of a file are kept);
// identical dumps are counted once and listed in Duplicates; past
// maxSetDumps (or maxSetThreads) the dumps are thinned evenly (Thinned);
// the dumps are ordered by time when all have one. Once ctx is done it
// stops between dumps and returns what it has, without findings.
func ReadSetContext(ctx context.Context, inputs []Input) *Set {
	s := &Set{}
	// Where each distinct dump was first read: an input's index and a line,
	// not a string per dump (a log of a million dumps keeps a million).
	type at struct{ in, line int32 }
	seen := map[[32]byte]at{}
	var names []string
	type kept struct {
		d      *Dump
		source string
		seq    int // index among the distinct dumps read
	}
	var keep []kept
	threads, every, distinct := 0, 1, 0
	for idx, in := range inputs {
		if ctx.Err() != nil {
			break
		}
		n, any := 0, false
		err := ParseFunc(in.Name, in.R, func(d *Dump) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			n++
			fp := fingerprint(d)
			if first, dup := seen[fp]; dup {
				if len(s.Duplicates) < maxDuplicatesListed {
					s.Duplicates = append(s.Duplicates, Duplicate{Source: in.Name, Line: d.Line, SameAs: fmt.Sprintf("%s:%d", inputs[first.in].Name, first.line)})
				} else {
					s.DuplicatesMore++
				}
				return nil
			}
			seen[fp] = at{int32(idx), int32(d.Line)}
			seq := distinct
			distinct++
			if seq%every != 0 {
				return nil
			}
			keep = append(keep, kept{d, in.Name, seq})
			threads += len(d.Threads)
			any = true
			for len(keep) > maxSetDumps || threads > maxSetThreads && len(keep) > 1 {
				every *= 2
				j := 0
				threads = 0
				for _, k := range keep {
					if k.seq%every == 0 {
						keep[j] = k
						j++
						threads += len(k.d.Threads)
					}
				}
				clear(keep[j:])
				keep = keep[:j]
			}
			return nil
		})
		if ctx.Err() != nil {
			break
		}
		if err != nil || n == 0 {
			if err == nil {
				err = fmt.Errorf("%s: %w", in.Name, ErrNotThreadDump)
			}
			s.Unreadable = append(s.Unreadable, SetError{Name: in.Name, Message: err.Error(), Err: err})
		}
		if any && (len(names) == 0 || names[len(names)-1] != in.Name) {
			names = append(names, in.Name)
		}
	}
	for _, k := range keep {
		s.Dumps = append(s.Dumps, k.d)
		s.Sources = append(s.Sources, k.source)
	}
	if every > 1 {
		s.Thinned = &Thinning{Read: distinct, Kept: len(keep), Every: every}
	}
	if ctx.Err() != nil {
		return s
	}
	if idx := TimeOrder(s.Dumps); idx != nil {
		d2, s2 := make([]*Dump, len(idx)), make([]string, len(idx))
		for i, j := range idx {
			d2[i], s2[i] = s.Dumps[j], s.Sources[j]
		}
		s.Dumps, s.Sources = d2, s2
	}
	s.Reports = make([]*Report, len(s.Dumps))
	for i, d := range s.Dumps {
		if ctx.Err() != nil {
			return s
		}
		s.Reports[i] = Analyze(d)
	}
	s.merge(names)
	return s
}

// merge fills Series and Findings from Reports and Sources; names are the
// distinct inputs, for the series' evidence.
func (s *Set) merge(names []string) {
	if len(s.Reports) == 0 {
		return
	}
	s.Findings = FindingsOver(s.Reports, s.Sources)
	if len(s.Reports) >= 2 {
		s.Series = NewSeries(s.Reports)
		s.Findings = append(s.Findings, SeriesFindings(s.Series, sourceLabel(names))...)
	}
}

// Last is the latest dump and its report (nil, nil for an empty set): what
// a recording joins its hot threads to.
func (s *Set) Last() (*Dump, *Report) {
	if len(s.Dumps) == 0 {
		return nil, nil
	}
	return s.Dumps[len(s.Dumps)-1], s.Reports[len(s.Reports)-1]
}

// sourceLabel names the inputs of a series for its evidence: "a.txt",
// "a.txt, b.txt" or "first … last" past three.
func sourceLabel(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s … %s", names[0], names[len(names)-1])
}

// fingerprint identifies a dump by everything it says, not where it was
// read: the same dump in two files, or twice in one, has one fingerprint.
// Two real dumps differ at least in their timestamp or a thread's cpu=.
func fingerprint(d *Dump) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%v\x00%v\n", d.Format, d.Time, d.VM, d.PID, d.HasOwnable, d.JVMDeadlocks)
	for _, t := range d.Threads {
		c := *t
		c.Line = 0
		fmt.Fprintf(h, "%+v\n", c)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
