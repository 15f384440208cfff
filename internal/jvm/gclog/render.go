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
	lCollector  = finding.T("Collector", "收集器")
	lThroughput = finding.T("Throughput", "吞吐量")
	lPauses     = finding.T("Pauses", "停顿")
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

// The figures of the summary, each worded once: WriteText's rows and the
// one sentence (Headline.Line) are made of these pieces, so a change of
// wording, unit or threshold shows in both.
var (
	lPct      = finding.T("%.2f %%", "%.2f%%")                                       // throughput
	lWorst    = finding.T(" (worst 60 s: %.1f %% in GC)", "（最差 60 秒窗口 GC 占 %.1f%%）") // after lPct
	lTimes    = finding.T("%d", "%d 次")                                              // a count of pauses or collections
	lTotal    = finding.T("total", "合计")
	lAvg      = finding.T("avg", "平均")
	lMax      = finding.T("max", "最长")
	lFew      = finding.T(" (percentiles need %d pauses or more)", "（至少 %d 次停顿才给出百分位）")
	lExplicit = finding.T(" (System.gc() %d, %s)", "（System.gc() %d 次，%s）") // after the full GCs' count
	lClause   = finding.T("; ", "；")                                        // between the sentence's clauses
	lEnd      = finding.T(".", "。")
)

// figure is ", label value" (Chinese "，label value"), a figure after a count.
func figure(label finding.Text, v string) finding.Text {
	return finding.Text{EN: ", " + label.EN + " " + v, ZH: "，" + label.ZH + " " + v}
}

// clause is "Label value", a clause of the sentence.
func clause(label, v finding.Text) finding.Text {
	return finding.Text{EN: label.EN + " " + v.EN, ZH: label.ZH + " " + v.ZH}
}

// percentiles says whether n pauses are enough to give percentiles (of one
// pause its p50, p95 and p99 are that pause, which reads as a
// distribution that was never seen).
func percentiles(n int) bool { return n >= MinJudgePauses }

// Percentiles says whether the pauses are enough to give their p50 and
// p99 (the threshold of the Pauses row and of Line, for the pages' tiles).
func (h Headline) Percentiles() bool { return percentiles(h.Pauses) }

// throughput is "99.20 %"; -1 (not measured) is ok false.
func throughput(pct float64) (finding.Text, bool) {
	if pct < 0 {
		return finding.Text{}, false
	}
	return finding.Tf(lPct, pct), true
}

// Headline is what the GC summary's one sentence (Line) says: the figures
// the run page keeps of a GC log (report.GCView, run-page/v1), read back
// from that JSON too, and the plain answer when GC is fine.
type Headline struct {
	Collector     string
	ThroughputPct float64 // -1: not measured
	Pauses        int
	PauseP50Ms    float64
	PauseP99Ms    float64
	PauseMaxMs    float64
	FullGCs       int
	// Verdict is gc.not-the-bottleneck's title when it passed, else empty.
	Verdict finding.Text
}

// ThroughputLow says whether GC took more of the time than the pause-ratio
// warning allows (throughput under 100 - PauseRatioWarnPct): what a page
// marks as bad, by the rules' own threshold.
func (h Headline) ThroughputLow() bool {
	return h.ThroughputPct > 0 && h.ThroughputPct < 100-DefaultThresholds().PauseRatioWarnPct
}

// Headline is the summary's headline; fs are its findings (Findings).
func (s Summary) Headline(fs []finding.Finding) Headline {
	h := Headline{Collector: s.CollectorName, ThroughputPct: s.ThroughputPct, Pauses: s.Pauses,
		PauseP50Ms: s.PauseP50Ms, PauseP99Ms: s.PauseP99Ms, PauseMaxMs: s.PauseMaxMs, FullGCs: s.FullGCs}
	for _, f := range fs {
		if f.ID == "gc.not-the-bottleneck" && f.Status == finding.Pass {
			h.Verdict = f.Title
		}
	}
	return h
}

// Line is the GC summary in one sentence, as the run's report says it,
// in the words, units and thresholds of WriteText's rows: collector,
// throughput, pauses (p99 only from MinJudgePauses pauses), the longest,
// full GCs, then the verdict.
func (h Headline) Line() finding.Text {
	var parts []finding.Text
	if h.Collector != "" {
		parts = append(parts, clause(lCollector, finding.T(h.Collector, h.Collector)))
	}
	tp, ok := throughput(h.ThroughputPct)
	if !ok {
		tp = lNA
	}
	parts = append(parts, clause(lThroughput, tp))
	p := finding.Tf(lTimes, h.Pauses)
	if h.Pauses > 0 {
		if percentiles(h.Pauses) {
			p = finding.Join(p, figure(finding.T("p99", "p99"), ms(h.PauseP99Ms)))
		}
		p = finding.Join(p, figure(lMax, ms(h.PauseMaxMs)))
	}
	parts = append(parts, clause(lPauses, p), clause(lFull, finding.Tf(lTimes, h.FullGCs)))
	var out finding.Text
	for i, t := range parts {
		if i > 0 {
			out = finding.Join(out, lClause)
		}
		out = finding.Join(out, t)
	}
	out = finding.Join(out, lEnd)
	if !h.Verdict.IsZero() {
		out = finding.Join(out, finding.T(" ", ""), h.Verdict)
	}
	return out
}

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

// pauseLine is the Pauses row: percentiles only when percentiles(n);
// the count, total and max otherwise.
func pauseLine(s Summary) finding.Text {
	switch {
	case s.Pauses == 0:
		return finding.T("0", "0")
	case !percentiles(s.Pauses):
		return finding.Join(finding.Tf(lTimes, s.Pauses), figure(lTotal, ms(s.PauseTotalMs)), figure(lMax, ms(s.PauseMaxMs)), finding.Tf(lFew, MinJudgePauses))
	}
	return finding.Join(finding.Tf(lTimes, s.Pauses), figure(lTotal, ms(s.PauseTotalMs)), figure(lAvg, ms(s.PauseAvgMs)),
		figure(finding.T("p50", "p50"), ms(s.PauseP50Ms)), figure(finding.T("p95", "p95"), ms(s.PauseP95Ms)),
		figure(finding.T("p99", "p99"), ms(s.PauseP99Ms)), figure(lMax, ms(s.PauseMaxMs)))
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
	if tp, ok := throughput(s.ThroughputPct); ok {
		row(lThroughput, finding.Join(tp, finding.Tf(lWorst, s.WorstWindowPct)).In(lang))
	} else {
		row(lThroughput, short)
	}
	row(lPauses, pauseLine(s).In(lang))
	row(lFull, finding.Join(finding.Tf(lTimes, s.FullGCs), finding.Tf(lExplicit, s.FullGCsExplicit, ms(s.FullGCMs))).In(lang))
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
