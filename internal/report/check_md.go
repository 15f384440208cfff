package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// writeCheckMarkdown renders a check as a Markdown document: a summary
// table, every failure with its fix in a shell block, then what could not
// be checked, what passed and what did not apply.
func writeCheckMarkdown(w io.Writer, c *Check, l finding.Lang) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	fmt.Fprintf(bw, "# %s: %s\n\n", t("Host audit", "主机检查"), finding.SafeMarkdownText(c.Host.Hostname))
	fmt.Fprintf(bw, "%s\n\n", finding.SafeMarkdownText(c.Host.Line(l)))
	fmt.Fprintf(bw, "%s · tuneloop %s · %s\n\n", finding.SafeMarkdownText(summaryLine(c.Summary, c.Profile, l)),
		finding.SafeMarkdownText(c.Tool.Version), c.GeneratedAt.Format("2006-01-02 15:04:05 MST"))

	var fails []*finding.Finding
	for i := range c.Findings {
		if c.Findings[i].Status == finding.Fail {
			fails = append(fails, &c.Findings[i])
		}
	}
	if len(fails) == 0 {
		fmt.Fprintf(bw, "%s\n\n", checkVerdict(c.Summary).In(l))
	} else {
		fmt.Fprintf(bw, "## %s\n\n| # | %s | %s | %s |\n|---|---|---|---|\n", t("Findings", "发现"),
			t("severity", "级别"), t("check", "检查项"), t("what was seen", "现状"))
		for i, f := range fails {
			fmt.Fprintf(bw, "| %d | %s | [%s](#%s) | %s |\n", i+1, f.Severity.Label(l), finding.SafeMarkdown(f.Key()),
				Anchor(f.Key()), finding.SafeMarkdown(f.Observed.In(l)))
		}
		bw.WriteString("\n")
		for _, f := range fails {
			writeFindingMarkdown(bw, f, l)
		}
	}

	section := func(title finding.Text, st finding.Status, detail func(*finding.Finding) string) {
		var rows []*finding.Finding
		for i := range c.Findings {
			if c.Findings[i].Status == st {
				rows = append(rows, &c.Findings[i])
			}
		}
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(bw, "## %s (%d)\n\n| %s | %s |\n|---|---|\n", title.In(l), len(rows), t("check", "检查项"), t("detail", "说明"))
		for _, f := range rows {
			fmt.Fprintf(bw, "| %s | %s |\n", finding.SafeMarkdown(f.Key()), finding.SafeMarkdown(detail(f)))
		}
		bw.WriteString("\n")
	}
	section(finding.T("Could not check", "无法检查"), finding.Unavailable, func(f *finding.Finding) string { return f.Reason.In(l) })
	section(finding.T("Passed", "已通过"), finding.Pass, func(f *finding.Finding) string { return f.Observed.In(l) })
	section(finding.T("Not applicable", "不适用"), finding.Skipped, func(f *finding.Finding) string { return f.Reason.In(l) })
	return bw.Flush()
}

func writeFindingMarkdown(w *bufio.Writer, f *finding.Finding, l finding.Lang) {
	fmt.Fprintf(w, "<a id=\"%s\"></a>\n### %s: %s\n\n", Anchor(f.Key()), finding.SafeMarkdownText(f.Key()), finding.SafeMarkdownText(f.Title.In(l)))
	fmt.Fprintf(w, "**%s** · %s\n\n", f.Severity.Label(l), finding.SafeMarkdownText(f.Category))
	para := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			fmt.Fprintf(w, "- **%s**: %s\n", label(k, l), finding.SafeMarkdownText(v))
		}
	}
	para("seen", f.Observed.In(l))
	for _, e := range f.Evidence {
		src := ""
		if e.Source != "" {
			src = " (`" + finding.SafeMarkdownSpan(e.Source) + "`)"
		}
		fmt.Fprintf(w, "  - `%s` = `%s`%s\n", finding.SafeMarkdownSpan(e.Key), finding.SafeMarkdownSpan(e.Value), src)
	}
	para("why", f.Why.In(l))
	para("recommend", f.Recommended.In(l))
	para("risk", f.Risk.In(l))
	para("for", f.Workload.In(l))
	para("ref", strings.Join(f.References, "; "))
	w.WriteString("\n")
	block := func(k, v string) {
		if v = strings.TrimSpace(finding.Safe(v)); v != "" {
			fence := fenceFor(v)
			fmt.Fprintf(w, "%s:\n\n%ssh\n%s\n%s\n\n", label(k, l), fence, v, fence)
		}
	}
	block("apply", f.Fix.Apply)
	block("revert", f.Fix.Revert)
	block("persist", f.Fix.Persist)
	if note := f.Fix.Note.In(l); note != "" || f.Fix.Reboot {
		if f.Fix.Reboot {
			note = strings.TrimSpace(label("reboot", l) + ". " + note)
		}
		fmt.Fprintf(w, "%s: %s\n\n", label("note", l), finding.SafeMarkdownText(note))
	}
}

// fenceFor returns a backtick fence longer than any run inside v.
func fenceFor(v string) string {
	longest, run := 0, 0
	for _, r := range v {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Anchor makes an HTML id from a finding key (Markdown and HTML reports).
func Anchor(key string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(key) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
