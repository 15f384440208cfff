package compare

// Two probe folders side by side (`compare PROBE_A PROBE_B`): reading
// them, and every format of the comparison from one switch.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/version"
)

// ProbeFormats are WriteProbes's, the default first.
func ProbeFormats() report.Formats {
	return report.Formats{report.Text, report.Markdown, report.JSON, report.HTML}
}

// WriteProbes writes the comparison of two probes as f: text, Markdown and
// JSON (report.WriteProbeCompare), or the self-contained page (HTML).
func WriteProbes(w io.Writer, c *probe.Comparison, f report.Format, lang finding.Lang) error {
	if f == report.HTML {
		return html.WriteProbeCompare(w, report.NewProbeComparePage(c, "tuneloop "+version.Version, lang))
	}
	return report.WriteProbeCompare(w, c, f, lang)
}

// probePath is the probe.json of a probe folder, or path itself when it
// is a file.
func probePath(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, probe.File)
	}
	return path
}

// IsProbe: path is a probe folder or a probe.json (by its schema in the
// first 256 bytes).
func IsProbe(path string) bool {
	f, err := os.Open(probePath(path))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	return bytes.Contains(head[:n], []byte(`"`+probe.Schema+`"`))
}

// Probes reads two probe folders (or probe.json files) as untrusted and
// says per figure whether b differs from a significantly; a probe that
// never finished is refused.
func Probes(a, b string) (*probe.Comparison, error) {
	ra, err := loadProbe(a)
	if err != nil {
		return nil, err
	}
	rb, err := loadProbe(b)
	if err != nil {
		return nil, err
	}
	for _, x := range []struct {
		path string
		r    *probe.Result
	}{{a, ra}, {b, rb}} {
		if x.r.State() == probe.StatusProbing {
			return nil, finding.Errorf(finding.T("%s is a probe that never finished (killed, or still running): nothing to compare", "%s 是未完成的探测（被终止或仍在运行）：没有可比较的内容"), finding.SafeLine(x.path))
		}
	}
	return probe.Compare(ra, rb, a, b), nil
}

func loadProbe(path string) (*probe.Result, error) {
	p := probePath(path)
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	return probe.Decode(f, p)
}

// CommandFormats are every format `compare` accepts, over what each kind
// of input takes (Formats for runs, StepsFormats, ProbeFormats), in that
// order, each once.
func CommandFormats() report.Formats {
	var out report.Formats
	for _, fs := range []report.Formats{Formats(), StepsFormats(), ProbeFormats()} {
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
