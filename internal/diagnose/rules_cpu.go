package diagnose

import (
	"fmt"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
)

// Thresholds. Each rule fires when its condition holds in a sustained
// window (see MinTicks, MinFrac); the tests probe both sides of each edge.
const (
	// All-CPU busy (100 - idle - iowait) at or above this is saturated.
	SaturatedBusyPct = 90.0
	// ... and critical at or above this (mean over the window).
	SaturatedCriticalPct = 97.0
	// One CPU busy at or above HotCPUBusyPct while the others average at
	// most HotCPUOthersMaxPct.
	HotCPUBusyPct      = 90.0
	HotCPUOthersMaxPct = 50.0
	// One CPU's hardirq+softirq share at or above SoftirqHotPct and at
	// least SoftirqRatio times the other CPUs' mean.
	SoftirqHotPct = 30.0
	SoftirqRatio  = 3.0
	// A thread whose demand (on CPU + run-queue wait) is at or above
	// SerialDemandPct while all the other threads together demand less
	// than SerialOthersMaxPct (one core).
	SerialDemandPct    = 80.0
	SerialOthersMaxPct = 100.0
	// Host idle at or above IdleUnderLoadIdlePct while the target (with at
	// least IdleMinThreads threads) uses at least IdleMinProcCPUPct of a
	// core but under half the cores, and shows work arriving: voluntary
	// switches or packets received.
	IdleUnderLoadIdlePct = 50.0
	IdleMinThreads       = 10
	IdleMinProcCPUPct    = 5.0 // the target is doing some work (an idle JVM uses 0.5-2%)
	IdleLoadVCSPS        = 500.0
	IdleLoadRxPPS        = 1000.0
	// A thread dump shows queueing when at least IdleQueueingMin of its
	// working threads, and IdleQueueingShare of them, are off CPU (blocked,
	// waiting, sleeping or in I/O). Dumps that all show less contradict the
	// idle rule's claim that threads wait on something other than CPU.
	IdleQueueingMin   = 2
	IdleQueueingShare = 0.25
	// procs_running (without the recorder) above RunQueuePerCPU x online CPUs.
	RunQueuePerCPU = 1.0
	// Context switches per second per CPU.
	CtxSwitchPerCPU = 20000.0
	// Host VM steal.
	StealPct     = 10.0
	StealCritPct = 30.0
	// OthersShare: below this share of the busy cores, the target did not
	// saturate the CPU; other processes did.
	OthersShare = 0.25
)

func ruleCPUSaturated(c *ctx) []finding.Outcome {
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.All != nil && t.All.Busy() >= SaturatedBusyPct })
	if !w.ok() {
		return nil
	}
	busy := w.mean(c.ts, func(t *Tick) float64 { return t.All.Busy() })
	us := w.mean(c.ts, func(t *Tick) float64 { return t.All.User })
	sy := w.mean(c.ts, func(t *Tick) float64 { return t.All.System })
	irq := w.mean(c.ts, func(t *Tick) float64 { return t.All.Soft + t.All.IRQ })
	st := w.mean(c.ts, func(t *Tick) float64 { return t.All.Steal })
	kind := finding.T("user-bound", "用户态为主")
	why := finding.T("The CPUs are busy running application code: more load only queues up. Find the hot code (profile the hot threads below) or add cores.",
		"CPU 忙于执行应用代码：再加压只会排队。找出热点代码（对下面的热点线程做 profiling）或增加 CPU。")
	switch {
	case st > us && st > sy && st > irq:
		kind = finding.T("steal-bound", "steal 为主")
		why = finding.T("Most of the busy time is steal: the hypervisor runs other guests on this VM's CPUs.",
			"忙碌时间大部分是 steal：宿主机在本虚拟机的 CPU 上运行其他虚拟机。")
	case irq > us && irq > sy:
		kind = finding.T("softirq/irq-bound", "软中断/中断为主")
		why = finding.T("The CPUs are busy in interrupt and softirq handling (network or block I/O), not in the application.",
			"CPU 忙于中断和软中断处理（网络或块设备 I/O），而不是应用本身。")
	case sy >= us/2:
		kind = finding.T("system-bound", "内核态为主")
		why = finding.T("A large share of CPU goes to the kernel (system calls, locking, page faults, scheduling): look at syscalls per request, lock contention and memory behaviour before adding cores.",
			"相当比例的 CPU 花在内核（系统调用、锁、缺页、调度）：在加 CPU 之前先看每请求的系统调用、锁竞争和内存行为。")
	}
	sev := finding.Warning
	if busy >= SaturatedCriticalPct {
		sev = finding.Critical
	}
	title := finding.Text{EN: "CPU saturated (" + kind.EN + ")", ZH: "CPU 饱和（" + kind.ZH + "）"}
	// A target that uses a small part of the busy time did not saturate the
	// host: other processes (neighbours, the load generator, batch jobs) did.
	// The target suffers from it, but it is not the target's bottleneck.
	others := false
	procPct := -1.0
	if c.pid() != 0 && c.ncpu > 0 {
		procPct = w.mean(c.ts, func(t *Tick) float64 {
			if t.Proc == nil {
				return 0
			}
			return t.Proc.CPUPct
		})
		busyCores := busy / 100 * float64(c.ncpu)
		if busyCores > 0 && procPct/100 < OthersShare*busyCores {
			others = true
			sev = finding.Warning
			title = finding.Tf(finding.T("CPU saturated by other processes (%s)", "CPU 被其他进程占满（%s）"), kind.EN)
			title.ZH = fmt.Sprintf("CPU 被其他进程占满（%s）", kind.ZH)
			why = finding.Tf(finding.T("The host's CPUs are busy, but %s used only %s of one core of them: other processes take the CPU, and the service's requests wait for it.",
				"主机 CPU 繁忙，但 %s 只占用了其中 %s 个核：CPU 被其他进程占用，服务的请求在等待 CPU。"), c.target(), pct(procPct))
		}
	}
	f := finding.Outcome{Status: finding.Fail, Severity: sev, SevSet: true, Subject: "all-cpus", Title: title,
		Why: why, Confidence: confidence(0.9, w)}
	f.Observed = finding.Text{
		EN: fmt.Sprintf("All CPUs %s busy on average (us %s, sy %s, softirq+irq %s, steal %s) over %s.", pct(busy), pct(us), pct(sy), pct(irq), pct(st), w.span().EN),
		ZH: fmt.Sprintf("全部 CPU 平均忙 %s（us %s，sy %s，软中断+中断 %s，steal %s），%s。", pct(busy), pct(us), pct(sy), pct(irq), pct(st), w.span().ZH),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start),
		ev("busy_pct", pct(busy), "/proc/stat"), ev("us_pct", pct(us), "/proc/stat"), ev("sy_pct", pct(sy), "/proc/stat"),
		ev("si_hi_pct", pct(irq), "/proc/stat"), ev("steal_pct", pct(st), "/proc/stat"))
	f.Recommended = finding.T("Profile the hottest threads (async-profiler, or `jstack` and match nid to the TIDs below); reduce the work per request or add CPU capacity.",
		"对最热的线程做 profiling（async-profiler，或 jstack 并用 nid 对应下面的 TID）；减少每请求的计算量或增加 CPU 资源。")
	if others {
		f.Evidence = append(f.Evidence, ev(EvidenceByOthers, pct(procPct), fmt.Sprintf("/proc/%d/stat", c.pid())))
		f.Recommended = finding.T("Find the processes that take the CPU (top, pidstat 1) and move them, or give the service cores of its own (cpuset, systemd CPUAffinity=, taskset); run the load generator on another host.",
			"找出占用 CPU 的进程（top、pidstat 1）并迁走，或为服务分配独占 CPU（cpuset、systemd CPUAffinity=、taskset）；压测机与被测服务分开部署。")
		return []finding.Outcome{f}
	}
	if tops := topThreads(c, w); len(tops) > 0 {
		for k, t := range tops[:min(3, len(tops))] {
			f.Evidence = append(f.Evidence, ev("hot_thread_"+strconv.Itoa(k+1),
				fmt.Sprintf("%s cpu %s wait %s", threadLabel(t.Thread), pct(t.CPUPct), pct(t.Wait)), fmt.Sprintf("/proc/%d/task/%d", c.pid(), t.TID)))
		}
		// The JVM's own threads (JIT compilers, GC, VM) are named as the
		// hottest only when their work outweighs the application's: then
		// their role is the cause and its hint says which.
		t, internal := hottestThread(tops, procPct, c.roleOf)
		role := c.roleOf(t.Thread)
		f.Observed.EN += fmt.Sprintf(" Hottest thread of %s: %s (%s) at %s CPU.", c.target(), threadLabel(t.Thread), role.Kind, pct(t.CPUPct))
		f.Observed.ZH += fmt.Sprintf(" %s 最热的线程：%s（%s），CPU %s。", c.target(), threadLabel(t.Thread), role.Kind, pct(t.CPUPct))
		if internal {
			f.Recommended = withHint(f.Recommended, t.Name)
		}
		c.joinStack(&f, t.TID)
		f.Fix = finding.Fix{Apply: fmt.Sprintf("tuneloop jvm %d --dump 3 --interval 3s", c.pid()),
			Note: finding.Tf(finding.T("Read-only: three thread dumps, analysed together (no JDK tools needed); look for nid=%s. With a JDK: jstack %d | grep -A 20 'nid=%s'. For a CPU profile: asprof -d 30 -e cpu %d.",
				"只读：抓三次线程栈并合并分析（无需 JDK 工具）；查看 nid=%s。有 JDK 时：jstack %d | grep -A 20 'nid=%s'。CPU profiling：asprof -d 30 -e cpu %d。"), nid(t.TID), c.pid(), nid(t.TID), c.pid())}
	}
	return []finding.Outcome{f}
}

func ruleHotCPU(c *ctx) []finding.Outcome {
	busy := func(p CPU) float64 { return p.Busy() }
	k := perCPUArg(c, busy)
	if k < 0 || len(c.cpus) < 2 {
		return nil
	}
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		return k < len(t.CPUs) && t.CPUs[k].Busy() >= HotCPUBusyPct && othersMean(t, k, busy) <= HotCPUOthersMaxPct
	})
	if !w.ok() {
		return nil
	}
	cpu := c.cpus[k]
	b := w.mean(c.ts, func(t *Tick) float64 { return t.CPUs[k].Busy() })
	o := w.mean(c.ts, func(t *Tick) float64 { return othersMean(t, k, busy) })
	si := w.mean(c.ts, func(t *Tick) float64 { return t.CPUs[k].Soft + t.CPUs[k].IRQ })
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "cpu" + strconv.Itoa(cpu), Confidence: confidence(0.8, w),
		Title: finding.Tf(finding.T("CPU %d saturated while the other CPUs are idle", "CPU %d 饱和而其他 CPU 空闲"), cpu),
		Observed: finding.Text{
			EN: fmt.Sprintf("CPU %d was %s busy (softirq+irq %s) while the other CPUs averaged %s, over %s.", cpu, pct(b), pct(si), pct(o), w.span().EN),
			ZH: fmt.Sprintf("CPU %d 忙 %s（软中断+中断 %s），其他 CPU 平均 %s，%s。", cpu, pct(b), pct(si), pct(o), w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("cpu", strconv.Itoa(cpu), ""), ev("busy_pct", pct(b), "/proc/stat cpu"+strconv.Itoa(cpu)),
		ev("si_hi_pct", pct(si), "/proc/stat cpu"+strconv.Itoa(cpu)), ev("others_busy_pct", pct(o), "/proc/stat"))
	return []finding.Outcome{f}
}

func ruleSerialThread(c *ctx) []finding.Outcome {
	// The thread most often on top, JIT compiler threads left out: a hot
	// compiler is warm-up, not a stage the requests pass through. (A pinned
	// VM Thread or GC thread stays a candidate: safepoint and GC work are
	// serial too, and the hint says so.)
	appTop := func(th *Threads) *Thread {
		if th == nil {
			return nil
		}
		for i := range th.Top {
			if !isJITThread(th.Top[i].Name) {
				return &th.Top[i]
			}
		}
		return nil
	}
	count := map[int]int{}
	best, bestN := 0, 0
	for i := range c.ts {
		if top := appTop(c.ts[i].Threads); top != nil {
			tid := top.TID
			count[tid]++
			if count[tid] > bestN || count[tid] == bestN && tid < best {
				best, bestN = tid, count[tid]
			}
		}
	}
	if bestN == 0 {
		return nil
	}
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		th := t.Threads
		top := appTop(th)
		if th == nil || th.N < 2 || top == nil || top.TID != best {
			return false
		}
		// The others' CPU, not their run-queue wait: on a busy host every
		// thread queues for a CPU, which says nothing about whether the
		// others have work of their own.
		if top.Demand() < SerialDemandPct || th.CPUPct-top.CPUPct >= SerialOthersMaxPct {
			return false
		}
		// A pool sharing the stage is not serial: a sibling of the same
		// name (order-sequencer-1 and -2 are both "order-sequencer" to the
		// kernel) wanting half as much means the work is spread.
		for _, o := range th.Top {
			if o.TID != top.TID && o.Name == top.Name && o.Demand() >= top.Demand()/2 {
				return false
			}
		}
		return true
	})
	if !w.ok() {
		return nil
	}
	var t Thread
	for _, i := range w.hits {
		t = *appTop(c.ts[i].Threads) // latest name and state
	}
	cpu := w.mean(c.ts, func(t *Tick) float64 { return appTop(t.Threads).CPUPct })
	wait := w.mean(c.ts, func(t *Tick) float64 { return appTop(t.Threads).Wait })
	others := w.mean(c.ts, func(t *Tick) float64 { return t.Threads.CPUPct - appTop(t.Threads).CPUPct })
	n := w.mean(c.ts, func(t *Tick) float64 { return float64(t.Threads.N) })
	t.CPUPct, t.Wait = cpu, wait
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Critical, SevSet: true, Subject: fmt.Sprintf("tid %d", t.TID), Confidence: confidence(0.85, w),
		Title: finding.Tf(finding.T("Serial bottleneck: thread %q pinned at a full core", "串行瓶颈：线程 %q 占满一个核"), t.Name),
		Observed: finding.Text{
			EN: fmt.Sprintf("Thread %s of %s wanted a whole core (%s on CPU + %s waiting for one) while its other %.0f threads together used %s, over %s.",
				threadLabel(t), c.target(), pct(cpu), pct(wait), n-1, pct(others), w.span().EN),
			ZH: fmt.Sprintf("%s 的线程 %s 需要一整个核（CPU 上 %s + 等待 CPU %s），而其他 %.0f 个线程合计只用 %s，%s。",
				c.target(), threadLabel(t), pct(cpu), pct(wait), n-1, pct(others), w.span().ZH)},
		Recommended: finding.Tf(finding.T("Take thread dumps and look at the thread with nid=%s: what it runs (a single consumer, a synchronized section, a single-threaded executor, logging, GC). Parallelise or shorten that path.",
			"抓线程栈，查看 nid=%s 的线程在执行什么（单消费者、synchronized 临界区、单线程 executor、日志、GC），将这段并行化或缩短。"), nid(t.TID)),
		Fix: finding.Fix{Apply: fmt.Sprintf("tuneloop jvm %d --dump 3 --interval 3s", c.pid()),
			Note: finding.Tf(finding.T("Read-only: three thread dumps a few seconds apart, analysed together (no JDK tools needed); the hot thread is nid=%s. With a JDK: jstack %d | grep -A 30 'nid=%s'.",
				"只读：间隔几秒抓三次线程栈并合并分析（无需 JDK 工具）；热点线程为 nid=%s。有 JDK 时：jstack %d | grep -A 30 'nid=%s'。"), nid(t.TID), c.pid(), nid(t.TID))}}
	f.Recommended = withHint(f.Recommended, t.Name)
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start),
		ev("thread", threadLabel(t), fmt.Sprintf("/proc/%d/task/%d/{stat,schedstat}", c.pid(), t.TID)),
		ev("thread_cpu_pct", pct(cpu), "schedstat"), ev("thread_runq_wait_pct", pct(wait), "schedstat"),
		ev("other_threads_cpu_pct", pct(others), ""), ev("threads", fmt.Sprintf("%.0f", n), fmt.Sprintf("/proc/%d/task", c.pid())))
	c.joinStack(&f, t.TID)
	return []finding.Outcome{f}
}

func ruleIdleUnderLoad(c *ctx) []finding.Outcome {
	if c.pid() == 0 || c.ncpu == 0 {
		return nil
	}
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		if t.All == nil || t.Proc == nil || t.Threads == nil {
			return false
		}
		loaded := t.Threads.VCSPS >= IdleLoadVCSPS || t.RxPPS >= IdleLoadRxPPS
		return t.All.Idle >= IdleUnderLoadIdlePct && t.Threads.N >= IdleMinThreads &&
			t.Proc.CPUPct >= IdleMinProcCPUPct && t.Proc.CPUPct < 50*float64(c.ncpu) && loaded
	})
	if !w.ok() {
		return nil
	}
	idle := w.mean(c.ts, func(t *Tick) float64 { return t.All.Idle })
	pcpu := w.mean(c.ts, func(t *Tick) float64 { return t.Proc.CPUPct })
	vcs := w.mean(c.ts, func(t *Tick) float64 { return t.Threads.VCSPS })
	rx := w.mean(c.ts, func(t *Tick) float64 { return t.RxPPS })
	n := w.mean(c.ts, func(t *Tick) float64 { return float64(t.Threads.N) })
	sleeping := w.mean(c.ts, func(t *Tick) float64 { return float64(t.Threads.Sleep) })
	dsleep := w.mean(c.ts, func(t *Tick) float64 { return float64(t.Threads.DSleep) })
	runnable := w.mean(c.ts, func(t *Tick) float64 { return float64(t.Threads.Running) })
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: c.target(), Confidence: confidence(0.5, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("The host was %s idle and %s used %s of one core (of %d) while its %.0f threads switched %s times/s voluntarily (rx %s pkt/s), over %s.",
				pct(idle), c.target(), pct(pcpu), c.ncpu, n, num(vcs), num(rx), w.span().EN),
			ZH: fmt.Sprintf("主机 %s 空闲，%s 只用了 %s 个核（共 %d 核），而它的 %.0f 个线程每秒主动切换 %s 次（收包 %s/s），%s。",
				pct(idle), c.target(), pct(pcpu), c.ncpu, n, num(vcs), num(rx), w.span().ZH)},
		Fix: finding.Fix{Apply: fmt.Sprintf("tuneloop jvm %d --dump 3 --interval 3s --raw dumps", c.pid()),
			Note: finding.T("Read-only: three thread dumps analysed together, raw dumps kept in ./dumps (no JDK tools needed). With a JDK: for i in 1 2 3; do jstack PID > dump.$i.txt; sleep 3; done; tuneloop analyze dump.*.txt",
				"只读：抓三次线程栈并合并分析，原始线程栈保存在 ./dumps（无需 JDK 工具）。有 JDK 时：for i in 1 2 3; do jstack PID > dump.$i.txt; sleep 3; done; tuneloop analyze dump.*.txt")}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("host_idle_pct", pct(idle), "/proc/stat"), ev("target_cpu_pct", pct(pcpu), fmt.Sprintf("/proc/%d/stat", c.pid())),
		ev("voluntary_cs_per_s", num(vcs), fmt.Sprintf("/proc/%d/task/*/status", c.pid())), ev("rx_pkts_per_s", num(rx), "/proc/net/dev"), ev("threads", fmt.Sprintf("%.0f", n), ""),
		ev("threads_by_state", fmt.Sprintf("R %.0f, S %.0f, D %.0f", runnable, sleeping, dsleep), fmt.Sprintf("/proc/%d/task/*/stat", c.pid())))
	c.dumpWaiting(&f)
	if q := dumpQueueing(c); q.dumps > 0 && !q.queueing {
		roomy(&f, q)
	}
	return []finding.Outcome{f}
}

// queueing is what the run's thread dumps say about working threads off
// CPU: the dump with the largest share of them.
type queueing struct {
	dumps           int
	off, active     int // in the dump with the most off CPU
	queueing        bool
	source          string
	offShareOfWorst float64
}

// dumpQueueing reads every dump of the run (not only the last: one instant
// can miss a queue) for working threads that wait instead of running.
func dumpQueueing(c *ctx) queueing {
	var q queueing
	set := c.in.Dumps
	if set == nil {
		return q
	}
	for i, d := range set.Dumps {
		if i >= len(set.Reports) {
			break
		}
		r := set.Reports[i]
		off, active := 0, 0
		for _, t := range d.Threads {
			if t.State == threaddump.StateNone || r.IsIdle(t) {
				continue
			}
			active++
			if a := threaddump.ActivityOf(t); a != threaddump.ActRunning && a != threaddump.ActNone {
				off++
			}
		}
		share := 0.0
		if active > 0 {
			share = float64(off) / float64(active)
		}
		if q.dumps == 0 || share > q.offShareOfWorst || share == q.offShareOfWorst && off > q.off {
			q.off, q.active, q.offShareOfWorst = off, active, share
			if i < len(set.Sources) {
				q.source = set.Sources[i]
			}
		}
		q.dumps++
		if off >= IdleQueueingMin && share >= IdleQueueingShare {
			q.queueing = true
		}
	}
	return q
}

// roomy rewrites the idle-under-load finding when the dumps contradict it:
// no queue of working threads means the service had room, not a limit.
func roomy(f *finding.Outcome, q queueing) {
	f.Severity, f.SevSet = finding.Info, true
	f.Title = finding.T("The service had room at this load: the dumps show no queueing", "在此负载下服务仍有余量：线程转储未显示排队")
	f.Observed.EN += fmt.Sprintf(" In %d thread dump(s) at most %d of %d working threads were off CPU (blocked, waiting, sleeping or in I/O).", q.dumps, q.off, q.active)
	f.Observed.ZH += fmt.Sprintf(" %d 次线程转储中，最多 %d/%d 个工作线程不在 CPU 上（阻塞、等待、睡眠或 I/O）。", q.dumps, q.off, q.active)
	f.Why = finding.T("The CPUs were idle, but the thread dumps show no queue of working threads on a lock, pool, downstream or sleep: the service kept up with the load offered and more load would be needed to find its limit.",
		"CPU 空闲，但线程转储中没有工作线程在锁、池、下游调用或 sleep 上排队：服务跟得上当前负载，需要更高的负载才能找到它的上限。")
	f.Recommended = finding.T("Nothing to fix at this load. To find the limit, raise the load (a higher rate or more users) until latency rises, and record again.",
		"此负载下无需修复。要找到上限，提高负载（更高速率或更多并发）直到延迟上升，然后再次录制。")
	f.Risk = finding.T("None: this is a diagnosis.", "无：这是诊断结论。")
	f.Fix = finding.Fix{}
	f.Evidence = append(f.Evidence, ev("working_threads_off_cpu_max", fmt.Sprintf("%d of %d", q.off, q.active), q.source))
}

func ruleRunQueue(c *ctx) []finding.Outcome {
	if c.ncpu == 0 {
		return nil
	}
	lim := RunQueuePerCPU * float64(c.ncpu)
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.Running > lim })
	if !w.ok() {
		return nil
	}
	rq := w.mean(c.ts, func(t *Tick) float64 { return t.Running })
	pk := w.peak(c.ts, func(t *Tick) float64 { return t.Running })
	psi := w.mean(c.ts, func(t *Tick) float64 { return t.PSI["cpu"].Some })
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "runqueue", Confidence: confidence(0.7, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s runnable tasks on average (peak %s) for %d CPUs; CPU pressure (PSI some) %s, over %s.", num(rq), num(pk), c.ncpu, pct(psi), w.span().EN),
			ZH: fmt.Sprintf("平均 %s 个可运行任务（峰值 %s），CPU 只有 %d 个；CPU 压力（PSI some）%s，%s。", num(rq), num(pk), c.ncpu, pct(psi), w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("procs_running_avg", num(rq), "/proc/stat procs_running"), ev("procs_running_peak", num(pk), "/proc/stat"),
		ev("cpus", strconv.Itoa(c.ncpu), ""), ev("psi_cpu_some_pct", pct(psi), "/proc/pressure/cpu"))
	return []finding.Outcome{f}
}

func ruleCtxSwitch(c *ctx) []finding.Outcome {
	if c.ncpu == 0 {
		return nil
	}
	lim := CtxSwitchPerCPU * float64(c.ncpu)
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.CtxtPS >= lim })
	if !w.ok() {
		return nil
	}
	cs := w.mean(c.ts, func(t *Tick) float64 { return t.CtxtPS })
	sy := w.mean(c.ts, func(t *Tick) float64 {
		if t.All == nil {
			return 0
		}
		return t.All.System
	})
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "cswch", Confidence: confidence(0.7, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s context switches/s (%s per CPU; sy %s), over %s.", num(cs), num(cs/float64(c.ncpu)), pct(sy), w.span().EN),
			ZH: fmt.Sprintf("每秒 %s 次上下文切换（每 CPU %s；sy %s），%s。", num(cs), num(cs/float64(c.ncpu)), pct(sy), w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("ctxt_per_s", num(cs), "/proc/stat ctxt"), ev("per_cpu", num(cs/float64(c.ncpu)), ""), ev("sy_pct", pct(sy), "/proc/stat"))
	if tops := topThreads(c, w); len(tops) > 0 {
		t := tops[0]
		f.Evidence = append(f.Evidence, ev("busiest_thread", fmt.Sprintf("%s cswch/s %s nvcswch/s %s", threadLabel(t.Thread), num(t.VCSPS), num(t.NVCSPS)), ""))
	}
	return []finding.Outcome{f}
}

func ruleSteal(c *ctx) []finding.Outcome {
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.All != nil && t.All.Steal >= StealPct })
	if !w.ok() {
		return nil
	}
	st := w.mean(c.ts, func(t *Tick) float64 { return t.All.Steal })
	sev := finding.Warning
	if st >= StealCritPct {
		sev = finding.Critical
	}
	hv := ""
	if h := c.in.Facts.CPU.Hypervisor; h.OK {
		hv = h.Value
	}
	f := finding.Outcome{Status: finding.Fail, Severity: sev, SevSet: true, Subject: "steal", Confidence: confidence(0.9, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("Steal averaged %s of CPU time (hypervisor %q), over %s.", pct(st), hv, w.span().EN),
			ZH: fmt.Sprintf("steal 平均占 CPU 时间的 %s（虚拟化 %q），%s。", pct(st), hv, w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("steal_pct", pct(st), "/proc/stat steal"))
	return []finding.Outcome{f}
}

// hottestThread is the busiest application thread, unless the JVM's own
// threads (threadrole: JIT, GC, JFR, attach, VM) used more CPU than the
// application's: then the busiest of those, internal. The application's
// CPU is the process's less the JVM threads' (procPct, % of one core; -1:
// unknown, then the listed threads'): fifty workers at 2% each outweigh a
// compiler thread at 11% though each is below it.
func hottestThread(tops []threadAvg, procPct float64, roleOf func(Thread) threadrole.Role) (threadAvg, bool) {
	var app, jvm float64
	firstApp, firstJVM := -1, -1
	for i, t := range tops {
		if roleOf(t.Thread).Kind.Internal() {
			jvm += t.CPUPct
			if firstJVM < 0 {
				firstJVM = i
			}
			continue
		}
		app += t.CPUPct
		if firstApp < 0 {
			firstApp = i
		}
	}
	if procPct >= 0 {
		app = max(app, procPct-jvm)
	}
	if firstApp >= 0 && app >= jvm {
		return tops[firstApp], false
	}
	return tops[firstJVM], true
}

// roleOf places a sampled thread: by its Java name and stack when the last
// dump shows it (a comm of 15 bytes cannot tell "http-nio-8080-exec-1"
// from "http-nio-8080-Acceptor"), else by its comm.
func (c *ctx) roleOf(t Thread) threadrole.Role {
	if jt := c.javaThread(t.TID); jt != nil {
		st := jt.Stack()
		ms := make([]string, len(st))
		for i, f := range st {
			ms[i] = f.Method
		}
		return threadrole.Classify(jt.Name, ms)
	}
	return threadrole.ClassifyComm(t.Name)
}

// EvidenceByOthers is the evidence key of a CPU saturation the target did
// not cause (its CPU, % of one core): other processes took the CPUs.
const EvidenceByOthers = "target_cpu_pct_by_others"
