package gclog

// JDK 8 and older (-Xloggc -XX:+PrintGCDetails [-XX:+PrintGCDateStamps]
// [-XX:+PrintGCTimeStamps] [-XX:+PrintGCID] [-XX:+PrintGCApplicationStoppedTime]). Samples:
//
//	2022-07-26T21:00:45.231+0800: 7.599: #2: [Full GC (System.gc()) [PSYoungGen: 98289K->0K(8257536K)] [ParOldGen: 32K->98112K(1048576K)] 98321K->98112K(9306112K), [Metaspace: 16471K->16471K(1064960K)], 0.6492397 secs] [Times: user=1.52 sys=0.17, real=0.65 secs]
//	2.167: [GC (Allocation Failure)2.167: [ParNew: 139776K->17471K(157248K), 0.0143520 secs] 139776K->19817K(506816K), 0.0144450 secs] [Times: user=0.05 sys=0.01, real=0.01 secs]
//	0.290: [GC pause (G1 Evacuation Pause) (young) (initial-mark), 0.0115587 secs]
//	   [Eden: 15.0M(15.0M)->0.0B(10.0M) Survivors: 2048.0K->3072.0K Heap: 71.1M(96.0M)->71.2M(103.0M)]
//	2014-04-09T15:26:52.201+0200: 0.385: Total time for which application threads were stopped: 0.0003502 seconds, Stopping threads took: 0.0000155 seconds
//
// One event may span lines (tenuring distribution, G1 ergonomics, CMS
// concurrent phases printed in the middle of a collection), so lines are
// joined until the event's brackets balance; heap-at-GC and free-list
// statistics blocks in between are skipped. G1 detail lines that follow a
// pause ([Eden: ...], [Times: ...]) are attached to it.

import (
	"bytes"
	"time"
)

type jdk8Parser struct {
	st   *Stats
	emit func(*Event)
	in   *interner

	acc      []byte // joined lines of an event whose brackets are still open
	accOn    bool
	accDepth int
	accStart int
	accLines int

	held    Event
	hasHeld bool
	ev      Event
	// trailer is set after the exit-time "Heap" / "GC STATISTICS:" dump,
	// whose free-form lines are not events.
	trailer bool
}

func newJDK8Parser(st *Stats, emit func(*Event)) *jdk8Parser {
	return &jdk8Parser{st: st, emit: emit, in: newInterner()}
}

// An event joins at most this much: tenuring tables, G1 ergonomics and
// interleaved CMS phases stay well below; a truncated event (a crash, a
// rotation mid-line) must not swallow the rest of the file.
const (
	maxEventLines = 100
	maxEventBytes = 256 << 10
)

func (p *jdk8Parser) flush() {
	if p.hasHeld {
		p.hasHeld = false
		p.st.Events++
		p.emit(&p.held)
	}
}

func (p *jdk8Parser) hold(e *Event) {
	p.flush()
	p.held = *e
	p.hasHeld = true
}

func (p *jdk8Parser) finish() {
	if p.accOn {
		p.st.addIssue(p.accStart, "GC event not terminated before end of file", p.acc)
		p.accOn = false
	}
	p.flush()
}

// balance counts '[' minus ']'.
func balance(b []byte) int {
	d := 0
	for _, c := range b {
		switch c {
		case '[':
			d++
		case ']':
			d--
		}
	}
	return d
}

// cutHeapAtGC drops a "{Heap before GC ..." block start glued to an event line.
func cutHeapAtGC(b []byte) []byte {
	if i := bytes.Index(b, []byte("{Heap")); i >= 0 {
		return b[:i]
	}
	return b
}

// noise reports lines that carry no event: heap-at-GC blocks, tenuring
// distribution, CMS free-list statistics, headers and rotation notices.
func noise(b []byte) bool {
	t := trimSpace(b)
	if len(t) == 0 {
		return true
	}
	// Heap-at-GC lines are indented and carry address ranges "[0x..., 0x...)".
	if (b[0] == ' ' || b[0] == '\t') && bytes.Contains(t, []byte("[0x")) {
		return true
	}
	switch t[0] {
	case '{', '}', '-':
		return true // "{Heap before GC", "}", "- age 1: ...", "------"
	}
	if isDigit(t[0]) && t[len(t)-1] == ']' {
		return false // the common case: "12.345: [GC ...]"
	}
	if bytes.HasSuffix(t, []byte(" us")) || bytes.Contains(t, []byte(" us, ")) {
		return true // Shenandoah statistics: "Pause Init Mark (G)   8027 us"
	}
	if bytes.IndexByte(t, '%') >= 0 && bytes.Contains(t, []byte(" ms (")) && bytes.Contains(t, []byte("%): ")) {
		return true // Shenandoah pacing: "0 of  4436 ms (  0.0%): <total>"
	}
	for _, pre := range noiseByFirst[t[0]] {
		if hasPrefix(t, pre) {
			return true
		}
	}
	return false
}

// noiseByFirst indexes noisePrefixes by first byte: noise runs on every line.
var noiseByFirst = func() (m [256][]string) {
	for _, p := range noisePrefixes {
		m[p[0]] = append(m[p[0]], p)
	}
	return m
}()

var noisePrefixes = []string{
	"Heap", "Desired survivor", "Metaspace ", "class space", "Statistics for", "Total Free Space",
	"Max   Chunk Size", "Number of Blocks", "Av.  Block  Size", "Tree      Height", "Before GC:", "After GC:",
	"CMS: Large", "CMS: large", "par new generation", "eden space", "from space", "to   space",
	"concurrent mark-sweep", "concurrent-mark-sweep", "PSYoungGen ", "ParOldGen ", "PSOldGen ", "PSPermGen ",
	"object space", "def new generation", "tenured generation", "the space", "garbage-first heap",
	"region size", "compacting perm gen", "ro space", "rw space", "No shared spaces", "Memory:", "OpenJDK",
	"Java HotSpot", "Java(TM)", "Memory Serialize", "Unloading class", "[Unloading class", "Loaded",
	"Avg:", "Sum:", "Min:", "Max:", "Diff:",
	// CMS -XX:+PrintCMSInitiationStatistics
	"time_until_cms", "free=", "contiguous_available=", "promotion_rate=", "cms_allocation_rate=", "occupancy=", "initiating",
	// Shenandoah on JDK 8: init lines and the end-of-run statistics
	"Regions:", "Humongous object threshold", "Max TLAB size", "GC threads:", "Heuristics ", "Shenandoah ", "Initialize Shenandoah",
	"Pacer for", "Reference processing:", "Soft Max Heap Size", "Trigger:", "Free:", "All times are", "all workers.", "under stop-the-world",
	"tune GC heuristics", "to avoid Degenerated", "Allocation pacing accrued", "Cancelling GC", "Concurrent RS processed",
	"Application time:", "/proc/meminfo", "CMSCollector", "Security", "uname:", "rlimit:", "load average:", "CPU:", "OS:",
	// -XX:+PrintAdaptiveSizePolicy lines between a collection's first and last line
	"AdaptiveSizeStart:", "AdaptiveSizeStop:", "avg_survived", "avg_promoted", "avg_young_live", "old_gen_capacity", "Live_space:",
	"Base_footprint:", "Old eden_size:", "Minor_pause:", "minor pause:", "Do scavenge:",
	// -XX:PrintFLSStatistics=2 census lines
	"size[", "demand:",
}

// cutGlued drops what other flags print inside a collection's line:
// -XX:+PrintAdaptiveSizePolicy (JDK 1.4-8) its decisions from
// "AdaptiveSizePolicy::" to the end of the line ("0.153: [GCAdaptiveSizePolicy::old
// generation size: collection: 1 (4194304) -> (8781824)"), and
// -XX:PrintFLSStatistics=2 its census after "(concurrent mode
// failure)size[3] : demand: 1693, ...". The event's own text before stays.
func cutGlued(b []byte) []byte {
	if i := bytes.Index(b, []byte("AdaptiveSizePolicy::")); i >= 0 {
		if i >= 2 && string(b[i-2:i]) == "PS" {
			i -= 2
		}
		return b[:i]
	}
	if i := bytes.Index(b, []byte(")size[")); i >= 0 {
		return b[:i+1]
	}
	if i := bytes.Index(b, []byte("CMS: Large block")); i > 0 {
		return b[:i] // "[CMSCMS: Large block 0x...": the statistics glued after "[CMS"
	}
	if bytes.Contains(b, []byte("[AS")) || bytes.Contains(b, []byte("[1 AS")) {
		// JDK 6 CMS with -XX:+UseAdaptiveSizePolicy names its generations
		// ASParNew and ASCMS: the same collections as ParNew and CMS.
		b = bytes.ReplaceAll(b, []byte("[ASParNew"), []byte("[ParNew"))
		b = bytes.ReplaceAll(b, []byte("[ASCMS"), []byte("[CMS"))
		b = bytes.ReplaceAll(b, []byte("[1 ASCMS"), []byte("[1 CMS"))
	}
	return b
}

func (p *jdk8Parser) line(ln int, b []byte) {
	st := p.st
	b = cutGlued(b)
	if p.accOn {
		if noise(b) {
			return
		}
		b = cutHeapAtGC(b)
		if len(p.acc)+len(b) < maxEventBytes {
			p.acc = append(p.acc, ' ')
			p.acc = append(p.acc, b...)
		}
		p.accDepth += balance(b)
		p.accLines++
		switch {
		case p.accDepth <= 0:
			p.accOn = false
			p.process(p.accStart, p.acc)
		case p.accLines > maxEventLines || len(p.acc) >= maxEventBytes:
			p.accOn = false
			st.addIssue(p.accStart, "GC event not terminated", p.acc)
		}
		return
	}
	t := trimSpace(b)
	if string(t) == "Heap" || string(t) == "GC STATISTICS:" {
		p.trailer = true
	}
	if len(t) == 0 || noise(b) {
		return
	}
	if hasPrefix(t, ", [") && balance(t) == 0 {
		p.process(ln, t[2:]) // ", [Metaspace: ...]" printed after a Shenandoah full/degenerated GC
		return
	}
	if t[0] == ':' && len(b) > 1 {
		// The tail of a timestamp another thread interleaved: ":    [GC concurrent-mark-start]".
		b = trimSpace(t[1:])
		t = b
		if len(t) == 0 {
			return
		}
	}
	if b[0] == ' ' || b[0] == '\t' {
		// Indented lines are details of the event before (G1 phase tables,
		// [Eden: ...], [Times: ...], Shenandoah statistics): one line each,
		// never joined, because JDK 6/7 G1 tables leave brackets open.
		if t[0] == '[' {
			if end := closeBracket(t, 0); end > 0 {
				g := t[1:end]
				switch {
				case hasPrefix(g, "Times: "), hasPrefix(g, "Eden: "):
					p.process(ln, t)
				}
			}
			return
		}
		if !isDigit(t[0]) {
			return
		}
	}
	if hasPrefix(t, "CommandLine flags:") {
		p.flags(t)
		return
	}
	if bytes.Contains(t, []byte("GC log file ")) { // rotation: "... GC log file created/has reached the maximum size"
		return
	}
	if _, _, _, n := p.prefix(b); n > 0 && n < len(b) && noise(b[n:]) {
		return // "2.385: {Heap before GC invocations=166 (full 32):"
	}
	if bytes.IndexByte(t, '[') >= 0 {
		b = cutHeapAtGC(b)
		if d := balance(b); d > 0 {
			p.accOn, p.accDepth, p.accStart, p.accLines = true, d, ln, 1
			p.acc = append(p.acc[:0], b...)
			return
		}
		p.process(ln, b)
		return
	}
	// Prefixed non-bracket lines: safepoint and application-time lines.
	wall, up, _, n := p.prefix(b)
	rest := trimSpace(b[n:])
	if n > 0 && noise(rest) {
		return
	}
	switch {
	case hasPrefix(rest, "Total time for which application threads were stopped: "):
		stopped, ttsp, ok := parseStopped(rest)
		if !ok {
			st.addIssue(ln, "unrecognised safepoint line", b)
			return
		}
		e := p.newEvent(ln, wall, up, Unknown)
		// The line is printed when the safepoint ends.
		if e.Uptime >= 0 {
			e.Uptime = max(0, e.Uptime-stopped/1e3)
		}
		e.Kind, e.Name, e.PauseMs, e.TTSPMs = KindSafepoint, "safepoint", stopped, ttsp
		p.hold(e)
	case hasPrefix(rest, "Application time:"), hasPrefix(rest, "Concurrent RS processed"):
	default:
		if !p.trailer {
			st.addIssue(ln, "unrecognised line", b)
		}
	}
}

// flags reads the collector from "CommandLine flags: ... -XX:+UseG1GC ...".
func (p *jdk8Parser) flags(t []byte) {
	switch {
	case bytes.Contains(t, []byte("+UseG1GC")):
		p.setCollector(G1)
	case bytes.Contains(t, []byte("+UseConcMarkSweepGC")):
		p.setCollector(CMS)
	case bytes.Contains(t, []byte("+UseParallelGC")), bytes.Contains(t, []byte("+UseParallelOldGC")):
		p.setCollector(Parallel)
	case bytes.Contains(t, []byte("+UseSerialGC")):
		p.setCollector(Serial)
	}
	if i := bytes.Index(t, []byte("-XX:MaxHeapSize=")); i >= 0 {
		if v, _, ok := parseInt(t[i+len("-XX:MaxHeapSize="):]); ok {
			p.st.MaxHeapKB = v / 1024
		}
	}
}

func (p *jdk8Parser) setCollector(c Collector) {
	if p.st.Collector == CollectorUnknown {
		p.st.Collector = c
	}
}

// prefix parses "2015-07-13T20:53:00.436+0200: 0.260: #12: " in any subset.
func (p *jdk8Parser) prefix(b []byte) (wall time.Time, up float64, id int64, n int) {
	up, id = -1, Unknown
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i >= len(b) {
			return wall, up, id, i
		}
		if isDigit(b[i]) {
			if t, k, ok := parseISOTime(b[i:]); ok && i+k < len(b) && b[i+k] == ':' {
				wall = t
				i += k + 1
				continue
			}
			if v, k, ok := parseNum(b[i:]); ok && i+k < len(b) && b[i+k] == ':' {
				up = v
				i += k + 1
				continue
			}
			return wall, up, id, i
		}
		if b[i] == '#' {
			if v, k, ok := parseInt(b[i+1:]); ok && i+1+k < len(b) && b[i+1+k] == ':' {
				id = v
				i += k + 2
				continue
			}
		}
		return wall, up, id, i
	}
}

func (p *jdk8Parser) newEvent(ln int, wall time.Time, up float64, id int64) *Event {
	e := &p.ev
	e.reset()
	e.Line, e.Wall, e.Uptime, e.GCID, e.Collector = ln, wall, up, id, p.st.Collector
	p.st.seeStart(wall, up)
	if up >= 0 {
		p.st.seeTime(up, true)
	} else if !wall.IsZero() {
		p.st.seeTime(float64(wall.UnixNano())/1e9, false)
	}
	return e
}

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

// event parses one GC event group (the text inside its outer brackets).
func (p *jdk8Parser) event(ln int, g, name []byte, wall time.Time, up float64, id int64, whole []byte) {
	st := p.st
	e := p.newEvent(ln, wall, up, id)
	rest := g[len(name):]
	promoDash := bytes.HasSuffix(name, []byte("--"))
	if promoDash {
		name = name[:len(name)-2]
	}
	e.Name = p.in.get(name)
	// Qualifiers and cause: " (G1 Evacuation Pause) (young) (initial-mark)".
	var young, mixed bool
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
		q := rest[j+1 : k]
		switch string(q) {
		case "young":
			young = true
		case "mixed", "partial":
			mixed = true
		case "initial-mark":
		case "to-space exhausted", "to-space overflow":
			e.Flags |= FlagToSpaceExhausted
		default:
			if e.Cause == "" {
				e.Cause = p.in.get(q)
			}
		}
		rest = rest[k+1:]
		if hasPrefix(rest, "--") { // G1 "(young)--": evacuation failure
			promoDash = true
			rest = rest[2:]
		}
	}
	if e.Cause == "System" {
		e.Cause = "System.gc()"
	}
	e.Flags |= causeFlags(e.Cause)

	// Walk the body: transitions and "secs" at depth 0 belong to the event;
	// at depth 1 to a generation named by its group.
	depth := 0
	var sub []byte
	subDone := false
	hasOld, hasYoung := false, false
	var initialMark, remark bool
	pause := -1.0
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
					initialMark = true
				case hasPrefix(sub, "1 CMS-remark"), hasPrefix(sub, "YG occupancy"), hasPrefix(sub, "Rescan"):
					remark = true
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
					p.generation(e, sub, tr, &hasYoung, &hasOld)
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
			pause = v * 1e3
		}
		i = j - 1
	}

	// Failure markers; one cheap search first since most events have none.
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
	if st.Collector != Parallel && st.Collector != CMS && st.Collector != Serial && bytes.Contains(whole, []byte("to-space")) {
		e.Flags |= FlagToSpaceExhausted
	}

	nm := string(name)
	switch {
	case hasPrefix(name, "Full GC"):
		e.Kind = KindFull
	case nm == "GC pause":
		p.setCollector(G1)
		e.Kind = KindYoung
		if mixed && !young {
			e.Kind = KindMixed
		}
		if promoDash {
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
		if pause < 0 {
			return
		}
		e.Kind, e.ConcurrentMs = KindConcurrent, pause
		// The line is stamped when the phase ends; keep starts as starts.
		if e.Uptime >= 0 {
			e.Uptime = max(0, e.Uptime-pause/1e3)
		}
		if !e.Wall.IsZero() {
			e.Wall = e.Wall.Add(-time.Duration(pause * 1e6))
		}
		p.hold(e)
		return
	case initialMark:
		e.Kind = KindInitialMark
		p.setCollector(CMS)
	case remark:
		e.Kind = KindRemark
		p.setCollector(CMS)
	case hasOld && hasYoung:
		e.Kind = KindFull // GCViewer: more than one generation collected
	default:
		e.Kind = KindYoung
		if promoDash {
			e.Flags |= FlagPromotionFailed
		}
	}
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
