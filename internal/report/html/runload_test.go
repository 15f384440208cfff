package html

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
)

// runLoadFixture is htmlFixture's run with the load's detail as a run
// folder keeps it: 30 s of an open-model load at 200/s over three labels
// (one hostile), fed to the recorder sample by sample, a stall of 500s,
// timeouts and send lag at 20-22 s, then written and read back as
// raw/load-detail.json is.
func runLoadFixture(t *testing.T, l finding.Lang) *report.RunPage {
	t.Helper()
	p := htmlFixture(2, l)
	t0 := time.Date(2026, 11, 22, 1, 0, 10, 0, time.UTC)
	rng := rand.New(rand.NewPCG(3, 5))
	labels := []string{"home", "balance", "<b>login</b>\x1b[31m"}
	rec := report.NewLoadRecorder()
	agg := loadgen.NewAggregator()
	for sec := range 30 {
		stall := sec >= 20 && sec < 23
		for i := range 200 {
			s := &loadgen.Sample{Start: t0.Add(time.Duration(sec)*time.Second + time.Duration(i)*5*time.Millisecond),
				Label: labels[i%3], Code: 200, Success: true, Thread: i % 16, Elapsed: time.Duration((2 + rng.ExpFloat64()*3) * float64(time.Millisecond))}
			if i%3 == 2 {
				s.Elapsed *= 4
			}
			s.Lag = time.Duration(rng.IntN(900)) * time.Microsecond
			if stall {
				s.Elapsed, s.Lag = time.Duration(200+rng.IntN(800))*time.Millisecond, time.Duration(50+rng.IntN(400))*time.Millisecond
				switch i % 4 {
				case 0:
					s.Code, s.Success, s.Kind = 500, false, loadgen.KindStatus
				case 1:
					s.Code, s.Success, s.Kind = 0, false, loadgen.KindTimeout
				}
			}
			rec.Record(s)
			agg.Add(s)
		}
	}
	sum := agg.Summary("tuneloop load")
	sum.Target, sum.Model, sum.Connections, sum.Duration = "http://127.0.0.1:8080/api", "open", 100, 30
	sum.Open = &loadgen.OpenStats{Rate: 200, Scheduled: 6000, Sent: 6000, Late: 150, MaxLagMS: 449, MeanLagMS: 9.2, Behind: "server",
		Uncorrected: loadgen.Latency{P50: 3.1, P99: 410}}
	// The run's own load line is the same load (report.loadView's fields).
	p.Load = &report.LoadView{Source: sum.Source, Model: sum.Model, Requests: sum.Requests, Errors: sum.Errors, TPS: sum.TPS,
		MeanMS: sum.Latency.Mean, P50MS: sum.Latency.P50, P90MS: sum.Latency.P90, P99MS: sum.Latency.P99, MaxMS: sum.Latency.Max}
	for _, x := range sum.Series {
		p.Load.Series = append(p.Load.Series, report.LoadPoint{T: sum.Start.Add(time.Duration(x.T) * time.Second), TPS: float64(x.Requests),
			P50MS: x.P50, P99MS: x.P99, Errors: x.Errors})
	}
	b, err := json.Marshal(rec.Detail(sum))
	if err != nil {
		t.Fatal(err)
	}
	d, err := loaddetail.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	p.LoadDetail = report.NewLoadPageDetail(sum, d, l, report.Tool{Name: "tuneloop", Version: "v0.9.0-test"})
	return p
}

// A run whose folder kept the load's detail draws the load page's
// sections after its own load charts; the other pages are unchanged
// (their goldens, TestGoldenPages).
func TestRunLoadGolden(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		name := "run-load-" + string(l)
		got := renderHTML(t, runLoadFixture(t, l))
		checkSelfContained(t, name, got)
		checkGolden(t, name, got)
		for _, want := range []string{`href="#sec-load-summary"`, `id="sec-load-time"`, `id="sec-load-labels"`, `id="sec-load-errors"`,
			`id="sec-load-dist"`, `id="sec-load-open"`, "p90", "&lt;b&gt;login&lt;/b&gt;"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: no %s", name, want)
			}
		}
		if strings.Contains(got, "<b>login") || strings.Contains(got, "\x1b") {
			t.Errorf("%s: a label's markup or escape reached the page", name)
		}
		// After the run's own load charts, before the CPU.
		if i, j, k := strings.Index(got, `id="sec-load"`), strings.Index(got, `id="sec-load-summary"`), strings.Index(got, `id="sec-cpu"`); !(i < j && j < k) {
			t.Errorf("%s: sections at %d, %d, %d", name, i, j, k)
		}
	}
	zh := renderHTML(t, runLoadFixture(t, finding.ZH))
	if !strings.Contains(zh, "压测详情") || !strings.Contains(zh, "延迟分布") {
		t.Error("the Chinese page's load sections are not in Chinese")
	}
}

// Without a detail the run page is what it was: no load page sections.
func TestRunLoadAbsent(t *testing.T) {
	got := renderHTML(t, htmlFixture(2, finding.EN))
	if strings.Contains(got, "sec-load-summary") || strings.Contains(got, "sec-load-dist") {
		t.Error("load page sections without a detail")
	}
}
