package gclog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// zeros is /dev/zero without the file: an endless line of NUL bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func devZero(t *testing.T) io.Reader {
	f, err := os.Open("/dev/zero")
	if err != nil {
		return zeros{}
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// /dev/zero once looped forever; now it ends as "not a GC log" naming the
// file and line, after the sniff bound, long before the 16 GiB given.
func TestDevZeroIsNotAGCLog(t *testing.T) {
	start := time.Now()
	_, err := Parse(io.LimitReader(devZero(t), 16<<30), "zero.log", nil)
	if !errors.Is(err, ErrNotGCLog) || !strings.Contains(err.Error(), "zero.log: line 1") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// A GC log followed by endless zeros stops at MaxBytes with a message naming
// the file and the limit.
func TestByteLimitFires(t *testing.T) {
	head := "[0.004s][info][gc] Using G1\n[0.100s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(128M) 3.000ms\n"
	r := io.MultiReader(strings.NewReader(head), devZero(t))
	_, err := ParseContext(context.Background(), r, "gc.log", Limits{MaxBytes: 8 << 20}, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "gc.log") || !strings.Contains(err.Error(), "8388608 bytes") {
		t.Fatalf("err = %v", err)
	}
	// The event limit too.
	var b strings.Builder
	b.WriteString("[0.004s][info][gc] Using G1\n")
	for i := range 20 {
		b.WriteString(unifiedLine(i, float64(i), "Young (Normal)", "G1 Evacuation Pause", 30, 5, 2))
	}
	_, err = ParseContext(context.Background(), strings.NewReader(b.String()), "many.log", Limits{MaxEvents: 10}, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "many.log") || !strings.Contains(err.Error(), "10 events") {
		t.Fatalf("event limit: %v", err)
	}
}

// Ctrl-C: a cancelled context stops a parse stuck in an endless line
// within a second.
func TestParseCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	head := "[0.004s][info][gc] Using G1\n"
	done := make(chan error, 1)
	go func() {
		_, err := ParseContext(ctx, io.MultiReader(strings.NewReader(head), devZero(t)), "gc.log", Limits{MaxBytes: 1 << 50}, nil)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "gc.log") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("parse did not stop within a second of cancel")
	}
	// Analysis passes the context down.
	if _, err := AnalyzeContext(ctx, FileSources("testdata/live/jdk17-g1.log"), DefaultThresholds()); !errors.Is(err, context.Canceled) {
		t.Errorf("AnalyzeContext after cancel: %v", err)
	}
}

func TestRandomBytesAreNotAGCLog(t *testing.T) {
	buf := make([]byte, 4<<20)
	rand.New(rand.NewSource(1)).Read(buf)
	_, err := Parse(bytes.NewReader(buf), "random.bin", nil)
	if !errors.Is(err, ErrNotGCLog) || !strings.Contains(err.Error(), "random.bin: line ") {
		t.Fatalf("err = %v", err)
	}
}

// A 100 MB line inside a real log is skipped and counted; the events around
// it are all read.
func TestHundredMBLine(t *testing.T) {
	data, err := os.ReadFile("testdata/live/jdk17-g1.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	half := strings.Join(lines[:len(lines)/2], "")
	rest := strings.Join(lines[len(lines)/2:], "")
	big := io.MultiReader(strings.NewReader(half), io.LimitReader(repeatReader('x'), 100<<20), strings.NewReader("\n"+rest))
	s := NewSummariser()
	st, err := Parse(big, "big.log", s.Add)
	if err != nil {
		t.Fatal(err)
	}
	whole, wst := parseFile(t, "testdata/live/jdk17-g1.log")
	if st.LongLines != 1 || st.Unparsed != 1 || st.Events != wst.Events {
		t.Errorf("long lines %d, unparsed %d, events %d (want 1, 1, %d)", st.LongLines, st.Unparsed, st.Events, wst.Events)
	}
	s.AddStats(st)
	if got := s.Summary(); got.Pauses != whole.Pauses {
		t.Errorf("pauses %d, want %d", got.Pauses, whole.Pauses)
	}
	// The same line first: not a GC log, without reading all of it twice.
	_, err = Parse(io.LimitReader(repeatReader('x'), 100<<20), "x.log", nil)
	if !errors.Is(err, ErrNotGCLog) {
		t.Errorf("a 100 MB line alone: %v", err)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// Problem seen: one event gave "Throughput 0.00 %" critical, two gave
// 71.83 % and 16,703 MB/s. Now both are "too short to judge", in both
// languages, without a severity.
func TestShortLogsAreNotJudged(t *testing.T) {
	for _, name := range []string{"openjdk_SampleSun1_6_0G1FullGcTenuringDistribution.txt", "openjdk_SampleSun1_8_0G1PrintGCCausePrintTenuringDistribution.txt",
		"openjdk_SampleSun1_7_0CMSTenuringDistributionInitiationStatistics.txt", "openjdk_unified-jvm-logging_sample-ujl-serial-gc-defaults.txt"} {
		r, err := Analyze(FileSources(filepath.Join("testdata/corpus", name)), DefaultThresholds())
		if err != nil {
			t.Fatal(err)
		}
		s := r.Summary
		if s.ThroughputPct != -1 || s.AllocRateMBs != -1 || s.PromotionRateMBs != -1 {
			t.Errorf("%s: throughput %.2f, allocation %.1f MB/s over %.1f s, %d pauses", name, s.ThroughputPct, s.AllocRateMBs, s.DurationS, s.Pauses)
		}
		tp := ids(r.Findings)["gc.throughput-low"]
		if tp.Status != finding.Unavailable || tp.Severity != 0 || !strings.Contains(tp.Reason.EN, "Too short to judge") || !strings.Contains(tp.Reason.ZH, "太短") {
			t.Errorf("%s: %s %s %q", name, tp.Status, tp.Severity, tp.Reason.EN)
		}
		if _, ok := ids(r.Findings)["gc.not-the-bottleneck"]; ok {
			t.Errorf("%s: 'GC is not the problem' on a fragment", name)
		}
		if s.Pauses < MinJudgePauses {
			if lp := ids(r.Findings)["gc.long-pause"]; lp.Status != finding.Unavailable || !strings.Contains(lp.Reason.EN, "Too short") {
				t.Errorf("%s: pause statistics on %d pauses: %s", name, s.Pauses, lp.Status)
			}
		}
	}
}

// Problem seen: a 0.4 s unified log (every line with an uptime) said it had
// no timestamps.
func TestShortLogHasTimestamps(t *testing.T) {
	r, err := Analyze(FileSources("testdata/corpus/openjdk_unified-jvm-logging_sample-ujl-serial-gc-defaults.txt"), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	tp := ids(r.Findings)["gc.throughput-low"]
	if !r.Summary.HasTime || strings.Contains(tp.Reason.EN, "no timestamps") || !strings.Contains(tp.Reason.EN, "over 0.") {
		t.Errorf("has time %v: %q", r.Summary.HasTime, tp.Reason.EN)
	}
	// Without any timestamp it still says so.
	s, _ := parseString(t, "[GC 30463K->3108K(1571712K), 0.1282309 secs]\n")
	if s.HasTime || !strings.Contains(ids(Findings(s, DefaultThresholds(), "x"))["gc.throughput-low"].Reason.EN, "no timestamps") {
		t.Errorf("no-timestamp log: %+v", s.HasTime)
	}
}

// Problem seen: a Shenandoah degenerated GC of 184 ms was reported as one
// "full (or degenerated)" GC of 0.000 ms while the header said 0 full GCs.
func TestShenandoahDegenerated(t *testing.T) {
	r, err := Analyze(FileSources("testdata/corpus/openjdk_SampleOpenJdk1_8_0-332.txt"), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	if s.FullGCs != 0 || s.Degenerated != 1 || s.DegeneratedMs < 184 || s.DegeneratedMs > 185 {
		t.Errorf("full %d, degenerated %d (%.3f ms)", s.FullGCs, s.Degenerated, s.DegeneratedMs)
	}
	f := ids(r.Findings)["gc.full-gc"]
	if !strings.Contains(f.Observed.EN, "0 full GCs") || !strings.Contains(f.Observed.EN, "1 degenerated GCs (184 ms)") || !strings.Contains(f.Observed.ZH, "1 次退化 GC（184 ms）") {
		t.Errorf("finding: %s / %s", f.Observed.EN, f.Observed.ZH)
	}
	if f.EvidenceValue("degenerated_ms") != "184.5" {
		t.Errorf("evidence degenerated_ms %q", f.EvidenceValue("degenerated_ms"))
	}
}

func memSource(name, data string) Source {
	return Source{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
}

func readLive(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata/live", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Logs of different JVMs given together are refused by Analyze (naming the
// files, in both languages) and split by AnalyzeSets; rotated parts of one
// JVM still join.
func TestSetsByJVM(t *testing.T) {
	g1, par := readLive(t, "jdk17-g1.log"), readLive(t, "jdk17-parallel.log")
	mixed := []Source{memSource("g1.log", g1), memSource("parallel.log", par)}
	_, err := Analyze(mixed, DefaultThresholds())
	var me *MixedJVMsError
	if !errors.As(err, &me) || len(me.Sets) != 2 || !strings.Contains(me.Text.EN, "g1.log") || !strings.Contains(me.Text.EN, "parallel.log") ||
		!strings.Contains(me.Text.EN, "collector") || !strings.Contains(me.Text.ZH, "不同的 JVM") {
		t.Fatalf("mixed: %v", err)
	}
	rs, err := AnalyzeSets(mixed, DefaultThresholds())
	if err != nil || len(rs) != 2 {
		t.Fatalf("sets: %d, %v", len(rs), err)
	}
	if rs[0].Summary.Collector != G1 || rs[1].Summary.Collector != Parallel {
		t.Errorf("collectors %v, %v", rs[0].Summary.Collector, rs[1].Summary.Collector)
	}
	alone, _ := parseFile(t, "testdata/live/jdk17-g1.log")
	if rs[0].Summary.Pauses != alone.Pauses {
		t.Errorf("G1 set has %d pauses, the G1 log alone %d", rs[0].Summary.Pauses, alone.Pauses)
	}
	if f, ok := ids(rs[1].Findings)["gc.separate-jvms"]; !ok || !strings.Contains(f.Observed.EN, "g1.log") {
		t.Errorf("no separate-jvms finding naming the other file: %+v", f.Observed)
	}

	// Same collector, two runs of the same program: overlapping uptimes.
	two := []Source{memSource("a/gc.log", g1), memSource("b/gc.log", readLive(t, "jdk25-g1-gconly-notags.log"))}
	if rs, err := AnalyzeSets(two, DefaultThresholds()); err != nil || len(rs) != 2 {
		t.Errorf("two G1 runs: %d sets, %v", len(rs), err)
	}
	// Same collector and both dated: different start times.
	dated := []Source{memSource("x.log", readLive(t, "jdk25-g1.log")), memSource("y.log", readLive(t, "jdk17-g1-12s.log"))}
	if _, err := Analyze(dated, DefaultThresholds()); !errors.As(err, &me) || !strings.Contains(me.Text.EN, "differs in") {
		t.Errorf("two dated G1 runs: %v", err)
	}
	// pid in the name (-Xloggc:gc-%p.log) separates otherwise silent files.
	line := "2.167: [GC (Allocation Failure) 30463K->3108K(1571712K), 0.0128 secs]\n"
	late := "902.167: [GC (Allocation Failure) 30463K->3108K(1571712K), 0.0128 secs]\n"
	if rs, _ := AnalyzeSets([]Source{memSource("gc-pid100.log", line), memSource("gc-pid200.log", late)}, DefaultThresholds()); len(rs) != 2 {
		t.Errorf("pids in names: %d sets", len(rs))
	}

	// Rotated parts of one JVM: one report, as before.
	lines := strings.SplitAfter(par, "\n")
	n := len(lines) / 2
	parts := []Source{memSource("gc.log", strings.Join(lines[n:], "")), memSource("gc.log.0", strings.Join(lines[:n], ""))}
	rs, err = AnalyzeSets(parts, DefaultThresholds())
	if err != nil || len(rs) != 1 || len(rs[0].Summary.Files) != 2 {
		t.Fatalf("rotated: %d sets, %v", len(rs), err)
	}
	if _, ok := ids(rs[0].Findings)["gc.separate-jvms"]; ok {
		t.Error("one JVM reported as several")
	}
	// The pid decorator: the 12 s Parallel log carries [pid][tid].
	_, st := parseFile(t, "testdata/live/jdk25-parallel-12s.log")
	if st.PID <= 0 || st.JVMStart.IsZero() {
		t.Errorf("pid %d, start %v", st.PID, st.JVMStart)
	}
}

// A gzip-compressed rotated part is read like the plain one.
func TestGzipSource(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/live/jdk17-serial.log")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	p := filepath.Join(dir, "gc.log.1.gz")
	if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(FileSources(p), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := parseFile(t, "testdata/live/jdk17-serial.log")
	if r.Summary.Pauses != plain.Pauses || r.Summary.Collector != Serial {
		t.Errorf("gz: %d pauses, plain %d", r.Summary.Pauses, plain.Pauses)
	}
	// A corrupt .gz is an error naming the file, not a hang or panic.
	bad := filepath.Join(dir, "bad.gz")
	os.WriteFile(bad, append([]byte{0x1f, 0x8b}, make([]byte, 100)...), 0o644)
	if _, err := Analyze(FileSources(bad), DefaultThresholds()); err == nil || !strings.Contains(err.Error(), "bad.gz") {
		t.Errorf("corrupt gzip: %v", err)
	}
	if rotationIndex("gc.log.1.gz") != 1 {
		t.Errorf("rotation index of gc.log.1.gz: %v", rotationIndex("gc.log.1.gz"))
	}
}
