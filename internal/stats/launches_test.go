package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRankMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {3, 5, 2.0 / 56}, {1, 1, 1}, {10, 10, 2.0 / 184756}} {
		if got := RankMinP(c.n1, c.n2); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("RankMinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
	if n := RankRunsFor(0.05); n != 4 {
		t.Errorf("runs for 5%%: %d, want 4", n)
	}
	if n := RankRunsFor(0.01); n != 5 {
		t.Errorf("runs for 1%%: %d, want 5", n)
	}
	// benchmath's exact U p of fully separated sides is that minimum.
	for _, n := range []int{3, 4, 5, 7} {
		var b, a [][]float64
		for i := range n {
			b, a = append(b, []float64{100 + float64(i)}), append(a, []float64{200 + float64(i)})
		}
		e, _ := CompareLaunches(b, a)
		if math.Abs(e.UTestP-RankMinP(n, n)) > 1e-9 {
			t.Errorf("%d a side: U p %v, RankMinP %v", n, e.UTestP, RankMinP(n, n))
		}
	}
}

// issueLaunches are the shape of issue 26's trial that failed the gate:
// three launches in the fast mode before, three in the slow mode after.
var issueBefore = [][]float64{{57100, 58800, 58100}, {59600, 60100, 59800}, {56300, 56900, 56500}}
var issueAfter = [][]float64{{47200, 46800, 47500}, {46100, 46500, 46300}, {48000, 47700, 47900}}

// The issue's false alarm: Welch's 99% interval excludes 0 by far, the
// rank test cannot go below 0.1: the verdict is inconclusive, never worse,
// and asks for enough launches for the rank test to reach the level.
func TestLaunchesIssueCase(t *testing.T) {
	e, ok := CompareLaunches(issueBefore, issueAfter)
	if !ok || e.Method != MethodLaunches {
		t.Fatalf("%+v", e)
	}
	if lo, hi := e.Interval(0.99); hi >= 0 {
		t.Fatalf("the t interval alone would call it: [%.1f, %.1f]", lo, hi)
	}
	if a := e.LaunchAgreement(0.99); a != RankUnreachable {
		t.Errorf("agreement %v, want RankUnreachable", a)
	}
	v, more := Judge(e, 1, 5)
	if v != Inconclusive || more < RankRunsFor(0.05)-3 {
		t.Errorf("verdict %q more %d", v, more)
	}
	if e.RankShiftPct > -15 || e.RankShiftPct < -25 {
		t.Errorf("HL shift %.1f%%", e.RankShiftPct)
	}
	// The same launches, 5 a side and fully separated: now the rank test
	// can and does agree.
	b5 := append(issueBefore, []float64{58000, 58200}, []float64{59000, 58700})
	a5 := append(issueAfter, []float64{46900, 47100}, []float64{47300, 47600})
	e, _ = CompareLaunches(b5, a5)
	if a := e.LaunchAgreement(0.99); a != Agree {
		t.Errorf("5 a side: agreement %v", a)
	}
	if v, _ := Judge(e, 1, 5); v != Worse {
		t.Errorf("5 a side: %q", v)
	}
}

// One launch far from the others of its side widens the t interval while
// the ranks still separate the sides: they disagree, and the verdict waits.
func TestLaunchesOutlier(t *testing.T) {
	b := [][]float64{{1000}, {1004}, {998}, {1002}, {1001}, {999}}
	a := [][]float64{{1100}, {1104}, {1098}, {1102}, {1101}, {700}}
	e, _ := CompareLaunches(b, a)
	if ag := e.LaunchAgreement(0.95); ag != IntervalNotSignificant && ag != Agree {
		t.Fatalf("agreement %v", ag)
	}
	if ag := e.LaunchAgreement(0.95); ag == IntervalNotSignificant {
		if v, more := Judge(e, 1, 5); v != Inconclusive || more < 1 {
			t.Errorf("%q %d", v, more)
		}
	}
	g := Groups([]float64{1100, 1104, 1098, 1102, 1101, 1099, 1103, 700})
	if len(g) != 2 || len(g[0].Members) != 1 || g[0].Members[0] != 7 {
		t.Errorf("outlier groups %+v", g)
	}
	if g := Groups([]float64{1100, 1104, 1098, 1102, 1101, 700}); len(g) != 1 {
		t.Errorf("6 values: a group of one is not told from a tail: %+v", g)
	}
}

func TestGroups(t *testing.T) {
	// The issue's: two groups, each side in one.
	var v []float64
	for _, r := range append(issueBefore, issueAfter...) {
		v = append(v, mean(r))
	}
	g := Groups(v)
	if len(g) != 2 || g[0].Lo < 46000 || g[0].Hi > 48000 || g[1].Lo < 56000 || g[1].Hi > 60000 {
		t.Fatalf("groups %+v", g)
	}
	if len(Groups([]float64{100, 140})) != 1 {
		t.Error("two values are one group")
	}
	if len(Groups([]float64{100, 101, 103, 102})) != 1 {
		t.Error("3% apart is one group")
	}
	// Three modes.
	g = Groups([]float64{100, 101, 150, 152, 151, 200, 199})
	if len(g) != 3 {
		t.Errorf("three modes: %+v", g)
	}
	// Unimodal launches (normal, lognormal, 2-8% spread, 3-20 of them)
	// are rarely split: the rule's false "groups".
	r := rand.New(rand.NewPCG(5, 6))
	for _, cv := range []float64{0.02, 0.04, 0.08, 0.16} {
		for _, size := range []int{3, 5, 6, 10, 20} {
			split := 0
			const sets = 2000
			for range sets {
				x := make([]float64, size)
				for i := range x {
					x[i] = 50000 * math.Exp(cv*r.NormFloat64())
				}
				if len(Groups(x)) > 1 {
					split++
				}
			}
			// The documented bound: at most groupAlpha, 6.5% with this
			// many sets' sampling error (3 standard errors).
			limit := 0.065
			rate := float64(split) / sets
			if rate > limit {
				t.Errorf("unimodal launches (spread %.0f%%, %d) split in %.1f%% of %d sets", 100*cv, size, 100*rate, sets)
			}
			t.Logf("unimodal launches, spread %.0f%%, %2d of them: split into groups in %.2f%% of %d sets", 100*cv, size, 100*rate, sets)
		}
	}
	// Two modes 20% apart with 2% spread each, 10 launches: found.
	found := 0
	for range 1000 {
		x := make([]float64, 10)
		for i := range x {
			l := 47000.0
			if i%2 == 0 {
				l = 58000
			}
			x[i] = l * math.Exp(0.015*r.NormFloat64())
		}
		if len(Groups(x)) == 2 {
			found++
		}
	}
	if found < 950 {
		t.Errorf("bimodal found in %d of 1000", found)
	}
	t.Logf("two modes 21%% apart (1.5%% spread each), 10 launches: found in %d of 1000", found)

	// One launch in 10 far below the rest (35% under a 3% spread): found.
	found = 0
	for range 1000 {
		x := make([]float64, 10)
		for i := range x {
			x[i] = 7500 * math.Exp(0.03*r.NormFloat64())
		}
		x[3] *= 0.65
		if g := Groups(x); len(g) == 2 && len(g[0].Members) == 1 && g[0].Members[0] == 3 {
			found++
		}
	}
	if found < 950 {
		t.Errorf("one low launch of 10 found in %d of 1000", found)
	}
}

// TestGroupsRealLaunches: 10 launches of one build each (5 a side, same
// service, same day) measured on a 2-core VM by make bench-gate MODE=sets
// (docs/bench/gate-sets). The rule of gaps alone that came before split
// each of these into 4 to 6 groups.
func TestGroupsRealLaunches(t *testing.T) {
	// One wide spread: one group.
	for _, v := range [][]float64{
		{4902, 5707, 5710, 5718, 6124, 6670, 6834, 6852, 7649, 7701},
		{5392, 5427, 5710, 5814, 6124, 6431, 6808, 6834, 6852, 7649},
		{5682, 5686, 5710, 6124, 6834, 6852, 6939, 7115, 7649, 7649},
	} {
		if g := Groups(v); len(g) != 1 {
			t.Errorf("%v: one spread split into %+v", v, g)
		}
	}
	// Launches that settle at the same level to 0.1% (three at 4.90k,
	// three at 5.68-5.72k) are levels, not one spread.
	g := Groups([]float64{4446, 4576, 4900, 4901, 4902, 5680, 5707, 5718, 6670, 7701})
	if len(g) < 3 || !slices.ContainsFunc(g, func(g Group) bool { return g.Lo == 4900 && g.Hi == 4902 }) {
		t.Errorf("levels not found: %+v", g)
	}
	// One launch 27% below nine within 18%: an outlier.
	g = Groups([]float64{4901, 6683, 7100, 7297, 7394, 7683, 7729, 7961, 7981, 7996})
	if len(g) != 2 || len(g[0].Members) != 1 || g[0].Lo != 4901 {
		t.Errorf("outlier not found: %+v", g)
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// SignedRankP against counts done by hand: all of n pairs one way is
// 2/2^n; one pair of 5 the other way with the smallest |d| is 2*2/32;
// zeros are dropped and tied |d| share their mid-rank.
func TestSignedRankP(t *testing.T) {
	for _, c := range []struct {
		d    []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6}, 2.0 / 64},
		{[]float64{-1, -2, -3}, 2.0 / 8},
		{[]float64{-0.5, 2, 3, 4, 5}, 4.0 / 32},
		{[]float64{0, 0, 1, 2}, 2.0 / 4},
		{[]float64{1, -1}, 1},
		// |d| tied: ranks 1.5, 1.5, 3; W+ = 1.5 + 3 = 4.5; doubled, the 8
		// sign patterns sum to 0,3,3,6,6,9,9,12: P(>=9) = 3/8, p = 2*3/8.
		{[]float64{1, -1, 2}, 0.75},
		{[]float64{1, 1, 2}, 2.0 / 8},
		{nil, 1},
	} {
		if got := SignedRankP(c.d); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("SignedRankP(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}

// The false alarms of the interleaved A/B design (ComparePairedLaunches
// through Decide at the gate's 99%), measured on launches like issue 26's:
// each launch lands in one of two modes 21% apart at random (whatever its
// side), 2% spread within a mode, and the host drifts ±15% from pair to
// pair. 4000 A/A comparisons per size: with the paired t alone, pairs
// whose B landed slow by chance are called regressions; with the
// signed-rank test agreeing, the rate stays within the 1% the gate
// promises (its exact level), and below 8 pairs no verdict is possible.
func TestPairedLaunchesFalseAlarms(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 26))
	launch := func(level float64) []float64 {
		v := level * (1 + 0.02*r.NormFloat64())
		if r.IntN(2) == 0 {
			v *= 1.21
		}
		return []float64{v}
	}
	const trials = 4000
	for _, n := range []int{3, 5, 8, 10} {
		alarms, tAlone := 0, 0
		for range trials {
			var a, b [][]float64
			for range n {
				level := 47000 * (1 + 0.15*(2*r.Float64()-1))
				a, b = append(a, launch(level)), append(b, launch(level))
			}
			e, ok := ComparePairedLaunches(a, b)
			if !ok || e.Method != MethodPairedLaunches {
				t.Fatalf("%d pairs: method %q", n, e.Method)
			}
			if d := Decide(e, 1, 5, 0.99); d.Verdict == Worse || d.Verdict == Better {
				alarms++
			}
			if lo, hi := e.Interval(0.99); lo > 0 || hi < 0 {
				tAlone++
			}
		}
		rate := float64(alarms) / trials
		t.Logf("%2d pairs: %d of %d A/A judged a change at 99%% (%.2f%%); the paired t alone: %d (%.2f%%)", n, alarms, trials, 100*rate, tAlone, 100*float64(tAlone)/trials)
		if n < 8 && alarms != 0 {
			t.Errorf("%d pairs: %d verdicts where no signed-rank test can reach 1%%", n, alarms)
		}
		// The exact level is 1%; 4000 trials: a margin of 3 standard errors.
		if rate > 0.01+3*math.Sqrt(0.01*0.99/trials) {
			t.Errorf("%d pairs: %.2f%% false alarms, over the gate's 1%%", n, 100*rate)
		}
	}
}
