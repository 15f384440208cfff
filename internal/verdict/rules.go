package verdict

import (
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Input is what the verdict's rules read: the run's layers and, for the
// decision, the findings already made of them.
type Input struct {
	L *Layers
	// Service is how the service ended during the run (nil: it did not).
	Service *runfolder.ServiceEnd
	// Recorded are the run's findings (host diagnosis and thread dumps);
	// Dumps the thread dumps' among them, ranked.
	Recorded, Dumps []finding.Finding
	// GCCause is the GC log's first finding at warning level or above.
	GCCause *finding.Finding
	// Ev is the threads' time account the mechanism catalogue reads.
	Ev *mechanism.Evidence
	// Unreadable and OtherHost are a file of the folder not used, and why.
	Unreadable, OtherHost *Unused
	causes                map[string]*finding.Finding
}

// Unused is a file of the run folder the verdict could not use, and why.
type Unused struct {
	File string
	Why  finding.Text
}

// verdictRules is Rules() indexed once (an init, not a variable's
// initializer: the rules' conditions look each other up).
var verdictRules map[string]*finding.Rule[*Input]

func init() {
	rs := Rules()
	verdictRules = make(map[string]*finding.Rule[*Input], len(rs))
	for i := range rs {
		verdictRules[rs[i].ID] = &rs[i]
	}
}

// cause is the first failure of rule id on in, evaluated once per input by
// the engine (nil: the rule did not fire).
func (in *Input) cause(id string) *finding.Finding {
	if f, done := in.causes[id]; done {
		return f
	}
	if in.causes == nil {
		in.causes = map[string]*finding.Finding{}
	}
	f := find(verdictRules[id].Evaluate(in), func(*finding.Finding) bool { return true })
	in.causes[id] = f
	return f
}

// one evaluates rule id alone on the layers.
func one(id string, L *Layers) *finding.Finding { return (&Input{L: L}).cause(id) }

// Validate checks the verdict's rule set (both languages, a reference,
// unique IDs).
func Validate() error { return finding.ValidateRules(Rules()) }

var (
	noRisk     = finding.T("None: this is a diagnosis.", "无：这是诊断结论。")
	anyLoad    = finding.T("any", "所有负载")
	javaHang   = "Troubleshoot Process Hangs and Loops (Oracle, Java SE Troubleshooting Guide)"
	javaOOM    = "Understand the OutOfMemoryError Exception (Oracle, Java SE Troubleshooting Guide, Troubleshoot Memory Leaks)"
	jmeterBest = "https://jmeter.apache.org/usermanual/best-practices.html"
	runFolder  = "tuneloop README: the run folder (manifest.json, load.json, raw/)"
)

// Rules is the verdict's rule set: the causes a run's layers name beside
// the host diagnosis and the dumps (a service that ended or stopped
// answering, the load generator, TCP's delayed ACK, the waits of a closed
// model, a small host) and the files it could not use. Which cause is the
// root is the decision's (decide.go), in its table's order.
func Rules() []finding.Rule[*Input] {
	return []finding.Rule[*Input]{
		{
			ID: IDServiceExited, Category: "run", Severity: finding.Critical,
			Title:  finding.T("The service exited during the run", "服务在运行期间退出"),
			Checks: finding.T("The service tuneloop started ended while the load ran (its exit code or signal, when, and the last lines of its log).", "tuneloop 启动的服务在负载期间结束（退出码或信号、时间点与其日志最后几行）。"),
			Why: finding.T("A service that ended stops everything the run measures: the figures after that moment are of no service at all.",
				"服务结束后，本次运行测到的一切都不再属于服务：此后的数字没有意义。"),
			Recommended: finding.T("Read the whole service log (raw/service.log in the run folder): an exit code of 137 is SIGKILL (the kernel's OOM killer: dmesg; a container memory limit; an operator), 143 SIGTERM, 134 an abort (hs_err_pid*.log in the working directory), 1 an exception at the top of main.",
				"阅读完整的服务日志（运行目录中的 raw/service.log）：退出码 137 表示 SIGKILL（内核 OOM killer：查看 dmesg；容器内存限制；或被人为杀死），143 表示 SIGTERM，134 表示 abort（工作目录中的 hs_err_pid*.log），1 表示 main 抛出了异常。"),
			Risk: noRisk, Workload: finding.T("services tuneloop run starts (--start)", "由 tuneloop run 启动的服务（--start）"),
			Reads:      []string{"manifest.json service (exit code, signal, at, last log lines)"},
			References: []string{"signal(7) manual page (exit status 128 + signal number)", "Fatal Error Log (Oracle, Java SE Troubleshooting Guide): hs_err_pid<pid>.log"},
			Eval:       evalServiceExited,
		},
		{
			ID: IDServiceStalled, Category: "run", Severity: finding.Critical,
			Title:  finding.T("The service stopped answering during the run", "服务在运行期间停止应答"),
			Checks: finding.T("No request succeeded after some point of the load; the dumps taken then, its log and its GC log say why, in that order: a deadlock, an OutOfMemoryError in its log, the GC log's own out-of-memory, full GCs back to back at the GC log's end, what its working threads wait on. The finding takes the cause's ID.", "负载中某一时刻之后没有请求成功；当时的线程转储、服务日志与 GC 日志依次说明原因：死锁、日志中的 OutOfMemoryError、GC 日志自身的内存耗尽、GC 日志末尾背靠背的 Full GC、工作线程在等什么。该诊断采用原因的 ID。"),
			Why: finding.T("A service that answers nothing has no latency or throughput to tune: why it stopped comes before anything else.",
				"不再应答的服务谈不上延迟与吞吐的调优：先要弄清它为什么停下。"),
			Recommended: finding.T("Read the thread dumps in raw/ (tuneloop analyze RUN_DIR) and the service log, and take more while it does not answer (tuneloop jvm PID --dump 3).",
				"阅读 raw/ 中的线程转储（tuneloop analyze RUN_DIR）和服务日志，并在其无响应时继续抓取（tuneloop jvm PID --dump 3）。"),
			Risk: noRisk, Workload: finding.T("services tuneloop run starts (--start)", "由 tuneloop run 启动的服务（--start）"),
			Reads:      []string{"manifest.json service (hung, at, last log lines)", "raw/threaddump-*.txt taken when it stopped", "raw/gc-*.log"},
			References: []string{javaHang},
			Eval:       evalServiceStalled,
		},
		{
			ID: IDServiceOOM, Category: "run", Severity: finding.Critical,
			Title:  finding.T("it ran out of memory (OutOfMemoryError in its log)", "内存耗尽（日志中有 OutOfMemoryError）"),
			Checks: finding.T("The last lines of the log of a service that ended or stopped answering report an OutOfMemoryError (Java heap space, GC overhead limit exceeded).", "结束或停止应答的服务，其日志最后几行报告 OutOfMemoryError（Java heap space、GC overhead limit exceeded）。"),
			Why: finding.T("An OutOfMemoryError thrown in a thread the server needs (its acceptor, its dispatcher, a pool's workers) ends that thread: the JVM lives on and answers nothing. A heap full of live objects also makes every collection a full GC that frees next to nothing.",
				"在服务器必需的线程（接收线程、分发线程、线程池工作线程）中抛出的 OutOfMemoryError 会结束该线程：JVM 仍在运行，但不再应答。堆中充满存活对象时，每次回收都是几乎回收不了什么的 Full GC。"),
			Recommended: finding.T("Find what fills the heap: a class histogram (jcmd PID GC.class_histogram) or a heap dump (-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=...), then bound what is kept (an unbounded cache or list, a leak); raise -Xmx only when the live set really needs it. Add -XX:+ExitOnOutOfMemoryError so that a JVM which lost threads to an OOM exits and is restarted instead of hanging.",
				"查明是什么占满了堆：类直方图（jcmd PID GC.class_histogram）或堆转储（-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=...），然后限制保留的数据（无界缓存或列表、内存泄漏）；只有存活数据确实需要时才增大 -Xmx。加上 -XX:+ExitOnOutOfMemoryError，让因 OOM 失去线程的 JVM 退出并被重启，而不是挂起。"),
			Risk: finding.T("A larger heap only postpones an unbounded retention; ExitOnOutOfMemoryError needs a supervisor that restarts the service.",
				"更大的堆只会推迟无界保留的问题；ExitOnOutOfMemoryError 需要有守护进程重启服务。"),
			Workload: anyLoad, Reads: []string{"manifest.json service.last_log"}, References: []string{javaOOM},
			Eval: evalServiceOOM,
		},
		{
			ID: IDServiceInGC, Category: "run", Severity: finding.Critical,
			Title:  finding.T("it was collecting garbage back to back (full GCs at the end of its GC log)", "它在连续不断地做垃圾回收（GC 日志末尾是背靠背的 Full GC）"),
			Checks: finding.Tf(finding.T("The GC log ends in a burst of pauses, each within %.0f s of the previous one's end, with at least %d full GCs and full GCs at least half of the burst.", "GC 日志末尾是一串停顿（每次距上一次结束不超过 %.0f 秒），其中至少 %d 次 Full GC，且 Full GC 占这串停顿的一半以上。"), burstGapS, minFullBurst),
			Why: finding.T("Full GCs one after another mean the heap is full of live objects: each frees next to nothing, the next allocation triggers another, and the application threads barely run between them.",
				"接连不断的 Full GC 说明堆中充满存活对象：每次几乎回收不了什么，下一次分配又触发下一次 Full GC，应用线程在其间几乎得不到运行。"),
			Recommended: finding.T("Find what fills the heap (jcmd PID GC.class_histogram, or a heap dump) and bound it; size -Xmx to the live set with room to spare; add -XX:+ExitOnOutOfMemoryError so that a JVM stuck this way exits and is restarted.",
				"查明是什么占满了堆（jcmd PID GC.class_histogram，或堆转储）并加以限制；按存活数据量留足余量设置 -Xmx；加上 -XX:+ExitOnOutOfMemoryError，让这样卡住的 JVM 退出并被重启。"),
			Risk:     finding.T("A larger heap only postpones an unbounded retention.", "更大的堆只会推迟无界保留的问题。"),
			Workload: anyLoad, Reads: []string{GCLogGlob + " (its last pauses)"},
			References: []string{javaOOM, "HotSpot Virtual Machine Garbage Collection Tuning Guide (Oracle): Excessive GC time and OutOfMemoryError"},
			Eval:       evalServiceInGC,
		},
		{
			ID: IDHung, Category: "run", Severity: finding.Critical,
			Title:  finding.T("The service answered none of the requests", "服务没有应答任何请求"),
			Checks: finding.T("The load sent requests and got no answer to any (all failed, or none completed and some were in flight at the end), and no thread dump names a culprit; when the GC log says why (its own out-of-memory, full GCs back to back at its end), the finding takes that cause's ID.", "负载发出了请求却没有得到任何应答（全部失败，或没有一个完成且结束时仍有在途请求），且线程转储中没有找到原因；GC 日志说明原因时（其自身的内存耗尽、末尾背靠背的 Full GC），该诊断采用原因的 ID。"),
			Why: finding.T("A service that answers nothing has no latency or throughput to tune: why it does not answer comes before anything else.",
				"不应答的服务谈不上延迟与吞吐的调优：先要弄清它为什么不应答。"),
			Recommended: finding.T("Check the service log and take thread dumps while it does not answer (tuneloop jvm PID --dump 3).",
				"查看服务日志，并在其无响应时抓取线程转储（tuneloop jvm PID --dump 3）。"),
			Risk: noRisk, Workload: anyLoad, Reads: []string{LoadFile, "raw/threaddump-*.txt", GCLogGlob},
			References: []string{javaHang},
			Eval:       evalUnanswered,
		},
		{
			ID: IDDelayedACK, Category: "run", Severity: finding.Critical,
			Title:  finding.T("Responses wait for TCP's delayed ACK (Nagle): latency quantised near 40 ms", "响应在等待 TCP 延迟确认（Nagle）：延迟集中在 40 ms 附近"),
			Checks: finding.T("The load's p50 latency is near the kernel's 40 ms delayed ACK (36-48 ms) with at least one delayed ACK sent per two requests (TcpExt DelayedACKs over the run), while a request's CPU time is at most a quarter of its p50 (the service's CPU where it was recorded, else the host's less the load generator's): a request slow on a CPU delays its ACK, not the other way round.", "负载的 p50 延迟接近内核 40 ms 的延迟确认（36-48 ms），且每两个请求至少发送一个延迟 ACK（运行期间的 TcpExt DelayedACKs），同时每个请求的 CPU 时间不超过其 p50 的四分之一（有服务自身 CPU 时用它，否则用主机 CPU 减去压测端）：本身耗 CPU 的慢请求会使 ACK 延迟，而不是反过来。"),
			Why: finding.T("A response written in two small writes on a socket with Nagle's algorithm on: the second write waits until the first is acknowledged, and the peer delays its ACK by up to 40 ms.",
				"响应分两次小写入，且 Socket 开着 Nagle 算法：第二次写入要等第一次被确认，而对端把 ACK 最多延迟 40 ms。"),
			Recommended: finding.T("Set TCP_NODELAY on the server's sockets (Netty: ChannelOption.TCP_NODELAY; a plain Socket: setTcpNoDelay(true)) and write each response in one write (buffer headers and body).",
				"在服务端 Socket 上开启 TCP_NODELAY（Netty：ChannelOption.TCP_NODELAY；普通 Socket：setTcpNoDelay(true)），并一次写出整个响应（把头和体缓冲在一起）。"),
			Risk: finding.T("TCP_NODELAY sends small segments at once: more packets for many tiny writes, so write each response whole.",
				"TCP_NODELAY 会立即发送小报文段：大量细碎写入会产生更多报文，因此要整块写出响应。"),
			Workload:   finding.T("request/response services over TCP", "基于 TCP 的请求/响应服务"),
			Reads:      []string{LoadFile + " (p50, requests/s, generator CPU)", "/proc/net/netstat TcpExt DelayedACKs", "raw/samples.jsonl.gz (CPU)"},
			References: []string{"RFC 1122 4.2.3.2 (delayed ACK)", "RFC 896 (Nagle's algorithm)", "man 7 tcp: TCP_NODELAY, TCP_QUICKACK"},
			Eval:       evalDelayedACK,
		},
		{
			ID: IDGeneratorSaturated, Category: "run", Severity: finding.Warning,
			Title:  finding.T("The load generator itself saturated the CPUs: the result measures it, not the service", "压测工具自身占满了 CPU：结果反映的是压测工具，而不是服务"),
			Checks: finding.Tf(finding.T("The load generator used at least %d%% of the cores it runs on; for JMeter each engine on this host (its CPU over the window), JMeter's processes together, and engines whose threads could not open their connections.", "压测工具占用了其所在主机至少 %d%% 的 CPU；JMeter 时逐个检查本机的引擎（窗口内的 CPU）、本机 JMeter 进程合计，以及线程无法建立连接的引擎。"), generatorBusy),
			Why: finding.T("A load generator short of CPU sends its next request late: the latency and throughput measured are its own, not the service's.",
				"CPU 不足的压测工具会延迟发出下一个请求：测得的延迟与吞吐属于压测工具本身，而不是服务。"),
			Recommended: finding.T("Run the load from another host (JMeter on its own machine, or tuneloop load there) or lower the connection count.",
				"把压测放到另一台主机上（JMeter 单独部署，或在那台主机上运行 tuneloop load），或减少连接数。"),
			Risk:     finding.T("None: moving the load changes only where it runs.", "无：迁移压测只改变其运行位置。"),
			Workload: anyLoad, Reads: []string{LoadFile + " (client CPU, engines)", "/proc/PID/stat of the load generator"},
			References: []string{jmeterBest, "https://jmeter.apache.org/usermanual/remote-test.html"},
			Eval:       evalGenerator,
		},
		{
			ID: IDHostTooSmall, Category: "run", Severity: finding.Warning,
			Title:  finding.T("The CPUs are near saturation or oversubscribed: the host is small for this load", "CPU 接近饱和或超额：对这个负载来说主机偏小"),
			Checks: finding.Tf(finding.T("The CPUs were at least %d%% busy on average, or the run queue was longer than the CPUs; named the root cause when no thread, lock or GC explains it.", "CPU 平均繁忙不低于 %d%%，或运行队列长于 CPU 数；没有线程、锁或 GC 能解释时作为根因。"), nearSaturated),
			Why: finding.T("With the CPUs busy all the time more load only queues: latency grows with the queue while throughput stays flat.",
				"CPU 一直繁忙时，再加压只会排队：延迟随队列增长，吞吐不变。"),
			Recommended: finding.T("Profile the hot code (JFR or async-profiler), give the service more cores, or run the load generator on another host.",
				"对热点代码做剖析（JFR 或 async-profiler），给服务更多 CPU 核，或把压测机放到另一台主机上。"),
			Risk: noRisk, Workload: anyLoad, Reads: []string{"raw/samples.jsonl.gz (/proc/stat)", LoadFile + " (client CPU)"},
			References: []string{"The USE Method (Brendan Gregg, brendangregg.com)"},
			Eval:       evalNearSaturated,
		},
		{
			ID: IDLatencyBound, Category: "run", Severity: finding.Warning,
			Title:  finding.T("Throughput is bound by the time each request waits, not by this host's CPUs", "吞吐受每个请求的等待时间限制，而不是本机 CPU"),
			Checks: finding.Tf(finding.T("A closed-model load whose mean latency is at least %d ms while the JVM spent at most %.0f%% of it on a CPU per request; says where the working threads waited in the dumps.", "闭合模型负载的平均延迟不低于 %d ms，而 JVM 每个请求占用的 CPU 时间不超过其 %.0f%%；并根据线程转储说明工作线程在等什么。"), minWaitMS, 100*waitShare),
			Why: finding.T("In a closed model throughput is users / latency: time a request spends waiting off the CPUs (a downstream, a pool, a sleep) caps it while the CPUs idle.",
				"闭合模型中吞吐等于用户数 / 延迟：请求在 CPU 之外等待的时间（下游、池、sleep）会在 CPU 空闲时限制吞吐。"),
			Recommended: finding.T("Find what the requests wait for: take thread dumps during the load (tuneloop jvm PID --dump 3), look at downstream latency, pool sizes and sleeps; raising the users raises throughput only while nothing saturates.",
				"查明请求在等什么：在加压期间抓线程转储（tuneloop jvm PID --dump 3），检查下游延迟、池大小和 sleep；只要没有资源饱和，增加并发用户就能提高吞吐。"),
			Risk: noRisk, Workload: finding.T("closed-model loads (a fixed number of users)", "闭合模型负载（固定用户数）"),
			Reads:      []string{LoadFile + " (users, latency, requests/s)", "raw/samples.jsonl.gz (the JVM's CPU)", "raw/threaddump-*.txt"},
			References: []string{"Little's law (J. D. C. Little, Operations Research 9(3), 1961)", "Thread State Analysis (TSA) Method (Brendan Gregg, brendangregg.com)"},
			Eval:       evalLatencyBound,
		},
		{
			ID: IDUnreadable, Category: "run", Severity: finding.Info,
			Title:  finding.T("A file of the run folder could not be read", "运行目录中的文件无法读取"),
			Checks: finding.T("Each file of the run folder the verdict reads parses (read as untrusted: no link out of the folder, size caps).", "结论读取的每个运行目录文件都能解析（按不可信输入读取：不允许指向目录外的链接，有大小上限）。"),
			Why: finding.T("What an unreadable file would have said is missing from the verdict: it rests on the rest.",
				"无法读取的文件所能提供的证据在结论中缺失：结论只基于其余文件。"),
			Risk: noRisk, Workload: anyLoad, Reads: []string{"every file of the run folder"}, References: []string{runFolder},
			Eval: func(in *Input) []finding.Outcome { return unused(in.Unreadable) },
		},
		{
			ID: IDProbeRefused, Category: "run", Severity: finding.Info,
			Title:  finding.T("The run folder's probe is of another host: not used", "运行目录中的探测结果来自另一台主机：未使用"),
			Checks: finding.T("The probe kept in the run folder was taken on the run's host (the manifest's hostname, kernel and CPU model, and its machine ID when both know it).", "运行目录中保存的探测结果来自本次运行的主机（清单中的主机名、内核与 CPU 型号，以及双方都已知时的机器 ID）。"),
			Why: finding.T("Another host's figures (its disks, its network, its CPUs) would be cited as this run's.",
				"另一台主机的数字（磁盘、网络、CPU）会被当成本次运行的证据。"),
			Risk: noRisk, Workload: anyLoad, Reads: []string{probe.RunFile, "manifest.json facts"}, References: []string{runFolder},
			Eval: func(in *Input) []finding.Outcome { return unused(in.OtherHost) },
		},
	}
}

// unused is the outcome of a file of the folder not used.
func unused(u *Unused) []finding.Outcome {
	if u == nil {
		return nil
	}
	return []finding.Outcome{{Status: finding.Unavailable, Subject: u.File, Reason: u.Why}}
}
