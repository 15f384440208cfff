// Package gclog parses HotSpot GC logs — the JDK 8 format (-XX:+PrintGCDetails
// with or without date/time stamps, GC ids and safepoint lines) and the JDK 9+
// unified format (-Xlog:gc*) with any decorator set — for every collector
// (Serial, Parallel, CMS, G1, Shenandoah, ZGC incl. generational), OpenJ9 /
// IBM J9 verbose GC XML (openj9.go) and JRockit memory logs (jrockit.go), and
// turns them into KPIs and findings.
//
// Parsing streams: Parse calls a function per event and keeps no history, so
// memory stays flat in file size; Summariser keeps only the pause durations
// (float32) for exact percentiles.
//
// What `tuneloop analyze gc.log [gc.log.0 ...]` needs:
//
//	r, err := gclog.Analyze(gclog.FileSources(paths...), gclog.DefaultThresholds())
//	// err names the file (and line) when an input is not a GC log
//	gclog.WriteText(os.Stdout, r.Summary, r.Findings, lang)
//
// Report (Summary + []finding.Finding) has JSON tags for the run folder.
// Finding IDs: gc.throughput-low, gc.long-pause, gc.full-gc,
// gc.concurrent-mode-failure, gc.promotion-failed, gc.evacuation-failure,
// gc.out-of-memory, gc.explicit-system-gc, gc.metaspace-threshold,
// gc.gclocker, gc.humongous, gc.allocation-stall, gc.leak-suspected,
// gc.safepoint-ttsp, gc.sys-gt-user, gc.unparsed-lines, gc.no-events and
// gc.not-the-bottleneck ("GC is not the problem").
package gclog

import (
	"fmt"
	"strings"
	"time"
)

// Format is the log format of one file.
type Format int

const (
	FormatUnknown Format = iota
	FormatJDK8           // -Xloggc with -XX:+PrintGC / -XX:+PrintGCDetails (JDK 1.4-8)
	FormatUnified        // -Xlog:gc... (JDK 9+)
	FormatOpenJ9         // OpenJ9 / IBM J9 -verbose:gc XML (-Xverbosegclog), J9 2.x (Java 5-6) to Semeru
	FormatJRockit        // Oracle JRockit -Xverbose:memory,gcpause ([memory ] lines)
)

func (f Format) String() string {
	switch f {
	case FormatJDK8:
		return "jdk8"
	case FormatUnified:
		return "unified"
	case FormatOpenJ9:
		return "openj9-xml"
	case FormatJRockit:
		return "jrockit"
	}
	return "unknown"
}

// Collector is the garbage collector that wrote the log.
type Collector int

const (
	CollectorUnknown Collector = iota
	Serial
	Parallel
	CMS
	G1
	Shenandoah
	ZGC
	ZGCGenerational
	// OpenJ9 / IBM J9 policies (-Xgcpolicy:...).
	OpenJ9Gencon
	OpenJ9Balanced
	OpenJ9OptThruput
	OpenJ9OptAvgPause
	OpenJ9Metronome
	// JRockit by strategy: concurrent (gencon, singlecon) or parallel (genpar, singlepar).
	JRockitConcurrent
	JRockitParallel
)

var collectorNames = [...]string{"unknown", "Serial", "Parallel", "CMS", "G1", "Shenandoah", "ZGC", "ZGC (generational)",
	"OpenJ9 gencon", "OpenJ9 balanced", "OpenJ9 optthruput", "OpenJ9 optavgpause", "OpenJ9 metronome",
	"JRockit (concurrent)", "JRockit (parallel)"}

func (c Collector) String() string {
	if c >= 0 && int(c) < len(collectorNames) {
		return collectorNames[c]
	}
	return fmt.Sprintf("collector(%d)", int(c))
}

// Concurrent reports whether the collector does its old-generation work
// concurrently, so that a Full GC means it fell behind (JMC FullGc rule).
func (c Collector) Concurrent() bool {
	switch c {
	case CMS, G1, Shenandoah, ZGC, ZGCGenerational, OpenJ9Gencon, OpenJ9Balanced, OpenJ9OptAvgPause, OpenJ9Metronome, JRockitConcurrent:
		return true
	}
	return false
}

// OpenJ9 reports an OpenJ9 / IBM J9 policy: its options are -Xgcpolicy/-Xmn/-Xgc,
// not HotSpot's -XX flags.
func (c Collector) OpenJ9() bool { return c >= OpenJ9Gencon && c <= OpenJ9Metronome }

// Kind is what one event is.
type Kind uint8

const (
	KindUnknown     Kind = iota
	KindYoung            // young (minor) stop-the-world collection
	KindMixed            // G1 mixed collection
	KindFull             // stop-the-world collection of the whole heap
	KindInitialMark      // CMS initial mark pause
	KindRemark           // CMS/G1 remark pause
	KindCleanup          // G1 cleanup pause
	KindPausePhase       // short pause of a concurrent collector (Shenandoah init/final mark, ZGC mark start/end ...)
	KindDegenerated      // Shenandoah degenerated GC: a stop-the-world fallback
	KindConcurrent       // one concurrent phase (no pause)
	KindCycle            // a whole concurrent cycle (G1 mark cycle, ZGC collection)
	KindStall            // ZGC allocation/relocation stall: application threads blocked
	KindSafepoint        // a safepoint (time-to-safepoint and total stopped time)
	KindMarker           // a flag-only line (Out Of Memory, to-space exhausted without its pause)
)

var kindNames = [...]string{"unknown", "young", "mixed", "full", "initial-mark", "remark", "cleanup", "pause-phase", "degenerated", "concurrent", "cycle", "stall", "safepoint", "marker"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// IsPause reports whether the event stopped all application threads for a GC.
func (k Kind) IsPause() bool {
	return k >= KindYoung && k <= KindDegenerated
}

// Flags mark failures and notable conditions of one event.
type Flags uint32

const (
	FlagConcurrentModeFailure Flags = 1 << iota // CMS fell behind: serial full GC
	FlagPromotionFailed                         // young survivors did not fit into old gen
	FlagToSpaceExhausted                        // G1 evacuation failure (to-space exhausted/overflow)
	FlagHumongous                               // caused by a G1 humongous allocation
	FlagExplicit                                // System.gc()
	FlagOutOfMemory                             // ZGC "Out Of Memory"
	FlagCancelled                               // Shenandoah cancelled a concurrent cycle
	FlagMetadata                                // caused by Metaspace/PermGen filling up
	FlagGCLocker                                // GCLocker initiated GC (JNI critical)
)

var flagNames = []struct {
	f Flags
	n string
}{
	{FlagConcurrentModeFailure, "concurrent-mode-failure"},
	{FlagPromotionFailed, "promotion-failed"},
	{FlagToSpaceExhausted, "to-space-exhausted"},
	{FlagHumongous, "humongous"},
	{FlagExplicit, "explicit"},
	{FlagOutOfMemory, "out-of-memory"},
	{FlagCancelled, "cancelled"},
	{FlagMetadata, "metadata"},
	{FlagGCLocker, "gclocker"},
}

func (f Flags) String() string {
	var parts []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			parts = append(parts, n.n)
		}
	}
	return strings.Join(parts, ",")
}

// Unknown is the value of a size or time field the log did not carry.
const Unknown = -1

// Event is one pause, concurrent phase, stall or safepoint. Sizes are KB and
// Unknown (-1) when the log did not say; times are milliseconds.
type Event struct {
	Line      int       // line of the file where the event was completed
	Uptime    float64   // seconds since JVM start at the event's start; Unknown if not logged
	Wall      time.Time // wall-clock start; zero if not logged
	GCID      int64     // GC(n) / #n; Unknown if not logged
	Collector Collector
	Kind      Kind
	Name      string // the collector's own name for it: "Pause Young", "GC pause", "CMS-concurrent-mark"
	Cause     string // "Allocation Failure", "G1 Evacuation Pause", "System.gc()" ...

	PauseMs      float64 // stop-the-world time (pauses, safepoints)
	ConcurrentMs float64 // concurrent phase / cycle duration
	StallMs      float64 // ZGC stall
	TTSPMs       float64 // safepoint: time to reach it (Unknown if not logged)

	HeapBeforeKB, HeapAfterKB, HeapTotalKB int64
	YoungBeforeKB, YoungAfterKB            int64
	OldBeforeKB, OldAfterKB                int64
	MetaBeforeKB, MetaAfterKB              int64
	HumongousRegions                       int64 // G1: humongous regions before the GC; Unknown if not logged

	UserS, SysS, RealS float64 // [Times: ...] / gc,cpu; Unknown if not logged
	Flags              Flags
}

func (e *Event) reset() {
	*e = Event{
		Uptime: Unknown, GCID: Unknown, TTSPMs: Unknown,
		HeapBeforeKB: Unknown, HeapAfterKB: Unknown, HeapTotalKB: Unknown,
		YoungBeforeKB: Unknown, YoungAfterKB: Unknown, OldBeforeKB: Unknown, OldAfterKB: Unknown,
		MetaBeforeKB: Unknown, MetaAfterKB: Unknown, HumongousRegions: Unknown,
		UserS: Unknown, SysS: Unknown, RealS: Unknown,
	}
}

// NewEvent returns an event with every optional field Unknown.
func NewEvent() Event {
	var e Event
	e.reset()
	return e
}

// Time is the event's start in seconds on the best clock the log has:
// uptime when logged, else wall-clock Unix seconds; ok is false without both.
func (e *Event) Time() (t float64, ok bool) {
	if e.Uptime >= 0 {
		return e.Uptime, true
	}
	if !e.Wall.IsZero() {
		return float64(e.Wall.UnixNano()) / 1e9, true
	}
	return 0, false
}

// Issue is one line the parser could not use.
type Issue struct {
	File   string
	Line   int
	Reason string
	Text   string // the line, truncated
}

func (i Issue) Error() string {
	f := i.File
	if f == "" {
		f = "gc log"
	}
	return fmt.Sprintf("%s: line %d: %s: %q", f, i.Line, i.Reason, i.Text)
}

// maxIssues bounds the issues kept per file; the count keeps going.
const maxIssues = 20

// Stats describes one parsed file.
type Stats struct {
	Name       string
	Format     Format
	Collector  Collector
	JVMVersion string
	// Decorators lists the unified-logging decorators seen on the first line, in order.
	Decorators   []string
	Lines        int // lines read
	Events       int // events emitted
	Recognised   int // lines understood (events, details, headers, known noise)
	Unparsed     int // lines that looked like GC output but could not be read, or were not GC output
	LongLines    int // lines longer than Limits.MaxLineBytes, skipped (also in Unparsed)
	Issues       []Issue
	RegionSizeKB int64 // G1 region size when logged
	MaxHeapKB    int64 // when logged
	CPUs         int   // when logged
	// First and last timestamps seen on any line (seconds, same clock as Event.Time).
	FirstTime, LastTime float64
	HasTime             bool
	Uptime              bool // FirstTime/LastTime are uptime (else Unix seconds)
	// JVMStart is wall time minus uptime on the first line carrying both;
	// zero when the log lacks one of them. It tells JVMs apart.
	JVMStart time.Time
	// PID from the unified pid decorator (when pid and tid are both logged);
	// 0 when unknown.
	PID int64
}

// seeStart records the JVM start from a line with both clocks.
func (s *Stats) seeStart(wall time.Time, uptime float64) {
	if s.JVMStart.IsZero() && !wall.IsZero() && uptime >= 0 {
		s.JVMStart = wall.Add(-time.Duration(uptime * float64(time.Second)))
	}
}

func (s *Stats) addIssue(line int, reason string, text []byte) {
	s.Unparsed++
	if len(s.Issues) >= maxIssues {
		return
	}
	t := string(text)
	if len(t) > 160 {
		t = t[:160] + "..."
	}
	s.Issues = append(s.Issues, Issue{File: s.Name, Line: line, Reason: reason, Text: t})
}

func (s *Stats) seeTime(t float64, uptime bool) {
	if !s.HasTime {
		s.HasTime, s.FirstTime, s.LastTime, s.Uptime = true, t, t, uptime
		return
	}
	if uptime != s.Uptime {
		return // keep one clock per file
	}
	if t > s.LastTime {
		s.LastTime = t
	}
	if t < s.FirstTime {
		s.FirstTime = t
	}
}
