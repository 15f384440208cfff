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
				// Conditions inside queues, pools and logging are those entries' waits.
				NotFrames: join([]string{"java.util.concurrent.ThreadPoolExecutor.getTask", "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.",
					"org.apache.commons.pool2.", "org.apache.commons.pool.", "org.apache.commons.dbcp", "com.mchange.", "com.alibaba.druid.pool.", "com.zaxxer.hikari.",
					"org.apache.tomcat.jdbc.pool.", "ch.qos.logback.", "org.apache.logging.log4j.", "java.util.concurrent.FutureTask.", "java.util.concurrent.CompletableFuture.",
					"reactor.core.publisher.BlockingSingleSubscriber"}, queueFrames, httpPoolFrames)},
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
			Sig: Signature{States: []State{Sleeping}, Frames: []string{"java.lang.Thread.sleep", "java.util.concurrent.TimeUnit.sleep"},
				NotFrames: rateLimiterFrames},
			Fixes: []Fix{{Do: T("Remove the sleep at the code line, or replace the poll loop by waiting for the event itself (a future, a condition); for retries use a bounded exponential back-off with jitter off the request thread (a ScheduledExecutorService or the client library's retry policy).",
				"去掉该代码行的休眠，或把轮询循环改为等待事件本身（future、condition）；重试使用在请求线程之外执行的有界指数退避加抖动（ScheduledExecutorService 或客户端库的重试策略）。")}},
			References: []string{"java.lang.Thread.sleep API docs; JFR event jdk.ThreadSleep (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/Thread.html)"},
		},
		{
			ID: "mech.wait.downstream", Family: Wait,
			Name: T("Requests wait for a downstream service's reply (socket reads)", "请求在等待下游服务的响应（socket 读）"),
			Mechanism: T("The request threads sit in socket reads: a database, cache or HTTP service answers slowly, or not at all and the client has no (or a long) read timeout; each request holds a thread for the downstream's latency, so throughput is threads divided by that latency.",
				"请求线程停在 socket 读上：数据库、缓存或 HTTP 服务响应慢，或根本不响应而客户端没有（或很长的）读超时；每个请求在下游的延迟期间占用一个线程，吞吐量等于线程数除以该延迟。"),
			Tradeoff: T("A short read timeout fails the slow calls (the caller needs a fallback or an error); calling in parallel or caching changes when data is fresh.",
				"较短的读超时会使慢调用失败（调用方需要降级或返回错误）；并行调用或缓存会改变数据的新鲜度。"),
			Sig: Signature{States: []State{Socket}, Frames: socketReadFrames, NotFrames: join(connectFrames, dnsFrames),
				// The server's own reads of its clients' requests (and writes of its responses) are not a downstream.
				NotCallers: []string{"org.apache.coyote.", "org.apache.tomcat.util.net.", "org.eclipse.jetty.", "io.undertow.", "org.xnio.",
					"io.netty.", "org.glassfish.grizzly.", "io.helidon.webserver."}},
			Fixes: []Fix{
				{Framework: "spring", Do: T("Set connect and read timeouts on the client at the code line (RestTemplate/RestClient request factory setConnectTimeout/setReadTimeout; WebClient responseTimeout; JDBC socketTimeout, spring.datasource.hikari.connection-timeout), add a circuit breaker (Resilience4j) with a fallback, and call independent downstreams in parallel.",
					"为该代码行的客户端设置连接与读超时（RestTemplate/RestClient 请求工厂的 setConnectTimeout/setReadTimeout；WebClient 的 responseTimeout；JDBC socketTimeout、spring.datasource.hikari.connection-timeout），加上带降级的熔断器（Resilience4j），并行调用彼此独立的下游。")},
				{Do: T("Give the call at the code line a read timeout (Socket.setSoTimeout, the client's read/response timeout, the JDBC driver's socketTimeout) below the request's own deadline, with a fallback; fix or scale the slow downstream; call independent downstreams in parallel and cache what changes rarely.",
					"为该代码行的调用设置低于请求自身期限的读超时（Socket.setSoTimeout、客户端的读/响应超时、JDBC 驱动的 socketTimeout）并提供降级；修复或扩容慢的下游；并行调用彼此独立的下游，缓存很少变化的数据。"),
					Apply: "socket.setSoTimeout(2000);"},
			},
			References: []string{"java.net.Socket.setSoTimeout API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/net/Socket.html)",
				"Resilience4j CircuitBreaker and TimeLimiter documentation (resilience4j.readme.io)", refJFR},
		},
		{
			ID: "mech.wait.semaphore", Family: Wait,
			Name: T("Requests wait for a permit (Semaphore, bulkhead, rate limiter)", "请求在等待许可（Semaphore、舱壁、限流器）"),
			Mechanism: T("A Semaphore (or a bulkhead or rate limiter built on one) lets N requests through at a time; the others park in acquire until a holder releases. When the holders are slow (they wait on something themselves) or too few permits were given, every request queues behind them; a permit never released (an exception path without finally) shrinks the limit for good.",
				"Semaphore（或基于它实现的舱壁、限流器）同时只放行 N 个请求；其余的在 acquire 中挂起，直到持有者释放。当持有者很慢（自身也在等待）或许可数设得太少时，每个请求都排在它们后面；从未释放的许可（异常路径上没有 finally）会永久缩小上限。"),
			Tradeoff: T("More permits let more requests at what the limit protects (a downstream, memory): raise it only as far as that resource serves; a tryAcquire timeout fails requests instead of queueing them.",
				"更多许可会让更多请求打到被保护的对象（下游、内存）上：只能提高到该资源能承受的程度；tryAcquire 超时会让请求失败而不是排队。"),
			Sig: Signature{States: []State{Parked, Sleeping}, Frames: permitFrames},
			Fixes: []Fix{{Do: T("Find what the permit holders do (the code between acquire and release at the code line): shorten it or move the slow call out; release in a finally block; then size the permits to what the protected resource serves, and acquire with a timeout (tryAcquire(timeout)) that fails clearly.",
				"找出许可持有者在做什么（该代码行 acquire 与 release 之间的代码）：缩短它或把慢调用移出；在 finally 中释放；再按被保护资源的能力设置许可数，并用带超时的 tryAcquire(timeout) 明确地失败。")}},
			References: []string{"java.util.concurrent.Semaphore API docs (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/concurrent/Semaphore.html)",
				"Resilience4j Bulkhead and RateLimiter documentation (resilience4j.readme.io)"},
		},
		{
			ID: "mech.wait.queue-handoff", Family: Wait,
			Name: T("Requests hand work to a slower consumer through a blocking queue", "请求通过阻塞队列把工作交给更慢的消费者"),
			Mechanism: T("The requests put work on a bounded BlockingQueue (ArrayBlockingQueue, LinkedBlockingQueue) or a SynchronousQueue for a consumer thread and often take the reply from another queue; when the consumers are fewer or slower than the producers the queue is full, put blocks, and every request waits for the consumer's pace.",
				"请求把工作放进有界 BlockingQueue（ArrayBlockingQueue、LinkedBlockingQueue）或 SynchronousQueue 交给消费者线程，并往往从另一个队列取回结果；当消费者比生产者少或慢时，队列是满的，put 会阻塞，每个请求都按消费者的节奏等待。"),
			Tradeoff: T("More consumers help only if what they do scales (not one lock or one file); a larger queue adds latency, not throughput; offer with a timeout fails requests instead of queueing them.",
				"增加消费者只有在其工作可扩展时才有效（不是同一把锁或同一个文件）；更大的队列只增加延迟，不增加吞吐；带超时的 offer 会让请求失败而不是排队。"),
			Sig: Signature{States: []State{Parked, Waiting}, Frames: queueFrames,
				// Queues inside pools, executors' idle workers and logging are not a hand-off of the request's work.
				NotFrames: []string{"java.util.concurrent.ThreadPoolExecutor.getTask", "org.apache.tomcat.util.threads.TaskQueue.", "org.apache.commons.pool2.",
					"org.apache.commons.pool.", "com.zaxxer.hikari.", "com.mchange.", "com.alibaba.druid.pool.", "ch.qos.logback.", "org.apache.logging.log4j.", "org.apache.log4j.",
					"java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.", "java.util.concurrent.ForkJoinPool.awaitWork"}},
			Fixes: []Fix{{Do: T("Make the consumer of the queue at the code line keep up: more consumer threads if its work scales, batch what it does per item (one write or fsync per batch), or do the work on the request thread when the request waits for the reply anyway; offer(e, timeout) to fail fast when it is behind.",
				"让该代码行队列的消费者跟得上：若其工作可扩展则增加消费者线程，按批处理每项工作（每批一次写入或 fsync），或者既然请求反正要等结果，就直接在请求线程上执行；用 offer(e, timeout) 在积压时快速失败。")}},
			References: []string{"java.util.concurrent.BlockingQueue API docs: put, offer with timeout (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/concurrent/BlockingQueue.html)", refJUC},
		},
	}
}

// queueFrames are the blocking queues' put and take.
var queueFrames = []string{"java.util.concurrent.ArrayBlockingQueue.put", "java.util.concurrent.ArrayBlockingQueue.take",
	"java.util.concurrent.ArrayBlockingQueue.offer", "java.util.concurrent.ArrayBlockingQueue.poll", "java.util.concurrent.LinkedBlockingQueue.put",
	"java.util.concurrent.LinkedBlockingQueue.take", "java.util.concurrent.LinkedBlockingQueue.offer", "java.util.concurrent.LinkedBlockingQueue.poll",
	"java.util.concurrent.LinkedBlockingDeque.put", "java.util.concurrent.LinkedBlockingDeque.take", "java.util.concurrent.LinkedBlockingDeque.offer",
	"java.util.concurrent.LinkedBlockingDeque.poll", "java.util.concurrent.SynchronousQueue.put", "java.util.concurrent.SynchronousQueue.take",
	"java.util.concurrent.SynchronousQueue.offer", "java.util.concurrent.SynchronousQueue.poll", "java.util.concurrent.LinkedTransferQueue.transfer",
	"java.util.concurrent.LinkedTransferQueue.take", "java.util.concurrent.PriorityBlockingQueue.take", "java.util.concurrent.DelayQueue.take",
	"java.util.concurrent.Exchanger.exchange", "com.lmax.disruptor.MultiProducerSequencer.next", "com.lmax.disruptor.SingleProducerSequencer.next"}

// rateLimiterFrames are rate limiters that sleep for their permits.
var rateLimiterFrames = []string{"com.google.common.util.concurrent.RateLimiter.acquire", "com.google.common.util.concurrent.RateLimiter$SleepingStopwatch"}

// socketReadFrames are a thread in a socket read (or write), the JDK's
// classic and NIO sockets and TLS.
var socketReadFrames = []string{"java.net.SocketInputStream.", "java.net.Socket$SocketInputStream.", "java.net.SocketOutputStream.", "java.net.Socket$SocketOutputStream.",
	"sun.nio.ch.NioSocketImpl.", "sun.nio.ch.SocketChannelImpl.read", "sun.nio.ch.SocketChannelImpl.write", "sun.nio.ch.SocketDispatcher.",
	"sun.security.ssl.SSLSocketImpl$AppInputStream.", "sun.security.ssl.SSLSocketImpl$AppOutputStream.", "sun.security.ssl.SSLSocketInputRecord.",
	"java.net.PlainSocketImpl.socket", "java.net.AbstractPlainSocketImpl.", "sun.nio.ch.Net.poll"}

// permitFrames are waits for a permit (semaphores, bulkheads, rate limiters).
var permitFrames = join([]string{"java.util.concurrent.Semaphore.acquire", "java.util.concurrent.Semaphore.tryAcquire",
	"io.github.resilience4j.bulkhead.", "io.github.resilience4j.ratelimiter.", "com.netflix.hystrix.AbstractCommand$TryableSemaphore"}, rateLimiterFrames)
