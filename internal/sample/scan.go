package sample

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// Byte-scanning helpers shared by the parsers. They never allocate and never
// panic on any input; the parsers turn a bad field into an error naming the
// line (1-based), so a fuzzer or a truncated capture gets a message, not a
// crash.

// lines walks b line by line, counting from 1.
type lines struct {
	b    []byte
	n    int
	line []byte
}

func (l *lines) next() bool {
	for len(l.b) > 0 {
		i := 0
		for i < len(l.b) && l.b[i] != '\n' {
			i++
		}
		l.line = l.b[:i]
		if i < len(l.b) {
			i++
		}
		l.b = l.b[i:]
		l.n++
		return true
	}
	return false
}

// fields splits line on spaces and tabs into dst (reused).
func fields(line []byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// atou parses a decimal unsigned integer; ok is false on anything else or
// overflow.
func atou(b []byte) (v uint64, ok bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// atoi parses a decimal integer with an optional minus sign.
func atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, ok := atou(b)
	if !ok || u > 1<<63 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// badLine is the error for one malformed line.
func badLine(n int, line []byte, what finding.Text) error {
	return &ParseError{Line: n, What: what, Text: finding.Clip(line, 80)}
}

// ParseError is a malformed line (errors.Is(err, ErrParse)), said in
// both languages.
type ParseError struct {
	Line int
	What finding.Text // what is wrong
	Text string       // the line, clipped
}

func (e *ParseError) Error() string { return ErrParse.Error() + ": " + e.Detail().EN }

// Localize says the error in l.
func (e *ParseError) Localize(l finding.Lang) string {
	return finding.T(ErrParse.Error()+": ", "格式错误：").In(l) + e.Detail().In(l)
}

// Is makes errors.Is(err, ErrParse) hold.
func (e *ParseError) Is(target error) bool { return target == ErrParse }

// Detail is the error without "malformed: ": the line, what is wrong
// with it, the line itself.
func (e *ParseError) Detail() finding.Text {
	return finding.Tf(finding.T("line %d: %s: %q", "第 %d 行：%s：%q"), e.Line, e.What, e.Text)
}

// textOf is err's message in both languages.
func textOf(err error) finding.Text {
	return finding.T(err.Error(), finding.Localize(err, finding.ZH))
}

// trimSpace trims spaces and tabs at both ends.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// cut splits b at the first sep.
func cut(b []byte, sep byte) (before, after []byte, found bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// firstErr keeps the first error seen.
func firstErr(err *error, e error) {
	if *err == nil {
		*err = e
	}
}

// scratch is a parser's reusable state: the field slice and interned
// names (device, softirq and IRQ names repeat every tick).
type scratch struct {
	f     [][]byte
	names map[string]string
}

func (sc *scratch) fields(line []byte) [][]byte {
	sc.f = fields(line, sc.f)
	return sc.f
}

// intern returns b as a string, reusing an earlier equal one.
func (sc *scratch) intern(b []byte) string {
	if s, ok := sc.names[string(b)]; ok {
		return s
	}
	if sc.names == nil {
		sc.names = map[string]string{}
	}
	if len(sc.names) > 1<<16 { // garbage input must not grow it forever
		clear(sc.names)
	}
	s := string(b)
	sc.names[s] = s
	return s
}
