package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// WriteRunMarkdown renders a run report as Markdown: the run, a table of
// the ranked findings, then each with its evidence and fix.
func WriteRunMarkdown(w io.Writer, r *Run, l finding.Lang) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	fmt.Fprintf(bw, "# %s: %s\n\n", t("Run", "运行记录"), finding.SafeMarkdownText(r.ID))
	fmt.Fprintf(bw, "%s\n\n", finding.SafeMarkdownText(r.Host.Line(l)))
	end := ""
	if !r.End.IsZero() {
		end = " – " + r.End.UTC().Format("15:04:05")
	}
	fmt.Fprintf(bw, "- %s: `%s`\n- %s: %s%s UTC · %s `%s`\n", t("folder", "目录"), mdCode(r.Dir),
		t("time", "时间"), r.Start.UTC().Format("2006-01-02 15:04:05"), end, t("status", "状态"), mdCode(r.Status))
	if r.Command != "" {
		fmt.Fprintf(bw, "- %s: `%s`\n", t("command", "命令"), mdCode(r.Command))
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
			parts = append(parts, fmt.Sprintf("`%s` tid=%d nid=0x%x %.1f%%", mdCode(th.Name), th.TID, th.TID, th.CPUPct))
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
		return bw.Flush()
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
	return bw.Flush()
}
