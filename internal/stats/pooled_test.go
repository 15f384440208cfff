package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// window is n request latencies (ms): lognormal around median with sd 0.4
// (log), the whole window scaled by exp(host) (the host's state in that
// second), bucketed to 3 significant digits as HdrHistogram keeps them.
func window(r *rand.Rand, n int, median, host, stall float64) Dist {
	v := make([]float64, n)
	hit := r.Float64() < stall
	for i := range v {
		x := median * math.Exp(host+0.4*r.NormFloat64())
		if hit && i%33 == 0 {
			x += 20 // a stall: 3% of the window's requests wait 20 ms more
		}
		p := math.Pow(10, math.Floor(math.Log10(x))-2)
		v[i] = math.Ceil(x/p) * p
	}
	slices.Sort(v)
	var d Dist
	for _, x := range v {
		if k := len(d.Values) - 1; k >= 0 && d.Values[k] == x {
			d.Counts[k]++
			continue
		}
		d.Values, d.Counts = append(d.Values, x), append(d.Counts, 1)
	}
	return d
}

// windowPairs is n pairs of adjacent windows, the after side's median
// scaled by ratio; the host drifts between pairs (AR(1), sd driftSD), each
// window adds its own noise (sd winSD) and has a stall with probability
// stall (a GC pause, a neighbour's burst).
func windowPairs(r *rand.Rand, n, reqs int, ratio, driftSD, winSD, stall float64) (before, after []Dist) {
	h := 0.0
	for range n {
		h = 0.7*h + driftSD*r.NormFloat64()
		before = append(before, window(r, reqs, 2, h+winSD*r.NormFloat64(), stall))
		after = append(after, window(r, reqs, 2*ratio, h+winSD*r.NormFloat64(), stall))
	}
	return before, after
}

func TestDistQuantile(t *testing.T) {
	d := Dist{Values: []float64{1, 2, 3, 10}, Counts: []int64{50, 40, 9, 1}}
	for _, c := range []struct{ q, want float64 }{{0.5, 1}, {0.51, 2}, {0.9, 2}, {0.99, 3}, {0.995, 10}, {1, 10}} {
		if got := d.Quantile(c.q); got != c.want {
			t.Errorf("q%v = %v, want %v", c.q, got, c.want)
		}
	}
	if (Dist{}).Quantile(0.99) != 0 {
		t.Error("empty dist has a quantile")
	}
	// The pool with every weight 1 is the plain pooled quantile.
	e, ok := ComparePooledQuantile([]Dist{d, {Values: []float64{4}, Counts: []int64{100}}}, []Dist{d, d}, 0.99)
	if !ok || e.Before != 4 || e.After != 3 || e.NBefore != 2 || e.Method != MethodPooledBootstrap {
		t.Errorf("pooled: %+v %v", e, ok)
	}
}

// perWindow is the paired t over each window's own p99 (what the windows
// design judged before the pooled p99), for contrast.
func perWindow(b, a []Dist) Estimate {
	var bp, ap [][]float64
	for i := range b {
		bp, ap = append(bp, []float64{b[i].Quantile(0.99)}), append(ap, []float64{a[i].Quantile(0.99)})
	}
	e, _ := ComparePaired(bp, ap)
	return e
}

// Same-build pairs of windows, with and without stalls: the gate's 99%
// interval calls p99 worse in at most 2 of 100 (it fails one way only:
// 0.5% nominal). Where a stall hits nearly every window (a JVM collecting
// every second) the pooled p99 is steady and its interval far narrower
// than the per-window one, whose pairs swing with each window's own stall;
// where stalls are rare and a window's p99 rests on sampling alone, the two
// are alike (the mean of n windows' quantiles and the quantile of their
// pool have the same spread). In between (stalls in some windows, a few
// percent of their requests) the pooled p99 jumps with the count of
// stalled windows: wide, and still not a false alarm.
func TestComparePooledQuantileAA(t *testing.T) {
	for _, c := range []struct {
		stall     float64
		maxRatio  float64 // pooled width / per-window width, at most (0: either)
		minNoChng int     // of 100, "no significant change" at 10%
	}{{0, 1.3, 40}, {0.15, 0, 0}, {0.95, 0.5, 80}} {
		r := rand.New(rand.NewPCG(7, 7))
		worse, noChange := 0, 0
		var wPooled, wWindow float64
		for range 100 {
			b, a := windowPairs(r, 8, 1000, 1, 0.1, 0.02, c.stall)
			e, ok := ComparePooledQuantile(b, a, 0.99)
			if !ok || e.NBefore != 8 || e.DF != 7 {
				t.Fatalf("estimate: %+v %v", e, ok)
			}
			if lo, _ := e.Interval(0.99); lo > 0 {
				worse++
			}
			if v, _ := Judge(e, -1, 10); v == NoChange {
				noChange++
			}
			ew := perWindow(b, a)
			wPooled += e.HiPct - e.LoPct
			wWindow += ew.HiPct - ew.LoPct
		}
		t.Logf("A/A, stalls in %.0f%% of windows: %d of 100 worse at 99%%, %d no significant change at 10%%; mean 95%% width pooled %.1f%%, per-window %.1f%%",
			100*c.stall, worse, noChange, wPooled/100, wWindow/100)
		if worse > 2 {
			t.Errorf("stalls %.2f: A/A p99 worse at 99%% in %d of 100", c.stall, worse)
		}
		if (c.maxRatio > 0 && wPooled > c.maxRatio*wWindow) || noChange < c.minNoChng {
			t.Errorf("stalls %.2f: pooled interval %.1f%% wide (per-window %.1f%%), %d of 100 no significant change", c.stall, wPooled/100, wWindow/100, noChange)
		}
	}
}

// A service 30% slower per request is worse on p99, by about 30%; the
// same windows give the same estimate (seeded resampling).
func TestComparePooledQuantileSlower(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	b, a := windowPairs(r, 8, 1000, 1.3, 0.1, 0.02, 0)
	e, _ := ComparePooledQuantile(b, a, 0.99)
	if v, _ := Judge(e, -1, 5); v != Worse || e.ChangePct < 20 || e.ChangePct > 40 || e.LoPct > 30 || e.HiPct < 30 {
		t.Errorf("30%% slower: %s %+.1f%% [%+.1f, %+.1f]", v, e.ChangePct, e.LoPct, e.HiPct)
	}
	if e2, _ := ComparePooledQuantile(b, a, 0.99); e2 != e && !(math.IsNaN(e2.UTestP) && e2.LoPct == e.LoPct && e2.HiPct == e.HiPct) {
		t.Errorf("not deterministic: %+v vs %+v", e, e2)
	}
}

// "Run K more" counts pairs: a noisy A/A of 4 pairs asks for more, and
// that many more pairs of the same noise narrow the interval enough to
// say no significant change.
func TestComparePooledQuantileAdvice(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	b, a := windowPairs(r, 4, 1000, 1, 0.1, 0.05, 0)
	e, _ := ComparePooledQuantile(b, a, 0.99)
	v, more := Judge(e, -1, 5)
	if v != Inconclusive || more < 1 || more >= MaxRuns {
		t.Fatalf("4 noisy pairs: %s, %d more (%+v)", v, more, e)
	}
	b2, a2 := windowPairs(r, 4+2*more, 1000, 1, 0.1, 0.05, 0)
	e2, _ := ComparePooledQuantile(append(b, b2...), append(a, a2...), 0.99)
	if v2, more2 := Judge(e2, -1, 5); v2 != NoChange && more2 > more/2 {
		t.Errorf("after %d more pairs: %s, %d more still (%+v)", 2*more, v2, more2, e2)
	}
}
