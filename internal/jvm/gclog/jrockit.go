package gclog

// Oracle JRockit (R26-R28, Java 1.4-6) -Xverbose:memory logs. One summary
// line per collection, behind bracketed level/module/date/pid groups in any
// order:
//
//	[memory ] 77.737: Nursery GC 630435K->183741K (1048576K), 566.158 ms
//	[Wed Nov 16 15:19:26 2005][29147][memory ] 18.785-18.888: GC 32260K->4028K (32768K), 24.491 ms
//	[memory ][Tue Feb 19 12:03:04 2013][02844] 6.038-6.207: GC 3089328K->352551K (3145728K), sum of pauses 118.600 ms
//	[INFO ][memory ] [OC#1] 31.727-31.861: OC 270886KB->194351KB (524288KB), 0.134 s, sum of pauses 96.521 ms, longest pause 87.771 ms.
//	[memory ][Fri Feb 15 14:02:28 2013][17611] GC mode: Garbage collection optimized for throughput, strategy: Generational Parallel Mark & Sweep.
//
// A young collection (YC, Nursery GC) is a pause; an old collection (OC, GC)
// is a full GC under a parallel strategy and, under a concurrent one, a
// cycle whose pauses are its "sum of pauses" (counted as a remark-like pause).

import (
	"bytes"
	"time"
)

// jrockitHead splits the leading bracket groups: it returns the module
// ("memory", "gcpause", ...), the wall time when a date group is present,
// the text after the groups, and whether this looks like JRockit output.
func jrockitHead(b []byte) (module []byte, wall time.Time, rest []byte, ok bool) {
	rest = b
	for len(rest) > 0 && rest[0] == '[' {
		e := bytes.IndexByte(rest, ']')
		if e < 0 {
			return nil, wall, b, false
		}
		g := rest[1:e]
		switch {
		case len(g) >= 4 && isDigit(g[len(g)-1]) && bytes.IndexByte(g, ' ') > 0:
			if t, err := time.Parse("Mon Jan _2 15:04:05 2006", string(g)); err == nil {
				wall = t
			}
		case hasPrefix(g, "YC#") || hasPrefix(g, "OC#"):
		case len(g) > 0 && isDigit(g[0]): // pid
		case string(g) == "INFO " || string(g) == "WARN " || string(g) == "ERROR" || string(g) == "DEBUG":
		default:
			if module == nil {
				module = trimSpace(g)
			}
		}
		rest = rest[e+1:]
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
	}
	return module, wall, rest, module != nil
}

// detectJRockit reports a JRockit "[memory ]" line: the module name padded
// to seven characters inside its brackets is JRockit's own.
func detectJRockit(t []byte) bool {
	return len(t) > 9 && t[0] == '[' && bytes.Contains(t, []byte("[memory ]"))
}

type jrockitParser struct {
	st   *Stats
	emit func(*Event)
	in   *interner
	e    Event
}

func newJRockitParser(st *Stats, emit func(*Event)) *jrockitParser {
	return &jrockitParser{st: st, emit: emit, in: newInterner()}
}

func (p *jrockitParser) finish() {}

func (p *jrockitParser) line(n int, b []byte) {
	t := trimSpace(b)
	module, wall, rest, ok := jrockitHead(t)
	if !ok && len(t) > 0 {
		if f := Detect(t); f != FormatUnknown && f != FormatJRockit {
			// Another JVM's log appended to this one (a HotSpot log after a
			// JRockit log in one file): not read here, and said.
			p.st.addIssue(n, "a "+f.String()+" GC log line inside a JRockit log (two logs in one file: give each its own file)", b)
			return
		}
	}
	if !ok || string(module) != "memory" {
		return // [gcpause], [nursery], [alloc] details, heap-region dumps
	}
	switch {
	case p.st.Collector == CollectorUnknown && (bytes.Contains(rest, []byte("strategy: ")) || bytes.Contains(rest, []byte("strategy to "))):
		p.st.Collector = jrockitStrategy(rest)
		return
	case p.st.MaxHeapKB == 0 && bytes.Contains(rest, []byte("aximal heap size: ")):
		i := bytes.Index(rest, []byte("aximal heap size: ")) + len("aximal heap size: ")
		if kb, _, ok := parseSizeKB(rest[i:]); ok {
			p.st.MaxHeapKB = kb
		}
		return
	case hasPrefix(rest, "Throwing OutOfMemory"):
		e := &p.e
		e.reset()
		e.Collector, e.Kind, e.Name, e.Wall, e.Line, e.Flags = p.st.Collector, KindMarker, "OutOfMemory", wall, n, FlagOutOfMemory
		p.out(e)
		return
	case len(rest) == 0 || !isDigit(rest[0]) || !bytes.Contains(rest, arrow):
		return // headers, strategy changes, "YC started", promotion counts
	}
	if !p.summary(n, wall, rest) {
		p.st.addIssue(n, "JRockit memory line not understood", b)
	}
}

// jrockitStrategy maps "strategy: Generational Concurrent Mark & Sweep",
// "GC strategy: gencon" to the collector.
func jrockitStrategy(b []byte) Collector {
	l := bytes.ToLower(b)
	if bytes.Contains(l, []byte("concurrent")) || bytes.Contains(l, []byte("gencon")) || bytes.Contains(l, []byte("singlecon")) ||
		bytes.Contains(l, []byte("pausetime")) {
		return JRockitConcurrent
	}
	return JRockitParallel
}

// summary parses "start[-end]: TYPE before->after (heap), ..., [sum of pauses] X ms".
func (p *jrockitParser) summary(n int, wall time.Time, b []byte) bool {
	start, k, ok := parseNum(b)
	if !ok {
		return false
	}
	b = b[k:]
	if len(b) > 0 && b[0] == '-' {
		_, k, ok = parseNum(b[1:])
		if !ok {
			return false
		}
		b = b[1+k:]
	}
	if !hasPrefix(b, ": ") {
		return false
	}
	b = b[2:]
	a := bytes.Index(b, arrow)
	if a < 0 {
		return false
	}
	sp := bytes.LastIndexByte(b[:a], ' ')
	if sp < 0 {
		return false
	}
	typ := trimSpace(b[:sp])
	before, k1, ok1 := parseSizeKB(b[sp+1:])
	after, k2, ok2 := parseSizeKB(b[a+2:])
	if !ok1 || !ok2 || sp+1+k1 != a {
		return false
	}
	b = b[a+2+k2:]
	total := int64(Unknown)
	if hasPrefix(b, " (") {
		if t, k, ok := parseSizeKB(b[2:]); ok && 2+k < len(b) && b[2+k] == ')' {
			total = t
			b = b[3+k:]
		}
	}
	var pause float64
	if i := bytes.Index(b, []byte("sum of pauses ")); i >= 0 {
		v, k, ok := parseNum(b[i+len("sum of pauses "):])
		if !ok || !hasPrefix(b[i+len("sum of pauses ")+k:], " ms") {
			return false
		}
		pause = v
	} else {
		c := bytes.LastIndex(b, []byte(", "))
		if c < 0 {
			return false
		}
		s := bytes.TrimSuffix(trimSpace(b[c+2:]), []byte("."))
		v, k, ok := parseNum(s)
		if !ok || string(s[k:]) != " ms" {
			return false
		}
		pause = v
	}
	e := &p.e
	e.reset()
	e.Collector, e.Line, e.Uptime, e.Wall = p.st.Collector, n, start, time.Time{}
	p.st.seeTime(start, true)
	if !wall.IsZero() {
		p.st.seeStart(wall, start)
	}
	e.HeapBeforeKB, e.HeapAfterKB, e.HeapTotalKB = before, after, total
	e.PauseMs = pause
	e.Name = p.in.get(typ)
	switch string(typ) {
	case "YC", "Nursery GC", "nursery GC":
		e.Kind = KindYoung
	default: // "OC", "GC"
		e.Kind = KindFull
		if p.st.Collector == JRockitConcurrent {
			e.Kind = KindRemark
		}
	}
	p.out(e)
	return true
}

func (p *jrockitParser) out(e *Event) {
	p.st.Events++
	p.emit(e)
}
