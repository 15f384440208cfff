package threaddump

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func readFixture(t *testing.T, name string) []*Dump {
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

func threadNamed(d *Dump, name string) *Thread {
	for _, t := range d.Threads {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func hasID(fs []finding.Finding, id string) bool {
	for _, f := range fs {
		if f.ID == id && f.Status == finding.Fail {
			return true
		}
	}
	return false
}

// OpenJ9's deadlock example (openj9-docs): three workers in a cycle, the
// JVM's 1LKDEADLOCK report read, the deadlock the top finding.
func TestJavacoreDeadlock(t *testing.T) {
	ds := readFixture(t, "openj9_docs_deadlock_javacore.txt")
	if len(ds) != 1 {
		t.Fatalf("%d dumps", len(ds))
	}
	d := ds[0]
	if d.Format != FormatJavacore || d.PID != 30285 || d.Time != "2021-04-23 14:02:44" || !strings.HasPrefix(d.VM, "JRE 9 Linux") || !d.Truncated.IsZero() {
		t.Errorf("dump %+v", d)
	}
	w1 := threadNamed(d, "Worker Thread 1")
	if len(d.Threads) != 3 || w1 == nil || w1.State != StateBlocked || w1.ID != 0x13 || w1.NativeID != 0x52CF || w1.Top().Method != "WorkerThread.run" {
		t.Fatalf("threads: %+v", w1)
	}
	if len(w1.WaitingToLock) != 1 || w1.WaitingToLock[0].Addr != "0xB5666688" || w1.WaitingToLock[0].Class != "java.lang.Object" ||
		len(w1.Locked) != 1 || w1.Locked[0].Addr != "0xB5666678" {
		t.Errorf("locks of worker 1: wants %+v holds %+v", w1.WaitingToLock, w1.Locked)
	}
	if len(d.JVMDeadlocks) != 1 || strings.Join(d.JVMDeadlocks[0].Threads, ",") != "Worker Thread 2,Worker Thread 3,Worker Thread 1" || len(d.JVMDeadlocks[0].Locks) != 3 {
		t.Errorf("1LKDEADLOCK: %+v", d.JVMDeadlocks)
	}
	r := Analyze(d)
	fs := Findings(r, "javacore")
	if len(fs) == 0 || fs[0].ID != "threaddump.deadlock" || fs[0].Severity != finding.Critical {
		t.Errorf("findings: %+v", fs)
	}
}

// OpenJ9's hang example: Worker Thread 0 sleeps holding the lock 19 others
// wait to enter (LOCKS section); the lock is the culprit.
func TestJavacoreHang(t *testing.T) {
	d := readFixture(t, "openj9_docs_hang_javacore.txt")[0]
	w0 := threadNamed(d, "Worker Thread 0")
	if w0 == nil || w0.State != StateTimedWaiting || w0.StateDetail != "sleeping" || len(w0.Locked) != 1 {
		t.Fatalf("worker 0: %+v", w0)
	}
	blocked := 0
	for _, th := range d.Threads {
		if th.State == StateBlocked && len(th.WaitingToLock) == 1 && th.WaitingToLock[0].Addr == "0xB56658D8" {
			blocked++
		}
	}
	if blocked != 19 {
		t.Errorf("%d threads waiting to enter, want 19", blocked)
	}
	if fs := Findings(Analyze(d), "hang"); !hasID(fs, "threaddump.lock.app") {
		t.Errorf("no lock finding: %+v", fs)
	}
}

// A real IBM JDK 1.4.2 javacore (Samurai's test resources): old TID: headers, LOCKS owners.
func TestJavacoreIBM142(t *testing.T) {
	d := readFixture(t, "samurai_ibm142_javacore.txt")[0]
	if d.VM != "J2RE 1.4.2 IBM Windows 32 build cn142sr1w-20041028" || d.Time != "2006-05-10 12:28:23" || len(d.Threads) != 44 || !d.Truncated.IsZero() {
		t.Errorf("dump: %q %q %d threads %q", d.VM, d.Time, len(d.Threads), d.Truncated.EN)
	}
	th := threadNamed(d, "ExecuteThread: '3' for queue: 'JMS.TimerClientPool'")
	if th == nil || th.State != StateWaiting || th.NativeID != 0xCD0 || th.Top().Method != "java.lang.Object.wait" {
		t.Errorf("thread: %+v", th)
	}
	// Cut in the middle: kept as far as it goes, and said.
	src, _ := os.ReadFile(fixturePath(t, "samurai_ibm142_javacore.txt"))
	i := bytes.Index(src, []byte("3XMTHREADINFO      \"ExecuteThread: '1' for queue: 'weblogic.socket.Muxer'\""))
	ds, err := Parse("cut.txt", bytes.NewReader(src[:i+200]))
	if err != nil || len(ds) != 1 || ds[0].Truncated.IsZero() || len(ds[0].Threads) == 0 || len(ds[0].Threads) >= 44 {
		t.Errorf("cut javacore: %v %+v", err, ds)
	}
	if _, err := Parse("x.txt", strings.NewReader("0SECTION       TITLE subcomponent dump routine\n")); !errors.Is(err, ErrNotThreadDump) {
		t.Errorf("javacore without threads: %v", err)
	}
}

// HP-UX JDK dumps (Samurai's hp.dmp): three dumps, lwp_id the OS thread id.
func TestHPUX(t *testing.T) {
	ds := readFixture(t, "samurai_hpux_hp.dmp")
	if len(ds) != 3 {
		t.Fatalf("%d dumps", len(ds))
	}
	d := ds[0]
	if d.Format != FormatHPUX || len(d.Threads) != 75 {
		t.Errorf("format %q, %d threads", d.Format, len(d.Threads))
	}
	lt := threadNamed(d, "ListenThread")
	if lt == nil || lt.NativeID != 3573240 || lt.State != StateRunnable || len(lt.Locked) != 1 || lt.Priority != 10 {
		t.Errorf("ListenThread: %+v", lt)
	}
	sl := threadNamed(d, "InactiveAgentCheckThread")
	if sl == nil || sl.State != StateTimedWaiting || !sl.Daemon {
		t.Errorf("sleeping thread: %+v", sl)
	}
	for _, d := range ds {
		if !d.Truncated.IsZero() {
			t.Errorf("JDK 1.4 dump flagged as cut: %s", d.Truncated.EN)
		}
	}
}

// VisualVM's JMX dump: t@ID headers, the lock and its owner on the state line.
func TestVisualVM(t *testing.T) {
	d := readFixture(t, "jdk17_visualvm_jmx.tdump")[0]
	if d.Format != FormatVisualVM || d.Time == "" || !strings.Contains(d.VM, "17.0.15") {
		t.Errorf("dump: %q %q %q", d.Format, d.Time, d.VM)
	}
	r := threadNamed(d, "cache-reader-0")
	if r == nil || r.State != StateBlocked || r.ID == 0 || len(r.WaitingToLock) != 1 || r.WaitingToLock[0].Class != "java.lang.Object" {
		t.Fatalf("reader: %+v", r)
	}
	h := threadNamed(d, "cache-refresher")
	if h == nil || !containsKey(h.Locked, r.WaitingToLock[0].Key()) {
		t.Errorf("holder does not hold the readers' lock: %+v", h)
	}
	pw := threadNamed(d, "pool-waiter-0")
	po := threadNamed(d, "pool-owner")
	if pw == nil || len(pw.Parking) != 1 || po == nil || len(po.OwnableSynchronizers) != 1 || po.OwnableSynchronizers[0].Key() != pw.Parking[0].Key() {
		t.Errorf("ReentrantLock: waiter %+v owner %+v", pw, po)
	}
	if pw.Top().Method != "jdk.internal.misc.Unsafe.park" {
		t.Errorf("frames with modules first: %+v", pw.Top())
	}
	fs := Findings(Analyze(d), "vvm")
	if !hasID(fs, "threaddump.lock.app") && !hasID(fs, "threaddump.blocked-share") {
		t.Errorf("no contention finding: %v", fs)
	}
}

// A dump cut mid-thread, and a 3 MB thread name: what was read is kept,
// what was lost is said, and no frame lands on the wrong thread.
func TestCutAndOversized(t *testing.T) {
	src, err := os.ReadFile(fixturePath(t, "jdk17_contention_jcmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := ParseText(bytes.NewReader(src))
	if !whole[0].Truncated.IsZero() {
		t.Errorf("whole dump flagged: %s", whole[0].Truncated.EN)
	}
	cut, err := ParseText(bytes.NewReader(src[:len(src)*2/3]))
	if err != nil || len(cut) != 1 || cut[0].Truncated.IsZero() || len(cut[0].Threads) >= len(whole[0].Threads) {
		t.Fatalf("cut: %v, %d dumps", err, len(cut))
	}
	if !strings.Contains(cut[0].Truncated.EN, "may be cut short after thread") || cut[0].Truncated.ZH == "" {
		t.Errorf("said: %+v", cut[0].Truncated)
	}

	huge := "Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):\n\n" +
		"\"a\" #1 prio=5 os_prio=0 tid=0x1 nid=0x1 runnable\n   java.lang.Thread.State: RUNNABLE\n\tat x.A.run(A.java:1)\n\n" +
		"\"" + strings.Repeat("n", 3<<20) + "\" #2 prio=5 os_prio=0 tid=0x2 nid=0x2 runnable\n   java.lang.Thread.State: BLOCKED (on object monitor)\n\tat x.B.run(B.java:2)\n\t- waiting to lock <0x9> (a x.L)\n\n" +
		"\"c\" #3 prio=5 os_prio=0 tid=0x3 nid=0x3 runnable\n   java.lang.Thread.State: RUNNABLE\n\tat x.C.run(C.java:3)\n\nJNI global refs: 1, weak refs: 0\n"
	ds, err := ParseText(strings.NewReader(huge))
	if err != nil || len(ds) != 1 {
		t.Fatal(err)
	}
	d := ds[0]
	if len(d.Threads) != 2 || d.Dropped != 1 || !strings.Contains(d.DroppedWhy.EN, "thread header longer than 64 KiB") {
		t.Fatalf("%d threads, dropped %d (%s)", len(d.Threads), d.Dropped, d.DroppedWhy.EN)
	}
	if a := d.Threads[0]; len(a.Frames) != 1 || len(a.WaitingToLock) != 0 {
		t.Errorf("the dropped thread's stack went to %q: %+v", a.Name, a)
	}
	var out bytes.Buffer
	WriteText(&out, ReadSet([]Input{{Name: "huge.txt", R: strings.NewReader(huge)}}), finding.ZH)
	if !strings.Contains(out.String(), "已略去: 1 (第 7 行：线程头超过 64 KiB)") {
		t.Errorf("render:\n%.600s", out.String())
	}
	out.Reset()
	WriteText(&out, ReadSet([]Input{{Name: "cut.txt", R: bytes.NewReader(src[:len(src)*2/3])}}), finding.EN)
	if !strings.Contains(out.String(), "Cut short: the input ends before") {
		t.Errorf("render:\n%.600s", out.String())
	}
}

// The refusal names what the input is, in both languages.
func TestNotADumpSaysWhat(t *testing.T) {
	_, err := Parse("empty.txt", strings.NewReader(""))
	if !errors.Is(err, ErrNotThreadDump) || err.Error() != "empty.txt: not a thread dump: empty" || finding.Localize(err, finding.ZH) != "empty.txt: 不是线程转储：空文件" {
		t.Errorf("%v / %s", err, finding.Localize(err, finding.ZH))
	}
	_, err = Parse("gc.log", strings.NewReader("[0.002s][info][gc] Using G1\n"))
	if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, "不是线程转储：1 行内没有") || !strings.Contains(zh, "看起来是 GC 日志") || strings.Contains(zh, "looks like") {
		t.Errorf("zh: %s", zh)
	}
}
