package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

func loadDemo(t *testing.T) *Comparison {
	t.Helper()
	b, err := Load("testdata/demo-before.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Load("testdata/demo-after.json")
	if err != nil {
		t.Fatal(err)
	}
	return Compare(b, a)
}

func row(c *Comparison, key string) Row {
	for _, r := range c.Rows {
		if r.Key == key {
			return r
		}
	}
	return Row{Before: math.NaN(), After: math.NaN()}
}

// make demo's two runs: synchronous logback, then its AsyncAppender fix.
func TestCompareDemoRuns(t *testing.T) {
	c := loadDemo(t)
	tps := row(c, "tps")
	if tps.Verdict != "better" || tps.ChangePct < 300 {
		t.Errorf("tps %+v: the fix multiplied it by 5", tps)
	}
	if r := row(c, "p99_ms"); r.Verdict != "better" || r.After >= r.Before {
		t.Errorf("p99 %+v", r)
	}
	if r := row(c, "blocked_pct"); r.Verdict != "better" || r.Before < 50 || r.After > 20 {
		t.Errorf("blocked share %+v: most workers queued on the appender before", r)
	}
	// The JVM spends less CPU per request once threads stop queueing.
	if r := row(c, "jvm_cpu_ms_per_req"); math.IsNaN(r.Before) || r.Verdict != "better" {
		t.Errorf("cpu per request %+v", r)
	}
	gone := map[string]bool{}
	for _, f := range c.Gone {
		gone[f.Key] = true
	}
	if !gone["threaddump.lock.logback-appender/java.util.concurrent.locks.ReentrantLock$NonfairSync"] {
		t.Errorf("the appender lock is not among the findings the fix removed: %+v", c.Gone)
	}
	for _, f := range append(c.New, c.Persist...) {
		if strings.HasPrefix(f.Key, "threaddump.lock.logback") {
			t.Errorf("the appender lock still fails after the fix: %+v", f)
		}
	}
	if c.Before.Verdict == nil || !strings.Contains(c.Before.Verdict.EN, "logback") {
		t.Errorf("before verdict %+v", c.Before.Verdict)
	}
}

func TestGate(t *testing.T) {
	c := loadDemo(t)
	if c.Gate(5) {
		t.Errorf("the fix gated as a regression: %v", c.Regressions)
	}
	// The same runs the other way round: throughput fell by four fifths,
	// but from one JVM launch a side. The old gate failed it on an interval
	// over the seconds of each launch, which holds none of the spread from
	// launch to launch (20% on the VM of issue 26): not a verdict for the
	// gate, which asks for the launches a rank test needs at 99%.
	b, _ := Load("testdata/demo-after.json")
	a, _ := Load("testdata/demo-before.json")
	rev := Compare(b, a)
	if rev.Gate(5) || len(rev.Inconclusive) != 2 || rev.InconclusiveKeys[0] != "tps" || !strings.Contains(rev.Inconclusive[0].EN, "Throughput (steady state): -84.4% from one JVM launch a side") ||
		!strings.Contains(rev.Inconclusive[0].EN, "run 4 more per side") || !strings.Contains(rev.Inconclusive[0].ZH, "每侧一次 JVM 启动") {
		t.Errorf("regressions %v inconclusive %v", rev.Regressions, rev.Inconclusive)
	}
}

func TestRender(t *testing.T) {
	c := loadDemo(t)
	c.Gate(5)
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		var txt, md bytes.Buffer
		if err := writeText(&txt, c, lang, 5); err != nil {
			t.Fatal(err)
		}
		if err := writeMarkdown(&md, c, lang, 5); err != nil {
			t.Fatal(err)
		}
		tps := row(c, "tps")
		nums := []string{num(tps.Before), num(tps.After), fmt.Sprintf("%+.1f%%", tps.ChangePct)}
		want := map[finding.Lang][]string{
			finding.EN: append(nums, "Throughput", "better", "Gone (fixed by the change)", "no regression beyond 5%"),
			finding.ZH: append(nums, "吞吐量", "变好", "已消失", "没有超过 5% 的回退"),
		}[lang]
		for _, w := range want {
			if !strings.Contains(txt.String(), w) || !strings.Contains(md.String(), w) {
				t.Errorf("%s: %q missing\ntext:\n%s\nmarkdown:\n%s", lang, w, txt.String(), md.String())
			}
		}
		// Columns line up by display width in both languages.
		var widths []int
		readings := txt.String()[strings.Index(txt.String(), map[finding.Lang]string{finding.EN: "Readings", finding.ZH: "读数"}[lang]):]
		for _, l := range strings.Split(readings, "\n") {
			if strings.Contains(l, "%") && (strings.Contains(l, "better") || strings.Contains(l, "变好") || strings.Contains(l, "WORSE") || strings.Contains(l, "变差")) {
				widths = append(widths, finding.DisplayWidth(l[:strings.LastIndex(l, "%")]))
			}
		}
		for _, w := range widths[1:] {
			if w != widths[0] {
				t.Errorf("%s: change column not aligned: %v\n%s", lang, widths, txt.String())
				break
			}
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || err.Error() != dir+" is not a run folder (no manifest.json / report.json)" ||
		!strings.Contains(finding.Localize(err, finding.ZH), "不是运行目录") {
		t.Errorf("empty folder: %v", err)
	}
	// Not the decoder's "invalid character 'p' looking for beginning of value".
	if _, err := Load("compare.go"); err == nil || strings.Contains(err.Error(), "invalid character") || !strings.Contains(err.Error(), "compare.go is not a run folder") {
		t.Errorf("a Go file: %v", err)
	}
}

// Any JSON a report.json could hold: no panic in Compare or the renderers.
func FuzzCompare(f *testing.F) {
	for _, p := range []string{"testdata/demo-before.json", "testdata/demo-after.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"tuneloop.run-page/v1"}`))
	f.Add([]byte(`{"load":{"tps":0,"series":[{"tps":1},{"tps":2},{"tps":3},{"tps":4}]},"gc":{"throughput_pct":-1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p report.RunPage
		if json.Unmarshal(b, &p) != nil {
			return
		}
		c := Compare(&p, &p)
		c.Gate(5)
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("json: %v", err)
		}
		for _, l := range []finding.Lang{finding.EN, finding.ZH} {
			_ = writeText(io.Discard, c, l, 5)
			_ = writeMarkdown(io.Discard, c, l, 5)
		}
	})
}

// The error rate is gated on its own scale: +0.1 point, whatever the percent.
func TestGateErrors(t *testing.T) {
	b, _ := Load("testdata/demo-before.json")
	a, _ := Load("testdata/demo-before.json")
	a.Load.Errors = a.Load.Requests / 200 // 0.5% of requests
	c := Compare(b, a)
	if !c.Gate(50) || len(c.Regressions) != 1 || !strings.Contains(c.Regressions[0].EN, "Errors rose from 0.00% to 0.50%") {
		t.Errorf("regressions %v", c.Regressions)
	}
	a.Load.Errors = a.Load.Requests / 2000 // 0.05%: noise
	if c := Compare(b, a); c.Gate(50) {
		t.Errorf("0.05%% errors gated: %v", c.Regressions)
	}
}

// A run folder with a | in its name (any path a user gives) stays in its
// cell of the Markdown runs table: the row keeps its columns.
func TestRenderRunFolderWithPipe(t *testing.T) {
	c := loadDemo(t)
	c.Before.Runs = []RunInfo{{Dir: "runs/a|b", SteadyS: 10}, {Dir: "runs/c", SteadyS: 10}}
	c.After.Runs = []RunInfo{{Dir: "runs/d", SteadyS: 10}}
	var md bytes.Buffer
	if err := writeMarkdown(&md, c, finding.EN, 5); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "| ") || !strings.Contains(line, "runs/") {
			continue
		}
		// GFM splits a row at every unescaped |, code spans included.
		if n, want := strings.Count(line, "|")-strings.Count(line, `\|`), len(runRows(c, labelsFor(finding.EN))[0])+1; n != want {
			t.Errorf("row has %d unescaped |, want %d:\n%s", n, want, line)
		}
		found = found || strings.Contains(line, "`runs/a\\|b`")
	}
	if !found {
		t.Errorf("the folder runs/a|b is not shown whole:\n%s", md.String())
	}
}
