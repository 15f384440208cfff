package finding

import (
	"strings"
	"testing"
	"text/tabwriter"
)

func TestDisplayWidth(t *testing.T) {
	for s, want := range map[string]int{
		"":                 0,
		"pool-1":           6,
		"线程池":              6,
		"阻塞 BLOCKED":       12,
		"ｆｕｌｌ":             8,
		"e\u0301":          1, // e + combining acute
		"a\u200bb":         2,
		"한국":               4,
		"\U0001F600":       2,
		"\U00020000x":      3,
		"（等待）":             8,
		"http-nio-线程-1":    15,
		"\\x1b[31m":        8, // an escaped control is as wide as it is printed
		"order:订单\tx":      12,
		"ascii only, 1234": 16,
	} {
		if got := DisplayWidth(s); got != want {
			t.Errorf("DisplayWidth(%q) = %d, want %d", s, got, want)
		}
	}
	if got := PadRight("线程", 6); got != "线程  " {
		t.Errorf("PadRight = %q", got)
	}
	if got := PadRight("线程池名字", 6); got != "线程池名字" {
		t.Errorf("PadRight of a wider string changed it: %q", got)
	}
}

// ASCII text comes out byte for byte as text/tabwriter writes it, so
// replacing a tabwriter by a Table changes nothing but the CJK columns.
func TestTableIsTabwriterForASCII(t *testing.T) {
	inputs := []string{
		"ID\tSTART\tSTATUS\tFOLDER\na\t2026-01-01\tok\t/x\nlonger-id\t-\tinterrupted\t/y/z\n",
		"  Duration\t12.0 s\n  Pauses\t3 (10 ms)\n  Full GCs\t0\n",
		"\tcount\ttotal\tmax\t\n  Allocation Failure\t12\t1.2 s\t40 ms\t\n  System.gc()\t1\t300 ms\t300 ms\t\n",
		"a\tb\nno tabs here\nc\td\te\n\nx\ty\n",
		"last line without newline\tx\nyy\tzz",
		"1\t2026-01-01 00:00:00\trun-a\t100\t2.00\t\n2\t2026-01-02 00:00:00\trun-b\t90\t3.10\t<- TPS -10.0% (p=0.010) REGRESSION entered here\n",
	}
	for _, in := range inputs {
		for _, right := range []bool{false, true} {
			var want, got strings.Builder
			flags := uint(0)
			if right {
				flags = tabwriter.AlignRight
			}
			tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', flags)
			tw.Write([]byte(in))
			tw.Flush()
			tb := NewTable(&got, 2, right)
			tb.Write([]byte(in))
			if err := tb.Flush(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("right=%v %q:\n got %q\nwant %q", right, in, got.String(), want.String())
			}
		}
	}
}

// colStarts returns the display column at which each cell after the first
// starts, cells being separated by two or more spaces.
func colStarts(line string) []int {
	var starts []int
	col, spaces := 0, 0
	for _, r := range line {
		if r == ' ' {
			spaces++
		} else {
			if spaces >= 2 && col > spaces {
				starts = append(starts, col)
			}
			spaces = 0
		}
		col += runeWidth(r)
	}
	return starts
}

// The Chinese header and names are wide: the columns still start at the same
// display column on every line.
func TestTableAlignsChinese(t *testing.T) {
	var b strings.Builder
	tb := NewTable(&b, 2, false)
	tb.Write([]byte("ID\t开始 (UTC)\t状态\t目标\n"))
	tb.Write([]byte("r1\t2026-01-01 00:00\t已完成\torder-服务\n"))
	tb.Write([]byte("run-long-2\t2026-01-02 00:00\tinterrupted\tx\n"))
	tb.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := colStarts(lines[0])
	if len(want) != 3 {
		t.Fatalf("header columns %v in %q", want, lines[0])
	}
	for _, l := range lines[1:] {
		if got := colStarts(l); !equalInts(got, want) {
			t.Errorf("columns at %v, header at %v:\n%s", got, want, b.String())
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Columns replaces loadgen/text.go writeTable (every column right, "  "
// apart) and compare/render.go writeTable (first and last column left,
// the others right); both measured a Chinese cell as two columns.
func TestColumns(t *testing.T) {
	rows := [][]string{{"", "请求", "p99"}, {"GET /a", "12", "3.5"}, {"全部", "1200", "10"}}
	all := func(int) bool { return true }
	want := []string{"        请求  p99", "GET /a    12  3.5", "  全部  1200   10"}
	if got := Columns(rows, "  ", all); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("right:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mid := func(i int) bool { return i > 0 && i < 2 }
	want = []string{"        请求  p99", "GET /a    12  3.5", "全部    1200  10 "}
	if got := Columns(rows, "  ", mid); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mixed:\n%q\nwant\n%q", got, want)
	}
	// Ragged rows and no rows.
	if got := Columns([][]string{{"a", "b"}, {"ccc"}}, " ", nil); got[0] != "a   b" || got[1] != "ccc" {
		t.Errorf("ragged: %q", got)
	}
	if got := Columns(nil, " ", nil); len(got) != 0 {
		t.Errorf("empty: %q", got)
	}
	for _, l := range Columns(rows, "  ", all) {
		if DisplayWidth(l) != DisplayWidth(Columns(rows, "  ", all)[0]) {
			t.Errorf("line %q is not as wide as the others", l)
		}
	}
}
