package profile

// Waits longer than the capture. JFR writes jdk.JavaMonitorEnter and
// jdk.ThreadPark when the wait ENDS, so a thread that waits through the
// whole recording (a deadlock, a thread starved on an unfair monitor, a
// pool queued behind a holder that never lets go) is in no event: the lock
// and wall views would rank the short waits and hide the one that matters.
// Capture takes a thread dump right after the recording starts and one
// right before it stops; a thread that is, in both, blocked entering the
// same monitor or parked on the same synchronizer with the same stack,
// and of which the recording holds no event at all, waited at least from
// the first dump to the end. The two dumps' lines it rests on (HotSpot
// Thread.print, JDK 8 and 9+ headers alike):
//
//	"left" #14 prio=5 os_prio=0 cpu=31.20ms elapsed=4.07s tid=0x00007f3c5c1a9000 nid=0x6b1f waiting for monitor entry  [0x00007f3c2d9fe000]
//	   java.lang.Thread.State: BLOCKED (on object monitor)
//		at Deadlock.left(Deadlock.java:9)
//		- waiting to lock <0x000000062a80f6e8> (a java.lang.Object)
//	"stuck" #21 prio=5 os_prio=0 tid=0x00007f92b01aa000 nid=0x2a43 waiting on condition [0x00007f92f507e000]
//	   java.lang.Thread.State: WAITING (parking)
//		at sun.misc.Unsafe.park(Native Method)
//		- parking to wait for  <0x00000000d5d3e1a8> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// jfrStackDepth is JFR's default stackdepth: it keeps a stack's 64 frames
// nearest the leaf, so a dump's stack is cut the same way to merge with
// the recording's stacks (a recording that shows a cut stack says its own
// depth).
const jfrStackDepth = 64

// idleCPUMillis is the CPU time a thread may gain between the dumps and
// still not have run: a blocked or parked thread gains 0.00 ms (a few
// hundredths for a futile wake-up); one that went round a hot lock with
// waits too short for JFR's threshold gains far more (the threaddump
// series' stuck threads use the same bound).
const idleCPUMillis = 0.5

// lockWait is what a dump's thread waits on: a monitor it is blocked
// entering (park false), or the synchronizer it is parked on.
type lockWait struct {
	park bool
	lock threaddump.LockRef
}

// waitOf is the lock a thread waits on in a dump, false when it is not
// blocked on a monitor nor parked on a synchronizer (running, sleeping,
// in Object.wait: JFR's lock events are not about those either).
func waitOf(t *threaddump.Thread) (lockWait, bool) {
	switch {
	case t.State == threaddump.StateBlocked && len(t.WaitingToLock) > 0:
		return lockWait{lock: t.WaitingToLock[0]}, true
	case (t.State == threaddump.StateWaiting || t.State == threaddump.StateTimedWaiting) && len(t.Parking) > 0:
		return lockWait{park: true, lock: t.Parking[0]}, true
	}
	return lockWait{}, false
}

// recorded is which threads the recording holds an event of (any kind:
// a wait that ended, a sample of it running), by Java thread id, OS thread
// id and name; depth is the stack depth JFR cut stacks at.
type recorded struct {
	java, os map[uint64]bool
	names    map[string]bool
	depth    int
}

// recordedThreads reads the threads of a recording's events.
func recordedThreads(buf []byte) (recorded, error) {
	r := recorded{java: map[uint64]bool{}, os: map[uint64]bool{}, names: map[string]bool{}, depth: jfrStackDepth}
	cut := 0
	_, err := stacks.JFRThreadEvents(buf, func(e stacks.ThreadEvent) {
		r.java[e.JavaThreadID] = true
		r.os[e.OSThreadID] = true
		r.names[e.Thread] = true
		if e.Truncated && len(e.Stack) > cut {
			cut = len(e.Stack)
		}
	})
	if cut > 0 {
		r.depth = cut
	}
	delete(r.java, 0)
	delete(r.os, 0)
	return r, err
}

// has says whether the recording holds an event of a dump's thread: by
// its ids when the dump gives them (names repeat across pools), else by
// name.
func (r recorded) has(t *threaddump.Thread) bool {
	if t.ID == 0 && t.NativeID == 0 {
		return r.names[t.Name]
	}
	return t.ID != 0 && r.java[uint64(t.ID)] || t.NativeID != 0 && r.os[uint64(t.NativeID)]
}

// wholeWait is a thread that waited on one lock through the capture.
type wholeWait struct {
	Thread string
	Park   bool
	Lock   threaddump.LockRef // as in the last dump
	// Owner is the thread that holds the monitor in the last dump ("" when
	// the dump does not say: j.u.c. owners are listed only by Thread.print -l).
	Owner string
	// Stack is root first, the lock as leaf the way JFR's events show it
	// ("[lock] java.lang.Object", "[park] ...ReentrantLock$NonfairSync").
	Stack []string
	// Idle: a pool thread waiting for work, not for a lock (stacks.IdleStack).
	Idle bool
}

// threadID follows a thread from one dump to the next: its Java id (never
// reused while the JVM runs), else its OS id, else its name.
func threadID(t *threaddump.Thread) string {
	switch {
	case t.ID != 0:
		return fmt.Sprintf("j%d", t.ID)
	case t.NativeID != 0:
		return fmt.Sprintf("n%d", t.NativeID)
	}
	return "t" + t.Name
}

// wholeWaits are the threads of last that waited, in first too, on the
// same lock with the same stack, and of which rec holds no event. The
// lock's address must match, unless both dumps print the thread's CPU time
// and it did not grow: then the thread never ran and a different address is
// the same object moved by the GC. A thread that ran in between (CPU time
// grown) is not one.
func wholeWaits(first, last *threaddump.Dump, rec recorded) []wholeWait {
	before := map[string]*threaddump.Thread{}
	for _, t := range first.Threads {
		before[threadID(t)] = t
	}
	var out []wholeWait
	for _, t := range last.Threads {
		w, ok := waitOf(t)
		if !ok || rec.has(t) {
			continue
		}
		t0 := before[threadID(t)]
		if t0 == nil || t0.Name != t.Name {
			continue
		}
		w0, ok := waitOf(t0)
		if !ok || w0.park != w.park || w0.lock.Class != w.lock.Class || !sameFrames(t0.Stack(), t.Stack()) {
			continue
		}
		cpuKnown := t0.CPUMillis >= 0 && t.CPUMillis >= 0
		if cpuKnown && t.CPUMillis-t0.CPUMillis > idleCPUMillis || w0.lock.Addr != w.lock.Addr && !cpuKnown {
			continue
		}
		st := dumpStack(t.Stack(), rec.depth)
		if len(st) == 0 {
			continue
		}
		leaf := "[lock] "
		if w.park {
			leaf = "[park] "
		}
		out = append(out, wholeWait{
			Thread: t.Name, Park: w.park, Lock: w.lock, Owner: owner(last, w),
			Stack: append(st, leaf+stacks.TypeName(w.lock.Class)), Idle: stacks.IdleStack(st),
		})
	}
	return out
}

func sameFrames(a, b []threaddump.Frame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Method != b[i].Method || a[i].Source != b[i].Source {
			return false
		}
	}
	return true
}

// dumpStack is a dump's stack (leaf first) as JFR's stacks read: root
// first, "pkg.Class.method" (a hidden class's "/" a "." as JFR's symbols
// give it), cut to the depth JFR keeps at the leaf and to stacks.MaxFrames
// at the root.
func dumpStack(fs []threaddump.Frame, depth int) []string {
	if depth > 0 && len(fs) > depth {
		fs = fs[:depth]
	}
	out := make([]string, 0, min(len(fs), stacks.MaxFrames)+1)
	for i := len(fs) - 1; i >= 0 && len(out) < stacks.MaxFrames; i-- {
		out = append(out, strings.ReplaceAll(fs[i].Method, "/", "."))
	}
	return out
}

// hiddenKey names a frame of a hidden class (a lambda's, a LambdaForm's)
// the same way however it is spelled: a dump prints
// "Svc$$Lambda$14/0x0000000800c03000.run", JDK 17's JFR
// "Svc$$Lambda$14+0x0000000800c03000.1127224355.run", JDK 25's
// "Svc$$Lambda.0x0000000800c03000.run"; all are "Svc$$Lambda$14@0x...run".
// Any other frame is its own key.
func hiddenKey(f string) string {
	for i := 1; i+2 < len(f); i++ {
		if f[i] != '0' || f[i+1] != 'x' || !strings.ContainsRune("/+.", rune(f[i-1])) {
			continue
		}
		j := i + 2
		for j < len(f) && strings.ContainsRune("0123456789abcdefABCDEF", rune(f[j])) {
			j++
		}
		dot := strings.LastIndexByte(f, '.')
		if j == i+2 || dot < j {
			return f
		}
		return f[:i-1] + "@" + f[i:j] + f[dot:]
	}
	return f
}

// hiddenFrames maps the key of each hidden-class frame of p's stacks to
// JFR's spelling of it, so a dump's stack merges with JFR's.
func hiddenFrames(p *stacks.Profile) map[string]string {
	out := map[string]string{}
	for _, s := range p.Samples {
		for _, f := range s.Stack {
			if k := hiddenKey(f); k != f {
				out[k] = f
			}
		}
	}
	return out
}

// owner is the thread holding w's lock in d, "" when d does not say. A
// thread in Object.wait() (or waiting to re-lock after it) still shows the
// monitor as locked in its stack but let go of it.
func owner(d *threaddump.Dump, w lockWait) string {
	has := func(refs []threaddump.LockRef) bool {
		for _, l := range refs {
			if l.Addr == w.lock.Addr {
				return true
			}
		}
		return false
	}
	if w.lock.Addr == "" {
		return ""
	}
	for _, t := range d.Threads {
		switch {
		case w.park && has(t.OwnableSynchronizers),
			!w.park && has(t.Locked) && !has(t.WaitingOn) && !has(t.WaitingToLock):
			return t.Name
		}
	}
	return ""
}

// dumpTimeout bounds a thread dump: one slower than this (a stuck attach)
// must not stretch the capture without end; the view then says the dumps
// are missing. A busy host answers slowly but does answer: at load 8 on 2
// cores a 2 s capture's last Thread.print took 16 s (a JVM recording JFR
// while spinning threads compete for the CPU), so the bound is a minute.
const dumpTimeout = time.Minute

// takeDump is one Thread.print of the JVM pid, parsed, and when it was
// answered; a dump without cpu= (JDK 8) gets its waiting threads' CPU time
// from the kernel. Without -l: listing the j.u.c. locks' owners walks the
// heap in a safepoint on older JDKs, a pause the service would feel twice a
// capture.
func takeDump(ctx context.Context, vm *attach.VM, pid int) (*threaddump.Dump, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, dumpTimeout)
	defer cancel()
	out, err := vm.Execute(ctx, "Thread.print")
	at := time.Now()
	if err != nil {
		return nil, at, err
	}
	ds, err := threaddump.ParseText(strings.NewReader(out))
	if err != nil {
		return nil, at, err
	}
	if len(ds) == 0 || len(ds[0].Threads) == 0 {
		return nil, at, fmt.Errorf("no thread dump in Thread.print's answer (%d bytes)", len(out))
	}
	fillCPU(ds[0], "/proc/"+strconv.Itoa(pid))
	return ds[0], at, nil
}

// fillCPU sets the CPU time of the waiting threads of a dump that does not
// print it (JDK 8), from proc (/proc/PID): the nanoseconds each thread ran
// (task/TID/schedstat's first field, what cpu= prints on JDK 9+), the
// thread found by its nid, the id it has in the JVM's own pid namespace
// (the last of NSpid in task/TID/status). A thread not found keeps -1.
func fillCPU(d *threaddump.Dump, proc string) {
	want := map[int64]*threaddump.Thread{}
	for _, t := range d.Threads {
		if _, ok := waitOf(t); ok && t.CPUMillis < 0 && t.NativeID > 0 {
			want[t.NativeID] = t
		}
	}
	if len(want) == 0 {
		return
	}
	// nsTID is the thread's id in the JVM's namespace, or 0.
	var st sample.ProcStatus
	nsTID := func(task string) int64 {
		b, err := os.ReadFile(proc + "/task/" + task + "/status")
		if err != nil {
			return 0
		}
		if st.Parse(b, sample.FieldNSpid); st.Has&sample.FieldNSpid == 0 {
			return 0
		}
		return int64(st.NSpid[len(st.NSpid)-1])
	}
	set := func(task string, t *threaddump.Thread) {
		b, err := os.ReadFile(proc + "/task/" + task + "/schedstat")
		if err != nil {
			return
		}
		if run, _, err := sample.ParseSchedstat(b); err == nil {
			t.CPUMillis = float64(run) / 1e6
		}
	}
	// The JVM in this pid namespace: the task's directory is its nid.
	missing := 0
	for nid, t := range want {
		if task := strconv.FormatInt(nid, 10); nsTID(task) == nid {
			set(task, t)
		} else {
			missing++
		}
	}
	if missing == 0 {
		return
	}
	// In a container: find each by its NSpid.
	tasks, _ := os.ReadDir(proc + "/task")
	for _, e := range tasks {
		if t := want[nsTID(e.Name())]; t != nil && t.CPUMillis < 0 {
			set(e.Name(), t)
		}
	}
}

// addWholeWaits puts the whole-capture waiters into p (the lock view
// leaves out pool threads waiting for work, as for JFR's own events), each
// weighing waited nanoseconds, and returns the note saying so; no note
// when none was added.
func addWholeWaits(p *stacks.Profile, ws []wholeWait, waited time.Duration, deadlocks int) (finding.Text, bool) {
	if p == nil || p.Unit != "nanoseconds" || waited <= 0 {
		return finding.Text{}, false
	}
	type lockUse struct {
		name, zh string
		threads  int
	}
	var locks []*lockUse
	byLock := map[string]*lockUse{}
	threads, idle := 0, 0
	alias := hiddenFrames(p)
	for _, w := range ws {
		if w.Idle && p.Kind == stacks.Lock {
			continue
		}
		st := append([]string(nil), w.Stack...)
		for i, f := range st {
			if a, ok := alias[hiddenKey(f)]; ok {
				st[i] = a
			}
		}
		p.Add(st, waited.Nanoseconds())
		if w.Idle {
			idle++
			continue
		}
		threads++
		key := w.Lock.Class + " <" + w.Lock.Addr + ">"
		u := byLock[key]
		if u == nil {
			u = &lockUse{name: finding.SafeLine(key), zh: finding.SafeLine(key)}
			if w.Owner != "" {
				u.name += fmt.Sprintf(" (held by %q)", finding.SafeLine(w.Owner))
				u.zh += fmt.Sprintf("（持有者 %q）", finding.SafeLine(w.Owner))
			}
			byLock[key] = u
			locks = append(locks, u)
		}
		u.threads++
	}
	if threads+idle == 0 {
		return finding.Text{}, false
	}
	sort.SliceStable(locks, func(i, j int) bool { return locks[i].threads > locks[j].threads })
	var on, onZH []string
	for i, u := range locks {
		if i == 3 {
			on = append(on, fmt.Sprintf("and %d more", len(locks)-3))
			onZH = append(onZH, fmt.Sprintf("另有 %d 把", len(locks)-3))
			break
		}
		on = append(on, fmt.Sprintf("%s ×%d", u.name, u.threads))
		onZH = append(onZH, fmt.Sprintf("%s ×%d", u.zh, u.threads))
	}
	sec := waited.Seconds()
	var en, zh strings.Builder
	if threads > 0 {
		fmt.Fprintf(&en, "%d thread(s) waited on a lock the whole capture, at least %.1f s each, on %s", threads, sec, strings.Join(on, ", "))
		fmt.Fprintf(&zh, "%d 个线程在整个采集期间一直等待锁，每个至少 %.1f 秒，等待的锁：%s", threads, sec, strings.Join(onZH, "，"))
		if deadlocks > 0 {
			fmt.Fprintf(&en, "; the thread dump reports %d Java-level deadlock(s)", deadlocks)
			fmt.Fprintf(&zh, "；线程转储报告了 %d 个 Java 级死锁", deadlocks)
		}
		en.WriteString(". ")
		zh.WriteString("。")
	}
	if idle > 0 {
		fmt.Fprintf(&en, "%d pool thread(s) waited for work the whole capture (in the wall view only). ", idle)
		fmt.Fprintf(&zh, "%d 个线程池线程在整个采集期间一直等待任务（仅计入 wall 视图）。", idle)
	}
	fmt.Fprintf(&en, "JFR writes a wait only when it ends, so these come from thread dumps taken at the capture's start and end (the same lock and stack in both, no JFR event of theirs in between), not from JFR events; each is in this view with %.1f s, a lower bound: the wait began before the capture and had not ended", sec)
	fmt.Fprintf(&zh, "JFR 只在等待结束时才写入事件，因此这些线程来自采集开始和结束时各取的一次线程转储（两次都在同一把锁、同一调用栈上，其间 JFR 没有它们的任何事件），而非 JFR 事件；每个线程在此视图中计 %.1f 秒，这是下限：等待在采集前已开始且尚未结束", sec)
	return finding.T(en.String(), zh.String()), true
}

// waitDumps are a capture's two thread dumps: first taken when the
// recording had started (answered at firstAt), last before it stopped
// (stopAt); err says why there are not both.
type waitDumps struct {
	first, last     *threaddump.Dump
	firstAt, stopAt time.Time
	err             error
}

// add puts the threads that waited through the capture into p, read
// against the recording buf, and returns the note to give: what was added,
// or that the dumps are missing; false when there is nothing to say.
func (w *waitDumps) add(p *stacks.Profile, buf []byte) (finding.Text, bool) {
	if w.err != nil {
		return dumpsMissing(w.err.Error()), true
	}
	if w.first == nil || w.last == nil {
		return finding.Text{}, false
	}
	rec, err := recordedThreads(buf)
	if err != nil {
		return dumpsMissing("the recording's threads: " + err.Error()), true
	}
	return addWholeWaits(p, wholeWaits(w.first, w.last, rec), w.stopAt.Sub(w.firstAt), len(w.last.JVMDeadlocks))
}

// dumpsMissing is the note when the dumps could not be taken or matched.
func dumpsMissing(why string) finding.Text {
	why = finding.SafeLine(finding.FirstLine(strings.TrimSpace(why)))
	return finding.T(
		fmt.Sprintf("no thread dumps at the capture's start and end (%s): JFR writes a lock wait or park only when it ends, so a thread that waited longer than the capture (a deadlock, a thread starved on a lock) may be missing from this view", why),
		fmt.Sprintf("未能在采集开始和结束时获取线程转储（%s）：JFR 只在锁等待或 park 结束时才写入事件，因此等待超过整个采集时长的线程（死锁、在锁上饥饿的线程）可能不在此视图中", why))
}
