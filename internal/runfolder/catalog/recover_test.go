package catalog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

func entryFor(f *runfolder.Folder) (Entry, error) {
	m := f.Manifest
	return Entry{ID: m.ID, Dir: f.Dir, Host: m.Host, Start: m.Start, Status: m.Status}, nil
}

// catalogWithRuns is a catalog naming three finished run folders: two
// under tmp/runs and one elsewhere (tmp/other/c).
func catalogWithRuns(t *testing.T) (path, runsDir string, dirs []string) {
	t.Helper()
	ctx := context.Background()
	tmp := t.TempDir()
	path = filepath.Join(tmp, "runs.db")
	runsDir = filepath.Join(tmp, "runs")
	dirs = []string{filepath.Join(runsDir, "a"), filepath.Join(runsDir, "b"), filepath.Join(tmp, "other", "c")}
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, d := range dirs {
		w, err := runfolder.Create(d, runfolder.Manifest{ID: filepath.Base(d), Host: "h", Start: time.Unix(int64(1e9+i), 0)})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(runfolder.Complete, time.Now(), nil, nil); err != nil {
			t.Fatal(err)
		}
		f, _ := runfolder.Open(d)
		e, _ := entryFor(f)
		if err := c.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return path, runsDir, dirs
}

func TestCorruptCatalogRecovers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string) error
	}{
		{"overwritten", func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte("garbage!"), 4096), 0o644) }},
		{"truncated", func(p string) error {
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, st.Size()/2+100)
		}},
		{"a table page smashed", func(p string) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt(bytes.Repeat([]byte{0xff}, 4096), 4096) // page 2: the runs table
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path, runsDir, dirs := catalogWithRuns(t)
			os.Remove(path + "-wal")
			os.Remove(path + "-shm")
			if err := tc.damage(path); err != nil {
				t.Fatal(err)
			}
			c, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open of a damaged catalog: %v", err)
			}
			defer c.Close()
			if c.Recovered == nil {
				_, err := c.List(ctx)
				t.Fatalf("damage not detected (List: %v)", err)
			}
			if !strings.Contains(c.Recovered.MovedTo, ".corrupt-") {
				t.Errorf("moved to %q", c.Recovered.MovedTo)
			}
			if _, err := os.Stat(c.Recovered.MovedTo); err != nil {
				t.Errorf("the damaged file is not kept: %v", err)
			}
			msg := c.Recovered.Message().EN
			if !strings.Contains(msg, "damaged") || !strings.Contains(msg, c.Recovered.MovedTo) {
				t.Errorf("message %q", msg)
			}
			got, err := c.Rebuild(ctx, []string{runsDir}, entryFor)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Added) < 2 {
				t.Errorf("rebuilt %v, want at least the two under %s", got.Added, runsDir)
			}
			es, err := c.List(ctx)
			if err != nil || len(es) != len(got.Added) {
				t.Fatalf("list after rebuild: %d entries, %v", len(es), err)
			}
			_ = dirs
		})
	}
}

// TestRebuildSalvagesNamedFolders: folders the damaged catalog still names
// are found even outside the roots given.
func TestRebuildSalvagesNamedFolders(t *testing.T) {
	ctx := context.Background()
	path, _, dirs := catalogWithRuns(t)
	// A readable catalog moved aside by hand stands in for a partly
	// readable damaged one.
	moved, err := moveAside(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Recovered = &Recovery{Cause: "test", MovedTo: moved}
	got, err := c.Rebuild(ctx, nil, entryFor)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Added) != 3 {
		t.Fatalf("rebuilt %v, want %v", got.Added, dirs)
	}
}
