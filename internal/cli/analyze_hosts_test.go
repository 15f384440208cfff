package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAnalyzeMultiHostFolder: `analyze` of a `run --host` folder (a real
// one, kept by CI) reads hosts.json and every host's folder as the run did:
// the app host judged over the load (CPU saturated, not the latency-bound
// reading of its whole recording), every host's section, nothing written.
// The app host's folder alone is still a run folder, and the user is told
// which run it belongs to.
func TestAnalyzeMultiHostFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "multihost", "testdata", "host-cpu-saturated"))); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, dir)

	env, out, errb := testEnv()
	if err := RunAnalyze(context.Background(), env, []string{dir}, &AnalyzeOptions{Output: "json"}); err != nil {
		t.Fatalf("analyze: %v\n%s", err, errb.String())
	}
	var doc struct {
		Schema  string `json:"schema"`
		Verdict *struct {
			Subject string `json:"subject"`
		} `json:"verdict"`
		Hosts *struct {
			Hosts []struct {
				Name string `json:"name"`
				Role string `json:"role"`
			} `json:"hosts"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("JSON: %v\n%.400s", err, out.String())
	}
	if doc.Verdict == nil || !strings.HasPrefix(doc.Verdict.Subject, "run.cpu.saturated/") {
		t.Errorf("verdict %+v, want the CPUs saturated during the load", doc.Verdict)
	}
	if doc.Hosts == nil || len(doc.Hosts.Hosts) != 1 || doc.Hosts.Hosts[0].Role != "app" {
		t.Errorf("hosts section: %+v", doc.Hosts)
	}

	env, out, _ = testEnv()
	if err := RunAnalyze(context.Background(), env, []string{dir}, &AnalyzeOptions{Output: "text", Lang: "zh"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"结论：", "主机：", "127.0.0.1 [app]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, out.String())
		}
	}
	// analyze writes no page, so it names none that does not exist.
	if strings.Contains(out.String(), "report.html") {
		t.Errorf("the text names a report.html the folder does not have:\n%s", out.String())
	}
	if after := listTree(t, dir); !slices.Equal(before, after) {
		t.Errorf("analyze wrote into the folder: %v, was %v", after, before)
	}

	// One host's folder alone: analysed on its own, with a pointer to the run.
	host := filepath.Join(dir, "hosts", "127.0.0.1")
	env, _, errb = testEnv()
	if err := RunAnalyze(context.Background(), env, []string{host}, &AnalyzeOptions{Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "tuneloop analyze "+dir) {
		t.Errorf("stderr does not point to the run: %q", errb.String())
	}
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		names = append(names, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestAnalyzeSave: `analyze --save RUN_DIR` writes the folder's derived
// series and findings again from its raw samples (a folder copied without
// them, or diagnosed by an older tuneloop); without --save nothing is written.
func TestAnalyzeSave(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "verdict", "testdata", "runs", "cpu-hot"))); err != nil {
		t.Fatal(err)
	}
	for _, save := range []bool{false, true} {
		env, _, errb := testEnv()
		if err := RunAnalyze(context.Background(), env, []string{dir}, &AnalyzeOptions{Output: "text", Save: save}); err != nil {
			t.Fatalf("analyze (save %v): %v\n%s", save, err, errb.String())
		}
		for _, name := range []string{"derived/series.json", "findings.json"} {
			_, err := os.Stat(filepath.Join(dir, name))
			if save != (err == nil) {
				t.Errorf("save %v: %s: %v", save, name, err)
			}
		}
	}
}
