package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
	// The other way round throughput fell 84%, but from one JVM launch a
	// side: the launch-to-launch spread is unmeasured, so the gate does not
	// call it (exit 4) and says how many launches it needs.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", demoAfter, demoBefore, "--fail-on-regression", "5"); code != ExitInconclusive {
		t.Errorf("one launch a side: exit %d, want 4", code)
	}
	if !strings.Contains(out.String(), "INCONCLUSIVE: Throughput (steady state): -84.4% from one JVM launch a side") || !strings.Contains(out.String(), "run 4 more per side") {
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
	empty := t.TempDir()
	if code := runRoot(t, env, "compare", empty, demoAfter); code != ExitFailure || !strings.Contains(errb.String(), empty+" is not a run folder (no manifest.json / report.json)") {
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

// runSet writes n copies of a real run page into folders, each run's series
// scaled by level times its own run-to-run factor (seeded), as `run
// --repeat` would leave them: dir/run-1..n/report.json.
func runSet(t *testing.T, src string, n int, level, tpsNoise float64, seed uint64) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(seed, seed))
	for i := 1; i <= n; i++ {
		var page map[string]any
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		f := level * (1 + tpsNoise*r.NormFloat64())
		for _, p := range page["load"].(map[string]any)["series"].([]any) {
			pt := p.(map[string]any)
			pt["tps"] = pt["tps"].(float64) * f
			pt["p99_ms"] = pt["p99_ms"].(float64) / f
			pt["p50_ms"] = pt["p50_ms"].(float64) / f
		}
		out, _ := json.Marshal(page)
		d := filepath.Join(dir, fmt.Sprintf("run-%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "report.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The gate on sets of real run pages: its exit codes.
func TestCompareSetsGate(t *testing.T) {
	base := runSet(t, demoAfter, 5, 1, 0.01, 1)
	cases := []struct {
		name  string
		after string
		code  int
		want  string
	}{
		{"A/A: the same build again", runSet(t, demoAfter, 5, 1, 0.01, 2), ExitOK, "no significant change"},
		{"20% slower", runSet(t, demoAfter, 5, 0.8, 0.01, 3), ExitFindings, "REGRESSION: Throughput (steady state) fell"},
		{"2% slower, interval inside the 5% gate", runSet(t, demoAfter, 5, 0.98, 0.002, 4), ExitOK, "no regression beyond 5%"},
		{"noisy: cannot tell", runSet(t, demoAfter, 2, 0.97, 0.15, 5), ExitInconclusive, "INCONCLUSIVE"},
	}
	for _, c := range cases {
		env, out, errb := testEnv()
		// A --repeat folder stands for its runs.
		if code := runRoot(t, env, "compare", base, c.after, "--fail-on-regression", "5"); code != c.code || !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: exit %d, want %d; %q missing?\n%s%s", c.name, code, c.code, c.want, out, errb)
		}
	}
	// The same sets named run by run, with --.
	var args []string
	for i := 1; i <= 5; i++ {
		args = append(args, filepath.Join(base, fmt.Sprintf("run-%d", i)))
	}
	slow := runSet(t, demoAfter, 5, 0.8, 0.01, 6)
	// A flag after -- is read as a run folder by cobra: said, as a usage error.
	{
		env, _, errb := testEnv()
		if code := runRoot(t, env, append([]string{"compare"}, append(append(args[:1:1], "--", slow), "--fail-on-regression", "5")...)...); code != ExitUsage || !strings.Contains(errb.String(), "put flags before") {
			t.Errorf("a flag after --: exit %d, %q", code, errb.String())
		}
	}
	args = append(append(args, "--"), slow)
	env, out, _ := testEnv()
	if code := runRoot(t, env, append([]string{"compare", "-o", "junit", "--fail-on-regression", "5"}, args...)...); code != ExitFindings {
		t.Fatalf("junit: exit %d\n%s", code, out)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures != 2 || suites.Suites[0].Tests != 4 {
		t.Errorf("junit %v %+v\n%s", err, suites, out)
	}
	// 5 launches against 3: the t interval is far below -5%, but no rank
	// test over 5 and 3 launches reaches 99% (its least p is 0.036): not a
	// verdict; it says why and how many launches to add.
	{
		env, out, _ := testEnv()
		if code := runRoot(t, env, "compare", "--fail-on-regression", "5", base, "--", runSet(t, demoAfter, 3, 0.8, 0.01, 8)); code != ExitInconclusive ||
			!strings.Contains(out.String(), "5 against 3 launches: no rank test over launches can reach 99% (its smallest p is 0.036)") ||
			!strings.Contains(out.String(), "run 2 more per side") {
			t.Errorf("5 against 3: exit %d\n%s", code, out)
		}
	}
	// JSON: per-run host load and the intervals.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", base, slow, "-o", "json"); code != ExitOK {
		t.Fatalf("json: exit %d", code)
	}
	var c struct {
		Before struct {
			Runs []struct {
				Dir      string   `json:"dir"`
				StealPct *float64 `json:"steal_pct"`
				WarmUpS  int      `json:"warm_up_s"`
			} `json:"runs"`
		} `json:"before"`
		Stats []struct {
			Key     string  `json:"key"`
			Lo      float64 `json:"ci_low_pct"`
			Hi      float64 `json:"ci_high_pct"`
			Verdict string  `json:"verdict"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(out.Bytes(), &c); err != nil || len(c.Before.Runs) != 5 || c.Before.Runs[0].StealPct == nil || c.Before.Runs[0].Dir != filepath.Join(base, "run-1") {
		t.Fatalf("json %v %+v", err, c)
	}
	if c.Stats[0].Key != "tps" || c.Stats[0].Verdict != "worse" || !(c.Stats[0].Lo < -20 && c.Stats[0].Hi > -20 || c.Stats[0].Hi < -15) {
		t.Errorf("tps stat %+v", c.Stats[0])
	}
	// The tuning table: two steps after the baseline.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "compare", "--steps", slow, base, runSet(t, demoAfter, 3, 1.1, 0.01, 7)); code != ExitOK {
		t.Fatalf("steps: exit %d\n%s", code, out)
	}
	if s := out.String(); !strings.Contains(s, "Tuning steps") || !strings.Contains(s, "(baseline)") || strings.Count(s, "better") < 4 {
		t.Errorf("steps:\n%s", s)
	}
	// Usage: three folders without -- or --steps.
	env, _, errb := testEnv()
	if code := runRoot(t, env, "compare", base, slow, base); code != ExitUsage || !strings.Contains(errb.String(), "separate the runs") {
		t.Errorf("3 args: exit %d %s", code, errb)
	}
}

// Runs of two different services: compare says so.
func TestCompareWarnsDifferentServices(t *testing.T) {
	env, out, _ := testEnv()
	runRoot(t, env, "compare", demoBefore, "../verdict/testdata/runs/healthy")
	if !strings.Contains(out.String(), "different services") {
		t.Errorf("no warning:\n%s", out)
	}
}

// The JSON of compare matches its published schema.
func TestCompareJSONSchema(t *testing.T) {
	s := compileSchema(t, "compare-v1.schema.json")
	env, out, _ := testEnv()
	if code := runRoot(t, env, "compare", demoBefore, demoAfter, "-o", "json", "--fail-on-regression", "5"); code != ExitOK {
		t.Fatal(code)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("compare JSON does not match docs/schema/compare-v1.schema.json: %v", err)
	}
}
