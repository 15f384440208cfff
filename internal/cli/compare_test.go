package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	demoBefore = "../compare/testdata/demo-before.json"
	demoAfter  = "../compare/testdata/demo-after.json"
)

func TestCompareCommand(t *testing.T) {
	env, out, _ := testEnv()
	if code := runRoot(t, env, "compare", demoBefore, demoAfter, "--fail-on-regression", "5"); code != ExitOK {
		t.Fatalf("the fix compared: exit %d\n%s", code, out)
	}
	if s := out.String(); !strings.Contains(s, "Throughput") || !strings.Contains(s, "no regression beyond 5%") {
		t.Errorf("text:\n%s", s)
	}
	// The other way round the change is a regression: exit 3, said why.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", demoAfter, demoBefore, "--fail-on-regression", "5"); code != ExitFindings {
		t.Errorf("a regression: exit %d, want 3", code)
	}
	if !strings.Contains(out.String(), "REGRESSION: Throughput fell") {
		t.Errorf("text:\n%s", out)
	}
	// JSON for scripts: missing values are null, never NaN.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", demoBefore, demoAfter, "-o", "json"); code != ExitOK {
		t.Fatalf("json: exit %d", code)
	}
	var c struct {
		Schema  string           `json:"schema"`
		Metrics []map[string]any `json:"metrics"`
		Gone    []map[string]any `json:"gone"`
	}
	if err := json.Unmarshal(out.Bytes(), &c); err != nil || c.Schema != "tuneloop.compare/v1" || len(c.Metrics) < 10 || len(c.Gone) == 0 {
		t.Errorf("json %v: %+v", err, c)
	}
	// Bad usage and a folder that is not a run.
	env, _, errb := testEnv()
	if code := runRoot(t, env, "compare", demoBefore, demoAfter, "-o", "html"); code != ExitUsage || !strings.Contains(errb.String(), "unknown format") {
		t.Errorf("-o html: exit %d %q", code, errb)
	}
	env, _, errb = testEnv()
	if code := runRoot(t, env, "compare", t.TempDir(), demoAfter); code != ExitFailure || !strings.Contains(errb.String(), "no report.json") {
		t.Errorf("empty folder: exit %d %q", code, errb)
	}
	env, _, errb = testEnv()
	if code := runRoot(t, env, "compare", demoBefore); code != ExitUsage {
		t.Errorf("one argument: exit %d %q", code, errb)
	}
}

// Folders of `tuneloop record` have no report.json: compare diagnoses them
// as run does. Two short recordings of this host.
func TestCompareRecordFolders(t *testing.T) {
	var dirs []string
	for range 2 {
		dir := filepath.Join(t.TempDir(), "run")
		env, _, errb := testEnv()
		if err := RunRecord(context.Background(), env, &RecordOptions{Duration: 1500 * time.Millisecond, Interval: 500 * time.Millisecond,
			Out: dir, NoCatalog: true, Output: "json", Quiet: true}); err != nil {
			t.Fatalf("record: %v %s", err, errb)
		}
		dirs = append(dirs, dir)
	}
	env, out, errb := testEnv()
	if code := runRoot(t, env, "compare", dirs[0], dirs[1], "-o", "json"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var c struct {
		Metrics []struct {
			Key    string   `json:"key"`
			Before *float64 `json:"before"`
			After  *float64 `json:"after"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, m := range c.Metrics {
		keys[m.Key] = m.Before != nil && m.After != nil
	}
	if !keys["cpu_busy_pct"] || !keys["cpu_us_pct"] {
		t.Errorf("no CPU rows from two recordings: %+v", c.Metrics)
	}
	if _, ok := keys["tps"]; ok {
		t.Errorf("a throughput row without any load: %+v", c.Metrics)
	}
}
