package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// NIC interrupts, queues, packet steering, MTU and link
// (kernel Documentation/networking/scaling.rst, ethtool(8),
// TuneD and A-Tune profiles).

// irqTargets returns the CPUs a NIC's interrupts actually land on: CPUs
// with non-zero counts when counts are known, else the effective (or
// allowed) affinity. share is the busiest CPU's share of all interrupts.
func irqTargets(n sysinfo.NIC) (cpus []int, busiest int, share float64) {
	per := map[int]uint64{}
	var total uint64
	for _, q := range n.IRQs {
		for col, cnt := range q.Counts {
			cpu := col
			if col < len(q.CPUs) {
				cpu = q.CPUs[col] // a CPU offline: the columns skip it
			}
			if cnt > 0 {
				per[cpu] += cnt
				total += cnt
			}
		}
	}
	if total == 0 {
		seen := map[int]bool{}
		for _, q := range n.IRQs {
			t := q.Effective
			if len(t) == 0 {
				t = q.Affinity
			}
			for _, c := range t {
				if !seen[c] {
					seen[c] = true
					cpus = append(cpus, c)
				}
			}
		}
		sort.Ints(cpus)
		if len(cpus) == 1 {
			return cpus, cpus[0], 1
		}
		return cpus, -1, 0
	}
	var best uint64
	busiest = -1
	for c, v := range per {
		cpus = append(cpus, c)
		if v > best || (v == best && c < busiest) {
			best, busiest = v, c
		}
	}
	sort.Ints(cpus)
	return cpus, busiest, float64(best) / float64(total)
}

// nicLocalCPUs are the CPUs of the NIC's NUMA node, or all online CPUs.
func nicLocalCPUs(c *Ctx, n sysinfo.NIC) []int {
	if n.NUMANode >= 0 {
		if nodes, o := numaNodes(c); o == nil {
			if node, ok := nodeByID(nodes, n.NUMANode); ok && len(node.CPUs) > 0 {
				return node.CPUs
			}
		}
	}
	if o := c.F.CPU.Online; o.OK && len(o.Value) > 0 {
		return o.Value
	}
	return nil
}

// spreadCPUs picks CPUs for k IRQs round-robin over local, avoiding CPU 0
// (where the kernel's own housekeeping and often other devices sit) when
// there are other choices.
func spreadCPUs(local []int, k int) []int {
	cands := make([]int, 0, len(local))
	for _, c := range local {
		if c != 0 {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		cands = local
	}
	out := make([]int, k)
	for i := range out {
		out[i] = cands[i%len(cands)]
	}
	return out
}

func nicRules() []Rule {
	return []Rule{
		{
			ID: "nic.irq.concentration", Category: "nic", Severity: warning,
			Reads:  []string{"/proc/PID/comm", "/proc/interrupts", "/proc/irq/N/smp_affinity_list"},
			Title:  T("NIC interrupts concentrated on one CPU", "网卡中断集中在单个 CPU 上"),
			Checks: T("For each physical NIC that is up, counts where its IRQs fire (/proc/interrupts per-CPU counts, else smp_affinity_list): one CPU taking 80%+ of them on a host with 4+ CPUs fails.", "对每块 up 的物理网卡，统计其中断实际落在哪些 CPU 上（/proc/interrupts 的每 CPU 计数，否则看 smp_affinity_list）：4 核以上主机上单个 CPU 承担 80% 以上即不通过。"),
			Why: T("Hard IRQ and the softirq (NET_RX) that follows run on the CPU that took the interrupt: one CPU at 100% si caps the whole host's network throughput while the others idle (a bank's credit-card core system hit exactly this: NIC softirq concentrated on one CPU).",
				"硬中断以及随后的软中断（NET_RX）都在接收中断的 CPU 上执行：一个 CPU 的 si 打满就会卡住整机网络吞吐，而其他 CPU 却空闲（某银行信用卡核心系统就遇到过：网卡软中断集中在一个 CPU 上）。"),
			Risk:     T("Manual affinity is lost on reboot, driver reload or queue changes, and irqbalance (if running) may move IRQs again.", "手工亲和性在重启、驱动重载或队列数变化后失效；irqbalance（若运行）可能再次移动中断。"),
			Workload: T("Network-heavy Java services (HTTP/RPC gateways, proxies, message brokers).", "网络密集型 Java 服务（HTTP/RPC 网关、代理、消息中间件）。"),
			References: []string{"kernel Documentation/core-api/irq/irq-affinity.rst (smp_affinity_list)", "A-Tune web profiles: stop irqbalance, bind NIC IRQs (Kunpeng)",
				"PerfSpect NIC IRQ affinity table", "kernel Documentation/core-api/irq/irq-affinity.rst"},
			Eval: evalNicIrqConcentration,
		},
		{
			ID: "nic.queues", Category: "nic", Severity: warning,
			Reads:      []string{"/sys/class/net/IFACE/queues"},
			Title:      T("NIC queue count vs CPUs", "网卡队列数与 CPU 数"),
			Checks:     T("Compares each physical NIC's combined channels (or rx queues) with the CPUs of its NUMA node: a single queue on a 4+ CPU host fails; fewer queues than the hardware allows and than local CPUs fails as info.", "比较每块物理网卡的 combined 通道数（或 rx 队列数）与其 NUMA 节点 CPU 数：4 核以上主机只有 1 个队列不通过；队列数低于硬件上限且低于本地 CPU 数为提示。"),
			Why:        T("Each hardware queue has its own interrupt: with one queue all receive processing funnels through one CPU, whatever the affinity.", "每个硬件队列对应一个中断：只有一个队列时，无论如何设置亲和性，所有收包处理都集中在一个 CPU 上。"),
			Risk:       T("Changing channels resets the link briefly (seconds); IRQ numbers change, so redo any manual affinity afterwards.", "修改通道数会让链路短暂中断（数秒）；中断号会变化，需要重新做手工亲和性设置。"),
			Workload:   T("Network-heavy services.", "网络密集型服务。"),
			References: []string{"man 8 ethtool (-l / -L combined)", "kernel Documentation/networking/scaling.rst (RSS, RPS)", "TuneD net plugin channels"},
			Eval:       evalNicQueues,
		},
		{
			ID: "nic.rps", Category: "nic", Severity: info,
			Reads:      []string{"/proc/sys/net/core/rps_sock_flow_entries", "/sys/class/net/IFACE/queues/rx-*/rps_cpus"},
			Title:      T("Receive packet steering when queues are scarce", "队列不足时的 RPS 收包分流"),
			Checks:     T("When a NIC has far fewer queues than CPUs (queues x 16 <= CPUs) and RPS is off on its rx queues, suggests RPS/RFS over the node's CPUs.", "当网卡队列远少于 CPU（队列数 x 16 <= CPU 数）且 rx 队列未开启 RPS 时，建议在网卡所在节点的 CPU 上开启 RPS/RFS。"),
			Why:        T("RPS moves protocol processing off the interrupted CPU onto others by flow hash; RFS steers each flow to the CPU where the consuming thread runs. It is the software substitute for multi-queue.", "RPS 按流哈希把协议栈处理从中断 CPU 分散到其他 CPU；RFS 进一步把每条流引导到消费线程所在的 CPU，是多队列的软件替代方案。"),
			Risk:       T("Inter-processor interrupts add CPU cost, and RPS does not help when the NIC is not the bottleneck: measure.", "核间中断会增加 CPU 开销；网卡不是瓶颈时 RPS 不会带来提升：务必压测验证。"),
			Workload:   T("Network-heavy services on single/few-queue NICs (VMs, HCS).", "单队列/少队列网卡上的网络密集型服务（虚拟机、HCS）。"),
			References: []string{"kernel Documentation/networking/scaling.rst (RPS, RFS: rps_cpus, rps_flow_cnt, rps_sock_flow_entries 32768)", "A-Tune rps_cpus script"},
			Eval:       evalNicRps,
		},
		{
			ID: "nic.mtu", Category: "nic", Severity: info,
			Reads:      []string{"/sys/class/net/IFACE/mtu"},
			Title:      T("MTU on fast links", "高速链路的 MTU"),
			Checks:     T("Flags physical NICs at 10 Gb/s or faster still at MTU 1500.", "检查 10 Gb/s 及以上的物理网卡是否仍为 MTU 1500。"),
			Why:        T("Jumbo frames (9000) cut per-packet CPU cost for large transfers (fewer packets for the same bytes: more TCP/UDP bandwidth for less CPU in netperf/iperf, when both ends and the switch carry 9000).", "巨帧（9000）可降低大流量传输的单包 CPU 开销（同样的数据包数更少：两端和交换机都为 9000 时，netperf/iperf 带宽更高、CPU 更低）。"),
			Risk:       T("Every hop (switch ports, peers, load balancers) must use the same MTU, or packets fragment or black-hole; coordinate with the network team.", "路径上所有设备（交换机端口、对端、负载均衡）的 MTU 必须一致，否则会分片或丢包；需要与网络团队协调。"),
			Workload:   T("Bulk transfer between hosts on the same L2 network; not for Internet-facing traffic.", "同一二层网络内主机间的大流量传输；不适用于面向互联网的流量。"),
			References: []string{"man 8 ip-link (mtu)", "Red Hat Enterprise Linux Network Performance Tuning Guide (jumbo frames)"},
			Eval:       evalNicMtu,
		},
		{
			ID: "nic.link-speed", Category: "nic", Severity: warning,
			Reads:      []string{"/sys/class/net/IFACE/speed"},
			Title:      T("Slow NIC link", "网卡链路速率过低"),
			Checks:     T("Flags physical NICs that are up at less than 1 Gb/s.", "检查处于 up 状态但速率低于 1 Gb/s 的物理网卡。"),
			Why:        T("A 100 Mb/s link (bad cable, autonegotiation, wrong switch port) caps the service long before the CPU; a ticketing platform's load test hit this on its load generator.", "100 Mb/s 链路（网线、自协商或交换机端口问题）会在 CPU 之前成为瓶颈；某票务平台压测时就在压测机上遇到过。"),
			Risk:       T("None (diagnostic).", "无（诊断项）。"),
			Workload:   T("All network services and load generators.", "所有网络服务和压测机。"),
			References: []string{"man 8 ethtool (speed, duplex, autoneg)", "Brendan Gregg USE method: network interfaces (sar -n DEV vs link speed)"},
			Eval:       evalNicLinkSpeed,
		},
	}
}

// evalNicIrqConcentration is the rule nic.irq.concentration.
func evalNicIrqConcentration(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	cpus := onlineCPUs(c)
	irqb := c.F.IRQBalance
	var out []Outcome
	for _, n := range nics {
		if len(n.IRQs) == 0 {
			out = append(out, skip(Tf("%s: no IRQs found for this NIC (virtual function or polling driver)", "%s：未找到该网卡的中断（虚拟功能或轮询驱动）", n.Name)).On(n.Name))
			continue
		}
		targets, busiest, share := irqTargets(n)
		var ids []string
		for _, q := range n.IRQs {
			ids = append(ids, fmt.Sprint(q.Number))
		}
		evs := []finding.Evidence{ev("irqs", strings.Join(ids, ","), "/proc/interrupts"),
			ev("cpus receiving interrupts", sysinfo.FormatCPUList(targets), "/proc/interrupts")}
		for i, q := range n.IRQs {
			if i >= 4 {
				break
			}
			evs = append(evs, ev(fmt.Sprintf("irq %d smp_affinity_list", q.Number), sysinfo.FormatCPUList(q.Affinity), fmt.Sprintf("/proc/irq/%d/smp_affinity_list", q.Number)))
		}
		if irqb.OK {
			evs = append(evs, evf("irqbalance running", irqb))
		}
		if cpus < 4 || busiest < 0 || share < 0.8 {
			out = append(out, pass(Tf("%s: %d IRQs over CPUs %s", "%s：%d 个中断分布在 CPU %s", n.Name, len(n.IRQs), sysinfo.FormatCPUList(targets)), evs...).On(n.Name))
			continue
		}
		local := nicLocalCPUs(c, n)
		picks := spreadCPUs(local, len(n.IRQs))
		var apply, revert []string
		var changes []finding.Change
		for i, q := range n.IRQs {
			p := fmt.Sprintf("/proc/irq/%d/smp_affinity_list", q.Number)
			target := fmt.Sprint(picks[i])
			if len(n.IRQs) == 1 {
				target = sysinfo.FormatCPUList(local) // one IRQ: let it go anywhere on the local node
			}
			apply = append(apply, fmt.Sprintf("echo %s > %s", target, p))
			changes = append(changes, sysfsChange(p, target))
			revert = append(revert, fmt.Sprintf("echo %s > %s", orDefault(sysinfo.FormatCPUList(q.Affinity), fmt.Sprint(busiest)), p))
		}
		irqbRunning := irqb.OK && irqb.Value
		fx := finding.Fix{Apply: strings.Join(apply, "\n"), Revert: strings.Join(revert, "\n"),
			Persist: "systemctl enable --now irqbalance", Changes: changes,
			Note: T("Manual IRQ affinity is lost on reboot, driver reload and queue changes: run the apply lines from a boot-time unit after the NIC is up, or let irqbalance spread the IRQs (the persist line).",
				"手工设置的中断亲和性在重启、驱动重载或队列变更后丢失：请在网卡就绪后由开机单元执行上述命令，或让 irqbalance 分散中断（见持久化命令）。")}
		node, nodeZH := "", ""
		if n.NUMANode >= 0 {
			node, nodeZH = fmt.Sprintf(" (NUMA node %d)", n.NUMANode), fmt.Sprintf("（NUMA 节点 %d）", n.NUMANode)
		}
		q := queues(n)
		rec := T(fmt.Sprintf("spread %[1]s's IRQs over the CPUs of its node%[2]s: %[3]s; with %[4]d queue(s) also add queues (`ethtool -L %[1]s combined N`, nic.queues) or enable RPS (nic.rps); or start irqbalance (`systemctl start irqbalance`)",
			n.Name, node, sysinfo.FormatCPUList(local), q),
			fmt.Sprintf("把 %[1]s 的中断分散到网卡所在节点%[2]s的 CPU：%[3]s；当前只有 %[4]d 个队列，还应增加队列（`ethtool -L %[1]s combined N`，见 nic.queues）或开启 RPS（见 nic.rps）；或者启动 irqbalance（`systemctl start irqbalance`）",
				n.Name, nodeZH, sysinfo.FormatCPUList(local), q))
		ien, izh := irqbState(irqb)
		obs := T(fmt.Sprintf("%s: %d IRQ(s), %.0f%% of them on CPU %d of %d CPUs; irqbalance %s", n.Name, len(n.IRQs), share*100, busiest, cpus, ien),
			fmt.Sprintf("%s：%d 个中断，其中 %.0f%% 落在 CPU %d 上（共 %d 个 CPU）；irqbalance %s", n.Name, len(n.IRQs), share*100, busiest, cpus, izh))
		f := fail(obs, rec, fx, evs...).On(n.Name)
		if !irqbRunning && cpus >= 16 {
			f = f.WithSeverity(critical)
		}
		out = append(out, f)
	}
	return out
}

// evalNicQueues is the rule nic.queues.
func evalNicQueues(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	cpus := onlineCPUs(c)
	var out []Outcome
	for _, n := range nics {
		q := queues(n)
		local := nicLocalCPUs(c, n)
		e := ev("queues", fmt.Sprintf("combined %d (max %d), rx %d, tx %d", n.Combined, n.MaxCombined, n.RxQueues, n.TxQueues), nicSource(n)+"/queues")
		obs := Tf("%s has %d queue(s) on a %d-CPU host (%d CPUs on its node)", "%s 只有 %d 个队列，主机共 %d 个 CPU（网卡所在节点 %d 个）", n.Name, q, cpus, len(local))
		if q <= 0 {
			out = append(out, unavailable(finding.T(n.Name+" queue count", n.Name+" 队列数"), finding.T("no queues/rx-* and no ethtool channel count", "没有 queues/rx-*，也没有 ethtool 通道数")).On(n.Name))
			continue
		}
		want := len(local)
		if want > 32 {
			want = 32
		}
		if n.MaxCombined > 0 && want > n.MaxCombined {
			want = n.MaxCombined
		}
		if q == 1 && cpus >= 4 && n.MaxCombined == 1 {
			out = append(out, advice(obs, T("the device supports a single queue: use RPS to spread receive processing (nic.rps), or ask for a multi-queue vNIC / SR-IOV VF", "设备只支持单队列：用 RPS 分散收包处理（见 nic.rps），或申请多队列虚拟网卡/SR-IOV VF"), e).On(n.Name))
			continue
		}
		if q >= want || (q > 1 && (n.MaxCombined == 0 || q >= n.MaxCombined)) {
			out = append(out, pass(Tf("%s: %d queues (hardware max %d, %d local CPUs)", "%s：%d 个队列（硬件上限 %d，本地 CPU %d 个）", n.Name, q, n.MaxCombined, len(local)), e).On(n.Name))
			continue
		}
		if q == 1 && cpus < 4 {
			out = append(out, pass(Tf("%s: 1 queue on a %d-CPU host", "%s：1 个队列，主机 %d 个 CPU", n.Name, cpus), e).On(n.Name))
			continue
		}
		sev := info
		if q == 1 {
			sev = warning
		}
		fx := finding.Fix{
			Apply:   fmt.Sprintf("ethtool -L %s combined %d", n.Name, want),
			Revert:  fmt.Sprintf("ethtool -L %s combined %d", n.Name, q),
			Persist: fmt.Sprintf("nmcli connection modify %s ethtool.channels-combined %d", n.Name, want),
			Changes: []finding.Change{{Kind: finding.ChangeEthtool, Key: n.Name + "/combined", Value: fmt.Sprint(want)}},
			Note:    Tf("Without NetworkManager put ETHTOOL_OPTS=\"-L %[1]s combined %[2]d\" in ifcfg-%[1]s.", "未使用 NetworkManager 时，在 ifcfg-%[1]s 中写入 ETHTOOL_OPTS=\"-L %[1]s combined %[2]d\"。", n.Name, want),
		}
		rec := Tf("%d combined queues (check `ethtool -l %s` for the hardware maximum), then spread their IRQs over node-local CPUs", "设置 %d 个 combined 队列（先用 `ethtool -l %s` 确认硬件上限），再把中断分散到本节点 CPU", want, n.Name)
		out = append(out, fail(obs, rec, fx, e).WithSeverity(sev).On(n.Name))
	}
	return out
}

// evalNicRps is the rule nic.rps.
func evalNicRps(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	cpus := onlineCPUs(c)
	var out []Outcome
	for _, n := range nics {
		q := queues(n)
		if q <= 0 || q*16 > cpus {
			out = append(out, skip(Tf("%s: %d queues for %d CPUs: hardware queues are enough", "%s：%d 个队列对应 %d 个 CPU，硬件队列足够", n.Name, q, cpus)).On(n.Name))
			continue
		}
		on := 0
		for _, r := range n.RPS {
			if len(r.CPUs) > 0 {
				on++
			}
		}
		e := ev("rps queues enabled", fmt.Sprintf("%d of %d", on, len(n.RPS)), nicSource(n)+"/queues/rx-*/rps_cpus")
		if len(n.RPS) == 0 {
			out = append(out, unavailable(same(n.Name+" rps_cpus"), finding.T("no queues/rx-*/rps_cpus read", "未读取到 queues/rx-*/rps_cpus")).On(n.Name))
			continue
		}
		if on == len(n.RPS) {
			out = append(out, pass(Tf("%s: RPS enabled on all %d rx queues", "%s：%d 个 rx 队列都已开启 RPS", n.Name, on), e).On(n.Name))
			continue
		}
		local := nicLocalCPUs(c, n)
		// keep the CPUs taking the hard IRQs out of the RPS set, when others remain
		irqCPUs, _, _ := irqTargets(n)
		busy := map[int]bool{}
		for _, x := range irqCPUs {
			busy[x] = true
		}
		var rpsCPUs []int
		for _, x := range local {
			if !busy[x] {
				rpsCPUs = append(rpsCPUs, x)
			}
		}
		if len(rpsCPUs) > 0 {
			local = rpsCPUs
		}
		mask := cpuMask(local)
		var apply, revert []string
		var changes []finding.Change
		flows := 32768
		for _, r := range n.RPS {
			if len(r.CPUs) > 0 {
				continue
			}
			base := fmt.Sprintf("/sys/class/net/%s/queues/%s", n.Name, r.Queue)
			apply = append(apply, fmt.Sprintf("echo %s > %s/rps_cpus", mask, base), fmt.Sprintf("echo %d > %s/rps_flow_cnt", flows/len(n.RPS), base))
			changes = append(changes, sysfsChange(base+"/rps_cpus", mask), sysfsChange(base+"/rps_flow_cnt", fmt.Sprint(flows/len(n.RPS))))
			revert = append(revert, fmt.Sprintf("echo 0 > %s/rps_cpus", base), fmt.Sprintf("echo %d > %s/rps_flow_cnt", r.FlowCnt, base))
		}
		sf, esf, bad := sysctlInt(c, "net.core.rps_sock_flow_entries")
		evs := []finding.Evidence{e}
		if bad == nil {
			evs = append(evs, esf)
			if sf < int64(flows) {
				apply = append(apply, fmt.Sprintf("sysctl -w net.core.rps_sock_flow_entries=%d", flows))
				changes = append(changes, finding.Change{Kind: finding.ChangeSysctl, Key: "net.core.rps_sock_flow_entries", Value: fmt.Sprint(flows)})
				revert = append(revert, fmt.Sprintf("sysctl -w net.core.rps_sock_flow_entries=%d", sf))
			}
		}
		fx := finding.Fix{Apply: strings.Join(apply, "\n"), Revert: strings.Join(revert, "\n"),
			Persist: fmt.Sprintf("echo 'net.core.rps_sock_flow_entries = %d' >> %s", flows, sysctlPersistFile), Changes: changes,
			Note: T("rps_cpus and rps_flow_cnt are lost on reboot: write them from a udev rule or a boot-time unit; the sysctl persists through sysctl.d.",
				"rps_cpus 和 rps_flow_cnt 重启后丢失：请由 udev 规则或开机单元写入；sysctl 部分通过 sysctl.d 持久化。")}
		out = append(out, fail(Tf("%s: %d queue(s) for %d CPUs and RPS off on %d of %d rx queues", "%s：%d 个队列对应 %d 个 CPU，%d/%d 个 rx 队列未开启 RPS", n.Name, q, cpus, len(n.RPS)-on, len(n.RPS)),
			Tf("RPS over CPUs %s (mask %s), RFS with rps_sock_flow_entries %d", "在 CPU %s（掩码 %s）上开启 RPS，并开启 RFS（rps_sock_flow_entries %d）", sysinfo.FormatCPUList(local), mask, flows), fx, evs...).On(n.Name))
	}
	return out
}

// evalNicMtu is the rule nic.mtu.
func evalNicMtu(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	var out []Outcome
	for _, n := range nics {
		e := ev("mtu", n.MTU, nicSource(n)+"/mtu")
		if n.SpeedMbps < 10000 || n.MTU != 1500 {
			out = append(out, pass(Tf("%s: MTU %d at %d Mb/s", "%s：MTU %d，速率 %d Mb/s", n.Name, n.MTU, n.SpeedMbps), e).On(n.Name))
			continue
		}
		fx := finding.Fix{Apply: fmt.Sprintf("ip link set dev %s mtu 9000", n.Name), Revert: fmt.Sprintf("ip link set dev %s mtu %d", n.Name, n.MTU),
			Persist: fmt.Sprintf("nmcli connection modify %s 802-3-ethernet.mtu 9000", n.Name),
			Note:    Tf("Without NetworkManager put MTU=9000 in ifcfg-%s. Every hop (switch ports, peers) must accept 9000 bytes.", "未使用 NetworkManager 时在 ifcfg-%s 中写入 MTU=9000。链路上每一跳（交换机端口、对端）都必须支持 9000 字节。", n.Name, n.Name)}
		out = append(out, fail(Tf("%s: MTU 1500 on a %d Mb/s link", "%s：%d Mb/s 链路上 MTU 为 1500", n.Name, n.SpeedMbps),
			T("MTU 9000 end to end if the traffic is bulk and stays in the data-centre network", "若流量以大包为主且不出数据中心网络，端到端设置 MTU 9000"), fx, e).On(n.Name))
	}
	return out
}

// evalNicLinkSpeed is the rule nic.link-speed.
func evalNicLinkSpeed(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	var out []Outcome
	for _, n := range nics {
		e := ev("speed", n.SpeedMbps, nicSource(n)+"/speed")
		switch {
		case n.SpeedMbps <= 0:
			out = append(out, skip(Tf("%s reports no link speed (virtual or unknown)", "%s 未报告链路速率（虚拟网卡或未知）", n.Name)).On(n.Name))
		case n.SpeedMbps < 1000:
			out = append(out, advice(Tf("%s links at %d Mb/s", "%s 链路速率只有 %d Mb/s", n.Name, n.SpeedMbps),
				T("check cable, switch port and autonegotiation (`ethtool <if>`); expect 1/10/25 Gb/s", "检查网线、交换机端口和自协商（`ethtool <网卡>`）；应为 1/10/25 Gb/s"), e).On(n.Name))
		default:
			out = append(out, pass(Tf("%s at %d Mb/s", "%s 速率 %d Mb/s", n.Name, n.SpeedMbps), e).On(n.Name))
		}
	}
	return out
}

func irqbState(f sysinfo.Field[bool]) (en, zh string) {
	switch {
	case !f.OK:
		return "state unknown", "状态未知"
	case f.Value:
		return "running", "运行中"
	}
	return "not running", "未运行"
}
