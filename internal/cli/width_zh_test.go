package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// tableStarts is the display column of each cell of a table line, cells
// being separated by two or more spaces.
func tableStarts(line string) []int {
	var starts []int
	col, spaces := 0, 0
	for i, r := range line {
		if r == ' ' {
			spaces++
		} else {
			if i == 0 || spaces >= 2 {
				starts = append(starts, col)
			}
			spaces = 0
		}
		col += finding.DisplayWidth(string(r))
	}
	return starts
}

// assertAligned checks that every line's cells start where the first
// line's (the header's) do, up to the fewer of the two.
func assertAligned(t *testing.T, what string, lines []string) {
	t.Helper()
	if len(lines) < 2 {
		t.Fatalf("%s: %d lines", what, len(lines))
	}
	want := tableStarts(lines[0])
	for _, l := range lines[1:] {
		got := tableStarts(l)
		n := min(len(got), len(want))
		if n < 3 || fmt.Sprint(got[:n]) != fmt.Sprint(want[:n]) {
			t.Errorf("%s: cells at %v, header's at %v:\n%s", what, got, want, strings.Join(lines, "\n"))
			return
		}
	}
}

// `runs` and `runs trend` in Chinese: the header is Chinese, statuses and
// a target are Chinese; the columns still line up on a terminal.
func TestRunsTablesAlignedInChinese(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	page, err := os.ReadFile(demoAfter)
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, e := range []catalog.Entry{
		{ID: "r1", Status: runfolder.Recording, PID: 4242, Comm: "订单服务"},
		{ID: "run-with-a-long-id-2", Status: runfolder.Complete, PID: 7, Comm: "java", Findings: 3, Top: "cpu.governor"},
		{ID: "r3", Status: runfolder.Interrupted},
	} {
		e.Dir = filepath.Join(tmp, e.ID)
		e.Start = t0.Add(time.Duration(i) * time.Hour)
		if e.Status != runfolder.Recording {
			e.End = e.Start.Add(90 * time.Second)
		}
		if _, err := runfolder.Create(e.Dir, runfolder.Manifest{ID: e.ID}); err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		json.Unmarshal(page, &p)
		p["load"].(map[string]any)["tps"] = 1000.0 * float64(i+1)
		out, _ := json.Marshal(p)
		if err := os.WriteFile(filepath.Join(e.Dir, "report.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	env, out, errb := testEnv()
	if code := runRoot(t, env, "runs", "--catalog", db, "--lang", "zh"); code != ExitOK {
		t.Fatalf("runs: exit %d %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[0], "ID") || !strings.Contains(out.String(), "订单服务/4242") {
		t.Fatalf("runs:\n%s", out)
	}
	assertAligned(t, "runs", lines)

	env, out, errb = testEnv()
	if code := runRoot(t, env, "runs", "trend", "--catalog", db, "--lang", "zh"); code != ExitOK {
		t.Fatalf("trend: exit %d %s", code, errb)
	}
	var table []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "#") || len(table) > 0 && l != "" && l[0] >= '0' && l[0] <= '9' {
			table = append(table, l)
		} else if len(table) > 0 {
			break
		}
	}
	if len(table) < 2 || !strings.Contains(table[0], "开始") {
		t.Fatalf("trend:\n%s", out)
	}
	assertAligned(t, "runs trend", table)
}

// apply's key column: a key as printed (escapes made visible) sets the
// width, so the values after it line up.
func TestApplyKeysAligned(t *testing.T) {
	d := &apply.Doc{DryRun: true, Groups: []apply.GroupDoc{{Finding: "net.x", State: "planned", Keys: []apply.KeyDoc{
		{Kind: "sysctl", Key: "net.core.somaxconn", Before: "128", Want: "4096"},
		{Kind: "sysctl", Key: "net.\x1b[31m", Before: "1", Want: "2"},
		{Kind: "sysctl", Key: "网络.队列", Before: "1", Want: "2"},
	}}}}
	var b bytes.Buffer
	if err := report.WriteApply(&b, d, report.Text, finding.ZH); err != nil {
		t.Fatal(err)
	}
	var cols []int
	for _, l := range strings.Split(b.String(), "\n") {
		if i := strings.Index(l, " -> "); i > 0 {
			s := tableStarts(l)
			cols = append(cols, s[1])
		}
	}
	if len(cols) != 3 || cols[0] != cols[1] || cols[1] != cols[2] {
		t.Errorf("values start at %v:\n%s", cols, b.String())
	}
}
