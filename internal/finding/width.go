package finding

import (
	"io"
	"strings"
)

// DisplayWidth is how many terminal columns s takes: East Asian wide and
// fullwidth characters count two, combining marks and zero-width
// characters none, so Chinese labels line up in text tables.
func DisplayWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case r <= 0x36f, r >= 0x200b && r <= 0x200f, r >= 0xfe00 && r <= 0xfe0f, r == 0xfeff:
		return 0 // combining diacritics, zero-width space/joiners, variation selectors, BOM
	case r >= 0x1100 && r <= 0x115f, // Hangul Jamo
		r >= 0x2e80 && r <= 0x303e, r >= 0x3041 && r <= 0xa4cf, // CJK radicals, punctuation, kana, ideographs, Yi
		r >= 0xac00 && r <= 0xd7a3,                             // Hangul syllables
		r >= 0xf900 && r <= 0xfaff,                             // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f,                             // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6, // fullwidth forms
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, // emoji
		r >= 0x20000 && r <= 0x3fffd: // CJK extensions B-G
		return 2
	}
	return 1
}

// PadRight pads s with spaces to width terminal columns (DisplayWidth);
// s is returned whole when it is wider already.
func PadRight(s string, width int) string {
	if n := width - DisplayWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Table lines up tab-separated cells as text/tabwriter does (its column
// blocks, padding and AlignRight), but measures cells in terminal columns:
// tabwriter counts runes, so a Chinese header or name shifts every column
// after it. Write buffers; Flush lays out and writes what was written.
type Table struct {
	w       io.Writer
	padding int
	right   bool
	buf     []byte
}

// NewTable is tabwriter.NewWriter(w, 0, _, padding, ' ', 0) (or
// tabwriter.AlignRight when right) measured by DisplayWidth.
func NewTable(w io.Writer, padding int, right bool) *Table {
	return &Table{w: w, padding: padding, right: right}
}

// Write buffers p until Flush.
func (t *Table) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Flush writes the buffered lines, each tab-terminated cell padded to its
// column block's width. The text after a line's last tab is not aligned.
func (t *Table) Flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	lines := strings.Split(string(t.buf), "\n")
	t.buf = t.buf[:0]
	cells := make([][]string, len(lines))
	for i, l := range lines {
		cells[i] = strings.Split(l, "\t")
	}
	var b strings.Builder
	t.format(&b, cells, nil, 0, len(cells))
	out := b.String()
	out = out[:len(out)-1] // the newline after the last (partial or empty) line
	_, err := io.WriteString(t.w, out)
	return err
}

// format is tabwriter's: a column block is a run of consecutive lines that
// all have a terminated cell in that column; its width is the widest cell
// plus padding, and the lines inside it are laid out recursively.
func (t *Table) format(b *strings.Builder, lines [][]string, widths []int, line0, line1 int) {
	column := len(widths)
	for this := line0; this < line1; this++ {
		if column >= len(lines[this])-1 {
			continue
		}
		t.write(b, lines, widths, line0, this)
		line0 = this
		width := 0
		for ; this < line1 && column < len(lines[this])-1; this++ {
			width = max(width, DisplayWidth(lines[this][column])+t.padding)
		}
		t.format(b, lines, append(widths, width), line0, this)
		line0 = this
	}
	t.write(b, lines, widths, line0, line1)
}

func (t *Table) write(b *strings.Builder, lines [][]string, widths []int, line0, line1 int) {
	for _, line := range lines[line0:line1] {
		for j, c := range line {
			if j >= len(widths) {
				b.WriteString(c)
				continue
			}
			padCell(b, c, widths[j], t.right)
		}
		b.WriteByte('\n')
	}
}

// padCell writes c padded with spaces to width terminal columns, the
// spaces before it when right: the one cell layout of Table and Columns.
func padCell(b *strings.Builder, c string, width int, right bool) {
	pad := strings.Repeat(" ", max(0, width-DisplayWidth(c)))
	if right {
		b.WriteString(pad + c)
	} else {
		b.WriteString(c + pad)
	}
}

// Columns lays out a grid that is already split into cells (Table takes
// tab-separated text): each column as wide as its widest cell in terminal
// columns, cells joined by sep, a cell padded on the left when right(col)
// says so. Every cell is padded, the last too; rows may be ragged.
func Columns(rows [][]string, sep string, right func(col int) bool) []string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], DisplayWidth(c))
		}
	}
	out := make([]string, len(rows))
	var b strings.Builder
	for n, r := range rows {
		b.Reset()
		for i, c := range r {
			if i > 0 {
				b.WriteString(sep)
			}
			padCell(&b, c, widths[i], right != nil && right(i))
		}
		out[n] = b.String()
	}
	return out
}
