package mechanism

// Waits: request threads parked until another thread signals them.
func waitEntries() []Entry {
	return []Entry{
		{
			ID: "mech.wait.unsignalled", Family: Wait,
			Name: T("Requests wait on a latch, barrier or condition that is not signalled", "请求在未被触发的闭锁、栅栏或条件上等待"),
			Mechanism: T("Each request parks on a CountDownLatch, CyclicBarrier, Phaser or Condition until another thread counts it down or signals it; when that thread never runs (never started, died, or waits itself), every request waits until its timeout, or forever.",
				"每个请求都挂起在 CountDownLatch、CyclicBarrier、Phaser 或 Condition 上，等待其他线程倒数或发出信号；若该线程从未运行（未启动、已退出或自身也在等待），每个请求都要等到超时，甚至永远等待。"),
			Tradeoff: T("A shorter timeout answers sooner but with an error or a fallback; the fix is the missing signal.",
				"缩短超时可以更快返回，但返回的是错误或降级结果；真正的修复是补上缺失的信号。"),
			Sig: Signature{States: []State{Parked, Waiting}, Frames: []string{"java.util.concurrent.CountDownLatch.await",
				"java.util.concurrent.CyclicBarrier.", "java.util.concurrent.Phaser.", "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await"},
				NotFrames: []string{"java.util.concurrent.ThreadPoolExecutor.getTask", "java.util.concurrent.LinkedBlockingQueue.", "java.util.concurrent.ArrayBlockingQueue.",
					"java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue."}},
			Fixes: []Fix{{Do: T("Find the code that should count down or signal (the latch's owner at the code line): make sure it is started and always reaches countDown()/signal() in a finally block, and await with a timeout that fails the request clearly.",
				"找到应当倒数或发信号的代码（该代码行上闭锁的所有者）：确保它被启动，并在 finally 中总能执行 countDown()/signal()；等待时使用超时并明确地让请求失败。")}},
			References: []string{refJUC},
		},
		{
			ID: "mech.wait.sleep", Family: Wait,
			Name: T("Thread.sleep on the request path", "请求路径上的 Thread.sleep"),
			Mechanism: T("Request threads sleep (a fixed back-off, a poll loop, a throttle): the time is added to every request and holds a worker that cannot serve anyone else meanwhile.",
				"请求线程在休眠（固定退避、轮询循环、限流）：这段时间加在每个请求上，并占用一个无法服务他人的工作线程。"),
			Tradeoff: T("Removing a back-off can overload the thing it protected: replace it with a bounded retry with jitter or a non-blocking schedule.",
				"去掉退避可能压垮它所保护的对象：改为带抖动的有界重试或非阻塞调度。"),
			Sig: Signature{States: []State{Sleeping}, Frames: []string{"java.lang.Thread.sleep", "java.util.concurrent.TimeUnit.sleep"}},
			Fixes: []Fix{{Do: T("Remove the sleep at the code line, or replace the poll loop by waiting for the event itself (a future, a condition); for retries use a bounded exponential back-off with jitter off the request thread (a ScheduledExecutorService or the client library's retry policy).",
				"去掉该代码行的休眠，或把轮询循环改为等待事件本身（future、condition）；重试使用在请求线程之外执行的有界指数退避加抖动（ScheduledExecutorService 或客户端库的重试策略）。")}},
			References: []string{"java.lang.Thread.sleep API docs; JFR event jdk.ThreadSleep (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/Thread.html)"},
		},
	}
}
