package gclog

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func parseEvents(t *testing.T, path string) (*Stats, []Event) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []Event
	st, err := Parse(f, filepath.Base(path), func(e *Event) { evs = append(evs, *e) })
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return st, evs
}

// Every OpenJ9 / J9 sample is read with no refusal, and the numbers of its
// first pause are the ones in the file (bytes / 1024, the survivor reserve
// of the nursery not counted as heap in use).
func TestOpenJ9Samples(t *testing.T) {
	type first struct {
		kind                  Kind
		name, cause           string
		pause                 float64
		heapBefore, heapAfter int64
		youngBefore, youngAft int64
		oldBefore, oldAfter   int64
		wall                  string
		flags                 Flags
	}
	cases := []struct {
		file      string
		collector Collector
		events    int
		unparsed  int
		maxHeapKB int64
		first     first
	}{
		{"SampleIBMJ9_R28_af_scavenge_full_header.txt", OpenJ9Gencon, 2, 0, 524288,
			first{KindYoung, "scavenge", "Allocation Failure", 25.388, 66289, 11930, 65536, 11178, 753, 753, "2015-12-31T15:22:46.957", 0}},
		{"SampleIBMJ9_R28_sys_global.txt", OpenJ9Gencon, 1, 0, 0,
			first{KindFull, "global", "System.gc()", 97.756, 147929 - 35520, 79224 - 35520, 116517 - 35520, 55591 - 35520, 31412, 23634, "2015-12-31T15:23:00.646", FlagExplicit}},
		{"SampleIBMJ9_R28_af_global.txt", CollectorUnknown, 1, 0, 0,
			first{KindFull, "global", "Allocation Failure", 1255.648, 5976884, 1495400, -1, -1, 5976884, 1495400, "2016-08-09T14:58:58.343", 0}},
		{"SampleIBMJ9_R28_concurrent_collection.txt", CollectorUnknown, 1, 0, 0,
			first{KindRemark, "global (concurrent final)", "concurrent collection", 1182.375, 6278874, 1340857, -1, -1, 6278874, 1340857, "2016-08-09T15:14:56.110", 0}},
		{"SampleIBMJ9_R28_concurrentMinimal.txt", CollectorUnknown, 1, 0, 0,
			first{KindPausePhase, "global start", "", 0.809, -1, -1, -1, -1, -1, -1, "2016-08-09T15:35:46.051", 0}},
		{"SampleIBMJ9_R27_SR1_full_header.txt", OpenJ9Gencon, 3, 0, 1048576,
			first{KindYoung, "scavenge", "Allocation Failure", 42.303, 132193, 26063, 131072, 24942, 1121, 1121, "2014-09-24T15:57:32.116", 0}},
		{"SampleIBMJ9_R27_SR1_global.txt", OpenJ9Gencon, 1, 0, 0,
			first{KindFull, "global", "System.gc()", 75.863, 72924, 33363, 69964, 30451, 2961, 2912, "2014-09-24T15:57:39.473", FlagExplicit}},
		// R26: the nursery without allocate/survivor children; a line of
		// JVM text inside the log is counted, not fatal.
		{"SampleIBMJ9_R26_GAFP1_full_header.txt", OpenJ9Gencon, 1, 1, 1048576,
			first{KindYoung, "scavenge", "Allocation Failure", 5.290, 66385, 4576, 65536, 3728, 849, 849, "2013-08-15T11:15:45.897", 0}},
		{"SampleIBMJ9_R26_GAFP1_global.txt", OpenJ9Gencon, 1, 0, 0,
			first{KindFull, "global", "System.gc()", 36.392, 83640, 33364, 80059, 29863, 3582, 3501, "2013-08-15T11:15:51.945", FlagExplicit}},
		// J9 2.x (IBM Java 5/6): <af> records, flat heap (optavgpause).
		{"SampleIBMJ9_5_0af-global-200811_07.txt", CollectorUnknown, 1, 0, 0,
			first{KindFull, "global", "Allocation Failure", 35.912, 48640, 11668, -1, -1, 48640, 11668, "2010-03-25T22:40:24.000", 0}},
		{"SampleIBMJ9_5_0af-global-20090417_AA.txt", OpenJ9OptAvgPause, 1, 0, 12582912,
			first{KindFull, "global", "Allocation Failure", 837.024, 8064436, 1563594, -1, -1, 8064436, 1563594, "2012-10-07T11:46:23.000", 0}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			st, evs := parseEvents(t, filepath.Join("testdata/openj9", c.file))
			if st.Format != FormatOpenJ9 || st.Collector != c.collector || st.Events != c.events || len(evs) != c.events ||
				st.Unparsed != c.unparsed || st.MaxHeapKB != c.maxHeapKB {
				t.Fatalf("format %v collector %v events %d/%d unparsed %d maxheap %d; want openj9-xml %v %d %d %d (issues %v)",
					st.Format, st.Collector, st.Events, len(evs), st.Unparsed, st.MaxHeapKB, c.collector, c.events, c.unparsed, c.maxHeapKB, st.Issues)
			}
			e, w := evs[0], c.first
			got := first{e.Kind, e.Name, e.Cause, e.PauseMs, e.HeapBeforeKB, e.HeapAfterKB, e.YoungBeforeKB, e.YoungAfterKB,
				e.OldBeforeKB, e.OldAfterKB, e.Wall.Format("2006-01-02T15:04:05.000"), e.Flags}
			if got != w {
				t.Errorf("first event\n got %+v\nwant %+v", got, w)
			}
			if !st.HasTime || st.Uptime {
				t.Errorf("HasTime %v Uptime %v: want wall-clock times", st.HasTime, st.Uptime)
			}
		})
	}
}

// The header gives the JVM's identity for grouping rotated files and the
// KPIs: collector, heap, CPUs, the start, the build.
func TestOpenJ9Header(t *testing.T) {
	st, evs := parseEvents(t, "testdata/openj9/SampleIBMJ9_R28_af_scavenge_full_header.txt")
	if st.CPUs != 16 || st.JVMVersion != "R28_Java8_GA_20150116_2030_B231420_CMPRSS" ||
		!st.JVMStart.Equal(time.Date(2015, 12, 31, 15, 22, 43, 2e6, time.UTC)) {
		t.Errorf("cpus %d version %q start %v", st.CPUs, st.JVMVersion, st.JVMStart)
	}
	// gc-end: usertimems="28.731" systemtimems="0.155" durationms="25.007"
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if e := evs[0]; !near(e.UserS, 0.028731) || !near(e.SysS, 0.000155) || !near(e.RealS, 0.025007) || e.Collector != OpenJ9Gencon {
		t.Errorf("cpu %v/%v/%v collector %v", e.UserS, e.SysS, e.RealS, e.Collector)
	}
}

// A whole file through the summariser and the findings: what `analyze` shows.
func TestOpenJ9Summary(t *testing.T) {
	f, err := os.Open("testdata/openj9/SampleIBMJ9_R27_SR1_full_header.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewSummariser()
	st, err := Parse(f, "verbosegc.xml", s.Add)
	if err != nil {
		t.Fatal(err)
	}
	s.AddStats(st)
	sm := s.Summary()
	if sm.FormatName != "openj9-xml" || sm.CollectorName != "OpenJ9 gencon" || sm.Pauses != 3 || sm.PauseMaxMs != 42.303 ||
		sm.FullGCs != 0 || !sm.HasTime || sm.Collections != 3 {
		t.Errorf("summary: format %s collector %s pauses %d max %v full %d hasTime %v collections %d",
			sm.FormatName, sm.CollectorName, sm.Pauses, sm.PauseMaxMs, sm.FullGCs, sm.HasTime, sm.Collections)
	}
	fs := Findings(sm, DefaultThresholds(), "verbosegc.xml")
	for _, x := range fs {
		if x.ID == "gc.no-events" || x.ID == "gc.unparsed-lines" {
			t.Errorf("unexpected finding %s", x.ID)
		}
	}
}

// A concurrent global cycle started in one pause and finished in a later
// one is a cycle event with its duration, emitted after the final pause.
// Built from the two R28 samples: the kickoff block and the final block,
// their cycle ids made to match.
func TestOpenJ9ConcurrentCycle(t *testing.T) {
	a, err := os.ReadFile("testdata/openj9/SampleIBMJ9_R28_concurrentMinimal.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/openj9/SampleIBMJ9_R28_concurrent_collection.txt")
	if err != nil {
		t.Fatal(err)
	}
	a = bytes.Replace(a, []byte("</verbosegc>"), nil, 1)
	b = bytes.ReplaceAll(b, []byte(`contextid="11388"`), []byte(`contextid="13400"`))
	// The final block ran at 15:14:56, before the kickoff sample; move it after.
	b = bytes.ReplaceAll(b, []byte("2016-08-09T15:14:5"), []byte("2016-08-09T15:36:5"))
	var evs []Event
	st, err := Parse(bytes.NewReader(append(a, b...)), "cycle.xml", func(e *Event) { evs = append(evs, *e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Kind != KindPausePhase || evs[1].Kind != KindRemark || evs[2].Kind != KindCycle {
		t.Fatalf("events %v (issues %v)", kinds(evs), st.Issues)
	}
	// cycle-start 15:35:46.051, cycle-end 15:36:57.292
	if c := evs[2]; c.ConcurrentMs != 71241 || c.Name != "global" {
		t.Errorf("cycle %q %v ms", c.Name, c.ConcurrentMs)
	}
}

func kinds(evs []Event) []string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Kind.String())
	}
	return s
}

// Truncated and broken input: a tag split over lines is joined, an
// unterminated block still yields its collection, and nothing is lost
// silently.
func TestOpenJ9Damaged(t *testing.T) {
	d, err := os.ReadFile("testdata/openj9/SampleIBMJ9_R28_af_scavenge_full_header.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the second block, after its gc-end: a crashed JVM.
	cut := bytes.Index(d, []byte(`<cycle-end id="22"`))
	var evs []Event
	st, err := Parse(bytes.NewReader(d[:cut]), "cut.xml", func(e *Event) { evs = append(evs, *e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].PauseMs != 21.365 || st.Unparsed == 0 {
		t.Errorf("cut: %d events, last pause %v (want the gc-end's 21.365), unparsed %d", len(evs), evs[len(evs)-1].PauseMs, st.Unparsed)
	}
	// Attributes spread over lines, as a pretty-printer writes them.
	split := bytes.ReplaceAll(d, []byte(`" timestamp=`), []byte("\"\n   timestamp="))
	evs = evs[:0]
	st, err = Parse(bytes.NewReader(split), "split.xml", func(e *Event) { evs = append(evs, *e) })
	if err != nil || len(evs) != 2 || evs[0].PauseMs != 25.388 || evs[0].Wall.IsZero() || st.Unparsed != 0 {
		t.Errorf("split: err %v, %d events, unparsed %d %v", err, len(evs), st.Unparsed, st.Issues)
	}
	// A tag over 64 KiB of lines: dropped, reported, and the parse goes on.
	long := append([]byte("<verbosegc version=\"x\">\n<exclusive-start id=\"1\" a=\""), bytes.Repeat([]byte("xxxxxxxxxxxxxxx\n"), 10000)...)
	long = append(long, []byte("\" />\n")...)
	long = append(long, d[bytes.Index(d, []byte("<exclusive-start")):]...)
	evs = evs[:0]
	st, err = Parse(bytes.NewReader(long), "long.xml", func(e *Event) { evs = append(evs, *e) })
	if err != nil || len(evs) != 2 || st.Unparsed == 0 {
		t.Errorf("long tag: err %v, %d events, unparsed %d", err, len(evs), st.Unparsed)
	}
}

// A never-ending tag (one line of /dev/zero-like input after a header) is
// cut by the line limit and Ctrl-C stops it.
func TestOpenJ9Cancel(t *testing.T) {
	r := ioMulti(strings.NewReader("<verbosegc version=\"x\">\n<gc-start type=\""), zeroReader{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := ParseContext(ctx, r, "endless.xml", Limits{}, nil)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func ioMulti(a, b interface{ Read([]byte) (int, error) }) *multi { return &multi{a: a, b: b} }

type multi struct {
	a, b interface{ Read([]byte) (int, error) }
}

func (m *multi) Read(p []byte) (int, error) {
	if m.a != nil {
		n, err := m.a.Read(p)
		if err != nil {
			m.a = nil
			if n > 0 {
				return n, nil
			}
			return m.b.Read(p)
		}
		return n, nil
	}
	return m.b.Read(p)
}

// Detect names the new formats and still refuses other XML and build logs.
func TestDetectOpenJ9JRockit(t *testing.T) {
	for line, want := range map[string]Format{
		`<verbosegc xmlns="http://www.ibm.com/j9/verbosegc" version="R28">`:                              FormatOpenJ9,
		`<verbosegc version="200811_07">`:                                                                FormatOpenJ9,
		`<exclusive-start id="2" timestamp="2015-12-31T15:22:46.957" intervalms="3955.367">`:             FormatOpenJ9,
		`<af type="nursery" id="1339" timestamp="Dec 17 07:12:53 2014" intervalms="3481.034">`:           FormatOpenJ9,
		`[memory ] 77.737: Nursery GC 630435K->183741K (1048576K), 566.158 ms`:                           FormatJRockit,
		`[INFO ][memory ] GC mode: Garbage collection optimized for short pausetimes`:                    FormatJRockit,
		`[Wed Nov 16 15:19:26 2005][29147][memory ] 18.785-18.888: GC 32260K->4028K (32768K), 24.491 ms`: FormatJRockit,
		`<?xml version="1.0" ?>`:                         FormatUnknown,
		`<configuration scan="true">`:                    FormatUnknown,
		`[INFO] Building tuneloop 1.0`:                   FormatUnknown,
		`[0.002s][info][gc] Using G1`:                    FormatUnified,
		`2.167: [GC (Allocation Failure) 2.167: [ParNew`: FormatJDK8,
	} {
		if got := Detect([]byte(line)); got != want {
			t.Errorf("Detect(%q) = %v, want %v", line, got, want)
		}
	}
}

// OpenJ9 findings name OpenJ9 options, not HotSpot -XX flags it ignores.
func TestOpenJ9FindingsOptions(t *testing.T) {
	for _, file := range []string{"SampleIBMJ9_R28_sys_global.txt", "SampleIBMJ9_R28_af_global.txt"} {
		f, err := os.Open("testdata/openj9/" + file)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSummariser()
		st, err := Parse(f, file, s.Add)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		st.Collector = OpenJ9Gencon // the fragments carry no header
		s.AddStats(st)
		fs := Findings(s.Summary(), DefaultThresholds(), file)
		seen := 0
		for _, x := range fs {
			if x.ID != "gc.explicit-system-gc" && x.ID != "gc.full-gc" {
				continue
			}
			seen++
			opt := "-Xconcurrentslack"
			if x.ID == "gc.explicit-system-gc" {
				opt = "-Xdisableexplicitgc"
			}
			if strings.Contains(x.Fix.Apply, "-XX:") || strings.Contains(x.Recommended.EN, "InitiatingHeapOccupancyPercent") ||
				!strings.Contains(x.Recommended.EN, opt) || !strings.Contains(x.Recommended.ZH, opt) {
				t.Errorf("%s %s: %q / %q", file, x.ID, x.Recommended.EN, x.Fix.Apply)
			}
		}
		if seen != 1 {
			t.Errorf("%s: %d explicit/full findings, want 1", file, seen)
		}
	}
}
