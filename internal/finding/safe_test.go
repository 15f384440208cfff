package finding

import (
	"strings"
	"testing"
)

func TestSafeEveryControlCharacter(t *testing.T) {
	for r := rune(0); r < 0xa0; r++ {
		if !isCtl(r) {
			continue
		}
		in := "a" + string(r) + "b"
		for name, f := range map[string]func(string) string{"Safe": Safe, "SafeLine": SafeLine, "SafeOneLine": SafeOneLine, "SafeMarkdown": SafeMarkdown, "SafeHTML": SafeHTML} {
			out := f(in)
			if strings.ContainsFunc(out, func(c rune) bool { return isCtl(c) && c != '\n' && c != '\t' }) {
				t.Errorf("%s(%q) = %q keeps a control character", name, in, out)
			}
			if name != "Safe" && strings.ContainsAny(out, "\n\t") {
				t.Errorf("%s(%q) = %q keeps a line break or tab", name, in, out)
			}
		}
	}
}

func TestSafeCases(t *testing.T) {
	for _, c := range []struct {
		f        func(string) string
		in, want string
	}{
		{Safe, "worker\a\x1b[31mRED", `worker\x07\x1b[31mRED`},
		{Safe, "a\nb\tc", "a\nb\tc"},
		{SafeLine, "a\nb\tc", "a b c"},
		{Safe, "bad\xffutf8", "bad\uFFFDutf8"},
		{Safe, "\u009b2J", `\x9b2J`},
		{SafeLine, "invoice\u202etxt.exe\u2066", `invoice\u202etxt.exe\u2066`},
		{SafeLine, "线程\x1b[31m名\u202e", `线程\x1b[31m名\u202e`}, // text beside an escape stays text
		{Safe, "线程-1", "线程-1"},
		{SafeMarkdown, "a|b*c_<x>", `a\|b\*c\_&lt;x&gt;`},
		{SafeHTML, `<script>"x"</script>`, "&lt;script&gt;&#34;x&#34;&lt;/script&gt;"},

		// SafeOneLine replaces report/check_text.go oneLine, report/html
		// page.go oneLine and cli oneLineCLI (the three were the same; all gone).
		{SafeOneLine, "  a \n\t b\r\n c  ", "a b\\x0d c"},
		{SafeOneLine, "线程 \x1b[31m 名", `线程 \x1b[31m 名`},
		{SafeOneLine, "", ""},

		// SafeMarkdown replaces report/check_md.go mdCell (= mdText of
		// oneLine: escaped < > & \ ` * _ [ ] | #) and the old SafeMarkdown
		// (no & or #, runs of space kept): now the union, runs folded.
		{SafeMarkdown, "a|b*c_<x>", `a\|b\*c\_&lt;x&gt;`},
		{SafeMarkdown, "x & y # z", `x &amp; y \# z`}, // mdCell; the old SafeMarkdown left both
		{SafeMarkdown, "&lt;", "&amp;lt;"},            // shows as typed, not as "<"
		{SafeMarkdown, "[a](http://x) `c` \\", "\\[a\\](http://x) \\`c\\` \\\\"},
		{SafeMarkdown, "a  \n  b", "a b"},

		// SafeMarkdownText replaces report/check_md.go mdText: lines kept
		// as <br>, tabs kept, the same escapes.
		{SafeMarkdownText, "line 1\n# not a heading\n| not | a row |", `line 1<br>\# not a heading<br>\| not \| a row \|`},
		{SafeMarkdownText, "a\tb <i>", "a\tb &lt;i&gt;"},
		{SafeMarkdownText, "\x1b[2J", `\\x1b\[2J`},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("got %q want %q", got, c.want)
		}
	}
}

func FuzzSafe(f *testing.F) {
	f.Add("worker\a\x1b]0;PWN\a")
	f.Add("a|b\n# c\t&lt;")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{SafeLine(s), SafeOneLine(s), SafeMarkdown(s), SafeMarkdownText(s), SafeHTML(s)} {
			if strings.ContainsFunc(out, func(r rune) bool { return isCtl(r) && r != '\t' }) {
				t.Fatalf("control character left in %q", out)
			}
		}
		// A cell or a line cannot break: no newline, and every | escaped.
		for _, out := range []string{SafeOneLine(s), SafeMarkdown(s), SafeMarkdownText(s)} {
			if strings.ContainsAny(out, "\n\r") {
				t.Fatalf("line break left in %q", out)
			}
		}
		if m := SafeMarkdown(s); strings.Count(m, "|") != strings.Count(m, `\|`) || strings.ContainsAny(m, "<>\t") {
			t.Fatalf("SafeMarkdown(%q) = %q leaves markup", s, m)
		}
	})
}
