package apply

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Refusal is a selected finding apply will not change, and why.
type Refusal struct {
	Finding string       `json:"finding"`
	Why     finding.Text `json:"why"`
	// Nothing is true when there is nothing to do (the check passed or
	// did not apply), as opposed to a fix apply cannot carry out.
	Nothing bool `json:"nothing,omitempty"`
}

// Select picks the findings to apply: those named by ids (a rule ID, or
// ID/subject for one subject) and, with allSafe, every failing finding whose
// changes are all runtime knobs safe to set and revert (sysctl, sysfs,
// process limits; not NIC channels, which reset the NIC's queues). Named
// findings that cannot be applied are refused with the reason.
func Select(fs []finding.Finding, ids []string, allSafe bool) ([]Group, []Refusal) {
	var groups []Group
	var refused []Refusal
	picked := map[string]bool{}
	add := func(f *finding.Finding) {
		if picked[f.Key()] {
			return
		}
		picked[f.Key()] = true
		if why, ok := Unappliable(f); ok {
			refused = append(refused, Refusal{Finding: f.Key(), Why: why})
			return
		}
		groups = append(groups, Group{Finding: f.Key(), Changes: f.Fix.Changes})
	}
	for _, id := range ids {
		n := 0
		for i := range fs {
			f := &fs[i]
			if f.ID == id || f.Key() == id {
				n++
				if f.Status == finding.Fail {
					add(f)
				} else if !picked[f.Key()] && f.Key() == id {
					picked[f.Key()] = true
					refused = append(refused, Refusal{Finding: id, Nothing: true,
						Why: finding.Tf(finding.T("nothing to apply: the check's status is %s", "无需应用：该检查的状态为 %s"), finding.T(f.Status.Label(finding.EN), f.Status.Label(finding.ZH)))})
				}
			}
		}
		if n == 0 {
			refused = append(refused, Refusal{Finding: id, Why: finding.T("no such finding in this audit (see tuneloop check)", "本次审计中没有该发现（见 tuneloop check）")})
		}
	}
	if allSafe {
		for i := range fs {
			f := &fs[i]
			if f.Status == finding.Fail && safe(f) {
				add(f)
			}
		}
	}
	return groups, refused
}

// safe: every change is a runtime knob that is read back and reverted
// without side effects on traffic.
func safe(f *finding.Finding) bool {
	if len(f.Fix.Changes) == 0 {
		return false
	}
	for _, c := range f.Fix.Changes {
		switch c.Kind {
		case finding.ChangeSysctl, finding.ChangeSysfs, finding.ChangePrlimit:
		default:
			return false
		}
		if relaxesSecurity(c.Key) {
			return false
		}
	}
	return true
}

// relaxesSecurity: knobs that open the host up (profiling, pointers,
// ptrace); lowered only for a diagnosis window, on purpose, never in bulk.
func relaxesSecurity(key string) bool {
	switch key {
	case "kernel.perf_event_paranoid", "kernel.kptr_restrict", "kernel.yama.ptrace_scope", "kernel.randomize_va_space", "kernel.dmesg_restrict":
		return true
	}
	return false
}

// Unappliable says why a failing finding cannot be applied automatically;
// ok is false when it can.
func Unappliable(f *finding.Finding) (why finding.Text, ok bool) {
	if len(f.Fix.Changes) > 0 {
		return finding.Text{}, false
	}
	a := f.Fix.Apply
	switch {
	case a == "":
		return finding.T("cannot be applied automatically: advice only (hardware, BIOS, sizing or a decision), no command to run",
			"无法自动应用：仅为建议（硬件、BIOS、容量规划或需要人工决定），没有可执行的命令"), true
	case f.Fix.Reboot:
		return finding.T("cannot be applied automatically: a kernel command-line change that takes a reboot; run the fix's lines yourself",
			"无法自动应用：需要修改内核启动参数并重启；请自行执行修复命令"), true
	case strings.HasPrefix(a, "taskset") || strings.Contains(a, "migratepages"):
		return finding.T("cannot be applied automatically: binding a running JVM to CPUs and memory (taskset, migratepages) is not journaled yet; bind it at launch (numactl) or run the lines yourself",
			"无法自动应用：把运行中的 JVM 绑定到 CPU 和内存（taskset、migratepages）尚未纳入日志管理；请在启动时绑定（numactl）或自行执行"), true
	case strings.HasPrefix(a, "for d in"):
		return finding.T("cannot be applied automatically: the fix loops over idle states matched by name, not a fixed set of knobs yet; run the lines yourself",
			"无法自动应用：该修复按名称遍历空闲状态，还不是一组固定的参数；请自行执行修复命令"), true
	case strings.HasPrefix(f.ID, "jvm.") || strings.HasPrefix(f.ID, "logconf.") || strings.HasPrefix(a, "JAVA_OPTS") || strings.Contains(a, "JVM options"):
		return finding.T("cannot be applied automatically: JVM options and logging configuration need a launch overlay (edit where the service starts, then restart it); not supported yet",
			"无法自动应用：JVM 参数和日志配置需要通过启动覆盖层修改（在服务启动处修改后重启服务）；暂不支持"), true
	case strings.HasPrefix(a, "tuned-adm"):
		return finding.T("cannot be applied automatically: it switches the TuneD profile, which TuneD itself can undo (tuned-adm); run the line yourself",
			"无法自动应用：这是切换 TuneD 配置档，由 TuneD 自己负责回退（tuned-adm）；请自行执行"), true
	case strings.HasPrefix(a, "ip link"):
		return finding.T("cannot be applied automatically: an MTU must match the rest of the network path; change it with the network team",
			"无法自动应用：MTU 必须与整条网络路径一致；请与网络团队一起修改"), true
	}
	return finding.T("cannot be applied automatically: its fix is not a knob tuneloop sets yet (run the fix's lines yourself)",
		"无法自动应用：其修复方法还不是 tuneloop 能设置的参数（请自行执行修复命令）"), true
}
