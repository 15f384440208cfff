package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// latencies is a window of n requests around median ms (lognormal, sd 0.3
// in log), as a histogram of 0.1 ms buckets.
func latencies(r *rand.Rand, n int, median float64) stats.Dist {
	counts := map[float64]int64{}
	for range n {
		counts[math.Ceil(10*median*math.Exp(0.3*r.NormFloat64()))/10]++
	}
	var d stats.Dist
	for v := range counts {
		d.Values = append(d.Values, v)
	}
	slices.Sort(d.Values)
	for _, v := range d.Values {
		d.Counts = append(d.Counts, counts[v])
	}
	return d
}

// windowPairs is n pairs on a drifting host, the after service slow times
// slower per request (its throughput 1/slow).
func windowPairs(n int, slow float64, hists bool) []WindowPair {
	r := rand.New(rand.NewPCG(3, 3))
	var out []WindowPair
	for range n {
		host := math.Exp(0.1 * r.NormFloat64())
		p := WindowPair{BeforeTPS: 1000 / host * (1 + 0.01*r.NormFloat64()), AfterTPS: 1000 / host / slow * (1 + 0.01*r.NormFloat64())}
		b, a := latencies(r, 1000, 4*host), latencies(r, int(1000/slow), 4*host*slow)
		p.BeforeP99, p.AfterP99 = b.Quantile(0.99), a.Quantile(0.99)
		if hists {
			p.BeforeLatency, p.AfterLatency = b, a
		}
		out = append(out, p)
	}
	return out
}

// A service 3x slower per request: worse on throughput and on the pooled
// p99, and the gate at 5% names both; the same service against itself is
// not worse on either and the gate passes.
func TestFromWindowsPooledP99(t *testing.T) {
	c := FromWindows("http://a/", "http://b/", windowPairs(8, 3, true), "1s", 5)
	if len(c.Stats) != 2 || c.Pairs != 8 || c.Design != DesignWindows {
		t.Fatalf("stats: %+v", c.Stats)
	}
	tps, p99 := c.Stats[0], c.Stats[1]
	if tps.Key != "tps" || tps.Verdict != stats.Worse || p99.Key != "p99_ms" || p99.Verdict != stats.Worse ||
		p99.Method != stats.MethodPooledBootstrap || p99.NBefore != 8 || p99.ChangePct < 150 || p99.ChangePct > 250 {
		t.Errorf("3x slower: tps %+v\np99 %+v", tps, p99)
	}
	if !c.Gate(5) || strings.Join(c.RegressedKeys, ",") != "tps,p99_ms" {
		t.Errorf("gate at 5%%: %v %v", c.RegressedKeys, c.Regressions)
	}
	var buf bytes.Buffer
	if err := writeWindowsText(&buf, c, finding.EN, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Latency p99 (windows pooled)", "p99 of each side's windows pooled", "WORSE"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
	aa := FromWindows("http://a/", "http://a2/", windowPairs(8, 1, true), "1s", 5)
	for _, s := range aa.Stats {
		if s.Verdict == stats.Worse || s.Verdict == stats.Better {
			t.Errorf("A/A %s: %s %+.1f%% [%+.1f, %+.1f]", s.Key, s.Verdict, s.ChangePct, s.LoPct, s.HiPct)
		}
	}
	if aa.Gate(5) {
		t.Errorf("A/A gate: %v", aa.Regressions)
	}
}

// Pairs without latency distributions (per-window p99s only) are judged by
// the paired t over the windows' own p99s, as before.
func TestFromWindowsWithoutHistograms(t *testing.T) {
	c := FromWindows("http://a/", "http://b/", windowPairs(8, 3, false), "1s", 5)
	if len(c.Stats) != 2 || c.Stats[1].Method != stats.MethodPaired || c.Stats[1].Verdict != stats.Worse {
		t.Errorf("per-window p99: %+v", c.Stats)
	}
}

// WriteWindows: the text ends with each warning in the language asked;
// the JSON is the comparison itself, warnings included.
func TestWriteWindowsFormats(t *testing.T) {
	c := FromWindows("http://a/", "http://b/", windowPairs(8, 3, true), "1s", 5)
	c.Warnings = append(c.Warnings, finding.T("the sides differ", "两侧不同"))
	var txt, zh, js bytes.Buffer
	if err := WriteWindows(&txt, c, report.Text, finding.EN, 5); err != nil {
		t.Fatal(err)
	}
	if err := WriteWindows(&zh, c, report.Text, finding.ZH, 5); err != nil {
		t.Fatal(err)
	}
	if err := WriteWindows(&js, c, report.JSON, finding.EN, 5); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(txt.String(), "Warning: the sides differ\n") || !strings.Contains(txt.String(), "WORSE") {
		t.Errorf("text:\n%s", txt.String())
	}
	if !strings.HasSuffix(zh.String(), "警告: 两侧不同\n") {
		t.Errorf("zh text:\n%s", zh.String())
	}
	var back Comparison
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Warnings) != 1 || len(back.Stats) != 2 {
		t.Errorf("json: %v %+v\n%s", err, back.Warnings, js.String())
	}
}
