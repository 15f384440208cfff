package cli

import "strings"

// helpZH is the Chinese of every help text of the command tree (Short,
// Long, Example, flag usages), keyed by the English exactly as written in
// the commands' files. TestHelpAllTranslated fails on any text missing here.
var helpZH = map[string]string{
	// tuneloop (root)
	"Performance diagnosis and tuning for Java services on Linux": "Linux 上 Java 服务的性能诊断与调优",
	"tuneloop audits the host, records a run under load, diagnoses the bottleneck\n" +
		"and reports the fix (x86-64 and ARM64/Kunpeng, JDK 8-25).": "tuneloop 审计主机，在负载下记录一次运行，诊断瓶颈并给出修复方法\n" +
		"（支持 x86-64 与 ARM64/鲲鹏，JDK 8-25）。",
	"version for tuneloop": "显示 tuneloop 的版本",

	// Flags shared by several commands
	"language: en or zh (default from LANG)":                           "语言：en 或 zh（默认取自 LANG）",
	"output format: text or json":                                      "输出格式：text 或 json",
	"output format: text, json or markdown":                            "输出格式：text、json 或 markdown",
	"exit 3 if a finding is at least this severe: warning or critical": "存在至少达到该严重级别的发现时以退出码 3 退出：warning 或 critical",
	"a probe folder of this host ('tuneloop probe'): findings whose cause is a platform cost cite its figures (default: the newest finished probe of this host in the catalog, unless --no-catalog, or under ./probes)":             "本机的探测目录（'tuneloop probe'）：原因是平台开销的发现会引用其中的指标（默认：运行记录目录中（除非 --no-catalog）或 ./probes 下本机最新的已完成探测结果）",
	"a probe folder of this host ('tuneloop probe'), copied into the run: the verdict and the host audit cite its figures (default: the newest finished probe of this host in the catalog, unless --no-catalog, or under ./probes)": "本机的探测目录（'tuneloop probe'），会复制进运行目录：结论与主机审计引用其中的指标（默认：运行记录目录中（除非 --no-catalog）或 ./probes 下本机最新的已完成探测结果）",
	"write the report to this file instead of standard output": "把报告写入该文件，而不是标准输出",
	"sampling interval":                 "采样间隔",
	"no live status line":               "不显示实时状态行",
	"do not add the run to the catalog": "不把本次运行加入运行记录目录",

	// Prometheus (record, run) and runs export
	"serve the live metrics for Prometheus on this address (e.g. 127.0.0.1:9464, path /metrics)": "在该地址为 Prometheus 提供实时指标（如 127.0.0.1:9464，路径 /metrics）",
	"write the live metrics each tick into this folder for the node_exporter textfile collector": "每个采样周期把实时指标写入该目录，供 node_exporter 的 textfile collector 读取",
	"Write a finished run's series as OpenMetrics, to load into Prometheus":                      "把已完成运行的时间序列写成 OpenMetrics，以便导入 Prometheus",
	`Write the per-tick series of a run folder (CPU, softirqs, load, memory,
disks, TCP, the target process and its top threads, the load's requests and
latency) as an OpenMetrics file with a timestamp on every sample, ending
with "# EOF". Load it into an existing Prometheus with
'promtool tsdb create-blocks-from openmetrics FILE DIR' and move the blocks
into its data folder. The metric names are those of --prometheus-listen.`: `把运行目录中逐周期的时间序列（CPU、软中断、负载、内存、磁盘、TCP、目标进程
及其最忙的线程、负载的请求数与延迟）写成 OpenMetrics 文件，每个样本带时间戳，
以 "# EOF" 结尾。用 'promtool tsdb create-blocks-from openmetrics FILE DIR'
导入已有的 Prometheus，再把生成的块移入其数据目录。指标名与 --prometheus-listen 相同。`,
	`  tuneloop runs export --openmetrics runs/20261125-1000-app1 -o run.om
  promtool tsdb create-blocks-from openmetrics run.om ./blocks`: `  tuneloop runs export --openmetrics runs/20261125-1000-app1 -o run.om
  promtool tsdb create-blocks-from openmetrics run.om ./blocks`,
	"write OpenMetrics text with timestamps (the only format so far)": "写出带时间戳的 OpenMetrics 文本（目前唯一的格式）",
	"write to this file instead of standard output":                   "写入该文件，而不是标准输出",

	// --host (check, record)
	"run on this host over SSH ([user@]host[:port] or a ~/.ssh/config alias); nothing is installed there":         "通过 SSH 在该主机上运行（[user@]host[:port] 或 ~/.ssh/config 中的别名）；不在该主机上安装任何东西",
	"--host: private key file to log in with (besides ssh-agent and ~/.ssh/config)":                               "--host：登录所用的私钥文件（ssh-agent 与 ~/.ssh/config 之外）",
	"--host: known_hosts file (default ~/.ssh/known_hosts); an unknown host key is refused":                       "--host：known_hosts 文件（默认 ~/.ssh/known_hosts）；未知的主机密钥会被拒绝",
	"--host: run tuneloop there through sudo (a password is asked here, on the terminal, only if sudo wants one)": "--host：在该主机上通过 sudo 运行 tuneloop（仅当 sudo 需要时才在本地终端询问密码）",

	// check
	"Audit this host's setup for a Java service against the knowledge base": "对照知识库审计本机运行 Java 服务的配置",
	`Audit the host (CPU, power, NUMA, memory, THP, kernel, sysctls, cgroups, NIC
queues and IRQs, disks, limits, running JVMs and their logging configurations)
and print ranked findings, each with what was seen and where, why it matters,
the exact fix, how to revert it and the risk. Read-only: check never changes
the host.

Exit status: 0 when the audit ran (whatever it found), 3 when --fail-on is
given and a finding at or above that severity exists, 1 on error, 2 on bad
usage.`: `审计主机（CPU、电源管理、NUMA、内存、THP、内核、sysctl、cgroup、网卡队列与
中断、磁盘、资源限制、运行中的 JVM 及其日志配置），按优先级输出发现：每条发现
都说明看到了什么、在哪里看到、为什么重要、确切的修复方法、如何回退以及风险。
只读：check 从不修改主机。

退出码：审计完成时为 0（无论有何发现）；指定了 --fail-on 且存在达到或高于该
严重级别的发现时为 3；出错时为 1；用法错误时为 2。`,
	`  tuneloop check
  tuneloop check --profile latency --lang zh
  tuneloop check --output json --fail-on critical
  tuneloop check --root testdata/hosts/kunpeng920-2s4n     # a captured tree
  tuneloop check --list --output markdown                  # the knowledge base
  tuneloop check --list --all --output markdown            # every rule set`: `  tuneloop check
  tuneloop check --profile latency --lang zh
  tuneloop check --output json --fail-on critical
  tuneloop check --root testdata/hosts/kunpeng920-2s4n     # 采集下来的主机目录树
  tuneloop check --list --output markdown                  # 知识库
  tuneloop check --list --all --output markdown            # 所有规则集`,
	"workload profile: java-web, database or latency":   "负载配置档：java-web、database 或 latency",
	"where /proc is mounted (a captured tree in tests)": "/proc 的挂载位置（测试中为采集下来的目录树）",
	"where /sys is mounted":                             "/sys 的挂载位置",
	"where /etc is":                                     "/etc 所在位置",
	"a captured host tree holding proc/, sys/ and etc/ (overrides the three roots)":                                                                                             "采集下来的主机目录树，内含 proc/、sys/ 和 etc/（覆盖上面三个根目录）",
	"print every rule with its ID and what it checks, then exit":                                                                                                                "列出每条规则的 ID 及其检查内容，然后退出",
	"text output: show what each passed and skipped check saw; with --list: every rule set (GC logs, thread dumps, logging configurations, recorded runs), not only the host's": "文本输出：同时显示每项通过和跳过的检查所看到的内容；与 --list 同用时：列出所有规则集（GC 日志、线程转储、日志配置、录制运行），而不只是主机的",

	// analyze
	"Analyse thread dumps, GC logs and JVM command lines offline": "离线分析线程转储、GC 日志和 JVM 命令行",
	`Analyse evidence offline. A RUN_DIR written by 'tuneloop record' is diagnosed
again from its raw samples (a folder copied from another machine analyses the
same). Each FILE (or - for standard input) is recognised by its content, also
gzip-compressed, inside a zip archive (each entry an input), in UTF-16 or with
Windows line ends:

  thread dumps   jstack / jcmd Thread.print / SIGQUIT output (also inside an
                 application log, several per file), JDK 21+ JSON dumps,
                 VisualVM/JMX dumps, HP-UX JDK dumps, OpenJ9/IBM javacores.
                 Several dumps are also compared over time (stuck threads, hot frames).
  GC logs        JDK 8 (-XX:+PrintGCDetails) and JDK 9+ unified (-Xlog:gc*) logs of
                 every collector, OpenJ9/IBM verbose GC XML and JRockit; several
                 files are joined as one rotated set.
  logging config logback.xml, log4j2.xml / .properties, log4j.properties / log4j.xml:
                 synchronous file appenders on the request path, flush and buffer
                 settings, console appenders, async queue sizes, caller data.
  profiles       JFR recordings (every kind they hold: cpu, alloc, lock, wall; or
                 --profile KIND) and async-profiler collapsed stacks: top frames by
                 self and total; -o html --out F draws the flame graph page of
                 'jvm --profile', --collapsed F and --pprof F write the stacks.

Each input is analysed or refused on its own: a file that cannot be read is
named with what it is (empty, binary, a JFR recording...) and the others are
still reported. --format forces a format for every FILE.

--cmdline runs the JVM rules of 'check' (heap, GC choice, GC logging, heap
dumps...) on a pasted command line, e.g. from a start script or 'ps'.

Exit status: 0 when every input was read and analysed, 1 when some input could
not be read (the others are still reported), 3 when all were read and --fail-on
is met, 2 on bad usage.`: `离线分析证据。'tuneloop record' 写出的 RUN_DIR 会根据其原始样本重新诊断
（从其他机器复制来的运行目录，分析结果相同）。每个 FILE（或用 - 表示标准输入）
按其内容识别，也可以是 gzip 压缩的、zip 归档中的（每个条目是一个输入）、
UTF-16 编码的或带 Windows 换行符的：

  线程转储       jstack / jcmd Thread.print / SIGQUIT 的输出（也可以夹在应用
                 日志中，一个文件可含多份）、JDK 21+ 的 JSON 转储、
                 VisualVM/JMX 转储、HP-UX JDK 转储、OpenJ9/IBM javacore。
                 多份转储还会按时间对比（卡住的线程、热点栈帧）。
  GC 日志        各种收集器的 JDK 8（-XX:+PrintGCDetails）和 JDK 9+ 统一日志
                 （-Xlog:gc*）、OpenJ9/IBM verbose GC XML 和 JRockit；多个文件
                 合并为同一组滚动日志。
  日志配置       logback.xml、log4j2.xml / .properties、log4j.properties / log4j.xml：
                 请求路径上的同步文件 Appender、刷盘与缓冲设置、控制台
                 Appender、异步队列大小、调用者信息（caller data）。
  剖析           JFR 记录（其中的每种剖析：cpu、alloc、lock、wall；或用
                 --profile KIND 指定）和 async-profiler 折叠调用栈：按自身与总计
                 排序的热点帧；-o html --out F 绘制与 'jvm --profile' 相同的火焰图
                 页面，--collapsed F 与 --pprof F 写出调用栈。

每个输入各自分析或拒绝：无法读取的文件会说明它是什么（空文件、二进制、JFR
记录……），其余输入照常输出结果。--format 为所有 FILE 指定格式。

--cmdline 对粘贴进来的命令行（例如取自启动脚本或 'ps'）运行 'check' 的 JVM
规则（堆、GC 选择、GC 日志、堆转储……）。

退出码：所有输入都已读取并分析时为 0；有输入无法读取时为 1（其余结果照常
输出）；全部读取且达到 --fail-on 时为 3；用法错误时为 2。`,
	`  tuneloop analyze dump1.txt dump2.txt dump3.txt
  tuneloop analyze gc.log gc.log.0 gc.log.1.gz --lang zh
  jstack 1234 | tuneloop analyze -
  tuneloop analyze javacore.20261125.txt -o markdown > report.md
  tuneloop analyze --cmdline 'java -Xms2g -Xmx8g -XX:+UseParallelGC -jar app.jar'
  tuneloop analyze /opt/app/conf/logback.xml
  tuneloop analyze recording.jfr --profile lock -o html --out lock.html`: `  tuneloop analyze dump1.txt dump2.txt dump3.txt
  tuneloop analyze gc.log gc.log.0 gc.log.1.gz --lang zh
  jstack 1234 | tuneloop analyze -
  tuneloop analyze javacore.20261125.txt -o markdown > report.md
  tuneloop analyze --cmdline 'java -Xms2g -Xmx8g -XX:+UseParallelGC -jar app.jar'
  tuneloop analyze /opt/app/conf/logback.xml
  tuneloop analyze recording.jfr --profile lock -o html --out lock.html`,
	"read every FILE as this format instead of recognising it: hotspot, hotspot-json, visualvm, hpux, javacore, gclog, logconf, jfr, collapsed":                                            "不按内容识别，而把每个 FILE 都按该格式读取：hotspot、hotspot-json、visualvm、hpux、javacore、gclog、logconf、jfr、collapsed",
	"the most text read from one input, e.g. 512M or 4G (default 2G)":                                                                                                                      "单个输入最多读取的文本量，例如 512M 或 4G（默认 2G）",
	"a JVM command line to check (quote it)":                                                                                                                                               "要检查的 JVM 命令行（请用引号括起来）",
	"the JDK feature release the --cmdline runs on (8, 11, 17, 21, 25); default: inferred from the options":                                                                                "--cmdline 所运行的 JDK 版本（8、11、17、21、25）；默认从参数推断",
	"with -o html: the page to write":                                                                                                                                                      "与 -o html 一起使用：要写出的页面文件",
	"output format: text, json, markdown, or html (a self-contained page of the GC logs and thread dumps, with --out FILE)":                                                                "输出格式：text、json、markdown，或 html（GC 日志与线程转储的自包含页面，需配合 --out FILE）",
	"cpu, alloc, lock or wall: the profile kind of a JFR recording (default: every kind it holds); java-web, database or latency: workload profile for --cmdline":                          "cpu、alloc、lock 或 wall：JFR 记录中要分析的剖析类型（默认：记录中有的每一种）；java-web、database 或 latency：--cmdline 使用的负载配置档",
	"write a profile input's stacks as collapsed stacks to this file (FlameGraph, speedscope)":                                                                                             "把剖析输入的调用栈以折叠调用栈格式写入该文件（FlameGraph、speedscope）",
	"write a profile input's stacks in pprof's format to this file (go tool pprof)":                                                                                                        "把剖析输入的调用栈以 pprof 格式写入该文件（go tool pprof）",
	"write the differential flame graph of the runs' JFR recordings (or of two .jfr or collapsed files given as BEFORE AFTER) to this page, and list the frames that grew and shrank most": "把各运行 JFR 记录的差分火焰图（或以 BEFORE AFTER 给出的两个 .jfr 或折叠调用栈文件的差分火焰图）写入该页面，并列出增长与减少最多的帧",
	"the profile --flame-diff compares: cpu, alloc, lock or wall":                                                                                                                          "--flame-diff 比较的剖析类型：cpu、alloc、lock 或 wall",

	// load
	"Load an HTTP service (closed or open model) and report TPS, latency percentiles and errors": "对 HTTP 服务施加负载（闭合或开放模型），报告 TPS、时延百分位和错误",
	`Send HTTP/1.1 load to a service and report requests, TPS, mean and
p50/p90/p95/p99/p99.9/max latency, errors by kind, a per-second series and a
JMeter-like per-label table.

Closed model (-c N): N users, each sends its next request when the last one
returns (plus --think), like wrk or JMeter threads. Over plain HTTP/1.1
(keep-alive or --no-keepalive) without --think it runs on one epoll event loop
per CPU: a read and a write per request (make bench-load compares it with wrk).
Open model (--rate R): R requests per second on a fixed schedule, like wrk2.
Latency is measured from the intended send time, so a stalled server shows in
the percentiles; late and missed sends are counted. Over plain keep-alive
HTTP/1.1 it runs on the same event loops, each send woken to the microsecond.

A run is always bounded: by -d (default 10s) and/or -n. Ctrl-C stops it and
still prints and saves the results. --jtl writes JMeter's CSV (for JMeter's
HTML dashboard: jmeter -g results.jtl -o report/); --import reads a JTL (CSV or
XML) from JMeter or from tuneloop and prints the same summary.

--jmx PLAN runs a JMeter test plan. --engine auto (the default) sends it with
the built-in generator when that runs every element of the plan, else with
JMeter itself (--engine jmeter): non-GUI, found by --jmeter, $JMETER_HOME or
PATH, alone or as the controller of running jmeter-server engines
(--jmeter-remote host:port,...); its JTL is read as it is written into the
same summary, and JMeter is stopped at the end, on Ctrl-C and when tuneloop
is killed. Then the plan's bounds hold unless -d or -c are given.

Exit status: 0 when the load ran; 1 on an error, and when no request
succeeded: none completed (a server that accepts and never answers, or never
ends a body: "0 completed of N sent"), or every one failed (not HTTP, reset,
timed out, an error status: "0 succeeded of N requests", the classes named);
with --versus, 3 when the second service is significantly slower beyond
--fail-on-regression and 4 when that cannot be told.`: `向服务发送 HTTP/1.1 负载，报告请求数、TPS、平均时延与
p50/p90/p95/p99/p99.9/max 时延、按类型分列的错误、逐秒序列，以及类似 JMeter
的按 label 汇总表。

闭合模型（-c N）：N 个用户，每个用户在上一个请求返回后（再加上 --think）发送
下一个请求，类似 wrk 或 JMeter 线程。使用普通 HTTP/1.1（keep-alive 或
--no-keepalive）且不带 --think 时，每个 CPU 运行一个 epoll 事件循环：每个请求
只需一次读和一次写（make bench-load 将其与 wrk 对比）。
开放模型（--rate R）：按固定时间表每秒发送 R 个请求，类似 wrk2。时延从计划
发送时刻开始计算，因此服务端卡顿会体现在百分位中；推迟和错过的发送都会计数。
使用普通 keep-alive HTTP/1.1 时同样运行在事件循环上，每次发送按微秒精度唤醒。

每次运行总是有界的：由 -d（默认 10s）和/或 -n 限定。Ctrl-C 会停止运行，但仍会
输出并保存结果。--jtl 写出 JMeter 的 CSV（可生成 JMeter 的 HTML 仪表盘：
jmeter -g results.jtl -o report/）；--import 读取 JMeter 或 tuneloop 写出的 JTL
（CSV 或 XML），并输出同样的汇总。

--jmx PLAN 运行 JMeter 测试计划。--engine auto（默认）在内置负载生成器能执行计划
中每个元素时用它发送，否则由 JMeter 本身发送（--engine jmeter）：非 GUI 模式，
按 --jmeter、$JMETER_HOME 或 PATH 查找，单独运行，或作为已运行的 jmeter-server
引擎的控制端（--jmeter-remote host:port,...）；其 JTL 边写边读，汇总方式相同，
运行结束、按 Ctrl-C 以及 tuneloop 被杀死时都会停止 JMeter。此时除非给出 -d 或
-c，否则以计划自身的边界为准。

退出码：负载运行完成时为 0；出错时为 1，没有任何请求成功时也为 1：没有请求完成
（服务器接受连接却从不应答，或响应体永不结束：“发出 N 个、完成 0 个”），或每个请求
都失败（不是 HTTP、连接被重置、超时、错误状态码：“N 个请求中成功 0 个”，并列出错误类别）；
使用 --versus 时，第二个服务显著变慢且超过 --fail-on-regression 为 3，无法判断为 4。`,
	`  tuneloop load http://127.0.0.1:8080/api -c 60 -d 10m
  tuneloop load http://127.0.0.1:8080/api --rate 5000 -d 2m --warm-up 30s
  tuneloop load -f scenario.yaml --jtl results.jtl -o json
  tuneloop load https://svc:8443/ -k -X POST -H 'Content-Type: application/json' --body '{"a":1}' -n 10000
  tuneloop load --jmx plan.jmx -J host=10.0.0.5 -J users=50
  tuneloop load --jmx plan.jmx --engine jmeter --jmeter-remote 10.0.0.7:1099,10.0.0.8:1099 -d 5m
  tuneloop load --import results.jtl`: `  tuneloop load http://127.0.0.1:8080/api -c 60 -d 10m
  tuneloop load http://127.0.0.1:8080/api --rate 5000 -d 2m --warm-up 30s
  tuneloop load -f scenario.yaml --jtl results.jtl -o json
  tuneloop load https://svc:8443/ -k -X POST -H 'Content-Type: application/json' --body '{"a":1}' -n 10000
  tuneloop load --jmx plan.jmx -J host=10.0.0.5 -J users=50
  tuneloop load --jmx plan.jmx --engine jmeter --jmeter-remote 10.0.0.7:1099,10.0.0.8:1099 -d 5m
  tuneloop load --import results.jtl`,
	"what sends a --jmx plan's load: builtin (tuneloop's generator), jmeter (JMeter itself, non-GUI), or auto (builtin when it runs every element of the plan, else JMeter)":                                                                "由谁发送 --jmx 计划的负载：builtin（tuneloop 的负载生成器）、jmeter（JMeter 本身，非 GUI 模式）或 auto（内置生成器能执行计划中每个元素时用它，否则用 JMeter）",
	"JMeter to run (its home, bin/jmeter or bin/ApacheJMeter.jar; default: $JMETER_HOME, else jmeter on PATH)":                                                                                                                              "要运行的 JMeter（其主目录、bin/jmeter 或 bin/ApacheJMeter.jar；默认：$JMETER_HOME，否则为 PATH 中的 jmeter）",
	"distributed JMeter: jmeter-server engines host:port,host:port that send the load (JMeter's -R); an engine on a --host host is started there over SSH (host[:port][=JMETER_HOME]), the others must be running; implies --engine jmeter": "分布式 JMeter：由 jmeter-server 引擎 host:port,host:port 发送负载（JMeter 的 -R）；位于 --host 主机上的引擎由 tuneloop 通过 SSH 在那里启动（host[:port][=JMETER_HOME]），其余引擎须已在运行；隐含 --engine jmeter",
	"closed model: concurrent users (default 10 when --rate is not set)":                                                                                                                                                                    "闭合模型：并发用户数（未设置 --rate 时默认 10）",
	"open model: requests per second on a fixed schedule":                                                                                                                                                                                   "开放模型：按固定时间表每秒发送的请求数",
	"open model: connections (default rate/10, kept within 100-10000)":                                                                                                                                                                      "开放模型：连接数（默认 rate/10，并限制在 100 到 10000 之间）",
	"measured duration, after --warm-up (default 10s unless -n is given)":                                                                                                                                                                   "计入结果的测量时长，在 --warm-up 之后开始（未指定 -n 时默认 10s）",
	"stop after this many measured requests":                                                                                                                                                                                                "计入结果的请求数达到该值后停止",
	"closed: start users evenly over this time; open: raise the rate linearly":                                                                                                                                                              "逐步加压：闭合模型在这段时间内均匀启动各用户；开放模型在这段时间内线性提升速率",
	"run this long first and leave it out of the results":                                                                                                                                                                                   "预热：先运行这么长时间，且不计入结果",
	"closed model: pause after each response":                                                                                                                                                                                               "闭合模型：每次收到响应后的思考时间",
	"per-request timeout, connect included (default 10s)":                                                                                                                                                                                   "单个请求的超时，含建立连接的时间（默认 10s）",
	"HTTP method (default GET, POST with a body)":                                                                                                                                                                                           "HTTP 方法（默认 GET，带请求体时为 POST）",
	"request header 'Name: value' (repeatable)":                                                                                                                                                                                             "请求头 'Name: value'（可重复指定）",
	"request body":                                                                              "请求体",
	"read the request body from this file":                                                      "从该文件读取请求体",
	"accepted status codes (default: any below 400)":                                            "视为成功的状态码（默认：低于 400 的任意状态码）",
	"fail a response whose body does not contain this text":                                     "响应体不含该文本时判为失败",
	"YAML scenario: several weighted requests, assertions, CSV variables":                       "YAML 场景文件：多个带权重的请求、断言、CSV 变量",
	"summarise a JMeter JTL file (CSV or XML) instead of running load":                          "汇总一个 JMeter JTL 文件（CSV 或 XML），而不施加负载",
	"run the HTTP parts of a JMeter test plan (.jmx); flags given override its settings":        "执行 JMeter 测试计划（.jmx）中的 HTTP 部分；显式给出的参数覆盖计划中的设置",
	"JMeter property name=value for ${__P(name)} in --jmx (repeatable)":                         "--jmx 中 ${__P(name)} 使用的 JMeter 属性 name=value（可重复指定）",
	"run a --jmx plan without the elements tuneloop cannot run (listed) instead of refusing it": "跳过 tuneloop 无法执行的元素（会列出）继续执行 --jmx 计划，而不是拒绝执行",
	"JMeter test plan for the load (see tuneloop load); the run's -d bounds it":                 "负载使用的 JMeter 测试计划（见 tuneloop load）；由本次运行的 -d 限定时长",
	"write every sample to this file as JMeter CSV (default columns)":                           "把每个样本以 JMeter CSV 格式（默认列）写入该文件",
	"also write the JSON summary to this file":                                                  "同时把 JSON 汇总写入该文件",
	"open a new connection for every request":                                                   "每个请求都新建连接",
	"do not verify TLS certificates":                                                            "不校验 TLS 证书",
	"use HTTP/2 where the server offers it over TLS (Go net/http client: slower per request)":   "服务端通过 TLS 提供 HTTP/2 时使用 HTTP/2（走 Go net/http 客户端：单个请求开销更大）",

	// load --html
	"also write the load report (throughput, percentiles, labels, errors over time; latency distribution) to this HTML file":               "同时把压测报告（随时间变化的吞吐、百分位延迟、各标签、错误；延迟分布）写入该 HTML 文件",
	"also load this second running service (URL), alternating with the first in windows (A B B A ...), and compare the two with intervals": "同时对第二个正在运行的服务（URL）施加负载，与第一个按窗口交替（A B B A ……），并以置信区间比较两者",
	"--versus: each side's turn": "--versus：每侧一次轮到的时长",
	"--versus: exit 3 when the second service is significantly slower beyond this percent (4: inconclusive), as compare": "--versus：第二个服务显著变慢且超过该百分比时退出码为 3（4：无法判断），与 compare 相同",

	// jvm
	"Attach to a running JVM: thread dumps, flags, properties, heap, GC logging": "attach 到运行中的 JVM：线程转储、参数、系统属性、堆、GC 日志",
	`Attach to a running HotSpot JVM without any JDK tool next to it (tuneloop speaks
the attach protocol itself, also into containers and to JVMs of other users
when run as root), take thread dumps and analyse them, summarise the JVM's
flags, and on request print its system properties and heap, or switch GC
logging on at run time.

Without a PID, list the JVMs on this host.

Read-only unless --gc-log is given. Exit status: 0 when it ran, 1 when the
JVM could not be attached or a command failed, 2 on bad usage.`: `无需本机安装任何 JDK 工具即可 attach 到运行中的 HotSpot JVM（tuneloop 自行实现
attach 协议；以 root 运行时也能进入容器，以及连接其他用户的 JVM），采集并分析
线程转储，汇总 JVM 参数；按需输出其系统属性和堆信息，或在运行时开启 GC 日志。

不指定 PID 时，列出本机上的 JVM。

除非指定 --gc-log，否则只读。退出码：执行完成时为 0；无法 attach 到 JVM 或
命令执行失败时为 1；用法错误时为 2。`,
	`  tuneloop jvm                                   # list the JVMs on this host
  tuneloop jvm 4242                              # one thread dump, analysed, and the flags
  tuneloop jvm 4242 --dump 3 --interval 5s       # three dumps: stuck threads, hot frames
  tuneloop jvm 4242 --heap --props --raw ./evidence
  tuneloop jvm 4242 --gc-log /tmp/gc.log         # switch GC logging on if it is off
  tuneloop jvm 4242 --jcmd 'GC.class_histogram'  # any diagnostic command, no jcmd needed
  tuneloop jvm 4242 --profile lock -d 30s        # a 30 s lock profile: flame graph, collapsed, pprof, JFR
  tuneloop jvm 4242 --output json --lang zh`: `  tuneloop jvm                                   # 列出本机上的 JVM
  tuneloop jvm 4242                              # 采集并分析一次线程转储，并汇总参数
  tuneloop jvm 4242 --dump 3 --interval 5s       # 三次转储：卡住的线程、热点栈帧
  tuneloop jvm 4242 --heap --props --raw ./evidence
  tuneloop jvm 4242 --gc-log /tmp/gc.log         # GC 日志未开启时将其开启
  tuneloop jvm 4242 --jcmd 'GC.class_histogram'  # 执行任意诊断命令，无需 jcmd
  tuneloop jvm 4242 --profile lock -d 30s        # 30 秒锁剖析：火焰图、折叠栈、pprof、JFR
  tuneloop jvm 4242 --output json --lang zh`,
	"thread dumps to take (Thread.print -l -e); 0 for none":        "要采集的线程转储次数（Thread.print -l -e）；0 表示不采集",
	"time between thread dumps":                                    "两次线程转储之间的间隔",
	"print every flag from VM.flags (a summary is always printed)": "输出 VM.flags 中的全部参数（摘要总会输出）",
	"print the system properties (VM.system_properties)":           "输出系统属性（VM.system_properties）",
	"print the heap (GC.heap_info)":                                "输出堆信息（GC.heap_info）",
	"switch GC logging on at run time, to this absolute path (as the JVM sees it), unless GC is already logged to a file": "若 GC 日志尚未写入任何文件，则在运行时开启 GC 日志并写到该绝对路径（按 JVM 所见的路径）",
	"save the raw outputs in this directory (before they are parsed)":                                                     "把原始输出（解析之前）保存到该目录",
	"cpu, alloc, lock or wall: record that profile through JFR; native: sample Java, native and kernel stacks with perf_event_open (any process; see -d, --out); java-web, database or latency: workload profile for the configuration checks": "cpu、alloc、lock 或 wall：通过 JFR 记录该类剖析；native：用 perf_event_open 采样 Java、原生与内核调用栈（任意进程；见 -d、--out）；java-web、database 或 latency：配置检查使用的负载配置档",
	"how long --profile cpu|alloc|lock|wall records (Ctrl-C stops early and keeps what was recorded)":                                                                                                                                          "--profile cpu|alloc|lock|wall 的记录时长（Ctrl-C 可提前停止并保留已记录的内容）",
	"directory for the profile's files (profile.html, profile.collapsed, profile.pb.gz, recording.jfr); default tuneloop-profile-PID-KIND":                                                                                                     "剖析文件（profile.html、profile.collapsed、profile.pb.gz、recording.jfr）的目录；默认 tuneloop-profile-PID-KIND",
	"how long to wait for the JVM's attach listener to start":                                              "等待 JVM 的 attach 监听启动的最长时间",
	"run this diagnostic command, as jcmd PID CMD would (e.g. 'GC.class_histogram'), and print its output": "像 jcmd PID CMD 一样执行该诊断命令（例如 'GC.class_histogram'），并输出其结果",
	"how to reach the JVM: auto (the attach socket, then the jcmd on this host), socket or jcmd":           "连接 JVM 的方式：auto（先用 attach 套接字，再用本机的 jcmd）、socket 或 jcmd",

	// record
	"Record host and process evidence under load, then diagnose the bottleneck": "在负载下记录主机和进程的证据，然后诊断瓶颈",
	`Sample the host (per-CPU time, softirqs, interrupts, memory, NUMA, disks,
network, TCP, PSI) and optionally a target process and each of its threads,
every --interval, while your own load runs. Stop after --duration or on Ctrl-C.

The run is saved as a folder (manifest.json with the host facts and the exact
command line, raw/samples.jsonl.gz, derived/series.json, findings.json) that
'tuneloop analyze RUN_DIR' diagnoses again offline, here or on another
machine, and is listed by 'tuneloop runs'. The ranked findings are printed at
the end: the likely root cause first, with the numbers and the time window.

Samplers (--enable/--disable): ` + samplerHelp() + `.

Exit status: 0 when the run was recorded, 3 with --fail-on when a finding at
or above that severity exists, 1 on error, 2 on bad usage.`: `在你自己的负载运行期间，每隔 --interval 采样一次主机（逐 CPU 时间、软中断、
中断、内存、NUMA、磁盘、网络、TCP、PSI），并可选地采样一个目标进程及其每个
线程。到达 --duration 或按下 Ctrl-C 时停止。

本次运行保存为一个运行目录（manifest.json 含主机信息和完整的命令行，以及
raw/samples.jsonl.gz、derived/series.json、findings.json），可在本机或其他
机器上用 'tuneloop analyze RUN_DIR' 离线重新诊断，并由 'tuneloop runs' 列出。
结束时输出按优先级排列的发现：最可能的根因排在最前，并附数值和时间窗口。

采样器（--enable/--disable）：` + samplerHelpZH() + `。

退出码：运行记录完成时为 0；指定了 --fail-on 且存在达到或高于该严重级别的
发现时为 3；出错时为 1；用法错误时为 2。`,
	`  tuneloop record --duration 10m --jvm auto
  tuneloop record --duration 5m --interval 1s --pid 12345
  tuneloop record --pid 12345                      # until Ctrl-C
  tuneloop record --duration 5m --jvm auto --thread-dumps 3   # join hot threads to their stacks
  tuneloop record --duration 2m --out /data/runs/before-tuning`: `  tuneloop record --duration 10m --jvm auto
  tuneloop record --duration 5m --interval 1s --pid 12345
  tuneloop record --pid 12345                      # 一直记录到按下 Ctrl-C
  tuneloop record --duration 5m --jvm auto --thread-dumps 3   # 把热点线程对应到其调用栈
  tuneloop record --duration 2m --out /data/runs/before-tuning`,
	"how long to record (e.g. 10m); 0 = until Ctrl-C":                                                          "记录时长（例如 10m）；0 表示一直记录到按下 Ctrl-C",
	"target process: sample it and each of its threads":                                                        "目标进程：采样该进程及其每个线程",
	`"auto": target the running JVM (the largest when several)`:                                                `"auto"：以运行中的 JVM 为目标（有多个时取最大的）`,
	"run folder (default ./runs/<timestamp>-<host>)":                                                           "运行目录（默认 ./runs/<timestamp>-<host>）",
	"catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)":             "运行记录目录（默认 $XDG_DATA_HOME/tuneloop/runs.db 或 ~/.local/share/tuneloop/runs.db）",
	"samplers to turn on (e.g. tcpstates)":                                                                     "要开启的采样器（例如 tcpstates）",
	"samplers to turn off":                                                                                     "要关闭的采样器",
	"take N thread dumps of the JVM target during the run (attaches to it; joins hot threads to their stacks)": "运行期间对目标 JVM 采集 N 次线程转储（会 attach 到该 JVM；把热点线程对应到其调用栈）",

	// run
	"Load the service while recording host and JVM, then diagnose and write the report": "对服务施加负载，同时记录主机和 JVM，然后诊断并写出报告",
	`The whole loop in one command: optionally start the service and wait until it
answers, audit the host (check), switch GC logging on at run time, warm up,
then load the service while recording the host and the JVM (per-CPU time,
softirqs, per-thread CPU, periodic thread dumps), and finally diagnose across
the layers and write one run folder with report.html (self-contained),
report.md and report.json.

The verdict joins the layers as an engineer would: low CPU + blocked request
threads + the lock they wait for and what its holder does -> the root cause
and its fix; GC throughput high -> GC is not the bottleneck.

A service started with --start belongs to the run: it is stopped at the end
(SIGTERM to its JVM, --stop-timeout, then SIGKILL), and so is everything the
run switched on in it (JFR, GC logging), even when tuneloop itself is killed;
--keep-service leaves it running.

Exit status: 0 when the run completed, 3 when --fail-on is given and a
finding at or above that severity exists, 1 on error: also when the service
exited during the run, when it never answered (then run takes three thread
dumps and reports what the JVM was doing), when the load got no answer at
all, or when the run
folder could not be completed (a full disk); the report of what was measured
is still printed and kept. 2 on bad usage.`: `一条命令走完整个闭环：可选地启动服务并等待其应答，审计主机（check），在运行时
开启 GC 日志，预热，然后对服务施加负载，同时记录主机和 JVM（逐 CPU 时间、
软中断、逐线程 CPU、周期性线程转储），最后跨层诊断，写出一个运行目录，内含
report.html（自包含）、report.md 和 report.json。

结论像工程师一样把各层关联起来：CPU 低 + 请求线程阻塞 + 它们等待的锁及其持有者
正在做什么 -> 根因及其修复方法；GC 吞吐量高 -> GC 不是瓶颈。

用 --start 启动的服务属于本次运行：结束时会停止它（向其 JVM 发送 SIGTERM，等待
--stop-timeout，然后 SIGKILL），运行中在它里面开启的一切（JFR、GC 日志）也会关闭，
即使 tuneloop 自身被杀死也是如此；--keep-service 让服务继续运行。

退出码：运行完成为 0；给出 --fail-on 且存在达到该严重级别的发现时为 3；出错为 1：
服务在运行中退出、服务始终没有应答（此时会抓取 3 次线程转储并报告 JVM 当时在做什么）、
负载完全没有得到应答、或运行目录未能写完整（磁盘已满）时也为 1，
此时测得结果的报告仍会打印并保留。用法错误为 2。`,
	`  tuneloop run --target http://127.0.0.1:8080/api -c 60 -d 2m --jvm auto
  tuneloop run --target http://127.0.0.1:8080/api -c 50 -d 1m --start 'java -jar app.jar'
  tuneloop run --target http://127.0.0.1:8080/api --rate 2000 -d 5m --pid 4127 --lang zh
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jtl-watch results.jtl --pid 4127  # JMeter drives the load
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jmx plan.jmx --engine jmeter --pid 4127`: `  tuneloop run --target http://127.0.0.1:8080/api -c 60 -d 2m --jvm auto
  tuneloop run --target http://127.0.0.1:8080/api -c 50 -d 1m --start 'java -jar app.jar'
  tuneloop run --target http://127.0.0.1:8080/api --rate 2000 -d 5m --pid 4127 --lang zh
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jtl-watch results.jtl --pid 4127  # 由 JMeter 施加负载
  tuneloop run --target http://127.0.0.1:8080/api -d 10m --jmx plan.jmx --engine jmeter --pid 4127`,
	"URL to load (and to poll until the service answers)":                         "施加负载的 URL（也用于轮询，直到服务应答）",
	"closed model: concurrent users (default 50 unless --rate)":                   "闭合模型：并发用户数（未指定 --rate 时默认 50）",
	"open model: requests per second":                                             "开放模型：每秒请求数",
	"measured load duration":                                                      "计入结果的负载时长",
	"warm-up load before measuring (default: a tenth of --duration, at most 30s)": "测量前的预热负载时长（默认：--duration 的十分之一，最多 30s）",
	"take a thread dump this often (default: 5 dumps over the run)":               "每隔这么长时间采集一次线程转储（默认：整个运行期间共 5 次）",
	"start the service with this shell command, stop it at the end":               "用该 shell 命令启动服务，结束时将其停止",
	"how long to wait for the service to answer":                                  "等待服务应答的最长时间",
	"PID of the JVM to record":                                                    "要记录的 JVM 的 PID",
	`"auto": the largest running JVM`:                                             `"auto"：运行中最大的 JVM`,
	"YAML scenario for the load (see tuneloop load)":                              "负载使用的 YAML 场景文件（见 tuneloop load）",
	"an external load writes this JMeter JTL: no load is generated, its samples in the run window are the load result": "由外部压测写入该 JMeter JTL：tuneloop 不产生负载，以运行时间窗口内的样本作为负载结果",
	"workload profile for the host audit":         "主机审计使用的负载配置档",
	"do not switch GC logging on in the JVM":      "不在 JVM 中开启 GC 日志",
	"do not record a JFR profile during the load": "负载期间不录制 JFR 剖析数据",

	// run: the service's end
	"--start: how long the service has to exit after SIGTERM before SIGKILL": "--start：服务收到 SIGTERM 后在 SIGKILL 之前可用于退出的时间",
	"--start: leave the service running at the end":                          "--start：结束时让服务继续运行",

	// runs rebuild
	"Add back every run and probe folder found in DIR (default ./runs and ./probes) and, after damage, those the old catalog named": "把在 DIR（默认 ./runs 与 ./probes）中找到的每个运行目录和探测目录重新加入运行记录目录；目录损坏后，还会加入旧目录中记载的目录",
	`Scan each DIR (a run or probe folder, or a folder of them; default ./runs
and ./probes) and add every run folder and probe folder found to the
catalog (a probe killed before its end as incomplete, as its probe.json
says). A catalog found damaged ("database disk image is malformed", "file
is not a database") is moved aside as runs.db.corrupt-<time> and rebuilt
automatically; the folders the damaged file still names are added back too.`: `扫描每个 DIR（一个运行目录或探测目录，或包含它们的目录；默认 ./runs 与 ./probes），
把找到的每个运行目录和探测目录加入运行记录目录（在结束前被终止的探测按其 probe.json
记为不完整）。发现运行记录目录损坏（"database disk image is malformed"、
"file is not a database"）时，会把它移到 runs.db.corrupt-<时间> 并自动重建；损坏
文件中仍能读出的目录也会重新加入。`,
	"  tuneloop runs rebuild\n  tuneloop runs rebuild /data/tuneloop/runs /tmp/from-prod": "  tuneloop runs rebuild\n  tuneloop runs rebuild /data/tuneloop/runs /tmp/from-prod",
	// runs
	"List recorded runs and probes (the catalog), or add and remove their folders": "列出已记录的运行与探测（运行记录目录），或在其中添加、移除它们的目录",
	`List the runs 'tuneloop record' and 'tuneloop run' saved, newest first, from
the catalog ($XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db;
--catalog to use another); --probes lists the probes 'tuneloop probe' took
instead (host, kernel, CPU model, parts, time, folder). Both are listed from
their start: one killed before its end shows as incomplete. A run or probe
folder copied from another machine is added with 'tuneloop runs add DIR'.
'run' and 'check' cite the newest finished probe of their host found in the
catalog or under ./probes. The catalog is an index only: each folder is
complete on its own ('tuneloop analyze DIR', 'tuneloop compare PROBE_A PROBE_B').`: `从运行记录目录（$XDG_DATA_HOME/tuneloop/runs.db 或
~/.local/share/tuneloop/runs.db；用 --catalog 指定其他位置）中列出
'tuneloop record' 与 'tuneloop run' 保存的运行，最新的在前；--probes 改为列出
'tuneloop probe' 做过的探测（主机、内核、CPU 型号、部分、时间、目录）。两者都从开始时
就被记录：在结束前被终止的显示为不完整。从其他机器复制来的运行目录或探测目录用
'tuneloop runs add DIR' 加入。'run' 与 'check' 引用运行记录目录中或 ./probes 下
本机最新的已完成探测。运行记录目录只是索引：每个目录本身都是完整的
（'tuneloop analyze DIR'、'tuneloop compare PROBE_A PROBE_B'）。`,
	`  tuneloop runs
  tuneloop runs --probes
  tuneloop runs --output json
  tuneloop runs add /tmp/from-prod/20261121-090001-kp920-app01
  tuneloop runs rm runs/20261121-090001-kp920-app01`: `  tuneloop runs
  tuneloop runs --probes
  tuneloop runs --output json
  tuneloop runs add /tmp/from-prod/20261121-090001-kp920-app01
  tuneloop runs rm runs/20261121-090001-kp920-app01`,
	"list the catalogued probes (tuneloop probe) instead of the runs":                                                              "列出运行记录目录中的探测（tuneloop probe），而不是运行",
	"catalog whose probes of this host are looked up (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)": "在该运行记录目录中查找本机的探测结果（默认 $XDG_DATA_HOME/tuneloop/runs.db 或 ~/.local/share/tuneloop/runs.db）",
	"do not look up probes in the catalog (only under ./probes)":                                                                   "不在运行记录目录中查找探测结果（只在 ./probes 下查找）",
	"catalog the probe folder is added to (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)":            "探测目录要加入的运行记录目录（默认 $XDG_DATA_HOME/tuneloop/runs.db 或 ~/.local/share/tuneloop/runs.db）",
	"do not add the probe folder to the catalog":                                                                                   "不把探测目录加入运行记录目录",
	"Add run or probe folders to the catalog (e.g. copied from another machine)":                                                   "把运行目录或探测目录加入运行记录目录（例如从其他机器复制来的）",
	"Remove run or probe folders from the catalog (the folders are left alone)":                                                    "从运行记录目录中移除运行目录或探测目录（目录本身不会被删除）",
	"TPS and p99 of a service over its runs, with the run where a change entered":                                                  "某个服务历次运行的 TPS 与 p99，并标出变化开始的那次运行",
	`Show throughput and p99 latency over the catalog's runs, oldest first, per
service (target URL) and scenario (load model), and mark change points: the
run where the level changed, found by E-divisive means with a permutation
test (199 seeded shuffles, p < 0.05; at least 3 runs a segment), so the same
history always gives the same marks. A fall in TPS or a rise in p99 is marked
as a regression with the run that introduced it. Runs catalogued before the
history existed are read from their report.json.`: `按服务（目标 URL）和场景（负载模型）显示运行记录目录中历次运行的吞吐量与 p99 时延
（从旧到新），并标出变化点：水平发生变化的那次运行，用 E-divisive 均值法检测，显著性
用置换检验（固定种子的 199 次置换，p < 0.05；每段至少 3 次运行），同样的历史总是
得到同样的标记。TPS 下降或 p99 上升标为回退，并指出引入它的那次运行。历史功能之前
加入目录的运行从其 report.json 读取。`,
	`  tuneloop runs trend
  tuneloop runs trend --service http://127.0.0.1:8080/api -o json`: `  tuneloop runs trend
  tuneloop runs trend --service http://127.0.0.1:8080/api -o json`,
	"only this service (the target URL as the runs used it)": "只看该服务（运行时使用的目标 URL）",

	// porting
	"Scan an install tree or Java archives for what blocks running on ARM64": "扫描安装目录或 Java 归档，找出阻碍在 ARM64 上运行的问题",
	`Scan each PATH — a directory (an install tree), a .jar/.war/.ear, a Spring
Boot fat jar, a .zip, a .tar(.gz) bundle or a saved container image — for
what stops it from running on the target (linux/arm64 by default). Nested
archives are read in place, never extracted to disk; entry size, total size
and nesting depth are capped (zip bombs and unsafe names are reported).

Every native file found at any depth is judged by its ELF header (class,
machine, glibc symbol versions), grouped with its builds for other platforms
(JNA linux-aarch64, Netty aarch_64, snappy Linux/aarch64, RocksDB linux64...)
across the whole PATH, so a library shipping both x86-64 and aarch64 passes
and Netty-style classifier jars are judged together. Known libraries (Maven
coordinates from pom.properties) are checked against the first version that
works on aarch64. Also reported: class files that load native code nobody
bundles (System.loadLibrary, JNA, JNR), x86-only -XX options in scripts,
units, Dockerfiles and options files, amd64-pinned base images, x86 JDKs and
JDK 8 builds before 8u292; in a docker save / OCI-layout tarball, the image
config's architecture and every layer. Bundled natives are assumed to run on
glibc (musl-only builds do not count); --glibc also checks their GLIBC_x.y.

Verdicts: pass, upgrade (with the version), blocker, to confirm; each with
the evidence (path inside the archive, ELF machine read) and the fix, in
English or Chinese (--lang).

Exit status:
  0  no finding at or above --fail-on (pass and to-confirm never fail)
  4  upgrades suggested (only with --fail-on upgrade)
  5  blockers found (with --fail-on blocker, the default, or upgrade)
  1  error (a PATH could not be read), 2 bad usage`: `扫描每个 PATH（目录即安装目录树、.jar/.war/.ear、Spring Boot fat jar、.zip、
.tar(.gz) 包或保存下来的容器镜像），找出阻碍其在目标平台（默认 linux/arm64）
上运行的问题。嵌套归档原地读取，从不解压到磁盘；单个条目大小、总大小和嵌套
深度都有上限（会报告 zip 炸弹和不安全的文件名）。

在任意深度找到的每个本地（native）文件都按其 ELF 头（class、machine、glibc
符号版本）判定，并在整个 PATH 范围内与其面向其他平台的构建归为一组（JNA
linux-aarch64、Netty aarch_64、snappy Linux/aarch64、RocksDB linux64……），
因此同时提供 x86-64 和 aarch64 版本的库判为通过，Netty 式的 classifier jar 也会
合并判定。已知库（取自 pom.properties 的 Maven 坐标）会与首个支持 aarch64 的
版本比较。此外还会报告：加载了未随包提供的本地代码的 class 文件
（System.loadLibrary、JNA、JNR）；脚本、unit 文件、Dockerfile 和选项文件中仅适用
于 x86 的 -XX 选项；固定为 amd64 的基础镜像；x86 JDK 以及 8u292 之前的 JDK 8
构建；对 docker save / OCI-layout 的 tar 包，还检查镜像配置中的架构和每一层。
随包提供的本地库默认按运行在 glibc 上判定（仅支持 musl 的构建不算数）；
--glibc 还会检查它们所需的 GLIBC_x.y。

判定结果：通过（pass）、需升级（upgrade，附所需版本）、阻断（blocker）、
待确认（to confirm）；每条都附证据（归档内的路径、读取到的 ELF machine）和
修复方法，以英文或中文输出（--lang）。

退出码：
  0  没有达到或高于 --fail-on 的发现（通过和待确认从不导致失败）
  4  建议升级（仅在 --fail-on upgrade 时）
  5  发现阻断项（--fail-on blocker（默认）或 upgrade 时）
  1  出错（某个 PATH 无法读取），2 用法错误`,
	`  tuneloop porting app.jar
  tuneloop porting /opt/myapp --output junit --out porting.xml --fail-on upgrade
  tuneloop porting release.tar.gz --output markdown --lang zh
  tuneloop porting app.war --glibc 2.28        # also check bundled libraries' glibc needs`: `  tuneloop porting app.jar
  tuneloop porting /opt/myapp --output junit --out porting.xml --fail-on upgrade
  tuneloop porting release.tar.gz --output markdown --lang zh
  tuneloop porting app.war --glibc 2.28        # 同时检查随包库对 glibc 版本的要求`,
	"platform to check for: linux/arm64 or linux/amd64":                                    "要检查的目标平台：linux/arm64 或 linux/amd64",
	"output format: text, json, markdown or junit":                                         "输出格式：text、json、markdown 或 junit",
	"exit non-zero at this verdict or worse: blocker, upgrade or none":                     "判定结果达到该级别或更严重时以非零退出码退出：blocker、upgrade 或 none",
	"the target's glibc version (e.g. 2.28): flag bundled libraries that need a newer one": "目标环境的 glibc 版本（例如 2.28）：标出需要更高版本的随包库",
	"text output: show the evidence of passing components too":                             "文本输出：同时显示通过的组件的证据",
	"largest nested archive to inflate into memory (default 256 MiB)":                      "解压到内存中的嵌套归档的最大大小（默认 256 MiB）",
	"most bytes to inflate per PATH (default 8 GiB)":                                       "每个 PATH 最多解压的字节数（默认 8 GiB）",
	"deepest archive nesting to open (default 6)":                                          "打开归档的最大嵌套深度（默认 6）",

	// apply
	"Apply the fixes of findings through a crash-safe journal (dry run unless --yes)": "通过防崩溃的日志应用发现的修复（不加 --yes 时只演练）",
	`Apply the fix of each named finding (a rule ID, or ID/subject for one NIC, disk
or JVM) from a live audit of this host, or from a run folder's check.json with
--from. --all-safe takes every failing finding whose fix is a runtime knob
(sysctl, sysfs, process limit). Without --yes nothing changes: the command
prints each key with its current and new value.

Each key is journaled before it is written (value before, value to write,
value read back); a change that does not read back as written is undone at
once. The findings applied together are one transaction: tuneloop revert
TX-ID undoes it. --persist TX-ID writes its sysctls to
/etc/sysctl.d/90-tuneloop.conf and its process limits to a drop-in of the
service's systemd unit (the process's cgroup names it, or --unit), as a
transaction of its own; systemd reads the drop-in at the service's next start.
--confirm-within starts a detached timer that reverts the transaction unless
tuneloop apply --confirm TX-ID arrives in time.`: `应用每个指定发现的修复（规则 ID，或用 ID/对象 指定某块网卡、某个磁盘或某个 JVM），
发现来自对本机的实时审计，或用 --from 取自运行目录中的 check.json。--all-safe 选取
所有修复方式为运行时参数（sysctl、sysfs、进程资源限制）的未通过发现。不加 --yes
时不做任何修改：只列出每个参数的当前值和新值。

每个参数在写入前先记入日志（原值、要写入的值、写入后回读的值）；回读与写入不一致
的修改会立即撤销。一起应用的发现构成一个事务：tuneloop revert TX-ID 可将其撤销。
--persist TX-ID 把该事务的 sysctl 写入 /etc/sysctl.d/90-tuneloop.conf，把进程资源限制
写入该服务 systemd 单元的 drop-in（单元取自进程的 cgroup，或用 --unit 指定），作为一个
独立的事务；systemd 在服务下次启动时读取 drop-in。--confirm-within 启动一个独立运行的计时器：除非及时收到
tuneloop apply --confirm TX-ID，否则自动回退该事务。`,
	`  tuneloop apply net.socket-buffers mem.thp.enabled          # dry run
  tuneloop apply --all-safe --yes --confirm-within 2m
  tuneloop apply --confirm 20261125-174831-3f2a
  tuneloop apply --from runs/20261125-1200 nic.irq.concentration --yes
  tuneloop apply --persist 20261125-174831-3f2a`: `  tuneloop apply net.socket-buffers mem.thp.enabled          # 演练
  tuneloop apply --all-safe --yes --confirm-within 2m
  tuneloop apply --confirm 20261125-174831-3f2a
  tuneloop apply --from runs/20261125-1200 nic.irq.concentration --yes
  tuneloop apply --persist 20261125-174831-3f2a`,
	"take the findings from this run folder's check.json":                                                                                        "从该运行目录的 check.json 中读取发现",
	"apply every failing finding whose fix is a runtime knob (sysctl, sysfs, process limit)":                                                     "应用所有修复方式为运行时参数（sysctl、sysfs、进程资源限制）的未通过发现",
	"apply (without it: a dry run)":                                                                                                              "执行修改（不加时只演练）",
	"journal directory (default /var/lib/tuneloop/journal, or $XDG_STATE_HOME/tuneloop/journal when not root)":                                   "日志目录（默认 /var/lib/tuneloop/journal；非 root 用户为 $XDG_STATE_HOME/tuneloop/journal）",
	"write the sysctls of transaction TX-ID to /etc/sysctl.d/90-tuneloop.conf and its process limits to a systemd drop-in (its own transaction)": "把事务 TX-ID 的 sysctl 写入 /etc/sysctl.d/90-tuneloop.conf，进程资源限制写入 systemd drop-in（作为独立事务）",
	"--persist: the systemd service whose drop-in gets the process limits (default: the one in the process's cgroup)":                            "--persist：写入进程资源限制 drop-in 的 systemd 服务（默认取进程 cgroup 中的服务）",
	"keep transaction TX-ID: stop its dead-man timer":                                                                                            "保留事务 TX-ID：停止其自动回退计时器",
	"revert by itself unless confirmed within this time (e.g. 2m)":                                                                               "除非在该时间内确认，否则自动回退（例如 2m）",

	// revert
	"Undo the changes of tuneloop apply from its journal": "根据日志撤销 tuneloop apply 所做的修改",
	`Put back the value each key had before tuneloop apply changed it, newest
transaction first. A key already back is left alone, so a second revert changes
nothing. A key someone else changed since tuneloop wrote it is not touched
(it is named, with what tuneloop wrote and what it is now) unless --force.`: `把每个参数恢复为 tuneloop apply 修改之前的值，最新的事务最先回退。已恢复的参数
保持不动，因此再次回退不会做任何修改。tuneloop 写入之后又被他人修改的参数不会被
触碰（会列出该参数、tuneloop 写入的值及当前值），除非指定 --force。`,
	`  tuneloop revert --list
  tuneloop revert 20261125-174831-3f2a
  tuneloop revert --all --force`: `  tuneloop revert --list
  tuneloop revert 20261125-174831-3f2a
  tuneloop revert --all --force`,
	"revert every transaction still in effect":                         "回退所有仍在生效的事务",
	"also put back keys someone else changed since":                    "连同此后被他人修改过的参数一并恢复",
	"list the transactions of the journal and what is still in effect": "列出日志中的事务及仍在生效的修改",
	"Internal: the dead-man timer of apply --confirm-within":           "内部命令：apply --confirm-within 的自动回退计时器",

	// multi-host runs (record, run --host; the hidden clock answerer)
	"record on this host over SSH ([ROLE=][user@]host[:port] or a ~/.ssh/config alias; ROLE app, db, lb or other); repeat it for several hosts on one timeline": "通过 SSH 在该主机上记录（[ROLE=][user@]host[:port] 或 ~/.ssh/config 中的别名；ROLE 为 app、db、lb 或 other）；可重复使用，多台主机在同一时间轴上",
	"hosts file: one host a line, \"role name [user@]host[:port]\" (or YAML: hosts: [{name, role, address}])":                                                   "主机文件：每行一台主机，\"role name [user@]host[:port]\"（或 YAML：hosts: [{name, role, address}]）",
	"Internal: keep a jmeter-server engine for a run on this host":                                                                                              "内部命令：为一次运行在本机维持一个 jmeter-server 引擎",
	"JMETER_HOME (default: $JMETER_HOME, else jmeter on PATH)":                                                                                                  "JMETER_HOME（默认：$JMETER_HOME，否则用 PATH 上的 jmeter）",
	"RMI registry port (server_port)":                             "RMI 注册端口（server_port）",
	"RMI object port (server.rmi.localport; default a free port)": "RMI 对象端口（server.rmi.localport；默认取一个空闲端口）",
	"java.rmi.server.hostname":                                    "java.rmi.server.hostname",
	"JMeter property name=value":                                  "JMeter 属性 name=value",
	"connections to these remote ports are not load":              "到这些远端端口的连接不算负载",
	"Internal: answer the clock probe of a multi-host run":        "内部命令：回应多主机运行的时钟探测",

	// help (generated by cobra)
	"Help about any command": "显示任意命令的帮助",
	"Help provides help for any command in the application.\nSimply type tuneloop help [path to command] for full details.": "help 提供本程序中任意命令的帮助。\n输入 tuneloop help [命令路径] 即可查看完整说明。",

	// completion (generated by cobra)
	"Generate the autocompletion script for the specified shell": "为指定的 shell 生成自动补全脚本",
	"Generate the autocompletion script for tuneloop for the specified shell.\nSee each sub-command's help for details on how to use the generated script.\n": "为指定的 shell 生成 tuneloop 的自动补全脚本。\n生成的脚本如何使用，详见各子命令的帮助。\n",
	"disable completion descriptions":             "不显示补全项的说明",
	"Generate the autocompletion script for bash": "生成 bash 的自动补全脚本",
	"Generate the autocompletion script for the bash shell.\n\nThis script depends on the 'bash-completion' package.\nIf it is not installed already, you can install it via your OS's package manager.\n\nTo load completions in your current shell session:\n\n\tsource <(tuneloop completion bash)\n\nTo load completions for every new session, execute once:\n\n#### Linux:\n\n\ttuneloop completion bash > /etc/bash_completion.d/tuneloop\n\n#### macOS:\n\n\ttuneloop completion bash > $(brew --prefix)/etc/bash_completion.d/tuneloop\n\nYou will need to start a new shell for this setup to take effect.\n": "生成 bash shell 的自动补全脚本。\n\n该脚本依赖 'bash-completion' 软件包。\n如果尚未安装，可以用操作系统的包管理器安装。\n\n在当前 shell 会话中加载补全：\n\n\tsource <(tuneloop completion bash)\n\n要让每个新会话都加载补全，执行一次：\n\n#### Linux：\n\n\ttuneloop completion bash > /etc/bash_completion.d/tuneloop\n\n#### macOS：\n\n\ttuneloop completion bash > $(brew --prefix)/etc/bash_completion.d/tuneloop\n\n需要启动一个新的 shell，该设置才会生效。\n",
	"Generate the autocompletion script for zsh": "生成 zsh 的自动补全脚本",
	"Generate the autocompletion script for the zsh shell.\n\nIf shell completion is not already enabled in your environment you will need\nto enable it.  You can execute the following once:\n\n\techo \"autoload -U compinit; compinit\" >> ~/.zshrc\n\nTo load completions in your current shell session:\n\n\tsource <(tuneloop completion zsh)\n\nTo load completions for every new session, execute once:\n\n#### Linux:\n\n\ttuneloop completion zsh > \"${fpath[1]}/_tuneloop\"\n\n#### macOS:\n\n\ttuneloop completion zsh > $(brew --prefix)/share/zsh/site-functions/_tuneloop\n\nYou will need to start a new shell for this setup to take effect.\n": "生成 zsh shell 的自动补全脚本。\n\n如果你的环境尚未启用 shell 补全，需要先启用。可以执行一次：\n\n\techo \"autoload -U compinit; compinit\" >> ~/.zshrc\n\n在当前 shell 会话中加载补全：\n\n\tsource <(tuneloop completion zsh)\n\n要让每个新会话都加载补全，执行一次：\n\n#### Linux：\n\n\ttuneloop completion zsh > \"${fpath[1]}/_tuneloop\"\n\n#### macOS：\n\n\ttuneloop completion zsh > $(brew --prefix)/share/zsh/site-functions/_tuneloop\n\n需要启动一个新的 shell，该设置才会生效。\n",
	"Generate the autocompletion script for fish": "生成 fish 的自动补全脚本",
	"Generate the autocompletion script for the fish shell.\n\nTo load completions in your current shell session:\n\n\ttuneloop completion fish | source\n\nTo load completions for every new session, execute once:\n\n\ttuneloop completion fish > ~/.config/fish/completions/tuneloop.fish\n\nYou will need to start a new shell for this setup to take effect.\n": "生成 fish shell 的自动补全脚本。\n\n在当前 shell 会话中加载补全：\n\n\ttuneloop completion fish | source\n\n要让每个新会话都加载补全，执行一次：\n\n\ttuneloop completion fish > ~/.config/fish/completions/tuneloop.fish\n\n需要启动一个新的 shell，该设置才会生效。\n",
	"Generate the autocompletion script for powershell": "生成 powershell 的自动补全脚本",
	"Generate the autocompletion script for powershell.\n\nTo load completions in your current shell session:\n\n\ttuneloop completion powershell | Out-String | Invoke-Expression\n\nTo load completions for every new session, add the output of the above command\nto your powershell profile.\n": "生成 powershell 的自动补全脚本。\n\n在当前 shell 会话中加载补全：\n\n\ttuneloop completion powershell | Out-String | Invoke-Expression\n\n要让每个新会话都加载补全，把上面命令的输出加入你的 powershell 配置文件（profile）。\n",

	// compare
	"Set two runs side by side: TPS, latency, CPU, threads, GC and findings, before and after a change": "对比两次运行：改动前后的 TPS、时延、CPU、线程、GC 与发现",
	`Compare run folders of 'tuneloop run' or 'tuneloop record' (or run's report.json):
throughput and latency p50/p99 over each run's steady state (warm-up seconds
detected and dropped) with a 95% confidence interval and a verdict (better,
worse, no significant change, or inconclusive: run K more), then the
readings (whole-run TPS, percentiles, errors, CPU, the JVM's CPU per request,
threads blocked or waiting, GC), each run's host load and CPU steal, each
run's verdict, and which findings the change made go away, which it brought
and which are still there.

Several runs per side: BEFORE... -- AFTER..., or a folder of 'tuneloop run
--repeat N' (its run-1..N) as BEFORE or AFTER. Runs taken in turn (A B A B
..., as 'run --start-b' takes them; seen from their start times, or
--design paired) are judged pair by pair: a paired t on the per-pair log
ratios, so a neighbour's drift cancels. Otherwise the unit of replication is
the JVM launch (each run is one): with 2+ launches a side, Welch's t on the
per-launch means (log scale) and an exact Mann-Whitney U-test over the same
launches, and a verdict only when both agree (else inconclusive, saying why:
too few launches for the rank test, launches in several groups, one far
off); with one launch a side, a block bootstrap over its seconds, which
covers no launch-to-launch spread. Launches whose throughput falls into
groups are reported with what the run folders show separates them. A side
from another host, kernel, JDK or CPU count (from the manifests) is warned
about and the gate refuses it (other JVM flags: a warning, they may be the
change); sides recorded more than an hour apart get an interval widened by
one launch's spread.
--steps BASE STEP1 STEP2... prints the tuning table: each step's gain over
the previous step and over the baseline, with intervals.

--fail-on-regression PCT gates CI on the interval, not the point: it fails
when throughput or p99 changed for the worse significantly (its 99%
interval excludes 0, and over launches the U-test agrees at 1%: 5 launches
a side is the fewest that can) and that interval's far bound is beyond PCT
(throughput's lower bound below -PCT, p99's upper bound above +PCT), or the
error rate rose by more than 0.1 point. Exit status: 0 passed, 3
regression, 4 inconclusive (a gated metric cannot be told from noise at
PCT: run N more a side), 1 error, 2 bad usage.`: `对比 'tuneloop run' 或 'tuneloop record' 的运行目录（或 run 写出的 report.json）：
每次运行稳态（自动识别并去掉预热秒数）的吞吐量与时延 p50/p99，给出 95% 置信区间和
结论（变好、变差、无显著变化，或无法判断：再运行 K 次）；然后是读数（整次运行的
TPS、百分位、错误、CPU、每个请求的 JVM CPU 时间、阻塞或等待的线程、GC）、每次运行
的主机负载与 CPU 窃取、各次运行的结论，以及本次改动消除了哪些发现、引入了哪些、
哪些仍然存在。

每侧多次运行：BEFORE... -- AFTER...，或把 'tuneloop run --repeat N' 的目录（其中的
run-1..N）作为 BEFORE 或 AFTER。交替进行的运行（A B A B ...，即 'run --start-b' 的
做法；由开始时间识别，或用 --design paired 指定）逐对判断：对各对比值的对数做配对 t
区间，邻居负载的漂移因此抵消。否则重复单位是 JVM 启动（每次运行一次启动）：每侧 2 次
及以上启动时，对各次启动均值（取对数）做 Welch t 区间，并对同样的启动做精确
Mann-Whitney U 检验，两者一致才下结论（否则判为无法判断并说明原因：启动次数不足以让
秩检验达到水平、各次启动分成几组、有一次偏离很远）；每侧一次启动时为其逐秒数据的分块
自助法，不含启动之间的波动。吞吐量分成几组的启动会被报告，并给出运行目录中区分它们的
数据。一侧来自不同的主机、内核、JDK 或 CPU 数（取自 manifest）时给出警告，门禁拒绝
判断（仅 JVM 参数不同时只警告，参数可能正是要比较的改动）；两侧相隔一小时以上记录时，
区间按一次启动的波动加宽。
--steps BASE STEP1 STEP2... 输出调优表：每一步相对上一步和相对基线的提升及其区间。

--fail-on-regression PCT 按区间而不是按点值做 CI 门禁：吞吐量或 p99 显著变差（其 99%
区间不含 0，且基于启动时 U 检验在 1% 水平下一致：每侧至少 5 次启动才可能做到）且该区间
远端超过 PCT（吞吐量下界低于 -PCT，p99 上界高于 +PCT），或错误率上升超过 0.1 个百分点时
失败。退出码：0 通过，3 回退，4 无法判断（门禁指标在 PCT 精度下无法与噪声区分：每侧再
运行 N 次），1 出错，2 用法错误。`,
	`  tuneloop compare runs/before runs/after
  tuneloop compare runs/a1 runs/a2 runs/a3 -- runs/b1 runs/b2 runs/b3 --fail-on-regression 5
  tuneloop compare runs/before runs/after --output markdown > tuning.md
  tuneloop compare --steps runs/base runs/heap runs/gc runs/async-log
  tuneloop compare baseline/report.json runs/candidate --fail-on-regression 5 -o junit > compare.xml
  tuneloop compare runs/before runs/after --flame-diff diff.html --flame-kind lock
  tuneloop compare before.jfr after.jfr --flame-diff diff.html`: `  tuneloop compare runs/before runs/after
  tuneloop compare runs/a1 runs/a2 runs/a3 -- runs/b1 runs/b2 runs/b3 --fail-on-regression 5
  tuneloop compare runs/before runs/after --output markdown > tuning.md
  tuneloop compare --steps runs/base runs/heap runs/gc runs/async-log
  tuneloop compare baseline/report.json runs/candidate --fail-on-regression 5 -o junit > compare.xml
  tuneloop compare runs/before runs/after --flame-diff diff.html --flame-kind lock
  tuneloop compare before.jfr after.jfr --flame-diff diff.html`,
	"run the same load N times into --out/run-1..N, for 'tuneloop compare' with confidence intervals":                                 "把同样的负载运行 N 次，写入 --out/run-1..N，供 'tuneloop compare' 计算置信区间",
	"output format: text, markdown, json or junit":                                                                                    "输出格式：text、markdown、json 或 junit",
	"exit 3 when throughput or p99 regressed significantly with the interval's far bound beyond this percent, or the error rate rose": "吞吐量或 p99 显著变差且区间远端超过该百分比，或错误率上升时，以退出码 3 结束",
	"the arguments are a baseline and tuning steps in order: print each step's gain":                                                  "参数依次为基线与各调优步骤：输出每一步的提升",

	// run --start-b/--target-b and compare --design: interleaved pairs
	"paired: the i-th runs of the sides are a pair; unpaired: two sets (default: paired when the start times show the runs interleaved)":                "paired：两侧的第 i 次运行为一对；unpaired：两组独立运行（默认：开始时间显示交替进行时按配对处理）",
	"--repeat N: also start variant B with this command and run A and B in turn (A1 B1 A2 B2 ...) into --out/a and --out/b, then compare them as pairs": "配合 --repeat N：再用该命令启动变体 B，A 与 B 轮流运行（A1 B1 A2 B2 ...），写入 --out/a 与 --out/b，然后按配对比较",
	"--repeat N: also load variant B at this URL (a second running service), A and B in turn, then compare them as pairs":                               "配合 --repeat N：再压测该 URL 上的变体 B（另一个正在运行的服务），A 与 B 轮流进行，然后按配对比较",
	"with --start-b/--target-b: exit 3 when B regressed significantly beyond this percent (as compare; 4: inconclusive)":                                "配合 --start-b/--target-b：B 显著回退且超过该百分比时以退出码 3 结束（同 compare；4 表示无法判断）",
	// experiment
	"Try knobs (JVM options, properties, env, limits, CPU/NUMA binding, config files, sysctl/sysfs) in interleaved trials and report the gain with its interval": "在交错试验中尝试各项设置（JVM 选项、系统属性、环境变量、资源限制、CPU/NUMA 绑定、配置文件、sysctl/sysfs），并报告收益及其区间",
	`Run the experiment a plan describes: a service (a start command, or the pid of
a running one for host knobs only), a load, and knobs with candidate values.
Every combination is an arm; the baseline is each knob at its baseline value.

Each trial applies the arm's host knobs through the apply journal, starts the
service with the arm's JVM options and properties in JAVA_TOOL_OPTIONS and its
env variables (nothing of the user's is edited), process limits and a CPU
set or NUMA node set on the start command before it runs (read back from
/proc/PID/limits and /proc/PID/status), configuration files copied into the
trial's folder and passed as the property the knob names (the original only
read, its hash checked after), checks in the running JVM
(VM.flags -all, VM.system_properties) that every option took effect (a flag
on the start command wins over JAVA_TOOL_OPTIONS: such a trial is refused and
the conflicting flag named), warms up, measures with the run flow (one run
folder per trial, in the catalog unless --no-catalog), stops the service and
reverts the host knobs. Arms run in interleaved blocks, a fresh seeded order
per block. From 5 arms on, successive halving drops the worse half after each
round (by the 95% interval against the leader, else by the mean) and gives
the survivors twice the trials. The winner is then re-measured against the
baseline in a fresh interleaved block: that comparison alone is the gain.

The trial log DIR/trials.jsonl is fsync'd per step: run the same command with
the same --out to continue after Ctrl-C or a crash (what a killed run left
applied is reverted first). DIR gets report.html, report.md and report.json.`: `运行计划所描述的实验：一个服务（启动命令，或仅用于主机设置的运行中进程的 pid）、
一种负载，以及带候选值的各项设置。每种组合是一个试验组；基线是各设置取其基线值。

每次试验：通过 apply 日志应用该组的主机设置，用 JAVA_TOOL_OPTIONS 传入该组的 JVM
选项与系统属性并设置其环境变量后启动服务（不修改用户的任何文件），在启动命令运行前
为其设置进程资源限制与 CPU 集合或 NUMA 节点（从 /proc/PID/limits 与 /proc/PID/status
回读核对），把配置文件复制到该试验的目录并以设置所指定的系统属性传给服务（原文件只读，
事后核对其哈希），在运行中的 JVM 里核对（VM.flags -all、VM.system_properties）每个选项都已生效（启动命令上的标志
优先于 JAVA_TOOL_OPTIONS：这样的试验会被拒绝，并指出冲突的标志），预热，用 run
流程测量（每次试验一个运行目录，除非 --no-catalog 否则加入运行记录目录），停止服务
并撤销主机设置。各组按交错区组运行，每个区组用新的带种子的顺序。5 个组起使用逐次
减半：每轮后淘汰较差的一半（依据相对领先者的 95% 区间，否则依据均值），幸存者的
试验次数加倍。最后胜出组在新的交错区组中与基线重新对比：只有这一对比才作为收益。

试验日志 DIR/trials.jsonl 每一步都 fsync：Ctrl-C 或崩溃后用同一个 --out 运行同一
命令即可继续（被杀死的运行遗留的设置会先被撤销）。DIR 中会生成 report.html、
report.md 和 report.json。`,
	`  tuneloop experiment plan.yaml --out runs/heap-gc
  tuneloop experiment plan.yaml --out runs/heap-gc -o json   # continue, JSON on stdout`: `  tuneloop experiment plan.yaml --out runs/heap-gc
  tuneloop experiment plan.yaml --out runs/heap-gc -o json   # 继续运行，JSON 输出到标准输出`,
	"experiment folder (default runs/<time>-experiment); the same folder again continues it": "实验目录（默认 runs/<时间>-experiment）；再次使用同一目录即继续该实验",

	// probe
	"Measure the platform itself: network, CPU and kernel, memory, disk, each with a 95% interval":       "测量平台本身：网络、CPU 与内核、内存、磁盘，每项带 95% 区间",
	"output format: text, markdown or json":                                                              "输出格式：text、markdown 或 json",
	"probe folder (default ./probes/<timestamp>-<host>; - for none)":                                     "探测目录（默认 ./probes/<时间戳>-<主机名>；- 表示不写）",
	"a quick probe: about 10 s, shorter rounds":                                                          "快速探测：约 10 秒，每轮更短",
	"the parts to measure, comma-separated: net, cpu, mem, disk (default all)":                           "要测量的部分，逗号分隔：net、cpu、mem、disk（默认全部）",
	"network message sizes (bytes; k and m suffixes)":                                                    "网络消息大小（字节；可用 k、m 后缀）",
	"rounds per figure (default 7, 6 with --quick)":                                                      "每个指标的轮数（默认 7，--quick 时为 6）",
	"the directory the disk part measures":                                                               "磁盘部分测量的目录",
	"the disk part's file size in MiB (default 256, 32 with --quick; at most a tenth of the free space)": "磁盘部分使用的文件大小，单位 MiB（默认 256，--quick 时 32；最多为可用空间的十分之一）",
	"HOST:PORT of 'tuneloop probe --listen' for the network part (default: loopback)":                    "网络部分所连的 'tuneloop probe --listen' 的 HOST:PORT（默认：环回地址）",
	"shared secret between --listen and --peer (default $TUNELOOP_PROBE_TOKEN)":                          "--listen 与 --peer 之间共享的口令（默认取 $TUNELOOP_PROBE_TOKEN）",
	"serve probes on this address (HOST:PORT) instead of probing":                                        "在该地址（HOST:PORT）提供探测服务，而不是发起探测",
	"with --listen: stop serving after this long":                                                        "与 --listen 一起使用：服务这么长时间后停止",
	"start the other side on this host over SSH ([user@]host[:port] or a ~/.ssh/config alias; nothing is installed there) and measure the network to it": "通过 SSH 在该主机上启动另一端（[user@]host[:port] 或 ~/.ssh/config 中的别名；不在那里安装任何东西），并测量到它的网络",
	"--peer-ssh: private key file to log in with (besides ssh-agent and ~/.ssh/config)":                                                                  "--peer-ssh：用于登录的私钥文件（ssh-agent 与 ~/.ssh/config 之外）",
	"--peer-ssh: known_hosts file (default ~/.ssh/known_hosts); an unknown host key is refused":                                                          "--peer-ssh：known_hosts 文件（默认 ~/.ssh/known_hosts）；未知的主机密钥会被拒绝",
	`Measure this host the way a kernel regression is proved before the application
is blamed (qperf, lmbench, fio, in one binary):

  net   TCP and UDP latency (ping-pong, half the round trip) and bandwidth at
        message sizes 1 B, 64 B, 1 KiB, 64 KiB, and TCP connections per second,
        over loopback or against 'tuneloop probe --listen' on another host
  cpu   system call, context switch and clock read costs (what CPU
        vulnerability mitigations move), single-core integer, floating-point,
        CRC-32C and memcpy kernels, and the core-to-core cache-line latency
        matrix (threads pinned to each pair of CPUs)
  mem   memory read and copy bandwidth and random-load latency, per pair of
        NUMA nodes (local and remote) when there are several
  disk  fsync latency (median, p99, distribution), sequential and random
        read and write with O_DIRECT where the filesystem allows it, on --dir

Every figure is the median of its rounds (7, or 6 with --quick; the rounds
of a part interleave its figures) with a 95% interval for the median, and
the CPU others kept busy while it ran. The probe folder holds probe.json,
probe.txt, probe.md and probe.html (the matrix as a heat map); 'tuneloop
compare PROBE_A PROBE_B' says per figure whether the difference is
significant. The disk part's file has no name (O_TMPFILE, or unlinked as
soon as it is created): nothing is left behind, even after kill -9.

The default probe takes under a minute, --quick about 10 s. --listen serves
probes for --for (default 10 minutes) and then exits; with --token (or
$TUNELOOP_PROBE_TOKEN) it refuses a prober that does not present the same.
--peer-ssh HOST starts that listener on HOST over SSH (this binary copied
there, run for at most 5 minutes with a fresh token, removed after).`: `测量本机平台本身，就像在怪罪应用之前先证明内核变慢了那样（qperf、lmbench、
fio 合而为一）：

  net   TCP 与 UDP 延迟（乒乓往返，取往返时间的一半）和带宽，消息大小为
        1 B、64 B、1 KiB、64 KiB，以及每秒 TCP 连接数；走环回地址，或连到
        另一台主机上的 'tuneloop probe --listen'
  cpu   系统调用、上下文切换和读时钟的开销（CPU 漏洞缓解措施影响的正是这些），
        单核整数、浮点、CRC-32C 与 memcpy 计算，以及核间缓存行延迟矩阵
        （线程分别绑定到每一对 CPU 上）
  mem   内存读、拷贝带宽与随机访问延迟；有多个 NUMA 节点时按节点对测量
        （本地与远端）
  disk  fsync 延迟（中位数、P99、分布），顺序与随机读写，文件系统允许时
        使用 O_DIRECT，测量位置为 --dir

每个指标都是各轮的中位数（7 轮，--quick 为 6 轮；同一部分的各指标交错进行），
附带中位数的 95% 区间，以及测量期间其他进程占用的 CPU。探测目录包含
probe.json、probe.txt、probe.md 与 probe.html（矩阵画成热力图）；
'tuneloop compare PROBE_A PROBE_B' 逐项说明差异是否显著。磁盘部分使用的
文件没有名字（O_TMPFILE，或创建后立即删除）：即使被 kill -9 也不会留下任何东西。

默认探测不到一分钟，--quick 约 10 秒。--listen 在 --for 时长内（默认 10 分钟）
提供探测服务，然后自行退出；设置 --token（或 $TUNELOOP_PROBE_TOKEN）后，
拒绝未出示相同口令的探测方。
--peer-ssh HOST 通过 SSH 在 HOST 上启动该监听端（把本程序复制过去，使用新生成的
口令，最多运行 5 分钟，结束后删除）。`,
	`  tuneloop probe
  tuneloop probe --quick --only cpu,mem
  tuneloop probe --only disk --dir /data
  tuneloop probe --listen :7412 --token s3cret            # on host B
  tuneloop probe --peer hostB:7412 --token s3cret --only net
  tuneloop probe --peer-ssh admin@hostB --only net
  tuneloop compare probes/before probes/after`: `  tuneloop probe
  tuneloop probe --quick --only cpu,mem
  tuneloop probe --only disk --dir /data
  tuneloop probe --listen :7412 --token s3cret            # 在主机 B 上
  tuneloop probe --peer hostB:7412 --token s3cret --only net
  tuneloop probe --peer-ssh admin@hostB --only net
  tuneloop compare probes/before probes/after`,
	"output format on stdout: text, markdown or json":   "标准输出的格式：text、markdown 或 json",
	"do not add the trials' run folders to the catalog": "不把各次试验的运行目录加入运行记录目录",
}

// samplerHelpZH is samplerHelp in Chinese: the sampler names stay as they
// are typed on the command line.
func samplerHelpZH() string {
	return strings.NewReplacer(" (off by default)", "（默认关闭）", ", ", "、").Replace(samplerHelp())
}
