package report

import (
	"io"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// LoadFormats are WriteLoad's; the page is html.WriteLoad.
func LoadFormats() Formats { return TextJSON() }

// WriteLoad writes the summary of `tuneloop load` in f (LoadFormats), its
// one switch.
func WriteLoad(w io.Writer, s *loadgen.Summary, f Format, l finding.Lang) error {
	if f == JSON {
		return WriteJSON(w, s)
	}
	return loadgen.WriteText(w, s, l)
}

func fmtSecs(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

func fmtLiveMS(ms float64) string {
	if ms >= 100 {
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	}
	return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
}
