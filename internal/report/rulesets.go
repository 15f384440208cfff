package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/mechanism"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/native"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// RuleSet is one set of rules of the one shape (finding.Rule over one kind
// of evidence), for `check --list --all` and docs/findings.md.
type RuleSet struct {
	Name string `json:"name"`
	// Reads says what evidence the set is evaluated on, Command which
	// command evaluates it.
	Title   finding.Text `json:"title"`
	Reads   finding.Text `json:"reads"`
	Command string       `json:"command"`
	Rules   []RuleInfo   `json:"rules"`
}

// registered are the rule sets of packages report cannot import because
// they import report to write their documents (porting), each added by
// its package's init: the binary links them all, so `check --list --all`
// and docs/findings.md list them.
var registered []func() (RuleSet, error)

// RegisterRuleSet adds the set set returns (with its validation error) to
// RuleSets, after the sets report imports itself.
func RegisterRuleSet(set func() (RuleSet, error)) { registered = append(registered, set) }

// RuleSets lists every rule set tuneloop evaluates, each validated
// (finding.ValidateRules): an invalid set is a bug, returned as the error.
func RuleSets() ([]RuleSet, error) {
	var errs []string
	set := func(name string, title, reads finding.Text, command string, infos []RuleInfo, err error) RuleSet {
		if err != nil {
			errs = append(errs, name+": "+err.Error())
		}
		return RuleSet{Name: name, Title: title, Reads: reads, Command: command, Rules: infos}
	}
	kb, gc := rules.All(), gclog.Rules(gclog.DefaultThresholds())
	mech := mechanism.Rules()
	dump, series, lc := threaddump.Rules(), threaddump.SeriesRules(), logconf.Rules()
	vd, nat, cross := verdict.Rules(), native.Rules(), multihost.CrossRules()
	sets := []RuleSet{
		set("check", finding.T("The host knowledge base", "主机知识库"),
			finding.T("the host's /proc, /sys and /etc, its NICs, disks, limits and running JVMs", "主机的 /proc、/sys、/etc，网卡、磁盘、资源限制与运行中的 JVM"),
			"tuneloop check", finding.Infos(kb), rules.Validate(kb)),
		set("run", finding.T("A recorded run's diagnosis", "录制运行的诊断"),
			finding.T("a run folder's per-second samples (/proc and /sys over the run), its thread dumps and numa_maps", "运行目录中的逐秒采样（运行期间的 /proc 与 /sys）、线程转储与 numa_maps"),
			"tuneloop record / run / analyze RUN_DIR", diagnose.Infos(), diagnose.Validate()),
		set("verdict", finding.T("A recorded run's verdict", "录制运行的结论"),
			finding.T("a run folder's manifest (how the service ended), load.json, samples, thread dumps and GC logs, beside the diagnosis's findings; which cause is the root is decided in a fixed order (verdict/decision.go), the first that holds", "运行目录的清单（服务如何结束）、load.json、采样、线程转储与 GC 日志，以及诊断的结论；哪个原因是根因按固定顺序判定（verdict/decision.go），取第一个成立的"),
			"tuneloop record / run / analyze RUN_DIR / compare", finding.Infos(vd), verdict.Validate()),
		set("gc", finding.T("GC logs", "GC 日志"),
			finding.T("one JVM's GC log (JDK 8, unified, OpenJ9 verbose GC; rotated files joined), with the default thresholds", "一个 JVM 的 GC 日志（JDK 8、统一日志、OpenJ9 verbose GC；轮转文件合并），按默认阈值"),
			"tuneloop analyze gc.log", finding.Infos(gc), finding.ValidateRules(gc)),
		set("threaddump", finding.T("Thread dumps, one at a time", "线程转储（逐个）"),
			finding.T("one thread dump (jstack, jcmd Thread.print, JSON, javacore); over several dumps each problem is said once, from the dump that shows it best", "一次线程转储（jstack、jcmd Thread.print、JSON、javacore）；多次转储时每个问题只报告一次，取最能说明问题的那次"),
			"tuneloop analyze dump.txt / tuneloop jvm PID --dump N", finding.Infos(dump), finding.ValidateRules(dump)),
		set("threaddump-series", finding.T("Thread dumps over time", "多次线程转储"),
			finding.T("several dumps of one JVM taken over time", "同一 JVM 在不同时刻的多次转储"),
			"tuneloop analyze dump1.txt dump2.txt ...", finding.Infos(series), finding.ValidateRules(series)),
		set("logconf", finding.T("Logging configurations", "日志配置"),
			finding.T("a log4j 1.x, log4j2 (XML, properties) or logback configuration, with the JVM's options when known", "log4j 1.x、log4j2（XML、properties）或 logback 配置，已知时结合 JVM 参数"),
			"tuneloop analyze logback.xml / tuneloop check (the running JVMs')", finding.Infos(lc), finding.ValidateRules(lc)),
		set("hosts", finding.T("Across the hosts of one run", "同一运行的多台主机之间"),
			finding.T("the app host's thread dumps against the db host's per-second samples, on one timeline (both clocks measured)", "应用主机的线程转储对照数据库主机的逐秒采样，在同一时间线上（两台主机的时钟均已测量）"),
			"tuneloop run --host A --host B / record --host A --host B", finding.Infos(cross), finding.ValidateRules(cross)),
		set("native", finding.T("Native pathologies of a sampled process", "采样进程的原生代码问题"),
			finding.T("a process's stacks on the CPU (Java through its perf map, native and kernel) sampled with perf_event_open, the hot functions' code and the CPU's features (/proc/cpuinfo)", "用 perf_event_open 采样的进程 CPU 调用栈（Java 经 perf map，以及原生与内核栈）、热点函数的代码与 CPU 特性（/proc/cpuinfo）"),
			"tuneloop jvm PID --profile native", finding.Infos(nat), finding.ValidateRules(nat)),
		set("mechanism", finding.T("The mechanism catalogue of the diagnosis", "诊断的机制目录"),
			finding.T("one time account of the request threads (JFR samples and timed events, thread dumps) by role and state, with the GC's causes and the host's findings; the verdict names the best of them (docs/mechanisms.md)", "请求线程按角色与状态划分的时间账（JFR 采样与计时事件、线程转储），以及 GC 原因与主机诊断；结论给出其中最佳者（docs/mechanisms.md）"),
			"tuneloop run / analyze RUN_DIR / analyze dumps, .jfr, GC logs", finding.Infos(mech), mechanism.Validate(mechanism.Catalogue())),
	}
	for _, r := range registered {
		s, err := r()
		if err != nil {
			errs = append(errs, s.Name+": "+err.Error())
		}
		sets = append(sets, s)
	}
	seen := map[string]string{}
	for _, s := range sets {
		for _, r := range s.Rules {
			if other, dup := seen[r.ID]; dup {
				errs = append(errs, fmt.Sprintf("rule %s is in the sets %s and %s", r.ID, other, s.Name))
			}
			seen[r.ID] = s.Name
		}
	}
	if len(errs) > 0 {
		return sets, fmt.Errorf("rule sets: %s", strings.Join(errs, "; "))
	}
	return sets, nil
}

// writeRuleSetsText prints each set's heading, then its rules as
// WriteRuleListText does.
func writeRuleSetsText(w io.Writer, sets []RuleSet, l finding.Lang) error {
	n := 0
	for i, s := range sets {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		fmt.Fprintf(w, "== %s (%s): %s\n", s.Title.In(l), s.Command, finding.SafeOneLine(s.Reads.In(l)))
		if err := writeRuleListText(w, s.Rules, l); err != nil {
			return err
		}
		n += len(s.Rules)
	}
	_, err := fmt.Fprintf(w, "\n%d %s, %d %s\n", n, finding.T("rules", "条规则").In(l), len(sets), finding.T("sets", "个规则集").In(l))
	return err
}

// writeRuleSetsJSON writes every set as JSON.
func writeRuleSetsJSON(w io.Writer, sets []RuleSet) error { return WriteJSON(w, sets) }

// writeRuleSetsMarkdown writes docs/findings.md: every rule of every set,
// a table per set, then each rule's texts, what it reads and its
// references.
func writeRuleSetsMarkdown(w io.Writer, sets []RuleSet) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# tuneloop: every rule of every rule set\n\n")
	bw.WriteString("Generated by `tuneloop check --list --all --output markdown` (`make docs`); do not edit by hand.\n")
	bw.WriteString("由 `tuneloop check --list --all --output markdown` 生成，请勿手工修改。\n\n")
	bw.WriteString("Every check has one shape (`finding.Rule`): data (ID, severity, what it checks and reads, why, risk, workload, references) and one condition over its evidence, evaluated by one engine. Severity is the default when the check fails; a rule may escalate or lower it from what it sees. The host knowledge base is also in [rules.md](rules.md), with the profiles each rule applies to.\n\n")
	total := 0
	for _, s := range sets {
		total += len(s.Rules)
	}
	fmt.Fprintf(bw, "%d rules in %d sets.\n\n", total, len(sets))
	bw.WriteString("| set | evaluated by | reads | rules |\n|---|---|---|---|\n")
	for _, s := range sets {
		fmt.Fprintf(bw, "| [%s](#set-%s) | `%s` | %s<br>%s | %d |\n", finding.SafeMarkdown(s.Title.EN), Anchor(s.Name), s.Command, finding.SafeMarkdown(s.Reads.EN), finding.SafeMarkdown(s.Reads.ZH), len(s.Rules))
	}
	for _, s := range sets {
		fmt.Fprintf(bw, "\n<a id=\"set-%s\"></a>\n## %s / %s\n\n", Anchor(s.Name), finding.SafeMarkdownText(s.Title.EN), finding.SafeMarkdownText(s.Title.ZH))
		fmt.Fprintf(bw, "Evaluated by `%s` on %s.<br>%s\n\n", s.Command, finding.SafeMarkdownText(s.Reads.EN), finding.SafeMarkdownText(s.Reads.ZH))
		bw.WriteString("| ID | severity | checks | 检查内容 | reads |\n|---|---|---|---|---|\n")
		for i := range s.Rules {
			r := &s.Rules[i]
			fmt.Fprintf(bw, "| [%s](#%s) | %s | %s | %s | %s |\n", finding.SafeMarkdown(r.ID), Anchor(r.ID), r.Severity,
				finding.SafeMarkdown(r.Checks.EN), finding.SafeMarkdown(r.Checks.ZH), finding.SafeMarkdown(strings.Join(r.Reads, "; ")))
		}
		bw.WriteString("\n")
		writeRuleDetails(bw, s.Rules, "###", s.Name == "check")
	}
	return bw.Flush()
}

// WriteRuleSets writes every rule set (`check --list --all`) in f
// (CheckFormats), its one switch.
func WriteRuleSets(w io.Writer, sets []RuleSet, f Format, l finding.Lang) error {
	switch f {
	case JSON:
		return writeRuleSetsJSON(w, sets)
	case Markdown:
		return writeRuleSetsMarkdown(w, sets)
	}
	return writeRuleSetsText(w, sets, l)
}
