package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// ChangePoint is where a series' level changed: Index is the first point of
// the new segment.
type ChangePoint struct {
	Index int `json:"index"`
	// Before and After are the means of the segments either side.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// P is the permutation p-value of the split.
	P float64 `json:"p"`
}

// ChangePct is the change of level in percent (NaN when Before is 0).
func (c ChangePoint) ChangePct() float64 {
	if c.Before == 0 {
		return math.NaN()
	}
	return 100 * (c.After/c.Before - 1)
}

// MinSegment is the fewest points a segment may have: a single outlier
// must not become a change point (Otava's lesson).
const MinSegment = 3

// ChangePoints finds the level changes of x by E-divisive means (Matteson &
// James 2014, alpha = 1): binary segmentation at the split maximising the
// energy-distance statistic, each split kept only when a permutation test
// gives p < pMax: the segment shuffled Permutations times (seeded, so the
// same history gives the same points), p = (1 + shuffles whose best split
// scores at least as high) / (1 + Permutations). A t-test between the two
// sides (Hunter's shortcut) ignores that the split was chosen as the best
// of many: on pure noise it found 15 points in 100 series at p < 0.01.
// Returned in order of Index.
func ChangePoints(x []float64, pMax float64) []ChangePoint {
	var out []ChangePoint
	r := rand.New(rand.NewPCG(Seed, Seed))
	var split func(lo, hi int)
	split = func(lo, hi int) {
		if hi-lo < 2*MinSegment {
			return
		}
		tau, q := bestSplit(x[lo:hi])
		if tau < 0 {
			return
		}
		seg := slices.Clone(x[lo:hi])
		hits := 0
		for range Permutations {
			r.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			if _, qp := bestSplit(seg); qp >= q {
				hits++
			}
		}
		tau += lo
		p := float64(1+hits) / float64(1+Permutations)
		if p >= pMax {
			return
		}
		out = append(out, ChangePoint{Index: tau, Before: stat.Mean(x[lo:tau], nil), After: stat.Mean(x[tau:hi], nil), P: p})
		split(lo, tau)
		split(tau, hi)
	}
	split(0, len(x))
	slices.SortFunc(out, func(a, b ChangePoint) int { return a.Index - b.Index })
	// Segment means are those of the final segmentation, not of the
	// recursion step that found each point.
	for i := range out {
		lo, hi := 0, len(x)
		if i > 0 {
			lo = out[i-1].Index
		}
		if i+1 < len(out) {
			hi = out[i+1].Index
		}
		out[i].Before, out[i].After = stat.Mean(x[lo:out[i].Index], nil), stat.Mean(x[out[i].Index:hi], nil)
	}
	return out
}

// bestSplit returns the tau in [MinSegment, n-MinSegment] maximising
// Q = (m*k/n) * (2/(m*k) Σ|xi-yj| - 1/C(m,2) Σ|xi-xi'| - 1/C(k,2) Σ|yj-yj'|),
// m = tau, k = n-tau: the energy distance between the two sides, scaled by
// their sizes. A 2-D prefix sum of |xi-xj| makes every block sum O(1).
// It returns -1 when no split scores above 0.
func bestSplit(x []float64) (int, float64) {
	n := len(x)
	// P[i][j] = Σ_{a<i, b<j} |x_a - x_b|
	P := make([][]float64, n+1)
	for i := range P {
		P[i] = make([]float64, n+1)
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			P[i][j] = math.Abs(x[i-1]-x[j-1]) + P[i-1][j] + P[i][j-1] - P[i-1][j-1]
		}
	}
	block := func(a, b, c, d int) float64 { return P[b][d] - P[a][d] - P[b][c] + P[a][c] }
	best, bestQ := -1, 0.0
	for tau := MinSegment; tau <= n-MinSegment; tau++ {
		m, k := float64(tau), float64(n-tau)
		between := block(0, tau, tau, n)
		within1 := block(0, tau, 0, tau) / 2 // each pair counted twice
		within2 := block(tau, n, tau, n) / 2
		e := 2*between/(m*k) - within1/(m*(m-1)/2) - within2/(k*(k-1)/2)
		q := m * k / float64(n) * e
		if q > bestQ {
			best, bestQ = tau, q
		}
	}
	return best, bestQ
}

// Permutations of each significance test.
const Permutations = 199
