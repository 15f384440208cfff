package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noisyRun is secs seconds around level with a run-wide offset (the
// run-to-run spread, sd runCV) and per-second AR(1) noise (sd secCV, phi 0.5).
func noisyRun(r *rand.Rand, level, runCV, secCV float64, secs int) []float64 {
	l := level * math.Exp(r.NormFloat64()*runCV)
	out := make([]float64, secs)
	e := 0.0
	for i := range out {
		e = 0.5*e + r.NormFloat64()*secCV*math.Sqrt(0.75)
		out[i] = l * (1 + e)
	}
	return out
}

func runs(r *rand.Rand, n int, level, runCV float64) [][]float64 {
	var out [][]float64
	for range n {
		out = append(out, noisyRun(r, level, runCV, 0.05, 20))
	}
	return out
}

func TestSteadyStart(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// Five seconds of JIT warm-up climbing to 10000 TPS, then flat.
	tps := []float64{2000, 4000, 6000, 8000, 9000}
	for range 25 {
		tps = append(tps, 10000*(1+0.01*r.NormFloat64()))
	}
	if w := SteadyStart(tps, nil); w != 5 {
		t.Errorf("warm-up of 5 s: steady from %d", w)
	}
	// p99 still high after throughput settled: the later of the two.
	p99 := make([]float64, len(tps))
	for i := range p99 {
		p99[i] = 10
	}
	p99[7] = 80
	if w := SteadyStart(tps, p99); w != 8 {
		t.Errorf("p99 spike at 7: steady from %d, want 8", w)
	}
	flat := tps[5:]
	if w := SteadyStart(flat, nil); w != 0 {
		t.Errorf("no warm-up: steady from %d", w)
	}
	// Never more than half dropped, short series kept whole.
	ramp := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if w := SteadyStart(ramp, nil); w > 5 {
		t.Errorf("ramp: %d", w)
	}
	if w := SteadyStart([]float64{1, 100, 100}, nil); w != 0 {
		t.Errorf("3 s: %d", w)
	}
}

// A/A: the same level on both sides. With a 95% interval about 5% of pairs
// are "significant"; the interval must not be much narrower than that.
func TestCompareAAFalsePositives(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sig := 0
	const trials = 400
	for range trials {
		e, ok := Compare(runs(r, 5, 1000, 0.10), runs(r, 5, 1000, 0.10))
		if !ok || e.Method != MethodWelch {
			t.Fatalf("%+v %v", e, ok)
		}
		if e.Significant() {
			sig++
		}
	}
	if rate := float64(sig) / trials; rate < 0.02 || rate > 0.09 {
		t.Errorf("A/A significant in %.1f%% of pairs, want about 5%%", 100*rate)
	}
}

// Coverage: a true +10% change lies inside the interval about 95% of the
// time, and the point estimate is unbiased.
func TestCompareCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	covered, sum := 0, 0.0
	const trials = 300
	for range trials {
		e, _ := Compare(runs(r, 4, 1000, 0.05), runs(r, 4, 1100, 0.05))
		if e.LoPct <= 10 && 10 <= e.HiPct {
			covered++
		}
		sum += e.ChangePct
	}
	if c := float64(covered) / trials; c < 0.91 || c > 0.99 {
		t.Errorf("coverage %.1f%%, want about 95%%", 100*c)
	}
	if m := sum / trials; math.Abs(m-10) > 1 {
		t.Errorf("mean estimate %.2f%%, want 10%%", m)
	}
}

func TestJudge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	// A 30% throughput drop over quiet runs: worse, and lower latency better.
	e, _ := Compare(runs(r, 3, 1000, 0.02), runs(r, 3, 700, 0.02))
	if v, _ := Judge(e, +1, 5); v != Worse {
		t.Errorf("tps -30%%: %s %+v", v, e)
	}
	if v, _ := Judge(e, -1, 5); v != Better {
		t.Errorf("latency -30%%: %s", v)
	}
	// Many quiet runs and no change: no significant change.
	e, _ = Compare(runs(r, 10, 1000, 0.01), runs(r, 10, 1000, 0.01))
	if v, k := Judge(e, +1, 5); v != NoChange || k != 0 {
		t.Errorf("quiet A/A x10: %s %d %+v", v, k, e)
	}
	// Two noisy runs a side: cannot tell, and says how many more.
	e, _ = Compare(runs(r, 2, 1000, 0.15), runs(r, 2, 1000, 0.15))
	if v, k := Judge(e, +1, 5); e.Significant() || v != Inconclusive || k < 5 {
		t.Errorf("noisy x2: %s run %d more %+v", v, k, e)
	}
	// So noisy that no feasible number of runs would do: the cap, said as
	// "1000+" rather than a count that looks exact.
	e, _ = Compare(runs(r, 3, 1000, 0.9), runs(r, 3, 1000, 0.9))
	if v, k := Judge(e, +1, 1); v != Inconclusive || k != MaxRuns || MoreRuns(k) != "1000+" {
		t.Errorf("very noisy x3 at 1%%: %s run %s more %+v", v, MoreRuns(k), e)
	}
	if MoreRuns(7) != "7" {
		t.Errorf("MoreRuns(7) = %q", MoreRuns(7))
	}
	// One run a side: the within-run bootstrap, never "no change".
	e, _ = Compare(runs(r, 1, 1000, 0), runs(r, 1, 1000, 0))
	if v, k := Judge(e, +1, 5); e.Method != MethodBootstrap || v == NoChange || (v == Inconclusive && k < 2) {
		t.Errorf("single runs: %s %d %+v", v, k, e)
	}
	// Deterministic: the same runs, the same interval.
	x, y := runs(r, 1, 1000, 0), runs(r, 1, 1050, 0)
	e1, _ := Compare(x, y)
	e2, _ := Compare(x, y)
	if e1 != e2 && !(math.IsNaN(e1.UTestP) && math.IsNaN(e2.UTestP) && e1.LoPct == e2.LoPct && e1.HiPct == e2.HiPct) {
		t.Errorf("not deterministic: %+v %+v", e1, e2)
	}
	if _, ok := Compare(nil, y); ok {
		t.Error("no runs before: ok")
	}
}

func TestRunsNeeded(t *testing.T) {
	// n * ((1.95996 + 1.28155) * se / ln 1.05)^2 = 3 * 11.03 = 33.1.
	if k := RunsNeeded(Estimate{NBefore: 3, NAfter: 3, SELog: 0.05}, 5); k != 34 {
		t.Errorf("runs needed %d, want 34", k)
	}
	if k := RunsNeeded(Estimate{NBefore: 5, NAfter: 5, SELog: 0.001}, 5); k != MinRuns {
		t.Errorf("tiny se: %d", k)
	}
}

// The U-test rides along: with 3 runs a side benchmath warns it can never
// reach 0.05.
func TestUTest(t *testing.T) {
	e, _ := Compare([][]float64{{1}, {2}, {3}}, [][]float64{{4}, {5}, {6}})
	if math.Abs(e.UTestP-0.1) > 1e-9 || e.UTestNote == "" {
		t.Errorf("U p %v note %q", e.UTestP, e.UTestNote)
	}
}

func TestChangePoints(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var x []float64
	for i := range 40 {
		level := 1000.0
		if i >= 22 {
			level = 850 // a regression entered with run 22
		}
		x = append(x, level*(1+0.03*r.NormFloat64()))
	}
	cps := ChangePoints(x, 0.05)
	if len(cps) != 1 || cps[0].Index != 22 || math.Abs(cps[0].ChangePct()+15) > 3 {
		t.Errorf("change points %+v, want one at 22 of about -15%%", cps)
	}
	// Two steps: down, then back up.
	y := append([]float64{}, x...)
	for i := 32; i < 40; i++ {
		y[i] = 1000 * (1 + 0.03*r.NormFloat64())
	}
	if cps := ChangePoints(y, 0.05); len(cps) != 2 || cps[0].Index != 22 || cps[1].Index != 32 {
		t.Errorf("two steps: %+v", cps)
	}
	// Pure noise: few false change points over many seeded series.
	found := 0
	for range 100 {
		z := make([]float64, 30)
		for i := range z {
			z[i] = 1000 * (1 + 0.05*r.NormFloat64())
		}
		found += len(ChangePoints(z, 0.05))
	}
	if found > 10 {
		t.Errorf("%d change points in 100 noise series", found)
	}
	if cps := ChangePoints([]float64{1, 2, 3}, 0.01); len(cps) != 0 {
		t.Errorf("too short: %+v", cps)
	}
}

// driftPairs: n pairs on a host whose speed drifts from pair to pair (sd
// drift, the neighbour's load) while the two runs of a pair see the same
// neighbour; within a pair each run has its own small spread (sd within).
// after is ratio times before.
func driftPairs(r *rand.Rand, n int, drift, within, ratio float64) (before, after [][]float64) {
	for range n {
		level := 1000 * math.Exp(r.NormFloat64()*drift)
		before = append(before, noisyRun(r, level, within, 0.05, 20))
		after = append(after, noisyRun(r, level*ratio, within, 0.05, 20))
	}
	return before, after
}

// Under drift the pairs see what the sets cannot: a 5% slowdown on a host
// whose speed swings 15% from pair to pair is found by the paired interval
// (8 pairs) in most trials and by Welch's on the same runs in few; on A/A the paired
// interval still excludes 0 in only about 5% of trials.
func TestComparePairedUnderDrift(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const trials = 300
	var paired, welchSig, aa int
	for range trials {
		b, a := driftPairs(r, 8, 0.15, 0.01, 0.95)
		e, ok := ComparePaired(b, a)
		if !ok || e.Method != MethodPaired || e.NBefore != 8 || e.NAfter != 8 {
			t.Fatalf("%+v %v", e, ok)
		}
		if v, _ := Judge(e, +1, 5); v == Worse {
			paired++
		}
		if w, _ := Compare(b, a); w.Significant() {
			welchSig++
		}
		b, a = driftPairs(r, 8, 0.15, 0.01, 1)
		if e, _ := ComparePaired(b, a); e.Significant() {
			aa++
		}
	}
	if rate := float64(paired) / trials; rate < 0.9 {
		t.Errorf("paired: -5%% found in %.0f%% of trials, want >= 90%%", 100*rate)
	}
	if rate := float64(welchSig) / trials; rate > 0.3 {
		t.Errorf("Welch under 15%% drift found -5%% in %.0f%% of trials: the drift is too small to show the point", 100*rate)
	}
	if rate := float64(aa) / trials; rate < 0.02 || rate > 0.09 {
		t.Errorf("paired A/A significant in %.1f%% of trials, want about 5%%", 100*rate)
	}
}

// The paired point estimate is the geometric mean ratio (inside its own
// interval); a true -5% is covered about 95% of the time; pairs with an
// empty side are dropped whole; one pair left falls back to the unpaired
// estimate (its within-run bootstrap).
func TestComparePairedEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	covered := 0
	const trials = 300
	for range trials {
		b, a := driftPairs(r, 4, 0.2, 0.03, 0.95)
		e, _ := ComparePaired(b, a)
		if e.ChangePct < e.LoPct || e.ChangePct > e.HiPct {
			t.Fatalf("point outside its interval: %+v", e)
		}
		if e.LoPct <= -5 && -5 <= e.HiPct {
			covered++
		}
	}
	if c := float64(covered) / trials; c < 0.91 || c > 0.99 {
		t.Errorf("paired coverage %.1f%%, want about 95%%", 100*c)
	}
	b := [][]float64{{100, 100}, {}, {110, 110}, {90, 90}}
	a := [][]float64{{110, 110}, {50}, {121, 121}, {99, 99}}
	e, ok := ComparePaired(b, a)
	if !ok || e.NBefore != 3 || math.Abs(e.ChangePct-10) > 1e-9 || math.Abs(e.LoPct-10) > 1e-9 {
		t.Errorf("exact +10%% in 3 pairs (one dropped): %+v", e)
	}
	if v, _ := Judge(e, +1, 5); v != Better {
		t.Errorf("exact +10%%: %s", v)
	}
	e, _ = ComparePaired(b[:2], a[:2])
	if e.Method != MethodBootstrap {
		t.Errorf("one usable pair: %s", e.Method)
	}
}

// The runs needed use t's quantile: with the spread of 3 pairs at 2%
// (se 0.0115) a 5% change needs more than the normal approximation's 3.
func TestRunsNeededPaired(t *testing.T) {
	e := Estimate{NBefore: 3, NAfter: 3, SELog: 0.02 / math.Sqrt(3), Method: MethodPaired}
	// normal: 3*((1.96+1.28)*0.0115/0.0488)^2 = 1.8 -> 3; with t it is 4:
	// m=3: (4.30+1.28)*0.02/1.73 = 0.064 > 0.0488; m=4: (3.18+1.28)*0.02/2 = 0.045.
	if k := RunsNeeded(e, 5); k != 4 {
		t.Errorf("paired runs needed %d, want 4", k)
	}
}

// Interval at Confidence is the estimate's own interval; at 99% it is wider.
func TestInterval(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	b, a := driftPairs(r, 4, 0.1, 0.02, 0.95)
	for _, e := range []Estimate{must(ComparePaired(b, a)), must(Compare(b, a)), must(Compare(b[:1], a[:1]))} {
		lo, hi := e.Interval(Confidence)
		if e.Method != MethodBootstrap && (math.Abs(lo-e.LoPct) > 1e-9 || math.Abs(hi-e.HiPct) > 1e-9) {
			t.Errorf("%s: Interval(95%%) [%v, %v], estimate [%v, %v]", e.Method, lo, hi, e.LoPct, e.HiPct)
		}
		if e.Method == MethodBootstrap && (math.Abs(lo-e.LoPct) > 0.5 || math.Abs(hi-e.HiPct) > 0.5) {
			t.Errorf("bootstrap: normal approximation [%v, %v] far from the percentiles [%v, %v]", lo, hi, e.LoPct, e.HiPct)
		}
		if l99, h99 := e.Interval(0.99); l99 >= lo || h99 <= hi {
			t.Errorf("%s: 99%% [%v, %v] not wider than 95%% [%v, %v]", e.Method, l99, h99, lo, hi)
		}
	}
}

func must(e Estimate, ok bool) Estimate {
	if !ok {
		panic("estimate not ok")
	}
	return e
}

// With 2+ runs a side, Before and After are geometric means: the change
// they show is the interval's centre, never the other way round from it.
func TestBeforeAfterAgreeWithChange(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for range 50 {
		b, a := driftPairs(r, 3, 0.6, 0.3, 1)
		for _, e := range []Estimate{must(ComparePaired(b, a)), must(Compare(b, a))} {
			if got := 100 * (e.After/e.Before - 1); math.Abs(got-e.ChangePct) > 1e-6 || e.ChangePct < e.LoPct || e.ChangePct > e.HiPct {
				t.Fatalf("%s: after/before %+.3f%%, change %+.3f%% [%+.1f, %+.1f]", e.Method, got, e.ChangePct, e.LoPct, e.HiPct)
			}
		}
	}
}

func TestMedianCI(t *testing.T) {
	med, lo, hi, cov, ok := MedianCI([]float64{5, 1, 4, 2, 3, 7, 6}, Confidence)
	if med != 4 || lo != 1 || hi != 7 || !ok || cov < 0.98 || cov > 0.99 {
		t.Fatalf("n=7: med %v [%v, %v] cov %v ok %v; want 4 [1, 7] 98.4%%", med, lo, hi, cov, ok)
	}
	v := make([]float64, 30)
	for i := range v {
		v[i] = float64(i)
	}
	// n=30: k=10 reaches 95.7% (k=11 only 90.1%).
	med, lo, hi, cov, ok = MedianCI(v, Confidence)
	if med != 14.5 || lo != 9 || hi != 20 || !ok || cov < 0.95 {
		t.Fatalf("n=30: med %v [%v, %v] cov %v ok %v", med, lo, hi, cov, ok)
	}
	if _, lo, hi, cov, ok = MedianCI([]float64{3, 1, 2, 5, 4}, Confidence); ok || lo != 1 || hi != 5 || cov > 0.94 {
		t.Fatalf("n=5 should fall short of 95%%: [%v, %v] cov %v ok %v", lo, hi, cov, ok)
	}
	if med, _, _, _, ok = MedianCI(nil, Confidence); ok || !math.IsNaN(med) {
		t.Fatal("empty input must give NaN, not ok")
	}
}
