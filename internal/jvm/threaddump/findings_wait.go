package threaddump

import (
	"fmt"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// minWaiters below which a wait group is not reported (as fingerprints' MinThreads).
const minWaiters = 3

// waitFinding reports a wait group: who waits, on what, and who serves them.
// Severity follows the culprits' scale: critical when most working threads
// wait and at least 5 do.
func waitFinding(r *Report, g *WaitGroup, src string) (finding.Finding, bool) {
	n := len(g.Waiters)
	if n < minWaiters {
		return finding.Finding{}, false
	}
	sev := finding.Warning
	if g.Share > 0.5 && n >= 5 {
		sev = finding.Critical
	}
	f := finding.Finding{
		ID: "threaddump.wait." + string(g.Kind), Category: Category, Status: finding.Fail, Severity: sev,
		Workload:   finding.T("services under load (take the dump during the slow period)", "负载下的服务（在变慢期间采集线程转储）"),
		Confidence: 0.8,
	}
	pct := 100 * g.Share
	at, atZH := "", ""
	if g.Frame.Method != "" {
		at, atZH = " in "+safeFrame(g.Frame), "（位于 "+safeFrame(g.Frame)+"）"
	}
	server, serverZH := g.serverText()
	switch g.Kind {
	case WaitExecutor:
		f.Subject = finding.SafeLine(g.Pool)
		if g.Pool == "" {
			f.Subject = g.Object
		}
		f.Title = finding.T("Threads wait on futures completed by an executor", "线程在等待由线程池完成的 Future")
		f.Observed = finding.T(fmt.Sprintf("%d threads (%.0f%% of working threads) wait on %s%s; %s", n, pct, g.Object, at, server),
			fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在等待 %s%s；%s", n, pct, g.Object, atZH, serverZH))
		f.Why = finding.T("A thread blocked on get()/join()/await() holds its request until another thread finishes the work: the executor that runs those tasks bounds the throughput of every request that waits on it. A pool whose workers are all busy queues the tasks, so the waiters' latency is the queue's length times the task time.",
			"阻塞在 get()/join()/await() 上的线程要等另一个线程完成工作才能继续：执行这些任务的线程池限制了所有等待它的请求的吞吐量。工作线程全忙时任务在队列中排队，等待者的延迟等于队列长度乘以单个任务耗时。")
		f.Recommended = finding.T("Size the pool to the stage's concurrency (workers ≈ target throughput × task time), or make the stage non-blocking (async I/O, thenCompose instead of get); never run blocking work on ForkJoinPool.commonPool; give the get() a timeout.",
			"按该阶段所需的并发度设置线程池大小（工作线程数 ≈ 目标吞吐量 × 单任务耗时），或把该阶段改为非阻塞（异步 I/O，用 thenCompose 代替 get）；不要在 ForkJoinPool.commonPool 上执行阻塞任务；为 get() 设置超时。")
		f.Risk = finding.T("More workers put more concurrent load on whatever the tasks call (a database, a remote service): size it to what that side can take.",
			"更多工作线程会给任务所调用的下游（数据库、远程服务）带来更多并发压力：按下游的承受能力设置。")
		if g.Pool != "" && g.Busy == len(g.Servers) && len(g.Servers) <= 2 {
			f.Title = finding.T("A serial stage: requests wait on futures completed by a pool of "+strconv.Itoa(len(g.Servers))+" busy worker(s)",
				"串行阶段：请求在等待由 "+strconv.Itoa(len(g.Servers))+" 个繁忙工作线程完成的 Future")
			f.Observed.EN += ": a serial stage capping throughput"
			f.Observed.ZH += "：串行阶段限制了吞吐量"
		}
	case WaitPermits:
		f.Subject = g.Object + " " + finding.SafeLine(g.Frame.Method)
		f.Title = finding.T("Threads wait for permits: "+g.Object, "线程在等待许可："+g.Object)
		f.Observed = finding.T(fmt.Sprintf("%d threads (%.0f%% of working threads) wait for a permit of a %s%s; %s", n, pct, g.Object, at, server),
			fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在等待 %s 的许可%s；%s", n, pct, g.Object, atZH, serverZH))
		f.Why = finding.T("A semaphore or pool caps how many threads run the guarded call at once; when every permit is taken, the others queue, and throughput is permits ÷ time each holder keeps its permit.",
			"信号量或连接池限制了同时执行受保护调用的线程数；许可全部被占用时其余线程排队，吞吐量等于许可数 ÷ 每个持有者占用许可的时间。")
		f.Recommended = finding.T("Look at what the holders do with the permit (a slow call, a sleep): make it faster or shorter; raise the permit count (pool size) only as far as the guarded resource can take; acquire with a timeout so callers fail fast.",
			"查看持有者占用许可期间在做什么（慢调用、sleep）：让它更快或更短；只在被保护资源能承受的范围内增加许可数（池大小）；获取许可时设置超时，让调用方快速失败。")
		f.Risk = finding.T("More permits put more concurrent load on the guarded resource.", "更多许可会给被保护资源带来更多并发压力。")
	case WaitQueue:
		f.Subject = g.Object + " " + finding.SafeLine(g.Frame.Method)
		f.Title = finding.T("Threads wait on a queue hand-off: "+g.Object, "线程在等待队列交接："+g.Object)
		f.Observed = finding.T(fmt.Sprintf("%d threads (%.0f%% of working threads) wait in %s%s; %s", n, pct, g.Object, at, server),
			fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在 %s 处等待%s；%s", n, pct, g.Object, atZH, serverZH))
		f.Why = finding.T("Threads that put into a full queue, or take a reply from a hand-off queue, wait for the thread on the other side: when that side is one thread or a few, it serialises every request that passes through the queue.",
			"向已满队列放入、或从交接队列取回结果的线程，要等待队列另一端的线程：当另一端只有一个或少数几个线程时，经过该队列的所有请求都会被串行化。")
		f.Recommended = finding.T("Speed up or widen the other side of the queue (more consumers, batching, moving slow I/O out of the consumer); a bounded queue with a timed offer lets callers fail fast instead of waiting.",
			"加快或扩展队列另一端（增加消费者、批量处理、把慢 I/O 移出消费者）；有界队列配合带超时的 offer 可以让调用方快速失败而不是一直等待。")
		f.Risk = finding.T("More consumers can reorder work that relied on a single consumer's order.", "增加消费者可能打乱原本依赖单一消费者的处理顺序。")
	}
	ev := func(k, v string) { f.Evidence = append(f.Evidence, finding.Evidence{Key: k, Value: v, Source: src}) }
	ev("threads", strconv.Itoa(n))
	ev("share_of_working_threads", fmt.Sprintf("%.1f%%", pct))
	ev("waiting_on", g.Object)
	if g.Frame.Method != "" {
		ev("waiting_at", safeFrame(g.Frame))
	}
	if g.Pool != "" {
		ev("pool", finding.SafeLine(g.Pool))
	}
	if len(g.Servers) > 0 {
		ev("servers", fmt.Sprintf("%d (%d busy): %s", len(g.Servers), g.Busy, quoteNames(g.ServerNames, 5)))
		if g.ServerFrame.Method != "" {
			ev("servers_run", safeFrame(g.ServerFrame))
		}
		if g.ServerActivity != ActNone {
			ev("servers_activity", string(g.ServerActivity))
		}
		if g.ServerCPUMillis >= 0 {
			ev("servers_cpu_ms", fmt.Sprintf("%.2f", g.ServerCPUMillis))
		}
	}
	ev("sample_threads", quoteNames(threadNames(g.Waiters), 5))
	return f, true
}

// serverText says who serves a wait group, in English and Chinese.
func (g *WaitGroup) serverText() (string, string) {
	if len(g.Servers) == 0 {
		switch g.Kind {
		case WaitExecutor:
			return "no executor worker is busy in this dump: the futures wait for something else (a callback, a remote reply, another dump's work)",
				"本次转储中没有繁忙的线程池工作线程：这些 Future 在等待别的东西（回调、远程响应）"
		case WaitPermits:
			return "the permit holders cannot be identified from the dump", "无法从转储中识别许可的持有者"
		}
		return "no thread on the other side of the queue is identifiable from the dump (all its consumers may be idle elsewhere or busy in other code)",
			"无法从转储中识别队列另一端的线程"
	}
	what, whatZH := "", ""
	if a := g.ServerActivity; a != ActNone {
		what, whatZH = ", "+a.Text().EN, "，"+a.Text().ZH
	}
	if g.ServerFrame.Method != "" {
		what += " in " + safeFrame(g.ServerFrame)
		whatZH += "（" + safeFrame(g.ServerFrame) + "）"
	}
	switch g.Kind {
	case WaitExecutor:
		return fmt.Sprintf("completed by pool %s (%d worker(s), %d busy%s)", quoteName(g.Pool), len(g.Servers), g.Busy, what),
			fmt.Sprintf("由线程池 %s 完成（%d 个工作线程，%d 个繁忙%s）", quoteName(g.Pool), len(g.Servers), g.Busy, whatZH)
	case WaitPermits:
		return fmt.Sprintf("%d thread(s) run the guarded code (%s)%s", len(g.Servers), quoteNames(g.ServerNames, 3), what),
			fmt.Sprintf("%d 个线程正在执行受保护的代码（%s）%s", len(g.Servers), quoteNames(g.ServerNames, 3), whatZH)
	}
	return fmt.Sprintf("served by %d thread(s) on the other side (%s)%s", len(g.Servers), quoteNames(g.ServerNames, 3), what),
		fmt.Sprintf("队列另一端有 %d 个线程（%s）%s", len(g.Servers), quoteNames(g.ServerNames, 3), whatZH)
}
