package threaddump

import (
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
}

// ReadSet parses and analyses inputs. An input that fails is recorded in
// Unreadable and the others still count (dumps parsed before an error in
// the middle of a file are kept); identical dumps are counted once and
// listed in Duplicates; the dumps are ordered by time when all have one.
func ReadSet(inputs []Input) *Set {
	s := &Set{}
	seen := map[[32]byte]string{}
	var names []string
	for _, in := range inputs {
		ds, err := Parse(in.Name, in.R)
		if err != nil || len(ds) == 0 {
			if err == nil {
				err = fmt.Errorf("%s: %w", in.Name, ErrNotThreadDump)
			}
			s.Unreadable = append(s.Unreadable, SetError{Name: in.Name, Message: err.Error(), Err: err})
		}
		kept := false
		for _, d := range ds {
			fp := fingerprint(d)
			where := fmt.Sprintf("%s:%d", in.Name, d.Line)
			if first, dup := seen[fp]; dup {
				s.Duplicates = append(s.Duplicates, Duplicate{Source: in.Name, Line: d.Line, SameAs: first})
				continue
			}
			seen[fp] = where
			s.Dumps = append(s.Dumps, d)
			s.Sources = append(s.Sources, in.Name)
			kept = true
		}
		if kept && (len(names) == 0 || names[len(names)-1] != in.Name) {
			names = append(names, in.Name)
		}
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
