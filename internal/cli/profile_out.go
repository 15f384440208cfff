package cli

// What a profile becomes on disk and on the terminal, the same for `jvm PID
// --profile KIND` (a live JVM) and `analyze FILE.jfr` (a recording or
// collapsed stacks): the self-contained flame page, the collapsed stacks,
// pprof, and the summary printed as text or JSON.

import (
	"io"

	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// writeFlameHTML writes the flame page of one profile to path.
func writeFlameHTML(path string, page *report.FlamePage) error {
	f, err := createOut(path)
	if err != nil {
		return err
	}
	if err := html.WriteFlame(f, page); err != nil {
		f.Close()
		return err
	}
	return closeOut(f)
}

// writeProfileFile writes one form of p (p.WriteCollapsed, p.WritePprof) to path.
func writeProfileFile(path string, write func(io.Writer) error) error {
	f, err := createOut(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return closeOut(f)
}

// printFlamePage prints the page as JSON (output "json") or as the text
// summary with the top n frames.
func printFlamePage(w io.Writer, output string, page *report.FlamePage, n int) error {
	if output == "json" {
		return report.WriteJSON(w, page)
	}
	return report.WriteFlameText(w, page, n)
}

// profileForms are the files a profile can be written as, by role.
func profileForms(p *stacks.Profile) map[string]func(io.Writer) error {
	return map[string]func(io.Writer) error{"collapsed": p.WriteCollapsed, "pprof": p.WritePprof}
}
