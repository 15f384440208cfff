package mechanism

// Pools: request threads waiting for a resource a fixed-size pool hands out.
func poolEntries() []Entry {
	return []Entry{
		{
			ID: "mech.pool.jdbc-exhausted", Family: Pool,
			Name: T("JDBC connection pool exhausted: request threads wait for a connection", "JDBC 连接池耗尽：请求线程等待连接"),
			Mechanism: T("Every connection is lent to a thread running a statement; the other request threads park in the pool's borrow until one is returned, so throughput is the pool size divided by the time a connection is held.",
				"所有连接都借给了正在执行语句的线程；其他请求线程在连接池的借用处挂起直到有连接归还，吞吐量等于连接池大小除以每次占用连接的时间。"),
			Tradeoff: T("More connections load the database more: size the pool to what the database serves in parallel, and shorten the time each connection is held first.",
				"更多连接会加重数据库负担：按数据库能并行处理的能力设置连接池大小，并先缩短每次占用连接的时间。"),
			Sig: Signature{States: []State{Parked, Blocked, Waiting}, Frames: jdbcPoolFrames,
				Holders: []string{"java.sql.", "javax.sql.", "org.h2.", "com.mysql.", "org.postgresql.", "oracle.jdbc.", "org.mariadb.", "com.microsoft.sqlserver.",
					"com.zaxxer.hikari.pool.ProxyStatement", "com.zaxxer.hikari.pool.ProxyPreparedStatement", "com.zaxxer.hikari.pool.HikariProxy",
					"org.apache.commons.dbcp2.DelegatingStatement", "org.apache.commons.dbcp2.DelegatingPreparedStatement", "com.alibaba.druid.pool.DruidPooledPreparedStatement"}},
			Fixes: []Fix{
				{Framework: "hikari", Do: T("Shorten what runs while a connection is held (the slow statement, remote calls inside a transaction), then size spring.datasource.hikari.maximum-pool-size (HikariCP maximumPoolSize) to the concurrency the database serves; set leakDetectionThreshold to find connections held too long.",
					"先缩短持有连接期间执行的内容（慢语句、事务中的远程调用），再按数据库能服务的并发设置 spring.datasource.hikari.maximum-pool-size（HikariCP maximumPoolSize）；设置 leakDetectionThreshold 以发现长时间占用的连接。"),
					Apply: "spring.datasource.hikari.maximum-pool-size=32"},
				{Do: T("Shorten what runs while a connection is held, then raise the pool's maximum (DBCP2 maxTotal, c3p0 maxPoolSize, Druid maxActive) to the concurrency the database serves.",
					"先缩短持有连接期间执行的内容，再把连接池上限（DBCP2 maxTotal、c3p0 maxPoolSize、Druid maxActive）提高到数据库能服务的并发。")},
			},
			References: []string{refHikari},
		},
		{
			ID: "mech.pool.http-client-exhausted", Family: Pool,
			Name: T("HTTP client connection pool exhausted: request threads wait for a connection to the downstream", "HTTP 客户端连接池耗尽：请求线程等待到下游的连接"),
			Mechanism: T("A pooling HTTP client lends a bounded number of connections per route (Apache HttpClient 4: defaultMaxPerRoute 2 and maxTotal 20 by default; 5: 5 and 25); when every connection is in use, or leaked because a response was never consumed or closed, callers park in the pool's lease until one is returned, often with no timeout.",
				"池化的 HTTP 客户端按路由借出有限数量的连接（Apache HttpClient 4 默认 defaultMaxPerRoute 2、maxTotal 20；HttpClient 5 默认 5 与 25）；当所有连接都在使用中，或因响应未被读完或关闭而泄漏时，调用方会挂起在连接池的租用处，直到有连接归还，而且往往没有超时。"),
			Tradeoff: T("More connections per route load the downstream more; a lease timeout fails requests instead of queueing them: pair it with a fallback.",
				"每个路由更多连接会加重下游负担；租用超时会让请求失败而不是排队：需配合降级处理。"),
			Sig: Signature{States: []State{Parked, Waiting, Blocked}, Frames: httpPoolFrames},
			Fixes: []Fix{
				{Framework: "spring", Do: T("Build the RestTemplate/RestClient on a PoolingHttpClientConnectionManager sized for the concurrency (setDefaultMaxPerRoute, setMaxTotal), set a connection-request (lease) timeout, and make sure every response body is consumed or closed (try-with-resources on the response).",
					"基于按并发量设置大小的 PoolingHttpClientConnectionManager（setDefaultMaxPerRoute、setMaxTotal）构建 RestTemplate/RestClient，设置取连接（租用）超时，并确保每个响应体都被读完或关闭（对响应使用 try-with-resources）。"),
					Apply: "cm.setDefaultMaxPerRoute(50); cm.setMaxTotal(200);"},
				{Do: T("Raise the client's per-route and total limits to the concurrency the downstream serves (HttpClient: PoolingHttpClientConnectionManager setDefaultMaxPerRoute/setMaxTotal; HttpClient 3: MultiThreadedHttpConnectionManager maxConnectionsPerHost), set a lease timeout (RequestConfig connectionRequestTimeout), and close every response (EntityUtils.consume or try-with-resources) so no connection leaks.",
					"把客户端的每路由与总连接上限提高到下游能服务的并发（HttpClient：PoolingHttpClientConnectionManager 的 setDefaultMaxPerRoute/setMaxTotal；HttpClient 3：MultiThreadedHttpConnectionManager 的 maxConnectionsPerHost），设置租用超时（RequestConfig connectionRequestTimeout），并关闭每个响应（EntityUtils.consume 或 try-with-resources），避免连接泄漏。"),
					Apply: "cm.setDefaultMaxPerRoute(50); cm.setMaxTotal(200);"},
			},
			References: []string{"Apache HttpClient tutorial, Connection management: pooling connection manager, defaultMaxPerRoute, maxTotal (hc.apache.org)",
				"Apache HttpClient 5 PoolingHttpClientConnectionManager API docs (hc.apache.org)"},
		},
		{
			ID: "mech.pool.executor-saturated", Family: Pool,
			Name: T("An executor too small for its callers: request threads wait on its futures", "线程池容量不足以服务调用方：请求线程在等待它的 Future"),
			Mechanism: T("The requests hand work to an ExecutorService (or CompletableFuture.supplyAsync) and wait for the result with Future.get or join; when that executor has fewer threads than there are waiting requests (a single-thread executor, a small fixed pool, ForkJoinPool.commonPool's CPUs-1), the tasks queue and every request waits for the ones before it: the pool, not the work, sets the throughput.",
				"请求把工作交给 ExecutorService（或 CompletableFuture.supplyAsync），再用 Future.get 或 join 等待结果；当该执行器的线程数少于等待中的请求数（单线程执行器、较小的固定线程池、只有 CPU 数减一个线程的 ForkJoinPool.commonPool）时，任务排队，每个请求都要等待前面的任务：决定吞吐量的是线程池，而不是工作本身。"),
			Tradeoff: T("More executor threads only help when the tasks wait (I/O, sleeps): for CPU work they contend for the same cores; a bounded queue with a rejection policy fails requests fast instead of queueing them.",
				"增加执行器线程只在任务处于等待（I/O、休眠）时有效：对 CPU 计算它们会争用相同的核；有界队列加拒绝策略会让请求快速失败而不是排队。"),
			Sig: Signature{States: []State{Parked, Waiting}, Frames: futureFrames,
				// Futures inside clients (an HTTP pool's lease, a driver's reply) are those entries' waits.
				NotFrames: join([]string{"io.lettuce.", "org.redisson.", "org.apache.kafka.", "io.grpc.", "org.elasticsearch.", "com.datastax.", "org.mongodb.", "com.mongodb.",
					"org.apache.hc.core5.reactor.", "okhttp3.", "java.net.http.", "jdk.internal.net.http."}, httpPoolFrames, reactiveBlockFrames)},
			Fixes: []Fix{
				{Framework: "spring", Do: T("Give the @Async/TaskExecutor used at the code line a pool sized for its blocking time (spring.task.execution.pool.core-size and max-size with a bounded queue-capacity: max-size only grows once the queue is full), or call the work directly on the request thread when it waits anyway.",
					"为该代码行使用的 @Async/TaskExecutor 设置与其阻塞时间相称的线程池（spring.task.execution.pool.core-size 与 max-size，并设置有界的 queue-capacity：只有队列满后才会扩展到 max-size），或者既然请求线程反正要等，就直接在请求线程上执行。"),
					Apply: "spring.task.execution.pool.core-size=32\nspring.task.execution.pool.queue-capacity=100", Revert: "(remove spring.task.execution.pool.*)"},
				{Do: T("Size the executor the code line submits to for the concurrency of its callers (threads = arrival rate x task time; a dedicated pool per downstream, never the common pool for blocking tasks: pass an executor to supplyAsync), or run the task on the calling thread when the caller only waits for it.",
					"按调用方的并发量设置该代码行所提交的执行器大小（线程数 = 到达率 x 任务耗时；每个下游一个专用线程池，阻塞任务不要用公共池：给 supplyAsync 传入执行器），若调用方只是等待结果，就直接在调用线程上执行任务。")},
			},
			References: []string{refJUC, "java.util.concurrent.ThreadPoolExecutor API docs: core and maximum pool sizes, queuing (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/concurrent/ThreadPoolExecutor.html)"},
		},
		{
			ID: "mech.pool.request-threads-exhausted", Family: Pool,
			Name: T("Every request thread is busy: new connections wait in the listen queue", "所有请求线程都在忙：新连接在监听队列中等待"),
			Mechanism: T("The server's worker pool (Tomcat maxThreads 200, Jetty maxThreads, Undertow worker threads) is fully taken by requests that wait or compute; new connections queue in the accept backlog until it overflows and the kernel drops them, so clients see connect timeouts and retransmitted SYNs on top of the slow requests.",
				"服务器的工作线程池（Tomcat maxThreads 200、Jetty maxThreads、Undertow worker 线程）被正在等待或计算的请求占满；新连接在 accept 队列中排队直到溢出、被内核丢弃，客户端除了慢请求之外还会遇到连接超时和 SYN 重传。"),
			Tradeoff: T("More threads help only when the requests wait (not when they compute or queue on one lock) and cost memory (a stack each); fix what the threads wait on first (the other mechanisms named for this run).",
				"增加线程只在请求处于等待时有效（计算或在同一把锁上排队时无效），并消耗内存（每个线程一个栈）；应先修复线程在等待的东西（本次运行中列出的其他机制）。"),
			Sig: Signature{Needs: []Need{{Fact: "finding.run.net.listen-overflow", Min: 1}}, Score: "finding.run.net.listen-overflow", Scale: 5},
			Fixes: []Fix{
				{Framework: "tomcat", Do: T("First remove what holds the workers (the other mechanisms of this run); then raise server.tomcat.threads.max (Tomcat maxThreads) and server.tomcat.accept-count for bursts, or move the waiting work to async request processing.",
					"先去掉占住工作线程的原因（本次运行的其他机制）；再提高 server.tomcat.threads.max（Tomcat maxThreads）并为突发流量提高 server.tomcat.accept-count，或把等待的工作改为异步请求处理。"),
					Apply: "server.tomcat.threads.max=400\nserver.tomcat.accept-count=500", Revert: "(remove server.tomcat.threads.max and server.tomcat.accept-count)"},
				{Framework: "jetty", Do: T("First remove what holds the workers; then raise the QueuedThreadPool's maxThreads (server.jetty.threads.max) and the connector's acceptQueueSize.",
					"先去掉占住工作线程的原因；再提高 QueuedThreadPool 的 maxThreads（server.jetty.threads.max）与连接器的 acceptQueueSize。"),
					Apply: "server.jetty.threads.max=400"},
				{Do: T("First remove what holds the request threads (the other mechanisms of this run); then raise the server's worker-thread limit and its accept backlog (and net.core.somaxconn, which caps it).",
					"先去掉占住请求线程的原因（本次运行的其他机制）；再提高服务器的工作线程上限与 accept 队列长度（以及限制它的 net.core.somaxconn）。")},
			},
			References: []string{"Apache Tomcat 10.1 configuration reference, The HTTP Connector: maxThreads, acceptCount (tomcat.apache.org/tomcat-10.1-doc/config/http.html)",
				"listen(2) man page: the backlog argument and /proc/sys/net/core/somaxconn (man7.org/linux/man-pages/man2/listen.2.html)"},
		},
	}
}

// httpPoolFrames are the HTTP clients' connection leases (Apache
// HttpClient 3, 4 and 5).
var httpPoolFrames = []string{"org.apache.http.pool.AbstractConnPool.getPoolEntryBlocking", "org.apache.http.pool.AbstractConnPool$",
	"org.apache.http.pool.PoolEntryFuture.", "org.apache.http.impl.conn.PoolingHttpClientConnectionManager.leaseConnection",
	"org.apache.http.impl.conn.PoolingHttpClientConnectionManager$", "org.apache.http.impl.conn.PoolingClientConnectionManager.leaseConnection",
	"org.apache.http.impl.conn.tsccm.", "org.apache.hc.core5.pool.StrictConnPool$", "org.apache.hc.core5.pool.StrictConnPool.lease",
	"org.apache.hc.core5.pool.LaxConnPool", "org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager$",
	"org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager.lease", "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager.doGetConnection"}

// jdbcPoolFrames are the JDBC pools' borrows.
var jdbcPoolFrames = []string{
	"com.zaxxer.hikari.pool.HikariPool.getConnection",
	"com.zaxxer.hikari.util.ConcurrentBag.borrow", "org.apache.commons.dbcp2.", "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject",
	"org.apache.commons.dbcp.", "org.apache.commons.pool.impl.GenericObjectPool.borrowObject",
	"com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable", "com.alibaba.druid.pool.DruidDataSource.takeLast",
	"com.alibaba.druid.pool.DruidDataSource.pollLast", "org.apache.tomcat.jdbc.pool.ConnectionPool.borrowConnection"}

// futureFrames are waits for a future's result.
var futureFrames = []string{"java.util.concurrent.FutureTask.get", "java.util.concurrent.FutureTask.awaitDone",
	"java.util.concurrent.CompletableFuture.get", "java.util.concurrent.CompletableFuture.join", "java.util.concurrent.CompletableFuture.waitingGet",
	"java.util.concurrent.CompletableFuture.timedGet", "java.util.concurrent.CompletableFuture$Signaller.block", "java.util.concurrent.AbstractExecutorService.invokeAll",
	"java.util.concurrent.AbstractExecutorService.invokeAny", "java.util.concurrent.ExecutorCompletionService.take", "java.util.concurrent.ForkJoinTask.get",
	"java.util.concurrent.ForkJoinTask.join", "java.util.concurrent.ForkJoinTask.invokeAll", "com.google.common.util.concurrent.AbstractFuture.get",
	"com.google.common.util.concurrent.Futures.getUnchecked", "com.google.common.util.concurrent.Uninterruptibles.getUninterruptibly"}
