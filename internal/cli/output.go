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
