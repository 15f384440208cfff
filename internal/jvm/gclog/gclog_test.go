package gclog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func parseFile(t *testing.T, path string) (Summary, *Stats) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewSummariser()
	st, err := Parse(f, filepath.Base(path), s.Add)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s.AddStats(st)
	return s.Summary(), st
}

func parseString(t *testing.T, log string) (Summary, *Stats) {
	t.Helper()
	s := NewSummariser()
	st, err := Parse(strings.NewReader(log), "test.log", s.Add)
	if err != nil {
		t.Fatal(err)
	}
	s.AddStats(st)
	return s.Summary(), st
}

// Corpus files (GCViewer's test resources) that keep unparsed lines, and why.
var corpusUnparsed = map[string]struct {
	max    int
	reason string
}{
	"openjdk_unified-jvm-logging_SampleShenandoahPassiveHeuristics.txt": {150, "-Xlog:all output: multi-line exception messages continue without decorators; they are not GC lines"},
}

func TestCorpusParsesCleanly(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.txt")
	if len(files) < 50 {
		t.Fatalf("corpus missing: %d files", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			s, st := parseFile(t, f)
			want := corpusUnparsed[name]
			if st.Unparsed > want.max {
				t.Errorf("unparsed %d > %d: %v", st.Unparsed, want.max, st.Issues)
			}
			if st.Format == FormatUnknown {
				t.Errorf("format unknown")
			}
			if s.PauseP50Ms > s.PauseP95Ms || s.PauseP95Ms > s.PauseP99Ms || s.PauseP99Ms > s.PauseMaxMs {
				t.Errorf("percentiles out of order: %+v", s)
			}
			if s.ThroughputPct > 100 {
				t.Errorf("throughput %v", s.ThroughputPct)
			}
		})
	}
}

func TestCorpusFacts(t *testing.T) {
	cases := []struct {
		file  string
		check func(s Summary, st *Stats) string
	}{
		{"openjdk_SampleSun1_5_0ConcurrentModeFailure.txt", func(s Summary, st *Stats) string {
			if s.ConcModeFailures == 0 || st.Collector != CMS {
				return "want concurrent mode failures with CMS"
			}
			return ""
		}},
		{"openjdk_SampleSun1_5_0PromotionFailure.txt", func(s Summary, st *Stats) string {
			if s.PromotionFailed == 0 || s.FullGCs != 1 {
				return "want promotion failure (GC--) and one full GC"
			}
			return ""
		}},
		{"openjdk_SampleSun1_6_0G1_young_toSpaceOverflow.txt", func(s Summary, st *Stats) string {
			if s.ToSpaceExhausted != 1 {
				return "want to-space overflow"
			}
			return ""
		}},
		{"openjdk_SampleSun1_8_0ParallelPrintGCID.txt", func(s Summary, st *Stats) string {
			if s.Pauses != 5 || s.FullGCs != 2 || s.FullGCsExplicit != 2 || s.ExplicitGCs != 4 || st.Collector != Parallel {
				return "want 5 pauses, 2 explicit full GCs, 4 System.gc()"
			}
			if s.PauseMaxMs < 649 || s.PauseMaxMs > 650 {
				return "max pause should be 649.2 ms"
			}
			return ""
		}},
		{"openjdk_SampleSun1_8_0G1_ConcurrentCycle.txt", func(s Summary, st *Stats) string {
			if st.Collector != G1 || s.Pauses != 4 || s.HeapMaxKB < 103*1024 {
				return "want G1 with 2 young + remark + cleanup and heap 103M"
			}
			return ""
		}},
		{"openjdk_SampleSun1_7_0_51_CMS_PrintApplStoppedTime.txt", func(s Summary, st *Stats) string {
			if s.Safepoints != 2 || s.SafepointTotalMs <= 0 {
				return "want 2 safepoints"
			}
			return ""
		}},
		{"openjdk_unified-jvm-logging_sample-ujl-serial-gc-defaults.txt", func(s Summary, st *Stats) string {
			// GC(2) young contains the nested GC(3) full: counted once.
			if s.FullGCs != 3 || s.Pauses != 11 || s.PromotionFailed != 3 {
				return "want 3 full GCs nested in 3 failed young GCs"
			}
			if s.PauseTotalMs > 75 {
				return "nested full GC time counted twice"
			}
			return ""
		}},
		{"openjdk_unified-jvm-logging_sample-ujl-zgc-gc-default.txt", func(s Summary, st *Stats) string {
			if st.Collector != ZGC || s.ConcurrentCycles != 5 || s.ExplicitGCs != 1 {
				return "want 5 ZGC cycles, one System.gc()"
			}
			return ""
		}},
		{"openjdk_unified-jvm-logging_sample-ujl-jdk17-full-concurrent-cycle-g1-gc-all-safepont,os-cpu.txt", func(s Summary, st *Stats) string {
			if st.Collector != G1 || s.Safepoints == 0 || !st.HasTime {
				return "want G1 with safepoints, time from the uptimemillis decorator"
			}
			return ""
		}},
		{"openjdk_SampleOpenJdk1_8_0-332.txt", func(s Summary, st *Stats) string {
			if st.Collector != Shenandoah || s.Degenerated != 1 {
				return "want Shenandoah (JDK 8 format) with a degenerated GC"
			}
			return ""
		}},
	}
	for _, c := range cases {
		s, st := parseFile(t, filepath.Join("testdata/corpus", c.file))
		if msg := c.check(s, st); msg != "" {
			t.Errorf("%s: %s; got collector %v pauses %d full %d explicit %d/%d cmf %d pf %d tse %d safepoints %d cycles %d degenerated %d heapmax %d total %.1f max %.1f",
				c.file, msg, st.Collector, s.Pauses, s.FullGCs, s.FullGCsExplicit, s.ExplicitGCs, s.ConcModeFailures, s.PromotionFailed, s.ToSpaceExhausted,
				s.Safepoints, s.ConcurrentCycles, s.Degenerated, s.HeapMaxKB, s.PauseTotalMs, s.PauseMaxMs)
		}
	}
}

// checkSane asserts KPIs of a log of Alloc.java (128 MB heap, one
// System.gc()). Logs of 2-3 s are too short for the ratios: those must be
// unavailable, with the reason, not a number.
func checkSane(t *testing.T, name string, s Summary, st *Stats, want Collector) {
	t.Helper()
	if st.Unparsed != 0 {
		t.Errorf("%s: %d unparsed: %v", name, st.Unparsed, st.Issues)
	}
	if st.Collector != want {
		t.Errorf("%s: collector %v, want %v", name, st.Collector, want)
	}
	if s.Pauses < 10 {
		t.Errorf("%s: only %d pauses", name, s.Pauses)
	}
	if s.DurationS < 1 || s.DurationS > 60 {
		t.Errorf("%s: duration %.2f s", name, s.DurationS)
	}
	if !(s.PauseP50Ms <= s.PauseP95Ms && s.PauseP95Ms <= s.PauseP99Ms && s.PauseP99Ms <= s.PauseMaxMs && s.PauseMaxMs < 5000) {
		t.Errorf("%s: pauses p50 %.3f p95 %.3f p99 %.3f max %.3f", name, s.PauseP50Ms, s.PauseP95Ms, s.PauseP99Ms, s.PauseMaxMs)
	}
	if s.HeapMaxKB <= 0 || s.HeapMaxKB > 200*1024 {
		t.Errorf("%s: heap max %d KB", name, s.HeapMaxKB)
	}
	if want != Shenandoah && s.ExplicitGCs < 1 {
		t.Errorf("%s: System.gc() not seen", name)
	}
	if !s.HasTime {
		t.Errorf("%s: timestamps not seen", name)
	}
	judged := s.DurationS >= MinJudgeSpanS
	if !judged {
		if s.ThroughputPct != -1 || s.AllocRateMBs != -1 || s.WorstWindowPct != -1 {
			t.Errorf("%s: %.1f s judged: throughput %.2f, allocation %.1f MB/s", name, s.DurationS, s.ThroughputPct, s.AllocRateMBs)
		}
		tp := ids(Findings(s, DefaultThresholds(), name))["gc.throughput-low"]
		if tp.Status != finding.Unavailable || tp.Severity != 0 || !strings.Contains(tp.Reason.EN, "Too short to judge") || !strings.Contains(tp.Reason.ZH, "太短") {
			t.Errorf("%s: throughput finding on %.1f s: %s %s %q", name, s.DurationS, tp.Status, tp.Severity, tp.Reason.EN)
		}
		return
	}
	if s.ThroughputPct < 30 || s.ThroughputPct > 100 {
		t.Errorf("%s: throughput %.2f", name, s.ThroughputPct)
	}
	if s.AllocRateMBs <= 10 {
		t.Errorf("%s: allocation rate %.1f MB/s", name, s.AllocRateMBs)
	}
}

func TestLiveFixtures(t *testing.T) {
	want := map[string]Collector{
		"jdk17-serial.log": Serial, "jdk17-parallel.log": Parallel, "jdk17-g1.log": G1, "jdk17-shenandoah.log": Shenandoah, "jdk17-zgc.log": ZGC,
		"jdk25-serial.log": Serial, "jdk25-parallel.log": Parallel, "jdk25-g1.log": G1, "jdk25-g1-gconly-notags.log": G1,
		"jdk25-shenandoah.log": Shenandoah, "jdk25-zgc.log": ZGCGenerational,
		"jdk17-g1-12s.log": G1, "jdk25-parallel-12s.log": Parallel, // long enough to judge
	}
	for name, c := range want {
		s, st := parseFile(t, filepath.Join("testdata/live", name))
		checkSane(t, name, s, st, c)
		fs := Findings(s, DefaultThresholds(), name)
		checkBilingual(t, fs)
	}
	for _, name := range []string{"jdk17-g1-12s.log", "jdk25-parallel-12s.log"} {
		if s, _ := parseFile(t, filepath.Join("testdata/live", name)); s.ThroughputPct < 0 || s.AllocRateMBs < 0 {
			t.Errorf("%s (%.1f s, %d pauses) not judged", name, s.DurationS, s.Pauses)
		}
	}
	// Decorators in other orders and sets parse to the same clock.
	_, st := parseFile(t, "testdata/live/jdk25-zgc.log")
	if strings.Join(st.Decorators, ",") != "uptime,millis,nanos,hostname,level,tags" {
		t.Errorf("decorators %v", st.Decorators)
	}
	s, _ := parseFile(t, "testdata/live/jdk25-g1.log")
	if s.Safepoints == 0 || s.TTSPMaxMs <= 0 {
		t.Errorf("jdk25 safepoints not read: %d", s.Safepoints)
	}
}

func checkBilingual(t *testing.T, fs []finding.Finding) {
	t.Helper()
	for _, f := range fs {
		for _, tx := range []finding.Text{f.Title, f.Observed, f.Why, f.Recommended, f.Risk, f.Reason} {
			if (tx.EN == "") != (tx.ZH == "") {
				t.Errorf("%s: text missing a language: %+v", f.ID, tx)
			}
		}
		if f.Title.EN == "" || len(f.References) == 0 && f.ID != "gc.unparsed-lines" && f.ID != "gc.no-events" {
			t.Errorf("%s: title or references missing", f.ID)
		}
	}
}

// TestLiveJVM runs Alloc.java under a real JVM and checks the log it writes.
func TestLiveJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a JVM")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "gc.log")
	cmd := exec.Command(java, "-Xmx128m", "-XX:+UseG1GC",
		"-Xlog:gc*,safepoint:file="+log+":time,uptimemillis,level,tags,pid",
		filepath.Join("testdata", "java", "Alloc.java"), "2")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	r, err := Analyze(FileSources(log), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	_, st := parseFile(t, log)
	checkSane(t, "live", r.Summary, st, G1)
	if r.Summary.Safepoints == 0 {
		t.Errorf("no safepoints read")
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, r.Summary, r.Findings, finding.EN); err != nil || !strings.Contains(buf.String(), "Throughput") {
		t.Errorf("report: %v\n%s", err, buf.String())
	}
}

func TestDecorators(t *testing.T) {
	cases := []struct {
		line   string
		uptime float64
		wall   bool
		tags   string
		msg    string
	}{
		{"[0.467s][info][gc] GC(0) Pause", 0.467, false, "gc", "GC(0) Pause"},
		{"[1,474s][info][gc,start          ] GC(0) Pause", 1.474, false, "gc,start", "GC(0) Pause"},
		{"[2026-11-21T23:55:48.796+0000][1ms][6645][6646][info][gc,init] CPUs: 2", 0.001, true, "gc,init", "CPUs: 2"},
		{"[2026-11-21T23:55:52.111+0000][2004253ns][6662][info][gc     ] Using G1", 0.002004253, true, "gc", "Using G1"},
		{"[0.003s][1795305362231ms][351212498324ns][vm][info][gc,init] Version: 25", 0.003, true, "gc,init", "Version: 25"},
		{"[2022-01-29T16:34:51.642+0000][233ms][info][gc] GC(5) Concurrent Mark Cycle", 0.233, true, "gc", "GC(5) Concurrent Mark Cycle"},
		{"[0.002s] Using G1", 0.002, false, "", "Using G1"},
		{"[1795305362231ms][gc] x", -1, true, "gc", "x"},
		{"[myhost][gc] x", -1, false, "gc", "x"},
	}
	for _, c := range cases {
		var d decor
		msg, ok := splitDecorators([]byte(c.line), &d)
		if !ok {
			t.Errorf("%q: not decorated", c.line)
			continue
		}
		up, wall := d.times()
		if (up < 0) != (c.uptime < 0) || up >= 0 && (up-c.uptime > 1e-9 || c.uptime-up > 1e-9) || wall.IsZero() == c.wall || string(bytes.TrimSpace(d.tags)) != c.tags || string(msg) != c.msg {
			t.Errorf("%q: uptime %v wall %v tags %q msg %q", c.line, up, wall, d.tags, msg)
		}
	}
}

func TestUnifiedEvents(t *testing.T) {
	cases := []struct {
		msg   string
		kind  Kind
		cause string
		pause float64
		after int64
		flags Flags
	}{
		{"GC(0) Pause Young (Normal) (G1 Evacuation Pause) 12M->3M(256M) 12.011ms", KindYoung, "G1 Evacuation Pause", 12.011, 3 * 1024, 0},
		{"GC(1) Pause Young (Concurrent Start) (G1 Humongous Allocation) 8M->4M(20M) 0.659ms", KindYoung, "G1 Humongous Allocation", 0.659, 4 * 1024, FlagHumongous},
		{"GC(44) Pause Young (Mixed) (G1 Evacuation Pause) (Evacuation Failure: Allocation) 125M->89M(128M) 1.624ms", KindMixed, "G1 Evacuation Pause", 1.624, 89 * 1024, FlagToSpaceExhausted},
		{"GC(0) Pause Full (System.gc()) 4M->4M(20M) 6.109ms", KindFull, "System.gc()", 6.109, 4 * 1024, FlagExplicit},
		{"GC(41) Pause Remark 60M->60M(118M) 0.400ms", KindRemark, "", 0.4, 60 * 1024, 0},
		{"GC(16) Pause Degenerated GC (Mark) 105M->91M(128M) 5.891ms", KindDegenerated, "", 5.891, 91 * 1024, 0},
		{"GC(0) Pause Init Mark (unload classes) 0.028ms", KindPausePhase, "", 0.028, -1, 0},
		{"GC(0) y: Pause Mark Start 0.018ms", KindPausePhase, "", 0.018, -1, 0},
		{"GC(2) Pause Full (Ergonomics) 107M->77M(119M) 12.499ms", KindFull, "Ergonomics", 12.499, 77 * 1024, 0},
		{"GC(3) Pause Young (Allocation Failure) 4M->1M(15M) 4,059ms", KindYoung, "Allocation Failure", 4.059, 1024, 0},
	}
	for _, c := range cases {
		var got []Event
		_, st := parseString(t, "[0.5s][info][gc] Using G1\n[1.0s][info][gc] "+c.msg+"\n")
		_ = st
		s := NewSummariser()
		Parse(strings.NewReader("[1.0s][info][gc] "+c.msg+"\n"), "t", func(e *Event) { got = append(got, *e); s.Add(e) })
		if len(got) != 1 {
			t.Errorf("%q: %d events", c.msg, len(got))
			continue
		}
		e := got[0]
		if e.Kind != c.kind || e.Cause != c.cause || e.PauseMs-c.pause > 1e-9 || c.pause-e.PauseMs > 1e-9 || e.HeapAfterKB != c.after || e.Flags != c.flags {
			t.Errorf("%q: got kind %v cause %q pause %v after %d flags %v", c.msg, e.Kind, e.Cause, e.PauseMs, e.HeapAfterKB, e.Flags)
		}
		if e.Uptime > 1.0 || e.Uptime < 0.98 {
			t.Errorf("%q: start %v should be end minus duration", c.msg, e.Uptime)
		}
	}
}

func TestJDK8Events(t *testing.T) {
	cases := []struct {
		log          string
		kind         Kind
		cause        string
		pause        float64
		young, after int64
		flags        Flags
	}{
		{"2022-07-26T21:00:40.750+0800: 3.117: #0: [GC (Allocation Failure) [PSYoungGen: 7077888K->222570K(8257536K)] 7077888K->222586K(9306112K), 0.5437135 secs] [Times: user=1.92 sys=0.20, real=0.55 secs]",
			KindYoung, "Allocation Failure", 543.7135, 222570, 222586, 0},
		{"2.167: [GC (Allocation Failure)2.167: [ParNew: 139776K->17471K(157248K), 0.0143520 secs] 139776K->19817K(506816K), 0.0144450 secs] [Times: user=0.05 sys=0.01, real=0.01 secs]",
			KindYoung, "Allocation Failure", 14.445, 17471, 19817, 0},
		{"164.427: [Full GC 164.427: [CMS (concurrent mode failure): 85316K->59534K(122880K), 1.1724657 secs] 89751K->59534K(131136K), [CMS Perm : 65487K->54547K(65536K)], 1.1726697 secs]",
			KindFull, "", 1172.6697, -1, 59534, FlagConcurrentModeFailure},
		{"0.708: [GC [1 CMS-initial-mark: 91890K(131072K)] 109176K(249088K), 0.0004006 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]",
			KindInitialMark, "", 0.4006, -1, -1, 0},
		{"0.290: [GC pause (G1 Evacuation Pause) (young) (initial-mark), 0.0115587 secs]\n   [Eden: 15.0M(15.0M)->0.0B(10.0M) Survivors: 2048.0K->3072.0K Heap: 71.1M(96.0M)->71.2M(103.0M)]\n [Times: user=0.03 sys=0.03, real=0.02 secs]",
			KindYoung, "G1 Evacuation Pause", 11.5587, 3072, 72909, 0},
		{"2021-05-14T11:48:41.731+0800: [Full GC (Allocation Failure)  455M->333M(512M), 0.0559124 secs]",
			KindFull, "Allocation Failure", 55.9124, -1, 333 * 1024, 0},
		{"22.879: [GC 22.879: [DefNew: 1855K->125K(1856K), 0.0099038 secs]22.889: [Tenured: 14638K->9916K(14720K), 0.8038262 secs] 16358K->9916K(16576K), 0.8142078 secs]",
			KindFull, "", 814.2078, 125, 9916, 0},
		{"429.344: [GC-- [PSYoungGen: 876977K->876977K(876992K)] 2335451K->2412975K(2412992K), 0.7651430 secs]",
			KindYoung, "", 765.143, 876977, 2412975, FlagPromotionFailed},
		{"2.167: [GC (Allocation Failure) 2.167: [ParNew\nDesired survivor size 1 bytes, new threshold 1 (max 15)\n- age   1:      10 bytes,      10 total\n: 139776K->17471K(157248K), 0.0143520 secs] 139776K->19817K(506816K), 0.0144450 secs]",
			KindYoung, "Allocation Failure", 14.445, 17471, 19817, 0},
		{"0.304: [GC cleanup 75M->25M(103M), 0.0004412 secs]", KindCleanup, "", 0.4412, -1, 25 * 1024, 0},
	}
	for _, c := range cases {
		var got []Event
		st, err := Parse(strings.NewReader(c.log+"\n"), "t", func(e *Event) { got = append(got, *e) })
		if err != nil || st.Unparsed != 0 || len(got) != 1 {
			t.Errorf("%q: err %v unparsed %v events %d", c.log, err, st.Issues, len(got))
			continue
		}
		e := got[0]
		if e.Kind != c.kind || e.Cause != c.cause || e.PauseMs-c.pause > 1e-6 || c.pause-e.PauseMs > 1e-6 || e.YoungAfterKB != c.young || e.HeapAfterKB != c.after || e.Flags != c.flags {
			t.Errorf("%q:\n got kind %v cause %q pause %v young %d after %d flags %v", c.log, e.Kind, e.Cause, e.PauseMs, e.YoungAfterKB, e.HeapAfterKB, e.Flags)
		}
	}
}

func TestSafepointLines(t *testing.T) {
	s, _ := parseString(t, "2014-04-09T15:26:52.201+0200: 0.385: Total time for which application threads were stopped: 0.0003502 seconds, Stopping threads took: 0.0000155 seconds\n")
	if s.Safepoints != 1 || s.SafepointTotalMs < 0.35 || s.SafepointTotalMs > 0.351 || s.TTSPMaxMs < 0.0154 || s.TTSPMaxMs > 0.0156 {
		t.Errorf("jdk8 safepoint: %+v", s)
	}
	s, _ = parseString(t, `[0.685s][info][safepoint] Safepoint "G1CollectForAllocation", Time since last: 646871851 ns, Reaching safepoint: 3270 ns, Cleanup: 120443 ns, At safepoint: 13215332 ns, Total: 13339045 ns`+"\n")
	if s.Safepoints != 1 || s.SafepointTotalMs < 13.33 || s.SafepointTotalMs > 13.34 || s.TTSPMaxName != "G1CollectForAllocation" {
		t.Errorf("unified safepoint: %+v", s)
	}
}

func TestBadInput(t *testing.T) {
	_, err := Parse(strings.NewReader("\x00\x01\x02binary\nmore junk\n"), "junk.bin", nil)
	if !errors.Is(err, ErrNotGCLog) || !strings.Contains(err.Error(), "junk.bin") {
		t.Errorf("binary: %v", err)
	}
	_, err = Parse(strings.NewReader("hello\nworld\n"), "notes.txt", nil)
	if !errors.Is(err, ErrNotGCLog) || !strings.Contains(err.Error(), "notes.txt: line 1") {
		t.Errorf("text: %v", err)
	}
	_, err = Parse(strings.NewReader("[INFO] Scanning for projects...\n[INFO] BUILD SUCCESS\n"), "build.log", nil)
	if !errors.Is(err, ErrNotGCLog) {
		t.Errorf("maven output taken for a GC log: %v", err)
	}
	_, err = Parse(strings.NewReader(""), "empty.log", nil)
	if !errors.Is(err, ErrNotGCLog) {
		t.Errorf("empty: %v", err)
	}
	// Unknown lines inside a GC log are counted and named by line.
	log := "[0.1s][info][gc] Using G1\n[0.2s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 12M->3M(256M) 1.0ms\nsomething else entirely\n[0.3s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 12M->3M\n"
	st, err := Parse(strings.NewReader(log), "gc.log", nil)
	if err != nil || st.Unparsed != 2 || st.Events != 1 {
		t.Fatalf("err %v unparsed %d events %d", err, st.Unparsed, st.Events)
	}
	if got := st.Issues[0].Error(); !strings.HasPrefix(got, "gc.log: line 3: ") {
		t.Errorf("issue: %s", got)
	}
	if got := st.Issues[1].Error(); !strings.HasPrefix(got, "gc.log: line 4: unrecognised GC event") {
		t.Errorf("issue: %s", got)
	}
	// JDK 8: an unterminated event and an unknown event.
	st, _ = Parse(strings.NewReader("1.0: [GC (Allocation Failure) [PSYoungGen: 1K->0K(2K)] 3K->2K(9K), 0.1 secs]\n1.5: [Weird thing 1K->2K]\n2.0: [GC (Allocation Failure) [PSYoungGen: 1K->0K(2K)"), "old.log", nil)
	if st.Unparsed != 2 || st.Events != 1 {
		t.Errorf("jdk8 bad lines: %d events, %v", st.Events, st.Issues)
	}
	// A very long line does not stop parsing.
	long := "[0.1s][info][gc] Using G1\n" + strings.Repeat("x", 3<<20) + "\n[0.2s][info][gc] GC(0) Pause Full (System.gc()) 4M->4M(20M) 6.109ms\n"
	st, err = Parse(strings.NewReader(long), "long.log", nil)
	if err != nil || st.Events != 1 || st.Unparsed != 1 {
		t.Errorf("long line: %v %d %d", err, st.Events, st.Unparsed)
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestReadError(t *testing.T) {
	if _, err := Parse(failReader{}, "x.log", nil); err == nil || !strings.Contains(err.Error(), "x.log") {
		t.Errorf("got %v", err)
	}
}

func TestJoinRotated(t *testing.T) {
	data, err := os.ReadFile("testdata/live/jdk17-parallel.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	n := len(lines) / 3
	parts := []string{strings.Join(lines[:n], ""), strings.Join(lines[n:2*n], ""), strings.Join(lines[2*n:], "")}
	// JDK 9+ rotation: gc.log.0 oldest ... gc.log newest; given shuffled.
	names := []string{"gc.log.0", "gc.log.1", "gc.log"}
	var srcs []Source
	for _, i := range []int{2, 0, 1} {
		p := parts[i]
		srcs = append(srcs, Source{Name: names[i], Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(p)), nil }})
	}
	ordered, err := Order(srcs)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ordered {
		if s.Name != names[i] {
			t.Fatalf("order: %s at %d", s.Name, i)
		}
	}
	joined, err := Analyze(srcs, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := parseFile(t, "testdata/live/jdk17-parallel.log")
	j := joined.Summary
	if j.Pauses != whole.Pauses || j.FullGCs != whole.FullGCs || j.PauseMaxMs != whole.PauseMaxMs || j.DurationS < whole.DurationS*0.95 {
		t.Errorf("joined %d pauses %.2f s, whole %d pauses %.2f s", j.Pauses, j.DurationS, whole.Pauses, whole.DurationS)
	}
	if rotationIndex("gc.log.2.current") <= rotationIndex("gc.log.10") || rotationIndex("gc.log.1") >= rotationIndex("gc.log.2") {
		t.Error("rotation index order")
	}
}

func TestPercentiles(t *testing.T) {
	var log strings.Builder
	log.WriteString("[0s][info][gc] Using Parallel\n")
	for i := 1; i <= 100; i++ {
		// pauses 1..100 ms, one per second
		log.WriteString("[" + itoa(i) + ".000s][info][gc] GC(" + itoa(i) + ") Pause Young (Allocation Failure) 10M->2M(64M) " + itoa(i) + ".000ms\n")
	}
	s, _ := parseString(t, log.String())
	if s.Pauses != 100 || s.PauseP50Ms != 50 || s.PauseP95Ms != 95 || s.PauseP99Ms != 99 || s.PauseMaxMs != 100 || s.PauseAvgMs != 50.5 {
		t.Errorf("p50 %v p95 %v p99 %v max %v avg %v", s.PauseP50Ms, s.PauseP95Ms, s.PauseP99Ms, s.PauseMaxMs, s.PauseAvgMs)
	}
	// 8 MB allocated between GCs each second (after 2M, next before 10M).
	if s.AllocRateMBs < 7.9 || s.AllocRateMBs > 8.2 {
		t.Errorf("alloc rate %v", s.AllocRateMBs)
	}
	if s.ThroughputPct < 94.8 || s.ThroughputPct > 95 {
		t.Errorf("throughput %v (5050 ms of 100 s)", s.ThroughputPct)
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// genReader yields n unified pause lines without holding them in memory.
type genReader struct {
	n, i int
	buf  []byte
}

func (g *genReader) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		if g.i >= g.n {
			return 0, io.EOF
		}
		g.i++
		g.buf = []byte("[" + itoa(g.i) + ".000s][info][gc,heap     ] GC(" + itoa(g.i) + ") Eden regions: 152->0(152)\n[" + itoa(g.i) + ".001s][info][gc          ] GC(" + itoa(g.i) + ") Pause Young (Normal) (G1 Evacuation Pause) 160M->8M(256M) 1.000ms\n")
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// TestStreamingMemory: parsing keeps no per-line state, so what the parser
// allocates does not grow with the input.
func TestStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates")
	}
	measure := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	alloc := func(n int) uint64 {
		gen := measure(func() { io.Copy(io.Discard, &genReader{n: n}) })
		total := measure(func() {
			st, err := Parse(&genReader{n: n}, "gen", func(*Event) {})
			if err != nil || st.Events != n {
				t.Fatalf("events %d err %v", st.Events, err)
			}
		})
		if total < gen {
			return 0
		}
		return total - gen // the parser's own allocations
	}
	small, large := alloc(1000), alloc(200000) // ~0.2 MB vs ~40 MB of log
	if large > small+1<<20 {
		t.Errorf("parser allocations grow with input: %d bytes for 1k events, %d for 200k", small, large)
	}
}

func TestJoinJDK8Series(t *testing.T) {
	var paths []string
	for _, p := range []string{"7", "3", "1", "5"} {
		paths = append(paths, "testdata/corpus/openjdk_SampleSun1_8_0Series-Part"+p+".txt")
	}
	ordered, err := Order(FileSources(paths...))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ordered {
		got = append(got, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(s.Name), "openjdk_SampleSun1_8_0Series-"), ".txt"))
	}
	if strings.Join(got, ",") != "Part1,Part3,Part5,Part7" {
		t.Errorf("order %v", got)
	}
	r, err := Analyze(FileSources(paths...), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Pauses != 259 || len(r.Summary.Files) != 4 || r.Summary.DurationS < 1400 || r.Summary.DurationS > 1500 {
		t.Errorf("joined: %d pauses, %d files, %.0f s", r.Summary.Pauses, len(r.Summary.Files), r.Summary.DurationS)
	}
}
