package experiment

// Every format of the experiment document from one switch, and the
// folder's three report files.

import (
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Formats are the experiment document's formats on stdout, the default
// first; Write also writes the page (HTML), the folder's report.html.
func Formats() report.Formats { return report.Formats{report.Text, report.Markdown, report.JSON} }

// Write writes the experiment document as f: text, Markdown, JSON
// (report.WriteExperiment) or the self-contained page (HTML). It is the
// document's one switch.
func Write(w io.Writer, doc *report.Experiment, f report.Format, l finding.Lang) error {
	if f == report.HTML {
		return html.WriteExperiment(w, doc, l)
	}
	return report.WriteExperiment(w, doc, f, l)
}

// WriteFiles writes report.html, report.md and report.json into the
// experiment folder dir, each whole or not at all (written beside, then
// renamed); one that fails does not stop the others.
func WriteFiles(dir string, doc *report.Experiment, l finding.Lang) error {
	file := func(name string, f report.Format) runfolder.Document {
		return runfolder.Document{Name: name, Write: func(w io.Writer) error { return Write(w, doc, f, l) }}
	}
	return runfolder.WriteDocuments(dir, file("report.html", report.HTML), file("report.md", report.Markdown), file("report.json", report.JSON))
}
