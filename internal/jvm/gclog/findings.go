package gclog

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Thresholds for the GC findings. Defaults cite where each comes from.
type Thresholds struct {
	// GC pause time as % of wall time: JMC GcPauseRatio scores INFO at 5 %
	// and WARNING at 10 % (60 s window); garbagecat's default throughput
	// threshold is 90 %.
	PauseRatioWarnPct, PauseRatioCritPct float64
	// Longest pause: JMC LongGcPause info limit 1000 ms.
	MaxPauseWarnMs float64
	// p99 pause: G1's default pause goal -XX:MaxGCPauseMillis=200.
	P99WarnMs, P99CritMs float64
	// Share of collections caused by System.gc(): JMC SystemGc ratio limit 0.5.
	ExplicitWarnRatio float64
	// G1 humongous-caused collections share (tuneloop; garbagecat
	// info.g1.humongous.allocation reports any).
	HumongousWarnRatio float64
	// Time to safepoint (tuneloop): a safepoint that takes this long to
	// reach stalls every thread; garbagecat warns when stopped time exceeds
	// GC time by 20 % (warn.gc.stopped.ratio).
	TTSPWarnMs, StoppedOverGCRatio float64
	// "GC is not the problem": throughput at least this and p99 at most this.
	OKThroughputPct, OKP99Ms float64
	// Leak suspicion (tuneloop, after GCViewer's post-GC slope and JMC
	// IncreasingLiveSet): fit quality, minimum span and growth as a share of the heap.
	LeakMinR2, LeakMinSpanS, LeakMinGrowthPct float64
}

// DefaultThresholds returns the thresholds documented on Thresholds.
func DefaultThresholds() Thresholds {
	return Thresholds{
		PauseRatioWarnPct: 5, PauseRatioCritPct: 10,
		MaxPauseWarnMs: 1000, P99WarnMs: 200, P99CritMs: 1000,
		ExplicitWarnRatio: 0.5, HumongousWarnRatio: 0.1,
		TTSPWarnMs: 100, StoppedOverGCRatio: 1.2,
		OKThroughputPct: 98, OKP99Ms: 100,
		LeakMinR2: 0.7, LeakMinSpanS: 300, LeakMinGrowthPct: 10,
	}
}

const (
	refJMC        = "JDK Mission Control automated analysis rules (openjdk/jmc, core/org.openjdk.jmc.flightrecorder.rules.jdk)"
	refGarbagecat = "garbagecat analysis keys (github.com/mgm3746/garbagecat, src/main/resources/META-INF/analysis.properties)"
	refGCeasy     = "GCeasy KPIs: throughput target > 95 % (blog.gceasy.io)"
	refOpenJ9GC   = "Eclipse OpenJ9 docs: Garbage collection policies, -Xconcurrentslack, -Xdisableexplicitgc (eclipse.dev/openj9/docs)"
	refG1Tuning   = "HotSpot GC Tuning Guide, Garbage-First (G1) Garbage Collector (docs.oracle.com/en/java/javase/21/gctuning)"
	refJEP158     = "JEP 158: Unified JVM Logging (OpenJDK)"
	refJavaXlog   = "The java command, -Xlog and -Xloggc (Oracle Java SE Tools Reference)"
)

func ms(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 1:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.3f ms", v)
}

func mb(kb float64) string { return units.FormatMiB(kb/1024, 0) }

// tooShort says why a ratio or pause statistic gets no severity.
func tooShort(s Summary) finding.Text {
	return finding.Tf(finding.T("Too short to judge (%d pauses over %.1f s): a severity needs at least %d pauses over %d s of log.",
		"记录太短，无法判断（%.1[2]f 秒内 %[1]d 次停顿）：至少需要 %[4]d 秒内 %[3]d 次停顿才能给出严重程度。"),
		s.Pauses, s.DurationS, MinJudgePauses, MinJudgeSpanS)
}

// Input is what the GC rules read: one log's (or one set's) summary and the
// name its findings are reported under.
type Input struct {
	S       Summary
	Subject string
	// Found holds the findings of the other rules; only the verdict rule
	// gc.not-the-bottleneck reads it (GC is fine only when nothing failed).
	Found []finding.Finding
	// Separate is how the files given were grouped by JVM, when they came
	// from more than one (only the grouping rule gc.separate-jvms reads it).
	Separate *Separation
}

// Separation is one JVM's files among the files given, and the other JVMs'.
type Separation struct {
	// Others names each other JVM's files.
	Others []string
}

// on starts an outcome about the log.
func (in *Input) on(st finding.Status) finding.Outcome {
	return finding.Outcome{Subject: in.Subject, Status: st}
}

// fail is a failing outcome of severity sev.
func (in *Input) fail(sev finding.Severity) finding.Outcome {
	return in.on(finding.Fail).WithSeverity(sev)
}

// ev is one reading from the log.
func (in *Input) ev(key, value string) finding.Evidence {
	return finding.Evidence{Key: key, Value: value, Source: in.Subject}
}

// gcPct is the share of time in GC pauses, -1 when it was not computed.
func (in *Input) gcPct() float64 {
	if in.S.ThroughputPct >= 0 {
		return 100 - in.S.ThroughputPct
	}
	return -1
}

func one(o finding.Outcome) []finding.Outcome { return []finding.Outcome{o} }

var (
	jvmOptionNote = finding.T("JVM option: add it where the service is started (start script, systemd unit, container spec) and restart.", "JVM 参数：加到服务的启动参数中（启动脚本、systemd 单元、容器配置）并重启。")
	allServices   = finding.T("All services.", "所有服务。")
	logGCAdvice   = finding.T("Log GC with: -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags:filecount=5,filesize=20M (JDK 9+) or -Xloggc:gc.log -XX:+PrintGCDetails -XX:+PrintGCDateStamps -XX:+PrintGCApplicationStoppedTime (JDK 8).",
		"用以下参数记录 GC：JDK 9+ 用 -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags:filecount=5,filesize=20M；JDK 8 用 -Xloggc:gc.log -XX:+PrintGCDetails -XX:+PrintGCDateStamps -XX:+PrintGCApplicationStoppedTime。")
	throughputAdvice = finding.T("Give the heap more room (-Xmx, and -Xmn / young size for Parallel and CMS) or cut allocation (see the allocation rate); check that the heap is not near full after GC.",
		"增大堆（-Xmx，Parallel/CMS 可调 -Xmn 年轻代），或降低对象分配速率（见分配速率）；确认 GC 之后堆占用没有接近上限。")
	pauseAdvice = finding.T("Find the cause of the longest pauses in the cause table. For G1 set a pause goal (-XX:MaxGCPauseMillis) and keep the heap from filling; for Parallel/Serial with large heaps consider G1, or ZGC/Shenandoah for sub-millisecond pauses (JDK 17+).",
		"在原因表中找到最长停顿的原因。G1 可设置停顿目标（-XX:MaxGCPauseMillis）并避免堆被占满；大堆的 Parallel/Serial 可考虑改用 G1；需要亚毫秒停顿时可用 ZGC/Shenandoah（JDK 17+）。")
	failureRisk = finding.T("More heap or earlier cycles cost memory and some CPU.", "增大堆或提前启动并发周期会多占内存和部分 CPU。")
)

// Findings turns a summary into findings: the one call that evaluates
// Rules(th). subject names the log (file name).
func Findings(s Summary, th Thresholds, subject string) []finding.Finding {
	in := &Input{S: s, Subject: subject}
	out := finding.Evaluate(checkRules(th), in)
	in.Found = out
	verdict := finding.Evaluate(verdictRules(th), in)
	// When GC is not the problem, that is the headline: put it first.
	return append(verdict, out...)
}

// Rules lists every GC rule: the checks, then the verdict that reads their
// findings, then the note on files of several JVMs (lists, docs and
// validation).
func Rules(th Thresholds) []finding.Rule[*Input] {
	return append(append(checkRules(th), verdictRules(th)...), groupingRules()...)
}

// groupingRules are evaluated where the files given are grouped by JVM
// (AnalyzeSets), on each JVM's report.
func groupingRules() []finding.Rule[*Input] {
	return []finding.Rule[*Input]{{
		ID: "gc.separate-jvms", Category: "gc", Severity: finding.Info,
		Title: finding.T("GC logs of several JVMs: analysed separately", "多个 JVM 的 GC 日志：分别分析"),
		Checks: finding.T("The files given are grouped by JVM (collector, JVM start time, pid, heap size, overlapping uptimes); with more than one JVM each report says which other files were analysed apart.",
			"给出的文件按 JVM 分组（收集器、JVM 启动时间、进程号、堆大小、运行时间重叠）；多于一个 JVM 时，每份报告说明哪些其他文件被单独分析。"),
		Why: finding.T("Pauses, throughput and heap trends of different JVMs added together describe no real JVM.",
			"把不同 JVM 的停顿、吞吐量与堆趋势加在一起，得到的结果不对应任何真实的 JVM。"),
		Recommended: finding.T("Compare the reports side by side; give one JVM's rotated files (gc.log, gc.log.0 ...) together to join them.",
			"并排比较各份报告；同一 JVM 的轮转文件（gc.log、gc.log.0 …）一起给出即可合并分析。"),
		Risk:       finding.T("None: a note on how the files were read.", "无：仅说明文件的读取方式。"),
		Workload:   allServices,
		Reads:      []string{"every GC log given: its header (JVM version, collector, pid, start time, heap) and uptimes"},
		References: []string{"HotSpot -Xlog file rotation (filecount, filesize) and -XX:+UseGCLogFileRotation"},
		Eval: func(in *Input) []finding.Outcome {
			if in.Separate == nil || len(in.Separate.Others) == 0 {
				return nil
			}
			o := in.on(finding.Fail)
			o.Observed = finding.Tf(finding.T("This report covers %s; the other files given (%s) were written by %d other JVM(s) and are analysed on their own.",
				"本报告只包含 %s；同时给出的其他文件（%s）来自另外 %d 个 JVM，已单独分析。"),
				in.Subject, strings.Join(in.Separate.Others, "; "), len(in.Separate.Others))
			return []finding.Outcome{o}
		},
	}}
}

func checkRules(th Thresholds) []finding.Rule[*Input] {
	rs := []finding.Rule[*Input]{
		{
			ID: "gc.no-events", Category: "gc", Severity: finding.Info,
			Title:      finding.T("No GC events in the log", "日志中没有 GC 事件"),
			Checks:     finding.T("Counts pauses, concurrent cycles and events read from the log; none at all means there is nothing to judge.", "统计从日志中读到的停顿、并发周期和事件；一个都没有时无从判断。"),
			Why:        finding.T("Every other GC finding rests on the events of the log: without them none can be judged.", "其他所有 GC 结论都以日志中的事件为依据：没有事件就无法判断。"),
			Risk:       finding.T("None: GC logging costs little, and with filecount/filesize rotation the log cannot fill the disk.", "无：记录 GC 日志开销很小，使用 filecount/filesize 轮转时日志不会占满磁盘。"),
			Workload:   allServices,
			Reads:      []string{"gc log: pauses, concurrent cycles, events"},
			References: []string{refJEP158, refJavaXlog},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.Pauses != 0 || s.ConcurrentCycles != 0 || s.Events != 0 {
					return nil
				}
				o := in.on(finding.Unavailable)
				o.Reason = finding.T("The log has no collections: it is empty, cut short, or written without -Xlog:gc / -XX:+PrintGCDetails.",
					"日志中没有任何回收记录：文件为空、被截断，或未使用 -Xlog:gc / -XX:+PrintGCDetails 输出。")
				o.Recommended = logGCAdvice
				return one(o)
			},
		},
		{
			ID: "gc.unparsed-lines", Category: "gc", Severity: finding.Info,
			Title:       finding.T("Some GC log lines were not understood", "部分 GC 日志行无法解析"),
			Checks:      finding.T("Counts the lines not read as GC events and shows the first five of each file.", "统计未能解析为 GC 事件的行，并列出每个文件的前五行。"),
			Why:         finding.T("An event that is not read is not counted: pauses or failures on those lines are missing from the numbers.", "未解析的事件不会被统计：这些行中的停顿或失败不在结果中。"),
			Recommended: finding.T("Check the listed lines; if they are GC events, report the format so it can be supported.", "检查所列的行；如果它们是 GC 事件，请反馈该格式以便支持。"),
			Risk:        finding.T("None: nothing is changed; the numbers may undercount until the format is supported.", "无：不做任何改动；在支持该格式之前，统计结果可能偏少。"),
			Workload:    allServices,
			Reads:       []string{"gc log: lines not understood (file and line)"},
			References:  []string{refJEP158, refJavaXlog},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.Unparsed <= 0 {
					return nil
				}
				o := in.fail(finding.Info)
				o.Observed = finding.Tf(finding.T("%d of %d lines were not read as GC events; KPIs exclude them.", "%d / %d 行未能解析为 GC 事件，KPI 未包含这些行。"), s.Unparsed, s.Lines)
				for _, fs := range s.Files {
					for i, is := range fs.Issues {
						if i >= 5 {
							break
						}
						o.Evidence = append(o.Evidence, finding.Evidence{Key: "unparsed", Value: is.Error(), Source: fs.Name})
					}
				}
				return one(o)
			},
		},
		{
			ID: "gc.throughput-low", Category: "gc", Severity: finding.Warning,
			Title: finding.T("Time spent in GC pauses", "GC 停顿占用的时间"),
			Checks: finding.Tf(finding.T("Share of wall time in GC pauses: warning from %.0f %% (or a 60 s window at %.0f %%), critical from %.0f %%; needs timestamps and %d pauses over %d s.",
				"GC 停顿占墙钟时间的比例：%.0f%% 起为警告（或某 60 秒窗口达 %.0f%%），%.0f%% 起为严重；需要时间戳，且 %d 秒内至少 %d 次停顿。"),
				th.PauseRatioWarnPct, th.PauseRatioCritPct, th.PauseRatioCritPct, MinJudgePauses, MinJudgeSpanS),
			Why: finding.T("While a stop-the-world pause runs no application thread makes progress; above 5 % of the time GC visibly costs throughput and latency.",
				"STW 停顿期间所有应用线程都停止；GC 占用超过 5% 的时间时，吞吐量与延迟会受到明显影响。"),
			Recommended: throughputAdvice,
			Risk:        finding.T("A larger heap needs more memory and can lengthen full GC pauses of Serial/Parallel.", "更大的堆需要更多内存，并可能延长 Serial/Parallel 的 Full GC 停顿。"),
			Workload:    allServices,
			Reads:       []string{"gc log: pause total, log duration, worst 60 s window"},
			References:  []string{refJMC + ": GcPauseRatio info 5 %, warning 10 %", refGarbagecat + ": throughput threshold 90 %", refGCeasy},
			Eval: func(in *Input) []finding.Outcome {
				s, gcPct := in.S, in.gcPct()
				switch {
				case gcPct < 0 && !s.HasTime:
					o := in.on(finding.Unavailable)
					o.Reason = finding.T("The log has no timestamps, so the share of time in GC cannot be computed (add -XX:+PrintGCDateStamps / the uptime decorator).",
						"日志没有时间戳，无法计算 GC 时间占比（请加 -XX:+PrintGCDateStamps 或 uptime 装饰符）。")
					return one(o)
				case gcPct < 0:
					o := in.on(finding.Unavailable)
					o.Reason = tooShort(s)
					o.Evidence = []finding.Evidence{in.ev("pauses", fmt.Sprint(s.Pauses)), in.ev("duration_s", fmt.Sprintf("%.3f", s.DurationS))}
					return one(o)
				}
				var o finding.Outcome
				switch {
				case gcPct >= th.PauseRatioCritPct:
					o = in.fail(finding.Critical)
				case gcPct >= th.PauseRatioWarnPct || s.WorstWindowPct >= th.PauseRatioCritPct:
					o = in.fail(finding.Warning)
				default:
					o = in.on(finding.Pass)
				}
				o.Recommended = throughputAdvice // with every reading, pass or fail
				o.Observed = finding.Tf(finding.T("Throughput %.2f %%: %.2f %% of %.0f s in %d GC pauses (%s); worst 60 s window %.1f %% in GC.",
					"吞吐量 %.2f%%：GC 停顿占 %.2f%%（%.0f 秒内 %d 次停顿，合计 %s）；最差的 60 秒窗口中 GC 占 %.1f%%。"),
					s.ThroughputPct, gcPct, s.DurationS, s.Pauses, ms(s.PauseTotalMs), s.WorstWindowPct)
				o.Evidence = []finding.Evidence{
					in.ev("throughput_pct", fmt.Sprintf("%.2f", s.ThroughputPct)),
					in.ev("pause_total_ms", fmt.Sprintf("%.1f", s.PauseTotalMs)),
					in.ev("duration_s", fmt.Sprintf("%.1f", s.DurationS)),
					in.ev("worst_60s_window_pct", fmt.Sprintf("%.1f", s.WorstWindowPct)),
				}
				if !s.WorstWindowWall.IsZero() && o.Status == finding.Fail {
					w := time.Duration(math.Min(60, s.DurationS) * float64(time.Second))
					o.Window = &finding.Window{From: s.WorstWindowWall.Add(-w), To: s.WorstWindowWall}
				}
				return one(o)
			},
		},
		{
			ID: "gc.long-pause", Category: "gc", Severity: finding.Warning,
			Title: finding.T("GC pause times", "GC 停顿时长"),
			Checks: finding.Tf(finding.T("Pause percentiles: warning when the longest pause reaches %.0f ms or p99 exceeds %.0f ms, critical when p99 reaches %.0f ms; needs %d pauses.",
				"停顿百分位：最长停顿达到 %.0f ms 或 p99 超过 %.0f ms 为警告，p99 达到 %.0f ms 为严重；至少需要 %d 次停顿。"),
				th.MaxPauseWarnMs, th.P99WarnMs, th.P99CritMs, MinJudgePauses),
			Why: finding.T("Every request in flight during a pause waits for it: the p99 pause adds directly to tail latency.",
				"停顿期间所有在途请求都要等待：p99 停顿会直接叠加到尾延迟上。"),
			Recommended: pauseAdvice,
			Risk:        finding.T("Changing collector changes throughput and memory use: measure again under the same load.", "更换收集器会改变吞吐量与内存占用：请在相同负载下重新测量。"),
			Workload:    finding.T("All services; latency-sensitive ones most.", "所有服务，对延迟敏感的服务尤甚。"),
			Reads:       []string{"gc log: pause durations (p50, p95, p99, max), pauses by cause"},
			References:  []string{refJMC + ": LongGcPause info limit 1000 ms", refG1Tuning + ": default -XX:MaxGCPauseMillis=200"},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.Pauses <= 0 {
					return nil
				}
				var o finding.Outcome
				switch {
				case s.Pauses < MinJudgePauses:
					o = in.on(finding.Unavailable)
					o.Reason = tooShort(s)
				case s.PauseP99Ms >= th.P99CritMs:
					o = in.fail(finding.Critical)
				case s.PauseMaxMs >= th.MaxPauseWarnMs || s.PauseP99Ms > th.P99WarnMs:
					o = in.fail(finding.Warning)
				default:
					o = in.on(finding.Pass)
				}
				o.Recommended = pauseAdvice // with every status, as the advice on pauses in general
				o.Observed = finding.Tf(finding.T("%d pauses: avg %s, p50 %s, p95 %s, p99 %s, max %s.", "%d 次停顿：平均 %s，p50 %s，p95 %s，p99 %s，最长 %s。"),
					s.Pauses, ms(s.PauseAvgMs), ms(s.PauseP50Ms), ms(s.PauseP95Ms), ms(s.PauseP99Ms), ms(s.PauseMaxMs))
				o.Evidence = []finding.Evidence{
					in.ev("pause_p99_ms", fmt.Sprintf("%.2f", s.PauseP99Ms)),
					in.ev("pause_max_ms", fmt.Sprintf("%.2f", s.PauseMaxMs)),
					in.ev("pause_max_at_s", fmt.Sprintf("%.3f", s.PauseMaxAt)),
				}
				if s.Pauses < MinJudgePauses { // percentiles of a handful are its values: count and max
					o.Observed = finding.Tf(finding.T("%d pauses, max %s.", "%d 次停顿，最长 %s。"), s.Pauses, ms(s.PauseMaxMs))
					o.Evidence = o.Evidence[1:]
				}
				if len(s.ByCause) > 0 {
					c := s.ByCause[0]
					o.Evidence = append(o.Evidence, in.ev("top_cause", fmt.Sprintf("%s: %d pauses, %s total, max %s", c.Name, c.Count, ms(c.TotalMs), ms(c.MaxMs))))
				}
				if !s.PauseMaxWall.IsZero() && o.Status == finding.Fail {
					// the longest pause
					o.Window = &finding.Window{From: s.PauseMaxWall, To: s.PauseMaxWall.Add(time.Duration(s.PauseMaxMs * float64(time.Millisecond)))}
				}
				return one(o)
			},
		},
		fullGCRule(),
	}
	rs = append(rs, failureRules()...)
	return append(rs, causeRules(th)...)
}

func fullGCRule() finding.Rule[*Input] {
	concurrentWhy := finding.T("With a concurrent collector a Full GC means the concurrent work fell behind allocation, and the fallback is a long single stop-the-world pause.",
		"对并发收集器而言，Full GC 说明并发回收跟不上分配速度，只能退化为一次长时间的 STW 停顿。")
	return finding.Rule[*Input]{
		ID: "gc.full-gc", Category: "gc", Severity: finding.Warning,
		Title: finding.T("Full GCs", "Full GC"),
		Checks: finding.T("Counts full GCs not requested by System.gc() and degenerated GCs: a warning with a concurrent collector (CMS, G1, Shenandoah, ZGC, OpenJ9 gencon/balanced), info with Serial/Parallel unless they take half of the pause time.",
			"统计非 System.gc() 触发的 Full GC 与退化 GC：并发收集器（CMS、G1、Shenandoah、ZGC、OpenJ9 gencon/balanced）下为警告，Serial/Parallel 下为提示，除非其占停顿时间的一半以上。"),
		Why:        concurrentWhy,
		Risk:       finding.T("Tuning changes memory use; verify with a new GC log under the same load.", "调优会改变内存占用；请在相同负载下用新的 GC 日志验证。"),
		Workload:   allServices,
		Reads:      []string{"gc log: full GCs and their causes, degenerated GCs, pause total, collector"},
		References: []string{refJMC + ": FullGc (any Full GC with CMS or G1 is WARNING), GcStall", refGarbagecat + ": error.serial.gc.g1"},
		Eval: func(in *Input) []finding.Outcome {
			s := in.S
			full := s.FullGCs - s.FullGCsExplicit + s.Degenerated
			if full <= 0 {
				return nil
			}
			var o finding.Outcome
			if s.Collector.Concurrent() {
				o = in.fail(finding.Warning)
				// Only the collector in use's options: CMS's are refused from JDK 14.
				switch s.Collector {
				case CMS:
					o.Recommended = finding.T("Start CMS cycles earlier (-XX:CMSInitiatingOccupancyFraction=70 -XX:+UseCMSInitiatingOccupancyOnly), add heap, or reduce allocation. Full GCs caused by Metadata GC Threshold need -XX:MetaspaceSize instead.",
						"让 CMS 周期更早开始（-XX:CMSInitiatingOccupancyFraction=70 -XX:+UseCMSInitiatingOccupancyOnly），增大堆或降低分配速率。由 Metadata GC Threshold 引起的 Full GC 应调整 -XX:MetaspaceSize。")
				case G1:
					o.Recommended = finding.T("Start concurrent cycles earlier (lower -XX:InitiatingHeapOccupancyPercent or raise -XX:G1ReservePercent), add heap, or reduce allocation. Full GCs caused by Metadata GC Threshold need -XX:MetaspaceSize instead.",
						"让并发周期更早开始（降低 -XX:InitiatingHeapOccupancyPercent 或提高 -XX:G1ReservePercent），增大堆或降低分配速率。由 Metadata GC Threshold 引起的 Full GC 应调整 -XX:MetaspaceSize。")
				default:
					o.Recommended = finding.T("Give the concurrent collector headroom: add heap (-Xmx) or reduce allocation. Full GCs caused by Metadata GC Threshold need -XX:MetaspaceSize instead.",
						"给并发收集器留足余量：增大堆（-Xmx）或降低分配速率。由 Metadata GC Threshold 引起的 Full GC 应调整 -XX:MetaspaceSize。")
				}
				if s.Collector.OpenJ9() {
					// OpenJ9 takes no -XX GC tuning flags: its own options.
					o.Why = finding.T("With OpenJ9's concurrent policies a global collection forced by an allocation failure means concurrent marking did not finish before the tenure area filled, and the whole heap is collected in one stop-the-world pause.",
						"对 OpenJ9 的并发策略而言，由分配失败触发的全局回收说明并发标记在老年代（tenure）填满之前未能完成，只能在一次 STW 停顿中回收整个堆。")
					o.Recommended = finding.T("Start concurrent marking earlier with -Xconcurrentslack<size> (e.g. -Xconcurrentslack64m), give the tenure area more room (-Xmx, or a smaller nursery with -Xmn), or reduce allocation.",
						"用 -Xconcurrentslack<size>（例如 -Xconcurrentslack64m）让并发标记更早开始，给老年代（tenure）更多空间（增大 -Xmx，或用 -Xmn 缩小新生代），或降低分配速率。")
					o.References = []string{refOpenJ9GC}
				}
			} else {
				o = in.fail(finding.Info)
				if s.PauseTotalMs > 0 && (s.FullGCMs+s.DegeneratedMs)/s.PauseTotalMs >= 0.5 {
					o = o.WithSeverity(finding.Warning)
				}
				o.Why = finding.T("Serial and Parallel collect the old generation only in full GCs, so some are normal; they matter when they dominate pause time.",
					"Serial 与 Parallel 只在 Full GC 中回收老年代，偶尔出现属正常；当其占据大部分停顿时间时才需要处理。")
				o.Recommended = finding.T("If full GCs dominate pause time, enlarge the old generation (-Xmx) or look for objects kept too long; for latency-sensitive services consider G1.",
					"如果 Full GC 占据大部分停顿时间，请增大老年代（-Xmx）或排查被长期持有的对象；对延迟敏感的服务可考虑 G1。")
			}
			if s.Degenerated > 0 {
				o.Title = finding.T("Full or degenerated GCs", "Full GC 或退化 GC")
			}
			// Full and degenerated GCs are counted apart, each with its own
			// pause time, as in the summary (FullGCs/FullGCMs, Degenerated/DegeneratedMs).
			o.Observed = finding.Tf(finding.T("%d full GCs (%s, %d of them requested by System.gc()) and %d degenerated GCs (%s), with %s.",
				"%d 次 Full GC（%s，其中 %d 次由 System.gc() 触发）和 %d 次退化 GC（%s），收集器 %s。"),
				s.FullGCs, ms(s.FullGCMs), s.FullGCsExplicit, s.Degenerated, ms(s.DegeneratedMs), s.Collector.String())
			o.Evidence = []finding.Evidence{in.ev("full_gcs", fmt.Sprint(s.FullGCs)), in.ev("full_gc_ms", fmt.Sprintf("%.1f", s.FullGCMs)),
				in.ev("degenerated", fmt.Sprint(s.Degenerated)), in.ev("degenerated_ms", fmt.Sprintf("%.1f", s.DegeneratedMs)),
				in.ev("metadata_gcs", fmt.Sprint(s.MetadataGCs))}
			return one(o)
		},
	}
}

// failureRules are the collector failures: any one is critical.
func failureRules() []finding.Rule[*Input] {
	failure := func(id string, count func(*Summary) int, title, why, rec finding.Text, workload finding.Text, ref string) finding.Rule[*Input] {
		return finding.Rule[*Input]{
			ID: id, Category: "gc", Severity: finding.Critical, Title: title,
			Checks:      finding.Tf(finding.T("Counts \"%s\" events in the log: any is critical.", "统计日志中的“%s”事件：出现即为严重。"), title),
			Why:         why,
			Recommended: rec,
			Risk:        failureRisk,
			Workload:    workload,
			Reads:       []string{"gc log: " + strings.TrimPrefix(id, "gc.") + " events"},
			References:  []string{ref},
			Eval: func(in *Input) []finding.Outcome {
				n := count(&in.S)
				if n == 0 {
					return nil
				}
				o := in.on(finding.Fail)
				o.Observed = finding.Tf(finding.T("%d times in this log.", "本日志中出现 %d 次。"), n)
				o.Evidence = []finding.Evidence{in.ev(strings.TrimPrefix(id, "gc."), fmt.Sprint(n))}
				return one(o)
			},
		}
	}
	return []finding.Rule[*Input]{
		failure("gc.concurrent-mode-failure", func(s *Summary) int { return s.ConcModeFailures },
			finding.T("CMS concurrent mode failure", "CMS 并发模式失败（concurrent mode failure）"),
			finding.T("The old generation filled before the concurrent CMS cycle finished, so the JVM stopped everything for a single-threaded full collection.",
				"老年代在 CMS 并发周期完成前被占满，JVM 只能停止所有线程执行单线程 Full GC。"),
			finding.T("Start CMS earlier: -XX:CMSInitiatingOccupancyFraction=70 -XX:+UseCMSInitiatingOccupancyOnly; give the old generation more room; CMS is removed in JDK 14, so plan a move to G1.",
				"让 CMS 更早开始：-XX:CMSInitiatingOccupancyFraction=70 -XX:+UseCMSInitiatingOccupancyOnly；增大老年代；CMS 已在 JDK 14 移除，应计划迁移到 G1。"),
			finding.T("Services on CMS (JDK 13 and older).", "使用 CMS 的服务（JDK 13 及更早）。"),
			refGarbagecat+": error.cms.concurrent.mode.failure; "+refJMC+": GcStall (WARNING on any concurrent mode failure)"),
		failure("gc.promotion-failed", func(s *Summary) int { return s.PromotionFailed },
			finding.T("Promotion failed", "晋升失败（promotion failed）"),
			finding.T("Young survivors did not fit into the old generation (full or fragmented), so the young collection turned into a long full collection.",
				"年轻代存活对象无法放入老年代（已满或碎片化），年轻代回收因此变成一次长时间的 Full GC。"),
			finding.T("Enlarge the old generation or start old collections earlier; for CMS fragmentation, move to G1.",
				"增大老年代或更早开始老年代回收；若为 CMS 碎片问题，迁移到 G1。"),
			finding.T("Services on generational collectors (CMS, Parallel, Serial).", "使用分代收集器（CMS、Parallel、Serial）的服务。"),
			refGarbagecat+": error.cms.promotion.failed"),
		failure("gc.evacuation-failure", func(s *Summary) int { return s.ToSpaceExhausted },
			finding.T("G1 evacuation failure (to-space exhausted)", "G1 疏散失败（to-space exhausted）"),
			finding.T("G1 found no free regions to copy live objects into; such pauses are long and are often followed by a full GC.",
				"G1 找不到空闲 Region 来复制存活对象；这类停顿很长，且常常紧接着 Full GC。"),
			finding.T("Add heap, raise -XX:G1ReservePercent (default 10), start marking earlier (-XX:InitiatingHeapOccupancyPercent), and check humongous allocations.",
				"增大堆、提高 -XX:G1ReservePercent（默认 10）、更早开始并发标记（-XX:InitiatingHeapOccupancyPercent），并检查大对象（humongous）分配。"),
			finding.T("Services on G1.", "使用 G1 的服务。"),
			refGarbagecat+": error.g1.evacuation.failure"),
		failure("gc.out-of-memory", func(s *Summary) int { return s.OutOfMemory },
			finding.T("The collector ran out of memory", "收集器内存耗尽（Out Of Memory）"),
			finding.T("ZGC could not satisfy an allocation even after collecting: the application gets OutOfMemoryError.",
				"ZGC 回收后仍无法满足分配请求：应用会收到 OutOfMemoryError。"),
			finding.T("Increase -Xmx or find what holds the memory (heap dump: jcmd <pid> GC.heap_dump).",
				"增大 -Xmx，或找出占用内存的对象（堆转储：jcmd <pid> GC.heap_dump）。"),
			finding.T("Services on ZGC.", "使用 ZGC 的服务。"),
			refJMC+": ZGCAllocationStallRule"),
	}
}

// causeRules look at why collections ran and what stopped the application
// besides collecting.
func causeRules(th Thresholds) []finding.Rule[*Input] {
	explicitRefs := []string{refJMC + ": SystemGc ratio limit 0.5", refGarbagecat + ": warn.explicit.gc.*"}
	return []finding.Rule[*Input]{
		{
			ID: "gc.explicit-system-gc", Category: "gc", Severity: finding.Info,
			Title: finding.T("Collections requested by System.gc()", "由 System.gc() 触发的回收"),
			Checks: finding.Tf(finding.T("Share of collections caused by System.gc(): info for any, warning from %.0f %%.", "由 System.gc() 触发的回收占比：出现即提示，%.0f%% 起为警告。"),
				100*th.ExplicitWarnRatio),
			Why: finding.T("System.gc() forces a collection (a full one for most collectors) whether or not the heap needs it; RMI's distributed GC and some libraries call it periodically.",
				"System.gc() 不管堆是否需要都会强制回收（多数收集器下是 Full GC）；RMI 分布式 GC 和部分类库会定期调用它。"),
			Recommended: finding.T("Remove the calls; or make them concurrent with -XX:+ExplicitGCInvokesConcurrent (G1/CMS); or ignore them with -XX:+DisableExplicitGC.",
				"去掉这些调用；或用 -XX:+ExplicitGCInvokesConcurrent 使其并发执行（G1/CMS）；或用 -XX:+DisableExplicitGC 忽略。"),
			Fix: finding.Fix{Apply: "JAVA_OPTS += -XX:+ExplicitGCInvokesConcurrent", Revert: "JAVA_OPTS -= -XX:+ExplicitGCInvokesConcurrent", Note: jvmOptionNote},
			Risk: finding.T("-XX:+DisableExplicitGC also stops the System.gc() that NIO uses to free direct buffers when -XX:MaxDirectMemorySize is reached; prefer ExplicitGCInvokesConcurrent.",
				"-XX:+DisableExplicitGC 也会屏蔽 NIO 在直接内存达到 -XX:MaxDirectMemorySize 时用来释放 DirectBuffer 的 System.gc()；优先使用 ExplicitGCInvokesConcurrent。"),
			Workload:   finding.T("Services whose code, libraries or RMI call System.gc().", "代码、类库或 RMI 会调用 System.gc() 的服务。"),
			Reads:      []string{"gc log: collection causes (System.gc()), collections, full GCs"},
			References: explicitRefs,
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.ExplicitGCs <= 0 {
					return nil
				}
				colls := max(s.Collections, s.ExplicitGCs)
				ratio := float64(s.ExplicitGCs) / float64(colls)
				o := in.fail(finding.Info)
				if ratio >= th.ExplicitWarnRatio {
					o = o.WithSeverity(finding.Warning)
				}
				o.Observed = finding.Tf(finding.T("%d of %d collections were caused by System.gc() (%.0f %%), %d of them full GCs.", "%d / %d 次回收由 System.gc() 触发（%.0f%%），其中 %d 次为 Full GC。"),
					s.ExplicitGCs, colls, 100*ratio, s.FullGCsExplicit)
				o.Evidence = []finding.Evidence{in.ev("explicit_gcs", fmt.Sprint(s.ExplicitGCs))}
				if s.Collector.OpenJ9() {
					o.Recommended = finding.T("Remove the calls, or ignore them with -Xdisableexplicitgc (OpenJ9 has no -XX:+ExplicitGCInvokesConcurrent).",
						"去掉这些调用，或用 -Xdisableexplicitgc 忽略它们（OpenJ9 没有 -XX:+ExplicitGCInvokesConcurrent）。")
					o.Fix = finding.Fix{Apply: "JAVA_OPTS += -Xdisableexplicitgc", Revert: "JAVA_OPTS -= -Xdisableexplicitgc", Note: jvmOptionNote}
					o.Risk = finding.T("-Xdisableexplicitgc also stops the System.gc() that NIO uses to free direct buffers when -XX:MaxDirectMemorySize is reached.",
						"-Xdisableexplicitgc 也会屏蔽 NIO 在直接内存达到 -XX:MaxDirectMemorySize 时用来释放 DirectBuffer 的 System.gc()。")
					o.References = append(append([]string(nil), explicitRefs...), refOpenJ9GC)
				}
				return one(o)
			},
		},
		{
			ID: "gc.metaspace-threshold", Category: "gc", Severity: finding.Info,
			Title:  finding.T("Collections triggered by Metaspace filling up", "由 Metaspace 占满触发的回收"),
			Checks: finding.T("Counts collections with cause Metadata GC Threshold or Last ditch collection: info from 2, warning from 5.", "统计原因为 Metadata GC Threshold 或 Last ditch collection 的回收：2 次起为提示，5 次起为警告。"),
			Why: finding.T("When class metadata reaches the Metaspace high-water mark the JVM collects (a full GC with Serial/Parallel/CMS) to unload classes; a low initial mark repeats this while the application loads its classes, and repeated ones later point at a class-loader leak.",
				"类元数据达到 Metaspace 高水位时，JVM 会执行回收（Serial/Parallel/CMS 下为 Full GC）以卸载类；初始水位过低会在应用加载类期间反复触发，之后仍反复出现则可能是类加载器泄漏。"),
			Recommended: finding.T("Raise the initial high-water mark to what the application needs after start-up, e.g. -XX:MetaspaceSize=256m; if they continue in steady state, look for class-loader leaks (jcmd <pid> VM.classloader_stats).",
				"将初始高水位设为应用启动后所需的大小，例如 -XX:MetaspaceSize=256m；若稳定运行后仍持续出现，请排查类加载器泄漏（jcmd <pid> VM.classloader_stats）。"),
			Fix:        finding.Fix{Apply: "JAVA_OPTS += -XX:MetaspaceSize=256m", Revert: "JAVA_OPTS -= -XX:MetaspaceSize=256m", Note: jvmOptionNote},
			Risk:       finding.T("A higher mark lets Metaspace grow further before classes are unloaded.", "更高的水位会让 Metaspace 在卸载类之前增长得更多。"),
			Workload:   finding.T("HotSpot services that load many classes (frameworks, plug-ins, scripting).", "加载大量类的 HotSpot 服务（框架、插件、脚本）。"),
			Reads:      []string{"gc log: collection causes (Metadata GC Threshold, Last ditch collection)"},
			References: []string{"HotSpot VM options: -XX:MetaspaceSize (initial Metaspace high-water mark)", refJMC + ": MetaspaceOom"},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.MetadataGCs < 2 {
					return nil
				}
				o := in.fail(finding.Info)
				if s.MetadataGCs >= 5 {
					o = o.WithSeverity(finding.Warning)
				}
				o.Observed = finding.Tf(finding.T("%d collections had cause Metadata GC Threshold / Last ditch collection.", "%d 次回收的原因是 Metadata GC Threshold / Last ditch collection。"), s.MetadataGCs)
				o.Evidence = []finding.Evidence{in.ev("metadata_gcs", fmt.Sprint(s.MetadataGCs))}
				return one(o)
			},
		},
		{
			ID: "gc.gclocker", Category: "gc", Severity: finding.Info, // JMC scores GcLocker at most INFO
			Title:  finding.T("Collections initiated by the GC locker (JNI critical regions)", "由 GC Locker（JNI 临界区）触发的回收"),
			Checks: finding.T("Counts collections with cause GCLocker Initiated GC: info for any.", "统计原因为 GCLocker Initiated GC 的回收：出现即提示。"),
			Why: finding.T("Native code holding arrays with JNI Get*Critical blocks GC; the collection waits and runs when the last thread leaves, and threads needing memory stall meanwhile.",
				"本地代码通过 JNI Get*Critical 持有数组时会阻止 GC；回收要等最后一个线程离开临界区才执行，期间需要分配内存的线程会被阻塞。"),
			Recommended: finding.T("Find the native library (compression, crypto, image codecs) and shorten its critical regions or upgrade it.",
				"找出使用临界区的本地库（压缩、加密、图像编解码等），缩短其临界区或升级版本。"),
			Risk:       finding.T("Upgrading or changing a native library needs its own testing; nothing is changed by this finding.", "升级或更换本地库需要单独测试；本结论本身不做任何改动。"),
			Workload:   finding.T("Services using native libraries through JNI.", "通过 JNI 使用本地库的服务。"),
			Reads:      []string{"gc log: collection causes (GCLocker Initiated GC), collections"},
			References: []string{refJMC + ": GcLocker ratio 0.1", refGarbagecat + ": error.gc.locker.retry"},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.GCLockerGCs <= 0 || s.Collections <= 0 {
					return nil
				}
				ratio := float64(s.GCLockerGCs) / float64(s.Collections)
				o := in.fail(finding.Info)
				o.Observed = finding.Tf(finding.T("%d collections (%.0f %%) had cause GCLocker Initiated GC.", "%d 次回收（%.0f%%）的原因是 GCLocker Initiated GC。"), s.GCLockerGCs, 100*ratio)
				o.Evidence = []finding.Evidence{in.ev("gclocker_gcs", fmt.Sprint(s.GCLockerGCs))}
				return one(o)
			},
		},
		{
			ID: "gc.humongous", Category: "gc", Severity: finding.Info,
			Title: finding.T("G1 humongous allocations", "G1 大对象（humongous）分配"),
			Checks: finding.Tf(finding.T("Counts collections triggered by or seeing humongous objects: info for any, warning from %.0f %% of collections.", "统计由大对象触发或包含大对象的回收：出现即提示，占回收次数 %.0f%% 起为警告。"),
				100*th.HumongousWarnRatio),
			Why: finding.T("Objects of half a region or more are allocated straight into old-generation regions; they fragment the heap, start marking cycles early and can cause evacuation failures.",
				"不小于半个 Region 的对象直接分配到老年代 Region；它们造成碎片、提前触发并发标记，并可能导致疏散失败。"),
			Recommended: finding.T("Raise the region size so these objects are no longer humongous (-XX:G1HeapRegionSize=16m or 32m), or allocate smaller buffers/arrays.",
				"增大 Region 大小使这些对象不再是大对象（-XX:G1HeapRegionSize=16m 或 32m），或改用更小的缓冲区/数组。"),
			Fix:        finding.Fix{Apply: "JAVA_OPTS += -XX:G1HeapRegionSize=16m", Revert: "JAVA_OPTS -= -XX:G1HeapRegionSize=16m", Note: jvmOptionNote},
			Risk:       finding.T("Fewer, larger regions make G1 less precise in choosing what to collect.", "Region 更大更少会让 G1 选择回收对象时不够精细。"),
			Workload:   finding.T("Services on G1.", "使用 G1 的服务。"),
			Reads:      []string{"gc log: humongous collections and regions, collections"},
			References: []string{refGarbagecat + ": info.g1.humongous.allocation", refG1Tuning},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.HumongousGCs <= 0 {
					return nil
				}
				ratio := 0.0
				if s.Collections > 0 {
					ratio = float64(s.HumongousGCs) / float64(s.Collections)
				}
				o := in.fail(finding.Info)
				if ratio >= th.HumongousWarnRatio {
					o = o.WithSeverity(finding.Warning)
				}
				o.Observed = finding.Tf(finding.T("%d collections were triggered by or saw humongous objects (%.0f %% of collections).", "%d 次回收由大对象触发或包含大对象（占回收次数 %.0f%%）。"),
					s.HumongousGCs, 100*ratio)
				o.Evidence = []finding.Evidence{in.ev("humongous_gcs", fmt.Sprint(s.HumongousGCs))}
				return one(o)
			},
		},
		{
			ID: "gc.allocation-stall", Category: "gc", Severity: finding.Warning,
			Title:  finding.T("ZGC allocation stalls", "ZGC 分配停顿（Allocation Stall）"),
			Checks: finding.T("Counts ZGC allocation stalls: a warning for any.", "统计 ZGC 分配停顿：出现即警告。"),
			Why: finding.T("Application threads were blocked because the heap ran out before ZGC finished a cycle: these waits are latency, though not 'pauses'.",
				"ZGC 完成一个周期前堆已耗尽，应用线程因此被阻塞：这些等待虽不是“停顿”，但同样计入延迟。"),
			Recommended: finding.T("Give ZGC headroom: raise -Xmx (or lower -XX:SoftMaxHeapSize less aggressively), add -XX:ConcGCThreads, or reduce allocation.",
				"给 ZGC 留足余量：增大 -Xmx（或放宽 -XX:SoftMaxHeapSize），增加 -XX:ConcGCThreads，或降低分配速率。"),
			Risk:       finding.T("More heap or GC threads cost memory and CPU.", "更大的堆或更多 GC 线程会占用更多内存和 CPU。"),
			Workload:   finding.T("Services on ZGC.", "使用 ZGC 的服务。"),
			Reads:      []string{"gc log: allocation stalls (count, total, longest)"},
			References: []string{refJMC + ": ZGCAllocationStallRule"},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.Stalls <= 0 {
					return nil
				}
				o := in.fail(finding.Warning)
				o.Observed = finding.Tf(finding.T("%d stalls, %s in total, longest %s.", "%d 次停顿，合计 %s，最长 %s。"), s.Stalls, ms(s.StallTotalMs), ms(s.StallMaxMs))
				o.Evidence = []finding.Evidence{in.ev("stall_total_ms", fmt.Sprintf("%.1f", s.StallTotalMs))}
				return one(o)
			},
		},
		leakRule(th),
		safepointRule(th),
		{
			ID: "gc.sys-gt-user", Category: "gc", Severity: finding.Warning,
			Title:  finding.T("GC spends more time in the kernel than in user space", "GC 的内核态时间多于用户态"),
			Checks: finding.T("Counts collections whose sys time exceeds user time: a warning when at least 3 and 10 % of 10 or more timed collections.", "统计 sys 时间大于 user 时间的回收：在至少 10 次带 CPU 时间的回收中达到 3 次且占 10% 时为警告。"),
			Why: finding.T("GC work is user-space copying and marking; high sys time points at swapping, transparent huge page compaction or memory being committed/uncommitted.",
				"GC 工作主要是用户态的复制与标记；sys 时间高通常意味着 swap、透明大页整理或内存的提交/释放。"),
			Recommended: finding.T("Check swap use (vmstat si/so), set transparent_hugepage to madvise, and use -Xms equal to -Xmx with -XX:+AlwaysPreTouch.",
				"检查 swap（vmstat si/so），将 transparent_hugepage 设为 madvise，并设置 -Xms 等于 -Xmx 且加 -XX:+AlwaysPreTouch。"),
			Risk:       finding.T("-XX:+AlwaysPreTouch touches every heap page at start-up: start-up is slower and the whole heap is committed at once.", "-XX:+AlwaysPreTouch 在启动时访问每个堆页：启动变慢，并一次性提交整个堆。"),
			Workload:   allServices,
			Reads:      []string{"gc log: user, sys and real time of each collection"},
			References: []string{refGarbagecat + ": warn.sys.gt.user"},
			Eval: func(in *Input) []finding.Outcome {
				s := in.S
				if s.CPUEvents < 10 || s.SysGtUser < 3 || float64(s.SysGtUser) < 0.1*float64(s.CPUEvents) {
					return nil
				}
				o := in.fail(finding.Warning)
				o.Observed = finding.Tf(finding.T("%d of %d collections had sys > user time.", "%d / %d 次回收的 sys 时间大于 user 时间。"), s.SysGtUser, s.CPUEvents)
				return one(o)
			},
		},
	}
}

func leakRule(th Thresholds) finding.Rule[*Input] {
	return finding.Rule[*Input]{
		ID: "gc.leak-suspected", Category: "gc", Severity: finding.Warning,
		Title: finding.T("Heap after GC trend", "GC 后堆占用趋势"),
		Checks: finding.Tf(finding.T("Fits a line to the heap after GC: a warning when it grows by %.0f %% of the heap or more with R² at least %.1f, over 8 points and %.0f s or more.",
			"对 GC 后堆占用做线性拟合：在至少 8 个点、%.0[3]f 秒以上的数据中，增长达到堆的 %.0[1]f%% 且 R² 不低于 %.1[2]f 时为警告。"),
			th.LeakMinGrowthPct, th.LeakMinR2, th.LeakMinSpanS),
		Why: finding.T("Memory that survives every collection keeps growing: if it does not level off, the JVM ends in back-to-back full GCs and OutOfMemoryError.",
			"每次回收后仍存活的内存持续增长：如果不趋于平稳，JVM 最终会陷入连续 Full GC 并抛出 OutOfMemoryError。"),
		Recommended: finding.T("Take two heap dumps some time apart (jcmd <pid> GC.heap_dump /tmp/h1.hprof) or a class histogram (jcmd <pid> GC.class_histogram) and compare what grows; caches without bounds and listeners never removed are common causes.",
			"间隔一段时间做两次堆转储（jcmd <pid> GC.heap_dump /tmp/h1.hprof）或类直方图（jcmd <pid> GC.class_histogram），比较增长的对象；无上限的缓存与未移除的监听器是常见原因。"),
		Risk:       finding.T("A heap dump pauses the JVM for seconds per GB of heap.", "堆转储会使 JVM 暂停，每 GB 堆约需数秒。"),
		Workload:   allServices,
		Reads:      []string{"gc log: heap after each GC (old generation or floor), heap size"},
		References: []string{"GCViewer: slope of heap usage after full GC", refJMC + ": IncreasingLiveSet"},
		Eval: func(in *Input) []finding.Outcome {
			s := in.S
			h := s.HeapAfter
			heap := float64(s.HeapMaxKB)
			if h.Points < 8 || h.SpanS < th.LeakMinSpanS || heap <= 0 {
				o := in.on(finding.Skipped)
				o.Reason = finding.Tf(finding.T("Too little data for a trend (%d points over %.0f s; needs 8 over %.0f s).", "数据不足以判断趋势（%d 个点，跨度 %.0f 秒；至少需要 8 个点、%.0f 秒）。"),
					h.Points, h.SpanS, th.LeakMinSpanS)
				return one(o)
			}
			o := in.on(finding.Pass)
			if growth := h.LastKB - h.FirstKB; growth > 0 && h.R2 >= th.LeakMinR2 && 100*growth/heap >= th.LeakMinGrowthPct {
				o = in.fail(finding.Warning)
				o.Confidence = h.R2
			}
			o.Observed = finding.Tf(finding.T("Heap after GC (%s) went from %s to %s over %.0f min (%+.0f MiB/h, R² %.2f, %d points, heap %s).",
				"GC 后堆占用（%s）从 %s 变为 %s，历时 %.0f 分钟（%+.0f MiB/小时，R² %.2f，%d 个点，堆 %s）。"),
				h.Basis, mb(h.FirstKB), mb(h.LastKB), h.SpanS/60, h.SlopeKBPerH/1024, h.R2, h.Points, mb(heap))
			o.Evidence = []finding.Evidence{in.ev("slope_mb_per_h", fmt.Sprintf("%.1f", h.SlopeKBPerH/1024)), in.ev("r2", fmt.Sprintf("%.2f", h.R2))}
			return one(o)
		},
	}
}

func safepointRule(th Thresholds) finding.Rule[*Input] {
	advice := finding.T("Find the slow operation with -Xlog:safepoint*=debug; avoid swapping and transparent huge page compaction; on JDK 8 write the GC log to a local fast disk (or tmpfs).",
		"用 -Xlog:safepoint*=debug 找出慢的操作；避免 swap 与透明大页整理；JDK 8 将 GC 日志写到本地快速磁盘（或 tmpfs）。")
	return finding.Rule[*Input]{
		ID: "gc.safepoint-ttsp", Category: "gc", Severity: finding.Warning,
		Title: finding.T("Safepoints and time to safepoint", "安全点与到达安全点时间（TTSP）"),
		Checks: finding.Tf(finding.T("Time to reach safepoints and time stopped outside GC: a warning when a safepoint took %.0f ms or more to reach, or stopped time exceeds GC pause time by %.0f %% and 1 s.",
			"到达安全点的时间与 GC 之外的停止时间：某次到达安全点耗时 %.0f ms 及以上，或停止时间超出 GC 停顿时间 %.0f%% 且超过 1 秒时为警告。"),
			th.TTSPWarnMs, 100*(th.StoppedOverGCRatio-1)),
		Why: finding.T("Threads are stopped from the moment a safepoint is requested; a thread slow to reach it (long counted loops, page faults, blocking log writes before JDK 17) stalls all the others, and this time is not in the GC pause.",
			"从请求安全点的那一刻起线程就开始停止；某个线程迟迟不到达（长计数循环、缺页、JDK 17 之前阻塞的 GC 日志写入）会拖住所有线程，而这段时间不计入 GC 停顿。"),
		Recommended: advice,
		Risk:        finding.T("Debug safepoint logging writes more lines; turn it off when the slow operation is found.", "安全点调试日志会多写很多行；找到慢的操作后请关闭。"),
		Workload:    finding.T("All services; latency-sensitive ones most.", "所有服务，对延迟敏感的服务尤甚。"),
		Reads:       []string{"gc log: safepoints (stopped time, time to safepoint, operation), GC pause total"},
		References:  []string{refGarbagecat + ": warn.gc.stopped.ratio / warn.gc.safepoint.ratio (stopped time > 20 % above GC time)", refJMC + ": ApplicationHalts, VMOperations"},
		Eval: func(in *Input) []finding.Outcome {
			s := in.S
			if s.Safepoints == 0 {
				o := in.on(finding.Skipped)
				o.Reason = finding.T("The log has no safepoint lines: add -Xlog:safepoint (JDK 9+) or -XX:+PrintGCApplicationStoppedTime (JDK 8).",
					"日志中没有安全点信息：请加 -Xlog:safepoint（JDK 9+）或 -XX:+PrintGCApplicationStoppedTime（JDK 8）。")
				return one(o)
			}
			stoppedRatio := 0.0
			if s.PauseTotalMs > 0 {
				stoppedRatio = s.SafepointTotalMs / s.PauseTotalMs
			}
			o := in.on(finding.Pass)
			if s.TTSPMaxMs >= th.TTSPWarnMs || (stoppedRatio > th.StoppedOverGCRatio && s.SafepointTotalMs-s.PauseTotalMs > 1000) {
				o = in.fail(finding.Warning)
			}
			o.Observed = finding.Tf(finding.T("%d safepoints stopped the application for %s (GC pauses %s); longest time to reach a safepoint %s (%s), %d over 100 ms.",
				"%d 次安全点共停止应用 %s（GC 停顿 %s）；到达安全点最长 %s（%s），超过 100 ms 的有 %d 次。"),
				s.Safepoints, ms(s.SafepointTotalMs), ms(s.PauseTotalMs), ms(s.TTSPMaxMs), s.TTSPMaxName, s.TTSPOver100ms)
			o.Evidence = []finding.Evidence{in.ev("safepoint_total_ms", fmt.Sprintf("%.1f", s.SafepointTotalMs)), in.ev("ttsp_max_ms", fmt.Sprintf("%.2f", s.TTSPMaxMs))}
			o.Recommended = advice
			if s.Format == FormatJDK8 { // a JDK 8 log: JDK 8 refuses -Xlog
				o.Recommended = finding.T("Find the slow operation with -XX:+PrintSafepointStatistics -XX:PrintSafepointStatisticsCount=1 (JDK 8); avoid swapping and transparent huge page compaction; write the GC log to a local fast disk (or tmpfs).",
					"用 -XX:+PrintSafepointStatistics -XX:PrintSafepointStatisticsCount=1（JDK 8）找出慢的操作；避免 swap 与透明大页整理；将 GC 日志写到本地快速磁盘（或 tmpfs）。")
			}
			return one(o)
		},
	}
}

// verdictRules hold the plain answer when GC is fine; it reads the other
// rules' findings (Input.Found), so Findings evaluates it after them.
func verdictRules(th Thresholds) []finding.Rule[*Input] {
	return []finding.Rule[*Input]{{
		ID: "gc.not-the-bottleneck", Category: "gc", Severity: finding.Info,
		Title: finding.T("GC is not the problem", "GC 不是问题所在"),
		Checks: finding.Tf(finding.T("Passes when no other GC rule warns, throughput is at least %.0f %%, p99 pause at most %.0f ms and the longest under %.0f ms.",
			"当其他 GC 规则均无警告、吞吐量不低于 %.0f%%、p99 停顿不超过 %.0f ms 且最长停顿低于 %.0f ms 时通过。"),
			th.OKThroughputPct, th.OKP99Ms, th.MaxPauseWarnMs),
		Why: finding.T("Tuning the collector cannot buy back more than the time GC takes; here that is too little to explain a throughput or latency problem.",
			"调整收集器能挽回的时间不会超过 GC 本身占用的时间；这里的占用太小，不足以解释吞吐或延迟问题。"),
		Recommended: finding.T("Look elsewhere: CPU profile, lock contention (thread dumps), I/O and downstream calls.",
			"请排查其他方向：CPU 火焰图、锁竞争（线程转储）、I/O 与下游调用。"),
		Risk:       finding.T("None: nothing is changed; GC tuning here would cost effort for little gain.", "无：不做任何改动；此时调优 GC 投入大而收益小。"),
		Workload:   allServices,
		Reads:      []string{"gc log: throughput, p99 and longest pause", "the other gc.* findings"},
		References: []string{refJMC + ": GcPauseRatio (info at 5 %)", refGCeasy},
		Eval: func(in *Input) []finding.Outcome {
			s := in.S
			gcPct := in.gcPct()
			if gcPct < 0 || s.Pauses <= 0 {
				return nil
			}
			for i := range in.Found {
				if in.Found[i].Status == finding.Fail && in.Found[i].Severity >= finding.Warning {
					return nil
				}
			}
			if s.ThroughputPct < th.OKThroughputPct || s.PauseP99Ms > th.OKP99Ms || s.PauseMaxMs >= th.MaxPauseWarnMs {
				return nil
			}
			o := in.on(finding.Pass)
			o.Observed = finding.Tf(finding.T("GC paused the application %.2f %% of the time (throughput %.2f %%), p99 pause %s, longest %s, with no full-GC or allocation failures.",
				"GC 仅占用 %.2f%% 的时间（吞吐量 %.2f%%），p99 停顿 %s，最长 %s，没有 Full GC 或分配失败。"),
				gcPct, s.ThroughputPct, ms(s.PauseP99Ms), ms(s.PauseMaxMs))
			o.Recommended = finding.T("Look elsewhere: CPU profile, lock contention (thread dumps), I/O and downstream calls.",
				"请排查其他方向：CPU 火焰图、锁竞争（线程转储）、I/O 与下游调用。")
			return one(o)
		},
	}}
}
