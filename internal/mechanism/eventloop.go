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
			Sig: Signature{Roles: []string{"event-loop"}, States: []State{Blocked, Parked, Waiting, Sleeping, Socket, File}, NeedApp: true, MinShare: 0.2,
				NotFrames: reactiveBlockFrames, NotLeafward: serverOwnIO},
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
		{
			ID: "mech.reactive.block", Family: EventLoop,
			Name: T("block() inside a reactive chain: a scheduler thread waits for another publisher", "响应式链中的 block()：调度线程在等待另一个发布者"),
			Mechanism: T("Mono.block, Flux.blockFirst/blockLast and RxJava's blockingGet park the calling thread until the publisher completes; inside a reactive chain that thread is one of a few event-loop or parallel-scheduler threads (reactor-http-nio, parallel-N), so every request that shares it waits too, and when the awaited publisher needs the same threads the chain deadlocks.",
				"Mono.block、Flux.blockFirst/blockLast 与 RxJava 的 blockingGet 会挂起调用线程直到发布者完成；在响应式链中该线程是少数事件循环或 parallel 调度线程之一（reactor-http-nio、parallel-N），共享它的所有请求都要等待；若被等待的发布者也需要这些线程，整个链会死锁。"),
			Tradeoff: T("Composing (flatMap, zip) instead of blocking changes the code's shape and error handling; publishOn(Schedulers.boundedElastic()) keeps the blocking but costs a thread per waiting call, bounded by the scheduler's cap.",
				"用组合（flatMap、zip）代替阻塞会改变代码结构与错误处理；publishOn(Schedulers.boundedElastic()) 保留阻塞，但每个等待中的调用占用一个线程，并受调度器上限约束。"),
			Sig: Signature{States: []State{Parked, Waiting, Blocked}, Frames: reactiveBlockFrames},
			Fixes: []Fix{
				{Framework: "reactor", Do: T("Replace the block() at the code line by composition (flatMap/zipWith the inner Mono and return the Publisher); where a blocking API must be called, wrap it in Mono.fromCallable(...).subscribeOn(Schedulers.boundedElastic()); install BlockHound in tests to find the others.",
					"把该代码行的 block() 改为组合（对内部 Mono 使用 flatMap/zipWith 并返回 Publisher）；必须调用阻塞 API 时，用 Mono.fromCallable(...).subscribeOn(Schedulers.boundedElastic()) 包装；在测试中安装 BlockHound 找出其他阻塞点。")},
				{Do: T("Do not block inside the reactive chain: compose the awaited publisher (flatMap/zip) or move the blocking call to a bounded elastic/IO scheduler.",
					"不要在响应式链中阻塞：组合被等待的发布者（flatMap/zip），或把阻塞调用移到有界的 elastic/IO 调度器上。")},
			},
			References: []string{"Reactor 3 Reference Guide: How Do I Wrap a Synchronous, Blocking Call? and Schedulers.boundedElastic (projectreactor.io/docs/core/release/reference)",
				"BlockHound: Java agent to detect blocking calls from non-blocking threads (github.com/reactor/BlockHound)"},
		},
	}
}

// reactiveBlockFrames are the reactive libraries' blocking bridges.
var reactiveBlockFrames = []string{"reactor.core.publisher.BlockingSingleSubscriber.blockingGet", "reactor.core.publisher.Mono.block",
	"reactor.core.publisher.Flux.blockFirst", "reactor.core.publisher.Flux.blockLast", "reactor.core.publisher.BlockingIterable",
	"reactor.core.publisher.BlockingOptionalMonoSubscriber.blockingGet", "io.reactivex.internal.observers.BlockingBaseObserver.blockingGet",
	"io.reactivex.rxjava3.internal.observers.BlockingBaseObserver.blockingGet", "io.reactivex.rxjava3.internal.observers.BlockingMultiObserver.blockingGet",
	"io.reactivex.internal.observers.BlockingMultiObserver.blockingGet", "io.smallrye.mutiny.operators.uni.UniBlockingAwait.await",
	"kotlinx.coroutines.BuildersKt.runBlocking", "kotlinx.coroutines.BlockingCoroutine.joinBlocking"}

// serverOwnIO are a server's own non-blocking channel I/O and response
// writes on its loop: the loop's work, not a call that blocks it.
var serverOwnIO = []string{
	"io.netty.channel.nio.AbstractNioByteChannel", "io.netty.channel.socket.nio.NioSocketChannel.doWrite",
	"io.netty.channel.socket.nio.NioSocketChannel.doReadBytes", "io.netty.channel.epoll.", "io.netty.channel.kqueue.",
	"io.netty.channel.AbstractChannel$AbstractUnsafe.flush", "io.vertx.core.net.impl.ConnectionBase.write",
	"sun.net.httpserver.Request$WriteStream", "sun.net.httpserver.FixedLengthOutputStream", "sun.net.httpserver.ChunkedOutputStream",
	"sun.net.httpserver.ExchangeImpl.sendResponseHeaders", "sun.net.httpserver.Request$ReadStream",
}
