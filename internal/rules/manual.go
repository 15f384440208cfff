package rules

import (
	"fmt"

	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Checks from the host checklist (PerfSpect, Brendan Gregg's USE method, TuneD) that need data tuneloop
// cannot read from /proc, /sys and /etc without root tools or ioctls (#33
// DIMMs, #38 kernel log, #52 NIC rings). They always report Unavailable with
// the command to run instead, so the audit says what it did not check. They
// do not count as real checks.

// manualRuleIDs lists them, for tests and docs.
var manualRuleIDs = map[string]bool{"mem.dimm-population": true, "kernel.log-health": true, "nic.rings": true}

func manualRules() []Rule {
	return []Rule{
		{
			ID: "mem.dimm-population", Category: "mem", Severity: info,
			Reads:      []string{"dmidecode -t 17 (SMBIOS memory devices; not read by check)"},
			Title:      T("Memory channels and DIMM speed", "内存通道与内存条速率"),
			Checks:     T("Needs SMBIOS type 17 (dmidecode): channels populated, configured vs rated speed.", "需要 SMBIOS type 17（dmidecode）：各通道是否插满，配置速率与额定速率是否一致。"),
			Why:        T("Unpopulated channels or down-clocked DIMMs cut memory bandwidth for GC and caches (fill every channel with 1 DIMM per channel, same speed and rank).", "通道未插满或内存降频会降低 GC 和缓存所需的内存带宽（每个通道插 1 根同规格内存条，速率和 Rank 一致）。"),
			Risk:       T("Hardware change.", "需要硬件变更。"),
			Workload:   T("All bare-metal hosts.", "所有物理机。"),
			References: []string{"PerfSpect insights #15 (populate all memory channels), #17 (DIMMs at rated speed)", "man 8 dmidecode (-t 17, memory device)"},
			Eval:       evalMemDimmPopulation,
		},
		{
			ID: "kernel.log-health", Category: "kernel", Severity: info,
			Reads:      []string{"the kernel log (dmesg, journalctl -k; not read by check)"},
			Title:      T("Kernel log health", "内核日志健康"),
			Checks:     T("Needs the kernel log: OOM kills, SYN flooding, conntrack table full, soft lockups, MCE, thermal throttling.", "需要内核日志：OOM kill、SYN flooding、conntrack 表满、soft lockup、MCE、温度降频。"),
			Why:        T("These messages explain most 'mysterious' latency and errors under load.", "这些日志能解释负载下大多数“莫名其妙”的时延和错误。"),
			Risk:       T("None (diagnostic).", "无（诊断项）。"),
			Workload:   T("All hosts.", "所有主机。"),
			References: []string{"Brendan Gregg, Linux Performance Analysis in 60,000 Milliseconds: dmesg | tail", "man 1 dmesg"},
			Eval:       evalKernelLogHealth,
		},
		{
			ID: "nic.rings", Category: "nic", Severity: info,
			Reads:      []string{"ethtool -g/-c/-k/-S per NIC (not read by check)"},
			Title:      T("NIC rings, coalescing and offloads", "网卡 ring、中断合并与卸载"),
			Checks:     T("Needs ethtool -g/-c/-k/-S per NIC: ring sizes vs maximum with rx drops, adaptive coalescing, GRO/GSO/TSO.", "需要逐块网卡的 ethtool -g/-c/-k/-S：有 rx 丢包时 ring 是否已到上限、自适应中断合并、GRO/GSO/TSO。"),
			Why:        T("Drops at a small ring and a high interrupt rate both hurt throughput and latency before the kernel sees a packet.", "ring 过小导致的丢包和过高的中断频率，都会在内核看到报文之前就损害吞吐和时延。"),
			Risk:       T("Ring and offload changes reset the link briefly.", "修改 ring 和卸载参数会让链路短暂中断。"),
			Workload:   T("Network-heavy services.", "网络密集型服务。"),
			References: []string{"man 8 ethtool (-g, -c, -k, -S)", "TuneD net plugin ring/coalesce/features"},
			Eval:       evalNicRings,
		},
	}
}

// evalMemDimmPopulation is the rule mem.dimm-population.
func evalMemDimmPopulation(c *Ctx) []Outcome {
	if vm, known := isVM(c); known && vm {
		return one(skip(T("VM: DIMMs belong to the host", "虚拟机：内存条属于宿主机")))
	}
	return one(unavailableBecause(T("SMBIOS memory tables are root-only binary data; run: dmidecode -t 17 | grep -E 'Locator|Size|Speed|Rank'",
		"SMBIOS 内存表需要 root 且为二进制数据；请运行：dmidecode -t 17 | grep -E 'Locator|Size|Speed|Rank'")))
}

// evalKernelLogHealth is the rule kernel.log-health.
func evalKernelLogHealth(c *Ctx) []Outcome {
	return one(unavailableBecause(T("the kernel log is not part of the collected facts; run: dmesg -T | grep -E -i 'out of memory|killed process|SYN flooding|table full|soft lockup|mce|throttl'",
		"采集的事实中不包含内核日志；请运行：dmesg -T | grep -E -i 'out of memory|killed process|SYN flooding|table full|soft lockup|mce|throttl'")))
}

// evalNicRings is the rule nic.rings.
func evalNicRings(c *Ctx) []Outcome {
	nics, o := upNICs(c)
	if o != nil {
		return one(*o)
	}
	var out []Outcome
	for _, n := range nics {
		out = append(out, ringsUnavailable(n).On(n.Name))
	}
	return out
}

func ringsUnavailable(n sysinfo.NIC) Outcome {
	cmd := fmt.Sprintf("ethtool -g %[1]s; ethtool -c %[1]s; ethtool -k %[1]s | grep -E 'generic|segmentation'; ethtool -S %[1]s | grep -i -E 'drop|miss|fifo|no_buf'", n.Name)
	return unavailableBecause(Tf("ring/coalescing/offload settings need the ethtool ioctl; run: %s", "ring/中断合并/卸载参数需要 ethtool ioctl 读取；请运行：%s", cmd))
}
