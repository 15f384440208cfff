// JTL CSV, as JMeter writes it with its default settings:
//
//	timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect
//	1700000000000,112,Login,200,OK,Thread Group 1-1,text,true,,1591,114,10,10,http://shop.example/login,110,0,37
//	1700000000131,5003,Search,Non HTTP response code: java.net.SocketTimeoutException,Non HTTP response message: Read timed out,Thread Group 1-2,text,false,,2370,121,10,10,http://shop.example/search?q=a,0,0,1
//	1700000000150,9,"Pay, then confirm",500,Internal Server Error,Thread Group 1-3,text,false,"Test failed: code expected to match /200/",220,140,10,10,http://shop.example/pay,9,0,0
//
// The header may be missing (jmeter.save.saveservice.print_field_names=false);
// then the default column order is assumed. The delimiter may be a comma, tab,
// semicolon or pipe (default_delimiter). Quoted fields may span lines.

package jtl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// defaultColumns is the column order without a header.
var defaultColumns = strings.Split(loadgen.JTLHeader, ",")

const maxRecord = 1 << 20 // longer records are skipped, so memory stays bounded

// csvReader splits records, tracking the line each starts on.
type csvReader struct {
	br     *bufio.Reader
	delim  byte
	line   int // lines consumed so far
	rec    []byte
	fields []string
	eof    bool
}

var errRecordTooLong = errors.New("record longer than 1 MiB")

// next returns the fields of the next non-blank record and its first line.
func (c *csvReader) next() ([]string, int, error) {
	for {
		if c.eof {
			return nil, 0, io.EOF
		}
		start := c.line + 1
		c.rec = c.rec[:0]
		tooLong := false
		for {
			chunk, err := c.br.ReadSlice('\n')
			if len(c.rec)+len(chunk) <= maxRecord {
				c.rec = append(c.rec, chunk...)
			} else {
				tooLong = true
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if err != io.EOF {
					return nil, 0, err
				}
				c.eof = true
			}
			c.line++
			// A record ends at a newline outside quotes.
			if c.eof || tooLong || !openQuote(c.rec) {
				break
			}
		}
		if tooLong {
			return nil, start, errRecordTooLong
		}
		rec := bytes.TrimRight(c.rec, "\r\n")
		if len(bytes.TrimSpace(rec)) == 0 {
			continue
		}
		c.fields = splitCSV(c.fields[:0], rec, c.delim)
		return c.fields, start, nil
	}
}

// openQuote reports whether b ends inside a quoted field.
func openQuote(b []byte) bool {
	in := false
	for _, ch := range b {
		if ch == '"' {
			in = !in // a doubled quote toggles twice
		}
	}
	return in
}

// splitCSV splits one record; quotes are honoured only at a field's start
// and doubled quotes inside unescape, as RFC 4180 and JMeter have it. The
// record becomes one string and plain fields are substrings of it: one
// allocation per record rather than one per field.
func splitCSV(dst []string, rec []byte, delim byte) []string {
	line := string(rec)
	for {
		if len(line) > 0 && line[0] == '"' {
			var sb strings.Builder
			i := 1
			for i < len(line) {
				if line[i] == '"' {
					if i+1 < len(line) && line[i+1] == '"' {
						sb.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				sb.WriteByte(line[i])
				i++
			}
			// Anything between the closing quote and the delimiter is kept.
			j := strings.IndexByte(line[i:], delim)
			if j < 0 {
				sb.WriteString(line[i:])
				return append(dst, sb.String())
			}
			sb.WriteString(line[i : i+j])
			dst = append(dst, sb.String())
			line = line[i+j+1:]
			continue
		}
		j := strings.IndexByte(line, delim)
		if j < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:j])
		line = line[j+1:]
	}
}

// sniffDelimiter picks the most frequent candidate in the first line.
func sniffDelimiter(br *bufio.Reader) byte {
	b, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	best, n := byte(','), 0
	for _, d := range []byte{',', '\t', ';', '|'} {
		if c := bytes.Count(b, []byte{d}); c > n {
			best, n = d, c
		}
	}
	return best
}

// columns maps the fields we read to their index; -1 when absent.
type columns struct {
	ts, elapsed, label, rc, rm, success, fm, bytes, sent, latency, connect, url, threads, thread, grp int
}

func mapColumns(names []string) columns {
	c := columns{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	for i, n := range names {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(n, "\ufeff"))) {
		case "timestamp":
			c.ts = i
		case "elapsed":
			c.elapsed = i
		case "label":
			c.label = i
		case "responsecode":
			c.rc = i
		case "responsemessage":
			c.rm = i
		case "success":
			c.success = i
		case "failuremessage":
			c.fm = i
		case "bytes":
			c.bytes = i
		case "sentbytes":
			c.sent = i
		case "latency":
			c.latency = i
		case "connect":
			c.connect = i
		case "url":
			c.url = i
		case "allthreads":
			c.threads = i
		case "threadname":
			c.thread = i
		case "grpthreads":
			c.grp = i
		}
	}
	return c
}

func isHeader(fields []string) bool {
	for _, f := range fields {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(f, "\ufeff"))) {
		case "timestamp", "elapsed":
			return true
		}
	}
	return false
}

// ImportCSV reads a JTL CSV file.
func ImportCSV(r io.Reader) (*Result, error) { return importCSV(r, nil) }

func importCSV(r io.Reader, keep func(*loadgen.Sample) bool) (*Result, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	res := &Result{Format: "jtl-csv"}
	agg := loadgen.NewAggregator()
	cr := &csvReader{br: br, delim: sniffDelimiter(br)}
	var cols columns
	haveCols := false
	var s loadgen.Sample
	for {
		f, line, err := cr.next()
		if err == io.EOF {
			break
		}
		if err == errRecordTooLong {
			res.problem(line, "%v", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		if !haveCols {
			haveCols = true
			if isHeader(f) {
				cols = mapColumns(f)
				if cols.ts < 0 || cols.elapsed < 0 {
					return nil, errors.New("line 1: header has no timeStamp or elapsed column: not a JTL file")
				}
				continue
			}
			cols = mapColumns(defaultColumns)
		}
		if msg := sampleFromCSV(&s, f, cols); msg != "" {
			res.problem(line, "%s", msg)
			continue
		}
		if keep != nil && !keep(&s) {
			continue
		}
		agg.Add(&s)
		res.Samples++
	}
	return res.finish(agg)
}

func field(f []string, i int) string {
	if i < 0 || i >= len(f) {
		return ""
	}
	return f[i]
}

// sampleFromCSV fills s from one record; a non-empty result says why the
// record is unusable.
func sampleFromCSV(s *loadgen.Sample, f []string, c columns) string {
	if len(f) <= max(c.ts, c.elapsed, c.label) {
		return "too few fields (" + strconv.Itoa(len(f)) + ")"
	}
	ts, ok := parseTimestamp(strings.TrimSpace(f[c.ts]))
	if !ok {
		return "timeStamp " + quote(f[c.ts]) + " is not a time"
	}
	el, ok := parseMS(strings.TrimSpace(f[c.elapsed]))
	if !ok {
		return "elapsed " + quote(f[c.elapsed]) + " is not a number of milliseconds"
	}
	lat, _ := parseMS(strings.TrimSpace(field(f, c.latency)))
	con, _ := parseMS(strings.TrimSpace(field(f, c.connect)))
	*s = loadgen.Sample{Start: ts, Elapsed: el, Latency: lat, Connect: con, Label: field(f, c.label),
		BytesIn: parseCount(field(f, c.bytes)), BytesOut: parseCount(field(f, c.sent)), URL: field(f, c.url),
		ThreadName: field(f, c.thread), AllThreads: int(min(parseCount(field(f, c.threads)), 1<<30)),
		GrpThreads: int(min(parseCount(field(f, c.grp)), 1<<30))}
	rc := field(f, c.rc)
	switch sv := strings.ToLower(strings.TrimSpace(field(f, c.success))); sv {
	case "true":
		s.Success = true
	case "false":
	case "":
		if c.success >= 0 && c.success < len(f) {
			return "success is empty"
		}
		// No success column: judge by the code, as JMeter's default does.
		s.Success = len(rc) == 3 && rc[0] >= '1' && rc[0] <= '3'
	default:
		return "success " + quote(sv) + " is not true or false"
	}
	setCode(s, rc, field(f, c.rm), field(f, c.fm))
	return ""
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
