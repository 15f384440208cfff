package analysis

import (
	"io"

	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
)

// FlameFormats are WriteFlame's, the default first.
func FlameFormats() report.Formats { return report.Formats{report.Text, report.JSON, report.HTML} }

// flameTop is how many frames the text summary lists.
const flameTop = 10

// WriteFlame writes one profile's flame page as f: the summary for a
// terminal with the top frames (text), the page's JSON, or the
// self-contained page (HTML). It is the page's one switch, for `analyze
// FILE.jfr` and `jvm PID --profile KIND` alike.
func WriteFlame(w io.Writer, page *report.FlamePage, f report.Format) error {
	switch f {
	case report.JSON:
		return report.WriteJSON(w, page)
	case report.HTML:
		return html.WriteFlame(w, page)
	}
	return report.WriteFlameText(w, page, flameTop)
}
