package gclog

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Public sample logs from two open-source GC analysers' test resources
// (testdata/public/SOURCES.md), each checked against the numbers those
// projects' own tests assert. JDK 1.4-6 ParallelGC with
// -XX:+PrintAdaptiveSizePolicy lost every young GC (3 pauses found of 9, 1
// of 6, 4 of 10), CMS with -XX:PrintFLSStatistics missed or mislabelled
// full GCs, and JRockit -Xverbose:gcpause logs were taken for thread dumps.

// kindAgg is the summary's aggregate of one kind ("young", "full", ...).
func kindAgg(s Summary, name string) Agg {
	for _, a := range s.ByKind {
		if a.Name == name {
			return a
		}
	}
	return Agg{}
}

// msNear: GCViewer asserts pauses in seconds to 1e-6 or 1e-8.
func msNear(got, want float64) bool { return math.Abs(got-want) < 0.001 }

func TestPublicSamples(t *testing.T) {
	type want struct {
		young, full, other  int     // pauses by kind (other: initial-mark, remark)
		youngMs, fullMs     float64 // totals, -1 = not asserted
		youngMaxMs, fullMax float64 // maxima, -1 = not asserted
		collector           Collector
		check               func(t *testing.T, s Summary, st *Stats)
	}
	cases := []struct {
		file, asserts string
		w             want
	}{
		// GCViewer TestDataReaderSun1_4_0.testAdaptiveSizePolicy: 9 events, 3 full 0.026889 s, 6 gc 0.1709856 s.
		{"SampleSun1_4_0AdaptiveSizePolicy.txt", "GCViewer", want{young: 6, full: 3, youngMs: 170.9856, fullMs: 26.889, youngMaxMs: -1, fullMax: -1}},
		// GCViewer TestDataReaderSun1_5_0.testAdaptiveSizePolicy: 6 events, 1 full 0.0583435 s, 5 gc 0.0440787 s.
		{"SampleSun1_5_0AdaptiveSizePolicy.txt", "GCViewer", want{young: 5, full: 1, youngMs: 44.0787, fullMs: 58.3435, youngMaxMs: -1, fullMax: -1, collector: Parallel}},
		// GCViewer TestDataReaderSun1_6_0.testAdaptiveSizePolicy: 10 events, max gc 0.0224480 s, max full 0.0204436 s, 4 full.
		{"SampleSun1_6_0AdaptiveSizePolicy.txt", "GCViewer", want{young: 6, full: 4, youngMs: -1, fullMs: -1, youngMaxMs: 22.448, fullMax: 20.4436, collector: Parallel}},
		// GCViewer TestDataReaderSun1_6_0.testCMSAdaptiveSizePolicy: 11 gc pauses (young, initial mark, remark), 1 full, no error.
		{"SampleSun1_6_0CMSAdaptiveSizePolicy.txt", "GCViewer", want{young: 9, full: 1, other: 2, youngMs: -1, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: CMS}},
		// GCViewer TestDataReaderSun1_7_0.cmsPrintFlsStatistics1: young 0.0030039 s, full 0.0339164 s.
		{"SampleSun1_7_0CmsPrintFlsStats1.txt", "GCViewer", want{young: 1, full: 1, youngMs: 3.0039, fullMs: 33.9164, youngMaxMs: -1, fullMax: -1, collector: CMS}},
		// GCViewer cmsPrintFlsStatistics2: young 0.0054252 s, full 0.0356364 s and 0.0264843 s.
		{"SampleSun1_7_0CmsPrintFlsStats2.txt", "GCViewer", want{young: 1, full: 2, youngMs: 5.4252, fullMs: 35.6364 + 26.4843, youngMaxMs: -1, fullMax: 35.6364, collector: CMS}},
		// GCViewer cmsPrintFlsStatistics3: "GC; ParNew" 0.0252550 s.
		{"SampleSun1_7_0CmsPrintFlsStats3.txt", "GCViewer", want{young: 1, youngMs: 25.255, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: CMS}},
		// GCViewer TestDataReaderJRockit1_5_0.testMemStats2 (read as 1.6): 11 events.
		{"SampleJRockit1_5_20_memstats2.txt", "GCViewer", want{young: 11, youngMs: -1, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: JRockitConcurrent}},
		// GCViewer TestDataReaderJRockit1_6_0.testGcPauseSingleParCon: 52 events, the first at 26.242 s from 270909 KB.
		{"SampleJRockit1_6_verbose_gc_mode_singleparcon.txt", "GCViewer", want{youngMs: -1, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: JRockitConcurrent,
			check: func(t *testing.T, s Summary, st *Stats) {
				if s.Pauses != 52 {
					t.Errorf("pauses %d, want GCViewer's 52", s.Pauses)
				}
			}}},
		// garbagecat TestParallelPreprocessAction.testPreprocessingPrintAdaptiveSizePolicy: one PARALLEL_SCAVENGE, no UNKNOWN.
		{"garbagecat_dataset209.txt", "garbagecat", want{young: 1, youngMs: 71.2495, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: Parallel}},
		// garbagecat TestCmsPreprocessAction (dataset94): one PAR_NEW, no UNKNOWN ("[GC Before GC:").
		{"garbagecat_dataset94.txt", "garbagecat", want{young: 1, youngMs: 53.604, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: CMS}},
		// garbagecat (dataset115): CMS_SERIAL_OLD with ERROR_CMS_PROMOTION_FAILED, no UNKNOWN.
		{"garbagecat_dataset115.txt", "garbagecat", want{full: 1, youngMs: -1, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: CMS,
			check: func(t *testing.T, s Summary, st *Stats) {
				if s.PromotionFailed != 1 {
					t.Errorf("promotion failed %d, want 1", s.PromotionFailed)
				}
			}}},
		// garbagecat (dataset117): PAR_NEW with a CMS concurrent phase printed inside it, no UNKNOWN.
		{"garbagecat_dataset117.txt", "garbagecat", want{young: 1, youngMs: 45.4889, fullMs: -1, youngMaxMs: -1, fullMax: -1, collector: CMS}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, st := parseFile(t, filepath.Join("testdata/public", c.file))
			if st.Unparsed != 0 {
				t.Errorf("%d unparsed lines (%s reads every line): %v", st.Unparsed, c.asserts, st.Issues)
			}
			if c.w.collector != CollectorUnknown && st.Collector != c.w.collector {
				t.Errorf("collector %v, want %v", st.Collector, c.w.collector)
			}
			y, f := kindAgg(s, "young"), kindAgg(s, "full")
			other := kindAgg(s, "initial-mark").Count + kindAgg(s, "remark").Count
			if c.w.check == nil || c.w.young+c.w.full+c.w.other > 0 {
				if y.Count != c.w.young || f.Count != c.w.full || other != c.w.other {
					t.Errorf("young %d full %d other %d, want %s's %d, %d, %d", y.Count, f.Count, other, c.asserts, c.w.young, c.w.full, c.w.other)
				}
			}
			for _, v := range []struct {
				what      string
				got, want float64
			}{{"young total ms", y.TotalMs, c.w.youngMs}, {"full total ms", f.TotalMs, c.w.fullMs},
				{"young max ms", y.MaxMs, c.w.youngMaxMs}, {"full max ms", f.MaxMs, c.w.fullMax}} {
				if v.want >= 0 && !msNear(v.got, v.want) {
					t.Errorf("%s %.4f, want %s's %.4f", v.what, v.got, c.asserts, v.want)
				}
			}
			if c.w.check != nil {
				c.w.check(t, s, st)
			}
		})
	}
}

// A HotSpot log appended after a JRockit log in one file is not dropped in
// silence: its lines count as unparsed, said why.
func TestJRockitThenHotSpotSaysSo(t *testing.T) {
	jr, err := os.ReadFile("testdata/public/SampleJRockit1_5_20_memstats2.txt")
	if err != nil {
		t.Fatal(err)
	}
	hs, err := os.ReadFile("testdata/public/SampleSun1_5_0AdaptiveSizePolicy.txt")
	if err != nil {
		t.Fatal(err)
	}
	s, st := parseString(t, string(jr)+string(hs))
	if s.Pauses != 11 || st.Unparsed == 0 {
		t.Fatalf("pauses %d unparsed %d: want the JRockit log's 11 and the HotSpot lines counted unparsed", s.Pauses, st.Unparsed)
	}
	said := false
	for _, is := range st.Issues {
		if strings.Contains(is.Reason, "inside a JRockit log") {
			said = true
		}
	}
	if !said {
		t.Errorf("issues %v do not say a second log is in the file", st.Issues)
	}
}

// Pauses logged at one time are one item of the 60 s window: a log of
// millions of pauses stamped alike held every one (801 MB for a 2 GB log).
func TestWindowHoldsOneItemPerTime(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString("2026-11-28T07:00:00.000+0000: 1.000: [GC (Allocation Failure) [PSYoungGen: 1000K->100K(2000K)] 3000K->2100K(9000K), 0.0010000 secs]\n")
	}
	s := NewSummariser()
	st, err := Parse(strings.NewReader(b.String()), "same-time.log", s.Add)
	if err != nil {
		t.Fatal(err)
	}
	s.AddStats(st)
	if n := len(s.win) - s.winHead; n != 1 || s.Summary().Pauses != 20000 {
		t.Fatalf("window holds %d items for one time, %d pauses", n, s.Summary().Pauses)
	}
}
