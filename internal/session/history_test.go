package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// TestSetHistoryFromTheCatalog: the earlier `run --repeat` sets of the
// compared service on the same host are the history, read from the
// catalog; the compared sets, another service's sets, the halves of an
// A/B series and lone runs are not; a catalog that is not there gives none and is not created.
func TestSetHistoryFromTheCatalog(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	src := "../verdict/testdata/runs/healthy" // a real run, copied as each launch
	put := func(dir, target string, extra ...any) string {
		d := filepath.Join(root, dir)
		if err := os.CopyFS(d, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		if target != "" || len(extra) > 0 {
			mf := filepath.Join(d, "manifest.json")
			b, err := os.ReadFile(mf)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			argv := m["argv"].([]any)
			for i, a := range argv {
				if a == "--target" && target != "" {
					argv[i+1] = target
				}
			}
			m["argv"] = append(argv, extra...)
			b, _ = json.Marshal(m)
			if err := os.WriteFile(mf, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	db := filepath.Join(root, "runs.db")
	c, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, set := range []string{"base-1", "base-2", "base-3", "before", "after"} {
		for _, r := range []string{"run-1", "run-2"} {
			dirs = append(dirs, put(filepath.Join(set, r), ""))
		}
	}
	dirs = append(dirs, put("other/run-1", "http://127.0.0.1:9/other"), put("other/run-2", "http://127.0.0.1:9/other"), put("lone", ""))
	// An interleaved A/B series of the same service: its halves are no
	// sets in sequence.
	for _, half := range []string{"a", "b"} {
		for _, r := range []string{"run-1", "run-2"} {
			dirs = append(dirs, put(filepath.Join("ab", half, r), "", "--start-b", "java -jar new.jar"))
		}
	}
	for _, d := range dirs {
		if _, err := AddToCatalog(ctx, c, d); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	b, err := LoadInputs(ctx, []string{filepath.Join(root, "before")}, finding.EN)
	if err != nil {
		t.Fatal(err)
	}
	a, err := LoadInputs(ctx, []string{filepath.Join(root, "after")}, finding.EN)
	if err != nil {
		t.Fatal(err)
	}
	h := SetHistory(ctx, db, b, a, finding.EN)
	if h == nil {
		t.Fatal("no history from three earlier sets")
	}
	var got []string
	for _, s := range h.Sets {
		if len(s) != 2 {
			t.Errorf("a set of %d runs: %v", len(s), s)
		}
		got = append(got, filepath.Base(filepath.Dir(s[0].Path)))
	}
	if j := strings.Join(got, " "); len(got) != 3 || strings.Contains(j, "before") || strings.Contains(j, "after") || strings.Contains(j, "other") {
		t.Errorf("history sets %v, want base-1..3", got)
	}
	missing := filepath.Join(root, "none", "runs.db")
	if SetHistory(ctx, missing, b, a, finding.EN) != nil {
		t.Error("history from a catalog that is not there")
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("reading history created a catalog")
	}
}
