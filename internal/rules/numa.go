package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

// NUMA topology, balancing, zone reclaim and NIC locality
// (kernel Documentation/admin-guide/sysctl/kernel.rst and vm.rst,
// numactl(8), TuneD and A-Tune profiles).

// jvmPinned reports whether a JVM's CPUs (and memory, when known) are
// confined to one NUMA node; known=false when Cpus_allowed is unknown.
func jvmPinned(nodes []sysinfo.Node, j *sysinfo.JVM) (pinned, known bool, spanned []int) {
	if len(j.CPUsAllowed) == 0 {
		return false, false, nil
	}
	spanned = nodesSpanned(nodes, j.CPUsAllowed)
	if len(spanned) != 1 {
		return false, true, spanned
	}
	if len(j.MemsAllowed) > 1 {
		return false, true, spanned
	}
	return true, true, spanned
}

// nicNode returns the NUMA node of the first up physical NIC that reports one.
func nicNode(c *Ctx) (sysinfo.NIC, bool) {
	nics, o := upNICs(c)
	if o != nil {
		return sysinfo.NIC{}, false
	}
	for _, n := range nics {
		if n.NUMANode >= 0 {
			return n, true
		}
	}
	return sysinfo.NIC{}, false
}

func intsString(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func numaRules() []Rule {
	return []Rule{
		{
			ID: "numa.bios-disabled", Category: "numa", Severity: warning,
			Reads:      []string{"/sys/devices/system/node", "/sys/devices/system/cpu/cpu*/topology"},
			Title:      T("NUMA hidden on a multi-socket host", "多路服务器未开启 NUMA"),
			Checks:     T("Compares the socket count with the NUMA node count: 2+ sockets with a single node means NUMA is off (BIOS interleave or numa=off).", "比较 CPU 路数与 NUMA 节点数：2 路及以上却只有 1 个节点，说明 NUMA 被关闭（BIOS 内存交织或 numa=off）。"),
			Why:        T("With NUMA hidden the kernel cannot place memory next to the CPU using it, so about half of all accesses are remote and nothing (numactl, UseNUMA, balancing) can fix it.", "NUMA 被隐藏后内核无法把内存分配在使用它的 CPU 旁边，约一半访存跨片，numactl、UseNUMA、自动均衡都无从发挥。"),
			Risk:       T("A BIOS change and reboot; applications pinned by CPU number may need new bindings.", "需要修改 BIOS 并重启；按 CPU 编号绑核的应用可能需要重新配置。"),
			Workload:   T("All services on multi-socket servers.", "多路服务器上的所有服务。"),
			References: []string{"Huawei Kunpeng BIOS parameter reference: Advanced > Memory Config > NUMA", "man 8 numactl (--hardware)"},
			Eval:       evalNumaBiosDisabled,
		},
		{
			ID: "numa.topology", Category: "numa", Severity: info,
			Reads:      []string{"/sys/devices/system/node"},
			Title:      T("Multi-node NUMA host", "多 NUMA 节点主机"),
			Checks:     T("Reports the NUMA nodes, their CPUs, memory and distances; a node with less than half the average memory fails as a warning.", "列出各 NUMA 节点的 CPU、内存和距离；某节点内存不足平均值一半时判为警告。"),
			Why:        T("Remote memory and remote NIC interrupts cost latency and bandwidth (Kunpeng 920: 4 nodes on 2 sockets, cross-socket distance 30-40). Large Java heaps spread over all nodes unless bound.", "访问远端内存、处理远端网卡中断都会增加时延、降低带宽（鲲鹏 920 双路为 4 个节点，跨片距离 30-40）。大堆 JVM 若不绑定会分散在所有节点上。"),
			Risk:       T("Binding a JVM to one node limits it to that node's memory (OOM or swap when exceeded).", "把 JVM 绑定到单个节点后只能用该节点内存，超出时会 OOM 或换页。"),
			Workload:   T("Java services on multi-socket / multi-die servers.", "多路/多 Die 服务器上的 Java 服务。"),
			References: []string{"man 8 numactl (-N / -m / -C)", "A-Tune: NUMA-aware task placement (schedule)", "PerfSpect NUMA CPU list"},
			Eval:       evalNumaTopology,
		},
		{
			ID: "numa.balancing", Category: "numa", Severity: warning,
			Reads:      []string{"/proc/PID/status Cpus_allowed_list", "/proc/sys/kernel/numa_balancing"},
			Title:      T("Automatic NUMA balancing vs JVM binding", "NUMA 自动均衡与 JVM 绑核是否匹配"),
			Checks:     T("Reads kernel.numa_balancing and compares it with how the running JVMs are bound: pinned JVMs want 0, unpinned ones 1.", "读取 kernel.numa_balancing，并与 JVM 的绑定方式对比：已绑定单节点时应为 0，未绑定时应为 1。"),
			Why:        T("Balancing moves memory next to the threads using it, which helps unpinned processes; for JVMs bound to one node it only adds hint page faults and migrations.", "自动均衡会把内存迁移到使用它的线程附近，对未绑定的进程有益；对已绑定单节点的 JVM 只会增加提示缺页和页迁移开销。"),
			Risk:       T("Hint faults add latency; disabling it cost up to 20% on some AMD workloads (TuneD reverted that default).", "提示缺页会增加时延；在部分 AMD 负载上关闭它曾导致最多 20% 的性能下降（TuneD 因此回退了该默认值）。"),
			Workload:   T("Java services on multi-node hosts.", "多 NUMA 节点主机上的 Java 服务。"),
			References: []string{"PerfSpect insight #16", "TuneD network-latency: kernel.numa_balancing=0; TuneD PR #283 (AMD revert)", "kernel Documentation/admin-guide/sysctl/kernel.rst (numa_balancing)"},
			Eval:       evalNumaBalancing,
		},
		{
			ID: "numa.zone-reclaim", Category: "numa", Severity: warning,
			Reads:      []string{"/proc/sys/vm/zone_reclaim_mode"},
			Title:      T("zone_reclaim_mode", "zone_reclaim_mode"),
			Checks:     T("Reads vm.zone_reclaim_mode and expects 0 on multi-node hosts.", "读取 vm.zone_reclaim_mode，多节点主机期望为 0。"),
			Why:        T("With zone reclaim on, a node short of free memory reclaims its own page cache (stalling the allocating thread) instead of using free memory on another node.", "开启后，本节点空闲内存不足时会先回收本节点页缓存（阻塞分配线程），而不是使用其他节点的空闲内存。"),
			Risk:       T("None for general services (1 is only for NUMA-partitioned HPC).", "对通用服务无风险（1 只适用于按 NUMA 分区的 HPC）。"),
			Workload:   T("All services on multi-node hosts.", "多 NUMA 节点主机上的所有服务。"),
			References: []string{"kernel Documentation/admin-guide/sysctl/vm.rst (zone_reclaim_mode)", "TuneD hpc-compute sets 1 (counter-example)"},
			Eval:       evalNumaZoneReclaim,
		},
		{
			ID: "numa.nic-locality", Category: "numa", Severity: warning,
			Reads:      []string{"/sys/class/net/IFACE/device/numa_node"},
			Title:      T("NIC interrupts on the NIC's NUMA node", "网卡中断是否在网卡所在 NUMA 节点"),
			Checks:     T("For each physical NIC compares the CPUs its IRQs are allowed on with the CPUs of the NIC's NUMA node (device/numa_node).", "对每块物理网卡，比较其中断允许运行的 CPU 与网卡所在 NUMA 节点（device/numa_node）的 CPU。"),
			Why:        T("An interrupt handled on a remote node pulls every packet's DMA buffer across the interconnect, adding latency and using cross-socket bandwidth.", "在远端节点处理中断时，每个报文的 DMA 缓冲区都要跨片访问，增加时延并占用跨片带宽。"),
			Risk:       T("Manual affinity is lost when the driver reloads or queues change; irqbalance may override it.", "手工设置的亲和性在驱动重载或队列数变化后失效；irqbalance 可能覆盖它。"),
			Workload:   T("Network-heavy Java services on multi-node hosts.", "多 NUMA 节点主机上网络密集的 Java 服务。"),
			References: []string{"kernel Documentation/ABI/testing/sysfs-bus-pci (numa_node)", "A-Tune web profiles: bind NIC IRQs to the NIC's node (Kunpeng)"},
			Eval:       evalNumaNicLocality,
		},
	}
}

// evalNumaBiosDisabled is the rule numa.bios-disabled.
func evalNumaBiosDisabled(c *Ctx) []Outcome {
	s := c.F.CPU.Sockets
	if !s.OK {
		return one(unavailableFrom(finding.T("socket count", "套接字数量"), s))
	}
	nodes, o := numaNodes(c)
	if o != nil {
		return one(*o)
	}
	es := evf("sockets", s)
	en := ev("numa nodes", len(nodes), orDefault(c.F.NUMA.Nodes.Source, "/sys/devices/system/node"))
	if s.Value < 2 {
		return one(skip(Tf("single-socket host (%d socket)", "单路服务器（%d 路）", s.Value)))
	}
	if len(nodes) >= 2 {
		return one(pass(Tf("%d sockets, %d NUMA nodes", "%d 路 CPU，%d 个 NUMA 节点", s.Value, len(nodes)), es, en))
	}
	if _, ok := cmdlineArg(c, "numa"); ok && c.F.Kernel.Args["numa"] == "off" {
		return one(fail(Tf("%d sockets but one NUMA node: numa=off on the kernel command line", "%d 路 CPU 但只有 1 个 NUMA 节点：内核参数带有 numa=off", s.Value),
			T("remove numa=off", "删除 numa=off"), grubbyRemove("numa", "numa=off"), es, en, cmdlineEv(c, "numa=off")))
	}
	return one(advice(Tf("%d sockets but one NUMA node", "%d 路 CPU 但只有 1 个 NUMA 节点", s.Value),
		T("enable NUMA in the BIOS (Kunpeng: Advanced > Memory Config > NUMA = Enabled; x86: disable Node Interleaving)", "在 BIOS 中开启 NUMA（鲲鹏：Advanced > Memory Config > NUMA 设为 Enabled；x86：关闭 Node Interleaving）"), es, en))
}

// evalNumaTopology is the rule numa.topology.
func evalNumaTopology(c *Ctx) []Outcome {
	nodes, o := multiNode(c)
	if o != nil {
		return one(*o)
	}
	var parts []string
	var total int64
	maxDist := 0
	for _, n := range nodes {
		parts = append(parts, fmt.Sprintf("node%d: cpus %s, %s", n.ID, sysinfo.FormatCPUList(n.CPUs), units.FormatBytes(n.MemTotalKB*1024)))
		total += n.MemTotalKB
		for _, d := range n.Distances {
			if d > maxDist {
				maxDist = d
			}
		}
	}
	e := ev("nodes", strings.Join(parts, "; "), orDefault(c.F.NUMA.Nodes.Source, "/sys/devices/system/node"))
	avg := total / int64(len(nodes))
	var small []string
	for _, n := range nodes {
		if n.MemTotalKB*2 < avg {
			small = append(small, fmt.Sprintf("node%d (%s)", n.ID, units.FormatBytes(n.MemTotalKB*1024)))
		}
	}
	if len(small) > 0 {
		return one(advice(Tf("%d NUMA nodes with unbalanced memory: %s below half the average %s", "%d 个 NUMA 节点内存不均衡：%s 低于平均值 %s 的一半", len(nodes), strings.Join(small, ", "), units.FormatBytes(avg*1024)),
			T("populate every memory channel with identical DIMMs (1 DIMM per channel, same speed and rank); until then do not bind JVMs to the small nodes",
				"所有内存通道插满同规格内存条（每通道 1 根，速率和 Rank 一致）；在此之前不要把 JVM 绑定到内存少的节点"), e).WithSeverity(warning))
	}
	return one(advice(Tf("%d NUMA nodes (max distance %d): %s", "%d 个 NUMA 节点（最大距离 %d）：%s", len(nodes), maxDist, strings.Join(parts, "; ")),
		T("run one JVM per node bound with numactl --cpunodebind=N --membind=N (or taskset/systemd CPUAffinity), preferring the NIC's node; or one JVM with -XX:+UseNUMA (Parallel, G1 on JDK 14+)",
			"每个 NUMA 节点运行一个 JVM，并用 numactl --cpunodebind=N --membind=N（或 taskset、systemd CPUAffinity）绑定，优先选网卡所在节点；或单个 JVM 加 -XX:+UseNUMA（Parallel，或 JDK 14+ 的 G1）"), e))
}

// evalNumaBalancing is the rule numa.balancing.
func evalNumaBalancing(c *Ctx) []Outcome {
	nodes, o := multiNode(c)
	if o != nil {
		return one(*o)
	}
	v, e, bad := sysctlInt(c, "kernel.numa_balancing")
	if bad != nil {
		return one(*bad)
	}
	js, jo := jvms(c)
	pinned, unpinned := 0, 0
	if jo == nil {
		for i := range js {
			p, known, _ := jvmPinned(nodes, &js[i])
			if !known {
				continue
			}
			if p {
				pinned++
			} else {
				unpinned++
			}
		}
	}
	je := ev("jvms pinned/unpinned", fmt.Sprintf("%d/%d", pinned, unpinned), "/proc/[pid]/status Cpus_allowed_list")
	switch {
	case pinned > 0 && unpinned == 0 && v != 0:
		return one(fail(Tf("numa_balancing = %d while all %d JVM(s) are bound to one node", "numa_balancing = %d，而 %d 个 JVM 均已绑定到单个节点", v, pinned),
			T("kernel.numa_balancing = 0", "kernel.numa_balancing = 0"), sysctlFix1("kernel.numa_balancing", 0, v), e, je))
	case pinned == 0 && unpinned > 0 && v == 0:
		return one(fail(Tf("numa_balancing = 0 while %d JVM(s) run unbound across nodes", "numa_balancing = 0，而 %d 个 JVM 未绑定、跨节点运行", unpinned),
			T("kernel.numa_balancing = 1, or bind each JVM to a node (see jvm.numa.bind)", "kernel.numa_balancing = 1，或把每个 JVM 绑定到一个节点（见 jvm.numa.bind）"), sysctlFix1("kernel.numa_balancing", 1, v), e, je).WithSeverity(info))
	case pinned == 0 && unpinned == 0 && v == 0 && jo != nil:
		return one(fail(T("numa_balancing = 0 and no JVM binding is known", "numa_balancing = 0，且未知 JVM 绑定情况"),
			T("kernel.numa_balancing = 1 unless the services are bound per node", "除非服务已按节点绑定，否则设为 kernel.numa_balancing = 1"), sysctlFix1("kernel.numa_balancing", 1, v), e).WithSeverity(info))
	}
	return one(pass(Tf("numa_balancing = %d matches the JVM binding (pinned %d, unpinned %d)", "numa_balancing = %d 与 JVM 绑定情况匹配（已绑定 %d，未绑定 %d）", v, pinned, unpinned), e, je))
}

// evalNumaZoneReclaim is the rule numa.zone-reclaim.
func evalNumaZoneReclaim(c *Ctx) []Outcome {
	if _, o := multiNode(c); o != nil {
		return one(*o)
	}
	v, e, bad := sysctlInt(c, "vm.zone_reclaim_mode")
	if bad != nil {
		return one(*bad)
	}
	if v == 0 {
		return one(pass(T("zone_reclaim_mode = 0", "zone_reclaim_mode = 0"), e))
	}
	return one(fail(Tf("zone_reclaim_mode = %d", "zone_reclaim_mode = %d", v), T("vm.zone_reclaim_mode = 0", "vm.zone_reclaim_mode = 0"),
		sysctlFix1("vm.zone_reclaim_mode", 0, v), e))
}

// evalNumaNicLocality is the rule numa.nic-locality.
func evalNumaNicLocality(c *Ctx) []Outcome {
	nodes, o := multiNode(c)
	if o != nil {
		return one(*o)
	}
	nics, no := upNICs(c)
	if no != nil {
		return one(*no)
	}
	var out []Outcome
	for _, n := range nics {
		src := nicSource(n) + "/device/numa_node"
		if n.NUMANode < 0 {
			out = append(out, skip(Tf("%s reports no NUMA node (numa_node = -1): firmware does not describe PCIe locality", "%s 未报告 NUMA 节点（numa_node = -1）：固件未描述 PCIe 位置", n.Name)).On(n.Name))
			continue
		}
		node, ok := nodeByID(nodes, n.NUMANode)
		if !ok || len(n.IRQs) == 0 {
			out = append(out, skip(Tf("%s: no IRQs or unknown node %d", "%s：没有中断信息或节点 %d 未知", n.Name, n.NUMANode)).On(n.Name))
			continue
		}
		local := map[int]bool{}
		for _, c := range node.CPUs {
			local[c] = true
		}
		var remote []sysinfo.IRQ
		for _, q := range n.IRQs {
			cpus := q.Effective
			if len(cpus) == 0 {
				cpus = q.Affinity
			}
			for _, c := range cpus {
				if !local[c] {
					remote = append(remote, q)
					break
				}
			}
		}
		en := ev("numa_node", n.NUMANode, src)
		if len(remote) == 0 {
			out = append(out, pass(Tf("%s on node %d: all %d IRQs on node-local CPUs", "%s 位于节点 %d：%d 个中断都在本节点 CPU 上", n.Name, n.NUMANode, len(n.IRQs)), en).On(n.Name))
			continue
		}
		var apply, revert, ids []string
		var changes []finding.Change
		var evs []finding.Evidence
		evs = append(evs, en)
		for _, q := range remote {
			p := fmt.Sprintf("/proc/irq/%d/smp_affinity_list", q.Number)
			apply = append(apply, fmt.Sprintf("echo %s > %s", sysinfo.FormatCPUList(node.CPUs), p))
			changes = append(changes, sysfsChange(p, sysinfo.FormatCPUList(node.CPUs)))
			revert = append(revert, fmt.Sprintf("echo %s > %s", sysinfo.FormatCPUList(q.Affinity), p))
			ids = append(ids, fmt.Sprint(q.Number))
			if len(evs) < 6 {
				evs = append(evs, ev(fmt.Sprintf("irq %d affinity", q.Number), sysinfo.FormatCPUList(q.Affinity), p))
			}
		}
		fx := finding.Fix{Apply: strings.Join(apply, "\n"), Revert: strings.Join(revert, "\n"), Changes: changes,
			Note: Tf("irqbalance is NUMA-aware: starting it is the simplest persistent fix. Otherwise pin at boot from a unit or udev rule; if irqbalance runs, exclude these IRQs from it (--banirq=%s) or it moves them again.",
				"irqbalance 能感知 NUMA：启动它是最简单的持久方案。否则请由开机单元或 udev 规则绑定；若 irqbalance 在运行，需用 --banirq=%s 排除这些中断，否则会被它再次迁移。", ids[0])}
		out = append(out, fail(Tf("%s is on node %d (CPUs %s) but %d of %d IRQs may run on other nodes (IRQs %s)", "%s 位于节点 %d（CPU %s），但 %d/%d 个中断可能在其他节点处理（中断号 %s）",
			n.Name, n.NUMANode, sysinfo.FormatCPUList(node.CPUs), len(remote), len(n.IRQs), strings.Join(ids, ",")),
			Tf("affinity of every %s IRQ within node %d (CPUs %s)", "%s 的所有中断亲和到节点 %d（CPU %s）", n.Name, n.NUMANode, sysinfo.FormatCPUList(node.CPUs)), fx, evs...).On(n.Name))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Subject < out[j].Subject })
	return out
}
