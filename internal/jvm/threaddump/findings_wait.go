package threaddump

import (
	"fmt"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// minWaiters below which a wait group is not reported (as fingerprints' MinThreads).
const minWaiters = 3

// waitRules report wait groups, one rule per kind: who waits, on what, and
// who serves them. Severity follows the culprits' scale: critical when most
// working threads wait and at least 5 do.
func waitRules() []finding.Rule[*DumpInput] {
	rule := func(k WaitKind, title, checks, why, rec, risk finding.Text, ref string) finding.Rule[*DumpInput] {
		return finding.Rule[*DumpInput]{
			ID: "threaddump.wait." + string(k), Category: Category, Severity: finding.Warning,
			Title: title,
			Checks: finding.Tf(finding.T("Groups working threads %s and finds the threads that serve them: reported from %d waiters; critical above half of the working threads with 5 or more.",
				"归组%s的工作线程，并找出为其服务的线程：%d 个等待者起报告；超过工作线程的一半且至少 5 个时为严重。"), checks, minWaiters),
			Why: why, Recommended: rec, Risk: risk,
			Workload:   underLoad,
			Reads:      []string{"thread dump: thread stacks and states, executor pools and their workers, cpu= of the serving threads"},
			References: []string{ref, refHangs},
			Eval: func(in *DumpInput) []finding.Outcome {
				var out []finding.Outcome
				for _, g := range in.R.Waits {
					if g.Kind == k && len(g.Waiters) >= minWaiters {
						out = append(out, waitOutcome(in, g))
					}
				}
				return out
			},
		}
	}
	return []finding.Rule[*DumpInput]{
		rule(WaitExecutor, finding.T("Threads wait on futures completed by an executor", "线程在等待由线程池完成的 Future"),
			finding.T("blocked in Future.get, CompletableFuture.join or a latch await", "阻塞在 Future.get、CompletableFuture.join 或 latch await 上"),
			finding.T("A thread blocked on get()/join()/await() holds its request until another thread finishes the work: the executor that runs those tasks bounds the throughput of every request that waits on it. A pool whose workers are all busy queues the tasks, so the waiters' latency is the queue's length times the task time.",
				"阻塞在 get()/join()/await() 上的线程要等另一个线程完成工作才能继续：执行这些任务的线程池限制了所有等待它的请求的吞吐量。工作线程全忙时任务在队列中排队，等待者的延迟等于队列长度乘以单个任务耗时。"),
			finding.T("Size the pool to the stage's concurrency (workers ≈ target throughput × task time), or make the stage non-blocking (async I/O, thenCompose instead of get); never run blocking work on ForkJoinPool.commonPool; give the get() a timeout.",
				"按该阶段所需的并发度设置线程池大小（工作线程数 ≈ 目标吞吐量 × 单任务耗时），或把该阶段改为非阻塞（异步 I/O，用 thenCompose 代替 get）；不要在 ForkJoinPool.commonPool 上执行阻塞任务；为 get() 设置超时。"),
			finding.T("More workers put more concurrent load on whatever the tasks call (a database, a remote service): size it to what that side can take.",
				"更多工作线程会给任务所调用的下游（数据库、远程服务）带来更多并发压力：按下游的承受能力设置。"),
			"java.util.concurrent.ThreadPoolExecutor, CompletableFuture and ForkJoinPool.commonPool (Oracle, Java SE API documentation)"),
		rule(WaitPermits, finding.T("Threads wait for permits", "线程在等待许可"),
			finding.T("waiting for a permit of a semaphore or a pool", "在等待信号量或池的许可"),
			finding.T("A semaphore or pool caps how many threads run the guarded call at once; when every permit is taken, the others queue, and throughput is permits ÷ time each holder keeps its permit.",
				"信号量或连接池限制了同时执行受保护调用的线程数；许可全部被占用时其余线程排队，吞吐量等于许可数 ÷ 每个持有者占用许可的时间。"),
			finding.T("Look at what the holders do with the permit (a slow call, a sleep): make it faster or shorter; raise the permit count (pool size) only as far as the guarded resource can take; acquire with a timeout so callers fail fast.",
				"查看持有者占用许可期间在做什么（慢调用、sleep）：让它更快或更短；只在被保护资源能承受的范围内增加许可数（池大小）；获取许可时设置超时，让调用方快速失败。"),
			finding.T("More permits put more concurrent load on the guarded resource.", "更多许可会给被保护资源带来更多并发压力。"),
			"java.util.concurrent.Semaphore (Oracle, Java SE API documentation)"),
		rule(WaitQueue, finding.T("Threads wait on a queue hand-off", "线程在等待队列交接"),
			finding.T("blocked putting into a full queue or taking a reply from a hand-off queue", "阻塞在向已满队列放入或从交接队列取回结果上"),
			finding.T("Threads that put into a full queue, or take a reply from a hand-off queue, wait for the thread on the other side: when that side is one thread or a few, it serialises every request that passes through the queue.",
				"向已满队列放入、或从交接队列取回结果的线程，要等待队列另一端的线程：当另一端只有一个或少数几个线程时，经过该队列的所有请求都会被串行化。"),
			finding.T("Speed up or widen the other side of the queue (more consumers, batching, moving slow I/O out of the consumer); a bounded queue with a timed offer lets callers fail fast instead of waiting.",
				"加快或扩展队列另一端（增加消费者、批量处理、把慢 I/O 移出消费者）；有界队列配合带超时的 offer 可以让调用方快速失败而不是一直等待。"),
			finding.T("More consumers can reorder work that relied on a single consumer's order.", "增加消费者可能打乱原本依赖单一消费者的处理顺序。"),
			"java.util.concurrent.BlockingQueue and SynchronousQueue (Oracle, Java SE API documentation)"),
	}
}

func waitOutcome(in *DumpInput, g *WaitGroup) finding.Outcome {
	n := len(g.Waiters)
	o := finding.Outcome{Status: finding.Fail, Confidence: 0.8}
	if g.Share > 0.5 && n >= 5 {
		o = o.WithSeverity(finding.Critical)
	}
	pct := 100 * g.Share
	at, atZH := "", ""
	if g.Frame.Method != "" {
		at, atZH = " in "+safeFrame(g.Frame), "（位于 "+safeFrame(g.Frame)+"）"
	}
	server, serverZH := g.serverText()
	switch g.Kind {
	case WaitExecutor:
		o.Subject = finding.SafeLine(g.Pool)
		if g.Pool == "" {
			o.Subject = g.Object
		}
		o.Observed = finding.T(fmt.Sprintf("%d threads (%.0f%% of working threads) wait on %s%s; %s", n, pct, g.Object, at, server),
			fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在等待 %s%s；%s", n, pct, g.Object, atZH, serverZH))
		if g.Pool != "" && g.Busy == len(g.Servers) && len(g.Servers) <= 2 {
			o.Title = finding.T("A serial stage: requests wait on futures completed by a pool of "+strconv.Itoa(len(g.Servers))+" busy worker(s)",
				"串行阶段：请求在等待由 "+strconv.Itoa(len(g.Servers))+" 个繁忙工作线程完成的 Future")
			o.Observed.EN += ": a serial stage capping throughput"
			o.Observed.ZH += "：串行阶段限制了吞吐量"
		}
	case WaitPermits:
		o.Subject = g.Object + " " + finding.SafeLine(g.Frame.Method)
		o.Title = finding.T("Threads wait for permits: "+g.Object, "线程在等待许可："+g.Object)
		o.Observed = finding.T(fmt.Sprintf("%d threads (%.0f%% of working threads) wait for a permit of a %s%s; %s", n, pct, g.Object, at, server),
			fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在等待 %s 的许可%s；%s", n, pct, g.Object, atZH, serverZH))
	case WaitQueue:
		o.Subject = g.Object + " " + finding.SafeLine(g.Frame.Method)
		o.Title = finding.T("Threads wait on a queue hand-off: "+g.Object, "线程在等待队列交接："+g.Object)
		o.Observed = finding.T(fmt.Sprintf("%d threads (%.0f%% of working threads) wait in %s%s; %s", n, pct, g.Object, at, server),
			fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在 %s 处等待%s；%s", n, pct, g.Object, atZH, serverZH))
	}
	ev := func(k, v string) { o.Evidence = append(o.Evidence, in.ev(k, v)) }
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
	return o
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
