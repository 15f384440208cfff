package session

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
)

// WriteReports writes a run's report.html, report.md and report.json into
// dir.
func WriteReports(dir string, p *report.RunPage) error {
	for _, r := range []struct {
		name  string
		write func(io.Writer, *report.RunPage) error
	}{
		{"report.html", html.WriteRun},
		{"report.md", func(w io.Writer, p *report.RunPage) error { return report.WriteRun(w, p, report.Markdown) }},
		{"report.json", func(w io.Writer, p *report.RunPage) error { return report.WriteRun(w, p, report.JSON) }},
	} {
		var b bytes.Buffer
		if err := r.write(&b, p); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
