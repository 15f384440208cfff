package verdict

import (
	"path/filepath"
	"testing"

	"github.com/tuneloop/tuneloop/internal/mechanism"
)

func TestMechanismOnRecordedRuns(t *testing.T) {
	for _, name := range []string{"sync-logging", "sync-logging-jfr", "pool-starvation", "fsync-io", "cpu-hot", "single-thread", "future-serial", "deadlock", "remote-call", "gc-pressure", "healthy", "service-oom"} {
		L, err := Load(filepath.Join("testdata", "runs", name))
		if err != nil {
			t.Fatal(err)
		}
		e := Evidence(L)
		ns := mechanism.Name(e)
		t.Logf("%s: busy %.0f saturated %v dumps %d", name, e.BusyPct, e.Saturated, e.Dumps)
		for i, n := range ns {
			if i > 3 {
				break
			}
			t.Logf("   %s score %.2f symptom %v: %s", n.Entry.ID, n.Score, n.Symptom, n.Finding.Observed.EN)
		}
	}
}
