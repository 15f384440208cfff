package cli

import (
	"path/filepath"
	"testing"

	"github.com/tuneloop/tuneloop/internal/mechanism"
)

// TestAnalyzeNamesTheSameMechanismOffline: a user with only the dump files
// or only the JFR recording of a run gets the mechanism the run's verdict names, with the code line.
func TestAnalyzeNamesTheSameMechanismOffline(t *testing.T) {
	for _, c := range []struct{ run, glob, mech string }{
		{"pool-starvation", "threaddump-*.txt", "mech.pool.jdbc-exhausted"},
		{"sync-logging", "threaddump-*.txt", "mech.logging.logback-sync"},
		{"fsync-io", "threaddump-*.txt", "mech.lock.io-under-lock"},
		{"sync-logging-jfr", "recording.jfr", "mech.logging.logback-sync"}, // the recording alone
	} {
		files, _ := filepath.Glob(filepath.Join("..", "verdict", "testdata", "runs", c.run, "raw", c.glob))
		if len(files) == 0 {
			t.Fatalf("%s: no dumps", c.run)
		}
		res := analyzeJSON(t, files, AnalyzeOptions{Profile: "java-web", Now: fixedNow})
		var best *struct{ id, code string }
		for _, f := range res.Findings {
			if f.Category == "mech" {
				best = &struct{ id, code string }{f.ID, f.EvidenceValue("code")}
				break // findings are ranked; the first mechanism is the one named
			}
		}
		if best == nil || best.id != c.mech {
			t.Errorf("%s: mechanism %+v, want %s", c.run, best, c.mech)
			continue
		}
		if best.code == "" || mechanism.IsLibrary(best.code) {
			t.Errorf("%s: code line %q is not the application's", c.run, best.code)
		}
	}
}
