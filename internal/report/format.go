package report

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Format is one rendering of a document: every document has one Write
// switch over the formats it lists (pprof's design: one report, one
// switch, every format from it).
type Format string

// The formats a document may list.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
	HTML     Format = "html"
	JUnit    Format = "junit"
)

// Formats is what one document can be written as, the default first.
// The command line validates --output against it and says it back in the
// same words, so the message cannot list a format the writer lacks.
type Formats []Format

// Parse is the format s names, when fs has it ("md" is Markdown, "xml"
// JUnit).
func (fs Formats) Parse(s string) (Format, bool) {
	f := Format(s)
	switch s { // the other names a person types
	case "md":
		f = Markdown
	case "xml":
		f = JUnit
	}
	for _, x := range fs {
		if x == f {
			return f, true
		}
	}
	return "", false
}

// Has says whether fs lists f.
func (fs Formats) Has(f Format) bool {
	_, ok := fs.Parse(string(f))
	return ok
}

// Text lists the formats as a person reads them: "text, json or
// markdown" / "text、json 或 markdown".
func (fs Formats) Text() finding.Text {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	if len(names) < 2 {
		s := strings.Join(names, "")
		return finding.T(s, s)
	}
	head, last := names[:len(names)-1], names[len(names)-1]
	return finding.T(strings.Join(head, ", ")+" or "+last, strings.Join(head, "、")+" 或 "+last)
}

// UnknownFormat is the one refusal of an output format, in both
// languages; its arguments are the flag, the format given and fs.Text().
func UnknownFormat() finding.Text {
	return finding.T("%s: unknown format %q (want %s)", "%s：未知格式 %q（应为 %s）")
}

// The formats of each document, declared next to its Write switch
// (functions, so no package state can change them).

// CheckFormats are WriteCheck's.
func CheckFormats() Formats { return Formats{Text, JSON, Markdown} }

// RunFormats are WriteRun's (the run page of `run`, the run summary of
// `record` and `analyze RUN_DIR`); the page's HTML is html.WriteRun.
func RunFormats() Formats { return Formats{Text, JSON, Markdown} }

// ProbeFormats are WriteProbe's; the folder's probe.html is html.WriteProbe.
func ProbeFormats() Formats { return Formats{Text, Markdown, JSON} }

// TextJSON is a document written as text or JSON only (a journal, a list
// of runs, a JVM's status).
func TextJSON() Formats { return Formats{Text, JSON} }
