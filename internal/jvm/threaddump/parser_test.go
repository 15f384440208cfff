package threaddump

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixturePath is a fixture in testdata/: real dumps only, so a missing one
// is a broken checkout, not a reason to skip.
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("testdata", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return p
}

func parseFixture(t testing.TB, name string) []*Dump {
	t.Helper()
	f, err := os.Open(fixturePath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := Parse(name, f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ds
}

func threadByName(d *Dump, name string) *Thread {
	for _, t := range d.Threads {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file       string
		format     Format
		dumps      int
		threads    int // of the first dump
		jdk        int
		ownable    bool
		deadlocks  int // printed by the JVM
		thread     string
		nid        int64
		cpuMS      float64
		allocBytes int64
	}{
		{"jdk17_contention_jcmd.txt", FormatHotSpot, 1, 55, 17, true, 0, "cache-refresher", 6925, -2, -2},
		{"jdk25_contention_jcmd.txt", FormatHotSpot, 1, 54, 25, true, 0, "cache-refresher", 7048, 0.14, 40},
		{"jdk17_deadlock_jcmd.txt", FormatHotSpot, 1, 25, 17, true, 2, "transfer-1", 0x1be0, 0.15, 616},
		{"jdk17_deadlock_jstack.txt", FormatHotSpot, 1, 25, 17, true, 2, "", 0, 0, 0},
		{"jdk25_deadlock_jcmd.txt", FormatHotSpot, 1, 24, 25, true, 2, "main", 7178, 295.30, 33356 << 10},
		{"jdk17_logbacklike_jcmd.txt", FormatHotSpot, 1, 51, 17, true, 0, "http-nio-8080-exec-1", 0x2b0f, 75.07, 42640 << 10},
		{"jdk25_logbacklike_jcmd.txt", FormatHotSpot, 1, 50, 25, true, 0, "", 0, 0, 0},
		{"jdk17_log4j1like_jcmd.txt", FormatHotSpot, 1, 51, 17, true, 0, "", 0, 0, 0},
		{"jdk25_log4j1like_jcmd.txt", FormatHotSpot, 1, 50, 25, true, 0, "", 0, 0, 0},
		{"jdk17_log4j2like_jcmd.txt", FormatHotSpot, 1, 51, 17, true, 0, "", 0, 0, 0},
		{"jdk25_log4j2like_jcmd.txt", FormatHotSpot, 1, 50, 25, true, 0, "", 0, 0, 0},
		{"jdk17_sigquit_prefixed.log", FormatHotSpot, 2, 54, 17, false, 0, "http-nio-8080-exec-1", 0x2efa, 0.51, -1},
		{"jdk25_virtual_jcmd.txt", FormatHotSpot, 1, 23, 25, true, 0, "ForkJoinPool-1-worker-1", 32323, 409.49, 1296},
		{"jdk25_virtual_threaddump_plain.txt", FormatPlain, 1, 16, 25, false, 0, "spinner-0", 0, -1, -1},
		{"jdk25_contention_threaddump.json", FormatJSON, 1, 42, 25, false, 0, "cache-refresher", 0, -1, -1},
		{"jdk25_virtual_threaddump.json", FormatJSON, 1, 16, 25, false, 0, "spinner-1", 0, -1, -1},
		{"tda_java8dump.log", FormatHotSpot, 1, 21, 8, false, 0, "Thread-2", 0x2a43, -1, -1},
		{"tda_java11dump.log", FormatHotSpot, 1, 14, 11, true, 0, "main", 0xaba, 1124.82, -1},
		{"tda_java21dump.log", FormatHotSpot, 1, 18, 21, true, 0, "main", 0x1abc, 2245.67, -1},
		{"tda_jstack_dump.log", FormatHotSpot, 1, 28, 21, true, 0, "Reference Handler", 30467, 0.44, -1},
		{"tda_carrier_stuck.log", FormatHotSpot, 1, 4, 21, false, 0, "ForkJoinPool-1-worker-1", 0x1ac7, 5678.90, -1},
		{"tda_urlthread.log", FormatHotSpot, 1, 70, 6, false, 0, "", 0, 0, 0},
		{"tda_test.log", FormatThreadInfo, 3, 88, 6, true, 0, "Signal Dispatcher", 0, -1, -1},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			ds := parseFixture(t, tc.file)
			if len(ds) != tc.dumps {
				t.Fatalf("dumps = %d, want %d", len(ds), tc.dumps)
			}
			d := ds[0]
			if d.Format != tc.format {
				t.Errorf("format = %s, want %s", d.Format, tc.format)
			}
			if len(d.Threads) != tc.threads {
				t.Errorf("threads = %d, want %d", len(d.Threads), tc.threads)
			}
			if got := d.JDKMajor(); got != tc.jdk {
				t.Errorf("JDKMajor = %d, want %d (VM %q)", got, tc.jdk, d.VM)
			}
			if d.HasOwnable != tc.ownable {
				t.Errorf("HasOwnable = %v, want %v", d.HasOwnable, tc.ownable)
			}
			if len(d.JVMDeadlocks) != tc.deadlocks {
				t.Errorf("JVM deadlocks = %d, want %d", len(d.JVMDeadlocks), tc.deadlocks)
			}
			if tc.thread == "" {
				return
			}
			th := threadByName(d, tc.thread)
			if th == nil {
				t.Fatalf("no thread %q", tc.thread)
			}
			if tc.nid != 0 && th.NativeID != tc.nid {
				t.Errorf("%s NativeID = %d, want %d", tc.thread, th.NativeID, tc.nid)
			}
			if tc.cpuMS != -2 && th.CPUMillis != tc.cpuMS {
				t.Errorf("%s CPUMillis = %v, want %v", tc.thread, th.CPUMillis, tc.cpuMS)
			}
			if tc.allocBytes != -2 && th.AllocatedBytes != tc.allocBytes {
				t.Errorf("%s AllocatedBytes = %v, want %v", tc.thread, th.AllocatedBytes, tc.allocBytes)
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	tests := []struct {
		line string
		want Thread
	}{
		{`"Thread-2" #20 prio=6 os_prio=0 tid=0x00007f92b01aa000 nid=0x2a43 waiting on condition [0x00007f92f507e000]`,
			Thread{Name: "Thread-2", ID: 20, NativeID: 0x2a43, Priority: 6, RawState: "waiting on condition", CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1}},
		{`"main" #1 prio=5 os_prio=0 cpu=394.05ms elapsed=8.68s tid=0x00007f190c019a40 nid=0x4154 waiting on condition  [0x00007f19119de000]`,
			Thread{Name: "main", ID: 1, NativeID: 0x4154, Priority: 5, CPUMillis: 394.05, ElapsedSec: 8.68, AllocatedBytes: -1, RawState: "waiting on condition"}},
		{`"nid-probe-main" #1 [3817383] prio=5 os_prio=0 cpu=24.72ms elapsed=1.20s tid=0x00007485f0019c30 nid=3817383 waiting on condition  [0x00007485f69fe000]`,
			Thread{Name: "nid-probe-main", ID: 1, NativeID: 3817383, Priority: 5, CPUMillis: 24.72, ElapsedSec: 1.2, AllocatedBytes: -1, RawState: "waiting on condition"}},
		{`"Reference Handler" #12 [18945] daemon prio=10 os_prio=0 cpu=0.23ms elapsed=4.86s tid=0x00007ff94c0bc6e0 nid=18945 waiting on condition  [0x00007ff951721000]`,
			Thread{Name: "Reference Handler", ID: 12, NativeID: 18945, Daemon: true, Priority: 10, CPUMillis: 0.23, ElapsedSec: 4.86, AllocatedBytes: -1, RawState: "waiting on condition"}},
		{`"http-nio-8080-exec-1" #26 [18445] prio=5 os_prio=0 cpu=45.06ms elapsed=6.42s allocated=975K defined_classes=0 tid=0x00007ff94c0bc6e0 nid=18445 waiting for monitor entry  [0x00007ff951721000]`,
			Thread{Name: "http-nio-8080-exec-1", ID: 26, NativeID: 18445, Priority: 5, CPUMillis: 45.06, ElapsedSec: 6.42, AllocatedBytes: 975 << 10, RawState: "waiting for monitor entry"}},
		{`"VM Thread" os_prio=0 cpu=36.26ms elapsed=8.65s tid=0x00007f190c0a3f50 nid=0x415a runnable`,
			Thread{Name: "VM Thread", NativeID: 0x415a, CPUMillis: 36.26, ElapsedSec: 8.65, AllocatedBytes: -1, RawState: "runnable"}},
		{`"RMI TCP Connection(69241)-207.241.232.195" daemon prio=10 tid=0x08657000 nid=0x39bb in Object.wait() [0xccdad000..0xccdadfb0]`,
			Thread{Name: "RMI TCP Connection(69241)-207.241.232.195", Daemon: true, Priority: 10, NativeID: 0x39bb, CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1, RawState: "in Object.wait()"}},
		{`"RMI TCP Accept-0" id=2545 in RUNNABLE (running in native)`,
			Thread{Name: "RMI TCP Accept-0", ID: 2545, State: StateRunnable, StateDetail: "running in native", CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1}},
		{`"a "quoted" name" #7 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable`,
			Thread{Name: `a "quoted" name`, ID: 7, Priority: 5, NativeID: 2, CPUMillis: -1, ElapsedSec: -1, AllocatedBytes: -1, RawState: "runnable"}},
	}
	for _, tc := range tests {
		p := newTextParser(strings.NewReader(""), nil)
		got := p.parseHeader([]byte(tc.line))
		if got == nil {
			t.Errorf("parseHeader(%q) = nil", tc.line)
			continue
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("parseHeader(%q)\n got %+v\nwant %+v", tc.line, *got, tc.want)
		}
	}
	for _, bad := range []string{`"unterminated`, `"name"`, `"name" something else`, `"x":`, `""`} {
		p := newTextParser(strings.NewReader(""), nil)
		if got := p.parseHeader([]byte(bad)); got != nil {
			t.Errorf("parseHeader(%q) = %+v, want nil", bad, got)
		}
	}
}

func TestParseFrame(t *testing.T) {
	tests := []struct{ in, method, source, module string }{
		{"java.lang.Thread.sleep(java.base@17.0.15/Native Method)", "java.lang.Thread.sleep", "Native Method", "java.base@17.0.15"},
		{"Contention$$Lambda$250/0x00007f47e015a228.run(Unknown Source)", "Contention$$Lambda$250/0x00007f47e015a228.run", "Unknown Source", ""},
		{"com.foo.Bar.run(app//Bar.java:12)", "com.foo.Bar.run", "Bar.java:12", "app"},
		{"java.lang.Thread.run(Thread.java:745)", "java.lang.Thread.run", "Thread.java:745", ""},
		{"noparen", "noparen", "", ""},
	}
	for _, tc := range tests {
		f := parseFrame(tc.in)
		if f.Method != tc.method || f.Source != tc.source || f.Module != tc.module {
			t.Errorf("parseFrame(%q) = %+v", tc.in, f)
		}
	}
	j := []struct{ in, method, module string }{
		{"java.base/java.lang.Thread.sleep(Thread.java:540)", "java.lang.Thread.sleep", "java.base"},
		{"Contention.main(Contention.java:59)", "Contention.main", ""},
		{"Contention$$Lambda/0x000000000a16a680.run(Unknown Source)", "Contention$$Lambda/0x000000000a16a680.run", ""},
	}
	for _, tc := range j {
		f := parseJSONFrame(tc.in)
		if f.Method != tc.method || f.Module != tc.module {
			t.Errorf("parseJSONFrame(%q) = %+v", tc.in, f)
		}
	}
}

func TestLockLines(t *testing.T) {
	ds := parseFixture(t, "jdk25_contention_jcmd.txt")
	d := ds[0]
	h := threadByName(d, "cache-refresher")
	if len(h.Locked) != 1 || h.Locked[0].Class != "java.util.Collections$SynchronizedMap" || h.Locked[0].Addr != "0x000000069bfbf4f8" {
		t.Fatalf("cache-refresher locked = %+v", h.Locked)
	}
	if f := h.Frames[h.Locked[0].Frame]; f.Method != "Contention.lambda$main$3" {
		t.Errorf("lock recorded under frame %s", f.Method)
	}
	r := threadByName(d, "cache-reader-0")
	if r.State != StateBlocked || r.StateDetail != "on object monitor" || len(r.WaitingToLock) != 1 {
		t.Errorf("cache-reader-0: %s (%s) %+v", r.State, r.StateDetail, r.WaitingToLock)
	}
	fin := threadByName(d, "Finalizer")
	if len(fin.WaitingOn) != 1 || fin.WaitingOn[0].Class != "java.lang.ref.ReferenceQueue$Lock" {
		t.Errorf("Finalizer waiting on %+v", fin.WaitingOn)
	}
	lb := parseFixture(t, "jdk17_logbacklike_jcmd.txt")[0]
	w := threadByName(lb, "http-nio-8080-exec-1")
	if len(w.Parking) != 1 || w.Parking[0].Class != "java.util.concurrent.locks.ReentrantLock$NonfairSync" {
		t.Errorf("parking = %+v", w.Parking)
	}
	owners := 0
	for _, th := range lb.Threads {
		for _, o := range th.OwnableSynchronizers {
			if o.Addr == w.Parking[0].Addr {
				owners++
			}
		}
	}
	if owners != 1 {
		t.Errorf("owners of the appender lock = %d, want 1", owners)
	}
	dl := parseFixture(t, "jdk25_deadlock_jcmd.txt")[0]
	if got := dl.JVMDeadlocks[0]; len(got.Threads) != 2 || got.Locks[0].Class != "java.util.concurrent.locks.ReentrantLock$NonfairSync" || got.Locks[0].Addr != "0x000000069d8f6238" {
		t.Errorf("JVM deadlock 0 = %+v", got)
	}
	if got := dl.JVMDeadlocks[1]; got.Locks[1].Addr != "0x000000069d8f6258" || got.Locks[1].Class != "java.lang.Object" {
		t.Errorf("JVM deadlock 1 = %+v", got)
	}
	// The deadlock section repeats stacks under "name": headers; they are not new threads.
	if n := len(dl.Threads); n != 24 {
		t.Errorf("threads = %d", n)
	}
}

func TestCarriers(t *testing.T) {
	d := parseFixture(t, "jdk25_virtual_jcmd.txt")[0]
	c := threadByName(d, "ForkJoinPool-1-worker-1")
	if c.Carrying != 24 || c.State != StateRunnable || len(c.MountedFrames) == 0 || c.Top().Method != "VirtualBusy.spin" {
		t.Errorf("carrier: carrying=%d state=%s mounted=%d top=%s", c.Carrying, c.State, len(c.MountedFrames), c.Top())
	}
	if c.Frames[0].Method != "jdk.internal.vm.Continuation.run" {
		t.Errorf("carrier frames[0] = %s", c.Frames[0])
	}
	j := parseFixture(t, "jdk25_virtual_threaddump.json")[0]
	v := threadByName(j, "spinner-0")
	if !v.Virtual || v.Carrier != 25 || v.Top().Method != "VirtualBusy.spin" {
		t.Errorf("json VT: %+v", v)
	}
	if w := threadByName(j, "ForkJoinPool-1-worker-1"); w.Carrying != 24 {
		t.Errorf("json carrier carrying = %d", w.Carrying)
	}
	old := parseFixture(t, "tda_carrier_stuck.log")[0]
	if w := threadByName(old, "ForkJoinPool-1-worker-1"); w.Carrying != 21 {
		t.Errorf("jdk21 carrier carrying = %d", w.Carrying)
	}
	if vt := threadByName(old, "VirtualThread[#21]"); vt == nil || !vt.Virtual {
		t.Errorf("jdk21 virtual header not recognised: %+v", vt)
	}
}

func TestPrefixedLog(t *testing.T) {
	ds := parseFixture(t, "jdk17_sigquit_prefixed.log")
	for i, d := range ds {
		if !strings.HasSuffix(d.Prefix, "INFO  [stdout] (Thread-1) ") {
			t.Errorf("dump %d prefix %q", i, d.Prefix)
		}
		if d.Time == "" || d.VM == "" {
			t.Errorf("dump %d time %q vm %q", i, d.Time, d.VM)
		}
		if th := threadByName(d, "line1\nline2 \"fake\" #99 prio=5"); th == nil {
			t.Errorf("dump %d: the name with a newline did not survive the prefix", i)
		}
		for _, th := range d.Threads {
			if strings.Contains(th.Name, "[stdout]") {
				t.Fatalf("prefix leaked into name %q", th.Name)
			}
			for _, f := range th.Frames {
				if strings.Contains(f.Method, "INFO") {
					t.Fatalf("prefix leaked into frame %q", f.Method)
				}
			}
		}
	}
	if ds[1].Line <= ds[0].Line {
		t.Errorf("dump lines %d, %d", ds[0].Line, ds[1].Line)
	}
}

// Several dumps with other log lines around, prefixes of varying width.
func TestPrefixVariants(t *testing.T) {
	src, err := os.ReadFile(fixturePath(t, "jdk17_deadlock_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("2024-01-01 12:00:00,123 INFO  [main] c.e.App - started\n")
	for k := 0; k < 3; k++ {
		for i, ln := range strings.Split(string(src), "\n") {
			// The thread-id field in the prefix changes width; digits still match.
			b.WriteString("2024-01-01 12:00:0" + string(rune('1'+k)) + ",9 INFO  [Thread-" + strings.Repeat("1", 1+i%3) + "] ")
			b.WriteString(ln)
			b.WriteByte('\n')
		}
		b.WriteString("2024-01-01 12:00:09,001 WARN  [http-1] c.e.Svc - slow request 1200 ms\n")
	}
	ds, err := ParseText(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 {
		t.Fatalf("dumps = %d, want 3", len(ds))
	}
	for _, d := range ds {
		if len(d.Threads) != 25 || len(d.JVMDeadlocks) != 2 || d.PID != 7107 {
			t.Errorf("threads=%d deadlocks=%d pid=%d", len(d.Threads), len(d.JVMDeadlocks), d.PID)
		}
	}
}

func TestHostileNames(t *testing.T) {
	names := []string{"evil \"quoted\" <b>html</b> & 'x'", "line1\nline2 \"fake\" #99 prio=5", "订单处理-线程-1", "tab\there"}
	for _, file := range []string{"jdk17_contention_jcmd.txt", "jdk25_contention_jcmd.txt"} {
		d := parseFixture(t, file)[0]
		for _, n := range names {
			th := threadByName(d, n)
			if th == nil {
				t.Errorf("%s: thread %q lost", file, n)
				continue
			}
			if th.State != StateTimedWaiting || len(th.Frames) == 0 {
				t.Errorf("%s: %q state %s frames %d", file, n, th.State, len(th.Frames))
			}
		}
	}
	// Invalid UTF-8, an escape sequence, a fake header inside a name.
	in := "\"bad\xff\xfe name\x1b[31m Full thread dump \" #5 prio=5 os_prio=0 tid=0x1 nid=0x10 runnable  [0x0]\n" +
		"   java.lang.Thread.State: RUNNABLE\n\tat a.B.c(B.java:1)\n"
	ds, err := ParseText(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || len(ds[0].Threads) != 1 || ds[0].Threads[0].Name != "bad\xff\xfe name\x1b[31m Full thread dump " {
		t.Fatalf("got %+v", ds)
	}
	if q := quoteName(ds[0].Threads[0].Name); strings.ContainsRune(q, 0x1b) {
		t.Errorf("escape sequence reaches the terminal: %q", q)
	}
}

func TestNotAThreadDump(t *testing.T) {
	tests := map[string]string{
		"empty":  "",
		"gc log": "[0.010s][info][gc] Using G1\n[0.120s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 2.345ms\n",
		"text":   strings.Repeat("hello world\n", 100),
		"binary": "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\n\x00\x00",
		"quotes": "\"just a quoted line\"\n\"another\" with words\n",
	}
	for name, in := range tests {
		ds, err := Parse("input.txt", strings.NewReader(in))
		if err == nil || !errors.Is(err, ErrNotThreadDump) {
			t.Errorf("%s: err = %v, dumps %d", name, err, len(ds))
			continue
		}
		if !strings.HasPrefix(err.Error(), "input.txt: ") || !strings.Contains(err.Error(), "not a thread dump") {
			t.Errorf("%s: message %q does not name the file", name, err)
		}
	}
	hints := map[string]string{
		"[0.010s][info][gc] Using G1\n": "GC log",
		"2024-01-01T00:00:00.000+0000: 1.2: [GC (Allocation Failure) 1K->1K(2K), 0.1 secs]\n": "GC log",
		"0SECTION       TITLE subcomponent dump routine\n":                                    "javacore",
		"Exception in thread \"main\" java.lang.NullPointerException\n\tat a.B.c(B.java:1)\n": "exception",
	}
	for in, want := range hints {
		if _, err := Parse("h.txt", strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want hint %q", in, err, want)
		}
	}
	if _, err := Parse("a.json", strings.NewReader(`{"threads":[{"threadName":"main"}]}`)); err == nil || !strings.Contains(err.Error(), "actuator") {
		t.Errorf("actuator: %v", err)
	}
	_, err := Parse("x.txt", strings.NewReader(strings.Repeat("hello\n", 7)))
	if err == nil || !strings.Contains(err.Error(), "no 'Full thread dump' header or thread entries in 7 lines") {
		t.Errorf("err = %v", err)
	}
	for _, bad := range []string{"{", "{\"threadDump\": {\"threadContainers\": [{\"threads\": [{\"tid\": \"x\"}]}]}}", "{\"other\": 1}", "[1,2]"} {
		if _, err := Parse("d.json", strings.NewReader(bad)); err == nil || !errors.Is(err, ErrNotThreadDump) {
			t.Errorf("json %q: err = %v", bad, err)
		}
	}
}

func TestTruncatedAndLongLines(t *testing.T) {
	src, err := os.ReadFile(fixturePath(t, "jdk17_contention_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{100, 1000, len(src) / 2, len(src) - 5} {
		ds, err := ParseText(bytes.NewReader(src[:n]))
		if err != nil && !errors.Is(err, ErrNotThreadDump) {
			t.Errorf("truncated at %d: %v", n, err)
		}
		for _, d := range ds {
			Analyze(d)
		}
	}
	long := "Full thread dump X:\n\"a\" #1 prio=5 tid=0x1 nid=0x1 runnable\n\tat " + strings.Repeat("x", 300<<10) + "(A.java:1)\n\"b\" #2 prio=5 tid=0x2 nid=0x2 runnable\n"
	ds, err := ParseText(strings.NewReader(long))
	if err != nil || len(ds) != 1 || len(ds[0].Threads) != 2 {
		t.Fatalf("long line: %v %+v", err, ds)
	}
	if n := len(ds[0].Threads[0].Frames[0].Method); n > maxLine {
		t.Errorf("frame of %d bytes kept", n)
	}
}

func TestParseTextFuncStops(t *testing.T) {
	f, err := os.Open(fixturePath(t, "tda_test.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stop := errors.New("enough")
	n := 0
	err = ParseTextFunc(f, func(d *Dump) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err=%v n=%d", err, n)
	}
}

// JDK 25/26 JSON lock fields: blockedOn, monitorsOwned, parkBlocker (owner since JDK 26).
func TestJSONLocks(t *testing.T) {
	in := `{"threadDump": {"processId": "7", "time": "2026-01-01T00:00:00Z", "runtimeVersion": "26-ea",
	 "threadContainers": [{"container": "<root>", "parent": null, "owner": null, "threads": [
	  {"tid": "10", "name": "a", "state": "BLOCKED", "stack": ["x.A.run(A.java:1)"], "blockedOn": "java.lang.Object@1",
	   "monitorsOwned": [{"depth": 0, "locks": ["java.lang.Object@2"]}]},
	  {"tid": "11", "name": "b", "state": "BLOCKED", "stack": ["x.A.run(A.java:1)"], "blockedOn": "java.lang.Object@2",
	   "monitorsOwned": [{"depth": 0, "locks": ["java.lang.Object@1"]}]},
	  {"tid": "12", "name": "c", "state": "WAITING", "stack": ["java.base/jdk.internal.misc.Unsafe.park(Native Method)", "x.B.run(B.java:2)"],
	   "parkBlocker": {"object": "java.util.concurrent.locks.ReentrantLock$NonfairSync@5", "owner": "13"}},
	  {"tid": "13", "name": "d", "state": "RUNNABLE", "stack": ["x.C.run(C.java:3)"]}
	 ], "threadCount": "4"}]}}`
	ds, err := Parse("d.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	if d.PID != 7 || d.Format != FormatJSON || len(d.Threads) != 4 {
		t.Fatalf("%+v", d)
	}
	if o := threadByName(d, "d"); len(o.OwnableSynchronizers) != 1 {
		t.Errorf("parkBlocker owner not applied: %+v", o.OwnableSynchronizers)
	}
	r := Analyze(d)
	if len(r.Deadlocks) != 1 || len(r.Deadlocks[0].Names) != 2 {
		t.Errorf("deadlocks %+v", r.Deadlocks)
	}
	for _, l := range r.Locks {
		if l.Ref.Class == "java.util.concurrent.locks.ReentrantLock$NonfairSync" && (l.Owner == nil || l.Owner.Name != "d") {
			t.Errorf("juc owner %+v", l.Owner)
		}
	}
}

func TestThreadInfoToString(t *testing.T) {
	for _, file := range []string{"jdk17_threadinfo_tostring.txt", "jdk25_threadinfo_tostring.txt"} {
		d := parseFixture(t, file)[0]
		if d.Format != FormatThreadInfo {
			t.Errorf("%s: format %s", file, d.Format)
		}
		w := threadByName(d, "order-worker-0")
		if w == nil || w.State != StateBlocked || len(w.WaitingToLock) != 1 || w.WaitingToLock[0].Class != "java.lang.Object" {
			t.Fatalf("%s: order-worker-0 %+v", file, w)
		}
		h := threadByName(d, "inventory-holder")
		if len(h.Locked) != 1 || h.Locked[0].Key() != w.WaitingToLock[0].Key() {
			t.Errorf("%s: holder locked %+v", file, h.Locked)
		}
		for _, f := range h.Frames {
			if strings.Contains(f.Method, "/") && !strings.Contains(f.Method, "/0x") {
				t.Errorf("%s: module left in method %q", file, f.Method)
			}
		}
		r := Analyze(d)
		if len(r.Deadlocks) != 1 || !sameSet(r.Deadlocks[0].Names, []string{"transfer-1", "transfer-2"}) {
			t.Errorf("%s: deadlocks %+v", file, r.Deadlocks)
		}
		c := findCulprit(r, "threaddump.lock.app")
		if c == nil || len(c.Threads) != 5 || c.Holder != h {
			t.Errorf("%s: culprits %v", file, culpritIDs(r))
		}
	}
}

// JDK 21's JSON has no state and no locks: threads still parse, states stay unknown.
func TestJSONJDK21(t *testing.T) {
	in := `{
  "threadDump": {
    "processId": "4242",
    "time": "2024-05-01T10:00:00.000000Z",
    "runtimeVersion": "21.0.3+9-LTS",
    "threadContainers": [
      {"container": "<root>", "parent": null, "owner": null,
       "threads": [{"tid": "1", "name": "main", "stack": ["java.base\/java.lang.Thread.sleep0(Native Method)", "App.main(App.java:5)"]}],
       "threadCount": "1"},
      {"container": "java.util.concurrent.ThreadPerTaskExecutor@1b2c3d", "parent": "<root>", "owner": null,
       "threads": [{"tid": "30", "name": "", "stack": ["java.base\/java.lang.VirtualThread.parkNanos(VirtualThread.java:631)"]}],
       "threadCount": "1"}
    ]
  }
}`
	ds, err := Parse("jdk21.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	if d.JDKMajor() != 21 || d.PID != 4242 || len(d.Threads) != 2 || d.Threads[0].Frames[1].Method != "App.main" {
		t.Fatalf("%+v", d)
	}
	r := Analyze(d)
	if r.VMInternal != 0 || r.Java != 0 || r.Unknown != 2 {
		t.Errorf("java %d vm %d unknown %d", r.Java, r.VMInternal, r.Unknown)
	}
}
