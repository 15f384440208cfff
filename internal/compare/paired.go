package compare

import (
	"slices"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Designs of a comparison: how its runs were taken, which decides the
// interval (Comparison.Design).
const (
	// DesignAuto: paired when the start times show the runs interleaved,
	// else unpaired.
	DesignAuto = ""
	// DesignPaired: before[i] and after[i] are a pair, in the order given.
	DesignPaired = "paired"
	// DesignUnpaired: two independent sets (Welch's interval).
	DesignUnpaired = "unpaired"
)

// Options of CompareSetsWith.
type Options struct {
	// PowerPct sizes the "run K more" advice (0: DefaultPowerPct).
	PowerPct float64
	// Design: DesignAuto, DesignPaired or DesignUnpaired.
	Design string
	// History is earlier sets of the service (nil: none): unpaired sets
	// taken apart widen their intervals by the set-to-set shift it shows.
	History *History
}

// Interleaved pairs the runs when their start times show they were taken
// in turn: as many runs a side (2 or more), every run's start known, and,
// all runs in time order, each consecutive two (1st-2nd, 3rd-4th, ...) is
// one run of each side (A B A B ..., or A B B A ...). Then the i-th run
// of before and of after, each side in time order, are a pair, and the
// returned slices are both sides reordered that way; ok is false otherwise.
func Interleaved(before, after []Input) (b, a []Input, ok bool) {
	n := len(before)
	if n < 2 || len(after) != n {
		return nil, nil, false
	}
	type timed struct {
		in    Input
		start time.Time
		after bool
	}
	var all []timed
	for side, ins := range [][]Input{before, after} {
		for _, in := range ins {
			if in.Page == nil || in.Page.Run == nil || in.Page.Run.Start.IsZero() {
				return nil, nil, false
			}
			all = append(all, timed{in, in.Page.Run.Start, side == 1})
		}
	}
	slices.SortStableFunc(all, func(x, y timed) int { return x.start.Compare(y.start) })
	for i := 0; i < len(all); i += 2 {
		if all[i].after == all[i+1].after || all[i].start.Equal(all[i+1].start) {
			return nil, nil, false
		}
	}
	for _, t := range all {
		if t.after {
			a = append(a, t.in)
		} else {
			b = append(b, t.in)
		}
	}
	return b, a, true
}

// pairing decides the design: the pairs (both sides in pair order) when
// paired, else the sides as given.
func pairing(before, after []Input, design string) (b, a []Input, paired bool) {
	switch design {
	case DesignPaired:
		if len(before) == len(after) && len(before) >= 2 {
			return before, after, true
		}
	case DesignAuto:
		if b, a, ok := Interleaved(before, after); ok {
			return b, a, true
		}
	}
	return before, after, false
}

// designText says in the output which interval was used and on what.
func (c *Comparison) designText() finding.Text {
	if c.Design == DesignWindows {
		return finding.Tf(finding.T("Design: one load alternating between the two services in windows (A B B A ...), %d pairs of adjacent windows, so what drifts on the host hits both sides of a pair alike: throughput by a paired t on the per-pair log ratios; p99 of each side's windows pooled, its interval bootstrapped over the pairs; 'run K more' counts pairs of windows. The unit of replication here is the window within one launch of each service, not the launch: the spread from launch to launch is not covered (a verdict holds for these two running JVMs; to judge builds, compare launches: run --start-b), and no rank test is asked (many windows, one launch), the same decision otherwise",
			"设计：同一负载在两个服务之间按窗口交替（A B B A ……），%d 对相邻窗口，主机上的漂移对每对的两侧影响相同：吞吐量对各对之比的对数做配对 t 区间；p99 取每侧所有窗口合并后的值，其区间按窗口对做自助法；“再运行 K 次”指窗口对数。此处的重复单位是每个服务一次启动内的窗口，而非启动：不含启动之间的波动（结论只适用于这两个正在运行的 JVM；要判断版本，请比较多次启动：run --start-b），也不要求秩检验（窗口多、启动只有一次），其余判断方式相同"), c.Pairs)
	}
	if c.Design == DesignPaired {
		return finding.Tf(finding.T("Design: %d interleaved pairs (each after-run taken next to a before-run); the unit of replication is the JVM launch when each run started its own (run --start-b). A paired t on the per-pair log ratios of the steady-state means, so drift of the host between pairs cancels, and an exact Wilcoxon signed-rank test on the same ratios; a verdict needs both (when they disagree it is inconclusive and says why; 6 pairs are the fewest the signed-rank test can judge at 95%%, 8 at the gate's 99%%). U-test p over per-run means shown only",
			"设计：%d 组交替运行的配对（每次改动后的运行紧挨着一次改动前的运行）；当每次运行各自启动 JVM（run --start-b）时，重复单位是 JVM 启动。对各组稳态均值之比的对数做配对 t 区间，主机在各组之间的漂移因此抵消，并对同样的比值做精确 Wilcoxon 符号秩检验；两者一致才下结论（不一致时判为无法判断并说明原因；符号秩检验在 95%% 水平下至少需要 6 对，门禁的 99%% 至少需要 8 对）。基于各次运行均值的 U 检验 p 值仅供参考"), c.Pairs)
	}
	return finding.T("Design: two unpaired sets; the unit of replication is the JVM launch (each run is one). With 2+ launches a side: Welch t on the per-launch means (log) and an exact Mann-Whitney U-test over the same launches; a verdict needs both (when they disagree it is inconclusive and says why). With one launch a side: a block bootstrap over its steady-state seconds, which covers no launch-to-launch spread",
		"设计：两组不配对的运行；重复单位是 JVM 启动（每次运行一次启动）。每侧 2 次及以上启动时：对各次启动均值（取对数）做 Welch t 区间，并对同样的启动做精确 Mann-Whitney U 检验；两者一致才下结论（不一致时判为无法判断并说明原因）。每侧一次启动时：对其稳态逐秒数据做分块自助法，不含启动之间的波动")
}
