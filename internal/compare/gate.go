package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// errorRisePts: the rise in the error rate, in percentage points, that the
// gate calls a regression.
const errorRisePts = 0.1

// gated are the metrics the gate judges by their interval.
var gated = map[string]bool{"tps": true, "p99_ms": true}

// GateConfidence is the confidence of the interval the gate judges: 99%,
// not the table's 95%, because the gate fails on either of two metrics
// (throughput, p99) and each can only fail one way: 2 x 0.5% keeps a
// same-build pair's false alarms at 1% at most (Bonferroni), where 95%
// intervals would allow 5%.
const GateConfidence = 0.99

// Gate judges the interval, not the point. Throughput or p99 latency
// regressed when its GateConfidence interval
//
//   - lies wholly on the worse side of 0 (the regression is significant), and
//   - has its far bound beyond pct: for throughput the lower bound is below
//     -pct, for p99 the upper bound is above +pct.
//
// So a significant 2% slowdown whose interval is [-4%, -1%] passes a 5%
// gate, and one whose interval is [-9%, -1%] fails it: the data cannot rule
// out a regression larger than pct. A gated metric that is inconclusive, or
// worse at 95% but not at the gate's 99%, is listed in Inconclusive.
// Without per-second series (a JTL import without its timeline) the point
// change is judged as before. The error rate is judged on its own scale: a
// rise of more than 0.1 point. It returns whether anything regressed.
func (c *Comparison) Gate(pct float64) bool {
	c.Regressions, c.RegressedKeys, c.Inconclusive, c.InconclusiveKeys = nil, nil, nil, nil
	if c.EnvRefused {
		c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("refused: the sides' launches ran in different environments (%s), so no interval over launches can tell the change from the environment's; re-run the baseline build interleaved with the candidate on one host: tuneloop run --start OLD --start-b NEW --repeat 8 --fail-on-regression %.0f",
			"拒绝判断：两侧的启动运行在不同环境中（%s），任何基于启动的区间都无法把改动与环境的影响分开；请在同一主机上将基线版本与候选版本交替重跑：tuneloop run --start 旧版本 --start-b 新版本 --repeat 8 --fail-on-regression %.0f"),
			joinTexts(c.EnvDiffs, "; "), pct))
		c.InconclusiveKeys = append(c.InconclusiveKeys, "")
		return false
	}
	judged := map[string]bool{}
	warming, afterWarming := c.warming()
	for _, s := range c.Stats {
		if !gated[s.Key] {
			continue
		}
		judged[s.Key] = true
		worse := (s.Better == Higher && s.GateHiPct < 0) || (s.Better == Lower && s.GateLoPct > 0)
		beyond := (s.Better == Higher && s.GateLoPct < -pct) || (s.Better == Lower && s.GateHiPct > pct)
		more := s.MoreRuns
		if overLaunches(s.Method) {
			more = max(more, s.GateMoreRuns)
		}
		switch {
		case afterWarming && worse && beyond:
			// Half or more of the after side's runs ended still warming
			// up: it may only have warmed up more slowly (a JIT
			// decision, a busier neighbour while it compiled), which no
			// interval over their means can tell from the build.
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% is not a verdict: %s",
				"%s：%+.1f%% 不能作为结论：%s"), s.Label, s.ChangePct, *warming))
			c.InconclusiveKeys = append(c.InconclusiveKeys, s.Key)
			continue
		case s.Method == stats.MethodBootstrap && c.Design == DesignUnpaired && !c.oneJVM && worse && beyond:
			// One launch a side: the launch-to-launch spread, which on a
			// small host alone moves throughput 20%, is unmeasured, so
			// no regression is called on it.
			n := stats.RankRunsFor(1 - GateConfidence)
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% from one JVM launch a side: the spread from launch to launch is unmeasured, and %d launches a side is the fewest a rank test over launches can judge at %.0f%%: run %d more per side",
				"%s：%+.1f%% 来自每侧一次 JVM 启动：启动之间的波动未被测量，基于启动的秩检验在 %.0f%% 水平下至少需要每侧 %d 次启动：每侧再运行 %d 次"),
				s.Label, s.ChangePct, n, 100*GateConfidence, n-min(s.NBefore, s.NAfter)))
			c.InconclusiveKeys = append(c.InconclusiveKeys, s.Key)
			continue
		case s.SetSpread != nil && s.SetSpread.Blocks && s.Verdict == stats.Inconclusive && !(worse && beyond):
			// The interval cannot be told from noise at pct, and what it
			// allows for a whole set's shift alone is wider than that:
			// launches added to either set do not narrow it (when the
			// tests over launches disagree, more launches do tell: that
			// advice stands).
			from := finding.T("as earlier sets of this service measured it", "按此服务之前的运行组测得")
			if s.SetSpread.Assumed {
				from = finding.T("assumed as large as one launch's spread, no earlier sets of this service having measured it", "此服务没有之前的运行组可供测量，按一次启动的波动假定")
			}
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% (99%% CI %+.1f%% to %+.1f%%) is not a verdict: the interval allows ±%.1f%% for a shift of the whole set (%s), more than a %.0f%% gate can see through, and more launches a set do not narrow that; gate the build with interleaved runs: tuneloop run --start OLD --start-b NEW --repeat 8 --fail-on-regression %.0f",
				"%s：%+.1f%%（99%% 置信区间 %+.1f%% 至 %+.1f%%）不能作为结论：区间为整组运行的偏移计入了 ±%.1f%%（%s），超出 %.0f%% 门禁所能分辨的范围，且每组增加启动次数也无法缩小；请用交替运行对版本设门禁：tuneloop run --start 旧版本 --start-b 新版本 --repeat 8 --fail-on-regression %.0f"),
				s.Label, s.ChangePct, s.GateLoPct, s.GateHiPct, s.SetSpread.UsedPct, from, pct, pct))
			c.InconclusiveKeys = append(c.InconclusiveKeys, s.Key)
			continue
		case overLaunches(s.Method) && worse && beyond && s.GateAgreement != "" && s.GateWhy != nil:
			rank, p := finding.T("U-test over launches", "基于启动的 U 检验"), s.UTestP
			if s.Method == stats.MethodPairedLaunches {
				rank, p = finding.T("signed-rank test over the pairs", "基于配对的符号秩检验"), s.RankP
			}
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% (99%% CI %+.1f%% to %+.1f%%, %s p = %s) is not a verdict: %s: run %s more per side",
				"%s：%+.1f%%（99%% 置信区间 %+.1f%% 至 %+.1f%%，%s p = %s）不能作为结论：%s：每侧再运行 %s 次"),
				s.Label, s.ChangePct, s.GateLoPct, s.GateHiPct, rank, pText(p), *s.GateWhy, stats.MoreRuns(more)))
			c.InconclusiveKeys = append(c.InconclusiveKeys, s.Key)
			continue
		}
		switch {
		case worse && s.Better == Higher && s.GateLoPct < -pct:
			c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s fell %.1f%% (99%% CI %+.1f%% to %+.1f%%; %s -> %s), significant and beyond %.0f%%",
				"%s 下降 %.1f%%（99%% 置信区间 %+.1f%% 至 %+.1f%%；%s -> %s），显著且超过 %.0f%%"),
				s.Label, -s.ChangePct, s.GateLoPct, s.GateHiPct, num(s.Before), num(s.After), pct))
			c.RegressedKeys = append(c.RegressedKeys, s.Key)
		case worse && s.Better == Lower && s.GateHiPct > pct:
			c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s rose %.1f%% (99%% CI %+.1f%% to %+.1f%%; %s -> %s ms), significant and beyond %.0f%%",
				"%s 上升 %.1f%%（99%% 置信区间 %+.1f%% 至 %+.1f%%；%s -> %s ms），显著且超过 %.0f%%"),
				s.Label, s.ChangePct, s.GateLoPct, s.GateHiPct, num(s.Before), num(s.After), pct))
			c.RegressedKeys = append(c.RegressedKeys, s.Key)
		case s.Verdict == stats.Inconclusive:
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% (95%% CI %+.1f%% to %+.1f%%) cannot be told from noise at %.0f%%: run %s more per side",
				"%s：%+.1f%%（95%% 置信区间 %+.1f%% 至 %+.1f%%）在 %.0f%% 的精度下无法与噪声区分：每侧再运行 %s 次"),
				s.Label, s.ChangePct, s.LoPct, s.HiPct, pct, stats.MoreRuns(more)))
			c.InconclusiveKeys = append(c.InconclusiveKeys, s.Key)
		case s.Verdict == stats.Worse && !worse:
			c.Inconclusive = append(c.Inconclusive, finding.Tf(finding.T("%s: %+.1f%% is worse at 95%% (CI %+.1f%% to %+.1f%%) but not at the gate's 99%% (%+.1f%% to %+.1f%%): run more to tell",
				"%s：%+.1f%% 在 95%% 置信水平下变差（区间 %+.1f%% 至 %+.1f%%），但在门禁的 99%% 水平下不显著（%+.1f%% 至 %+.1f%%）：请多运行几次再判断"),
				s.Label, s.ChangePct, s.LoPct, s.HiPct, s.GateLoPct, s.GateHiPct))
			c.InconclusiveKeys = append(c.InconclusiveKeys, s.Key)
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
	if t := c.setShiftCaveat(pct); !t.IsZero() && !slices.ContainsFunc(c.Warnings, func(w finding.Text) bool { return w.EN == t.EN }) {
		c.Warnings = append(c.Warnings, t)
	}
	return len(c.Regressions) > 0
}

// setShiftCaveat: a regression over launches of two sets taken one after
// the other may be the host's, not the build's. Sets of one build taken
// minutes apart on a busy VM moved as wholes (make bench-gate MODE=sets:
// a same-build set every launch of which had a higher p99 than every
// launch of the set before, U p at its floor), which no test over the
// launches can tell from a change; interleaved runs can.
func (c *Comparison) setShiftCaveat(pct float64) finding.Text {
	if len(c.RegressedKeys) == 0 || c.Design != DesignUnpaired || !sequential(c.Before.Runs, c.After.Runs) {
		return finding.Text{}
	}
	// A shift the interval already allows for as earlier sets measured
	// it is no caveat; one assumed is.
	over := false
	for _, s := range c.Stats {
		over = over || slices.Contains(c.RegressedKeys, s.Key) && s.Method == stats.MethodLaunches && (s.SetSpread == nil || s.SetSpread.Assumed || !s.SetSpread.Used)
	}
	if !over {
		return finding.Text{}
	}
	return finding.Tf(finding.T("the two sets were taken one after the other: a shift of the whole set (the host between the sets, not the build) fails the gate as a change does, and no test over the launches can tell them apart; before acting on it, confirm with interleaved runs: tuneloop run --start OLD --start-b NEW --repeat 8 --fail-on-regression %.0f (with at least %d earlier sets of this service in the catalog, the gate measures that shift and widens its interval by it)",
		"两组运行是先后进行的：整组的偏移（两组之间主机的变化，而非版本）也会像改动一样触发门禁，任何基于启动的检验都无法区分二者；据此行动之前，请用交替运行确认：tuneloop run --start 旧版本 --start-b 新版本 --repeat 8 --fail-on-regression %.0f（目录中有此服务至少 %d 组之前的运行时，门禁会测量这种偏移并据此加宽区间）"), pct, minHistoryPairs+1)
}

// sequential: every run of one side started before every run of the
// other (start times known for all).
func sequential(b, a []RunInfo) bool {
	if len(b) == 0 || len(a) == 0 {
		return false
	}
	span := func(rs []RunInfo) (lo, hi string, ok bool) {
		for _, r := range rs {
			if r.Start == "" {
				return "", "", false
			}
			if lo == "" || r.Start < lo {
				lo = r.Start
			}
			hi = max(hi, r.Start)
		}
		return lo, hi, true
	}
	bl, bh, ok1 := span(b)
	al, ah, ok2 := span(a)
	return ok1 && ok2 && (bh < al || ah < bl)
}

// overLaunches: a Stat's method judged by an interval and the exact U-test
// over launches together.
func overLaunches(method string) bool {
	return stats.Estimate{Method: method}.OverLaunches()
}

func pText(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}
