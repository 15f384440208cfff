package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// jfrRun is the verdict's real sync-logging run folder that keeps its JFR
// recording.
const jfrRun = "../verdict/testdata/runs/sync-logging-jfr"

// The run page of a real run with a recording: the dumps' most queued
// lock carries the time waited on its class, rows only one source saw are
// marked so, the allocation and lock graphs are there in their units, and
// the Markdown and text outputs give one line per top lock.
func TestRunPageJoinsLockProfile(t *testing.T) {
	L, err := verdict.Load(jfrRun)
	if err != nil {
		t.Fatal(err)
	}
	p := NewRunPage(L, verdict.Decide(L), finding.EN)
	if len(p.Locks) == 0 {
		t.Fatal("no lock rows")
	}
	top := p.Locks[0]
	if top.Source != "dumps+jfr" || top.Wait == nil || top.Wait.WaitedMS < 1000 || top.Wait.Events < verdict.ThinEvents || top.Wait.Thin ||
		top.Wait.SharePct <= 0 || len(top.Wait.Sites) == 0 {
		t.Fatalf("the most queued lock is not joined to its wait: %+v (wait %+v)", top, top.Wait)
	}
	sources := map[string]int{}
	for _, r := range p.Locks {
		sources[r.Source]++
		if r.Source == "jfr" && (r.Wait == nil || r.Waiters != 0 || r.Class == "") {
			t.Errorf("a recording-only row %+v", r)
		}
		if r.Source == "dumps" && r.Wait != nil {
			t.Errorf("a dumps-only row with a wait %+v", r)
		}
	}
	if sources[""] > 0 || sources["dumps+jfr"] == 0 {
		t.Errorf("row sources %v", sources)
	}
	kinds := map[string]string{}
	for _, f := range p.Flames {
		kinds[f.Kind] = f.Unit
		if f.Tree == nil || int64(f.Tree.Value) != f.Total || f.Events == 0 {
			t.Errorf("%s graph: total %d, tree %v, %d events", f.Kind, f.Total, f.Tree != nil, f.Events)
		}
	}
	if kinds["alloc"] != "bytes" || kinds["lock"] != "nanoseconds" || p.Flame == nil {
		t.Errorf("graphs %v, CPU %v", kinds, p.Flame != nil)
	}
	var md, txt bytes.Buffer
	if err := WriteRun(&md, p, Markdown); err != nil {
		t.Fatal(err)
	}
	if err := writeLockWaitsText(&txt, p); err != nil {
		t.Fatal(err)
	}
	line := top.Class + ": waited "
	if !strings.Contains(md.String(), "- "+finding.SafeMarkdownText(line)) || !strings.Contains(md.String(), "| dumps and JFR |") && !strings.Contains(md.String(), "(dumps and JFR)") {
		t.Errorf("Markdown lacks the lock line %q or the source:\n%s", line, md.String())
	}
	lines := strings.Split(strings.TrimSpace(txt.String()), "\n")
	if len(lines) < 2 || len(lines) > 1+topLockWaits || !strings.HasPrefix(strings.TrimSpace(lines[1]), line) {
		t.Errorf("text:\n%s", txt.String())
	}
	t.Log(txt.String())
	// Chinese: the same lines said in Chinese.
	p.Lang = finding.ZH
	txt.Reset()
	if err := writeLockWaitsText(&txt, p); err != nil || !strings.Contains(txt.String(), "锁等待（JFR）") || !strings.Contains(txt.String(), "：等待 ") {
		t.Errorf("zh text (%v):\n%s", err, txt.String())
	}
}

// A run without a recording keeps the dumps' table as it was: no source,
// no wait, no further graphs, no lock lines.
func TestRunPageWithoutRecording(t *testing.T) {
	L, err := verdict.Load("../verdict/testdata/runs/sync-logging")
	if err != nil {
		t.Fatal(err)
	}
	p := NewRunPage(L, verdict.Decide(L), finding.EN)
	if len(p.Locks) == 0 || p.Flames != nil || len(LockWaitLines(p)) != 0 {
		t.Fatalf("%d locks, %d graphs, %d lines", len(p.Locks), len(p.Flames), len(LockWaitLines(p)))
	}
	for _, r := range p.Locks {
		if r.Source != "" || r.Wait != nil {
			t.Errorf("row %+v", r)
		}
	}
}
