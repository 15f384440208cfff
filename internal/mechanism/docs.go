package mechanism

import (
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// WriteMarkdown writes the catalogue as docs/mechanisms.md: a table of the
// entries, then each entry's signature, mechanism, fixes, trade-off and
// references in both languages.
func WriteMarkdown(w io.Writer, es []Entry) {
	cell := finding.SafeMarkdown
	fmt.Fprintf(w, "# tuneloop: the mechanism catalogue\n\nGenerated from internal/mechanism (`go test ./internal/mechanism -update`); do not edit by hand.\n由 internal/mechanism 生成，请勿手工修改。\n\n")
	fmt.Fprintf(w, "%d mechanisms. The verdict names the one behind the largest share of the request threads' time (JFR samples and events, thread dumps), read against the CPUs' saturation; a queue while the CPUs are saturated and running is the larger share is named as a symptom. Generic entries rank behind specific ones. Each share is read from the source (JFR or the dumps) whose evidence supports it best (its 95%% lower bound), so a few snapshots never outrank thousands of events.\n\n", len(es))
	fmt.Fprintf(w, "| ID | family | name | 名称 |\n|---|---|---|---|\n")
	for _, e := range es {
		g := ""
		if e.Generic {
			g = " (generic)"
		}
		fmt.Fprintf(w, "| `%s` | %s%s | %s | %s |\n", e.ID, e.Family, g, cell(e.Name.EN), cell(e.Name.ZH))
	}
	for _, e := range es {
		r := e.Rule()
		fmt.Fprintf(w, "\n## `%s`\n\n%s / %s\n\n", e.ID, e.Name.EN, e.Name.ZH)
		fmt.Fprintf(w, "- **signature**: %s\n- **reads**: %s\n", cell(r.Checks.EN), strings.Join(r.Reads, ", "))
		fmt.Fprintf(w, "- **mechanism**: %s<br>%s\n", cell(e.Mechanism.EN), cell(e.Mechanism.ZH))
		for _, f := range e.Fixes {
			fw := f.Framework
			if fw == "" {
				fw = "any"
			}
			fmt.Fprintf(w, "- **fix (%s)**: %s<br>%s\n", fw, cell(f.Do.EN), cell(f.Do.ZH))
			if f.Apply != "" {
				fmt.Fprintf(w, "  - apply: `%s`\n", strings.ReplaceAll(f.Apply, "`", "'"))
			}
		}
		fmt.Fprintf(w, "- **trade-off**: %s<br>%s\n- **references**: %s\n", cell(e.Tradeoff.EN), cell(e.Tradeoff.ZH), cell(strings.Join(e.References, "; ")))
	}
}
