// Package sysinfo gathers static host facts (CPU, NUMA, memory, kernel,
// sysctls, cgroups, NICs and their IRQs, disks, running JVMs) from /proc,
// /sys and /etc under configurable roots (see hostfs).
//
// Collect never fails as a whole: every fact is a Field that is either OK
// with the path it was read from, or carries the reason it is unavailable.
// Rules (package rules) are pure functions of Facts; Facts also go into a run
// manifest as JSON, so a run analyses the same on another machine.
package sysinfo

import (
	"errors"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// SchemaVersion of the Facts JSON; bump on incompatible change.
const SchemaVersion = 1

// Field is one fact: its value, where it was read, or why it could not be.
// Rules must check OK before using Value.
type Field[T any] struct {
	Value  T      `json:"value"`
	OK     bool   `json:"ok"`
	Source string `json:"source,omitempty"`   // host path (/proc/..., /sys/...) or "derived: ..."
	Err    string `json:"error,omitempty"`    // why it is unavailable ("/sys/...: not present")
	ErrZH  string `json:"error_zh,omitempty"` // Err in Chinese, when it differs
}

// Why is why the Field is unavailable, in both languages (empty when it
// is not). Facts saved before error_zh have the system's words and
// hostfs's said in Chinese at least.
func (f Field[T]) Why() finding.Text {
	if f.Err == "" {
		return finding.Text{}
	}
	zh := f.ErrZH
	if zh == "" {
		zh = hostfs.LocalizeText(finding.Localize(errors.New(f.Err), finding.ZH), finding.ZH)
	}
	return finding.T(f.Err, zh)
}

// AsErr is Why as an error; nil when the Field is available.
func (f Field[T]) AsErr() error {
	if f.Err == "" {
		return nil
	}
	return &finding.Error{Msg: f.Why()}
}

// Got builds an available Field.
func Got[T any](v T, source string) Field[T] { return Field[T]{Value: v, OK: true, Source: source} }

// Missing builds an unavailable Field from a read or parse error.
func Missing[T any](err error) Field[T] {
	if err == nil {
		err = finding.Errorf(finding.T("unavailable", "不可用"))
	}
	f := Field[T]{Err: err.Error()}
	if zh := finding.Localize(err, finding.ZH); zh != f.Err {
		f.ErrZH = zh
	}
	return f
}

// Facts is everything `tuneloop check` knows about a host.
type Facts struct {
	SchemaVersion int       `json:"schema_version"`
	CollectedAt   time.Time `json:"collected_at"`
	// Live is true when read from the running host (not a fixture tree).
	Live     bool          `json:"live"`
	Hostname Field[string] `json:"hostname"` // /proc/sys/kernel/hostname
	// MachineID tells hosts apart that share a name, kernel and CPU model
	// (a fleet of VMs from one image): /etc/machine-id hashed for this
	// application (machineID), never the ID itself.
	MachineID Field[string] `json:"machine_id"`

	Kernel      Kernel                   `json:"kernel"`
	OS          OS                       `json:"os"`
	CPU         CPU                      `json:"cpu"`
	NUMA        NUMA                     `json:"numa"`
	Memory      Memory                   `json:"memory"`
	Sysctl      map[string]Field[string] `json:"sysctl"` // key: dotted name, e.g. "vm.swappiness"
	Cgroup      Cgroup                   `json:"cgroup"`
	NICs        Field[[]NIC]             `json:"nics"`
	IRQBalance  Field[bool]              `json:"irqbalance_running"` // scan of /proc/[pid]/comm
	Disks       Field[[]Disk]            `json:"disks"`
	Tuned       Tuned                    `json:"tuned"`
	Security    Security                 `json:"security"`
	Clocksource Clocksource              `json:"clocksource"`
	JVMs        Field[[]JVM]             `json:"jvms"`
	// Daemons lists interesting running processes by comm name (irqbalance,
	// tuned, atuned, auditd, ...), from /proc/[pid]/comm (a fixture's own
	// proc/PID/comm files when reading a captured tree).
	Daemons Field[[]string] `json:"daemons"`
	// Softnet sums /proc/net/softnet_stat over all CPUs (hex columns):
	// processed (col 1), dropped (col 2: netdev_max_backlog overflow),
	// time_squeeze (col 3: netdev_budget / netdev_budget_usecs exhausted).
	Softnet Field[Softnet] `json:"softnet"`
}

// Kernel is the running kernel and how it was booted.
type Kernel struct {
	Release Field[string] `json:"release"` // /proc/sys/kernel/osrelease, e.g. "5.10.0-182.0.0.95.oe2203sp3.aarch64"
	Version Field[string] `json:"version"` // /proc/version (whole line)
	// Arch from /proc/sys/kernel/arch (5.x+), else inferred from /proc/cpuinfo
	// and the release suffix: "x86_64" or "aarch64".
	Arch    Field[string] `json:"arch"`
	Cmdline Field[string] `json:"cmdline"` // /proc/cmdline
	// Args is Cmdline split into key -> value ("" for bare flags like "quiet");
	// later duplicates win, as in the kernel.
	Args map[string]string `json:"args,omitempty"`
}

// OS is the distribution, from /etc/os-release.
type OS struct {
	ID         Field[string] `json:"id"`          // ID=openEuler
	VersionID  Field[string] `json:"version_id"`  // VERSION_ID="22.03"
	PrettyName Field[string] `json:"pretty_name"` // PRETTY_NAME="openEuler 22.03 (LTS-SP3)"
}

// CPU describes processors, topology and power management.
type CPU struct {
	// Vendor: "GenuineIntel", "AuthenticAMD", "HiSilicon", "ARM", "Ampere", ...
	// (ARM vendors are named from the implementer code).
	Vendor Field[string] `json:"vendor"` // /proc/cpuinfo vendor_id or CPU implementer
	// Model is the human name: "Intel(R) Xeon(R) Gold 6248 ...", or for ARM
	// the core named from implementer+part, e.g. "Kunpeng 920 (TaiShan v110)".
	Model Field[string] `json:"model"`
	// Implementer and Part are the ARM MIDR codes ("0x48", "0xd01"); empty on x86.
	Implementer string   `json:"implementer,omitempty"`
	Part        string   `json:"part,omitempty"`
	Kunpeng     bool     `json:"kunpeng"`         // implementer 0x48 (HiSilicon) server core
	Flags       []string `json:"flags,omitempty"` // x86 "flags" / ARM "Features" of cpu0

	Logical        Field[int]   `json:"logical"`          // processors listed in /proc/cpuinfo
	Online         Field[[]int] `json:"online"`           // /sys/devices/system/cpu/online
	Sockets        Field[int]   `json:"sockets"`          // distinct topology/physical_package_id
	Cores          Field[int]   `json:"cores"`            // distinct (package, core_id) pairs
	ThreadsPerCore Field[int]   `json:"threads_per_core"` // from topology/thread_siblings_list
	SMTActive      Field[bool]  `json:"smt_active"`       // /sys/devices/system/cpu/smt/active

	// Cpufreq is unavailable when /sys/devices/system/cpu/cpu0/cpufreq is
	// absent (typical in VMs, or firmware-owned P-states).
	Cpufreq Field[Cpufreq] `json:"cpufreq"`
	Cpuidle Field[Cpuidle] `json:"cpuidle"`
	// Vulnerabilities: file name -> content, /sys/devices/system/cpu/vulnerabilities/*.
	Vulnerabilities Field[map[string]string] `json:"vulnerabilities"`

	// Hypervisor: "" on bare metal (OK with empty Value), else "KVM",
	// "VMware", "Xen", "Microsoft", "Firecracker"..., "unknown" when only the
	// cpuinfo "hypervisor" flag says so. From that flag, /sys/hypervisor/type,
	// /sys/class/dmi/id/{sys_vendor,product_name}, the ACPI DSDT OEM ID and /proc/cmdline.
	Hypervisor Field[string] `json:"hypervisor"`
	// StealPct is steal time as % of all CPU time since boot (/proc/stat cpu line).
	StealPct Field[float64] `json:"steal_pct"`
}

// Cpufreq is frequency scaling state.
type Cpufreq struct {
	Driver string `json:"driver"` // cpu0 scaling_driver: intel_pstate, acpi-cpufreq, cppc_cpufreq, amd-pstate-epp
	// Governors counts CPUs per governor, e.g. {"powersave": 94, "performance": 2}.
	Governors map[string]int `json:"governors"`
	Available []string       `json:"available"` // cpu0 scaling_available_governors
	// Boost: intel_pstate/no_turbo==0 or cpufreq/boost==1; nil when not exposed.
	Boost *bool `json:"boost,omitempty"`
	// EPP per policy value counts (energy_performance_preference), when exposed.
	EPP        map[string]int `json:"epp,omitempty"`
	MinPerfPct *int           `json:"min_perf_pct,omitempty"` // intel_pstate/min_perf_pct
}

// Cpuidle is idle-state (C-state) configuration.
type Cpuidle struct {
	Driver   string      `json:"driver"`   // /sys/devices/system/cpu/cpuidle/current_driver
	Governor string      `json:"governor"` // current_governor (or current_governor_ro)
	States   []IdleState `json:"states"`   // cpu0's states
}

// IdleState is one cpuidle state of cpu0.
type IdleState struct {
	Name      string `json:"name"`       // C1, C6, WFI ...
	LatencyUS int    `json:"latency_us"` // exit latency
	Disabled  bool   `json:"disabled"`
}

// NUMA is the memory topology.
type NUMA struct {
	// Nodes from /sys/devices/system/node/node*; a host without that tree is
	// reported as unavailable, not as one node.
	Nodes Field[[]Node] `json:"nodes"`
}

// Node is one NUMA node.
type Node struct {
	ID         int   `json:"id"`
	CPUs       []int `json:"cpus"`         // nodeN/cpulist
	MemTotalKB int64 `json:"mem_total_kb"` // nodeN/meminfo "Node N MemTotal"
	MemFreeKB  int64 `json:"mem_free_kb"`
	Distances  []int `json:"distances"` // nodeN/distance
}

// Memory is /proc/meminfo and THP state (sysctls live in Facts.Sysctl).
type Memory struct {
	// Meminfo in kB (HugePages_* are counts), keyed as in the file:
	// MemTotal, MemAvailable, SwapTotal, SwapFree, AnonHugePages,
	// HugePages_Total, HugePages_Free, Hugepagesize, ...
	Meminfo Field[map[string]int64] `json:"meminfo"`
	// THP modes are the bracketed choice: "always", "madvise", "never"
	// (defrag also "defer", "defer+madvise").
	THPEnabled Field[string] `json:"thp_enabled"` // /sys/kernel/mm/transparent_hugepage/enabled
	THPDefrag  Field[string] `json:"thp_defrag"`  // .../defrag
	// Swaps lists active swap areas (/proc/swaps), empty when none.
	Swaps Field[[]Swap] `json:"swaps"`
}

// Swap is one /proc/swaps line.
type Swap struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	SizeKB   int64  `json:"size_kb"`
	UsedKB   int64  `json:"used_kb"`
	Priority int    `json:"priority"`
}

// SysctlKeys are read into Facts.Sysctl from /proc/sys/<key with . -> />.
var SysctlKeys = []string{
	"vm.swappiness", "vm.min_free_kbytes", "vm.dirty_ratio", "vm.dirty_background_ratio",
	"vm.dirty_bytes", "vm.dirty_background_bytes", "vm.dirty_expire_centisecs",
	"vm.zone_reclaim_mode", "vm.max_map_count", "vm.overcommit_memory", "vm.nr_hugepages",
	"kernel.numa_balancing", "kernel.sched_autogroup_enabled", "kernel.nmi_watchdog",
	"kernel.timer_migration", "kernel.perf_event_paranoid", "kernel.kptr_restrict",
	"kernel.threads-max", "kernel.pid_max",
	"fs.file-max", "fs.nr_open", "fs.file-nr",
	"net.core.somaxconn", "net.core.netdev_max_backlog", "net.core.netdev_budget",
	"net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default", "net.core.wmem_default",
	"net.core.rps_sock_flow_entries", "net.core.busy_read", "net.core.busy_poll",
	"net.ipv4.tcp_max_syn_backlog", "net.ipv4.tcp_syncookies", "net.ipv4.ip_local_port_range",
	"net.ipv4.tcp_tw_reuse", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_max_tw_buckets",
	"net.ipv4.tcp_timestamps", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_mem",
	"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_tw_recycle",
	"net.ipv4.tcp_fastopen", "net.ipv4.tcp_notsent_lowat", "net.ipv4.tcp_congestion_control",
	"net.netfilter.nf_conntrack_max", "net.netfilter.nf_conntrack_count",
}

// Cgroup is the resource limits of the context tuneloop runs in
// (/proc/self/cgroup, /proc/self/mountinfo, /sys/fs/cgroup/...). For a
// fixture tree "self" is whatever the fixture's proc/self holds.
type Cgroup struct {
	// Version: "v1", "v2" or "hybrid" (v1 controllers with a v2 unified mount).
	Version Field[string] `json:"version"`
	Path    Field[string] `json:"path"` // the cpu controller's path for self, e.g. "/kubepods/pod.../..."
	// CPUQuota is the effective CPU limit in cores (quota/period: v2 cpu.max,
	// v1 cpu.cfs_quota_us/cpu.cfs_period_us), OK with Value 0 when unlimited.
	CPUQuota    Field[float64] `json:"cpu_quota"`
	CPUPeriodUS Field[int64]   `json:"cpu_period_us"`
	// Throttled from cpu.stat: nr_periods, nr_throttled, throttled_usec (v1 throttled_time ns -> us).
	Throttled Field[CPUStat] `json:"cpu_stat"`
	// CPUSet is the cpuset's effective CPUs (cpuset.cpus.effective / cpuset.cpus).
	CPUSet Field[[]int] `json:"cpuset"`
	// MemoryLimit in bytes (v2 memory.max, v1 memory.limit_in_bytes); OK with 0 when unlimited.
	MemoryLimit Field[int64] `json:"memory_limit"`
	PidsMax     Field[int64] `json:"pids_max"` // 0 when "max"
}

// CPUStat is CFS bandwidth throttling since the cgroup was created.
type CPUStat struct {
	NrPeriods     int64 `json:"nr_periods"`
	NrThrottled   int64 `json:"nr_throttled"`
	ThrottledUsec int64 `json:"throttled_usec"`
}

// NIC is one network interface from /sys/class/net/NAME.
type NIC struct {
	Name      string `json:"name"`
	Driver    string `json:"driver,omitempty"` // basename of device/driver link; "" for virtual
	Virtual   bool   `json:"virtual"`          // no device link (lo, veth, bridge, bond, tun)
	Loopback  bool   `json:"loopback"`
	OperState string `json:"operstate"`  // up, down, unknown
	SpeedMbps int    `json:"speed_mbps"` // speed; -1 when unknown/down
	MTU       int    `json:"mtu"`
	NUMANode  int    `json:"numa_node"`     // device/numa_node; -1 when none
	PCI       string `json:"pci,omitempty"` // PCI address from the device link
	RxQueues  int    `json:"rx_queues"`     // count of queues/rx-*
	TxQueues  int    `json:"tx_queues"`     // count of queues/tx-*
	// Combined channels from the ethtool ioctl (live host, root or not);
	// 0 when unknown. MaxCombined is the hardware maximum.
	Combined    int `json:"combined,omitempty"`
	MaxCombined int `json:"max_combined,omitempty"`
	// RPS per rx queue: CPU list from rx-N/rps_cpus (hex mask), and rps_flow_cnt.
	RPS []RPSQueue `json:"rps,omitempty"`
	// IRQs of this NIC: from device/msi_irqs (numbers) joined with
	// /proc/interrupts (names, per-CPU counts) and /proc/irq/N/smp_affinity_list.
	// Falls back to /proc/interrupts names containing the interface or driver name.
	IRQs []IRQ `json:"irqs,omitempty"`
}

// RPSQueue is the receive packet steering setting of one rx queue.
type RPSQueue struct {
	Queue   string `json:"queue"` // rx-0
	CPUs    []int  `json:"cpus"`  // empty = RPS off
	FlowCnt int    `json:"flow_cnt"`
}

// IRQ is one interrupt line and where it may run.
type IRQ struct {
	Number int      `json:"number"`
	Name   string   `json:"name"`           // last column of /proc/interrupts, e.g. "eth0-TxRx-3", "hinic0_queue1"
	Chip   string   `json:"chip,omitempty"` // e.g. "PCI-MSI", "ITS-MSI"
	Counts []uint64 `json:"counts"`         // per CPU, in /proc/interrupts column order
	// CPUs numbers the columns of Counts when they are not CPU 0, 1, 2 ...
	// (a CPU offline: the header skips it).
	CPUs  []int  `json:"cpus,omitempty"`
	Total uint64 `json:"total"`
	// Affinity from /proc/irq/N/smp_affinity_list; Effective from
	// effective_affinity_list when present (the CPUs the IRQ actually hits).
	Affinity  []int `json:"affinity"`
	Effective []int `json:"effective,omitempty"`
}

// Disk is one block device from /sys/block/NAME.
type Disk struct {
	Name        string   `json:"name"`
	Virtual     bool     `json:"virtual"`             // loop, ram, zram, dm-, md, nbd
	Rotational  bool     `json:"rotational"`          // queue/rotational
	Scheduler   string   `json:"scheduler"`           // bracketed choice of queue/scheduler ("none" ok)
	Schedulers  []string `json:"schedulers"`          // all choices
	ReadAheadKB int      `json:"read_ahead_kb"`       // queue/read_ahead_kb
	NrRequests  int      `json:"nr_requests"`         // queue/nr_requests
	QueueDepth  int      `json:"queue_depth"`         // device/queue_depth (SCSI/SATA); 0 when absent
	SizeBytes   int64    `json:"size_bytes"`          // size (512-byte sectors) * 512
	Model       string   `json:"model,omitempty"`     // device/model
	Transport   string   `json:"transport,omitempty"` // nvme, scsi, virtio, mmc, ...
	NUMANode    int      `json:"numa_node"`           // -1 when none
}

// Tuned is TuneD / A-Tune state.
type Tuned struct {
	ActiveProfile Field[string] `json:"active_profile"` // /etc/tuned/active_profile
	Running       Field[bool]   `json:"running"`        // a "tuned" process (live host)
}

// Security is SELinux and audit state.
type Security struct {
	// SELinux: "enforcing", "permissive", "disabled" from /sys/fs/selinux/enforce
	// and the cmdline (selinux=0 / enforcing=0); "absent" when not built in.
	SELinux Field[string] `json:"selinux"`
	// Audit: "on" or "off" from cmdline audit=; plus whether auditd runs.
	Audit         Field[string] `json:"audit"`
	AuditdRunning Field[bool]   `json:"auditd_running"`
}

// Clocksource is the kernel time source.
type Clocksource struct {
	Current   Field[string]   `json:"current"`   // /sys/devices/system/clocksource/clocksource0/current_clocksource
	Available Field[[]string] `json:"available"` // available_clocksource
}

// JVM is one running Java process.
type JVM struct {
	PID      int    `json:"pid"`
	User     string `json:"user"` // name from /etc/passwd, else the uid
	UID      int    `json:"uid"`
	Exe      string `json:"exe,omitempty"` // /proc/PID/exe target; "" without permission
	JavaHome string `json:"java_home,omitempty"`
	// Version from JAVA_HOME/release JAVA_VERSION, else guessed from the path
	// (".../jdk1.8.0_292/...", ".../java-17-openjdk..."); "" when unknown.
	Version string `json:"version,omitempty"`
	// VersionFrom says where Version was read: "JAVA_HOME/release" or
	// "install path" (jvmopts.SourceRelease / SourcePath); "" when unknown.
	VersionFrom string   `json:"version_from,omitempty"`
	Vendor      string   `json:"vendor,omitempty"` // release IMPLEMENTOR (e.g. "Huawei" for Bisheng)
	Args        []string `json:"args"`             // /proc/PID/cmdline split on NUL
	MainClass   string   `json:"main,omitempty"`   // main class or -jar file
	Threads     int      `json:"threads"`          // /proc/PID/status Threads
	RSSKB       int64    `json:"rss_kb"`           // VmRSS
	// Limits from /proc/PID/limits: "Max open files" -> {soft, hard} (-1 = unlimited).
	Limits      map[string]Limit `json:"limits,omitempty"`
	OpenFDs     int              `json:"open_fds"`               // entries of /proc/PID/fd; -1 without permission
	CPUsAllowed []int            `json:"cpus_allowed,omitempty"` // /proc/PID/status Cpus_allowed_list
	MemsAllowed []int            `json:"mems_allowed,omitempty"` // Mems_allowed_list
	// Cgroup limits of the JVM's own cgroup, when readable.
	CPUQuota    float64 `json:"cpu_quota,omitempty"`    // cores; 0 = none
	MemoryLimit int64   `json:"memory_limit,omitempty"` // bytes; 0 = none
	// Options is Args parsed by package jvmopts, with the options of
	// JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and _JAVA_OPTIONS from
	// /proc/PID/environ when readable (Options.FromEnv names them).
	Options jvmopts.Options `json:"options"`
}

// Limit is one soft/hard resource limit of /proc/PID/limits, as
// sample.ParseLimits reads it; -1 (sample.Unlimited) means unlimited.
type Limit = sample.Limit

// Softnet is /proc/net/softnet_stat summed over CPUs.
type Softnet struct {
	Processed   uint64 `json:"processed"`
	Dropped     uint64 `json:"dropped"`
	TimeSqueeze uint64 `json:"time_squeeze"`
}
