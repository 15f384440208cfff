package rules

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

type mut func(f *sysinfo.Facts)

func sc(key string, v any) mut { return func(f *sysinfo.Facts) { setSysctl(f, key, v) } }
func mi(key string, v int64) mut {
	return func(f *sysinfo.Facts) { setMeminfo(f, key, v) }
}
func args(cmdline string) mut { return func(f *sysinfo.Facts) { setArgs(f, cmdline) } }
func all(ms ...mut) mut {
	return func(f *sysinfo.Facts) {
		for _, m := range ms {
			m(f)
		}
	}
}
func jv(fn func(j *sysinfo.JVM)) mut { return func(f *sysinfo.Facts) { fn(jvm0(f)) } }
func nc(fn func(n *sysinfo.NIC)) mut { return func(f *sysinfo.Facts) { fn(nic0(f)) } }
func cpufreq(fn func(c *sysinfo.Cpufreq)) mut {
	return func(f *sysinfo.Facts) { fn(&f.CPU.Cpufreq.Value) }
}
func vm(f *sysinfo.Facts) { f.CPU.Hypervisor = got("KVM", "/proc/cpuinfo") }
func container(memLimit int64, quota float64) mut {
	return jv(func(j *sysinfo.JVM) { j.MemoryLimit, j.CPUQuota = memLimit, quota })
}
func noJVMs(f *sysinfo.Facts)        { f.JVMs = got([]sysinfo.JVM{}, "/proc") }
func swap(totalKB, freeKB int64) mut { return all(mi("SwapTotal", totalKB), mi("SwapFree", freeKB)) }
func unbound(f *sysinfo.Facts) {
	j := jvm0(f)
	j.CPUsAllowed, j.MemsAllowed = seq(0, 63), []int{0, 1}
}
func allIRQsOn(cpu int) mut {
	return nc(func(n *sysinfo.NIC) {
		for i := range n.IRQs {
			q := &n.IRQs[i]
			q.Counts = make([]uint64, 64)
			q.Counts[cpu] = 1000
			q.Affinity, q.Effective = []int{cpu}, []int{cpu}
		}
	})
}

type tcase struct {
	id   string
	desc string
	p    Profile
	base func() *sysinfo.Facts
	m    mut
	st   finding.Status
	sev  finding.Severity // checked for Fail only
}

const (
	P = finding.Pass
	F = finding.Fail
	U = finding.Unavailable
	S = finding.Skipped
)

var cases = []tcase{
	// cpu
	{id: "cpu.governor", desc: "all performance", st: P},
	{id: "cpu.governor", desc: "one powersave", m: cpufreq(func(c *sysinfo.Cpufreq) { c.Governors = map[string]int{"performance": 63, "powersave": 1} }), st: F, sev: warning},
	{id: "cpu.governor", desc: "latency powersave is critical", p: Latency, m: cpufreq(func(c *sysinfo.Cpufreq) { c.Governors = map[string]int{"powersave": 64} }), st: F, sev: critical},
	{id: "cpu.governor", desc: "VM without cpufreq", base: firecrackerVM, st: S},
	{id: "cpu.governor", desc: "bare metal without cpufreq", m: func(f *sysinfo.Facts) { f.CPU.Cpufreq = missing[sysinfo.Cpufreq]("x: not present") }, st: U},
	{id: "cpu.driver", desc: "intel_pstate", st: P},
	{id: "cpu.driver", desc: "acpi-cpufreq from intel_pstate=disable", m: all(cpufreq(func(c *sysinfo.Cpufreq) { c.Driver = "acpi-cpufreq" }), args("ro intel_pstate=disable")), st: F, sev: info},
	{id: "cpu.driver", desc: "AMD acpi-cpufreq on 6.6", m: all(cpufreq(func(c *sysinfo.Cpufreq) { c.Driver = "acpi-cpufreq" }), func(f *sysinfo.Facts) {
		f.CPU.Vendor = got("AuthenticAMD", "/proc/cpuinfo")
		f.Kernel.Release = got("6.6.0", "/proc/sys/kernel/osrelease")
	}), st: F, sev: info},
	{id: "cpu.boost", desc: "on", st: P},
	{id: "cpu.boost", desc: "intel no_turbo", m: cpufreq(func(c *sysinfo.Cpufreq) { c.Boost = boolp(false) }), st: F, sev: warning},
	{id: "cpu.boost", desc: "cpufreq boost 0", m: cpufreq(func(c *sysinfo.Cpufreq) { c.Driver, c.Boost = "acpi-cpufreq", boolp(false) }), st: F, sev: warning},
	{id: "cpu.boost", desc: "not exposed", m: cpufreq(func(c *sysinfo.Cpufreq) { c.Boost = nil }), st: S},
	{id: "cpu.epp", desc: "balance_performance ok for java-web", m: cpufreq(func(c *sysinfo.Cpufreq) { c.EPP = map[string]int{"balance_performance": 64} }), st: P},
	{id: "cpu.epp", desc: "balance_performance fails for latency", p: Latency, m: cpufreq(func(c *sysinfo.Cpufreq) { c.EPP = map[string]int{"balance_performance": 64} }), st: F, sev: warning},
	{id: "cpu.epp", desc: "one power policy", m: cpufreq(func(c *sysinfo.Cpufreq) { c.EPP = map[string]int{"performance": 63, "power": 1} }), st: F, sev: warning},
	{id: "cpu.min-perf-pct", desc: "100", p: Latency, st: P},
	{id: "cpu.min-perf-pct", desc: "99", p: Latency, m: cpufreq(func(c *sysinfo.Cpufreq) { c.MinPerfPct = intp(99) }), st: F, sev: info},
	{id: "cpu.min-perf-pct", desc: "not in java-web", st: S},
	{id: "cpu.cstates", desc: "C1E at 10us enabled", p: Latency, st: P},
	{id: "cpu.cstates", desc: "C1E at 11us enabled", p: Latency, m: func(f *sysinfo.Facts) { f.CPU.Cpuidle.Value.States[2].LatencyUS = 11 }, st: F, sev: warning},
	{id: "cpu.cstates", desc: "VM", p: Latency, base: firecrackerVM, st: S},
	{id: "cpu.smt", desc: "on", st: P},
	{id: "cpu.smt", desc: "off (BIOS)", m: func(f *sysinfo.Facts) { f.CPU.SMTActive = got(false, "x") }, st: F, sev: info},
	{id: "cpu.smt", desc: "off via nosmt", m: all(func(f *sysinfo.Facts) { f.CPU.SMTActive = got(false, "x") }, args("ro nosmt")), st: F, sev: info},
	{id: "cpu.smt", desc: "off is fine for latency", p: Latency, m: func(f *sysinfo.Facts) { f.CPU.SMTActive = got(false, "x") }, st: P},
	{id: "cpu.smt", desc: "aarch64", base: kunpeng2s4n, st: S},
	{id: "cpu.smt", desc: "VM", m: func(f *sysinfo.Facts) { vm(f); f.CPU.SMTActive = got(false, "x") }, st: S},
	// virt
	{id: "virt.hypervisor", desc: "bare metal", st: P},
	{id: "virt.hypervisor", desc: "KVM", base: firecrackerVM, st: F, sev: info},
	{id: "virt.steal", desc: "bare metal", st: S},
	{id: "virt.steal", desc: "1.9%", base: firecrackerVM, m: func(f *sysinfo.Facts) { f.CPU.StealPct = got(1.9, "/proc/stat") }, st: P},
	{id: "virt.steal", desc: "2.0%", base: firecrackerVM, m: func(f *sysinfo.Facts) { f.CPU.StealPct = got(2.0, "/proc/stat") }, st: F, sev: info},
	{id: "virt.steal", desc: "5.0%", base: firecrackerVM, m: func(f *sysinfo.Facts) { f.CPU.StealPct = got(5.0, "/proc/stat") }, st: F, sev: warning},
	// security
	{id: "security.mitigations", desc: "active", st: P},
	{id: "security.mitigations", desc: "mitigations=auto is fine", m: args("ro mitigations=auto,nosmt"), st: P},
	{id: "security.mitigations", desc: "mitigations=off", m: args("ro mitigations=off nopti"), st: F, sev: info},
	{id: "security.mitigations", desc: "vulnerable", m: func(f *sysinfo.Facts) {
		f.CPU.Vulnerabilities.Value["mds"] = "Vulnerable: Clear CPU buffers attempted, no microcode"
	}, st: F, sev: warning},
	{id: "security.mitigations", desc: "vulnerable in a VM", m: func(f *sysinfo.Facts) {
		vm(f)
		f.CPU.Vulnerabilities.Value["mds"] = "Vulnerable: Clear CPU buffers attempted, no microcode"
	}, st: F, sev: info},
	{id: "security.selinux", desc: "enforcing", st: P},
	{id: "security.selinux", desc: "disabled", m: func(f *sysinfo.Facts) { f.Security.SELinux = got("disabled", "/proc/cmdline") }, st: F, sev: info},
	{id: "security.selinux", desc: "permissive", m: func(f *sysinfo.Facts) { f.Security.SELinux = got("permissive", "x") }, st: F, sev: info},
	{id: "security.audit", desc: "on", st: P},
	{id: "security.audit", desc: "audit=0", m: func(f *sysinfo.Facts) { f.Security.Audit = got("off", "/proc/cmdline") }, st: F, sev: info},
	// numa
	{id: "numa.bios-disabled", desc: "2 sockets 2 nodes", st: P},
	{id: "numa.bios-disabled", desc: "2 sockets 1 node", m: func(f *sysinfo.Facts) { f.NUMA.Nodes.Value = f.NUMA.Nodes.Value[:1] }, st: F, sev: warning},
	{id: "numa.bios-disabled", desc: "numa=off", m: all(func(f *sysinfo.Facts) { f.NUMA.Nodes.Value = f.NUMA.Nodes.Value[:1] }, args("ro numa=off")), st: F, sev: warning},
	{id: "numa.topology", desc: "single node", base: firecrackerVM, st: S},
	{id: "numa.topology", desc: "two balanced nodes", st: F, sev: info},
	{id: "numa.topology", desc: "node at half the average is still info", m: func(f *sysinfo.Facts) { f.NUMA.Nodes.Value[1].MemTotalKB = 64 << 20 }, st: F, sev: info},
	{id: "numa.topology", desc: "node below half the average", m: func(f *sysinfo.Facts) { f.NUMA.Nodes.Value[1].MemTotalKB = 30 << 20 }, st: F, sev: warning},
	{id: "numa.balancing", desc: "pinned and 0", st: P},
	{id: "numa.balancing", desc: "pinned and 1", m: sc("kernel.numa_balancing", 1), st: F, sev: warning},
	{id: "numa.balancing", desc: "unpinned and 0", m: unbound, st: F, sev: info},
	{id: "numa.balancing", desc: "unpinned and 1", m: all(unbound, sc("kernel.numa_balancing", 1)), st: P},
	{id: "numa.zone-reclaim", desc: "0", st: P},
	{id: "numa.zone-reclaim", desc: "1", m: sc("vm.zone_reclaim_mode", 1), st: F, sev: warning},
	{id: "numa.nic-locality", desc: "local", st: P},
	{id: "numa.nic-locality", desc: "IRQ on node 1", m: nc(func(n *sysinfo.NIC) { n.IRQs[3].Affinity, n.IRQs[3].Effective = []int{32}, []int{32} }), st: F, sev: warning},
	// memory
	{id: "mem.thp.enabled", desc: "madvise java-web", st: P},
	{id: "mem.thp.enabled", desc: "always java-web", m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "always" }, st: F, sev: warning},
	{id: "mem.thp.enabled", desc: "always latency", p: Latency, m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "always" }, st: F, sev: critical},
	{id: "mem.thp.enabled", desc: "never java-web", m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "never" }, st: F, sev: info},
	{id: "mem.thp.enabled", desc: "never database", p: Database, m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "never" }, st: P},
	{id: "mem.thp.enabled", desc: "madvise database", p: Database, st: F, sev: info},
	{id: "mem.thp.enabled", desc: "always database", p: Database, m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "always" }, st: F, sev: warning},
	{id: "mem.thp.defrag", desc: "madvise", st: P},
	{id: "mem.thp.defrag", desc: "always", m: func(f *sysinfo.Facts) { f.Memory.THPDefrag.Value = "always" }, st: F, sev: warning},
	{id: "mem.hugepages", desc: "none", st: P},
	{id: "mem.hugepages", desc: "reserved unused", m: all(mi("HugePages_Total", 1024), mi("HugePages_Free", 1024)), st: F, sev: warning},
	{id: "mem.hugepages", desc: "reserved and used", m: all(mi("HugePages_Total", 1024), mi("HugePages_Free", 10), jv(func(j *sysinfo.JVM) {
		j.Options.Bools["UseLargePages"], j.Options.Bools["UseTransparentHugePages"] = true, false
	})), st: P},
	{id: "mem.swap.used", desc: "no swap", st: P},
	{id: "mem.swap.used", desc: "256 MiB used", m: swap(8<<20, 8<<20-256*1024), st: P},
	{id: "mem.swap.used", desc: "256 MiB + 1 kB used", m: swap(8<<20, 8<<20-256*1024-1), st: F, sev: warning},
	{id: "mem.swap.used", desc: "over a quarter used", m: swap(8<<20, 4<<20), st: F, sev: critical},
	{id: "mem.swappiness", desc: "60 without swap", m: sc("vm.swappiness", 60), st: P},
	{id: "mem.swappiness", desc: "10 with swap", m: swap(8<<20, 8<<20), st: P},
	{id: "mem.swappiness", desc: "11 with swap", m: all(swap(8<<20, 8<<20), sc("vm.swappiness", 11)), st: F, sev: warning},
	{id: "mem.swappiness", desc: "60 with swap, database wants 1", p: Database, m: all(swap(8<<20, 8<<20), sc("vm.swappiness", 60)), st: F, sev: warning},
	{id: "mem.available", desc: "exactly 10%", m: all(mi("MemTotal", 1000000), mi("MemAvailable", 100000)), st: P},
	{id: "mem.available", desc: "9.9%", m: all(mi("MemTotal", 1000000), mi("MemAvailable", 99000)), st: F, sev: warning},
	{id: "mem.available", desc: "4.9%", m: all(mi("MemTotal", 1000000), mi("MemAvailable", 49000)), st: F, sev: critical},
	{id: "mem.dirty", desc: "20/10 java-web", st: P},
	{id: "mem.dirty", desc: "40/10 java-web", m: sc("vm.dirty_ratio", 40), st: P},
	{id: "mem.dirty", desc: "41/10 java-web", m: sc("vm.dirty_ratio", 41), st: F, sev: warning},
	{id: "mem.dirty", desc: "40/10 database", p: Database, m: sc("vm.dirty_ratio", 40), st: P},
	{id: "mem.dirty", desc: "10/3 latency", p: Latency, m: all(sc("vm.dirty_ratio", 10), sc("vm.dirty_background_ratio", 3)), st: P},
	{id: "mem.dirty", desc: "20/10 latency", p: Latency, st: F, sev: warning},
	{id: "mem.dirty", desc: "dirty_bytes half of RAM", m: all(sc("vm.dirty_ratio", 0), sc("vm.dirty_bytes", int64(128)<<30)), st: F, sev: warning},
	{id: "mem.min-free-kbytes", desc: "65536 on 256 GiB", m: sc("vm.min_free_kbytes", 65536), st: P},
	{id: "mem.min-free-kbytes", desc: "65535 on 256 GiB", m: sc("vm.min_free_kbytes", 65535), st: F, sev: info},
	{id: "mem.min-free-kbytes", desc: "over 5% of RAM", m: all(mi("MemTotal", 8<<20), sc("vm.min_free_kbytes", 500000)), st: F, sev: warning},
	{id: "mem.max-map-count", desc: "262144", st: P},
	{id: "mem.max-map-count", desc: "262143", m: sc("vm.max_map_count", 262143), st: F, sev: info},
	{id: "mem.max-map-count", desc: "threads need more than half", m: all(sc("vm.max_map_count", 65530), jv(func(j *sysinfo.JVM) { j.Threads = 20000 })), st: F, sev: warning},
	{id: "mem.overcommit", desc: "0", st: P},
	{id: "mem.overcommit", desc: "2", m: sc("vm.overcommit_memory", 2), st: F, sev: warning},
	// kernel
	{id: "kernel.clocksource", desc: "tsc", st: P},
	{id: "kernel.clocksource", desc: "hpet with tsc available", m: func(f *sysinfo.Facts) { f.Clocksource.Current.Value = "hpet" }, st: F, sev: warning},
	{id: "kernel.clocksource", desc: "hpet without tsc", m: func(f *sysinfo.Facts) {
		f.Clocksource.Current.Value = "hpet"
		f.Clocksource.Available.Value = []string{"hpet", "acpi_pm"}
	}, st: F, sev: warning},
	{id: "kernel.clocksource", desc: "kunpeng arch_sys_counter", base: kunpeng2s4n, st: P},
	{id: "kernel.nmi-watchdog", desc: "0 latency", p: Latency, st: P},
	{id: "kernel.nmi-watchdog", desc: "1 latency", p: Latency, m: sc("kernel.nmi_watchdog", 1), st: F, sev: info},
	{id: "kernel.nmi-watchdog", desc: "java-web", st: S},
	{id: "kernel.timer-migration", desc: "0 latency", p: Latency, st: P},
	{id: "kernel.timer-migration", desc: "1 latency", p: Latency, m: sc("kernel.timer_migration", 1), st: F, sev: info},
	{id: "kernel.sched-autogroup", desc: "0", st: P},
	{id: "kernel.sched-autogroup", desc: "1", m: sc("kernel.sched_autogroup_enabled", 1), st: F, sev: info},
	{id: "kernel.sched-autogroup", desc: "knob absent", m: func(f *sysinfo.Facts) {
		dropSysctl(f, "kernel.sched_autogroup_enabled", "/proc/sys/kernel/sched_autogroup_enabled: not present")
	}, st: S},
	{id: "kernel.pid-max", desc: "1024 x 64 CPUs", m: sc("kernel.pid_max", 65536), st: P},
	{id: "kernel.pid-max", desc: "one less", m: sc("kernel.pid_max", 65535), st: F, sev: info},
	{id: "kernel.threads-max", desc: "2 x threads", m: sc("kernel.threads-max", 400), st: P},
	{id: "kernel.threads-max", desc: "below 2 x threads", m: sc("kernel.threads-max", 399), st: F, sev: warning},
	{id: "kernel.threads-max", desc: "no JVM", m: noJVMs, st: S},
	{id: "kernel.perf-event-paranoid", desc: "1", st: P},
	{id: "kernel.perf-event-paranoid", desc: "2", m: sc("kernel.perf_event_paranoid", 2), st: F, sev: info},
	{id: "kernel.release", desc: "4.19", m: func(f *sysinfo.Facts) { f.Kernel.Release.Value = "4.19.90-2112.8.0.0131.oe1.aarch64" }, st: P},
	{id: "kernel.release", desc: "4.18", m: func(f *sysinfo.Facts) { f.Kernel.Release.Value = "4.18.0-348.el8.x86_64" }, st: F, sev: info},
	{id: "kernel.release", desc: "3.10", m: func(f *sysinfo.Facts) { f.Kernel.Release.Value = "3.10.0-1160.el7.x86_64" }, st: F, sev: info},
	{id: "kernel.cmdline.isolation", desc: "none", st: P},
	{id: "kernel.cmdline.isolation", desc: "isolcpus java-web", m: args("ro isolcpus=2-5 nohz_full=2-5"), st: F, sev: warning},
	{id: "kernel.cmdline.isolation", desc: "isolcpus latency", p: Latency, m: args("ro isolcpus=2-5"), st: F, sev: info},
	{id: "kernel.cmdline.nohz", desc: "default", st: P},
	{id: "kernel.cmdline.nohz", desc: "nohz=off", m: args("ro nohz=off"), st: F, sev: info},
	{id: "kernel.cmdline.iommu", desc: "kunpeng without passthrough", base: kunpeng2s4n, st: F, sev: info},
	{id: "kernel.cmdline.iommu", desc: "kunpeng with passthrough", base: kunpeng2s4n, m: args("ro iommu.passthrough=1"), st: P},
	{id: "kernel.cmdline.iommu", desc: "x86", st: S},
	// tuning
	{id: "tuning.profile", desc: "throughput-performance", st: P},
	{id: "tuning.profile", desc: "balanced", m: func(f *sysinfo.Facts) { f.Tuned.ActiveProfile.Value = "balanced" }, st: F, sev: warning},
	{id: "tuning.profile", desc: "not installed", base: firecrackerVM, st: S},
	{id: "tuning.profile", desc: "virtual-guest on bare metal", m: func(f *sysinfo.Facts) { f.Tuned.ActiveProfile.Value = "virtual-guest" }, st: F, sev: info},
	{id: "tuning.profile", desc: "virtual-guest in a VM", m: func(f *sysinfo.Facts) { vm(f); f.Tuned.ActiveProfile.Value = "virtual-guest" }, st: P},
	{id: "tuning.agents", desc: "tuned only", st: P},
	{id: "tuning.agents", desc: "tuned and atuned", m: func(f *sysinfo.Facts) { f.Daemons.Value = []string{"tuned", "atuned"} }, st: F, sev: warning},
	// net
	{id: "net.somaxconn", desc: "4096", st: P},
	{id: "net.somaxconn", desc: "4095", m: sc("net.core.somaxconn", 4095), st: F, sev: warning},
	{id: "net.syn-backlog", desc: "4096", st: P},
	{id: "net.syn-backlog", desc: "4095", m: sc("net.ipv4.tcp_max_syn_backlog", 4095), st: F, sev: info},
	{id: "net.syncookies", desc: "1", st: P},
	{id: "net.syncookies", desc: "0", m: sc("net.ipv4.tcp_syncookies", 0), st: F, sev: warning},
	{id: "net.softnet", desc: "clean", st: P},
	{id: "net.softnet", desc: "one drop", m: func(f *sysinfo.Facts) { f.Softnet.Value.Dropped = 1 }, st: F, sev: warning},
	{id: "net.softnet", desc: "squeeze 0.1%", m: func(f *sysinfo.Facts) { f.Softnet.Value.TimeSqueeze = 1000 }, st: P},
	{id: "net.softnet", desc: "squeeze 0.1001%", m: func(f *sysinfo.Facts) { f.Softnet.Value.TimeSqueeze = 1001 }, st: F, sev: info},
	{id: "net.softnet", desc: "not read", m: func(f *sysinfo.Facts) {
		f.Softnet = missing[sysinfo.Softnet]("/proc/net/softnet_stat: permission denied")
	}, st: U},
	{id: "net.socket-buffers", desc: "10G", st: S},
	{id: "net.socket-buffers", desc: "25G with 16 MiB", m: all(nc(func(n *sysinfo.NIC) { n.SpeedMbps = 25000 }), sc("net.core.rmem_max", 16<<20), sc("net.core.wmem_max", 16<<20)), st: P},
	{id: "net.socket-buffers", desc: "25G with defaults", m: nc(func(n *sysinfo.NIC) { n.SpeedMbps = 25000 }), st: F, sev: info},
	{id: "net.port-range", desc: "default width", st: P},
	{id: "net.port-range", desc: "one port narrower", m: sc("net.ipv4.ip_local_port_range", "32769 60999"), st: F, sev: warning},
	{id: "net.tw-reuse", desc: "2", st: P},
	{id: "net.tw-reuse", desc: "0", m: sc("net.ipv4.tcp_tw_reuse", 0), st: F, sev: info},
	{id: "net.tw-recycle", desc: "removed", st: S},
	{id: "net.tw-recycle", desc: "0", m: sc("net.ipv4.tcp_tw_recycle", 0), st: P},
	{id: "net.tw-recycle", desc: "1", m: sc("net.ipv4.tcp_tw_recycle", 1), st: F, sev: critical},
	{id: "net.timestamps", desc: "1", st: P},
	{id: "net.timestamps", desc: "0", m: sc("net.ipv4.tcp_timestamps", 0), st: F, sev: warning},
	{id: "net.fin-timeout", desc: "10", m: sc("net.ipv4.tcp_fin_timeout", 10), st: P},
	{id: "net.fin-timeout", desc: "9", m: sc("net.ipv4.tcp_fin_timeout", 9), st: F, sev: info},
	{id: "net.fin-timeout", desc: "61", m: sc("net.ipv4.tcp_fin_timeout", 61), st: F, sev: info},
	{id: "net.slow-start-after-idle", desc: "0", st: P},
	{id: "net.slow-start-after-idle", desc: "1", m: sc("net.ipv4.tcp_slow_start_after_idle", 1), st: F, sev: info},
	{id: "net.keepalive", desc: "1800", m: sc("net.ipv4.tcp_keepalive_time", 1800), st: P},
	{id: "net.keepalive", desc: "1801", m: sc("net.ipv4.tcp_keepalive_time", 1801), st: F, sev: info},
	{id: "net.busy-poll", desc: "0 java-web", st: P},
	{id: "net.busy-poll", desc: "50 java-web", m: all(sc("net.core.busy_read", 50), sc("net.core.busy_poll", 50)), st: F, sev: warning},
	{id: "net.busy-poll", desc: "0 latency", p: Latency, st: F, sev: info},
	{id: "net.busy-poll", desc: "50 latency", p: Latency, m: all(sc("net.core.busy_read", 50), sc("net.core.busy_poll", 50)), st: P},
	{id: "net.conntrack", desc: "80%", m: all(sc("net.netfilter.nf_conntrack_max", 1000), sc("net.netfilter.nf_conntrack_count", 800)), st: P},
	{id: "net.conntrack", desc: "80.1%", m: all(sc("net.netfilter.nf_conntrack_max", 1000), sc("net.netfilter.nf_conntrack_count", 801)), st: F, sev: warning},
	{id: "net.conntrack", desc: "96%", m: all(sc("net.netfilter.nf_conntrack_max", 1000), sc("net.netfilter.nf_conntrack_count", 960)), st: F, sev: critical},
	{id: "net.conntrack", desc: "not loaded", m: func(f *sysinfo.Facts) {
		dropSysctl(f, "net.netfilter.nf_conntrack_max", "/proc/sys/net/netfilter/nf_conntrack_max: not present")
	}, st: S},
	// nic
	{id: "nic.irq.concentration", desc: "spread", st: P},
	{id: "nic.irq.concentration", desc: "all on CPU 5, irqbalance running", m: allIRQsOn(5), st: F, sev: warning},
	{id: "nic.irq.concentration", desc: "all on CPU 0, irqbalance stopped", m: all(allIRQsOn(0), func(f *sysinfo.Facts) { f.IRQBalance.Value = false }), st: F, sev: critical},
	{id: "nic.irq.concentration", desc: "busiest CPU 79%", m: nc(func(n *sysinfo.NIC) {
		n.IRQs = n.IRQs[:1]
		n.IRQs[0].Counts = make([]uint64, 64)
		n.IRQs[0].Counts[1], n.IRQs[0].Counts[2] = 79, 21
	}), st: P},
	{id: "nic.irq.concentration", desc: "busiest CPU 80%", m: nc(func(n *sysinfo.NIC) {
		n.IRQs = n.IRQs[:1]
		n.IRQs[0].Counts = make([]uint64, 64)
		n.IRQs[0].Counts[1], n.IRQs[0].Counts[2] = 80, 20
	}), st: F, sev: warning},
	{id: "nic.irq.concentration", desc: "no NIC", base: func() *sysinfo.Facts {
		f := healthyHost()
		f.NICs.Value = f.NICs.Value[:1]
		return f
	}, st: S},
	{id: "nic.queues", desc: "16 of 16", st: P},
	{id: "nic.queues", desc: "1 queue, max 16", m: nc(func(n *sysinfo.NIC) { n.Combined, n.RxQueues = 1, 1 }), st: F, sev: warning},
	{id: "nic.queues", desc: "8 of max 16 with 32 local CPUs", m: nc(func(n *sysinfo.NIC) { n.Combined, n.RxQueues = 8, 8 }), st: F, sev: info},
	{id: "nic.queues", desc: "1 queue on 3 CPUs", m: all(nc(func(n *sysinfo.NIC) { n.Combined, n.RxQueues = 1, 1 }), func(f *sysinfo.Facts) {
		f.CPU.Online.Value = seq(0, 2)
	}), st: P},
	{id: "nic.queues", desc: "single-queue device", m: nc(func(n *sysinfo.NIC) { n.Combined, n.RxQueues, n.MaxCombined = 1, 1, 1 }), st: F, sev: warning},
	{id: "nic.rps", desc: "enough queues", st: S},
	{id: "nic.rps", desc: "4 queues on 64 CPUs, RPS off", m: nc(func(n *sysinfo.NIC) { n.Combined = 4; n.RPS = n.RPS[:4] }), st: F, sev: info},
	{id: "nic.rps", desc: "5 queues on 64 CPUs", m: nc(func(n *sysinfo.NIC) { n.Combined = 5 }), st: S},
	{id: "nic.rps", desc: "RPS on", base: kunpeng2s4n, m: nc(func(n *sysinfo.NIC) { n.RPS[0].CPUs = seq(1, 31) }), st: P},
	{id: "nic.mtu", desc: "9000", st: P},
	{id: "nic.mtu", desc: "1500 at 10G", m: nc(func(n *sysinfo.NIC) { n.MTU = 1500 }), st: F, sev: info},
	{id: "nic.mtu", desc: "1500 at 1G", m: nc(func(n *sysinfo.NIC) { n.MTU, n.SpeedMbps = 1500, 1000 }), st: P},
	{id: "nic.link-speed", desc: "1000", m: nc(func(n *sysinfo.NIC) { n.SpeedMbps = 1000 }), st: P},
	{id: "nic.link-speed", desc: "100", m: nc(func(n *sysinfo.NIC) { n.SpeedMbps = 100 }), st: F, sev: warning},
	{id: "nic.link-speed", desc: "unknown", base: firecrackerVM, st: S},
	// disk
	{id: "disk.scheduler", desc: "nvme none", st: P},
	{id: "disk.scheduler", desc: "nvme mq-deadline", m: func(f *sysinfo.Facts) { f.Disks.Value[0].Scheduler = "mq-deadline" }, st: F, sev: info},
	{id: "disk.scheduler", desc: "hdd none", m: func(f *sysinfo.Facts) {
		d := &f.Disks.Value[0]
		d.Name, d.Transport, d.Rotational, d.Scheduler = "sda", "scsi", true, "none"
	}, st: F, sev: info},
	{id: "disk.readahead", desc: "SSD 1024", m: func(f *sysinfo.Facts) { f.Disks.Value[0].ReadAheadKB = 1024 }, st: P},
	{id: "disk.readahead", desc: "SSD 1025", m: func(f *sysinfo.Facts) { f.Disks.Value[0].ReadAheadKB = 1025 }, st: F, sev: info},
	{id: "disk.readahead", desc: "HDD 4096", m: func(f *sysinfo.Facts) { f.Disks.Value[0].ReadAheadKB, f.Disks.Value[0].Rotational = 4096, true }, st: P},
	// limits
	{id: "limits.file-nr", desc: "80%", m: sc("fs.file-nr", "800\t0\t1000"), st: P},
	{id: "limits.file-nr", desc: "81%", m: sc("fs.file-nr", "810\t0\t1000"), st: F, sev: critical},
	{id: "limits.pids-cgroup", desc: "unlimited", st: P},
	{id: "limits.pids-cgroup", desc: "threads at 80%", m: func(f *sysinfo.Facts) { f.Cgroup.PidsMax.Value = 250 }, st: P},
	{id: "limits.pids-cgroup", desc: "threads above 80%", m: func(f *sysinfo.Facts) { f.Cgroup.PidsMax.Value = 249 }, st: F, sev: warning},
	// cgroup
	{id: "cgroup.cpu-throttling", desc: "no quota", st: S},
	{id: "cgroup.cpu-throttling", desc: "5%", m: func(f *sysinfo.Facts) {
		f.Cgroup.CPUQuota.Value = 2
		f.Cgroup.Throttled.Value = sysinfo.CPUStat{NrPeriods: 1000, NrThrottled: 50, ThrottledUsec: 2e6}
	}, st: P},
	{id: "cgroup.cpu-throttling", desc: "5.1%", m: func(f *sysinfo.Facts) {
		f.Cgroup.CPUQuota.Value = 2
		f.Cgroup.Throttled.Value = sysinfo.CPUStat{NrPeriods: 1000, NrThrottled: 51, ThrottledUsec: 2e6}
	}, st: F, sev: warning},
	{id: "cgroup.cpu-throttling", desc: "21%", m: func(f *sysinfo.Facts) {
		f.Cgroup.CPUQuota.Value = 2
		f.Cgroup.Throttled.Value = sysinfo.CPUStat{NrPeriods: 1000, NrThrottled: 210, ThrottledUsec: 9e6}
	}, st: F, sev: critical},
	// jvm
	{id: "jvm.heap.xms-xmx", desc: "equal", st: P},
	{id: "jvm.heap.xms-xmx", desc: "2g vs 4g", m: jv(func(j *sysinfo.JVM) { j.Options.XmsBytes = 2 * gib }), st: F, sev: warning},
	{id: "jvm.heap.xms-xmx", desc: "no -Xms", m: jv(func(j *sysinfo.JVM) { j.Options.XmsBytes = 0 }), st: F, sev: warning},
	{id: "jvm.heap.xms-xmx", desc: "no JVM", m: noJVMs, st: S},
	{id: "jvm.heap.xms-xmx", desc: "JVM scan failed", m: func(f *sysinfo.Facts) { f.JVMs = missing[[]sysinfo.JVM]("/proc: permission denied") }, st: U},
	{id: "jvm.heap.no-xmx", desc: "explicit", st: P},
	{id: "jvm.heap.no-xmx", desc: "container without -Xmx", m: all(container(4*gib, 2), jv(func(j *sysinfo.JVM) { j.Options.XmxBytes, j.Options.XmsBytes = 0, 0 })), st: F, sev: warning},
	{id: "jvm.heap.no-xmx", desc: "host without -Xmx", m: jv(func(j *sysinfo.JVM) { j.Options.XmxBytes, j.Options.XmsBytes = 0, 0 }), st: F, sev: info},
	{id: "jvm.heap.no-xmx", desc: "MaxRAMPercentage", m: all(container(4*gib, 2), jv(func(j *sysinfo.JVM) { j.Options.XmxBytes, j.Options.MaxRAMPercentage = 0, 75 })), st: P},
	{id: "jvm.heap.over-limit", desc: "85% of the limit", m: all(container(4*gib, 0), jv(func(j *sysinfo.JVM) { j.Options.XmxBytes = 4 * gib * 85 / 100 })), st: P},
	{id: "jvm.heap.over-limit", desc: "just above 85%", m: all(container(4*gib, 0), jv(func(j *sysinfo.JVM) { j.Options.XmxBytes = 4*gib*85/100 + 1<<20 })), st: F, sev: warning},
	{id: "jvm.heap.over-limit", desc: "equal to the limit", m: container(4*gib, 0), st: F, sev: critical},
	{id: "jvm.heap.over-limit", desc: "host: above MemTotal", m: jv(func(j *sysinfo.JVM) { j.Options.XmxBytes = 300 * gib }), st: F, sev: critical},
	{id: "jvm.heap.over-limit", desc: "host: above available", m: jv(func(j *sysinfo.JVM) { j.Options.XmxBytes = 220 * gib }), st: F, sev: warning},
	{id: "jvm.heap.over-limit", desc: "host: fits", st: P},
	{id: "jvm.gc.serial", desc: "serial just under 2 GiB", m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Options.XmxBytes = "Serial", 2*gib-1<<20 }), st: P},
	{id: "jvm.gc.serial", desc: "serial 2 GiB", m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Options.XmxBytes = "Serial", 2*gib }), st: F, sev: warning},
	{id: "jvm.gc.serial", desc: "ergonomic serial in a 1-CPU container", m: all(container(16*gib, 1), jv(func(j *sysinfo.JVM) { j.Options.GC = "" })), st: F, sev: warning},
	{id: "jvm.gc.serial", desc: "ergonomic G1 with 2 CPUs", m: all(container(16*gib, 2), jv(func(j *sysinfo.JVM) { j.Options.GC = "" })), st: P},
	{id: "jvm.gc.cms", desc: "JDK 17 refuses it", m: jv(func(j *sysinfo.JVM) { j.Options.GC = "CMS" }), st: F, sev: critical},
	{id: "jvm.gc.cms", desc: "JDK 14 ignores it", m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Version = "CMS", "14.0.2" }), st: F, sev: warning},
	{id: "jvm.gc.cms", desc: "version unknown", m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Version, j.JavaHome, j.Exe = "CMS", "", "", "" }), st: U},
	{id: "jvm.gc.cms", desc: "JDK 11", m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Version = "CMS", "11.0.20" }), st: F, sev: info},
	{id: "jvm.gc.cms", desc: "JDK 8", m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Version = "CMS", "1.8.0_392" }), st: P},
	{id: "jvm.gc.cms", desc: "G1", st: P},
	{id: "jvm.gc.parallel-latency", desc: "G1", p: Latency, st: P},
	{id: "jvm.gc.parallel-latency", desc: "JDK 8 default", p: Latency, m: jv(func(j *sysinfo.JVM) { j.Options.GC, j.Version = "", "1.8.0_392" }), st: F, sev: warning},
	{id: "jvm.gc.parallel-latency", desc: "java-web", st: S},
	{id: "jvm.gc.g1-small", desc: "512m", m: jv(func(j *sysinfo.JVM) { j.Options.XmxBytes = 512 << 20 }), st: P},
	{id: "jvm.gc.g1-small", desc: "511m", m: jv(func(j *sysinfo.JVM) { j.Options.XmxBytes = 511 << 20 }), st: F, sev: info},
	{id: "jvm.gc.g1-small", desc: "1 CPU", m: container(0, 1), st: F, sev: info},
	{id: "jvm.gc.logging", desc: "on", st: P},
	{id: "jvm.gc.logging", desc: "off", m: jv(func(j *sysinfo.JVM) { j.Options.GCLogging = false }), st: F, sev: warning},
	{id: "jvm.heapdump-oom", desc: "on", st: P},
	{id: "jvm.heapdump-oom", desc: "off", m: jv(func(j *sysinfo.JVM) { delete(j.Options.Bools, "HeapDumpOnOutOfMemoryError") }), st: F, sev: warning},
	{id: "jvm.thp-flag", desc: "madvise + flag", st: P},
	{id: "jvm.thp-flag", desc: "madvise no flag", m: jv(func(j *sysinfo.JVM) { delete(j.Options.Bools, "UseTransparentHugePages") }), st: F, sev: info},
	{id: "jvm.thp-flag", desc: "never + flag", m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "never" }, st: F, sev: warning},
	{id: "jvm.thp-flag", desc: "never + flag database", p: Database, m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "never" }, st: F, sev: info},
	{id: "jvm.thp-flag", desc: "always + flag", m: func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "always" }, st: F, sev: warning},
	{id: "jvm.thp-flag", desc: "always, no flag", m: all(func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "always" }, jv(func(j *sysinfo.JVM) { delete(j.Options.Bools, "UseTransparentHugePages") })), st: P},
	{id: "jvm.thp-flag", desc: "never, no flag", m: all(func(f *sysinfo.Facts) { f.Memory.THPEnabled.Value = "never" }, jv(func(j *sysinfo.JVM) { delete(j.Options.Bools, "UseTransparentHugePages") })), st: P},
	{id: "jvm.xss-threads", desc: "exactly 25%", m: jv(func(j *sysinfo.JVM) { j.Threads = 65536 }), st: P},
	{id: "jvm.xss-threads", desc: "above 25%", m: jv(func(j *sysinfo.JVM) { j.Threads = 65537 }), st: F, sev: warning},
	{id: "jvm.xss-threads", desc: "big Xss in a container", m: all(container(4*gib, 0), jv(func(j *sysinfo.JVM) { j.Options.XssBytes, j.Threads = 4<<20, 300 })), st: F, sev: warning},
	{id: "jvm.container-awareness", desc: "not in a container", st: S},
	{id: "jvm.container-awareness", desc: "8u191", m: all(container(4*gib, 2), jv(func(j *sysinfo.JVM) { j.Version = "1.8.0_191" })), st: P},
	{id: "jvm.container-awareness", desc: "8u181", m: all(container(4*gib, 2), jv(func(j *sysinfo.JVM) { j.Version = "1.8.0_181" })), st: F, sev: critical},
	{id: "jvm.container-awareness", desc: "8u181 from the path", m: all(container(4*gib, 2), jv(func(j *sysinfo.JVM) {
		j.Version, j.JavaHome, j.Exe = "", "/opt/jdk1.8.0_181", "/opt/jdk1.8.0_181/bin/java"
	})), st: F, sev: critical},
	{id: "jvm.threads.parallel-gc", desc: "no quota", st: S},
	{id: "jvm.threads.parallel-gc", desc: "4 threads, 4 cores", m: all(container(0, 4), jv(func(j *sysinfo.JVM) { j.Options.Values["ParallelGCThreads"] = "4" })), st: P},
	{id: "jvm.threads.parallel-gc", desc: "5 threads, 4 cores", m: all(container(0, 4), jv(func(j *sysinfo.JVM) { j.Options.Values["ParallelGCThreads"] = "5" })), st: F, sev: warning},
	{id: "jvm.threads.parallel-gc", desc: "old JDK sized from host", m: all(container(0, 4), jv(func(j *sysinfo.JVM) { j.Version = "1.8.0_152" })), st: F, sev: warning},
	// The host-sized default of an old JDK that fits the quota is fine: 4 host CPUs, 4-core quota.
	{id: "jvm.threads.parallel-gc", desc: "old JDK, default within quota", m: all(container(0, 4), jv(func(j *sysinfo.JVM) { j.Version = "1.8.0_152" }),
		func(f *sysinfo.Facts) { f.CPU.Online = got(seq(0, 3), "/sys/devices/system/cpu/online") }), st: P},
	{id: "jvm.threads.cicompiler", desc: "4 threads, 4 cores", m: all(container(0, 4), jv(func(j *sysinfo.JVM) { j.Options.Values["CICompilerCount"] = "4" })), st: P},
	{id: "jvm.threads.cicompiler", desc: "5 threads, 4 cores", m: all(container(0, 4), jv(func(j *sysinfo.JVM) { j.Options.Values["CICompilerCount"] = "5" })), st: F, sev: warning},
	{id: "jvm.threads.cicompiler", desc: "old JDK sized from 64 host CPUs", m: all(container(0, 2), jv(func(j *sysinfo.JVM) { j.Version = "1.8.0_152" })), st: F, sev: warning},
	{id: "jvm.numa.bind", desc: "bound to the NIC's node", st: P},
	{id: "jvm.numa.bind", desc: "unbound", m: unbound, st: F, sev: info},
	{id: "jvm.numa.bind", desc: "bound to the other node", m: jv(func(j *sysinfo.JVM) { j.CPUsAllowed, j.MemsAllowed = seq(32, 63), []int{1} }), st: F, sev: info},
	{id: "jvm.numa.bind", desc: "single node", base: firecrackerVM, st: S},
	{id: "jvm.numa.use-numa", desc: "bound", st: P},
	{id: "jvm.numa.use-numa", desc: "unbound G1 17", m: unbound, st: F, sev: info},
	{id: "jvm.numa.use-numa", desc: "unbound with UseNUMA", m: all(unbound, jv(func(j *sysinfo.JVM) { j.Options.Bools["UseNUMA"] = true })), st: P},
	{id: "jvm.numa.use-numa", desc: "unbound G1 on 11", m: all(unbound, jv(func(j *sysinfo.JVM) { j.Version = "11.0.20" })), st: S},
	{id: "jvm.limits.nofile", desc: "65536", st: P},
	{id: "jvm.limits.nofile", desc: "65535", m: jv(func(j *sysinfo.JVM) { j.Limits["Max open files"] = sysinfo.Limit{Soft: 65535, Hard: 65535} }), st: P},
	{id: "jvm.limits.nofile", desc: "65534", m: jv(func(j *sysinfo.JVM) { j.Limits["Max open files"] = sysinfo.Limit{Soft: 65534, Hard: 65535} }), st: F, sev: warning},
	{id: "jvm.limits.nofile", desc: "over 80% used", m: jv(func(j *sysinfo.JVM) { j.OpenFDs = 52429 }), st: F, sev: critical},
	{id: "jvm.limits.nofile", desc: "80% used", m: jv(func(j *sysinfo.JVM) { j.OpenFDs = 52428 }), st: P},
	{id: "jvm.limits.nproc", desc: "unlimited", st: P},
	{id: "jvm.limits.nproc", desc: "4096", m: jv(func(j *sysinfo.JVM) { j.Limits["Max processes"] = sysinfo.Limit{Soft: 4096, Hard: 4096} }), st: P},
	{id: "jvm.limits.nproc", desc: "4095", m: jv(func(j *sysinfo.JVM) { j.Limits["Max processes"] = sysinfo.Limit{Soft: 4095, Hard: -1} }), st: F, sev: warning},
	{id: "jvm.largepages", desc: "not used", st: S},
	{id: "mem.dimm-population", desc: "bare metal", st: U},
	{id: "mem.dimm-population", desc: "VM", base: firecrackerVM, st: S},
	{id: "kernel.log-health", desc: "always manual", st: U},
	{id: "nic.rings", desc: "per NIC", st: U},
	{id: "jvm.largepages", desc: "no reservation", m: jv(func(j *sysinfo.JVM) {
		j.Options.Bools["UseLargePages"], j.Options.Bools["UseTransparentHugePages"] = true, false
	}), st: F, sev: warning},
	{id: "jvm.largepages", desc: "reserved", m: all(mi("HugePages_Total", 2100), jv(func(j *sysinfo.JVM) {
		j.Options.Bools["UseLargePages"], j.Options.Bools["UseTransparentHugePages"] = true, false
	})), st: P},
	{id: "jvm.jdk.bisheng-on-kunpeng", desc: "OpenJDK on Kunpeng", base: kunpeng2s4n, m: jv(func(j *sysinfo.JVM) {
		j.Vendor, j.JavaHome, j.Exe = "Red Hat, Inc.", "/usr/lib/jvm/java-1.8.0", "/usr/lib/jvm/java-1.8.0/bin/java"
	}), st: F, sev: info},
	{id: "jvm.jdk.bisheng-on-kunpeng", desc: "Bisheng on Kunpeng", base: kunpeng2s4n, m: jv(func(j *sysinfo.JVM) { j.Vendor = "Huawei" }), st: P},
	{id: "jvm.jdk.bisheng-on-kunpeng", desc: "x86", st: S},
	{id: "jvm.bisheng.features", desc: "Bisheng, G1, Xms < Xmx", m: jv(func(j *sysinfo.JVM) {
		j.JavaHome, j.Options.XmsBytes = "/opt/bisheng-jdk1.8.0_432", j.Options.XmxBytes-1
	}), st: F, sev: info},
	{id: "jvm.bisheng.features", desc: "Bisheng, Xms == Xmx", m: jv(func(j *sysinfo.JVM) { j.JavaHome = "/opt/bisheng-jdk1.8.0_432" }), st: P},
	{id: "jvm.bisheng.features", desc: "not Bisheng", st: S},
}

// checkFinding asserts the invariants every produced finding must meet.
func checkFinding(t *testing.T, f finding.Finding) {
	t.Helper()
	switch f.Status {
	case finding.Fail:
		if f.Observed.EN == "" || f.Observed.ZH == "" {
			t.Errorf("%s: Fail without bilingual Observed: %+v", f.Key(), f.Observed)
		}
		if f.Recommended.EN == "" || f.Recommended.ZH == "" {
			t.Errorf("%s: Fail without bilingual Recommended: %+v", f.Key(), f.Recommended)
		}
		if len(f.Evidence) == 0 {
			t.Errorf("%s: Fail without evidence", f.Key())
		}
		for _, e := range f.Evidence {
			if e.Key == "" || e.Source == "" {
				t.Errorf("%s: evidence without key or source: %+v", f.Key(), e)
			}
		}
		if (f.Fix.Apply == "") != (f.Fix.Revert == "") {
			t.Errorf("%s: Apply %q but Revert %q", f.Key(), f.Fix.Apply, f.Fix.Revert)
		}
		if strings.Contains(f.Observed.ZH+f.Recommended.ZH, "%!") || strings.Contains(f.Observed.EN+f.Recommended.EN+f.Fix.Apply+f.Fix.Revert, "%!") {
			t.Errorf("%s: bad format verb: %q / %q / %q", f.Key(), f.Observed, f.Recommended, f.Fix.Apply)
		}
	case finding.Unavailable, finding.Skipped:
		if f.Reason.EN == "" || f.Reason.ZH == "" {
			t.Errorf("%s: %s without bilingual Reason: %+v", f.Key(), f.Status, f.Reason)
		}
		if strings.Contains(f.Reason.EN, "internal error") {
			t.Errorf("%s: rule panicked: %s", f.Key(), f.Reason.EN)
		}
		if strings.Contains(f.Reason.EN+f.Reason.ZH, "%!") {
			t.Errorf("%s: bad format verb in reason: %q", f.Key(), f.Reason)
		}
	case finding.Pass:
		if f.Observed.EN == "" || f.Observed.ZH == "" {
			t.Errorf("%s: Pass without bilingual Observed", f.Key())
		}
		if strings.Contains(f.Observed.EN+f.Observed.ZH, "%!") {
			t.Errorf("%s: bad format verb: %q", f.Key(), f.Observed)
		}
	}
}

func TestRuleCases(t *testing.T) {
	for _, c := range cases {
		name := c.id + "/" + c.desc
		t.Run(name, func(t *testing.T) {
			base := c.base
			if base == nil {
				base = healthyHost
			}
			f := base()
			if c.m != nil {
				c.m(f)
			}
			p := c.p
			if p == "" {
				p = JavaWeb
			}
			fs := eval(c.id, p, f)
			if len(fs) == 0 {
				t.Fatal("no finding")
			}
			for _, x := range fs {
				checkFinding(t, x)
			}
			got := fs[0]
			if got.Status != c.st {
				t.Fatalf("status %s, want %s\nobserved: %s\nreason: %s", got.Status, c.st, got.Observed.EN, got.Reason.EN)
			}
			if c.st == finding.Fail && got.Severity != c.sev {
				t.Fatalf("severity %s, want %s (%s)", got.Severity, c.sev, got.Observed.EN)
			}
		})
	}
}

// Every rule has at least one failing and one non-failing case.
func TestEveryRuleHasEdgeCases(t *testing.T) {
	fails, others := map[string]int{}, map[string]int{}
	for _, c := range cases {
		if c.st == finding.Fail {
			fails[c.id]++
		} else {
			others[c.id]++
		}
	}
	real := 0
	for _, r := range All() {
		if manualRuleIDs[r.ID] {
			if others[r.ID] == 0 {
				t.Errorf("%s: no case", r.ID)
			}
			continue
		}
		real++
		if fails[r.ID] == 0 || others[r.ID] == 0 {
			t.Errorf("%s: %d failing and %d non-failing cases; want at least one of each", r.ID, fails[r.ID], others[r.ID])
		}
	}
	if real < 60 {
		t.Errorf("%d real rules, want at least 60", real)
	}
	known := map[string]bool{}
	for _, r := range All() {
		known[r.ID] = true
	}
	for id := range fails {
		if !known[id] {
			t.Errorf("case for unknown rule %s", id)
		}
	}
}
