package catalog

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// A catalog made before the headline columns: still listed, then migrated.
func TestHeadlineMigratesOldCatalog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(catalogSchema); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, d := range []string{"/runs/a", "/runs/b", "/runs/c"} {
		if _, err := old.Exec(`INSERT INTO runs (id, dir, start_ns, status) VALUES (?, ?, ?, 'complete')`, filepath.Base(d), d, t0.Add(time.Duration(i)*time.Hour).UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if es, err := c.List(ctx); err != nil || len(es) != 3 || es[0].Status != runfolder.Complete {
		t.Fatalf("old catalog: %v %+v", err, es)
	}
	missing, err := c.MissingHeadline(ctx)
	if err != nil || len(missing) != 3 || missing[0] != "/runs/a" {
		t.Fatalf("missing %v %v", missing, err)
	}
	for i, d := range []string{"/runs/a", "/runs/b"} {
		if err := c.PutHeadline(ctx, d, Headline{Service: "http://app/api", Scenario: "closed, 50 users", TPS: 1000 - 100*float64(i), P99MS: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.PutHeadline(ctx, "/runs/c", Headline{Service: "http://other/", TPS: 7}); err != nil {
		t.Fatal(err)
	}
	h, err := c.History(ctx, "http://app/api")
	if err != nil || len(h) != 2 || h[0].ID != "a" || h[1].TPS != 900 || h[0].Scenario != "closed, 50 users" {
		t.Errorf("history %v %+v", err, h)
	}
	if all, _ := c.History(ctx, ""); len(all) != 3 {
		t.Errorf("every service: %+v", all)
	}
	// Migrating twice is harmless; removing says whether there was a run.
	if err := c.migrateHeadline(ctx); err != nil {
		t.Error(err)
	}
	if ok, err := c.RemoveDir(ctx, "/runs/a"); !ok || err != nil {
		t.Errorf("rm a: %v %v", ok, err)
	}
	if ok, err := c.RemoveDir(ctx, "/runs/nonexistent"); ok || err != nil {
		t.Errorf("rm nonexistent: %v %v", ok, err)
	}
}
