package gclog

// OpenJ9 / IBM J9 verbose GC XML (-verbose:gc, -Xverbosegclog). R26+ (Java 6
// SR9 on, IBM Java 7/8, OpenJ9, IBM Semeru) writes one stop-the-world pause
// as an exclusive-start ... exclusive-end block:
//
//	<exclusive-start id="2" timestamp="2015-12-31T15:22:46.957" intervalms="3955.367">
//	<af-start id="3" totalBytesRequested="16392" timestamp="2015-12-31T15:22:46.957" intervalms="3955.490" />
//	<cycle-start id="4" type="scavenge" contextid="0" timestamp="2015-12-31T15:22:46.957" intervalms="3955.562" />
//	<gc-start id="5" type="scavenge" contextid="4" timestamp="2015-12-31T15:22:46.957">
//	  <mem-info id="6" free="401882552" total="536870912" percent="74">
//	    <mem type="nursery" free="0" total="134217728" percent="0">
//	<gc-end id="8" type="scavenge" contextid="4" durationms="25.007" usertimems="28.731" systemtimems="0.155" timestamp="...">
//	<exclusive-end id="13" timestamp="2015-12-31T15:22:46.982" durationms="25.388" />
//
// J9 2.x (IBM Java 5 and 6 before SR9) writes one record per trigger:
//
//	<af type="tenured" id="1" timestamp="Mar 25 22:40:24 2010" intervalms="0.000">
//	  <tenured freebytes="2621440" totalbytes="52428800" percent="5" >
//	  <gc type="global" id="1" totalid="1" intervalms="0.000">
//	  <time totalms="35.912" />
//	</af>
//
// The parser is a small streaming tag scanner, not an XML library: the files
// are written by the JVM one tag per line, rotated files start or end in the
// middle of an element, and a crashed JVM leaves the document unclosed.
// Memory is bounded: a tag spanning lines is joined up to maxTagBytes, the
// element stack to maxDepth.

import (
	"bytes"
	"strconv"
	"time"
)

// openj9_tags.go: reading the attributes of one verbose GC XML tag (see
// openj9.go for the format).

// tagEnd finds the '>' closing the tag at b[0], outside quoted values; -1
// when the line ends first. broken: a '<' came first, at i.
func tagEnd(b []byte) (i int, broken bool) {
	var q byte
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '>':
			return i, false
		case c == '<':
			return i, true
		}
	}
	return -1, false
}

// attr returns the value of name="..." in a tag body, undecoded.
func attr(body []byte, name string) ([]byte, bool) {
	off := 0
	for {
		k := bytes.Index(body[off:], []byte(name))
		if k < 0 {
			return nil, false
		}
		i := off + k
		j := i + len(name)
		if i > 0 && (body[i-1] == ' ' || body[i-1] == '\t') && j+1 < len(body) && body[j] == '=' && (body[j+1] == '"' || body[j+1] == '\'') {
			q := body[j+1]
			e := bytes.IndexByte(body[j+2:], q)
			if e < 0 {
				return nil, false
			}
			return body[j+2 : j+2+e], true
		}
		off = j
	}
}

func attrNum(body []byte, name string) (float64, bool) {
	v, ok := attr(body, name)
	if !ok {
		return 0, false
	}
	f, n, ok := parseNum(v)
	return f, ok && n == len(v)
}

// attrKB reads a byte count (decimal or 0x hex) as KB.
func attrKB(body []byte, name string) (int64, bool) {
	v, ok := attr(body, name)
	if !ok {
		return 0, false
	}
	if hasPrefix(v, "0x") || hasPrefix(v, "0X") {
		u, err := strconv.ParseUint(string(v[2:]), 16, 63)
		return int64(u / 1024), err == nil
	}
	u, n, ok := parseInt(v)
	if !ok || n != len(v) {
		return 0, false
	}
	return u / 1024, true
}

// unescape decodes the five XML entities (thread names such as "IS &lt;x&gt;").
func unescape(b []byte) []byte {
	if bytes.IndexByte(b, '&') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '&' {
			matched := false
			for _, e := range xmlEntities {
				if hasPrefix(b[i:], e.k) {
					out = append(out, e.v)
					i += len(e.k) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

var xmlEntities = []struct {
	k string
	v byte
}{{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}}

// j9Time parses "2015-12-31T15:22:46.957" (R26+) and "Mar 25 22:40:24 2010" (J9 2.x).
func j9Time(v []byte) (time.Time, bool) {
	if t, n, ok := parseISOTime(v); ok && n == len(v) {
		return t, true
	}
	if t, err := time.Parse("Jan _2 15:04:05 2006", string(v)); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func (p *openj9Parser) wall(body []byte) (time.Time, bool) {
	v, ok := attr(body, "timestamp")
	if !ok {
		return time.Time{}, false
	}
	t, ok := j9Time(v)
	if ok {
		p.st.seeTime(float64(t.UnixNano())/1e9, false)
	}
	return t, ok
}
