package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
)

// probeSide is a finished probe with one figure, the system call, whose
// rounds are base scaled by k.
func probeSide(name string, k float64) *probe.Result {
	rounds := []float64{95, 96, 97, 98, 99, 101, 104}
	for i := range rounds {
		rounds[i] *= k
	}
	f := probe.Figure{ID: "cpu.syscall", Part: probe.PartCPU, Unit: "ns", Name: finding.T("system call (getppid)", "系统调用（getppid）"),
		Rounds: rounds, Median: rounds[3], Lo: rounds[0], Hi: rounds[6], Coverage: 0.984, OK: true}
	t0 := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	return &probe.Result{Schema: probe.Schema, Tool: "tuneloop test", Start: t0, End: t0.Add(time.Minute), Rounds: 7,
		Parts: []string{probe.PartCPU}, Host: probe.Host{Name: name, Arch: "arm64", CPUs: 4}, Figures: []probe.Figure{f}}
}

// WriteProbes writes every format ProbeFormats lists, each the
// comparison's own (the page included), in both languages, and refuses
// one it does not list.
func TestWriteProbesEveryFormat(t *testing.T) {
	c := probe.Compare(probeSide("a", 1), probeSide("b", 1.4), "probes/a", "probes/b")
	if len(c.Rows) != 1 || c.Rows[0].Verdict != probe.Worse {
		t.Fatalf("fixture: %+v", c.Rows)
	}
	want := map[report.Format]func(string) bool{
		report.Text: func(s string) bool {
			return strings.Contains(s, "system call (getppid)") && strings.Contains(s, "probes/b")
		},
		report.Markdown: func(s string) bool { return strings.HasPrefix(s, "# tuneloop compare (probes)") },
		report.HTML: func(s string) bool {
			return strings.HasPrefix(s, "<!DOCTYPE html>") && strings.Contains(s, "system call (getppid)")
		},
		report.JSON: func(s string) bool {
			var got probe.Comparison
			return json.Unmarshal([]byte(s), &got) == nil && len(got.Rows) == 1 && got.Rows[0].Verdict == probe.Worse
		},
	}
	for _, f := range ProbeFormats() {
		var b bytes.Buffer
		if err := WriteProbes(&b, c, f, finding.EN); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ok := want[f]; ok == nil || !ok(b.String()) {
			t.Errorf("%s:\n%s", f, b.String())
		}
		b.Reset()
		if err := WriteProbes(&b, c, f, finding.ZH); err != nil || (f != report.JSON && !strings.Contains(b.String(), "系统调用")) {
			t.Errorf("%s in Chinese: %v\n%s", f, err, b.String())
		}
	}
	if err := WriteProbes(&bytes.Buffer{}, c, "junit", finding.EN); err == nil {
		t.Error("junit: written, want refused")
	}
}
