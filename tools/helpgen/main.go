// Command helpgen moves the Chinese help texts of internal/cli/help_zh.go, a
// table keyed by the English, to where each text is defined: every English
// literal of a command file that is a key of the table becomes
//
//	helpText(finding.T(ENGLISH, CHINESE))
//
// at its own place (a command's Short, Long or Example, a flag's usage), the
// table's other declarations move to the file that uses them, and help_zh.go
// (with help_zh_init.go, which looks it up meanwhile) is deleted.
//
//	go run ./tools/helpgen            # rewrite internal/cli
//	go run ./tools/helpgen -n         # only report
//
// It can run again on a tree where some files are converted and the table
// has new entries: texts already written as helpText(finding.T(...)) count
// as placed (their Chinese must equal the table's). It writes nothing and
// exits 1 when a table entry has no user, a placed text has another
// Chinese, a help text (Short/Long/Example, a flag's usage) has no Chinese,
// or anything still names helpZH; the report says file and line of each.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const (
	tableFile  = "help_zh.go"
	bridgeFile = "help_zh_init.go"
	tableVar   = "helpZH"
	findingPkg = "github.com/tuneloop/tuneloop/internal/finding"
)

// entry is one row of the table.
type entry struct {
	en, zh string // source text, verbatim
	key    string // what sites are matched by (see keyOf)
	zhKey  string
	pos    token.Position
	used   int
}

// splice replaces src[from:to] by text.
type splice struct {
	from, to int
	text     string
}

type fileEdit struct {
	path    string
	src     []byte
	file    *ast.File
	fset    *token.FileSet
	splices []splice
	appends []string // declarations moved from the table
	imports map[string]bool
}

var (
	dir    = flag.String("dir", "internal/cli", "the package whose command files to rewrite")
	dryRun = flag.Bool("n", false, "report only; write nothing")
)

// problems are what stops the program from writing; notes are said only.
var problems, notes []string

// outside is a table text found outside a Short/Long/Example or a flag
// registration's usage.
type outside struct {
	pos token.Position
	en  *entry
	src string
}

var elsewhere []outside

func problem(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
func note(format string, a ...any)    { notes = append(notes, fmt.Sprintf(format, a...)) }

func main() {
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "helpgen:", err)
		os.Exit(1)
	}
	for _, n := range notes {
		fmt.Println("note:", n)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "helpgen:", p)
		}
		fmt.Fprintf(os.Stderr, "helpgen: %d problem(s); nothing written\n", len(problems))
		os.Exit(1)
	}
}

func run(dir string) error {
	fset := token.NewFileSet()
	entries, byKey, others, tableImports, haveTable, err := readTable(fset, filepath.Join(dir, tableFile))
	if err != nil {
		return err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	var edits []*fileEdit
	converted := 0
	for _, p := range paths {
		base := filepath.Base(p)
		if base == tableFile || base == bridgeFile {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if strings.HasSuffix(base, "_test.go") {
			// Tests are not rewritten, but may not keep using the table.
			if haveTable && usesIdent(f, tableVar) {
				problem("%s: uses %s, which is deleted", p, tableVar)
			}
			continue
		}
		e := &fileEdit{path: p, src: src, file: f, fset: fset, imports: map[string]bool{}}
		converted += e.scan(byKey)
		if haveTable && usesIdent(f, tableVar) {
			problem("%s: uses %s, which is deleted", p, tableVar)
		}
		edits = append(edits, e)
	}
	for _, o := range elsewhere {
		if o.en.used > 0 {
			note("%s: left as is, outside a help field (the text is placed elsewhere): %.80s", o.pos, o.src)
		} else {
			problem("%s: the table's only use is outside a Short/Long/Example or flag usage; if it is help, write helpText(finding.T(en, zh)) there by hand: %.80s", o.pos, o.src)
			o.en.used++ // said once
		}
	}
	for _, en := range entries {
		if en.used == 0 {
			problem("%s: table entry has no user in any command file: %.120s", en.pos, en.en)
		}
	}
	moveDecls(edits, others, tableImports)
	fmt.Printf("helpgen: %d table entries, %d texts converted, %d files changed\n", len(entries), converted, countChanged(edits))
	if len(problems) > 0 || *dryRun {
		return nil
	}
	for _, e := range edits {
		if len(e.splices) == 0 && len(e.appends) == 0 {
			continue
		}
		out, err := e.apply()
		if err != nil {
			return fmt.Errorf("%s: %v", e.path, err)
		}
		if err := os.WriteFile(e.path, out, 0o644); err != nil {
			return err
		}
	}
	if haveTable {
		for _, f := range []string{tableFile, bridgeFile} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		fmt.Printf("helpgen: deleted %s and %s\n", tableFile, bridgeFile)
	}
	return nil
}

func countChanged(edits []*fileEdit) int {
	n := 0
	for _, e := range edits {
		if len(e.splices) > 0 || len(e.appends) > 0 {
			n++
		}
	}
	return n
}

// readTable reads the table's entries and the file's other declarations.
func readTable(fset *token.FileSet, path string) (entries []*entry, byKey map[string]*entry, others []ast.Decl, imports map[string]string, ok bool, err error) {
	byKey = map[string]*entry{}
	imports = map[string]string{}
	src, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, byKey, nil, imports, false, nil
	}
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		name := filepath.Base(p)
		if is.Name != nil {
			name = is.Name.Name
		}
		imports[name] = p
	}
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	found := false
	for _, d := range f.Decls {
		gd, isGen := d.(*ast.GenDecl)
		if isGen && gd.Tok == token.IMPORT {
			continue
		}
		if isGen && gd.Tok == token.VAR && len(gd.Specs) == 1 {
			vs := gd.Specs[0].(*ast.ValueSpec)
			if len(vs.Names) == 1 && vs.Names[0].Name == tableVar && len(vs.Values) == 1 {
				cl, isLit := vs.Values[0].(*ast.CompositeLit)
				if !isLit {
					return nil, nil, nil, nil, false, fmt.Errorf("%s: %s is not a map literal", path, tableVar)
				}
				found = true
				for _, el := range cl.Elts {
					kv := el.(*ast.KeyValueExpr)
					en := &entry{en: text(kv.Key), zh: text(kv.Value), key: keyOf(kv.Key, text(kv.Key)), zhKey: keyOf(kv.Value, text(kv.Value)), pos: fset.Position(kv.Pos())}
					if old, dup := byKey[en.key]; dup {
						problem("%s: duplicate of the entry at %s", en.pos, old.pos)
						continue
					}
					byKey[en.key] = en
					entries = append(entries, en)
				}
				continue
			}
		}
		from := fset.Position(d.Pos()).Offset
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				from = fset.Position(d.Doc.Pos()).Offset
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				from = fset.Position(d.Doc.Pos()).Offset
			}
		}
		declSrc[d] = string(src[from:fset.Position(d.End()).Offset])
		declPos[d] = fset.Position(d.Pos())
		others = append(others, d)
	}
	if !found {
		return nil, nil, nil, nil, false, fmt.Errorf("%s: no %s table", path, tableVar)
	}
	return entries, byKey, others, imports, true, nil
}

// keyOf is what a text is matched by: the value of a constant string
// expression, else its tokens (e.g. `...` + samplerHelp() + `...`).
func keyOf(e ast.Expr, src string) string {
	if v, ok := constString(e); ok {
		return "v:" + v
	}
	var s scanner.Scanner
	fs := token.NewFileSet()
	b := []byte(src)
	s.Init(fs.AddFile("", -1, len(b)), b, nil, 0)
	var toks []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if lit == "" {
			lit = tok.String()
		}
		toks = append(toks, lit)
	}
	return "t:" + strings.Join(toks, " ")
}

func constString(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return constString(x.X)
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := constString(x.X)
		b, ok2 := constString(x.Y)
		return a + b, ok1 && ok2
	}
	return "", false
}

// isStringExpr says whether e is a string literal or a sum with one.
func isStringExpr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return x.Kind == token.STRING
	case *ast.ParenExpr:
		return isStringExpr(x.X)
	case *ast.BinaryExpr:
		return x.Op == token.ADD && (isStringExpr(x.X) || isStringExpr(x.Y))
	}
	return false
}

// flagMethod matches pflag's registration methods, whose last argument is
// the usage.
var flagMethod = regexp.MustCompile(`^(Var|VarP|VarPF|[A-Z][A-Za-z0-9]*(Var|VarP|P)|Bool|String|Int|Int64|Uint|Duration|Float64|Count|StringSlice|StringArray|IntSlice)$`)

func isSel(e ast.Expr, pkg, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == pkg && s.Sel.Name == name
}

func isIdent(e ast.Expr, name string) bool {
	x, ok := e.(*ast.Ident)
	return ok && x.Name == name
}

// helpContext names the help text e is, when it is one: a command's Short,
// Long or Example or the usage of a flag registration.
func helpContext(e ast.Expr, parent ast.Node) string {
	switch p := parent.(type) {
	case *ast.KeyValueExpr:
		if k, ok := p.Key.(*ast.Ident); ok && p.Value == e && (k.Name == "Short" || k.Name == "Long" || k.Name == "Example") {
			return k.Name
		}
	case *ast.CallExpr:
		if s, ok := p.Fun.(*ast.SelectorExpr); ok && len(p.Args) > 1 && p.Args[len(p.Args)-1] == e && flagMethod.MatchString(s.Sel.Name) {
			return "usage of " + s.Sel.Name
		}
	}
	return ""
}

// scan finds the file's help texts, plans their conversion and returns how
// many it converts.
func (fe *fileEdit) scan(byKey map[string]*entry) int {
	n := 0
	text := func(x ast.Node) string {
		return string(fe.src[fe.fset.Position(x.Pos()).Offset:fe.fset.Position(x.End()).Offset])
	}
	var stack []ast.Node
	ast.Inspect(fe.file, func(x ast.Node) bool {
		if x == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		descend := fe.visit(x, parent, stack, byKey, text, &n)
		if descend {
			stack = append(stack, x)
		}
		return descend
	})
	return n
}

func (fe *fileEdit) visit(x, parent ast.Node, stack []ast.Node, byKey map[string]*entry, text func(ast.Node) string, n *int) bool {
	pos := func(x ast.Node) token.Position { return fe.fset.Position(x.Pos()) }
	switch x := x.(type) {
	case *ast.GenDecl:
		if x.Tok == token.IMPORT || x.Tok == token.CONST {
			return false
		}
	case *ast.CallExpr:
		// Already converted: helpText(finding.T(en, zh)).
		if isIdent(x.Fun, "helpText") && len(x.Args) == 1 {
			if t, ok := x.Args[0].(*ast.CallExpr); ok && isSel(t.Fun, "finding", "T") && len(t.Args) == 2 {
				placed(byKey, t, text, pos(t))
				return false
			}
		}
		// cobra's own texts, paired in help.go's cobraHelp.
		if isSel(x.Fun, "finding", "T") && len(x.Args) == 2 && inVar(stack, "cobraHelp") {
			placed(byKey, x, text, pos(x))
			return false
		}
		if isSel(x.Fun, "finding", "T") || isSel(x.Fun, "finding", "Tf") {
			return false // other bilingual texts
		}
	case ast.Expr:
		if !isStringExpr(x) {
			return true
		}
		ctx := helpContext(x, parent)
		src := text(x)
		en, ok := byKey[keyOf(x, src)]
		zh := ""
		if ok {
			zh = en.zh
		} else if en, zh, ok = fe.matchBuilt(x, byKey, text); ok {
			note("%s: a built text matched the table entry at %s; its Chinese is built the same way: %.200s", pos(x), en.pos, zh)
		}
		if !ok {
			if ctx != "" && strings.TrimSpace(mustConst(x)) != "" {
				problem("%s: %s has no Chinese (write it as helpText(finding.T(en, zh))): %.120s", pos(x), ctx, src)
			}
			return false
		}
		if ctx == "" {
			// Maybe help passed through a helper, maybe a message that
			// happens to read the same: helpText's pair would garble the
			// latter, so it is left to a person (see run).
			elsewhere = append(elsewhere, outside{pos(x), en, src})
			return false
		}
		en.used++
		fe.splices = append(fe.splices, splice{
			from: fe.fset.Position(x.Pos()).Offset,
			to:   fe.fset.Position(x.End()).Offset,
			text: pair(src, zh),
		})
		fe.imports[findingPkg] = true
		*n++
		return false
	}
	return true
}

// pair is the converted text; a text of several lines gets a line each.
func pair(en, zh string) string {
	if strings.Contains(en, "\n") || strings.Contains(zh, "\n") {
		return "helpText(finding.T(\n" + en + ",\n" + zh + ",\n))"
	}
	return "helpText(finding.T(" + en + ", " + zh + "))"
}

// mustConst is e's value when constant, else its first literal.
func mustConst(e ast.Expr) string {
	if v, ok := constString(e); ok {
		return v
	}
	return "x"
}

// placed marks a table entry as already written at its place, and checks
// the Chinese there is the table's.
func placed(byKey map[string]*entry, t *ast.CallExpr, text func(ast.Node) string, pos token.Position) {
	en, ok := byKey[keyOf(t.Args[0], text(t.Args[0]))]
	if !ok {
		// A built text (`"..." + names()`) matches the table's expanded
		// form; its Chinese was built from the table when converted.
		if en, _, ok = matchBuilt(t.Args[0], byKey, text); ok {
			en.used++
		}
		return
	}
	en.used++
	if keyOf(t.Args[1], text(t.Args[1])) != en.zhKey {
		problem("%s: placed with another Chinese than the table's (%s): %.80s", pos, en.pos, text(t.Args[1]))
	}
}

func inVar(stack []ast.Node, name string) bool {
	for _, s := range stack {
		if vs, ok := s.(*ast.ValueSpec); ok {
			for _, n := range vs.Names {
				if n.Name == name {
					return true
				}
			}
		}
	}
	return false
}

func usesIdent(f *ast.File, name string) bool {
	found := false
	ast.Inspect(f, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// moveDecls appends each of the table file's other declarations to the
// first file that uses it once converted.
func moveDecls(edits []*fileEdit, decls []ast.Decl, tableImports map[string]string) {
	declared := map[string]bool{}
	for _, e := range edits {
		for _, d := range e.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				continue
			}
			for _, n := range declNames(d) {
				declared[n] = true
			}
		}
	}
	for _, d := range decls {
		names := declNames(d)
		src := declSource(d)
		if len(names) > 0 && declared[names[0]] {
			continue // moved by an earlier run
		}
		var target *fileEdit
		for _, e := range edits {
			if target == nil && e.refers(names) {
				target = e
			}
		}
		if target == nil {
			problem("%s: %s is used by no command file", declPos[d], strings.Join(names, ", "))
			continue
		}
		target.appends = append(target.appends, src)
		for name, path := range tableImports {
			if strings.Contains(src, name+".") {
				target.imports[path] = true
			}
		}
	}
}

// declSrc maps a declaration of the table file to its source, doc comment
// included; declPos to where it is.
var (
	declSrc = map[ast.Decl]string{}
	declPos = map[ast.Decl]token.Position{}
)

func declSource(d ast.Decl) string { return declSrc[d] }

func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var out []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				for _, n := range s.Names {
					out = append(out, n.Name)
				}
			case *ast.TypeSpec:
				out = append(out, s.Name.Name)
			}
		}
		return out
	}
	return nil
}

// refers says whether the file, with its planned splices, names one of names.
func (fe *fileEdit) refers(names []string) bool {
	src := string(fe.spliced())
	for _, n := range names {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(n) + `\b`).MatchString(src) {
			return true
		}
	}
	return false
}

func (fe *fileEdit) spliced() []byte {
	sp := append([]splice(nil), fe.splices...)
	sort.Slice(sp, func(i, j int) bool { return sp[i].from > sp[j].from })
	out := append([]byte(nil), fe.src...)
	for _, s := range sp {
		out = append(out[:s.from], append([]byte(s.text), out[s.to:]...)...)
	}
	return out
}

// apply returns the file rewritten and formatted.
func (fe *fileEdit) apply() ([]byte, error) {
	out := fe.spliced()
	for _, a := range fe.appends {
		out = append(bytes.TrimRight(out, "\n"), []byte("\n\n"+a+"\n")...)
	}
	out, err := addImports(out, fe.imports)
	if err != nil {
		return nil, err
	}
	return format.Source(out)
}

// addImports adds the paths the file does not import yet to its import
// declaration (gofmt sorts them into place).
func addImports(src []byte, paths map[string]bool) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		have[p] = true
	}
	var add []string
	for p := range paths {
		if !have[p] {
			add = append(add, strconv.Quote(p))
		}
	}
	if len(add) == 0 {
		return src, nil
	}
	sort.Strings(add)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if gd.Rparen.IsValid() {
			at := fset.Position(gd.Rparen).Offset
			ins := "\t" + strings.Join(add, "\n\t") + "\n"
			return append(src[:at:at], append([]byte(ins), src[at:]...)...), nil
		}
		// import "x" → import ("x"; new)
		from, to := fset.Position(gd.Pos()).Offset, fset.Position(gd.End()).Offset
		spec := string(src[fset.Position(gd.Specs[0].Pos()).Offset:to])
		repl := "import (\n\t" + spec + "\n\n\t" + strings.Join(add, "\n\t") + "\n)"
		return append(src[:from:from], append([]byte(repl), src[to:]...)...), nil
	}
	at := fset.Position(f.Name.End()).Offset
	ins := "\n\nimport (\n\t" + strings.Join(add, "\n\t") + "\n)"
	return append(src[:at:at], append([]byte(ins), src[at:]...)...), nil
}

// part is one operand of a sum of strings: constant, or an expression.
type part struct {
	val, src string
	isConst  bool
}

func parts(e ast.Expr, text func(ast.Node) string) []part {
	if v, ok := constString(e); ok {
		return []part{{val: v, isConst: true}}
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return parts(x.X, text)
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			return append(parts(x.X, text), parts(x.Y, text)...)
		}
	}
	return []part{{src: text(e)}}
}

// listZH is how a built list is said in Chinese, as samplerHelpZH does.
const listZH = `strings.ReplaceAll(%s, ", ", "、")`

// matchBuilt matches a text built at run time ("..." + formatNames(), "$" +
// probeTokenEnv) against the table's constant keys, its expressions
// standing for any text; on exactly one match it returns the entry and the
// Chinese built alike: each expression's value found in the table's Chinese
// as is, or as a list joined with "、", is replaced by the expression.
func (fe *fileEdit) matchBuilt(e ast.Expr, byKey map[string]*entry, text func(ast.Node) string) (*entry, string, bool) {
	en, zh, ok := matchBuilt(e, byKey, text)
	if ok && strings.Contains(zh, "strings.ReplaceAll(") {
		fe.imports["strings"] = true
	}
	return en, zh, ok
}

func matchBuilt(e ast.Expr, byKey map[string]*entry, text func(ast.Node) string) (*entry, string, bool) {
	ps := parts(e, text)
	re := "(?s)^"
	for _, p := range ps {
		if p.isConst {
			re += regexp.QuoteMeta(p.val)
		} else {
			re += "(.+)"
		}
	}
	rx := regexp.MustCompile(re + "$")
	var keys []string
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var hit *entry
	var caps []string
	for _, k := range keys {
		if !strings.HasPrefix(k, "v:") {
			continue
		}
		if m := rx.FindStringSubmatch(k[2:]); m != nil {
			if hit != nil {
				return nil, "", false
			}
			hit, caps = byKey[k], m[1:]
		}
	}
	if hit == nil || !strings.HasPrefix(hit.zhKey, "v:") {
		return nil, "", false
	}
	rest := hit.zhKey[2:]
	var out []string
	i := 0
	for _, p := range ps {
		if p.isConst {
			continue
		}
		c := caps[i]
		i++
		expr := p.src
		at := strings.Index(rest, c)
		if at < 0 {
			c = strings.ReplaceAll(c, ", ", "、")
			expr = fmt.Sprintf(listZH, p.src)
			at = strings.Index(rest, c)
		}
		if at < 0 {
			return nil, "", false
		}
		if at > 0 {
			out = append(out, strconv.Quote(rest[:at]))
		}
		out = append(out, expr)
		rest = rest[at+len(c):]
	}
	if rest != "" {
		out = append(out, strconv.Quote(rest))
	}
	return hit, strings.Join(out, " + "), true
}
