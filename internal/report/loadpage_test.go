package report

import (
	"math"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// The recorder sits on the generator's hot path: once a second has begun,
// recording a sample into it allocates nothing.
func TestLoadRecorderNoAllocation(t *testing.T) {
	r := NewLoadRecorder()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	s := &loadgen.Sample{Start: t0, Elapsed: 3 * time.Millisecond, Label: "home", Code: 200, Success: true}
	r.Record(s)
	if n := testing.AllocsPerRun(1000, func() { r.Record(s) }); n != 0 {
		t.Errorf("%.1f allocations per sample", n)
	}
}

// Per-label seconds keep 240 log buckets: a quantile is within 9% of the
// exact one.
func TestLogHistQuantile(t *testing.T) {
	var h logHist
	for us := int64(1); us <= 100000; us++ {
		h.add(us)
	}
	for _, q := range []float64{0.5, 0.9, 0.99} {
		exact := q * 100000
		if got := h.quantile(q); math.Abs(got-exact)/exact > 0.09 {
			t.Errorf("q%.2f: %.0f µs, exact %.0f", q, got, exact)
		}
	}
	var empty *logHist
	if !math.IsNaN(empty.quantile(0.9)) {
		t.Error("an empty label-second has a p90")
	}
}

// A summary whose generator saturated is said at the top of the page.
func TestLoadPageSaturation(t *testing.T) {
	busy := &loadgen.Summary{Requests: 10, ClientCPU: 97}
	if p := NewLoadPage(busy, nil, finding.EN, Tool{}); len(p.Notes) != 1 {
		t.Errorf("notes %v", p.Notes)
	}
	behind := &loadgen.Summary{Requests: 10, Open: &loadgen.OpenStats{Behind: "generator", Late: 40, Scheduled: 100}}
	if p := NewLoadPage(behind, nil, finding.ZH, Tool{}); len(p.Notes) != 1 || p.Notes[0].ZH == "" {
		t.Errorf("notes %v", p.Notes)
	}
	if p := NewLoadPage(&loadgen.Summary{Requests: 10, ClientCPU: 40, Interrupted: true}, nil, finding.EN, Tool{}); len(p.Notes) != 1 {
		t.Errorf("an interrupted run: notes %v", p.Notes)
	}
}

// Seconds are wall-clock seconds: a window starting at .5 s covers half of
// its first second and half of its last, and says so (the page draws
// requests/Span, the rate, not a dip).
func TestLoadPageSpans(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 500_000_000, time.UTC)
	r := NewLoadRecorder()
	agg := loadgen.NewAggregator()
	for i := range 3000 { // 1000/s for 3 s
		s := &loadgen.Sample{Start: t0.Add(time.Duration(i) * time.Millisecond), Elapsed: time.Millisecond, Label: "a", Code: 200, Success: true, Thread: i}
		r.Record(s)
		agg.Add(s)
	}
	sum := agg.Summary("load")
	sum.Duration = 3
	p := NewLoadPage(sum, r, finding.EN, Tool{})
	if len(p.Seconds) != 4 {
		t.Fatalf("%d seconds", len(p.Seconds))
	}
	for i, want := range []float64{0.5, 1, 1, 0.5} {
		s := p.Seconds[i]
		if math.Abs(s.Span-want) > 1e-6 || math.Abs(float64(s.Requests)/s.Span-1000) > 1 {
			t.Errorf("second %d: %d requests over %.3f s", i, s.Requests, s.Span)
		}
	}
}
