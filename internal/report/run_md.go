package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// writeRunMarkdown is the run document's one Markdown writer: the page's
// verdict, time account, load, GC and locks (not in a brief), the run's
// summary (header, a table of the ranked findings, then each with its
// evidence and fix), the host audit and the hosts of a multi-host run.
func writeRunMarkdown(w io.Writer, p *RunPage) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(p.Lang) }
	if !p.Brief {
		writeRunPageMarkdown(bw, p, t)
	}
	if p.Run != nil {
		writeRunSummaryMarkdown(bw, p.Run, p.Lang, t)
	}
	if !p.Brief && len(p.Check) > 0 {
		fmt.Fprintf(bw, "\n## %s\n\n", t("Host audit (tuneloop check)", "主机检查（tuneloop check）"))
		for _, f := range p.Check {
			fmt.Fprintf(bw, "- **%s** %s: %s\n", f.Severity.Label(p.Lang), finding.SafeMarkdownText(f.Key()), finding.SafeMarkdownText(finding.SafeOneLine(f.Observed.In(p.Lang))))
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if p.Hosts != nil {
		return writeHostsMarkdown(w, p.Hosts, p.Lang)
	}
	return nil
}

// writeRunSummaryMarkdown is the run's summary: the run, a table of the
// ranked findings, then each with its evidence and fix.
func writeRunSummaryMarkdown(bw *bufio.Writer, r *RunSummary, l finding.Lang, t func(en, zh string) string) {
	fmt.Fprintf(bw, "# %s: %s\n\n", t("Run", "运行记录"), finding.SafeMarkdownText(r.ID))
	fmt.Fprintf(bw, "%s\n\n", finding.SafeMarkdownText(r.Host.Line(l)))
	end := ""
	if !r.End.IsZero() {
		end = " – " + r.End.UTC().Format("15:04:05")
	}
	fmt.Fprintf(bw, "- %s: `%s`\n- %s: %s%s UTC · %s `%s`\n", t("folder", "目录"), finding.SafeMarkdownSpan(r.Dir),
		t("time", "时间"), r.Start.UTC().Format("2006-01-02 15:04:05"), end, t("status", "状态"), finding.SafeMarkdownSpan(r.Status))
	if r.Command != "" {
		fmt.Fprintf(bw, "- %s: `%s`\n", t("command", "命令"), finding.SafeMarkdownSpan(r.Command))
	}
	if r.TargetPID != 0 {
		fmt.Fprintf(bw, "- %s: %s (pid %d)\n", t("target", "目标"), finding.SafeMarkdownText(r.TargetComm), r.TargetPID)
	}
	s := r.Stats
	fmt.Fprintf(bw, "- CPU: %s %.1f%% (%s %.1f%%) · us %.1f%% · sy %.1f%% · si+hi %.1f%% · wa %.1f%% · st %.1f%%\n",
		t("busy", "忙"), s.Busy, t("peak", "峰值"), s.PeakBusy, s.User, s.System, s.Soft, s.Iowait, s.Steal)
	if len(s.Top) > 0 {
		var parts []string
		for _, th := range s.Top {
			parts = append(parts, fmt.Sprintf("`%s` tid=%d nid=0x%x %.1f%%", finding.SafeMarkdownSpan(th.Name), th.TID, th.TID, th.CPUPct))
		}
		fmt.Fprintf(bw, "- %s: %s\n", t("hottest threads", "最热线程"), strings.Join(parts, ", "))
	}
	bw.WriteString("\n")
	if r.Incomplete {
		fmt.Fprintf(bw, "> **%s**\n\n", t("Incomplete: the recorder stopped without finishing (killed?); diagnosed the samples that were saved.",
			"不完整：记录进程未正常结束（被杀？）；仅根据已保存的采样诊断。"))
	}
	var fails []*finding.Finding
	for i := range r.Findings {
		if r.Findings[i].Status == finding.Fail {
			fails = append(fails, &r.Findings[i])
		}
	}
	if len(fails) == 0 {
		fmt.Fprintf(bw, "%s\n", t("No bottleneck found in this run: nothing crossed a diagnosis threshold.", "本次记录未发现瓶颈：没有指标超过诊断阈值。"))
		return
	}
	fmt.Fprintf(bw, "## %s\n\n| # | %s | %s | %s | %s |\n|---|---|---|---|---|\n", t("Findings", "诊断"),
		t("severity", "级别"), t("confidence", "置信度"), t("finding", "诊断项"), t("what was seen", "现状"))
	for i, f := range fails {
		fmt.Fprintf(bw, "| %d | %s | %.0f%% | [%s](#%s) | %s |\n", i+1, f.Severity.Label(l), 100*f.Confidence, finding.SafeMarkdown(f.Key()),
			Anchor(f.Key()), finding.SafeMarkdown(f.Observed.In(l)))
	}
	bw.WriteString("\n")
	for _, f := range fails {
		writeFindingMarkdown(bw, f, l)
	}
}

// writeRunPageMarkdown is what the page of `run` adds before the run's
// summary: the verdict, the time account, the load, the GC and the locks.
func writeRunPageMarkdown(bw *bufio.Writer, p *RunPage, t func(en, zh string) string) {
	l := p.Lang
	fmt.Fprintf(bw, "# %s\n\n", finding.SafeMarkdownText(p.Title))
	if v := p.Verdict; v != nil {
		fmt.Fprintf(bw, "## %s %s\n\n", t("Verdict:", "结论："), finding.SafeMarkdownText(v.Title.In(l)))
		for _, line := range strings.Split(v.Observed.In(l), "\n") {
			fmt.Fprintf(bw, "- %s\n", finding.SafeMarkdownText(line))
		}
		if rec := v.Recommended.In(l); rec != "" {
			fmt.Fprintf(bw, "\n**%s** %s\n", t("Fix:", "修复："), finding.SafeMarkdownText(rec))
		}
		if v.Fix.Apply != "" {
			fence := fenceFor(v.Fix.Apply)
			fmt.Fprintf(bw, "\n%s\n%s\n%s\n", fence, finding.Safe(v.Fix.Apply), fence)
		}
		if r := v.Risk.In(l); r != "" {
			fmt.Fprintf(bw, "\n**%s** %s\n", t("Trade-off:", "代价："), finding.SafeMarkdownText(r))
		}
		bw.WriteString("\n")
	} else {
		fmt.Fprintf(bw, "## %s\n\n", t("Verdict: no bottleneck found", "结论：未发现瓶颈"))
	}
	writeAccountMarkdown(bw, p, t)
	if lv := p.Load; lv != nil {
		fmt.Fprintf(bw, "## %s\n\n| %s | TPS | p50 | p90 | p99 | max | %s |\n|---|---|---|---|---|---|---|\n", t("Load", "负载"), t("requests", "请求数"), t("errors", "错误"))
		fmt.Fprintf(bw, "| %d | %.1f | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %d |\n\n", lv.Requests, lv.TPS, lv.P50MS, lv.P90MS, lv.P99MS, lv.MaxMS, lv.Errors)
	}
	if g := p.GC; g != nil {
		fmt.Fprintf(bw, "## GC\n\n%s\n\n", finding.SafeMarkdownText(g.Line(l)))
	}
	if len(p.Locks) > 0 {
		fmt.Fprintf(bw, "## %s\n\n", t("Contended locks", "竞争的锁"))
		// The recording's most waited locks first, one line each.
		for _, line := range LockWaitLines(p) {
			fmt.Fprintf(bw, "- %s\n", finding.SafeMarkdownText(line.In(l)))
		}
		if len(LockWaitLines(p)) > 0 {
			bw.WriteString("\n")
		}
		if withJFR := p.Locks[0].Source != ""; withJFR {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n|---|---|---|---|---|\n", t("waiters", "等待者"), t("waited (JFR)", "等待时间（JFR）"), t("lock", "锁"), t("owner", "持有者"), t("owner runs", "持有者在执行"))
		} else {
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n|---|---|---|---|\n", t("waiters", "等待者"), t("lock", "锁"), t("owner", "持有者"), t("owner runs", "持有者在执行"))
		}
		for _, r := range p.Locks {
			if r.Source == "" {
				fmt.Fprintf(bw, "| %d | %s %s | %s | %s |\n", r.Waiters, finding.SafeMarkdown(r.Class), finding.SafeMarkdown(r.Lock), finding.SafeMarkdown(r.Owner), finding.SafeMarkdown(r.OwnerFrame))
				continue
			}
			waited := "–"
			if w := r.Wait; w != nil {
				waited = fmt.Sprintf("%s, %d %s", waitedText(w.WaitedMS), w.Events, t("events", "个事件"))
			}
			fmt.Fprintf(bw, "| %d | %s | %s %s (%s) | %s | %s |\n", r.Waiters, waited, finding.SafeMarkdown(r.Class), finding.SafeMarkdown(r.Lock), sourceText(r.Source).In(l), finding.SafeMarkdown(r.Owner), finding.SafeMarkdown(r.OwnerFrame))
		}
		bw.WriteString("\n")
	}
}

// writeAccountMarkdown is the time account: a row per thread role with its
// time by state, then the mechanisms matched, the verdict's first.
func writeAccountMarkdown(bw *bufio.Writer, p *RunPage, t func(en, zh string) string) {
	if len(p.Account) == 0 {
		return
	}
	fmt.Fprintf(bw, "## %s\n\n| %s | %s | %s | %s |\n|---|---|---|---|\n", t("Where the threads' time went", "线程时间去向"),
		t("role", "角色"), t("threads", "线程数"), t("time by state", "按状态划分的时间"), t("source", "来源"))
	for _, r := range p.Account {
		var parts []string
		for _, x := range r.Parts {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", x.State, x.Pct))
		}
		fmt.Fprintf(bw, "| %s %s | %d | %s | %s |\n", finding.SafeMarkdown(r.Role), finding.SafeMarkdown(r.Pool), r.Threads, finding.SafeMarkdown(strings.Join(parts, ", ")), finding.SafeMarkdown(r.Source))
	}
	if len(p.Mechanisms) > 0 {
		fmt.Fprintf(bw, "\n| %s | %s | %s | %s |\n|---|---|---|---|\n", t("mechanism", "机制"), t("share of time", "时间份额"), t("code line", "代码行"), t("rests on", "依据"))
		for _, m := range p.Mechanisms {
			name := m.Name.In(p.Lang)
			if m.Symptom {
				name += " (" + t("symptom of saturated CPUs", "CPU 饱和的表现") + ")"
			}
			fmt.Fprintf(bw, "| %s `%s` | %.0f%% | `%s` | %s %s |\n", finding.SafeMarkdown(name), m.ID, m.Share, finding.SafeMarkdownCode(m.Code), finding.SafeMarkdown(m.Support), finding.SafeMarkdown(m.Source))
		}
	}
	bw.WriteString("\n")
}
