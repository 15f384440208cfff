package gclog

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestReportJSON: every fixture's report marshals (no NaN/Inf anywhere).
func TestReportJSON(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.txt")
	live, _ := filepath.Glob("testdata/live/*.log")
	for _, f := range append(files, live...) {
		r, err := Analyze(FileSources(f), DefaultThresholds())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestGolden pins the text report of two logs in both languages; run with
// -update after an intended change.
func TestGolden(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"testdata/corpus/openjdk_SampleSun1_7_0_40CMS_PrintGCCause.txt", "cms-printgccause"},
		{"testdata/live/jdk17-g1.log", "jdk17-g1"},
		// One pause: no percentiles, no throughput.
		{"testdata/corpus/openjdk_SampleSun1_8_0G1SystemGcYoung.txt", "jdk8-g1-one-pause"},
	} {
		r, err := Analyze(FileSources(c.in), DefaultThresholds())
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
			var buf bytes.Buffer
			if err := WriteText(&buf, r.Summary, r.Findings, lang); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", c.out+"."+string(lang)+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if !bytes.Equal(want, buf.Bytes()) {
				t.Errorf("%s differs from the report:\n%s", golden, buf.String())
			}
		}
	}
}

// unifiedLine formats one Parallel pause line at time t seconds.
func unifiedLine(id int, t float64, kind, cause string, beforeMB, afterMB int, ms float64) string {
	return fmt.Sprintf("[%.3fs][info][gc] GC(%d) Pause %s (%s) %dM->%dM(1024M) %.3fms\n", t, id, kind, cause, beforeMB, afterMB, ms)
}

func TestLeakSuspected(t *testing.T) {
	// Two hours, a young GC every 10 s, a full GC every 5 min whose live set
	// grows by 20 MB each time: a leak.
	var b strings.Builder
	b.WriteString("[0.001s][info][gc] Using Parallel\n")
	id := 0
	for s := 10; s <= 7200; s += 10 {
		live := 100 + 20*(s/300)
		if s%300 == 0 {
			b.WriteString(unifiedLine(id, float64(s), "Full", "Ergonomics", live+300, live, 80))
		} else {
			b.WriteString(unifiedLine(id, float64(s), "Young", "Allocation Failure", live+300, live+10, 5))
		}
		id++
	}
	s, _ := parseString(t, b.String())
	if s.HeapAfter.Basis != "old" || s.HeapAfter.R2 < 0.95 || s.HeapAfter.SlopeKBPerH < 200*1024 {
		t.Errorf("trend %+v", s.HeapAfter)
	}
	f := ids(Findings(s, DefaultThresholds(), "leak.log"))["gc.leak-suspected"]
	if f.Status != finding.Fail || f.Severity != finding.Warning {
		t.Errorf("leak not suspected: %+v", f)
	}

	// Same shape without full GCs: the floor of the young GCs carries the trend.
	b.Reset()
	for s := 10; s <= 7200; s += 10 {
		live := 100 + 20*(s/300)
		b.WriteString(unifiedLine(s, float64(s), "Young", "Allocation Failure", live+300, live+(s%30), 5))
	}
	s, _ = parseString(t, b.String())
	if s.HeapAfter.Basis != "floor" || s.HeapAfter.R2 < 0.9 {
		t.Errorf("floor trend %+v", s.HeapAfter)
	}
	if f := ids(Findings(s, DefaultThresholds(), "leak.log"))["gc.leak-suspected"]; f.Status != finding.Fail {
		t.Errorf("floor leak not suspected: %+v", f.Status)
	}

	// A flat live set is not a leak.
	b.Reset()
	for s := 10; s <= 7200; s += 10 {
		b.WriteString(unifiedLine(s, float64(s), "Young", "Allocation Failure", 400, 100+(s%30), 5))
	}
	s, _ = parseString(t, b.String())
	if f := ids(Findings(s, DefaultThresholds(), "flat.log"))["gc.leak-suspected"]; f.Status != finding.Pass {
		t.Errorf("flat heap: %+v %+v", f.Status, s.HeapAfter)
	}
}
