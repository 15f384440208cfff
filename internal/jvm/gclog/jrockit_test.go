package gclog

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Every JRockit sample is read without a refusal or an unread summary line;
// counts are the [memory ] summary lines of each file (grep -c -- '->' less
// the legend line).
func TestJRockitSamples(t *testing.T) {
	cases := []struct {
		file      string
		collector Collector
		events    int
		maxHeapKB int64
		kind      Kind
		name      string
		uptime    float64
		pause     float64
		before    int64
		after     int64
		total     int64
	}{
		{"SampleJRockit1_4_2gencon.txt", JRockitConcurrent, 123, 1048576, KindYoung, "Nursery GC", 77.737, 566.158, 630435, 183741, 1048576},
		{"SampleJRockit1_4_2parallel.txt", JRockitParallel, 92, 1048576, KindFull, "GC", 226.002, 544.511, 1048576, 133204, 1048576},
		{"SampleJRockit1_4_2ts-gcreport-gcpriopausetime.txt", JRockitConcurrent, 64, 65536, KindRemark, "GC", 18.785, 24.491, 32260, 4028, 32768},
		{"SampleJRockit1_5_12_gencon.txt", JRockitConcurrent, 8, 3145728, KindRemark, "GC", 6.038, 118.600, 3089328, 352551, 3145728},
		{"SampleJRockit1_5_12_genpar.txt", JRockitParallel, 17, 3145728, KindFull, "GC", 4.778, 71.126, 1643328, 159027, 3145728},
		{"SampleJRockit1_6_33_gc_mode_genpar_verbosenursery.txt", JRockitParallel, 3, 1572864, KindYoung, "YC", 124.644, 55.369, 453996, 188846, 786432},
		{"SampleJRockit1_6_verbose_gc_mode_gencon.txt", JRockitConcurrent, 20, 524288, KindRemark, "OC", 31.727, 96.521, 270886, 194351, 524288},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			st, evs := parseEvents(t, filepath.Join("testdata/jrockit", c.file))
			if st.Format != FormatJRockit || st.Collector != c.collector || st.Events != c.events || st.Unparsed != 0 || st.MaxHeapKB != c.maxHeapKB {
				t.Fatalf("format %v collector %v events %d unparsed %d maxheap %d (issues %v)", st.Format, st.Collector, st.Events, st.Unparsed, st.MaxHeapKB, st.Issues)
			}
			e := evs[0]
			if e.Kind != c.kind || e.Name != c.name || math.Abs(e.Uptime-c.uptime) > 1e-9 || e.PauseMs != c.pause ||
				e.HeapBeforeKB != c.before || e.HeapAfterKB != c.after || e.HeapTotalKB != c.total {
				t.Errorf("first event %v %q up %v pause %v heap %d->%d(%d)", e.Kind, e.Name, e.Uptime, e.PauseMs, e.HeapBeforeKB, e.HeapAfterKB, e.HeapTotalKB)
			}
			if !st.HasTime || !st.Uptime {
				t.Errorf("want uptime timestamps")
			}
		})
	}
	// Every sample file in the folder is read.
	files, _ := filepath.Glob("testdata/jrockit/*.txt")
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Parse(f, p, nil)
		f.Close()
		if err != nil || st.Events == 0 || st.Unparsed != 0 {
			t.Errorf("%s: err %v events %d unparsed %d", p, err, st.Events, st.Unparsed)
		}
	}
}

// JRockit's "Throwing OutOfMemory" lines (5 in this sample) are counted as out-of-memory markers.
func TestJRockitOOM(t *testing.T) {
	f, err := os.Open("testdata/jrockit/SampleJRockit1_6_verbose_gc_mode_gencon.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewSummariser()
	st, err := Parse(f, "jrockit.log", s.Add)
	if err != nil {
		t.Fatal(err)
	}
	s.AddStats(st)
	sm := s.Summary()
	if sm.OutOfMemory != 5 || sm.FormatName != "jrockit" || sm.Pauses != 15 {
		t.Errorf("oom %d format %s pauses %d", sm.OutOfMemory, sm.FormatName, sm.Pauses)
	}
}
