package threaddump

import "github.com/tuneloop/tuneloop/internal/finding"

// Kind says how a fingerprint's threads relate to each other.
type Kind int

const (
	// KindLock: the threads queue for one lock; the holder is what to look at.
	KindLock Kind = iota
	// KindWait: the threads wait for a resource that is not a lock (pool, queue, socket).
	KindWait
)

// Fingerprint recognises one known cause of waiting threads from their stacks.
// The table is data so a new library is one entry, tested on a dump.
type Fingerprint struct {
	// ID is the finding ID suffix: the finding is "threaddump." + ID.
	ID      string
	Library string
	Kind    Kind
	// Frames: a thread matches when one of its top frames starts with one of these.
	Frames []string
	// LockClasses, when set: the lock the thread waits for (BLOCKED or parked)
	// has a class starting with one of these.
	LockClasses []string
	// States, when set: the thread is in one of these states.
	States []State
	// HolderFrames: frames in the holder's stack that confirm the diagnosis
	// (reported as evidence, not required).
	HolderFrames []string
	// MinThreads below which the match is not reported.
	MinThreads int
	// Severe is the share of active threads from which the finding is critical.
	Severe float64

	Title       finding.Text
	Why         finding.Text
	Recommended finding.Text
	// Risk is the trade-off of the fix (e.g. log loss on crash).
	Risk finding.Text
	// Apply and Revert are literal config lines or JVM options; Note says
	// where they go (bilingual).
	Apply  string
	Revert string
	Note   finding.Text
	Refs   []string
}

var waitStates = []State{StateBlocked, StateWaiting, StateTimedWaiting}

// Fingerprints is ordered specific first: a thread is attributed to the first match.
var Fingerprints = []*Fingerprint{
	{
		ID: "lock.log4j1-category", Library: "log4j 1.x", Kind: KindLock, MinThreads: 3, Severe: 0.2,
		Frames:       []string{"org.apache.log4j.Category.callAppenders", "org.apache.log4j.AppenderSkeleton.doAppend"},
		States:       []State{StateBlocked},
		HolderFrames: []string{"org.apache.log4j.WriterAppender.", "org.apache.log4j.helpers.QuietWriter.", "org.apache.log4j.FileAppender.", "java.io.FileOutputStream.write"},
		Title:        finding.T("log4j 1.x: threads queue for the logger lock (Category.callAppenders)", "log4j 1.x：线程排队等待 Logger 锁（Category.callAppenders）"),
		Why: finding.T("log4j 1.x synchronizes on every Logger up the hierarchy (usually the RootLogger) and on the appender while it writes; with ImmediateFlush=true and unbuffered I/O every log call holds that lock for a write() system call, so all logging threads run one at a time.",
			"log4j 1.x 在写日志时对 Logger 层级上的每个 Logger（通常是 RootLogger）和 Appender 加 synchronized 锁；默认 ImmediateFlush=true 且不缓冲，每次打日志都要在持锁状态下完成一次 write() 系统调用，所有打日志的线程只能串行执行。"),
		Recommended: finding.T("Buffer the file appender: ImmediateFlush=false, BufferedIO=true, BufferSize=8192 (or larger); or wrap it in an AsyncAppender (XML configuration); lower the log level on hot paths; plan the move to log4j2 or logback (log4j 1.x is end-of-life).",
			"为文件 Appender 开启缓冲：ImmediateFlush=false、BufferedIO=true、BufferSize=8192（或更大）；或用 AsyncAppender 包装（需 XML 配置）；降低热点路径的日志级别；规划迁移到 log4j2 或 logback（log4j 1.x 已停止维护）。"),
		Risk: finding.T("Buffered log lines not yet written are lost if the JVM crashes or is killed -9 (up to BufferSize bytes per appender); the tail of the log lags until the buffer fills.",
			"JVM 崩溃或被 kill -9 时，缓冲区中尚未写盘的日志会丢失（每个 Appender 最多 BufferSize 字节）；日志文件的末尾会延迟到缓冲区写满才出现。"),
		Apply:  "log4j.appender.FILE.ImmediateFlush=false\nlog4j.appender.FILE.BufferedIO=true\nlog4j.appender.FILE.BufferSize=8192",
		Revert: "log4j.appender.FILE.ImmediateFlush=true\nlog4j.appender.FILE.BufferedIO=false",
		Refs:   []string{"https://logging.apache.org/log4j/1.x/apidocs/org/apache/log4j/FileAppender.html"},
	},
	{
		ID: "queue.log4j2-async-full", Library: "log4j2", Kind: KindWait, MinThreads: 3, Severe: 0.2,
		// All-async (AsyncLoggerContextSelector): AsyncLogger/AsyncLoggerDisruptor; mixed
		// (<AsyncRoot>/<AsyncLogger> in the configuration): AsyncLoggerConfig/AsyncLoggerConfigDisruptor,
		// whose callers queue on the same kind of queueFullEnqueueLock (testdata jdk*_lib_log4j2-asyncroot).
		Frames: []string{"org.apache.logging.log4j.core.async.AsyncLoggerDisruptor.enqueueLogMessageWhenQueueFull",
			"org.apache.logging.log4j.core.async.AsyncLogger.handleRingBufferFull",
			"org.apache.logging.log4j.core.async.AsyncLoggerConfigDisruptor.enqueue",
			"org.apache.logging.log4j.core.async.AsyncLoggerConfig.handleQueueFull",
			"org.apache.logging.log4j.core.appender.AsyncAppender.logMessageInBackgroundThread"},
		States: waitStates,
		Title:  finding.T("log4j2: the async logging queue is full, callers wait for the disk", "log4j2：异步日志队列已满，业务线程在等待磁盘"),
		Why: finding.T("The async logger's ring buffer (or the AsyncAppender queue) is full because the appender writes slower than the application logs; by default callers then block until there is room, so async logging has turned synchronous.",
			"异步日志的 RingBuffer（或 AsyncAppender 队列）已满：Appender 写盘速度低于日志产生速度；默认策略下调用方会阻塞等待空位，异步日志退化为同步。"),
		Recommended: finding.T("Reduce log volume on hot paths or write to a faster sink; if losing low-level events under overload is acceptable set log4j2.asyncQueueFullPolicy=Discard with log4j2.discardThreshold=INFO; a larger log4j2.asyncLoggerRingBufferSize only absorbs bursts.",
			"减少热点路径的日志量或换更快的写入目标；若允许过载时丢弃低级别日志，可设置 log4j2.asyncQueueFullPolicy=Discard 与 log4j2.discardThreshold=INFO；增大 log4j2.asyncLoggerRingBufferSize 只能吸收突发流量。"),
		Risk: finding.T("Discard drops INFO/DEBUG/TRACE events while the queue is full; events still in the queue are lost on a crash.",
			"Discard 策略在队列满时会丢弃 INFO/DEBUG/TRACE 日志；崩溃时队列中尚未写出的日志会丢失。"),
		Apply:  "JAVA_OPTS += -Dlog4j2.asyncQueueFullPolicy=Discard -Dlog4j2.discardThreshold=INFO",
		Revert: "JAVA_OPTS -= -Dlog4j2.asyncQueueFullPolicy=Discard -Dlog4j2.discardThreshold=INFO",
		Refs:   []string{"https://logging.apache.org/log4j/2.x/manual/async.html"},
	},
	{
		ID: "lock.log4j2-manager", Library: "log4j2", Kind: KindLock, MinThreads: 3, Severe: 0.2,
		Frames:       []string{"org.apache.logging.log4j.core.appender.OutputStreamManager.", "org.apache.logging.log4j.core.appender.rolling.RollingFileManager.", "org.apache.logging.log4j.core.appender.RandomAccessFileManager.", "org.apache.logging.log4j.core.appender.AbstractOutputStreamAppender."},
		LockClasses:  []string{"org.apache.logging.log4j.core.appender."},
		States:       []State{StateBlocked},
		HolderFrames: []string{"java.io.FileOutputStream.write", "java.io.RandomAccessFile.write", "org.apache.logging.log4j.core.appender.OutputStreamManager.flush"},
		Title:        finding.T("log4j2: threads queue for the file appender's manager lock", "log4j2：线程排队等待文件 Appender 的 Manager 锁"),
		Why: finding.T("log4j2's synchronous File/RollingFile appenders write through an OutputStreamManager whose write and flush methods are synchronized; with immediateFlush=true each event holds the lock for a write() system call.",
			"log4j2 同步 File/RollingFile Appender 通过 OutputStreamManager 写盘，其 write/flush 方法为 synchronized;immediateFlush=true 时每条日志都在持锁状态下完成一次 write() 系统调用。"),
		Recommended: finding.T("Set immediateFlush=\"false\" with bufferedIO=\"true\" and bufferSize=\"262144\" on the appender, or switch to RollingRandomAccessFile, or make loggers asynchronous (AsyncLoggerContextSelector with the LMAX Disruptor jar).",
			"在 Appender 上设置 immediateFlush=\"false\"、bufferedIO=\"true\"、bufferSize=\"262144\"；或改用 RollingRandomAccessFile；或启用异步 Logger（AsyncLoggerContextSelector，需要 LMAX Disruptor）。"),
		Risk: finding.T("Buffered events not yet flushed are lost if the JVM crashes; with async loggers, a full ring buffer blocks or discards according to log4j2.asyncQueueFullPolicy.",
			"JVM 崩溃时缓冲区内未刷盘的日志会丢失；使用异步 Logger 时，RingBuffer 满后按 log4j2.asyncQueueFullPolicy 阻塞或丢弃。"),
		Apply:  `<RollingFile name="FILE" immediateFlush="false" bufferedIO="true" bufferSize="262144" ...>`,
		Revert: `<RollingFile name="FILE" immediateFlush="true" ...>`,
		Refs:   []string{"https://logging.apache.org/log4j/2.x/manual/appenders/file.html", "https://logging.apache.org/log4j/2.x/manual/async.html"},
	},
	{
		ID: "queue.logback-async-full", Library: "logback", Kind: KindWait, MinThreads: 3, Severe: 0.2,
		Frames: []string{"ch.qos.logback.core.AsyncAppenderBase.put", "ch.qos.logback.core.AsyncAppenderBase.isQueueBelowDiscardingThreshold", "ch.qos.logback.core.AsyncAppenderBase.append"},
		States: waitStates,
		Title:  finding.T("logback: the AsyncAppender queue is full, callers wait for the disk", "logback:AsyncAppender 队列已满，业务线程在等待磁盘"),
		Why: finding.T("logback's AsyncAppender puts events on a bounded ArrayBlockingQueue (queueSize, default 256); with neverBlock=false callers block when it is full, which happens when the wrapped appender writes slower than the application logs.",
			"logback AsyncAppender 把日志放入有界 ArrayBlockingQueue（queueSize，默认 256）；neverBlock=false 时队列满后调用方阻塞——被包装的 Appender 写盘速度低于日志产生速度时就会发生。"),
		Recommended: finding.T("Set neverBlock=true and a larger queueSize (e.g. 8192); keep discardingThreshold (default queueSize/5) so TRACE/DEBUG/INFO are dropped first under overload; reduce log volume or speed up the wrapped appender (immediateFlush=false).",
			"设置 neverBlock=true 并增大 queueSize（如 8192）；保留 discardingThreshold（默认 queueSize/5），过载时优先丢弃 TRACE/DEBUG/INFO；减少日志量或加快被包装 Appender 的写入（immediateFlush=false）。"),
		Risk: finding.T("neverBlock=true drops events while the queue is full; events still queued are lost if the JVM crashes.",
			"neverBlock=true 时队列满会丢弃日志；JVM 崩溃时队列中的日志会丢失。"),
		Apply:  "<appender name=\"ASYNC\" class=\"ch.qos.logback.classic.AsyncAppender\">\n  <queueSize>8192</queueSize>\n  <neverBlock>true</neverBlock>\n  <appender-ref ref=\"FILE\"/>\n</appender>",
		Revert: "<neverBlock>false</neverBlock>\n<queueSize><!-- previous value --></queueSize>",
		Refs:   []string{"https://logback.qos.ch/manual/appenders.html#AsyncAppender"},
	},
	{
		ID: "lock.logback-appender", Library: "logback", Kind: KindLock, MinThreads: 3, Severe: 0.2,
		Frames: []string{"ch.qos.logback.core.OutputStreamAppender.writeBytes", "ch.qos.logback.core.OutputStreamAppender.subAppend",
			"ch.qos.logback.core.OutputStreamAppender.writeOut", "ch.qos.logback.core.OutputStreamAppender.append",
			"ch.qos.logback.core.rolling.RollingFileAppender.subAppend", "ch.qos.logback.core.AppenderBase.doAppend"},
		States:       waitStates,
		HolderFrames: []string{"java.io.FileOutputStream.write", "ch.qos.logback.core.recovery.ResilientOutputStreamBase.", "java.io.FileDescriptor.sync", "sun.nio.ch.FileChannelImpl.force"},
		Title:        finding.T("logback: threads queue for the appender's lock (synchronous file appender)", "logback：线程排队等待 Appender 锁（同步文件 Appender）"),
		Why: finding.T("logback's OutputStreamAppender guards its stream with one lock (a ReentrantLock; synchronized doAppend for AppenderBase subclasses such as SiftingAppender) and with immediateFlush=true writes every event to the file while holding it, so logging threads run one at a time at disk speed.",
			"logback OutputStreamAppender 用一把锁保护输出流（ReentrantLock;SiftingAppender 等 AppenderBase 子类是 synchronized doAppend），immediateFlush=true 时每条日志都在持锁状态下写文件，打日志的线程只能按磁盘速度串行执行。"),
		Recommended: finding.T("Wrap the file appender in an AsyncAppender (queueSize 8192, neverBlock=true) and set immediateFlush=false on the file appender; lower the level of chatty loggers.",
			"用 AsyncAppender 包装文件 Appender(queueSize 8192,neverBlock=true)，并在文件 Appender 上设置 immediateFlush=false；调高输出过多的 Logger 的级别。"),
		Risk: finding.T("With neverBlock=true events are dropped when the queue is full; with immediateFlush=false buffered events are lost if the JVM crashes; caller data (%caller, %line) is not available through AsyncAppender unless includeCallerData=true.",
			"neverBlock=true 时队列满会丢弃日志；immediateFlush=false 时 JVM 崩溃会丢失缓冲中的日志；经 AsyncAppender 输出时调用者信息（%caller、%line）默认不可用，需 includeCallerData=true。"),
		Apply:  "<appender name=\"ASYNC\" class=\"ch.qos.logback.classic.AsyncAppender\">\n  <queueSize>8192</queueSize>\n  <neverBlock>true</neverBlock>\n  <appender-ref ref=\"FILE\"/>\n</appender>\n<!-- in FILE: <immediateFlush>false</immediateFlush> -->\n<root><appender-ref ref=\"ASYNC\"/></root>",
		Revert: "<root><appender-ref ref=\"FILE\"/></root>\n<immediateFlush>true</immediateFlush>",
		Refs:   []string{"https://logback.qos.ch/manual/appenders.html#AsyncAppender", "https://logback.qos.ch/manual/appenders.html#OutputStreamAppender"},
	},
	{
		ID: "jdbc-pool.druid", Library: "Druid", Kind: KindWait, MinThreads: 3, Severe: 0.2,
		Frames: []string{"com.alibaba.druid.pool.DruidDataSource.takeLast", "com.alibaba.druid.pool.DruidDataSource.pollLast"},
		States: waitStates,
		Title:  finding.T("Druid connection pool exhausted: threads wait for a connection", "Druid 连接池耗尽：线程在等待数据库连接"),
		Why:    jdbcWhy,
		Recommended: finding.T("Find what holds the connections (slow SQL, long transactions, leaks: removeAbandoned=true with logAbandoned=true shows the borrower); then size maxActive to the database's capacity and set maxWait so callers fail fast instead of queueing.",
			"先找出占用连接的原因（慢 SQL、长事务、连接泄漏：开启 removeAbandoned=true 与 logAbandoned=true 可打印借出者堆栈）；再按数据库承载能力调整 maxActive，并设置 maxWait 让调用方快速失败而不是无限排队。"),
		Risk:   jdbcRisk,
		Apply:  "spring.datasource.druid.max-active=<n>\nspring.datasource.druid.max-wait=3000",
		Revert: "spring.datasource.druid.max-active=<previous>\nspring.datasource.druid.max-wait=<previous>",
		Refs:   []string{"https://github.com/alibaba/druid/wiki/DruidDataSource%E9%85%8D%E7%BD%AE%E5%B1%9E%E6%80%A7%E5%88%97%E8%A1%A8"},
	},
	{
		ID: "jdbc-pool.hikaricp", Library: "HikariCP", Kind: KindWait, MinThreads: 3, Severe: 0.2,
		Frames: []string{"com.zaxxer.hikari.util.ConcurrentBag.borrow", "com.zaxxer.hikari.pool.HikariPool.getConnection"},
		States: waitStates,
		Title:  finding.T("HikariCP connection pool exhausted: threads wait for a connection", "HikariCP 连接池耗尽：线程在等待数据库连接"),
		Why:    jdbcWhy,
		Recommended: finding.T("Find what holds the connections (slow SQL, long transactions; leakDetectionThreshold=60000 logs leaked borrowers); then size maximumPoolSize to the database's capacity and keep connectionTimeout short so callers fail fast.",
			"先找出占用连接的原因（慢 SQL、长事务；leakDetectionThreshold=60000 可记录泄漏的借出者）；再按数据库承载能力调整 maximumPoolSize，并保持较短的 connectionTimeout 让调用方快速失败。"),
		Risk:   jdbcRisk,
		Apply:  "spring.datasource.hikari.maximum-pool-size=<n>\nspring.datasource.hikari.leak-detection-threshold=60000",
		Revert: "spring.datasource.hikari.maximum-pool-size=<previous>\n# spring.datasource.hikari.leak-detection-threshold (removed)",
		Refs:   []string{"https://github.com/brettwooldridge/HikariCP#gear-configuration-knobs-baby"},
	},
	{
		ID: "jdbc-pool.dbcp", Library: "Apache DBCP", Kind: KindWait, MinThreads: 3, Severe: 0.2,
		Frames: []string{"org.apache.commons.pool2.impl.GenericObjectPool.borrowObject", "org.apache.commons.pool.impl.GenericObjectPool.borrowObject", "org.apache.commons.dbcp2.PoolingDataSource.getConnection", "org.apache.commons.dbcp.PoolingDataSource.getConnection"},
		States: waitStates,
		Title:  finding.T("DBCP connection pool exhausted: threads wait for a connection", "DBCP 连接池耗尽：线程在等待数据库连接"),
		Why:    jdbcWhy,
		Recommended: finding.T("Find what holds the connections (slow SQL, long transactions; removeAbandonedOnBorrow=true with logAbandoned=true shows leaks); then size maxTotal (DBCP 2; maxActive in DBCP 1) to the database's capacity and set maxWaitMillis so callers fail fast.",
			"先找出占用连接的原因（慢 SQL、长事务；removeAbandonedOnBorrow=true 与 logAbandoned=true 可发现泄漏）；再按数据库承载能力调整 maxTotal（DBCP 2;DBCP 1 为 maxActive），并设置 maxWaitMillis 让调用方快速失败。"),
		Risk:   jdbcRisk,
		Apply:  "maxTotal=<n>\nmaxWaitMillis=3000",
		Revert: "maxTotal=<previous>\nmaxWaitMillis=<previous>",
		Refs:   []string{"https://commons.apache.org/proper/commons-dbcp/configuration.html"},
	},
	{
		ID: "jdbc-pool.c3p0", Library: "c3p0", Kind: KindWait, MinThreads: 3, Severe: 0.2,
		Frames: []string{"com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable", "com.mchange.v2.resourcepool.BasicResourcePool.checkoutResource"},
		States: waitStates,
		Title:  finding.T("c3p0 connection pool exhausted: threads wait for a connection", "c3p0 连接池耗尽：线程在等待数据库连接"),
		Why:    jdbcWhy,
		Recommended: finding.T("Find what holds the connections (slow SQL, long transactions; unreturnedConnectionTimeout with debugUnreturnedConnectionStackTraces=true shows leaks); then size maxPoolSize to the database's capacity and set checkoutTimeout so callers fail fast (the default 0 waits forever).",
			"先找出占用连接的原因（慢 SQL、长事务；unreturnedConnectionTimeout 配合 debugUnreturnedConnectionStackTraces=true 可发现泄漏）；再按数据库承载能力调整 maxPoolSize，并设置 checkoutTimeout 让调用方快速失败（默认 0 表示无限等待）。"),
		Risk:   jdbcRisk,
		Apply:  "c3p0.maxPoolSize=<n>\nc3p0.checkoutTimeout=3000",
		Revert: "c3p0.maxPoolSize=<previous>\nc3p0.checkoutTimeout=<previous>",
		Refs:   []string{"https://www.mchange.com/projects/c3p0/#configuration_properties"},
	},
	{
		ID: "securerandom", Library: "JDK", Kind: KindLock, MinThreads: 2, Severe: 0.2,
		Frames: []string{"sun.security.provider.SeedGenerator", "sun.security.provider.NativePRNG$RandomIO.", "sun.security.provider.SecureRandom.engineNextBytes", "java.security.SecureRandom.nextBytes"},
		States: []State{StateBlocked},
		Title:  finding.T("SecureRandom: threads queue for the shared random generator", "SecureRandom：线程排队等待共享的随机数生成器"),
		Why: finding.T("A shared SecureRandom is synchronized, and seeding from /dev/random can block for entropy (JDK 8 with securerandom.source=file:/dev/random); every session id, UUID.randomUUID() or TLS handshake then waits in line.",
			"共享的 SecureRandom 是 synchronized 的，从 /dev/random 取种子时可能因熵不足而阻塞（JDK 8 且 securerandom.source=file:/dev/random 时）；会话 ID、UUID.randomUUID()、TLS 握手都会排队等待。"),
		Recommended: finding.T("Seed from the non-blocking source: -Djava.security.egd=file:/dev/./urandom (JDK 8) or securerandom.source=file:/dev/urandom in java.security; avoid one SecureRandom shared by all threads.",
			"改用非阻塞的种子源：-Djava.security.egd=file:/dev/./urandom(JDK 8)或在 java.security 中设置 securerandom.source=file:/dev/urandom；避免所有线程共享一个 SecureRandom 实例。"),
		Risk:   finding.T("None on current Linux kernels: /dev/urandom is cryptographically secure once the kernel pool is initialised.", "在当前 Linux 内核上无风险：内核熵池初始化后 /dev/urandom 即具备密码学安全性。"),
		Apply:  "JAVA_OPTS += -Djava.security.egd=file:/dev/./urandom",
		Revert: "JAVA_OPTS -= -Djava.security.egd=file:/dev/./urandom",
		Refs:   []string{"https://docs.oracle.com/en/java/javase/17/security/oracle-providers.html"},
	},
	{
		ID: "classloading", Library: "JDK", Kind: KindLock, MinThreads: 3, Severe: 0.2,
		Frames: []string{"java.lang.ClassLoader.loadClass", "jdk.internal.loader.BuiltinClassLoader.loadClassOrNull", "org.apache.catalina.loader.WebappClassLoaderBase.loadClass", "java.lang.Class.forName"},
		States: []State{StateBlocked},
		Title:  finding.T("Class loading: threads queue for a class loader lock", "类加载：线程排队等待类加载器锁"),
		Why: finding.T("Loading a class takes the class loader's lock (per class name for parallel-capable loaders, the whole loader otherwise); code that loads or looks up classes on every request (Class.forName, new JAXBContext, XML/JSON factory lookups, proxies) serialises on it.",
			"加载类需要持有类加载器锁（支持并行加载的类加载器按类名加锁，否则锁整个加载器）；每次请求都加载或查找类的代码（Class.forName、new JAXBContext、XML/JSON 工厂查找、动态代理）会在该锁上串行。"),
		Recommended: finding.T("Cache what is created per request (JAXBContext, factories, reflection lookups); warm the code paths at start-up; look at the waiters' frames below loadClass for the caller.",
			"缓存每次请求都新建的对象（JAXBContext、各类 Factory、反射查找结果）；启动时预热代码路径；查看等待线程在 loadClass 下方的调用者。"),
		Risk: finding.T("None: caching and warm-up change no behaviour.", "无：缓存与预热不改变行为。"),
		Refs: []string{"java.lang.ClassLoader: parallel capable class loaders, registerAsParallelCapable (Oracle, Java SE API documentation)"},
	},
	{
		ID: "lock.sync-collection", Library: "JDK", Kind: KindLock, MinThreads: 3, Severe: 0.2,
		LockClasses: []string{"java.util.Collections$Synchronized", "java.util.Hashtable", "java.util.Vector", "java.util.Properties", "java.lang.StringBuffer", "java.util.Stack"},
		States:      []State{StateBlocked},
		Title:       finding.T("A synchronized collection is a point of contention", "同步集合成为锁竞争点"),
		Why: finding.T("Collections.synchronizedMap/List, Hashtable, Vector, Properties and StringBuffer lock the whole object for every call; shared by many threads they serialise them.",
			"Collections.synchronizedMap/List、Hashtable、Vector、Properties、StringBuffer 的每次调用都锁住整个对象；被大量线程共享时会让它们串行执行。"),
		Recommended: finding.T("Replace it with a concurrent structure: ConcurrentHashMap, CopyOnWriteArrayList (read-mostly), a ConcurrentLinkedQueue, or StringBuilder when not shared; never iterate it while holding its lock in a hot path.",
			"改用并发数据结构：ConcurrentHashMap、CopyOnWriteArrayList（读多写少）、ConcurrentLinkedQueue，不共享时用 StringBuilder；不要在热点路径上持锁遍历。"),
		Risk: finding.T("Compound actions that relied on the single lock (check-then-act) need putIfAbsent/compute instead.", "依赖单一锁的复合操作（先检查后执行）需改用 putIfAbsent/compute 等原子方法。"),
		Refs: []string{"java.util.Collections.synchronizedMap and java.util.concurrent.ConcurrentHashMap (Oracle, Java SE API documentation)"},
	},
}

var jdbcWhy = finding.T("Every connection is borrowed, so new requests wait inside the pool instead of running SQL; the database is often idle meanwhile, or a few slow statements or leaked connections hold the pool.",
	"连接全部被借出，新请求在连接池里排队而不是执行 SQL；此时数据库往往并不忙，而是少数慢 SQL、长事务或泄漏的连接占满了连接池。")

var jdbcRisk = finding.T("A larger pool adds sessions and memory on the database; if the database itself is the bottleneck it makes latency worse: fix slow SQL and leaks first.",
	"增大连接池会增加数据库的会话和内存占用；如果数据库本身就是瓶颈，只会让延迟更高：应先解决慢 SQL 和连接泄漏。")

// Fingerprints for the non-table diagnoses, for their texts.
var (
	fpSocketRead = &Fingerprint{
		ID: "wait.downstream", Library: "network", Kind: KindWait, MinThreads: 3, Severe: 0.3,
		Title: finding.T("Threads wait on socket reads: a slow downstream", "线程在等待 Socket 读取：下游服务慢"),
		Why: finding.T("These threads are RUNNABLE but inside a socket read: they wait for a database, cache or HTTP service to answer, and hold a worker (and often a connection) while they wait. A dump does not say which endpoint: the frames below the read name the client library; the live connections (ss -tnp, /proc/PID/net/tcp) name the address.",
			"这些线程状态是 RUNNABLE，但停在 Socket 读取中：它们在等数据库、缓存或 HTTP 服务响应，等待期间占用着工作线程（通常还占着连接）。转储无法说明是哪个远端：读取下方的栈帧指出客户端库，远端地址需从存活连接（ss -tnp、/proc/PID/net/tcp）中查看。"),
		Recommended: finding.T("Measure the downstream's latency; set read timeouts (JDBC socketTimeout, HTTP client socket/read timeout) so a slow dependency fails fast; cache or batch the calls.",
			"测量下游服务的延迟；设置读超时（JDBC socketTimeout、HTTP 客户端 socket/read timeout）让慢依赖快速失败；对调用做缓存或批量化。"),
		Risk: finding.T("A timeout shorter than the slowest legitimate call turns slow answers into errors.", "超时小于最慢的正常调用时，慢响应会变成错误。"),
		Refs: []string{"java.net.Socket.setSoTimeout (Oracle, Java SE API documentation)", "Troubleshoot Process Hangs and Loops (Oracle, Java SE Troubleshooting Guide, docs.oracle.com/en/java/javase/17/troubleshoot)"},
	}
	fpAppLock = &Fingerprint{
		ID: "lock.app", Library: "application", Kind: KindLock, MinThreads: 3, Severe: 0.2,
		Title: finding.T("Threads queue for an application lock", "线程排队等待应用程序的锁"),
		Why: finding.T("Many threads wait for one lock while its holder works; throughput is limited to one thread's speed inside the critical section.",
			"大量线程在等待同一把锁，而持有者在执行临界区；吞吐量被限制为单线程执行临界区的速度。"),
		Recommended: finding.T("Look at what the holder does inside the lock (I/O, remote calls, sleeps): move it out of the critical section, shrink the section, split the lock by key, or use a concurrent structure.",
			"查看持有者在锁内做什么（I/O、远程调用、sleep）：把这些操作移出临界区、缩小临界区、按 key 拆分锁，或改用并发数据结构。"),
		Risk: finding.T("Changing locking can expose races the lock was hiding: review and test under concurrency.", "修改加锁方式可能暴露原本被锁掩盖的竞态条件：需审查并做并发测试。"),
		Refs: []string{"The Java Tutorials: Intrinsic Locks and Synchronization (Oracle)", "Troubleshoot Process Hangs and Loops (Oracle, Java SE Troubleshooting Guide, docs.oracle.com/en/java/javase/17/troubleshoot)"},
	}
)

// downstreamHints names the downstream from the frames below a socket read.
var downstreamHints = []struct{ prefix, name string }{
	{"com.mysql.", "MySQL (JDBC)"}, {"oracle.jdbc.", "Oracle (JDBC)"}, {"org.postgresql.", "PostgreSQL (JDBC)"},
	{"com.microsoft.sqlserver.", "SQL Server (JDBC)"}, {"com.ibm.db2.", "DB2 (JDBC)"}, {"dm.jdbc.", "DM (JDBC)"},
	{"com.kingbase", "Kingbase (JDBC)"}, {"com.oceanbase.", "OceanBase (JDBC)"}, {"org.mariadb.", "MariaDB (JDBC)"},
	{"redis.clients.jedis.", "Redis (Jedis)"}, {"io.lettuce.", "Redis (Lettuce)"},
	{"org.apache.http.", "HTTP (Apache HttpClient)"}, {"org.apache.hc.", "HTTP (Apache HttpClient 5)"}, {"okhttp3.", "HTTP (OkHttp)"},
	{"sun.net.www.protocol.http.", "HTTP (HttpURLConnection)"}, {"com.alibaba.dubbo.", "Dubbo"}, {"org.apache.dubbo.", "Dubbo"},
	{"org.apache.kafka.", "Kafka"}, {"com.mongodb.", "MongoDB"}, {"org.elasticsearch.", "Elasticsearch"},
}

// socketReadFrames are the top frames of a thread blocked in a socket read.
var socketReadFrames = []string{
	"java.net.SocketInputStream.socketRead0", "java.net.SocketInputStream.socketRead",
	"sun.nio.ch.NioSocketImpl.park", "sun.nio.ch.NioSocketImpl.timedRead", "sun.nio.ch.NioSocketImpl.read",
	"sun.nio.ch.SocketDispatcher.read0", "sun.nio.ch.SocketChannelImpl.read", "sun.security.ssl.SSLSocketInputRecord.read",
}
