package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// WriteFiles leaves the three reports whole and nothing half-written; a
// folder that is not there fails every file, named in the error.
func TestWriteFiles(t *testing.T) {
	doc := &report.Experiment{Schema: "tuneloop.experiment/test", Tool: report.Tool{Name: "tuneloop", Version: "t"}}
	dir := t.TempDir()
	if err := WriteFiles(dir, doc, finding.ZH); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "report.html report.json report.md" {
		t.Errorf("files: %v", names)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var back report.Experiment
	if err := json.Unmarshal(b, &back); err != nil || back.Schema != doc.Schema {
		t.Errorf("report.json: %v %q", err, back.Schema)
	}
	h, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(h), `<html lang="zh`) {
		t.Errorf("report.html is not the page in Chinese: %.120s", h)
	}
	err := WriteFiles(filepath.Join(dir, "none"), doc, finding.EN)
	if err == nil || !strings.Contains(err.Error(), "report.md") || !strings.Contains(err.Error(), "report.json") {
		t.Errorf("missing folder: %v", err)
	}
}
