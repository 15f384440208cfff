package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// NewRunBrief is the run document as `record` and `analyze RUN_DIR` print
// it: the run's summary alone (header, costs, findings), without the
// page's charts, so nothing beyond the decision is built.
func NewRunBrief(L *verdict.Layers, d *verdict.Decision, lang finding.Lang) *RunPage {
	r := NewRunSummary(L, d)
	return &RunPage{Lang: lang, Run: r, Brief: true, Folder: r.Dir}
}

// WriteRun writes the run document in f (RunFormats): the one switch every
// format of a run comes from but its HTML page (html.WriteRun). A brief's
// JSON is the run-report/v1 document, a page's run-page/v1.
func WriteRun(w io.Writer, p *RunPage, f Format) error {
	switch {
	case f == JSON && p.Brief:
		return writeRunSummaryJSON(w, p.Run)
	case f == JSON:
		return WriteJSON(w, p)
	case f == Markdown:
		return writeRunMarkdown(w, p)
	case p.Brief:
		return writeRunSummaryText(w, p.Run, p.Lang)
	}
	if err := writeRunPageText(w, p); err != nil {
		return err
	}
	if p.Hosts != nil {
		return writeHostsText(w, p.Hosts, p.Lang)
	}
	return nil
}

// writeRunPageText is what `run` prints: the verdict, the load, the top
// findings, the lock waits, the costs of measuring and where the page is.
func writeRunPageText(w io.Writer, p *RunPage) error {
	l := p.Lang
	t := func(en, zh string) string { return finding.T(en, zh).In(l) }
	fmt.Fprintf(w, "%s\n", finding.SafeOneLine(p.Title))
	if p.Load != nil {
		fmt.Fprintf(w, "%s: %.1f TPS, p50 %.1f ms, p99 %.1f ms, %s %d/%d (%s)\n", t("load", "负载"), p.Load.TPS, p.Load.P50MS, p.Load.P99MS,
			t("errors", "错误"), p.Load.Errors, p.Load.Requests, ModelText(p.Load.Model).In(l))
	}
	if v := p.Verdict; v != nil {
		fmt.Fprintf(w, "\n%s %s\n", t("VERDICT:", "结论："), v.Title.In(l))
		for _, line := range strings.Split(v.Observed.In(l), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
		if rec := v.Recommended.In(l); rec != "" {
			fmt.Fprintf(w, "  %s %s\n", t("fix:", "修复："), rec)
		}
		if v.Fix.Apply != "" {
			for _, line := range strings.Split(v.Fix.Apply, "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
		if r := v.Risk.In(l); r != "" {
			fmt.Fprintf(w, "  %s %s\n", t("trade-off:", "代价："), r)
		}
	} else {
		fmt.Fprintf(w, "\n%s\n", t("VERDICT: no bottleneck found in this run.", "结论：本次运行未发现瓶颈。"))
	}
	n := 0
	for _, f := range p.Run.Findings {
		if f.Status != finding.Fail || f.ID == verdict.ID {
			continue
		}
		if n == 0 {
			fmt.Fprintf(w, "\n%s\n", t("Findings (ranked):", "发现（按优先级）："))
		}
		if n++; n > 8 {
			fmt.Fprintf(w, "  ... %s\n", t("see the report for the rest", "其余见报告"))
			break
		}
		fmt.Fprintf(w, "  [%s] %s  %s\n", f.Severity.Label(l), finding.SafeLine(f.Key()), finding.SafeOneLine(f.Title.In(l)))
	}
	// The recording's most waited locks, one line each (none without JFR).
	if err := writeLockWaitsText(w, p); err != nil {
		return err
	}
	// Each cost of measuring for what it is: the recorder's, the load
	// generator's own, JFR and attach in the service.
	fmt.Fprintln(w)
	writeCosts(w, p.Run, l)
	if p.Folder == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s %s\n", t("report:", "报告："), filepath.Join(p.Folder, "report.html"))
	return err
}
