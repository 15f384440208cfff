package mechanism

// Catalogue lists every mechanism, family by family (one file each). The
// order breaks ties: specific entries before the generic ones of a family,
// and the network and host facts (delayed ACK, softirqs) before the waits
// they cause (a socket read that takes the delayed-ACK timer).
func Catalogue() []Entry {
	var es []Entry
	for _, fam := range [][]Entry{
		loggingEntries(), eventLoopEntries(), cpuEntries(), gcEntries(), jvmEntries(),
		ioEntries(), hostEntries(), poolEntries(), waitEntries(), lockEntries(),
	} {
		es = append(es, fam...)
	}
	return es
}

// Common references.
const (
	refJMC      = "JDK Mission Control automated analysis rules (openjdk/jmc, core/org.openjdk.jmc.flightrecorder.rules.jdk)"
	refJFR      = "JDK Flight Recorder event reference: jdk.ExecutionSample, jdk.JavaMonitorEnter, jdk.ThreadPark, jdk.SocketRead (docs.oracle.com/en/java/javase/21/jfapi, sap.github.io/SapMachine/jfrevents)"
	refLogback  = "Logback manual, chapter 4 Appenders: AsyncAppender, OutputStreamAppender immediateFlush (logback.qos.ch/manual/appenders.html)"
	refLog4j2   = "Apache Log4j 2 manual: Asynchronous Loggers for Low-Latency Logging; File appenders immediateFlush, bufferedIO (logging.apache.org/log4j/2.x/manual/async.html)"
	refJUL      = "java.util.logging.StreamHandler.publish and FileHandler are synchronized (JDK API docs, docs.oracle.com/en/java/javase/21/docs/api/java.logging)"
	refPattern  = "java.util.regex.Pattern API docs (backtracking, possessive quantifiers, Pattern.compile cost) and OWASP: Regular expression Denial of Service - ReDoS (owasp.org/www-community/attacks/Regular_expression_Denial_of_Service_-_ReDoS)"
	refG1       = "HotSpot Virtual Machine Garbage Collection Tuning Guide, Garbage-First Garbage Collector Tuning: Humongous Objects, Evacuation Failure, -XX:G1HeapRegionSize (docs.oracle.com/en/java/javase/21/gctuning)"
	refNetty    = "Netty user guide and ChannelPipeline API: never block the EventLoop; add a handler with an EventExecutorGroup for blocking work (netty.io/4.1/api/io/netty/channel/ChannelPipeline.html)"
	refHikari   = "HikariCP wiki: About Pool Sizing; configuration maximumPoolSize, connectionTimeout, leakDetectionThreshold (github.com/brettwooldridge/HikariCP)"
	refJUC      = "java.util.concurrent API docs: CountDownLatch, CyclicBarrier, Phaser, Condition, CompletableFuture (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/util/concurrent/package-summary.html)"
	refJLSLocks = "The Java Language Specification 17.1 Synchronization; JMC rule Java Blocking (openjdk/jmc JavaBlockingRule)"
	refSeed002  = "tuneloop seeds/002: synchronous logback logging, AsyncAppender 23.7 -> 222 RPS"
)
