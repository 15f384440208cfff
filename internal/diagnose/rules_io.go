package diagnose

import (
	"fmt"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Thresholds of the I/O, memory, network and process rules.
const (
	IowaitPct        = 20.0
	DiskUtilPct      = 90.0
	DiskAquSz        = 1.0
	SwapPagesPS      = 100.0 // pswpin+pswpout pages per second
	PSIMemSomePct    = 10.0
	PSIMemFullPct    = 5.0 // critical
	NUMAMissPct      = 10.0
	RetransPct       = 2.0
	RetransMinOutPS  = 100.0 // segments/s below which the ratio is noise
	FDWarnPct        = 80.0
	FDCritPct        = 95.0
	diagnosisRiskNil = "None: this is a diagnosis."
)

func riskNone() finding.Text { return finding.T(diagnosisRiskNil, "无：这是诊断结论。") }

func ruleIowait(c *ctx) []finding.Finding {
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.All != nil && t.All.Iowait >= IowaitPct })
	if !w.ok() {
		return nil
	}
	wa := w.mean(c.ts, func(t *Tick) float64 { return t.All.Iowait })
	bl := w.mean(c.ts, func(t *Tick) float64 { return t.Blocked })
	f := finding.Finding{Category: "io", Severity: finding.Warning, Subject: "iowait", Confidence: confidence(0.7, w),
		Title: finding.T("High iowait: threads wait on disk I/O", "iowait 高：线程在等磁盘 I/O"),
		Observed: finding.Text{
			EN: fmt.Sprintf("iowait averaged %s with %s tasks blocked in I/O, over %s.", pct(wa), num(bl), w.span().EN),
			ZH: fmt.Sprintf("iowait 平均 %s，%s 个任务阻塞在 I/O，%s。", pct(wa), num(bl), w.span().ZH)},
		Why: finding.T("CPU time idle while tasks wait for the disk: request latency follows the storage, not the CPU.",
			"CPU 空闲而任务在等磁盘：请求延迟取决于存储，而不是 CPU。"),
		Recommended: finding.T("Find the process and files doing the I/O (pidstat -d 1, iotop); move logs and temp files to faster storage, use async logging, or reduce synchronous writes.",
			"找出做 I/O 的进程和文件（pidstat -d 1，iotop）；把日志和临时文件放到更快的存储，使用异步日志，减少同步写。"),
		Risk: riskNone(),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("iowait_pct", pct(wa), "/proc/stat"), ev("procs_blocked", num(bl), "/proc/stat procs_blocked"))
	return []finding.Finding{f}
}

func ruleDisk(c *ctx) []finding.Finding {
	// The device with the highest mean utilisation.
	sum := map[string]float64{}
	best := ""
	for i := range c.ts {
		for _, d := range c.ts[i].Disks {
			sum[d.Name] += d.Util
			if best == "" || sum[d.Name] > sum[best] || sum[d.Name] == sum[best] && d.Name < best {
				best = d.Name
			}
		}
	}
	if best == "" {
		return nil
	}
	get := func(t *Tick) *Disk {
		for k := range t.Disks {
			if t.Disks[k].Name == best {
				return &t.Disks[k]
			}
		}
		return nil
	}
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		d := get(t)
		return d != nil && d.Util >= DiskUtilPct && d.AquSz >= DiskAquSz
	})
	if !w.ok() {
		return nil
	}
	util := w.mean(c.ts, func(t *Tick) float64 { return get(t).Util })
	q := w.mean(c.ts, func(t *Tick) float64 { return get(t).AquSz })
	ra := w.mean(c.ts, func(t *Tick) float64 { return get(t).RAwait })
	wa := w.mean(c.ts, func(t *Tick) float64 { return get(t).WAwait })
	iops := w.mean(c.ts, func(t *Tick) float64 { return get(t).IOPS })
	f := finding.Finding{Category: "io", Severity: finding.Warning, Subject: best, Confidence: confidence(0.75, w),
		Title: finding.Tf(finding.T("Disk %s saturated", "磁盘 %s 饱和"), best),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s was %s busy with a queue of %s (r_await %s ms, w_await %s ms, %s IOPS), over %s.", best, pct(util), num(q), num(ra), num(wa), num(iops), w.span().EN),
			ZH: fmt.Sprintf("%s 繁忙 %s，队列 %s（r_await %s ms，w_await %s ms，%s IOPS），%s。", best, pct(util), num(q), num(ra), num(wa), num(iops), w.span().ZH)},
		Why: finding.T("A device busy all the time with requests queued adds queueing delay to every I/O (on NVMe/RAID %util can read 100% below the real limit: trust await and the queue).",
			"设备一直繁忙且有请求排队，每个 I/O 都要额外排队（NVMe/RAID 上 %util 到 100% 不一定是真实上限：以 await 和队列为准）。"),
		Recommended: finding.T("Reduce or spread the I/O (async logging, larger sequential writes, separate devices for logs and data) or use faster storage; check the I/O scheduler and queue depth in `tuneloop check`.",
			"减少或分散 I/O（异步日志、更大的顺序写、日志与数据分盘）或换更快的存储；用 `tuneloop check` 检查 I/O 调度器和队列深度。"),
		Risk: riskNone(),
	}
	src := "/proc/diskstats " + best
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("util_pct", pct(util), src), ev("aqu_sz", num(q), src), ev("r_await_ms", num(ra), src), ev("w_await_ms", num(wa), src), ev("iops", num(iops), src))
	return []finding.Finding{f}
}

func ruleMemPressure(c *ctx) []finding.Finding {
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		return t.SwapPS >= SwapPagesPS || t.ReclaimPS > 0 || t.PSI["memory"].Some >= PSIMemSomePct
	})
	if !w.ok() {
		return nil
	}
	swap := w.mean(c.ts, func(t *Tick) float64 { return t.SwapPS })
	recl := w.mean(c.ts, func(t *Tick) float64 { return t.ReclaimPS })
	some := w.mean(c.ts, func(t *Tick) float64 { return t.PSI["memory"].Some })
	full := w.mean(c.ts, func(t *Tick) float64 { return t.PSI["memory"].Full })
	avail := w.mean(c.ts, func(t *Tick) float64 { return float64(t.MemAvail) })
	sev := finding.Warning
	if full >= PSIMemFullPct || swap >= 10*SwapPagesPS {
		sev = finding.Critical
	}
	f := finding.Finding{Category: "memory", Severity: sev, Subject: "memory", Confidence: confidence(0.8, w),
		Title: finding.T("Memory pressure: reclaim, swapping or memory stalls", "内存压力：回收、换页或内存停顿"),
		Observed: finding.Text{
			EN: fmt.Sprintf("Swap %s pages/s, direct reclaim %s stalls/s, memory PSI some %s full %s, MemAvailable %s MiB, over %s.",
				num(swap), num(recl), pct(some), pct(full), num(avail/1024), w.span().EN),
			ZH: fmt.Sprintf("换页 %s 页/秒，直接回收 %s 次/秒，内存 PSI some %s full %s，MemAvailable %s MiB，%s。",
				num(swap), num(recl), pct(some), pct(full), num(avail/1024), w.span().ZH)},
		Why: finding.T("Threads stall while the kernel frees memory or reads pages back from swap; for a JVM a swapped-out heap makes GC pauses explode.",
			"内核回收内存或从 swap 读回页面时线程会停顿；对 JVM 来说堆被换出会让 GC 停顿急剧变长。"),
		Recommended: finding.T("Give the service more memory or reduce what runs beside it; size -Xmx below the memory limit with room for metaspace, threads and direct buffers; consider vm.swappiness=1 (see `tuneloop check`).",
			"给服务更多内存或减少同机的其他进程；-Xmx 要小于内存上限并为 metaspace、线程栈和直接内存留余量；考虑 vm.swappiness=1（见 `tuneloop check`）。"),
		Risk: riskNone(),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("swap_pages_per_s", num(swap), "/proc/vmstat pswpin+pswpout"), ev("allocstall_per_s", num(recl), "/proc/vmstat allocstall*"),
		ev("psi_memory_some_pct", pct(some), "/proc/pressure/memory"), ev("psi_memory_full_pct", pct(full), "/proc/pressure/memory"),
		ev("mem_available_mib", num(avail/1024), "/proc/meminfo"))
	return []finding.Finding{f}
}

func ruleNUMA(c *ctx) []finding.Finding {
	if !c.in.Facts.NUMA.Nodes.OK || len(c.in.Facts.NUMA.Nodes.Value) < 2 {
		return nil
	}
	maxMiss := func(t *Tick) float64 {
		m := 0.0
		for _, v := range t.NUMAMiss {
			m = max(m, v)
		}
		return m
	}
	w := sustained(c.ts, func(_ int, t *Tick) bool { return maxMiss(t) >= NUMAMissPct })
	if !w.ok() {
		return nil
	}
	miss := w.mean(c.ts, maxMiss)
	f := finding.Finding{Category: "numa", Severity: finding.Warning, Subject: "numa", Confidence: confidence(0.5, w),
		Title: finding.T("High remote NUMA allocation", "跨 NUMA 节点内存分配高"),
		Observed: finding.Text{
			EN: fmt.Sprintf("Up to %s of page allocations on a node missed their preferred node (system-wide numastat), over %s.", pct(miss), w.span().EN),
			ZH: fmt.Sprintf("某节点上最多 %s 的页分配没有落在首选节点（全系统 numastat），%s。", pct(miss), w.span().ZH)},
		Why: finding.T("Memory on another node costs more latency and interconnect bandwidth on every access (on Kunpeng 920 the cross-socket penalty is large).",
			"访问其他节点上的内存每次都有更高的延迟并占用互联带宽（鲲鹏 920 跨片代价很大）。"),
		Recommended: finding.Tf(finding.T("Bind the JVM to one node's CPUs and memory (numactl --cpunodebind=N --membind=N java ...) when it fits in a node, or enable -XX:+UseNUMA; check with numastat -p %d.",
			"当 JVM 能放进一个节点时，把它绑定到该节点的 CPU 和内存（numactl --cpunodebind=N --membind=N java ...），或开启 -XX:+UseNUMA；用 numastat -p %d 核实。"), c.pid()),
		Risk: riskNone(),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("numa_miss_pct_max", pct(miss), "/sys/devices/system/node/node*/numastat"))
	return []finding.Finding{f}
}

func ruleTCPRetrans(c *ctx) []finding.Finding {
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		return t.TCP != nil && t.TCP.OutSegsPS >= RetransMinOutPS && t.TCP.RetransPct >= RetransPct
	})
	if !w.ok() {
		return nil
	}
	r := w.mean(c.ts, func(t *Tick) float64 { return t.TCP.RetransPct })
	rps := w.mean(c.ts, func(t *Tick) float64 { return t.TCP.RetransPS })
	f := finding.Finding{Category: "network", Severity: finding.Warning, Subject: "tcp", Confidence: confidence(0.75, w),
		Title: finding.T("TCP retransmits high", "TCP 重传率高"),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s of sent segments were retransmissions (%s/s), over %s.", pct(r), num(rps), w.span().EN),
			ZH: fmt.Sprintf("发送报文中 %s 是重传（%s 个/秒），%s。", pct(r), num(rps), w.span().ZH)},
		Why: finding.T("Each retransmission waits for a timeout or duplicate ACKs: tail latency jumps by hundreds of milliseconds.",
			"每次重传都要等超时或重复 ACK：尾延迟增加数百毫秒。"),
		Recommended: finding.T("Look for drops on the path: NIC ring and rx_dropped (ethtool -S), softnet drops, a saturated link or peer; check MTU mismatches.",
			"排查路径上的丢包：网卡 ring 与 rx_dropped（ethtool -S）、softnet 丢包、链路或对端饱和；检查 MTU 是否一致。"),
		Risk: riskNone(),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("retrans_pct", pct(r), "/proc/net/snmp Tcp RetransSegs/OutSegs"), ev("retrans_per_s", num(rps), "/proc/net/snmp"))
	return []finding.Finding{f}
}

func ruleListen(c *ctx) []finding.Finding {
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		return t.TCP != nil && (t.TCP.ListenOverflowsPS > 0 || t.TCP.ListenDropsPS > 0)
	})
	if !w.any() {
		return nil
	}
	total := 0.0
	for _, i := range w.hits {
		t := &c.ts[i]
		total += max(t.TCP.ListenOverflowsPS, t.TCP.ListenDropsPS) * t.Secs
	}
	somax := ""
	if s, ok := c.in.Facts.Sysctl["net.core.somaxconn"]; ok && s.OK {
		somax = s.Value
	}
	f := finding.Finding{Category: "network", Severity: finding.Warning, Subject: "listen", Confidence: 0.9,
		Title: finding.T("Listen queue overflows: connections dropped", "监听队列溢出：连接被丢弃"),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s connection attempts were dropped because an accept queue was full (somaxconn %s), over %s.", num(total), somax, w.span().EN),
			ZH: fmt.Sprintf("%s 次连接因 accept 队列已满被丢弃（somaxconn %s），%s。", num(total), somax, w.span().ZH)},
		Why: finding.T("A client whose SYN or ACK is dropped retries after 1 s, 3 s, ...: requests see second-long delays while the server looks idle.",
			"SYN 或 ACK 被丢弃的客户端会在 1 秒、3 秒……后重试：请求出现秒级延迟，而服务端看起来并不忙。"),
		Recommended: finding.T("Accept faster (more acceptor threads, no blocking work on the acceptor) and raise the backlog: net.core.somaxconn and the server's own backlog (Tomcat acceptCount, Netty SO_BACKLOG).",
			"更快地 accept（更多 acceptor 线程，acceptor 上不做阻塞操作）并加大 backlog：net.core.somaxconn 和服务自身的 backlog（Tomcat acceptCount、Netty SO_BACKLOG）。"),
		Fix: finding.Fix{Apply: "sysctl -w net.core.somaxconn=4096", Revert: "sysctl -w net.core.somaxconn=" + orDefault(somax, "4096"),
			Persist: "net.core.somaxconn = 4096   # /etc/sysctl.d/90-tuneloop.conf",
			Note:    finding.T("The application's backlog must be raised too and it must be restarted to use it.", "应用自身的 backlog 也要调大，并重启应用才会生效。")},
		Risk: finding.T("Low: a larger backlog uses a little kernel memory.", "低：更大的 backlog 占用少量内核内存。"),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("dropped", num(total), "/proc/net/netstat TcpExt ListenOverflows/ListenDrops"))
	if somax != "" {
		f.Evidence = append(f.Evidence, ev("net.core.somaxconn", somax, "/proc/sys/net/core/somaxconn"))
	}
	return []finding.Finding{f}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func ruleFDs(c *ctx) []finding.Finding {
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.Proc != nil && t.Proc.FDSoft > 0 && t.Proc.FDPct >= FDWarnPct })
	if !w.any() {
		return nil
	}
	peak := w.peak(c.ts, func(t *Tick) float64 { return t.Proc.FDPct })
	var fds int
	var soft uint64
	for _, i := range w.hits {
		if p := c.ts[i].Proc; p.FDPct >= peak {
			fds, soft = p.FDs, p.FDSoft
		}
	}
	sev := finding.Warning
	if peak >= FDCritPct {
		sev = finding.Critical
	}
	f := finding.Finding{Category: "process", Severity: sev, Subject: c.target(), Confidence: 0.95,
		Title: finding.T("Open files near the limit", "打开的文件数接近上限"),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s had %d descriptors open of a soft limit of %d (%s), over %s.", c.target(), fds, soft, pct(peak), w.span().EN),
			ZH: fmt.Sprintf("%s 打开了 %d 个描述符，软上限 %d（%s），%s。", c.target(), fds, soft, pct(peak), w.span().ZH)},
		Why: finding.T("At the limit every accept() and open() fails with EMFILE (\"Too many open files\"): connections are refused and logs stop.",
			"到达上限后每次 accept() 和 open() 都会以 EMFILE（Too many open files）失败：连接被拒绝、日志停止写入。"),
		Recommended: finding.T("Raise the limit for the service (LimitNOFILE= in its systemd unit, or nofile in /etc/security/limits.conf) and look for descriptor leaks (ls -l /proc/PID/fd | sort).",
			"提高服务的上限（systemd unit 中的 LimitNOFILE=，或 /etc/security/limits.conf 的 nofile），并排查描述符泄漏（ls -l /proc/PID/fd）。"),
		Fix: finding.Fix{Apply: fmt.Sprintf("prlimit --pid %d --nofile=%d:%d", c.pid(), max(soft*4, 65536), max(soft*4, 65536)),
			Revert:  fmt.Sprintf("prlimit --pid %d --nofile=%d", c.pid(), soft),
			Persist: "LimitNOFILE=" + strconv.FormatUint(max(soft*4, 65536), 10) + "   # [Service] section of the unit, then systemctl daemon-reload and restart",
			Note:    finding.T("prlimit changes the running process (root); the unit setting applies from the next restart.", "prlimit 修改运行中的进程（需 root）；unit 设置在下次重启后生效。")},
		Risk: finding.T("Low.", "低。"),
	}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("fds", strconv.Itoa(fds), fmt.Sprintf("/proc/%d/fd", c.pid())),
		ev("fd_soft_limit", strconv.FormatUint(soft, 10), fmt.Sprintf("/proc/%d/limits", c.pid())), ev("fd_pct", pct(peak), ""))
	return []finding.Finding{f}
}
