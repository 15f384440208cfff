package compare

import (
	"math"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// errorRisePts: the rise in the error rate, in percentage points, that the
// gate calls a regression.
const errorRisePts = 0.1

// gated are the metrics the gate judges by their interval.
var gated = map[string]bool{"tps": true, "p99_ms": true}

// Gate judges the interval, not the point. Throughput or p99 latency
// regressed when
//
//   - the change is significant in the worse direction (its 95% interval
//     excludes 0), and
//   - the interval's far bound is beyond pct: for throughput the lower
//     bound is below -pct, for p99 the upper bound is above +pct.
//
// So a significant 2% slowdown whose interval is [-4%, -1%] passes a 5%
// gate, and one whose interval is [-9%, -1%] fails it: the data cannot rule
// out a regression larger than pct. A gated metric whose verdict is
// inconclusive is listed in Inconclusive. Without per-second series (a JTL
// import without its timeline) the point change is judged as before. The
// error rate is judged on its own scale: a rise of more than 0.1 point.
// It returns whether anything regressed.
func (c *Comparison) Gate(pct float64) bool {
	c.Regressions, c.RegressedKeys, c.Inconclusive = nil, nil, nil
	judged := map[string]bool{}
	for _, s := range c.Stats {
		if !gated[s.Key] {
			continue
		}
		judged[s.Key] = true
		switch {
		case s.Verdict == stats.Worse && s.Better == Higher && s.LoPct < -pct:
			c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s fell %.1f%% (95%% CI %+.1f%% to %+.1f%%; %s -> %s), significant and beyond %.0f%%",
				"%s 下降 %.1f%%（95%% 置信区间 %+.1f%% 至 %+.1f%%；%s -> %s），显著且超过 %.0f%%"),
				s.Label, -s.ChangePct, s.LoPct, s.HiPct, num(s.Before), num(s.After), pct))
			c.RegressedKeys = append(c.RegressedKeys, s.Key)
		case s.Verdict == stats.Worse && s.Better == Lower && s.HiPct > pct:
			c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s rose %.1f%% (95%% CI %+.1f%% to %+.1f%%; %s -> %s ms), significant and beyond %.0f%%",
				"%s 上升 %.1f%%（95%% 置信区间 %+.1f%% 至 %+.1f%%；%s -> %s ms），显著且超过 %.0f%%"),
				s.Label, s.ChangePct, s.LoPct, s.HiPct, num(s.Before), num(s.After), pct))
			c.RegressedKeys = append(c.RegressedKeys, s.Key)
		case s.Verdict == stats.Inconclusive:
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% (95%% CI %+.1f%% to %+.1f%%) cannot be told from noise at %.0f%%: run %d more per side",
				"%s：%+.1f%%（95%% 置信区间 %+.1f%% 至 %+.1f%%）在 %.0f%% 的精度下无法与噪声区分：每侧再运行 %d 次"),
				s.Label, s.ChangePct, s.LoPct, s.HiPct, pct, s.MoreRuns))
		}
	}
	for _, r := range c.Rows {
		if math.IsNaN(r.Before) || math.IsNaN(r.After) {
			continue
		}
		switch {
		case r.Key == "tps" && !judged["tps"]:
			if r.Before > 0 && r.After < r.Before*(1-pct/100) {
				c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s fell %.1f%% (%s -> %s), more than %.0f%% (no per-second series: no interval)",
					"%s 下降 %.1f%%（%s -> %s），超过 %.0f%%（没有逐秒数据：没有置信区间）"), r.Label, -r.ChangePct, num(r.Before), num(r.After), pct))
				c.RegressedKeys = append(c.RegressedKeys, r.Key)
			}
		case r.Key == "p99_ms" && !judged["p99_ms"]:
			if r.Before > 0 && r.After > r.Before*(1+pct/100) {
				c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s rose %.1f%% (%s -> %s ms), more than %.0f%% (no per-second series: no interval)",
					"%s 上升 %.1f%%（%s -> %s ms），超过 %.0f%%（没有逐秒数据：没有置信区间）"), r.Label, r.ChangePct, num(r.Before), num(r.After), pct))
				c.RegressedKeys = append(c.RegressedKeys, r.Key)
			}
		case r.Key == "error_pct":
			if r.After > r.Before+errorRisePts {
				c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s rose from %.2f%% to %.2f%%", "%s 从 %.2f%% 上升到 %.2f%%"), r.Label, r.Before, r.After))
				c.RegressedKeys = append(c.RegressedKeys, r.Key)
			}
		}
	}
	return len(c.Regressions) > 0
}
