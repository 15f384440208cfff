package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence of every interval.
const Confidence = 0.95

// Power the "run K more" advice aims for.
const Power = 0.90

// Seed of every resampling: the same runs give the same verdict.
const Seed = 13

// bootstrapN resamples per interval: percentiles at 2.5% and 97.5% are
// stable to about a tenth of a percent at 4000.
const bootstrapN = 4000

// Methods of an Estimate's interval.
const (
	MethodWelch     = "welch-t-log-over-runs"
	MethodBootstrap = "block-bootstrap-over-seconds"
	MethodPaired    = "paired-t-log-over-pairs"
)

// Estimate is the change of one metric between two sets of runs.
type Estimate struct {
	// Before and After are the means over runs of each run's steady-state
	// mean: geometric with 2 or more runs a side, so that After/Before-1 is
	// ChangePct, the centre of the log-scale interval (arithmetic means of
	// noisy runs can even move the other way than the pairs did).
	Before, After float64
	// ChangePct is After/Before-1 in percent; LoPct and HiPct bound it
	// with Confidence.
	ChangePct, LoPct, HiPct float64
	// SELog is the standard error of log(After/Before): what the power
	// advice scales. SetVar is the part of SELog² that more launches do
	// not shrink: what moves a set as a whole (Widen).
	SELog, SetVar float64
	// LogCentre is the interval's centre on the log scale and DF the
	// degrees of freedom of its t (0: normal), for Interval at another
	// confidence.
	LogCentre, DF float64
	Method        string
	// NBefore and NAfter count runs (with MethodPaired, both are the
	// number of pairs).
	NBefore, NAfter int
	// UTestP is the Mann-Whitney U p-value over per-run means (NaN with
	// fewer than 2 runs a side); UTestNote is benchmath's warning, if any.
	UTestP    float64
	UTestNote string
	// RankShiftPct is the Hodges-Lehmann shift of MethodLaunches: the
	// median of the pairwise after/before ratios of launch means, in
	// percent; its sign is the rank test's direction. With
	// MethodPairedLaunches: the median of the pairs' Walsh averages.
	RankShiftPct float64
	// RankP is the exact signed-rank p over the pairs' log ratios
	// (MethodPairedLaunches only).
	RankP float64
}

// Interval is the change's interval, in percent, at confidence conf: t
// with DF degrees of freedom around LogCentre (the normal when DF is 0: the
// bootstrap's, approximated from its resamples' spread).
func (e Estimate) Interval(conf float64) (lo, hi float64) {
	q := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
	if e.DF > 0 {
		q = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}.Quantile(1 - (1-conf)/2)
	}
	return pct(e.LogCentre - q*e.SELog), pct(e.LogCentre + q*e.SELog)
}

// Significant: the interval does not contain 0.
func (e Estimate) Significant() bool { return e.LoPct > 0 || e.HiPct < 0 }

// Compare estimates the change of a metric from the runs before to the runs
// after. Each inner slice is one run's steady-state per-second values (see
// SteadyStart); runs without values are skipped. ok is false when a side
// has no run or a mean is not positive (a ratio is undefined).
func Compare(before, after [][]float64) (e Estimate, ok bool) {
	b, a := nonEmpty(before), nonEmpty(after)
	if len(b) == 0 || len(a) == 0 {
		return e, false
	}
	mb, ma := runMeans(b), runMeans(a)
	e = Estimate{Before: stat.Mean(mb, nil), After: stat.Mean(ma, nil), NBefore: len(b), NAfter: len(a), UTestP: math.NaN()}
	if slices.Min(mb) <= 0 || slices.Min(ma) <= 0 {
		return e, false
	}
	e.ChangePct = 100 * (e.After/e.Before - 1)
	if len(b) >= 2 && len(a) >= 2 {
		welch(&e, mb, ma)
		e.Before, e.After, e.ChangePct = geoMean(mb), geoMean(ma), pct(e.LogCentre)
		th := benchmath.DefaultThresholds
		cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(mb, &th), benchmath.NewSample(ma, &th))
		e.UTestP = cmp.P
		if len(cmp.Warnings) > 0 {
			e.UTestNote = cmp.Warnings[0].Error()
		}
	} else if !bootstrap(&e, b, a) {
		return e, false
	}
	return e, true
}

func nonEmpty(runs [][]float64) [][]float64 {
	var out [][]float64
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, r)
		}
	}
	return out
}

func runMeans(runs [][]float64) []float64 {
	m := make([]float64, len(runs))
	for i, r := range runs {
		m[i] = stat.Mean(r, nil)
	}
	return m
}

// welch: Welch's t interval on the difference of the mean logarithms of
// the per-run means, mapped back to a ratio.
func welch(e *Estimate, before, after []float64) {
	lb, la := logs(before), logs(after)
	mb, vb := stat.MeanVariance(lb, nil)
	ma, va := stat.MeanVariance(la, nil)
	nb, na := float64(len(lb)), float64(len(la))
	qb, qa := vb/nb, va/na
	se := math.Sqrt(qb + qa)
	d := ma - mb
	e.Method, e.SELog, e.LogCentre = MethodWelch, se, d
	if se == 0 {
		e.LoPct, e.HiPct = pct(d), pct(d)
		return
	}
	df := (qb + qa) * (qb + qa) / (qb*qb/(nb-1) + qa*qa/(na-1))
	e.DF = df
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-Confidence)/2)
	e.LoPct, e.HiPct = pct(d-t*se), pct(d+t*se)
}

func geoMean(v []float64) float64 { return math.Exp(stat.Mean(logs(v), nil)) }

func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

func pct(logRatio float64) float64 { return 100 * math.Expm1(logRatio) }

// bootstrap: a side with one run has no run-to-run spread; resample runs
// where there are several, and within each run its seconds in moving
// blocks of about cbrt(n) seconds (Künsch; the usual rate for the mean),
// so that autocorrelated neighbours stay together. Percentile interval of
// the ratio of means. Seconds that are mostly 0 (a latency JMeter rounds
// to 0 ms) can give resamples whose mean is 0: their ratio is undefined,
// and when more than a tenth are, so is the interval (false).
func bootstrap(e *Estimate, before, after [][]float64) bool {
	r := rand.New(rand.NewPCG(Seed, Seed))
	lr := make([]float64, 0, bootstrapN)
	for range bootstrapN {
		v := math.Log(resampleMean(r, after) / resampleMean(r, before))
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lr = append(lr, v)
		}
	}
	if len(lr) < bootstrapN*9/10 {
		return false
	}
	slices.Sort(lr)
	e.Method = MethodBootstrap
	e.SELog, e.LogCentre = stat.StdDev(lr, nil), stat.Mean(lr, nil)
	e.LoPct = pct(stat.Quantile((1-Confidence)/2, stat.Empirical, lr, nil))
	e.HiPct = pct(stat.Quantile(1-(1-Confidence)/2, stat.Empirical, lr, nil))
	return true
}

func resampleMean(r *rand.Rand, runs [][]float64) float64 {
	var sum float64
	for range runs {
		run := runs[0]
		if len(runs) > 1 {
			run = runs[r.IntN(len(runs))]
		}
		sum += blockMean(r, run)
	}
	return sum / float64(len(runs))
}

// blockMean is the mean of one moving-block resample of x.
func blockMean(r *rand.Rand, x []float64) float64 {
	n := len(x)
	l := max(1, int(math.Round(math.Cbrt(float64(n)))))
	var sum float64
	got := 0
	for got < n {
		start := r.IntN(n - l + 1)
		for j := start; j < start+l && got < n; j++ {
			sum += x[j]
			got++
		}
	}
	return sum / float64(n)
}

// RunsNeeded is how many runs per side (pairs, for a paired estimate)
// would detect a change of pct percent with Power at Confidence, given e's
// standard error. The spread of one run (or pair) is SELog*sqrt(n); the
// answer is the smallest m with (t(df(m)) + z_Power) * spread/sqrt(m) <=
// |log(1+pct)|, t's quantile rather than the normal's because at 3-5 runs
// it is twice as wide (df: m-1 for pairs, 2m-2 for two sets). Never fewer
// than MinRuns; MaxRuns at most.
func RunsNeeded(e Estimate, pct float64) int { return runsNeededAt(e, pct, Confidence) }

// runsNeededAt is RunsNeeded for an interval at confidence conf.
func runsNeededAt(e Estimate, pct, conf float64) int {
	n := float64(min(e.NBefore, e.NAfter))
	delta := math.Log1p(pct / 100)
	if delta <= 0 || n == 0 {
		return MinRuns
	}
	if math.IsNaN(e.SELog) {
		return MaxRuns
	}
	// The launches' part of the variance shrinks with m, a set's part
	// (SetVar) does not: when that alone is wider than delta allows, no
	// number of launches reaches it.
	spread := math.Sqrt(max(0, e.SELog*e.SELog-e.SetVar) * n)
	zb := distuv.UnitNormal.Quantile(Power)
	enough := func(m int) bool {
		df := float64(2*m - 2)
		if e.Method == MethodPaired || e.Method == MethodPairedLaunches || e.Method == MethodPooledBootstrap {
			df = float64(m - 1)
		}
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-conf)/2)
		return (t+zb)*math.Sqrt(spread*spread/float64(m)+e.SetVar) <= delta
	}
	// (t + z) / sqrt(m) falls as m grows, and t is never below the
	// normal's z: the normal's m is a lower bound, and the t's answer a
	// few steps above it (each t quantile costs an inverse incomplete
	// beta, so the search starts there).
	za := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
	room := delta*delta - (za+zb)*(za+zb)*e.SetVar
	if room <= 0 {
		return MaxRuns
	}
	m0 := (za + zb) * (za + zb) * spread * spread / room
	if m0 >= MaxRuns {
		return MaxRuns
	}
	m := max(MinRuns, int(math.Ceil(m0)))
	for m < MaxRuns && !enough(m) {
		m++
	}
	return m
}

// MaxRuns caps the runs advised: needing more means this host's noise hides
// a change of that size, and Judge says "MaxRuns+" rather than a number
// that looks exact.
const MaxRuns = 1000

// MoreRuns writes Judge's runs to add: "1000+" at the cap.
func MoreRuns(more int) string {
	if more >= MaxRuns {
		return fmt.Sprintf("%d+", MaxRuns)
	}
	return fmt.Sprint(more)
}

// MinRuns per side before "no significant change" is said: fewer leave the
// run-to-run spread unmeasured (one run) or its estimate on one degree of
// freedom (two).
const MinRuns = 3

// Verdicts.
const (
	Better       = "better"
	Worse        = "worse"
	NoChange     = "no significant change"
	Inconclusive = "inconclusive"
)

// Judge is Decide at Confidence: the verdict and the runs per side to add.
func Judge(e Estimate, higher int, pct float64) (verdict string, more int) {
	d := Decide(e, higher, pct, Confidence)
	return d.Verdict, d.More
}

// Decision is Decide's answer.
type Decision struct {
	// Verdict: Better, Worse, NoChange or Inconclusive.
	Verdict string
	// More is the runs (launches, pairs) per side to add when Inconclusive.
	More int
	// Agreement: over launches, why an interval that excludes 0 (or a
	// significant rank test) is not a verdict; Agree otherwise.
	Agreement Agreement
}

// Decide is the one place a change is called significant or not, for the
// compare table (conf = Confidence), the regression gate (its 99%), an
// A/B run and an experiment: better or worse when the interval at conf
// excludes 0 (higher says which way is better: +1 or -1) and, for an
// estimate over launches (unpaired sets or interleaved pairs of launches),
// the exact U-test over the same launches agrees at 1-conf; else "no
// significant change" when enough runs were made to detect a change of pct
// percent with Power; else inconclusive, with the runs per side to add
// (over launches: LaunchesNeeded, and as many again when the two tests
// disagree with enough for power).
func Decide(e Estimate, higher int, pct, conf float64) Decision {
	if e.OverLaunches() {
		return judgeLaunches(e, higher, pct, conf)
	}
	lo, hi := e.LoPct, e.HiPct
	if conf != Confidence {
		lo, hi = e.Interval(conf)
	}
	if lo > 0 || hi < 0 {
		if (e.ChangePct > 0) == (higher > 0) {
			return Decision{Verdict: Better}
		}
		return Decision{Verdict: Worse}
	}
	need := runsNeededAt(e, pct, conf)
	have := min(e.NBefore, e.NAfter)
	if (e.Method == MethodWelch || e.Method == MethodPaired || e.Method == MethodPooledBootstrap) && have >= need {
		return Decision{Verdict: NoChange}
	}
	if need >= MaxRuns {
		return Decision{Verdict: Inconclusive, More: MaxRuns}
	}
	return Decision{Verdict: Inconclusive, More: max(1, need-have)}
}

// ComparePaired estimates the change from interleaved runs: before[i] and
// after[i] are one pair, taken back to back (A B A B ... or A B B A ...), so
// a neighbour's load or a drifting host hits both alike. The interval is a
// paired t on d_i = log(after_i/before_i) of the per-run steady-state
// means: what drifts between pairs cancels inside each d_i and only the
// spread of the d_i is left, far narrower than Welch's between-set spread
// when the host drifts. t rather than a bootstrap over pairs for the reason
// given for Welch (with 3-5 pairs a bootstrap has a handful of distinct
// resamples and covers too little); the log makes a ratio symmetric, so the
// point estimate is the geometric mean ratio, centred in its interval.
// Pairs with a side without values are dropped whole; with fewer than 2
// pairs left it falls back to Compare.
func ComparePaired(before, after [][]float64) (e Estimate, ok bool) {
	var b, a [][]float64
	for i := range min(len(before), len(after)) {
		if len(before[i]) > 0 && len(after[i]) > 0 {
			b, a = append(b, before[i]), append(a, after[i])
		}
	}
	if len(b) < 2 {
		return Compare(before, after)
	}
	mb, ma := runMeans(b), runMeans(a)
	n := len(b)
	e = Estimate{Before: geoMean(mb), After: geoMean(ma), NBefore: n, NAfter: n, UTestP: math.NaN(), Method: MethodPaired}
	if slices.Min(mb) <= 0 || slices.Min(ma) <= 0 {
		return e, false
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = math.Log(ma[i] / mb[i])
	}
	m, sd := stat.MeanStdDev(d, nil)
	se := sd / math.Sqrt(float64(n))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-Confidence)/2)
	e.ChangePct, e.SELog, e.LogCentre, e.DF = pct(m), se, m, float64(n-1)
	e.LoPct, e.HiPct = pct(m-t*se), pct(m+t*se)
	th := benchmath.DefaultThresholds
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(mb, &th), benchmath.NewSample(ma, &th))
	e.UTestP = cmp.P
	if len(cmp.Warnings) > 0 {
		e.UTestNote = cmp.Warnings[0].Error()
	}
	return e, true
}
