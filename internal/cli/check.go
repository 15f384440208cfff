package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/session"
)

// CheckOptions are the flags of `tuneloop check`.
type CheckOptions struct {
	Output   string // text, json, markdown
	Lang     string // en, zh; "" = from the environment
	Profile  string
	FailOn   string // "", warning, critical
	ProcRoot string
	SysRoot  string
	EtcRoot  string
	Root     string // fixture tree: sets the three roots to DIR/proc, DIR/sys, DIR/etc
	List     bool
	All      bool
	OutFile  string
	// Now is the clock; tests pin it for golden output.
	Now func() time.Time
	// Remote is --host and how to reach it.
	Remote hostOptions
	// Probe is a probe folder of this host whose figures the findings
	// cite; "" looks for the newest finished probe of this host in the
	// catalog (Catalog, default the runs' catalog; not with NoCatalog)
	// and under ProbeRoot (default probe.DefaultRoot).
	Probe     string
	ProbeRoot string
	Catalog   string
	NoCatalog bool
}

func newCheckCmd(env *Env) *cobra.Command {
	o := &CheckOptions{}
	cmd := &cobra.Command{
		Use:   "check",
		Short: helpText(finding.T("Audit this host's setup for a Java service against the knowledge base", "对照知识库审计本机运行 Java 服务的配置")),
		Long: helpText(finding.T(
			`Audit the host (CPU, power, NUMA, memory, THP, kernel, sysctls, cgroups, NIC
queues and IRQs, disks, limits, running JVMs and their logging configurations)
and print ranked findings, each with what was seen and where, why it matters,
the exact fix, how to revert it and the risk. Read-only: check never changes
the host.

Exit status: 0 when the audit ran (whatever it found), 3 when --fail-on is
given and a finding at or above that severity exists, 1 on error, 2 on bad
usage.`,
			`审计主机（CPU、电源管理、NUMA、内存、THP、内核、sysctl、cgroup、网卡队列与
中断、磁盘、资源限制、运行中的 JVM 及其日志配置），按优先级输出发现：每条发现
都说明看到了什么、在哪里看到、为什么重要、确切的修复方法、如何回退以及风险。
只读：check 从不修改主机。

退出码：审计完成时为 0（无论有何发现）；指定了 --fail-on 且存在达到或高于该
严重级别的发现时为 3；出错时为 1；用法错误时为 2。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop check
  tuneloop check --profile latency --lang zh
  tuneloop check --output json --fail-on critical
  tuneloop check --root testdata/hosts/kunpeng920-2s4n     # a captured tree
  tuneloop check --list --output markdown                  # the knowledge base
  tuneloop check --list --all --output markdown            # every rule set`,
			`  tuneloop check
  tuneloop check --profile latency --lang zh
  tuneloop check --output json --fail-on critical
  tuneloop check --root testdata/hosts/kunpeng920-2s4n     # 采集下来的主机目录树
  tuneloop check --list --output markdown                  # 知识库
  tuneloop check --list --all --output markdown            # 所有规则集`,
		)),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return RunCheck(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	outputFlag(f, &o.Output, report.CheckFormats())
	langFlag(f, &o.Lang)
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("workload profile: java-web, database or latency", "负载配置档：java-web、database 或 latency")))
	failOnFlag(f, &o.FailOn)
	o.hostRoots().flags(f)
	f.BoolVar(&o.List, "list", false, helpText(finding.T("print every rule with its ID and what it checks, then exit", "列出每条规则的 ID 及其检查内容，然后退出")))
	f.BoolVar(&o.All, "all", false, helpText(finding.T("text output: show what each passed and skipped check saw; with --list: every rule set (GC logs, thread dumps, logging configurations, recorded runs), not only the host's", "文本输出：同时显示每项通过和跳过的检查所看到的内容；与 --list 同用时：列出所有规则集（GC 日志、线程转储、日志配置、录制运行），而不只是主机的")))
	outFileFlag(f, &o.OutFile)
	catalogFlag(f, &o.Catalog, finding.T("catalog whose probes of this host are looked up", "在该运行记录目录中查找本机的探测结果"))
	f.BoolVar(&o.NoCatalog, "no-catalog", false, helpText(finding.T("do not look up probes in the catalog (only under ./probes)", "不在运行记录目录中查找探测结果（只在 ./probes 下查找）")))
	f.StringVar(&o.Probe, "probe", "", helpText(finding.T("a probe folder of this host ('tuneloop probe'): findings whose cause is a platform cost cite its figures (default: the newest finished probe of this host in the catalog, unless --no-catalog, or under ./probes)", "本机的探测目录（'tuneloop probe'）：原因是平台开销的发现会引用其中的指标（默认：运行记录目录中（除非 --no-catalog）或 ./probes 下本机最新的已完成探测结果）")))
	o.Remote.flags(cmd)
	return cmd
}

// RunCheck is the whole `check` command; tests call it directly.
func RunCheck(ctx context.Context, env *Env, o *CheckOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, report.CheckFormats())
	if err != nil {
		return err
	}
	profile, err := profileOpt(o.Profile)
	if err != nil {
		return err
	}
	if o.Remote.Host != "" {
		return runCheckRemote(ctx, env, o, lang)
	}
	if !o.List {
		if err := o.hostRoots().check(); err != nil {
			return err
		}
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	w := env.Stdout
	if o.OutFile != "" {
		fw, err := createOut(o.OutFile)
		if err != nil {
			return err
		}
		defer fw.Close()
		w = fw
	}
	if o.List && o.All {
		return writeRuleSets(w, format, lang)
	}
	if o.List {
		kb := rules.All()
		if err := rules.Validate(kb); err != nil {
			return err // a broken knowledge base is a bug; say so rather than list it
		}
		return report.WriteRuleList(w, finding.Infos(kb), format, lang)
	}
	h, source := o.roots()
	doc, err := session.Check(ctx, session.CheckOptions{FS: h, Source: source, Now: o.Now, Profile: profile,
		Probe: o.Probe, ProbeRoot: o.ProbeRoot, Catalog: o.Catalog, NoCatalog: o.NoCatalog, Getenv: env.Getenv,
		Note: func(t finding.Text) { fmt.Fprintln(env.Stderr, "tuneloop: "+t.In(lang)) }})
	if err != nil {
		return sessionErr(err)
	}
	if err = report.WriteCheck(w, doc, format, report.TextOptions{Lang: lang, All: o.All}); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if o.OutFile != "" {
		if err := closeOut(w); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("report written to", "报告已写入").In(lang), finding.SafeLine(o.OutFile))
	}
	if err := failOnGate(failOn, doc.Findings); err != nil {
		return err
	}
	return ctx.Err()
}

// hostRoots are check's --proc-root, --sys-root, --etc-root and --root.
func (o *CheckOptions) hostRoots() hostRoots {
	return hostRoots{Proc: &o.ProcRoot, Sys: &o.SysRoot, Etc: &o.EtcRoot, Root: &o.Root}
}

// roots is the host to audit and how the report names it.
func (o *CheckOptions) roots() (hostfs.FS, string) {
	if o.Root != "" {
		return hostfs.Under(o.Root), o.Root
	}
	h := o.hostRoots().fs()
	if h.IsLive() && h.Sys == "/sys" && h.Etc == "/etc" {
		return h, "live"
	}
	return h, fmt.Sprintf("proc=%s sys=%s etc=%s", h.Proc, h.Sys, h.Etc)
}

// writeRuleSets lists every rule of every set (`check --list --all`).
func writeRuleSets(w io.Writer, f report.Format, lang finding.Lang) error {
	sets, err := report.RuleSets()
	if err != nil {
		return err // an invalid rule set is a bug; say so rather than document it
	}
	return report.WriteRuleSets(w, sets, f, lang)
}
