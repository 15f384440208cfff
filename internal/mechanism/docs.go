package mechanism

import (
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// WriteMarkdown writes the catalogue as docs/mechanisms.md: a table of the
// entries, then each entry's signature, mechanism, fixes, trade-off and
// references in both languages. Every value passes finding's Markdown
// escapers (SafeMarkdown for text, SafeMarkdownCode for a code span in a
// table cell); the rows are written as the project's other Markdown
// tables are, unpadded (finding.Table and Columns pad cells for a
// terminal).
func WriteMarkdown(w io.Writer, es []Entry) {
	cell, code := finding.SafeMarkdown, finding.SafeMarkdownCode
	fmt.Fprintf(w, "# tuneloop: the mechanism catalogue\n\nGenerated from internal/mechanism (`go test ./internal/mechanism -update`); do not edit by hand.\n由 internal/mechanism 生成，请勿手工修改。\n\n")
	fmt.Fprintf(w, "%d mechanisms. The verdict names the one behind the largest share of the request threads' time (JFR samples and events, thread dumps), read against the CPUs' saturation; a queue while the CPUs are saturated and running is the larger share is named as a symptom. Generic entries rank behind specific ones. Each share is read from the source (JFR or the dumps) whose evidence supports it best (its 95%% lower bound), so a few snapshots never outrank thousands of events.\n\n", len(es))
	fmt.Fprintf(w, "| ID | family | name | 名称 |\n|---|---|---|---|\n")
	for _, e := range es {
		g := ""
		if e.Generic {
			g = " (generic)"
		}
		fmt.Fprintf(w, "| `%s` | %s%s | %s | %s |\n", code(e.ID), cell(string(e.Family)), g, cell(e.Name.EN), cell(e.Name.ZH))
	}
	for _, e := range es {
		r := e.Rule()
		fmt.Fprintf(w, "\n## `%s`\n\n%s / %s\n\n", code(e.ID), cell(e.Name.EN), cell(e.Name.ZH))
		fmt.Fprintf(w, "- **signature**: %s\n- **reads**: %s\n", cell(r.Checks.EN), cell(strings.Join(r.Reads, ", ")))
		fmt.Fprintf(w, "- **mechanism**: %s<br>%s\n", cell(e.Mechanism.EN), cell(e.Mechanism.ZH))
		for _, f := range e.Fixes {
			fw := f.Framework
			if fw == "" {
				fw = "any"
			}
			fmt.Fprintf(w, "- **fix (%s)**: %s<br>%s\n", cell(fw), cell(f.Do.EN), cell(f.Do.ZH))
			if f.Apply != "" {
				fmt.Fprintf(w, "  - apply: %s\n", applyLines(f.Apply))
			}
		}
		fmt.Fprintf(w, "- **trade-off**: %s<br>%s\n- **references**: %s\n", cell(e.Tradeoff.EN), cell(e.Tradeoff.ZH), cell(strings.Join(e.References, "; ")))
	}
}

// applyLines writes a fix's literal lines as code spans, one a line
// (Markdown renders a line break inside a code span as a space, which
// would join two properties into one); outside a table only a backtick
// would end a span.
func applyLines(apply string) string {
	lines := strings.Split(strings.TrimSpace(apply), "\n")
	for i, l := range lines {
		lines[i] = "`" + strings.ReplaceAll(finding.SafeOneLine(l), "`", "'") + "`"
	}
	return strings.Join(lines, "<br>")
}
