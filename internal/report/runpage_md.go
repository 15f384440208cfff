package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// WriteRunPageMarkdown renders a run page as Markdown: the verdict, the
// load, the GC and lock summaries, then the run's findings and host audit.
func WriteRunPageMarkdown(w io.Writer, p *RunPage) error {
	bw := bufio.NewWriter(w)
	l := p.Lang
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
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
		tp := "–" // -1: not measurable (no timestamps, or no pause yet)
		if g.ThroughputPct >= 0 {
			tp = fmt.Sprintf("%.2f%%", g.ThroughputPct)
		}
		fmt.Fprintf(bw, "## GC\n\n%s %s, %s %s, %d %s, p99 %.1f ms, max %.1f ms, full GC %d. %s\n\n", t("collector", "收集器"), finding.SafeMarkdownText(g.Collector),
			t("throughput", "吞吐率"), tp, g.Pauses, t("pauses", "次停顿"), g.PauseP99MS, g.PauseMaxMS, g.FullGCs, finding.SafeMarkdownText(g.Verdict.In(l)))
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
	if err := bw.Flush(); err != nil {
		return err
	}
	if p.Run != nil {
		if err := WriteRunMarkdown(w, p.Run, l); err != nil {
			return err
		}
	}
	if len(p.Check) > 0 {
		fmt.Fprintf(w, "\n## %s\n\n", t("Host audit (tuneloop check)", "主机检查（tuneloop check）"))
		for _, f := range p.Check {
			fmt.Fprintf(w, "- **%s** %s: %s\n", f.Severity.Label(l), finding.SafeMarkdownText(f.Key()), finding.SafeMarkdownText(finding.SafeOneLine(f.Observed.In(l))))
		}
	}
	return nil
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
			fmt.Fprintf(bw, "| %s `%s` | %.0f%% | `%s` | %s %s |\n", finding.SafeMarkdown(name), m.ID, m.Share, strings.ReplaceAll(m.Code, "`", "'"), finding.SafeMarkdown(m.Support), finding.SafeMarkdown(m.Source))
		}
	}
	bw.WriteString("\n")
}
