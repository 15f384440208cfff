package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// Two sets of launches taken one after the other differ by more than their
// launches do: whatever else the host was doing shifts a whole set (the
// sets bench's one A/A false alarm in 52 was such a shift on p99, docs/
// bench/gate-sets). The spread of that shift cannot be told from a change
// with only the two sets compared; earlier sets of the same service on the
// same host can measure it. Consecutive earlier sets, compared as the gate
// compares, differ in log mean by d with E[d²] = 2σ²_set + σ²(1/n1+1/n2):
// d² less its launches' part, averaged over the pairs, is the variance the
// set-to-set shift adds to the compared difference, and the interval
// widens by it (a change between earlier builds inflates it: wider, never
// narrower).

// History is earlier sets of launches of the compared service on the same
// host, each set its runs (a `run --repeat` folder), in any order.
type History struct {
	Sets [][]Input
	// Source names where they came from (a catalog's path).
	Source string
}

// minHistoryPairs: fewer consecutive pairs of earlier sets than this say
// too little of the set-to-set spread to widen by it.
const minHistoryPairs = 2

// SetSpread is what the earlier sets measured for one metric.
type SetSpread struct {
	// Pairs of consecutive earlier sets it rests on, and the sets.
	Pairs int `json:"pairs"`
	Sets  int `json:"sets"`
	// Pct is the shift's standard deviation between two sets, in % of the
	// level (0: no more than their launches' spread explains).
	Pct float64 `json:"sd_pct"`
	// Used: the interval was widened by it (and by how uncertain it is).
	Used bool `json:"used"`
	// Blocks: the shift alone is wider than the gate's change can be seen
	// through at 99% with 90% power, however many launches a set has.
	Blocks bool `json:"blocks,omitempty"`
}

// setSpread is the extra variance of a difference of two sets' log means
// for metric key from h's consecutive sets (v, over pairs); ok false with
// fewer than minHistoryPairs pairs. noise is v's v²/df term for the t
// (Estimate.Widen): v is what is left of the mean d² once the launches'
// part w is taken out, so it is as noisy as v+w, whose m consecutive
// differences, sharing a set each (neighbours correlate by -1/2), are
// worth 2m²/(3m-1) independent ones: noise = (v+w)² (3m-1) / 2m².
func setSpread(h *History, key string) (v, noise float64, pairs, sets int, ok bool) {
	if h == nil {
		return 0, 0, 0, 0, false
	}
	type set struct {
		start time.Time
		logs  []float64
	}
	var ss []set
	for _, runs := range h.Sets {
		var logs []float64
		var start time.Time
		for _, m := range launchMeans(steadyAll(runs).metric(key)) {
			if m > 0 {
				logs = append(logs, math.Log(m))
			}
		}
		for _, in := range runs {
			if in.Page != nil && in.Page.Run != nil && (start.IsZero() || in.Page.Run.Start.Before(start)) {
				start = in.Page.Run.Start
			}
		}
		if len(logs) >= 2 && !start.IsZero() {
			ss = append(ss, set{start, logs})
		}
	}
	slices.SortFunc(ss, func(a, b set) int { return a.start.Compare(b.start) })
	var acc, launches float64
	for i := 1; i < len(ss); i++ {
		a, b := ss[i-1].logs, ss[i].logs
		ma, va := logMeanVar(a)
		mb, vb := logMeanVar(b)
		// The two sets' pooled launch variance, as the gate's t pools.
		pooled := (va*float64(len(a)-1) + vb*float64(len(b)-1)) / float64(len(a)+len(b)-2)
		d, w := mb-ma, pooled*(1/float64(len(a))+1/float64(len(b)))
		acc += d*d - w
		launches += w
		pairs++
	}
	if pairs < minHistoryPairs {
		return 0, 0, pairs, len(ss), false
	}
	m := float64(pairs)
	v, w := max(0, acc/m), launches/m
	noise = (v + w) * (v + w) * (3*m - 1) / (2 * m * m)
	return v, noise, pairs, len(ss), true
}

// logMeanVar is the mean and sample variance of x (2 values or more).
func logMeanVar(x []float64) (m, v float64) {
	for _, l := range x {
		m += l
	}
	m /= float64(len(x))
	for _, l := range x {
		v += (l - m) * (l - m)
	}
	return m, v / float64(len(x)-1)
}

// widenForSets widens e, the comparison of two unpaired sets of launches
// (launch means lb, la) of metric key, by what moves a set as a whole:
// the set-to-set shift h measured, for sets taken one after the other or
// apart; without enough history, for a stored baseline (sides recorded
// more than apartAfter apart), one more draw of the launches' own spread.
// The spread h measured is returned (nil: h said too little).
func (c *Comparison) widenForSets(e *stats.Estimate, h *History, key string, lb, la []float64, powerPct float64) *SetSpread {
	v, noise, pairs, sets, ok := setSpread(h, key)
	if !ok {
		if lv, ldf := launchVar(lb, la); c.ApartHours > 0 && ldf > 0 {
			e.Widen(lv, lv*lv/float64(ldf))
		}
		return nil
	}
	c.historySource = h.Source
	sp := &SetSpread{Pairs: pairs, Sets: sets, Pct: 100 * (math.Exp(math.Sqrt(v)) - 1)}
	if e.Method == stats.MethodLaunches && (c.ApartHours > 0 || sequential(c.Before.Runs, c.After.Runs)) {
		e.Widen(v, noise)
		sp.Used = true
		z := distuv.UnitNormal.Quantile(1-(1-GateConfidence)/2) + distuv.UnitNormal.Quantile(stats.Power)
		sp.Blocks = z*math.Sqrt(v) >= math.Log1p(powerPct/100)
	}
	return sp
}

// spreadNote says what earlier sets measured of the set-to-set shift and
// that the intervals include it (measured true when one was widened by
// it); zero when no metric had enough history.
func (c *Comparison) spreadNote() (t finding.Text, measured bool) {
	var keys []string
	pairs, sets := 0, 0
	for _, s := range c.Stats {
		if s.SetSpread == nil {
			continue
		}
		measured = measured || s.SetSpread.Used
		pairs, sets = max(pairs, s.SetSpread.Pairs), max(sets, s.SetSpread.Sets)
		keys = append(keys, fmt.Sprintf("%s ±%.1f%%", s.Key, s.SetSpread.Pct))
	}
	if len(keys) == 0 {
		return t, false
	}
	src := finding.SafeLine(c.historySource)
	if !measured {
		return finding.Tf(finding.T("%d earlier sets of this service in %s shift from one set to the next by %s beyond what their launches explain (%d pairs); the sides here were not taken apart, so the intervals leave it out",
			"%[2]s 中此服务之前的 %[1]d 组运行，相邻两组之间的偏移超出其启动波动的部分为 %[3]s（%[4]d 对）；此处两侧并非分开采集，区间未计入该偏移"), sets, src, strings.Join(keys, ", "), pairs), false
	}
	return finding.Tf(finding.T("the unit is the set as well as the launch: %d earlier sets of this service in %s shift from one set to the next by %s beyond what their launches explain (%d pairs), and the intervals include that shift and how uncertain it is",
		"比较单位既是启动也是整组运行：%[2]s 中此服务之前的 %[1]d 组运行，相邻两组之间的偏移超出其启动波动的部分为 %[3]s（%[4]d 对），区间已计入该偏移及其不确定性"), sets, src, strings.Join(keys, ", "), pairs), true
}
