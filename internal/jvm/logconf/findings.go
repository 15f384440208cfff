package logconf

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// fail starts a failing outcome about subject, of severity sev.
func (a *Input) fail(subject string, sev finding.Severity) finding.Outcome {
	return finding.Outcome{Status: finding.Fail, Subject: subject}.WithSeverity(sev)
}

var refs = map[Library][]string{
	Logback: {"https://logback.qos.ch/manual/appenders.html#AsyncAppender", "https://logback.qos.ch/manual/appenders.html#OutputStreamAppender"},
	Log4j2:  {"https://logging.apache.org/log4j/2.x/manual/appenders/file.html", "https://logging.apache.org/log4j/2.x/manual/async.html"},
	Log4j1:  {"https://logging.apache.org/log4j/1.x/apidocs/org/apache/log4j/FileAppender.html", "https://logging.apache.org/log4j/1.x/apidocs/org/apache/log4j/AsyncAppender.html"},
}

var workloadRequestPath = finding.T("Services that log on the request path (web, RPC, gateways, batch with many threads). Keep per-event flushing only for an audit log that must be on disk before the request returns.",
	"在请求路径上打日志的服务（Web、RPC、网关、多线程批处理）。只有要求请求返回前必须落盘的审计日志才需要保留逐条刷盘。")

var seedEvidence = finding.T(" A ticketing platform's gateway measured the cost: making logback asynchronous and removing console output raised it from 23.7 to 222 requests/s.",
	"某票务平台的网关实测：把 logback 改为异步并去掉控制台输出后，从 23.7 提升到 222 RPS。")

func flushState(a *Input, ap *Appender) string {
	if a.lib == Log4j1 {
		s := "ImmediateFlush=true"
		if !ap.ImmediateFlush.Set {
			s += " (default)"
		}
		return s + ", BufferedIO=false (default)"
	}
	if ap.ImmediateFlush.Set {
		return "immediateFlush=" + ap.ImmediateFlush.Raw
	}
	return "immediateFlush=true (default)"
}

func flushStateZH(a *Input, ap *Appender) string {
	return strings.ReplaceAll(strings.ReplaceAll(flushState(a, ap), " (default)", "（默认）"), ", ", ",")
}

func (a *Input) syncFile(ap *Appender, sync []Route) finding.Outcome {
	f := a.fail(ap.Name, finding.Warning)
	f.Confidence = a.confidence(ap, sync)
	f.Observed = finding.Join(finding.T(
		fmt.Sprintf("Appender %s (%s, line %d) is written on the logging thread by %s; %s, and no async appender or async logger in between.", ap.Name, shortClass(ap.Class), ap.Line, routeLoggers(sync), flushState(a, ap)),
		fmt.Sprintf("Appender %s（%s，第 %d 行）由 %s 在业务线程上同步写入；%s，中间没有异步 Appender 或异步 Logger。", ap.Name, shortClass(ap.Class), ap.Line, routeLoggersZH(sync), flushStateZH(a, ap))),
		profileNote(ap, sync))
	f.Evidence = a.appenderEvidence(ap)
	f.Evidence = append(f.Evidence, optEvidence(a, "immediateFlush", ap.ImmediateFlush, "true", ap.Line))
	if a.lib != Logback {
		f.Evidence = append(f.Evidence, optEvidence(a, "bufferedIO", ap.BufferedIO, map[bool]string{true: "true", false: "false"}[a.lib == Log4j2], ap.Line))
	}
	f.Evidence = append(f.Evidence, routeEvidence(a, sync)...)
	f.References = refs[a.lib]
	switch a.lib {
	case Logback:
		f.Why = finding.Join(finding.T("logback's OutputStreamAppender holds one lock per appender while it encodes and writes each event and, with immediateFlush=true, flushes it to the file with a write() system call; every thread that logs waits in line for the disk (in a thread dump: threaddump.lock.logback-appender).",
			"logback 的 OutputStreamAppender 在编码和写入每条日志时持有该 Appender 的锁，immediateFlush=true 时每条日志都通过 write() 系统调用刷到文件；所有打日志的线程排队等待磁盘（线程转储中表现为 threaddump.lock.logback-appender）。"), seedEvidence)
		f.Recommended = finding.T(fmt.Sprintf("Wrap %s in an AsyncAppender (queueSize 8192, neverBlock=true) and point the loggers at the wrapper; or, without a queue, set <immediateFlush>false</immediateFlush> on %s.", ap.Name, ap.Name),
			fmt.Sprintf("用 AsyncAppender 包装 %s(queueSize 8192,neverBlock=true)，并让 Logger 引用该包装 Appender；或者不用队列，直接在 %s 上设置 <immediateFlush>false</immediateFlush>。", ap.Name, ap.Name))
		apply, revert, note, _ := a.asyncWrap(ap, sync)
		alt, _, _ := a.bufferFix(ap)
		f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: finding.Join(note, finding.T(
			" Alternative without a queue: put "+alt+" inside "+ap.Name+". Through an AsyncAppender, %caller/%line/%method print '?' unless includeCallerData=true (which costs a stack walk per event).",
			" 不用队列的替代方案：在 "+ap.Name+" 内加入 "+alt+"。经 AsyncAppender 输出时 %caller/%line/%method 显示为 '?'，除非设置 includeCallerData=true（每条日志需遍历一次堆栈）。"))}
		f.Risk = finding.T("With neverBlock=true events are dropped when the queue is full; events still queued (or buffered with immediateFlush=false) are lost if the JVM crashes or is killed -9.",
			"neverBlock=true 时队列满会丢弃日志；JVM 崩溃或被 kill -9 时，队列中（或 immediateFlush=false 时缓冲区中）尚未写出的日志会丢失。")
	case Log4j2:
		f.Why = finding.T("log4j2's synchronous file appenders write through an OutputStreamManager whose write and flush are synchronized; with immediateFlush=true each event is a write() system call made while holding that lock, so logging threads run one at a time at disk speed (in a thread dump: threaddump.lock.log4j2-manager).",
			"log4j2 同步文件 Appender 通过 OutputStreamManager 写盘，其 write/flush 为 synchronized;immediateFlush=true 时每条日志都在持锁状态下完成一次 write() 系统调用，打日志的线程只能按磁盘速度串行执行（线程转储中表现为 threaddump.lock.log4j2-manager）。")
		f.Recommended = finding.T(fmt.Sprintf("Set immediateFlush=\"false\" bufferedIO=\"true\" bufferSize=\"262144\" on %s; or make loggers asynchronous (<AsyncRoot>/<AsyncLogger>, or -Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector; both need the com.lmax:disruptor jar); or wrap %s in an <Async> appender.", ap.Name, ap.Name),
			fmt.Sprintf("在 %s 上设置 immediateFlush=\"false\"、bufferedIO=\"true\"、bufferSize=\"262144\"；或启用异步 Logger（<AsyncRoot>/<AsyncLogger>，或 -Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector，均需 com.lmax:disruptor 包）；或用 <Async> Appender 包装 %s。", ap.Name, ap.Name))
		apply, revert, note := a.bufferFix(ap)
		f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: finding.Join(note, finding.T(
			" For asynchronous loggers instead: replace <Root> with <AsyncRoot> (or start the JVM with -Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector) and add com.lmax:disruptor to the classpath (3.4.x for log4j 2.x before 2.23, 4.x supported since); without the jar log4j2 fails to start the async loggers.",
			" 若改用异步 Logger：把 <Root> 换成 <AsyncRoot>（或启动参数加 -Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector），并把 com.lmax:disruptor 加入 classpath（log4j 2.23 之前用 3.4.x，之后支持 4.x）；缺少该包时异步 Logger 无法启动。"))}
		f.Risk = finding.T("Events buffered and not yet flushed (up to bufferSize bytes) are lost if the JVM crashes or is killed -9, and the file's tail lags until the buffer fills; async loggers lose queued events on a crash and block or discard when the ring buffer is full (log4j2.asyncQueueFullPolicy).",
			"JVM 崩溃或被 kill -9 时，缓冲区中未刷盘的日志（最多 bufferSize 字节）会丢失，日志文件末尾会延迟到缓冲区写满才出现；异步 Logger 崩溃时会丢失队列中的日志，RingBuffer 满时按 log4j2.asyncQueueFullPolicy 阻塞或丢弃。")
	default:
		f.Why = finding.T("log4j 1.x synchronizes on every Logger up the hierarchy (usually the RootLogger) and on the appender while it writes; with ImmediateFlush=true and unbuffered I/O every log call holds those locks for a write() system call, so all logging threads run one at a time (in a thread dump: threaddump.lock.log4j1-category; a bank's credit-card core system found 42-74% of its threads waiting).",
			"log4j 1.x 在写日志时对 Logger 层级上的每个 Logger（通常是 RootLogger）和 Appender 加 synchronized 锁；默认 ImmediateFlush=true 且不缓冲，每次打日志都要在持锁状态下完成一次 write() 系统调用，所有打日志的线程只能串行执行（线程转储中表现为 threaddump.lock.log4j1-category；某银行信用卡核心系统实测 42%-74% 的线程处于等待）。")
		f.Recommended = finding.T("Buffer the file appender: ImmediateFlush=false, BufferedIO=true, BufferSize=8192 (or larger); or wrap it in an AsyncAppender (XML configuration); plan the move to log4j2 or logback (log4j 1.x is end-of-life).",
			"为文件 Appender 开启缓冲：ImmediateFlush=false、BufferedIO=true、BufferSize=8192（或更大）；或用 AsyncAppender 包装（需 XML 配置）；规划迁移到 log4j2 或 logback（log4j 1.x 已停止维护）。")
		apply, revert, note := a.bufferFix(ap)
		f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: finding.Join(note, finding.T(" BufferedIO=true turns ImmediateFlush off by itself; set both so the intent is clear.",
			" BufferedIO=true 本身会关闭 ImmediateFlush；两者都写上以明确意图。"))}
		f.Risk = finding.T("Buffered log lines not yet written are lost if the JVM crashes or is killed -9 (up to BufferSize bytes per appender); the tail of the log lags until the buffer fills.",
			"JVM 崩溃或被 kill -9 时，缓冲区中尚未写盘的日志会丢失（每个 Appender 最多 BufferSize 字节）；日志文件的末尾会延迟到缓冲区写满才出现。")
	}
	return f
}

func (a *Input) console(ap *Appender, sync []Route) finding.Outcome {
	f := a.fail(ap.Name, finding.Warning)
	f.Confidence = a.confidence(ap, sync)
	target := "System.out"
	if ap.Target.Set && ap.Target.Raw != "" {
		target = ap.Target.Raw
	}
	f.Observed = finding.Join(finding.T(
		fmt.Sprintf("Appender %s (%s, line %d) writes to %s on the logging thread for %s.", ap.Name, shortClass(ap.Class), ap.Line, target, routeLoggers(sync)),
		fmt.Sprintf("Appender %s（%s，第 %d 行）由 %s 在业务线程上同步写入 %s。", ap.Name, shortClass(ap.Class), ap.Line, routeLoggersZH(sync), target)),
		profileNote(ap, sync))
	f.Evidence = append(a.appenderEvidence(ap), routeEvidence(a, sync)...)
	f.Why = finding.Join(finding.T("Console output goes through System.out, a synchronized PrintStream that is flushed per event; when stdout is redirected to a file (nohup.out, catalina.out) or read by journald or a container runtime, every log call waits for that write, and a slow reader blocks the application. Logging the same events to a file and to the console does the work twice.",
		"控制台输出经过 System.out——一个 synchronized 的 PrintStream，每条日志都会刷新；当 stdout 被重定向到文件（nohup.out、catalina.out）或由 journald、容器运行时读取时，每次打日志都要等这次写入完成，读取方慢时还会阻塞应用。同样的日志同时写文件和控制台，工作量翻倍。"), seedEvidence)
	f.References = append(append([]string(nil), refs[a.lib]...), "https://docs.spring.io/spring-boot/reference/features/logging.html")
	// Prefer the root's reference; remove it when the logger has another appender.
	r := sync[0]
	for _, x := range sync {
		if x.Logger.Root && len(x.Via) == 0 {
			r = x
			break
		}
	}
	if len(r.Via) == 0 && len(r.Logger.Refs) > 1 {
		apply, revert := a.withoutRef(r.Logger, ap.Name)
		f.Recommended = finding.T(fmt.Sprintf("Remove %s from %s in production and keep it in the development configuration only.", ap.Name, r.Logger.Display()),
			fmt.Sprintf("生产环境中从 %s 去掉 %s，仅在开发环境的配置中保留。", r.Logger.Display(), ap.Name))
		if a.lib == Logback {
			f.Recommended = finding.Join(f.Recommended, finding.T(" In logback-spring.xml, a <root> inside <springProfile name=\"dev\"> can keep it for development.", " 在 logback-spring.xml 中，可在 <springProfile name=\"dev\"> 内的 <root> 为开发环境保留它。"))
		}
		f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: finding.Join(finding.T(
			fmt.Sprintf("Replace the definition of %s at line %d with these lines. ", r.Logger.Display(), r.Logger.Line),
			fmt.Sprintf("用这些行替换第 %d 行 %s 的定义。", r.Logger.Line, r.Logger.Display())), reloadNote[a.lib])}
		return f
	}
	f.Recommended = finding.T(fmt.Sprintf("%s is the only appender of %s: put it behind an async appender (or log to a file and let the collector tail it).", ap.Name, r.Logger.Display()),
		fmt.Sprintf("%s 是 %s 唯一的 Appender：把它放在异步 Appender 之后（或改为写文件，由采集程序读取文件）。", ap.Name, r.Logger.Display()))
	if apply, revert, note, ok := a.asyncWrap(ap, sync); ok {
		f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: note}
		return f
	}
	p := "log4j.appender." + ap.Name + ".Threshold"
	f.Recommended = finding.T(fmt.Sprintf("%s is the only appender of %s and log4j.properties cannot configure an AsyncAppender: raise its threshold to WARN, or move to log4j.xml with an AsyncAppender.", ap.Name, r.Logger.Display()),
		fmt.Sprintf("%s 是 %s 唯一的 Appender，而 log4j.properties 无法配置 AsyncAppender：把它的阈值提高到 WARN，或改用 log4j.xml 配置 AsyncAppender。", ap.Name, r.Logger.Display()))
	f.Fix = finding.Fix{Apply: p + "=WARN", Revert: p + "=ALL", Note: finding.Join(finding.T("Add the line to log4j.properties. ", "把这一行加入 log4j.properties。"), reloadNote[a.lib])}
	return f
}

func (a *Input) queueSmall(ap *Appender, rs []Route) (finding.Outcome, bool) {
	def := map[Library]int{Logback: 256, Log4j2: 1024, Log4j1: 128}[a.lib]
	q := ap.QueueSize.Int(def)
	if q >= 1024 {
		return finding.Outcome{}, false
	}
	sev := finding.Info
	obs := finding.T(fmt.Sprintf("Async appender %s (line %d) has a queue of %d events", ap.Name, ap.Line, q),
		fmt.Sprintf("异步 Appender %s（第 %d 行）的队列只有 %d 个事件", ap.Name, ap.Line, q))
	if !ap.QueueSize.Set {
		obs = finding.Join(obs, finding.T(" (the default)", "（默认值）"))
	}
	if a.lib == Logback && !ap.DiscardingThreshold.Set {
		sev = finding.Warning
		obs = finding.Join(obs, finding.T(fmt.Sprintf("; discardingThreshold is the default (queueSize/5 = %d): once fewer than %d slots are free, TRACE, DEBUG and INFO events are silently dropped.", q/5, q/5),
			fmt.Sprintf(";discardingThreshold 为默认值（queueSize/5 = %d）：剩余空位少于 %d 时，TRACE、DEBUG、INFO 日志会被静默丢弃。", q/5, q/5)))
	} else {
		obs = finding.Join(obs, finding.T(".", "。"))
	}
	f := a.fail(ap.Name, sev)
	f.Confidence = a.confidence(ap, rs)
	f.Observed = finding.Join(obs, profileNote(ap, rs))
	f.Evidence = append(a.appenderEvidence(ap), optEvidence(a, "queueSize", ap.QueueSize, fmt.Sprint(def), ap.Line))
	if a.lib == Logback {
		f.Evidence = append(f.Evidence, optEvidence(a, "discardingThreshold", ap.DiscardingThreshold, "queueSize/5", ap.Line))
	}
	where := finding.T(fmt.Sprintf("In the async appender %s defined at line %d. ", ap.Name, ap.Line), fmt.Sprintf("写在第 %d 行定义的异步 Appender %s 中。", ap.Line, ap.Name))
	switch a.c.Kind {
	case KindLogbackXML:
		f.Fix = finding.Fix{Apply: "<queueSize>8192</queueSize>", Revert: a.optLine(ap.QueueSize, "<queueSize>256</queueSize>")}
	case KindLog4j2XML:
		f.Fix = finding.Fix{Apply: renderTag(tagName(ap), ap.attrs, attr{"bufferSize", "8192"}), Revert: ap.StartTag}
		where = finding.T(fmt.Sprintf("Replace the start tag of %s at line %d. ", ap.Name, ap.Line), fmt.Sprintf("替换第 %d 行 %s 的起始标签。", ap.Line, ap.Name))
	case KindLog4j2Properties:
		p := "appender." + ap.key + ".bufferSize = "
		f.Fix = finding.Fix{Apply: p + "8192", Revert: a.optLine(ap.QueueSize, p+"1024")}
	case KindLog4j1XML:
		f.Fix = finding.Fix{Apply: "<param name=\"BufferSize\" value=\"8192\"/>", Revert: a.optLine(ap.QueueSize, "<param name=\"BufferSize\" value=\"128\"/>")}
	default:
		p := "log4j.appender." + ap.Name + ".BufferSize="
		f.Fix = finding.Fix{Apply: p + "8192", Revert: a.optLine(ap.QueueSize, p+"128")}
	}
	f.Fix.Note = finding.Join(where, reloadNote[a.lib])
	f.References = refs[a.lib]
	return f, true
}

func (a *Input) blocking(ap *Appender, rs []Route) (finding.Outcome, bool) {
	var state string
	switch a.lib {
	case Logback:
		if ap.NeverBlock.Bool(false) {
			return finding.Outcome{}, false
		}
		state = "neverBlock=false"
		if !ap.NeverBlock.Set {
			state += " (default)"
		}
	default:
		if !ap.Blocking.Bool(true) {
			return finding.Outcome{}, false
		}
		state = "blocking=true"
		if a.lib == Log4j1 {
			state = "Blocking=true"
		}
		if !ap.Blocking.Set {
			state += " (default)"
		}
	}
	f := a.fail(ap.Name, finding.Info)
	f.Confidence = a.confidence(ap, rs)
	f.Observed = finding.Join(finding.T(fmt.Sprintf("Async appender %s (line %d): %s.", ap.Name, ap.Line, state), fmt.Sprintf("异步 Appender %s（第 %d 行）：%s。", ap.Name, ap.Line, state)), profileNote(ap, rs))
	o := ap.Blocking
	if a.lib == Logback {
		o = ap.NeverBlock
	}
	f.Evidence = append(a.appenderEvidence(ap), optEvidence(a, strings.SplitN(state, "=", 2)[0], o, strings.SplitN(strings.SplitN(state, "=", 2)[1], " ", 2)[0], ap.Line))
	f.References = refs[a.lib]
	switch a.c.Kind {
	case KindLogbackXML:
		f.Recommended = finding.T("If dropping events under overload is acceptable, set neverBlock=true (keep the default discardingThreshold so lower levels go first).",
			"如果允许过载时丢弃日志，设置 neverBlock=true（保留默认 discardingThreshold，使低级别日志先被丢弃）。")
		f.Fix = finding.Fix{Apply: "<neverBlock>true</neverBlock>", Revert: a.optLine(ap.NeverBlock, "<neverBlock>false</neverBlock>"),
			Note: finding.Join(finding.T(fmt.Sprintf("Inside the AsyncAppender %s (line %d). ", ap.Name, ap.Line), fmt.Sprintf("写在第 %d 行的 AsyncAppender %s 内。", ap.Line, ap.Name)), reloadNote[a.lib])}
	case KindLog4j2XML, KindLog4j2Properties:
		f.Recommended = finding.T("If dropping events under overload is acceptable, start the JVM with -Dlog4j2.asyncQueueFullPolicy=Discard -Dlog4j2.discardThreshold=INFO: while the queue is full, INFO and lower are dropped instead of blocking.",
			"如果允许过载时丢弃日志，启动参数加 -Dlog4j2.asyncQueueFullPolicy=Discard -Dlog4j2.discardThreshold=INFO：队列满时丢弃 INFO 及以下级别的日志而不是阻塞。")
		f.Fix = finding.Fix{Apply: "-Dlog4j2.asyncQueueFullPolicy=Discard\n-Dlog4j2.discardThreshold=INFO", Revert: "remove -Dlog4j2.asyncQueueFullPolicy and -Dlog4j2.discardThreshold",
			Note: finding.T("JVM options: add them to the start script (JAVA_OPTS) or put log4j2.asyncQueueFullPolicy=Discard and log4j2.discardThreshold=INFO in log4j2.component.properties; they apply to every Async appender and async logger. Restart to apply. blocking=\"false\" on the appender instead sends overflow to its errorRef appender, or drops it.",
				"这是 JVM 参数：加到启动脚本（JAVA_OPTS），或在 log4j2.component.properties 中写 log4j2.asyncQueueFullPolicy=Discard 与 log4j2.discardThreshold=INFO；对所有 Async Appender 和异步 Logger 生效。重启后生效。若在 Appender 上设置 blocking=\"false\"，队列满时事件会交给 errorRef Appender 或直接丢弃。")}
	default:
		f.Recommended = finding.T("If dropping events under overload is acceptable, set Blocking=false: while the buffer is full events are discarded and a summary of the discarded events is logged.",
			"如果允许过载时丢弃日志，设置 Blocking=false：缓冲区满时丢弃事件，并记录一条被丢弃事件的汇总。")
		f.Fix = finding.Fix{Apply: "<param name=\"Blocking\" value=\"false\"/>", Revert: a.optLine(ap.Blocking, "<param name=\"Blocking\" value=\"true\"/>"),
			Note: finding.Join(finding.T(fmt.Sprintf("Inside the AsyncAppender %s (line %d) in log4j.xml. ", ap.Name, ap.Line), fmt.Sprintf("写在 log4j.xml 第 %d 行的 AsyncAppender %s 内。", ap.Line, ap.Name)), reloadNote[a.lib])}
	}
	return f, true
}

var callerWhy = finding.T("Finding the caller means creating a Throwable and walking the stack for every event, on the logging thread (for an async appender, before the event is queued); the log4j2 manual warns it can make asynchronous logging 30-100 times slower.",
	"获取调用者信息需要为每条日志创建 Throwable 并遍历堆栈，这发生在业务线程上（异步 Appender 则在入队之前）；log4j2 手册指出这会让异步日志慢 30-100 倍。")

var callerRisk = finding.T("Log lines lose the caller's class, method and line number; the logger name (%logger / %c) usually identifies the class.",
	"日志行不再包含调用者的类、方法和行号；Logger 名称（%logger / %c）通常已能标识类。")

func (a *Input) callerData(ap *Appender, rs []Route) (finding.Outcome, bool) {
	explicit := ap.CallerData.Bool(false)
	var words []string
	if ap.Pattern.Set && (len(syncRoutes(rs)) > 0 || explicit) {
		words = locationWords(ap.Pattern.Raw, a.lib)
	}
	if !explicit && len(words) == 0 {
		return finding.Outcome{}, false
	}
	f := a.fail(ap.Name, finding.Warning)
	f.Confidence = a.confidence(ap, rs)
	f.Evidence = a.appenderEvidence(ap)
	f.Why = callerWhy
	f.Risk = callerRisk
	f.References = append(append([]string(nil), refs[a.lib]...), map[Library]string{
		Logback: "https://logback.qos.ch/manual/layouts.html#caller",
		Log4j2:  "https://logging.apache.org/log4j/2.x/manual/layouts.html#LocationInformation",
		Log4j1:  "https://logging.apache.org/log4j/1.x/apidocs/org/apache/log4j/PatternLayout.html",
	}[a.lib])
	if explicit {
		name := map[Library]string{Logback: "includeCallerData", Log4j2: "includeLocation", Log4j1: "LocationInfo"}[a.lib]
		f.Observed = finding.Join(finding.T(fmt.Sprintf("Appender %s (line %d): %s=%s.", ap.Name, ap.Line, name, ap.CallerData.Raw),
			fmt.Sprintf("Appender %s（第 %d 行）：%s=%s。", ap.Name, ap.Line, name, ap.CallerData.Raw)), profileNote(ap, rs))
		f.Evidence = append(f.Evidence, finding.Evidence{Key: name, Value: ap.CallerData.Raw, Source: a.src(ap.CallerData.Line)})
		f.Recommended = finding.T(fmt.Sprintf("Set %s=false unless the pattern really needs the caller's line number.", name), fmt.Sprintf("除非日志格式确实需要调用者行号，否则设置 %s=false。", name))
		switch a.c.Kind {
		case KindLogbackXML:
			f.Fix = finding.Fix{Apply: "<includeCallerData>false</includeCallerData>", Revert: a.optLine(ap.CallerData, "")}
		case KindLog4j2XML:
			f.Fix = finding.Fix{Apply: renderTag(tagName(ap), ap.attrs, attr{"includeLocation", "false"}), Revert: ap.StartTag}
		case KindLog4j2Properties:
			f.Fix = finding.Fix{Apply: "appender." + ap.key + ".includeLocation = false", Revert: a.optLine(ap.CallerData, "")}
		case KindLog4j1XML:
			f.Fix = finding.Fix{Apply: "<param name=\"LocationInfo\" value=\"false\"/>", Revert: a.optLine(ap.CallerData, "")}
		default:
			f.Fix = finding.Fix{Apply: "log4j.appender." + ap.Name + ".LocationInfo=false", Revert: a.optLine(ap.CallerData, "")}
		}
		f.Fix.Note = finding.Join(finding.T(fmt.Sprintf("Replace line %d (appender %s). ", ap.CallerData.Line, ap.Name), fmt.Sprintf("替换第 %d 行（Appender %s）。", ap.CallerData.Line, ap.Name)), reloadNote[a.lib])
		return f, true
	}
	w := strings.Join(words, " ")
	f.Observed = finding.Join(finding.T(fmt.Sprintf("The pattern of %s (line %d) uses %s, written on the logging thread.", ap.Name, ap.Pattern.Line, w),
		fmt.Sprintf("%s 的日志格式（第 %d 行）使用了 %s，在业务线程上输出。", ap.Name, ap.Pattern.Line, w)), profileNote(ap, rs))
	f.Evidence = append(f.Evidence, finding.Evidence{Key: "pattern", Value: ap.Pattern.Raw, Source: a.src(ap.Pattern.Line)})
	f.Recommended = finding.T(fmt.Sprintf("Remove %s from the pattern; the logger name (%%logger / %%c) already names the class.", w),
		fmt.Sprintf("从日志格式中去掉 %s；Logger 名称（%%logger / %%c）已能标识类。", w))
	cleaned := stripLocation(ap.Pattern.Raw, a.lib)
	line := a.lineText(ap.Pattern.Line)
	apply := cleaned
	if line != "" && strings.Contains(line, ap.Pattern.Raw) {
		apply = strings.Replace(line, ap.Pattern.Raw, cleaned, 1)
	} else if line != "" {
		line = ap.Pattern.Raw
	}
	if line == "" {
		line = ap.Pattern.Raw
	}
	f.Fix = finding.Fix{Apply: apply, Revert: line, Note: finding.Join(finding.T(fmt.Sprintf("Replace line %d. ", ap.Pattern.Line), fmt.Sprintf("替换第 %d 行。", ap.Pattern.Line)), reloadNote[a.lib])}
	return f, true
}

func (a *Input) loggerCallerData(l *Logger) finding.Outcome {
	f := a.fail(l.Display(), finding.Warning)
	kind := "Logger"
	if l.Async {
		kind = "AsyncLogger"
	}
	f.Observed = finding.T(fmt.Sprintf("%s %s (line %d): includeLocation=%s.", kind, l.Display(), l.Line, l.CallerData.Raw),
		fmt.Sprintf("%s %s（第 %d 行）：includeLocation=%s。", kind, l.Display(), l.Line, l.CallerData.Raw))
	f.Evidence = []finding.Evidence{{Key: "logger", Value: l.Display(), Source: a.src(l.Line)}, {Key: "includeLocation", Value: l.CallerData.Raw, Source: a.src(l.CallerData.Line)}}
	f.Recommended = finding.T("Set includeLocation=\"false\" unless the pattern prints %L, %l, %M, %C or %F.", "除非日志格式输出 %L、%l、%M、%C 或 %F，否则设置 includeLocation=\"false\"。")
	if a.c.Kind == KindLog4j2Properties {
		f.Fix = finding.Fix{Apply: l.key + ".includeLocation = false", Revert: a.optLine(l.CallerData, "")}
	} else {
		f.Fix = finding.Fix{Apply: renderTag(tagOf(l.StartTag, "Logger"), l.attrs, attr{"includeLocation", "false"}), Revert: l.StartTag}
	}
	f.Fix.Note = finding.Join(finding.T(fmt.Sprintf("Replace line %d. ", l.CallerData.Line), fmt.Sprintf("替换第 %d 行。", l.CallerData.Line)), reloadNote[a.lib])
	f.References = []string{"https://logging.apache.org/log4j/2.x/manual/async.html", "https://logging.apache.org/log4j/2.x/manual/layouts.html#LocationInformation"}
	return f
}

func (a *Input) debugLevel() (finding.Outcome, bool) {
	r := a.c.Root()
	if r == nil {
		return finding.Outcome{}, false
	}
	lvl, def := r.Level.Raw, false
	if !r.Level.Set || strings.TrimSpace(lvl) == "" {
		lvl, def = map[Library]string{Logback: "DEBUG", Log4j1: "DEBUG", Log4j2: "ERROR"}[a.lib], true
	}
	if !isLevel(lvl, "debug", "trace", "all", "finest", "finer", "fine") || isDevProfile(r.levelProfile) {
		return finding.Outcome{}, false
	}
	f := a.fail("root", finding.Warning)
	if def {
		f.Observed = finding.T(fmt.Sprintf("The root logger (line %d) sets no level: %s defaults to %s.", r.Line, a.lib, lvl),
			fmt.Sprintf("根 Logger（第 %d 行）未设置级别：%s 默认为 %s。", r.Line, a.lib, lvl))
	} else {
		f.Observed = finding.T(fmt.Sprintf("The root logger's level is %s (line %d).", lvl, r.Level.Line), fmt.Sprintf("根 Logger 的级别为 %s（第 %d 行）。", lvl, r.Level.Line))
	}
	if p := r.levelProfile; p != "" {
		f.Observed = finding.Join(f.Observed, finding.T(" Only when the Spring profile "+p+" is active.", " 仅在 Spring profile "+p+" 激活时生效。"))
		f.Confidence = 0.8
	}
	f.Evidence = []finding.Evidence{optEvidence(a, "root level", r.Level, lvl, r.Line)}
	for _, l := range a.c.Loggers {
		if !l.Root && l.Level.Set && isLevel(l.Level.Raw, "debug", "trace", "all") {
			f.Evidence = append(f.Evidence, finding.Evidence{Key: "logger level", Value: l.Name + " = " + l.Level.Raw, Source: a.src(l.Level.Line)})
		}
	}
	apply, revert := a.levelFix(r)
	f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: finding.Join(finding.T(fmt.Sprintf("Replace the root logger's level (line %d). ", r.Line), fmt.Sprintf("修改根 Logger 的级别（第 %d 行）。", r.Line)), reloadNote[a.lib])}
	if f.Fix.Revert == "" {
		f.Fix.Revert = "remove the level setting: " + lvl + " is the default"
	}
	f.References = map[Library][]string{
		Logback: {"https://logback.qos.ch/manual/configuration.html"},
		Log4j2:  {"https://logging.apache.org/log4j/2.x/manual/configuration.html"},
		Log4j1:  {"https://logging.apache.org/log4j/1.x/manual.html"},
	}[a.lib]
	return f, true
}

func (a *Input) prudent(ap *Appender, rs []Route) finding.Outcome {
	f := a.fail(ap.Name, finding.Warning)
	f.Confidence = a.confidence(ap, rs)
	f.Observed = finding.Join(finding.T(fmt.Sprintf("Appender %s (line %d): prudent=%s.", ap.Name, ap.Line, ap.Prudent.Raw), fmt.Sprintf("Appender %s（第 %d 行）：prudent=%s。", ap.Name, ap.Line, ap.Prudent.Raw)), profileNote(ap, rs))
	f.Evidence = append(a.appenderEvidence(ap), finding.Evidence{Key: "prudent", Value: ap.Prudent.Raw, Source: a.src(ap.Prudent.Line)})
	f.Fix = finding.Fix{Apply: "<prudent>false</prudent>", Revert: a.optLine(ap.Prudent, "<prudent>true</prudent>"),
		Note: finding.Join(finding.T(fmt.Sprintf("Replace line %d in %s. ", ap.Prudent.Line, ap.Name), fmt.Sprintf("替换 %s 中的第 %d 行。", ap.Name, ap.Prudent.Line)), reloadNote[a.lib])}
	return f
}

func (a *Input) sifting(ap *Appender, rs []Route) finding.Outcome {
	sync := syncRoutes(rs)
	sev := finding.Warning
	if len(sync) == 0 {
		sev = finding.Info
		sync = rs
	}
	f := a.fail(ap.Name, sev)
	f.Confidence = a.confidence(ap, rs)
	var nested []string
	for _, ch := range a.c.Appenders {
		if ch.Parent == ap.Name {
			nested = append(nested, fmt.Sprintf("%s (%s, %s)", ch.Name, shortClass(ch.Class), flushState(a, ch)))
		}
	}
	f.Observed = finding.Join(finding.T(fmt.Sprintf("SiftingAppender %s (line %d) is reached by %s; nested: %s.", ap.Name, ap.Line, routeLoggers(rs), strings.Join(nested, "; ")),
		fmt.Sprintf("SiftingAppender %s（第 %d 行）由 %s 引用；内部 Appender:%s。", ap.Name, ap.Line, routeLoggersZH(rs), strings.Join(nested, ";"))), profileNote(ap, rs))
	f.Evidence = append(a.appenderEvidence(ap), routeEvidence(a, rs)...)
	f.Why = finding.T("SiftingAppender extends AppenderBase, whose doAppend is synchronized: every event from every thread takes the same monitor while the nested appender formats and writes it, whatever the discriminator value. A published lock profile of a Java proxy (async-profiler -e lock) had 99.99% of lock samples on this monitor; making logging asynchronous raised throughput to 32000 TPS.",
		"SiftingAppender 继承 AppenderBase，其 doAppend 为 synchronized：无论 discriminator 取值如何，所有线程的每条日志都要获取同一个监视器锁，并在持锁状态下由内部 Appender 格式化和写出。一篇公开的 Java 代理服务锁剖析（async-profiler -e lock）中 99.99% 的锁采样落在该监视器上；日志异步化后 TPS 达到 32000。")
	if sev == finding.Info {
		f.Why = finding.Join(f.Why, finding.T(" Here it is already behind an async appender, so only the worker thread takes the lock.", " 此处它已在异步 Appender 之后，只有工作线程会获取该锁。"))
	}
	f.Recommended = finding.T(fmt.Sprintf("Wrap %s in an AsyncAppender (queueSize 8192, neverBlock=true) so one worker thread does the sifting, and set immediateFlush=false on the nested appender.", ap.Name),
		fmt.Sprintf("用 AsyncAppender 包装 %s(queueSize 8192,neverBlock=true)，由一个工作线程完成分发，并在内部 Appender 上设置 immediateFlush=false。", ap.Name))
	if apply, revert, note, ok := a.asyncWrap(ap, sync); ok && sev == finding.Warning {
		f.Fix = finding.Fix{Apply: apply, Revert: revert, Note: note}
	} else {
		f.Fix = finding.Fix{Apply: "<immediateFlush>false</immediateFlush>", Revert: "<immediateFlush>true</immediateFlush>",
			Note: finding.Join(finding.T("Inside the nested appender of the <sift> element. ", "写在 <sift> 内部的 Appender 中。"), reloadNote[a.lib])}
	}
	return f
}

// Classes of log4j 1.x with unfixed CVEs.
var log4j1CVEClasses = map[string]string{
	"org.apache.log4j.net.JMSAppender":       "CVE-2021-4104",
	"org.apache.log4j.jdbc.JDBCAppender":     "CVE-2022-23305",
	"org.apache.log4j.net.SocketHubAppender": "CVE-2019-17571",
	"org.apache.log4j.net.SocketServer":      "CVE-2019-17571",
	"org.apache.log4j.net.JMSSink":           "CVE-2022-23302",
	"org.apache.log4j.chainsaw.Main":         "CVE-2022-23307",
}

func (a *Input) log4j1EOL() finding.Outcome {
	f := a.fail("", finding.Warning)
	f.Observed = finding.T(fmt.Sprintf("%s is a log4j 1.x configuration (%s).", a.c.Path, a.c.Kind), fmt.Sprintf("%s 是 log4j 1.x 配置（%s）。", a.c.Path, a.c.Kind))
	f.Evidence = []finding.Evidence{{Key: "format", Value: a.c.Kind.String(), Source: a.c.Path}}
	for _, ap := range a.c.Appenders {
		if cve, ok := log4j1CVEClasses[strings.TrimSpace(ap.Class)]; ok {
			f = f.WithSeverity(finding.Critical)
			f.Evidence = append(f.Evidence, finding.Evidence{Key: cve, Value: ap.Name + " (" + ap.Class + ")", Source: a.src(ap.Line)})
			f.Observed = finding.Join(f.Observed, finding.T(fmt.Sprintf(" Appender %s uses %s, affected by %s.", ap.Name, shortClass(ap.Class), cve),
				fmt.Sprintf(" Appender %s 使用了 %s，受 %s 影响。", ap.Name, shortClass(ap.Class), cve)))
		}
	}
	return f
}
