package gclog

// JDK 8 and older: the bracket groups of one joined event text (jdk8.go
// joins the lines). A text holds one event group, maybe G1's detail groups
// after it, and groups that are no events (ergonomics, class unloading):
//
//	[GC pause (G1 Evacuation Pause) (young), 0.0115587 secs]
//	   [Eden: 15.0M(15.0M)->0.0B(10.0M) Survivors: 2048.0K->3072.0K Heap: 71.1M(96.0M)->71.2M(103.0M)]
//	 [Times: user=0.05 sys=0.01, real=0.01 secs]
//	[G1Ergonomics (Concurrent Cycles) request concurrent cycle initiation, reason: occupancy higher than threshold]
//	[Pause Init Mark (process weakrefs), 3.341 ms]   (Shenandoah, and its ", start" markers)

import (
	"bytes"
	"time"
)

// closeBracket returns the index of the ']' matching the '[' at b[open].
func closeBracket(b []byte, open int) int {
	d := 0
	for i := open; i < len(b); i++ {
		switch b[i] {
		case '[':
			d++
		case ']':
			d--
			if d == 0 {
				return i
			}
		}
	}
	return -1
}

// groupName reads the name at the start of a bracket group: "GC", "Full GC",
// "GC pause", "ParNew", "1 CMS-initial-mark", "CMS-concurrent-mark".
func groupName(g []byte) []byte {
	i := 0
	if len(g) > 2 && isDigit(g[0]) && g[1] == ' ' { // "1 CMS-initial-mark"
		i = 2
	}
	for i < len(g) {
		c := g[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ' ' || c == '-' || c == '_' || (i > 0 && isDigit(c) && g[i-1] == 'G' && i+1 < len(g) && g[i+1] == ' ') {
			i++
			continue
		}
		break
	}
	return trimSpace(g[:i])
}

// process parses one complete (brackets balanced) text of one or more lines.
func (p *jdk8Parser) process(ln int, text []byte) {
	st := p.st
	i := 0
	first := true
	for i < len(text) {
		wall, up, id, n := p.prefix(text[i:])
		i += n
		if i >= len(text) {
			break
		}
		if text[i] != '[' && first {
			// Text glued before the event ("**** Error\tThu Mar 22 ...\t[GC ..."): start at the event.
			if k := bytes.Index(text[i:], []byte("[GC")); k > 0 {
				i += k
			} else if k := bytes.Index(text[i:], []byte("[Full GC")); k > 0 {
				i += k
			}
		}
		if text[i] != '[' {
			if first {
				st.addIssue(ln, "unrecognised line", text)
			}
			return // trailing text after the event (", 0.0013 secs]" joins are inside)
		}
		end := closeBracket(text, i)
		if end < 0 {
			end = len(text)
		}
		g := text[i+1 : end]
		p.group(ln, g, wall, up, id, first, text)
		first = false
		i = end + 1
	}
}

func (p *jdk8Parser) group(ln int, g []byte, wall time.Time, up float64, id int64, first bool, whole []byte) {
	st := p.st
	name := groupName(g)
	if hasPrefix(name, "GCBefore GC") || hasPrefix(name, "GC Before GC") { // CMS -XX:PrintFLSStatistics: "[GCBefore GC: ...", "[GC Before GC: ..."
		name = name[:2]
	}
	switch {
	case hasPrefix(g, "Pause "), hasPrefix(g, "Concurrent "):
		p.shenandoah(ln, g, wall, up, id, whole)
		return
	case hasPrefix(g, "Times: "):
		if p.hasHeld {
			p.times(&p.held, g)
		}
		return
	case hasPrefix(g, "Eden: "):
		if p.hasHeld {
			p.g1Eden(&p.held, g)
		}
		return
	case hasPrefix(g, "Metaspace: "), hasPrefix(g, "Perm: "):
		if p.hasHeld {
			if tr, _, _, ok := findTransition(g); ok {
				p.held.MetaBeforeKB, p.held.MetaAfterKB = tr.before, tr.after
			}
		}
		return
	case string(name) == "GC" || string(name) == "Full GC" || string(name) == "GC--" || string(name) == "Full GC--" ||
		hasPrefix(name, "GC pause") || hasPrefix(name, "GC remark") || hasPrefix(name, "GC cleanup") ||
		hasPrefix(name, "GC concurrent") || hasPrefix(name, "CMS-concurrent") || hasPrefix(name, "Full GC"):
		p.event(ln, g, name, wall, up, id, whole)
		return
	}
	if !first || (len(whole) > 0 && (whole[0] == ' ' || whole[0] == '\t')) || knownGroup(name) {
		return // G1 phase tables, ergonomics, class unloading: known detail
	}
	st.addIssue(ln, "unrecognised GC event", whole)
}

// knownGroups are bracket groups that start a line without being events:
// G1 ergonomics and phase tables, class unloading.
var knownGroups = []string{"G1Ergonomics", "Unloading class", "Loaded", "Opened", "GC concurrent", "CMS", "GC Worker", "Parallel Time",
	"Code Root", "Clear CT", "Other", "Choose CSet", "Ref Proc", "Ref Enq", "Free CSet", "Update RS", "Scan RS", "Object Copy", "Termination",
	"Ext Root Scanning", "SATB Filtering", "Processed Buffers", "Redirty Cards", "Humongous", "Expand Heap", "String Dedup", "Evacuation Failure"}

func knownGroup(name []byte) bool {
	for _, k := range knownGroups {
		if hasPrefix(name, k) {
			return true
		}
	}
	return false
}

// shenandoah parses Shenandoah's JDK 8 groups:
// "Pause Init Mark (process weakrefs), 3.341 ms", "Concurrent cleanup 123M->45M(250M), 0.030 ms",
// and their ", start" markers.
func (p *jdk8Parser) shenandoah(ln int, g []byte, wall time.Time, up float64, id int64, whole []byte) {
	c := bytes.LastIndex(g, []byte(", "))
	if c <= 0 {
		p.st.addIssue(ln, "unrecognised GC event", whole)
		return
	}
	head, tail := g[:c], trimSpace(g[c+2:])
	if string(tail) == "start" {
		return
	}
	v, n, ok := parseNum(tail)
	if !ok || string(trimSpace(tail[n:])) != "ms" {
		p.st.addIssue(ln, "unrecognised GC event", whole)
		return
	}
	p.setCollector(Shenandoah)
	e := p.newEvent(ln, wall, up, id)
	if head[0] == 'P' {
		fillPause(e, head, p.in, Shenandoah)
		e.PauseMs = v
	} else {
		fillConcurrent(e, head, p.in)
		e.ConcurrentMs = v
	}
	// Stamped when the phase ends.
	if e.Uptime >= 0 {
		e.Uptime = max(0, e.Uptime-v/1e3)
	}
	if !e.Wall.IsZero() {
		e.Wall = e.Wall.Add(-time.Duration(v * 1e6))
	}
	e.Collector = Shenandoah
	p.hold(e)
}

// times parses "Times: user=0.05 sys=0.01, real=0.01 secs".
func (p *jdk8Parser) times(e *Event, g []byte) {
	get := func(key string) float64 {
		i := bytes.Index(g, []byte(key))
		if i < 0 {
			return Unknown
		}
		v, _, ok := parseNum(g[i+len(key):])
		if !ok {
			return Unknown
		}
		return v
	}
	e.UserS, e.SysS, e.RealS = get("user="), get("sys="), get("real=")
}

// g1Eden parses "Eden: 15.0M(15.0M)->0.0B(10.0M) Survivors: 2048.0K->3072.0K Heap: 71.1M(96.0M)->71.2M(103.0M)".
func (p *jdk8Parser) g1Eden(e *Event, g []byte) {
	eden, _, ok1 := parseTransitionAt(g[len("Eden: "):])
	var surv transition
	ok2 := false
	if i := bytes.Index(g, []byte("Survivors: ")); i >= 0 {
		surv, _, ok2 = parseTransitionAt(g[i+len("Survivors: "):])
	}
	if ok1 && ok2 {
		e.YoungBeforeKB, e.YoungAfterKB = eden.before+surv.before, eden.after+surv.after
	}
	if i := bytes.Index(g, []byte("Heap: ")); i >= 0 {
		if h, _, ok := parseTransitionAt(g[i+len("Heap: "):]); ok {
			e.HeapBeforeKB, e.HeapAfterKB, e.HeapTotalKB = h.before, h.after, h.total
			if ok1 && ok2 && e.YoungBeforeKB >= 0 {
				e.OldBeforeKB = h.before - e.YoungBeforeKB
				e.OldAfterKB = h.after - e.YoungAfterKB
			}
		}
	}
}
