package logconf

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every string literal of the package (finding texts in both languages and
// references): none may point at the team's own notes, which a user does not
// have (research/*.md, seeds/*, "the practice documents").
func TestTextsCitePublicSourcesOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	markers := []string{"research/", "anchors-", "seeds/", ".md #", "practice document", "实践文档"}
	fset := token.NewFileSet()
	seen := 0
	for _, fn := range files {
		if strings.HasSuffix(fn, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fn, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			seen++
			for _, m := range markers {
				if strings.Contains(strings.ToLower(s), m) {
					t.Errorf("%s cites a private note (%q): %.120q", fset.Position(lit.Pos()), m, s)
				}
			}
			return true
		})
	}
	if seen < 100 {
		t.Fatalf("only %d string literals read", seen)
	}
}
