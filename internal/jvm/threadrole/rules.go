package threadrole

// The two tables every classification reads: thread names and stack
// frames, each entry a kind and the framework behind it. Order is
// precedence: the first entry that matches wins, so specific entries come
// before generic ones. Names and frames are as JDK 8-25 (HotSpot, OpenJ9)
// and the libraries print them; where an entry comes from is in its comment.

// nameRule classifies a thread by its name.
type nameRule struct {
	id        string // short, for Role.Rule
	re        string // regular expression over the whole name (anchored where it should be)
	kind      Kind
	framework string
	// pool, when set, is the pool's name as an expansion of re's submatches
	// ("$1"); else the name with its trailing thread number stripped.
	pool string
	// weak: the name is shared by pools of any role (an Executors default
	// "pool-1-thread-3", "Thread-7", a custom ForkJoinPool), so a stack entry
	// overrides it.
	weak bool
}

// stackRule classifies a thread by a frame anywhere in its stack: a
// thread's entry loop (NioEventLoop.run) or a frame only one role runs.
type stackRule struct {
	id        string
	frames    []string // prefixes of "pkg.Class.method"
	kind      Kind
	framework string
}

// Tomcat's endpoint names: "http-nio-8080", "https-jsse-nio-127.0.0.1-8443",
// "ajp-nio2-0:0:0:0:0:0:0:1-8009" (protocol, endpoint, address, port;
// AbstractProtocol.getName). The address holds no '-', so a name cut to 15
// bytes ("http-nio-8080-e") still tells an exec thread from the Acceptor.
const tomcatEndpoint = `(?:https?|ajp|h2c?|wss?)(?:-jsse|-openssl)?-(?:nio2|nio|apr|bio)-(?:[0-9a-fA-F.:%\[\]]+-)?\d+`

var nameRules = []nameRule{
	// --- JIT compilers (HotSpot C1/C2, Graal/JVMCI; OpenJ9).
	{id: "hotspot-compiler", re: `^C[12] CompilerThread\d+$`, kind: JIT, framework: "hotspot"},
	{id: "jvmci-compiler", re: `^(?:JVMCI(?:-native)? )?CompilerThread\d+$`, kind: JIT, framework: "hotspot"},
	{id: "j9-jit-compilation", re: `^JIT (Diagnostic )?Compilation Thread-\d+(?: Suspended)?$`, kind: JIT, framework: "openj9", pool: "JIT ${1}Compilation Thread"},
	{id: "j9-jit-helper", re: `^(?:JIT-SamplerThread|JIT IProfiler|IProfiler|JIT-DLT.*|JIT-Deadlock.*)$`, kind: JIT, framework: "openj9"},
	// --- Garbage collectors. HotSpot: "GC Thread#0", "G1 Main Marker",
	// "G1 Conc#0", "G1 Refine#0", "G1 Service", JDK 8 "GC task thread#0
	// (ParallelGC)", "Gang worker#0 (Parallel GC Threads)"; ZGC, Shenandoah.
	{id: "hotspot-gc", re: `^(?:GC Thread#\d+|ParGC Thread#\d+|G1 .+|GC task thread#\d+ \(.*\)?|Gang worker#\d+.*|Concurrent Mark-Sweep GC Thread|CMS .+|Surrogate Locker Thread.*|Shenandoah .+|Z(?:Director|Driver|Stat|Uncommitter|Unmapper|Worker|RuntimeWorker|Relocate|Mark)\w*(?:#\d+)?)$`, kind: GC, framework: "hotspot"},
	// OpenJ9: "GC Slave" (before 0.15), "GC Worker", "Concurrent Mark Helper".
	{id: "j9-gc", re: `^(?:GC (?:Slave|Worker|Main)|Concurrent Mark Helper|Concurrent Scavenger.*)(?: \d+)?$`, kind: GC, framework: "openj9"},
	// --- JDK Flight Recorder.
	{id: "jfr", re: `^(?:JFR |VM JFR |Java Flight Recorder).*$`, kind: JFR},
	// --- Attach, JMX over RMI, JDWP: tools looking at the JVM.
	{id: "attach", re: `^(?:Attach Listener|Attach API .*|Attach handler.*)$`, kind: Attach},
	{id: "jmx-rmi-connection", re: `^RMI TCP Connection\(.*$`, kind: Attach, framework: "jmx", pool: "RMI TCP Connection"},
	{id: "jmx-rmi", re: `^(?:RMI TCP Accept-\d+|RMI Scheduler\(\d+\)|RMI RenewClean-.*|RMI Reaper|GC Daemon|JMX server connection timeout \d+|JMX client heartbeat \d+)$`, kind: Attach, framework: "jmx"},
	{id: "jdwp", re: `^JDWP .*$`, kind: Attach, framework: "jdwp"},
	// --- The VM's and the JDK's own threads.
	{id: "vm", re: `^(?:VM Thread|VM Periodic Task Thread|Signal Dispatcher|Signal dispatcher|Signal Reporter|Finalizer|Finalizer master|Finalizer worker.*|Reference Handler|Common-Cleaner|Cleaner-\d+|Service Thread|Sweeper thread|Monitor Deflation Thread|Notification Thread|Low Memory Detector|DestroyJavaVM|process reaper|VirtualThread-unparker|VirtualThread-unblocker|InnocuousThread-\d+|ClassCache Reclaimer|MemoryMXBean notification dispatcher|Dump Helper|Java2D Disposer|Thread-Mutex-Monitor|Verification Thread|Suspend Checker Thread)$`, kind: VM},
	// --- main.
	{id: "main", re: `^main$`, kind: Main},
	{id: "quarkus-main", re: `^Quarkus Main Thread$`, kind: Main, framework: "quarkus"},

	// --- Tomcat (also inside Spring Boot): connector threads.
	{id: "tomcat-acceptor", re: `^` + tomcatEndpoint + `-Acceptor(?:-\d+)?$`, kind: Acceptor, framework: "tomcat"},
	{id: "tomcat-poller", re: `^` + tomcatEndpoint + `-(?:Client)?Poller(?:-\d+)?$`, kind: EventLoop, framework: "tomcat"},
	{id: "tomcat-blockpoller", re: `^(?:` + tomcatEndpoint + `-BlockPoller|NioBlockingSelector\.BlockPoller-\d+)$`, kind: EventLoop, framework: "tomcat"},
	{id: "tomcat-asynctimeout", re: `^` + tomcatEndpoint + `-AsyncTimeout$`, kind: Timer, framework: "tomcat"},
	{id: "tomcat-exec", re: `^` + tomcatEndpoint + `-exec-\d+$`, kind: RequestWorker, framework: "tomcat"},
	{id: "tomcat-catalina-exec", re: `^catalina-exec-\d+$`, kind: RequestWorker, framework: "tomcat"},
	{id: "tomcat-utility", re: `^(?:Catalina-utility-\d+|ContainerBackgroundProcessor\[.*\])$`, kind: Timer, framework: "tomcat"},
	// --- Jetty: QueuedThreadPool "qtp<hash>-<n>" threads take every role
	// in turn (selector, acceptor, request), so the stack decides; Jetty 9
	// renames acceptor and selector threads while they act.
	{id: "jetty-acceptor", re: `^(.*?)-\d+-acceptor-\d+@[0-9a-f]+-.*$`, kind: Acceptor, framework: "jetty", pool: "$1-acceptor"},
	{id: "jetty-selector", re: `^(.*?)-\d+-selector-\w*Manager@[0-9a-f]+/\d+$`, kind: EventLoop, framework: "jetty", pool: "$1-selector"},
	{id: "jetty-qtp", re: `^qtp\d+-\d+$`, kind: RequestWorker, framework: "jetty", weak: true},
	{id: "jetty-scheduler", re: `^(?:Scheduler-\d+(?:-\d+)?|Connector-Scheduler-.*)$`, kind: Timer, framework: "jetty"},
	// --- Undertow (XNIO), WildFly.
	{id: "undertow-io", re: `^XNIO-\d+ I/O-\d+$`, kind: EventLoop, framework: "undertow"},
	{id: "undertow-accept", re: `^XNIO-\d+ Accept$`, kind: Acceptor, framework: "undertow"},
	{id: "undertow-task", re: `^(?:XNIO-\d+ task-\d+|default task-\d+)$`, kind: RequestWorker, framework: "undertow"},
	// --- Vert.x, Quarkus.
	{id: "vertx-eventloop", re: `^vert\.x-eventloop-thread-\d+$`, kind: EventLoop, framework: "vertx"},
	{id: "vertx-acceptor", re: `^vert\.x-acceptor-thread-\d+$`, kind: Acceptor, framework: "vertx"},
	{id: "vertx-worker", re: `^vert\.x-worker-thread-\d+$`, kind: RequestWorker, framework: "vertx"},
	{id: "vertx-internal", re: `^vert\.x-internal-blocking-\d+$`, kind: Background, framework: "vertx"},
	{id: "vertx-checker", re: `^vertx-blocked-thread-checker$`, kind: Timer, framework: "vertx"},
	{id: "quarkus-executor", re: `^executor-thread-\d+$`, kind: RequestWorker, framework: "quarkus"},
	// --- gRPC (its Netty transport names its event loops itself).
	{id: "grpc-boss", re: `^grpc-(?:nio|epoll|default)-boss-ELG-\d+-\d+$`, kind: Acceptor, framework: "grpc"},
	{id: "grpc-worker", re: `^grpc-(?:nio|epoll|default)-worker-ELG-\d+-\d+$`, kind: EventLoop, framework: "grpc"},
	{id: "grpc-executor", re: `^grpc-default-executor-\d+$`, kind: RequestWorker, framework: "grpc"},
	{id: "grpc-timer", re: `^grpc-timer-\d+$`, kind: Timer, framework: "grpc"},
	{id: "grpc-other", re: `^grpc-(?:shared-destroyer|okhttp)-\d+$`, kind: Background, framework: "grpc"},
	// --- Reactor Netty (Spring WebFlux, Spring Cloud Gateway) and Reactor.
	{id: "reactor-netty", re: `^reactor-(?:http|tcp|udp)-(?:nio|epoll|kqueue|io_uring|server-select|server-epoll|client-epoll)-\d+$`, kind: EventLoop, framework: "reactor"},
	// Reactor's Schedulers: parallel() and boundedElastic() are
	// ScheduledThreadPoolExecutors, so the name, not the idle stack, tells.
	{id: "reactor-evictor", re: `^(?:boundedElastic|elastic)-evictor-\d+$`, kind: Timer, framework: "reactor"},
	{id: "reactor-scheduler", re: `^(?:boundedElastic|elastic|parallel|single)-\d+$`, kind: Background, framework: "reactor"},
	// --- Netty (DefaultThreadFactory: "<pool type>-<pool>-<thread>").
	{id: "netty-eventloop", re: `^(?:nio|epoll|kqueue|ioUring|multiThreadIo|default)EventLoopGroup-\d+-\d+$`, kind: EventLoop, framework: "netty"},
	{id: "netty-executor", re: `^defaultEventExecutorGroup-\d+-\d+$`, kind: RequestWorker, framework: "netty"},
	{id: "netty-other", re: `^(?:globalEventExecutor-\d+-\d+|threadDeathWatcher-\d+-\d+|ObjectCleanerThread)$`, kind: Background, framework: "netty"},
	// --- Kafka: clients, Spring Kafka listeners, the broker.
	{id: "kafka-producer", re: `^kafka-producer-network-thread \| .*$`, kind: EventLoop, framework: "kafka"},
	{id: "kafka-admin", re: `^kafka-admin-client-thread \| .*$`, kind: EventLoop, framework: "kafka"},
	{id: "kafka-heartbeat", re: `^kafka-coordinator-heartbeat-thread \| .*$`, kind: Background, framework: "kafka"},
	{id: "spring-kafka-listener", re: `^(.*KafkaListenerEndpointContainer#.*-C)-\d+$`, kind: RequestWorker, framework: "kafka", pool: "$1"},
	{id: "kafka-broker-handler", re: `^(?:data-plane-)?kafka-request-handler-\d+$`, kind: RequestWorker, framework: "kafka"},
	{id: "kafka-broker-network", re: `^(?:data-plane-)?kafka-network-thread-.*$`, kind: EventLoop, framework: "kafka"},
	{id: "kafka-broker-acceptor", re: `^(?:data-plane-)?kafka-socket-acceptor-.*$`, kind: Acceptor, framework: "kafka"},
	{id: "kafka-scheduler", re: `^(?:kafka-scheduler-\d+|ExpirationReaper-.*)$`, kind: Timer, framework: "kafka"},
	{id: "kafka-broker-background", re: `^(?:ReplicaFetcherThread-.*|kafka-log-cleaner-thread-\d+|LogDirFailureHandler|controller-event-thread)$`, kind: Background, framework: "kafka"},
	// --- JDBC connection pools and drivers.
	{id: "hikari-default", re: `^(HikariPool-\d+)[: ](housekeeper|connection[- ]adder|connection[- ]closer)$`, kind: DBPool, framework: "hikari", pool: "$1 $2"},
	{id: "hikari", re: `^(.*)[: ](housekeeper|connection[- ]adder|connection[- ]closer)$`, kind: DBPool, framework: "hikari", pool: "$1 $2"},
	{id: "druid", re: `^Druid-ConnectionPool-(?:Create|Destroy|Log)-\d+$`, kind: DBPool, framework: "druid"},
	{id: "c3p0", re: `^(?:C3P0PooledConnectionPoolManager|com\.mchange\.v2\.async\.ThreadPoolAsynchronousRunner).*$`, kind: DBPool, framework: "c3p0", pool: "C3P0PooledConnectionPoolManager"},
	{id: "commons-pool", re: `^commons-pool-(?:evictor|EvictionTimer).*$`, kind: DBPool, framework: "commons-pool"},
	{id: "mysql-cleanup", re: `^(?:mysql-cj-abandoned-connection-cleanup|Abandoned connection cleanup thread)$`, kind: DBPool, framework: "mysql"},
	// --- Logging: asynchronous appenders' and loggers' own threads.
	{id: "logback-async", re: `^AsyncAppender-Worker-.*$`, kind: Logging, framework: "logback"},
	{id: "logback-context", re: `^logback-\d+$`, kind: Logging, framework: "logback"},
	{id: "log4j1-async", re: `^AsyncAppender-Dispatcher-Thread-\d+$`, kind: Logging, framework: "log4j1"},
	{id: "log4j2-async", re: `^Log4j2-TF-\d+-(?:AsyncLogger|AsyncLoggerConfig|AsyncAppender).*$`, kind: Logging, framework: "log4j2", pool: "Log4j2-AsyncLogger"},
	{id: "log4j2-other", re: `^(?:Log4j2-TF-\d+-.*|AsyncAppender-\D.*)$`, kind: Logging, framework: "log4j2"},
	// --- JDK HttpServer, JDK HttpClient, OkHttp, Apache HttpAsyncClient.
	{id: "jdk-httpserver-dispatcher", re: `^HTTP-Dispatcher$`, kind: EventLoop, framework: "jdk-httpserver"},
	{id: "jdk-httpserver-timer", re: `^(?:idle-timeout-task|server-timer)$`, kind: Timer, framework: "jdk-httpserver"},
	{id: "jdk-httpclient-selector", re: `^HttpClient-\d+-SelectorManager$`, kind: EventLoop, framework: "jdk-httpclient"},
	{id: "jdk-httpclient-worker", re: `^HttpClient-\d+-Worker-\d+$`, kind: Background, framework: "jdk-httpclient"},
	{id: "okhttp", re: `^(?:OkHttp .*|Okio Watchdog)$`, kind: Background, framework: "okhttp"},
	{id: "apache-httpasyncclient", re: `^I/O dispatcher \d+$`, kind: EventLoop, framework: "apache-httpclient"},
	// --- Dubbo.
	{id: "dubbo-handler", re: `^(DubboServerHandler-.*-thread)-\d+$`, kind: RequestWorker, framework: "dubbo", pool: "$1"},
	{id: "dubbo-worker", re: `^NettyServerWorker-\d+-\d+$`, kind: EventLoop, framework: "dubbo"},
	{id: "dubbo-boss", re: `^NettyServerBoss-\d+-\d+$`, kind: Acceptor, framework: "dubbo"},
	{id: "dubbo-client", re: `^DubboClientHandler-.*$`, kind: Background, framework: "dubbo"},
	// --- WebLogic, WebSphere (traditional and Liberty).
	{id: "weblogic-muxer", re: `^(?:\[\w+\] )?ExecuteThread: '\d+' for queue: '(weblogic\.socket\.Muxer)'.*$`, kind: EventLoop, framework: "weblogic", pool: "ExecuteThread for queue: '$1'"},
	{id: "weblogic-default", re: `^(?:\[\w+\] )?ExecuteThread: '\d+' for queue: '(weblogic\.kernel\.Default(?: \(self-tuning\))?|default)'.*$`, kind: RequestWorker, framework: "weblogic", pool: "ExecuteThread for queue: '$1'"},
	{id: "weblogic-other", re: `^(?:\[\w+\] )?ExecuteThread: '\d+' for queue: '([^']*)'.*$`, kind: Background, framework: "weblogic", pool: "ExecuteThread for queue: '$1'"},
	{id: "weblogic-listen", re: `^ListenThread(?:\..*)?$`, kind: Acceptor, framework: "weblogic"},
	{id: "weblogic-timer", re: `^(?:weblogic\.time\.TimeEventGenerator|HighPriority TimeEventGenerator|TimeEventGenerator)$`, kind: Timer, framework: "weblogic"},
	{id: "websphere-webcontainer", re: `^WebContainer : \d+$`, kind: RequestWorker, framework: "websphere"},
	{id: "liberty-executor", re: `^Default Executor-thread-\d+$`, kind: RequestWorker, framework: "websphere"},
	// --- Spring's own pools.
	{id: "spring-scheduling", re: `^(?:scheduling|taskScheduler|ThreadPoolTaskScheduler)-\d+$`, kind: Timer, framework: "spring"},
	{id: "spring-task", re: `^(?:task|SimpleAsyncTaskExecutor|applicationTaskExecutor)-\d+$`, kind: Background, framework: "spring", weak: true},
	{id: "spring-shutdown", re: `^SpringApplicationShutdownHook$`, kind: Background, framework: "spring"},
	{id: "spring-boot-tomcat-await", re: `^container-\d+$`, kind: Background, framework: "tomcat"},
	// --- Quartz.
	{id: "quartz", re: `^.*(?:_Worker-\d+|_QuartzSchedulerThread)$`, kind: Timer, framework: "quartz"},
	// --- The JDK's own executors: ForkJoin (common and custom) and timers.
	{id: "forkjoin-common", re: `^ForkJoinPool\.commonPool-worker-\d+$`, kind: ForkJoin},
	// A custom ForkJoinPool's and the virtual-thread scheduler's workers
	// share this name: the stack tells a carrier (runContinuation).
	{id: "forkjoin-custom", re: `^ForkJoinPool-\d+-worker-\d+$`, kind: ForkJoin, weak: true},
	{id: "java-util-timer", re: `^Timer-\d+$`, kind: Timer},
	// --- Executors.defaultThreadFactory() and new Thread(): any role.
	{id: "executors-default", re: `^pool-\d+-thread-\d+$`, kind: Background, weak: true},
	{id: "thread-default", re: `^Thread-\d+$`, kind: Background, weak: true},
}

var stackRules = []stackRule{
	// A carrier of a virtual thread: the continuation runs on it.
	{id: "virtual-carrier", frames: []string{"java.lang.VirtualThread.runContinuation", "jdk.internal.vm.Continuation.run"}, kind: VirtualCarrier},
	// JDK HttpServer: the dispatcher (its selector loop) runs the handlers
	// itself when no executor is set; an executor's thread runs Exchange.
	{id: "jdk-httpserver-dispatcher", frames: []string{"sun.net.httpserver.ServerImpl$Dispatcher.run"}, kind: EventLoop, framework: "jdk-httpserver"},
	{id: "jdk-httpserver-exchange", frames: []string{"sun.net.httpserver.ServerImpl$Exchange.run"}, kind: RequestWorker, framework: "jdk-httpserver"},
	// Netty event loops (4.0-4.2 transports); a handler blocking inside
	// still leaves the thread an event loop.
	{id: "netty-eventloop", frames: []string{
		"io.netty.channel.nio.NioEventLoop.run", "io.netty.channel.epoll.EpollEventLoop.run",
		"io.netty.channel.kqueue.KQueueEventLoop.run", "io.netty.channel.SingleThreadIoEventLoop.run",
		"io.netty.incubator.channel.uring.IOUringEventLoop.run", "io.netty.channel.ThreadPerChannelEventLoop.run",
		"io.netty.channel.DefaultEventLoop.run",
	}, kind: EventLoop, framework: "netty"},
	{id: "netty-executor", frames: []string{"io.netty.util.concurrent.DefaultEventExecutor.run"}, kind: RequestWorker, framework: "netty"},
	// Tomcat: the poller, the acceptor, the worker (running a request, or
	// idle on the connector's own TaskQueue).
	{id: "tomcat-poller", frames: []string{
		"org.apache.tomcat.util.net.NioEndpoint$Poller.run", "org.apache.tomcat.util.net.AprEndpoint$Poller.run",
		"org.apache.tomcat.util.net.NioBlockingSelector$BlockPoller.run",
	}, kind: EventLoop, framework: "tomcat"},
	{id: "tomcat-acceptor", frames: []string{
		"org.apache.tomcat.util.net.Acceptor.run", "org.apache.tomcat.util.net.NioEndpoint$Acceptor.run",
		"org.apache.tomcat.util.net.JIoEndpoint$Acceptor.run", "org.apache.tomcat.util.net.Nio2Endpoint$Acceptor.run",
		"org.apache.tomcat.util.net.AprEndpoint$Acceptor.run",
	}, kind: Acceptor, framework: "tomcat"},
	{id: "tomcat-worker", frames: []string{
		"org.apache.tomcat.util.net.SocketProcessorBase.run", "org.apache.tomcat.util.net.JIoEndpoint$SocketProcessor.run",
		"org.apache.tomcat.util.net.NioEndpoint$SocketProcessor.run", "org.apache.tomcat.util.threads.TaskQueue.take",
		"org.apache.tomcat.util.threads.TaskQueue.poll",
	}, kind: RequestWorker, framework: "tomcat"},
	// Jetty: a pool thread handling a request (it may have been the selector
	// a moment before: the request decides), else selecting or accepting.
	{id: "jetty-request", frames: []string{
		"org.eclipse.jetty.server.HttpChannel.handle", "org.eclipse.jetty.server.HttpConnection.onFillable",
		"org.eclipse.jetty.server.internal.HttpChannelState$HandlerInvoker.run", "org.eclipse.jetty.server.internal.HttpConnection.onFillable",
	}, kind: RequestWorker, framework: "jetty"},
	{id: "jetty-selector", frames: []string{"org.eclipse.jetty.io.ManagedSelector", "org.eclipse.jetty.io.SelectorManager$ManagedSelector"}, kind: EventLoop, framework: "jetty"},
	{id: "jetty-acceptor", frames: []string{"org.eclipse.jetty.server.AbstractConnector$Acceptor.run"}, kind: Acceptor, framework: "jetty"},
	// Undertow: XNIO I/O threads (non-blocking handlers run there), then
	// worker threads running a dispatched exchange.
	{id: "undertow-io", frames: []string{"org.xnio.nio.WorkerThread.run"}, kind: EventLoop, framework: "undertow"},
	{id: "undertow-exchange", frames: []string{"io.undertow.server.HttpServerExchange$1.run", "io.undertow.server.Connectors.executeRootHandler"}, kind: RequestWorker, framework: "undertow"},
	// gRPC server calls on the application executor.
	{id: "grpc-server-call", frames: []string{"io.grpc.internal.ServerImpl$JumpToApplicationThreadServerStreamListener", "io.grpc.internal.ServerImpl$ServerTransportListenerImpl$"}, kind: RequestWorker, framework: "grpc"},
	// Kafka: producer I/O, consumer heartbeat, Spring Kafka listeners, broker.
	{id: "kafka-producer", frames: []string{"org.apache.kafka.clients.producer.internals.Sender.run"}, kind: EventLoop, framework: "kafka"},
	{id: "kafka-heartbeat", frames: []string{"org.apache.kafka.clients.consumer.internals.AbstractCoordinator$HeartbeatThread.run"}, kind: Background, framework: "kafka"},
	{id: "spring-kafka-listener", frames: []string{"org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer.run"}, kind: RequestWorker, framework: "kafka"},
	{id: "kafka-broker-processor", frames: []string{"kafka.network.Processor.run"}, kind: EventLoop, framework: "kafka"},
	{id: "kafka-broker-acceptor", frames: []string{"kafka.network.Acceptor.run", "kafka.network.DataPlaneAcceptor.run"}, kind: Acceptor, framework: "kafka"},
	{id: "kafka-broker-handler", frames: []string{"kafka.server.KafkaRequestHandler.run"}, kind: RequestWorker, framework: "kafka"},
	// Connection pools' own threads (a request thread borrowing a
	// connection runs none of these).
	{id: "hikari", frames: []string{"com.zaxxer.hikari.pool.HikariPool$HouseKeeper.run", "com.zaxxer.hikari.pool.HikariPool$PoolEntryCreator.call"}, kind: DBPool, framework: "hikari"},
	{id: "druid", frames: []string{"com.alibaba.druid.pool.DruidDataSource$CreateConnectionThread.run", "com.alibaba.druid.pool.DruidDataSource$DestroyConnectionThread.run", "com.alibaba.druid.pool.DruidDataSource$DestroyTask.run"}, kind: DBPool, framework: "druid"},
	{id: "c3p0", frames: []string{"com.mchange.v2.async.ThreadPoolAsynchronousRunner$PoolThread.run"}, kind: DBPool, framework: "c3p0"},
	{id: "commons-pool", frames: []string{"org.apache.commons.pool2.impl.BaseGenericObjectPool$Evictor.run", "org.apache.commons.pool.impl.GenericObjectPool$Evictor.run"}, kind: DBPool, framework: "commons-pool"},
	{id: "mysql-cleanup", frames: []string{"com.mysql.cj.jdbc.AbandonedConnectionCleanupThread.run", "com.mysql.jdbc.AbandonedConnectionCleanupThread.run"}, kind: DBPool, framework: "mysql"},
	// Asynchronous logging threads.
	{id: "logback-async", frames: []string{"ch.qos.logback.core.AsyncAppenderBase$Worker.run"}, kind: Logging, framework: "logback"},
	{id: "log4j1-async", frames: []string{"org.apache.log4j.AsyncAppender$Dispatcher.run"}, kind: Logging, framework: "log4j1"},
	{id: "log4j2-async", frames: []string{"org.apache.logging.log4j.core.appender.AsyncAppender$AsyncThread.run", "org.apache.logging.log4j.core.appender.AsyncAppenderEventDispatcher.run", "org.apache.logging.log4j.core.async.RingBufferLogEventHandler"}, kind: Logging, framework: "log4j2"},
	// JMX over RMI.
	{id: "jmx-rmi", frames: []string{"sun.rmi.transport.tcp.TCPTransport$ConnectionHandler.run", "sun.rmi.transport.tcp.TCPTransport$AcceptLoop.executeAcceptLoop"}, kind: Attach, framework: "jmx"},
	// The JDK's reference threads.
	{id: "jdk-reference", frames: []string{"java.lang.ref.Reference$ReferenceHandler.run", "java.lang.ref.Finalizer$FinalizerThread.run", "jdk.internal.ref.CleanerImpl.run"}, kind: VM},
	// Schedulers, after the pools above that run on one (Hikari's
	// housekeeper is a ScheduledThreadPoolExecutor task).
	{id: "netty-timer", frames: []string{"io.netty.util.HashedWheelTimer$Worker.run"}, kind: Timer, framework: "netty"},
	{id: "quartz", frames: []string{"org.quartz.core.QuartzSchedulerThread.run", "org.quartz.simpl.SimpleThreadPool$WorkerThread.run"}, kind: Timer, framework: "quartz"},
	{id: "spring-scheduling", frames: []string{"org.springframework.scheduling.concurrent.ReschedulingRunnable.run", "org.springframework.scheduling.support.DelegatingErrorHandlingRunnable.run"}, kind: Timer, framework: "spring"},
	{id: "java-util-timer", frames: []string{"java.util.TimerThread.mainLoop", "java.util.TimerThread.run"}, kind: Timer},
	{id: "scheduled-executor", frames: []string{
		"java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take", "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.poll",
		"java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run",
	}, kind: Timer},
	// ForkJoin workers (common pool, custom pools, parallel streams).
	{id: "forkjoin", frames: []string{"java.util.concurrent.ForkJoinWorkerThread.run"}, kind: ForkJoin},
}

// libraryRule names the library a frame's package belongs to: the JDK and
// the servers, frameworks, drivers and libraries services run on, so the
// first frame that is none of them is the application's own code.
type libraryRule struct {
	prefix  string // of "pkg.Class.method"
	library string
}

var libraryRules = []libraryRule{
	// The JDK (HotSpot and OpenJ9) and the Java EE / Jakarta APIs. Its
	// logging and HTTP server are named apart: their fixes differ.
	{"java.util.logging.", "jul"}, {"sun.net.httpserver.", "jdk-httpserver"}, {"com.sun.net.httpserver.", "jdk-httpserver"},
	{"org.eclipse.openj9.", "jdk"},
	{"java.", "jdk"}, {"javax.", "jdk"}, {"jdk.", "jdk"}, {"sun.", "jdk"}, {"com.sun.", "jdk"}, {"com.ibm.jit.", "jdk"},
	{"com.ibm.oti.", "jdk"}, {"openj9.", "jdk"}, {"jakarta.", "jakarta"},
	// Servers.
	{"org.apache.catalina.", "tomcat"}, {"org.apache.coyote.", "tomcat"}, {"org.apache.tomcat.", "tomcat"}, {"org.apache.naming.", "tomcat"},
	{"org.apache.jasper.", "tomcat"}, {"org.eclipse.jetty.", "jetty"}, {"io.undertow.", "undertow"}, {"org.xnio.", "undertow"},
	{"org.jboss.threads.", "undertow"}, {"io.netty.", "netty"}, {"reactor.netty.", "reactor"}, {"reactor.core.", "reactor"}, {"reactor.util.", "reactor"},
	{"io.vertx.", "vertx"}, {"io.quarkus.", "quarkus"}, {"io.smallrye.", "quarkus"}, {"org.jboss.resteasy.", "resteasy"},
	{"org.glassfish.jersey.", "jersey"}, {"org.apache.cxf.", "cxf"}, {"weblogic.", "weblogic"}, {"com.ibm.ws.", "websphere"}, {"com.ibm.websphere.", "websphere"},
	{"io.helidon.", "helidon"}, {"io.micronaut.", "micronaut"},
	// RPC and messaging.
	{"io.grpc.", "grpc"}, {"com.google.protobuf.", "protobuf"}, {"org.apache.dubbo.", "dubbo"}, {"com.alibaba.dubbo.", "dubbo"},
	{"org.apache.kafka.", "kafka"}, {"kafka.", "kafka"}, {"org.apache.rocketmq.", "rocketmq"}, {"com.rabbitmq.", "rabbitmq"},
	{"org.apache.activemq.", "activemq"}, {"org.apache.thrift.", "thrift"},
	// Spring and its kin.
	{"org.springframework.", "spring"}, {"org.aspectj.", "aspectj"}, {"net.bytebuddy.", "bytebuddy"}, {"net.sf.cglib.", "cglib"}, {"javassist.", "javassist"},
	// Data access: pools, drivers, mappers.
	{"com.zaxxer.hikari.", "hikari"}, {"com.alibaba.druid.", "druid"}, {"com.mchange.", "c3p0"}, {"org.apache.commons.dbcp2.", "dbcp"},
	{"org.apache.commons.dbcp.", "dbcp"}, {"org.apache.commons.pool2.", "commons-pool"}, {"org.apache.commons.pool.", "commons-pool"},
	{"com.mysql.", "mysql"}, {"org.mariadb.", "mariadb"}, {"org.postgresql.", "postgresql"}, {"oracle.jdbc.", "oracle"}, {"oracle.net.", "oracle"},
	{"com.microsoft.sqlserver.", "sqlserver"}, {"org.h2.", "h2"}, {"org.hsqldb.", "hsqldb"}, {"org.apache.derby.", "derby"},
	{"org.hibernate.", "hibernate"}, {"org.apache.ibatis.", "mybatis"}, {"org.mybatis.", "mybatis"}, {"com.baomidou.", "mybatis"}, {"org.jooq.", "jooq"},
	{"org.eclipse.persistence.", "eclipselink"}, {"redis.clients.", "jedis"}, {"io.lettuce.", "lettuce"}, {"org.redisson.", "redisson"},
	{"com.mongodb.", "mongodb"}, {"org.bson.", "mongodb"}, {"com.datastax.", "cassandra"}, {"org.elasticsearch.", "elasticsearch"},
	{"co.elastic.", "elasticsearch"}, {"org.apache.zookeeper.", "zookeeper"}, {"org.apache.curator.", "curator"},
	// Logging.
	{"ch.qos.logback.", "logback"}, {"org.apache.logging.log4j.", "log4j2"}, {"org.apache.log4j.", "log4j1"}, {"org.slf4j.", "slf4j"},
	{"org.jboss.logging.", "jboss-logging"}, {"org.jboss.logmanager.", "jboss-logging"}, {"org.apache.commons.logging.", "commons-logging"},
	{"com.lmax.disruptor.", "disruptor"},
	// Serialisation, HTTP clients, common utilities, observability.
	{"com.fasterxml.jackson.", "jackson"}, {"com.google.gson.", "gson"}, {"com.alibaba.fastjson", "fastjson"}, {"com.alibaba.fastjson2.", "fastjson"},
	{"com.esotericsoftware.kryo.", "kryo"}, {"org.yaml.snakeyaml.", "snakeyaml"}, {"okhttp3.", "okhttp"}, {"okio.", "okhttp"},
	{"org.apache.http.", "apache-httpclient"}, {"org.apache.hc.", "apache-httpclient"}, {"feign.", "feign"}, {"retrofit2.", "retrofit"},
	{"com.google.common.", "guava"}, {"org.apache.commons.", "commons"}, {"io.micrometer.", "micrometer"}, {"io.opentelemetry.", "opentelemetry"},
	{"brave.", "zipkin"}, {"io.prometheus.", "prometheus"}, {"io.github.resilience4j.", "resilience4j"}, {"com.netflix.", "netflix"},
	{"com.github.benmanes.caffeine.", "caffeine"}, {"net.sf.ehcache.", "ehcache"}, {"org.ehcache.", "ehcache"}, {"org.quartz.", "quartz"},
	{"com.google.inject.", "guice"}, {"org.codehaus.groovy.", "groovy"}, {"groovy.", "groovy"}, {"scala.", "scala"}, {"kotlin.", "kotlin"},
	{"kotlinx.coroutines.", "kotlin"}, {"akka.", "akka"}, {"io.perfmark.", "perfmark"}, {"org.wildfly.", "wildfly"},
	{"io.reactivex.", "rxjava"}, {"org.jctools.", "jctools"},
	// Whole vendors' namespaces, after their named libraries above.
	{"org.jboss.", "jboss"}, {"org.apache.", "apache"}, {"org.glassfish.", "glassfish"}, {"com.google.", "google"},
	{"com.fasterxml.", "fasterxml"}, {"kotlinx.", "kotlin"}, {"reactor.", "reactor"}, {"org.codehaus.", "codehaus"},
	{"org.yaml.", "snakeyaml"}, {"com.ibm.", "ibm"}, {"com.lmax.", "disruptor"},
}
