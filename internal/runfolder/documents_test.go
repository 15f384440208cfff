package runfolder

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A document's files are each written whole or not at all: a renderer
// that fails leaves its old file as it was and stops no other file, the
// error names the file, and no temp file is left in the folder.
func TestWriteDocumentsEachWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("renderer failed")
	err := WriteDocuments(dir,
		Document{Name: "report.html", Write: func(w io.Writer) error { _, err := io.WriteString(w, "<html>"); return err }},
		Document{Name: "report.md", Write: func(w io.Writer) error { io.WriteString(w, "half"); return boom }},
		Document{Name: "report.json", Write: func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "report.md") {
		t.Errorf("error %v does not name report.md's failure", err)
	}
	for name, want := range map[string]string{"report.html": "<html>", "report.md": "old", "report.json": "{}"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("folder holds %d files, want 3 (no temp file left)", len(ents))
	}
	// A folder that cannot be written: every file's error is returned.
	err = WriteDocuments(filepath.Join(dir, "missing"), Document{Name: "a", Write: func(io.Writer) error { return nil }}, Document{Name: "b", Write: func(io.Writer) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "missing/a") || !strings.Contains(err.Error(), "missing/b") {
		t.Errorf("unwritable folder: %v", err)
	}
}
