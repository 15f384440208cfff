package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Platform: SMT, virtualisation, steal (PerfSpect insights, TuneD recommend, USE method).

func cpuRules() []Rule {
	return []Rule{
		{
			ID: "cpu.smt", Category: "cpu", Severity: info, Arch: "x86_64",
			Reads:      []string{"/sys/devices/system/cpu/smt/active", "/proc/cmdline"},
			Title:      T("SMT / Hyper-Threading", "超线程（SMT）"),
			Checks:     T("Reads /sys/devices/system/cpu/smt/active and the nosmt boot flag.", "读取 /sys/devices/system/cpu/smt/active 和启动参数 nosmt。"),
			Why:        T("For throughput services SMT adds hardware threads for request concurrency and GC workers (typically +15-30%).", "对吞吐型服务，超线程提供更多硬件线程用于请求并发和 GC 工作线程（通常提升 15-30%）。"),
			Risk:       T("Sibling threads share a core's caches and units: strict latency services may prefer SMT off; some side-channel guidance recommends nosmt on multi-tenant hosts.", "同一物理核的两个线程共享缓存和执行单元：严格时延场景可能更适合关闭；部分侧信道安全指南建议在多租户主机上关闭。"),
			Workload:   T("Throughput-oriented Java services on x86 (Kunpeng 920 has no SMT).", "x86 上的吞吐型 Java 服务（鲲鹏 920 无超线程）。"),
			References: []string{"PerfSpect insight #1", "kernel Documentation/admin-guide/hw-vuln/core-scheduling.rst"},
			Eval:       evalCpuSmt,
		},
	}
}

// evalCpuSmt is the rule cpu.smt.
func evalCpuSmt(c *Ctx) []Outcome {
	f := c.F.CPU.SMTActive
	if !f.OK {
		if notPresent(f.Err) {
			return one(skip(Tf("this CPU/kernel exposes no SMT control (%s)", "该 CPU/内核不提供 SMT 控制（%s）", f.Why())))
		}
		return one(unavailableFrom(finding.T("SMT state", "SMT 状态"), f))
	}
	e := evf("smt/active", f)
	if f.Value {
		return one(pass(T("SMT active", "超线程已开启"), e))
	}
	if vm, known := isVM(c); known && vm {
		return one(skip(T("in a VM the vCPU topology is the hypervisor's: ask the platform for SMT siblings if needed", "虚拟机的 vCPU 拓扑由虚拟化平台决定：如需超线程请向平台申请")))
	}
	if c.Profile == Latency {
		return one(pass(T("SMT off: acceptable for a latency-critical service", "超线程关闭：对时延敏感服务可以接受"), e))
	}
	if _, ok := cmdlineArg(c, "nosmt"); ok {
		return one(fail(T("SMT disabled by the nosmt boot flag", "超线程被启动参数 nosmt 关闭"),
			T("SMT on for throughput services, unless nosmt is a security requirement", "吞吐型服务建议开启超线程，除非 nosmt 是安全要求"),
			grubbyRemove("nosmt", "nosmt"), e, cmdlineEv(c, "nosmt")))
	}
	return one(advice(T("SMT inactive (disabled in the BIOS or not supported by this SKU)", "超线程未启用（BIOS 中关闭，或该型号不支持）"),
		T("enable Hyper-Threading in the BIOS for throughput services, after checking your security baseline", "在核对安全基线后，于 BIOS 中为吞吐型服务开启超线程"), e))
}

func virtRules() []Rule {
	return []Rule{
		{
			ID: "virt.hypervisor", Category: "virt", Severity: info,
			Reads:      []string{"/proc/cmdline", "/proc/cpuinfo", "/sys/class/dmi/id/sys_vendor and product_name"},
			Title:      T("Running in a virtual machine", "运行在虚拟机中"),
			Checks:     T("Detects a hypervisor from cpuinfo, /sys/hypervisor and DMI.", "通过 cpuinfo、/sys/hypervisor 和 DMI 识别虚拟化平台。"),
			Why:        T("In a VM, frequency, C-states and physical IRQ placement belong to the host; CPU time can be stolen by other guests, and the vCPU topology may hide NUMA.", "虚拟机内的调频、C-state 和物理中断分布由宿主机决定；CPU 时间可能被其他虚拟机抢占（steal），vCPU 拓扑也可能掩盖 NUMA。"),
			Risk:       T("None (advice).", "无（建议项）。"),
			Workload:   T("All services running in VMs.", "运行在虚拟机中的所有服务。"),
			References: []string{"TuneD recommend: virt -> virtual-guest", "libvirt Domain XML format: CPU tuning (vcpupin), CPU model and topology, NUMA node tuning"},
			Eval:       evalVirtHypervisor,
		},
		{
			ID: "virt.steal", Category: "virt", Severity: warning,
			Reads:      []string{"/proc/stat"},
			Title:      T("CPU steal time", "CPU 被抢占时间（steal）"),
			Checks:     T("Computes steal as a share of all CPU time since boot from /proc/stat: >= 5% fails as a warning, >= 2% as info.", "由 /proc/stat 计算开机以来 steal 占总 CPU 时间的比例：>= 5% 为警告，>= 2% 为提示。"),
			Why:        T("Stolen time is time the hypervisor gave to other guests: the service looks slow while its own CPU usage looks fine.", "steal 是宿主机分给其他虚拟机的时间：服务变慢，但自身 CPU 使用率看起来正常。"),
			Risk:       T("None (diagnostic).", "无（诊断项）。"),
			Workload:   T("All services in VMs.", "虚拟机中的所有服务。"),
			References: []string{"Brendan Gregg USE method: CPU utilisation (us+sy+st)", "man 5 proc (/proc/stat steal)"},
			Eval:       evalVirtSteal,
		},
	}
}

// evalVirtHypervisor is the rule virt.hypervisor.
func evalVirtHypervisor(c *Ctx) []Outcome {
	h := c.F.CPU.Hypervisor
	if !h.OK {
		return one(unavailableFrom(finding.T("hypervisor detection", "虚拟化检测"), h))
	}
	e := evf("hypervisor", h)
	if h.Value == "" {
		return one(pass(T("bare metal (no hypervisor detected)", "物理机（未检测到虚拟化）"), e))
	}
	return one(advice(Tf("running under %s", "运行在 %s 虚拟化平台上", h.Value),
		T("watch steal time (vmstat 'st', virt.steal) under load; ask for dedicated (pinned) vCPUs and a vCPU/NUMA topology that matches the host; host-side tuning (governor, C-states, NIC IRQs) must be done on the hypervisor",
			"压测时关注 steal（vmstat 的 st 列、virt.steal）；申请独占（绑定）的 vCPU，并让 vCPU/NUMA 拓扑与物理机一致；调频、C-state、网卡中断等需要在宿主机侧调整"), e))
}

// evalVirtSteal is the rule virt.steal.
func evalVirtSteal(c *Ctx) []Outcome {
	if vm, known := isVM(c); known && !vm {
		return one(skip(T("bare metal: no steal time", "物理机：不存在 steal")))
	}
	s := c.F.CPU.StealPct
	if !s.OK {
		return one(unavailableFrom(finding.T("steal time (/proc/stat)", "steal 时间（/proc/stat）"), s))
	}
	e := evf("steal_pct", s)
	v := s.Value
	obs := Tf("steal %.1f%% of CPU time since boot", "开机以来 steal 占 CPU 时间 %.1f%%", v)
	rec := T("steal below 2% under load: ask for dedicated vCPUs / less overcommitted hosts; compare with `vmstat 1` st during the load test",
		"压测期间 steal 低于 2%：申请独占 vCPU 或超分更低的宿主机；并在压测时用 `vmstat 1` 的 st 列核对")
	switch {
	case v >= 5:
		return one(advice(obs, rec, e))
	case v >= 2:
		return one(advice(obs, rec, e).WithSeverity(info))
	}
	return one(pass(obs, e))
}

func securityRules() []Rule {
	return []Rule{
		{
			ID: "security.mitigations", Category: "security", Severity: info,
			Reads:      []string{"/sys/devices/system/cpu/vulnerabilities", "/proc/cmdline"},
			Title:      T("CPU vulnerability mitigations", "CPU 漏洞缓解措施"),
			Checks:     T("Reads /sys/devices/system/cpu/vulnerabilities/* and mitigations-related boot flags.", "读取 /sys/devices/system/cpu/vulnerabilities/* 以及与缓解措施相关的启动参数。"),
			Why:        T("Mitigations make syscalls and context switches dearer (on a Java network proxy, turning them off raised throughput from 16000 to 20000 tps in a published 2.6.32-vs-4.19 comparison), but turning them off exposes the host to side-channel attacks.", "缓解措施会增加系统调用和上下文切换开销（一篇公开的 2.6.32 与 4.19 内核对比中，关闭后 Java 网络代理的 TPS 从 16000 升到 20000），但关闭后主机将暴露于侧信道攻击。"),
			Risk:       T("Disabling mitigations is a security decision: only for single-tenant hosts running only trusted code, approved by the security team. tuneloop never applies it.", "关闭缓解措施属于安全决策：只适用于只运行可信代码的单租户主机，并需安全团队批准。tuneloop 不会自动执行。"),
			Workload:   T("All hosts.", "所有主机。"),
			References: []string{"PerfSpect insight #19", "plantegg.github.io 2019-12-24: Linux内核版本升级，性能到底提升多少？拿数据说话 (Java proxy, 2.6.32 vs 4.9 vs 4.19)", "kernel Documentation/admin-guide/hw-vuln/"},
			Eval:       evalSecurityMitigations,
		},
		{
			ID: "security.selinux", Category: "security", Severity: info,
			Reads:      []string{"/sys/fs/selinux/enforce", "/proc/cmdline"},
			Title:      T("SELinux state", "SELinux 状态"),
			Checks:     T("Reads the SELinux mode from /sys/fs/selinux/enforce and the boot flags.", "从 /sys/fs/selinux/enforce 和启动参数读取 SELinux 模式。"),
			Why:        T("Practice guides disable SELinux (selinux=0) for benchmarks; on production hosts that removes a security layer for a gain that is usually small for Java services.", "一些调优实践在压测（POC）时用 selinux=0 关闭 SELinux；在生产环境这会去掉一层安全防护，而对 Java 服务的性能收益通常很小。"),
			Risk:       T("Changing SELinux is a security and compliance decision; re-enabling needs a relabel and a reboot. Advice only.", "修改 SELinux 属于安全合规决策；重新开启需要重新打标签并重启。仅为建议。"),
			Workload:   T("Production hosts (POC/benchmark hosts may differ).", "生产主机（POC/压测主机可另行考虑）。"),
			References: []string{"kernel Documentation/admin-guide/kernel-parameters.txt (selinux=)", "TuneD network-latency: selinux avc_cache_threshold=8192"},
			Eval:       evalSecuritySelinux,
		},
		{
			ID: "security.audit", Category: "security", Severity: info,
			Reads:      []string{"/proc/PID/comm (auditd)", "/proc/cmdline (audit=)"},
			Title:      T("Kernel audit", "内核审计（audit）"),
			Checks:     T("Reads the audit= boot flag and whether auditd runs.", "读取启动参数 audit= 以及 auditd 是否运行。"),
			Why:        T("Audit rules on hot syscalls cost CPU per call; disabling audit (audit=0) removes the cost and the audit trail.", "在高频系统调用上的审计规则会带来每次调用的 CPU 开销；audit=0 去掉开销的同时也去掉了审计记录。"),
			Risk:       T("Audit is often a compliance requirement (e.g. banking regulators): keep it on and keep the rule set small rather than turning it off.", "审计常常是合规要求（如金融监管）：应保持开启并精简规则，而不是直接关闭。"),
			Workload:   T("Production hosts.", "生产主机。"),
			References: []string{"kernel Documentation/admin-guide/kernel-parameters.txt (audit=)", "man 8 auditctl"},
			Eval:       evalSecurityAudit,
		},
	}
}

// evalSecurityMitigations is the rule security.mitigations.
func evalSecurityMitigations(c *Ctx) []Outcome {
	offFlags := []string{"mitigations", "nopti", "nospectre_v1", "nospectre_v2", "spectre_v2", "nospec_store_bypass_disable", "spec_store_bypass_disable", "l1tf", "mds", "tsx_async_abort", "mmio_stale_data", "retbleed", "no_stf_barrier", "kpti", "pti"}
	var off []string
	for _, k := range offFlags {
		v, ok := cmdlineArg(c, k)
		if !ok {
			continue
		}
		if (k == "mitigations" || k == "spectre_v2" || k == "l1tf" || k == "mds" || k == "tsx_async_abort" || k == "mmio_stale_data" || k == "retbleed" || k == "spec_store_bypass_disable" || k == "pti" || k == "kpti") && v != "off" && v != "0" {
			continue
		}
		if v == "" {
			off = append(off, k)
		} else {
			off = append(off, k+"="+v)
		}
	}
	if len(off) > 0 {
		names := make([]string, len(off))
		for i, a := range off {
			names[i] = strings.SplitN(a, "=", 2)[0]
		}
		fx := grubbyRemove(strings.Join(names, " "), strings.Join(off, " "))
		return one(fail(Tf("mitigations disabled on the kernel command line: %s", "内核启动参数关闭了漏洞缓解：%s", strings.Join(off, " ")),
			T("keep this only if the security team accepted it for a single-tenant host running trusted code; otherwise re-enable the mitigations",
				"只有在安全团队确认（单租户、只运行可信代码）后才可保留；否则应恢复缓解措施"), fx,
			ev("cmdline", strings.Join(off, " "), orDefault(c.F.Kernel.Cmdline.Source, "/proc/cmdline"))).
			Because(T("The boot flags turn off CPU vulnerability mitigations: faster syscalls, but the host is open to side-channel attacks between processes and VMs.",
				"启动参数关闭了 CPU 漏洞缓解：系统调用更快，但进程之间、虚拟机之间可能被侧信道攻击。")))
	}
	v := c.F.CPU.Vulnerabilities
	if !v.OK {
		if notPresent(v.Err) {
			return one(skip(Tf("the kernel does not report vulnerabilities (%s)", "内核未提供漏洞状态（%s）", v.Why())))
		}
		return one(unavailableFrom(finding.T("CPU vulnerability state", "CPU 漏洞缓解状态"), v))
	}
	var vulnerable, mitigated []string
	keys := make([]string, 0, len(v.Value))
	for k := range v.Value {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := v.Value[k]
		switch {
		case strings.HasPrefix(s, "Vulnerable"):
			vulnerable = append(vulnerable, k+": "+s)
		case strings.HasPrefix(s, "Mitigation"):
			mitigated = append(mitigated, k)
		}
	}
	e := ev("vulnerabilities", fmt.Sprintf("%d mitigated, %d vulnerable", len(mitigated), len(vulnerable)), v.Source)
	if len(vulnerable) > 0 {
		if vm, known := isVM(c); known && vm {
			return one(advice(Tf("kernel reports vulnerable: %s", "内核报告存在未缓解漏洞：%s", strings.Join(vulnerable, "; ")),
				T("in a VM the CPU microcode is the hypervisor host's: report it to the platform team and keep the guest kernel updated", "虚拟机的 CPU 微码由宿主机决定：请反馈给云平台团队，并保持客户机内核为最新"), e).
				Because(T("The kernel says the CPU is exposed to these side-channel issues; in a VM that usually means the host's microcode or the exposed CPU model lacks the fix.", "内核显示 CPU 仍暴露于这些侧信道漏洞；在虚拟机中通常是宿主机微码或暴露给虚拟机的 CPU 型号缺少修复。")))
		}
		return one(advice(Tf("kernel reports vulnerable: %s", "内核报告存在未缓解漏洞：%s", strings.Join(vulnerable, "; ")),
			T("update the kernel and CPU microcode/BIOS; do not trade these for speed without a security review", "升级内核和 CPU 微码/BIOS；未经安全评审不要为性能放弃缓解"), e).WithSeverity(warning).
			Because(T("The kernel says the CPU is exposed to these side-channel issues: usually missing microcode or an old kernel.", "内核显示 CPU 仍暴露于这些侧信道漏洞，通常是微码过旧或内核过旧。")))
	}
	return one(pass(Tf("mitigations active (%d mitigated: %s)", "缓解措施生效（%d 项已缓解：%s）", len(mitigated), strings.Join(mitigated, ", ")), e))
}

// evalSecuritySelinux is the rule security.selinux.
func evalSecuritySelinux(c *Ctx) []Outcome {
	f := c.F.Security.SELinux
	if !f.OK {
		return one(unavailableFrom(finding.T("SELinux state", "SELinux 状态"), f))
	}
	e := evf("selinux", f)
	switch f.Value {
	case "enforcing":
		return one(pass(T("SELinux enforcing", "SELinux 为 enforcing"), e))
	case "absent":
		return one(skip(T("SELinux is not built into this kernel (AppArmor or none)", "内核未启用 SELinux（可能使用 AppArmor 或未启用 LSM）")))
	case "permissive":
		return one(advice(T("SELinux permissive: denials are logged but not enforced", "SELinux 为 permissive：只记录拒绝，不强制执行"),
			T("enforcing on production hosts; permissive costs nearly the same as enforcing, so it buys little speed", "生产主机建议 enforcing；permissive 的开销与 enforcing 相近，并不能换来多少性能"), e))
	}
	return one(advice(Tf("SELinux %s", "SELinux 为 %s", f.Value),
		T("if this copies a POC setting (selinux=0), have the security team confirm it for production; the measured gain for Java services is usually small",
			"如果这是沿用 POC 的设置（selinux=0），请安全团队确认生产环境是否允许；对 Java 服务的实际性能收益通常很小"), e))
}

// evalSecurityAudit is the rule security.audit.
func evalSecurityAudit(c *Ctx) []Outcome {
	f := c.F.Security.Audit
	if !f.OK {
		return one(unavailableFrom(finding.T("audit state", "审计（audit）状态"), f))
	}
	e := evf("audit", f)
	if f.Value == "off" {
		obs := T("kernel audit is off (no audit= on the command line and auditd not running)", "内核审计未开启（启动参数无 audit=，且 auditd 未运行）")
		if v, ok := cmdlineArg(c, "audit"); ok && v == "0" {
			obs = T("kernel audit is off (audit=0)", "内核审计已关闭（audit=0）")
		}
		return one(advice(obs,
			T("confirm with the security/compliance team; prefer audit on with a minimal rule set (`auditctl -l`) over audit=0", "请与安全/合规团队确认；建议保持审计开启并精简规则（`auditctl -l`），而不是 audit=0"), e))
	}
	if r := c.F.Security.AuditdRunning; r.OK && r.Value {
		return one(pass(T("audit on, auditd running: keep rules off hot syscalls (check `auditctl -l`)", "审计开启且 auditd 运行中：避免在高频系统调用上加规则（用 `auditctl -l` 检查）"), e, evf("auditd_running", r)))
	}
	return one(pass(Tf("audit %s", "审计：%s", f.Value), e))
}
