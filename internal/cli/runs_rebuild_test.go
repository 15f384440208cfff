package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunsCorruptCatalog: a catalog overwritten with garbage no longer
// fails every command: it is moved aside with a timestamp and said so;
// record rebuilds it from the folders next to its own and adds itself;
// runs rebuild DIR adds back folders found elsewhere.
func TestRunsCorruptCatalog(t *testing.T) {
	env, out, errb := recEnv(t)
	root := t.TempDir()
	runsDir := filepath.Join(root, "runs")
	rec := func(name string) string {
		dir := filepath.Join(runsDir, name)
		o := &RecordOptions{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond, Out: dir, Output: "json",
			Argv: []string{"tuneloop", "record"}}
		if err := RunRecord(context.Background(), env, o); err != nil {
			t.Fatalf("record: %v\n%s", err, errb.String())
		}
		return dir
	}
	first := rec("a")
	db := filepath.Join(env.Getenv("XDG_DATA_HOME"), "tuneloop", "runs.db")
	damage := func() {
		os.Remove(db + "-wal")
		os.Remove(db + "-shm")
		if err := os.WriteFile(db, bytes.Repeat([]byte("not sqlite"), 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damage()
	// record into a damaged catalog: rebuilt from ./runs next to it, and said.
	errb.Reset()
	second := rec("b")
	if s := errb.String(); !strings.Contains(s, "the catalog was damaged") || !strings.Contains(s, ".corrupt-") ||
		strings.Contains(s, "run not added") {
		t.Errorf("record's notice:\n%s", s)
	}
	out.Reset()
	if err := RunRuns(context.Background(), env, &RunsOptions{Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, first) || !strings.Contains(s, second) {
		t.Errorf("runs after record rebuilt it:\n%s", s)
	}
	moved, _ := filepath.Glob(db + ".corrupt-*")
	if len(moved) != 1 {
		t.Errorf("damaged file kept as %v", moved)
	}

	// runs on a damaged catalog: exit 0, said, then runs rebuild DIR.
	damage()
	out.Reset()
	errb.Reset()
	if err := RunRuns(context.Background(), env, &RunsOptions{Output: "text"}); err != nil {
		t.Fatalf("runs on a damaged catalog: %v", err)
	}
	if !strings.Contains(errb.String(), "the catalog was damaged (") || !strings.Contains(errb.String(), "file is not a database") {
		t.Errorf("runs' notice:\n%s", errb.String())
	}
	out.Reset()
	if err := RunRunsRebuild(context.Background(), env, &RunsOptions{}, []string{runsDir}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "2 run folders and 0 probe folders in the catalog") {
		t.Errorf("rebuild:\n%s", s)
	}
	out.Reset()
	RunRuns(context.Background(), env, &RunsOptions{Output: "text"})
	if s := out.String(); !strings.Contains(s, first) || !strings.Contains(s, second) {
		t.Errorf("runs after rebuild:\n%s", s)
	}
}
