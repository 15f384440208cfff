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

func ruleIowait(c *ctx) []finding.Outcome {
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.All != nil && t.All.Iowait >= IowaitPct })
	if !w.ok() {
		return nil
	}
	wa := w.mean(c.ts, func(t *Tick) float64 { return t.All.Iowait })
	bl := w.mean(c.ts, func(t *Tick) float64 { return t.Blocked })
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "iowait", Confidence: confidence(0.7, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("iowait averaged %s with %s tasks blocked in I/O, over %s.", pct(wa), num(bl), w.span().EN),
			ZH: fmt.Sprintf("iowait 平均 %s，%s 个任务阻塞在 I/O，%s。", pct(wa), num(bl), w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("iowait_pct", pct(wa), "/proc/stat"), ev("procs_blocked", num(bl), "/proc/stat procs_blocked"))
	return []finding.Outcome{f}
}

func ruleDisk(c *ctx) []finding.Outcome {
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
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: best, Confidence: confidence(0.75, w),
		Title: finding.Tf(finding.T("Disk %s saturated", "磁盘 %s 饱和"), best),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s was %s busy with a queue of %s (r_await %s ms, w_await %s ms, %s IOPS), over %s.", best, pct(util), num(q), num(ra), num(wa), num(iops), w.span().EN),
			ZH: fmt.Sprintf("%s 繁忙 %s，队列 %s（r_await %s ms，w_await %s ms，%s IOPS），%s。", best, pct(util), num(q), num(ra), num(wa), num(iops), w.span().ZH)}}
	src := "/proc/diskstats " + best
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("util_pct", pct(util), src), ev("aqu_sz", num(q), src), ev("r_await_ms", num(ra), src), ev("w_await_ms", num(wa), src), ev("iops", num(iops), src))
	return []finding.Outcome{f}
}

func ruleMemPressure(c *ctx) []finding.Outcome {
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
	f := finding.Outcome{Status: finding.Fail, Severity: sev, SevSet: true, Subject: "memory", Confidence: confidence(0.8, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("Swap %s pages/s, direct reclaim %s stalls/s, memory PSI some %s full %s, MemAvailable %s, over %s.",
				num(swap), num(recl), pct(some), pct(full), mib(avail), w.span().EN),
			ZH: fmt.Sprintf("换页 %s 页/秒，直接回收 %s 次/秒，内存 PSI some %s full %s，MemAvailable %s，%s。",
				num(swap), num(recl), pct(some), pct(full), mib(avail), w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("swap_pages_per_s", num(swap), "/proc/vmstat pswpin+pswpout"), ev("allocstall_per_s", num(recl), "/proc/vmstat allocstall*"),
		ev("psi_memory_some_pct", pct(some), "/proc/pressure/memory"), ev("psi_memory_full_pct", pct(full), "/proc/pressure/memory"),
		ev("mem_available_mib", num(avail/1024), "/proc/meminfo"))
	return []finding.Outcome{f}
}

func ruleNUMA(c *ctx) []finding.Outcome {
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
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "numa", Confidence: confidence(0.5, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("Up to %s of page allocations on a node missed their preferred node (system-wide numastat), over %s.", pct(miss), w.span().EN),
			ZH: fmt.Sprintf("某节点上最多 %s 的页分配没有落在首选节点（全系统 numastat），%s。", pct(miss), w.span().ZH)},
		Recommended: finding.Tf(finding.T("Bind the JVM to one node's CPUs and memory (numactl --cpunodebind=N --membind=N java ...) when it fits in a node, or enable -XX:+UseNUMA; check with numastat -p %d.",
			"当 JVM 能放进一个节点时，把它绑定到该节点的 CPU 和内存（numactl --cpunodebind=N --membind=N java ...），或开启 -XX:+UseNUMA；用 numastat -p %d 核实。"), c.pid())}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("numa_miss_pct_max", pct(miss), "/sys/devices/system/node/node*/numastat"))
	return []finding.Outcome{f}
}

func ruleTCPRetrans(c *ctx) []finding.Outcome {
	w := sustained(c.ts, func(_ int, t *Tick) bool {
		return t.TCP != nil && t.TCP.OutSegsPS >= RetransMinOutPS && t.TCP.RetransPct >= RetransPct
	})
	if !w.ok() {
		return nil
	}
	r := w.mean(c.ts, func(t *Tick) float64 { return t.TCP.RetransPct })
	rps := w.mean(c.ts, func(t *Tick) float64 { return t.TCP.RetransPS })
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "tcp", Confidence: confidence(0.75, w),
		Observed: finding.Text{
			EN: fmt.Sprintf("%s of sent segments were retransmissions (%s/s), over %s.", pct(r), num(rps), w.span().EN),
			ZH: fmt.Sprintf("发送报文中 %s 是重传（%s 个/秒），%s。", pct(r), num(rps), w.span().ZH)}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("retrans_pct", pct(r), "/proc/net/snmp Tcp RetransSegs/OutSegs"), ev("retrans_per_s", num(rps), "/proc/net/snmp"))
	return []finding.Outcome{f}
}

func ruleListen(c *ctx) []finding.Outcome {
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
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: "listen", Confidence: 0.9,
		Observed: finding.Text{
			EN: fmt.Sprintf("%s connection attempts were dropped because an accept queue was full (somaxconn %s), over %s.", num(total), somax, w.span().EN),
			ZH: fmt.Sprintf("%s 次连接因 accept 队列已满被丢弃（somaxconn %s），%s。", num(total), somax, w.span().ZH)},
		Fix: finding.Fix{Apply: "sysctl -w net.core.somaxconn=4096", Revert: "sysctl -w net.core.somaxconn=" + orDefault(somax, "4096"),
			Persist: "net.core.somaxconn = 4096   # /etc/sysctl.d/90-tuneloop.conf",
			Note:    finding.T("The application's backlog must be raised too and it must be restarted to use it.", "应用自身的 backlog 也要调大，并重启应用才会生效。")}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("dropped", num(total), "/proc/net/netstat TcpExt ListenOverflows/ListenDrops"))
	if somax != "" {
		f.Evidence = append(f.Evidence, ev("net.core.somaxconn", somax, "/proc/sys/net/core/somaxconn"))
	}
	return []finding.Outcome{f}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func ruleFDs(c *ctx) []finding.Outcome {
	w := sustained(c.ts, func(_ int, t *Tick) bool { return t.Proc != nil && t.Proc.FDSoft > 0 && t.Proc.FDPct >= FDWarnPct })
	if !w.any() {
		return nil
	}
	peak := w.peak(c.ts, func(t *Tick) float64 { return t.Proc.FDPct })
	var fds int
	var soft int64
	for _, i := range w.hits {
		if p := c.ts[i].Proc; p.FDPct >= peak {
			fds, soft = p.FDs, p.FDSoft
		}
	}
	sev := finding.Warning
	if peak >= FDCritPct {
		sev = finding.Critical
	}
	f := finding.Outcome{Status: finding.Fail, Severity: sev, SevSet: true, Subject: c.target(), Confidence: 0.95,
		Observed: finding.Text{
			EN: fmt.Sprintf("%s had %d descriptors open of a soft limit of %d (%s), over %s.", c.target(), fds, soft, pct(peak), w.span().EN),
			ZH: fmt.Sprintf("%s 打开了 %d 个描述符，软上限 %d（%s），%s。", c.target(), fds, soft, pct(peak), w.span().ZH)},
		Fix: finding.Fix{Apply: fmt.Sprintf("prlimit --pid %d --nofile=%d:%d", c.pid(), max(soft*4, 65536), max(soft*4, 65536)),
			Revert:  fmt.Sprintf("prlimit --pid %d --nofile=%d", c.pid(), soft),
			Persist: "LimitNOFILE=" + strconv.FormatInt(max(soft*4, 65536), 10) + "   # [Service] section of the unit, then systemctl daemon-reload and restart",
			Note:    finding.T("prlimit changes the running process (root); the unit setting applies from the next restart.", "prlimit 修改运行中的进程（需 root）；unit 设置在下次重启后生效。")}}
	f.Window = w.timeSpan()
	f.Evidence = append(w.evidence(c.start), ev("fds", strconv.Itoa(fds), fmt.Sprintf("/proc/%d/fd", c.pid())),
		ev("fd_soft_limit", strconv.FormatInt(soft, 10), fmt.Sprintf("/proc/%d/limits", c.pid())), ev("fd_pct", pct(peak), ""))
	return []finding.Outcome{f}
}
