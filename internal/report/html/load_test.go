package html

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
)

// loadFixture is a load test of 30 s, made up but shaped like a real one:
// three labels (one slow), a stall of 500s and timeouts at 20-22 s, fed to
// the recorder sample by sample as a run would (deterministic: seeded).
// open makes it an open-model run with send lag during the stall. Users
// spread the samples over the recorder's shards (the goldens were the same
// with all in one).
func loadFixture(l finding.Lang, open bool, labels ...string) *report.LoadPage {
	if len(labels) == 0 {
		labels = []string{"home", "balance", "login"}
	}
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 9))
	rec := report.NewLoadRecorder()
	agg := loadgen.NewAggregator()
	for sec := 0; sec < 30; sec++ {
		stall := sec >= 20 && sec < 23
		n := 200 + rng.IntN(20)
		if stall {
			n = 60
		}
		for i := range n {
			label := labels[i%len(labels)]
			ms := 2 + rng.ExpFloat64()*3
			if label == labels[len(labels)-1] {
				ms *= 4
			}
			s := &loadgen.Sample{Start: t0.Add(time.Duration(sec)*time.Second + time.Duration(i)*time.Second/time.Duration(n)),
				Label: label, Code: 200, Success: true, BytesIn: 512, BytesOut: 120, Thread: 1 + i%11}
			if stall {
				ms = 200 + rng.Float64()*800
				switch i % 4 {
				case 0:
					s.Code, s.Success, s.Kind = 500, false, loadgen.KindStatus
				case 1:
					s.Code, s.Success, s.Kind = 0, false, loadgen.KindTimeout
				}
				if open {
					s.Lag = time.Duration(50+rng.IntN(400)) * time.Millisecond
				}
			} else if open {
				s.Lag = time.Duration(rng.IntN(900)) * time.Microsecond
			}
			s.Elapsed = time.Duration(ms * float64(time.Millisecond))
			rec.Record(s)
			agg.Add(s)
		}
	}
	sum := agg.Summary("load")
	sum.Target, sum.Model, sum.Users, sum.Connections, sum.ClientCPU = "http://10.0.0.5:8080/api", "closed", 60, 60, 41.5
	if open {
		sum.Model, sum.Users, sum.Connections = "open", 0, 100
		sum.Open = &loadgen.OpenStats{Rate: 200, Scheduled: 6000, Sent: 5990, Missed: 10, Late: 180, MaxLagMS: 449, MeanLagMS: 9.2, Behind: "server",
			Uncorrected: loadgen.Latency{P50: 3.1, P99: 410}}
	}
	return report.NewLoadPage(sum, rec, l, report.Tool{Name: "tuneloop", Version: "v0.9.0-test"})
}

func renderLoad(t *testing.T, p *report.LoadPage) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteLoad(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// parseHTML checks the page is well formed: every element closed in order
// (HTML's void elements excepted), as a browser's tree would nest them.
func parseHTML(t *testing.T, name, s string) {
	t.Helper()
	// <script> and <style> hold raw text (HTML's rule, not XML's): drop it.
	s = rawText.ReplaceAllString(s, "<$1$2></$1>")
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: does not parse: %v", name, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, e.Name.Local)
		case xml.EndElement:
			if len(stack) == 0 || stack[len(stack)-1] != e.Name.Local {
				t.Fatalf("%s: </%s> closes %v", name, e.Name.Local, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%s: unclosed %v", name, stack)
	}
}

var rawText = regexp.MustCompile(`(?s)<(script|style)([^>]*)>.*?</(?:script|style)>`)

func goldenLoadPages() map[string]*report.LoadPage {
	fromSummary := loadFixture(finding.EN, false)
	fromSummary = report.NewLoadPage(fromSummary.Summary, nil, finding.EN, fromSummary.Tool)
	return map[string]*report.LoadPage{
		"load-closed-en":  loadFixture(finding.EN, false),
		"load-closed-zh":  loadFixture(finding.ZH, false),
		"load-open-en":    loadFixture(finding.EN, true),
		"load-open-zh":    loadFixture(finding.ZH, true),
		"load-summary-en": fromSummary,
	}
}

func TestGoldenLoadPages(t *testing.T) {
	for name, p := range goldenLoadPages() {
		t.Run(name, func(t *testing.T) {
			got := renderLoad(t, p)
			checkSelfContained(t, name, got)
			parseHTML(t, name, got)
			// The shared stylesheet and script are the run page's goldens'
			// concern: left out here, so a change to them is reviewed once.
			checkGolden(t, name, rawText.ReplaceAllString(got, "<$1$2>…</$1>"))
		})
	}
}

// What a reader checks on the page: the sections, the numbers of the
// summary, the stall visible in the series, each language's words.
func TestLoadPageContent(t *testing.T) {
	p := loadFixture(finding.EN, true)
	s := renderLoad(t, p)
	for _, id := range []string{"sec-load-summary", "sec-load-time", "sec-load-labels", "sec-load-errors", "sec-load-dist", "sec-load-open"} {
		if !strings.Contains(s, `<section id="`+id+`"`) {
			t.Errorf("section %s missing", id)
		}
	}
	sum := p.Summary
	for _, want := range []string{fmtInt(sum.Requests), "p99.9", "99.999%", "Send lag behind the schedule", "timeout", "unexpected status code",
		">500<", "the server (its connections were held)", "open model", "v0.9.0-test", "2026-11-25 09:00:00 UTC", "home", "balance", "login"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q", want)
		}
	}
	// The series come from the samples: 30 seconds, p90 present, the stall's
	// seconds slow and failing, per label and per code.
	if p.Series != "samples" || len(p.Seconds) != 30 || len(p.Labels) != 3 {
		t.Fatalf("series %q, %d seconds, %d labels", p.Series, len(p.Seconds), len(p.Labels))
	}
	calm, stall := p.Seconds[5], p.Seconds[21]
	if math.IsNaN(calm.P90) || calm.P90 > 50 || stall.P50 < 200 || stall.Errors != 30 || stall.Codes["500"] != 15 || stall.Kinds["timeout"] != 15 {
		t.Errorf("calm %+v, stall %+v", calm, stall)
	}
	if stall.LagMean < 50 || calm.LagMax > 1 {
		t.Errorf("send lag: calm %.3f ms max, stall %.1f ms mean", calm.LagMax, stall.LagMean)
	}
	var total int64
	for _, x := range p.Seconds {
		total += x.Requests
	}
	if total != sum.Requests {
		t.Errorf("series add up to %d requests, the summary has %d", total, sum.Requests)
	}
	// The percentile plot runs 0 .. 99.999% and never decreases.
	pts := p.Percentiles
	if pts[0].Pct != 0 || pts[len(pts)-1].Pct != 99.999 {
		t.Errorf("percentiles %v .. %v", pts[0], pts[len(pts)-1])
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].MS < pts[i-1].MS {
			t.Errorf("latency falls from %v to %v", pts[i-1], pts[i])
		}
	}
	zh := renderLoad(t, loadFixture(finding.ZH, true))
	for _, want := range []string{`lang="zh"`, "按标签", "延迟分布", "开放模型", "超时", "每秒发送相对计划的延迟"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh: missing %q", want)
		}
	}
}

// Labels and targets come from the user's plan: they reach the page
// escaped, in the tables and inside the SVG legends.
func TestLoadPageHostile(t *testing.T) {
	p := loadFixture(finding.EN, false, `<script>alert(1)</script>`, "a\x1b[31mred\u202e", `"><img src=x onerror=alert(1)>`)
	p.Summary.Target = `http://x/"><script>alert(2)</script>`
	p.Title = finding.SafeLine(p.Summary.Target)
	s := renderLoad(t, p)
	checkSelfContained(t, "hostile", s)
	parseHTML(t, "hostile", s)
	for _, bad := range []string{"<script>alert", "<img src=x", "\x1b", "\u202e"} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

// The summary alone (a load.json): charts from its per-second series, the
// distribution from its percentiles, no per-label lines.
func TestLoadPageFromSummary(t *testing.T) {
	p := goldenLoadPages()["load-summary-en"]
	if p.Series != "summary" || len(p.Seconds) == 0 || len(p.Labels) != 0 || len(p.Percentiles) != 7 {
		t.Fatalf("series %q, %d seconds, %d labels, %d percentiles", p.Series, len(p.Seconds), len(p.Labels), len(p.Percentiles))
	}
	s := renderLoad(t, p)
	if !strings.Contains(s, "from the summary&#39;s per-second series") || strings.Contains(s, "p90 latency per second, per label") {
		t.Error("a page from the summary alone does not say so, or draws per-label lines it has no data for")
	}
	empty := report.NewLoadPage(&loadgen.Summary{Source: "load"}, nil, finding.EN, report.Tool{})
	e := renderLoad(t, empty)
	parseHTML(t, "empty", e)
	if strings.Contains(e, `id="sec-load-time"`) || strings.Contains(e, `id="sec-load-dist"`) {
		t.Error("charts drawn for a load with no requests")
	}
}

// The run report's hook: the same sections, no page around them.
func TestWriteLoadSection(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLoadSection(&b, loadFixture(finding.EN, false)); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, "<html") || strings.Contains(s, "<script") || !strings.Contains(s, `<section id="sec-load-labels"`) {
		t.Errorf("section: %.300s", s)
	}
	parseHTML(t, "section", "<div>"+s+"</div>")
}
