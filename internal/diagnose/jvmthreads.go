package diagnose

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// jvmThreadHint says what a hot HotSpot-internal thread usually means, from
// its native name (the first 15 bytes of the Java thread name); zero Text
// for application threads.
func jvmThreadHint(name string) finding.Text {
	switch {
	case name == "VM Thread":
		return finding.T("\"VM Thread\" runs safepoint operations and stop-the-world GC phases: look at the GC log (pause times, frequency) and safepoint statistics (-Xlog:safepoint).",
			"\"VM Thread\" 执行安全点操作和 STW 的 GC 阶段：查看 GC 日志（停顿时间、频率）和安全点统计（-Xlog:safepoint）。")
	case strings.HasPrefix(name, "GC Thread"), strings.HasPrefix(name, "G1 "), strings.HasPrefix(name, "Gang worker"),
		strings.HasPrefix(name, "ParGC"), strings.HasPrefix(name, "ZWorker"), strings.HasPrefix(name, "Shenandoah"),
		strings.HasPrefix(name, "GC task"), strings.HasPrefix(name, "Concurrent Mark"):
		return finding.T("This is a garbage-collector thread: the heap is under pressure. Analyse the GC log (tuneloop analyze gc.log): allocation rate, heap size, pause times.",
			"这是垃圾回收线程：堆内存有压力。分析 GC 日志（tuneloop analyze gc.log）：分配速率、堆大小、停顿时间。")
	case isJITThread(name):
		return finding.T("This is a JIT compiler thread: normal during warm-up; if it stays hot, check for deoptimisation loops (-XX:+PrintCompilation) or a too-small code cache (ReservedCodeCacheSize).",
			"这是 JIT 编译线程：预热阶段属正常；若持续繁忙，检查是否反复去优化（-XX:+PrintCompilation）或代码缓存过小（ReservedCodeCacheSize）。")
	}
	return finding.Text{}
}

// withHint appends the hint for a JVM-internal thread to t.
func withHint(t finding.Text, name string) finding.Text {
	h := jvmThreadHint(name)
	if h.IsZero() {
		return t
	}
	return finding.Text{EN: t.EN + " " + h.EN, ZH: t.ZH + " " + h.ZH}
}

// isJITThread recognises HotSpot's JIT compiler threads by native name.
func isJITThread(name string) bool {
	return strings.HasPrefix(name, "C2 CompilerThre") || strings.HasPrefix(name, "C1 CompilerThre")
}
