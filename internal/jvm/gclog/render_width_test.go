package gclog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// cells splits a table line at runs of two or more spaces and returns the
// display columns at which each cell starts and ends.
func cells(line string) (starts, ends []int) {
	col, spaces, in := 0, 0, false
	for _, r := range line {
		w := finding.DisplayWidth(string(r))
		if r == ' ' {
			spaces++
		} else {
			if !in || spaces >= 2 {
				if in {
					ends = append(ends, col-spaces)
				}
				starts = append(starts, col)
				in = true
			}
			spaces = 0
		}
		col += w
	}
	if in {
		ends = append(ends, col-spaces)
	}
	return starts, ends
}

// The Chinese summary and cause tables: labels two columns a character, the
// values still start (summary) and end (counts, right-aligned) in one column.
func TestTextTablesAlignedInChinese(t *testing.T) {
	r, err := Analyze(FileSources("testdata/live/jdk17-g1.log"), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, r.Summary, r.Findings, finding.ZH); err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(buf.String(), "\n\n")
	summary := strings.Split(blocks[0], "\n")[1:]
	if len(summary) < 8 || !strings.Contains(summary[0], "时长") {
		t.Fatalf("summary: %q", summary)
	}
	valueAt := -1
	for _, l := range summary {
		s, _ := cells(l)
		if len(s) < 2 {
			t.Fatalf("row %q", l)
		}
		if valueAt == -1 {
			valueAt = s[1]
		}
		if s[1] != valueAt {
			t.Errorf("value of %q starts at column %d, the first row's at %d:\n%s", l, s[1], valueAt, blocks[0])
		}
	}
	tables := 0
	for _, b := range blocks[1:] {
		lines := strings.Split(strings.TrimRight(b, "\n"), "\n")
		if len(lines) < 3 || !strings.Contains(lines[1], "次数") {
			continue
		}
		tables++
		_, hdr := cells(lines[1]) // 次数 合计 最长, right-aligned
		for _, l := range lines[2:] {
			_, e := cells(l)
			if len(e) != 4 || e[1] != hdr[0] || e[2] != hdr[1] || e[3] != hdr[2] {
				t.Errorf("%q ends at %v, header at %v:\n%s", l, e, hdr, b)
			}
		}
	}
	if tables != 3 {
		t.Errorf("%d count tables, want 3:\n%s", tables, buf.String())
	}
}
