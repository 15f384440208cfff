package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
)

// A history of 12 runs of one service whose throughput fell by a fifth at
// run 8: trend marks run 8 as where the regression entered.
func TestRunsTrend(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	b, err := os.ReadFile(demoAfter)
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 12; i++ {
		var page map[string]any
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		tps := 77000.0 * (1 + 0.01*float64(i%3-1))
		if i >= 8 {
			tps *= 0.8
		}
		page["load"].(map[string]any)["tps"] = tps
		dir := filepath.Join(tmp, fmt.Sprintf("r%02d", i))
		if _, err := runfolder.Create(dir, runfolder.Manifest{}); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(page)
		if err := os.WriteFile(filepath.Join(dir, "report.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		// Catalogued as an old binary would: no headline; trend reads it.
		if err := c.Put(ctx, catalog.Entry{ID: filepath.Base(dir), Dir: dir, Start: t0.Add(time.Duration(i) * time.Hour), Status: runfolder.Complete}); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	env, out, errb := testEnv()
	if code := runRoot(t, env, "runs", "trend", "--catalog", db); code != ExitOK {
		t.Fatalf("exit %d %s", code, errb)
	}
	var line8 string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "8 ") {
			line8 = l
		}
		if strings.Contains(l, "REGRESSION") && !strings.HasPrefix(l, "8 ") {
			t.Errorf("a regression marked elsewhere: %q", l)
		}
	}
	if !strings.Contains(line8, "r08") || !strings.Contains(line8, "TPS -") || !strings.Contains(line8, "REGRESSION entered here") {
		t.Errorf("run 8 not marked:\n%s", out)
	}
	if !strings.Contains(out.String(), "http://127.0.0.1:28090/api") {
		t.Errorf("no service:\n%s", out)
	}
	// JSON, filtered by service; Chinese words in text.
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "trend", "--catalog", db, "--service", "http://127.0.0.1:28090/api", "-o", "json"); code != ExitOK {
		t.Fatal(code)
	}
	var series []struct {
		Runs  []any `json:"runs"`
		TPSCP []struct {
			Index int `json:"index"`
		} `json:"tps_change_points"`
	}
	if err := json.Unmarshal(out.Bytes(), &series); err != nil || len(series) != 1 || len(series[0].Runs) != 12 || len(series[0].TPSCP) != 1 || series[0].TPSCP[0].Index != 7 {
		t.Errorf("json %v %+v", err, series)
	}
	env, out, _ = testEnv()
	if runRoot(t, env, "runs", "trend", "--catalog", db, "--lang", "zh"); !strings.Contains(out.String(), "从这里开始回退") {
		t.Errorf("zh:\n%s", out)
	}
}

// Issue 12: rm of a folder the catalog does not hold says so and fails;
// add and the list speak Chinese with --lang zh.
func TestRunsRemoveMissingAndChinese(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "runs.db")
	dir := filepath.Join(tmp, "r1")
	if _, err := runfolder.Create(dir, runfolder.Manifest{ID: "r1"}); err != nil {
		t.Fatal(err)
	}
	env, out, errb := testEnv()
	if code := runRoot(t, env, "runs", "add", dir, "--catalog", db, "--lang", "zh"); code != ExitOK || !strings.Contains(out.String(), "已添加") {
		t.Fatalf("add --lang zh: exit %d %q %q", code, out, errb)
	}
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "--catalog", db, "--lang", "zh"); code != ExitOK || !strings.Contains(out.String(), "记录中") {
		t.Errorf("status in Chinese: %d\n%s", code, out)
	}
	env, _, errb = testEnv()
	if code := runRoot(t, env, "runs", "rm", filepath.Join(tmp, "nonexistent"), "--catalog", db); code != ExitFailure || !strings.Contains(errb.String(), "not in the catalog") {
		t.Errorf("rm nonexistent: exit %d %q", code, errb)
	}
	env, out, _ = testEnv()
	if code := runRoot(t, env, "runs", "rm", dir, "--catalog", db); code != ExitOK || !strings.Contains(out.String(), "removed") {
		t.Errorf("rm: exit %d %q", code, out)
	}
}
