package report

// The page of standalone GC logs (`tuneloop analyze gc.log -o html`): per
// JVM, the heap before and after each collection, the pauses, the
// allocation and promotion rates over time, the KPIs and the findings.
// Events are reduced to points while the log is parsed (GCEvents.Add is the
// callback of gclog.AnalyzeEach), so a log of millions of collections
// costs a few thousand points.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/version"
)

// GCPageSchema names GCPage's JSON.
const GCPageSchema = "tuneloop.gc-page/v1"

// MaxGCPoints caps the heap points and the pause points of one JVM each;
// past it, neighbours are merged (GCEvents.Add).
const MaxGCPoints = 4000

// rateBuckets is about how many intervals the rate chart has.
const rateBuckets = 120

// GCPage is the document of one or more JVMs' GC logs.
type GCPage struct {
	PageHead
	JVMs []GCJVM `json:"jvms"`
}

// PageHead starts each of analyze's page documents: which document, in
// which language, about what, written by which tool.
type PageHead struct {
	Schema string       `json:"schema"`
	Lang   finding.Lang `json:"lang"`
	Title  string       `json:"title"`
	Tool   Tool         `json:"tool"`
}

// newPageHead is a page's head written by this build.
func newPageHead(schema, title string, lang finding.Lang) PageHead {
	return PageHead{Schema: schema, Lang: lang, Title: title, Tool: Tool{Name: "tuneloop", Version: version.Version}}
}

// GCJVM is one JVM: its rotated files joined.
type GCJVM struct {
	// Name lists the files ("gc.log, gc.log.0").
	Name     string            `json:"name"`
	Summary  gclog.Summary     `json:"summary"`
	Findings []finding.Finding `json:"findings"`
	// Short is "too short to judge (N pauses over T s)" when the log has
	// time but too little for the ratios; empty otherwise.
	Short finding.Text `json:"short"`
	// Clock says what GCPoint.T counts: "uptime" (seconds since JVM start)
	// or "wall" (seconds since Start); "" when the log has no time.
	Clock string    `json:"clock,omitempty"`
	Start time.Time `json:"start,omitzero"`
	// Heap is per collection, Pauses per stop-the-world pause, in time
	// order; past MaxGCPoints each point stands for a run of neighbours
	// (Collections and PauseEvents count the events).
	Heap        []GCHeapPoint `json:"heap,omitempty"`
	Pauses      []GCPause     `json:"pauses,omitempty"`
	Collections int           `json:"collections"`
	PauseEvents int           `json:"pause_events"`
	// Rates is allocation and promotion over time, in about rateBuckets intervals.
	Rates []GCRatePoint `json:"rates,omitempty"`
	// Generations: the log gives young and old sizes.
	Generations bool `json:"generations"`
	// Untimed counts events the log gave no time for (not on the charts).
	Untimed int `json:"untimed,omitempty"`
}

// GCHeapPoint is one collection (or a merged run of them: the highest
// occupancy before and the lowest after, which is what a chart of that
// width draws anyway). Sizes are KB, -1 when the log did not say.
type GCHeapPoint struct {
	T             float64 `json:"t"`
	Kind          string  `json:"kind"`
	BeforeKB      int64   `json:"before_kb"`
	AfterKB       int64   `json:"after_kb"`
	TotalKB       int64   `json:"total_kb"`
	YoungBeforeKB int64   `json:"young_before_kb"`
	YoungAfterKB  int64   `json:"young_after_kb"`
	OldBeforeKB   int64   `json:"old_before_kb"`
	OldAfterKB    int64   `json:"old_after_kb"`
	// AllocKB and PromoKB are allocated and promoted since the point before.
	AllocKB float64 `json:"alloc_kb"`
	PromoKB float64 `json:"promo_kb"`
	Promo   bool    `json:"promo"` // PromoKB is known
}

// GCRatePoint is allocation and promotion in MB/s over one interval
// centred on T; PromoMBs is -1 when the log has no young-generation sizes.
type GCRatePoint struct {
	T        float64 `json:"t"`
	AllocMBs float64 `json:"alloc_mb_s"`
	PromoMBs float64 `json:"promo_mb_s"`
}

// GCAgg is one group of events of a summary (by cause, by kind).
type GCAgg = gclog.Agg

// GCEvents collects one JVM's events for the page, in the parse pass:
//
//	ev := report.NewGCEvents()
//	r, err := gclog.AnalyzeEach(srcs, th, ev.Add)
type GCEvents struct {
	heap        thinned[GCHeapPoint]
	pauses      thinned[GCPause]
	collections int
	pauseEvents int
	untimed     int
	prevAfter   int64
	clock       string
	start       time.Time
	gens        bool
}

// NewGCEvents returns an empty collector.
func NewGCEvents() *GCEvents {
	return &GCEvents{prevAfter: -1, heap: thinned[GCHeapPoint]{merge: mergeHeap}, pauses: thinned[GCPause]{merge: mergePause}}
}

// thinned is a series capped at MaxGCPoints: each point stands for stride
// events, merged; when the cap is reached, neighbours are merged in pairs
// and the stride doubles, so every point stands for the same number.
type thinned[P any] struct {
	pts    []P
	stride int // events per point; 0 is 1
	n      int // events in the last point, while it fills
	merge  func(a, b P) P
}

func (t *thinned[P]) add(p P) {
	if t.n > 0 {
		t.pts[len(t.pts)-1] = t.merge(t.pts[len(t.pts)-1], p)
	} else {
		t.pts = append(t.pts, p)
	}
	t.n++
	if t.n < max(t.stride, 1) {
		return
	}
	t.n = 0
	if len(t.pts) < MaxGCPoints {
		return
	}
	out := t.pts[:0]
	for i := 0; i < len(t.pts); i += 2 {
		a := t.pts[i]
		if i+1 < len(t.pts) {
			a = t.merge(a, t.pts[i+1])
		}
		out = append(out, a)
	}
	t.pts, t.stride = out, 2*max(t.stride, 1)
}

// Add takes one event (gclog.AnalyzeEach's callback).
func (c *GCEvents) Add(e *gclog.Event) {
	t, ok := c.time(e)
	if !ok {
		if e.Kind.IsPause() || e.HeapBeforeKB >= 0 {
			c.untimed++
		}
		return
	}
	if e.Kind.IsPause() && e.PauseMs > 0 {
		c.pauseEvents++
		c.pauses.add(GCPause{UptimeS: t, MS: e.PauseMs, Kind: e.Kind.String()})
	}
	if !collection(e) {
		return
	}
	p := GCHeapPoint{T: t, Kind: e.Kind.String(), BeforeKB: e.HeapBeforeKB, AfterKB: e.HeapAfterKB, TotalKB: e.HeapTotalKB,
		YoungBeforeKB: e.YoungBeforeKB, YoungAfterKB: e.YoungAfterKB, OldBeforeKB: e.OldBeforeKB, OldAfterKB: e.OldAfterKB}
	// Allocation and promotion as the summary counts them (gclog kpi.go):
	// what the heap grew since the last collection; what left young and
	// did not leave the heap.
	if c.prevAfter >= 0 {
		p.AllocKB = float64(max(e.HeapBeforeKB-c.prevAfter, 0))
	} else {
		p.AllocKB = float64(e.HeapBeforeKB)
	}
	c.prevAfter = e.HeapAfterKB
	if e.Kind == gclog.KindYoung && e.YoungBeforeKB >= 0 && e.YoungAfterKB >= 0 {
		if pr := (e.YoungBeforeKB - e.YoungAfterKB) - (e.HeapBeforeKB - e.HeapAfterKB); pr >= 0 {
			p.PromoKB, p.Promo = float64(pr), true
		}
	}
	if e.YoungBeforeKB >= 0 || e.OldAfterKB >= 0 {
		c.gens = true
	}
	c.collections++
	c.heap.add(p)
}

// time is the event's time on one clock per JVM: uptime when the first
// timed event has it, else seconds since the first wall-clock time.
func (c *GCEvents) time(e *gclog.Event) (float64, bool) {
	if c.clock == "" {
		switch {
		case e.Uptime >= 0:
			c.clock = "uptime"
		case !e.Wall.IsZero():
			c.clock, c.start = "wall", e.Wall
		default:
			return 0, false
		}
	}
	if c.clock == "uptime" {
		return e.Uptime, e.Uptime >= 0
	}
	if e.Wall.IsZero() {
		return 0, false
	}
	return e.Wall.Sub(c.start).Seconds(), true
}

// collection: an event that collected the heap and says its size before and after.
func collection(e *gclog.Event) bool {
	if e.HeapBeforeKB < 0 || e.HeapAfterKB < 0 {
		return false
	}
	switch e.Kind {
	case gclog.KindYoung, gclog.KindMixed, gclog.KindFull, gclog.KindDegenerated, gclog.KindCycle, gclog.KindConcurrent:
		return true
	}
	return false
}

// kindRank orders kinds for a merged point: the heavier collection names it.
func kindRank(k string) int {
	switch k {
	case "full":
		return 3
	case "degenerated":
		return 2
	case "mixed":
		return 1
	}
	return 0
}

// mergeHeap is a run of collections as one point: the envelope (highest
// before, lowest after) at the first one's time, the heavier kind,
// allocation and promotion summed.
func mergeHeap(a, b GCHeapPoint) GCHeapPoint {
	if kindRank(b.Kind) > kindRank(a.Kind) {
		a.Kind = b.Kind
	}
	a.BeforeKB, a.YoungBeforeKB, a.OldBeforeKB = max(a.BeforeKB, b.BeforeKB), max(a.YoungBeforeKB, b.YoungBeforeKB), max(a.OldBeforeKB, b.OldBeforeKB)
	a.AfterKB, a.YoungAfterKB, a.OldAfterKB = minKnown(a.AfterKB, b.AfterKB), minKnown(a.YoungAfterKB, b.YoungAfterKB), minKnown(a.OldAfterKB, b.OldAfterKB)
	a.TotalKB = max(a.TotalKB, b.TotalKB)
	a.AllocKB += b.AllocKB
	a.PromoKB += b.PromoKB
	a.Promo = a.Promo || b.Promo
	return a
}

// mergePause keeps the longer pause: the peaks stay on the chart.
func mergePause(a, b GCPause) GCPause {
	if b.MS > a.MS {
		return b
	}
	return a
}

// minKnown is the smaller of two sizes, -1 (unknown) only when both are.
func minKnown(a, b int64) int64 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}

// NewGCPage is the page of reports[i] with the points events[i] collected
// in the same parse (nil, or a nil entry: KPIs and findings without charts).
func NewGCPage(reports []*gclog.Report, events []*GCEvents, lang finding.Lang) *GCPage {
	p := &GCPage{PageHead: newPageHead(GCPageSchema, "GC", lang)}
	var names []string
	for i, r := range reports {
		if r == nil {
			continue
		}
		j := GCJVM{Summary: r.Summary, Findings: r.Findings}
		var fs []string
		for _, f := range r.Summary.Files {
			fs = append(fs, f.Name)
		}
		j.Name = strings.Join(fs, ", ")
		if t, ok := gclog.ShortToJudge(r.Summary); ok {
			j.Short = t
		}
		if i < len(events) && events[i] != nil {
			ev := events[i]
			j.Clock, j.Start, j.Heap, j.Pauses = ev.clock, ev.start, ev.heap.pts, ev.pauses.pts
			j.Collections, j.PauseEvents, j.Untimed, j.Generations = ev.collections, ev.pauseEvents, ev.untimed, ev.gens
			j.Rates = gcRates(ev.heap.pts)
		}
		p.JVMs = append(p.JVMs, j)
		if j.Name != "" {
			names = append(names, j.Name)
		}
	}
	if len(names) > 0 {
		p.Title = strings.Join(names, "; ")
	}
	return p
}

// gcRates sums allocation and promotion into about rateBuckets intervals
// of the heap points' span; nil with fewer than two points or no span.
func gcRates(hs []GCHeapPoint) []GCRatePoint {
	if len(hs) < 2 {
		return nil
	}
	t0, t1 := hs[0].T, hs[len(hs)-1].T
	span := t1 - t0
	if !(span > 0) {
		return nil
	}
	// equal intervals of at least a second
	n := max(1, int(math.Round(span/max(span/rateBuckets, 1))))
	w := span / float64(n)
	alloc, promo := make([]float64, n), make([]float64, n)
	hasPromo := false
	// A point's allocation happened since the point before it: it belongs
	// to the interval that point closes, so the first point (allocation
	// since JVM start) is left out.
	for _, h := range hs[1:] {
		k := min(int((h.T-t0)/w), n-1)
		alloc[k] += h.AllocKB
		if h.Promo {
			promo[k] += h.PromoKB
			hasPromo = true
		}
	}
	out := make([]GCRatePoint, 0, n)
	for k := range n {
		r := GCRatePoint{T: t0 + (float64(k)+0.5)*w, AllocMBs: alloc[k] / 1024 / w, PromoMBs: -1}
		if hasPromo {
			r.PromoMBs = promo[k] / 1024 / w
		}
		out = append(out, r)
	}
	return out
}

// AnalyzeGC analyses GC logs for the page: one report per JVM (as
// gclog.AnalyzeSets) and the points of its events. One JVM's files (the
// usual case) are read in one analysis pass that also collects the points;
// files of several JVMs are then analysed per JVM, each again with its
// points (gclog has no per-set callback).
func AnalyzeGC(ctx context.Context, srcs []gclog.Source, th gclog.Thresholds) ([]*gclog.Report, []*GCEvents, error) {
	ev := NewGCEvents()
	r, err := gclog.AnalyzeEachContext(ctx, srcs, th, ev.Add)
	var mixed *gclog.MixedJVMsError
	if err == nil {
		return []*gclog.Report{r}, []*GCEvents{ev}, nil
	} else if !errors.As(err, &mixed) {
		return nil, nil, err
	}
	reports, err := gclog.AnalyzeSetsContext(ctx, srcs, th)
	if err != nil {
		return nil, nil, err
	}
	evs := make([]*GCEvents, len(reports))
	for i, r := range reports {
		var mine []gclog.Source
		for _, s := range srcs {
			if slices.ContainsFunc(r.Summary.Files, func(f gclog.FileSummary) bool { return f.Name == s.Name }) {
				mine = append(mine, s)
			}
		}
		evs[i] = NewGCEvents()
		if _, err := gclog.AnalyzeEachContext(ctx, mine, th, evs[i].Add); err != nil {
			return nil, nil, err
		}
	}
	return reports, evs, nil
}

// NewGCView is the GC KPIs of a log's summary and findings, the one place
// the run page's GC section and each JVM of the GC page take them from
// (the pauses over time are the caller's): gclog's headline of the log.
func NewGCView(s gclog.Summary, fs []finding.Finding) *GCView {
	h := s.Headline(fs)
	return &GCView{Collector: h.Collector, ThroughputPct: h.ThroughputPct, Pauses: h.Pauses,
		PauseP50MS: h.PauseP50Ms, PauseP99MS: h.PauseP99Ms, PauseMaxMS: h.PauseMaxMs, FullGCs: h.FullGCs, Verdict: h.Verdict}
}

// Line is the GC summary in one sentence, as the run's text and Markdown
// say it: gclog's sentence (Headline.Line) of the figures the view keeps,
// so it reads the same from a run page decoded from its JSON.
func (g *GCView) Line(l finding.Lang) string { return g.Headline().Line().In(l) }

// Headline is the view's figures as gclog says them (its sentence, its
// thresholds).
func (g *GCView) Headline() gclog.Headline {
	return gclog.Headline{Collector: g.Collector, ThroughputPct: g.ThroughputPct, Pauses: g.Pauses, PauseP50Ms: g.PauseP50MS,
		PauseP99Ms: g.PauseP99MS, PauseMaxMs: g.PauseMaxMS, FullGCs: g.FullGCs, Verdict: g.Verdict}
}

// GCFormats are WriteGC's; the page's HTML is html.WriteGC of the same
// document.
func GCFormats() Formats { return Formats{Text, Markdown, JSON} }

// WriteGC writes the GC document as format, the one switch of its
// formats: text (each JVM's gclog.WriteText, the one GC text, a blank line
// between JVMs), Markdown (each JVM's headline sentence, then its text
// fenced) or JSON (gc-page/v1).
func WriteGC(w io.Writer, p *GCPage, f Format) error {
	switch f {
	case JSON:
		return WriteJSON(w, p)
	case Markdown:
		return writeGCMarkdown(w, p)
	}
	return writeGCText(w, p)
}

func writeGCText(w io.Writer, p *GCPage) error {
	for i := range p.JVMs {
		j := &p.JVMs[i]
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := gclog.WriteText(w, j.Summary, j.Findings, p.Lang); err != nil {
			return err
		}
	}
	return nil
}

func writeGCMarkdown(w io.Writer, p *GCPage) error {
	bw := bufio.NewWriter(w)
	for i := range p.JVMs {
		j := &p.JVMs[i]
		var b bytes.Buffer
		if err := gclog.WriteText(&b, j.Summary, j.Findings, p.Lang); err != nil {
			return err
		}
		fence := "```"
		for bytes.Contains(b.Bytes(), []byte(fence)) {
			fence += "`"
		}
		fmt.Fprintf(bw, "## GC: %s\n\n%s\n\n%stext\n%s\n%s\n\n", finding.SafeMarkdown(j.Name),
			finding.SafeMarkdownText(j.Summary.Headline(j.Findings).Line().In(p.Lang)), fence, bytes.TrimRight(b.Bytes(), "\n"), fence)
	}
	return bw.Flush()
}
