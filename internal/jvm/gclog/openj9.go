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
	"time"
)

const (
	maxTagBytes = 64 << 10
	maxDepth    = 64
	maxCycles   = 64
)

// detectOpenJ9 reports a line only J9's verbose GC XML writes.
func detectOpenJ9(t []byte) bool {
	if len(t) < 4 || t[0] != '<' {
		return false
	}
	for _, p := range openj9Heads {
		if hasPrefix(t, p) {
			return true
		}
	}
	return false
}

var openj9Heads = []string{"<verbosegc ", "<verbosegc>", "<exclusive-start ", "<af-start ", "<gc-start id=", "<cycle-start id=",
	"<af type=\"", "<sys id=\"", "<concurrent-kickoff ", "<initialized id=", "<sys-start "}

type j9Cycle struct {
	id    string
	typ   string
	wall  time.Time
	ex    int // exclusive block it started in
	since bool
}

type openj9Parser struct {
	st   *Stats
	emit func(*Event)
	in   *interner

	carry     []byte // a tag not closed at the end of its line
	carryLine int
	skipping  bool // an overlong tag is being dropped up to its '>'

	stack [maxDepth]string
	depth int
	deep  int // elements opened past maxDepth, closed without being tracked

	// R26+ exclusive block
	ev             Event
	inEx           bool
	exN            int
	exLine         int
	nGC            int
	gcMs           float64
	userMs         float64
	sysMs          float64
	haveCPU        bool
	trigger        string // af, sys, con, tax
	cycleTyp       string
	kickoff        bool
	survBefore     int64
	survAfter      int64
	exDuration     float64
	haveExDuration bool
	cycles         []j9Cycle
	pending        []Event // cycles ended inside the block, emitted after its pause

	// J9 2.x record (af, sys, con)
	rec                                      string
	recLine                                  int
	recTotal                                 float64
	gcTotal                                  float64
	seenGC                                   bool
	nurBefore, nurAfter, tenBefore, tenAfter [2]int64 // used, total KB
}

func newOpenJ9Parser(st *Stats, emit func(*Event)) *openj9Parser {
	p := &openj9Parser{st: st, emit: emit, in: newInterner()}
	p.ev.reset()
	return p
}

func (p *openj9Parser) line(n int, b []byte) {
	if p.skipping {
		k := bytes.IndexByte(b, '>')
		if k < 0 {
			return
		}
		p.skipping = false
		b = b[k+1:]
	}
	data := b
	start := n
	if len(p.carry) > 0 {
		if len(p.carry)+len(b) > maxTagBytes {
			p.st.addIssue(p.carryLine, "XML tag longer than 64 KiB, skipped", p.carry[:min(len(p.carry), 80)])
			p.carry = p.carry[:0]
			if k := bytes.IndexByte(b, '>'); k >= 0 {
				data = b[k+1:]
			} else {
				p.skipping = true
				return
			}
		} else {
			p.carry = append(p.carry, ' ')
			p.carry = append(p.carry, b...)
			data = p.carry
			start = p.carryLine
		}
	}
	rest := p.scan(n, start, data)
	if rest == nil {
		p.carry = p.carry[:0]
		return
	}
	p.carry = append(p.carry[:0], rest...) // copy handles rest overlapping carry
	p.carryLine = start
}

// scan reads the tags in data; it returns the unfinished tag at the end, or nil.
func (p *openj9Parser) scan(n, start int, data []byte) []byte {
	text := false
	for len(data) > 0 {
		lt := bytes.IndexByte(data, '<')
		if lt < 0 {
			if len(trimSpace(data)) > 0 {
				text = true
			}
			break
		}
		if len(trimSpace(data[:lt])) > 0 {
			text = true
		}
		data = data[lt:]
		if hasPrefix(data, "<!--") {
			e := bytes.Index(data, []byte("-->"))
			if e < 0 {
				return data
			}
			data = data[e+3:]
			continue
		}
		gt, broken := tagEnd(data)
		if broken {
			p.st.addIssue(n, "broken XML tag", data[:min(gt, 80)])
			data = data[gt:]
			continue
		}
		if gt < 0 {
			if start == n && len(data) > maxTagBytes {
				p.st.addIssue(n, "XML tag longer than 64 KiB, skipped", data[:80])
				p.skipping = true
				return nil
			}
			return data
		}
		p.tag(start, data[1:gt])
		data = data[gt+1:]
	}
	if text {
		// Text between tags: a JVM or application message in the log ("Calculated
		// native library name as: ...", "JVMJ9VM007E ...").
		p.st.addIssue(n, "text outside verbose GC XML tags", trimSpace(data))
	}
	return nil
}

func (p *openj9Parser) inside(name string) bool {
	for i := p.depth - 1; i >= 0; i-- {
		if p.stack[i] == name {
			return true
		}
	}
	return false
}

// tag handles one tag body (between '<' and '>').
func (p *openj9Parser) tag(ln int, body []byte) {
	if len(body) == 0 || body[0] == '?' || body[0] == '!' {
		return
	}
	if body[0] == '/' {
		p.close(ln, string(trimSpace(body[1:])))
		return
	}
	self := body[len(body)-1] == '/'
	if self {
		body = body[:len(body)-1]
	}
	e := 0
	for e < len(body) && body[e] != ' ' && body[e] != '\t' {
		e++
	}
	name := p.in.get(body[:e])
	p.open(ln, name, body)
	if !self {
		if p.depth < maxDepth {
			p.stack[p.depth] = name
			p.depth++
		} else {
			p.deep++
		}
	} else {
		p.ended(ln, name)
	}
}

func (p *openj9Parser) close(ln int, name string) {
	if p.deep > 0 {
		p.deep--
		return
	}
	// Pop to the matching element: a rotated file may close what it never opened.
	for i := p.depth - 1; i >= 0; i-- {
		if p.stack[i] == name {
			p.depth = i
			p.ended(ln, name)
			return
		}
	}
	p.ended(ln, name)
}

func (p *openj9Parser) setCollector(c Collector) {
	if p.st.Collector == CollectorUnknown {
		p.st.Collector = c
	}
}

func policy(v []byte) Collector {
	v = bytes.TrimPrefix(v, []byte("-Xgcpolicy:"))
	switch string(v) {
	case "gencon":
		return OpenJ9Gencon
	case "balanced":
		return OpenJ9Balanced
	case "optthruput":
		return OpenJ9OptThruput
	case "optavgpause":
		return OpenJ9OptAvgPause
	case "metronome":
		return OpenJ9Metronome
	}
	return CollectorUnknown
}

// open handles an element's opening tag: the header's, R26+'s
// (exclusive-start ... exclusive-end) or J9 2.x's (<af>, <sys>, <con>).
func (p *openj9Parser) open(ln int, name string, body []byte) {
	switch name {
	case "verbosegc", "initialized", "attribute":
		p.openHeader(name, body)
	case "af", "sys", "con", "gc", "nursery", "tenured", "time", "timesms":
		p.openJ9x(ln, name, body)
	default:
		p.openR26(ln, name, body)
	}
}

// openHeader reads the JVM's version, start and GC settings.
func (p *openj9Parser) openHeader(name string, body []byte) {
	switch name {
	case "verbosegc":
		if v, ok := attr(body, "version"); ok && p.st.JVMVersion == "" {
			p.st.JVMVersion = string(unescape(v))
		}
	case "initialized":
		if t, ok := p.wall(body); ok && p.st.JVMStart.IsZero() {
			p.st.JVMStart = t // GC initialisation: the JVM's start to the millisecond
		}
	case "attribute":
		if !p.inside("initialized") {
			return
		}
		n, _ := attr(body, "name")
		switch string(n) {
		case "gcPolicy":
			v, _ := attr(body, "value")
			if c := policy(v); c != CollectorUnknown {
				p.st.Collector = c
			}
		case "maxHeapSize":
			if kb, ok := attrKB(body, "value"); ok {
				p.st.MaxHeapKB = kb
			}
		case "numCPUs":
			if v, ok := attrNum(body, "value"); ok {
				p.st.CPUs = int(v)
			}
		}
	}
}

// openR26 handles the elements of OpenJ9 R26 and later.
func (p *openj9Parser) openR26(ln int, name string, body []byte) {
	switch name {
	case "exclusive-start":
		if p.inEx {
			p.st.addIssue(p.exLine, "exclusive-start without exclusive-end", nil)
			if p.nGC > 0 {
				p.flushEx(-1)
			}
		}
		p.startEx(ln, body)
	case "af-start":
		p.trig("af", "Allocation Failure", 0)
	case "sys-start":
		r, _ := attr(body, "reason")
		if len(r) == 0 || string(r) == "explicit" {
			p.trig("sys", "System.gc()", FlagExplicit)
		} else {
			p.trig("sys", p.in.get(unescape(r)), 0)
		}
	case "concurrent-collection-start":
		p.trig("con", "concurrent collection", 0)
	case "allocation-taxation":
		p.trig("tax", "allocation taxation", 0)
	case "concurrent-kickoff":
		p.kickoff = true
	case "cycle-start":
		p.cycleStart(body)
	case "cycle-end":
		p.cycleEnd(body)
	case "gc-start":
		p.gcStart(ln, body)
	case "gc-end":
		p.gcEnd(body)
	case "mem-info":
		switch {
		case p.inEx && p.inside("gc-start") && p.nGC == 1:
			if used, total, ok := freeTotal(body, "free", "total"); ok {
				p.ev.HeapBeforeKB, p.ev.HeapTotalKB = used, total
			}
		case p.inEx && p.inside("gc-end"):
			if used, total, ok := freeTotal(body, "free", "total"); ok {
				p.ev.HeapAfterKB, p.ev.HeapTotalKB = used, total
			}
		}
	case "mem":
		p.mem(body)
	case "warning":
		// "aborted collection due to insufficient free space": a scavenge that
		// could not tenure its survivors, as HotSpot's promotion failure.
		if d, ok := attr(body, "details"); ok && p.inEx && bytes.Contains(d, []byte("aborted")) {
			p.ev.Flags |= FlagPromotionFailed
		}
	case "exclusive-end":
		if v, ok := attrNum(body, "durationms"); ok && p.inEx {
			p.exDuration, p.haveExDuration = v, true
		}
	}
}

// gcEnd adds a collection's time and CPU to the exclusive section's.
func (p *openj9Parser) gcEnd(body []byte) {
	if !p.inEx {
		return
	}
	if v, ok := attrNum(body, "durationms"); ok {
		p.gcMs += v
	}
	if u, ok := attrNum(body, "usertimems"); ok {
		s, _ := attrNum(body, "systemtimems")
		p.userMs += u
		p.sysMs += s
		p.haveCPU = true
	}
}

// mem reads one <mem> of a <mem-info>: a generation's use before or after
// a collection, which also tells the policy (nursery: gencon, eden: balanced).
func (p *openj9Parser) mem(body []byte) {
	if !p.inEx {
		return
	}
	used, _, ok := freeTotal(body, "free", "total")
	if !ok {
		return
	}
	t, _ := attr(body, "type")
	before := p.inside("gc-start") && p.nGC == 1
	after := p.inside("gc-end")
	if p.depth == 0 || p.stack[p.depth-1] != "mem-info" {
		// soa/loa, allocate/survivor: nested inside a generation. The
		// survivor half of the nursery is a reserve logged as all used
		// (free="0"): it is no heap in use, so it is taken out at the end.
		if string(t) == "survivor" && p.depth > 0 && p.stack[p.depth-1] == "mem" {
			if before {
				p.survBefore = used
			} else if after {
				p.survAfter = used
			}
		}
		return
	}
	switch string(t) {
	case "nursery":
		p.setCollector(OpenJ9Gencon)
	case "eden":
		p.setCollector(OpenJ9Balanced)
	}
	switch string(t) {
	case "nursery", "eden":
		if before {
			p.ev.YoungBeforeKB = used
		} else if after {
			p.ev.YoungAfterKB = used
		}
	case "tenure":
		if before {
			p.ev.OldBeforeKB = used
		} else if after {
			p.ev.OldAfterKB = used
		}
	}
}

// openJ9x handles the records of J9 2.x (<af>, <sys>, <con> with <gc>,
// <nursery>, <tenured>, <time>).
func (p *openj9Parser) openJ9x(ln int, name string, body []byte) {
	switch name {
	case "af", "sys", "con":
		if name == "con" {
			ev, _ := attr(body, "event")
			if string(ev) != "collection" {
				return
			}
		}
		if p.rec != "" {
			p.st.addIssue(p.recLine, "<"+p.rec+"> record not closed", nil)
		}
		p.startRec(ln, name, body)
	case "gc":
		if p.rec == "" {
			return
		}
		p.seenGC = true
		t, _ := attr(body, "type")
		switch string(t) {
		case "scavenger":
			p.setKind(KindYoung, "scavenger")
			p.setCollector(OpenJ9Gencon)
		case "global":
			if p.rec == "con" {
				p.setKind(KindRemark, "global (concurrent)")
			} else {
				p.setKind(KindFull, "global")
			}
		}
		if id, ok := attrNum(body, "totalid"); ok {
			p.ev.GCID = int64(id)
		}
	case "nursery", "tenured":
		if p.rec == "" {
			return
		}
		used, total, ok := freeTotal(body, "freebytes", "totalbytes")
		if !ok {
			return // <tenured objectcount=... bytes=...>: tenured objects, not space
		}
		var dst *[2]int64
		switch {
		case name == "nursery" && !p.seenGC:
			dst = &p.nurBefore
		case name == "nursery" && p.inside("gc"):
			dst = &p.nurAfter
		case name == "tenured" && !p.seenGC:
			dst = &p.tenBefore
		case name == "tenured" && p.inside("gc"):
			dst = &p.tenAfter
		default:
			return // after the allocation was satisfied
		}
		*dst = [2]int64{used, total}
	case "time":
		if p.rec == "" {
			return
		}
		if v, ok := attrNum(body, "totalms"); ok {
			if p.inside("gc") {
				p.gcTotal = v
			} else {
				p.recTotal = v
			}
		}
	case "timesms":
		if v, ok := attrNum(body, "total"); ok && p.rec != "" {
			p.gcTotal = v
		}
	}
}

// ended handles the end of an element (a closing tag or a self-closing one).
func (p *openj9Parser) ended(ln int, name string) {
	switch name {
	case "exclusive-end":
		if p.inEx {
			p.flushEx(ln)
		}
	case "af", "sys", "con":
		if p.rec == name {
			p.flushRec(ln)
		}
	}
}

// freeTotal reads free and total bytes as used and total KB.
func freeTotal(body []byte, free, total string) (used, tot int64, ok bool) {
	f, ok1 := attrKB(body, free)
	t, ok2 := attrKB(body, total)
	if !ok1 || !ok2 || f > t {
		return 0, 0, false
	}
	return t - f, t, true
}

var kindRank = map[Kind]int{KindPausePhase: 1, KindYoung: 2, KindMixed: 3, KindRemark: 4, KindFull: 5}

func (p *openj9Parser) setKind(k Kind, name string) {
	if kindRank[k] >= kindRank[p.ev.Kind] {
		p.ev.Kind = k
		p.ev.Name = p.in.get([]byte(name))
	}
}

func (p *openj9Parser) startEx(ln int, body []byte) {
	p.ev.reset()
	p.ev.Collector = p.st.Collector
	p.inEx, p.exLine = true, ln
	p.exN++
	p.nGC, p.gcMs, p.userMs, p.sysMs, p.haveCPU = 0, 0, 0, 0, false
	p.survBefore, p.survAfter = 0, 0
	p.trigger, p.cycleTyp = "", ""
	if t, ok := p.wall(body); ok {
		p.ev.Wall = t
	}
}

func (p *openj9Parser) trig(kind, cause string, f Flags) {
	if !p.inEx {
		return
	}
	p.trigger = kind
	p.ev.Cause = cause
	p.ev.Flags |= f | causeFlags(cause)
}

func (p *openj9Parser) cycleStart(body []byte) {
	t, _ := attr(body, "type")
	typ := p.in.get(t)
	switch typ {
	case "scavenge":
		p.setCollector(OpenJ9Gencon)
	case "partial gc", "global mark phase", "global garbage collect":
		p.setCollector(OpenJ9Balanced)
	}
	if p.inEx && p.cycleTyp == "" {
		p.cycleTyp = typ
	}
	id, _ := attr(body, "id")
	w, _ := p.wall(body)
	c := j9Cycle{id: p.in.get(id), typ: typ, wall: w, ex: p.exN, since: p.inEx}
	if len(p.cycles) >= maxCycles {
		p.cycles = p.cycles[1:] // a log without cycle-ends: keep the newest
	}
	p.cycles = append(p.cycles, c)
}

// cycleEnd closes a cycle; one that spanned several pauses (the concurrent
// global cycle of gencon, a balanced global mark) becomes a KindCycle event.
func (p *openj9Parser) cycleEnd(body []byte) {
	ctx, _ := attr(body, "contextid")
	w, okw := p.wall(body)
	for i := len(p.cycles) - 1; i >= 0; i-- {
		c := p.cycles[i]
		if c.id != string(ctx) {
			continue
		}
		p.cycles = append(p.cycles[:i], p.cycles[i+1:]...)
		if c.ex == p.exN && p.inEx || c.wall.IsZero() || !okw {
			return
		}
		e := NewEvent()
		e.Collector, e.Kind, e.Name, e.Wall = p.st.Collector, KindCycle, c.typ, c.wall
		e.Cause = "concurrent " + c.typ
		e.ConcurrentMs = float64(w.Sub(c.wall)) / float64(time.Millisecond)
		if p.inEx && len(p.pending) < maxCycles {
			p.pending = append(p.pending, e)
		} else {
			p.out(&e)
		}
		return
	}
}

func (p *openj9Parser) gcStart(ln int, body []byte) {
	if !p.inEx {
		return
	}
	p.nGC++
	t, _ := attr(body, "type")
	typ := p.in.get(t)
	switch typ {
	case "scavenge":
		p.setKind(KindYoung, typ)
	case "global":
		if p.trigger == "con" {
			p.setKind(KindRemark, "global (concurrent final)")
		} else {
			p.setKind(KindFull, typ)
		}
	case "partial gc":
		p.setKind(KindMixed, typ)
	case "global garbage collect":
		p.setKind(KindFull, typ)
	default: // "global mark phase" increments, metronome "synchgc"
		p.setKind(KindPausePhase, typ)
	}
	if id, ok := attrNum(body, "id"); ok && p.ev.GCID < 0 {
		p.ev.GCID = int64(id)
	}
	_ = ln
}

func (p *openj9Parser) out(e *Event) {
	p.st.Events++
	p.emit(e)
}

// flushEx emits the pause of the current exclusive block; ln < 0 when the
// block never ended (a crash, a rotation): its pause is then the GCs' time.
func (p *openj9Parser) flushEx(ln int) {
	p.inEx = false
	e := &p.ev
	pause, ok := -1.0, false
	if ln >= 0 {
		pause, ok = p.exDuration, p.haveExDuration
	}
	if !ok {
		pause = p.gcMs
	}
	p.haveExDuration = false
	if e.Kind == KindUnknown {
		// No collection inside: the pause that starts a concurrent cycle
		// (gencon's global kickoff), or exclusive access for another reason.
		e.Kind = KindPausePhase
		switch {
		case p.cycleTyp != "":
			e.Name = p.in.get([]byte(p.cycleTyp + " start"))
		default:
			e.Name = "exclusive access"
		}
	}
	e.PauseMs = pause
	e.Collector = p.st.Collector
	e.Line = max(ln, p.exLine)
	if p.haveCPU {
		e.UserS, e.SysS, e.RealS = p.userMs/1e3, p.sysMs/1e3, p.gcMs/1e3
	}
	sub := func(v *int64, by int64) {
		if *v >= by {
			*v -= by
		}
	}
	if e.YoungBeforeKB >= 0 {
		sub(&e.YoungBeforeKB, p.survBefore)
		sub(&e.HeapBeforeKB, p.survBefore)
	}
	if e.YoungAfterKB >= 0 {
		sub(&e.YoungAfterKB, p.survAfter)
		sub(&e.HeapAfterKB, p.survAfter)
	}
	p.out(e)
	for i := range p.pending {
		p.out(&p.pending[i])
	}
	p.pending = p.pending[:0]
}

func (p *openj9Parser) startRec(ln int, name string, body []byte) {
	p.ev.reset()
	p.ev.Collector = p.st.Collector
	p.rec, p.recLine = name, ln
	p.recTotal, p.gcTotal, p.seenGC = -1, -1, false
	p.nurBefore, p.nurAfter, p.tenBefore, p.tenAfter = [2]int64{-1, -1}, [2]int64{-1, -1}, [2]int64{-1, -1}, [2]int64{-1, -1}
	if t, ok := p.wall(body); ok {
		p.ev.Wall = t
	}
	switch name {
	case "af":
		typ, _ := attr(body, "type")
		p.ev.Cause = "Allocation Failure"
		if string(typ) == "nursery" {
			p.setCollector(OpenJ9Gencon)
		}
	case "sys":
		p.ev.Cause = "System.gc()"
		p.ev.Flags |= FlagExplicit
	case "con":
		p.ev.Cause = "concurrent collection"
	}
}

func (p *openj9Parser) flushRec(ln int) {
	e := &p.ev
	rec := p.rec
	p.rec = ""
	if !p.seenGC {
		return // a record without a collection (con kickoff, an aborted af)
	}
	switch {
	case p.recTotal >= 0:
		e.PauseMs = p.recTotal
	case p.gcTotal >= 0:
		e.PauseMs = p.gcTotal
	default:
		p.st.addIssue(p.recLine, "<"+rec+"> record without a time", nil)
		return
	}
	sum := func(a, b [2]int64, i int) int64 {
		switch {
		case a[i] >= 0 && b[i] >= 0:
			return a[i] + b[i]
		case b[i] >= 0 && a == [2]int64{-1, -1}:
			return b[i] // flat heap: tenured only
		}
		return Unknown
	}
	e.HeapBeforeKB = sum(p.nurBefore, p.tenBefore, 0)
	e.HeapAfterKB = sum(p.nurAfter, p.tenAfter, 0)
	e.HeapTotalKB = sum(p.nurAfter, p.tenAfter, 1)
	if p.nurBefore[0] >= 0 && p.nurAfter[0] >= 0 {
		e.YoungBeforeKB, e.YoungAfterKB = p.nurBefore[0], p.nurAfter[0]
	}
	if p.tenBefore[0] >= 0 && p.tenAfter[0] >= 0 {
		e.OldBeforeKB, e.OldAfterKB = p.tenBefore[0], p.tenAfter[0]
	}
	e.Line = ln
	e.Collector = p.st.Collector
	p.out(e)
}

func (p *openj9Parser) finish() {
	if len(p.carry) > 0 {
		p.st.addIssue(p.carryLine, "XML tag not closed before end of file", p.carry[:min(len(p.carry), 80)])
	}
	if p.inEx {
		p.st.addIssue(p.exLine, "exclusive-start without exclusive-end before end of file", nil)
		if p.nGC > 0 {
			p.flushEx(-1)
		}
	}
	if p.rec != "" {
		p.st.addIssue(p.recLine, "<"+p.rec+"> record not closed before end of file", nil)
	}
}
