// Package stats holds the statistics behind tuneloop's before/after verdicts
// and its history: steady-state detection over a run's per-second series,
// the change between two sets of runs with a 95% confidence interval, the
// number of runs needed to detect a given change, and E-divisive change
// points over a metric's history. It is pure: numbers in, numbers out.
//
// Why these methods (README "Trusting a before/after"):
//   - The unit of replication is the run. Seconds within a run are
//     autocorrelated and share one JIT state, heap layout and neighbour, so
//     per-second samples alone make intervals far too narrow. With two or
//     more runs on each side the interval is Welch's t on the logarithms of
//     the per-run steady-state means (a ratio, so +10% and -10% are
//     symmetric in log space); t, not a bootstrap, because with 3-5 runs a
//     bootstrap over runs has only a handful of distinct resamples and its
//     interval is too narrow by about (n-1)/n in variance.
//   - When the runs were interleaved (A B A B ...: each after-run taken
//     next to a before-run), ComparePaired judges the per-pair log ratios
//     with a paired t interval instead: drift of the host between pairs
//     (a neighbour's build starting) cancels inside each pair.
//   - With one run on a side there is no run-to-run spread to measure: the
//     interval comes from a moving-block bootstrap over that run's
//     steady-state seconds (blocks keep the autocorrelation), is marked
//     within-run only, and never yields "no significant change".
//   - The Mann-Whitney U test (golang.org/x/perf/benchmath, as benchstat:
//     exact up to 50 a side, 25 with ties) is computed beside it for two
//     or more runs per side. When each run is its own JVM launch (two
//     unpaired sets: CompareLaunches, MethodLaunches) it is a second judge:
//     launches of one build can fall into modes far apart (issue 26:
//     46-48k or 56-60k TPS), which a t on 3-5 launch means takes for a
//     small normal spread; the exact U-test stays valid whatever their
//     shape, so a verdict needs both (LaunchAgreement), and where the
//     rank test cannot reach the level at all (3 a side: p >= 0.1) the
//     answer is the launches to add (LaunchesNeeded). Groups splits launch
//     means into such modes by their gaps.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// SteadyStart returns the index of the first steady-state second of a run:
// the seconds before it are warm-up (the JIT compiling, pools filling) and
// are left out. The reference is the second half of the run, assumed
// settled: its median m and a band of max(3 robust SDs, 5% of m). The
// warm-up is the longest prefix, within the first half, that ends with a
// second still outside the band: throughput below it (still climbing) or
// p99 above it (still slow). tps and p99 are per second; p99 may be nil.
// Series shorter than 6 seconds are taken whole.
func SteadyStart(tps, p99 []float64) int {
	n := len(tps)
	if n < 6 {
		return 0
	}
	half := n / 2
	w := 0
	lo, _ := band(tps[half:])
	for i := range half {
		if tps[i] < lo {
			w = i + 1
		}
	}
	if len(p99) == n {
		_, hi := band(p99[half:])
		for i := range half {
			if p99[i] > hi {
				w = max(w, i+1)
			}
		}
	}
	return w
}

// RiseMin is the climb of throughput across a run's steady seconds past
// which the run is taken as still warming up (StillRising).
const RiseMin = 0.10

// riseSure: a climb across the thirds this large is a warm-up whatever the
// seconds' noise (a level run's thirds do not differ by half). The slope's
// test alone misses the S-shaped climb of a JIT (flat, steep, flat again):
// its residuals about one line look autocorrelated, inflating the error.
const riseSure = 0.5

// StillRising says whether throughput still climbed across a run's
// steady-state seconds (those SteadyStart kept): the means of their first,
// middle and last thirds rise in turn, the last at least RiseMin above the
// first, and the least-squares slope over the seconds is above 0 beyond
// the one-sided 99.9% t quantile of its standard error (or the climb is
// riseSure or more). SteadyStart cuts
// only within the first half and measures against the second, so a run
// that climbed from its start to its end (the JIT still compiling the hot
// path when the load stopped) keeps most of its climb, and its mean says
// how far the warm-up got, not what the build does. rise is last third /
// first third - 1; fewer than 6 seconds are not judged.
func StillRising(tps []float64) (rise float64, rising bool) {
	n := len(tps)
	if n < 6 {
		return 0, false
	}
	k := n / 3
	m0, m1, m2 := meanOf(tps[:k]), meanOf(tps[k:n-k]), meanOf(tps[n-k:])
	if !(m0 > 0) {
		return 0, false
	}
	rise = m2/m0 - 1
	if !(m0 < m1 && m1 < m2 && rise >= RiseMin) {
		return rise, false
	}
	// The slope and its residuals.
	xm, ym := float64(n-1)/2, meanOf(tps)
	sxx, sxy := 0.0, 0.0
	for i, y := range tps {
		sxx += (float64(i) - xm) * (float64(i) - xm)
		sxy += (float64(i) - xm) * (y - ym)
	}
	slope := sxy / sxx
	ss, lag, prev := 0.0, 0.0, 0.0
	for i, y := range tps {
		e := y - ym - slope*(float64(i)-xm)
		ss += e * e
		if i > 0 {
			lag += e * prev
		}
		prev = e
	}
	if !(ss > 0) || rise >= riseSure {
		return rise, true // a straight climb, or one no level run's noise makes
	}
	// A second leans on the one before (a queue, a GC cycle, the JIT, the
	// neighbours span seconds): the slope's standard error is inflated by
	// sqrt((1+r)/(1-r)), r the residuals' lag-1 autocorrelation, which a
	// short run's few seconds bias low: at least 0.5, at most 0.95.
	r := min(max(lag/ss, 0.5), 0.95)
	se := math.Sqrt(ss/float64(n-2)/sxx) * math.Sqrt((1+r)/(1-r))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.999)
	return rise, slope > q*se
}

func meanOf(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

// band is median -/+ max(3 robust SDs, 5% of the median) of v.
func band(v []float64) (lo, hi float64) {
	m := Median(v)
	dev := make([]float64, len(v))
	for i, x := range v {
		dev[i] = math.Abs(x - m)
	}
	b := max(3*1.4826*Median(dev), 0.05*math.Abs(m))
	return m - b, m + b
}

// Median of v (NaN when empty); v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
