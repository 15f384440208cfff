package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// MethodLaunches: two unpaired sets of runs, each run its own JVM launch,
// judged over launches: Welch's t on the log per-launch means (the
// interval) and an exact Mann-Whitney U over the same means (the rank
// test). A verdict needs both (see LaunchAgreement).
//
// Why both: launches of one build are not one normal population. On the
// 2-core VM of issue 26 a healthy service's launches ran at 46-48k or at
// 56-60k TPS, whatever the set; three fast launches against three slow ones
// give Welch a narrow interval 19% away from 0 (a false alarm at 99%),
// while the U-test, exact under any distribution as long as launches of a
// build are exchangeable, can say no more than p = 0.1 for 3 against 3.
// The rank test bounds the false alarms whatever the launches' shape; the
// interval gives the size of the change and the gate's PCT. The measured
// false-alarm rate of the two together, through the gate:
// internal/compare/launches_sim_test.go.
const MethodLaunches = "welch-t-and-exact-u-over-launches"

// MethodPairedLaunches: interleaved pairs of JVM launches (A1 B1 A2 B2 ...,
// `run --start-b`): the interval is the paired t on the per-pair log
// ratios (what drifts between pairs cancels), and the exact Wilcoxon
// signed-rank test on the same ratios must agree, as the U-test must for
// unpaired sets. Pairing removes drift, not the launches' modes: two
// launches of one build a pair apart still land in different modes, and
// pairs whose B happened to land slow give the paired t a narrow interval
// away from 0. The signed-rank test is exact whatever the ratios' shape as
// long as, under no change, A and B are exchangeable within a pair (the
// order alternates), and it keeps the pairing (a U-test over the launches
// would lose to the drift the pairs cancel). Its price: with n pairs its
// smallest two-sided p is 2/2^n, so 6 pairs are the fewest that can reach
// 5% and 8 the gate's 1%.
const MethodPairedLaunches = "paired-t-and-exact-signed-rank-over-launches"

// OverLaunches: e is judged by an interval and the exact U-test over
// launches together (LaunchAgreement).
func (e Estimate) OverLaunches() bool {
	return e.Method == MethodLaunches || e.Method == MethodPairedLaunches
}

// areRankMin is the least asymptotic relative efficiency of the
// Mann-Whitney test to the t-test over all continuous distributions,
// 108/125 = 0.864 (Hodges and Lehmann 1956): a rank test needs at most
// 1/0.864 times the launches a t-test needs for the same power, whatever
// the launches' distribution (0.955 for normal ones, more than 1 for
// heavy-tailed ones).
const areRankMin = 108.0 / 125.0

// CompareLaunches is Compare over two sets of JVM launches: with 2 or more
// a side it adds the Hodges-Lehmann shift (RankShiftPct: the median of the
// pairwise after/before ratios of launch means, robust to one outlier
// launch) and names the method MethodLaunches, so that Judge asks the rank
// test to agree. With one launch a side it is Compare's block bootstrap.
func CompareLaunches(before, after [][]float64) (e Estimate, ok bool) {
	e, ok = Compare(before, after)
	if !ok || e.Method != MethodWelch {
		return e, ok
	}
	e.Method = MethodLaunches
	e.RankShiftPct = hlShift(runMeans(nonEmpty(before)), runMeans(nonEmpty(after)))
	return e, true
}

// ComparePairedLaunches is ComparePaired over interleaved pairs of JVM
// launches, with the Hodges-Lehmann shift of the launch means and
// MethodPairedLaunches, so that Judge asks the rank test to agree. With
// fewer than 2 pairs it is CompareLaunches.
func ComparePairedLaunches(before, after [][]float64) (e Estimate, ok bool) {
	e, ok = ComparePaired(before, after)
	if !ok {
		return e, ok
	}
	if e.Method != MethodPaired {
		return CompareLaunches(before, after)
	}
	var b, a [][]float64
	for i := range min(len(before), len(after)) {
		if len(before[i]) > 0 && len(after[i]) > 0 {
			b, a = append(b, before[i]), append(a, after[i])
		}
	}
	mb, ma := runMeans(b), runMeans(a)
	d := make([]float64, len(mb))
	for i := range d {
		d[i] = math.Log(ma[i] / mb[i])
	}
	e.Method, e.RankP = MethodPairedLaunches, SignedRankP(d)
	// The direction of the rank test: the Hodges-Lehmann estimate of the
	// pairs, the median of the Walsh averages.
	var w []float64
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	e.RankShiftPct = pct(stat.Quantile(0.5, stat.LinInterp, w, nil))
	return e, true
}

// SignedRankP is the exact two-sided p of the Wilcoxon signed-rank test
// that d is centred on 0: zeros dropped, ties given their mid-rank, the
// null distribution of the positive rank sum counted over all 2^n signs
// (by dynamic programming over doubled ranks, so mid-ranks stay integers).
// 1 when nothing is left.
func SignedRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(math.Abs(nz[a]), math.Abs(nz[b])) })
	r2 := make([]int, n) // doubled mid-ranks
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		for k := i; k <= j; k++ {
			r2[idx[k]] = i + j + 2 // 2 * (mid-rank (i+1 + j+1)/2)
		}
		i = j + 1
	}
	total, w := 0, 0
	for i, r := range r2 {
		total += r
		if nz[i] > 0 {
			w += r
		}
	}
	// count[s]: sign patterns whose positive doubled-rank sum is s.
	count := make([]float64, total+1)
	count[0] = 1
	for _, r := range r2 {
		for s := total; s >= r; s-- {
			count[s] += count[s-r]
		}
	}
	all := math.Pow(2, float64(n))
	var lo, hi float64
	for s, c := range count {
		if s <= w {
			lo += c
		}
		if s >= w {
			hi += c
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)/all)
}

// PairedRankMinP is the smallest two-sided p the signed-rank test can give
// over n pairs: 2/2^n (every pair the same way).
func PairedRankMinP(n int) float64 {
	if n < 1 {
		return 1
	}
	return math.Min(1, 2/math.Pow(2, float64(n)))
}

// rankMinP is the smallest p e's rank test can give with its launches.
func (e Estimate) rankMinP() float64 {
	if e.Method == MethodPairedLaunches {
		return PairedRankMinP(min(e.NBefore, e.NAfter))
	}
	return RankMinP(e.NBefore, e.NAfter)
}

// rankP is e's rank test's p: the signed-rank test's for pairs, the
// U-test's for sets.
func (e Estimate) rankP() float64 {
	if e.Method == MethodPairedLaunches {
		return e.RankP
	}
	return e.UTestP
}

// rankRunsFor is the fewest launches a side (pairs) e's rank test needs
// to reach alpha at all.
func (e Estimate) rankRunsFor(alpha float64) int {
	if e.Method != MethodPairedLaunches {
		return RankRunsFor(alpha)
	}
	n := 1
	for PairedRankMinP(n) > alpha*(1+1e-9) {
		n++
	}
	return n
}

// RankRunsNeeded is rankRunsFor for e's method: the fewest launches a side
// (pairs, for pairs of launches) its rank test needs to reach alpha at all.
func (e Estimate) RankRunsNeeded(alpha float64) int { return e.rankRunsFor(alpha) }

// RankMin is the smallest p e's rank test can give with its launches.
func (e Estimate) RankMin() float64 { return e.rankMinP() }

// RankTestP is the p of e's rank test (NaN when it has none).
func (e Estimate) RankTestP() float64 { return e.rankP() }

// hlShift is the Hodges-Lehmann shift in percent: the median of the
// pairwise after/before ratios of the launch means.
func hlShift(mb, ma []float64) float64 {
	var d []float64
	for _, a := range ma {
		for _, b := range mb {
			d = append(d, math.Log(a/b))
		}
	}
	slices.Sort(d)
	return pct(stat.Quantile(0.5, stat.LinInterp, d, nil))
}

// RankMinP is the smallest two-sided p an exact rank test over n1 and n2
// launches can give: 2/C(n1+n2, n1), when every launch of one side is above
// every launch of the other. 3 against 3: 0.1; 4 against 4: 0.029; 5
// against 5: 0.0079.
func RankMinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	// C(n1+n2, n1) in logs: exact enough, no overflow at any size.
	lc := lgamma(float64(n1+n2+1)) - lgamma(float64(n1+1)) - lgamma(float64(n2+1))
	return math.Min(1, 2*math.Exp(-lc))
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// RankRunsFor is the fewest launches a side (as many on each) whose
// smallest possible two-sided rank p is at most alpha: 4 for 0.05, 5 for
// 0.01.
func RankRunsFor(alpha float64) int {
	n := 1
	for RankMinP(n, n) > alpha*(1+1e-9) {
		n++
	}
	return n
}

// Agreement of the interval and the rank test at one confidence.
type Agreement int

// Agreements.
const (
	// Agree: both significant the same way, or neither.
	Agree Agreement = iota
	// RankUnreachable: the interval excludes 0, but with these launches
	// no rank p can reach the level (3 against 3: never below 0.1).
	RankUnreachable
	// RankNotSignificant: the interval excludes 0, the rank test, which
	// could have, does not (or points the other way): the launches
	// overlap more than the t interval assumes (several modes, a tail).
	RankNotSignificant
	// IntervalNotSignificant: the rank test is significant, the interval
	// is not: typically one launch far from the others widens the t.
	IntervalNotSignificant
)

// LaunchAgreement says whether e's interval at conf and its exact rank
// test at 1-conf agree (Agree for a method not over launches).
func (e Estimate) LaunchAgreement(conf float64) Agreement {
	if !e.OverLaunches() {
		return Agree
	}
	lo, hi := e.Interval(conf)
	sigT := lo > 0 || hi < 0
	alpha := 1 - conf
	sigR := e.rankP() <= alpha*(1+1e-9) && e.RankShiftPct != 0
	switch {
	case sigT && sigR && (e.RankShiftPct > 0) == (e.LogCentre > 0):
		return Agree
	case sigT && e.rankMinP() > alpha*(1+1e-9):
		return RankUnreachable
	case sigT:
		return RankNotSignificant
	case sigR:
		return IntervalNotSignificant
	}
	return Agree
}

// LaunchesNeeded is how many launches a side would detect a change of pct
// percent with Power at conf, both tests together: the t's count for the
// launches' observed spread (RunsNeeded's formula at conf) divided by the
// rank test's least efficiency (areRankMin), and never fewer than the rank
// test needs to reach 1-conf at all (RankRunsFor). MaxRuns at most.
func LaunchesNeeded(e Estimate, pct, conf float64) int {
	t := runsNeededAt(e, pct, conf)
	if t >= MaxRuns {
		return MaxRuns
	}
	return min(MaxRuns, max(int(math.Ceil(float64(t)/areRankMin)), e.rankRunsFor(1-conf)))
}

// judgeLaunches is Decide over launches at conf: better or worse only when
// the interval and the rank test agree; when they disagree, inconclusive
// with the launches to add (at least as many again as there are, when the
// count for power is already reached: more of the same launches is what
// tells a mode from a change).
func judgeLaunches(e Estimate, higher int, pct, conf float64) Decision {
	have := min(e.NBefore, e.NAfter)
	ag := e.LaunchAgreement(conf)
	if lo, hi := e.Interval(conf); (lo > 0 || hi < 0) && math.Abs(e.ChangePct) > pct {
		// The interval already sees a change larger than pct: the
		// launches to add are those that confirm the change seen (a
		// +100% needs far fewer than detecting pct would).
		pct = math.Abs(e.ChangePct)
	}
	need := LaunchesNeeded(e, pct, conf)
	switch ag {
	case Agree:
		if lo, hi := e.Interval(conf); lo > 0 || hi < 0 {
			if (e.ChangePct > 0) == (higher > 0) {
				return Decision{Verdict: Better}
			}
			return Decision{Verdict: Worse}
		}
		if have >= need {
			return Decision{Verdict: NoChange}
		}
	case RankUnreachable:
		need = max(need, e.rankRunsFor(1-conf))
	}
	d := Decision{Verdict: Inconclusive, Agreement: ag}
	switch {
	case need >= MaxRuns:
		d.More = MaxRuns
	case need <= have:
		d.More = have
	default:
		d.More = need - have
	}
	return d
}

// Group is launches whose means lie close together: the values' range and
// the indexes of its members.
type Group struct {
	Lo, Hi  float64
	Members []int
}

// Gap rule constants: groups are at least groupMinGap apart and their gap is
// at least groupGapSD pooled within-group standard deviations (log scale).
// Measured on simulated unimodal launches (launches_test.go, normal on a
// log scale, 2-8% spread, 3-20 launches): split into groups in 0-5.8% of
// sets (5-6 launches at 4-8% spread the worst), under 2% with 10 or more;
// two modes 21% apart found in 999 of 1000 sets of 10.
var groupMinGap = math.Log(1.05)

const (
	groupGapSD = 5.0
	// groupSingleMin: with fewer values a group of one (an outlier) is not
	// told from the tail of one spread, so every group needs 2.
	groupSingleMin = 8
)

// Groups splits per-launch means (positive) into groups separated by gaps,
// on a log scale: every gap between sorted neighbours of at least 5% is a
// cut; then, the weakest first, a cut is dropped while it is narrower than
// groupGapSD pooled within-group standard deviations (the spread inside
// the groups it leaves), so that the tails of one wide spread join again
// and only gaps far wider than the spread stay. With fewer than 3 values,
// or when a group of one would be left among fewer than groupSingleMin
// values, it is one group. Groups come lowest first; a group of one is an
// outlier launch.
func Groups(values []float64) []Group {
	idx := make([]int, 0, len(values))
	for i, v := range values {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(values[a], values[b]) })
	n := len(idx)
	l := make([]float64, n)
	for i, j := range idx {
		l[i] = math.Log(values[j])
	}
	cut := make([]bool, max(n-1, 0))
	for i := range cut {
		cut[i] = l[i+1]-l[i] >= groupMinGap
	}
	for {
		sw, ok := pooledSD(l, cut)
		weak := -1
		for i := range cut {
			g := l[i+1] - l[i]
			if cut[i] && (!ok || g < groupGapSD*sw) && (weak < 0 || g < l[weak+1]-l[weak]) {
				weak = i
			}
		}
		if weak < 0 {
			break
		}
		cut[weak] = false
	}
	var out []Group
	start := 0
	for i := 0; i < n; i++ {
		if i == n-1 || cut[i] {
			g := Group{Lo: values[idx[start]], Hi: values[idx[i]], Members: slices.Sorted(slices.Values(idx[start : i+1]))}
			out = append(out, g)
			start = i + 1
		}
	}
	if n < 3 || len(out) > 1 && n < groupSingleMin && slices.ContainsFunc(out, func(g Group) bool { return len(g.Members) < 2 }) {
		return []Group{{Lo: values[idx[0]], Hi: values[idx[n-1]], Members: slices.Sorted(slices.Values(idx))}}
	}
	return out
}

// pooledSD is the pooled standard deviation within the segments of the
// sorted l that cut leaves; ok is false when no segment has 2 values.
func pooledSD(l []float64, cut []bool) (float64, bool) {
	var ss float64
	df, start := 0, 0
	for i := range l {
		if i == len(l)-1 || cut[i] {
			seg := l[start : i+1]
			if len(seg) >= 2 {
				m := stat.Mean(seg, nil)
				for _, v := range seg {
					ss += (v - m) * (v - m)
				}
				df += len(seg) - 1
			}
			start = i + 1
		}
	}
	if df == 0 {
		return 0, false
	}
	return math.Sqrt(ss / float64(df)), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Widen adds v, a variance on the log scale estimated on df degrees of
// freedom, to e's standard error and recomputes its interval: for sides
// recorded apart (a stored baseline), whose difference holds one more
// draw of what moves a set of launches as a whole, taken to be as large
// as one launch's spread. The t's degrees of freedom become the smaller
// of the two.
func (e *Estimate) Widen(v float64, df int) {
	if v <= 0 || df <= 0 || e.Method != MethodLaunches {
		return
	}
	e.SELog = math.Sqrt(e.SELog*e.SELog + v)
	if e.DF == 0 || float64(df) < e.DF {
		e.DF = float64(df)
	}
	e.LoPct, e.HiPct = e.Interval(Confidence)
}
