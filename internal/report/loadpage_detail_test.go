package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// feed records n samples a second for secs seconds over labels, a 500 and
// a timeout every 50th, and returns the summary of the same samples.
func feed(r *LoadRecorder, t0 time.Time, secs, n int, labels ...string) *loadgen.Summary {
	agg := loadgen.NewAggregator()
	for s := range secs {
		for i := range n {
			smp := &loadgen.Sample{Start: t0.Add(time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(n)),
				Elapsed: time.Duration(1+i%7) * time.Millisecond, Label: labels[i%len(labels)], Code: 200, Success: true, Thread: i}
			if i%50 == 49 {
				smp.Code, smp.Success, smp.Kind = 500, false, loadgen.KindStatus
			}
			r.Record(smp)
			agg.Add(smp)
		}
	}
	sum := agg.Summary("load")
	sum.Duration = float64(secs)
	return sum
}

// The page a run folder's detail draws is the page the recorder drew
// while the load ran: the detail survives its file.
func TestLoadDetailRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 250_000_000, time.UTC)
	r := NewLoadRecorder()
	sum := feed(r, t0, 20, 100, "home", "login")
	live := NewLoadPage(sum, r, finding.EN, Tool{})
	b, err := json.Marshal(r.Detail(sum))
	if err != nil {
		t.Fatal(err)
	}
	d, err := loaddetail.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	again := NewLoadPageDetail(sum, d, finding.EN, Tool{})
	for _, c := range [][2]any{{live.Seconds, again.Seconds}, {live.Labels, again.Labels}, {live.Percentiles, again.Percentiles}, {live.Notes, again.Notes}} {
		if a, b := fmt.Sprint(c[0]), fmt.Sprint(c[1]); a != b {
			t.Errorf("from the file:\n%s\nlive:\n%s", b, a)
		}
	}
	if again.Series != "samples" || len(again.Seconds) != 21 || math.Abs(again.Seconds[0].Span-0.75) > 1e-6 || again.Seconds[0].Errors != 1 {
		t.Errorf("series %s, %d seconds, first %+v", again.Series, len(again.Seconds), again.Seconds[0])
	}
	var n int64
	for _, s := range again.Seconds {
		n += s.Requests
	}
	if n != sum.Requests {
		t.Errorf("%d requests over time, %d in the summary", n, sum.Requests)
	}
}

// A load longer than the file's rows is kept as rows of a few seconds
// (rates unchanged), labels past the bound are counted, and both are said.
func TestLoadDetailCapped(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	r := NewLoadRecorder()
	labels := make([]string, 15)
	for i := range labels {
		labels[i] = fmt.Sprintf("step-%02d", i)
	}
	const secs = 2*loaddetail.MaxRows + 10
	sum := feed(r, t0, secs, 15, labels...)
	d := r.Detail(sum)
	if d.Width != 3 || len(d.Rows) != (secs+2)/3 || d.Seconds != secs || len(d.Labels) != loaddetail.MaxLabels || d.LabelsDropped != 3 {
		t.Fatalf("width %d, %d rows, %d seconds, %d labels, %d dropped", d.Width, len(d.Rows), d.Seconds, len(d.Labels), d.LabelsDropped)
	}
	if r := d.Rows[5]; r.N != 45 || r.Span != 3 || r.Kinds != nil {
		t.Errorf("a row of 3 s: %+v", r)
	}
	if last := d.Rows[len(d.Rows)-1]; last.Span != 1 || last.N != 15 {
		t.Errorf("the last row covers what is left: %+v", last)
	}
	b, _ := json.MarshalIndent(d, "", "  ")
	t.Logf("%d seconds x %d labels: %d KiB indented", secs, len(labels), len(b)>>10)
	if len(b) > loaddetail.MaxBytes/4 {
		t.Errorf("%d bytes", len(b))
	}
	if _, err := loaddetail.Decode(b); err != nil {
		t.Fatal(err)
	}
	p := NewLoadPageDetail(sum, d, finding.ZH, Tool{})
	if len(p.Notes) != 2 || p.Notes[0].ZH == "" {
		t.Errorf("notes %v", p.Notes)
	}
	if s := p.Seconds[5]; math.Abs(float64(s.Requests)/s.Span-15) > 1e-9 {
		t.Errorf("rate %v/s", float64(s.Requests)/s.Span)
	}
	if NewLoadRecorder().Detail(sum) != nil {
		t.Error("an empty recorder has a detail")
	}
}

// Shards hand their finished seconds over, so a long load holds one
// histogram per second; a late sample of a handed-over second still
// counts, and a detail taken while samples arrive is consistent.
func TestLoadRecorderHandOver(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	r := NewLoadRecorder()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range 60 {
				for i := range 40 {
					r.Record(&loadgen.Sample{Start: t0.Add(time.Duration(s) * time.Second), Elapsed: time.Duration(1+i) * time.Millisecond,
						Label: "a", Code: 200, Success: true, Thread: g*40 + i})
				}
			}
		}()
	}
	for range 5 {
		if d := r.Detail(nil); d != nil && d.Rows[0].N > 160 {
			t.Errorf("second 0: %d requests", d.Rows[0].N)
		}
	}
	wg.Wait()
	r.Record(&loadgen.Sample{Start: t0, Elapsed: 9 * time.Second, Label: "a", Success: false, Kind: loadgen.KindTimeout, Thread: 3})
	for i := range recShards { // a second later for every shard: all before it handed over
		r.Record(&loadgen.Sample{Start: t0.Add(70 * time.Second), Elapsed: time.Millisecond, Label: "a", Code: 200, Success: true, Thread: i})
	}
	for i, sh := range r.shards {
		if len(sh.secs) != 1 {
			t.Errorf("shard %d holds %d seconds", i, len(sh.secs))
		}
	}
	d := r.Detail(nil)
	if len(d.Rows) != 71 || d.Rows[0].N != 161 || d.Rows[0].Errors != 1 || d.Rows[0].Max < 9000 || d.Rows[30].N != 160 {
		t.Errorf("%d rows, second 0 %+v, second 30 %d requests", len(d.Rows), d.Rows[0], d.Rows[30].N)
	}
	if d.Rows[30].P50 < 19 || d.Rows[30].P50 > 21.5 {
		t.Errorf("second 30: p50 %.2f ms of 1..40 ms", d.Rows[30].P50)
	}
}
