package gclog

import (
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

var (
	lFile       = finding.T("GC log", "GC 日志")
	lLines      = finding.T("lines %d, events %d, unparsed %d", "行数 %d，事件 %d，未解析 %d")
	lDuration   = finding.T("Duration", "时长")
	lThroughput = finding.T("Throughput", "吞吐量")
	lPauses     = finding.T("Pauses", "停顿")
	lPauseLine  = finding.T("%d, total %s, avg %s, p50 %s, p95 %s, p99 %s, max %s", "%d 次，合计 %s，平均 %s，p50 %s，p95 %s，p99 %s，最长 %s")
	lPauseFew   = finding.T("%d, total %s, max %s (percentiles need %d pauses or more)", "%d 次，合计 %s，最长 %s（至少 %d 次停顿才给出百分位）")
	lFull       = finding.T("Full GCs", "Full GC")
	lConc       = finding.T("Concurrent cycles", "并发周期")
	lAlloc      = finding.T("Allocation rate", "分配速率")
	lPromo      = finding.T("Promotion rate", "晋升速率")
	lHeap       = finding.T("Heap", "堆")
	lHeapLine   = finding.T("max %s; after GC min %s, max %s", "上限 %s；GC 后最小 %s，最大 %s")
	lTrend      = finding.T("Heap after GC trend", "GC 后堆占用趋势")
	lSafepoints = finding.T("Safepoints", "安全点")
	lStalls     = finding.T("Allocation stalls", "分配停顿")
	lFailures   = finding.T("Failures", "失败")
	lByCause    = finding.T("Pauses by cause", "按原因统计的停顿")
	lByKind     = finding.T("Events by type", "按类型统计的事件")
	lByCycle    = finding.T("Concurrent cycles by cause", "按原因统计的并发周期")
	lWorst      = finding.T("%.2f %% (worst 60 s: %.1f %% in GC)", "%.2f%%（最差 60 秒窗口 GC 占 %.1f%%）")
	lFullLine   = finding.T("%d (System.gc() %d, %s)", "%d 次（System.gc() %d 次，%s）")
	lCols       = finding.T("count\ttotal\tmax", "次数\t合计\t最长")
	lFindings   = finding.T("Findings", "结论")
	lNA         = finding.T("n/a", "无")
	lShort      = finding.T("too short to judge (%d pauses over %.1f s)", "记录太短，无法判断（%.1[2]f 秒内 %[1]d 次停顿）")
	lFailLine   = finding.T("concurrent-mode-failure %d, promotion-failed %d, to-space-exhausted %d, degenerated %d (%s), out-of-memory %d",
		"concurrent-mode-failure %d 次，promotion-failed %d 次，to-space-exhausted %d 次，degenerated %d 次（%s），out-of-memory %d 次")
	lWhy  = finding.T("why", "原因")
	lDo   = finding.T("do", "建议")
	lRisk = finding.T("risk", "风险")
	lRef  = finding.T("ref", "参考")
)

// ShortToJudge says "too short to judge (N pauses over T s)" when the log
// has timestamps but too little time or too few pauses for the ratios
// (throughput, rates): ok is false when the ratios were computed or the log
// has no time at all (then they are simply not available).
func ShortToJudge(s Summary) (finding.Text, bool) {
	if !s.HasTime || (s.DurationS >= MinJudgeSpanS && s.Pauses >= MinJudgePauses) {
		return finding.Text{}, false
	}
	return finding.Tf(lShort, s.Pauses, s.DurationS), true
}

// unjudged is the word for a ratio that is not available: "too short to
// judge (...)" when the log has time but too little, else "n/a".
func unjudged(s Summary, lang finding.Lang) string {
	if t, ok := ShortToJudge(s); ok {
		return t.In(lang)
	}
	return lNA.In(lang)
}

// pauseLine is the Pauses row: percentiles only from MinJudgePauses pauses
// or more (of one pause its p50, p95 and p99 are that pause, which reads
// as a distribution that was never seen); the count and max otherwise.
func pauseLine(s Summary, lang finding.Lang) string {
	switch {
	case s.Pauses == 0:
		return "0"
	case s.Pauses < MinJudgePauses:
		return fmt.Sprintf(lPauseFew.In(lang), s.Pauses, ms(s.PauseTotalMs), ms(s.PauseMaxMs), MinJudgePauses)
	}
	return fmt.Sprintf(lPauseLine.In(lang), s.Pauses, ms(s.PauseTotalMs), ms(s.PauseAvgMs), ms(s.PauseP50Ms), ms(s.PauseP95Ms), ms(s.PauseP99Ms), ms(s.PauseMaxMs))
}

func rate(v float64, na string) string {
	if v < 0 {
		return na
	}
	return units.FormatMiB(v, 1) + "/s"
}

func kb(v int64, na string) string {
	if v < 0 {
		return na
	}
	return mb(float64(v))
}

// WriteText writes a plain-text report of a GC log analysis.
func WriteText(w io.Writer, s Summary, fs []finding.Finding, lang finding.Lang) error {
	var b strings.Builder
	na := lNA.In(lang)
	for _, f := range s.Files {
		desc := []string{f.Format, f.Collector}
		if f.JVMVersion != "" {
			desc = append(desc, "JDK "+f.JVMVersion)
		}
		if len(f.Decorators) > 0 {
			desc = append(desc, "["+strings.Join(f.Decorators, ",")+"]")
		}
		fmt.Fprintf(&b, "%s: %s (%s)  %s\n", lFile.In(lang), finding.SafeLine(f.Name), strings.Join(desc, ", "), fmt.Sprintf(lLines.In(lang), f.Lines, f.Events, f.Unparsed))
	}
	tw := finding.NewTable(&b, 2, false) // by display width: zh labels
	row := func(l finding.Text, v string) { fmt.Fprintf(tw, "  %s\t%s\n", l.In(lang), v) }
	if s.DurationS > 0 {
		row(lDuration, fmt.Sprintf("%.1f s", s.DurationS))
	} else {
		row(lDuration, na)
	}
	short := unjudged(s, lang)
	if s.ThroughputPct >= 0 {
		row(lThroughput, fmt.Sprintf(lWorst.In(lang), s.ThroughputPct, s.WorstWindowPct))
	} else {
		row(lThroughput, short)
	}
	row(lPauses, pauseLine(s, lang))
	row(lFull, fmt.Sprintf(lFullLine.In(lang), s.FullGCs, s.FullGCsExplicit, ms(s.FullGCMs)))
	if s.ConcurrentCycles > 0 || s.ConcurrentMs > 0 {
		row(lConc, fmt.Sprintf("%d, %s", s.ConcurrentCycles, ms(s.ConcurrentMs)))
	}
	row(lAlloc, rate(s.AllocRateMBs, short))
	row(lPromo, rate(s.PromotionRateMBs, short))
	row(lHeap, fmt.Sprintf(lHeapLine.In(lang), kb(s.HeapMaxKB, na), kb(s.HeapAfter.MinKB, na), kb(s.HeapAfter.MaxKB, na)))
	if h := s.HeapAfter; h.Basis != "" {
		row(lTrend, fmt.Sprintf("%s: %s -> %s, %+.1f MiB/h, R² %.2f (%d)", h.Basis, mb(h.FirstKB), mb(h.LastKB), h.SlopeKBPerH/1024, h.R2, h.Points))
	}
	if s.Safepoints > 0 {
		row(lSafepoints, fmt.Sprintf("%d, %s, max %s, TTSP max %s", s.Safepoints, ms(s.SafepointTotalMs), ms(s.SafepointMaxMs), ms(s.TTSPMaxMs)))
	}
	if s.Stalls > 0 {
		row(lStalls, fmt.Sprintf("%d, %s, max %s", s.Stalls, ms(s.StallTotalMs), ms(s.StallMaxMs)))
	}
	if n := s.ConcModeFailures + s.PromotionFailed + s.ToSpaceExhausted + s.OutOfMemory + s.Degenerated; n > 0 {
		row(lFailures, fmt.Sprintf(lFailLine.In(lang),
			s.ConcModeFailures, s.PromotionFailed, s.ToSpaceExhausted, s.Degenerated, ms(s.DegeneratedMs), s.OutOfMemory))
	}
	tw.Flush()
	table := func(title finding.Text, aggs []Agg, limit int) {
		if len(aggs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s\n", title.In(lang))
		tw := finding.NewTable(&b, 2, true)
		fmt.Fprintf(tw, "\t%s\t\n", lCols.In(lang))
		for i, a := range aggs {
			if i >= limit {
				break
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t\n", finding.SafeLine(a.Name), a.Count, ms(a.TotalMs), ms(a.MaxMs))
		}
		tw.Flush()
	}
	table(lByCause, s.ByCause, 15)
	table(lByCycle, s.CyclesByCause, 15)
	table(lByKind, s.ByKind, 20)
	if len(fs) > 0 {
		fmt.Fprintf(&b, "\n%s\n", lFindings.In(lang))
	}
	for _, f := range fs {
		tag := f.Status.Label(lang)
		if f.Status == finding.Fail {
			tag = f.Severity.Label(lang)
		}
		fmt.Fprintf(&b, "[%s] %s  %s\n", tag, f.ID, f.Title.In(lang))
		if t := f.Observed.In(lang); t != "" {
			fmt.Fprintf(&b, "    %s\n", t)
		}
		if t := f.Reason.In(lang); t != "" {
			fmt.Fprintf(&b, "    %s\n", t)
		}
		if f.Status == finding.Fail {
			if t := f.Why.In(lang); t != "" {
				fmt.Fprintf(&b, "    %s: %s\n", lWhy.In(lang), t)
			}
			if t := f.Recommended.In(lang); t != "" {
				fmt.Fprintf(&b, "    %s: %s\n", lDo.In(lang), t)
			}
			if t := f.Risk.In(lang); t != "" {
				fmt.Fprintf(&b, "    %s: %s\n", lRisk.In(lang), t)
			}
		} else if f.ID == "gc.not-the-bottleneck" {
			fmt.Fprintf(&b, "    %s\n", f.Recommended.In(lang))
		}
		for _, r := range f.References {
			fmt.Fprintf(&b, "    %s: %s\n", lRef.In(lang), r)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
