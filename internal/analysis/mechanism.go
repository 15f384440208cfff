package analysis

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
func (r *Result) mechanisms(ctx context.Context, profs []*input.File, forced input.Format) {
	var jfr []byte
	for _, f := range profs {
		if (f.Format != input.JFR && forced != input.JFR) || !slices.Contains(r.jfrRead, f.Name) {
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
	if r.dumps == nil && len(r.gcReports) == 0 && len(jfr) == 0 {
		return
	}
	o := verdict.Offline{Dumps: r.dumps, JFR: jfr}
	if len(r.gcReports) == 1 {
		o.GC = r.gcReports[0]
	}
	fs := verdict.NameOffline(o)
	if len(fs) == 0 {
		return
	}
	r.Findings = append(r.Findings, fs...)
	r.section(finding.T("Mechanism", "机制"), func(w io.Writer) error {
		for i, f := range fs {
			if i == 3 {
				break
			}
			fmt.Fprintf(w, "%s [%s] %s\n  %s\n", f.Severity.Label(r.lang), f.ID, f.Title.In(r.lang), finding.SafeLine(f.Observed.In(r.lang)))
			if rec := f.Recommended.In(r.lang); rec != "" {
				fmt.Fprintf(w, "  %s %s\n", finding.T("fix:", "建议：").In(r.lang), finding.SafeLine(rec))
			}
		}
		return nil
	})
}
