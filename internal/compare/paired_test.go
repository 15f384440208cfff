package compare

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// page is a run started at start whose 20 steady seconds run at tps (a
// little per-second noise) with p99 = 1000/tps ms.
func page(r *rand.Rand, start time.Time, tps float64) Input {
	l := &report.LoadView{TPS: tps}
	for range 20 {
		x := tps * (1 + 0.01*r.NormFloat64())
		l.Series = append(l.Series, report.LoadPoint{TPS: x, P50MS: 500 / x, P99MS: 1000 / x})
	}
	return Input{Path: start.Format("15:04:05"), Page: &report.RunPage{Title: "w @ http://127.0.0.1:1/", Run: &report.RunSummary{Start: start}, Load: l}}
}

// abab is n pairs on a host whose speed halves and doubles from pair to
// pair (a neighbour's build), B ratio times A; order "AB", "BA" or "ABBA"
// (alternating), 10 s apart.
func abab(n int, ratio float64, order string) (a, b []Input) {
	r := rand.New(rand.NewPCG(1, 1))
	t := time.Date(2026, 11, 25, 21, 0, 0, 0, time.UTC)
	for i := range n {
		level := 1000 * math.Exp(0.3*r.NormFloat64())
		first := order == "AB" || (order == "ABBA" && i%2 == 0)
		pa, pb := page(r, t, level), page(r, t.Add(10*time.Second), level*ratio)
		if !first {
			pb, pa = page(r, t, level*ratio), page(r, t.Add(10*time.Second), level)
		}
		a, b = append(a, pa), append(b, pb)
		t = t.Add(20 * time.Second)
	}
	return a, b
}

func TestInterleaved(t *testing.T) {
	for _, order := range []string{"AB", "BA", "ABBA"} {
		a, b := abab(4, 1, order)
		if _, _, ok := Interleaved(a, b); !ok {
			t.Errorf("%s: not seen as interleaved", order)
		}
		// Given in any order, the pairs come back in time order.
		ra, rb := []Input{a[2], a[0], a[3], a[1]}, []Input{b[1], b[3], b[0], b[2]}
		pa, pb, ok := Interleaved(ra, rb)
		if !ok || pa[0].Path != a[0].Path || pb[3].Path != b[3].Path {
			t.Errorf("%s: pairs not in time order: %v", order, ok)
		}
	}
	// All of A, then all of B: two sets, not pairs.
	a, b := abab(3, 1, "AB")
	seq := append(append([]Input{}, a...), b...)
	for i, in := range seq {
		in.Page.Run.Start = time.Date(2026, 11, 25, 21, 0, i, 0, time.UTC)
	}
	if _, _, ok := Interleaved(a, b); ok {
		t.Error("AAABBB seen as interleaved")
	}
	// Unequal sides, one run a side, a run without a start: not paired.
	a, b = abab(3, 1, "AB")
	if _, _, ok := Interleaved(a[:2], b); ok {
		t.Error("2 vs 3 runs paired")
	}
	if _, _, ok := Interleaved(a[:1], b[:1]); ok {
		t.Error("one pair paired")
	}
	a[1].Page.Run.Start = time.Time{}
	if _, _, ok := Interleaved(a, b); ok {
		t.Error("a run without a start paired")
	}
}

// On a host whose speed swings 30% from pair to pair a 5% slowdown in 4
// interleaved pairs is WORSE with a narrow interval, while the same runs
// as two sets are inconclusive; the output names the design and the pairs.
func TestCompareSetsPaired(t *testing.T) {
	a, b := abab(4, 0.95, "ABBA")
	c := CompareSets(a, b, 5)
	if c.Design != DesignPaired || c.Pairs != 4 {
		t.Fatalf("design %q pairs %d", c.Design, c.Pairs)
	}
	tps := c.Stats[0]
	if tps.Key != "tps" || tps.Method != "paired-t-log-over-pairs" || tps.Verdict != "worse" || tps.LoPct < -7 || tps.HiPct > -3 {
		t.Errorf("paired tps %+v", tps)
	}
	if !c.Gate(2) || c.Gate(10) {
		t.Errorf("gate 2%%: a significant -5%% fails it; gate 10%%: passes; %v", c.Regressions)
	}
	u := CompareSetsWith(a, b, Options{PowerPct: 5, Design: DesignUnpaired})
	if u.Design != DesignUnpaired || u.Stats[0].Method != "welch-t-and-exact-u-over-launches" || u.Stats[0].Verdict != "inconclusive" {
		t.Errorf("unpaired: %s %+v", u.Design, u.Stats[0])
	}
	for lang, want := range map[finding.Lang]string{finding.EN: "Design: 4 interleaved pairs", finding.ZH: "设计：4 组交替运行的配对"} {
		var txt, md bytes.Buffer
		_ = writeText(&txt, c, lang, 5)
		_ = writeMarkdown(&md, c, lang, 5)
		if !strings.Contains(txt.String(), want) || !strings.Contains(md.String(), want) {
			t.Errorf("%s: %q missing:\n%s", lang, want, txt.String())
		}
	}
	var txt bytes.Buffer
	_ = writeText(&txt, u, finding.EN, 5)
	if !strings.Contains(txt.String(), "Design: two unpaired sets") {
		t.Errorf("unpaired design not said:\n%s", txt.String())
	}
	// --design paired pairs by the order given, whatever the times.
	for _, in := range a {
		in.Page.Run.Start = time.Time{}
	}
	if p := CompareSetsWith(a, b, Options{Design: DesignPaired}); p.Design != DesignPaired || p.Stats[0].Verdict != "worse" {
		t.Errorf("explicit pairing: %s %+v", p.Design, p.Stats[0])
	}
	if p := CompareSets(a, b, 5); p.Design != DesignUnpaired {
		t.Errorf("no start times, auto: %s", p.Design)
	}
}

// The gate judges the 99% interval: worse at 95% but spanning 0 at 99% is
// not a regression but inconclusive; wholly worse at 99% and beyond pct is.
func TestGateAt99(t *testing.T) {
	st := Stat{Key: "tps", Label: finding.T("Throughput", "吞吐量"), Better: Higher, Verdict: "worse", ChangePct: -5, LoPct: -9, HiPct: -1, GateLoPct: -11, GateHiPct: 1}
	c := &Comparison{Stats: []Stat{st}}
	if c.Gate(5) || len(c.Inconclusive) != 1 || !strings.Contains(c.Inconclusive[0].EN, "not at the gate's 99%") {
		t.Errorf("95%% only: regressions %v inconclusive %v", c.Regressions, c.Inconclusive)
	}
	st.GateHiPct = -0.5
	c = &Comparison{Stats: []Stat{st}}
	if !c.Gate(5) || !strings.Contains(c.Regressions[0].EN, "99% CI -11.0% to -0.5%") {
		t.Errorf("99%%: regressions %v", c.Regressions)
	}
	if c.Gate(12) {
		t.Errorf("far bound -11%% inside a 12%% gate: %v", c.Regressions)
	}
}
