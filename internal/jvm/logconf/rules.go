package logconf

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// Input is what the logging-configuration rules read: one parsed
// configuration, the routes from its loggers to its appenders, and what the
// JVM's options change (async loggers).
type Input struct {
	c      *Config
	o      Options
	routes map[*Appender][]Route
	lib    Library
}

// NewInput prepares c for the rules, with assumptions about the JVM.
func NewInput(c *Config, o Options) *Input {
	return &Input{c: c, o: o, routes: c.Routes(o.AsyncLoggers), lib: c.Kind.Library()}
}

// AnalyzeWith is Analyze with assumptions about the JVM: the one call that
// evaluates Rules().
func AnalyzeWith(c *Config, o Options) []finding.Finding {
	return finding.Evaluate(Rules(), NewInput(c, o))
}

// appenders runs fn on every appender some logger reaches (rs: its routes,
// sync: those without an async hop) and collects the outcomes it reports.
func (a *Input) appenders(fn func(ap *Appender, rs, sync []Route) (finding.Outcome, bool)) []finding.Outcome {
	var out []finding.Outcome
	for _, ap := range a.c.Appenders {
		rs := a.routes[ap]
		if len(rs) == 0 {
			continue
		}
		if o, ok := fn(ap, rs, syncRoutes(rs)); ok {
			out = append(out, o)
		}
	}
	return out
}

func allRefs() []string {
	var out []string
	for _, l := range []Library{Logback, Log4j2, Log4j1} {
		out = append(out, refs[l]...)
	}
	return out
}

var (
	readsAppenders = []string{"logging configuration: appenders (class, options, line), loggers and the routes between them"}
	callerRefs     = []string{"https://logback.qos.ch/manual/layouts.html#caller", "https://logging.apache.org/log4j/2.x/manual/layouts.html#LocationInformation",
		"https://logging.apache.org/log4j/1.x/apidocs/org/apache/log4j/PatternLayout.html", "https://logging.apache.org/log4j/2.x/manual/async.html"}
)

// Rules lists every logging-configuration rule. Where the library decides
// the why, the fix or the documents, the outcome carries its own.
func Rules() []finding.Rule[*Input] {
	return []finding.Rule[*Input]{
		{
			ID: IDSyncFile, Category: Category, Severity: finding.Warning,
			Title:  finding.T("Synchronous file appender flushes every event on the request thread", "同步文件 Appender 在业务线程上逐条刷盘"),
			Checks: finding.T("File appenders reached from a logger without an async appender or async logger in between that flush every event (immediateFlush=true, log4j BufferedIO=false).", "由 Logger 直接到达（中间没有异步 Appender 或异步 Logger）且逐条刷盘（immediateFlush=true，log4j 的 BufferedIO=false）的文件 Appender。"),
			Why: finding.T("The appender holds a lock while it encodes and writes each event and flushes it with a write() system call: every thread that logs waits in line for the disk.",
				"Appender 在编码和写入每条日志时持有锁，并通过 write() 系统调用逐条刷盘：所有打日志的线程排队等待磁盘。"),
			Recommended: finding.T("Make the appender asynchronous (an async appender, or log4j2 async loggers) or let it buffer (immediateFlush=false; log4j BufferedIO=true).",
				"把该 Appender 改为异步（异步 Appender 或 log4j2 异步 Logger），或开启缓冲（immediateFlush=false；log4j 的 BufferedIO=true）。"),
			Risk: finding.T("Events queued or buffered and not yet written are lost if the JVM crashes or is killed -9; the file's tail lags until the buffer fills.",
				"JVM 崩溃或被 kill -9 时，队列或缓冲区中尚未写出的日志会丢失；日志文件末尾会延迟到缓冲区写满才出现。"),
			Workload:   workloadRequestPath,
			Reads:      readsAppenders,
			References: allRefs(),
			Eval: func(a *Input) []finding.Outcome {
				return a.appenders(func(ap *Appender, rs, sync []Route) (finding.Outcome, bool) {
					if ap.Type != TypeSyncFile || len(sync) == 0 || !a.flushesEachEvent(ap) || a.insideSifting(ap) {
						return finding.Outcome{}, false
					}
					return a.syncFile(ap, sync), true
				})
			},
		},
		{
			ID: IDPrudent, Category: Category, Severity: finding.Warning,
			Title:  finding.T("logback prudent mode locks the file for every event", "logback prudent 模式每条日志都对文件加锁"),
			Checks: finding.T("logback file appenders in use with prudent=true.", "正在使用且 prudent=true 的 logback 文件 Appender。"),
			Why: finding.T("In prudent mode FileAppender takes an exclusive file lock (FileChannel.lock) and re-positions to the end of the file for every event, so that several JVMs can share one file; this is much slower than plain appending, and slower still on NFS.",
				"prudent 模式下 FileAppender 对每条日志都获取独占文件锁（FileChannel.lock）并重新定位到文件末尾，以便多个 JVM 共享一个文件；这比普通追加写慢得多，在 NFS 上更慢。"),
			Recommended: finding.T("Turn prudent mode off and give each JVM its own file (put the host name or instance id in <file>).", "关闭 prudent 模式，让每个 JVM 写自己的文件（在 <file> 中加入主机名或实例号）。"),
			Risk: finding.T("Two JVMs appending to the same file without prudent mode interleave and corrupt lines: turn it off only once each process has its own file.",
				"不开 prudent 模式时，两个 JVM 追加写同一个文件会互相穿插、损坏日志行：只有在每个进程写各自的文件后才能关闭。"),
			Workload:   workloadRequestPath,
			Reads:      readsAppenders,
			References: []string{"https://logback.qos.ch/manual/appenders.html#FileAppender"},
			Eval: func(a *Input) []finding.Outcome {
				return a.appenders(func(ap *Appender, rs, _ []Route) (finding.Outcome, bool) {
					if ap.Type != TypeSyncFile || a.lib != Logback || !ap.Prudent.Bool(false) {
						return finding.Outcome{}, false
					}
					return a.prudent(ap, rs), true
				})
			},
		},
		{
			ID: IDConsole, Category: Category, Severity: finding.Warning,
			Title:  finding.T("Console appender written synchronously in production", "生产环境同步写控制台 Appender"),
			Checks: finding.T("Console appenders reached synchronously from a logger outside development Spring profiles (dev, local, test).", "在开发类 Spring profile（dev、local、test）之外、由 Logger 同步到达的控制台 Appender。"),
			Why: finding.T("Console output goes through System.out, a synchronized PrintStream that is flushed per event; when stdout is redirected or read by journald or a container runtime, every log call waits for that write, and a slow reader blocks the application.",
				"控制台输出经过 System.out——一个 synchronized 的 PrintStream，每条日志都会刷新；当 stdout 被重定向或由 journald、容器运行时读取时，每次打日志都要等这次写入完成，读取方慢时还会阻塞应用。"),
			Recommended: finding.T("Remove the console appender from production loggers, or put it behind an async appender.", "生产环境的 Logger 去掉控制台 Appender，或把它放在异步 Appender 之后。"),
			Risk: finding.T("Nothing reaches the console any more: whoever reads stdout (docker/kubectl logs, catalina.out, journald) must read the log file instead; with an async wrapper, events still queued are lost on a crash.",
				"控制台不再有输出：读取 stdout 的一方（docker/kubectl logs、catalina.out、journald）需改为读取日志文件；使用异步包装时，崩溃会丢失队列中的日志。"),
			Workload: finding.T("Production servers and load tests. A console appender is fine in development, and in containers whose runtime collects stdout when it sits behind an async appender.",
				"生产服务器与压测环境。开发环境可以保留控制台输出；容器中由运行时收集 stdout 时，应放在异步 Appender 之后。"),
			Reads:      append(readsAppenders, "logging configuration: Spring profiles (<springProfile>)"),
			References: append(allRefs(), "https://docs.spring.io/spring-boot/reference/features/logging.html"),
			Eval: func(a *Input) []finding.Outcome {
				return a.appenders(func(ap *Appender, _, sync []Route) (finding.Outcome, bool) {
					if ap.Type != TypeConsole {
						return finding.Outcome{}, false
					}
					if sync = prodRoutes(ap, sync); len(sync) == 0 {
						return finding.Outcome{}, false
					}
					return a.console(ap, sync), true
				})
			},
		},
		{
			ID: IDQueueSmall, Category: Category, Severity: finding.Warning,
			Title:  finding.T("Async appender queue is small", "异步 Appender 队列过小"),
			Checks: finding.T("Async appenders whose queue holds fewer than 1024 events (defaults: logback 256, log4j2 1024, log4j 1.x 128); a warning for logback with the default discardingThreshold, info otherwise.", "队列小于 1024 个事件的异步 Appender（默认值：logback 256、log4j2 1024、log4j 1.x 128）；logback 使用默认 discardingThreshold 时为警告，否则为提示。"),
			Why: finding.T("A small queue absorbs only a short burst: when the wrapped appender falls behind, it fills within milliseconds and then callers block (or, in logback with the default discardingThreshold, INFO and lower events are dropped from 80% full).",
				"小队列只能吸收很短的突发：被包装的 Appender 一旦跟不上，队列几毫秒内就会填满，随后调用线程阻塞（logback 在默认 discardingThreshold 下，队列 80% 满时就开始丢弃 INFO 及以下级别的日志）。"),
			Recommended: finding.T("Raise the queue to 8192 events (logback queueSize; log4j2 and log4j 1.x bufferSize); it costs at most a few MB of heap.",
				"把队列提高到 8192 个事件（logback 的 queueSize;log4j2 与 log4j 1.x 的 bufferSize）；最多占用几 MB 堆内存。"),
			Risk: finding.T("A larger queue holds more events in memory: more are lost if the JVM crashes, and each queued event keeps its arguments reachable until written.",
				"队列越大，内存中待写的日志越多：JVM 崩溃时丢失的日志也越多，且排队的事件在写出前一直引用其参数对象。"),
			Workload:   workloadRequestPath,
			Reads:      readsAppenders,
			References: allRefs(),
			Eval: func(a *Input) []finding.Outcome {
				return a.appenders(func(ap *Appender, rs, _ []Route) (finding.Outcome, bool) {
					if ap.Type != TypeAsync {
						return finding.Outcome{}, false
					}
					return a.queueSmall(ap, rs)
				})
			},
		},
		{
			ID: IDAsyncBlocking, Category: Category, Severity: finding.Info,
			Title:  finding.T("Async appender blocks request threads when its queue is full", "异步 Appender 队列满时阻塞业务线程"),
			Checks: finding.T("Async appenders that block the caller when their queue is full (logback neverBlock=false, log4j2 and log4j 1.x blocking=true, the defaults).", "队列满时阻塞调用线程的异步 Appender（logback neverBlock=false、log4j2 与 log4j 1.x blocking=true，均为默认值）。"),
			Why: finding.T("When the disk (or the wrapped appender) is slower than the application logs, the queue fills and request threads wait in ArrayBlockingQueue.put: async logging turns synchronous exactly at peak load (in a thread dump: threaddump.queue.logback-async-full or threaddump.queue.log4j2-async-full). Blocking is a trade-off: it keeps every event.",
				"当磁盘（或被包装的 Appender）慢于日志产生速度时，队列被填满，业务线程在 ArrayBlockingQueue.put 中等待：异步日志恰好在峰值负载时退化为同步（线程转储中表现为 threaddump.queue.logback-async-full 或 threaddump.queue.log4j2-async-full）。阻塞是一种取舍：它保证不丢日志。"),
			Recommended: finding.T("If dropping events under overload is acceptable, let the queue discard instead of blocking (logback neverBlock=true; log4j2 -Dlog4j2.asyncQueueFullPolicy=Discard; log4j 1.x Blocking=false).",
				"如果允许过载时丢弃日志，让队列满时丢弃而不是阻塞（logback neverBlock=true；log4j2 -Dlog4j2.asyncQueueFullPolicy=Discard；log4j 1.x Blocking=false）。"),
			Risk: finding.T("Events are dropped while the queue is full; keep blocking for audit logs that must not lose events.",
				"队列满时日志会被丢弃；不能丢日志的审计日志应保持阻塞。"),
			Workload:   finding.T("Latency-sensitive services where losing some INFO/DEBUG lines under overload is acceptable.", "对延迟敏感、且允许过载时丢失部分 INFO/DEBUG 日志的服务。"),
			Reads:      readsAppenders,
			References: allRefs(),
			Eval: func(a *Input) []finding.Outcome {
				return a.appenders(func(ap *Appender, rs, _ []Route) (finding.Outcome, bool) {
					if ap.Type != TypeAsync {
						return finding.Outcome{}, false
					}
					return a.blocking(ap, rs)
				})
			},
		},
		{
			ID: IDSifting, Category: Category, Severity: finding.Warning,
			Title:  finding.T("logback SiftingAppender serialises every logging thread", "logback SiftingAppender 让所有打日志的线程串行"),
			Checks: finding.T("logback SiftingAppenders in use: a warning when reached synchronously, info behind an async appender.", "正在使用的 logback SiftingAppender：被同步到达时为警告，位于异步 Appender 之后时为提示。"),
			Why: finding.T("SiftingAppender extends AppenderBase, whose doAppend is synchronized: every event from every thread takes the same monitor while the nested appender formats and writes it, whatever the discriminator value.",
				"SiftingAppender 继承 AppenderBase，其 doAppend 为 synchronized：无论 discriminator 取值如何，所有线程的每条日志都要获取同一个监视器锁，并在持锁状态下由内部 Appender 格式化和写出。"),
			Recommended: finding.T("Wrap the SiftingAppender in an AsyncAppender (queueSize 8192, neverBlock=true) so one worker thread does the sifting, and set immediateFlush=false on the nested appender.",
				"用 AsyncAppender 包装 SiftingAppender（queueSize 8192，neverBlock=true），由一个工作线程完成分发，并在内部 Appender 上设置 immediateFlush=false。"),
			Risk: finding.T("With neverBlock=true events are dropped when the queue is full; events still queued are lost if the JVM crashes. MDC values used by the discriminator are copied with the event, so sifting still works behind the AsyncAppender.",
				"neverBlock=true 时队列满会丢弃日志；JVM 崩溃时队列中的日志会丢失。discriminator 用到的 MDC 值随事件一起复制，因此经 AsyncAppender 后分发仍然有效。"),
			Workload: workloadRequestPath,
			Reads:    readsAppenders,
			References: []string{"https://logback.qos.ch/manual/appenders.html#SiftingAppender", "https://logback.qos.ch/manual/appenders.html#AsyncAppender",
				"plantegg.github.io 2019-12-24: Linux内核版本升级，性能到底提升多少？拿数据说话 (SiftingAppender lock, 32000 TPS after async logging)"},
			Eval: func(a *Input) []finding.Outcome {
				return a.appenders(func(ap *Appender, rs, _ []Route) (finding.Outcome, bool) {
					if ap.Type != TypeSifting || a.lib != Logback {
						return finding.Outcome{}, false
					}
					return a.sifting(ap, rs), true
				})
			},
		},
		{
			ID: IDCallerData, Category: Category, Severity: finding.Warning,
			Title:  finding.T("Caller data (class, method, line) is computed for every event", "每条日志都在计算调用者信息（类、方法、行号）"),
			Checks: finding.T("Appenders and loggers that compute the caller for every event: includeCallerData / includeLocation / LocationInfo set to true, or a synchronously written pattern with %line, %method, %file, %class (%L %M %F %C %l).", "为每条日志计算调用者信息的 Appender 与 Logger：includeCallerData / includeLocation / LocationInfo 为 true，或同步输出的日志格式中含 %line、%method、%file、%class（%L %M %F %C %l）。"),
			Why:    callerWhy,
			Recommended: finding.T("Turn caller data off (includeCallerData / includeLocation / LocationInfo = false) and remove the location words from the pattern; the logger name already names the class.",
				"关闭调用者信息（includeCallerData / includeLocation / LocationInfo = false），并从日志格式中去掉位置相关的转换符；Logger 名称已能标识类。"),
			Risk:       callerRisk,
			Workload:   workloadRequestPath,
			Reads:      append(readsAppenders, "logging configuration: patterns and includeLocation of loggers"),
			References: append(allRefs(), callerRefs...),
			Eval: func(a *Input) []finding.Outcome {
				out := a.appenders(func(ap *Appender, rs, _ []Route) (finding.Outcome, bool) { return a.callerData(ap, rs) })
				for _, l := range a.c.Loggers {
					if l.CallerData.Bool(false) {
						out = append(out, a.loggerCallerData(l))
					}
				}
				return out
			},
		},
		{
			ID: IDDebugLevel, Category: Category, Severity: finding.Warning,
			Title:  finding.T("Root logger at DEBUG/TRACE in production", "生产环境根 Logger 级别为 DEBUG/TRACE"),
			Checks: finding.T("The root logger's level, or the library's default when none is set (logback and log4j 1.x DEBUG), outside development Spring profiles: DEBUG, TRACE or ALL fail.", "根 Logger 的级别，未设置时取类库默认值（logback 与 log4j 1.x 为 DEBUG），开发类 Spring profile 除外：DEBUG、TRACE 或 ALL 时不通过。"),
			Why: finding.T("At DEBUG every library's debug output (Spring, Hibernate SQL, HTTP clients, Netty) is formatted and written on the request threads; the volume is often many times that of INFO, so the appender's lock and the disk become the bottleneck.",
				"DEBUG 级别下，各个框架的调试日志（Spring、Hibernate SQL、HTTP 客户端、Netty）都在业务线程上格式化并写出，日志量往往是 INFO 的许多倍，Appender 锁和磁盘会成为瓶颈。"),
			Recommended: finding.T("Set the root level to INFO (or WARN) in production and turn DEBUG on for a single package when investigating; with Spring Boot, logging.level.root=INFO in application.yml also overrides the file.",
				"生产环境把根级别设为 INFO（或 WARN），排查问题时只对单个包临时开启 DEBUG;Spring Boot 中 application.yml 的 logging.level.root=INFO 也会覆盖该文件。"),
			Risk:       finding.T("Debug detail is no longer available after the fact; enable it per package and temporarily when investigating.", "事后无法再看到调试细节；排查时按包临时开启。"),
			Workload:   finding.T("Production servers and load tests.", "生产服务器与压测环境。"),
			Reads:      []string{"logging configuration: root logger level (and its Spring profile), logger levels"},
			References: []string{"https://logback.qos.ch/manual/configuration.html", "https://logging.apache.org/log4j/2.x/manual/configuration.html", "https://logging.apache.org/log4j/1.x/manual.html"},
			Eval: func(a *Input) []finding.Outcome {
				if o, ok := a.debugLevel(); ok {
					return []finding.Outcome{o}
				}
				return nil
			},
		},
		{
			ID: IDLog4j1EOL, Category: Category, Severity: finding.Warning,
			Title:  finding.T("log4j 1.x is end-of-life", "log4j 1.x 已停止维护（EOL）"),
			Checks: finding.T("Any log4j 1.x configuration; critical when an appender uses a class with an unfixed CVE (JMSAppender, JDBCAppender, SocketHubAppender, SocketServer, JMSSink, Chainsaw).", "任何 log4j 1.x 配置；有 Appender 使用存在未修复 CVE 的类（JMSAppender、JDBCAppender、SocketHubAppender、SocketServer、JMSSink、Chainsaw）时为严重。"),
			Why: finding.T("log4j 1.x reached end of life in 2015 and gets no fixes: CVE-2019-17571 (SocketServer deserialization), CVE-2021-4104 (JMSAppender), CVE-2022-23302 (JMSSink), CVE-2022-23305 (JDBCAppender SQL injection) and CVE-2022-23307 (Chainsaw) stay open; and its logger-hierarchy lock serialises every logging thread (a bank's credit-card core system found 42-74% of its threads waiting on it).",
				"log4j 1.x 已于 2015 年停止维护，不再修复漏洞：CVE-2019-17571（SocketServer 反序列化）、CVE-2021-4104(JMSAppender)、CVE-2022-23302(JMSSink)、CVE-2022-23305（JDBCAppender SQL 注入）、CVE-2022-23307(Chainsaw)均未修复；其 Logger 层级锁让所有打日志的线程串行（某银行信用卡核心系统实测 42%-74% 的线程在等待该锁）。"),
			Recommended: finding.T("Move to log4j2 (the log4j-1.2-api bridge keeps the org.apache.log4j API for existing code) or to logback through SLF4J. reload4j (ch.qos.reload4j) is a drop-in fork that fixes the CVEs but keeps the 1.x locking. Until then, buffer the file appenders.",
				"迁移到 log4j2（log4j-1.2-api 桥接包保留 org.apache.log4j API，现有代码无需修改）或通过 SLF4J 迁移到 logback。reload4j(ch.qos.reload4j)是可直接替换的分支，修复了这些 CVE，但保留 1.x 的锁机制。迁移前先为文件 Appender 开启缓冲。"),
			Fix: finding.Fix{
				Apply:  "<dependency>\n  <groupId>org.apache.logging.log4j</groupId>\n  <artifactId>log4j-1.2-api</artifactId>\n  <version>2.24.3</version>\n</dependency>\n<dependency>\n  <groupId>org.apache.logging.log4j</groupId>\n  <artifactId>log4j-core</artifactId>\n  <version>2.24.3</version>\n</dependency>",
				Revert: "<dependency>\n  <groupId>log4j</groupId>\n  <artifactId>log4j</artifactId>\n  <version>1.2.17</version>\n</dependency>",
				Note: finding.T("In pom.xml, replace the log4j:log4j dependency with these two (and exclude log4j:log4j where other dependencies bring it in). log4j 2 reads the existing log4j.properties/log4j.xml when the JVM is started with -Dlog4j1.compatibility=true; convert it to log4j2.xml afterwards. Rebuild and redeploy.",
					"在 pom.xml 中用这两个依赖替换 log4j:log4j（并在其他依赖间接引入 log4j:log4j 处排除它）。JVM 以 -Dlog4j1.compatibility=true 启动时，log4j 2 可直接读取现有的 log4j.properties/log4j.xml；之后再转换为 log4j2.xml。重新构建并部署。"),
			},
			Risk: finding.T("A library change: test start-up, output format and rotation; custom log4j 1.x appenders, layouts or filters must be rewritten for log4j2.",
				"这是依赖库变更：需测试启动、输出格式与滚动；自定义的 log4j 1.x Appender、Layout、Filter 需要按 log4j2 重写。"),
			Workload: finding.T("Every application still on log4j 1.x.", "所有仍在使用 log4j 1.x 的应用。"),
			Reads:    []string{"logging configuration: format, appender classes"},
			References: []string{"https://logging.apache.org/log4j/2.x/migrate-from-log4j1.html", "https://nvd.nist.gov/vuln/detail/CVE-2019-17571",
				"https://nvd.nist.gov/vuln/detail/CVE-2021-4104", "https://nvd.nist.gov/vuln/detail/CVE-2022-23305", "https://reload4j.qos.ch/"},
			Eval: func(a *Input) []finding.Outcome {
				if a.lib != Log4j1 {
					return nil
				}
				return []finding.Outcome{a.log4j1EOL()}
			},
		},
	}
}
