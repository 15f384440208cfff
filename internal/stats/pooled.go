package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MethodPooledBootstrap: a quantile of each side's pooled samples, its
// standard error bootstrapped over pairs (see ComparePooledQuantile).
const MethodPooledBootstrap = "bootstrap-over-pairs-pooled-quantile"

// Dist is one window's latency distribution as a histogram: Values
// ascending (each bucket's value), Counts the samples in each bucket.
type Dist struct {
	Values []float64
	Counts []int64
}

// Total is the number of samples in d.
func (d Dist) Total() int64 {
	var n int64
	for _, c := range d.Counts {
		n += c
	}
	return n
}

// Quantile is d's q-quantile as HdrHistogram reports it (so that a
// window's p99 is the one the load printed): the bucket holding the
// sample of rank q*N rounded; 0 when d is empty.
func (d Dist) Quantile(q float64) float64 {
	n := d.Total()
	if n == 0 {
		return 0
	}
	r := quantileRank(q, n)
	var cum int64
	for i, c := range d.Counts {
		if cum += c; cum >= r {
			return d.Values[i]
		}
	}
	return d.Values[len(d.Values)-1]
}

func quantileRank(q float64, n int64) int64 {
	return min(n, max(1, int64(q*float64(n)+0.5)))
}

// ComparePooledQuantile estimates the change of the q-quantile of latency
// between two services loaded in pairs of adjacent windows: before[i] and
// after[i] are pair i's windows. The statistic is the quantile of each
// side's windows pooled, After/Before: the p99 of the whole load, the
// number `load` prints for a run, rather than a mean of per-second p99s
// (a 1 s window's p99 rests on its top 1%, a few dozen requests). Pooling
// does not beat the sampling bound: where a window's p99 rests on sampling
// alone, the quantile of n windows pooled spreads as the mean of their n
// quantiles does. It is steadier where a stall (a collection, a
// neighbour's burst) delays a few percent of most windows' requests: the
// pool's p99 sits in the stalls every time, where each window's p99 swings
// with its own. Where stalls hit some windows only, the pooled p99 jumps
// with their count and the interval says so (tests: pooled_test.go).
//
// Its interval: the pooled quantile has no standard-error formula, so the
// pairs are resampled with replacement (seeded: the same windows give the
// same verdict; bootstrapN resamples), each resample pooling the same
// pairs' windows on both sides, so that what hit a pair (a neighbour's
// burst, the host's drift) stays in both sides of the ratio as the paired
// t keeps it. Resampling whole pairs rather than requests keeps the
// windows' own clustering of slow requests, the noise that matters. The
// interval is a t with n-1 degrees of freedom around the observed log
// ratio, its standard error the resamples' spread scaled by sqrt(n/(n-1))
// (the plug-in bootstrap's spread is that much too small): at 8-16 pairs a
// percentile interval covers too little (the reason ComparePaired uses a
// t) and the gate's 99% would rest on the resamples' few outermost
// values; as a t it is the paired t's analogue, Interval gives it at any
// confidence and RunsNeeded scales its per-pair spread SELog*sqrt(n) to
// the pairs needed. NBefore and NAfter are the pairs used. Pairs with an
// empty side are dropped whole; ok is false with fewer than 2 left.
func ComparePooledQuantile(before, after []Dist, q float64) (e Estimate, ok bool) {
	var b, a []Dist
	for i := range min(len(before), len(after)) {
		if before[i].Total() > 0 && after[i].Total() > 0 {
			b, a = append(b, before[i]), append(a, after[i])
		}
	}
	n := len(b)
	if n < 2 {
		return e, false
	}
	pb, pa := newPool(b), newPool(a)
	w := make([]int64, n)
	for i := range w {
		w[i] = 1
	}
	qb, qa := pb.quantile(w, q), pa.quantile(w, q)
	e = Estimate{Before: qb, After: qa, NBefore: n, NAfter: n, UTestP: math.NaN(), Method: MethodPooledBootstrap, DF: float64(n - 1)}
	if qb <= 0 || qa <= 0 {
		return e, false
	}
	centre := math.Log(qa / qb)
	r := rand.New(rand.NewPCG(Seed, Seed))
	lr := make([]float64, bootstrapN)
	for k := range lr {
		clear(w)
		for range n {
			w[r.IntN(n)]++
		}
		lr[k] = math.Log(pa.quantile(w, q) / pb.quantile(w, q))
	}
	se := stat.StdDev(lr, nil) * math.Sqrt(float64(n)/float64(n-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}.Quantile(1 - (1-Confidence)/2)
	e.LogCentre, e.SELog, e.ChangePct = centre, se, pct(centre)
	e.LoPct, e.HiPct = pct(centre-t*se), pct(centre+t*se)
	return e, true
}

// pool is one side's windows on a common grid of values, each window's
// counts kept as "samples at or above grid[g]", so that a weighted pooled
// quantile is a binary search over the grid.
type pool struct {
	grid      []float64
	atOrAbove [][]int64 // [window][grid index]
}

func newPool(ds []Dist) *pool {
	var grid []float64
	for _, d := range ds {
		grid = append(grid, d.Values...)
	}
	slices.Sort(grid)
	grid = slices.Compact(grid)
	p := &pool{grid: grid}
	for _, d := range ds {
		c := make([]int64, len(grid)+1)
		for i, v := range d.Values {
			j, _ := slices.BinarySearch(grid, v)
			c[j] += d.Counts[i]
		}
		for g := len(grid) - 1; g >= 0; g-- {
			c[g] += c[g+1]
		}
		p.atOrAbove = append(p.atOrAbove, c)
	}
	return p
}

// quantile of the windows pooled with weights w (how often each was
// drawn): the largest grid value with at least N-rank+1 samples at or
// above it.
func (p *pool) quantile(w []int64, q float64) float64 {
	sum := func(g int) int64 {
		var n int64
		for i, c := range p.atOrAbove {
			n += w[i] * c[g]
		}
		return n
	}
	n := sum(0)
	if n == 0 {
		return 0
	}
	above := n - quantileRank(q, n) + 1
	// sum is non-increasing in g: find the first g where it falls below.
	g := sort.Search(len(p.grid), func(g int) bool { return sum(g) < above })
	return p.grid[max(g-1, 0)]
}
