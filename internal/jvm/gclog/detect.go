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

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sniffLimit is how many non-empty lines may pass before a format is found.
const sniffLimit = 2000

// maxLine caps one line; longer lines are reported, not fatal.
const maxLine = 1 << 20

// ErrNotGCLog is wrapped by Parse when no line looks like a GC log.
var ErrNotGCLog = errors.New("not a GC log")

// Detect returns the format one line indicates, or FormatUnknown.
func Detect(line []byte) Format {
	t := trimSpace(line)
	if len(t) == 0 {
		return FormatUnknown
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

// Parse reads one GC log from r and calls fn for every event, in log order.
// name is used in messages ("gc.log: line 17: ..."). The *Event passed to fn
// is reused: copy it to keep it. Lines that cannot be read are counted in
// Stats.Unparsed with the first few in Stats.Issues; the error is non-nil only
// when the input is not a GC log at all or cannot be read.
func Parse(r io.Reader, name string, fn func(*Event)) (*Stats, error) {
	st := &Stats{Name: name}
	if fn == nil {
		fn = func(*Event) {}
	}
	br := bufio.NewReaderSize(r, 256<<10)
	var lp lineParser
	var pre [][]byte // lines before the format is known (headers), replayed
	preStart := 1
	ln := 0
	nonEmpty := 0
	var firstText []byte
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// Keep the head of an overlong line, drop the rest of it.
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice('\n')
				if len(long) < maxLine {
					long = append(long, b...)
				}
			}
			b = long
		}
		if len(b) == 0 && err != nil {
			if err != io.EOF {
				return st, fmt.Errorf("%s: line %d: %w", name, ln+1, err)
			}
			break
		}
		ln++
		st.Lines++
		b = bytes.TrimRight(b, "\r\n")
		if len(b) >= maxLine {
			st.addIssue(ln, "line too long", b[:200])
		} else if bytes.IndexByte(b, 0) >= 0 {
			st.addIssue(ln, "binary data", b[:min(len(b), 80)])
		} else if lp != nil {
			lp.line(ln, b)
		} else {
			switch Detect(b) {
			case FormatJDK8:
				st.Format = FormatJDK8
				lp = newJDK8Parser(st, fn)
			case FormatUnified:
				st.Format = FormatUnified
				lp = newUnifiedParser(st, fn)
			}
			if lp != nil {
				for i, p := range pre {
					lp.line(preStart+i, p)
				}
				pre = nil
				lp.line(ln, b)
			} else if len(trimSpace(b)) > 0 {
				nonEmpty++
				if firstText == nil {
					firstText = append([]byte{}, b...)
					preStart = ln
				}
				if len(pre) < 64 {
					pre = append(pre, append([]byte(nil), b...))
				} else {
					st.addIssue(ln, "not a GC log line", b)
				}
				if nonEmpty > sniffLimit {
					break
				}
			} else if pre != nil {
				pre = append(pre, nil)
			}
		}
		if err != nil {
			break
		}
	}
	if lp == nil {
		st.Unparsed = nonEmpty
		if firstText == nil {
			return st, fmt.Errorf("%s: empty: %w", name, ErrNotGCLog)
		}
		t := string(firstText)
		if len(t) > 120 {
			t = t[:120] + "..."
		}
		return st, fmt.Errorf("%s: line %d: %w (no JDK 8 or unified GC lines; first line %q)", name, preStart, ErrNotGCLog, t)
	}
	lp.finish()
	st.Recognised = st.Lines - st.Unparsed
	return st, nil
}
