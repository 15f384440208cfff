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
		for name, f := range map[string]func(string) string{"Safe": Safe, "SafeLine": SafeLine, "SafeMarkdown": SafeMarkdown, "SafeHTML": SafeHTML} {
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
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("got %q want %q", got, c.want)
		}
	}
}

func FuzzSafe(f *testing.F) {
	f.Add("worker\a\x1b]0;PWN\a")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{SafeLine(s), SafeMarkdown(s), SafeHTML(s)} {
			if strings.ContainsFunc(out, isCtl) {
				t.Fatalf("control character left in %q", out)
			}
		}
	})
}
