package gclog

// Format sniffing and the streaming driver. A file is unified when its GC
// lines start with decorators, JDK 8 when they carry "[GC"/"[Full GC" groups,
// headers or safepoint lines:
//
//	[0.002s][info][gc] Using G1                                   -> unified
//	[2026-11-21T23:55:52.111+0000][6662][info][gc,init] CPUs: 2   -> unified
//	2.167: [GC (Allocation Failure)2.167: [ParNew: ...            -> JDK 8
//	CommandLine flags: -XX:InitialHeapSize=... -XX:+UseG1GC       -> JDK 8
//	[GC 30463K->3108K(1571712K) eden 30463K->0K ..., 0.1282309 secs]  -> JDK 1.3-8 without timestamps
//	<verbosegc xmlns="http://www.ibm.com/j9/verbosegc" version="...">  -> OpenJ9 / IBM J9 XML
//	[memory ] 77.737: Nursery GC 630435K->183741K (1048576K), 566.158 ms  -> JRockit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// sniffLimit is how many non-empty lines may pass before a format is found.
const sniffLimit = 2000

// sniffBinary is how many binary (non-text) lines may pass before a format
// is found: random bytes end here instead of being read to the end.
const sniffBinary = 8

// sniffBytes bounds what is read before a format is found: a hole of NUL
// bytes (a log truncated under a running JVM starts with one) is skipped,
// but /dev/zero has no end.
const sniffBytes = 64 << 20

// Limits bound what one Parse reads, so no input can hang it or exhaust memory.
type Limits struct {
	// MaxLineBytes: a longer line is skipped and counted (Stats.LongLines).
	MaxLineBytes int
	// MaxBytes per file (after decompression): past it Parse stops with ErrTooLarge.
	MaxBytes int64
	// MaxEvents per file: past it Parse stops with ErrTooLarge (the
	// summariser keeps 4 bytes per pause, so this also bounds memory).
	MaxEvents int
}

// DefaultLimits: 1 MiB lines (the longest GC line is a few KB); 8 GiB and
// 50 million events per file, far above a year of a busy JVM's GC log
// (rotation keeps files at tens of MB) and still bounded (200 MB of pauses).
func DefaultLimits() Limits {
	return Limits{MaxLineBytes: 1 << 20, MaxBytes: 8 << 30, MaxEvents: 50_000_000}
}

// ErrTooLarge is wrapped by Parse when a file passes a Limits bound.
var ErrTooLarge = errors.New("GC log too large")

// ErrNotGCLog is wrapped by Parse when no line looks like a GC log.
var ErrNotGCLog = errors.New("not a GC log")

// Detect returns the format one line indicates, or FormatUnknown.
func Detect(line []byte) Format {
	t := trimSpace(line)
	if len(t) == 0 {
		return FormatUnknown
	}
	if detectOpenJ9(t) {
		return FormatOpenJ9
	}
	if detectJRockit(t) {
		return FormatJRockit
	}
	if bytes.Contains(t, []byte("[GC")) || bytes.Contains(t, []byte("[Full GC")) || bytes.Contains(t, []byte("[CMS-concurrent")) ||
		hasPrefix(t, "CommandLine flags:") || bytes.Contains(t, []byte("Total time for which application threads were stopped")) && t[0] != '[' {
		return FormatJDK8
	}
	if t[0] == '[' {
		var d decor
		// A time or level decorator, so "[INFO] Building ..." is not taken for one.
		if _, ok := splitDecorators(t, &d); ok && (d.uptime >= 0 || d.wall != nil || d.nMillis > 0 || d.nNanos > 0 || d.hasLevel) {
			return FormatUnified
		}
	}
	return FormatUnknown
}

type lineParser interface {
	line(n int, b []byte)
	finish()
}

// Parse reads one GC log from r and calls fn for every event, in log order,
// within DefaultLimits. name is used in messages ("gc.log: line 17: ...").
// The *Event passed to fn is reused: copy it to keep it. Lines that cannot
// be read are counted in Stats.Unparsed with the first few in Stats.Issues;
// the error is non-nil only when the input is not a GC log at all, cannot be
// read, or passes a limit.
func Parse(r io.Reader, name string, fn func(*Event)) (*Stats, error) {
	return ParseContext(context.Background(), r, name, DefaultLimits(), fn)
}

// ctxCheckBytes: the context is polled after this many bytes, so a
// cancelled parse returns within milliseconds even inside an endless line.
const ctxCheckBytes = 1 << 20

// ParseContext is Parse that stops when ctx is done (returning ctx.Err()
// wrapped with the file name) and reads within lim; zero fields of lim take
// the default.
func ParseContext(ctx context.Context, r io.Reader, name string, lim Limits, fn func(*Event)) (*Stats, error) {
	def := DefaultLimits()
	if lim.MaxLineBytes <= 0 {
		lim.MaxLineBytes = def.MaxLineBytes
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = def.MaxBytes
	}
	if lim.MaxEvents <= 0 {
		lim.MaxEvents = def.MaxEvents
	}
	st := &Stats{Name: name}
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("%s: %w", name, err)
	}
	g := &gcReader{ctx: ctx, name: name, lim: lim, st: st, br: bufio.NewReaderSize(r, 256<<10), preStart: 1}
	g.fn = func(e *Event) {
		if st.Events > lim.MaxEvents {
			g.tooMany = true
			return
		}
		if fn != nil {
			fn(e)
		}
	}
	if err := g.run(); err != nil {
		return st, err
	}
	return st, g.end()
}

// gcReader is one ParseContext: the bounded line reader, then the parser
// of the format its first lines show (lines before it are held, replayed).
type gcReader struct {
	ctx  context.Context
	name string
	lim  Limits
	st   *Stats
	fn   func(*Event)
	br   *bufio.Reader

	lp               lineParser
	pre              [][]byte // lines before the format is known (headers), replayed
	preStart, ln     int
	nonEmpty, binary int
	firstText, long  []byte
	read, checked    int64
	tooMany          bool
}

// cancelled polls ctx every ctxCheckBytes.
func (g *gcReader) cancelled() error {
	if g.read-g.checked < ctxCheckBytes {
		return nil
	}
	g.checked = g.read
	if err := g.ctx.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %w", g.name, g.ln+1, err)
	}
	return nil
}

func (g *gcReader) tooLarge() error {
	return fmt.Errorf("%s: line %d: %w: more than %d bytes (the limit per file)", g.name, g.ln+1, ErrTooLarge, g.lim.MaxBytes)
}

func (g *gcReader) tooManyEvents(ln int) error {
	return fmt.Errorf("%s: line %d: %w: more than %d events (the limit per file)", g.name, ln, ErrTooLarge, g.lim.MaxEvents)
}

// readLine reads one line (its head only when longer than MaxLineBytes:
// overlong), checking every bound on the way: /dev/zero is one line
// without end. err is the reader's (io.EOF at the end) with a line or not.
func (g *gcReader) readLine() (b []byte, overlong bool, err error, stop error) {
	b, err = g.br.ReadSlice('\n')
	g.read += int64(len(b))
	if err == bufio.ErrBufferFull {
		g.long = append(g.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if e := g.cancelled(); e != nil {
				return nil, false, nil, e
			}
			if g.read > g.lim.MaxBytes {
				return nil, false, nil, g.tooLarge()
			}
			if g.lp == nil && g.read > sniffBytes {
				return nil, false, nil, notGCLog(g.name, g.ln+1, "no GC line in the first %d MiB", sniffBytes>>20, g.long)
			}
			b, err = g.br.ReadSlice('\n')
			g.read += int64(len(b))
			if len(g.long) < g.lim.MaxLineBytes {
				g.long = append(g.long, b[:min(len(b), g.lim.MaxLineBytes-len(g.long))]...)
			} else {
				overlong = true
			}
		}
		b = g.long
	}
	return b, overlong, err, nil
}

// run reads every line into the parser, or until the sniffing gives up.
func (g *gcReader) run() error {
	st := g.st
	for {
		b, overlong, err, stop := g.readLine()
		if stop != nil {
			return stop
		}
		if len(b) == 0 && err != nil {
			if err != io.EOF {
				return fmt.Errorf("%s: line %d: %w", g.name, g.ln+1, err)
			}
			return nil
		}
		if e := g.cancelled(); e != nil {
			return e
		}
		if g.read > g.lim.MaxBytes {
			return g.tooLarge()
		}
		if g.tooMany {
			return g.tooManyEvents(g.ln)
		}
		g.ln++
		st.Lines++
		b = bytes.TrimRight(b, "\r\n")
		switch {
		case overlong || len(b) >= g.lim.MaxLineBytes:
			st.LongLines++
			st.addIssue(g.ln, fmt.Sprintf("line longer than %d bytes, skipped", g.lim.MaxLineBytes), b[:min(len(b), 80)])
		case isBinary(b):
			st.addIssue(g.ln, "binary data", b[:min(len(b), 80)])
			if g.lp == nil {
				if g.binary++; g.binary >= sniffBinary {
					return notGCLog(g.name, g.ln, "binary data, not text", 0, b)
				}
			}
		case g.lp != nil:
			g.lp.line(g.ln, b)
		default:
			if g.sniff(b) {
				return nil
			}
		}
		if g.lp == nil && g.read > sniffBytes {
			return nil
		}
		if err != nil {
			return nil
		}
	}
}

// sniff detects the format from a line; until one shows, text lines are
// held (headers) to be replayed. true: too many lines without a format.
func (g *gcReader) sniff(b []byte) bool {
	st, fn := g.st, g.fn
	switch Detect(b) {
	case FormatJDK8:
		st.Format = FormatJDK8
		g.lp = newJDK8Parser(st, fn)
	case FormatUnified:
		st.Format = FormatUnified
		g.lp = newUnifiedParser(st, fn)
	case FormatOpenJ9:
		st.Format = FormatOpenJ9
		g.lp = newOpenJ9Parser(st, fn)
	case FormatJRockit:
		st.Format = FormatJRockit
		g.lp = newJRockitParser(st, fn)
	}
	switch {
	case g.lp != nil:
		for i, p := range g.pre {
			g.lp.line(g.preStart+i, p)
		}
		g.pre = nil
		g.lp.line(g.ln, b)
	case len(trimSpace(b)) > 0:
		g.nonEmpty++
		if g.firstText == nil {
			g.firstText = append([]byte{}, b...)
			g.preStart = g.ln
		}
		if len(g.pre) < 64 {
			g.pre = append(g.pre, append([]byte(nil), b...))
		} else {
			st.addIssue(g.ln, "not a GC log line", b)
		}
		if g.nonEmpty > sniffLimit {
			return true
		}
	case g.pre != nil:
		g.pre = append(g.pre, nil)
	}
	return false
}

// end finishes the parse, or says why the input is no GC log.
func (g *gcReader) end() error {
	st := g.st
	if g.tooMany {
		return g.tooManyEvents(g.ln)
	}
	if g.lp == nil {
		st.Unparsed = g.nonEmpty + g.binary + st.LongLines
		if g.firstText == nil {
			if g.ln > 0 && (g.binary > 0 || st.LongLines > 0) {
				return notGCLog(g.name, 1, "binary data or overlong lines only", 0, nil)
			}
			return fmt.Errorf("%s: empty: %w", g.name, ErrNotGCLog)
		}
		return notGCLog(g.name, g.preStart, "no JDK 8, unified, OpenJ9 XML or JRockit GC lines; first line %q", 0, g.firstText)
	}
	g.lp.finish()
	st.Recognised = st.Lines - st.Unparsed
	return nil
}

// notGCLog builds the ErrNotGCLog error naming the file and the line where
// the parser looked. format takes either an int argument or the line text.
func notGCLog(name string, line int, format string, n int, text []byte) error {
	var why string
	switch {
	case strings.Contains(format, "%q"):
		t := string(text)
		if len(t) > 120 {
			t = t[:120] + "..."
		}
		why = fmt.Sprintf(format, t)
	case strings.Contains(format, "%d"):
		why = fmt.Sprintf(format, n)
	default:
		why = format
	}
	return fmt.Errorf("%s: line %d: %w (%s)", name, line, ErrNotGCLog, why)
}

// isBinary reports a line that is not text: a NUL byte, or more than one
// control byte in ten (GC logs are ASCII with tabs; invalid UTF-8 such as a
// Latin-1 locale's month name is still text).
func isBinary(b []byte) bool {
	ctl := 0
	for _, c := range b {
		if c == 0 {
			return true
		}
		if c < 0x20 && c != '\t' && c != '\r' || c == 0x7f {
			ctl++
		}
	}
	return ctl > 0 && ctl*10 > len(b)
}
