// Package report renders results for people and programs: plain text for a
// terminal, Markdown for tickets and wikis, JSON (versioned, with a
// published schema in docs/schema/) for scripts and CI.
package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

// CheckSchema names the JSON document `tuneloop check --output json` writes.
// The file docs/schema/check-v1.schema.json describes it; any incompatible
// change bumps the version.
const CheckSchema = "tuneloop.check/v1"

// Check is the result of one host audit.
type Check struct {
	Schema      string            `json:"schema"`
	Tool        Tool              `json:"tool"`
	GeneratedAt time.Time         `json:"generated_at"`
	Profile     string            `json:"profile"`
	Host        Host              `json:"host"`
	Summary     finding.Counts    `json:"summary"`
	Findings    []finding.Finding `json:"findings"`
}

// Tool identifies the producer.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Host is the one-paragraph identity of the audited machine, each value
// "" when it could not be read.
type Host struct {
	Hostname   string `json:"hostname"`
	OS         string `json:"os"`
	Kernel     string `json:"kernel"`
	Arch       string `json:"arch"`
	CPU        string `json:"cpu"`
	Logical    int    `json:"logical_cpus"`
	Sockets    int    `json:"sockets"`
	NUMANodes  int    `json:"numa_nodes"`
	MemTotalKB int64  `json:"mem_total_kb"`
	Hypervisor string `json:"hypervisor"`
	JVMs       int    `json:"jvms"`
	// Source is "live" or the fixture directory the facts were read from.
	Source string `json:"source"`
}

// HostOf summarises facts.
func HostOf(f *sysinfo.Facts, source string) Host {
	h := Host{Source: source}
	h.Hostname = f.Hostname.Value
	h.OS = f.OS.PrettyName.Value
	h.Kernel = f.Kernel.Release.Value
	h.Arch = f.Kernel.Arch.Value
	h.CPU = f.CPU.Model.Value
	h.Logical = f.CPU.Logical.Value
	h.Sockets = f.CPU.Sockets.Value
	if f.NUMA.Nodes.OK {
		h.NUMANodes = len(f.NUMA.Nodes.Value)
	}
	if f.Memory.Meminfo.OK {
		h.MemTotalKB = f.Memory.Meminfo.Value["MemTotal"]
	}
	h.Hypervisor = f.CPU.Hypervisor.Value
	if f.JVMs.OK {
		h.JVMs = len(f.JVMs.Value)
	}
	return h
}

// NewCheck assembles a check document; findings must already be ranked.
func NewCheck(version string, now time.Time, profile string, host Host, fs []finding.Finding) *Check {
	if fs == nil {
		fs = []finding.Finding{}
	}
	return &Check{
		Schema: CheckSchema, Tool: Tool{Name: "tuneloop", Version: version},
		GeneratedAt: now.UTC(), Profile: profile, Host: host,
		Summary: finding.Count(fs), Findings: fs,
	}
}

// Line is the host's one-line identity shown at the top of text, Markdown and HTML.
func (h Host) Line(l finding.Lang) string {
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(h.OS)
	if h.Kernel != "" {
		add("Linux " + h.Kernel)
	}
	add(h.Arch)
	add(h.CPU)
	if h.Logical > 0 {
		if l == finding.ZH {
			add(fmt.Sprintf("%d 个逻辑 CPU", h.Logical))
		} else {
			add(fmt.Sprintf("%d CPUs", h.Logical))
		}
	}
	if h.Sockets > 1 {
		if l == finding.ZH {
			add(fmt.Sprintf("%d 路", h.Sockets))
		} else {
			add(fmt.Sprintf("%d sockets", h.Sockets))
		}
	}
	if h.NUMANodes > 0 {
		if l == finding.ZH {
			add(fmt.Sprintf("%d 个 NUMA 节点", h.NUMANodes))
		} else {
			add(plural(h.NUMANodes, "NUMA node"))
		}
	}
	if h.MemTotalKB > 0 {
		add(units.FormatBytes(h.MemTotalKB * 1024))
	}
	if h.Hypervisor != "" {
		if l == finding.ZH {
			add("虚拟机 " + h.Hypervisor)
		} else {
			add("VM: " + h.Hypervisor)
		}
	}
	if h.JVMs > 0 {
		if l == finding.ZH {
			add(fmt.Sprintf("%d 个 JVM", h.JVMs))
		} else {
			add(plural(h.JVMs, "JVM"))
		}
	}
	name := h.Hostname
	if name == "" {
		name = finding.T("unknown host", "未知主机").In(l)
	}
	if len(parts) == 0 {
		return name
	}
	return name + " (" + strings.Join(parts, ", ") + ")"
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// summaryLine is "62 checks: 2 critical, 7 warning, ..." in the given language.
func summaryLine(c finding.Counts, profile string, l finding.Lang) string {
	total := c.Fail + c.Pass + c.Unavailable + c.Skipped
	if l == finding.ZH {
		return fmt.Sprintf("配置档 %s · 共 %d 项检查：严重 %d，警告 %d，提示 %d，通过 %d，无法读取 %d，不适用 %d",
			profile, total, c.Critical, c.Warning, c.Info, c.Pass, c.Unavailable, c.Skipped)
	}
	return fmt.Sprintf("profile %s · %d checks: %d critical, %d warning, %d info, %d pass, %d unavailable, %d skipped",
		profile, total, c.Critical, c.Warning, c.Info, c.Pass, c.Unavailable, c.Skipped)
}

// verdict is the one-line conclusion when nothing failed: "all passed" is
// only true when something was actually checked.
func checkVerdict(c finding.Counts) finding.Text {
	if c.Pass == 0 {
		return finding.T("Nothing could be checked: see below for what could not be read.", "没有可执行的检查：无法读取的内容见下文。")
	}
	return finding.T("Nothing to change: every check that could run passed.", "无需调整：所有可执行的检查均已通过。")
}

// labels for the parts of a finding, in both languages.
var labels = map[string]finding.Text{
	"seen":      finding.T("seen", "现状"),
	"evidence":  finding.T("evidence", "证据"),
	"why":       finding.T("why", "原因"),
	"recommend": finding.T("recommend", "建议"),
	"apply":     finding.T("apply", "执行"),
	"revert":    finding.T("revert", "回退"),
	"persist":   finding.T("persist", "持久化"),
	"note":      finding.T("note", "说明"),
	"reboot":    finding.T("needs a reboot", "需要重启生效"),
	"risk":      finding.T("risk", "风险"),
	"for":       finding.T("for", "适用"),
	"ref":       finding.T("ref", "参考"),
	"reason":    finding.T("reason", "原因"),
}

func label(k string, l finding.Lang) string { return labels[k].In(l) }
