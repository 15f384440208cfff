package html

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.html (and write screenshots to testdata/shots/)")

// demoPage is a real run's report.json: `make demo`'s sync-logging run
// before the fix (testdata/README.md says where it came from).
func demoPage(t *testing.T, l finding.Lang) *report.RunPage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "demo-before.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p report.RunPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("demo-before.json: %v", err)
	}
	p.Lang = l
	return &p
}

// minimalPage is what a run that was killed at once leaves: a header, an
// unavailable diagnosis, no series.
func minimalPage() *report.RunPage {
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	return &report.RunPage{Schema: report.RunPageSchema, Lang: finding.EN, Title: "minimal",
		Run: &report.RunSummary{Schema: report.RunSchema, Tool: report.Tool{Name: "tuneloop", Version: "v0.9.0-test"}, ID: "20261122-010000-min",
			Status: "interrupted", Incomplete: true, Reason: "killed by SIGKILL", Start: t0, End: t0.Add(2 * time.Second), GeneratedAt: t0.Add(3 * time.Second),
			Findings: []finding.Finding{{ID: "run.cpu", Status: finding.Unavailable, Title: finding.T("CPU saturation", "CPU 饱和"),
				Reason: finding.T("fewer than 2 samples", "采样少于 2 个")}}}}
}

// goldenPages are the committed pages: what a reviewer reads to see a
// renderer change, byte for byte.
func goldenPages(t *testing.T) map[string]*report.RunPage {
	hostile := htmlFixture(4, finding.EN)
	makeHostile(hostile)
	return map[string]*report.RunPage{
		"run-2cpu-en":     htmlFixture(2, finding.EN),
		"run-2cpu-zh":     htmlFixture(2, finding.ZH),
		"demo-before-en":  demoPage(t, finding.EN),
		"demo-before-zh":  demoPage(t, finding.ZH),
		"hostile-4cpu-en": hostile,
		"empty-en":        {Lang: finding.EN},
		"minimal-en":      minimalPage(),
	}
}

func TestGoldenPages(t *testing.T) {
	for name, p := range goldenPages(t) {
		t.Run(name, func(t *testing.T) {
			got := renderHTML(t, p)
			checkSelfContained(t, name, got)
			checkGolden(t, name, got)
		})
	}
}

// checkGolden compares a page with testdata/golden/NAME.html, or writes it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".html")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report/html -update to write it)", err)
	}
	if d := firstDiff(string(want), got); d != "" {
		t.Errorf("%s differs from the golden page: %s\nIf the change is intended: go test ./internal/report/html -update, then review git diff %s", name, d, path)
	}
}

// firstDiff says where got first departs from want: the line and both
// versions of it, cut around the first differing byte ("" when equal).
func firstDiff(want, got string) string {
	if want == got {
		return ""
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w == g {
			continue
		}
		c := 0
		for c < min(len(w), len(g)) && w[c] == g[c] {
			c++
		}
		cut := func(s string) string { return fmt.Sprintf("%q", s[max(0, c-60):min(len(s), c+60)]) }
		return fmt.Sprintf("line %d (%d vs %d lines), column %d:\n  want …%s…\n  got  …%s…", i+1, len(wl), len(gl), c+1, cut(w), cut(g))
	}
	return "same lines, different bytes"
}

func TestFirstDiff(t *testing.T) {
	if d := firstDiff("a\nb\nc", "a\nb\nc"); d != "" {
		t.Errorf("equal: %q", d)
	}
	d := firstDiff("a\n<svg x=\"1.0\">\nc", "a\n<svg x=\"1.5\">\nc")
	if !strings.Contains(d, "line 2") || !strings.Contains(d, "column 11") || !strings.Contains(d, `1.5`) {
		t.Errorf("diff hint: %s", d)
	}
	if d := firstDiff("a\nb", "a\nb\nextra"); !strings.Contains(d, "line 3 (2 vs 3 lines)") {
		t.Errorf("longer: %s", d)
	}
}

// The same page renders to the same bytes, however often and from however
// many goroutines: no clock, no map order, no shared state.
func TestWriteRunDeterministic(t *testing.T) {
	for name, p := range goldenPages(t) {
		first := renderHTML(t, p)
		outs := make(chan string, 4)
		for range cap(outs) {
			go func() {
				var b bytes.Buffer
				if err := WriteRun(&b, p); err != nil {
					outs <- err.Error()
					return
				}
				outs <- b.String()
			}()
		}
		for range cap(outs) {
			if d := firstDiff(first, <-outs); d != "" {
				t.Errorf("%s: two renders differ: %s", name, d)
			}
		}
	}
}
