package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TextOptions tunes the terminal rendering.
type TextOptions struct {
	Lang finding.Lang
	// All prints passed and skipped checks in full, not just by ID.
	All bool
}

// writeCheckText renders a check for a terminal: failures in full (ranked),
// then what could not be read and why, then the passed and skipped IDs.
func writeCheckText(w io.Writer, c *Check, o TextOptions) error {
	bw := bufio.NewWriter(w)
	l := o.Lang
	title := "tuneloop check"
	if l == finding.ZH {
		title = "tuneloop 主机检查"
	}
	fmt.Fprintf(bw, "%s — %s\n%s\n", title, finding.SafeOneLine(c.Host.Line(l)), summaryLine(c.Summary, c.Profile, l))

	var unavailable, passed, skipped []*finding.Finding
	for i := range c.Findings {
		f := &c.Findings[i]
		switch f.Status {
		case finding.Fail:
			writeFindingText(bw, f, l)
		case finding.Unavailable:
			unavailable = append(unavailable, f)
		case finding.Pass:
			passed = append(passed, f)
		case finding.Skipped:
			skipped = append(skipped, f)
		}
	}
	if c.Summary.Fail == 0 {
		fmt.Fprintf(bw, "\n%s\n", checkVerdict(c.Summary).In(l))
	}
	if len(unavailable) > 0 {
		fmt.Fprintf(bw, "\n%s (%d):\n", finding.T("Could not check", "无法检查").In(l), len(unavailable))
		for _, f := range unavailable {
			fmt.Fprintf(bw, "  %s %s\n", padRight(finding.SafeOneLine(f.Key()), 34), finding.SafeOneLine(f.Reason.In(l)))
		}
	}
	for _, grp := range []struct {
		name finding.Text
		fs   []*finding.Finding
	}{
		{finding.T("Passed", "已通过"), passed},
		{finding.T("Not applicable", "不适用"), skipped},
	} {
		if len(grp.fs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%s (%d):\n", grp.name.In(l), len(grp.fs))
		if o.All {
			for _, f := range grp.fs {
				line := finding.SafeOneLine(f.Observed.In(l))
				if f.Status == finding.Skipped {
					line = finding.SafeOneLine(f.Reason.In(l))
				}
				fmt.Fprintf(bw, "  %s %s\n", padRight(finding.SafeOneLine(f.Key()), 34), line)
			}
			continue
		}
		writeWrapped(bw, "  ", keys(grp.fs), 100)
	}
	if !o.All && (len(passed) > 0 || len(skipped) > 0) {
		fmt.Fprintf(bw, "\n%s\n", finding.T("(--all shows what each passed check saw)",
			"（加 --all 可查看每项通过检查的读数）").In(l))
	}
	return bw.Flush()
}

func writeFindingText(w *bufio.Writer, f *finding.Finding, l finding.Lang) {
	head := fmt.Sprintf("[%s] %s", strings.ToUpper(f.Severity.Label(l)), f.ID)
	if l == finding.ZH {
		head = fmt.Sprintf("[%s] %s", f.Severity.Label(l), f.ID)
	}
	if f.Subject != "" {
		head += " (" + finding.SafeOneLine(f.Subject) + ")"
	}
	fmt.Fprintf(w, "\n%s  %s\n", head, finding.SafeOneLine(f.Title.In(l)))
	field := func(k, v string) {
		if v = strings.TrimSpace(finding.Safe(v)); v == "" {
			return
		}
		lines := strings.Split(v, "\n")
		fmt.Fprintf(w, "  %s %s\n", padRight(label(k, l)+":", 10), lines[0])
		for _, ln := range lines[1:] {
			fmt.Fprintf(w, "  %s %s\n", padRight("", 10), ln)
		}
	}
	field("seen", f.Observed.In(l))
	if len(f.Evidence) > 0 {
		var ev []string
		for _, e := range f.Evidence {
			s := e.Key + "=" + e.Value
			if e.Source != "" {
				s += "  (" + e.Source + ")"
			}
			ev = append(ev, s)
		}
		field("evidence", strings.Join(ev, "\n"))
	}
	field("why", f.Why.In(l))
	field("recommend", f.Recommended.In(l))
	field("apply", f.Fix.Apply)
	field("revert", f.Fix.Revert)
	field("persist", f.Fix.Persist)
	field("note", f.Fix.Note.In(l))
	if f.Fix.Reboot {
		field("note", label("reboot", l))
	}
	field("risk", f.Risk.In(l))
	field("for", f.Workload.In(l))
	field("ref", strings.Join(f.References, "; "))
}

func keys(fs []*finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = finding.SafeOneLine(f.Key())
	}
	return out
}

// writeWrapped prints words separated by ", " in lines of at most width.
func writeWrapped(w *bufio.Writer, indent string, words []string, width int) {
	line := indent
	for i, word := range words {
		sep := ", "
		if i == len(words)-1 {
			sep = ""
		}
		if len(line)+len(word)+len(sep) > width && line != indent {
			fmt.Fprintln(w, strings.TrimRight(line, " "))
			line = indent
		}
		line += word + sep
	}
	fmt.Fprintln(w, line)
}

// padRight pads s to width terminal columns (finding.PadRight, the one
// width helper), so Chinese labels line up.
func padRight(s string, width int) string { return finding.PadRight(s, width) }

// writeCheckJSON writes the versioned JSON document (both languages inside).
func writeCheckJSON(w io.Writer, c *Check) error { return WriteJSON(w, c) }

// WriteCheck writes the check document in f (CheckFormats), the one switch
// every format of it comes from.
func WriteCheck(w io.Writer, c *Check, f Format, o TextOptions) error {
	switch f {
	case JSON:
		return writeCheckJSON(w, c)
	case Markdown:
		return writeCheckMarkdown(w, c, o.Lang)
	}
	return writeCheckText(w, c, o)
}
