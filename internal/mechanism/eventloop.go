package mechanism

// Event loops: one thread serves many connections; a blocking call inside
// a handler stops every connection of that loop.
func eventLoopEntries() []Entry {
	return []Entry{
		{
			ID: "mech.eventloop.blocking-call", Family: EventLoop,
			Name: T("A blocking call on the event loop: one wait stalls every connection of the loop",
				"事件循环上的阻塞调用：一次等待使该循环的所有连接停顿"),
			Mechanism: T("Event-loop threads (Netty, Vert.x, a selector, the JDK HttpServer's dispatcher) serve all their connections in turn; a handler that sleeps, locks, reads a socket or a file, or waits on a future holds every other connection of the loop for that long.",
				"事件循环线程（Netty、Vert.x、selector、JDK HttpServer 的分发线程）轮流服务其所有连接；处理器中的休眠、加锁、读 socket/文件或等待 future，会让该循环的其他连接同样等待。"),
			Tradeoff: T("Moving the call to a worker pool adds a thread hand-off per request and needs that pool sized for the blocking time.",
				"把调用移到工作线程池会为每个请求增加一次线程切换，并需要按阻塞时间设置线程池大小。"),
			Sig: Signature{Roles: []string{"event-loop"}, States: []State{Blocked, Parked, Waiting, Sleeping, Socket, File}, NeedApp: true, MinShare: 0.2},
			Fixes: []Fix{
				{Framework: "netty", Do: T("Run the blocking handler on its own executor: pipeline.addLast(new DefaultEventExecutorGroup(N), handler), or hand the call to a bounded ThreadPoolExecutor and write the response from its callback; keep the EventLoop for I/O only.",
					"让阻塞的处理器在单独的执行器上运行：pipeline.addLast(new DefaultEventExecutorGroup(N), handler)，或把调用交给有界 ThreadPoolExecutor 并在回调中写响应；EventLoop 只做 I/O。")},
				{Framework: "vertx", Do: T("Use vertx.executeBlocking (or a worker verticle) for the blocking call; never block an event-loop handler.",
					"对阻塞调用使用 vertx.executeBlocking（或 worker verticle）；不要在事件循环处理器中阻塞。")},
				{Framework: "jdk-httpserver", Do: T("Give the HttpServer an executor (server.setExecutor(Executors.newFixedThreadPool(N))) so handlers run on a pool, not on the single dispatcher thread.",
					"为 HttpServer 设置执行器（server.setExecutor(Executors.newFixedThreadPool(N))），让处理器在线程池中运行，而不是在唯一的分发线程上。"),
					Apply: "server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(64));"},
				{Do: T("Move the blocking call off the event loop to a bounded worker pool and complete the response asynchronously.",
					"把阻塞调用从事件循环移到有界工作线程池，异步完成响应。")},
			},
			References: []string{refNetty, "Vert.x core manual: The Golden Rule - Don't Block the Event Loop (vertx.io/docs/vertx-core/java)",
				"com.sun.net.httpserver.HttpServer.setExecutor API docs (docs.oracle.com/en/java/javase/21/docs/api/jdk.httpserver)"},
		},
	}
}
