package gclog

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Summariser accumulates KPIs from a stream of events. Memory is constant in
// the number of events except the pause list (4 bytes per pause), kept so
// percentiles are exact rather than estimated.
type Summariser struct {
	files     []FileSummary
	collector Collector
	format    Format
	span      float64 // seconds covered by files with timestamps
	haveSpan  bool

	pauses   []float32
	pauseSum float64
	// wall-clock times of the longest pause and of the worst window's end,
	// when the log has them (the time decorator, -XX:+PrintGCDateStamps)
	maxWall, worstWall time.Time
	maxPause           float64
	maxAt              float64
	byKind             [KindMarker + 1]Agg
	byCause            map[string]*Agg
	byCycle            map[string]*Agg

	// worst 60 s window of pause time
	win      []winItem
	winHead  int // first item still inside the window
	winSum   float64
	worstWin float64
	worstAt  float64

	// event-time span, used when files carry no line timestamps
	evFirst, evLast float64
	evHave          bool
	segSpan         float64

	// allocation and promotion
	prevAfter       int64
	allocatedKB     float64
	promotedKB      float64
	promotionEvents int

	heapMaxKB int64
	trendOld  regression
	floor     floorSeries
	oldFirstT float64
	oldLastT  float64

	s Summary
}

type winItem struct{ t, ms float64 }

// Agg is a count and duration total/max for one group of events.
type Agg struct {
	Name    string  `json:"name"`
	Count   int     `json:"count"`
	TotalMs float64 `json:"total_ms"`
	MaxMs   float64 `json:"max_ms"`
}

func (a *Agg) add(ms float64) {
	a.Count++
	a.TotalMs += ms
	if ms > a.MaxMs {
		a.MaxMs = ms
	}
}

// FileSummary is what one parsed file contributed.
type FileSummary struct {
	Name       string   `json:"name"`
	Format     string   `json:"format"`
	Collector  string   `json:"collector"`
	JVMVersion string   `json:"jvm_version,omitempty"`
	Decorators []string `json:"decorators,omitempty"`
	Lines      int      `json:"lines"`
	Events     int      `json:"events"`
	Unparsed   int      `json:"unparsed"`
	Issues     []Issue  `json:"issues,omitempty"`
	SpanS      float64  `json:"span_s"`
	First      float64  `json:"first"`
	Uptime     bool     `json:"uptime_clock"`
}

// Summary is the KPI set of one GC log (or a joined set of rotated logs).
// Durations are milliseconds, rates MB/s, sizes KB; -1 means not available.
type Summary struct {
	Files         []FileSummary `json:"files"`
	Collector     Collector     `json:"-"`
	Format        Format        `json:"-"`
	CollectorName string        `json:"collector"`
	FormatName    string        `json:"format"`
	// Observed time covered by the log, in seconds; 0 when the log has no timestamps.
	DurationS float64 `json:"duration_s"`
	// HasTime: the log carries timestamps (uptime or wall clock), even when
	// it covers too little time for the ratios below.
	HasTime bool `json:"has_time"`

	Pauses       int     `json:"pauses"`
	PauseTotalMs float64 `json:"pause_total_ms"`
	PauseAvgMs   float64 `json:"pause_avg_ms"`
	PauseP50Ms   float64 `json:"pause_p50_ms"`
	PauseP95Ms   float64 `json:"pause_p95_ms"`
	PauseP99Ms   float64 `json:"pause_p99_ms"`
	PauseMaxMs   float64 `json:"pause_max_ms"`
	PauseMaxAt   float64 `json:"pause_max_at"` // event time of the longest pause
	// % of time not in GC pauses; -1 without timestamps or when the log is
	// too short to judge (see MinJudgeSpanS, MinJudgePauses).
	ThroughputPct float64 `json:"throughput_pct"`
	// Worst 60 s window: % of the window spent in GC pauses (JMC GcPauseRatio's window).
	WorstWindowPct float64 `json:"worst_window_pct"`
	WorstWindowAt  float64 `json:"worst_window_at"`
	// The same two instants on the wall clock; zero when the log has no
	// dates. A run's charts shade them.
	PauseMaxWall    time.Time `json:"pause_max_wall,omitzero"`
	WorstWindowWall time.Time `json:"worst_window_wall,omitzero"`

	ByKind  []Agg `json:"by_kind"`
	ByCause []Agg `json:"by_cause"` // stop-the-world pauses
	// Concurrent cycles (ZGC, G1 marking) by cause, with their durations.
	CyclesByCause []Agg `json:"cycles_by_cause,omitempty"`

	FullGCs          int     `json:"full_gcs"`
	FullGCMs         float64 `json:"full_gc_ms"`
	FullGCsExplicit  int     `json:"full_gcs_explicit"`
	ExplicitGCs      int     `json:"explicit_gcs"`
	MetadataGCs      int     `json:"metadata_gcs"`
	GCLockerGCs      int     `json:"gclocker_gcs"`
	Collections      int     `json:"collections"` // young+mixed+full+degenerated+concurrent cycles with heap data
	ConcModeFailures int     `json:"concurrent_mode_failures"`
	PromotionFailed  int     `json:"promotion_failed"`
	ToSpaceExhausted int     `json:"to_space_exhausted"`
	HumongousGCs     int     `json:"humongous_gcs"`
	Degenerated      int     `json:"degenerated"`
	DegeneratedMs    float64 `json:"degenerated_ms"` // Shenandoah's stop-the-world fallback: not in FullGCs/FullGCMs
	OutOfMemory      int     `json:"out_of_memory"`
	Cancelled        int     `json:"cancelled"`

	Stalls       int     `json:"stalls"`
	StallTotalMs float64 `json:"stall_total_ms"`
	StallMaxMs   float64 `json:"stall_max_ms"`

	ConcurrentCycles int     `json:"concurrent_cycles"`
	ConcurrentMs     float64 `json:"concurrent_ms"`

	AllocRateMBs     float64 `json:"alloc_rate_mb_s"`
	PromotionRateMBs float64 `json:"promotion_rate_mb_s"`
	HeapMaxKB        int64   `json:"heap_max_kb"`

	// Heap after GC trend (leak suspicion).
	HeapAfter HeapTrend `json:"heap_after"`

	Safepoints       int     `json:"safepoints"`
	SafepointTotalMs float64 `json:"safepoint_total_ms"`
	SafepointMaxMs   float64 `json:"safepoint_max_ms"`
	TTSPMaxMs        float64 `json:"ttsp_max_ms"`
	TTSPTotalMs      float64 `json:"ttsp_total_ms"`
	TTSPOver100ms    int     `json:"ttsp_over_100ms"`
	SafepointMaxName string  `json:"safepoint_max_name,omitempty"`
	TTSPMaxName      string  `json:"ttsp_max_name,omitempty"`

	CPUEvents int     `json:"cpu_events"`
	UserS     float64 `json:"user_s"`
	SysS      float64 `json:"sys_s"`
	RealS     float64 `json:"real_s"`
	SysGtUser int     `json:"sys_gt_user"`
	Unparsed  int     `json:"unparsed"`
	Lines     int     `json:"lines"`
	Events    int     `json:"events"`
}

// HeapTrend is a least-squares line through heap occupancy after GC.
type HeapTrend struct {
	Basis       string  `json:"basis"` // "old" (after full/old/major collections) or "floor" (minimum after any GC per time bucket)
	Points      int     `json:"points"`
	FirstKB     float64 `json:"first_kb"` // fitted value at the start
	LastKB      float64 `json:"last_kb"`  // fitted value at the end
	SlopeKBPerH float64 `json:"slope_kb_per_h"`
	R2          float64 `json:"r2"`
	SpanS       float64 `json:"span_s"`
	MinKB       int64   `json:"min_kb"`
	MaxKB       int64   `json:"max_kb"`
}

// Below these a log is a fragment, and ratios over it describe the fragment,
// not the service: two pauses 0.5 s apart give "71.83 % throughput" and
// an allocation rate of 16,703 MB/s. Throughput, the worst-window share and
// the allocation/promotion rates need MinJudgeSpanS seconds covered and
// MinJudgePauses pauses (collections for the rates); pause statistics need
// MinJudgePauses pauses for a severity.
//
// 10 s: the first seconds of a JVM are start-up (class loading, heap
// sizing, JIT) and a ratio over them is start-up's; 10 s is also the
// shortest GC log tuneloop's own `run` writes (an 8 s measured load after
// warm-up), which must still be judged. 5 pauses: with fewer, one pause
// more or less moves the ratio by tens of percent, and the "p99" is the
// maximum of a handful of samples.
const (
	MinJudgeSpanS  = 10
	MinJudgePauses = 5
)

// NewSummariser returns an empty summariser.
func NewSummariser() *Summariser {
	s := &Summariser{byCause: map[string]*Agg{}, byCycle: map[string]*Agg{}, prevAfter: -1}
	s.s.HeapAfter.MinKB = -1
	return s
}

// AddStats records one parsed file; call it after Parse returns.
func (s *Summariser) AddStats(st *Stats) {
	fs := FileSummary{Name: st.Name, Format: st.Format.String(), Collector: st.Collector.String(), JVMVersion: st.JVMVersion,
		Decorators: st.Decorators, Lines: st.Lines, Events: st.Events, Unparsed: st.Unparsed, Issues: st.Issues,
		First: st.FirstTime, Uptime: st.Uptime}
	if st.HasTime {
		fs.SpanS = st.LastTime - st.FirstTime
		s.span += fs.SpanS
		s.haveSpan = true
	}
	s.files = append(s.files, fs)
	if s.collector == CollectorUnknown || st.Collector == ZGCGenerational {
		s.collector = st.Collector
	}
	if s.format == FormatUnknown {
		s.format = st.Format
	}
	if st.MaxHeapKB > s.heapMaxKB {
		s.heapMaxKB = st.MaxHeapKB
	}
	s.s.Unparsed += st.Unparsed
	s.s.Lines += st.Lines
	s.s.Events += st.Events
}

// oldCollection reports events whose heap-after approximates the live set.
func oldCollection(e *Event) bool {
	switch e.Kind {
	case KindFull, KindDegenerated, KindRemark, KindCleanup:
		return true
	case KindCycle:
		return e.Name == "Garbage Collection" || e.Name == "Major Collection"
	case KindConcurrent:
		return e.HeapAfterKB >= 0 // Shenandoah "Concurrent cleanup" ends a cycle
	}
	return false
}

// Add folds one event into the summary.
func (s *Summariser) Add(e *Event) {
	t, hasT := e.Time()
	if hasT {
		// end is when the line was written, which only moves forward within
		// one JVM run; starts do not (a long concurrent cycle starts before
		// the pauses logged while it ran).
		end := t + (e.PauseMs+e.ConcurrentMs+e.StallMs)/1e3
		switch {
		case !s.evHave:
			s.evFirst, s.evLast, s.evHave = t, end, true
		case end < s.evLast-1: // clock went back: a restarted JVM; new segment
			s.segSpan += s.evLast - s.evFirst
			s.evFirst, s.evLast = t, end
			s.win, s.winHead = s.win[:0], 0
			s.winSum = 0
			s.prevAfter = -1
		default:
			s.evFirst = min(s.evFirst, t)
			s.evLast = max(s.evLast, end)
		}
	}
	if s.collector == CollectorUnknown && e.Collector != CollectorUnknown {
		s.collector = e.Collector
	}
	if e.HeapTotalKB > s.heapMaxKB {
		s.heapMaxKB = e.HeapTotalKB
	}
	sm := &s.s
	if e.UserS >= 0 && e.RealS >= 0 {
		sm.CPUEvents++
		sm.UserS += e.UserS
		sm.SysS += e.SysS
		sm.RealS += e.RealS
		if e.SysS > e.UserS && e.SysS > 0.01 {
			sm.SysGtUser++
		}
	}
	f := e.Flags
	if f&FlagOutOfMemory != 0 {
		sm.OutOfMemory++
	}
	if f&FlagCancelled != 0 {
		sm.Cancelled++
	}
	switch {
	case e.Kind.IsPause():
		s.pause(e, t, hasT)
	case e.Kind == KindStall:
		sm.Stalls++
		sm.StallTotalMs += e.StallMs
		sm.StallMaxMs = max(sm.StallMaxMs, e.StallMs)
	case e.Kind == KindSafepoint:
		sm.Safepoints++
		sm.SafepointTotalMs += e.PauseMs
		if e.PauseMs > sm.SafepointMaxMs {
			sm.SafepointMaxMs, sm.SafepointMaxName = e.PauseMs, e.Name
		}
		if e.TTSPMs >= 0 {
			sm.TTSPTotalMs += e.TTSPMs
			if e.TTSPMs > sm.TTSPMaxMs {
				sm.TTSPMaxMs, sm.TTSPMaxName = e.TTSPMs, e.Name
			}
			if e.TTSPMs > 100 {
				sm.TTSPOver100ms++
			}
		}
	case e.Kind == KindCycle:
		sm.ConcurrentCycles++
		sm.ConcurrentMs += e.ConcurrentMs
		c := e.Cause
		if c == "" {
			c = e.Name
		}
		addAgg(s.byCycle, c, e.ConcurrentMs)
		if f&FlagExplicit != 0 {
			sm.ExplicitGCs++
		}
	case e.Kind == KindConcurrent:
		if s.collector == Shenandoah || s.collector == CMS {
			sm.ConcurrentMs += e.ConcurrentMs
		}
	}
	if e.Kind != KindMarker && e.Kind != KindSafepoint {
		s.byKind[e.Kind].add(e.PauseMs + e.ConcurrentMs + e.StallMs)
	}
	s.heap(e, t, hasT)
}

func (s *Summariser) cause(c string, ms float64) { addAgg(s.byCause, c, ms) }

// addAgg adds to the group c, folding into "other" past 1000 groups so
// hostile input cannot grow the map without bound.
func addAgg(m map[string]*Agg, c string, ms float64) {
	a := m[c]
	if a == nil {
		if len(m) > 1000 {
			c = "other"
			a = m[c]
		}
		if a == nil {
			a = &Agg{Name: c}
			m[c] = a
		}
	}
	a.add(ms)
}

func sortAggs(as []Agg) {
	sort.Slice(as, func(i, j int) bool {
		a, b := as[i], as[j]
		if a.TotalMs != b.TotalMs {
			return a.TotalMs > b.TotalMs
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Name < b.Name
	})
}

func (s *Summariser) pause(e *Event, t float64, hasT bool) {
	sm := &s.s
	ms := e.PauseMs
	s.pauses = append(s.pauses, float32(ms))
	s.pauseSum += ms
	if ms > s.maxPause {
		s.maxPause, s.maxAt, s.maxWall = ms, t, e.Wall
	}
	cause := e.Cause
	if cause == "" {
		cause = e.Name
	}
	s.cause(cause, ms)
	f := e.Flags
	if e.Kind == KindFull {
		sm.FullGCs++
		sm.FullGCMs += ms
		if f&FlagExplicit != 0 {
			sm.FullGCsExplicit++
		}
	}
	if e.Kind == KindDegenerated {
		sm.Degenerated++
		sm.DegeneratedMs += ms
	}
	if f&FlagExplicit != 0 {
		sm.ExplicitGCs++
	}
	if f&FlagMetadata != 0 {
		sm.MetadataGCs++
	}
	if f&FlagGCLocker != 0 {
		sm.GCLockerGCs++
	}
	if f&FlagConcurrentModeFailure != 0 {
		sm.ConcModeFailures++
	}
	if f&FlagPromotionFailed != 0 {
		sm.PromotionFailed++
	}
	if f&FlagToSpaceExhausted != 0 {
		sm.ToSpaceExhausted++
	}
	if f&FlagHumongous != 0 {
		sm.HumongousGCs++
	}
	if hasT {
		// Pauses at the same logged time are one item: the window holds at
		// most one per distinct time in 60 s (a log of millions of pauses
		// stamped alike held them all).
		if n := len(s.win); n > s.winHead && s.win[n-1].t == t {
			s.win[n-1].ms += ms
		} else {
			s.win = append(s.win, winItem{t, ms})
		}
		s.winSum += ms
		for s.winHead < len(s.win) && s.win[s.winHead].t < t-60 {
			s.winSum -= s.win[s.winHead].ms
			s.winHead++
		}
		if s.winHead > 1024 && s.winHead*2 > len(s.win) { // compact now and then, not per pause
			n := copy(s.win, s.win[s.winHead:])
			s.win, s.winHead = s.win[:n], 0
		}
		if s.winSum > s.worstWin {
			s.worstWin, s.worstAt, s.worstWall = s.winSum, t, e.Wall
		}
	}
}

// heap tracks allocation, promotion and the heap-after-GC trend.
func (s *Summariser) heap(e *Event, t float64, hasT bool) {
	if e.HeapBeforeKB < 0 || e.HeapAfterKB < 0 {
		return
	}
	switch e.Kind {
	case KindYoung, KindMixed, KindFull, KindDegenerated, KindCycle:
	case KindConcurrent:
		if e.HeapAfterKB < 0 {
			return
		}
	default:
		if !oldCollection(e) {
			return
		}
	}
	sm := &s.s
	if e.Kind != KindRemark && e.Kind != KindCleanup {
		sm.Collections++
		if s.prevAfter >= 0 {
			if d := e.HeapBeforeKB - s.prevAfter; d > 0 {
				s.allocatedKB += float64(d)
			}
		} else {
			s.allocatedKB += float64(e.HeapBeforeKB)
		}
		s.prevAfter = e.HeapAfterKB
	}
	if e.Kind == KindYoung && e.YoungBeforeKB >= 0 && e.YoungAfterKB >= 0 {
		if p := (e.YoungBeforeKB - e.YoungAfterKB) - (e.HeapBeforeKB - e.HeapAfterKB); p >= 0 {
			s.promotedKB += float64(p)
			s.promotionEvents++
		}
	}
	a := e.HeapAfterKB
	if sm.HeapAfter.MinKB < 0 || a < sm.HeapAfter.MinKB {
		sm.HeapAfter.MinKB = a
	}
	if a > sm.HeapAfter.MaxKB {
		sm.HeapAfter.MaxKB = a
	}
	if !hasT {
		return
	}
	if oldCollection(e) && e.Flags&FlagExplicit == 0 {
		if s.trendOld.n == 0 {
			s.oldFirstT = t
		}
		s.oldLastT = t
		s.trendOld.add(t, float64(a))
	}
	s.floor.add(t, float64(a))
}

// Summary computes the KPIs of everything added so far.
func (s *Summariser) Summary() Summary {
	sm := s.s
	sm.Files = s.files
	sm.Collector, sm.Format = s.collector, s.format
	sm.CollectorName, sm.FormatName = s.collector.String(), s.format.String()
	sm.HeapMaxKB = s.heapMaxKB
	dur := 0.0
	if s.evHave {
		dur = s.segSpan + (s.evLast - s.evFirst)
	}
	if s.haveSpan && s.span > dur {
		dur = s.span
	}
	sm.DurationS = dur
	sm.Pauses = len(s.pauses)
	sm.PauseTotalMs = s.pauseSum
	sm.PauseMaxMs, sm.PauseMaxAt, sm.PauseMaxWall = s.maxPause, s.maxAt, s.maxWall
	if n := len(s.pauses); n > 0 {
		sm.PauseAvgMs = s.pauseSum / float64(n)
		sorted := make([]float32, n)
		copy(sorted, s.pauses)
		slices.Sort(sorted)
		// float32 storage rounds; never report a percentile above the exact max.
		sm.PauseP50Ms = math.Min(percentile(sorted, 50), s.maxPause)
		sm.PauseP95Ms = math.Min(percentile(sorted, 95), s.maxPause)
		sm.PauseP99Ms = math.Min(percentile(sorted, 99), s.maxPause)
	}
	sm.HasTime = s.evHave || s.haveSpan
	sm.ThroughputPct, sm.WorstWindowPct = -1, -1
	sm.AllocRateMBs, sm.PromotionRateMBs = -1, -1
	if sm.HasTime && dur >= MinJudgeSpanS && sm.Pauses >= MinJudgePauses {
		sm.ThroughputPct = 100 * (1 - s.pauseSum/(dur*1e3))
		if sm.ThroughputPct < 0 {
			sm.ThroughputPct = 0
		}
		w := math.Min(60, dur)
		sm.WorstWindowPct = math.Min(100, 100*s.worstWin/(w*1e3))
		sm.WorstWindowAt, sm.WorstWindowWall = s.worstAt, s.worstWall
	}
	if sm.HasTime && dur >= MinJudgeSpanS {
		if sm.Collections >= MinJudgePauses {
			sm.AllocRateMBs = s.allocatedKB / 1024 / dur
		}
		if s.promotionEvents >= MinJudgePauses {
			sm.PromotionRateMBs = s.promotedKB / 1024 / dur
		}
	}
	for k := range s.byKind {
		if a := s.byKind[k]; a.Count > 0 {
			a.Name = Kind(k).String()
			sm.ByKind = append(sm.ByKind, a)
		}
	}
	for _, a := range s.byCause {
		sm.ByCause = append(sm.ByCause, *a)
	}
	sortAggs(sm.ByCause)
	for _, a := range s.byCycle {
		sm.CyclesByCause = append(sm.CyclesByCause, *a)
	}
	sortAggs(sm.CyclesByCause)
	// Heap-after trend: prefer collections that approximate the live set
	// (GCViewer's post-full-GC slope); fall back to the floor of the sawtooth.
	ht := sm.HeapAfter
	if s.trendOld.n >= 4 && dur > 0 && (s.oldLastT-s.oldFirstT) >= dur/2 {
		ht.Basis = "old"
		s.trendOld.fill(&ht)
	} else {
		var r regression
		for i := 0; i < s.floor.n; i++ {
			if !math.IsNaN(s.floor.t[i]) {
				r.add(s.floor.t[i], s.floor.y[i])
			}
		}
		if r.n >= 4 {
			ht.Basis = "floor"
			r.fill(&ht)
		}
	}
	sm.HeapAfter = ht
	return sm
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float32, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	r := int(math.Ceil(p / 100 * float64(len(sorted))))
	if r < 1 {
		r = 1
	}
	return float64(sorted[r-1])
}

// regression is a streaming least-squares fit of y over t.
type regression struct {
	n                     int
	st, sy, stt, sty, syy float64
	t0                    float64
	tMin, tMax            float64
}

func (r *regression) add(t, y float64) {
	if r.n == 0 {
		r.t0, r.tMin, r.tMax = t, t, t
	}
	t -= r.t0 // keep sums small for precision
	r.n++
	r.st += t
	r.sy += y
	r.stt += t * t
	r.sty += t * y
	r.syy += y * y
	r.tMin = math.Min(r.tMin, t+r.t0)
	r.tMax = math.Max(r.tMax, t+r.t0)
}

func (r *regression) fill(h *HeapTrend) {
	n := float64(r.n)
	h.Points = r.n
	den := n*r.stt - r.st*r.st
	if den <= 0 {
		return
	}
	slope := (n*r.sty - r.st*r.sy) / den
	icept := (r.sy - slope*r.st) / n
	h.SlopeKBPerH = slope * 3600
	h.SpanS = r.tMax - r.tMin
	h.FirstKB = icept + slope*(r.tMin-r.t0)
	h.LastKB = icept + slope*(r.tMax-r.t0)
	vy := n*r.syy - r.sy*r.sy
	if vy > 0 {
		c := (n*r.sty - r.st*r.sy)
		h.R2 = c * c / (den * vy)
	}
}

// floorSeries keeps the minimum heap-after per time bucket in at most 256
// buckets, doubling the bucket width when full: constant memory, any length.
type floorSeries struct {
	t, y  [256]float64
	n     int
	width float64
	start float64
}

func (f *floorSeries) add(t, y float64) {
	if f.width == 0 {
		f.width, f.start = 1, t
	}
	if t < f.start {
		t = f.start
	}
	for {
		i := int((t - f.start) / f.width)
		if i < len(f.t) {
			switch {
			case i >= f.n:
				for f.n < i { // empty buckets between: mark absent
					f.t[f.n], f.y[f.n] = math.NaN(), 0
					f.n++
				}
				f.t[i], f.y[i] = t, y
				f.n = i + 1
			case math.IsNaN(f.t[i]) || y < f.y[i]:
				f.t[i], f.y[i] = t, y
			}
			return
		}
		// Merge pairs and double the width.
		m := 0
		for j := 0; j < f.n; j += 2 {
			a, b := j, j+1
			switch {
			case b >= f.n || math.IsNaN(f.t[b]):
			case math.IsNaN(f.t[a]) || f.y[b] < f.y[a]:
				a = b
			}
			f.t[m], f.y[m] = f.t[a], f.y[a]
			m++
		}
		f.n = m
		f.width *= 2
	}
}
