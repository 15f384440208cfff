package gclog

import (
	"bytes"
	"time"

	"github.com/tuneloop/tuneloop/internal/units"
)

// Byte-level helpers shared by both parsers. They work on []byte from the
// scanner without converting to string, because per-line allocations and
// regexps are what make GC log parsers slow.

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseNum reads an unsigned decimal at b[0:], accepting '.' or ',' as the
// decimal separator (unified logging follows the JVM locale: "1,474s").
func parseNum(b []byte) (v float64, n int, ok bool) {
	var ip int64
	i := 0
	for i < len(b) && isDigit(b[i]) {
		if i < 18 {
			ip = ip*10 + int64(b[i]-'0')
		} else {
			ip *= 10 // absurdly long: keep magnitude, lose precision
		}
		i++
	}
	if i == 0 {
		return 0, 0, false
	}
	v = float64(ip)
	if i+1 < len(b) && (b[i] == '.' || b[i] == ',') && isDigit(b[i+1]) {
		i++
		var fp int64
		scale := 1.0
		for i < len(b) && isDigit(b[i]) {
			if scale < 1e15 {
				fp = fp*10 + int64(b[i]-'0')
				scale *= 10
			}
			i++
		}
		v += float64(fp) / scale
	}
	return v, i, true
}

// parseInt reads an unsigned integer.
func parseInt(b []byte) (v int64, n int, ok bool) {
	i := 0
	for i < len(b) && isDigit(b[i]) && i < 18 {
		v = v*10 + int64(b[i]-'0')
		i++
	}
	return v, i, i > 0
}

// parseSizeKB reads "1534K", "15.0M", "0.0B", "2G", "830688 K" into KB.
// The unit letter is units.Shift's (K, M, G, T in either case) or B.
func parseSizeKB(b []byte) (kb int64, n int, ok bool) {
	v, i, ok := parseNum(b)
	if !ok {
		return 0, 0, false
	}
	j := i
	if j+1 < len(b) && b[j] == ' ' {
		if _, unit := units.Shift(b[j+1]); unit {
			j++ // CMS "YG occupancy: 830688 K"
		}
	}
	if j >= len(b) {
		return 0, 0, false
	}
	if b[j] == 'B' {
		v /= 1024
	} else if sh, unit := units.Shift(b[j]); unit {
		v *= float64(uint64(1)<<sh) / 1024 // a power of two: exact
	} else {
		return 0, 0, false
	}
	j++
	if j < len(b) && b[j] == 'B' { // "KB", "MB"
		j++
	}
	return int64(v + 0.5), j, true
}

// transition is a heap change "a->b(c)", "a(c0)->b(c)" or ZGC "a(p%)->b(q%)".
type transition struct {
	before, after, total int64 // total is Unknown when not logged
}

// parseTransitionAt parses a transition starting at b[0].
func parseTransitionAt(b []byte) (t transition, n int, ok bool) {
	t.total = Unknown
	before, i, ok := parseSizeKB(b)
	if !ok {
		return t, 0, false
	}
	if i < len(b) && b[i] == '(' { // capacity before, or ZGC percentage
		e := bytes.IndexByte(b[i:], ')')
		if e < 0 {
			return t, 0, false
		}
		i += e + 1
	}
	if i+2 > len(b) || b[i] != '-' || b[i+1] != '>' {
		return t, 0, false
	}
	i += 2
	after, k, ok := parseSizeKB(b[i:])
	if !ok {
		return t, 0, false
	}
	i += k
	if i < len(b) && b[i] == '(' {
		if tot, k, ok := parseSizeKB(b[i+1:]); ok && i+1+k < len(b) && b[i+1+k] == ')' {
			t.total = tot
			i += k + 2
		} else if e := bytes.IndexByte(b[i:], ')'); e >= 0 {
			i += e + 1 // percentage
		}
	}
	t.before, t.after = before, after
	return t, i, true
}

var arrow = []byte("->")

// findTransition finds the first heap transition in b.
func findTransition(b []byte) (t transition, start, end int, ok bool) {
	off := 0
	for {
		k := bytes.Index(b[off:], arrow)
		if k < 0 {
			return t, 0, 0, false
		}
		a := off + k
		// Walk back over "(capacity)" and the size itself.
		s := a
		if s > 0 && b[s-1] == ')' {
			p := bytes.LastIndexByte(b[:s], '(')
			if p < 0 {
				off = a + 2
				continue
			}
			s = p
		}
		for s > 0 && (isDigit(b[s-1]) || b[s-1] == '.' || b[s-1] == ',' || b[s-1] == 'K' || b[s-1] == 'M' || b[s-1] == 'G' || b[s-1] == 'B') {
			s--
		}
		for s < a && !isDigit(b[s]) {
			s++
		}
		if tt, n, ok := parseTransitionAt(b[s:]); ok {
			return tt, s, s + n, true
		}
		off = a + 2
	}
}

// trailingDuration parses a duration at the end of b: "12.011ms", "0.026s",
// "850us", "120ns". It returns milliseconds and b without the duration.
func trailingDuration(b []byte) (ms float64, rest []byte, ok bool) {
	b = bytes.TrimRight(b, " \t\r")
	sp := bytes.LastIndexByte(b, ' ')
	tok := b[sp+1:]
	var unit float64
	switch {
	case bytes.HasSuffix(tok, []byte("ms")):
		unit, tok = 1, tok[:len(tok)-2]
	case bytes.HasSuffix(tok, []byte("us")):
		unit, tok = 1e-3, tok[:len(tok)-2]
	case bytes.HasSuffix(tok, []byte("ns")):
		unit, tok = 1e-6, tok[:len(tok)-2]
	case bytes.HasSuffix(tok, []byte("s")):
		unit, tok = 1e3, tok[:len(tok)-1]
	default:
		return 0, b, false
	}
	v, n, ok := parseNum(tok)
	if !ok || n != len(tok) {
		return 0, b, false
	}
	if sp < 0 {
		return v * unit, nil, true
	}
	return v * unit, bytes.TrimRight(b[:sp], " "), true
}

// parseISOTime parses "2015-07-13T20:53:00.436+0200" (JDK 8 date stamps and
// the unified time/utctime decorators), also with "Z" or "+02:00".
func parseISOTime(b []byte) (t time.Time, n int, ok bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return t, 0, false
	}
	num := func(s []byte) (int, bool) {
		v := 0
		for _, c := range s {
			if !isDigit(c) {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	yr, ok1 := num(b[0:4])
	mo, ok2 := num(b[5:7])
	dy, ok3 := num(b[8:10])
	hh, ok4 := num(b[11:13])
	mm, ok5 := num(b[14:16])
	ss, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || dy < 1 || dy > 31 || hh > 23 || mm > 59 || ss > 60 {
		return t, 0, false
	}
	i := 19
	nsec := 0
	if i < len(b) && (b[i] == '.' || b[i] == ',') {
		i++
		scale := 100000000
		for i < len(b) && isDigit(b[i]) {
			nsec += int(b[i]-'0') * scale
			scale /= 10
			i++
		}
	}
	loc := time.UTC
	if i < len(b) && b[i] == 'Z' {
		i++
	} else if i+5 <= len(b) && (b[i] == '+' || b[i] == '-') {
		sign := 1
		if b[i] == '-' {
			sign = -1
		}
		j := i + 1
		h, okh := num(b[j : j+2])
		j += 2
		if j < len(b) && b[j] == ':' {
			j++
		}
		if okh && j+2 <= len(b) {
			if m, okm := num(b[j : j+2]); okm {
				off := sign * (h*3600 + m*60)
				if off != 0 {
					loc = time.FixedZone("", off)
				}
				i = j + 2
			}
		}
	}
	return time.Date(yr, time.Month(mo), dy, hh, mm, ss, nsec, loc), i, true
}

// hasPrefix is bytes.HasPrefix for a string prefix without allocating.
func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// interner returns one string per distinct name/cause so events do not
// allocate a new string each; the lookup with string(b) does not allocate,
// and the last few strings are checked first because logs repeat them.
type interner struct {
	m      map[string]string
	recent [4]string
	next   int
}

func newInterner() *interner { return &interner{m: map[string]string{}} }

func (in *interner) get(b []byte) string {
	for _, r := range in.recent {
		if r == string(b) && r != "" {
			return r
		}
	}
	s, ok := in.m[string(b)]
	if !ok {
		s = string(b)
		if len(in.m) < 4096 { // hostile input: stop growing, still correct
			in.m[s] = s
		}
	}
	in.recent[in.next] = s
	in.next = (in.next + 1) % len(in.recent)
	return s
}

// parenGroups calls fn for each top-level "(...)" group in b, handling nested
// parentheses such as "(System.gc())"; it returns the text before the first group.
func parenGroups(b []byte, fn func(g []byte)) (head []byte) {
	head = b
	first := true
	depth, start := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '(':
			if depth == 0 {
				start = i + 1
				if first {
					head = trimSpace(b[:i])
					first = false
				}
			}
			depth++
		case ')':
			if depth > 0 {
				depth--
				if depth == 0 {
					fn(b[start:i])
				}
			}
		}
	}
	return head
}

// causeFlags derives flags from a GC cause.
func causeFlags(c string) Flags {
	var f Flags
	switch {
	case c == "System.gc()" || c == "System":
		f |= FlagExplicit
	case c == "Metadata GC Threshold" || c == "Last ditch collection" || c == "Permanent Generation Full" || c == "Metadata GC Clear Soft References":
		f |= FlagMetadata
	case c == "GCLocker Initiated GC":
		f |= FlagGCLocker
	case c == "G1 Humongous Allocation":
		f |= FlagHumongous
	}
	return f
}
