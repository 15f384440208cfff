package gclog

// Unified logging (JDK 9+, -Xlog:gc*:file=gc.log[:decorators]). Samples:
//
//	[0.467s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 15M->4M(128M) 11.716ms
//	[2026-11-21T23:55:48.796+0000][1ms][6645][6646][info][gc,heap     ] GC(2) PSYoungGen: 32736K(38400K)->3409K(38400K) Eden: 32736K(33280K)->0K(33280K) From: 0K(5120K)->3409K(5120K)
//	[0.479s][1795305362706ms][351687844902ns][vm][info][gc          ] GC(3) Minor Collection (Allocation Rate) 72M(56%)->62M(48%) 0.026s
//	[1,475s][info][gc,start          ] GC(0) Pause Full (System.gc())
//	[0.685s][info][safepoint] Safepoint "G1CollectForAllocation", Time since last: 646871851 ns, Reaching safepoint: 3270 ns, Cleanup: 120443 ns, At safepoint: 13215332 ns, Total: 13339045 ns
//
// Decorators come in any set (time, utctime, uptime, timemillis,
// uptimemillis, timenanos, uptimenanos, hostname, pid, tid, level, tags), so
// each bracket is classified by its shape, not its position; the message is
// then recognised by its content, so logs without the tags decorator (the
// GCViewer failure, #251/#241/#245) parse the same as logs with it.

import (
	"bytes"
	"time"
)

// decor is what the leading brackets of one line said.
type decor struct {
	uptime    float64 // seconds; <0 when not present
	wall      []byte  // raw time/utctime decorator
	millis    [2]int64
	nMillis   int
	nanos     [2]int64
	nNanos    int
	hasLevel  bool
	tags      []byte
	tagsName  int // index in names of the tentative tags entry
	names     [12]string
	nNames    int
	hasDecors bool
	firstID   int64 // the first bare number: the pid when two are logged
	nIDs      int
}

// splitDecorators parses the leading "[...]" decorators of a unified line.
// ok is false when the line does not start with a decorator.
func splitDecorators(line []byte, d *decor) (msg []byte, ok bool) {
	d.uptime, d.wall, d.nMillis, d.nNanos, d.hasLevel, d.tags, d.nNames, d.hasDecors = -1, nil, 0, 0, false, nil, 0, false
	d.firstID, d.nIDs = 0, 0
	i := 0
	for i < len(line) && line[i] == '[' {
		e := bytes.IndexByte(line[i:], ']')
		if e < 0 {
			break
		}
		tok := line[i+1 : i+e]
		if !d.classify(tok) {
			break
		}
		d.hasDecors = true
		i += e + 1
	}
	if !d.hasDecors {
		return nil, false
	}
	if i < len(line) && line[i] == ' ' {
		i++
	}
	return line[i:], true
}

func (d *decor) name(n string) {
	if d.nNames < len(d.names) {
		d.names[d.nNames] = n
		d.nNames++
	}
}

// classify recognises one decorator token; false means it is message text.
func (d *decor) classify(tok []byte) bool {
	t := bytes.TrimRight(tok, " ")
	if len(t) == 0 {
		return false
	}
	c := t[0]
	if isDigit(c) {
		if _, n, ok := parseISOTime(t); ok && n == len(t) {
			d.wall = t
			d.name("time")
			return true
		}
		v, n, ok := parseNum(t)
		if !ok {
			return false
		}
		switch rest := t[n:]; string(rest) {
		case "s":
			d.uptime = v
			d.name("uptime")
		case "ms":
			if d.nMillis < 2 {
				d.millis[d.nMillis] = int64(v)
				d.nMillis++
			}
			d.name("millis")
		case "ns":
			if d.nNanos < 2 {
				d.nanos[d.nNanos] = int64(v)
				d.nNanos++
			}
			d.name("nanos")
		case "":
			if d.nIDs == 0 {
				d.firstID = int64(v)
			}
			d.nIDs++
			d.name("pid/tid")
		default:
			return false
		}
		return true
	}
	switch string(t) {
	case "trace", "debug", "info", "warning", "error":
		d.hasLevel = true
		d.name("level")
		return true
	}
	// tags ("gc,heap") or hostname: no inner spaces, identifier characters.
	for _, ch := range t {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || isDigit(ch) || ch == ',' || ch == '_' || ch == '-' || ch == '.') {
			return false
		}
	}
	// Canonical order puts hostname before level and tags after it; without
	// a level, a second identifier means the first one was the hostname.
	if d.tags != nil && d.tagsName < d.nNames {
		d.names[d.tagsName] = "hostname"
	}
	d.tags = t
	d.tagsName = d.nNames
	d.name("tags")
	return true
}

// times returns the line's uptime (seconds, <0 if none) and wall clock.
func (d *decor) times() (uptime float64, wall time.Time) {
	uptime = d.uptime
	switch {
	case uptime >= 0:
	case d.nMillis == 2:
		uptime = float64(d.millis[1]) / 1e3 // timemillis precedes uptimemillis
	case d.nMillis == 1 && d.millis[0] < 1e11:
		uptime = float64(d.millis[0]) / 1e3
	case d.nNanos >= 1:
		// With both, uptimenanos is second; a lone one is taken as uptime
		// (timenanos is monotonic too, so differences stay right).
		uptime = float64(d.nanos[d.nNanos-1]) / 1e9
	}
	if d.wall != nil {
		wall, _, _ = parseISOTime(d.wall)
	} else if d.nMillis >= 1 && d.millis[0] >= 1e11 {
		wall = time.UnixMilli(d.millis[0])
	}
	return uptime, wall
}

// pendingGC collects detail lines of one GC id until its summary line.
type pendingGC struct {
	id                           int64
	young, old, meta             transition
	hasYoung, hasOld, hasMeta    bool
	edenB, edenA, survB, survA   int64
	oldRB, oldRA, humB           int64
	hasRegions, hasOldR, hasHumR bool
	flags                        Flags
	cause                        string
	start                        float64 // uptime of a ZGC cycle's start line; 0 if not seen
}

type unifiedParser struct {
	st   *Stats
	emit func(*Event)
	in   *interner
	d    decor

	pend    [16]pendingGC
	pendN   int
	held    Event
	hasHeld bool
	ev      Event

	// With both uptime and time decorators, wall = wallBase + uptime: the
	// time is parsed once per JVM start, not per line.
	wallBase time.Time
	lastUp   float64
}

func newUnifiedParser(st *Stats, emit func(*Event)) *unifiedParser {
	return &unifiedParser{st: st, emit: emit, in: newInterner()}
}

func (p *unifiedParser) getPending(id int64, create bool) *pendingGC {
	for i := 0; i < p.pendN; i++ {
		if p.pend[i].id == id {
			return &p.pend[i]
		}
	}
	if !create {
		return nil
	}
	if p.pendN == len(p.pend) { // drop the oldest: a GC that never reported its summary
		copy(p.pend[:], p.pend[1:])
		p.pendN--
	}
	p.pend[p.pendN] = pendingGC{id: id}
	p.pendN++
	return &p.pend[p.pendN-1]
}

func (p *unifiedParser) dropPending(id int64) {
	for i := 0; i < p.pendN; i++ {
		if p.pend[i].id == id {
			copy(p.pend[i:], p.pend[i+1:p.pendN])
			p.pendN--
			return
		}
	}
}

func (p *unifiedParser) flush() {
	if p.hasHeld {
		p.hasHeld = false
		p.st.Events++
		p.emit(&p.held)
	}
}

// hold queues ev so that a following gc,cpu line can still be attached.
func (p *unifiedParser) hold(ev *Event) {
	// Serial (JDK 9-11) logs a Full GC(n+1) nested in the young GC(n) that
	// failed, then the young with a duration including the full: count once.
	if p.hasHeld && ev.Kind == KindYoung && p.held.Kind == KindFull && ev.GCID >= 0 && p.held.GCID == ev.GCID+1 && p.held.PauseMs <= ev.PauseMs {
		ev.PauseMs -= p.held.PauseMs
		ev.Flags |= FlagPromotionFailed
	}
	p.flush()
	p.held = *ev
	p.hasHeld = true
}

func (p *unifiedParser) finish() { p.flush() }

func (p *unifiedParser) line(ln int, line []byte) {
	msg, ok := splitDecorators(line, &p.d)
	if !ok {
		if len(trimSpace(line)) == 0 {
			return
		}
		p.st.addIssue(ln, "not a unified-logging line (no [decorators])", line)
		return
	}
	if p.st.Decorators == nil {
		p.st.Decorators = append([]string{}, p.d.names[:p.d.nNames]...)
		if p.d.nIDs == 2 { // [pid][tid] in the JVM's fixed order
			p.st.PID = p.d.firstID
		}
	}
	up, wall := -1.0, time.Time{}
	if p.d.uptime >= 0 || p.d.nMillis > 0 || p.d.nNanos > 0 {
		up, _ = p.d.times()
		p.st.seeTime(up, true)
		if p.d.wall != nil {
			if p.wallBase.IsZero() || up < p.lastUp-1 { // first line, or a restarted JVM
				if _, w := p.d.times(); !w.IsZero() {
					p.wallBase = w.Add(-time.Duration(up * float64(time.Second)))
					p.st.seeStart(w, up)
				}
			}
			if !p.wallBase.IsZero() {
				wall = p.wallBase.Add(time.Duration(up * float64(time.Second)))
			}
			p.lastUp = up
		}
	} else if p.d.wall != nil {
		_, wall = p.d.times()
		if !wall.IsZero() {
			p.st.seeTime(float64(wall.UnixNano())/1e9, false)
		}
	}
	p.message(ln, msg, up, wall)
}

func (p *unifiedParser) startEvent(ln int, id int64, up float64, wall time.Time, durMs float64) *Event {
	e := &p.ev
	e.reset()
	e.Line, e.GCID, e.Collector = ln, id, p.st.Collector
	if up >= 0 {
		e.Uptime = up - durMs/1e3 // the line is written when the phase ends
		if e.Uptime < 0 {
			e.Uptime = 0
		}
	} else if p.d.wall != nil {
		_, w := p.d.times()
		if !w.IsZero() {
			e.Wall = w.Add(-time.Duration(durMs * 1e6))
		}
	}
	if !wall.IsZero() && e.Wall.IsZero() {
		e.Wall = wall.Add(-time.Duration(durMs * 1e6))
	}
	return e
}

func (p *unifiedParser) setCollector(c Collector) {
	if p.st.Collector == CollectorUnknown || (c == ZGCGenerational && p.st.Collector == ZGC) {
		p.st.Collector = c
	}
}

func (p *unifiedParser) message(ln int, msg []byte, up float64, wall time.Time) {
	st := p.st
	id := int64(Unknown)
	if hasPrefix(msg, "GC(") {
		if v, n, ok := parseInt(msg[3:]); ok && 3+n < len(msg) && msg[3+n] == ')' {
			id = v
			msg = msg[4+n:]
		}
	}
	msg = trimSpace(msg)
	if len(msg) >= 3 && msg[1] == ':' && msg[2] == ' ' && (msg[0] == 'y' || msg[0] == 'Y' || msg[0] == 'O') {
		p.setCollector(ZGCGenerational) // generational ZGC: "Y: Pause Mark Start"
		msg = msg[3:]
	}
	switch {
	case hasPrefix(msg, "Pause "):
		p.pause(ln, id, msg, up, wall)
	case hasPrefix(msg, "Concurrent "):
		p.concurrent(ln, id, msg, up, wall)
	case hasPrefix(msg, "Garbage Collection ("), hasPrefix(msg, "Minor Collection ("), hasPrefix(msg, "Major Collection ("):
		if msg[0] != 'G' {
			p.setCollector(ZGCGenerational)
		} else {
			p.setCollector(ZGC)
		}
		p.zcycle(ln, id, msg, up, wall)
	case hasPrefix(msg, "Young Generation "), hasPrefix(msg, "Old Generation "):
		// Generational ZGC: each generation's part of a Minor/Major
		// Collection, whose own line already carries the cycle.
	case hasPrefix(msg, "Allocation Stall ("), hasPrefix(msg, "Relocation Stall ("):
		ms, rest, ok := trailingDuration(msg)
		if !ok {
			p.issue(ln, "stall without duration", msg)
			return
		}
		e := p.startEvent(ln, id, up, wall, ms)
		e.Kind, e.StallMs = KindStall, ms
		e.Name = p.in.get(parenGroups(rest, func([]byte) {}))
		p.hold(e)
	case hasPrefix(msg, "Out Of Memory ("):
		e := p.startEvent(ln, id, up, wall, 0)
		e.Kind, e.Name, e.Flags = KindMarker, "Out Of Memory", FlagOutOfMemory
		p.hold(e)
	case hasPrefix(msg, "To-space exhausted"), hasPrefix(msg, "To-space Overflow"), hasPrefix(msg, "Evacuation Failure"):
		p.flagID(ln, id, FlagToSpaceExhausted, up, wall)
	case hasPrefix(msg, "Cancelling GC: "), hasPrefix(msg, "Cancelling concurrent GC: "):
		p.flagID(ln, id, FlagCancelled, up, wall)
	case hasPrefix(msg, "Trigger: "):
		if id >= 0 {
			pg := p.getPending(id, true)
			c := msg[len("Trigger: "):]
			if i := bytes.IndexAny(c, "(0123456789"); i > 0 {
				c = trimSpace(c[:i]) // "Free (10735K) is below ..." -> "Free"
			}
			pg.cause = p.in.get(c)
		}
	case hasPrefix(msg, "Safepoint \""):
		p.safepoint(ln, msg, up, wall)
	case hasPrefix(msg, "Total time for which application threads were stopped: "):
		stopped, ttsp, ok := parseStopped(msg)
		if !ok {
			p.issue(ln, "unrecognised safepoint line", msg)
			return
		}
		e := p.startEvent(ln, Unknown, up, wall, stopped)
		e.Kind, e.Name, e.PauseMs, e.TTSPMs = KindSafepoint, "safepoint", stopped, ttsp
		p.hold(e)
	case hasPrefix(msg, "Using "):
		p.using(msg[len("Using "):])
	case hasPrefix(msg, "Initializing The Z Garbage Collector"):
		p.setCollector(ZGC)
	case hasPrefix(msg, "Heap Region Size: "), hasPrefix(msg, "Heap region size: "):
		if kb, _, ok := parseSizeKB(msg[len("Heap Region Size: "):]); ok {
			st.RegionSizeKB = kb
		}
	case hasPrefix(msg, "Heap Max Capacity: "), hasPrefix(msg, "Max Capacity: "):
		if st.MaxHeapKB <= 0 {
			if kb, _, ok := parseSizeKB(msg[bytes.IndexByte(msg, ':')+2:]); ok {
				st.MaxHeapKB = kb
			}
		}
	case hasPrefix(msg, "Version: "):
		if st.JVMVersion == "" {
			st.JVMVersion = string(trimSpace(msg[len("Version: "):]))
		}
	case hasPrefix(msg, "CPUs: "):
		if v, _, ok := parseInt(msg[len("CPUs: "):]); ok {
			st.CPUs = int(v)
		}
	case id >= 0:
		if !p.detail(id, msg) {
			// Not a detail we read: an event shape ("... 12M->3M(256M) 1.2ms")
			// we do not know must be reported, not dropped.
			if _, rest, ok := trailingDuration(msg); ok {
				if _, _, _, ok := findTransition(rest); ok {
					p.issue(ln, "unrecognised GC event", msg)
				}
			}
		}
	}
}

func (p *unifiedParser) issue(ln int, reason string, msg []byte) {
	p.st.addIssue(ln, reason, msg)
}

func (p *unifiedParser) using(rest []byte) {
	switch {
	case hasPrefix(rest, "G1"):
		p.setCollector(G1)
	case hasPrefix(rest, "Parallel"):
		p.setCollector(Parallel)
	case hasPrefix(rest, "Serial"):
		p.setCollector(Serial)
	case hasPrefix(rest, "Concurrent Mark Sweep"):
		p.setCollector(CMS)
	case hasPrefix(rest, "Shenandoah"):
		p.setCollector(Shenandoah)
	case hasPrefix(rest, "The Z Garbage Collector"):
		p.setCollector(ZGC)
	}
}

// flagID marks the GC with this id: the held event if it is that GC, else
// the GC's pending details, else a marker event so the flag is not lost.
func (p *unifiedParser) flagID(ln int, id int64, f Flags, up float64, wall time.Time) {
	switch {
	case p.hasHeld && id >= 0 && p.held.GCID == id && p.held.Kind.IsPause():
		p.held.Flags |= f
	case id >= 0 && f != FlagCancelled:
		p.getPending(id, true).flags |= f
	default:
		e := p.startEvent(ln, id, up, wall, 0)
		e.Kind, e.Name, e.Flags = KindMarker, "marker", f
		p.hold(e)
	}
}

// qualifier reports whether a parenthesised word is a sub-type of the pause
// rather than its cause.
func qualifier(g []byte) bool {
	if len(g) == 0 {
		return true
	}
	if g[0] >= 'a' && g[0] <= 'z' { // Shenandoah: "(unload classes)", "(process weakrefs)"
		return true
	}
	switch string(g) {
	case "Normal", "Concurrent Start", "Prepare Mixed", "Mixed", "Major", "Minor", "Outside of Cycle",
		"Mark", "Evacuation", "Update Refs", "Update References", "Degenerated", "Young", "Old":
		return true
	}
	return false
}

func (p *unifiedParser) pause(ln int, id int64, msg []byte, up float64, wall time.Time) {
	ms, rest, ok := trailingDuration(msg)
	if !ok {
		if bytes.Contains(msg, arrow) {
			p.issue(ln, "unrecognised GC event (pause without duration)", msg)
		}
		return // the gc,start line of a pause: its summary comes later
	}
	e := p.startEvent(ln, id, up, wall, ms)
	e.PauseMs = ms
	if c := fillPause(e, rest, p.in, p.st.Collector); c != CollectorUnknown {
		p.setCollector(c)
	}
	e.Collector = p.st.Collector
	if id >= 0 {
		if pg := p.getPending(id, false); pg != nil {
			p.applyPending(e, pg)
			if e.Kind != KindPausePhase {
				p.dropPending(id)
			}
		}
	}
	p.hold(e)
}

// fillPause reads "Pause Young (Normal) (G1 Evacuation Pause) 15M->4M(128M)"
// (the duration already removed) into e: kind, name, cause, flags and heap.
// It returns the collector the pause names imply, if any.
func fillPause(e *Event, rest []byte, in *interner, cur Collector) Collector {
	implied := CollectorUnknown
	if tr, s, _, ok := findTransition(rest); ok {
		e.HeapBeforeKB, e.HeapAfterKB, e.HeapTotalKB = tr.before, tr.after, tr.total
		rest = trimSpace(rest[:s])
	}
	if len(rest) < len("Pause ") {
		rest = []byte("Pause ") // "Pause 1ms": a pause with no name
	}
	var mixed bool
	head := parenGroups(rest[len("Pause "):], func(g []byte) {
		switch {
		case hasPrefix(g, "Evacuation Failure"):
			e.Flags |= FlagToSpaceExhausted
		case string(g) == "Mixed":
			mixed = true
		case qualifier(g):
		case e.Cause == "":
			e.Cause = in.get(g)
		}
	})
	e.Name = in.get(rest[:len("Pause ")+len(head)])
	switch string(head) {
	case "Young":
		e.Kind = KindYoung
		if mixed {
			e.Kind = KindMixed
		}
	case "Mixed":
		e.Kind = KindMixed
	case "Full":
		e.Kind = KindFull
	case "Remark", "Final Remark":
		e.Kind = KindRemark
	case "Cleanup":
		e.Kind = KindCleanup
	case "Initial Mark":
		e.Kind = KindInitialMark
		if cur == G1 {
			e.Kind = KindYoung // JDK 9/10 G1 "Pause Initial Mark" is a young GC
		}
	case "Degenerated GC":
		e.Kind = KindDegenerated
		implied = Shenandoah
	default:
		e.Kind = KindPausePhase
		switch {
		case hasPrefix(head, "Mark Start"), hasPrefix(head, "Mark End"), hasPrefix(head, "Relocate Start"):
			implied = ZGC
		case hasPrefix(head, "Init "), hasPrefix(head, "Final "):
			implied = Shenandoah
		}
	}
	if implied == CollectorUnknown && cur == CollectorUnknown && hasPrefix([]byte(e.Cause), "G1 ") {
		implied = G1
	}
	e.Flags |= causeFlags(e.Cause)
	return implied
}

func (p *unifiedParser) applyPending(e *Event, pg *pendingGC) {
	e.Flags |= pg.flags
	if e.Cause == "" && pg.cause != "" {
		e.Cause = pg.cause
	}
	rs := p.st.RegionSizeKB
	if pg.hasYoung {
		e.YoungBeforeKB, e.YoungAfterKB = pg.young.before, pg.young.after
	} else if pg.hasRegions && rs > 0 {
		e.YoungBeforeKB, e.YoungAfterKB = (pg.edenB+pg.survB)*rs, (pg.edenA+pg.survA)*rs
	}
	if pg.hasOld {
		e.OldBeforeKB, e.OldAfterKB = pg.old.before, pg.old.after
	} else if pg.hasOldR && rs > 0 {
		e.OldBeforeKB, e.OldAfterKB = pg.oldRB*rs, pg.oldRA*rs
	}
	if pg.hasMeta {
		e.MetaBeforeKB, e.MetaAfterKB = pg.meta.before, pg.meta.after
	}
	if pg.hasHumR {
		e.HumongousRegions = pg.humB
	}
}

// regions parses "152->0(152)" or "2->2".
func regions(b []byte) (before, after int64, ok bool) {
	b = trimSpace(b)
	v, n, ok := parseInt(b)
	if !ok || n+2 > len(b) || b[n] != '-' || b[n+1] != '>' {
		return 0, 0, false
	}
	a, _, ok := parseInt(b[n+2:])
	return v, a, ok
}

// detail handles gc,heap / gc,metaspace / gc,cpu lines of a GC id; false
// means the line is none of those.
func (p *unifiedParser) detail(id int64, msg []byte) bool {
	colon := bytes.IndexByte(msg, ':')
	if colon <= 0 {
		if hasPrefix(msg, "User=") {
			p.cpu(id, msg)
			return true
		}
		return false
	}
	key, val := msg[:colon], msg[colon+1:]
	switch string(key) {
	case "Eden regions", "Survivor regions", "Old regions", "Humongous regions":
		b, a, ok := regions(val)
		if !ok {
			return true
		}
		pg := p.getPending(id, true)
		switch key[0] {
		case 'E':
			pg.edenB, pg.edenA, pg.hasRegions = b, a, true
		case 'S':
			pg.survB, pg.survA = b, a
		case 'O':
			pg.oldRB, pg.oldRA, pg.hasOldR = b, a, true
		case 'H':
			pg.humB, pg.hasHumR = b, true
		}
	case "PSYoungGen", "DefNew", "ParNew", "ParOldGen", "PSOldGen", "Tenured", "CMS", "Metaspace":
		tr, _, _, ok := findTransition(val)
		if !ok {
			return true
		}
		pg := p.getPending(id, true)
		switch string(key) {
		case "PSYoungGen", "DefNew", "ParNew":
			pg.young, pg.hasYoung = tr, true
			switch key[0] {
			case 'P':
				if key[1] == 'S' {
					p.setCollector(Parallel)
				} else {
					p.setCollector(CMS)
				}
			case 'D':
				p.setCollector(Serial)
			}
		case "Metaspace":
			pg.meta, pg.hasMeta = tr, true
		default:
			pg.old, pg.hasOld = tr, true
		}
	default:
		return false
	}
	return true
}

// cpu attaches "User=0.01s Sys=0.00s Real=0.01s" to the GC it belongs to.
func (p *unifiedParser) cpu(id int64, msg []byte) {
	if !p.hasHeld || p.held.GCID != id {
		return
	}
	get := func(key string) float64 {
		i := bytes.Index(msg, []byte(key))
		if i < 0 {
			return Unknown
		}
		v, _, ok := parseNum(msg[i+len(key):])
		if !ok {
			return Unknown
		}
		return v
	}
	p.held.UserS, p.held.SysS, p.held.RealS = get("User="), get("Sys="), get("Real=")
}

func (p *unifiedParser) concurrent(ln int, id int64, msg []byte, up float64, wall time.Time) {
	ms, rest, ok := trailingDuration(msg)
	if !ok {
		return // phase start
	}
	e := p.startEvent(ln, id, up, wall, ms)
	e.ConcurrentMs = ms
	fillConcurrent(e, rest, p.in)
	if id >= 0 && p.st.Collector == Shenandoah && e.HeapAfterKB >= 0 {
		if pg := p.getPending(id, false); pg != nil {
			e.Cause = pg.cause
			p.dropPending(id)
		}
	}
	p.hold(e)
}

// fillConcurrent reads "Concurrent Mark Cycle" or Shenandoah's
// "Concurrent cleanup 60M->40M(128M)" (duration removed) into e.
func fillConcurrent(e *Event, rest []byte, in *interner) {
	e.Kind = KindConcurrent
	if tr, s, _, ok := findTransition(rest); ok {
		e.HeapBeforeKB, e.HeapAfterKB, e.HeapTotalKB = tr.before, tr.after, tr.total
		rest = trimSpace(rest[:s])
	}
	head := parenGroups(rest, func([]byte) {})
	if bytes.HasSuffix(head, []byte(" Cycle")) {
		e.Kind = KindCycle
	}
	e.Name = in.get(head)
}

// zcycle handles ZGC "Garbage Collection (Warmup) 64M(50%)->72M(56%)" and
// generational "Minor Collection (Allocation Rate) 72M(56%)->62M(48%) 0.026s".
func (p *unifiedParser) zcycle(ln int, id int64, msg []byte, up float64, wall time.Time) {
	ms, rest, hasDur := trailingDuration(msg)
	if !hasDur {
		rest = msg
		ms = 0
	}
	tr, s, _, ok := findTransition(rest)
	if !ok {
		if id >= 0 && up >= 0 { // cycle start line: remember when, for non-generational ZGC's duration
			p.getPending(id, true).start = up
		}
		return
	}
	if !hasDur && id >= 0 && up >= 0 {
		if pg := p.getPending(id, false); pg != nil && pg.start > 0 && up >= pg.start {
			ms = (up - pg.start) * 1e3
		}
	}
	e := p.startEvent(ln, id, up, wall, ms)
	e.Kind, e.ConcurrentMs = KindCycle, ms
	e.HeapBeforeKB, e.HeapAfterKB = tr.before, tr.after
	rest = trimSpace(rest[:s])
	head := parenGroups(rest, func(g []byte) {
		if e.Cause == "" {
			e.Cause = p.in.get(g)
		}
	})
	e.Name = p.in.get(head)
	e.Flags |= causeFlags(e.Cause)
	e.Collector = p.st.Collector
	if id >= 0 {
		if pg := p.getPending(id, false); pg != nil {
			e.Flags |= pg.flags
			p.dropPending(id)
		}
	}
	p.hold(e)
}

// safepoint parses the JDK 17+ line
// `Safepoint "G1CollectForAllocation", Time since last: 646871851 ns, Reaching safepoint: 3270 ns, ... Total: 13339045 ns`.
func (p *unifiedParser) safepoint(ln int, msg []byte, up float64, wall time.Time) {
	q := bytes.IndexByte(msg[len("Safepoint \""):], '"')
	if q < 0 {
		p.issue(ln, "unrecognised safepoint line", msg)
		return
	}
	name := msg[len("Safepoint \"") : len("Safepoint \"")+q]
	ns := func(key string) (float64, bool) {
		i := bytes.Index(msg, []byte(key))
		if i < 0 {
			return 0, false
		}
		v, _, ok := parseNum(msg[i+len(key):])
		return v / 1e6, ok
	}
	total, ok := ns("Total: ")
	if !ok {
		p.issue(ln, "safepoint line without Total", msg)
		return
	}
	e := p.startEvent(ln, Unknown, up, wall, total)
	e.Kind, e.Name, e.PauseMs = KindSafepoint, p.in.get(name), total
	if r, ok := ns("Reaching safepoint: "); ok {
		e.TTSPMs = r
	}
	p.hold(e)
}

// parseStopped parses "Total time for which application threads were
// stopped: 0.0003502 seconds, Stopping threads took: 0.0000155 seconds" (JDK 8-16).
func parseStopped(b []byte) (stoppedMs, ttspMs float64, ok bool) {
	const key = "threads were stopped: "
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0, 0, false
	}
	v, _, ok := parseNum(b[i+len(key):])
	if !ok {
		return 0, 0, false
	}
	ttspMs = Unknown
	const k2 = "Stopping threads took: "
	if j := bytes.Index(b, []byte(k2)); j >= 0 {
		if t, _, ok := parseNum(b[j+len(k2):]); ok {
			ttspMs = t * 1e3
		}
	}
	return v * 1e3, ttspMs, true
}
