package threadrole

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Real thread names, each as a JVM or library printed it, with where it
// was seen: the corpus dumps (internal/jvm/threaddump/testdata), the zoo's
// dumps (internal/verdict/testdata), the dumps of testdata/ (SOURCES.md), a
// JVM on this machine (/proc comm), and public issue threads.
var realNames = []struct {
	name      string
	kind      Kind
	framework string
	pool      string
}{
	// HotSpot JDK 8-25 (threaddump testdata, tda_java8dump.log, jdk25_*).
	{"C2 CompilerThread0", JIT, "hotspot", "C2 CompilerThread"},
	{"C1 CompilerThread3", JIT, "hotspot", "C1 CompilerThread"},
	{"CompilerThread0", JIT, "hotspot", "CompilerThread"},
	{"JVMCI-native CompilerThread0", JIT, "hotspot", "JVMCI-native CompilerThread"},
	{"GC Thread#7", GC, "hotspot", "GC Thread"},
	{"G1 Main Marker", GC, "hotspot", "G1 Main Marker"},
	{"G1 Conc#0", GC, "hotspot", "G1 Conc"},
	{"G1 Refine#0", GC, "hotspot", "G1 Refine"},
	{"G1 Service", GC, "hotspot", "G1 Service"},
	{"G1 Young RemSet Sampling", GC, "hotspot", "G1 Young RemSet Sampling"},
	{"GC task thread#3 (ParallelGC)", GC, "hotspot", "GC task thread#3 (ParallelGC)"},
	{"Gang worker#0 (Parallel GC Threads)", GC, "hotspot", "Gang worker#0 (Parallel GC Threads)"},
	{"ParGC Thread#2", GC, "hotspot", "ParGC Thread"},
	{"Concurrent Mark-Sweep GC Thread", GC, "hotspot", "Concurrent Mark-Sweep GC Thread"},
	{"Surrogate Locker Thread (Concurrent GC)", GC, "hotspot", "Surrogate Locker Thread (Concurrent GC)"},
	{"ZDirector", GC, "hotspot", "ZDirector"},
	{"ZWorkerYoung#1", GC, "hotspot", "ZWorkerYoung"},
	{"Shenandoah Control Thread", GC, "hotspot", "Shenandoah Control Thread"},
	{"VM Thread", VM, "", "VM Thread"},
	{"VM Periodic Task Thread", VM, "", "VM Periodic Task Thread"},
	{"Signal Dispatcher", VM, "", "Signal Dispatcher"},
	{"Finalizer", VM, "", "Finalizer"},
	{"Reference Handler", VM, "", "Reference Handler"},
	{"Common-Cleaner", VM, "", "Common-Cleaner"},
	{"Service Thread", VM, "", "Service Thread"},
	{"Monitor Deflation Thread", VM, "", "Monitor Deflation Thread"},
	{"Notification Thread", VM, "", "Notification Thread"},
	{"Sweeper thread", VM, "", "Sweeper thread"},
	{"Low Memory Detector", VM, "", "Low Memory Detector"},
	{"Suspend Checker Thread", VM, "", "Suspend Checker Thread"},
	{"DestroyJavaVM", VM, "", "DestroyJavaVM"},
	{"VirtualThread-unparker", VM, "", "VirtualThread-unparker"},
	{"process reaper", VM, "", "process reaper"},
	{"JFR Recorder Thread", JFR, "", "JFR Recorder Thread"},
	{"JFR Periodic Tasks", JFR, "", "JFR Periodic Tasks"},
	{"Attach Listener", Attach, "", "Attach Listener"},
	{"RMI TCP Connection(3)-10.0.0.12", Attach, "jmx", "RMI TCP Connection"},
	{"RMI TCP Accept-0", Attach, "jmx", "RMI TCP Accept"},
	{"JMX server connection timeout 25", Attach, "jmx", "JMX server connection timeout"},
	{"JDWP Transport Listener: dt_socket", Attach, "jdwp", "JDWP Transport Listener: dt_socket"},
	{"main", Main, "", "main"},
	// OpenJ9 (public javacores and a Spring Boot actuator dump).
	{"JIT Compilation Thread-000", JIT, "openj9", "JIT Compilation Thread"},
	{"JIT Compilation Thread-001 Suspended", JIT, "openj9", "JIT Compilation Thread"},
	{"JIT Diagnostic Compilation Thread-007 Suspended", JIT, "openj9", "JIT Diagnostic Compilation Thread"},
	{"JIT-SamplerThread", JIT, "openj9", "JIT-SamplerThread"},
	{"IProfiler", JIT, "openj9", "IProfiler"},
	{"GC Slave", GC, "openj9", "GC Slave"},
	{"GC Worker", GC, "openj9", "GC Worker"},
	{"Signal Reporter", VM, "", "Signal Reporter"},
	{"Signal dispatcher", VM, "", "Signal dispatcher"},
	{"Finalizer master", VM, "", "Finalizer master"},
	// Tomcat (zoo, threaddump testdata).
	{"http-nio-8080-exec-12", RequestWorker, "tomcat", "http-nio-8080-exec"},
	{"http-nio-127.0.0.1-32566-exec-3", RequestWorker, "tomcat", "http-nio-127.0.0.1-32566-exec"},
	{"https-jsse-nio-8443-exec-1", RequestWorker, "tomcat", "https-jsse-nio-8443-exec"},
	{"ajp-nio-8009-exec-2", RequestWorker, "tomcat", "ajp-nio-8009-exec"},
	{"http-bio-8080-exec-148", RequestWorker, "tomcat", "http-bio-8080-exec"},
	{"http-nio-127.0.0.1-32566-Poller", EventLoop, "tomcat", "http-nio-127.0.0.1-32566-Poller"},
	{"http-nio-8080-ClientPoller-0", EventLoop, "tomcat", "http-nio-8080-ClientPoller"},
	{"http-nio-8080-Acceptor", Acceptor, "tomcat", "http-nio-8080-Acceptor"},
	{"http-nio-8080-Acceptor-0", Acceptor, "tomcat", "http-nio-8080-Acceptor"},
	{"Catalina-utility-2", Timer, "tomcat", "Catalina-utility"},
	{"container-0", Background, "tomcat", "container"},
	// Jetty (jetty/jetty.project issues 2468, 3266, 6059; gocd/gocd 1772).
	{"qtp2056418216-11752", RequestWorker, "jetty", "qtp2056418216"},
	{"MessagePort-34-acceptor-0@2aac8b32-*:9443@7d64acaf{SSL,[ssl, http/1.1]}{0.0.0.0:9443}", Acceptor, "jetty", "MessagePort-acceptor"},
	{"HTTP Connection Handler-133-acceptor-1@7624d7e1-Jetty Connector 0.0.0.0 port 8080@4571f11a{HTTP/1.1,[http/1.1]}{0.0.0.0:8080}", Acceptor, "jetty", "HTTP Connection Handler-acceptor"},
	{"qtp643395775-18-selector-ServerConnectorManager@157090d9/1", EventLoop, "jetty", "qtp643395775-selector"},
	// Undertow, Vert.x, Quarkus.
	{"XNIO-1 I/O-1", EventLoop, "undertow", "XNIO-1 I/O"},
	{"XNIO-1 Accept", Acceptor, "undertow", "XNIO-1 Accept"},
	{"XNIO-1 task-12", RequestWorker, "undertow", "XNIO-1 task"},
	{"default task-3", RequestWorker, "undertow", "default task"},
	{"vert.x-eventloop-thread-0", EventLoop, "vertx", "vert.x-eventloop-thread"},
	{"vert.x-acceptor-thread-0", Acceptor, "vertx", "vert.x-acceptor-thread"},
	{"vert.x-worker-thread-7", RequestWorker, "vertx", "vert.x-worker-thread"},
	{"vertx-blocked-thread-checker", Timer, "vertx", "vertx-blocked-thread-checker"},
	{"executor-thread-1", RequestWorker, "quarkus", "executor-thread"},
	{"Quarkus Main Thread", Main, "quarkus", "Quarkus Main Thread"},
	// Netty, Reactor Netty, gRPC.
	{"nioEventLoopGroup-3-3", EventLoop, "netty", "nioEventLoopGroup-3"},
	{"epollEventLoopGroup-2-1", EventLoop, "netty", "epollEventLoopGroup-2"},
	{"defaultEventExecutorGroup-4-2", RequestWorker, "netty", "defaultEventExecutorGroup-4"},
	{"reactor-http-epoll-3", EventLoop, "reactor", "reactor-http-epoll"},
	{"reactor-http-nio-2", EventLoop, "reactor", "reactor-http-nio"},
	{"grpc-nio-worker-ELG-1-4", EventLoop, "grpc", "grpc-nio-worker-ELG-1"},
	{"grpc-nio-boss-ELG-1-1", Acceptor, "grpc", "grpc-nio-boss-ELG-1"},
	{"grpc-default-executor-0", RequestWorker, "grpc", "grpc-default-executor"},
	{"grpc-timer-0", Timer, "grpc", "grpc-timer"},
	// Kafka clients and broker.
	{"kafka-producer-network-thread | producer-1", EventLoop, "kafka", "kafka-producer-network-thread | producer"},
	{"kafka-coordinator-heartbeat-thread | orders", Background, "kafka", "kafka-coordinator-heartbeat-thread | orders"},
	{"org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1", RequestWorker, "kafka", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C"},
	{"kafka-scheduler-3", Timer, "kafka", "kafka-scheduler"},
	{"data-plane-kafka-request-handler-0", RequestWorker, "kafka", "data-plane-kafka-request-handler"},
	{"data-plane-kafka-network-thread-1-ListenerName(SSL)-SSL-2", EventLoop, "kafka", "data-plane-kafka-network-thread-1-ListenerName(SSL)-SSL"},
	{"data-plane-kafka-request-handler-7", RequestWorker, "kafka", "data-plane-kafka-request-handler"},
	{"ReplicaFetcherThread-0-1", Background, "kafka", "ReplicaFetcherThread-0"},
	// Dubbo's Netty server (a public jstack walkthrough), Apache
	// HttpAsyncClient's reactor, OkHttp (its sources' thread factories).
	{"NettyServerWorker-3-2", EventLoop, "dubbo", "NettyServerWorker-3"},
	{"I/O dispatcher 1", EventLoop, "apache-httpclient", "I/O dispatcher"},
	{"OkHttp ConnectionPool", Background, "okhttp", "OkHttp ConnectionPool"},
	{"Okio Watchdog", Background, "okhttp", "Okio Watchdog"},
	// The framework dumps of testdata/.
	{"Connector-Scheduler-588ab592-1", Timer, "jetty", "Connector-Scheduler-588ab592"},
	{"HttpClient-1-Worker-12", Background, "jdk-httpclient", "HttpClient-1-Worker"},
	{"parallel-2", Background, "reactor", "parallel"},
	{"boundedElastic-evictor-1", Timer, "reactor", "boundedElastic-evictor"},
	{"grpc-default-boss-ELG-7-1", Acceptor, "grpc", "grpc-default-boss-ELG-7"},
	// Connection pools.
	{"HikariPool-1:housekeeper", DBPool, "hikari", "HikariPool-1 housekeeper"},
	{"HikariPool-1 housekeeper", DBPool, "hikari", "HikariPool-1 housekeeper"},
	{"inventory-pool:connection-adder", DBPool, "hikari", "inventory-pool connection-adder"},
	{"Druid-ConnectionPool-Create-1852353484", DBPool, "druid", "Druid-ConnectionPool-Create"},
	{"C3P0PooledConnectionPoolManager[identityToken->z8kfltbmc1bm1mwy8]-HelperThread-#2", DBPool, "c3p0", "C3P0PooledConnectionPoolManager"},
	// Logging.
	{"AsyncAppender-Worker-ASYNC", Logging, "logback", "AsyncAppender-Worker-ASYNC"},
	{"logback-1", Logging, "logback", "logback"},
	{"Log4j2-TF-1-AsyncLogger[AsyncContext@18b4aac2]-1", Logging, "log4j2", "Log4j2-AsyncLogger"},
	{"Log4j2-TF-1-AsyncLoggerConfig-1", Logging, "log4j2", "Log4j2-AsyncLogger"},
	{"AsyncAppender-Dispatcher-Thread-1", Logging, "log4j1", "AsyncAppender-Dispatcher-Thread"},
	// JDK HttpServer and HttpClient.
	{"HTTP-Dispatcher", EventLoop, "jdk-httpserver", "HTTP-Dispatcher"},
	{"idle-timeout-task", Timer, "jdk-httpserver", "idle-timeout-task"},
	{"HttpClient-1-SelectorManager", EventLoop, "jdk-httpclient", "HttpClient-1-SelectorManager"},
	// Dubbo, WebLogic, WebSphere.
	{"DubboServerHandler-10.0.0.5:20880-thread-12", RequestWorker, "dubbo", "DubboServerHandler-10.0.0.5:20880-thread"},
	{"ExecuteThread: '3' for queue: 'weblogic.kernel.Default'", RequestWorker, "weblogic", "ExecuteThread for queue: 'weblogic.kernel.Default'"},
	{"[ACTIVE] ExecuteThread: '12' for queue: 'weblogic.kernel.Default (self-tuning)'", RequestWorker, "weblogic", "ExecuteThread for queue: 'weblogic.kernel.Default (self-tuning)'"},
	{"ExecuteThread: '0' for queue: 'weblogic.socket.Muxer'", EventLoop, "weblogic", "ExecuteThread for queue: 'weblogic.socket.Muxer'"},
	{"ExecuteThread: '1' for queue: 'JmsDispatcher'", Background, "weblogic", "ExecuteThread for queue: 'JmsDispatcher'"},
	{"ListenThread.Default", Acceptor, "weblogic", "ListenThread.Default"},
	{"WebContainer : 3", RequestWorker, "websphere", "WebContainer"},
	// Spring, Quartz, the JDK's executors.
	{"scheduling-1", Timer, "spring", "scheduling"},
	{"MyScheduler_Worker-3", Timer, "quartz", "MyScheduler_Worker"},
	{"ForkJoinPool.commonPool-worker-3", ForkJoin, "", "ForkJoinPool.commonPool-worker"},
	{"ForkJoinPool-1-worker-1", ForkJoin, "", "ForkJoinPool-1-worker"},
	{"Timer-0", Timer, "", "Timer"},
	{"pool-1-thread-3", Background, "", "pool-1-thread"},
	{"Thread-7", Background, "", "Thread"},
	// Nothing tells.
	{"Worker Thread 3", Unknown, "", "Worker Thread"},
	{"订单处理-线程-3", Unknown, "", "订单处理-线程"},
}

func TestClassifyRealNames(t *testing.T) {
	used := map[string]bool{}
	for _, c := range realNames {
		r := Classify(c.name, nil)
		used[r.Rule] = true
		if r.Kind != c.kind || r.Framework != c.framework || r.Pool != c.pool {
			t.Errorf("%q: %s (framework %q, pool %q, rule %s), want %s (framework %q, pool %q)", c.name, r.Kind, r.Framework, r.Pool, r.Rule, c.kind, c.framework, c.pool)
		}
		if c.kind != Unknown && r.By != "name" {
			t.Errorf("%q: decided by %q", c.name, r.By)
		}
	}
	// Every name entry of the table has a real name above that reaches it
	// (the table carries no entry nothing exercises), but for those only a
	// stack or a dump of testdata/ reaches (see the corpus test).
	untested := map[string]bool{}
	for _, nr := range nameRules {
		if !used[nr.id] {
			untested[nr.id] = true
		}
	}
	t.Logf("name entries without a real name in this table: %d of %d", len(untested), len(nameRules))
	if len(untested) > len(nameRules)/4 {
		t.Errorf("%d of %d name entries have no real name here: %v", len(untested), len(nameRules), untested)
	}
}

// nacosLoop is the stack of alibaba/nacos issue 9289's gRPC event loop:
// Netty shaded twice.
var nacosLoop = []string{
	"sun.nio.ch.EPollArrayWrapper.epollWait", "sun.nio.ch.EPollArrayWrapper.poll", "sun.nio.ch.EPollSelectorImpl.doSelect", "sun.nio.ch.SelectorImpl.lockAndDoSelect",
	"sun.nio.ch.SelectorImpl.select", "com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.SelectedSelectionKeySetSelector.select",
	"com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoop.select",
	"com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoop.run",
}

// The stack decides what a shared name does not say, leaf first or root
// first; real stacks (abridged) from the dumps named.
func TestClassifyStack(t *testing.T) {
	cases := []struct {
		name  string
		stack []string // leaf first
		kind  Kind
		fw    string
	}{
		// A JDK HttpServer on an Executors pool: the executor's thread runs
		// the exchange (zoo dumps).
		{"pool-1-thread-3", []string{
			"java.net.SocketInputStream.socketRead0", "sun.net.httpserver.Request.readLine", "sun.net.httpserver.ServerImpl$Exchange.run",
			"java.util.concurrent.ThreadPoolExecutor.runWorker", "java.util.concurrent.ThreadPoolExecutor$Worker.run", "java.lang.Thread.run",
		}, RequestWorker, "jdk-httpserver"},
		// No executor: the dispatcher runs the handler itself, it stays the
		// event loop even blocked in it.
		{"HTTP-Dispatcher", []string{
			"java.lang.Thread.sleep", "Handler.handle", "sun.net.httpserver.ServerImpl$Exchange.run", "sun.net.httpserver.ServerImpl$Dispatcher.handle",
			"sun.net.httpserver.ServerImpl$Dispatcher.run", "java.lang.Thread.run",
		}, EventLoop, "jdk-httpserver"},
		// Vert.x event loops are Netty's: the name's framework stays.
		{"vert.x-eventloop-thread-0", []string{
			"sun.nio.ch.KQueue.poll", "sun.nio.ch.SelectorImpl.select", "io.netty.channel.nio.NioEventLoop.select",
			"io.netty.channel.nio.NioEventLoop.run", "io.netty.util.concurrent.SingleThreadEventExecutor$4.run",
		}, EventLoop, "vertx"},
		// An application-named Netty loop.
		{"JPS event loop", []string{"sun.nio.ch.EPollArrayWrapper.epollWait", "io.netty.channel.nio.NioEventLoop.run", "java.lang.Thread.run"}, EventLoop, "netty"},
		// Jetty qtp threads: selector, acceptor, request (deephaven-core
		// issue 4040; jetty.project issues 2468, 6059).
		{"qtp903383636-80", []string{
			"sun.nio.ch.EPoll.wait", "sun.nio.ch.SelectorImpl.select", "org.eclipse.jetty.io.ManagedSelector.nioSelect",
			"org.eclipse.jetty.io.ManagedSelector.select", "org.eclipse.jetty.io.ManagedSelector$SelectorProducer.select",
		}, EventLoop, "jetty"},
		{"qtp1-11", []string{"sun.nio.ch.ServerSocketChannelImpl.accept0", "org.eclipse.jetty.server.ServerConnector.accept", "org.eclipse.jetty.server.AbstractConnector$Acceptor.run"}, Acceptor, "jetty"},
		{"qtp2056418216-11752", []string{"sun.misc.Unsafe.park", "org.eclipse.jetty.util.BlockingArrayQueue.poll", "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll"}, RequestWorker, "jetty"},
		// A Tomcat worker idle on its connector's queue, named by the app.
		{"catalina-exec-1", []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.LinkedBlockingQueue.take", "org.apache.tomcat.util.threads.TaskQueue.take"}, RequestWorker, "tomcat"},
		// Hikari's housekeeper runs on a scheduler: the pool decides.
		{"pool-9-thread-1", []string{"com.zaxxer.hikari.pool.HikariPool$HouseKeeper.run", "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run"}, DBPool, "hikari"},
		// A timer thread of the application (zoo).
		{"metrics-scheduler-1", []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take", "java.util.concurrent.ThreadPoolExecutor.getTask"}, Timer, ""},
		// A virtual thread carrier (jdk25_virtual_jcmd.txt) and an idle one.
		{"ForkJoinPool-1-worker-1", []string{"jdk.internal.vm.Continuation.run", "java.lang.VirtualThread.runContinuation", "java.util.concurrent.ForkJoinWorkerThread.run"}, VirtualCarrier, ""},
		{"ForkJoinPool-1-worker-2", []string{"java.util.concurrent.ForkJoinPool.awaitWork", "java.util.concurrent.ForkJoinPool.runWorker", "java.util.concurrent.ForkJoinWorkerThread.run"}, ForkJoin, ""},
		// Frames with sources, as some dumps keep them.
		{"worker-7", []string{"ch.qos.logback.core.AsyncAppenderBase$Worker.run(AsyncAppenderBase.java:264)"}, Logging, "logback"},
		// A strong name wins over the stack: a Tomcat poller stays one.
		{"http-nio-8080-Poller", []string{"sun.nio.ch.EPoll.wait", "org.apache.tomcat.util.net.NioEndpoint$Poller.run"}, EventLoop, "tomcat"},
		// gRPC's event loops and executor in public dumps: buildfarm/buildfarm
		// issue 839 (JDK 15), alibaba/nacos issue 9289 (Netty shaded twice),
		// bazelbuild/bazel issue 8432, grpc/grpc-java issue 1685, alibaba/nacos
		// issue 8781.
		{"grpc-nio-worker-ELG-3-2", []string{
			"sun.nio.ch.EPoll.wait", "sun.nio.ch.EPollSelectorImpl.doSelect", "io.netty.channel.nio.NioEventLoop.select", "io.netty.channel.nio.NioEventLoop.run",
			"io.netty.util.concurrent.SingleThreadEventExecutor$4.run", "io.netty.util.internal.ThreadExecutorMap$2.run", "io.netty.util.concurrent.FastThreadLocalRunnable.run",
		}, EventLoop, "grpc"},
		{"grpc-nio-worker-ELG-1-1", nacosLoop, EventLoop, "grpc"},
		// The same frames under a name no entry knows: the shaded frame decides.
		{"app-loop", nacosLoop, EventLoop, "netty"},
		{"grpc-default-worker-ELG-3-23", []string{"sun.nio.ch.EPoll.wait", "io.netty.channel.nio.NioEventLoop.run", "io.netty.util.concurrent.SingleThreadEventExecutor$5.run"}, EventLoop, "grpc"},
		{"grpc-default-executor-0", []string{
			"sun.misc.Unsafe.park", "java.util.concurrent.SynchronousQueue.poll", "java.util.concurrent.ThreadPoolExecutor.getTask",
			"java.util.concurrent.ThreadPoolExecutor.runWorker",
		}, RequestWorker, "grpc"},
		// A frame of a class whose name merely holds a library's: not shaded.
		{"copier", []string{"com.example.io.netty.channel.nio.NioEventLoop.run"}, Background, ""},
		// OpenJ9's javacore form, slashes and all.
		{"pool-4-thread-1", []string{"java/lang/Object.wait", "sun/net/httpserver/ServerImpl$Exchange.run(ServerImpl.java:700)", "java/lang/Thread.run"}, RequestWorker, "jdk-httpserver"},
		// Application code only: background.
		{"order-writer", []string{"java.io.FileOutputStream.writeBytes", "OrderJournal.write", "java.lang.Thread.run"}, Background, ""},
	}
	for _, c := range cases {
		r := Classify(c.name, c.stack)
		if r.Kind != c.kind || r.Framework != c.fw {
			t.Errorf("%q: %+v, want %s/%s", c.name, r, c.kind, c.fw)
		}
		root := make([]string, len(c.stack))
		for i, f := range c.stack {
			root[len(c.stack)-1-i] = f
		}
		if r2 := ClassifyRootFirst(c.name, root); r2 != r {
			t.Errorf("%q root first: %+v, leaf first %+v", c.name, r2, r)
		}
	}
}

// Names as /proc/PID/task/TID/comm holds them, cut to 15 bytes.
func TestClassifyComm(t *testing.T) {
	cases := []struct {
		comm string
		kind Kind
		fw   string
	}{
		{"C2 CompilerThre", JIT, "hotspot"},
		{"C1 CompilerThre", JIT, "hotspot"},
		{"JIT Compilation", JIT, "openj9"},
		{"GC Thread#0", GC, "hotspot"},
		{"G1 Conc#0", GC, "hotspot"},
		{"G1 Main Marker", GC, "hotspot"},
		{"G1 Young RemSet", GC, "hotspot"},
		{"VM Thread", VM, ""},
		{"VM Periodic Tas", VM, ""},
		{"Reference Handl", VM, ""},
		{"Signal Dispatch", VM, ""},
		{"Monitor Deflati", VM, ""},
		{"Notification Th", VM, ""},
		{"JFR Recorder Th", JFR, ""},
		{"Attach Listener", Attach, ""},
		{"http-nio-8080-e", RequestWorker, "tomcat"},
		{"http-nio-8080-A", Acceptor, "tomcat"},
		{"http-nio-8080-P", EventLoop, "tomcat"},
		{"vert.x-eventloo", EventLoop, "vertx"},
		{"nioEventLoopGro", EventLoop, "netty"},
		{"kafka-producer-", EventLoop, "kafka"},
		{"HikariPool-1 ho", DBPool, "hikari"},
		{"ForkJoinPool.co", ForkJoin, ""},
		{"java", Main, ""},
		{"spinner", Unknown, ""},
	}
	for _, c := range cases {
		if len(c.comm) > CommLen {
			t.Fatalf("%q is longer than a comm", c.comm)
		}
		r := ClassifyComm(c.comm)
		if r.Kind != c.kind || r.Framework != c.fw {
			t.Errorf("comm %q: %+v, want %s/%s", c.comm, r, c.kind, c.fw)
		}
	}
	// Every real name of the table, cut as the kernel cuts it, lands on a
	// role its full name could have: JVM threads stay the JVM's.
	for _, c := range realNames {
		comm := cut(c.name)
		r := ClassifyComm(comm)
		if c.kind.Internal() && !r.Kind.Internal() {
			t.Errorf("%q cut to %q: %s, want a JVM role (%s)", c.name, comm, r.Kind, c.kind)
		}
		if len(c.name) < CommLen && r.Kind != c.kind && c.name != "java" {
			t.Errorf("%q (not cut): %s, want %s", c.name, r.Kind, c.kind)
		}
	}
}

// cut is name as the kernel keeps it: its first 15 bytes.
func cut(name string) string {
	if len(name) > CommLen {
		return name[:CommLen]
	}
	return name
}

func TestPoolName(t *testing.T) {
	for in, want := range map[string]string{
		"http-nio-8080-exec-12": "http-nio-8080-exec", "nioEventLoopGroup-3-1": "nioEventLoopGroup-3", "GC Thread#2": "GC Thread",
		"C2 CompilerThread0": "C2 CompilerThread", "WebContainer : 3": "WebContainer", "main": "main", "42": "42", "": "",
		"pool-1-thread-3": "pool-1-thread", "Worker Thread 3": "Worker Thread", "G1 Conc#0": "G1 Conc",
	} {
		if got := PoolName(in); got != want {
			t.Errorf("PoolName(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, c := range realNames {
		f.Add(c.name, "java.lang.Thread.run")
	}
	f.Add("http-nio-8080-e", "sun.net.httpserver.ServerImpl$Exchange.run\njava.lang.Thread.run")
	f.Fuzz(func(t *testing.T, name, stack string) {
		frames := strings.Split(stack, "\n")
		r := Classify(name, frames)
		known := false
		for _, k := range Kinds {
			known = known || r.Kind == k
		}
		if !known {
			t.Fatalf("%q: kind %q", name, r.Kind)
		}
		if name != "" && r.Pool == "" {
			t.Fatalf("%q: no pool", name)
		}
		// A name the kernel keeps whole classifies as itself.
		if utf8.ValidString(name) && len(name) < CommLen && !strings.Contains(name, "\n") && name != "java" {
			if c, n := ClassifyComm(name), Classify(name, nil); c != n {
				t.Fatalf("%q: comm %+v, name %+v", name, c, n)
			}
		}
		_ = ClassifyComm(cut(name))
		_ = ClassifyRootFirst(name, frames)
	})
}

func BenchmarkClassify(b *testing.B) {
	stack := []string{
		"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park", "java.util.concurrent.LinkedBlockingQueue.take",
		"java.util.concurrent.ThreadPoolExecutor.getTask", "java.util.concurrent.ThreadPoolExecutor.runWorker",
		"java.util.concurrent.ThreadPoolExecutor$Worker.run", "java.lang.Thread.run",
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Classify("pool-3-thread-7", stack)
	}
}

func BenchmarkClassifyComm(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ClassifyComm("http-nio-8080-e")
	}
}
