package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/compare"
)

// runFolder makes a run folder as compare reads it: the demo's report.json
// with the requests the recorded program served, and its JFR recording.
func runFolder(t *testing.T, page, jfr string, requests int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(jfr), ".jfr"))
	if err := os.MkdirAll(filepath.Join(dir, "raw"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "compare", "testdata", page))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["load"].(map[string]any)["requests"] = requests
	b, _ = json.Marshal(m)
	rec, err := os.ReadFile(jfr)
	if err != nil {
		t.Fatal(err)
	}
	if os.WriteFile(filepath.Join(dir, "report.json"), b, 0o644) != nil || os.WriteFile(filepath.Join(dir, "raw", "recording.jfr"), rec, 0o644) != nil {
		t.Fatal("cannot write the run folder")
	}
	return dir
}

// `compare before after --flame-diff diff.html` on two run folders whose
// real recordings differ in one method: the page is written, scoreA is the
// frame that grew most per request, in text, Markdown and JSON.
func TestCompareFlameDiffRuns(t *testing.T) {
	before := runFolder(t, "demo-before.json", beforeJFR, 1267)
	after := runFolder(t, "demo-after.json", afterJFR, 1198)
	page := filepath.Join(t.TempDir(), "diff.html")
	env, out, stderr := testEnv()
	o := &CompareOptions{Output: "text", FlameDiff: page}
	if err := RunCompareArgs(context.Background(), env, o, []string{before, after}, -1); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	text := out.String()
	i := strings.Index(text, "Differential flame graph (cpu, per request")
	if i < 0 {
		t.Fatalf("no per-request flame diff in the text:\n%s", text)
	}
	grew := text[strings.Index(text[i:], "Frames that grew most")+i:]
	if lines := strings.Split(grew, "\n"); len(lines) < 2 || !strings.HasSuffix(lines[1], "Diff.scoreA") || !strings.Contains(lines[1], "samples/req") {
		t.Errorf("scoreA is not the first frame that grew:\n%s", grew)
	}
	if !strings.Contains(text, "Throughput") && !strings.Contains(text, "TPS") {
		t.Errorf("the comparison itself is missing:\n%.500s", text)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="flame"`, "Diff.scoreA", "Diff.parse", "1,267 req", "1,198 req", "Content-Security-Policy"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(stderr.String(), page) {
		t.Errorf("stderr does not name the page: %s", stderr)
	}

	// JSON: compare's document with the lists, without the tree.
	env, out, _ = testEnv()
	o.Output = "json"
	if err := RunCompareArgs(context.Background(), env, o, []string{before, after}, -1); err != nil {
		t.Fatal(err)
	}
	var res compare.WithFlameDiff
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	fd := res.FlameDiff
	if fd == nil || res.Comparison == nil || len(res.Rows) == 0 || fd.Norm != "per-request" || fd.Before.Requests != 1267 || fd.After.Requests != 1198 ||
		len(fd.Grew) == 0 || fd.Grew[0].Frame != "Diff.scoreA" || fd.Root != nil {
		t.Errorf("json flame_diff %+v", fd)
	}
	// Per request by hand: scoreA's self samples on each side over its requests.
	if g := fd.Grew[0]; g.After <= g.Before || g.Before <= 0 {
		t.Errorf("scoreA %v -> %v per request", g.Before, g.After)
	}

	// Markdown in Chinese.
	env, out, _ = testEnv()
	o.Output, o.Lang = "markdown", "zh"
	if err := RunCompareArgs(context.Background(), env, o, []string{before, after}, -1); err != nil {
		t.Fatal(err)
	}
	if md := out.String(); !strings.Contains(md, "## 差分火焰图 (cpu)") || !strings.Contains(md, "`Diff.scoreA`") {
		t.Errorf("markdown:\n%s", md[max(0, len(md)-1500):])
	}
}

// Two .jfr files (or collapsed stacks) given directly: the flame diff
// alone, per total, said so.
func TestCompareFlameDiffFiles(t *testing.T) {
	page := filepath.Join(t.TempDir(), "diff.html")
	env, out, _ := testEnv()
	o := &CompareOptions{Output: "text", FlameDiff: page}
	if err := RunCompareArgs(context.Background(), env, o, []string{beforeJFR, afterJFR}, -1); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "per total") || !strings.Contains(text, "Diff.scoreA") || strings.Contains(text, "Throughput") {
		t.Errorf("text:\n%s", text)
	}
	lines := strings.Split(text[strings.Index(text, "Frames that grew most"):], "\n")
	if !strings.HasSuffix(lines[1], "Diff.scoreA") {
		t.Errorf("scoreA is not the first that grew: %q", lines[1])
	}
	shr := strings.Split(text[strings.Index(text, "Frames that shrank most"):], "\n")
	if !strings.HasSuffix(shr[1], "Diff.parse") {
		t.Errorf("parse is not the first that shrank in share: %q", shr[1])
	}
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), "per total") {
		t.Errorf("page: %v", err)
	}
	// The same collapsed file on both sides: nothing changed.
	env, out, _ = testEnv()
	if err := RunCompareArgs(context.Background(), env, o, []string{asprofPool, asprofPool}, -1); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "  none") != 2 {
		t.Errorf("a file against itself changed:\n%s", out)
	}
	// A JFR profile against a lock profile kind mismatch cannot happen
	// (one --flame-kind); a run folder without a recording is said.
	env, _, _ = testEnv()
	o.FlameKind = "nope"
	if err := RunCompareArgs(context.Background(), env, o, []string{beforeJFR, afterJFR}, -1); err == nil {
		t.Error("--flame-kind nope accepted")
	}
}

func TestCompareFlameDiffNeedsRecordings(t *testing.T) {
	before := runFolder(t, "demo-before.json", beforeJFR, 1267)
	after := runFolder(t, "demo-after.json", afterJFR, 1198)
	os.Remove(filepath.Join(after, "raw", "recording.jfr"))
	env, _, _ := testEnv()
	err := RunCompareArgs(context.Background(), env, &CompareOptions{Output: "text", FlameDiff: filepath.Join(t.TempDir(), "d.html")}, []string{before, after}, -1)
	if err == nil || !strings.Contains(err.Error(), "has no readable JFR recording") {
		t.Errorf("err %v", err)
	}
}

// A real run folder of the zoo's sync-logging service (recorded by
// `tuneloop run`, no report.json: paged from its raw files), its lock
// profile against itself: per request from its load.json, nothing changed,
// and the page names the appender's lock.
func TestCompareFlameDiffRealRunFolder(t *testing.T) {
	run := filepath.Join("..", "verdict", "testdata", "runs", "sync-logging-jfr")
	page := filepath.Join(t.TempDir(), "lock.html")
	env, out, _ := testEnv()
	o := &CompareOptions{Output: "text", FlameDiff: page, FlameKind: "lock"}
	if err := RunCompareArgs(context.Background(), env, o, []string{run, run}, -1); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	i := strings.Index(text, "Differential flame graph (lock, per request")
	if i < 0 || !strings.Contains(text[i:], "before 19335, after 19335") || strings.Count(text[i:], "  none") != 2 {
		t.Errorf("text:\n%s", text)
	}
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), "ReentrantLock$NonfairSync") || strings.Contains(string(b), "ThreadPoolExecutor.getTask") {
		t.Errorf("page: %v (the lock missing, or idle pool waits kept)", err)
	}
}
