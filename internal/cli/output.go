package cli

import (
	"github.com/tuneloop/tuneloop/internal/report"
)

// outputFormat checks --output against the formats the document's writer
// lists (report.Formats) and refuses any other with one message naming
// them from the same list.
func outputFormat(s string, fs report.Formats) (report.Format, error) {
	if f, ok := fs.Parse(s); ok {
		return f, nil
	}
	return "", usageErr(report.UnknownFormat(), "--output", s, fs.Text())
}

// analyzeFormats are what `analyze FILE...` writes (RunAnalyze's switch:
// the text and Markdown of its sections, the result's JSON, the GC and
// thread-dump page).
func analyzeFormats() report.Formats {
	return report.Formats{report.Text, report.JSON, report.Markdown, report.HTML}
}
