package experiment

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// Arm is one combination of the knobs' values; arm 0 is the baseline.
type Arm struct {
	Index  int
	ID     string // "base", "arm1", ...
	Values []string
	// Label names the values that differ from the baseline ("baseline"
	// for it), e.g. "heap=-Xmx256m, gc=-XX:+UseParallelGC".
	Label string
}

// Arms is every combination of the knobs' values (the baseline value of a
// knob counts as one of its values), the baseline first, then in the
// order the values are listed (the last knob varying fastest).
func Arms(knobs []Knob) []Arm {
	sets := make([][]string, len(knobs))
	base := make([]string, len(knobs))
	for i, k := range knobs {
		base[i] = k.Baseline
		sets[i] = append([]string(nil), k.Values...)
		if !contains(sets[i], k.Baseline) {
			sets[i] = append([]string{k.Baseline}, sets[i]...)
		}
	}
	arms := []Arm{{Index: 0, ID: "base", Values: base, Label: "baseline"}}
	idx := make([]int, len(knobs))
	for {
		vals := make([]string, len(knobs))
		var diff []string
		for i := range knobs {
			vals[i] = sets[i][idx[i]]
			if vals[i] != base[i] {
				v := vals[i]
				if v == "" {
					v = "(unset)"
				}
				diff = append(diff, knobs[i].Name+"="+v)
			}
		}
		if len(diff) > 0 {
			n := len(arms)
			arms = append(arms, Arm{Index: n, ID: fmt.Sprintf("arm%d", n), Values: vals, Label: strings.Join(diff, ", ")})
		}
		// next combination, the last knob fastest
		i := len(knobs) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(sets[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return arms
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Block is one interleaved block: every arm once, in a fresh order drawn
// from the seed and the block's name, so the same plan and seed give the
// same order (a resumed experiment runs what the first one would have).
func Block(seed uint64, name string, arms []int) []int {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	out := append([]int(nil), arms...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Measurement is one trial's result: the steady state of its load.
type Measurement struct {
	TPS      []float64 `json:"tps"`    // per second, steady state
	P99MS    []float64 `json:"p99_ms"` // per second with answers, steady state
	Requests int64     `json:"requests"`
	Errors   int64     `json:"errors"`
	WarmUpS  int       `json:"warm_up_s"` // seconds cut as the load's own warm-up
	Dir      string    `json:"dir,omitempty"`
}

// ArmData is what the trials of one arm measured so far.
type ArmData struct {
	Arm    int
	Trials []Measurement
	// Failed says why the arm was refused (a knob that did not take effect,
	// a service that would not start); its trials stop then.
	Failed *finding.Text
}

func (d *ArmData) runs(metric string) [][]float64 {
	out := make([][]float64, 0, len(d.Trials))
	for _, m := range d.Trials {
		if metric == MetricP99 {
			out = append(out, m.P99MS)
		} else {
			out = append(out, m.TPS)
		}
	}
	return out
}

// Mean is the mean over trials of each trial's steady-state mean (NaN
// without a trial).
func (d *ArmData) Mean(metric string) float64 {
	var ms []float64
	for _, r := range d.runs(metric) {
		if len(r) > 0 {
			ms = append(ms, stat.Mean(r, nil))
		}
	}
	if len(ms) == 0 {
		return math.NaN()
	}
	return stat.Mean(ms, nil)
}

// ErrorPct is the share of requests that failed over every trial.
func (d *ArmData) ErrorPct() float64 {
	var n, e int64
	for _, m := range d.Trials {
		n, e = n+m.Requests, e+m.Errors
	}
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(e) / float64(n)
}

// Violation says which constraint the arm breaks, or nil.
func (d *ArmData) Violation(c Constraints) *finding.Text {
	if d.Failed != nil {
		return d.Failed
	}
	p99, errs := d.Mean(MetricP99), d.ErrorPct()
	switch {
	case len(d.Trials) == 0:
		t := finding.T("not measured", "未测量")
		return &t
	case math.IsNaN(d.Mean(MetricTPS)) || d.Mean(MetricTPS) <= 0:
		t := finding.T("no request answered", "没有请求得到应答")
		return &t
	case c.P99MS > 0 && !(p99 <= c.P99MS):
		t := finding.Tf(finding.T("p99 %.1f ms over the bound %g ms", "p99 %.1f ms 超过上限 %g ms"), p99, c.P99MS)
		return &t
	case c.ErrorPct > 0 && errs > c.ErrorPct:
		t := finding.Tf(finding.T("errors %.2f%% over the bound %g%%", "错误率 %.2f%% 超过上限 %g%%"), errs, c.ErrorPct)
		return &t
	}
	return nil
}

// Drop is an arm left out of the next round, and why.
type Drop struct {
	Arm    int          `json:"arm"`
	Reason finding.Text `json:"reason"`
}

// Rank orders the arms best first: those meeting the constraints by the
// objective's mean, then those that do not.
func Rank(data []*ArmData, metric string, dir int, c Constraints) []*ArmData {
	out := append([]*ArmData(nil), data...)
	score := func(d *ArmData) float64 {
		if d.Violation(c) != nil {
			return math.Inf(-1)
		}
		return float64(dir) * d.Mean(metric)
	}
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) > score(out[j]) })
	return out
}

// haltPct sizes nothing Halve uses (Decide's "run K more"): only its
// better/worse verdict counts there.
const haltPct = 5.0

// Halve decides one round of successive halving over the candidates (the
// baseline is not among them: it is measured in every round as the
// reference). An arm is dropped when it breaks a constraint or the one
// decision over launches (stats.Decide: the interval and the exact U-test
// over the trials agreeing) calls it worse than the leader; then, if more than
// half remain, the worse by the mean go too until half remain (rounded
// up), so every round at least halves the field.
func Halve(cands []*ArmData, metric string, dir int, c Constraints) (keep []int, drops []Drop) {
	ranked := Rank(cands, metric, dir, c)
	if len(ranked) == 0 {
		return nil, nil
	}
	leader := ranked[0]
	want := (len(ranked) + 1) / 2
	var kept []*ArmData
	for i, d := range ranked {
		if i == 0 {
			kept = append(kept, d)
			continue
		}
		if v := d.Violation(c); v != nil {
			drops = append(drops, Drop{Arm: d.Arm, Reason: *v})
			continue
		}
		// The trials are launches: the one decision over launches says
		// worse only when the t interval and the exact U-test agree.
		if e, ok := stats.CompareLaunches(leader.runs(metric), d.runs(metric)); ok && stats.Decide(e, dir, haltPct, stats.Confidence).Verdict == stats.Worse {
			drops = append(drops, Drop{Arm: d.Arm, Reason: finding.Tf(finding.T("significantly worse than the leader: %+.1f%% [%+.1f%%, %+.1f%%]",
				"显著差于领先者：%+.1f%% [%+.1f%%, %+.1f%%]"), e.ChangePct, e.LoPct, e.HiPct)})
			continue
		}
		kept = append(kept, d)
	}
	for len(kept) > want {
		d := kept[len(kept)-1]
		kept = kept[:len(kept)-1]
		drops = append(drops, Drop{Arm: d.Arm, Reason: finding.T("in the lower half by the mean (not significantly worse than the leader yet)",
			"均值处于下半部分（尚未显著差于领先者）")})
	}
	for _, d := range kept {
		keep = append(keep, d.Arm)
	}
	return keep, drops
}
