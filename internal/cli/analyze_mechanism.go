package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// maxOfflineJFR caps the recording read for the time account.
const maxOfflineJFR = 256 << 20

// mechanisms names, from the dumps, GC logs and JFR recording given, the mechanism the
// same catalogue names for a recorded run (verdict.NameOffline).
func (a *analysis) mechanisms(ctx context.Context, profs []*input.File, forced input.Format) error {
	var jfr []byte
	for _, f := range profs {
		if (f.Format != input.JFR && forced != input.JFR) || !slices.Contains(a.jfrRead, f.Name) {
			continue
		}
		rc, err := f.OpenBinary(ctx)
		if err != nil {
			continue // said with the profile that could not be read
		}
		jfr, err = io.ReadAll(io.LimitReader(rc, maxOfflineJFR))
		rc.Close()
		if err != nil {
			jfr = nil
			continue
		}
		break // the first recording: one JVM's time account
	}
	if a.dumps == nil && len(a.gcReports) == 0 && len(jfr) == 0 {
		return nil
	}
	o := verdict.Offline{Dumps: a.dumps, JFR: jfr}
	if len(a.gcReports) == 1 {
		o.GC = a.gcReports[0]
	}
	fs := verdict.NameOffline(o)
	if len(fs) == 0 {
		return nil
	}
	a.res.Findings = append(a.res.Findings, fs...)
	return a.section(finding.T("Mechanism", "机制"), func(w io.Writer) error {
		for i, f := range fs {
			if i == 3 {
				break
			}
			fmt.Fprintf(w, "%s [%s] %s\n  %s\n", f.Severity.Label(a.lang), f.ID, f.Title.In(a.lang), finding.SafeLine(f.Observed.In(a.lang)))
			if r := f.Recommended.In(a.lang); r != "" {
				fmt.Fprintf(w, "  %s %s\n", finding.T("fix:", "建议：").In(a.lang), finding.SafeLine(r))
			}
		}
		return nil
	})
}
