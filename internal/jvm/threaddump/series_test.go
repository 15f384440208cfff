package threaddump

import (
	"strings"
	"testing"
)

func TestSeriesStuckAndHot(t *testing.T) {
	ds := parseFixture(t, "jdk17_sigquit_prefixed.log")
	s := AnalyzeSeries(ds)
	if len(s.Reports) != 2 {
		t.Fatalf("reports = %d", len(s.Reports))
	}
	stuck := map[string]StuckThread{}
	for _, st := range s.Stuck {
		stuck[st.Name] = st
	}
	// The lock holder sleeps and its 19 waiters stay BLOCKED across both dumps.
	if st, ok := stuck["http-nio-8080-exec-2"]; !ok || st.State != StateBlocked || st.Dumps != 2 || st.App.Method != "Contention$OrderService.lookup" {
		t.Errorf("exec-2 stuck = %+v (ok %v)", st, ok)
	}
	if _, ok := stuck["http-nio-8080-exec-21"]; ok {
		t.Errorf("idle pool thread reported stuck")
	}
	if len(s.Stuck) < 20 {
		t.Errorf("stuck = %d", len(s.Stuck))
	}
	if len(s.CPU) < 40 {
		t.Errorf("cpu join across the two SIGQUIT dumps: %d threads", len(s.CPU))
	}
	if s.Samples != 0 {
		t.Errorf("samples %d: the contention dumps have no working RUNNABLE thread", s.Samples)
	}
	fs := SeriesFindings(s, "x.log")
	if len(fs) != 1 || fs[0].ID != "threaddump.stuck" {
		t.Errorf("series findings %+v", fs)
	}
	// One dump: nothing can be stuck.
	if one := AnalyzeSeries(ds[:1]); len(one.Stuck) != 0 {
		t.Errorf("stuck with one dump")
	}
}

func TestSeriesHotFrames(t *testing.T) {
	ds := append(parseFixture(t, "jdk17_logbacklike_jcmd.txt"), parseFixture(t, "jdk25_logbacklike_jcmd.txt")...)
	s := AnalyzeSeries(ds)
	if s.Samples == 0 || len(s.HotFrames) == 0 {
		t.Fatalf("no hot frames")
	}
	if s.HotFrames[0].Frame.Method != "java.io.FileOutputStream.writeBytes" {
		t.Errorf("hottest %s", s.HotFrames[0].Frame)
	}
	if len(s.HotMethods) == 0 || isJDKFrame(s.HotMethods[0].Frame.Method) {
		t.Errorf("hot methods %+v", s.HotMethods)
	}
	total := 0
	for _, h := range s.HotFrames {
		total += h.Count
	}
	if total != s.Samples {
		t.Errorf("hot frame counts %d != samples %d", total, s.Samples)
	}
	ids := map[string]bool{}
	for _, f := range SeriesFindings(s, "x.log") {
		ids[f.ID] = true
	}
	if !ids["threaddump.hot-frames"] {
		t.Errorf("series findings %v", ids)
	}
}

func TestThreadsMatchAcrossTDAMultiDump(t *testing.T) {
	s := AnalyzeSeries(parseFixture(t, "tda_test.log"))
	if len(s.Reports) != 3 || len(s.Stuck) == 0 {
		t.Fatalf("reports %d stuck %d", len(s.Reports), len(s.Stuck))
	}
	if s.Stuck[0].Dumps != 3 {
		t.Errorf("longest streak %d, want 3", s.Stuck[0].Dumps)
	}
}

func TestJoinCPU(t *testing.T) {
	d := parseFixture(t, "jdk17_logbacklike_jcmd.txt")[0]
	holder := threadByName(d, "http-nio-8080-exec-30")
	cpu := map[int64]float64{holder.NativeID: 12.5, 1: 99}
	for _, th := range d.Threads[:3] {
		cpu[th.NativeID] = 0.5
	}
	j := Join(d, cpu)
	if len(j) != 4 || j[0].Name != holder.Name || j[0].CPUSeconds != 12.5 || j[0].Top.Method != "java.io.FileOutputStream.writeBytes" {
		t.Fatalf("join = %+v", j)
	}
	// cpu= deltas between two dumps of one JVM.
	ds := parseFixture(t, "jdk17_sigquit_prefixed.log")
	delta := CPUDelta(ds[0], ds[1])
	if len(delta) < 40 {
		t.Fatalf("delta entries %d", len(delta))
	}
	for nid, v := range delta {
		if v < 0 {
			t.Errorf("negative delta for %d: %v", nid, v)
		}
	}
	if got := Join(ds[1], delta); len(got) != len(delta) {
		t.Errorf("joined %d of %d", len(got), len(delta))
	}
	// Decimal (JDK 18+) and hex (<= 17) nids both key by the OS id.
	d25 := parseFixture(t, "jdk25_logbacklike_jcmd.txt")[0]
	for _, th := range d25.Threads {
		if !strings.Contains(th.Name, "exec") {
			continue
		}
		if th.NativeID < 100 {
			t.Errorf("%s nid %d", th.Name, th.NativeID)
		}
	}
}

// JFR's periodic-task thread naps between events: idle, never stuck. A
// RUNNABLE worker on the same line in two dumps is a hot loop sampled twice.
func TestSeriesIgnoresJFRNapAndTwoRunnableSamples(t *testing.T) {
	const dump = `2026-11-22 01:37:10
Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

"JFR Periodic Tasks" #71 daemon prio=9 os_prio=0 cpu=0.46ms elapsed=1.67s tid=0x00007fe3ed705610 nid=0x7afd in Object.wait()  [0x00007fe4048fe000]
   java.lang.Thread.State: TIMED_WAITING (on object monitor)
	at java.lang.Object.wait(java.base@17.0.15/Native Method)
	- waiting on <0x00000006934e8918> (a jdk.jfr.internal.JVM$ChunkRotationMonitor)
	at jdk.jfr.internal.PlatformRecorder.takeNap(jdk.jfr@17.0.15/PlatformRecorder.java:544)
	- locked <0x00000006934e8918> (a jdk.jfr.internal.JVM$ChunkRotationMonitor)
	at jdk.jfr.internal.PlatformRecorder.periodicTask(jdk.jfr@17.0.15/PlatformRecorder.java:524)

"http-nio-8080-exec-45" #60 daemon prio=5 os_prio=0 cpu=812.12ms elapsed=9.03s tid=0x00007fe3ec0a1000 nid=0x7af0 runnable  [0x00007fe3d47fd000]
   java.lang.Thread.State: RUNNABLE
	at java.util.Arrays.copyOf(java.base@17.0.15/Arrays.java:3537)
	at com.example.zoo.PriceCalculator.computeChecksum(PriceCalculator.java:42)

`
	ds, err := ParseText(strings.NewReader(dump + dump))
	if err != nil {
		t.Fatal(err)
	}
	if s := AnalyzeSeries(ds); len(s.Stuck) != 0 {
		t.Errorf("stuck: %s (%d dumps)", s.Stuck[0].Name, s.Stuck[0].Dumps)
	}
	ds3, _ := ParseText(strings.NewReader(dump + dump + dump))
	if s := AnalyzeSeries(ds3); len(s.Stuck) != 1 || s.Stuck[0].Name != "http-nio-8080-exec-45" {
		t.Errorf("a RUNNABLE thread on one line in 3 dumps should be reported stuck: %+v", s.Stuck)
	}
}
