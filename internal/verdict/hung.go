package verdict

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Why a service that stopped answering is hung, besides what its thread
// dumps show (a deadlock, a lock or pool every worker waits on): it ran out
// of memory (its log says so; an OutOfMemoryError that ends a thread such
// as an HTTP dispatcher leaves a live JVM that answers nothing), or it was
// collecting garbage back to back when its GC log ends.

// Finding IDs of a hung service's causes read outside the thread dumps.
const (
	IDServiceOOM  = "run.service-oom"
	IDServiceInGC = "run.service-in-gc"
)

// oomMarks are what a JVM writes when it runs out of memory.
var oomMarks = []string{"OutOfMemoryError", "Java heap space", "GC overhead limit exceeded"}

// maxLogLine bounds a quoted log line.
const maxLogLine = 200

// outOfMemory is the out-of-memory error in the last lines of the service's
// log (the manifest keeps them when the service stopped answering), nil
// when they show none.
func outOfMemory(se *runfolder.ServiceEnd) *finding.Finding {
	var line string
	n := 0
	for _, l := range se.LastLog {
		for _, m := range oomMarks {
			if strings.Contains(l, m) {
				if line == "" {
					line = strings.TrimSpace(finding.SafeLine(l))
				}
				n++
				break
			}
		}
	}
	if n == 0 {
		return nil
	}
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + "..."
	}
	return &finding.Finding{ID: IDServiceOOM, Category: "run", Status: finding.Fail, Severity: finding.Critical, Confidence: 0.9,
		Subject: "heap",
		Title:   finding.T("it ran out of memory (OutOfMemoryError in its log)", "内存耗尽（日志中有 OutOfMemoryError）"),
		Observed: finding.Tf(finding.T("%d of its last %d lines report an OutOfMemoryError, first: %s",
			"最后 %[2]d 行中有 %[1]d 行报告 OutOfMemoryError，第一条：%[3]s"), n, len(se.LastLog), line),
		Why: finding.T("An OutOfMemoryError thrown in a thread the server needs (its acceptor, its dispatcher, a pool's workers) ends that thread: the JVM lives on and answers nothing. A heap full of live objects also makes every collection a full GC that frees next to nothing.",
			"在服务器必需的线程（接收线程、分发线程、线程池工作线程）中抛出的 OutOfMemoryError 会结束该线程：JVM 仍在运行，但不再应答。堆中充满存活对象时，每次回收都是几乎回收不了什么的 Full GC。"),
		Recommended: finding.T("Find what fills the heap: a class histogram (jcmd PID GC.class_histogram) or a heap dump (-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=...), then bound what is kept (an unbounded cache or list, a leak); raise -Xmx only when the live set really needs it. Add -XX:+ExitOnOutOfMemoryError so that a JVM which lost threads to an OOM exits and is restarted instead of hanging.",
			"查明是什么占满了堆：类直方图（jcmd PID GC.class_histogram）或堆转储（-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=...），然后限制保留的数据（无界缓存或列表、内存泄漏）；只有存活数据确实需要时才增大 -Xmx。加上 -XX:+ExitOnOutOfMemoryError，让因 OOM 失去线程的 JVM 退出并被重启，而不是挂起。"),
		Risk: finding.T("A larger heap only postpones an unbounded retention; ExitOnOutOfMemoryError needs a supervisor that restarts the service.",
			"更大的堆只会推迟无界保留的问题；ExitOnOutOfMemoryError 需要有守护进程重启服务。"),
		Evidence: []finding.Evidence{{Key: "oom_log_line", Value: line, Source: runfolder.ManifestFile + " service.last_log"},
			{Key: "oom_log_lines", Value: fmt.Sprintf("%d of %d", n, len(se.LastLog)), Source: runfolder.ManifestFile + " service.last_log"}}}
}

// gcOutOfMemory is the GC log's own out-of-memory finding (ZGC's "Out Of
// Memory", JRockit's "Throwing OutOfMemory"), nil when it has none.
func gcOutOfMemory(L *Layers) *finding.Finding {
	if L.GC == nil {
		return nil
	}
	return find(L.GC.Findings, func(f *finding.Finding) bool { return f.ID == "gc.out-of-memory" })
}

// A GC log that ends in a burst of pauses (each within burstGap of the
// previous one's end) with at least minFullBurst full GCs, and full GCs at
// least half of the burst, shows a JVM collecting back to back.
const (
	burstGapS    = 1.0
	minFullBurst = 3
)

// gcAtEnd is a GC log ending in back-to-back full GCs (judged on its last
// gcLastKept pauses), nil when it does not.
func gcAtEnd(L *Layers) *finding.Finding {
	p := L.GCLast
	if len(p) == 0 {
		return nil
	}
	first := len(p) - 1
	for first > 0 && p[first].UptimeS-(p[first-1].UptimeS+p[first-1].MS/1000) <= burstGapS {
		first--
	}
	burst := p[first:]
	full, ms := 0, 0.0
	for _, q := range burst {
		if q.Kind == "full" || q.Kind == "degenerated" {
			full++
		}
		ms += q.MS
	}
	if full < minFullBurst || 2*full < len(burst) {
		return nil
	}
	last := burst[len(burst)-1]
	spanMS := (last.UptimeS-burst[0].UptimeS)*1000 + last.MS
	share := 100.0
	if spanMS > 0 {
		share = min(100, 100*ms/spanMS)
	}
	src := GCLogGlob
	if len(L.GCFiles) == 1 {
		src = "raw/" + filepath.Base(L.GCFiles[0])
	}
	return &finding.Finding{ID: IDServiceInGC, Category: "run", Status: finding.Fail, Severity: finding.Critical, Confidence: 0.8,
		Subject: "gc",
		Title:   finding.T("it was collecting garbage back to back (full GCs at the end of its GC log)", "它在连续不断地做垃圾回收（GC 日志末尾是背靠背的 Full GC）"),
		Observed: finding.Tf(finding.T("the last %d pauses came back to back over %.0f ms (%.0f%% of that time paused), %d of them full GCs, the last at %.1f s of the JVM's uptime",
			"最后 %d 次停顿背靠背发生在 %.0f ms 内（%.0f%% 的时间处于停顿），其中 %d 次是 Full GC，最后一次在 JVM 启动后第 %.1f 秒"),
			len(burst), spanMS, share, full, last.UptimeS),
		Why: finding.T("Full GCs one after another mean the heap is full of live objects: each frees next to nothing, the next allocation triggers another, and the application threads barely run between them.",
			"接连不断的 Full GC 说明堆中充满存活对象：每次几乎回收不了什么，下一次分配又触发下一次 Full GC，应用线程在其间几乎得不到运行。"),
		Recommended: finding.T("Find what fills the heap (jcmd PID GC.class_histogram, or a heap dump) and bound it; size -Xmx to the live set with room to spare; add -XX:+ExitOnOutOfMemoryError so that a JVM stuck this way exits and is restarted.",
			"查明是什么占满了堆（jcmd PID GC.class_histogram，或堆转储）并加以限制；按存活数据量留足余量设置 -Xmx；加上 -XX:+ExitOnOutOfMemoryError，让这样卡住的 JVM 退出并被重启。"),
		Risk: finding.T("A larger heap only postpones an unbounded retention.", "更大的堆只会推迟无界保留的问题。"),
		Evidence: []finding.Evidence{{Key: "full_gcs_at_end", Value: fmt.Sprintf("%d of %d pauses", full, len(burst)), Source: src},
			{Key: "paused_share_at_end_pct", Value: fmt.Sprintf("%.0f", share), Source: src},
			{Key: "last_pause_uptime_s", Value: fmt.Sprintf("%.3f", last.UptimeS), Source: src}}}
}

// gcAtEndLine is the GC log's end as an evidence line, for a hung service
// whose cause is named elsewhere (its log's OutOfMemoryError).
func (e evidence) gcAtEndLine() (finding.Text, bool) {
	g := gcAtEnd(e.L)
	if g == nil {
		return finding.Text{}, false
	}
	return finding.Tf(finding.T("GC log: %s.", "GC 日志：%s。"), g.Observed), true
}
