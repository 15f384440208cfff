package mechanism

import "github.com/tuneloop/tuneloop/internal/finding"

// T is finding.T, short for the tables.
func T(en, zh string) finding.Text { return finding.T(en, zh) }

// Logging: request threads that write their log lines themselves, one at a
// time behind the appender's lock, and wait for the disk or the console.
func loggingEntries() []Entry {
	waits := []State{Blocked, Parked, File, Running, Socket}
	return []Entry{
		{
			ID: "mech.logging.logback-sync", Family: Logging,
			Name: T("Synchronous logback appender: request threads queue to write their own log lines",
				"logback 同步追加器：请求线程排队亲自写日志"),
			Mechanism: T("Every logger call appends under the appender's lock (OutputStreamAppender's ReentrantLock, or AppenderBase.doAppend's monitor) and, with immediateFlush=true, flushes to the file before returning: the threads serialise on the lock and each waits for the write.",
				"每次日志调用都在追加器的锁（OutputStreamAppender 的 ReentrantLock 或 AppenderBase.doAppend 的监视器）内写入，immediateFlush=true 时还要在返回前刷盘：线程在锁上串行，并各自等待写入。"),
			Tradeoff: T("An AsyncAppender with neverBlock=true drops events when its queue is full, and lines still queued are lost if the JVM is killed; immediateFlush=false loses the last buffered lines on a crash.",
				"AsyncAppender 的 neverBlock=true 在队列满时丢弃日志，JVM 被强杀时队列中的日志会丢失；immediateFlush=false 在崩溃时会丢失最后缓冲的日志。"),
			Sig: Signature{States: waits, Frames: []string{"ch.qos.logback.core.OutputStreamAppender.", "ch.qos.logback.core.AppenderBase.doAppend",
				"ch.qos.logback.core.FileAppender.", "ch.qos.logback.core.rolling.RollingFileAppender.", "ch.qos.logback.core.encoder.",
				"ch.qos.logback.classic.sift.SiftingAppender", "ch.qos.logback.core.sift."}},
			Fixes: []Fix{
				{Framework: "spring", Do: T("In logback-spring.xml wrap the file appender in an AsyncAppender (queueSize 8192, discardingThreshold 0 to keep every level or the default 20% to shed TRACE-INFO under pressure, neverBlock true) and reference the AsyncAppender from the root logger; set immediateFlush false on the file appender.",
					"在 logback-spring.xml 中用 AsyncAppender 包装文件追加器（queueSize 8192、neverBlock true；discardingThreshold 0 保留所有级别，默认 20% 在压力下丢弃 TRACE-INFO），root logger 引用该 AsyncAppender；文件追加器设置 immediateFlush false。"),
					Apply: "<appender name=\"ASYNC\" class=\"ch.qos.logback.classic.AsyncAppender\"><queueSize>8192</queueSize><neverBlock>true</neverBlock><appender-ref ref=\"FILE\"/></appender>"},
				{Do: T("Wrap the file appender in an AsyncAppender (queueSize 8192, neverBlock true) and point the loggers at it; set immediateFlush false on the file appender.",
					"用 AsyncAppender 包装文件追加器（queueSize 8192、neverBlock true），日志器引用它；文件追加器设置 immediateFlush false。"),
					Apply: "<appender name=\"ASYNC\" class=\"ch.qos.logback.classic.AsyncAppender\"><queueSize>8192</queueSize><neverBlock>true</neverBlock><appender-ref ref=\"FILE\"/></appender>"},
			},
			References: []string{refLogback, refSeed002},
		},
		{
			ID: "mech.logging.log4j2-sync", Family: Logging,
			Name: T("Synchronous log4j2 appender: request threads queue on the file manager's lock",
				"log4j2 同步追加器：请求线程在文件管理器的锁上排队"),
			Mechanism: T("A synchronous log4j2 File/RollingFile appender writes under the OutputStreamManager's monitor (and checks rollover under it); with immediateFlush=true every event is a write system call while the others wait.",
				"log4j2 同步 File/RollingFile 追加器在 OutputStreamManager 的监视器内写入（并在其中检查滚动）；immediateFlush=true 时每条日志都是一次 write 系统调用，其他线程等待。"),
			Tradeoff: T("Async loggers need the LMAX Disruptor jar; a full ring buffer blocks or (with log4j2.asyncQueueFullPolicy=Discard) drops events below the discard threshold.",
				"异步 Logger 需要 LMAX Disruptor；环形缓冲区满时会阻塞，或（log4j2.asyncQueueFullPolicy=Discard）丢弃低于阈值级别的日志。"),
			Sig: Signature{States: waits, Frames: []string{"org.apache.logging.log4j.core.appender.OutputStreamManager.",
				"org.apache.logging.log4j.core.appender.rolling.RollingFileManager.", "org.apache.logging.log4j.core.appender.FileManager.",
				"org.apache.logging.log4j.core.appender.AbstractOutputStreamAppender.", "org.apache.logging.log4j.core.appender.RandomAccessFileManager."}},
			Fixes: []Fix{{Do: T("Make all loggers asynchronous: -Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector (log4j 2.x; add com.lmax:disruptor), or wrap the appender in <Async>; set immediateFlush=\"false\" and bufferedIO=\"true\" on the file appender.",
				"将所有 Logger 设为异步：-Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector（需 com.lmax:disruptor），或用 <Async> 包装追加器；文件追加器设置 immediateFlush=\"false\"、bufferedIO=\"true\"。"),
				Apply: "-Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector", Revert: "(remove -Dlog4j2.contextSelector)"}},
			References: []string{refLog4j2},
		},
		{
			ID: "mech.logging.jul-handler", Family: Logging,
			Name: T("java.util.logging handler: every record is published under the handler's monitor",
				"java.util.logging 处理器：每条记录都在处理器的监视器内发布"),
			Mechanism: T("StreamHandler.publish and FileHandler.publish are synchronized and ConsoleHandler/FileHandler flush each record: request threads that log take turns through one monitor and wait for the write.",
				"StreamHandler.publish 与 FileHandler.publish 都是 synchronized，ConsoleHandler/FileHandler 每条记录都刷新：记日志的请求线程轮流通过同一个监视器并等待写入。"),
			Tradeoff: T("An asynchronous bridge loses the records still queued when the JVM dies; lowering the level hides those records.",
				"异步桥接在 JVM 退出时会丢失排队中的记录；调高级别会不再记录这些日志。"),
			Sig: Signature{States: waits, Frames: []string{"java.util.logging.StreamHandler.", "java.util.logging.FileHandler.",
				"java.util.logging.ConsoleHandler.", "java.util.logging.Handler.", "java.util.logging.Logger.log"},
				NotFrames: []string{"org.slf4j.bridge."}},
			Fixes: []Fix{{Do: T("Route java.util.logging through SLF4J (jul-to-slf4j's SLF4JBridgeHandler) to an asynchronous appender, or log less on the request path (Logger.isLoggable guards, level INFO or above in logging.properties); do not share one FileHandler among request threads without a queue.",
				"通过 SLF4J（jul-to-slf4j 的 SLF4JBridgeHandler）把 java.util.logging 转到异步追加器，或减少请求路径上的日志（Logger.isLoggable 判断、logging.properties 中级别 INFO 以上）；不要让请求线程在没有队列的情况下共用一个 FileHandler。"),
				Apply: ".level=INFO"}},
			References: []string{refJUL},
		},
		{
			ID: "mech.logging.console", Family: Logging,
			Name: T("Console output on the request path: System.out/err or a console appender serialises the threads",
				"请求路径上的控制台输出：System.out/err 或控制台追加器使线程串行"),
			Mechanism: T("PrintStream.println is synchronized and writes straight to file descriptor 1 or 2; when stdout is a pipe or a slow terminal, every printing thread waits for it in turn.",
				"PrintStream.println 是 synchronized 的，直接写到文件描述符 1 或 2；stdout 为管道或慢终端时，每个打印线程依次等待。"),
			Tradeoff: T("Removing console output loses what operators read there: send it to an asynchronous file appender instead.",
				"去掉控制台输出会失去运维在那里看到的内容：改为写入异步文件追加器。"),
			Sig: Signature{States: waits, Frames: []string{"java.io.PrintStream.", "ch.qos.logback.core.ConsoleAppender",
				"org.apache.logging.log4j.core.appender.ConsoleAppender"}, NotFrames: []string{"java.lang.Throwable.printStackTrace"}},
			Fixes: []Fix{{Do: T("Replace System.out/err prints on the request path by a logger with an asynchronous appender, and remove the console appender from the production logging configuration.",
				"将请求路径上的 System.out/err 打印替换为使用异步追加器的 logger，并从生产日志配置中移除控制台追加器。")}},
			References: []string{"java.io.PrintStream API docs: println is synchronized on the stream (docs.oracle.com/en/java/javase/21/docs/api/java.base/java/io/PrintStream.html)", refLogback},
		},
	}
}
