package analysis

// Every format of the analysis document, from one switch.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
)

// Formats are what Write writes, the default first.
func Formats() report.Formats {
	return report.Formats{report.Text, report.JSON, report.Markdown, report.HTML}
}

// Write renders r as format: text (the inputs not read, then each
// section), JSON, Markdown, or HTML (the GC logs' and thread dumps' page,
// self-contained; a UsageError when r has neither).
func Write(w io.Writer, r *Result, format report.Format) error {
	switch format {
	case report.JSON:
		return report.WriteJSON(w, r)
	case report.Markdown:
		return writeMarkdown(w, r)
	case report.HTML:
		return writeHTML(w, r)
	default:
		return writeText(w, r)
	}
}

// renderSections is each section's text, in order.
func (r *Result) renderSections() ([]string, error) {
	out := make([]string, 0, len(r.sections))
	for _, s := range r.sections {
		var b bytes.Buffer
		if err := s.write(&b); err != nil {
			return nil, err
		}
		out = append(out, b.String())
	}
	return out, nil
}

// writeText prints the inputs not read first, then each section.
func writeText(w io.Writer, r *Result) error {
	texts, err := r.renderSections()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	t := func(en, zh string) string { return finding.T(en, zh).In(r.lang) }
	for _, u := range r.Unreadable {
		fmt.Fprintf(&b, "%s%s\n", t("Not read: ", "未能读取："), finding.SafeLine(u.Message))
	}
	for _, u := range r.ReadInPart {
		fmt.Fprintf(&b, "%s%s%s\n", t("Read in part: ", "只读取了一部分："), finding.SafeLine(u.Message), t(" (what came before is analysed below)", "（之前的内容已在下面分析）"))
	}
	for _, in := range r.Read {
		if in.LongLines > 0 {
			fmt.Fprintf(&b, t("%s: %d lines longer than the line limit were cut\n", "%s：%d 行超过行长上限，已截断\n"), finding.SafeLine(in.Name), in.LongLines)
		}
	}
	var body bytes.Buffer
	for _, s := range texts {
		if body.Len() > 0 {
			body.WriteString("\n")
		}
		body.WriteString(s)
	}
	if b.Len() > 0 && body.Len() > 0 {
		b.WriteString("\n")
	}
	b.Write(body.Bytes())
	_, err = w.Write(b.Bytes())
	return err
}

// writeMarkdown is the same report as Markdown: each section's text in a
// fence (it is already sanitised; the fence outgrows any backticks in
// it), the findings as a table and one entry each.
func writeMarkdown(w io.Writer, r *Result) error {
	texts, err := r.renderSections()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(r.lang) }
	fmt.Fprintf(bw, "# tuneloop analyze\n\n")
	if len(r.Read) > 0 {
		fmt.Fprintf(bw, "| %s | %s | %s |\n|---|---|---|\n", t("Input", "输入"), t("Format", "格式"), t("Encoding", "编码"))
		for _, in := range r.Read {
			fmt.Fprintf(bw, "| %s | %s | %s |\n", finding.SafeMarkdown(in.Name), in.Format, in.Encoding)
		}
		bw.WriteString("\n")
	}
	for _, part := range []struct {
		title finding.Text
		list  []InputError
	}{{finding.T("Not read", "未能读取"), r.Unreadable}, {finding.T("Read in part", "只读取了一部分"), r.ReadInPart}} {
		if len(part.list) == 0 {
			continue
		}
		fmt.Fprintf(bw, "## %s\n\n", part.title.In(r.lang))
		for _, u := range part.list {
			fmt.Fprintf(bw, "- %s\n", finding.SafeMarkdown(u.Message))
		}
		bw.WriteString("\n")
	}
	for i, s := range r.sections {
		fence := "```"
		for strings.Contains(texts[i], fence) {
			fence += "`"
		}
		fmt.Fprintf(bw, "## %s\n\n%stext\n%s\n%s\n\n", s.title.In(r.lang), fence, strings.TrimRight(texts[i], "\n"), fence)
	}
	writeMarkdownFindings(bw, r.Findings, r.lang)
	return bw.Flush()
}

// writeMarkdownFindings is the findings' table, then each failed one's
// entry: what was seen, why, what to do, the risk, the command.
func writeMarkdownFindings(bw *bufio.Writer, fs []finding.Finding, l finding.Lang) {
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	fmt.Fprintf(bw, "## %s (%d)\n\n", t("Findings", "发现"), len(fs))
	if len(fs) > 0 {
		fmt.Fprintf(bw, "| %s | ID | %s | %s |\n|---|---|---|---|\n", t("Severity", "严重级别"), t("Status", "状态"), t("Title", "标题"))
		for i := range fs {
			f := &fs[i]
			fmt.Fprintf(bw, "| %s | `%s` | %s | %s |\n", f.Severity.Label(l), finding.SafeMarkdownCode(f.Key()), f.Status, finding.SafeMarkdown(f.Title.In(l)))
		}
		bw.WriteString("\n")
	}
	for i := range fs {
		f := &fs[i]
		if f.Status != finding.Fail {
			continue
		}
		fmt.Fprintf(bw, "### %s\n\n", finding.SafeMarkdown(f.Title.In(l)))
		for _, p := range []struct{ k, v string }{
			{t("Seen", "现象"), f.Observed.In(l)},
			{t("Why", "原因"), f.Why.In(l)},
			{t("Do", "建议"), f.Recommended.In(l)},
			{t("Risk", "风险"), f.Risk.In(l)},
		} {
			if strings.TrimSpace(p.v) != "" {
				fmt.Fprintf(bw, "- **%s**: %s\n", p.k, finding.SafeMarkdown(p.v))
			}
		}
		if f.Fix.Apply != "" {
			fmt.Fprintf(bw, "- **%s**: `%s`\n", t("Apply", "执行"), finding.SafeMarkdownSpan(f.Fix.Apply))
		}
		bw.WriteString("\n")
	}
}

// writeHTML writes the GC logs' and the thread dumps' page: one
// self-contained page, no network, in the report's language.
func writeHTML(w io.Writer, r *Result) error {
	var gc *report.GCPage
	if len(r.gcReports) > 0 {
		gc = report.NewGCPage(r.gcReports, r.gcEvents, r.lang)
	}
	var dp *report.DumpPage
	if r.dumps != nil && len(r.dumps.Dumps) > 0 {
		dp = report.NewDumpPage(r.dumps, r.lang)
	}
	if gc == nil && dp == nil {
		return usage(finding.T("-o html draws GC logs and thread dumps: none of the inputs is either", "-o html 只绘制 GC 日志与线程转储：输入中两者都没有"))
	}
	return html.WriteAnalyze(w, gc, dp)
}

func writeCmdlineText(w io.Writer, cmdline string, fs []finding.Finding, l finding.Lang) {
	fmt.Fprintf(w, "%s: %s\n", finding.T("JVM command line", "JVM 命令行").In(l), finding.SafeOneLine(cmdline))
	report.WriteJVMChecks(w, fs, l)
}
