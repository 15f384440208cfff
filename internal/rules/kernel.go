package rules

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Kernel: clocksource, watchdogs, scheduler knobs, capacity, profiling
// permissions, release, boot command line, tuning agents
// (kernel Documentation/admin-guide/kernel-parameters.txt and
// sysctl/kernel.rst; TuneD profiles and plugins).

func kernelRules() []Rule {
	return []Rule{
		{
			ID: "kernel.clocksource", Category: "kernel", Severity: warning,
			Reads:      []string{"/sys/devices/system/clocksource/clocksource0/current_clocksource"},
			Title:      T("Clock source", "时钟源（clocksource）"),
			Checks:     T("Reads current_clocksource: tsc on x86, arch_sys_counter on ARM, kvm-clock / Hyper-V TSC page in VMs are fast; hpet, acpi_pm and xen are slow.", "读取 current_clocksource：x86 上的 tsc、ARM 上的 arch_sys_counter、虚拟机中的 kvm-clock / Hyper-V TSC page 较快；hpet、acpi_pm、xen 较慢。"),
			Why:        T("JVM time calls (System.nanoTime, currentTimeMillis, log timestamps, GC timing) are hot; on hpet/acpi_pm each call is a slow hardware read (microseconds instead of ~20 ns).", "JVM 的时间调用（System.nanoTime、currentTimeMillis、日志时间戳、GC 计时）非常频繁；hpet/acpi_pm 每次都是慢速硬件读取（微秒级，而 tsc 约 20 ns）。"),
			Risk:       T("Only a source in available_clocksource can be selected; if the kernel dropped TSC as unstable (dmesg 'clocksource tsc unstable'), find out why instead of forcing it.", "只能选择 available_clocksource 中列出的时钟源；若内核因 TSC 不稳定而放弃它（dmesg 中的 clocksource tsc unstable），应先查明原因，不要强制使用。"),
			Workload:   T("All Java services.", "所有 Java 服务。"),
			References: []string{"TuneD network-latency cmdline tsc=reliable", "kernel Documentation/admin-guide/kernel-parameters.txt (clocksource=)"},
			Eval:       evalKernelClocksource,
		},
		{
			ID: "kernel.nmi-watchdog", Category: "kernel", Severity: info, Profiles: []string{string(Latency)},
			Reads:      []string{"/proc/sys/kernel/nmi_watchdog"},
			Title:      T("NMI watchdog on a latency host", "时延敏感主机上的 NMI watchdog"),
			Checks:     T("Reads kernel.nmi_watchdog; the latency profile wants 0 (TuneD network-latency).", "读取 kernel.nmi_watchdog；latency 配置档期望为 0（TuneD network-latency）。"),
			Why:        T("The NMI watchdog fires periodic non-maskable interrupts on every CPU and holds a PMU counter that profilers (perf, async-profiler) could use.", "NMI watchdog 会在每个 CPU 上周期性触发不可屏蔽中断，并占用一个 PMU 计数器，而性能分析工具（perf、async-profiler）也需要它。"),
			Risk:       T("Hard lockups are no longer detected.", "不再检测硬死锁（hard lockup）。"),
			Workload:   T("Latency-critical services; any host during PMU profiling.", "时延敏感服务；以及做 PMU 采样分析期间的任何主机。"),
			References: []string{"TuneD network-latency: kernel.nmi_watchdog=0", "kernel Documentation/admin-guide/lockup-watchdogs.rst"},
			Eval:       simpleSysctl("kernel.nmi_watchdog", func(v int64) bool { return v == 0 }, 0),
		},
		{
			ID: "kernel.timer-migration", Category: "kernel", Severity: info, Profiles: []string{string(Latency)},
			Reads:      []string{"/proc/sys/kernel/timer_migration"},
			Title:      T("Timer migration on a latency host", "时延敏感主机上的定时器迁移"),
			Checks:     T("Reads kernel.timer_migration; the latency profile wants 0 (TuneD network-latency).", "读取 kernel.timer_migration；latency 配置档期望为 0（TuneD network-latency）。"),
			Why:        T("Migrating timers to busy CPUs saves idle power but adds jitter to the CPUs serving requests.", "把定时器迁移到忙碌 CPU 可以省电，但会给处理请求的 CPU 带来抖动。"),
			Risk:       T("Slightly higher idle power.", "空闲功耗略升。"),
			Workload:   T("Latency-critical services.", "时延敏感服务。"),
			References: []string{"TuneD network-latency: kernel.timer_migration=0"},
			Eval:       simpleSysctl("kernel.timer_migration", func(v int64) bool { return v == 0 }, 0),
		},
		{
			ID: "kernel.sched-autogroup", Category: "kernel", Severity: info,
			Reads:      []string{"/proc/sys/kernel/sched_autogroup_enabled"},
			Title:      T("Scheduler autogroup", "调度器自动分组（autogroup）"),
			Checks:     T("Reads kernel.sched_autogroup_enabled and expects 0 on servers.", "读取 kernel.sched_autogroup_enabled，服务器上期望为 0。"),
			Why:        T("Autogroup shares CPU per session, a desktop feature: services started from different sessions get unequal CPU shares regardless of their thread counts.", "autogroup 按会话分配 CPU，是桌面特性：从不同会话启动的服务会得到与线程数无关的不均等 CPU 份额。"),
			Risk:       T("Negligible on servers.", "服务器上可以忽略。"),
			Workload:   T("All servers.", "所有服务器。"),
			References: []string{"TuneD postgresql: kernel.sched_autogroup_enabled=0", "man 7 sched (autogroup)"},
			Eval:       simpleSysctl("kernel.sched_autogroup_enabled", func(v int64) bool { return v == 0 }, 0),
		},
		{
			ID: "kernel.pid-max", Category: "kernel", Severity: info,
			Reads:      []string{"/proc/sys/kernel/pid_max"},
			Title:      T("PID / thread ID space", "PID / 线程号空间"),
			Checks:     T("Compares kernel.pid_max with 1024 per CPU (at least 32768, at most 4194304).", "将 kernel.pid_max 与每 CPU 1024 个（至少 32768，至多 4194304）比较。"),
			Why:        T("Every Java thread takes a PID; on large hosts with many JVMs the default 32768 runs out and thread creation fails.", "每个 Java 线程占用一个 PID；在运行多个 JVM 的大主机上，默认 32768 会耗尽，导致线程创建失败。"),
			Risk:       T("None material.", "无实质风险。"),
			Workload:   T("Hosts with many CPUs or many JVM threads.", "CPU 很多或 JVM 线程很多的主机。"),
			References: []string{"TuneD throughput-performance comment: pid_max = 1024 x CPUs; TuneD openshift kernel.pid_max=>4194304"},
			Eval:       evalKernelPidMax,
		},
		{
			ID: "kernel.threads-max", Category: "kernel", Severity: warning,
			Reads:      []string{"/proc/sys/kernel/threads-max"},
			Title:      T("System-wide thread limit vs JVM threads", "系统线程上限与 JVM 线程数"),
			Checks:     T("Compares kernel.threads-max with twice the threads of all running JVMs.", "比较 kernel.threads-max 与所有 JVM 线程总数的两倍。"),
			Why:        T("Past threads-max, clone() fails and the JVM throws 'unable to create native thread' under load.", "超过 threads-max 后 clone() 失败，JVM 在负载下抛出 unable to create native thread。"),
			Risk:       T("None material.", "无实质风险。"),
			Workload:   T("Thread-heavy Java services.", "线程密集的 Java 服务。"),
			References: []string{"Brendan Gregg USE method: task capacity", "kernel Documentation/admin-guide/sysctl/kernel.rst (threads-max)"},
			Eval:       evalKernelThreadsMax,
		},
		{
			ID: "kernel.perf-event-paranoid", Category: "kernel", Severity: info,
			Reads:      []string{"/proc/sys/kernel/perf_event_paranoid"},
			Title:      T("Profiling permissions", "性能分析权限"),
			Checks:     T("Reads kernel.perf_event_paranoid: above 1 blocks async-profiler's CPU mode and perf for non-root users.", "读取 kernel.perf_event_paranoid：大于 1 时非 root 用户无法使用 async-profiler 的 CPU 模式和 perf。"),
			Why:        T("Flame graphs and lock profiles (async-profiler -e lock) are how real bottlenecks such as logback appender locks and hot SQL logging are found; they need perf events during the diagnosis window.", "logback Appender 锁、SQL 日志热点这类真正的瓶颈要靠火焰图和锁剖析（async-profiler -e lock）发现，诊断期间需要 perf 事件权限。"),
			Risk:       T("Lowering it exposes kernel profiling data to local users: lower it only for the diagnosis window, then revert (no persist).", "调低后本机用户可获取内核性能数据：只在诊断期间临时调低，结束后恢复（不要持久化）。"),
			Workload:   T("Hosts being profiled.", "需要做性能分析的主机。"),
			References: []string{"async-profiler README: perf_event_paranoid", "kernel Documentation/admin-guide/perf-security.rst", "kernel Documentation/admin-guide/sysctl/kernel.rst (perf_event_paranoid)"},
			Eval:       evalKernelPerfEventParanoid,
		},
		{
			ID: "kernel.release", Category: "kernel", Severity: info,
			Reads:      []string{"/proc/sys/kernel/osrelease"},
			Title:      T("Old kernel", "内核版本过旧"),
			Checks:     T("Parses the kernel release and flags kernels older than 4.19.", "解析内核版本，早于 4.19 的判为不通过。"),
			Why:        T("A published comparison measured a Java proxy 30% faster on 4.19 than on 2.6.32 with no other change; 3.10 (CentOS 7) lacks newer networking, cgroup v2, PSI and scheduler work.", "一篇公开的对比实测同一 Java 代理服务在 4.19 内核上比 2.6.32 快近 30%，无需其他改动；3.10（CentOS 7）缺少较新的网络栈、cgroup v2、PSI 和调度器改进。"),
			Risk:       T("A kernel upgrade is a platform change: re-validate drivers and security baselines, and check the new kernel's defaults (THP, mitigations): the same comparison first lost throughput to them.", "升级内核属于平台变更：需要重新验证驱动和安全基线，并核对新内核的默认值（THP、漏洞缓解）：上述对比起初就因此损失了吞吐。"),
			Workload:   T("All services.", "所有服务。"),
			References: []string{"plantegg.github.io 2019-12-24: Linux内核版本升级，性能到底提升多少？拿数据说话 (Java proxy, 2.6.32 vs 4.9 vs 4.19)", "PerfSpect OS/BIOS tables (kernel version)"},
			Eval:       evalKernelRelease,
		},
		{
			ID: "kernel.cmdline.isolation", Category: "kernel", Severity: warning,
			Reads:      []string{"/proc/cmdline"},
			Title:      T("CPU isolation on the kernel command line", "内核启动参数中的 CPU 隔离"),
			Checks:     T("Looks for isolcpus= and nohz_full= in /proc/cmdline.", "检查 /proc/cmdline 中的 isolcpus= 和 nohz_full=。"),
			Why:        T("Isolated CPUs are removed from load balancing: JVM threads (GC workers, JIT, request pools) that land there never move, and the rest share fewer CPUs. Only right when a service is deliberately pinned there.", "被隔离的 CPU 不参与负载均衡：落在上面的 JVM 线程（GC、JIT、请求线程池）不会被迁走，其余线程只能挤在更少的 CPU 上。只有在有意把服务绑定到这些 CPU 时才合理。"),
			Risk:       T("Changes need a reboot; whoever configured isolation may depend on it (DPDK, real-time tasks).", "修改需要重启；配置隔离的一方可能依赖它（DPDK、实时任务）。"),
			Workload:   T("General Java services (latency services pinned to the isolated CPUs are the exception).", "通用 Java 服务（绑定到隔离 CPU 的时延敏感服务除外）。"),
			References: []string{"kernel Documentation/admin-guide/kernel-parameters.txt (isolcpus, nohz_full)", "TuneD cpu-partitioning"},
			Eval:       evalKernelCmdlineIsolation,
		},
		{
			ID: "kernel.cmdline.nohz", Category: "kernel", Severity: info,
			Reads:      []string{"/proc/cmdline"},
			Title:      T("Idle tick (nohz) disabled", "空闲时钟节拍（nohz）被关闭"),
			Checks:     T("Looks for nohz=off in /proc/cmdline.", "检查 /proc/cmdline 中是否有 nohz=off。"),
			Why:        T("With nohz=off every idle CPU still takes the periodic tick, costing power and cache; nohz=on (the default) suits compute-bound services.", "nohz=off 时空闲 CPU 仍会接收周期性时钟中断，浪费功耗和缓存；计算密集场景宜使用 nohz=on（默认值）。"),
			Risk:       T("Reboot needed; idle-to-busy transitions reprogram the timer (slight latency effect).", "需要重启；空闲转忙碌时要重新编程定时器（对时延有轻微影响）。"),
			Workload:   T("Compute-bound, non latency-critical services.", "计算密集、非时延敏感的服务。"),
			References: []string{"kernel Documentation/timers/no_hz.rst", "kernel Documentation/admin-guide/kernel-parameters.txt (nohz=)"},
			Eval:       evalKernelCmdlineNohz,
		},
		{
			ID: "kernel.cmdline.iommu", Category: "kernel", Severity: info, Arch: "aarch64",
			Reads:      []string{"/proc/cmdline"},
			Title:      T("SMMU translation for NIC DMA (Kunpeng)", "网卡 DMA 的 SMMU 地址转换（鲲鹏）"),
			Checks:     T("On bare-metal Kunpeng, looks for iommu.passthrough=1 on the kernel command line.", "在鲲鹏物理机上检查内核启动参数是否有 iommu.passthrough=1。"),
			Why:        T("With the SMMU translating every NIC DMA, small-packet network workloads lose throughput; A-Tune web profiles and the Kunpeng BIOS guide use passthrough on physical hosts.", "SMMU 对每次网卡 DMA 做地址转换，小包网络负载吞吐下降；A-Tune 的 Web 配置和鲲鹏 BIOS 指南在物理机上使用直通（passthrough）。"),
			Risk:       T("Passthrough gives up DMA isolation between devices (a security trade-off) and is incompatible with VFIO device assignment to VMs; needs a reboot.", "直通会放弃设备之间的 DMA 隔离（安全取舍），且与给虚拟机透传设备（VFIO）不兼容；需要重启。"),
			Workload:   T("Network-heavy Java services on bare-metal Kunpeng that do not host VMs.", "不承载虚拟机、网络密集的鲲鹏物理机 Java 服务。"),
			References: []string{"kernel Documentation/admin-guide/kernel-parameters.txt (iommu.passthrough=)", "A-Tune web profiles: iommu.passthrough=1"},
			Eval:       evalKernelCmdlineIommu,
		},
	}
}

// evalKernelClocksource is the rule kernel.clocksource.
func evalKernelClocksource(c *Ctx) []Outcome {
	f := c.F.Clocksource.Current
	if !f.OK {
		return one(unavailableFrom(finding.T("current_clocksource", "当前时钟源（current_clocksource）"), f))
	}
	e := evf("current_clocksource", f)
	good := map[string]bool{"tsc": true, "arch_sys_counter": true, "kvm-clock": true, "hyperv_clocksource_tsc_page": true, "riscv_clocksource": true}
	if good[f.Value] {
		return one(pass(Tf("clocksource %s", "时钟源 %s", f.Value), e))
	}
	want := "tsc"
	if c.F.Kernel.Arch.OK && c.F.Kernel.Arch.Value == "aarch64" {
		want = "arch_sys_counter"
	}
	avail := c.F.Clocksource.Available
	cands := []string{want}
	if want == "tsc" {
		cands = append(cands, "kvm-clock", "hyperv_clocksource_tsc_page")
	}
	has := false
	if avail.OK {
	search:
		for _, w := range cands {
			for _, a := range avail.Value {
				if a == w {
					want, has = w, true
					break search
				}
			}
		}
	}
	obs := Tf("clocksource %s", "时钟源为 %s", f.Value)
	if !has {
		evs := []finding.Evidence{e}
		if avail.OK {
			evs = append(evs, ev("available_clocksource", strings.Join(avail.Value, " "), avail.Source))
		}
		return one(advice(obs, Tf("%s is not available: check dmesg for 'clocksource ... unstable' and the BIOS/hypervisor TSC settings", "%s 不可用：检查 dmesg 中的 clocksource ... unstable 以及 BIOS/虚拟化平台的 TSC 设置", want), evs...))
	}
	p := "/sys/devices/system/clocksource/clocksource0/current_clocksource"
	fx := echoFix(p, want, f.Value)
	fx.Persist = fmt.Sprintf("grubby --update-kernel=ALL --args=\"clocksource=%s\"", want)
	return one(fail(obs, Tf("clocksource %s", "时钟源设为 %s", want), fx, e, ev("available_clocksource", strings.Join(avail.Value, " "), avail.Source)))
}

// evalKernelPidMax is the rule kernel.pid-max.
func evalKernelPidMax(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "kernel.pid_max")
	if bad != nil {
		return one(*bad)
	}
	cpus := onlineCPUs(c)
	want := int64(1024 * cpus)
	if want < 32768 {
		want = 32768
	}
	if want > 4194304 {
		want = 4194304
	}
	obs := Tf("pid_max %d for %d CPUs", "pid_max 为 %d，CPU %d 个", v, cpus)
	if v >= want {
		return one(pass(obs, e))
	}
	return one(fail(obs, T("kernel.pid_max = 4194304", "kernel.pid_max = 4194304"), sysctlFix1("kernel.pid_max", 4194304, v), e))
}

// evalKernelThreadsMax is the rule kernel.threads-max.
func evalKernelThreadsMax(c *Ctx) []Outcome {
	js, o := jvms(c)
	if o != nil {
		return one(*o)
	}
	v, e, bad := sysctlInt(c, "kernel.threads-max")
	if bad != nil {
		return one(*bad)
	}
	threads := 0
	for _, j := range js {
		threads += j.Threads
	}
	obs := Tf("threads-max %d; JVM threads %d", "threads-max 为 %d；JVM 线程共 %d 个", v, threads)
	if int64(threads)*2 <= v {
		return one(pass(obs, e))
	}
	want := int64(threads) * 4
	return one(fail(obs, Tf("kernel.threads-max = %d", "kernel.threads-max = %d", want), sysctlFix1("kernel.threads-max", want, v), e))
}

// evalKernelPerfEventParanoid is the rule kernel.perf-event-paranoid.
func evalKernelPerfEventParanoid(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "kernel.perf_event_paranoid")
	if bad != nil {
		return one(*bad)
	}
	if v <= 1 {
		return one(pass(Tf("perf_event_paranoid = %d", "perf_event_paranoid = %d", v), e))
	}
	fx := sysctlFix1("kernel.perf_event_paranoid", 1, v)
	fx.Persist = ""
	return one(fail(Tf("perf_event_paranoid = %d: non-root profilers cannot sample the CPU", "perf_event_paranoid = %d：非 root 的分析工具无法采样 CPU", v),
		T("kernel.perf_event_paranoid = 1 during the diagnosis window only", "仅在诊断期间设为 kernel.perf_event_paranoid = 1"), fx, e))
}

// evalKernelRelease is the rule kernel.release.
func evalKernelRelease(c *Ctx) []Outcome {
	r := c.F.Kernel.Release
	if !r.OK {
		return one(unavailableFrom(finding.T("kernel release", "内核版本"), r))
	}
	a, b, ok := kernelVersion(r.Value)
	if !ok {
		return one(unavailable(finding.T("kernel release", "内核版本"), finding.Tf(finding.T("cannot parse %q", "无法解析 %q"), r.Value)))
	}
	e := evf("osrelease", r)
	if a > 4 || (a == 4 && b >= 19) {
		return one(pass(Tf("kernel %s", "内核 %s", r.Value), e))
	}
	return one(advice(Tf("kernel %s is older than 4.19", "内核 %s 早于 4.19", r.Value),
		T("plan a move to a 4.19+ / 5.10+ distribution kernel (openEuler 22.03, RHEL 8/9, Kylin V10) and re-run the load test", "规划升级到 4.19+/5.10+ 的发行版内核（openEuler 22.03、RHEL 8/9、麒麟 V10），并重新压测"), e))
}

// evalKernelCmdlineIsolation is the rule kernel.cmdline.isolation.
func evalKernelCmdlineIsolation(c *Ctx) []Outcome {
	if !c.F.Kernel.Cmdline.OK {
		return one(unavailableFrom(same("/proc/cmdline"), c.F.Kernel.Cmdline))
	}
	var names, vals []string
	for _, k := range []string{"isolcpus", "nohz_full"} {
		if v, ok := cmdlineArg(c, k); ok {
			names = append(names, k)
			vals = append(vals, k+"="+v)
		}
	}
	if len(names) == 0 {
		return one(pass(T("no isolcpus / nohz_full", "未设置 isolcpus / nohz_full"), ev("cmdline", "no isolcpus/nohz_full", orDefault(c.F.Kernel.Cmdline.Source, "/proc/cmdline"))))
	}
	e := ev("cmdline", strings.Join(vals, " "), orDefault(c.F.Kernel.Cmdline.Source, "/proc/cmdline"))
	o := fail(Tf("CPU isolation on the command line: %s", "启动参数设置了 CPU 隔离：%s", strings.Join(vals, " ")),
		T("remove the isolation unless a service is pinned to those CPUs on purpose", "除非有服务有意绑定到这些 CPU，否则删除隔离参数"),
		grubbyRemove(strings.Join(names, " "), strings.Join(vals, " ")), e)
	if c.Profile == Latency {
		o = o.WithSeverity(info)
	}
	return one(o)
}

// evalKernelCmdlineNohz is the rule kernel.cmdline.nohz.
func evalKernelCmdlineNohz(c *Ctx) []Outcome {
	if !c.F.Kernel.Cmdline.OK {
		return one(unavailableFrom(same("/proc/cmdline"), c.F.Kernel.Cmdline))
	}
	v, ok := cmdlineArg(c, "nohz")
	if !ok || v != "off" {
		return one(pass(T("nohz not disabled", "nohz 未被关闭"), ev("cmdline nohz", orDefault(v, "(default on)"), orDefault(c.F.Kernel.Cmdline.Source, "/proc/cmdline"))))
	}
	return one(fail(T("nohz=off on the kernel command line", "内核启动参数带有 nohz=off"), T("remove nohz=off (default nohz=on)", "删除 nohz=off（默认 nohz=on）"),
		grubbyRemove("nohz", "nohz=off"), cmdlineEv(c, "nohz=off")))
}

// evalKernelCmdlineIommu is the rule kernel.cmdline.iommu.
func evalKernelCmdlineIommu(c *Ctx) []Outcome {
	if !c.F.CPU.Kunpeng {
		return one(skip(T("not a Kunpeng CPU", "不是鲲鹏 CPU")))
	}
	if vm, known := isVM(c); !known || vm {
		return one(skip(T("not bare metal (or unknown): the SMMU belongs to the host", "非物理机（或无法确定）：SMMU 由宿主机管理")))
	}
	if !c.F.Kernel.Cmdline.OK {
		return one(unavailableFrom(same("/proc/cmdline"), c.F.Kernel.Cmdline))
	}
	v, ok := cmdlineArg(c, "iommu.passthrough")
	e := ev("cmdline iommu.passthrough", orDefault(v, "(absent)"), orDefault(c.F.Kernel.Cmdline.Source, "/proc/cmdline"))
	if ok && (v == "1" || v == "on" || v == "y") {
		return one(pass(T("iommu.passthrough=1", "iommu.passthrough=1"), e))
	}
	return one(fail(T("NIC DMA goes through SMMU translation (no iommu.passthrough=1)", "网卡 DMA 经过 SMMU 转换（未设置 iommu.passthrough=1）"),
		T("iommu.passthrough=1 if this host assigns no devices to VMs and the security baseline allows it; measure before and after", "若本机不向虚拟机透传设备且安全基线允许，设置 iommu.passthrough=1；前后各压测一次"),
		grubbyAdd("iommu.passthrough=1", "iommu.passthrough"), e))
}

// simpleSysctl passes when ok(value), else fails recommending want and
// reverting to the observed value.
func simpleSysctl(key string, ok func(int64) bool, want int64) func(*Ctx) []Outcome {
	return func(c *Ctx) []Outcome {
		v, e, bad := sysctlInt(c, key)
		if bad != nil {
			return one(*bad)
		}
		if ok(v) {
			return one(pass(Tf("%s = %d", "%s = %d", key, v), e))
		}
		return one(fail(Tf("%s = %d", "%s 当前为 %d", key, v), Tf("%s = %d", "%s = %d", key, want), sysctlFix1(key, want, v), e))
	}
}

func tuningRules() []Rule {
	return []Rule{
		{
			ID: "tuning.profile", Category: "tuning", Severity: warning,
			Reads:      []string{"/etc/tuned/active_profile"},
			Title:      T("TuneD profile", "TuneD 配置档"),
			Checks:     T("Reads /etc/tuned/active_profile and fails on power-saving profiles (balanced, powersave, desktop, laptop-*).", "读取 /etc/tuned/active_profile，节能类配置档（balanced、powersave、desktop、laptop-*）不通过。"),
			Why:        T("TuneD re-applies its profile at boot and on switch: a balanced or powersave profile silently undoes governor, EPP and sysctl tuning. A carrier's load test on Kunpeng measured +6% throughput after switching to network-throughput.", "TuneD 开机和切换时会重新应用配置档：balanced 或 powersave 会悄悄撤销调频策略、EPP 和 sysctl 调优。某运营商在鲲鹏上压测，切换到 network-throughput 后吞吐提升 6%。"),
			Risk:       T("The new profile changes several knobs at once (network-latency also sets THP never); review `tuned-adm profile_info` first.", "新配置档会同时修改多个参数（network-latency 还会把 THP 设为 never）；先用 `tuned-adm profile_info` 查看。"),
			Workload:   T("Hosts managed by TuneD.", "由 TuneD 管理的主机。"),
			References: []string{"man 8 tuned-adm", "man 7 tuned-profiles (throughput-performance, network-throughput, balanced, powersave)"},
			Eval:       evalTuningProfile,
		},
		{
			ID: "tuning.agents", Category: "tuning", Severity: warning,
			Reads:      []string{"/proc/PID/comm"},
			Title:      T("Competing tuning agents", "多个调优代理互相冲突"),
			Checks:     T("Looks for more than one tuning daemon (tuned, atuned) running at once.", "检查是否同时运行多个调优守护进程（tuned、atuned）。"),
			Why:        T("Two agents owning the same knobs (governor, sysctls, IRQ affinity) silently revert each other's settings, so measured results are not reproducible.", "两个代理管理相同参数（调频、sysctl、中断亲和性）时会互相悄悄覆盖，压测结果无法复现。"),
			Risk:       T("Stopping an agent can drop the tunings it applied; decide which one owns the host first.", "停止某个代理可能会撤销它做过的调优；先确定由谁负责本机。"),
			Workload:   T("All hosts.", "所有主机。"),
			References: []string{"TuneD reapply_sysctl (#409, #816)", "A-Tune basic-test-suite stops tuned"},
			Eval:       evalTuningAgents,
		},
	}
}

// evalTuningProfile is the rule tuning.profile.
func evalTuningProfile(c *Ctx) []Outcome {
	f := c.F.Tuned.ActiveProfile
	if !f.OK {
		if notPresent(f.Err) {
			return one(skip(T("TuneD is not installed or has no active profile", "未安装 TuneD 或没有激活的配置档")))
		}
		return one(unavailableFrom(finding.T("TuneD active profile", "TuneD 当前配置档"), f))
	}
	e := evf("active_profile", f)
	p := strings.TrimSpace(f.Value)
	bad := p == "balanced" || p == "powersave" || p == "desktop" || p == "server-powersave" || strings.HasPrefix(p, "laptop") || p == "desktop-powersave"
	if vm, known := isVM(c); known && !vm && strings.HasPrefix(p, "virtual-guest") {
		fx := finding.Fix{Apply: "tuned-adm profile throughput-performance", Revert: "tuned-adm profile " + p, Note: T("TuneD stores the profile in /etc/tuned/active_profile and applies it again at boot.", "TuneD 把配置档记录在 /etc/tuned/active_profile，开机时自动重新应用。")}
		return one(fail(Tf("TuneD profile %s on bare metal", "物理机上使用 TuneD 配置档 %s", p),
			T("tuned-adm profile throughput-performance (virtual-guest is meant for VMs: dirty 30%, swappiness 30)", "tuned-adm profile throughput-performance（virtual-guest 面向虚拟机：dirty 30%、swappiness 30）"), fx, e).WithSeverity(info))
	}
	if !bad {
		return one(pass(Tf("TuneD profile %s", "TuneD 配置档 %s", p), e))
	}
	want := "throughput-performance"
	switch {
	case c.Profile == Latency:
		want = "latency-performance"
	case c.F.CPU.Hypervisor.OK && c.F.CPU.Hypervisor.Value != "":
		want = "virtual-guest"
	case c.Profile == JavaWeb:
		want = "network-throughput"
	}
	fx := finding.Fix{Apply: "tuned-adm profile " + want, Revert: "tuned-adm profile " + p, Note: T("TuneD stores the profile in /etc/tuned/active_profile and applies it again at boot.", "TuneD 把配置档记录在 /etc/tuned/active_profile，开机时自动重新应用。")}
	return one(fail(Tf("TuneD profile %s favours power saving", "TuneD 配置档 %s 偏向节能", p), Tf("tuned-adm profile %s", "tuned-adm profile %s", want), fx, e))
}

// evalTuningAgents is the rule tuning.agents.
func evalTuningAgents(c *Ctx) []Outcome {
	d := c.F.Daemons
	if !d.OK {
		return one(unavailableFrom(finding.T("running daemons (/proc/[pid]/comm)", "运行中的守护进程（/proc/[pid]/comm）"), d))
	}
	var found []string
	for _, n := range d.Value {
		if n == "tuned" || n == "atuned" {
			found = append(found, n)
		}
	}
	e := ev("daemons", strings.Join(d.Value, " "), orDefault(d.Source, "/proc/[pid]/comm"))
	if len(found) < 2 {
		return one(pass(Tf("tuning agents running: %s", "运行中的调优代理：%s", orDefault(strings.Join(found, ", "), "none")), e))
	}
	return one(advice(Tf("several tuning agents run at once: %s", "同时运行多个调优代理：%s", strings.Join(found, ", ")),
		T("keep one owner: e.g. `systemctl disable --now atuned` when TuneD manages the host, or the reverse", "只保留一个：例如由 TuneD 管理时执行 `systemctl disable --now atuned`，反之亦然"), e))
}
