package gclog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func ids(fs []finding.Finding) map[string]finding.Finding {
	m := map[string]finding.Finding{}
	for _, f := range fs {
		m[f.ID] = f
	}
	return m
}

func healthy() Summary {
	return Summary{Collector: G1, DurationS: 3600, Pauses: 1000, PauseTotalMs: 18000, PauseAvgMs: 18, PauseP50Ms: 15, PauseP95Ms: 30,
		PauseP99Ms: 45, PauseMaxMs: 80, ThroughputPct: 99.5, WorstWindowPct: 1, Collections: 1000, Events: 1000, HeapMaxKB: 4 << 20,
		AllocRateMBs: 200, PromotionRateMBs: 2}
}

func TestFindingsHealthySaysGCIsNotTheProblem(t *testing.T) {
	fs := Findings(healthy(), DefaultThresholds(), "gc.log")
	m := ids(fs)
	f, ok := m["gc.not-the-bottleneck"]
	if !ok || f.Status != finding.Pass || !strings.Contains(f.Title.EN, "GC is not the problem") || f.Title.ZH == "" {
		t.Fatalf("want gc.not-the-bottleneck, got %v", m)
	}
	for _, f := range fs {
		if f.Status == finding.Fail && f.Severity >= finding.Warning {
			t.Errorf("healthy log flagged: %s", f.ID)
		}
	}
	checkBilingual(t, fs)
}

func TestFindingsProblems(t *testing.T) {
	s := healthy()
	s.Collector = CMS
	s.PauseTotalMs = 400000 // 11 % of the hour
	s.ThroughputPct = 100 - 400000/3600e3*100
	s.PauseP99Ms, s.PauseMaxMs = 1200, 4000
	s.FullGCs, s.FullGCMs = 5, 20000
	s.ConcModeFailures, s.PromotionFailed = 3, 1
	s.ExplicitGCs, s.FullGCsExplicit = 600, 0
	s.Safepoints, s.SafepointTotalMs, s.TTSPMaxMs = 100, 500000, 250
	s.HeapAfter = HeapTrend{Basis: "old", Points: 20, FirstKB: 1 << 20, LastKB: 3 << 20, SlopeKBPerH: 2 << 20, R2: 0.95, SpanS: 3600}
	m := ids(Findings(s, DefaultThresholds(), "gc.log"))
	want := map[string]finding.Severity{
		"gc.throughput-low": finding.Critical, "gc.long-pause": finding.Critical, "gc.full-gc": finding.Warning,
		"gc.concurrent-mode-failure": finding.Critical, "gc.promotion-failed": finding.Critical,
		"gc.explicit-system-gc": finding.Warning, "gc.safepoint-ttsp": finding.Warning, "gc.leak-suspected": finding.Warning,
	}
	for id, sev := range want {
		f, ok := m[id]
		if !ok || f.Status != finding.Fail || f.Severity != sev {
			t.Errorf("%s: got %+v", id, f.Status)
		}
	}
	if _, ok := m["gc.not-the-bottleneck"]; ok {
		t.Error("a sick log must not say GC is fine")
	}
	if m["gc.leak-suspected"].Confidence != 0.95 {
		t.Error("leak confidence should be the fit's R²")
	}
}

func TestFindingsFromCorpus(t *testing.T) {
	r, err := Analyze(FileSources("testdata/corpus/openjdk_SampleSun1_5_0ConcurrentModeFailure.txt"), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	m := ids(r.Findings)
	if f := m["gc.concurrent-mode-failure"]; f.Severity != finding.Critical || len(f.Evidence) == 0 {
		t.Errorf("want critical concurrent mode failure: %+v", f)
	}
	if m["gc.full-gc"].Status != finding.Fail {
		t.Error("want full GC finding for CMS")
	}
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		var buf bytes.Buffer
		if err := WriteText(&buf, r.Summary, r.Findings, lang); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "gc.concurrent-mode-failure") || (lang == finding.ZH && !strings.Contains(out, "吞吐量")) {
			t.Errorf("%s report:\n%s", lang, out)
		}
	}
}

func TestFindingsNoTimestamps(t *testing.T) {
	r, err := Analyze(FileSources("testdata/corpus/openjdk_SampleSun1_3_1_19SunOS.txt"), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if f := ids(r.Findings)["gc.throughput-low"]; f.Status != finding.Unavailable || f.Reason.EN == "" {
		t.Errorf("no timestamps: want unavailable throughput, got %+v", f)
	}
}

func TestRulesAreValidAndCoverEveryFinding(t *testing.T) {
	rs := Rules(DefaultThresholds())
	if err := finding.ValidateRules(rs); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, r := range finding.Infos(rs) {
		known[r.ID] = true
		for _, s := range []string{r.Checks.EN, r.Checks.ZH} {
			if strings.Contains(s, "%!") {
				t.Errorf("%s: bad format in %q", r.ID, s)
			}
		}
		if len(r.Reads) == 0 {
			t.Errorf("%s: says nothing of what it reads", r.ID)
		}
	}
	// Every finding the problem summaries produce comes from a listed rule,
	// and carries the rule's texts in both languages.
	sick := healthy()
	sick.Collector = CMS
	sick.Unparsed, sick.Lines = 3, 100
	sick.FullGCs, sick.ConcModeFailures, sick.PromotionFailed, sick.ToSpaceExhausted, sick.OutOfMemory = 5, 1, 1, 1, 1
	sick.ExplicitGCs, sick.MetadataGCs, sick.GCLockerGCs, sick.HumongousGCs, sick.Stalls = 10, 6, 2, 3, 2
	sick.CPUEvents, sick.SysGtUser = 20, 5
	for _, s := range []Summary{healthy(), sick, {}} {
		for _, f := range Findings(s, DefaultThresholds(), "gc.log") {
			if !known[f.ID] {
				t.Errorf("finding %s is not in Rules()", f.ID)
			}
			if f.Subject != "gc.log" || f.Why.ZH == "" || len(f.References) == 0 {
				t.Errorf("%s: subject %q, why %q, refs %v", f.ID, f.Subject, f.Why.ZH, f.References)
			}
		}
	}
	if fs := Findings(sick, DefaultThresholds(), "gc.log"); len(fs) < 12 {
		t.Errorf("a log with every problem gave %d findings", len(fs))
	}
}
