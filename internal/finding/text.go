package finding

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxEvidenceLines bounds the evidence printed under one finding.
const maxEvidenceLines = 10

// WriteText prints the failed findings of fs for a terminal, most severe
// first: title and key, what was seen, why, the recommendation, the exact
// change and its undo, the note, risk and workload, the evidence with where
// it was read, and the references. Every text goes through the one
// sanitiser. none, when set, is printed when no finding failed.
func WriteText(w io.Writer, fs []Finding, lang Lang, none Text) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return T(en, zh).In(lang) }
	fs = slices.Clone(fs)
	Sort(fs)
	block := func(label string, text string) {
		fmt.Fprintf(bw, "      %s:\n", label)
		for _, ln := range strings.Split(text, "\n") {
			fmt.Fprintf(bw, "        %s\n", SafeLine(ln))
		}
	}
	shown := false
	for _, f := range fs {
		if f.Status != Fail {
			continue
		}
		if !shown {
			fmt.Fprintf(bw, "%s:\n", t("Findings", "发现"))
			shown = true
		}
		fmt.Fprintf(bw, "  [%s] %s  (%s)\n", f.Severity.Label(lang), SafeLine(f.Title.In(lang)), SafeLine(f.Key()))
		fmt.Fprintf(bw, "      %s\n", Safe(f.Observed.In(lang)))
		if s := f.Why.In(lang); s != "" {
			fmt.Fprintf(bw, "      %s: %s\n", t("Why", "原因"), Safe(s))
		}
		if s := f.Recommended.In(lang); s != "" {
			fmt.Fprintf(bw, "      => %s\n", Safe(s))
		}
		if f.Fix.Apply != "" {
			block(t("Apply", "操作"), f.Fix.Apply)
		}
		if f.Fix.Revert != "" {
			block(t("Revert", "回退"), f.Fix.Revert)
		}
		if s := f.Fix.Note.In(lang); s != "" {
			fmt.Fprintf(bw, "      %s: %s\n", t("Note", "说明"), Safe(s))
		}
		if s := f.Risk.In(lang); s != "" {
			fmt.Fprintf(bw, "      %s: %s\n", t("Risk", "风险"), Safe(s))
		}
		if s := f.Workload.In(lang); s != "" {
			fmt.Fprintf(bw, "      %s: %s\n", t("Applies to", "适用"), Safe(s))
		}
		for i, e := range f.Evidence {
			if i == maxEvidenceLines {
				fmt.Fprintf(bw, "      - ... +%d\n", len(f.Evidence)-i)
				break
			}
			if e.Source != "" {
				fmt.Fprintf(bw, "      - %s: %s  [%s]\n", SafeLine(e.Key), Safe(e.Value), SafeLine(e.Source))
			} else {
				fmt.Fprintf(bw, "      - %s: %s\n", SafeLine(e.Key), Safe(e.Value))
			}
		}
		if len(f.References) > 0 {
			fmt.Fprintf(bw, "      %s: %s\n", t("References", "参考"), SafeLine(strings.Join(f.References, " ")))
		}
	}
	if !shown && !none.IsZero() {
		fmt.Fprintf(bw, "%s\n", none.In(lang))
	}
	return bw.Flush()
}
