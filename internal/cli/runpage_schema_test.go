package cli

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// TestRunPageWithTheTimeAccountMatchesItsSchema: report.json of a real run
// folder, with the time account and the mechanisms, is what the published
// schema says (the zoo's end-to-end tests check the same on live runs).
func TestRunPageWithTheTimeAccountMatchesItsSchema(t *testing.T) {
	schema := compileSchema(t, "run-page-v1.schema.json")
	for _, run := range []string{"pool-starvation", "sync-logging-jfr", "jdkhttp-cpu-saturated"} {
		L, err := verdict.Load(filepath.Join("..", "verdict", "testdata", "runs", run))
		if err != nil {
			t.Fatal(err)
		}
		p := report.NewRunPage(L, verdict.Decide(L), finding.EN)
		if len(p.Account) == 0 || len(p.Mechanisms) == 0 {
			t.Fatalf("%s: no account or mechanisms", run)
		}
		var b bytes.Buffer
		if err := report.WriteJSON(&b, p); err != nil {
			t.Fatal(err)
		}
		validateJSON(t, schema, "run-page-v1.schema.json", b.Bytes())
	}
}
