package rules

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Frequency scaling and idle states (kernel Documentation/admin-guide/pm/; TuneD,
// PerfSpect insights).

const governorGlob = "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"

// noCpufreq explains a missing cpufreq tree: in a VM the hypervisor owns
// frequency (Skipped); on bare metal the firmware does, or no driver is
// loaded (Unavailable, with what to check).
func noCpufreq(c *Ctx, f sysinfo.Field[sysinfo.Cpufreq]) Outcome {
	vm, known := isVM(c)
	switch {
	case known && vm:
		return skip(Tf("no cpufreq in this VM (%s): CPU frequency is controlled by the hypervisor host, not by the guest (%s)",
			"虚拟机（%s）内没有 cpufreq：CPU 频率由宿主机/虚拟化层控制，客户机无法调整（%s）", c.F.CPU.Hypervisor.Value, f.Why()))
	case known && !vm:
		return unavailableBecause(Tf("cpufreq is not exposed (%s): firmware-controlled frequency (check the BIOS power policy, e.g. Kunpeng: Advanced > Performance Config > Power Policy = Performance) or no cpufreq driver loaded (`lsmod | grep cpufreq`)",
			"未暴露 cpufreq（%s）：频率由固件控制（请检查 BIOS 电源策略，鲲鹏：Advanced > Performance Config > Power Policy 设为 Performance），或未加载 cpufreq 驱动（`lsmod | grep cpufreq`）", f.Why()))
	}
	return unavailableBecause(Tf("cpufreq is not exposed (%s): a VM or firmware-controlled frequency; nothing to tune from the OS",
		"未暴露 cpufreq（%s）：可能是虚拟机，或频率由固件控制，操作系统侧无法调整", f.Why()))
}

func powerRules() []Rule {
	return []Rule{
		{
			ID: "cpu.governor", Category: "cpu", Severity: warning,
			Reads:    []string{"/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"},
			Title:    T("CPU frequency governor", "CPU 调频策略（governor）"),
			Checks:   T("Counts the scaling_governor of every CPU and expects performance on all of them.", "统计每个 CPU 的 scaling_governor，期望全部为 performance。"),
			Why:      T("Non-performance governors ramp the clock up only after load appears, so bursty request traffic runs on slow cores and p99 latency suffers.", "非 performance 策略要等负载出现后才升频，突发请求会先跑在低频核上，拉高 p99 时延。"),
			Risk:     T("Higher idle power and heat; no effect where firmware owns P-states.", "空闲功耗和发热增加；若频率由固件控制则不起作用。"),
			Workload: T("All Java services; required for latency-critical ones (critical under the latency profile).", "所有 Java 服务；对时延敏感服务是必选项（latency 配置档下为严重）。"),
			References: []string{"TuneD throughput-performance / latency-performance: governor=performance",
				"PerfSpect insight #7", "kernel Documentation/admin-guide/pm/cpufreq.rst"},
			Eval: evalCpuGovernor,
		},
		{
			ID: "cpu.driver", Category: "cpu", Severity: info,
			Reads:      []string{"/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver"},
			Title:      T("CPU frequency driver", "CPU 调频驱动"),
			Checks:     T("Looks at scaling_driver: intel_pstate on Intel, amd-pstate on AMD, cppc_cpufreq on ARM.", "检查 scaling_driver：Intel 应为 intel_pstate，AMD 应为 amd-pstate，ARM 一般为 cppc_cpufreq。"),
			Why:        T("The legacy acpi-cpufreq driver cannot use hardware P-states (HWP/CPPC) and energy-performance preferences, so frequency reacts slower to load.", "老的 acpi-cpufreq 驱动无法使用硬件 P-state（HWP/CPPC）和能效偏好，频率响应负载更慢。"),
			Risk:       T("Changing the driver needs a kernel command-line change and a reboot.", "更换驱动需要修改内核启动参数并重启。"),
			Workload:   T("All services on bare metal.", "物理机上的所有服务。"),
			References: []string{"PerfSpect insight #8", "kernel Documentation/admin-guide/pm/intel_pstate.rst", "kernel Documentation/admin-guide/pm/amd-pstate.rst"},
			Eval:       evalCpuDriver,
		},
		{
			ID: "cpu.boost", Category: "cpu", Severity: warning,
			Reads:      []string{"/sys/devices/system/cpu/intel_pstate/no_turbo"},
			Title:      T("Turbo / boost", "睿频（Turbo/Boost）"),
			Checks:     T("Reads intel_pstate/no_turbo or cpufreq/boost and expects boost enabled.", "读取 intel_pstate/no_turbo 或 cpufreq/boost，期望睿频开启。"),
			Why:        T("Boost raises single-thread speed, which request paths and GC pauses depend on.", "睿频提升单线程性能，请求处理路径和 GC 停顿都依赖单核速度。"),
			Risk:       T("More run-to-run variance in benchmarks; thermal and power limits.", "压测结果波动变大；受散热和功耗限制。"),
			Workload:   T("All Java services.", "所有 Java 服务。"),
			References: []string{"PerfSpect insight #2", "TuneD *-performance: boost=1"},
			Eval:       evalCpuBoost,
		},
		{
			ID: "cpu.epp", Category: "cpu", Severity: warning,
			Reads:      []string{"/sys/devices/system/cpu/cpufreq/policy*/energy_performance_preference"},
			Title:      T("Energy performance preference (EPP)", "能效性能偏好（EPP）"),
			Checks:     T("Counts energy_performance_preference per policy; power-saving preferences fail (anything but performance under the latency profile).", "统计各 policy 的 energy_performance_preference；节能偏好判为不通过（latency 配置档下只接受 performance）。"),
			Why:        T("With HWP/CPPC the hardware picks the frequency; a power-biased preference keeps lightly loaded request cores slow.", "启用 HWP/CPPC 时由硬件选频，偏节能的设置会让轻载的请求处理核一直跑在低频。"),
			Risk:       T("Higher power draw.", "功耗上升。"),
			Workload:   T("All Java services on bare metal.", "物理机上的所有 Java 服务。"),
			References: []string{"PerfSpect insight #10", "TuneD throughput-performance: energy_performance_preference=performance"},
			Eval:       evalCpuEpp,
		},
		{
			ID: "cpu.min-perf-pct", Category: "cpu", Severity: info, Profiles: []string{string(Latency)},
			Reads:      []string{"/sys/devices/system/cpu/intel_pstate/min_perf_pct"},
			Title:      T("intel_pstate minimum performance", "intel_pstate 最低性能百分比"),
			Checks:     T("Reads intel_pstate/min_perf_pct and expects 100 for latency-critical services.", "读取 intel_pstate/min_perf_pct，时延敏感服务期望为 100。"),
			Why:        T("Removing the low P-states means a core never has to ramp up when a request arrives.", "去掉低 P-state 后，请求到来时 CPU 无需再升频。"),
			Risk:       T("Higher idle power.", "空闲功耗上升。"),
			Workload:   T("Latency-critical Java services on Intel.", "Intel 平台上的时延敏感 Java 服务。"),
			References: []string{"TuneD latency-performance: min_perf_pct=100"},
			Eval:       evalCpuMinPerfPct,
		},
		{
			ID: "cpu.cstates", Category: "cpu", Severity: warning, Profiles: []string{string(Latency)},
			Reads:      []string{"/sys/devices/system/cpu/cpu0/cpuidle/state*/{name,latency,disable}"},
			Title:      T("Deep C-states for latency-critical services", "时延敏感服务的深度 C-state"),
			Checks:     T("Lists cpu0's enabled idle states and flags those with an exit latency above 10 µs.", "列出 cpu0 已启用的空闲状态，退出时延超过 10 µs 的判为不通过。"),
			Why:        T("Waking a core from a deep C-state (C6: ~100 µs) adds that latency to the first request that lands on it.", "从深度 C-state（如 C6，约 100 µs）唤醒的时间会直接加到落在该核上的第一个请求上。"),
			Risk:       T("Higher idle power; fewer idle cores can lower turbo headroom.", "空闲功耗上升；空闲核变少可能降低睿频余量。"),
			Workload:   T("Latency-critical services only; throughput services should keep C-states.", "仅限时延敏感服务；吞吐型服务应保留 C-state。"),
			References: []string{"TuneD latency-performance: force_latency=cstate.id_no_zero:1|3", "kernel Documentation/admin-guide/pm/cpuidle.rst"},
			Eval:       evalCpuCstates,
		},
	}
}

// evalCpuGovernor is the rule cpu.governor.
func evalCpuGovernor(c *Ctx) []Outcome {
	f := c.F.CPU.Cpufreq
	if !f.OK {
		return one(noCpufreq(c, f))
	}
	g := f.Value.Governors
	if len(g) == 0 {
		return one(unavailable(same("scaling_governor"), finding.T("no governor values read", "未读取到调频策略（governor）")))
	}
	e := ev("scaling_governor", countsString(g), governorGlob)
	total, perf := 0, g["performance"]
	for _, n := range g {
		total += n
	}
	if perf == total {
		return one(pass(Tf("all %d CPUs use the performance governor", "全部 %d 个 CPU 均为 performance", total), e))
	}
	was := majority(g)
	if was == "performance" {
		for k := range g {
			if k != "performance" {
				was = k
			}
		}
	}
	fix := finding.Fix{
		Apply:   fmt.Sprintf("for f in %s; do echo performance > $f; done", governorGlob),
		Revert:  fmt.Sprintf("for f in %s; do echo %s > $f; done   # before: %s", governorGlob, was, countsString(g)),
		Persist: "tuned-adm profile throughput-performance",
		Changes: []finding.Change{sysfsChange(governorGlob, "performance")},
		Note: T("Governor writes are lost on reboot. TuneD's throughput-performance (or latency-performance) sets it at boot; without TuneD run `cpupower frequency-set -g performance` from a boot-time unit.",
			"调速器设置重启后丢失。TuneD 的 throughput-performance（或 latency-performance）会在开机时设置；未使用 TuneD 时由开机单元执行 `cpupower frequency-set -g performance`。"),
	}
	o := fail(Tf("%d of %d CPUs are not on performance (%s)", "%d/%d 个 CPU 不是 performance（%s）", total-perf, total, countsString(g)),
		T("performance on every CPU", "所有 CPU 使用 performance"), fix, e)
	if c.Profile == Latency {
		o = o.WithSeverity(critical)
	}
	return one(o)
}

// evalCpuDriver is the rule cpu.driver.
func evalCpuDriver(c *Ctx) []Outcome {
	f := c.F.CPU.Cpufreq
	if !f.OK {
		return one(noCpufreq(c, f))
	}
	d := f.Value.Driver
	e := ev("scaling_driver", d, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver")
	vendor := ""
	if c.F.CPU.Vendor.OK {
		vendor = c.F.CPU.Vendor.Value
	}
	if d != "acpi-cpufreq" {
		return one(pass(Tf("driver %s", "驱动 %s", d), e))
	}
	switch vendor {
	case "GenuineIntel":
		if v, ok := cmdlineArg(c, "intel_pstate"); ok && v == "disable" {
			return one(fail(T("acpi-cpufreq on an Intel CPU because intel_pstate=disable is on the kernel command line", "Intel CPU 使用 acpi-cpufreq，原因是内核参数带有 intel_pstate=disable"),
				T("intel_pstate (active, HWP): remove intel_pstate=disable", "使用 intel_pstate（active 模式，HWP）：删除 intel_pstate=disable"),
				grubbyRemove("intel_pstate", "intel_pstate=disable"), e, cmdlineEv(c, "intel_pstate=disable")))
		}
		return one(advice(T("acpi-cpufreq on an Intel CPU: HWP is probably disabled in the BIOS", "Intel CPU 使用 acpi-cpufreq：BIOS 中可能关闭了 HWP"),
			T("enable HWP / \"OS control of P-states\" in the BIOS so intel_pstate loads", "在 BIOS 中开启 HWP（或“由操作系统控制 P-state”），使 intel_pstate 生效"), e))
	case "AuthenticAMD":
		if kernelAtLeast(c, 6, 3) {
			return one(fail(T("acpi-cpufreq on an AMD CPU with a kernel that supports amd-pstate", "AMD CPU 使用 acpi-cpufreq，而内核已支持 amd-pstate"),
				T("amd-pstate in active (EPP) mode: amd_pstate=active", "启用 amd-pstate active（EPP）模式：amd_pstate=active"),
				grubbyAdd("amd_pstate=active", "amd_pstate"), e))
		}
		return one(advice(T("acpi-cpufreq on an AMD CPU; amd-pstate needs kernel 5.17+ (EPP 6.3+) and CPPC enabled in the BIOS", "AMD CPU 使用 acpi-cpufreq；amd-pstate 需要 5.17+ 内核（EPP 需 6.3+）且 BIOS 开启 CPPC"),
			T("keep acpi-cpufreq with the performance governor, or move to a kernel with amd-pstate", "保持 acpi-cpufreq 并使用 performance 策略，或升级到支持 amd-pstate 的内核"), e))
	}
	return one(pass(Tf("driver %s (vendor %s)", "驱动 %s（厂商 %s）", d, vendor), e))
}

// evalCpuBoost is the rule cpu.boost.
func evalCpuBoost(c *Ctx) []Outcome {
	f := c.F.CPU.Cpufreq
	if !f.OK {
		return one(noCpufreq(c, f))
	}
	b := f.Value.Boost
	if b == nil {
		return one(skip(T("boost control is not exposed by this cpufreq driver", "当前 cpufreq 驱动未提供睿频开关")))
	}
	if f.Value.Driver == "intel_pstate" {
		p := "/sys/devices/system/cpu/intel_pstate/no_turbo"
		e := ev("no_turbo", map[bool]int{true: 0, false: 1}[*b], p)
		if *b {
			return one(pass(T("turbo enabled (no_turbo = 0)", "睿频已开启（no_turbo = 0）"), e))
		}
		fx := echoFix(p, "0", "1")
		fx.Persist = "tuned-adm profile throughput-performance   # boost=1; or a boot-time unit writing no_turbo"
		return one(fail(T("turbo disabled (no_turbo = 1)", "睿频已关闭（no_turbo = 1）"), T("no_turbo = 0", "no_turbo = 0"), fx, e))
	}
	p := "/sys/devices/system/cpu/cpufreq/boost"
	e := ev("boost", map[bool]int{true: 1, false: 0}[*b], p)
	if *b {
		return one(pass(T("boost enabled (boost = 1)", "睿频已开启（boost = 1）"), e))
	}
	fx := echoFix(p, "1", "0")
	fx.Persist = "tuned-adm profile throughput-performance   # boost=1; or a boot-time unit writing the file"
	return one(fail(T("boost disabled (boost = 0)", "睿频已关闭（boost = 0）"), T("boost = 1", "boost = 1"), fx, e))
}

// evalCpuEpp is the rule cpu.epp.
func evalCpuEpp(c *Ctx) []Outcome {
	f := c.F.CPU.Cpufreq
	if !f.OK {
		return one(noCpufreq(c, f))
	}
	m := f.Value.EPP
	if len(m) == 0 {
		return one(skip(T("energy_performance_preference is not exposed (no HWP/EPP driver)", "未提供 energy_performance_preference（驱动不支持 HWP/EPP）")))
	}
	glob := "/sys/devices/system/cpu/cpufreq/policy*/energy_performance_preference"
	e := ev("energy_performance_preference", countsString(m), glob)
	want := "balance_performance"
	ok := func(v string) bool { return v == "performance" || v == "balance_performance" || v == "0" }
	if c.Profile == Latency {
		want = "performance"
		ok = func(v string) bool { return v == "performance" || v == "0" }
	}
	bad := 0
	was := ""
	for k, n := range m {
		if !ok(k) {
			bad += n
			was = k
		}
	}
	if bad == 0 {
		return one(pass(Tf("EPP: %s", "EPP：%s", countsString(m)), e))
	}
	fx := finding.Fix{
		Apply:   fmt.Sprintf("for f in %s; do echo %s > $f; done", glob, want),
		Revert:  fmt.Sprintf("for f in %s; do echo %s > $f; done   # before: %s", glob, was, countsString(m)),
		Persist: "tuned-adm profile throughput-performance",
		Changes: []finding.Change{sysfsChange(glob, want)},
		Note:    T("The TuneD profile sets energy_performance_preference at every boot.", "该 TuneD 配置档会在每次开机时设置 energy_performance_preference。"),
	}
	return one(fail(Tf("%d policies prefer power saving (%s)", "%d 个 policy 偏向节能（%s）", bad, countsString(m)),
		Tf("%s on every policy", "所有 policy 设为 %s", want), fx, e))
}

// evalCpuMinPerfPct is the rule cpu.min-perf-pct.
func evalCpuMinPerfPct(c *Ctx) []Outcome {
	f := c.F.CPU.Cpufreq
	if !f.OK {
		return one(noCpufreq(c, f))
	}
	p := f.Value.MinPerfPct
	if p == nil {
		return one(skip(T("not an intel_pstate host (min_perf_pct absent)", "非 intel_pstate 主机（没有 min_perf_pct）")))
	}
	path := "/sys/devices/system/cpu/intel_pstate/min_perf_pct"
	e := ev("min_perf_pct", *p, path)
	if *p >= 100 {
		return one(pass(T("min_perf_pct = 100", "min_perf_pct = 100"), e))
	}
	fx := echoFix(path, "100", fmt.Sprint(*p))
	fx.Persist = "tuned-adm profile latency-performance   # sets min_perf_pct=100"
	return one(fail(Tf("min_perf_pct = %d", "min_perf_pct = %d", *p), T("min_perf_pct = 100", "min_perf_pct = 100"), fx, e))
}

// evalCpuCstates is the rule cpu.cstates.
func evalCpuCstates(c *Ctx) []Outcome {
	f := c.F.CPU.Cpuidle
	if !f.OK {
		if vm, known := isVM(c); known && vm {
			return one(skip(Tf("no cpuidle states in this VM: idle states are the hypervisor's (%s)", "虚拟机内没有 cpuidle 状态：空闲状态由虚拟化层管理（%s）", f.Why())))
		}
		return one(unavailableFrom(finding.T("cpuidle states", "cpuidle 状态"), f))
	}
	var deep []sysinfo.IdleState
	var all []string
	for _, s := range f.Value.States {
		all = append(all, fmt.Sprintf("%s(%dus,%s)", s.Name, s.LatencyUS, map[bool]string{true: "off", false: "on"}[s.Disabled]))
		if !s.Disabled && s.LatencyUS > 10 && !strings.EqualFold(s.Name, "POLL") {
			deep = append(deep, s)
		}
	}
	e := ev("cpuidle states (cpu0)", strings.Join(all, " "), "/sys/devices/system/cpu/cpu0/cpuidle/state*/{name,latency,disable}")
	if len(deep) == 0 {
		return one(pass(T("no enabled idle state has an exit latency above 10 µs", "没有退出时延超过 10 µs 的已启用空闲状态"), e))
	}
	var names []string
	var apply, revert []string
	for _, s := range deep {
		names = append(names, fmt.Sprintf("%s (%d µs)", s.Name, s.LatencyUS))
		loop := `for d in /sys/devices/system/cpu/cpu*/cpuidle/state*; do [ "$(cat $d/name)" = "%s" ] && echo %d > $d/disable; done`
		apply = append(apply, fmt.Sprintf(loop, s.Name, 1))
		revert = append(revert, fmt.Sprintf(loop, s.Name, 0))
	}
	fx := finding.Fix{Apply: strings.Join(apply, "\n"), Revert: strings.Join(revert, "\n"),
		Persist: "tuned-adm profile latency-performance",
		Note: T("TuneD latency-performance holds /dev/cpu_dma_latency open instead of disabling states, and the limit goes away when TuneD stops.",
			"TuneD latency-performance 通过持有 /dev/cpu_dma_latency 限制时延，而不是禁用状态；TuneD 停止时限制自动解除。")}
	return one(fail(Tf("deep idle states enabled: %s", "已启用深度空闲状态：%s", strings.Join(names, ", ")),
		T("cap the exit latency at C1 (disable deeper states or hold /dev/cpu_dma_latency via TuneD latency-performance)", "将退出时延限制在 C1（禁用更深状态，或用 TuneD latency-performance 持有 /dev/cpu_dma_latency）"), fx, e))
}
