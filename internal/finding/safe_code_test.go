package finding

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSafeMarkdownCodeForms covers what each former code-cell escaper did
// (porting's codeCell: SafeLine, ` -> ', | -> \|; analysis's
// report.MarkdownCode + | -> \|: SafeOneLine, ` -> ', | -> \|), and where
// they differed: porting kept runs of spaces, the one escaper folds them
// as SafeMarkdownSpan (every other code span) does.
func TestSafeMarkdownCodeForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"gc.pause-pct", "gc.pause-pct"},
		{"lib/libfoo.so", "lib/libfoo.so"},
		{"a|b", `a\|b`},
		{"a`b", "a'b"},
		{"``|``", `''\|''`},
		{"a\nb\tc", "a b c"},
		{"  a   b  ", "a b"},
		{"a\x1b[31mb", `a\x1b[31mb`},
		{"a\u202eb", `a\u202eb`},
		{"a\xffb", "a\uFFFDb"},
		{"*_[]#<>&\\", "*_[]#<>&\\"}, // a code span shows markup as text
		{"名称|值", `名称\|值`},
		{"", ""},
	} {
		if got := SafeMarkdownCode(c.in); got != c.want {
			t.Errorf("SafeMarkdownCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSafeMarkdownSpan: a code span in prose or a list (report's former
// mdCode) is the cell's escaping but for |, which GFM shows as typed there.
func TestSafeMarkdownSpan(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a|b", "a|b"},
		{"a`b", "a'b"},
		{"a\nb\tc", "a b c"},
		{"a\x1b[31mb", `a\x1b[31mb`},
		{"*_[]#<>&\\", "*_[]#<>&\\"},
		{"<init>", "<init>"},
	} {
		if got := SafeMarkdownSpan(c.in); got != c.want {
			t.Errorf("SafeMarkdownSpan(%q) = %q, want %q", c.in, got, c.want)
		}
		if cell := SafeMarkdownCode(c.in); cell != strings.ReplaceAll(SafeMarkdownSpan(c.in), "|", `\|`) {
			t.Errorf("the cell's escaping of %q (%q) is not the span's with | escaped", c.in, cell)
		}
	}
}

func FuzzSafeMarkdownCode(f *testing.F) {
	for _, s := range []string{"a|b`c\n", "\x1b]0;x\a", "  |  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SafeMarkdownCode(s)
		if !utf8.ValidString(got) || strings.ContainsAny(got, "`\n\r\t\x1b") || strings.ContainsFunc(got, isCtl) {
			t.Fatalf("%q -> %q", s, got)
		}
		if strings.Count(got, "|") != strings.Count(got, `\|`) {
			t.Fatalf("%q -> %q: a pipe not escaped", s, got)
		}
	})
}
