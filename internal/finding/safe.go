package finding

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// One sanitiser for text that came from a target or a file (thread names,
// lock classes, JVM arguments, process names, paths, run IDs): every output
// passes it through one of these before printing, so no target can write an
// escape sequence to a terminal, break a Markdown table or inject HTML.

// isCtl reports C0 controls, DEL and C1 controls (ESC, CSI, OSC included),
// and the bidirectional formatting characters, which reorder what a
// terminal or browser shows (U+202E makes "exe.txt" read "txt.exe").
func isCtl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || IsBidiControl(r)
}

// IsBidiControl reports U+061C, U+200E/F, U+202A..E and U+2066..9.
func IsBidiControl(r rune) bool {
	return r == 0x61c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// Safe makes s harmless on a terminal: invalid UTF-8 becomes U+FFFD and
// control characters are shown as \xNN; newlines and tabs are kept for the
// caller to indent.
func Safe(s string) string { return sanitize(s, false) }

// SafeLine is Safe on one line: newlines and tabs become spaces.
func SafeLine(s string) string { return sanitize(s, true) }

// SafeOneLine is SafeLine with runs of white space folded to one space:
// for names, keys and table cells, so a hostile or multi-line value cannot
// forge lines or stretch a column.
func SafeOneLine(s string) string { return strings.Join(strings.Fields(SafeLine(s)), " ") }

// SafeMarkdown is SafeOneLine for a Markdown table cell or inline text:
// the characters that would start markup (\ ` * _ [ ] | # and the HTML
// < > &) are escaped.
func SafeMarkdown(s string) string { return markdown(SafeOneLine(s)) }

// SafeMarkdownCode is SafeOneLine for a code span in a Markdown table
// cell: a backtick, which would end the span, becomes ' and the table's |
// is escaped (GFM splits the row before it reads the span, and shows \|
// as |). Nothing else is escaped: a code span shows its text as it is.
func SafeMarkdownCode(s string) string { return codeCell.Replace(SafeOneLine(s)) }

var codeCell = strings.NewReplacer("`", "'", "|", `\|`)

// SafeMarkdownSpan is SafeOneLine for a code span in Markdown prose or a
// list: a backtick, which would end the span, becomes '. Nothing else is
// escaped: outside a table GFM shows a span's \| as typed, so a | stays.
func SafeMarkdownSpan(s string) string { return strings.ReplaceAll(SafeOneLine(s), "`", "'") }

// SafeMarkdownText is Safe for Markdown prose that may span lines: markup
// is escaped as in SafeMarkdown and a newline becomes <br>, so a value
// cannot open a heading, a list or a table of its own.
func SafeMarkdownText(s string) string { return markdown(Safe(s)) }

// SafeHTML is SafeLine escaped for HTML text or an attribute value (for
// text written outside html/template, e.g. server-side SVG).
func SafeHTML(s string) string { return html.EscapeString(SafeLine(s)) }

// markdown escapes s (already made Safe) for Markdown: the one escaper.
func markdown(s string) string {
	if !strings.ContainsAny(s, "<>&\\`*_[]|#\n\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString("<br>")
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sanitize(s string, fold bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, isCtl) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if fold {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		case IsBidiControl(r): // every other rune above U+00FF (CJK, U+FFFD) is text
			fmt.Fprintf(&b, `\u%04x`, r)
		case isCtl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Clip keeps at most n bytes of s, cut at a character boundary, and marks
// the cut with "...": a hostile or huge value quoted in a message stays
// short and valid UTF-8.
func Clip[T ~string | ~[]byte](s T, n int) string {
	if len(s) <= n {
		return string(s)
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return string(s[:i]) + "..."
}

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
