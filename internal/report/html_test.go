package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
)

var updateHTML = flag.Bool("update", false, "write the HTML fixtures and screenshots to testdata/")

const hostileName = "\"><script>alert(1)</script>\n</script><img src=x onerror=alert(2)>\xff'`"

// htmlFixture is a realistic run: synchronous logging serialises request
// threads on the logback appender lock while the CPUs idle.
func htmlFixture(ncpu int, l finding.Lang) *RunPage {
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
	r := &Run{
		Schema: RunSchema, Tool: Tool{Name: "tuneloop", Version: "v0.9.0-test"}, GeneratedAt: t0.Add(125 * time.Second),
		Dir: "runs/20261122-010000-app01", ID: "20261122-010000-app01", Status: "complete", Start: t0, End: t0.Add(120 * time.Second),
		Command: "tuneloop run --duration 120s --url http://127.0.0.1:8080/api/orders", IntervalMS: 1000, TargetPID: 4242, TargetComm: "java",
		Host:     Host{Hostname: "app01", OS: "Debian GNU/Linux 12", Kernel: "6.1.0-18-amd64", Arch: "x86_64", CPU: "Intel Xeon Gold 6338", Logical: ncpu, Sockets: 1 + ncpu/64, NUMANodes: 1 + ncpu/64, MemTotalKB: 16 << 20, JVMs: 1},
		Stats:    diagnose.Stats{Ticks: 120, Seconds: 120, Busy: 41.2, PeakBusy: 55, User: 28, System: 9, Soft: 3, Iowait: 1, ProcCPU: 80},
		Findings: []finding.Finding{verdict, softirq, gcok, unavail}, CostCPUPct: 0.4, CostMaxRSSKB: 24000,
	}
	p := &RunPage{Schema: "tuneloop.run-page/v1", Lang: l, Title: "sync-logging @ http://127.0.0.1:8080/api/orders", Run: r, Verdict: &verdict}
	lv := &LoadView{Source: "tuneloop load", Model: "closed, 60 users", Requests: 141_600, Errors: 37, TPS: 1180, MeanMS: 48, P50MS: 31, P90MS: 140, P99MS: 612, MaxMS: 1840}
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
		lv.Series = append(lv.Series, LoadPoint{T: t0.Add(time.Duration(s) * time.Second), TPS: tps, P50MS: 28 + 6*rng.Float64(), P99MS: p99, Errors: errs})
	}
	p.Load = lv
	for s := 0; s < 120; s++ {
		tick := CPUTick{T: t0.Add(time.Duration(s) * time.Second)}
		sq := SoftirqTick{T: tick.T}
		for c := 0; c < ncpu; c++ {
			load := 0.8 + 0.4*math.Sin(float64(s+c*7)/11)
			if ncpu > 16 && c%16 >= 12 {
				load = 0.15 // idle NUMA corner
			}
			sh := CPUShare{Us: load * (26 + 6*rng.Float64()), Sy: load * (8 + 3*rng.Float64()), Hi: 0.3, Si: 0.5, Wa: 1 * rng.Float64(), St: 0.2}
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
		p.ThreadStates = append(p.ThreadStates, ThreadStateSample{T: t0.Add(time.Duration(5+10*d) * time.Second),
			Counts: map[string]int{"RUNNABLE": 24 + rng.IntN(8), "BLOCKED": b, "WAITING": 96 - b/2, "TIMED_WAITING": 41, "NEW": 0}})
	}
	p.Locks = append(p.Locks, LockRow{Lock: "<0x000000069ebe53b8>", Class: "ch.qos.logback.core.OutputStreamAppender$ReentrantLock", Kind: "juc",
		Owner: "http-nio-8080-exec-17", OwnerState: "RUNNABLE", OwnerFrame: "java.io.FileOutputStream.writeBytes(Native Method)", Waiters: 38, Dumps: 11})
	for i := 0; i < 24; i++ {
		p.Locks = append(p.Locks, LockRow{Lock: fmt.Sprintf("<0x00000006a%07x>", i*4096), Class: "java.util.concurrent.ConcurrentHashMap$Node",
			Kind: "monitor", Owner: fmt.Sprintf("pool-2-thread-%d", i), OwnerState: "BLOCKED", OwnerFrame: "com.example.cache.LocalCache.get(LocalCache.java:118)", Waiters: max(1, 6-i/4), Dumps: 1 + i%3})
	}
	g := &GCView{Collector: "G1", ThroughputPct: 99.1, Pauses: 300, PauseP50MS: 6.1, PauseP99MS: 18.4, PauseMaxMS: 41, FullGCs: 0,
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
		g.Timeline = append(g.Timeline, GCPause{UptimeS: 600 + float64(i)*0.4 + rng.Float64()*0.2, MS: ms, Kind: kind})
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

func flameFixture(rng *rand.Rand) *FlameNode {
	root := &FlameNode{Name: "all"}
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
func makeHostile(p *RunPage) {
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
}

func renderHTML(t *testing.T, p *RunPage) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteRunHTML(&b, p); err != nil {
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

func TestWriteRunHTMLStructure(t *testing.T) {
	for _, tc := range []struct {
		name string
		ncpu int
		lang finding.Lang
	}{{"2cpu-en", 2, finding.EN}, {"128cpu-en", 128, finding.EN}, {"2cpu-zh", 2, finding.ZH}} {
		t.Run(tc.name, func(t *testing.T) {
			s := renderHTML(t, htmlFixture(tc.ncpu, tc.lang))
			checkSelfContained(t, tc.name, s)
			last := -1
			for _, id := range sectionIDs {
				i := strings.Index(s, `<section id="`+id+`"`)
				if i < 0 {
					t.Errorf("section %s missing", id)
					continue
				}
				if i < last {
					t.Errorf("section %s out of order", id)
				}
				last = i
			}
			want := []string{"Verdict", "Request threads serialise", "AsyncAppender", "Throughput and latency", "CPU per core", "NET_RX", "BLOCKED", "OutputStreamAppender", "G1", "Hot stacks", "Host audit failures", "Host facts", "v0.9.0-test", "2026-11-22 01:02:05 UTC"}
			if tc.lang == finding.ZH {
				want = []string{"结论", "请求线程在 logback", "吞吐与延迟", "各 CPU 使用率", "竞争的锁", "垃圾回收", "火焰图", "主机检查未通过项", "主机信息", `lang="zh"`}
			}
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %q", w)
				}
			}
			if tc.ncpu > smallMultiples && strings.Count(s, `<image `) != 3 {
				t.Errorf("128 CPUs: no heat strip")
			}
			if tc.ncpu <= smallMultiples && strings.Count(s, `aria-label="CPU `) != tc.ncpu {
				t.Errorf("want %d small multiples, got %d", tc.ncpu, strings.Count(s, `aria-label="CPU `))
			}
			if n := strings.Count(s, `class="fr"`); n == 0 || n > maxFlameNodes {
				t.Errorf("flame frames: %d", n)
			}
			// top 20 locks only
			if n := strings.Count(s, "pool-2-thread-"); n != maxLockRows-1 {
				t.Errorf("lock rows: %d", n)
			}
			t.Logf("%s: %d bytes", tc.name, len(s))
			if len(s) > 1<<20 {
				t.Errorf("page is %d bytes", len(s))
			}
			if *updateHTML {
				os.MkdirAll("testdata", 0o755)
				os.WriteFile(filepath.Join("testdata", "run-"+tc.name+".html"), []byte(s), 0o644)
			}
		})
	}
}

func TestWriteRunHTMLEmpty(t *testing.T) {
	s := renderHTML(t, &RunPage{Lang: finding.EN})
	checkSelfContained(t, "empty", s)
	if !strings.Contains(s, "No bottleneck found") {
		t.Error("no 'no bottleneck' line")
	}
	for _, id := range sectionIDs[1:] {
		if strings.Contains(s, `id="`+id+`"`) {
			t.Errorf("empty page has section %s", id)
		}
	}
	if err := WriteRunHTML(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil page: no error")
	}
}

func TestWriteRunHTMLHostile(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		p := htmlFixture(4, l)
		makeHostile(p)
		s := renderHTML(t, p)
		checkSelfContained(t, "hostile", s)
		for _, bad := range []string{"<script>alert", "<img src=x", "\xff", `"><script`, "</script><script"} {
			if strings.Contains(s, bad) {
				i := strings.Index(s, bad)
				t.Errorf("%s: raw %q in output: …%s…", l, bad, s[max(0, i-80):min(len(s), i+80)])
			}
		}
		// the data for the script parses back to the cleaned title
		const open = `<script type="application/json" id="tl-data">`
		i := strings.Index(s, open)
		j := strings.Index(s[i:], "</script>")
		if i < 0 || j < 0 {
			t.Fatal("no JSON data block")
		}
		var data map[string]any
		if err := json.Unmarshal([]byte(s[i+len(open):i+j]), &data); err != nil {
			t.Fatalf("JSON data: %v", err)
		}
		if title, _ := data["title"].(string); !strings.Contains(title, "<script>alert(1)</script>") || strings.Contains(title, "\n") {
			t.Errorf("title in JSON: %q", title)
		}
		// the escaped forms are there: the text is shown, not dropped
		if !strings.Contains(s, "&lt;script&gt;alert(1)&lt;/script&gt;") && !strings.Contains(s, "&#34;&gt;&lt;script&gt;") {
			t.Errorf("%s: escaped hostile text not found", l)
		}
	}
}

func TestHTMLHelpers(t *testing.T) {
	xs := make([]float64, 5000)
	ys := make([]float64, 5000)
	for i := range xs {
		xs[i], ys[i] = float64(i), float64(i%100)
	}
	dx, dy := downsample(xs, ys, maxSeriesPoints, true)
	if len(dx) != maxSeriesPoints || len(dy) != maxSeriesPoints || dy[0] != 7 {
		t.Errorf("downsample: %d %d %v", len(dx), len(dy), dy[:3])
	}
	if ts, top := niceTicks(1234, 4); top != 1500 || len(ts) != 4 {
		t.Errorf("niceTicks(1234) = %v %v", ts, top)
	}
	for in, want := range map[float64]string{0: "0", 3.14159: "3.14", 42.25: "42.2", 612: "612", 14200: "14.2k", 2.5e6: "2.5M", math.NaN(): "–"} {
		if got := fmtNum(in); got != want && !math.IsNaN(in) {
			t.Errorf("fmtNum(%v) = %q, want %q", in, got, want)
		}
	}
	if fmtInt(141600) != "141,600" || fmtInt(-1000) != "-1,000" || fmtDur(150) != "2m30s" || fmtDur(7300) != "2h01m" {
		t.Error("fmtInt/fmtDur")
	}
	// a flame tree far bigger than the cap is cut to the biggest frames
	root := &FlameNode{Name: "all"}
	for i := 0; i < 5000; i++ {
		root.Add([]string{fmt.Sprint("a", i%50), fmt.Sprint("b", i%500), fmt.Sprint("c", i)}, 1+i%7)
	}
	f := flameSection(root, "", map[string]string{"samples": "samples"})
	if f.Shown != maxFlameNodes || f.Nodes != 1+50+500+5000 {
		t.Errorf("flame: shown %d of %d", f.Shown, f.Nodes)
	}
}

// TestWriteRunHTMLChromium renders the fixtures in headless Chromium and
// checks the screenshot is a real page and that nothing was fetched.
func TestWriteRunHTMLChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not on PATH (Debian: apt-get install chromium); skipping the screenshot test")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tc := range []struct {
		name string
		ncpu int
		lang finding.Lang
	}{{"2cpu-en", 2, finding.EN}, {"128cpu-en", 128, finding.EN}, {"2cpu-zh", 2, finding.ZH}, {"hostile", 4, finding.EN}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := htmlFixture(tc.ncpu, tc.lang)
			if tc.name == "hostile" {
				makeHostile(p)
			}
			page := filepath.Join(dir, "run.html")
			if err := os.WriteFile(page, []byte(renderHTML(t, p)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "shot.png")
			if *updateHTML && tc.name != "hostile" {
				os.MkdirAll("testdata", 0o755)
				out, _ = filepath.Abs(filepath.Join("testdata", "shot-"+tc.name+".png"))
			}
			common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
				"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + filepath.Join(dir, "profile")}
			frag := ""
			run := func(args ...string) (string, string) {
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(bin, append(append(append([]string{}, common...), args...), "file://"+page+frag)...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				done := make(chan error, 1)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("chromium: %v\n%s", err, stderr.String())
					}
				case <-time.After(90 * time.Second):
					cmd.Process.Kill()
					t.Fatal("chromium timed out")
				}
				return stdout.String(), stderr.String()
			}
			_, stderr := run("--window-size=1280,4000", "--screenshot="+out, "--enable-logging=stderr", "--v=1")
			// Chromium logs every URL request at --v=1; the browser's own
			// background requests (update, time, accounts) go to Google
			// hosts and are not the page's doing.
			reqs := regexp.MustCompile(`NotifyBeforeURLRequest: ([a-z]+)://([^/:?\s]*)`).FindAllStringSubmatch(stderr, -1)
			for _, m := range reqs {
				host := m[2]
				if m[1] == "file" || host == "google.com" || strings.HasSuffix(host, ".google.com") || strings.HasSuffix(host, ".googleapis.com") ||
					strings.HasSuffix(host, ".gvt1.com") || strings.HasSuffix(host, ".gstatic.com") {
					continue
				}
				t.Errorf("the page made a request: %s://%s", m[1], host)
			}
			if len(reqs) == 0 && !strings.Contains(stderr, "VERBOSE1") {
				t.Log("chromium wrote no verbose log; request check not effective")
			}
			for _, bad := range []string{"Content Security Policy", "Refused to", "Uncaught"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("chromium console: %q in\n%s", bad, stderr)
				}
			}
			st, err := os.Stat(out)
			if err != nil {
				t.Fatalf("no screenshot: %v\n%s", err, stderr)
			}
			if st.Size() < 20<<10 {
				t.Errorf("screenshot only %d bytes", st.Size())
			}
			fh, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(fh)
			fh.Close()
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			colors := map[uint32]bool{}
			bnd := img.Bounds()
			for y := bnd.Min.Y; y < bnd.Max.Y; y += 7 {
				for x := bnd.Min.X; x < bnd.Max.X; x += 7 {
					r, g, b, _ := img.At(x, y).RGBA()
					colors[(r>>11)<<10|(g>>11)<<5|b>>11] = true
				}
			}
			if len(colors) < 20 {
				t.Errorf("screenshot has only %d colours", len(colors))
			}
			t.Logf("%s: screenshot %dx%d, %d bytes, %d colours", tc.name, bnd.Dx(), bnd.Dy(), st.Size(), len(colors))
			// the script ran under the CSP, and the DOM holds no fetchable reference
			dom, stderr := run("--dump-dom", "--enable-logging=stderr", "--v=0")
			if !strings.Contains(dom, `data-js="ok"`) {
				t.Errorf("inline script did not run (CSP?):\n%s", stderr)
			}
			if m := regexp.MustCompile(`(?i)(src|href)="(https?|ftp|file|javascript):`).FindString(dom); m != "" {
				t.Errorf("DOM references %s", m)
			}
			if strings.Contains(dom, `<img src="x"`) || strings.Contains(dom, "<script>alert") {
				t.Errorf("hostile markup became DOM")
			}
			if strings.Contains(dom, `class="fr hid"`) {
				t.Error("flame frames hidden without a zoom")
			}
			// zoom into the root's first child: frames outside it are hidden,
			// the root becomes an ancestor bar, the frame fills the width
			zi := -1
			for i, f := range flameSection(p.Flame, "", map[string]string{}).Frames {
				if w, _ := strconv.ParseFloat(f.Width, 64); w < 50 && w > 5 && f.Bottom != "0" {
					zi = i
					break
				}
			}
			frag = fmt.Sprintf("#zoom=%d", zi)
			dom, _ = run("--dump-dom")
			if !strings.Contains(dom, `class="fr hid"`) || !strings.Contains(dom, `class="fr anc"`) || !strings.Contains(dom, `left: 0%; width: 100%;`) {
				i := strings.Index(dom, `id="flame"`)
				t.Errorf("zoom did not apply: …%s…", dom[max(i, 0):min(len(dom), max(i, 0)+1500)])
			}
		})
	}
}

// TestWriteRunHTMLDegenerate feeds odd data: NaN, Inf, negative values,
// one tick, ragged per-CPU slices, zero times, a bare flame root.
func TestWriteRunHTMLDegenerate(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	nan, inf := math.NaN(), math.Inf(1)
	p := &RunPage{Lang: finding.ZH, Run: &Run{Incomplete: true, Reason: "SIGKILL", Findings: []finding.Finding{{ID: "x", Status: finding.Fail, Severity: finding.Severity(7)}}},
		Load:         &LoadView{TPS: nan, P99MS: inf, Series: []LoadPoint{{T: t0, TPS: nan, P99MS: inf}, {T: t0.Add(time.Second), TPS: -5}}},
		CPU:          []CPUTick{{T: t0, PerCPU: nil}, {T: t0.Add(time.Second), PerCPU: []CPUShare{{Us: nan, Sy: inf}, {Us: -3}}}},
		Softirq:      []SoftirqTick{{T: t0, All: []float64{1}, NetRx: []float64{nan, 2, 3}}, {T: t0, All: nil, NetRx: []float64{inf}}},
		ThreadStates: []ThreadStateSample{{Counts: map[string]int{"RUNNABLE": -1, "": 2}}, {T: t0, Counts: nil}},
		Locks:        []LockRow{{}},
		GC:           &GCView{ThroughputPct: nan, Timeline: []GCPause{{UptimeS: nan, MS: inf, Kind: ""}}},
		Flame:        &FlameNode{Value: 1, Children: []*FlameNode{nil, {Name: "", Value: 0}}},
		Facts:        [][2]string{{"", ""}, {"k", "v\nw"}},
	}
	for range 2 {
		s := renderHTML(t, p)
		checkSelfContained(t, "degenerate", s)
		if i := strings.Index(s, "NaN"); i >= 0 {
			t.Errorf("NaN in output: …%s…", s[max(0, i-100):min(len(s), i+50)])
		}
		if want := map[finding.Lang]string{finding.ZH: "不完整", finding.EN: "INCOMPLETE"}[p.Lang]; !strings.Contains(s, want) || !strings.Contains(s, "SIGKILL") {
			t.Errorf("%s: incomplete notice missing", p.Lang)
		}
		p.Lang = finding.EN
		p.CPU = []CPUTick{{T: t0, PerCPU: make([]CPUShare, 300)}}
	}
}

// The verdict's window is shaded on every time chart, and said above them;
// a window that is the whole run is not (it points at nothing).
func TestVerdictWindowBand(t *testing.T) {
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		p := htmlFixture(2, l)
		t0 := p.Load.Series[0].T
		p.Verdict.Window = &finding.Window{From: t0.Add(20 * time.Second), To: t0.Add(50 * time.Second)}
		s := renderHTML(t, p)
		charts := strings.Count(s, "<svg")
		if n := strings.Count(s, `class="band"`); n < 3 || n > charts {
			t.Errorf("%s: %d bands on %d charts", l, n, charts)
		}
		note := map[finding.Lang]string{finding.EN: "shaded: when the verdict held (01:00:20 – 01:00:50)", finding.ZH: "阴影：结论成立的时段（01:00:20 – 01:00:50）"}[l]
		if !strings.Contains(s, note) {
			t.Errorf("%s: no window note %q", l, note)
		}
		p.Verdict.Window = &finding.Window{From: t0, To: p.Load.Series[len(p.Load.Series)-1].T}
		if s := renderHTML(t, p); strings.Contains(s, `class="band"`) {
			t.Errorf("%s: a whole-run window is shaded", l)
		}
	}
}
