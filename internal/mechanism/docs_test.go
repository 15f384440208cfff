package mechanism

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/mechanisms.md")

// TestDocsListEveryEntry keeps docs/mechanisms.md, the catalogue with each
// entry's signature, fixes and references, in step with the code
// (`go test ./internal/mechanism -update` rewrites it).
func TestDocsListEveryEntry(t *testing.T) {
	var b bytes.Buffer
	WriteMarkdown(&b, Catalogue())
	path := "../../docs/mechanisms.md"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("docs/mechanisms.md is stale: run go test ./internal/mechanism -update")
	}
	// A code span that crosses a line break renders as one line: a fix's
	// two properties would be copied as one.
	for i, line := range strings.Split(string(got), "\n") {
		if strings.Count(line, "`")%2 != 0 {
			t.Errorf("docs/mechanisms.md:%d: a code span crosses the line: %.80s", i+1, line)
		}
	}
	for _, e := range Catalogue() {
		if !strings.Contains(string(got), "`"+e.ID+"`") {
			t.Errorf("%s missing from the docs", e.ID)
		}
	}
}
