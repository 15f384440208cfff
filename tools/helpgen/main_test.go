package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const table = `package cli

import "strings"

// helpZH is the table.
var helpZH = map[string]string{
	"Do a thing": "做一件事",
	` + "`Long text\ntwo lines` + more() + `.`: `长文本\n两行` + moreZH() + `。`" + `,
	"list: a, b":         "列表：a、b",
	"token (default $X)": "口令（默认 $X）",
	"unused entry":       "无用",
}

// moreZH is more in Chinese.
func moreZH() string { return strings.ToUpper(more()) }
`

const cmdFile = `package cli

import "github.com/spf13/cobra"

const envName = "X"

func newCmd() *cobra.Command {
	var s string
	var b bool
	cmd := &cobra.Command{
		Use:   "x",
		Short: "Do a thing",
		Long: ` + "`Long text\ntwo lines` + more() + `.`" + `,
	}
	f := cmd.Flags()
	f.StringVar(&s, "list", "", "list: "+names())
	f.StringVar(&s, "tok", "", "token (default $"+envName+")")
	f.BoolVar(&b, "plain", false, "no pair")
	return cmd
}

func more() string  { return "more" }
func names() string { return "a, b" }
`

func write(t *testing.T, dir, name, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runOnce runs the program on dir and returns its problems.
func runOnce(t *testing.T, dir string) []string {
	t.Helper()
	problems, notes, elsewhere = nil, nil, nil
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	return problems
}

func TestConvertsAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, tableFile, table)
	write(t, dir, bridgeFile, "package cli\n")
	write(t, dir, "cmd.go", cmdFile)

	// An entry nothing uses and a flag without Chinese stop it, unchanged.
	p := runOnce(t, dir)
	if len(p) != 2 || !strings.Contains(strings.Join(p, "\n"), "unused entry") || !strings.Contains(strings.Join(p, "\n"), `"no pair"`) {
		t.Fatalf("problems: %q", p)
	}
	if read(t, filepath.Join(dir, "cmd.go")) != cmdFile {
		t.Fatal("written despite problems")
	}

	write(t, dir, tableFile, strings.Replace(table, "\t\"unused entry\":       \"无用\",\n", "", 1))
	write(t, dir, "cmd.go", strings.Replace(cmdFile, `"no pair"`, `helpText(finding.T("no pair", "无对"))`, 1))
	if p := runOnce(t, dir); len(p) != 0 {
		t.Fatalf("problems: %q", p)
	}
	got := read(t, filepath.Join(dir, "cmd.go"))
	for _, want := range []string{
		`Short: helpText(finding.T("Do a thing", "做一件事")),`,
		"Long: helpText(finding.T(\n\t\t\t`Long text\ntwo lines`+more()+`.`,\n\t\t\t`长文本\n两行`+moreZH()+`。`,\n\t\t)),",
		`helpText(finding.T("list: "+names(), "列表："+strings.ReplaceAll(names(), ", ", "、")))`,
		`helpText(finding.T("token (default $"+envName+")", "口令（默认 $"+envName+"）"))`,
		"// moreZH is more in Chinese.\nfunc moreZH() string { return strings.ToUpper(more()) }",
		`"github.com/tuneloop/tuneloop/internal/finding"`,
		`"strings"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("converted file lacks %q:\n%s", want, got)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "", got, 0); err != nil {
		t.Errorf("converted file does not parse: %v", err)
	}
	for _, f := range []string{tableFile, bridgeFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s not deleted: %v", f, err)
		}
	}

	// Again on the converted tree: nothing to do.
	if p := runOnce(t, dir); len(p) != 0 {
		t.Fatalf("second run: %q", p)
	}
	if read(t, filepath.Join(dir, "cmd.go")) != got {
		t.Error("second run changed the file")
	}

	// A table with texts already placed and a new one (as after a merge):
	// only the new one is converted; a placed text with another Chinese is
	// reported.
	write(t, dir, tableFile, "package cli\n\nvar helpZH = map[string]string{\n\t\"Do a thing\": \"做一件事\",\n\t\"new flag\": \"新参数\",\n\t\"list: a, b\": \"列表：a、b\",\n}\n")
	write(t, dir, "more.go", "package cli\n\nfunc more2(f interface{ BoolVar(*bool, string, bool, string) }) {\n\tvar b bool\n\tf.BoolVar(&b, \"new\", false, \"new flag\")\n}\n")
	if p := runOnce(t, dir); len(p) != 0 {
		t.Fatalf("merge run: %q", p)
	}
	if m := read(t, filepath.Join(dir, "more.go")); !strings.Contains(m, `helpText(finding.T("new flag", "新参数"))`) || !strings.Contains(m, "internal/finding") {
		t.Errorf("new entry not converted:\n%s", m)
	}
	if read(t, filepath.Join(dir, "cmd.go")) != got {
		t.Error("merge run changed a converted file")
	}
	// A table text used only outside help (a helper's argument, a message)
	// is left to a person; beside a help use it is left alone.
	write(t, dir, tableFile, "package cli\n\nvar helpZH = map[string]string{\n\t\"Do a thing\": \"做一件事\",\n\t\"passed on\": \"传递\",\n}\n")
	write(t, dir, "other.go", "package cli\n\nimport \"errors\"\n\nvar errX = errors.New(\"Do a thing\")\n\nfunc h() { usage(\"passed on\") }\n\nfunc usage(string) {}\n")
	if p := runOnce(t, dir); len(p) != 1 || !strings.Contains(p[0], "only use is outside") || !strings.Contains(p[0], "other.go:7") {
		t.Errorf("text outside help: %q", p)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "other.go:5") {
		t.Errorf("notes: %q", notes)
	}
	os.Remove(filepath.Join(dir, "other.go"))
	write(t, dir, tableFile, "package cli\n\nvar helpZH = map[string]string{\n\t\"Do a thing\": \"做两件事\",\n}\n")
	if p := runOnce(t, dir); len(p) != 1 || !strings.Contains(p[0], "another Chinese") {
		t.Errorf("changed Chinese not reported: %q", p)
	}
}
