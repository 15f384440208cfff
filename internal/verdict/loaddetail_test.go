package verdict

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
)

// The load's detail is read with the folder; a damaged one is an
// unavailable finding naming it, and the rest of the run is still read.
func TestLoadDetailRead(t *testing.T) {
	good := `{"schema":"tuneloop.load-detail/v1","start":1764061200,"width":1,"seconds":2,
		"rows":[{"t":0,"span":1,"n":10,"p50":2,"p90":3,"p99":4,"max":5},{"t":1,"span":0.5,"n":4,"p50":2,"p90":3,"p99":4,"max":5}]}`
	for _, c := range []struct {
		name, body string
		ok         bool
	}{
		{"good", good, true},
		{"truncated", good[:60], false},
		{"misaligned", `{"schema":"tuneloop.load-detail/v1","start":1,"width":1,"seconds":5,"rows":[{"t":0,"span":1}]}`, false},
	} {
		dir := copyRun(t, "testdata/runs/healthy")
		if err := os.WriteFile(filepath.Join(dir, loaddetail.File), []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		L, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		said := slices.ContainsFunc(L.Problems, func(p finding.Finding) bool { return p.Subject == loaddetail.File })
		if (L.LoadDetail != nil) != c.ok || said == c.ok || L.Load == nil || L.Series == nil {
			t.Errorf("%s: detail %v, said %v, load %v", c.name, L.LoadDetail != nil, said, L.Load != nil)
		}
	}
	// A link out of the folder is not followed; no file is no problem.
	dir := copyRun(t, "testdata/runs/healthy")
	if err := os.Symlink("/dev/zero", filepath.Join(dir, loaddetail.File)); err != nil {
		t.Fatal(err)
	}
	if L, err := Load(dir); err != nil || L.LoadDetail != nil || len(L.Problems) == 0 {
		t.Errorf("a link: %v %v", err, L.Problems)
	}
	if L, err := Load("testdata/runs/healthy"); err != nil || L.LoadDetail != nil || len(L.Problems) != 0 {
		t.Errorf("no detail: %v %v", err, L.Problems)
	}
}
