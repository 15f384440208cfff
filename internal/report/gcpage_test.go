package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
)

const liveGC = "../jvm/gclog/testdata/live/"

// The page's points are the log's: one heap point per collection, one
// pause point per pause, on the uptime clock, and the rates over time add
// up to the summary's allocation rate.
func TestNewGCPageRealLog(t *testing.T) {
	rs, evs, err := AnalyzeGC(t.Context(), gclog.FileSources(liveGC+"jdk17-g1-12s.log"), gclog.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	p := NewGCPage(rs, evs, finding.EN)
	if len(p.JVMs) != 1 {
		t.Fatalf("%d JVMs", len(p.JVMs))
	}
	j := p.JVMs[0]
	s := j.Summary
	if j.Clock != "uptime" || j.PauseEvents != s.Pauses || len(j.Pauses) != s.Pauses || j.Collections != s.Collections || len(j.Heap) != s.Collections {
		t.Errorf("clock %q, %d pause points of %d pauses (summary %d), %d heap points of %d collections (summary %d)",
			j.Clock, len(j.Pauses), j.PauseEvents, s.Pauses, len(j.Heap), j.Collections, s.Collections)
	}
	if s.AllocRateMBs <= 0 || !j.Short.IsZero() {
		t.Fatalf("a 12 s log: allocation rate %v, short %q", s.AllocRateMBs, j.Short.EN)
	}
	// mean of the intervals' rates = allocated / span (the summary divides
	// by the log's span and counts the first collection too: within 15 %)
	sum := 0.0
	for _, r := range j.Rates {
		sum += r.AllocMBs
	}
	mean := sum / float64(len(j.Rates))
	if math.Abs(mean-s.AllocRateMBs)/s.AllocRateMBs > 0.15 {
		t.Errorf("rates over time average %.1f MB/s, summary says %.1f", mean, s.AllocRateMBs)
	}
	if p.Title != liveGC+"jdk17-g1-12s.log" {
		t.Errorf("title %q", p.Title)
	}
}

// Logs of two JVMs given together: a report and points for each, and each
// report says the files were split.
func TestAnalyzeGCTwoJVMs(t *testing.T) {
	rs, evs, err := AnalyzeGC(t.Context(), gclog.FileSources(liveGC+"jdk17-g1.log", liveGC+"jdk17-parallel.log"), gclog.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || len(evs) != 2 {
		t.Fatalf("%d reports, %d point sets", len(rs), len(evs))
	}
	p := NewGCPage(rs, evs, finding.ZH)
	for i, j := range p.JVMs {
		if len(j.Pauses) != j.Summary.Pauses || len(j.Heap) == 0 {
			t.Errorf("JVM %d (%s): %d pause points for %d pauses, %d heap points", i+1, j.Name, len(j.Pauses), j.Summary.Pauses, len(j.Heap))
		}
		split := false
		for _, f := range j.Findings {
			split = split || f.ID == "gc.separate-jvms"
		}
		if !split {
			t.Errorf("JVM %d: no gc.separate-jvms finding", i+1)
		}
	}
	if p.JVMs[0].Summary.CollectorName == p.JVMs[1].Summary.CollectorName {
		t.Errorf("both JVMs %s", p.JVMs[0].Summary.CollectorName)
	}
	if _, _, err := AnalyzeGC(t.Context(), gclog.FileSources(liveGC+"nonexistent.log"), gclog.DefaultThresholds()); err == nil {
		t.Error("a missing file: no error")
	}
}

// A log with wall-clock times only is drawn in seconds since its first event.
func TestGCEventsWallClock(t *testing.T) {
	ev := NewGCEvents()
	e := gclog.NewEvent()
	e.Kind, e.PauseMs, e.HeapBeforeKB, e.HeapAfterKB = gclog.KindYoung, 3, 4096, 1024
	e.Wall = mustTime(t, "2026-11-22T01:00:00Z")
	ev.Add(&e)
	e.Wall = mustTime(t, "2026-11-22T01:00:30Z")
	ev.Add(&e)
	u := gclog.NewEvent()
	u.Kind, u.PauseMs = gclog.KindYoung, 2 // no time at all
	ev.Add(&u)
	p := NewGCPage([]*gclog.Report{{}}, []*GCEvents{ev}, finding.EN)
	j := p.JVMs[0]
	if j.Clock != "wall" || len(j.Pauses) != 2 || j.Pauses[1].UptimeS != 30 || j.Untimed != 1 || !j.Start.Equal(mustTime(t, "2026-11-22T01:00:00Z")) {
		t.Errorf("clock %q start %v, pauses %+v, untimed %d", j.Clock, j.Start, j.Pauses, j.Untimed)
	}
	// 3 MB allocated over 30 s in the second point
	if len(j.Rates) == 0 || math.Abs(j.Rates[len(j.Rates)-1].AllocMBs*30/float64(len(j.Rates))-3) > 0.01 {
		t.Errorf("rates %+v", j.Rates)
	}
}

// The GC document's formats come from one switch: its text is gclog's
// (the one GC text), its Markdown says the headline and fences that text,
// its JSON is the page; the run's GC sentence is gclog's, also from a run
// page read back from its JSON.
func TestWriteGCFormatsAndLine(t *testing.T) {
	rs, evs, err := AnalyzeGC(t.Context(), gclog.FileSources(liveGC+"jdk17-g1.log", liveGC+"jdk17-parallel.log"), gclog.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		p := NewGCPage(rs, evs, lang)
		var want bytes.Buffer
		for i, r := range rs {
			if i > 0 {
				want.WriteString("\n")
			}
			if err := gclog.WriteText(&want, r.Summary, r.Findings, lang); err != nil {
				t.Fatal(err)
			}
		}
		var text, md, js bytes.Buffer
		for _, w := range []struct {
			f Format
			b *bytes.Buffer
		}{{Text, &text}, {Markdown, &md}, {JSON, &js}} {
			if !GCFormats().Has(w.f) {
				t.Errorf("GCFormats lacks %s", w.f)
			}
			if err := WriteGC(w.b, p, w.f); err != nil {
				t.Fatalf("%s: %v", w.f, err)
			}
		}
		if text.String() != want.String() {
			t.Errorf("%s: WriteGC text is not gclog.WriteText's:\n%s\nwant\n%s", lang, text.String(), want.String())
		}
		var back GCPage
		if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Schema != GCPageSchema || len(back.JVMs) != 2 {
			t.Fatalf("%s: JSON %v, schema %q, %d JVMs", lang, err, back.Schema, len(back.JVMs))
		}
		for _, r := range rs {
			line := r.Summary.Headline(r.Findings).Line().In(lang)
			// the run page's view, and the same view after its JSON
			v := NewGCView(r.Summary, r.Findings)
			b, _ := json.Marshal(v)
			var rv GCView
			if err := json.Unmarshal(b, &rv); err != nil {
				t.Fatal(err)
			}
			if v.Line(lang) != line || rv.Line(lang) != line {
				t.Errorf("%s: GCView.Line %q, after JSON %q, gclog's %q", lang, v.Line(lang), rv.Line(lang), line)
			}
			if !strings.Contains(md.String(), line) {
				t.Errorf("%s: Markdown lacks the headline %q", lang, line)
			}
		}
		if n := strings.Count(md.String(), "```text\n"); n != 2 || !strings.Contains(md.String(), lThroughputRow(lang)) {
			t.Errorf("%s: Markdown has %d fenced texts:\n%s", lang, n, md.String())
		}
	}
}

// lThroughputRow is the throughput row's label, as gclog's text has it.
func lThroughputRow(l finding.Lang) string { return finding.T("Throughput", "吞吐量").In(l) }
