package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

func TestWriteRunIncompleteNoFindings(t *testing.T) {
	r := &RunSummary{Schema: RunSchema, ID: "20261122-010000-h", Dir: "runs/x", Status: "recording", Incomplete: true,
		Start: time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC), TargetPID: 42, TargetComm: "java",
		Host: Host{Hostname: "h"}, BadLines: 1, Stats: diagnose.Stats{Ticks: 3, Seconds: 3, ProcCPU: 12.5}}
	for _, l := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteRun(&b, &RunPage{Brief: true, Lang: l, Run: r}, Text); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		for _, want := range map[finding.Lang][]string{
			finding.EN: {"INCOMPLETE", "No bottleneck found", "1 unreadable sample line", "java (pid 42), 12.5% of a core"},
			finding.ZH: {"不完整", "未发现瓶颈", "跳过 1 行", "记录中断"},
		}[l] {
			if !strings.Contains(s, want) {
				t.Errorf("%s: missing %q in\n%s", l, want, s)
			}
		}
		b.Reset()
		if err := WriteRun(&b, &RunPage{Brief: true, Lang: l, Run: r}, Markdown); err != nil || !strings.Contains(b.String(), "# ") {
			t.Errorf("markdown: %v\n%s", err, b.String())
		}
	}
	var b bytes.Buffer
	if err := WriteRun(&b, &RunPage{Brief: true, Run: r}, JSON); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["schema"] != RunSchema || back["incomplete"] != true {
		t.Fatalf("%v %v", err, back)
	}
	if fs, ok := back["findings"].([]any); !ok || len(fs) != 0 {
		t.Errorf("findings not an empty list: %v", back["findings"])
	}
}

// TestRunBriefIsThePageSummary: the run document has one Markdown and
// one text writer: on real run folders the brief `record` and `analyze
// RUN_DIR` print is, byte for byte, the summary section of the page `run`
// writes, in both languages, and a brief's JSON is the run-report/v1.
func TestRunBriefIsThePageSummary(t *testing.T) {
	for _, name := range []string{"sync-logging", "gc-pressure", "healthy"} {
		L, err := verdict.Load(filepath.Join("..", "verdict", "testdata", "runs", name))
		if err != nil {
			t.Fatal(err)
		}
		d := verdict.Decide(L)
		for _, l := range []finding.Lang{finding.EN, finding.ZH} {
			brief, page := NewRunBrief(L, d, l), NewRunPage(L, d, l)
			page.Run.GeneratedAt = brief.Run.GeneratedAt
			var bm, pm, bj bytes.Buffer
			if err := WriteRun(&bm, brief, Markdown); err != nil {
				t.Fatal(err)
			}
			if err := WriteRun(&pm, page, Markdown); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(pm.String(), "# "+page.Title) || !strings.Contains(pm.String(), bm.String()) || pm.Len() <= bm.Len() {
				t.Errorf("%s %s: the page's Markdown does not hold the brief's summary", name, l)
			}
			if err := WriteRun(&bj, brief, JSON); err != nil || !strings.Contains(bj.String(), `"schema": "`+RunSchema+`"`) {
				t.Errorf("%s: brief JSON %v\n%.300s", name, err, bj.String())
			}
		}
	}
}

// A mechanism's code line comes from the target (a frame in its dumps or
// recording): in the Markdown table a | stays in its cell and a control
// character is shown, not sent to the terminal.
func TestRunMarkdownMechanismCodeIsSafe(t *testing.T) {
	r := &RunSummary{Schema: RunSchema, ID: "20261122-010000-h", Dir: "runs/x", Status: "done",
		Start: time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC), Host: Host{Hostname: "h"}}
	p := &RunPage{Lang: finding.EN, Run: r,
		Account:    []AccountRow{{Source: "dumps", Role: "request", Threads: 4}},
		Mechanisms: []MechanismRow{{ID: "mech.x", Name: finding.T("A mechanism", "一个机制"), Share: 40, Code: "a.B.$bar|c(B.scala:3)\x1b[31m`"}}}
	var b bytes.Buffer
	if err := WriteRun(&b, p, Markdown); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.Contains(line, "mech.x") {
			continue
		}
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 5 {
			t.Errorf("the mechanism's row has %d unescaped |, want 5 (4 cells):\n%s", n, line)
		}
		if strings.Contains(line, "\x1b") || !strings.Contains(line, "`a.B.$bar\\|c(B.scala:3)") {
			t.Errorf("code line not made safe:\n%q", line)
		}
		return
	}
	t.Errorf("no mechanism row:\n%s", b.String())
}
