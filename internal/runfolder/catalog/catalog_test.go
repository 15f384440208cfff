package catalog

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

func TestCatalog(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	path := filepath.Join(tmp, "data", "runs.db")
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	d1, d2 := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	if _, err := runfolder.Create(d1, runfolder.Manifest{}); err != nil {
		t.Fatal(err)
	}
	for i, d := range []string{d1, d2} {
		if err := c.Put(ctx, Entry{ID: filepath.Base(d), Dir: d, Host: "h", Start: t0.Add(time.Duration(i) * time.Hour),
			Status: runfolder.Complete, Command: "tuneloop record", Findings: i, Top: "cpu.saturated"}); err != nil {
			t.Fatal(err)
		}
	}
	// Replacing keeps one row per folder.
	if err := c.Put(ctx, Entry{ID: "a", Dir: d1, Start: t0, Status: runfolder.Interrupted}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	es, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].ID != "b" || !es[0].Missing || es[1].Missing || es[1].Status != runfolder.Interrupted {
		t.Fatalf("list: %+v", es)
	}
	if err := c.Remove(ctx, d2); err != nil {
		t.Fatal(err)
	}
	if es, _ := c.List(ctx); len(es) != 1 {
		t.Fatalf("after remove: %+v", es)
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/home/u"}
	p, _ := DefaultPath(func(k string) string { return env[k] })
	if p != "/x/tuneloop/runs.db" {
		t.Fatal(p)
	}
	delete(env, "XDG_DATA_HOME")
	p, _ = DefaultPath(func(k string) string { return env[k] })
	if p != "/home/u/.local/share/tuneloop/runs.db" {
		t.Fatal(p)
	}
}
