package verdict

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// Where the time of a request went when no resource on this host is the
// answer: the load generator itself, TCP's delayed ACK, or waits outside
// the CPUs (a downstream, sleeps, queues). In a closed-model run
// throughput is users / latency, so something always limits it: these
// branches name it with the numbers it rests on.

// Finding IDs of the latency accounting.
const (
	IDGeneratorSaturated = "run.load.generator-saturated"
	IDDelayedACK         = "run.net.delayed-ack"
	IDLatencyBound       = "run.latency-bound"
)

// generatorBusy: the load generator used this share of the host's cores.
const generatorBusy = 70

// EngineLimit is the finding that a JMeter engine, not the service, was
// the limit (its CPU saturated or its connections capped), from the load
// alone: a multi-host run without an app host has no host whose verdict
// reads the load, and still says which engine limited it. nil: none did,
// or the load was not JMeter's.
func EngineLimit(s *loadgen.Summary) *finding.Finding {
	if s == nil || s.Engine != "jmeter" || len(s.Engines) == 0 {
		return nil
	}
	return generatorSaturated(&Layers{Load: s})
}

func generatorSaturated(L *Layers) *finding.Finding { return one(IDGeneratorSaturated, L) }

func evalGenerator(in *Input) []finding.Outcome {
	s := in.L.Load
	if s != nil && s.Engine == "jmeter" && len(s.Engines) > 0 {
		return engineSaturated(s)
	}
	if s == nil || s.ClientCPU < generatorBusy {
		return nil
	}
	return []finding.Outcome{{Status: finding.Fail, Confidence: 0.7, Subject: "load-generator",
		// The Chinese sentence names the rate first: indexed verbs.
		Observed: finding.Tf(finding.T("The load generator used %.0f%% of the cores it runs on while it sent %.0f requests/s.", "压测工具在每秒发送 %.0[2]f 个请求时占用了其可用 CPU 核的 %.0[1]f%%。"),
			s.ClientCPU, s.TPS),
		Evidence: []finding.Evidence{{Key: "load_generator_cpu_pct", Value: fmt.Sprintf("%.0f", s.ClientCPU), Source: LoadFile}}}}
}

// engineSaturated names the JMeter engines whose CPU was the limit: each
// engine on this host (its process's CPU over the window, /proc) at
// generatorBusy or more of the host's cores, or JMeter's processes here
// together (the controller of remote engines shares the host too). An
// engine on another host has no CPU known: it is listed as such, never
// named the limit.
func engineSaturated(s *loadgen.Summary) []finding.Outcome {
	var busy, capped []string
	var en, zh []string
	var ev []finding.Evidence
	for _, e := range s.Engines {
		name := finding.SafeLine(e.Name)
		if e.CPUPct < 0 {
			en = append(en, fmt.Sprintf("engine %s: %d samples, CPU unknown (not on this host)", name, e.Samples))
			zh = append(zh, fmt.Sprintf("引擎 %s：%d 个样本，CPU 未知（不在本机）", name, e.Samples))
			continue
		}
		conns, connsZH := "", ""
		if e.Connections > 0 {
			conns = fmt.Sprintf(", %d connections at most", e.Connections)
			connsZH = fmt.Sprintf("，最多 %d 个连接", e.Connections)
			ev = append(ev, finding.Evidence{Key: "engine_connections " + name, Value: fmt.Sprint(e.Connections), Source: LoadFile})
		}
		en = append(en, fmt.Sprintf("engine %s: %d samples (%d failed), %d threads%s, CPU %.0f%% of %d cores", name, e.Samples, e.Errors, e.Users, conns, e.CPUPct, e.Cores))
		zh = append(zh, fmt.Sprintf("引擎 %s：%d 个样本（%d 个失败），%d 个线程%s，CPU 占 %d 个核的 %.0f%%", name, e.Samples, e.Errors, e.Users, connsZH, e.Cores, e.CPUPct))
		ev = append(ev, finding.Evidence{Key: "engine_cpu_pct " + name, Value: fmt.Sprintf("%.0f", e.CPUPct), Source: LoadFile})
		if e.CPUPct >= generatorBusy {
			busy = append(busy, name)
		}
		if e.ConnCapped {
			capped = append(capped, name)
		}
	}
	if len(busy) == 0 && s.ClientCPU >= generatorBusy {
		busy = append(busy, "JMeter")
	}
	if len(busy) == 0 && len(capped) == 0 {
		return nil
	}
	if len(busy) == 0 {
		return engineConnCapped(s, capped, en, zh, ev)
	}
	ev = append(ev, finding.Evidence{Key: "jmeter_cpu_pct_this_host", Value: fmt.Sprintf("%.0f", s.ClientCPU), Source: LoadFile})
	who := strings.Join(busy, ", ")
	return []finding.Outcome{{Status: finding.Fail, Confidence: 0.7, Subject: "load-generator",
		Title: finding.Tf(finding.T("The JMeter engine (%s), not the service, was the limit: it saturated the CPUs it runs on",
			"限制吞吐的是 JMeter 引擎（%s），而不是服务：它占满了所在主机的 CPU"), who),
		Observed: finding.Tf(finding.T("At %.0f requests/s: %s; JMeter's processes on this host used %.0f%% of its cores.",
			"每秒 %.0f 个请求时：%s；本机上 JMeter 的进程占用了 %.0f%% 的 CPU。"), s.TPS, finding.T(strings.Join(en, "; "), strings.Join(zh, "；")), s.ClientCPU),
		Why: finding.T("A closed-model engine sends its next request only when its threads get the CPU: a saturated engine queues its own threads, and the latency and throughput measured are its own.",
			"闭合模型的引擎只有在其线程拿到 CPU 时才会发出下一个请求：引擎饱和时排队的是它自己的线程，测得的延迟与吞吐属于引擎本身。"),
		Recommended: finding.T("Add engines on other hosts (jmeter-server there, --jmeter-remote host:port,...), give each fewer threads, or move JMeter off the service's host.",
			"在其他主机上增加引擎（在那里运行 jmeter-server，--jmeter-remote host:port,...），减少每个引擎的线程，或把 JMeter 移出服务所在主机。"),
		References: []string{"https://jmeter.apache.org/usermanual/remote-test.html", "https://jmeter.apache.org/usermanual/best-practices.html"},
		Evidence:   ev}}
}

// engineConnCapped names the JMeter engines whose threads could not open
// their connections (fewer established than threads, with failures).
func engineConnCapped(s *loadgen.Summary, capped, en, zh []string, ev []finding.Evidence) []finding.Outcome {
	who := strings.Join(capped, ", ")
	return []finding.Outcome{{Status: finding.Fail, Confidence: 0.6, Subject: "load-generator",
		Title: finding.Tf(finding.T("The JMeter engine (%s), not the service, was the limit: its threads could not open more connections",
			"限制吞吐的是 JMeter 引擎（%s），而不是服务：它的线程无法打开更多连接"), who),
		Observed: finding.Tf(finding.T("At %.0f requests/s: %s.", "每秒 %.0f 个请求时：%s。"), s.TPS, finding.T(strings.Join(en, "; "), strings.Join(zh, "；"))),
		Why: finding.T("Each JMeter thread holds its own connection: an engine with fewer established connections than threads while its requests get no response at all cannot open connections (file descriptors, local ports, a connection limit), so part of its threads send nothing and the load is lower than planned.",
			"JMeter 的每个线程各自持有一个连接：已建立连接数少于线程数且请求完全得不到响应，说明引擎建不了连接（文件描述符、本地端口、连接上限），部分线程没有发出请求，负载低于计划。"),
		Recommended: finding.T("On the engine's host raise the limits (ulimit -n 65536 for jmeter-server; sysctl net.ipv4.ip_local_port_range=\"1024 65000\"), read the failures' messages in the JTL, or spread the threads over more engines (--jmeter-remote).",
			"在引擎所在主机上提高限制（为 jmeter-server 设置 ulimit -n 65536；sysctl net.ipv4.ip_local_port_range=\"1024 65000\"），查看 JTL 中失败样本的信息，或把线程分散到更多引擎（--jmeter-remote）。"),
		Risk: finding.T("Raising descriptor and port limits only changes the engine's host; undo by restoring the previous ulimit and sysctl values.",
			"提高描述符与端口限制只影响引擎所在主机；恢复原来的 ulimit 与 sysctl 值即可撤销。"),
		References: []string{"https://jmeter.apache.org/usermanual/remote-test.html", "https://jmeter.apache.org/usermanual/best-practices.html"},
		Evidence:   ev}}
}

// delayedACK is latency quantised near the kernel's 40 ms minimum delayed
// ACK with about one delayed ACK sent per request: a response written in
// two pieces under Nagle waits for the peer's delayed ACK.
func delayedACK(L *Layers) *finding.Finding { return one(IDDelayedACK, L) }

func evalDelayedACK(in *Input) []finding.Outcome {
	L, s := in.L, in.L.Load
	if s == nil || s.TPS <= 0 || s.Latency.P50 < 36 || s.Latency.P50 > 48 {
		return nil
	}
	var acks, n float64
	for _, t := range L.Series.Ticks {
		if t.TCP != nil {
			acks += t.TCP.DelayedACKsPS
			n++
		}
	}
	if n == 0 {
		return nil
	}
	perReq := acks / n / s.TPS
	if perReq < 0.5 {
		return nil
	}
	// A request near 40 ms that spends a good part of it on a CPU is
	// slow by itself, and the ACK of a request left unanswered for 40 ms
	// is delayed because of that: the delayed ACKs follow the latency
	// there, they do not cause it.
	if cpuMS, _ := serviceCPUPerRequest(L); cpuMS > waitShare*s.Latency.P50 {
		return nil
	}
	return []finding.Outcome{{Status: finding.Fail, Confidence: 0.8, Subject: "tcp",
		Observed: finding.Tf(finding.T("p50 latency %.1f ms (the kernel's delayed ACK is 40 ms) with %.1f delayed ACKs sent per request (TcpExt DelayedACKs %.0f/s at %.0f requests/s).",
			"p50 延迟 %.1f ms（内核延迟确认为 40 ms），每个请求发送 %.1f 个延迟 ACK（TcpExt DelayedACKs %.0f/秒，请求 %.0f/秒）。"),
			s.Latency.P50, perReq, acks/n, s.TPS),
		Evidence: []finding.Evidence{{Key: "p50_ms", Value: fmt.Sprintf("%.1f", s.Latency.P50), Source: LoadFile},
			{Key: "delayed_acks_per_request", Value: fmt.Sprintf("%.2f", perReq), Source: "/proc/net/netstat TcpExt DelayedACKs"}}}}
}

// serviceCPUPerRequest is the CPU time one request cost, in ms: the
// target's own CPU where it was recorded (jvm true), else, as an upper
// bound, the host's busy cores less the load generator's (jvm false);
// -1 when neither is known. The generator's CPU is in % of the cores it
// ran on, taken to be the host's online CPUs (Go's default, unless
// GOMAXPROCS or an affinity mask narrowed it).
func serviceCPUPerRequest(L *Layers) (ms float64, jvm bool) {
	s := L.Load
	if s == nil || s.TPS <= 0 || L.Stats.Ticks == 0 {
		return -1, false
	}
	if L.Stats.ProcCPU >= 0 {
		return L.Stats.ProcCPU / 100 * 1000 / s.TPS, true
	}
	cpus := L.onlineCPUs()
	if cpus == 0 {
		return -1, false
	}
	cores := max(0, L.Stats.Busy-s.ClientCPU) / 100 * float64(cpus)
	return cores * 1000 / s.TPS, false
}

// onlineCPUs is the run host's online CPU count from its manifest (0:
// unknown).
func (L *Layers) onlineCPUs() int {
	if L.Folder == nil || L.Folder.Manifest.Facts == nil || !L.Folder.Manifest.Facts.CPU.Online.OK {
		return 0
	}
	return len(L.Folder.Manifest.Facts.CPU.Online.Value)
}

// A closed-model request counts as waiting when it takes at least
// minWaitMS and the JVM spent at most waitShare of that on a CPU for it.
const (
	minWaitMS = 5
	waitShare = 0.25
)

// latencyBound says where the time of a closed-model request went when the
// host's CPUs had room and nothing else was named: the working threads'
// activities in the dumps (socket reads, sleeps, waits), or, without dumps,
// only that the time was spent off this host's CPUs.
func latencyBound(L *Layers) *finding.Finding { return one(IDLatencyBound, L) }

func evalLatencyBound(in *Input) []finding.Outcome {
	L, s := in.L, in.L.Load
	if s == nil || s.Users == 0 || s.TPS <= 0 || s.Latency.Mean < minWaitMS {
		return nil
	}
	// A request that spends most of its latency on a CPU is not waiting.
	cpuMS, jvm := serviceCPUPerRequest(L)
	if jvm && cpuMS > waitShare*s.Latency.Mean {
		return nil
	}
	f := finding.Outcome{Status: finding.Fail, Confidence: 0.4, Subject: "latency"}
	// Little's law: in a closed model TPS = users / (latency + think).
	little := float64(s.Users) / (s.Latency.Mean / 1000)
	observed := finding.Tf(finding.T("%d users at %.1f ms mean latency allow %.0f requests/s (measured %.0f); the CPUs were %.0f%% busy.",
		"%d 个用户、平均延迟 %.1f ms，最多 %.0f 请求/秒（实测 %.0f）；CPU 繁忙 %.0f%%。"), s.Users, s.Latency.Mean, little, s.TPS, L.Stats.Busy)
	if little > 2*s.TPS {
		// Far fewer answers than users / latency allow: the latency of the
		// requests that completed hides the ones that never did.
		observed = finding.Tf(finding.T("%s Throughput is far below that: most users were waiting on requests that did not complete (%d still in flight at the end).",
			"%s实际吞吐远低于此：多数用户在等待没有完成的请求（结束时仍有 %d 个在途）。"), observed, s.Aborted)
	}
	if where, n := workingActivities(L); n > 0 {
		observed = finding.Tf(finding.T("%s In the thread dumps the %d working threads were: %s.", "%s线程转储中 %d 个工作线程：%s。"), observed, n, where)
		f.Confidence = 0.6
	} else {
		observed = finding.Tf(finding.T("%s No thread dump shows where: the time was spent off this host's CPUs (a downstream, the network, sleeps or queues).",
			"%s没有线程转储说明原因：时间花在本机 CPU 之外（下游、网络、sleep 或排队）。"), observed)
	}
	f.Observed = observed
	f.Evidence = []finding.Evidence{{Key: "users", Value: fmt.Sprint(s.Users), Source: LoadFile},
		{Key: "mean_latency_ms", Value: fmt.Sprintf("%.1f", s.Latency.Mean), Source: LoadFile},
		{Key: "cpu_busy_pct", Value: fmt.Sprintf("%.1f", L.Stats.Busy), Source: "raw/samples.jsonl.gz"}}
	if jvm {
		f.Evidence = append(f.Evidence, finding.Evidence{Key: "jvm_cpu_ms_per_request", Value: fmt.Sprintf("%.2f", cpuMS), Source: "raw/samples.jsonl.gz"})
	}
	return []finding.Outcome{f}
}

// workingActivities counts what the working (not idle) threads of the
// dumps were doing, most first, in both languages.
func workingActivities(L *Layers) (finding.Text, int) {
	count := map[threaddump.Activity]int{}
	n := 0
	for i, d := range L.Dumps {
		r := L.Reports[i]
		for _, t := range d.Threads {
			if r.IsIdle(t) {
				continue
			}
			if a := threaddump.ActivityOf(t); a != threaddump.ActNone {
				count[a]++
				n++
			}
		}
	}
	if n == 0 {
		return finding.Text{}, 0
	}
	acts := make([]threaddump.Activity, 0, len(count))
	for a := range count {
		acts = append(acts, a)
	}
	sort.Slice(acts, func(i, j int) bool {
		if count[acts[i]] != count[acts[j]] {
			return count[acts[i]] > count[acts[j]]
		}
		return acts[i] < acts[j]
	})
	var en, zh []string
	for _, a := range acts[:min(4, len(acts))] {
		pct := 100 * float64(count[a]) / float64(n)
		en = append(en, fmt.Sprintf("%.0f%% %s", pct, a.Text().EN))
		zh = append(zh, fmt.Sprintf("%.0f%% %s", pct, a.Text().ZH))
	}
	return finding.T(strings.Join(en, ", "), strings.Join(zh, "，")), n / max(1, len(L.Dumps))
}
