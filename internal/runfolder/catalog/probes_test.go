package catalog

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// realProbe measures this machine's CPU part (--quick) into dir/probe.json,
// as `tuneloop probe --quick --only cpu` does.
func realProbe(t *testing.T, dir string) *probe.Result {
	t.Helper()
	if testing.Short() {
		t.Skip("measures this machine")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := probe.Measure(ctx, probe.Options{Parts: []string{probe.PartCPU}, Quick: true, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(dir, probe.File), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A real probe folder and one a killed probe left (its probe.json still
// says probing) are found by Rebuild beside a run folder, listed with
// their host, kernel, CPU and parts, the killed one as incomplete; the
// lookup run and check use names only the finished one, of its host only;
// rm drops a probe; a catalog made before probes were catalogued is read.
func TestProbesCatalogued(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	probes := filepath.Join(tmp, "probes")
	done := filepath.Join(probes, "20261128T090000Z-here")
	r := realProbe(t, done)
	if r.State() != probe.StatusComplete || r.Host.Name == "" {
		t.Fatalf("probe state %q host %+v", r.State(), r.Host)
	}
	killed := filepath.Join(probes, "20261128T100000Z-here")
	stub := *r
	stub.Start, stub.End, stub.Figures, stub.Status = r.Start.Add(time.Hour), time.Time{}, []probe.Figure{}, probe.StatusProbing
	if err := os.MkdirAll(killed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runfolder.WriteJSONAtomic(filepath.Join(killed, probe.File), &stub); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(tmp, "runs", "r1")
	if _, err := runfolder.Create(runDir, runfolder.Manifest{ID: "r1"}); err != nil {
		t.Fatal(err)
	}
	// Not a probe: a folder with a probe.json that is a directory.
	if err := os.MkdirAll(filepath.Join(probes, "junk", probe.File), 0o755); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(tmp, "runs.db")
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Before anything is catalogued, the lookup finds nothing, no error.
	if dirs, err := ProbeLookup(ctx, path)(r.Host.Name); err != nil || len(dirs) != 0 {
		t.Fatalf("empty catalog lookup: %v %v", dirs, err)
	}
	res, err := c.Rebuild(ctx, []string{filepath.Join(tmp, "runs"), probes}, func(f *runfolder.Folder) (Entry, error) {
		return Entry{ID: f.Manifest.ID, Dir: f.Dir, Start: f.Manifest.Start, Status: f.Manifest.Status}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 1 || !slices.Equal(res.Probes, []string{done, killed}) {
		t.Fatalf("rebuild added runs %v probes %v skipped %v", res.Added, res.Probes, res.Skipped)
	}
	ps, err := c.ListProbes(ctx)
	if err != nil || len(ps) != 2 {
		t.Fatalf("list: %v %+v", err, ps)
	}
	if ps[0].Dir != killed || !ps[0].Incomplete() || ps[1].Dir != done || ps[1].Incomplete() || ps[1].Status != probe.StatusComplete {
		t.Errorf("newest first, the killed one incomplete: %+v", ps)
	}
	e := ps[1]
	if e.ID != "20261128T090000Z-here" || e.Host != r.Host.Name || e.Kernel != r.Host.Kernel || e.CPUModel != r.Host.CPUModel ||
		!slices.Equal(e.Parts, []string{probe.PartCPU}) || !e.Quick || e.Figures == 0 || !e.Start.Equal(r.Start.UTC()) || e.End.IsZero() || e.Missing {
		t.Errorf("entry %+v from probe host %+v parts %v", e, r.Host, r.Parts)
	}
	// The runs stay apart.
	if es, _ := c.List(ctx); len(es) != 1 || es[0].Dir != runDir {
		t.Errorf("runs: %+v", es)
	}

	dirs, err := ProbeLookup(ctx, path)(r.Host.Name)
	if err != nil || !slices.Equal(dirs, []string{done}) {
		t.Errorf("lookup of %q: %v %v (want only the finished probe)", r.Host.Name, dirs, err)
	}
	if dirs, _ := ProbeLookup(ctx, path)("another-host"); len(dirs) != 0 {
		t.Errorf("lookup of another host: %v", dirs)
	}

	// A folder deleted since is listed as missing; rm drops its line.
	if err := os.RemoveAll(killed); err != nil {
		t.Fatal(err)
	}
	if ps, _ := c.ListProbes(ctx); !ps[0].Missing {
		t.Errorf("deleted folder not missing: %+v", ps[0])
	}
	if ok, err := c.RemoveDir(ctx, killed); !ok || err != nil {
		t.Errorf("rm probe: %v %v", ok, err)
	}
	if ps, _ := c.ListProbes(ctx); len(ps) != 1 {
		t.Errorf("after rm: %+v", ps)
	}
}

// A catalog written before probes were catalogued (no probes table) is a
// catalog without probes to the read-only lookup, and gets the table when
// opened for writing.
func TestProbeLookupOldCatalog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	db, err := openDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, catalogSchema); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if dirs, err := ProbeLookup(ctx, path)("h"); err != nil || dirs != nil {
		t.Fatalf("old catalog: %v %v", dirs, err)
	}
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.PutProbe(ctx, ProbeEntry{ID: "p", Dir: filepath.Join(t.TempDir(), "p"), Host: "h", Start: time.Now(), Status: probe.StatusComplete}); err != nil {
		t.Fatal(err)
	}
	if dirs, err := ProbeLookup(ctx, path)("h"); err != nil || len(dirs) != 1 {
		t.Errorf("after migration: %v %v", dirs, err)
	}
	// Not a database at all: an error the caller reports, not a panic.
	bad := filepath.Join(t.TempDir(), "runs.db")
	if err := os.WriteFile(bad, []byte("not sqlite at all, just text that is long enough to be a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ProbeLookup(ctx, bad)("h"); err == nil {
		t.Error("a file that is not a catalog gave no error")
	}
}
