package profile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// stuckService holds waits no JFR event will ever end: two threads
// deadlocked on two monitors (left, right), two threads queued on a
// ReentrantLock whose holder sleeps forever, and a pool worker idle for
// good. Two more threads go round a second ReentrantLock through the same
// lambda and methods as the queued ones: their waits end, so JFR records
// them, on the very stack the dumps give the queued threads.
const stuckService = `import java.util.concurrent.*;
import java.util.concurrent.locks.*;
public class Stuck {
  static final Object a = new Object(), b = new Object();
  static final ReentrantLock held = new ReentrantLock(), busy = new ReentrantLock();
  static final CountDownLatch taken = new CountDownLatch(3);
  static void left() throws Exception { synchronized (a) { taken.countDown(); taken.await(); synchronized (b) { } } }
  static void right() throws Exception { synchronized (b) { taken.countDown(); taken.await(); synchronized (a) { } } }
  static void queue(ReentrantLock l, long hold) throws Exception { l.lock(); try { Thread.sleep(hold); } finally { l.unlock(); } }
  static void worker(ReentrantLock l, boolean again) { try { do { queue(l, 10); Thread.sleep(2); } while (again); } catch (Exception e) {} }
  static Thread start(String name, ReentrantLock l, boolean again) { Thread t = new Thread(() -> worker(l, again), name); t.start(); return t; }
  public static void main(String[] args) throws Exception {
    new Thread(() -> { try { left(); } catch (Exception e) {} }, "left").start();
    new Thread(() -> { try { right(); } catch (Exception e) {} }, "right").start();
    new Thread(() -> { held.lock(); taken.countDown(); try { Thread.sleep(Long.MAX_VALUE); } catch (Exception e) {} }, "holder").start();
    taken.await();
    Thread q0 = start("queued-0", held, false), q1 = start("queued-1", held, false);
    start("busy-0", busy, true); start("busy-1", busy, true);
    Executors.newFixedThreadPool(1).submit(() -> {});
    while (q0.getState() != Thread.State.WAITING || q1.getState() != Thread.State.WAITING) Thread.sleep(10);
    Thread.sleep(300);
    System.out.println("ready");
    Thread.sleep(Long.MAX_VALUE);
  } }`

// valueOf is the part of p under stacks whose frames include frame and
// end in leaf.
func valueOf(p *stacks.Profile, frame, leaf string) (v int64, jfrEvents int) {
	for _, s := range p.Samples {
		if strings.HasPrefix(s.Stack[len(s.Stack)-1], leaf) && strings.Contains(";"+strings.Join(s.Stack, ";")+";", ";"+frame+";") {
			v += s.Value
			jfrEvents += s.Events
		}
	}
	return v, jfrEvents
}

// On a real JVM the lock and wall views name the deadlocked threads'
// methods and the queue on the lock held forever, each thread with about
// the capture's duration, and the note says so in both languages. The
// queued threads' stack is the one JFR records for the threads whose waits
// end: they merge. JDK 17 and 25, one JVM at a time.
func TestCaptureWaitsLongerThanTheCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("starts JVMs")
	}
	homes := []string{"/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/temurin-25-jdk-amd64"}
	ran := 0
	for _, home := range homes {
		java := filepath.Join(home, "bin/java")
		if _, err := os.Stat(java); err != nil {
			t.Logf("%s: no JDK there", home)
			continue
		}
		ran++
		t.Run(filepath.Base(home), func(t *testing.T) { checkWholeWaits(t, java) })
	}
	if ran == 0 {
		checkWholeWaits(t, javaOnPath(t))
	}
}

func checkWholeWaits(t *testing.T, java string) {
	pid := startJava(t, java, "Stuck", stuckService)
	// A JDK 8 dump prints no cpu=: the kernel's count for the waiting
	// threads is the one this JVM's dump prints.
	vm, err := attach.AttachContext(context.Background(), pid, attach.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := takeDump(context.Background(), vm, pid)
	if err != nil {
		t.Fatal(err)
	}
	printed := map[*threaddump.Thread]float64{}
	for _, th := range d.Threads {
		if _, ok := waitOf(th); ok {
			printed[th], th.CPUMillis = th.CPUMillis, -1
		}
	}
	fillCPU(d, "/proc/"+strconv.Itoa(pid))
	for th, ms := range printed {
		if th.CPUMillis < 0 || th.CPUMillis-ms > 1 || ms-th.CPUMillis > 0.1 {
			t.Errorf("%s: cpu=%.2fms printed, %.2f ms from /proc", th.Name, ms, th.CPUMillis)
		}
	}
	if len(printed) < 5 {
		t.Errorf("%d waiting threads in the dump", len(printed))
	}
	for _, kind := range []stacks.Kind{stacks.Lock, stacks.Wall} {
		res, err := Capture(context.Background(), pid, kind, 2*time.Second, Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		p, dur := res.Profile, res.Duration.Nanoseconds()
		var note string
		for _, n := range res.Notes {
			if strings.Contains(n.EN, "the whole capture") {
				note = n.EN + "\n" + n.ZH
			}
		}
		t.Logf("%s: %d ns over %d events in %v; note:\n%s", kind, p.Total, p.Events, res.Duration, note)
		for _, n := range res.Notes {
			t.Logf("%s: note %q", kind, n.EN)
		}
		for i, s := range p.Samples {
			if i < 6 {
				t.Logf("  %d (%d events) %s", s.Value, s.Events, strings.Join(s.Stack, ";"))
			}
		}
		// Each stuck thread weighs the capture, less the first dump's
		// time: a lower bound, never more than the capture.
		about := func(what string, v int64, threads int) {
			if lo, hi := int64(threads)*dur*7/10, int64(threads)*dur; v < lo || v > hi {
				t.Errorf("%s: %s %.2f s, want about %d × %.2f s", kind, what, float64(v)/1e9, threads, float64(dur)/1e9)
			}
		}
		left, _ := valueOf(p, "Stuck.left", "[lock] java.lang.Object")
		right, _ := valueOf(p, "Stuck.right", "[lock] java.lang.Object")
		queued, _ := valueOf(p, "Stuck.queue", "[park] java.util.concurrent.locks.ReentrantLock$NonfairSync")
		about("left", left, 1)
		about("right", right, 1)
		// The two queued threads, and the busy ones' own waits on the same
		// stack: those are in JFR's events, at most the capture each.
		if q := queued; q < 2*dur*7/10 || q > 4*dur {
			t.Errorf("%s: queue %.2f s, want 2 × %.2f s and the busy threads' waits", kind, float64(q)/1e9, float64(dur)/1e9)
		}
		// The first stack is a stuck thread's: the busy threads' waits and
		// samples are shorter than the capture.
		if first := strings.Join(p.Samples[0].Stack, ";"); !strings.Contains(first, "Stuck.queue") && !strings.Contains(first, "Stuck.left") && !strings.Contains(first, "Stuck.right") {
			t.Errorf("%s: first stack %s", kind, first)
		}
		// The dumps' stack is JFR's: the queued threads merged into the
		// stack the busy threads' JFR events have.
		merged := false
		for _, s := range p.Samples {
			if s.Events > 0 && s.Value > dur && strings.Contains(strings.Join(s.Stack, ";"), "Stuck.queue") {
				merged = true
			}
		}
		if !merged {
			t.Errorf("%s: the queued threads' stack did not merge with JFR's events of the same stack", kind)
		}
		// The idle pool worker: in the wall view, not in the lock view.
		idle, _ := valueOf(p, "java.util.concurrent.ThreadPoolExecutor.getTask", "[park]")
		if kind == stacks.Lock && idle != 0 || kind == stacks.Wall && idle < dur*7/10 {
			t.Errorf("%s: the idle pool worker weighs %.2f s", kind, float64(idle)/1e9)
		}
		for _, want := range []string{"4 thread(s) waited", "java.lang.Object <0x", "ReentrantLock$NonfairSync <0x", "lower bound", "thread dumps",
			"Java-level deadlock", "4 个线程", "下限", "线程转储"} {
			if !strings.Contains(note, want) {
				t.Errorf("%s: note lacks %q", kind, want)
			}
		}
		if kind == stacks.Wall && !strings.Contains(note, "1 pool thread(s) waited for work") {
			t.Errorf("wall: the note does not count the idle pool worker")
		}
	}
}

// thread is one thread of a HotSpot dump: JDK 9+ headers print cpu= (a
// negative cpu: none, as JDK 8 prints them); body holds the state line and
// the frames with their lock lines, "\t" and "   " as the JVM indents.
func thread(name string, id int, cpu float64, body string) string {
	h := fmt.Sprintf("%q #%d prio=5 os_prio=0 ", name, id)
	if cpu >= 0 {
		h += fmt.Sprintf("cpu=%.2fms elapsed=12.50s ", cpu)
	}
	return h + fmt.Sprintf("tid=0x00007f00000%05x nid=0x%x waiting\n%s\n", id, 0x1000+id, body)
}

// The waits of the matching's dumps, leaf first.
const (
	left = `   java.lang.Thread.State: BLOCKED (on object monitor)
	at Worker.left(Worker.java:10)
	- waiting to lock <0x00000007000000a0> (a java.lang.Object)
	at Worker.run(Worker.java:20)
	at java.lang.Thread.run(Thread.java:833)
`
	park = `   java.lang.Thread.State: WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.15/Native Method)
	- parking to wait for  <0x00000007000000c0> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)
	at java.util.concurrent.locks.LockSupport.park(java.base@17.0.15/LockSupport.java:211)
	at java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire(java.base@17.0.15/AbstractQueuedSynchronizer.java:715)
	at java.util.concurrent.locks.ReentrantLock.lock(java.base@17.0.15/ReentrantLock.java:322)
	at Worker.queue(Worker.java:30)
	at java.lang.Thread.run(Thread.java:833)
`
	idleWorker = `   java.lang.Thread.State: WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.15/Native Method)
	- parking to wait for  <0x00000007000000e0> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
	at java.util.concurrent.locks.LockSupport.park(java.base@17.0.15/LockSupport.java:341)
	at java.util.concurrent.LinkedBlockingQueue.take(java.base@17.0.15/LinkedBlockingQueue.java:435)
	at java.util.concurrent.ThreadPoolExecutor.getTask(java.base@17.0.15/ThreadPoolExecutor.java:1062)
	at java.util.concurrent.ThreadPoolExecutor.runWorker(java.base@17.0.15/ThreadPoolExecutor.java:1122)
	at java.lang.Thread.run(Thread.java:833)
`
	holder = `   java.lang.Thread.State: TIMED_WAITING (sleeping)
	at java.lang.Thread.sleep(java.base@17.0.15/Native Method)
	at Worker.hold(Worker.java:40)
	- locked <0x00000007000000a0> (a java.lang.Object)
	at java.lang.Thread.run(Thread.java:833)
`
	// waiter went into Object.wait() on the monitor "other" holds: the
	// dump still shows it as locked in its stack.
	waiter = `   java.lang.Thread.State: WAITING (on object monitor)
	at java.lang.Object.wait(java.base@17.0.15/Native Method)
	- waiting on <0x00000007000000a0> (a java.lang.Object)
	at java.lang.Object.wait(java.base@17.0.15/Object.java:338)
	at Worker.await(Worker.java:60)
	- locked <0x00000007000000a0> (a java.lang.Object)
	at java.lang.Thread.run(Thread.java:833)
`
	running = `   java.lang.Thread.State: RUNNABLE
	at Worker.spin(Worker.java:50)
	at java.lang.Thread.run(Thread.java:833)
`
)

// matchDumps are two dumps of one JVM, at a capture's start and end, JDK
// 9+ (cpu=) or JDK 8 form.
func matchDumps(jdk8 bool) (first, last string) {
	cpu := func(ms float64) float64 {
		if jdk8 {
			return -1
		}
		return ms
	}
	head := "2026-11-28 12:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):\n\n"
	if jdk8 {
		head = "2026-11-28 12:00:00\nFull thread dump OpenJDK 64-Bit Server VM (25.402-b06 mixed mode):\n\n"
	}
	other := strings.Replace(left, "0x00000007000000a0", "0x00000007000000b0", 1)
	moved := strings.Replace(left, "0x00000007000000a0", "0x00000006100000b0", 1) // the GC moved the object
	otherLine := strings.Replace(left, "Worker.java:10", "Worker.java:11", 1)
	first = head +
		thread("other", 20, cpu(900), holder) +
		thread("deadlocked", 21, cpu(3.1), left) +
		thread("queued", 23, cpu(1.5), park) +
		thread("ended", 31, cpu(2), left) + // its wait ended in the capture: JFR has it
		thread("late", 32, cpu(8), running) + // blocked only in the last dump
		thread("moved", 33, cpu(4), other) +
		thread("ran", 34, cpu(4), left) + // ran between the dumps: CPU time grew
		thread("elsewhere", 35, cpu(4), left) + // blocked again, from another line
		thread("idle", 36, cpu(0.7), idleWorker)
	last = head +
		thread("waiter", 19, cpu(1), waiter) +
		thread("other", 20, cpu(900), holder) +
		thread("deadlocked", 21, cpu(3.1), left) +
		thread("queued", 23, cpu(1.5), park) +
		thread("ended", 31, cpu(2.2), left) +
		thread("late", 32, cpu(9), left) +
		thread("moved", 33, cpu(4), moved) +
		thread("ran", 34, cpu(9), left) +
		thread("elsewhere", 35, cpu(4), otherLine) +
		thread("idle", 36, cpu(0.7), idleWorker) +
		thread("new", 37, cpu(0.1), left) // not in the first dump
	return first, last
}

// A hidden class's frame reads the same from a dump and from JFR on JDK 17
// and 25 (as seen on those JVMs), and only frames of the same class and
// method share a key.
func TestHiddenKey(t *testing.T) {
	same := [][]string{
		{"Stuck$$Lambda$217.0x00007f4014148868.run", "Stuck$$Lambda$217+0x00007f4014148868.1127224355.run"}, // dump ("/" made "."), JDK 17's JFR
		{"Stuck$$Lambda.0x0000000088159a28.run", "Stuck$$Lambda.0x0000000088159a28.run"},                    // JDK 25
		{"java.lang.invoke.LambdaForm$MH.0x0000000800c0c400.invoke", "java.lang.invoke.LambdaForm$MH+0x0000000800c0c400.77.invoke"},
	}
	for _, c := range same {
		if a, b := hiddenKey(c[0]), hiddenKey(c[1]); a != b || a == c[0] {
			t.Errorf("%s -> %s, %s -> %s", c[0], a, c[1], b)
		}
	}
	for _, c := range [][]string{
		{"Stuck$$Lambda.0x0000000088159a28.run", "Stuck$$Lambda.0x0000000088158210.run"}, // two lambdas
		{"Stuck$$Lambda$217.0x00007f4014148868.run", "Stuck$$Lambda$217.0x00007f4014148868.call"},
	} {
		if hiddenKey(c[0]) == hiddenKey(c[1]) {
			t.Errorf("%s and %s share %s", c[0], c[1], hiddenKey(c[0]))
		}
	}
	for _, f := range []string{"java.lang.Thread.run", "com.example.Hex0x.run", "[park] java.lang.Object", "a.0x"} {
		if hiddenKey(f) != f {
			t.Errorf("%s -> %s", f, hiddenKey(f))
		}
	}
}

// In a container the JVM's nids are its own namespace's ids: fillCPU finds
// each thread by the last id of NSpid (a /proc tree laid out as the
// kernel's: task/HOSTTID/status and schedstat).
func TestFillCPUFindsThreadsByNSpid(t *testing.T) {
	proc := t.TempDir()
	for _, task := range []struct{ host, ns, ran string }{{"4100", "1", "5"}, {"4121", "33", "2500000 100 4"}, {"4122", "36", "7000000 5 1"}, {"4123", "21", "123 4 5"}} {
		dir := filepath.Join(proc, "task", task.host)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\tjava\nTgid:\t4100\nNSpid:\t"+task.host+"\t"+task.ns+"\nPPid:\t1\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "schedstat"), []byte(task.ran+"\n"), 0o644)
	}
	_, b := matchDumps(true)
	d := parseDump(t, b)
	fillCPU(d, proc)
	got := map[string]float64{}
	for _, th := range d.Threads {
		got[th.Name] = th.CPUMillis
	}
	// The fixture's nids (0x1000+id) are no task's: every time stays
	// unknown, and a thread not waiting (other) is not looked up.
	for name, want := range map[string]float64{"other": -1, "deadlocked": -1} {
		if got[name] != want {
			t.Errorf("%s: %.3f ms, want %.3f", name, got[name], want)
		}
	}
	// The fixture's threads by their nid: rewrite two to nids the tree has.
	d = parseDump(t, strings.Replace(strings.Replace(b, "nid=0x1015", "nid=0x21", 1), "nid=0x1017", "nid=0x24", 1))
	fillCPU(d, proc)
	for _, th := range d.Threads {
		got[th.Name] = th.CPUMillis
	}
	// deadlocked (#21) is nid 33 in its namespace: 2.5 ms; queued (#23),
	// nid 36: 7 ms; one without a task stays unknown.
	if got["deadlocked"] != 2.5 || got["queued"] != 7 || got["ran"] != -1 {
		t.Errorf("deadlocked %.3f, queued %.3f, ran %.3f", got["deadlocked"], got["queued"], got["ran"])
	}
}

// parseDump parses one HotSpot dump.
func parseDump(t *testing.T, text string) *threaddump.Dump {
	t.Helper()
	ds, err := threaddump.ParseText(strings.NewReader(text))
	if err != nil || len(ds) != 1 {
		t.Fatalf("%d dumps, %v", len(ds), err)
	}
	return ds[0]
}

// The matching over parsed dumps: a thread is a whole-capture waiter only
// when it waits on the same lock with the same stack in both dumps and the
// recording holds no event of it; each goes into the lock view once, with
// the time waited, merged with JFR's events of the same stack.
func TestWholeWaitsMatching(t *testing.T) {
	for _, c := range []struct {
		name string
		jdk8 bool
		want []string // in the last dump's order
		lock string   // the monitor's part of the note
	}{
		// JDK 9+: cpu= says "moved" never ran, so its lock's other
		// address is the same object moved by the GC.
		{"jdk17", false, []string{"deadlocked", "queued", "moved", "idle"},
			`java.lang.Object <0x00000007000000a0> (held by "other") ×1, java.util.concurrent.locks.ReentrantLock$NonfairSync <0x00000007000000c0> ×1, java.lang.Object <0x00000006100000b0> ×1`},
		// JDK 8: no cpu=, so the lock's address must match.
		{"jdk8", true, []string{"deadlocked", "queued", "ran", "idle"},
			`java.lang.Object <0x00000007000000a0> (held by "other") ×2, java.util.concurrent.locks.ReentrantLock$NonfairSync <0x00000007000000c0> ×1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := matchDumps(c.jdk8)
			first, last := parseDump(t, a), parseDump(t, b)
			// "ended"'s wait ended during the capture: the recording holds
			// an event of it (by Java id), and one of "elsewhere" by OS id.
			rec := recorded{java: map[uint64]bool{31: true}, os: map[uint64]bool{0x1000 + 35: true}, names: map[string]bool{}, depth: jfrStackDepth}
			ws := wholeWaits(first, last, rec)
			var got []string
			for _, w := range ws {
				got = append(got, w.Thread)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("found %v, want %v", got, c.want)
			}
			d, q, idle := ws[0], ws[1], ws[3]
			if want := "java.lang.Thread.run;Worker.run;Worker.left;[lock] java.lang.Object"; strings.Join(d.Stack, ";") != want || d.Park || d.Owner != "other" || d.Idle {
				t.Errorf("deadlocked: %s park %v owner %q idle %v", strings.Join(d.Stack, ";"), d.Park, d.Owner, d.Idle)
			}
			if !q.Park || q.Idle || !strings.HasSuffix(strings.Join(q.Stack, ";"), "Worker.queue;java.util.concurrent.locks.ReentrantLock.lock;"+
				"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire;java.util.concurrent.locks.LockSupport.park;jdk.internal.misc.Unsafe.park;"+
				"[park] java.util.concurrent.locks.ReentrantLock$NonfairSync") {
				t.Errorf("queued: %s", strings.Join(q.Stack, ";"))
			}
			if !idle.Idle {
				t.Errorf("the pool worker in getTask is not idle: %s", strings.Join(idle.Stack, ";"))
			}
			// Into a lock view that has one JFR event on the deadlocked
			// thread's stack: each thread once, merged with it (the third
			// thread blocked in Worker.left too), the idle one left out.
			p := &stacks.Profile{Kind: stacks.Lock, Unit: "nanoseconds", Total: 5, Events: 1,
				Samples: []stacks.Sample{{Stack: []string{"x"}, Value: 4, Events: 1}, {Stack: d.Stack, Value: 1, Events: 1}}}
			note, ok := addWholeWaits(p, ws, 2*time.Second, 0)
			if !ok || p.Total != 5+3*2e9 || len(p.Samples) != 3 || p.Events != 1 {
				t.Fatalf("total %d, %d stacks, %d events", p.Total, len(p.Samples), p.Events)
			}
			if s := p.Samples[0]; s.Value != 2*2e9+1 || s.Events != 1 || strings.Join(s.Stack, ";") != strings.Join(d.Stack, ";") {
				t.Errorf("first stack %+v", s)
			}
			for _, want := range []string{"3 thread(s) waited", "at least 2.0 s", c.lock, "lower bound", "thread dumps taken at the capture's start and end"} {
				if !strings.Contains(note.EN, want) {
					t.Errorf("EN note lacks %q: %s", want, note.EN)
				}
			}
			for _, want := range []string{"3 个线程", "至少 2.0 秒", `（持有者 "other"）`, "下限", "线程转储"} {
				if !strings.Contains(note.ZH, want) {
					t.Errorf("ZH note lacks %q: %s", want, note.ZH)
				}
			}
			if strings.Contains(note.EN, "pool thread") {
				t.Errorf("the lock view's note counts the idle worker: %s", note.EN)
			}
			// The wall view keeps the idle worker, and says so.
			w := &stacks.Profile{Kind: stacks.Wall, Unit: "nanoseconds"}
			note, _ = addWholeWaits(w, ws, 2*time.Second, 1)
			if w.Total != 4*2e9 || !strings.Contains(note.EN, "1 pool thread(s) waited for work") || !strings.Contains(note.EN, "1 Java-level deadlock") ||
				!strings.Contains(note.ZH, "1 个线程池线程") || !strings.Contains(note.ZH, "死锁") {
				t.Errorf("wall: total %d, note %s / %s", w.Total, note.EN, note.ZH)
			}
		})
	}
	// Without the dumps, or a recording to read the threads of, the note
	// says what the view may miss.
	a, b := matchDumps(false)
	for _, w := range []waitDumps{{err: fmt.Errorf("pid 42: Thread.print: timed out")}, {first: parseDump(t, a), last: parseDump(t, b)}} {
		p := &stacks.Profile{Kind: stacks.Lock, Unit: "nanoseconds"}
		if n, ok := w.add(p, []byte("not JFR")); !ok || !strings.Contains(n.EN, "may be missing from this view") || p.Total != 0 {
			t.Errorf("%v: %v %+v", w.err, ok, n)
		}
	}
	if n := dumpsMissing("pid 42: the JVM answered 1\nmore"); !strings.Contains(n.EN, "longer than the capture") || !strings.Contains(n.ZH, "超过") || strings.Contains(n.EN, "more") {
		t.Errorf("%+v", n)
	}
}

// Any pair of dumps, however broken, gives whole-capture waiters without a
// panic, each with a stack whose leaf is the lock, and adds to a profile
// exactly their time; a key is its own key.
func FuzzWholeWaits(f *testing.F) {
	for _, jdk8 := range []bool{false, true} {
		a, b := matchDumps(jdk8)
		f.Add(a, b)
	}
	f.Add("", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		da, _ := threaddump.ParseText(strings.NewReader(a))
		db, _ := threaddump.ParseText(strings.NewReader(b))
		if len(da) == 0 || len(db) == 0 {
			return
		}
		ws := wholeWaits(da[0], db[0], recorded{depth: jfrStackDepth})
		for _, w := range ws {
			if leaf := w.Stack[len(w.Stack)-1]; !strings.HasPrefix(leaf, "[lock] ") && !strings.HasPrefix(leaf, "[park] ") || len(w.Stack) > stacks.MaxFrames+1 {
				t.Fatalf("stack %q", w.Stack)
			}
			for _, fr := range w.Stack {
				if k := hiddenKey(fr); hiddenKey(k) != k {
					t.Fatalf("key of %q: %q, then %q", fr, k, hiddenKey(k))
				}
			}
		}
		p := &stacks.Profile{Kind: stacks.Wall, Unit: "nanoseconds"}
		addWholeWaits(p, ws, time.Second, 0)
		if p.Total != int64(len(ws))*1e9 {
			t.Fatalf("%d waiters, total %d", len(ws), p.Total)
		}
	})
}

// A note names three locks at most, the most waited on first, and counts
// the rest.
func TestWholeWaitsNoteNamesThreeLocks(t *testing.T) {
	var ws []wholeWait
	for i, n := range []int{1, 3, 1, 2, 1} {
		for range n {
			ws = append(ws, wholeWait{Thread: "t", Lock: threaddump.LockRef{Addr: fmt.Sprintf("0x%x", i), Class: "L"},
				Stack: []string{fmt.Sprintf("m%d", i), "[lock] L"}})
		}
	}
	p := &stacks.Profile{Kind: stacks.Lock, Unit: "nanoseconds"}
	note, ok := addWholeWaits(p, ws, 1500*time.Millisecond, 0)
	if !ok || !strings.Contains(note.EN, "8 thread(s) waited on a lock the whole capture, at least 1.5 s each, on L <0x1> ×3, L <0x3> ×2, L <0x0> ×1, and 2 more.") ||
		!strings.Contains(note.ZH, "另有 2 把") || len(p.Samples) != 5 || p.Samples[0].Value != 3*1.5e9 {
		t.Errorf("%v\n%s\n%s", p.Samples, note.EN, note.ZH)
	}
}
