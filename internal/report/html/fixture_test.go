package html

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// hostileName is what a target can put in a thread name, a lock class or a
// URL: markup, a newline, invalid UTF-8, a BEL, ANSI colour and clear-screen
// sequences (7-bit ESC and the 8-bit CSI, both as a byte and as a rune).
const hostileName = "\"><script>alert(1)</script>\n</script><img src=x onerror=alert(2)>\xff'`\a\x1b[31mred\x1b[0m\x9b2J\u009b2J"

// hostileURL is a target URL with a control sequence and invalid UTF-8.
const hostileURL = "http://127.0.0.1:8080/api/\x1b]0;pwned\a\xfe\xff?q=<b>"

// htmlFixture is a realistic run: synchronous logging serialises request
// threads on the logback appender lock while the CPUs idle.
func htmlFixture(ncpu int, l finding.Lang) *report.RunPage {
	rng := rand.New(rand.NewPCG(1, uint64(ncpu)))
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	verdict := finding.Finding{
		ID: "run.lock.logging", Category: "jvm", Status: finding.Fail, Severity: finding.Critical,
		Title:    finding.T("Request threads serialise on the logback file appender lock", "请求线程在 logback 文件 appender 锁上串行化"),
		Observed: finding.T("38 of 200 request threads BLOCKED on one OutputStreamAppender lock in 11 of 12 dumps; CPU 41% busy; p99 612 ms while TPS plateaus at 1,180/s.", "12 次转储中有 11 次，200 个请求线程里 38 个阻塞在同一个 OutputStreamAppender 锁上；CPU 忙 41%；吞吐停在 1,180/秒，p99 为 612 毫秒。"),
		Evidence: []finding.Evidence{
			{Key: "load.p99_ms", Value: "612", Source: "tuneloop load"},
			{Key: "load.tps_plateau", Value: "1180/s at 60 users", Source: "tuneloop load"},
			{Key: "cpu.busy_pct", Value: "41.2", Source: "/proc/stat"},
			{Key: "threads.blocked", Value: "38/200 (mean over 12 dumps)", Source: "jstack"},
			{Key: "lock.owner_frame", Value: "java.io.FileOutputStream.writeBytes(Native Method)", Source: "jstack"},
			{Key: "gc.throughput_pct", Value: "99.1", Source: "gc.log"},
		},
		Why: finding.T("Every log call takes the appender's lock and writes to the file synchronously; while one thread waits on the disk, all others queue.",
			"每次写日志都要获取 appender 的锁并同步写文件；一个线程等磁盘时，其余线程全部排队。"),
		Recommended: finding.T("Wrap the file appender in an AsyncAppender with neverBlock and a bounded queue.", "用 AsyncAppender（neverBlock，有界队列）包装文件 appender。"),
		Fix: finding.Fix{
			Apply:   "<appender name=\"ASYNC\" class=\"ch.qos.logback.classic.AsyncAppender\">\n  <queueSize>8192</queueSize>\n  <neverBlock>true</neverBlock>\n  <appender-ref ref=\"FILE\"/>\n</appender>",
			Revert:  "<appender-ref ref=\"FILE\"/>",
			Persist: "cp logback.xml /etc/app/logback.xml",
			Note:    finding.T("Edit logback.xml; logback rescans it if scan=\"true\", otherwise restart the service.", "修改 logback.xml；若 scan=\"true\" 则自动生效，否则重启服务。"),
		},
		Risk: finding.T("Expect p99 to drop to the service's own latency and TPS to rise until CPU-bound; under overload, log lines are dropped instead of blocking.",
			"预计 p99 降到服务自身延迟，吞吐上升直到 CPU 成为瓶颈；过载时会丢弃日志而不是阻塞。"),
		Workload:   finding.T("latency-sensitive services logging per request", "每个请求都写日志的延迟敏感服务"),
		References: []string{"https://logback.qos.ch/manual/appenders.html#AsyncAppender"},
		Confidence: 0.92,
	}
	softirq := finding.Finding{
		ID: "run.softirq.imbalance", Category: "net", Status: finding.Fail, Severity: finding.Warning,
		Title:       finding.T("NET_RX softirqs land on CPU 0 only", "NET_RX 软中断只落在 CPU 0"),
		Observed:    finding.T("CPU 0 handles 93% of NET_RX (14.2k/s); RPS is off.", "CPU 0 处理 93% 的 NET_RX（14.2k/秒）；RPS 未开启。"),
		Evidence:    []finding.Evidence{{Key: "softirq.net_rx.cpu0_share", Value: "93%", Source: "/proc/softirqs"}, {Key: "rps_cpus", Value: "0", Source: "/sys/class/net/eth0/queues/rx-0/rps_cpus"}},
		Why:         finding.T("A single receive queue processes every packet on one CPU.", "单个接收队列在一个 CPU 上处理所有数据包。"),
		Recommended: finding.T("Spread receive processing with RPS.", "用 RPS 分散接收处理。"),
		Fix:         finding.Fix{Apply: "echo ff > /sys/class/net/eth0/queues/rx-0/rps_cpus", Revert: "echo 0 > /sys/class/net/eth0/queues/rx-0/rps_cpus", Note: finding.T("Runtime only.", "仅运行时生效。")},
		Risk:        finding.T("Slightly more inter-CPU traffic.", "CPU 间通信略增。"),
		Confidence:  0.7,
	}
	gcok := finding.Finding{
		ID: "run.gc.ok", Category: "gc", Status: finding.Fail, Severity: finding.Info,
		Title:    finding.T("GC is not the bottleneck", "GC 不是瓶颈"),
		Observed: finding.T("G1 throughput 99.1%, p99 pause 18 ms.", "G1 吞吐 99.1%，p99 停顿 18 毫秒。"),
		Evidence: []finding.Evidence{{Key: "gc.throughput_pct", Value: "99.1", Source: "gc.log"}}, Confidence: 1,
	}
	unavail := finding.Finding{ID: "run.disk.latency", Status: finding.Unavailable, Title: finding.T("Disk latency", "磁盘延迟"),
		Reason: finding.T("/proc/diskstats: not present", "/proc/diskstats：不存在")}
	r := &report.RunSummary{
		Schema: report.RunSchema, Tool: report.Tool{Name: "tuneloop", Version: "v0.9.0-test"}, GeneratedAt: t0.Add(125 * time.Second),
		Dir: "runs/20261122-010000-app01", ID: "20261122-010000-app01", Status: "complete", Start: t0, End: t0.Add(120 * time.Second),
		Command: "tuneloop run --duration 120s --url http://127.0.0.1:8080/api/orders", IntervalMS: 1000, TargetPID: 4242, TargetComm: "java",
		Host:     report.Host{Hostname: "app01", OS: "Debian GNU/Linux 12", Kernel: "6.1.0-18-amd64", Arch: "x86_64", CPU: "Intel Xeon Gold 6338", Logical: ncpu, Sockets: 1 + ncpu/64, NUMANodes: 1 + ncpu/64, MemTotalKB: 16 << 20, JVMs: 1},
		Stats:    diagnose.Stats{Ticks: 120, Seconds: 120, Busy: 41.2, PeakBusy: 55, User: 28, System: 9, Soft: 3, Iowait: 1, ProcCPU: 80},
		Findings: []finding.Finding{verdict, softirq, gcok, unavail}, CostCPUPct: 0.4, CostMaxRSSKB: 24000,
	}
	p := &report.RunPage{Schema: "tuneloop.run-page/v1", Lang: l, Title: "sync-logging @ http://127.0.0.1:8080/api/orders", Run: r, Verdict: &verdict}
	lv := &report.LoadView{Source: "tuneloop load", Model: "closed, 60 users", Requests: 141_600, Errors: 37, TPS: 1180, MeanMS: 48, P50MS: 31, P90MS: 140, P99MS: 612, MaxMS: 1840}
	for s := 0; s < 120; s++ {
		ramp := math.Min(1, float64(s)/10)
		tps := ramp * (1180 + 60*math.Sin(float64(s)/7) + 40*rng.NormFloat64())
		p99 := 500 + 150*rng.Float64()
		if s%17 == 9 {
			p99 += 900
			tps *= 0.6
		}
		errs := int64(0)
		if s%17 == 9 {
			errs = int64(rng.IntN(8))
		}
		lv.Series = append(lv.Series, report.LoadPoint{T: t0.Add(time.Duration(s) * time.Second), TPS: tps, P50MS: 28 + 6*rng.Float64(), P99MS: p99, Errors: errs})
	}
	p.Load = lv
	for s := 0; s < 120; s++ {
		tick := report.CPUTick{T: t0.Add(time.Duration(s) * time.Second)}
		sq := report.SoftirqTick{T: tick.T}
		for c := 0; c < ncpu; c++ {
			load := 0.8 + 0.4*math.Sin(float64(s+c*7)/11)
			if ncpu > 16 && c%16 >= 12 {
				load = 0.15 // idle NUMA corner
			}
			sh := report.CPUShare{Us: load * (26 + 6*rng.Float64()), Sy: load * (8 + 3*rng.Float64()), Hi: 0.3, Si: 0.5, Wa: 1 * rng.Float64(), St: 0.2}
			rx := 80 + 40*rng.Float64()
			if c == 0 {
				sh.Si = 9 + 2*rng.Float64()
				rx = 14200 + 900*rng.NormFloat64()
			}
			tick.PerCPU = append(tick.PerCPU, sh)
			sq.NetRx = append(sq.NetRx, rx)
			sq.All = append(sq.All, rx+900+300*rng.Float64())
		}
		p.CPU = append(p.CPU, tick)
		p.Softirq = append(p.Softirq, sq)
	}
	for d := 0; d < 12; d++ {
		b := 30 + rng.IntN(15)
		p.ThreadStates = append(p.ThreadStates, report.ThreadStateSample{T: t0.Add(time.Duration(5+10*d) * time.Second),
			Counts: map[string]int{"RUNNABLE": 24 + rng.IntN(8), "BLOCKED": b, "WAITING": 96 - b/2, "TIMED_WAITING": 41, "NEW": 0}})
	}
	p.Locks = append(p.Locks, report.LockRow{Lock: "<0x000000069ebe53b8>", Class: "ch.qos.logback.core.OutputStreamAppender$ReentrantLock", Kind: "juc",
		Owner: "http-nio-8080-exec-17", OwnerState: "RUNNABLE", OwnerFrame: "java.io.FileOutputStream.writeBytes(Native Method)", Waiters: 38, Dumps: 11})
	for i := 0; i < 24; i++ {
		p.Locks = append(p.Locks, report.LockRow{Lock: fmt.Sprintf("<0x00000006a%07x>", i*4096), Class: "java.util.concurrent.ConcurrentHashMap$Node",
			Kind: "monitor", Owner: fmt.Sprintf("pool-2-thread-%d", i), OwnerState: "BLOCKED", OwnerFrame: "com.example.cache.LocalCache.get(LocalCache.java:118)", Waiters: max(1, 6-i/4), Dumps: 1 + i%3})
	}
	g := &report.GCView{Collector: "G1", ThroughputPct: 99.1, Pauses: 300, PauseP50MS: 6.1, PauseP99MS: 18.4, PauseMaxMS: 41, FullGCs: 0,
		Verdict: finding.T("GC is not the bottleneck (throughput 99.1%, p99 pause 18 ms)", "GC 不是瓶颈（吞吐 99.1%，p99 停顿 18 毫秒）")}
	for i := 0; i < 300; i++ {
		kind, ms := "young", 4+6*rng.Float64()
		if i%25 == 24 {
			kind, ms = "mixed", 12+10*rng.Float64()
		}
		if i%60 == 59 {
			kind, ms = "remark", 2+2*rng.Float64()
		}
		if i == 200 {
			ms = 41
		}
		g.Timeline = append(g.Timeline, report.GCPause{UptimeS: 600 + float64(i)*0.4 + rng.Float64()*0.2, MS: ms, Kind: kind})
	}
	p.GC = g
	p.Flame = flameFixture(rng)
	p.FlameSource = "12 thread dumps, RUNNABLE threads"
	p.Check = []finding.Finding{
		{ID: "cpu.governor", Status: finding.Fail, Severity: finding.Warning, Title: finding.T("CPU frequency governor is powersave", "CPU 调频策略为 powersave"),
			Observed: finding.T("scaling_governor=powersave on all CPUs", "所有 CPU 的 scaling_governor=powersave"), Fix: finding.Fix{Apply: "cpupower frequency-set -g performance"}},
		{ID: "vm.swappiness", Status: finding.Fail, Severity: finding.Info, Title: finding.T("vm.swappiness is 60", "vm.swappiness 为 60"),
			Observed: finding.T("vm.swappiness=60", "vm.swappiness=60"), Fix: finding.Fix{Apply: "sysctl -w vm.swappiness=10"}},
		{ID: "net.somaxconn", Status: finding.Fail, Severity: finding.Warning, Title: finding.T("Listen backlog is small", "监听队列过小"),
			Observed: finding.T("net.core.somaxconn=128", "net.core.somaxconn=128"), Fix: finding.Fix{Apply: "sysctl -w net.core.somaxconn=4096"}},
	}
	p.Facts = [][2]string{{"hostname", "app01"}, {"os", "Debian GNU/Linux 12"}, {"kernel", "6.1.0-18-amd64"}, {"cpu", "Intel Xeon Gold 6338"},
		{"logical CPUs", fmt.Sprint(ncpu)}, {"memory", "16 GiB"}, {"THP", "madvise"}, {"clocksource", "tsc"}, {"java", "17.0.9+9 (Temurin)"},
		{"jvm options", "-Xms4g -Xmx4g -XX:+UseG1GC -Xlog:gc*:file=gc.log"}, {"nic", "eth0 (virtio_net, 1 queue)"}}
	return p
}

func flameFixture(rng *rand.Rand) *report.FlameNode {
	root := &report.FlameNode{Name: "all"}
	base := []string{"java.lang.Thread.run", "org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run", "java.util.concurrent.ThreadPoolExecutor$Worker.run",
		"org.apache.tomcat.util.net.SocketProcessorBase.run", "org.apache.coyote.AbstractProtocol$ConnectionHandler.process", "org.apache.catalina.connector.CoyoteAdapter.service",
		"org.springframework.web.servlet.DispatcherServlet.doDispatch", "com.example.orders.OrderController.create"}
	leaves := [][]string{
		{"com.example.orders.OrderService.place", "org.slf4j.Logger.info", "ch.qos.logback.classic.Logger.callAppenders", "ch.qos.logback.core.OutputStreamAppender.subAppend", "ch.qos.logback.core.OutputStreamAppender.writeBytes", "java.io.FileOutputStream.writeBytes"},
		{"com.example.orders.OrderService.place", "com.example.orders.PriceEngine.quote", "java.math.BigDecimal.multiply", "java.math.BigInteger.multiplyToLen"},
		{"com.example.orders.OrderService.place", "com.fasterxml.jackson.databind.ObjectMapper.writeValueAsString", "com.fasterxml.jackson.databind.ser.BeanSerializer.serialize"},
		{"com.example.orders.OrderRepository.save", "com.zaxxer.hikari.pool.HikariPool.getConnection", "java.util.concurrent.SynchronousQueue.poll"},
		{"com.example.orders.OrderService.validate", "java.util.regex.Pattern$Start.match", "java.util.regex.Pattern$GroupHead.match"},
	}
	for i := 0; i < 400; i++ {
		leaf := leaves[min(rng.IntN(8), len(leaves)-1)]
		depth := 3 + rng.IntN(len(base)-2)
		stack := append(append([]string{}, base[:depth]...), leaf[:1+rng.IntN(len(leaf))]...)
		stack = append(stack, fmt.Sprintf("com.example.generated.Frame%d.call", rng.IntN(40)))
		root.Add(stack, 1+rng.IntN(3))
	}
	return root
}

// hostile fills every string the target can influence with markup.
func makeHostile(p *report.RunPage) {
	p.Title = hostileName
	p.Run.Host.Hostname = hostileName
	p.Run.Command = hostileName
	p.Locks[0].Owner = hostileName
	p.Locks[0].Class = hostileName
	p.Locks[0].OwnerFrame = hostileName
	p.Verdict.Evidence[0].Value = hostileName
	p.Verdict.Evidence[0].Source = hostileName
	p.Verdict.Fix.Apply = hostileName
	p.Run.Findings[1].Title.EN = hostileName
	p.Run.Findings[1].Title.ZH = hostileName
	p.Run.Findings[1].References = []string{"javascript:alert(1)", hostileName}
	p.GC.Timeline[0].Kind = hostileName
	p.GC.Verdict.EN = hostileName
	p.ThreadStates[0].Counts[hostileName] = 3
	p.Flame.Children[0].Name = hostileName
	p.Flame.Add([]string{hostileName, "</script><script>alert(3)</script>"}, 50)
	p.FlameSource = hostileName
	p.Facts = append(p.Facts, [2]string{hostileName, hostileName})
	p.Load.Model = hostileName
	p.Load.Source = hostileURL
	p.Title += " @ " + hostileURL
	p.Run.Findings[0].References = append(p.Run.Findings[0].References, hostileURL)
	p.Locks[1].Class = "com.example.\xc3\x28Broken\x1b[2J$Lock"
	p.Locks[1].Owner = "pool-\a\a\a-thread-\xe2\x82"
}

func renderHTML(t *testing.T, p *report.RunPage) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteRun(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var sectionIDs = []string{"sec-verdict", "sec-load", "sec-cpu", "sec-softirq", "sec-threads", "sec-locks", "sec-gc", "sec-flame", "sec-findings", "sec-check", "sec-facts"}

func checkSelfContained(t *testing.T, name, s string) {
	t.Helper()
	if !strings.Contains(s, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`) {
		t.Errorf("%s: CSP meta missing", name)
	}
	low := strings.ToLower(s)
	for _, bad := range []string{"<link", "<script src", "<iframe", "<object", "<embed", "@import", "url(", "<base"} {
		if strings.Contains(low, bad) {
			t.Errorf("%s: contains %q", name, bad)
		}
	}
	attr := regexp.MustCompile(`(?i)\b(src|href|action|srcset|poster|xlink:href)\s*=\s*["']?\s*([a-z]+):`)
	for _, m := range attr.FindAllStringSubmatch(s, -1) {
		if scheme := strings.ToLower(m[2]); scheme != "data" {
			t.Errorf("%s: %s attribute with scheme %q", name, m[1], scheme)
		}
	}
	if strings.Count(low, "<script") != 2 || strings.Count(low, "</script") != 2 {
		t.Errorf("%s: want exactly 2 script elements, got %d opening, %d closing", name, strings.Count(low, "<script"), strings.Count(low, "</script"))
	}
	if !utf8.ValidString(s) {
		t.Errorf("%s: output is not valid UTF-8", name)
	}
}
