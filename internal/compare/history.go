package compare

import (
	"math"
	"slices"
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

// SetSpread is what moves a whole set, for one metric: measured by the
// earlier sets, or assumed (none measured it) as large as the launches'
// own spread.
type SetSpread struct {
	// Pairs of consecutive earlier sets it rests on, and the sets (0:
	// assumed).
	Pairs int `json:"pairs"`
	Sets  int `json:"sets"`
	// Pct is the shift's standard deviation between two sets, in % of the
	// level, as measured (0: no more than their launches' spread
	// explains); UsedPct what the interval allows for, the measure's own
	// uncertainty included (historyMargin).
	Pct     float64 `json:"sd_pct"`
	UsedPct float64 `json:"used_sd_pct"`
	// Assumed: no earlier sets measured it; the launches' spread stands in.
	Assumed bool `json:"assumed,omitempty"`
	// Used: the interval was widened by it.
	Used bool `json:"used"`
	// Blocks: what the interval allows for it alone is wider than the
	// gate's change can be seen through at 99% with 90% power, however
	// many launches a set has.
	Blocks bool `json:"blocks,omitempty"`
}

// historyMargin is how far above the measured shift the interval allows
// for, in standard errors of the measure: an estimate of the shift's
// variance from a few consecutive pairs is noisy (a real 5-10% shift often
// reads 0), and the gate's 1% must hold when it reads low. With 10 earlier
// sets and shifts of sd 0-10% (TestGateOverShiftedSetsSimulated) one
// standard error let 12 false alarms of 2000 through at 10 launches a
// side, 1.5 at most 5, 2 at most 3 at a fifth less power: 1.5.
const historyMargin = 1.5

// setSpread measures the extra variance of a difference of two sets' log
// means for metric key from h's consecutive sets: v, the mean d² less the
// launches' part w (E[d²] = 2σ²_set + σ²_w(1/n1+1/n2)); sdV, its standard
// error (v+w is a mean of m squared differences that share a set each,
// neighbours correlated by -1/2: worth nu = 2m²/(3m-1) independent ones);
// ok false with fewer than minHistoryPairs pairs. Pairs whose sets
// overlap in time (two halves of one interleaved A/B series) are no
// shift of a set and are left out.
func setSpread(h *History, key string) (v, sdV, nu float64, pairs, sets int, ok bool) {
	if h == nil {
		return 0, 0, 0, 0, 0, false
	}
	type set struct {
		start, last time.Time
		logs        []float64
	}
	var ss []set
	for _, runs := range h.Sets {
		var s set
		ok := true
		for _, in := range runs {
			if in.Page == nil || in.Page.Run == nil || in.Page.Run.Start.IsZero() {
				ok = false
				break
			}
			if t := in.Page.Run.Start; s.start.IsZero() || t.Before(s.start) {
				s.start = t
			}
			if t := in.Page.Run.Start; t.After(s.last) {
				s.last = t
			}
		}
		if !ok {
			continue
		}
		for _, m := range launchMeans(steadyAll(runs).metric(key)) {
			if m > 0 {
				s.logs = append(s.logs, math.Log(m))
			}
		}
		if len(s.logs) >= 2 {
			ss = append(ss, s)
		}
	}
	slices.SortFunc(ss, func(a, b set) int { return a.start.Compare(b.start) })
	var acc, launches float64
	for i := 1; i < len(ss); i++ {
		if !ss[i].start.After(ss[i-1].last) {
			continue
		}
		a, b := ss[i-1].logs, ss[i].logs
		// The two sets' pooled launch variance, as the gate's t pools.
		pooled, _ := pooledVar(a, b)
		d, w := mean(b)-mean(a), pooled*(1/float64(len(a))+1/float64(len(b)))
		acc += d*d - w
		launches += w
		pairs++
	}
	if pairs < minHistoryPairs {
		return 0, 0, 0, pairs, len(ss), false
	}
	m := float64(pairs)
	v, w := max(0, acc/m), launches/m
	nu = 2 * m * m / (3*m - 1)
	return v, (v + w) * math.Sqrt(2/nu), nu, pairs, len(ss), true
}

// meanVar is the mean and sample variance of x (2 values or more).
func meanVar(x []float64) (m, v float64) {
	m = mean(x)
	for _, l := range x {
		v += (l - m) * (l - m)
	}
	return m, v / float64(len(x)-1)
}

// widenForSets widens e, the comparison of two unpaired sets of launches
// (launch means lb, la) of metric key, taken one after the other or apart,
// by what moves a set as a whole: the set-to-set shift h measured (plus
// historyMargin of its standard error, on its nu degrees of freedom), or,
// without enough history, as much as the launches' own spread (one more
// draw of a launch; the sets bench's sets shifted by 0.5 to 1.75 times
// that, docs/bench/gate-sets). It returns what it allowed for (nil: sets
// neither apart nor compared over launches, and no history to tell).
func (c *Comparison) widenForSets(e *stats.Estimate, h *History, key string, lb, la []float64, powerPct float64) *SetSpread {
	apart := (c.ApartHours > 0 || sequential(c.Before.Runs, c.After.Runs)) && e.Method == stats.MethodLaunches
	v, sdV, nu, pairs, sets, ok := setSpread(h, key)
	var sp *SetSpread
	switch {
	case ok:
		c.historySource = h.Source
		sp = &SetSpread{Pairs: pairs, Sets: sets, Pct: sdPct(v)}
		if !apart {
			return sp
		}
		v += historyMargin * sdV
		e.Widen(v, v*v/nu)
	case apart:
		lv, ldf := launchVar(lb, la)
		if ldf == 0 {
			return nil
		}
		v = lv
		sp = &SetSpread{Assumed: true, Pct: sdPct(v)}
		e.Widen(v, v*v/float64(ldf))
	default:
		return nil
	}
	z := distuv.UnitNormal.Quantile(1-(1-GateConfidence)/2) + distuv.UnitNormal.Quantile(stats.Power)
	sp.Used, sp.UsedPct, sp.Blocks = true, sdPct(v), z*math.Sqrt(v) >= math.Log1p(powerPct/100)
	return sp
}

// sdPct is a log-scale variance as a standard deviation in % of the level.
func sdPct(v float64) float64 { return 100 * (math.Exp(math.Sqrt(v)) - 1) }

// spreadNote says what earlier sets measured of the set-to-set shift and
// whether the intervals allow for it; zero when no metric had enough
// history.
func (c *Comparison) spreadNote() finding.Text {
	var keys []finding.Text
	pairs, sets, measured := 0, 0, false
	for _, s := range c.Stats {
		if s.SetSpread == nil || s.SetSpread.Assumed {
			continue
		}
		measured = measured || s.SetSpread.Used
		pairs, sets = max(pairs, s.SetSpread.Pairs), max(sets, s.SetSpread.Sets)
		k := finding.Tf(finding.T("%s ±%.1f%%", "%s ±%.1f%%"), s.Key, s.SetSpread.Pct)
		if s.SetSpread.Used {
			k = finding.Tf(finding.T("%s (±%.1f%% allowed for)", "%s（按 ±%.1f%% 计入）"), k, s.SetSpread.UsedPct)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return finding.Text{}
	}
	src := finding.SafeLine(c.historySource)
	if !measured {
		return finding.Tf(finding.T("%d earlier sets of this service in %s shift from one set to the next by %s beyond what their launches explain (%d pairs); the sides here were not two sets of launches taken apart, so the intervals leave it out",
			"%[2]s 中此服务之前的 %[1]d 组运行，相邻两组之间的偏移超出其启动波动的部分为 %[3]s（%[4]d 对）；此处两侧并非先后分开采集的两组启动，区间未计入该偏移"), sets, src, joinTexts(keys, ", "), pairs)
	}
	return finding.Tf(finding.T("the unit is the set as well as the launch: %d earlier sets of this service in %s shift from one set to the next by %s beyond what their launches explain (%d pairs), and the intervals allow for that shift and how uncertain its measure is",
		"比较单位既是启动也是整组运行：%[2]s 中此服务之前的 %[1]d 组运行，相邻两组之间的偏移超出其启动波动的部分为 %[3]s（%[4]d 对），区间已计入该偏移及其测量的不确定性"), sets, src, joinTexts(keys, ", "), pairs)
}
