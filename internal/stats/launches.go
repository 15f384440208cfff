package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

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

// The groups test. Launches of one build whose log means scatter as one
// normal spread still leave gaps, and the tails of a small sample look like
// groups: a rule on gaps alone (what this was until session 16) measured
// the spread inside the groups its own gaps had made, too small, and split
// 10 quiet launches into 5 groups. So a split must beat chance as measured:
// for k = 2..groupMaxK groups the best partition of the sorted log means
// (least within-group sum of squares, W_k) is scored by R_k = W_k/T (T the
// total sum of squares), R_k is ranked against R_k of normal samples of
// the same size (p_k), and the smallest p_k must be below the
// groupAlpha-quantile of the same minimum over normal samples (which pays
// for trying several k). This is Engelman and Hartigan's test for clusters
// (1969) extended to k groups, with its null measured by simulation, seeded
// so the answer never changes. On top of it every gap between groups is at
// least groupMinGap (a difference a user cares about), and below
// groupSingleMin values no group is a single launch (an outlier is not
// told from one tail). A single launch far off the rest moves W little,
// so among groupSingleMin values or more its distance from the others (in
// their standard deviations) is a score of its own, in the same minimum.
// Measured (launches_test.go, 2000 sets each): launches from one normal
// spread (log, 2-16%, 3-20 of them) split in 0-5.0% of sets; two modes 21%
// apart found in 1000 of 1000 sets of 10, and in the 6; one launch
// 35% low among 10 found; three sets of 10 real quiet launches that the
// gap rule had split into 4-6 groups are one group.
var groupMinGap = math.Log(1.05)

const (
	groupAlpha     = 0.05
	groupMaxK      = 5
	groupSingleMin = 8
	// groupNullDraws: normal samples per size for the R_k tables and as
	// many again for the minimum's quantile (p in steps of 1/5000; with
	// 2000 the cut's own sampling error let 6.3% of 5-launch sets split);
	// a fifth as many past groupFewDrawsN values, whose draws cost more.
	groupNullDraws = 5000
	groupFewDrawsN = 60
	// groupMaxN: past this many values the null tables cost too much to
	// draw on demand (O(k n^2) per sample) and launches are one group.
	groupMaxN = 200
)

// Groups splits per-launch means (positive) into groups that beat chance
// (see groupAlpha): lowest first; a group of one is an outlier launch.
// With fewer than 3 values, or no split that beats chance, it is one
// group.
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
	one := []Group{{Lo: values[idx[0]], Hi: values[idx[n-1]], Members: slices.Sorted(slices.Values(idx))}}
	if n < 3 || n > groupMaxN || l[n-1]-l[0] < groupMinGap {
		return one
	}
	nt := groupNull(n)
	pr := newPartitioner(l, nt.maxK)
	bestP, chosen := math.Inf(1), []int(nil)
	for k := 2; k <= nt.maxK; k++ {
		starts, r := pr.best(k)
		if !groupsUsable(l, starts) {
			continue
		}
		if p := nt.p(k, r); p < bestP {
			bestP, chosen = p, starts
		}
	}
	if n >= groupSingleMin {
		// One launch far off the rest: R_k rates it weakly (one value moves
		// W little among many), so it has its own score.
		z, lone := pr.outlier()
		starts := []int{0, n - 1}
		if lone == 0 {
			starts = []int{0, 1}
		}
		if p := nt.pOut(z); p < bestP && groupsUsable(l, starts) {
			bestP, chosen = p, starts
		}
	}
	if chosen == nil || bestP > nt.minPCut {
		return one
	}
	var out []Group
	for gi, s := range chosen {
		e := n
		if gi+1 < len(chosen) {
			e = chosen[gi+1]
		}
		out = append(out, Group{Lo: values[idx[s]], Hi: values[idx[e-1]], Members: slices.Sorted(slices.Values(idx[s:e]))})
	}
	return out
}

// hasSingle: a group of the partition (each group's first index, of n
// values) holds one value.
func hasSingle(starts []int, n int) bool {
	for gi, s := range starts {
		e := n
		if gi+1 < len(starts) {
			e = starts[gi+1]
		}
		if e-s < 2 {
			return true
		}
	}
	return false
}

// groupsUsable: every gap between neighbouring groups is at least
// groupMinGap and, among few values, no group is a single launch.
func groupsUsable(l []float64, starts []int) bool {
	for gi, s := range starts {
		if gi > 0 && l[s]-l[s-1] < groupMinGap {
			return false
		}
	}
	return len(l) >= groupSingleMin || !hasSingle(starts, len(l))
}

// partitioner finds the k-group partition of sorted values with the least
// within-group sum of squares, by dynamic programming over prefix sums
// (groups of sorted 1-D values are contiguous runs).
type partitioner struct {
	n      int
	ps, pq []float64
	cost   [][]float64 // cost[k][j]: least W splitting the first j values into k groups
	from   [][]int
}

func newPartitioner(l []float64, maxK int) *partitioner {
	n := len(l)
	p := &partitioner{n: n, ps: make([]float64, n+1), pq: make([]float64, n+1)}
	for i, v := range l {
		p.ps[i+1], p.pq[i+1] = p.ps[i]+v, p.pq[i]+v*v
	}
	p.cost, p.from = make([][]float64, maxK+1), make([][]int, maxK+1)
	p.cost[1], p.from[1] = make([]float64, n+1), make([]int, n+1)
	for j := 1; j <= n; j++ {
		p.cost[1][j] = p.ss(0, j)
	}
	for k := 2; k <= maxK; k++ {
		c, f := make([]float64, n+1), make([]int, n+1)
		for j := k; j <= n; j++ {
			c[j] = math.Inf(1)
			for i := k - 1; i < j; i++ {
				if w := p.cost[k-1][i] + p.ss(i, j); w < c[j] {
					c[j], f[j] = w, i
				}
			}
		}
		p.cost[k], p.from[k] = c, f
	}
	return p
}

// ss is the sum of squares about the mean of values a..b-1.
func (p *partitioner) ss(a, b int) float64 {
	s := p.ps[b] - p.ps[a]
	return max(p.pq[b]-p.pq[a]-s*s/float64(b-a), 0)
}

// outlier is the larger of the lowest's and the highest's distance from
// the mean of the others, in the others' standard deviations, and which
// of the two (its index).
func (p *partitioner) outlier() (float64, int) {
	n := p.n
	z := func(i, a, b int) float64 {
		m := (p.ps[b] - p.ps[a]) / float64(b-a)
		sd := math.Sqrt(p.ss(a, b) / float64(b-a-1))
		v := p.ps[i+1] - p.ps[i]
		if sd <= 0 {
			return math.Inf(1)
		}
		return math.Abs(v-m) / sd
	}
	lo, hi := z(0, 1, n), z(n-1, 0, n-1)
	if lo > hi {
		return lo, 0
	}
	return hi, n - 1
}

// best is the k-group partition (each group's first index) and its R_k.
func (p *partitioner) best(k int) ([]int, float64) {
	starts := make([]int, k)
	j := p.n
	for g := k; g >= 1; g-- {
		i := 0
		if g > 1 {
			i = p.from[g][j]
		}
		starts[g-1], j = i, i
	}
	t := p.cost[1][p.n]
	if t <= 0 {
		return starts, 1
	}
	return starts, p.cost[k][p.n] / t
}

// groupNullTable is R_k over normal samples of one size, sorted, and the
// groupAlpha-quantile of min_k p_k over more of them.
type groupNullTable struct {
	maxK    int
	r       [][]float64
	out     []float64 // the outlier score, from groupSingleMin values up
	minPCut float64
}

func (t *groupNullTable) pOut(z float64) float64 {
	above := len(t.out) - sort.SearchFloat64s(t.out, z)
	return float64(above+1) / float64(len(t.out)+1)
}

// minP is the smallest p over the scores of pr that Groups could take:
// below groupSingleMin values a partition with a group of one is not a
// candidate. (The gap floor, which depends on the spread's scale, is not
// simulated: it only takes candidates away, so the test stays at or
// under its level.)
func (t *groupNullTable) minP(pr *partitioner) float64 {
	m := 1.0
	for k := 2; k <= t.maxK; k++ {
		starts, r := pr.best(k)
		if pr.n < groupSingleMin && hasSingle(starts, pr.n) {
			continue
		}
		m = min(m, t.p(k, r))
	}
	if t.out != nil {
		z, _ := pr.outlier()
		m = min(m, t.pOut(z))
	}
	return m
}

func (t *groupNullTable) p(k int, r float64) float64 {
	below, _ := slices.BinarySearch(t.r[k], r)
	// Ties count as at least as extreme; +1s keep p away from 0.
	for below < len(t.r[k]) && t.r[k][below] <= r {
		below++
	}
	return float64(below+1) / float64(len(t.r[k])+1)
}

var groupNulls sync.Map // n -> *groupNullTable

func groupNull(n int) *groupNullTable {
	if t, ok := groupNulls.Load(n); ok {
		return t.(*groupNullTable)
	}
	t := &groupNullTable{maxK: min(groupMaxK, n-1)}
	rng := rand.New(rand.NewPCG(uint64(n), 0x67726f757073)) // seeded per size: the same answer every time
	draw := func() *partitioner {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		slices.Sort(x)
		return newPartitioner(x, t.maxK)
	}
	draws := groupNullDraws
	if n > groupFewDrawsN {
		draws /= 5
	}
	t.r = make([][]float64, t.maxK+1)
	for range draws {
		pr := draw()
		for k := 2; k <= t.maxK; k++ {
			_, r := pr.best(k)
			t.r[k] = append(t.r[k], r)
		}
		if n >= groupSingleMin {
			z, _ := pr.outlier()
			t.out = append(t.out, z)
		}
	}
	for k := 2; k <= t.maxK; k++ {
		slices.Sort(t.r[k])
	}
	slices.Sort(t.out)
	minP := make([]float64, draws)
	for d := range minP {
		minP[d] = t.minP(draw())
	}
	// The cut: the largest minimum at or under which at most groupAlpha
	// of the normal samples fall (p values come in steps and tie).
	slices.Sort(minP)
	most := int(groupAlpha * float64(len(minP)))
	for i := most - 1; i >= 0; i-- {
		if n, _ := slices.BinarySearch(minP, math.Nextafter(minP[i], 2)); n <= most {
			t.minPCut = minP[i]
			break
		}
	}
	v, _ := groupNulls.LoadOrStore(n, t)
	return v.(*groupNullTable)
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

// Widen adds v, a variance on the log scale, to e's standard error and
// recomputes its interval: for sets whose difference also holds what moves
// a set of launches as a whole (a stored baseline, sets taken one after
// the other). noise is the v²/df term of v as an estimate (half its
// sampling variance): the t's degrees of freedom become Welch-
// Satterthwaite's for the sum, and an estimate of 0 that is itself
// uncertain still lowers them.
func (e *Estimate) Widen(v, noise float64) {
	if v < 0 || v == 0 && noise <= 0 || e.Method != MethodLaunches {
		return
	}
	se2 := e.SELog * e.SELog
	e.SELog, e.SetVar = math.Sqrt(se2+v), e.SetVar+v
	switch {
	case e.DF > 0:
		e.DF = (se2 + v) * (se2 + v) / (se2*se2/e.DF + noise)
	case noise > 0:
		e.DF = (se2 + v) * (se2 + v) / noise
	}
	e.LoPct, e.HiPct = e.Interval(Confidence)
}
