package threaddump

import "strings"

// Idle is a thread waiting for work: a pool worker on its task queue, a
// timer, a selector or acceptor, a JVM service thread, a background loop
// between rounds, main parked until shutdown. Idle threads are not counted
// as working: not in the blocked share, never stuck, never waiters.

// idleFrames are worker loops waiting for their next task: reached before
// any application frame, the thread is idle wherever it sits.
var idleFrames = []string{
	"java.util.concurrent.ThreadPoolExecutor.getTask", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask",
	"java.util.concurrent.ForkJoinPool.awaitWork", "java.util.concurrent.ForkJoinPool.awaitQuiescence",
	"java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take", "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.poll",
	"org.apache.tomcat.util.threads.TaskQueue.take", "org.apache.tomcat.util.threads.TaskQueue.poll",
	"io.netty.util.concurrent.SingleThreadEventExecutor.takeTask", "io.netty.util.concurrent.GlobalEventExecutor.takeTask",
	"io.netty.util.HashedWheelTimer$Worker.waitForNextTick", "io.netty.util.ThreadDeathWatcher$Watcher.run",
	"io.grpc.netty.shaded.io.netty.util.concurrent.SingleThreadEventExecutor.takeTask", "io.grpc.netty.shaded.io.netty.channel.epoll.Native.epollWait",
	"org.apache.dubbo.common.timer.HashedWheelTimer$Worker.waitForNextTick", "com.alibaba.dubbo.common.timer.HashedWheelTimer$Worker.waitForNextTick",
	"java.util.TimerThread.mainLoop", "javax.swing.TimerQueue.run", "java.awt.EventQueue.getNextEvent",
	"java.lang.ref.ReferenceQueue.remove", "java.lang.ref.Reference.waitForReferencePendingList",
	"java.lang.ref.Reference.tryHandlePending", "java.lang.ref.Reference$ReferenceHandler.run",
	"jdk.internal.misc.InnocuousThread.run", "java.lang.ProcessHandleImpl$",
	// Selectors and acceptors: the JDK's and Netty's native epoll.
	"sun.nio.ch.EPoll.wait", "sun.nio.ch.EPollArrayWrapper.epollWait", "sun.nio.ch.KQueue.poll", "sun.nio.ch.KQueueArrayWrapper.kevent0",
	"sun.nio.ch.WindowsSelectorImpl$SubSelector.poll0", "io.netty.channel.epoll.Native.epollWait", "io.netty.channel.kqueue.Native.keventWait",
	"sun.nio.ch.ServerSocketChannelImpl.accept", "sun.nio.ch.Net.accept", "java.net.PlainSocketImpl.socketAccept",
	"java.net.DualStackPlainSocketImpl.accept0", "sun.nio.ch.NioSocketImpl.accept", "java.net.ServerSocket.accept",
	"com.alibaba.druid.pool.DruidDataSource$CreateConnectionThread.run", "com.alibaba.druid.pool.DruidDataSource$DestroyConnectionThread.run",
	"java.lang.VirtualThread.unpark", "jdk.internal.misc.VirtualThreads",
	// Servers waiting for the client's next request, not for a downstream.
	"sun.rmi.transport.tcp.TCPTransport.handleMessages", "org.apache.coyote.http11.Http11InputBuffer.fill",
	"org.apache.coyote.http11.InternalInputBuffer.fill", "org.apache.tomcat.util.net.NioEndpoint$Poller.run",
	"org.apache.tomcat.util.net.NioBlockingSelector$BlockPoller.run", "org.apache.tomcat.util.net.JIoEndpoint$Worker.await",
	"org.apache.tomcat.util.threads.ThreadPool$ControlRunnable.run", "org.apache.catalina.core.ContainerBase$ContainerBackgroundProcessor.run",
	// Main threads parked until shutdown: Tomcat's await loop, Spring Boot's keep-alive.
	"org.apache.catalina.core.StandardServer.await", "org.apache.catalina.startup.Catalina.await",
	"org.springframework.boot.web.embedded.tomcat.TomcatWebServer$1.run",
	"org.eclipse.jetty.util.thread.QueuedThreadPool.idleJobPoll", "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll",
	"org.eclipse.jetty.util.BlockingArrayQueue.poll", "org.eclipse.jetty.util.BlockingArrayQueue.take",
	"org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.reservedWait", "org.eclipse.jetty.server.Server.join",
	"org.jboss.threads.EnhancedQueueExecutor$ThreadBody.run", "org.jboss.threads.EnhancedQueueExecutor$PoolThreadNode.park",
	// Consumers of async loggers (the LMAX Disruptor and log4j2's own strategy) between events.
	"com.lmax.disruptor.BlockingWaitStrategy.waitFor", "com.lmax.disruptor.TimeoutBlockingWaitStrategy.waitFor",
	"com.lmax.disruptor.LiteBlockingWaitStrategy.waitFor", "com.lmax.disruptor.SleepingWaitStrategy.",
	"com.lmax.disruptor.YieldingWaitStrategy.", "org.apache.logging.log4j.core.async.TimeoutBlockingWaitStrategy.waitFor",
	// Client libraries' housekeeping: OkHttp's task runner and watchdog, Kafka's heartbeat, ZooKeeper's event thread.
	"okhttp3.internal.concurrent.TaskRunner$RealBackend.coordinatorWait", "okio.AsyncTimeout$Watchdog.run", "okio.AsyncTimeout.awaitTimeout",
	"okhttp3.ConnectionPool$1.run", "org.apache.kafka.clients.consumer.internals.AbstractCoordinator$HeartbeatThread.run",
	"com.sun.jmx.remote.internal.ServerCommunicatorAdmin$Timeout.run", "sun.misc.GC$Daemon.run", "sun.rmi.transport.DGCClient$EndpointEntry$RenewCleanThread.run",
	// JDK Flight Recorder's own threads between chunks and periodic events.
	"jdk.jfr.internal.PlatformRecorder.takeNap", "jdk.jfr.internal.PlatformRecorder.periodicTask",
}

// queueTakeFrames wait for an element: a consumer loop waiting for work,
// unless a request or task is waiting for its own reply (see loopCaller).
var queueTakeFrames = []string{
	"java.util.concurrent.LinkedBlockingQueue.take", "java.util.concurrent.LinkedBlockingQueue.poll",
	"java.util.concurrent.LinkedBlockingDeque.take", "java.util.concurrent.LinkedBlockingDeque.poll",
	"java.util.concurrent.ArrayBlockingQueue.take", "java.util.concurrent.ArrayBlockingQueue.poll",
	"java.util.concurrent.SynchronousQueue.take", "java.util.concurrent.SynchronousQueue.poll",
	"java.util.concurrent.LinkedTransferQueue.take", "java.util.concurrent.LinkedTransferQueue.poll",
	"java.util.concurrent.DelayQueue.take", "java.util.concurrent.DelayQueue.poll",
	"java.util.concurrent.PriorityBlockingQueue.take", "java.util.concurrent.PriorityBlockingQueue.poll",
	"java.util.concurrent.BlockingQueue.take",
}

// pauseFrames wait for time or for another thread to end: idle in a
// thread of its own (main, a background loop between rounds), working
// inside a task or request (a sleep there is the task's own latency).
var pauseFrames = []string{
	"java.lang.Thread.sleep", "java.lang.Thread.join", "java.util.concurrent.TimeUnit.sleep",
}

// mainWaitFrames: main parked on a latch or a monitor until shutdown.
var mainWaitFrames = []string{
	"java.util.concurrent.CountDownLatch.await", "java.lang.Object.wait", "java.util.concurrent.locks.LockSupport.park",
}

// taskFrames run a submitted task or a request: a wait below them is the
// task's, not the worker loop's.
var taskFrames = []string{
	"java.util.concurrent.ThreadPoolExecutor.runWorker", "java.util.concurrent.FutureTask.run",
	"java.util.concurrent.ForkJoinTask.doExec", "java.util.concurrent.CompletableFuture$Async",
	"java.lang.VirtualThread.run", "org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker",
	"org.apache.tomcat.util.net.SocketProcessorBase.run", "org.apache.coyote.", "org.apache.catalina.core.StandardWrapperValve",
	"javax.servlet.", "jakarta.servlet.", "org.eclipse.jetty.server.", "io.undertow.server.", "org.springframework.web.",
	"io.netty.channel.AbstractChannelHandlerContext.invoke", "org.apache.dubbo.remoting.", "com.alibaba.dubbo.remoting.",
	"weblogic.work.", "com.ibm.ws.",
}

// jvmServiceThreads are Java threads of the JVM itself that print no frames.
var jvmServiceThreads = []string{
	"Signal Dispatcher", "Attach Listener", "Service Thread", "Monitor Deflation Thread", "Notification Thread",
	"C1 CompilerThread", "C2 CompilerThread", "Sweeper thread", "Common-Cleaner", "Low Memory Detector",
	"Surrogate Locker Thread", "JVMCI", "CompilerThread", "JFR ", "VM JFR ",
}

// isIdle says whether t waits for work. m caches the frame lists.
func (m *matcher) isIdle(t *Thread) bool {
	if t.State == StateBlocked || t.State == StateNone {
		return false
	}
	st := t.Stack()
	if len(st) == 0 {
		// The JVM's own service threads (compilers, signal dispatcher) run no Java code.
		return t.State == StateRunnable && !t.Virtual && hasAnyPrefix(t.Name, jvmServiceThreads)
	}
	if len(st) > scanDepth {
		st = st[:scanDepth]
	}
	// A worker loop's wait, before any application frame: a worker running
	// a task has the pool's frames below the task's.
	top := -1 // index of the first frame of a wait primitive
	for i, f := range st {
		fl := m.flag(f.Method)
		if fl&flagIdle != 0 {
			return true
		}
		if top < 0 && fl&(flagQueueTake|flagPause) != 0 {
			top = i
		}
		if !isJDKFrame(f.Method) {
			break
		}
	}
	if t.State == StateRunnable || t.Virtual {
		return false
	}
	inTask := false
	for _, f := range t.Stack() {
		if m.flag(f.Method)&flagTask != 0 {
			inTask = true
			break
		}
	}
	caller := firstAppFrame(t)
	switch {
	case top >= 0 && m.flag(st[top].Method)&flagQueueTake != 0:
		// A consumer loop (run() taking its next element), even when the
		// loop itself was submitted as a task; a request taking its reply is not.
		return !inTask || loopCaller(caller)
	case top >= 0:
		// Joining another thread, or a loop of its own sleeping between
		// rounds; a sleep deeper in its work is the work's latency.
		return !inTask && (t.Name == "main" || loopCaller(caller) || strings.HasPrefix(st[top].Method, "java.lang.Thread.join"))
	case t.Name == "main" && !inTask && hasAnyPrefix(st[0].Method, mainWaitFrames):
		return true
	case strings.HasPrefix(st[0].Method, "java.lang.Object.wait") && !inTask:
		// A worker loop in Object.wait on its own job list (pre-j.u.c servers,
		// hand-written pools): it holds no lock but the one it waits on.
		return len(t.WaitingOn) > 0 && holdsOnly(t, t.WaitingOn[0].Key())
	}
	return false
}

// loopCaller: the application frame that takes from a queue is a loop's
// body (run, call, a lambda), not a request handler.
func loopCaller(f Frame) bool {
	m := f.Method[strings.LastIndexByte(f.Method, '.')+1:]
	return m == "run" || m == "call" || strings.HasPrefix(m, "lambda$")
}

// holdsOnly: every monitor t shows as locked is key (Object.wait lists the
// monitor it waits on as locked too).
func holdsOnly(t *Thread, key string) bool {
	for _, l := range t.Locked {
		if l.Key() != key {
			return false
		}
	}
	return len(t.OwnableSynchronizers) == 0
}
