package rules

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Small constructors for synthetic Facts. healthyHost is a bare-metal
// 2-socket x86 host, tuned as the knowledge base recommends for java-web,
// running one well-configured JVM bound to node 0; tests change one thing
// at a time.

func got[T any](v T, src string) sysinfo.Field[T] { return sysinfo.Got(v, src) }

func missing[T any](err string) sysinfo.Field[T] { return sysinfo.Field[T]{Err: err} }

func seq(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func boolp(b bool) *bool { return &b }
func intp(i int) *int    { return &i }

func setSysctl(f *sysinfo.Facts, key string, val any) {
	if f.Sysctl == nil {
		f.Sysctl = map[string]sysinfo.Field[string]{}
	}
	f.Sysctl[key] = got(fmt.Sprint(val), sysctlPath(key))
}

func dropSysctl(f *sysinfo.Facts, key, err string) {
	f.Sysctl[key] = missing[string](err)
}

func setMeminfo(f *sysinfo.Facts, key string, v int64) { f.Memory.Meminfo.Value[key] = v }

func setArgs(f *sysinfo.Facts, cmdline string) {
	f.Kernel.Cmdline = got(cmdline, "/proc/cmdline")
	f.Kernel.Args = map[string]string{}
	for _, a := range strings.Fields(cmdline) {
		k, v, _ := strings.Cut(a, "=")
		f.Kernel.Args[k] = v
	}
}

const gib = int64(1) << 30

// healthyJVM is a JDK 17 G1 JVM with equal heap bounds, logs, dumps and THP.
func healthyJVM(pid int) sysinfo.JVM {
	return sysinfo.JVM{
		PID: pid, User: "app", UID: 1000, Exe: "/usr/lib/jvm/java-17-openjdk/bin/java", JavaHome: "/usr/lib/jvm/java-17-openjdk",
		Version: "17.0.9", Args: []string{"java", "-Xms4g", "-Xmx4g", "-XX:+UseG1GC"}, MainClass: "app.jar",
		Threads: 200, RSSKB: 5 << 20,
		Limits: map[string]sysinfo.Limit{
			"Max open files": {Soft: 65536, Hard: 65536, Unit: "files"},
			"Max processes":  {Soft: -1, Hard: -1, Unit: "processes"},
		},
		OpenFDs: 300, CPUsAllowed: seq(0, 31), MemsAllowed: []int{0},
		Options: jvmopts.Options{
			XmsBytes: 4 * gib, XmxBytes: 4 * gib, GC: "G1", GCLogging: true,
			Bools:  map[string]bool{"HeapDumpOnOutOfMemoryError": true, "UseTransparentHugePages": true},
			Values: map[string]string{}, Props: map[string]string{},
		},
	}
}

func spreadIRQs(first, n int, cpus []int, ncpu int) []sysinfo.IRQ {
	var irqs []sysinfo.IRQ
	for i := 0; i < n; i++ {
		counts := make([]uint64, ncpu)
		cpu := cpus[i%len(cpus)]
		counts[cpu] = 1000
		irqs = append(irqs, sysinfo.IRQ{Number: first + i, Name: fmt.Sprintf("eth0-TxRx-%d", i), Chip: "PCI-MSI",
			Counts: counts, Total: 1000, Affinity: []int{cpu}, Effective: []int{cpu}})
	}
	return irqs
}

func healthyHost() *sysinfo.Facts {
	f := &sysinfo.Facts{SchemaVersion: sysinfo.SchemaVersion, Hostname: got("app01", "/proc/sys/kernel/hostname")}
	f.Kernel.Release = got("5.10.0-182.0.0.95.oe2203sp3.x86_64", "/proc/sys/kernel/osrelease")
	f.Kernel.Arch = got("x86_64", "/proc/sys/kernel/arch")
	setArgs(f, "BOOT_IMAGE=/vmlinuz root=/dev/mapper/root ro quiet")
	f.OS.ID = got("openEuler", "/etc/os-release")

	f.CPU.Vendor = got("GenuineIntel", "/proc/cpuinfo")
	f.CPU.Model = got("Intel(R) Xeon(R) Gold 6248", "/proc/cpuinfo")
	f.CPU.Logical = got(64, "/proc/cpuinfo")
	f.CPU.Online = got(seq(0, 63), "/sys/devices/system/cpu/online")
	f.CPU.Sockets = got(2, "/sys/devices/system/cpu/cpu*/topology/physical_package_id")
	f.CPU.Cores = got(32, "/sys/devices/system/cpu/cpu*/topology/core_id")
	f.CPU.ThreadsPerCore = got(2, "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
	f.CPU.SMTActive = got(true, "/sys/devices/system/cpu/smt/active")
	f.CPU.Cpufreq = got(sysinfo.Cpufreq{Driver: "intel_pstate", Governors: map[string]int{"performance": 64},
		Available: []string{"performance", "powersave"}, Boost: boolp(true), EPP: map[string]int{"performance": 64}, MinPerfPct: intp(100)},
		"/sys/devices/system/cpu/cpu0/cpufreq")
	f.CPU.Cpuidle = got(sysinfo.Cpuidle{Driver: "intel_idle", Governor: "menu", States: []sysinfo.IdleState{
		{Name: "POLL", LatencyUS: 0}, {Name: "C1", LatencyUS: 2}, {Name: "C1E", LatencyUS: 10}, {Name: "C6", LatencyUS: 170, Disabled: true}}},
		"/sys/devices/system/cpu/cpuidle")
	f.CPU.Vulnerabilities = got(map[string]string{"meltdown": "Not affected", "spectre_v2": "Mitigation: Enhanced IBRS", "mds": "Not affected"},
		"/sys/devices/system/cpu/vulnerabilities")
	f.CPU.Hypervisor = got("", "/proc/cpuinfo")
	f.CPU.StealPct = got(0.0, "/proc/stat")

	f.NUMA.Nodes = got([]sysinfo.Node{
		{ID: 0, CPUs: seq(0, 31), MemTotalKB: 128 << 20, MemFreeKB: 100 << 20, Distances: []int{10, 21}},
		{ID: 1, CPUs: seq(32, 63), MemTotalKB: 128 << 20, MemFreeKB: 90 << 20, Distances: []int{21, 10}},
	}, "/sys/devices/system/node")

	f.Memory.Meminfo = got(map[string]int64{"MemTotal": 256 << 20, "MemAvailable": 200 << 20, "SwapTotal": 0, "SwapFree": 0,
		"HugePages_Total": 0, "HugePages_Free": 0, "Hugepagesize": 2048}, "/proc/meminfo")
	f.Memory.THPEnabled = got("madvise", thpEnabledPath)
	f.Memory.THPDefrag = got("madvise", thpDefragPath)
	f.Memory.Swaps = got([]sysinfo.Swap{}, "/proc/swaps")

	for k, v := range map[string]any{
		"vm.swappiness": 10, "vm.min_free_kbytes": 112640, "vm.dirty_ratio": 20, "vm.dirty_background_ratio": 10,
		"vm.dirty_bytes": 0, "vm.dirty_background_bytes": 0, "vm.zone_reclaim_mode": 0, "vm.max_map_count": 262144,
		"vm.overcommit_memory": 0, "vm.nr_hugepages": 0, "kernel.numa_balancing": 0, "kernel.sched_autogroup_enabled": 0,
		"kernel.nmi_watchdog": 0, "kernel.timer_migration": 0, "kernel.perf_event_paranoid": 1, "kernel.kptr_restrict": 0,
		"kernel.threads-max": 2000000, "kernel.pid_max": 4194304, "fs.file-max": 9223372036854775807, "fs.nr_open": 1048576,
		"fs.file-nr": "3000\t0\t9223372036854775807", "net.core.somaxconn": 4096, "net.core.netdev_max_backlog": 1000,
		"net.core.netdev_budget": 300, "net.core.rmem_max": 212992, "net.core.wmem_max": 212992,
		"net.core.rps_sock_flow_entries": 0, "net.core.busy_read": 0, "net.core.busy_poll": 0,
		"net.ipv4.tcp_max_syn_backlog": 4096, "net.ipv4.tcp_syncookies": 1, "net.ipv4.ip_local_port_range": "32768\t60999",
		"net.ipv4.tcp_tw_reuse": 2, "net.ipv4.tcp_fin_timeout": 60, "net.ipv4.tcp_timestamps": 1,
		"net.ipv4.tcp_slow_start_after_idle": 0, "net.ipv4.tcp_keepalive_time": 600,
		"net.netfilter.nf_conntrack_max": 262144, "net.netfilter.nf_conntrack_count": 1000,
	} {
		setSysctl(f, k, v)
	}
	dropSysctl(f, "net.ipv4.tcp_tw_recycle", "/proc/sys/net/ipv4/tcp_tw_recycle: not present")

	f.Cgroup.Version = got("v2", "/proc/self/mountinfo")
	f.Cgroup.Path = got("/system.slice/app.service", "/proc/self/cgroup")
	f.Cgroup.CPUQuota = got(0.0, "/sys/fs/cgroup/system.slice/app.service/cpu.max")
	f.Cgroup.CPUPeriodUS = got(int64(100000), "/sys/fs/cgroup/system.slice/app.service/cpu.max")
	f.Cgroup.Throttled = got(sysinfo.CPUStat{}, "/sys/fs/cgroup/system.slice/app.service/cpu.stat")
	f.Cgroup.CPUSet = got(seq(0, 63), "/sys/fs/cgroup/system.slice/app.service/cpuset.cpus.effective")
	f.Cgroup.MemoryLimit = got(int64(0), "/sys/fs/cgroup/system.slice/app.service/memory.max")
	f.Cgroup.PidsMax = got(int64(0), "/sys/fs/cgroup/system.slice/app.service/pids.max")

	rps := make([]sysinfo.RPSQueue, 16)
	for i := range rps {
		rps[i] = sysinfo.RPSQueue{Queue: fmt.Sprintf("rx-%d", i)}
	}
	f.NICs = got([]sysinfo.NIC{
		{Name: "lo", Virtual: true, Loopback: true, OperState: "unknown", SpeedMbps: -1, MTU: 65536, NUMANode: -1},
		{Name: "eth0", Driver: "ixgbe", OperState: "up", SpeedMbps: 10000, MTU: 9000, NUMANode: 0, PCI: "0000:3b:00.0",
			RxQueues: 16, TxQueues: 16, Combined: 16, MaxCombined: 16, RPS: rps, IRQs: spreadIRQs(100, 16, seq(1, 16), 64)},
	}, "/sys/class/net")
	f.IRQBalance = got(true, "/proc/[pid]/comm")
	f.Softnet = got(sysinfo.Softnet{Processed: 1000000}, "/proc/net/softnet_stat")
	f.Disks = got([]sysinfo.Disk{
		{Name: "nvme0n1", Scheduler: "none", Schedulers: []string{"none", "mq-deadline", "kyber"}, ReadAheadKB: 128, NrRequests: 1023, Transport: "nvme", NUMANode: 0},
		{Name: "loop0", Virtual: true, Scheduler: "none", Schedulers: []string{"none"}, ReadAheadKB: 128},
	}, "/sys/block")
	f.Tuned.ActiveProfile = got("throughput-performance", "/etc/tuned/active_profile")
	f.Tuned.Running = got(true, "/proc/[pid]/comm")
	f.Security.SELinux = got("enforcing", "/sys/fs/selinux/enforce")
	f.Security.Audit = got("on", "/proc/cmdline")
	f.Security.AuditdRunning = got(true, "/proc/[pid]/comm")
	f.Clocksource.Current = got("tsc", "/sys/devices/system/clocksource/clocksource0/current_clocksource")
	f.Clocksource.Available = got([]string{"tsc", "hpet", "acpi_pm"}, "/sys/devices/system/clocksource/clocksource0/available_clocksource")
	f.JVMs = got([]sysinfo.JVM{healthyJVM(1234)}, "/proc")
	f.Daemons = got([]string{"irqbalance", "tuned", "auditd"}, "/proc/[pid]/comm")
	return f
}

// jvm0 is the first JVM of f, for mutation.
func jvm0(f *sysinfo.Facts) *sysinfo.JVM { return &f.JVMs.Value[0] }

// nic0 is the first physical NIC of f, for mutation.
func nic0(f *sysinfo.Facts) *sysinfo.NIC {
	for i := range f.NICs.Value {
		if !f.NICs.Value[i].Virtual {
			return &f.NICs.Value[i]
		}
	}
	panic("no physical NIC")
}

// kunpeng2s4n is a 2-socket Kunpeng 920 (128 cores, 4 NUMA nodes) with a
// single-queue hinic NIC whose only IRQ sits on CPU 0, irqbalance stopped,
// and one unbound JDK 8 JVM: the case the knowledge base must get right.
func kunpeng2s4n() *sysinfo.Facts {
	f := healthyHost()
	f.Kernel.Release = got("4.19.90-2112.8.0.0131.oe1.aarch64", "/proc/sys/kernel/osrelease")
	f.Kernel.Arch = got("aarch64", "/proc/sys/kernel/arch")
	f.CPU.Vendor = got("HiSilicon", "/proc/cpuinfo")
	f.CPU.Model = got("Kunpeng 920 (TaiShan v110)", "/proc/cpuinfo")
	f.CPU.Implementer, f.CPU.Part, f.CPU.Kunpeng = "0x48", "0xd01", true
	f.CPU.Logical = got(128, "/proc/cpuinfo")
	f.CPU.Online = got(seq(0, 127), "/sys/devices/system/cpu/online")
	f.CPU.Cores = got(128, "/sys/devices/system/cpu/cpu*/topology/core_id")
	f.CPU.ThreadsPerCore = got(1, "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
	f.CPU.SMTActive = missing[bool]("/sys/devices/system/cpu/smt/active: not present")
	f.CPU.Cpufreq = got(sysinfo.Cpufreq{Driver: "cppc_cpufreq", Governors: map[string]int{"performance": 128}, Available: []string{"performance", "schedutil"}},
		"/sys/devices/system/cpu/cpu0/cpufreq")
	f.Clocksource.Current = got("arch_sys_counter", "/sys/devices/system/clocksource/clocksource0/current_clocksource")
	f.Clocksource.Available = got([]string{"arch_sys_counter"}, "/sys/devices/system/clocksource/clocksource0/available_clocksource")
	var nodes []sysinfo.Node
	for i := 0; i < 4; i++ {
		nodes = append(nodes, sysinfo.Node{ID: i, CPUs: seq(32*i, 32*i+31), MemTotalKB: 128 << 20, MemFreeKB: 100 << 20, Distances: []int{10, 12, 20, 22}})
	}
	f.NUMA.Nodes = got(nodes, "/sys/devices/system/node")
	setSysctl(f, "kernel.numa_balancing", 1)
	counts := make([]uint64, 128)
	counts[0] = 987654
	f.NICs = got([]sysinfo.NIC{
		{Name: "lo", Virtual: true, Loopback: true, OperState: "unknown", SpeedMbps: -1, MTU: 65536, NUMANode: -1},
		{Name: "enp125s0f0", Driver: "hinic", OperState: "up", SpeedMbps: 10000, MTU: 1500, NUMANode: 0, PCI: "0000:7d:00.0",
			RxQueues: 1, TxQueues: 1, Combined: 1, MaxCombined: 16, RPS: []sysinfo.RPSQueue{{Queue: "rx-0"}},
			IRQs: []sysinfo.IRQ{{Number: 57, Name: "hinic0_queue0", Chip: "ITS-MSI", Counts: counts, Total: 987654, Affinity: []int{0}, Effective: []int{0}}}},
	}, "/sys/class/net")
	f.IRQBalance = got(false, "/proc/[pid]/comm")
	f.Daemons = got([]string{"tuned", "auditd"}, "/proc/[pid]/comm")
	j := healthyJVM(4321)
	j.Version, j.JavaHome, j.Exe = "1.8.0_342", "/opt/bisheng-jdk1.8.0_342", "/opt/bisheng-jdk1.8.0_342/bin/java"
	j.CPUsAllowed, j.MemsAllowed = seq(0, 127), []int{0, 1, 2, 3}
	j.Options.GC = "Parallel"
	j.Options.Bools = map[string]bool{}
	j.Options.GCLogging = false
	j.Options.XmsBytes = 2 * gib
	j.Options.XmxBytes = 16 * gib
	f.JVMs = got([]sysinfo.JVM{j}, "/proc")
	return f
}

// firecrackerVM is the 2-vCPU build VM: KVM guest, no cpufreq, THP madvise, no swap.
func firecrackerVM() *sysinfo.Facts {
	f := healthyHost()
	f.CPU.Vendor = got("AuthenticAMD", "/proc/cpuinfo")
	f.CPU.Logical = got(2, "/proc/cpuinfo")
	f.CPU.Online = got(seq(0, 1), "/sys/devices/system/cpu/online")
	f.CPU.Sockets = got(1, "/sys/devices/system/cpu/cpu*/topology/physical_package_id")
	f.CPU.Hypervisor = got("KVM", "/proc/cpuinfo")
	f.CPU.StealPct = got(0.3, "/proc/stat")
	f.CPU.Cpufreq = missing[sysinfo.Cpufreq]("/sys/devices/system/cpu/cpu0/cpufreq: not present")
	f.CPU.Cpuidle = missing[sysinfo.Cpuidle]("/sys/devices/system/cpu/cpuidle/current_driver: not present")
	f.NUMA.Nodes = got([]sysinfo.Node{{ID: 0, CPUs: seq(0, 1), MemTotalKB: 8 << 20, MemFreeKB: 6 << 20, Distances: []int{10}}}, "/sys/devices/system/node")
	f.Memory.Meminfo = got(map[string]int64{"MemTotal": 8 << 20, "MemAvailable": 6 << 20, "SwapTotal": 0, "SwapFree": 0,
		"HugePages_Total": 0, "HugePages_Free": 0, "Hugepagesize": 2048}, "/proc/meminfo")
	f.NICs = got([]sysinfo.NIC{{Name: "eth0", Driver: "virtio_net", OperState: "up", SpeedMbps: -1, MTU: 1500, NUMANode: -1, RxQueues: 1, TxQueues: 1,
		RPS: []sysinfo.RPSQueue{{Queue: "rx-0"}}}}, "/sys/class/net")
	f.Disks = got([]sysinfo.Disk{{Name: "vda", Scheduler: "none", Schedulers: []string{"none", "mq-deadline"}, ReadAheadKB: 128, Transport: "virtio", NUMANode: -1}}, "/sys/block")
	f.JVMs = got([]sysinfo.JVM{}, "/proc")
	f.Tuned.ActiveProfile = missing[string]("/etc/tuned/active_profile: not present")
	return f
}

// eval runs one rule by ID.
func eval(id string, p Profile, f *sysinfo.Facts) []finding.Finding {
	for _, r := range All() {
		if r.ID == id {
			return Evaluate([]Rule{r}, f, p)
		}
	}
	panic("no rule " + id)
}
