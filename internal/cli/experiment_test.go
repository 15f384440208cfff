package cli

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

func TestExperimentPlanErrorsAreUsageErrorsWithTheLine(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte("service:\n  start: java -jar app.jar\n  taget: http://127.0.0.1:8080/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, _, _ := testEnv()
	err := RunExperiment(context.Background(), env, &ExperimentOptions{Plan: plan, Output: "text", Out: filepath.Join(dir, "out")})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "plan.yaml:3:") || !strings.Contains(err.Error(), "taget") {
		t.Fatalf("err = %v", err)
	}
	var fe *finding.Error
	if !errors.As(err, &fe) || !strings.Contains(fe.Localize(finding.ZH), "plan.yaml:3：") {
		t.Errorf("Chinese: %#v", err)
	}
	err = RunExperiment(context.Background(), env, &ExperimentOptions{Plan: plan, Output: "yaml"})
	if !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Errorf("-o yaml: %v", err)
	}
}

// A service that never answers: the baseline cannot be measured, the
// command says so (exit 1), and the folder still gets its reports.
func TestExperimentBaselineThatNeverAnswers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	y := "service:\n  start: sleep 20\n  target: http://" + addr + "/\n  start_timeout: 1s\n  stop_timeout: 1s\n" +
		"load: {users: 1, duration: 2s}\nrepetitions: 1\nknobs:\n  - {name: pool, kind: property, key: pool.size, values: ['8']}\n"
	if err := os.WriteFile(plan, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	env, out, _ := testEnv()
	state := t.TempDir()
	env.Getenv = func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	o := &ExperimentOptions{Plan: plan, Output: "json", Out: filepath.Join(dir, "out"), NoCatalog: true}
	err = RunExperiment(context.Background(), env, o)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "baseline cannot be measured") {
		t.Fatalf("err = %v", err)
	}
	var doc report.Experiment
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not the JSON document: %v\n%s", err, out.String())
	}
	if doc.Schema != report.ExperimentSchema || len(doc.Trials) != 1 || doc.Trials[0].Status != "refused" {
		t.Errorf("doc: %+v", doc)
	}
	for _, f := range []string{"report.html", "report.md", "report.json", "trials.jsonl"} {
		if _, err := os.Stat(filepath.Join(o.Out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
