// Package jtl imports JMeter results files (JTL, CSV with or without a
// header, and XML) into the same loadgen.Summary a tuneloop run produces,
// so `tuneloop load --import results.jtl` reports a JMeter run like our own.
// Memory is bounded: samples stream into HDR histograms, nothing is kept.
package jtl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// Problem is a line that could not be used; the import goes on without it.
type Problem struct {
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// maxProblems caps the problems kept; Result.Skipped counts them all.
const maxProblems = 20

// Result is an imported file: its summary and what was skipped.
type Result struct {
	Summary  *loadgen.Summary
	Format   string // "jtl-csv" or "jtl-xml"
	Samples  int64
	Skipped  int64
	Problems []Problem // the first maxProblems skipped lines
}

func (r *Result) problem(line int, format string, args ...any) {
	r.Skipped++
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// ErrNoSamples is returned when a file holds no usable sample.
var ErrNoSamples = errors.New("no samples found")

// Import reads a JTL file, CSV or XML, telling them apart by the first
// non-blank byte.
func Import(r io.Reader) (*Result, error) { return importKeep(r, nil) }

// ImportWindow is Import keeping only the samples sent within [from, to]:
// the part of a JMeter run that a recording covered (`run --jtl-watch`).
func ImportWindow(r io.Reader, from, to time.Time) (*Result, error) {
	return importKeep(r, func(s *loadgen.Sample) bool { return !s.Start.Before(from) && !s.Start.After(to) })
}

func importKeep(r io.Reader, keep func(*loadgen.Sample) bool) (*Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("empty file: %w", ErrNoSamples)
			}
			return nil, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.ReadByte()
			continue
		case 0xEF: // UTF-8 byte order mark
			if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xEF\xBB\xBF")) {
				br.Discard(3)
				continue
			}
		case '<':
			return importXML(br, keep)
		}
		return importCSV(br, keep)
	}
}

func (r *Result) finish(agg *loadgen.Aggregator) (*Result, error) {
	if r.Samples == 0 {
		if len(r.Problems) > 0 {
			return r, fmt.Errorf("%w (%d lines skipped; first: %s)", ErrNoSamples, r.Skipped, r.Problems[0])
		}
		return r, ErrNoSamples
	}
	r.Summary = agg.Summary(r.Format)
	return r, nil
}

// parseTimestamp reads JMeter's timeStamp: milliseconds since the epoch by
// default, or a date when jmeter.save.saveservice.timestamp_format is set.
func parseTimestamp(s string) (time.Time, bool) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if ms < 0 {
			return time.Time{}, false
		}
		return time.UnixMilli(ms), true
	}
	for _, layout := range []string{"2006/01/02 15:04:05.000", "2006-01-02 15:04:05.000", "2006/01/02 15:04:05",
		"2006-01-02 15:04:05", "2006-01-02T15:04:05.000Z07:00", time.RFC3339Nano} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func parseMS(s string) (time.Duration, bool) {
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

func parseCount(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// setCode fills Code/CodeText and, for failures, the error kind from
// JMeter's responseCode, responseMessage and failureMessage.
func setCode(s *loadgen.Sample, rc, rm, fm string) {
	s.FailureMessage = fm
	if code, err := strconv.Atoi(rc); err == nil && code >= 100 && code <= 999 {
		s.Code = code
	} else if rc != "" {
		s.CodeText = rc
	}
	if s.Success {
		s.Kind = loadgen.KindNone
		return
	}
	switch {
	case s.Code >= 400:
		s.Kind = loadgen.KindStatus
	case s.Code > 0:
		s.Kind = loadgen.KindAssertion
	default:
		s.Kind = nonHTTPKind(rc, rm)
	}
}

// nonHTTPKind maps "Non HTTP response code: java.net.ConnectException" and
// our own "Non HTTP response code: connect_refused" to a kind.
func nonHTTPKind(rc, rm string) loadgen.ErrorKind {
	name := strings.TrimSpace(strings.TrimPrefix(rc, loadgen.NonHTTPCodePrefix))
	if k := loadgen.KindByName(name); k != loadgen.KindOther {
		return k
	}
	both := strings.ToLower(rc + " " + rm)
	switch {
	case strings.Contains(both, "unknownhost"), strings.Contains(both, "name or service not known"):
		return loadgen.KindDNS
	case strings.Contains(both, "connection refused"):
		return loadgen.KindRefused
	case strings.Contains(both, "connecttimeout"), strings.Contains(both, "noroutetohost"),
		strings.Contains(both, "connectexception"), strings.Contains(both, "httphostconnect"):
		return loadgen.KindConnect
	case strings.Contains(both, "timeout"), strings.Contains(both, "timed out"):
		return loadgen.KindTimeout
	case strings.Contains(both, "ssl"), strings.Contains(both, "certificate"):
		return loadgen.KindTLS
	case strings.Contains(both, "nohttpresponse"), strings.Contains(both, "connection reset"),
		strings.Contains(both, "socketexception"), strings.Contains(both, "broken pipe"):
		return loadgen.KindReset
	case strings.Contains(both, "protocol"), strings.Contains(both, "malformed"):
		return loadgen.KindProtocol
	}
	return loadgen.KindOther
}
