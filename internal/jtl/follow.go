// A JTL CSV file read while JMeter writes it (tuneloop's JMeter engine).
// JMeter appends records in buffered writes, so a read may end inside a
// record, even inside a quoted field that spans lines:
//
//	timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect
//	1795846554855,27,home,200,OK,Shoppers 1-1,text,true,,459,118,3,3,http://127.0.0.1:18181/,22,0,18
//	1795846554898,5,debug,200,OK,127.0.0.1:24101-Shoppers 1-1,text,true,,275,0,3,3,null,0,0,0
//	1795846555002,3,login,500,"Server
//	Error",Shoppers 1-2,text,false,,120,118,3,3,http://127.0.0.1:18181/login,3,0,0

package jtl

import (
	"bytes"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// Follower parses a JTL CSV stream fed in arbitrary pieces: Feed takes the
// bytes appended since the last call; every complete record becomes a
// sample, a partial one waits for the next call. It keeps no samples.
type Follower struct {
	pending  []byte // the start of a record not yet complete
	scanned  int    // bytes of pending already known to hold no record end
	inQuote  bool   // pending[:scanned] ends inside a quoted field
	line     int    // lines consumed
	startAt  int    // the line pending starts on
	cols     columns
	haveCols bool
	delim    byte
	fields   []string
	s        loadgen.Sample
	// Samples counts the samples emitted; Skipped the records that could
	// not be read, the first of them in Problems (with their line).
	Samples  int64
	Skipped  int64
	Problems []Problem
}

// NewFollower returns a Follower at the start of a file.
func NewFollower() *Follower { return &Follower{} }

func (f *Follower) problem(line int, msg string) {
	f.Skipped++
	if len(f.Problems) < maxProblems {
		f.Problems = append(f.Problems, Problem{Line: line, Msg: msg})
	}
}

// Feed parses the complete records of what was fed so far and calls emit
// with each sample (valid only during the call).
func (f *Follower) Feed(b []byte, emit func(*loadgen.Sample)) {
	f.pending = append(f.pending, b...)
	start := 0
	for i := f.scanned; i < len(f.pending); i++ {
		switch f.pending[i] {
		case '"':
			f.inQuote = !f.inQuote // a doubled quote toggles twice
		case '\n':
			f.line++
			if f.inQuote {
				continue
			}
			f.record(f.pending[start:i], emit)
			start = i + 1
			f.startAt = f.line + 1
		}
	}
	rest := len(f.pending) - start
	if rest > maxRecord {
		// A record this long is not JMeter's: drop it, resynchronise at the
		// next line end outside quotes.
		f.problem(f.startAt, errRecordTooLong.Error())
		f.line += bytes.Count(f.pending[start:], []byte{'\n'})
		f.pending, f.scanned, f.inQuote = f.pending[:0], 0, false
		return
	}
	f.pending = append(f.pending[:0], f.pending[start:]...)
	f.scanned = len(f.pending)
}

// Flush parses a last record that has no line end (the file ended).
func (f *Follower) Flush(emit func(*loadgen.Sample)) {
	if len(bytes.TrimSpace(f.pending)) > 0 {
		f.record(f.pending, emit)
	}
	f.pending, f.scanned, f.inQuote = f.pending[:0], 0, false
}

func (f *Follower) record(rec []byte, emit func(*loadgen.Sample)) {
	line := f.startAt
	if line == 0 {
		line = 1
	}
	rec = bytes.TrimRight(rec, "\r")
	if len(bytes.TrimSpace(rec)) == 0 {
		return
	}
	if !f.haveCols {
		if len(rec) >= 3 && bytes.Equal(rec[:3], []byte("\xEF\xBB\xBF")) {
			rec = rec[3:]
		}
		f.delim = sniffLine(rec)
	}
	f.fields = splitCSV(f.fields[:0], rec, f.delim)
	if !f.haveCols {
		f.haveCols = true
		if isHeader(f.fields) {
			f.cols = mapColumns(f.fields)
			if f.cols.ts < 0 || f.cols.elapsed < 0 {
				f.problem(line, "header has no timeStamp or elapsed column: not a JTL file")
			}
			return
		}
		f.cols = mapColumns(defaultColumns)
	}
	if f.cols.ts < 0 || f.cols.elapsed < 0 {
		f.problem(line, "no timeStamp or elapsed column")
		return
	}
	if msg := sampleFromCSV(&f.s, f.fields, f.cols); msg != "" {
		f.problem(line, msg)
		return
	}
	f.Samples++
	emit(&f.s)
}

// sniffLine picks the most frequent candidate delimiter of a line.
func sniffLine(b []byte) byte {
	best, n := byte(','), 0
	for _, d := range []byte{',', '\t', ';', '|'} {
		if c := bytes.Count(b, []byte{d}); c > n {
			best, n = d, c
		}
	}
	return best
}
