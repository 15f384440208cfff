package stats

import (
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
)

// Estimate is the change of one metric between two sets of runs.
type Estimate struct {
	// Before and After are the means over runs of each run's steady-state mean.
	Before, After float64
	// ChangePct is After/Before-1 in percent; LoPct and HiPct bound it
	// with Confidence.
	ChangePct, LoPct, HiPct float64
	// SELog is the standard error of log(After/Before): what the power
	// advice scales.
	SELog  float64
	Method string
	// NBefore and NAfter count runs.
	NBefore, NAfter int
	// UTestP is the Mann-Whitney U p-value over per-run means (NaN with
	// fewer than 2 runs a side); UTestNote is benchmath's warning, if any.
	UTestP    float64
	UTestNote string
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
		th := benchmath.DefaultThresholds
		cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(mb, &th), benchmath.NewSample(ma, &th))
		e.UTestP = cmp.P
		if len(cmp.Warnings) > 0 {
			e.UTestNote = cmp.Warnings[0].Error()
		}
	} else {
		bootstrap(&e, b, a)
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
	e.Method, e.SELog = MethodWelch, se
	if se == 0 {
		e.LoPct, e.HiPct = pct(d), pct(d)
		return
	}
	df := (qb + qa) * (qb + qa) / (qb*qb/(nb-1) + qa*qa/(na-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-Confidence)/2)
	e.LoPct, e.HiPct = pct(d-t*se), pct(d+t*se)
}

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
// the ratio of means.
func bootstrap(e *Estimate, before, after [][]float64) {
	r := rand.New(rand.NewPCG(Seed, Seed))
	lr := make([]float64, bootstrapN)
	for i := range lr {
		lr[i] = math.Log(resampleMean(r, after) / resampleMean(r, before))
	}
	slices.Sort(lr)
	e.Method = MethodBootstrap
	e.SELog = stat.StdDev(lr, nil)
	e.LoPct = pct(stat.Quantile((1-Confidence)/2, stat.Empirical, lr, nil))
	e.HiPct = pct(stat.Quantile(1-(1-Confidence)/2, stat.Empirical, lr, nil))
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

// RunsNeeded is how many runs per side would detect a change of pct percent
// with Power at Confidence, given e's standard error: the standard error of
// a mean shrinks as 1/sqrt(runs), so runs = n * ((z_a + z_b) * se / delta)^2
// (normal approximation; never fewer than MinRuns).
func RunsNeeded(e Estimate, pct float64) int {
	n := float64(min(e.NBefore, e.NAfter))
	delta := math.Log1p(pct / 100)
	if delta <= 0 || n == 0 {
		return MinRuns
	}
	std := distuv.UnitNormal
	z := std.Quantile(1-(1-Confidence)/2) + std.Quantile(Power)
	m := n * math.Pow(z*e.SELog/delta, 2)
	if math.IsNaN(m) || m > 1000 {
		m = 1000
	}
	return max(MinRuns, int(math.Ceil(m)))
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

// Judge turns an estimate into a verdict: better or worse when the interval
// excludes 0 (higher says which way is better: +1 or -1); else "no
// significant change" when enough runs were made to detect a change of pct
// percent with Power; else inconclusive, with more = the runs per side to
// add.
func Judge(e Estimate, higher int, pct float64) (verdict string, more int) {
	if e.Significant() {
		if (e.ChangePct > 0) == (higher > 0) {
			return Better, 0
		}
		return Worse, 0
	}
	need := RunsNeeded(e, pct)
	have := min(e.NBefore, e.NAfter)
	if e.Method == MethodWelch && have >= need {
		return NoChange, 0
	}
	return Inconclusive, max(1, need-have)
}
