package porting

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// Report is the whole scan: one PathReport per PATH.
type Report struct {
	Schema  string        `json:"schema"`
	Tool    string        `json:"tool"`
	Version string        `json:"version"`
	Time    time.Time     `json:"time"`
	Target  string        `json:"target"`
	Paths   []*PathReport `json:"paths"`
}

// SchemaID names the JSON document format.
const SchemaID = "tuneloop.porting/v1"

// Worst returns the worst verdict over all paths (Pass when none).
func (r *Report) Worst() Verdict {
	w := Pass
	for _, p := range r.Paths {
		for i := range p.Results {
			if rank(p.Results[i].Verdict) > rank(w) {
				w = p.Results[i].Verdict
			}
		}
	}
	return w
}

// writeJSON writes the versioned JSON document.
func writeJSON(w io.Writer, r *Report) error {
	return report.WriteJSON(w, r)
}

func countsLine(p *PathReport, l finding.Lang) string {
	c := p.Counts()
	if l == finding.ZH {
		return fmt.Sprintf("阻断 %d，需升级 %d，待确认 %d，通过 %d（归档 %d，jar %d，类 %d，原生文件 %d）",
			c[Blocker], c[Upgrade], c[Confirm], c[Pass], p.Archives, p.Jars, p.Classes, p.Natives)
	}
	return fmt.Sprintf("%d blocker, %d upgrade, %d to confirm, %d pass (%d archives, %d jars, %d classes, %d native files)",
		c[Blocker], c[Upgrade], c[Confirm], c[Pass], p.Archives, p.Jars, p.Classes, p.Natives)
}

// writeText writes a terminal report; all=false hides passing components'
// evidence.
func writeText(w io.Writer, r *Report, l finding.Lang, all bool) error {
	bw := &errWriter{w: w}
	head := finding.T("tuneloop porting scan, target", "tuneloop 迁移扫描，目标平台").In(l)
	bw.printf("%s %s\n", head, finding.SafeLine(r.Target))
	for _, p := range r.Paths {
		bw.printf("\n== %s\n   %s\n", finding.SafeLine(p.Path), countsLine(p, l))
		if p.Error != "" {
			bw.printf("   %s: %s\n", finding.T("error", "错误").In(l), finding.SafeLine(p.Error))
		}
		for i := range p.Results {
			res := &p.Results[i]
			bw.printf("\n[%s] %s\n", strings.ToUpper(res.Verdict.Label(l)), finding.SafeLine(res.Finding.Title.In(l)))
			bw.printf("    %s: %s\n", finding.T("where", "位置").In(l), finding.SafeLine(res.Path))
			if res.Verdict == Pass && !all {
				continue
			}
			for _, e := range res.Finding.Evidence {
				if e.Source != "" && e.Source != res.Path {
					bw.printf("    - %s: %s  (%s)\n", finding.SafeLine(e.Key), finding.Safe(e.Value), finding.SafeLine(e.Source))
				} else {
					bw.printf("    - %s: %s\n", finding.SafeLine(e.Key), finding.Safe(e.Value))
				}
			}
			if n := res.Finding.Fix.Note.In(l); n != "" {
				bw.printf("    %s: %s\n", finding.T("fix", "修复").In(l), finding.Safe(n))
			}
			if a := res.Finding.Fix.Apply; a != "" {
				bw.printf("      $ %s\n", finding.Safe(a))
			}
			if rv := res.Finding.Fix.Revert; rv != "" {
				bw.printf("    %s: $ %s\n", finding.T("revert", "回退").In(l), finding.Safe(rv))
			}
		}
	}
	return bw.err
}

// writeMarkdown writes one table per PATH and the details below it.
func writeMarkdown(w io.Writer, r *Report, l finding.Lang) error {
	bw := &errWriter{w: w}
	bw.printf("# %s %s\n", finding.T("Porting scan for", "迁移扫描：").In(l), finding.SafeMarkdown(r.Target))
	for _, p := range r.Paths {
		bw.printf("\n## %s\n\n%s\n", finding.SafeMarkdown(p.Path), countsLine(p, l))
		if p.Error != "" {
			bw.printf("\n**%s:** %s\n", finding.T("Error", "错误").In(l), finding.SafeMarkdown(p.Error))
		}
		if len(p.Results) == 0 {
			continue
		}
		bw.printf("\n| %s | %s | %s | %s |\n|---|---|---|---|\n",
			finding.T("Verdict", "结论").In(l), finding.T("Component", "组件").In(l),
			finding.T("Finding", "发现").In(l), finding.T("Fix", "修复").In(l))
		for i := range p.Results {
			res := &p.Results[i]
			bw.printf("| %s | `%s` | %s | %s |\n", res.Verdict.Label(l), finding.SafeMarkdownCode(res.Component),
				finding.SafeMarkdown(res.Finding.Title.In(l)), finding.SafeMarkdown(res.Finding.Fix.Note.In(l)))
		}
		for i := range p.Results {
			res := &p.Results[i]
			if res.Verdict == Pass {
				continue
			}
			bw.printf("\n### %s: %s\n\n", res.Verdict.Label(l), finding.SafeMarkdown(res.Component))
			bw.printf("- %s: %s\n", finding.T("where", "位置").In(l), finding.SafeMarkdown(res.Path))
			for _, e := range res.Finding.Evidence {
				bw.printf("- %s: %s", finding.SafeMarkdown(e.Key), finding.SafeMarkdown(e.Value))
				if e.Source != "" {
					bw.printf(" (%s)", finding.SafeMarkdown(e.Source))
				}
				bw.printf("\n")
			}
			if a := res.Finding.Fix.Apply; a != "" {
				bw.printf("\n```sh\n%s\n```\n", finding.Safe(strings.ReplaceAll(a, "```", "` ` `")))
			}
		}
	}
	return bw.err
}

// JUnit XML (the schema Jenkins' junit step reads): one testsuite per PATH,
// one testcase per component, <failure> for blockers and upgrades.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// writeJUnit writes JUnit XML.
func writeJUnit(w io.Writer, r *Report, l finding.Lang) error {
	doc := junitSuites{Name: "tuneloop porting " + r.Target}
	for _, p := range r.Paths {
		// Names and paths come from the scanned files: through the sanitiser
		// (xml.Encoder leaves C1 and bidi controls raw).
		s := junitSuite{Name: finding.SafeLine(p.Path)}
		if !r.Time.IsZero() {
			s.Timestamp = r.Time.UTC().Format("2006-01-02T15:04:05")
		}
		if p.Error != "" {
			s.Cases = append(s.Cases, junitCase{Name: "read " + finding.SafeLine(p.Path), Classname: "porting.path",
				Error: &junitFailure{Message: finding.SafeLine(p.Error), Type: "error", Body: finding.Safe(p.Error)}})
			s.Errors++
		}
		for i := range p.Results {
			res := &p.Results[i]
			c := junitCase{Name: finding.SafeLine(res.Component + " (" + res.Path + ")"), Classname: "porting." + res.Kind}
			body := finding.Safe(detail(res, l))
			switch res.Verdict {
			case Blocker, Upgrade:
				c.Failure = &junitFailure{Message: finding.SafeLine(res.Verdict.Label(l) + ": " + res.Finding.Title.In(l)), Type: string(res.Verdict), Body: body}
				s.Failures++
			default:
				c.SystemOut = finding.SafeLine(res.Verdict.Label(l)+": "+res.Finding.Title.In(l)) + "\n" + body
			}
			s.Cases = append(s.Cases, c)
		}
		if len(s.Cases) == 0 {
			s.Cases = append(s.Cases, junitCase{Name: "no native code found", Classname: "porting.path",
				SystemOut: countsLine(p, l)})
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func detail(res *Result, l finding.Lang) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", finding.T("where", "位置").In(l), res.Path)
	for _, e := range res.Finding.Evidence {
		fmt.Fprintf(&b, "%s: %s", e.Key, e.Value)
		if e.Source != "" {
			fmt.Fprintf(&b, " (%s)", e.Source)
		}
		b.WriteString("\n")
	}
	if n := res.Finding.Fix.Note.In(l); n != "" {
		fmt.Fprintf(&b, "%s: %s\n", finding.T("fix", "修复").In(l), n)
	}
	if a := res.Finding.Fix.Apply; a != "" {
		fmt.Fprintf(&b, "$ %s\n", a)
	}
	return b.String()
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// Formats are what Write writes a porting report as.
func Formats() report.Formats {
	return report.Formats{report.Text, report.JSON, report.Markdown, report.JUnit}
}

// Write writes r in f (Formats), the one switch every format of the
// report comes from; all shows passing components' evidence in text.
func Write(w io.Writer, r *Report, f report.Format, l finding.Lang, all bool) error {
	switch f {
	case report.JSON:
		return writeJSON(w, r)
	case report.Markdown:
		return writeMarkdown(w, r, l)
	case report.JUnit:
		return writeJUnit(w, r, l)
	}
	return writeText(w, r, l, all)
}
