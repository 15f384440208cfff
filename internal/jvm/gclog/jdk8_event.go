package gclog

// JDK 8 and older: one GC event group, the text inside its outer brackets:
// name, qualifiers and cause, sizes per generation and in total, duration.
//
//	Full GC (System.gc()) [PSYoungGen: 98289K->0K(8257536K)] [ParOldGen: 32K->98112K(1048576K)] 98321K->98112K(9306112K), [Metaspace: 16471K->16471K(1064960K)], 0.6492397 secs
//	GC (Allocation Failure)2.167: [ParNew: 139776K->17471K(157248K), 0.0143520 secs] 139776K->19817K(506816K), 0.0144450 secs
//	GC pause (G1 Evacuation Pause) (young) (to-space exhausted), 0.0115587 secs
//	CMS-concurrent-mark: 0.006/0.013 secs

import (
	"bytes"
	"time"
)

// event parses one GC event group (the text inside its outer brackets):
// its qualifiers and cause, its body's sizes and duration, failure
// markers, then its kind.
func (p *jdk8Parser) event(ln int, g, name []byte, wall time.Time, up float64, id int64, whole []byte) {
	st := p.st
	e := p.newEvent(ln, wall, up, id)
	rest := g[len(name):]
	promoDash := bytes.HasSuffix(name, []byte("--"))
	if promoDash {
		name = name[:len(name)-2]
	}
	e.Name = p.in.get(name)
	q := p.qualifiers(e, rest)
	q.promoDash = q.promoDash || promoDash
	if e.Cause == "System" {
		e.Cause = "System.gc()"
	}
	e.Flags |= causeFlags(e.Cause)
	b := p.eventBody(e, q.rest)
	p.failureFlags(e, whole)
	if p.kind(e, name, q, b) {
		return // a concurrent phase: held (or dropped without a duration)
	}
	pause := b.pause
	if pause < 0 {
		// PrintGC without details has the duration; failing that, [Times: real=].
		if k := bytes.Index(whole, []byte("real=")); k >= 0 {
			if v, _, ok := parseNum(whole[k+5:]); ok {
				pause = v * 1e3
			}
		}
	}
	if pause < 0 {
		st.addIssue(ln, "unrecognised GC event (no duration)", whole)
		return
	}
	e.PauseMs = pause
	e.Collector = st.Collector
	p.hold(e)
	// The rest of the line ([Times: ...]) is handled by process.
}

// qualified is what an event's parenthesised qualifiers say.
type qualified struct {
	rest                    []byte // the body after them
	young, mixed, promoDash bool
}

// qualifiers reads " (G1 Evacuation Pause) (young) (initial-mark)": the
// cause into e, to-space exhaustion into its flags.
func (p *jdk8Parser) qualifiers(e *Event, rest []byte) qualified {
	var q qualified
	for {
		j := 0
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		if j >= len(rest) || rest[j] != '(' {
			break
		}
		dd, k := 0, j
		for ; k < len(rest); k++ {
			if rest[k] == '(' {
				dd++
			} else if rest[k] == ')' {
				dd--
				if dd == 0 {
					break
				}
			}
		}
		if k >= len(rest) {
			break
		}
		w := rest[j+1 : k]
		switch string(w) {
		case "young":
			q.young = true
		case "mixed", "partial":
			q.mixed = true
		case "initial-mark":
		case "to-space exhausted", "to-space overflow":
			e.Flags |= FlagToSpaceExhausted
		default:
			if e.Cause == "" {
				e.Cause = p.in.get(w)
			}
		}
		rest = rest[k+1:]
		if hasPrefix(rest, "--") { // G1 "(young)--": evacuation failure
			q.promoDash = true
			rest = rest[2:]
		}
	}
	q.rest = rest
	return q
}

// bodyFacts is what an event's body says beside its transitions.
type bodyFacts struct {
	pause                                 float64 // ms; -1 when none
	initialMark, remark, hasYoung, hasOld bool
}

// eventBody walks the body: transitions and "secs" at depth 0 belong to
// the event; at depth 1 to a generation named by its group.
func (p *jdk8Parser) eventBody(e *Event, rest []byte) bodyFacts {
	depth := 0
	var sub []byte
	subDone := false
	b := bodyFacts{pause: -1}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '[':
			depth++
			if depth == 1 {
				sub = groupName(rest[i+1:])
				subDone = false
				switch {
				case hasPrefix(sub, "1 CMS-initial-mark"):
					b.initialMark = true
				case hasPrefix(sub, "1 CMS-remark"), hasPrefix(sub, "YG occupancy"), hasPrefix(sub, "Rescan"):
					b.remark = true
				}
			}
			continue
		case c == ']':
			depth--
			continue
		case !isDigit(c) || depth > 1 || (i > 0 && (isDigit(rest[i-1]) || rest[i-1] == '.' || rest[i-1] == ',' || rest[i-1] >= 'A' && rest[i-1] <= 'z')):
			continue
		}
		// A token starting with a digit: a size (maybe a transition), a
		// timestamp or a duration. Sizes are followed by a unit letter.
		v, n, _ := parseNum(rest[i:])
		j := i + n
		if j < len(rest) && (rest[j] == 'K' || rest[j] == 'M' || rest[j] == 'G' || rest[j] == 'B') {
			if tr, n, ok := parseTransitionAt(rest[i:]); ok {
				if depth == 0 {
					if e.HeapBeforeKB < 0 {
						e.HeapBeforeKB, e.HeapAfterKB, e.HeapTotalKB = tr.before, tr.after, tr.total
					}
				} else if !subDone {
					subDone = true
					p.generation(e, sub, tr, &b.hasYoung, &b.hasOld)
				}
				i += n - 1
				continue
			}
		}
		if j < len(rest) && rest[j] == '/' { // CMS-concurrent-mark: 0.006/0.013 secs (cpu/wall)
			if w, m, ok := parseNum(rest[j+1:]); ok {
				v, j = w, j+1+m
			}
		}
		if depth == 0 && hasPrefix(rest[j:], " secs") {
			b.pause = v * 1e3
		}
		i = j - 1
	}

	return b
}

// failureFlags sets the flags of failure markers anywhere in the event's
// text; one cheap search first since most events have none.
func (p *jdk8Parser) failureFlags(e *Event, whole []byte) {
	if bytes.Contains(whole, []byte("fail")) {
		if bytes.Contains(whole, []byte("concurrent mode failure")) {
			e.Flags |= FlagConcurrentModeFailure
			p.setCollector(CMS)
		}
		if bytes.Contains(whole, []byte("promotion failed")) {
			e.Flags |= FlagPromotionFailed
		}
		if bytes.Contains(whole, []byte("evacuation failed")) {
			e.Flags |= FlagToSpaceExhausted
		}
	}
	if c := p.st.Collector; c != Parallel && c != CMS && c != Serial && bytes.Contains(whole, []byte("to-space")) {
		e.Flags |= FlagToSpaceExhausted
	}
}

// kind sets the event's kind (and the collector it shows); true when the
// event is a concurrent phase, held here or dropped without a duration.
func (p *jdk8Parser) kind(e *Event, name []byte, q qualified, b bodyFacts) bool {
	nm := string(name)
	switch {
	case hasPrefix(name, "Full GC"):
		e.Kind = KindFull
	case nm == "GC pause":
		p.setCollector(G1)
		e.Kind = KindYoung
		if q.mixed && !q.young {
			e.Kind = KindMixed
		}
		if q.promoDash {
			e.Flags |= FlagToSpaceExhausted
		}
	case hasPrefix(name, "GC remark"):
		p.setCollector(G1)
		e.Kind = KindRemark
	case hasPrefix(name, "GC cleanup"):
		p.setCollector(G1)
		e.Kind = KindCleanup
	case hasPrefix(name, "GC concurrent"), hasPrefix(name, "CMS-concurrent"):
		if name[0] == 'C' {
			p.setCollector(CMS)
		} else {
			p.setCollector(G1)
		}
		if b.pause < 0 {
			return true
		}
		e.Kind, e.ConcurrentMs = KindConcurrent, b.pause
		// The line is stamped when the phase ends; keep starts as starts.
		if e.Uptime >= 0 {
			e.Uptime = max(0, e.Uptime-b.pause/1e3)
		}
		if !e.Wall.IsZero() {
			e.Wall = e.Wall.Add(-time.Duration(b.pause * 1e6))
		}
		p.hold(e)
		return true
	case b.initialMark:
		e.Kind = KindInitialMark
		p.setCollector(CMS)
	case b.remark:
		e.Kind = KindRemark
		p.setCollector(CMS)
	case b.hasOld && b.hasYoung:
		e.Kind = KindFull // GCViewer: more than one generation collected
	default:
		e.Kind = KindYoung
		if q.promoDash {
			e.Flags |= FlagPromotionFailed
		}
	}
	return false
}

// generation records a per-generation transition from a "[Name: a->b(c)" group.
func (p *jdk8Parser) generation(e *Event, sub []byte, tr transition, hasYoung, hasOld *bool) {
	switch {
	case hasPrefix(sub, "PSYoungGen"), hasPrefix(sub, "DefNew"), hasPrefix(sub, "ParNew"), hasPrefix(sub, "ASParNew"):
		e.YoungBeforeKB, e.YoungAfterKB = tr.before, tr.after
		*hasYoung = true
		switch sub[0] {
		case 'P':
			if sub[1] == 'S' {
				p.setCollector(Parallel)
			} else {
				p.setCollector(CMS)
			}
		case 'D':
			p.setCollector(Serial)
		case 'A':
			p.setCollector(CMS)
		}
	case hasPrefix(sub, "Tenured"), hasPrefix(sub, "ParOldGen"), hasPrefix(sub, "PSOldGen"), string(sub) == "CMS", hasPrefix(sub, "ASCMS"):
		e.OldBeforeKB, e.OldAfterKB = tr.before, tr.after
		*hasOld = true
	case hasPrefix(sub, "Metaspace"), hasPrefix(sub, "PSPermGen"), hasPrefix(sub, "CMS Perm"), hasPrefix(sub, "Perm"), hasPrefix(sub, "PS Perm"):
		e.MetaBeforeKB, e.MetaAfterKB = tr.before, tr.after
	}
}
