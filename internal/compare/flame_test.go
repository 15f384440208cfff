package compare

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

func TestMergeProfiles(t *testing.T) {
	a := &stacks.Profile{Kind: stacks.CPU, Unit: "samples", Events: 3, Total: 3,
		Samples: []stacks.Sample{{Stack: []string{"main", "x"}, Value: 2}, {Stack: []string{"main", "y"}, Value: 1}}}
	b := &stacks.Profile{Kind: stacks.CPU, Unit: "samples", Events: 4, Total: 4,
		Samples: []stacks.Sample{{Stack: []string{"main", "y"}, Value: 4}}}
	m := MergeProfiles([]*stacks.Profile{a, b})
	if m.Total != 7 || m.Events != 7 || len(m.Samples) != 2 || m.Samples[0].Value != 5 || strings.Join(m.Samples[0].Stack, ";") != "main;y" {
		t.Errorf("merged %+v", m)
	}
	if MergeProfiles(nil) != nil {
		t.Error("nothing merged into something")
	}
}

// twoFrames is a CPU profile of two frames under main, with x and y samples.
func twoFrames(a string, x int64, b string, y int64) *stacks.Profile {
	return &stacks.Profile{Kind: stacks.CPU, Unit: "samples", Total: x + y,
		Samples: []stacks.Sample{{Stack: []string{"main", a}, Value: x}, {Stack: []string{"main", b}, Value: y}}}
}

// flamePage is the differential page of before and after, in English.
func flamePage(t *testing.T, before, after FlameSide) *report.FlameDiffPage {
	t.Helper()
	page, err := NewFlameDiffPage(before, after, finding.EN)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// flameOut is page as write writes it in lang.
func flameOut(t *testing.T, write func(io.Writer, *report.FlameDiffPage, finding.Lang) error, page *report.FlameDiffPage, lang finding.Lang) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, page, lang); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Two runs per side: the requests add up; a side with a run of unknown
// requests falls back to shares, and the page says so.
func TestFlameDiffTextAndMarkdown(t *testing.T) {
	p := func(x, y int64) *stacks.Profile { return twoFrames("scoreA", x, "parse\x1b[31m", y) }
	page := flamePage(t, FlameSide{Names: []string{"b"}, Profile: p(100, 100), Requests: 1000}, FlameSide{Names: []string{"a"}, Profile: p(400, 200), Requests: 2000})
	out := flameOut(t, writeFlameText, page, finding.EN)
	if !strings.Contains(out, "per request") || !strings.Contains(out, "+0.1 samples/req") || !strings.Contains(out, "scoreA") || strings.Contains(out, "\x1b") {
		t.Errorf("text:\n%s", out)
	}
	if md := flameOut(t, writeFlameMarkdown, page, finding.ZH); !strings.Contains(md, "## 差分火焰图 (cpu)") || !strings.Contains(md, "| +0.1 samples/req | 0.1 samples/req | 0.2 samples/req | `scoreA` |") {
		t.Errorf("markdown:\n%s", md)
	}
	var b bytes.Buffer
	if writeFlameText(&b, nil, finding.EN) != nil || b.Len() != 0 {
		t.Error("a nil page printed something")
	}
}

// A frame with a | in it (a Scala or Kotlin operator method, a path in a
// native frame) stays in its cell: the Markdown row keeps its 4 columns.
func TestFlameDiffMarkdownEscapesPipeInFrame(t *testing.T) {
	const frame = "scala.collection.Seq.$bar$bar|/opt/app/lib.so"
	page := flamePage(t, FlameSide{Names: []string{"b"}, Profile: twoFrames(frame, 10, "idle", 100)}, FlameSide{Names: []string{"a"}, Profile: twoFrames(frame, 90, "idle", 100)})
	md := flameOut(t, writeFlameMarkdown, page, finding.EN)
	found := false
	for _, line := range strings.Split(md, "\n") {
		if !strings.Contains(line, "$bar$bar") {
			continue
		}
		found = true
		// GFM splits a row at every | not escaped with a backslash, code
		// spans included: | change | before | after | frame | is 5.
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 5 {
			t.Errorf("the frame's row has %d unescaped |, want 5 (4 cells):\n%s", n, line)
		}
		if !strings.Contains(line, "`scala.collection.Seq.$bar$bar\\|/opt/app/lib.so`") {
			t.Errorf("the frame is not shown whole in its code span:\n%s", line)
		}
	}
	if !found {
		t.Errorf("no row for the frame:\n%s", md)
	}
}
