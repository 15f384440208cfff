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
// pause ([Eden: ...], [Times: ...]) are attached to it. This file joins
// lines and reads their prefixes; jdk8_groups.go splits a joined text into
// its bracket groups, jdk8_event.go reads an event group.

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
