package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MedianCI is a distribution-free interval for the median of the
// population v was drawn from: the order statistics x(k) and x(n-k+1)
// with the largest k whose binomial coverage is still at least conf (the
// sign-test interval; no normality assumed, so it holds for the skewed
// timings of a probe). achieved is that coverage; with too few values to
// reach conf even at k=1 (n=5 gives 93.8%) the interval is the range and
// ok is false. NaNs are dropped.
func MedianCI(v []float64, conf float64) (med, lo, hi, achieved float64, ok bool) {
	s := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	n := len(s)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0, false
	}
	slices.Sort(s)
	med = Median(s)
	if n == 1 {
		return med, s[0], s[0], 0, false
	}
	b := distuv.Binomial{N: float64(n), P: 0.5}
	k := 1
	achieved = 1 - 2*b.CDF(0)
	for j := 2; j <= n/2; j++ {
		c := 1 - 2*b.CDF(float64(j-1))
		if c < conf {
			break
		}
		k, achieved = j, c
	}
	return med, s[k-1], s[n-k], achieved, achieved >= conf
}
