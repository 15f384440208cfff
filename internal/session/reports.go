package session

import (
	"io"

	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// WriteReports writes a run's report.html, report.md and report.json into
// dir, each whole or not at all (runfolder.WriteDocuments).
func WriteReports(dir string, p *report.RunPage) error {
	return runfolder.WriteDocuments(dir,
		runfolder.Document{Name: "report.html", Write: func(w io.Writer) error { return html.WriteRun(w, p) }},
		runfolder.Document{Name: "report.md", Write: func(w io.Writer) error { return report.WriteRun(w, p, report.Markdown) }},
		runfolder.Document{Name: "report.json", Write: func(w io.Writer) error { return report.WriteRun(w, p, report.JSON) }})
}
