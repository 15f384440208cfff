package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

// JVM rules over Facts.JVMs: heap sizing vs limits, collector choice, GC
// logging, heap dumps, THP/large pages, stacks, container awareness, GC/JIT
// threads vs quota, NUMA placement, process limits (the java command reference, HotSpot GC tuning guide).

// jdkOf is what is known of the JDK of j, most trusted source first: the
// user's --jdk, JAVA_HOME/release (or the version sysinfo guessed from the
// path), the install path or launcher, the options themselves.
func jdkOf(j *sysinfo.JVM) jvmopts.JDK {
	src := jvmopts.Source(j.VersionFrom)
	if src == "" {
		src = jvmopts.SourceRelease // facts written before VersionFrom existed
	}
	rel := jvmopts.FromVersion(j.Version, j.Vendor, src)
	if src == jvmopts.SourcePath && j.JavaHome != "" {
		rel.Evidence = j.JavaHome // sysinfo guessed Version from it
	}
	return jvmopts.Resolve(
		jvmopts.Given(j.Options.JDKGiven),
		rel,
		jvmopts.FromPath(strings.TrimSpace(j.JavaHome+" "+j.Exe+" "+j.Options.Launcher)),
		jvmopts.FromOptions(j.Options),
	)
}

// javaVersion returns the feature release (8, 11, 17, 21...) and, for 8,
// the update number (8u191 -> 191). ok=false when the release is not known
// exactly (the options may still bound it: see jdkOf).
func javaVersion(j *sysinfo.JVM) (major, update int, ok bool) {
	jdk := jdkOf(j)
	if !jdk.Known() {
		return 0, 0, false
	}
	if jdk.Major == 8 {
		update = jdk.Update
	}
	return jdk.Major, update, true
}

// jdkEv is the evidence of the JDK a recommendation was written for.
func jdkEv(j *sysinfo.JVM, jdk jvmopts.JDK) finding.Evidence {
	src := jvmSource(j)
	switch jdk.Source {
	case jvmopts.SourceRelease:
		src = orDefault(j.JavaHome, "JAVA_HOME") + "/release"
	case jvmopts.SourcePath:
		src = jdk.Evidence
	case jvmopts.SourceUser:
		src = "--jdk"
	case "":
		src = "release file, install path and options"
	}
	return ev("jdk", jdk.String(), src)
}

// byJDK renders an option change for the JDK in hand: modern for JDK 9+,
// legacy for 8 and older. When the release is unknown it gives both,
// labelled, the 9+ form first (never the JDK 8 form alone: a JDK 9+ JVM
// refuses to start with most of it).
func byJDK(pid int, jdk jvmopts.JDK, modern, legacy string) (finding.Text, finding.Fix) {
	switch {
	case jdk.AtLeast(9):
		return T(modern, modern), jvmFlagFix(pid, modern, "")
	case jdk.Below(9):
		return T(legacy, legacy), jvmFlagFix(pid, legacy, "")
	}
	rec := Tf("JDK version unknown. JDK 9+: %s; JDK 8: %s", "JDK 版本未知。JDK 9+：%s；JDK 8：%s", modern, legacy)
	m, l := jvmFlagFix(pid, modern, ""), jvmFlagFix(pid, legacy, "")
	fx := finding.Fix{
		Apply:  m.Apply + "   # JDK 9+\n" + l.Apply + "   # JDK 8",
		Revert: m.Revert + "   # JDK 9+\n" + l.Revert + "   # JDK 8",
		Note: finding.T(m.Note.EN+" Use the line for the JDK the service runs on (`java -version`, or give --jdk); the JDK 8 flags stop a JDK 9+ JVM from starting.",
			m.Note.ZH+" 按服务实际使用的 JDK 选择对应的一行（`java -version`，或用 --jdk 指定）；JDK 8 的参数会使 JDK 9+ 的 JVM 无法启动。"),
	}
	return rec, fx
}

// containerAware reports whether the JVM reads cgroup limits (8u191+, 10+).
func containerAware(major, update int) bool {
	return major >= 10 || (major == 8 && update >= 191)
}

// jdkContainerAware is containerAware for what is known of a JDK; known is
// false when neither the release nor the options decide it.
func jdkContainerAware(jdk jvmopts.JDK) (aware, known bool) {
	switch {
	case jdk.Known():
		upd := 0
		if jdk.Major == 8 {
			upd = jdk.Update
		}
		return containerAware(jdk.Major, upd), true
	case jdk.AtLeast(10):
		return true, true
	}
	return false, false
}

// jvmMemLimit is the cgroup memory limit that applies to the JVM (0: none).
func jvmMemLimit(c *Ctx, j *sysinfo.JVM) (int64, finding.Evidence) {
	if j.MemoryLimit > 0 {
		return j.MemoryLimit, ev("memory limit", units.FormatBytes(j.MemoryLimit), fmt.Sprintf("/proc/%d/cgroup -> memory.max", j.PID))
	}
	if m := c.F.Cgroup.MemoryLimit; m.OK && m.Value > 0 {
		return m.Value, ev("memory limit", units.FormatBytes(m.Value), m.Source)
	}
	return 0, finding.Evidence{}
}

// jvmQuota is the CPU quota in cores that applies to the JVM (0: none).
func jvmQuota(c *Ctx, j *sysinfo.JVM) (float64, finding.Evidence) {
	if j.CPUQuota > 0 {
		return j.CPUQuota, ev("cpu quota (cores)", j.CPUQuota, fmt.Sprintf("/proc/%d/cgroup -> cpu.max", j.PID))
	}
	if q := c.F.Cgroup.CPUQuota; q.OK && q.Value > 0 {
		return q.Value, ev("cpu quota (cores)", q.Value, q.Source)
	}
	return 0, finding.Evidence{}
}

func inContainer(c *Ctx, j *sysinfo.JVM) bool {
	m, _ := jvmMemLimit(c, j)
	q, _ := jvmQuota(c, j)
	return m > 0 || q > 0
}

// jvmCPUs is how many CPUs the JVM can use: quota, else its affinity, else online CPUs.
func jvmCPUs(c *Ctx, j *sysinfo.JVM) float64 {
	if q, _ := jvmQuota(c, j); q > 0 {
		return q
	}
	if len(j.CPUsAllowed) > 0 {
		return float64(len(j.CPUsAllowed))
	}
	return float64(onlineCPUs(c))
}

// jvmMemory is the memory the JVM sizes itself from: the limit, else MemTotal (bytes).
func jvmMemory(c *Ctx, j *sysinfo.JVM) int64 {
	if m, _ := jvmMemLimit(c, j); m > 0 {
		return m
	}
	if t, _, ok := meminfo(c, "MemTotal"); ok {
		return t * 1024
	}
	return 0
}

// effectiveGC is the collector in use: explicit, or the JVM's ergonomic
// default (JDK <= 8: Parallel; 9+: G1 on a "server-class" machine of 2+
// CPUs and 1792+ MiB, else Serial). "" when unknown.
func effectiveGC(c *Ctx, j *sysinfo.JVM) (gc string, ergonomic bool) {
	if j.Options.GC != "" {
		return j.Options.GC, false
	}
	jdk := jdkOf(j)
	switch {
	case jdk.Below(9):
		return "Parallel", true
	case !jdk.AtLeast(9):
		return "", true
	}
	if jvmCPUs(c, j) >= 2 && jvmMemory(c, j) >= 1792<<20 {
		return "G1", true
	}
	return "Serial", true
}

// heapMax is -Xmx or the ergonomic default (1/4 of the memory the JVM sees).
func heapMax(c *Ctx, j *sysinfo.JVM) int64 {
	if j.Options.XmxBytes > 0 {
		return j.Options.XmxBytes
	}
	if p := j.Options.MaxRAMPercentage; p > 0 {
		return int64(float64(jvmMemory(c, j)) * p / 100)
	}
	return jvmMemory(c, j) / 4
}

func gcFlag(gc string) string {
	switch gc {
	case "Serial":
		return "-XX:+UseSerialGC"
	case "Parallel":
		return "-XX:+UseParallelGC"
	case "CMS":
		return "-XX:+UseConcMarkSweepGC"
	case "G1":
		return "-XX:+UseG1GC"
	case "Shenandoah":
		return "-XX:+UseShenandoahGC"
	case "ZGC":
		return "-XX:+UseZGC"
	case "Epsilon":
		return "-XX:+UseEpsilonGC"
	}
	return ""
}

// gcFix switches the collector: replace the explicit flag, or add one.
func gcFix(j *sysinfo.JVM, to string) finding.Fix {
	if j.Options.GC != "" {
		return jvmFlagFix(j.PID, to, gcFlag(j.Options.GC))
	}
	return jvmFlagFix(j.PID, to, "")
}

func optsEv(j *sysinfo.JVM, key, val string) finding.Evidence { return ev(key, val, jvmSource(j)) }

func jvmRules() []Rule {
	jvmRefs := func(extra ...string) []string {
		return append([]string{"Oracle java command reference (docs.oracle.com/en/java/javase/21/docs/specs/man/java.html)"}, extra...)
	}
	return []Rule{
		{
			ID: "jvm.heap.xms-xmx", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("Initial heap differs from maximum heap", "初始堆与最大堆不一致"),
			Checks:     T("Compares -Xms with -Xmx of each JVM.", "比较每个 JVM 的 -Xms 与 -Xmx。"),
			Why:        T("When -Xms < -Xmx the heap grows and shrinks with load: each resize is a full GC or extra STW work, exactly when traffic peaks. Equal values commit the heap at start.", "-Xms 小于 -Xmx 时堆会随负载扩缩：每次扩缩都伴随 Full GC 或额外的 STW，恰好发生在流量高峰。两者相等时启动即完成堆初始化。"),
			Risk:       T("The whole heap is committed at start; memory-sensitive hosts may prefer growth (Bisheng JDK: -XX:+G1Uncommit).", "启动时即占用整个堆；对内存敏感的主机可保留扩缩（毕昇 JDK 可用 -XX:+G1Uncommit）。"),
			Workload:   T("Java services with steady memory needs (most web/RPC services).", "内存需求稳定的 Java 服务（大多数 Web/RPC 服务）。"),
			References: jvmRefs("Oracle HotSpot GC Tuning Guide: Sizing the Heap"),
			Eval:       evalJvmHeapXmsXmx,
		},
		{
			ID: "jvm.heap.no-xmx", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("No explicit maximum heap", "未显式设置最大堆"),
			Checks:     T("Looks for -Xmx, -XX:MaxHeapSize or -XX:MaxRAMPercentage; without them the heap is 1/4 of the memory the JVM sees (warning in a container, info on a host).", "检查是否有 -Xmx、-XX:MaxHeapSize 或 -XX:MaxRAMPercentage；没有时堆为 JVM 可见内存的 1/4（容器中为警告，主机上为提示）。"),
			Why:        T("The default max heap is 25% of RAM or of the container limit: a 4 GiB pod gets a 1 GiB heap and GCs constantly while 3 GiB sits idle; on old JDKs it is 25% of the host instead and the pod is OOM-killed.", "默认最大堆是内存或容器限额的 25%：4 GiB 的 Pod 只有 1 GiB 堆，频繁 GC 而 3 GiB 闲置；老 JDK 则按宿主机内存的 25% 计算，Pod 会被 OOM kill。"),
			Risk:       T("Too large a percentage leaves no room for metaspace, code cache, thread stacks and direct buffers.", "百分比过大会挤占元空间、代码缓存、线程栈和直接内存。"),
			Workload:   T("All JVMs, especially in containers.", "所有 JVM，尤其是容器中的。"),
			References: jvmRefs("JDK-8146115 (container support, JDK 10, backported to 8u191)", "JDK-8186248 (MaxRAMPercentage)"),
			Eval:       evalJvmHeapNoXmx,
		},
		{
			ID: "jvm.heap.over-limit", Category: "jvm", Severity: critical,
			Reads:      []string{"/proc/PID/cgroup -> memory.max", "/proc/PID/cmdline", "/proc/meminfo"},
			Title:      T("Heap larger than the memory available to it", "堆大于可用内存"),
			Checks:     T("Compares -Xmx with the cgroup memory limit (critical at or above it, warning above 85%) or, without a limit, with MemTotal and MemAvailable.", "将 -Xmx 与 cgroup 内存限额比较（大于等于限额为严重，超过 85% 为警告）；无限额时与 MemTotal 和 MemAvailable 比较。"),
			Why:        T("The JVM needs heap plus metaspace, code cache, thread stacks, GC structures and direct buffers: a heap near or above the limit ends in an OOM kill under load, a heap above free memory in swapping.", "JVM 需要的是堆 + 元空间 + 代码缓存 + 线程栈 + GC 数据结构 + 直接内存：堆接近或超过限额时负载下会被 OOM kill，超过空闲内存则会换页。"),
			Risk:       T("A smaller heap means more frequent GC: confirm with a load test and GC logs.", "堆变小会让 GC 更频繁：用压测和 GC 日志确认。"),
			Workload:   T("All JVMs.", "所有 JVM。"),
			References: jvmRefs("kernel Documentation/admin-guide/cgroup-v2.rst (memory.max)"),
			Eval:       evalJvmHeapOverLimit,
		},
		{
			ID: "jvm.gc.serial", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("Serial GC on a large heap", "大堆使用 Serial GC"),
			Checks:     T("Flags the Serial collector (explicit, or chosen by ergonomics on < 2 CPUs or < 1792 MiB) with a max heap of 2 GiB or more.", "检查最大堆 2 GiB 及以上却使用 Serial 收集器（显式指定，或因 CPU < 2、内存 < 1792 MiB 被自动选中）的 JVM。"),
			Why:        T("Serial collects with one thread and stops the application for the whole collection: on a multi-GiB heap full GCs take seconds. JDK 9+ silently picks Serial when a container limits it to one CPU.", "Serial 用单线程回收并在整个回收期间暂停应用：多 GiB 的堆 Full GC 要数秒。JDK 9+ 在容器只给 1 个 CPU 时会悄悄选择 Serial。"),
			Risk:       T("G1/Parallel use more native memory and GC threads; in a 1-CPU container give it at least 2 CPUs or -XX:ActiveProcessorCount=2.", "G1/Parallel 需要更多本地内存和 GC 线程；1 核容器应至少给 2 个 CPU，或设置 -XX:ActiveProcessorCount=2。"),
			Workload:   T("JVMs with heaps of 2 GiB or more.", "堆大于等于 2 GiB 的 JVM。"),
			References: jvmRefs("Oracle HotSpot GC Tuning Guide: Ergonomics (server-class machine)", "JDK-8151084 (G1 default in JDK 9)"),
			Eval:       evalJvmGcSerial,
		},
		{
			ID: "jvm.gc.cms", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("CMS collector on a JDK that removed it", "在已移除 CMS 的 JDK 上使用 CMS"),
			Checks:     T("Flags -XX:+UseConcMarkSweepGC on JDK 14+ (removed, ignored) and, as info, on JDK 9-13 (deprecated).", "检查 JDK 14+ 上的 -XX:+UseConcMarkSweepGC（已移除、被忽略），JDK 9-13 上为提示（已废弃）。"),
			Why:        T("JDK 14 removed CMS (JEP 363): the flag is ignored with a warning and the JVM runs G1 with settings tuned for CMS; on 9-13 it is deprecated (JEP 291) and unmaintained.", "JDK 14 移除了 CMS（JEP 363）：该参数被忽略并打印警告，JVM 实际运行的是 G1，而其他参数仍是为 CMS 调的；9-13 上 CMS 已废弃（JEP 291）且不再维护。"),
			Risk:       T("CMS-specific flags (CMSInitiatingOccupancyFraction...) must go too; re-tune pause goals for G1.", "CMS 专用参数（如 CMSInitiatingOccupancyFraction）也要一并删除；为 G1 重新设定停顿目标。"),
			Workload:   T("JVMs migrated from JDK 8 with old start scripts.", "从 JDK 8 迁移、仍沿用旧启动脚本的 JVM。"),
			References: jvmRefs("JEP 363 (remove CMS, JDK 14)", "JEP 291 (deprecate CMS, JDK 9)"),
			Eval:       evalJvmGcCms,
		},
		{
			ID: "jvm.gc.parallel-latency", Category: "jvm", Severity: warning, Profiles: []string{string(Latency)},
			Reads:      []string{"/proc/PID/cmdline", "the JVM's JAVA_HOME/release (version)"},
			Title:      T("Throughput collector on a latency-critical service", "时延敏感服务使用吞吐型收集器"),
			Checks:     T("Flags the Parallel collector (explicit, or the JDK 8 default) under the latency profile.", "latency 配置档下检查是否使用 Parallel 收集器（显式指定，或 JDK 8 默认）。"),
			Why:        T("Parallel GC does every old-generation collection as one stop-the-world pause proportional to the heap: fine for batch throughput, hundreds of milliseconds to seconds of p99 for a request service.", "Parallel GC 的老年代回收都是与堆大小成正比的整段 STW：适合批处理吞吐，但会给请求服务带来数百毫秒到数秒的 p99。"),
			Risk:       T("G1/ZGC cost some throughput and native memory; verify with GC logs under load.", "G1/ZGC 会损失少量吞吐并多占本地内存；需结合压测下的 GC 日志验证。"),
			Workload:   T("Latency-critical Java services.", "时延敏感的 Java 服务。"),
			References: jvmRefs("Oracle HotSpot GC Tuning Guide: Available Collectors", "JEP 439 (Generational ZGC, JDK 21)"),
			Eval:       evalJvmGcParallelLatency,
		},
		{
			ID: "jvm.gc.g1-small", Category: "jvm", Severity: info,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("G1 on a tiny heap or a single CPU", "极小堆或单 CPU 上使用 G1"),
			Checks:     T("Flags an explicit -XX:+UseG1GC with fewer than 2 CPUs or a max heap under 512 MiB.", "检查在 CPU 少于 2 个或最大堆小于 512 MiB 时显式指定 -XX:+UseG1GC 的 JVM。"),
			Why:        T("G1's concurrent threads, remembered sets and regions cost CPU and memory that a 1-CPU or sub-512 MiB JVM does not have; Serial is faster there.", "G1 的并发线程、记忆集和分区需要额外的 CPU 和内存，1 核或 512 MiB 以下的 JVM 负担不起；此时 Serial 更快。"),
			Risk:       T("Serial pauses grow with the heap: only for small heaps.", "Serial 的停顿随堆增大而变长：只适用于小堆。"),
			Workload:   T("Small sidecars, agents and tools.", "小型 sidecar、代理和工具类进程。"),
			References: jvmRefs("Oracle HotSpot GC Tuning Guide: Selecting a Collector"),
			Eval:       evalJvmGcG1Small,
		},
		{
			ID: "jvm.gc.logging", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline", "the JVM's JAVA_HOME/release (version)"},
			Title:      T("GC logging absent", "未开启 GC 日志"),
			Checks:     T("Looks for -Xlog:gc, -Xloggc or -XX:+PrintGC* on each JVM.", "检查每个 JVM 是否有 -Xlog:gc、-Xloggc 或 -XX:+PrintGC*。"),
			Why:        T("Without a GC log a pause or memory problem cannot be diagnosed after the fact; logging to a local file costs almost nothing.", "没有 GC 日志，停顿或内存问题事后无法诊断；写本地文件的开销几乎可以忽略。"),
			Risk:       T("Disk space: use rotation as shown.", "占用磁盘空间：按示例开启滚动。"),
			Workload:   T("All production JVMs.", "所有生产 JVM。"),
			References: jvmRefs("JEP 158 (unified logging, -Xlog)", "JEP 271 (unified GC logging)", "Oracle JDK 8 java command: -XX:+PrintGCDetails -XX:+PrintGCDateStamps -Xloggc"),
			Eval:       evalJvmGcLogging,
		},
		{
			ID: "jvm.heapdump-oom", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("No heap dump on OutOfMemoryError", "OOM 时不生成堆转储"),
			Checks:     T("Looks for -XX:+HeapDumpOnOutOfMemoryError on each JVM.", "检查每个 JVM 是否有 -XX:+HeapDumpOnOutOfMemoryError。"),
			Why:        T("An OutOfMemoryError without a heap dump leaves nothing to find the leak with; the dump is written only when the error happens.", "没有堆转储的 OutOfMemoryError 无从排查泄漏；转储只在出错时才生成。"),
			Risk:       T("The dump is as large as the heap: point HeapDumpPath at a volume with room, not the log disk.", "转储文件与堆一样大：HeapDumpPath 应指向空间足够的卷，而不是日志盘。"),
			Workload:   T("All production JVMs.", "所有生产 JVM。"),
			References: jvmRefs("Oracle Troubleshooting Guide: -XX:+HeapDumpOnOutOfMemoryError"),
			Eval:       evalJvmHeapdumpOom,
		},
		{
			ID: "jvm.thp-flag", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline", "/sys/kernel/mm/transparent_hugepage/enabled"},
			Title:      T("JVM THP flag vs host THP mode", "JVM 透明大页参数与主机 THP 模式"),
			Checks:     T("Compares -XX:+UseTransparentHugePages with transparent_hugepage/enabled: madvise + flag passes; never + flag is useless; always + flag leaves THP on for everything; madvise without the flag misses the gain.", "比较 -XX:+UseTransparentHugePages 与 transparent_hugepage/enabled：madvise + 参数为通过；never + 参数无效；always + 参数则所有进程都用大页；madvise 但无参数则错过收益。"),
			Why:        T("With madvise only memory the JVM marks (the heap) gets huge pages: fewer TLB misses without host-wide compaction stalls (a carrier's load test on Kunpeng measured +5.8% throughput).", "madvise 模式下只有 JVM 标记的内存（堆）使用大页：减少 TLB 缺失，又不会引起全机内存规整停顿（某运营商在鲲鹏上压测：吞吐提升 5.8%）。"),
			Risk:       T("Huge pages raise RSS for sparse heaps; THP compaction under memory pressure can still stall.", "对稀疏使用的堆，大页会增加 RSS；内存紧张时 THP 规整仍可能造成停顿。"),
			Workload:   T("java-web / latency JVMs with heaps of 1 GiB or more; not database hosts.", "堆大于等于 1 GiB 的 java-web / latency JVM；不适用于数据库主机。"),
			References: []string{"JDK-8024838 (UseTransparentHugePages)", "kernel Documentation/admin-guide/mm/transhuge.rst"},
			Eval:       evalJvmThpFlag,
		},
		{
			ID: "jvm.xss-threads", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/status Threads"},
			Title:      T("Thread stacks vs memory", "线程栈与内存"),
			Checks:     T("Multiplies the thread stack size (-Xss, else the platform default) by the JVM's threads: above 25% of the memory limit (or RAM) fails.", "将线程栈大小（-Xss，否则取平台默认值）乘以 JVM 线程数：超过内存限额（或物理内存）的 25% 时不通过。"),
			Why:        T("Each thread reserves its full stack; touched pages stay resident. A large -Xss times thousands of threads exhausts the container limit or address space and fails with 'unable to create native thread'.", "每个线程都会预留完整的栈空间，用过的页会一直驻留。较大的 -Xss 乘以数千线程会耗尽容器限额或地址空间，报 unable to create native thread。"),
			Risk:       T("Too small a stack causes StackOverflowError in deep call chains (recursion, deep frameworks): test before lowering below 512k.", "栈过小会在深调用链（递归、层次很深的框架）中触发 StackOverflowError：低于 512k 前要先测试。"),
			Workload:   T("Thread-per-request services with large pools.", "每请求一线程、线程池很大的服务。"),
			References: jvmRefs("Oracle java command: -Xss (default 1 MiB on Linux x64, 2 MiB on Linux AArch64)"),
			Eval:       evalJvmXssThreads,
		},
		{
			ID: "jvm.container-awareness", Category: "jvm", Severity: critical,
			Reads:      []string{"/proc/PID/cmdline", "/proc/PID/cgroup -> cpu.max, memory.max", "the JVM's JAVA_HOME/release (version)"},
			Title:      T("JDK without container support in a container", "容器中运行不支持容器感知的 JDK"),
			Checks:     T("For JVMs under a cgroup CPU or memory limit, flags JDKs older than 8u191 (and 9).", "对受 cgroup CPU 或内存限制的 JVM，检查 JDK 是否早于 8u191（以及 JDK 9）。"),
			Why:        T("Before 8u191/10 the JVM ignores cgroup limits: it sizes the heap from host RAM (OOM kill) and GC/JIT threads from host CPUs (CFS throttling).", "8u191/10 之前的 JVM 不识别 cgroup 限制：按宿主机内存确定堆大小（导致 OOM kill），按宿主机 CPU 数确定 GC/JIT 线程数（导致 CFS 限流）。"),
			Risk:       T("A JDK update within 8 is low risk; test TLS/crypto and GC behaviour.", "JDK 8 小版本升级风险较低；需测试 TLS/加密和 GC 行为。"),
			Workload:   T("JVMs in containers or systemd units with limits.", "容器中或受 systemd 资源限制的 JVM。"),
			References: []string{"JDK-8146115 (container awareness, JDK 10)", "JDK-8196595 (backport to 8u191)", "Bisheng JDK 8 (gitee.com/openeuler/bishengjdk-8)"},
			Eval:       evalJvmContainerAwareness,
		},
		{
			ID: "jvm.threads.parallel-gc", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cgroup -> cpu.max", "/sys/devices/system/cpu/online"},
			Title:      T("GC worker threads vs CPU quota", "GC 并行线程数与 CPU 配额"),
			Checks:     T("Under a CPU quota, compares -XX:ParallelGCThreads (or the host-sized default of a JDK without container support) with the quota.", "在有 CPU 配额时，将 -XX:ParallelGCThreads（或不支持容器的 JDK 按宿主机 CPU 得出的默认值）与配额比较。"),
			Why:        T("All GC workers burn the same quota: more workers than quota cores exhaust it within one period and the whole JVM is throttled for the rest of it, stretching every pause.", "所有 GC 线程消耗同一份配额：线程数超过配额核数时一个周期内就会用完配额，整个 JVM 在余下时间被限流，每次停顿都被拉长。"),
			Risk:       T("Too few workers lengthen pauses on large heaps.", "线程过少会拉长大堆的停顿。"),
			Workload:   T("JVMs with a CPU quota.", "有 CPU 配额的 JVM。"),
			References: jvmRefs("Oracle HotSpot GC Tuning Guide: ParallelGCThreads", "kernel Documentation/scheduler/sched-bwc.rst (CFS bandwidth control)"),
			Eval: quotaThreads{flag: "ParallelGCThreads", min: 1, what: T("GC threads", "GC 线程"),
				hostDefault: func(host int) int {
					if host > 8 {
						return 8 + (host-8)*5/8
					}
					return host
				}}.eval,
		},
		{
			ID: "jvm.threads.cicompiler", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cgroup -> cpu.max", "/sys/devices/system/cpu/online"},
			Title:      T("JIT compiler threads vs CPU quota", "JIT 编译线程数与 CPU 配额"),
			Checks:     T("Under a CPU quota, compares -XX:CICompilerCount (or the host-sized default of a JDK without container support) with the quota.", "在有 CPU 配额时，将 -XX:CICompilerCount（或不支持容器的 JDK 按宿主机 CPU 得出的默认值）与配额比较。"),
			Why:        T("During warm-up JIT threads compete with request threads for the quota; too many of them throttle the JVM exactly when it starts taking traffic.", "预热期间 JIT 线程与请求线程争抢配额；线程过多会在刚开始接流量时触发限流。"),
			Risk:       T("Too few compiler threads lengthen warm-up.", "编译线程过少会延长预热时间。"),
			Workload:   T("JVMs with a CPU quota.", "有 CPU 配额的 JVM。"),
			References: jvmRefs("Oracle java command: -XX:CICompilerCount", "JDK-8146115"),
			// 2 is the minimum with tiered compilation; HotSpot sizes the
			// default as log2(n)*log2(log2(n))*3/2.
			Eval: quotaThreads{flag: "CICompilerCount", min: 2, what: T("compiler threads", "编译线程"),
				hostDefault: func(host int) int {
					if host <= 2 {
						return 2
					}
					l := math.Log2(float64(host))
					return int(math.Max(l*math.Log2(math.Max(l, 1))*3/2, 2))
				}}.eval,
		},
		{
			ID: "jvm.numa.bind", Category: "jvm", Severity: info,
			Reads:      []string{"/proc/PID/status (Cpus_allowed_list, Mems_allowed_list)"},
			Title:      T("JVM not bound to a NUMA node", "JVM 未绑定 NUMA 节点"),
			Checks:     T("On multi-node hosts, reads each JVM's Cpus_allowed_list: spanning several nodes, or bound to a node other than the NIC's, fails.", "在多 NUMA 节点主机上读取每个 JVM 的 Cpus_allowed_list：跨多个节点，或绑定的节点不是网卡所在节点，判为不通过。"),
			Why:        T("An unbound JVM's threads and heap spread over every node, so a large share of memory accesses and of received packets cross the interconnect. A carrier's load test on Kunpeng measured +66% latency and +91% throughput after binding a JVM to 32 cores of one node.", "未绑定的 JVM 线程和堆分散在所有节点上，大量访存和收包都要跨片。某运营商在鲲鹏上压测：把 JVM 绑定到一个节点的 32 个核后，时延改善 66%，吞吐提升 91%。"),
			Risk:       T("A bound JVM only uses that node's CPUs and memory: size the heap to the node, and keep other JVMs on other nodes. migratepages moves resident memory once.", "绑定后 JVM 只能使用该节点的 CPU 和内存：堆大小要与节点匹配，其他 JVM 放到其他节点。migratepages 只迁移一次已驻留的内存。"),
			Workload:   T("Large or network-heavy JVMs on multi-socket / multi-die hosts.", "多路/多 Die 主机上的大堆或网络密集型 JVM。"),
			References: []string{"man 8 numactl (-C / -N / -m)", "man 1 taskset", "man 8 migratepages", "systemd.exec(5) CPUAffinity, NUMAPolicy"},
			Eval:       evalJvmNumaBind,
		},
		{
			ID: "jvm.numa.use-numa", Category: "jvm", Severity: info,
			Reads:      []string{"/proc/PID/cmdline"},
			Title:      T("NUMA-aware heap for an unbound JVM", "未绑定 JVM 的 NUMA 感知堆"),
			Checks:     T("On multi-node hosts, for JVMs spanning nodes with Parallel GC or G1 (JDK 14+), looks for -XX:+UseNUMA.", "在多节点主机上，对跨节点运行且使用 Parallel GC 或 G1（JDK 14+）的 JVM，检查是否有 -XX:+UseNUMA。"),
			Why:        T("UseNUMA makes the young generation allocate on the node of the allocating thread, so most new objects are node-local even when the JVM is not bound.", "UseNUMA 让新生代在分配线程所在节点上分配内存，即使 JVM 未绑定，大部分新对象也在本地节点。"),
			Risk:       T("Uneven per-node young generation use; no effect with Serial/CMS or G1 before JDK 14.", "各节点新生代使用可能不均衡；对 Serial/CMS 以及 JDK 14 之前的 G1 无效。"),
			Workload:   T("Single large JVMs spread over a multi-node host.", "跨多节点运行的单个大 JVM。"),
			References: []string{"JEP 345 (NUMA-aware memory allocation for G1, JDK 14)", "Oracle java command: -XX:+UseNUMA"},
			Eval:       evalJvmNumaUseNuma,
		},
		{
			ID: "jvm.limits.nofile", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/limits"},
			Title:      T("Open-files limit of the JVM", "JVM 的打开文件数上限"),
			Checks:     T("Reads 'Max open files' from /proc/PID/limits: a soft limit below 65535 fails; open descriptors above 80% of it are critical.", "读取 /proc/PID/limits 中的 Max open files：软限制低于 65535 不通过；已打开描述符超过其 80% 为严重。"),
			Why:        T("Every connection, file and socket is a descriptor: at the limit accept() fails with EMFILE ('Too many open files') and connections are dropped.", "每个连接、文件、socket 都占用一个描述符：达到上限后 accept() 报 EMFILE（Too many open files），连接被丢弃。"),
			Risk:       T("None material.", "无实质风险。"),
			Workload:   T("All network-facing JVMs.", "所有对外提供网络服务的 JVM。"),
			References: []string{"A-Tune: ulimit nofile 102400", "man 1 prlimit", "systemd.exec(5) LimitNOFILE"},
			Eval:       evalJvmLimitsNofile,
		},
		{
			ID: "jvm.limits.nproc", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/limits"},
			Title:      T("Process/thread limit of the JVM user", "JVM 用户的进程/线程数上限"),
			Checks:     T("Reads 'Max processes' from /proc/PID/limits and fails below max(4096, 2 x the JVM's threads).", "读取 /proc/PID/limits 中的 Max processes，低于 max(4096, 2 x JVM 线程数) 时不通过。"),
			Why:        T("RLIMIT_NPROC counts every thread of the user: at the limit the JVM cannot start threads ('unable to create native thread') even with plenty of memory.", "RLIMIT_NPROC 统计该用户的所有线程：达到上限后即使内存充足，JVM 也无法创建线程（unable to create native thread）。"),
			Risk:       T("A higher limit weakens protection against runaway forks.", "调高上限会削弱对失控 fork 的防护。"),
			Workload:   T("Thread-heavy JVMs, several JVMs under one user.", "线程多的 JVM，或同一用户下运行多个 JVM。"),
			References: []string{"man 2 setrlimit (RLIMIT_NPROC)", "systemd.exec(5) LimitNPROC"},
			Eval:       evalJvmLimitsNproc,
		},
		{
			ID: "jvm.largepages", Category: "jvm", Severity: warning,
			Reads:      []string{"/proc/PID/cmdline", "/proc/meminfo HugePages_Total"},
			Title:      T("-XX:+UseLargePages without reserved huge pages", "使用 -XX:+UseLargePages 但未预留大页"),
			Checks:     T("For JVMs with -XX:+UseLargePages (and not UseTransparentHugePages), checks HugePages_Total in /proc/meminfo.", "对带 -XX:+UseLargePages（且未用 UseTransparentHugePages）的 JVM，检查 /proc/meminfo 的 HugePages_Total。"),
			Why:        T("With no hugetlbfs pages reserved the JVM warns 'Failed to reserve shared memory' and silently falls back to small pages: the flag does nothing.", "没有预留 hugetlbfs 大页时，JVM 打印 Failed to reserve shared memory 并悄悄回退到小页：参数完全不起作用。"),
			Risk:       T("Reserved pages are unavailable to anything else; reserving at runtime can fail on fragmented memory (use the hugepages= boot parameter then).", "预留的内存其他程序无法使用；内存碎片化时运行时预留可能失败（此时改用 hugepages= 启动参数）。"),
			Workload:   T("Large-heap JVMs that chose explicit huge pages.", "选择静态大页的大堆 JVM。"),
			References: []string{"kernel Documentation/admin-guide/mm/hugetlbpage.rst", "A-Tune SPECjbb profile (hugepages)"},
			Eval:       evalJvmLargepages,
		},
	}
}

// evalJvmHeapXmsXmx is the rule jvm.heap.xms-xmx.
func evalJvmHeapXmsXmx(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		o := j.Options
		if o.XmxBytes == 0 {
			return skip(T("no -Xmx on the command line (see jvm.heap.no-xmx)", "命令行没有 -Xmx（见 jvm.heap.no-xmx）"))
		}
		xms := "(none)"
		if o.XmsBytes > 0 {
			xms = "-Xms" + units.FormatJVMSize(o.XmsBytes)
		}
		e := optsEv(j, "heap", fmt.Sprintf("%s -Xmx%s", xms, units.FormatJVMSize(o.XmxBytes)))
		if o.XmsBytes == o.XmxBytes {
			return pass(Tf("-Xms = -Xmx = %s", "-Xms = -Xmx = %s", units.FormatJVMSize(o.XmxBytes)), e)
		}
		old := ""
		if o.XmsBytes > 0 {
			old = "-Xms" + units.FormatJVMSize(o.XmsBytes)
		}
		obs := Tf("%s with -Xmx%s", "%s，-Xmx%s", xms, units.FormatJVMSize(o.XmxBytes))
		if o.XmsBytes == 0 {
			obs = Tf("no -Xms with -Xmx%s: the heap starts at 1/64 of RAM and grows under load", "未设置 -Xms，-Xmx%s：堆从物理内存的 1/64 起步，负载上来后逐步扩容", units.FormatJVMSize(o.XmxBytes))
		}
		return fail(obs, Tf("-Xms%s (equal to -Xmx)", "-Xms%s（与 -Xmx 相等）", units.FormatJVMSize(o.XmxBytes)),
			jvmFlagFix(j.PID, "-Xms"+units.FormatJVMSize(o.XmxBytes), old), e)
	})
}

// evalJvmHeapNoXmx is the rule jvm.heap.no-xmx.
func evalJvmHeapNoXmx(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		o := j.Options
		if o.XmxBytes > 0 || o.MaxRAMPercentage > 0 || o.Values["MaxRAMFraction"] != "" || o.Values["MaxRAM"] != "" {
			return pass(T("maximum heap set explicitly", "已显式设置最大堆"), optsEv(j, "heap", fmt.Sprintf("Xmx=%s MaxRAMPercentage=%v", units.FormatJVMSize(o.XmxBytes), o.MaxRAMPercentage)))
		}
		lim, el := jvmMemLimit(c, j)
		if lim > 0 {
			want := int64(float64(lim) * 0.75)
			if aware, known := jdkContainerAware(jdkOf(j)); known && !aware {
				// MaxRAMPercentage arrived with container support (8u191, 10).
				x := "-Xmx" + units.FormatJVMSize(roundMiB(want))
				return fail(Tf("no -Xmx in a container with a %s limit on a JDK that sizes the heap from host RAM", "容器内存限额 %s，没有 -Xmx，而该 JDK 按宿主机内存确定堆大小", units.FormatBytes(lim)),
					Tf("%s (75%% of the limit)", "%s（限额的 75%%）", x), jvmFlagFix(j.PID, "-Xms"+units.FormatJVMSize(roundMiB(want))+" "+x, ""), el, optsEv(j, "heap flags", "(none)"), jdkEv(j, jdkOf(j)))
			}
			return fail(Tf("no -Xmx / MaxRAMPercentage in a container with a %s limit: default heap about %s", "容器内存限额 %s，但没有 -Xmx / MaxRAMPercentage：默认堆约 %s", units.FormatBytes(lim), units.FormatBytes(lim/4)),
				Tf("-XX:MaxRAMPercentage=75.0 (about %s) or an explicit -Xmx", "-XX:MaxRAMPercentage=75.0（约 %s）或显式 -Xmx", units.FormatBytes(want)),
				jvmFlagFix(j.PID, "-XX:MaxRAMPercentage=75.0 -XX:InitialRAMPercentage=75.0", ""), el, optsEv(j, "heap flags", "(none)"))
		}
		mem := jvmMemory(c, j)
		if mem <= 0 {
			return advice(T("no -Xmx: heap defaults to 1/4 of RAM", "没有 -Xmx：堆默认取物理内存的 1/4"),
				T("size the heap explicitly (-Xms = -Xmx) from a load test", "根据压测结果显式设置堆大小（-Xms = -Xmx）"), optsEv(j, "heap flags", "(none)")).WithSeverity(info)
		}
		return fail(Tf("no -Xmx: heap defaults to 1/4 of %s", "没有 -Xmx：堆默认取 %s 的 1/4", units.FormatBytes(mem)),
			T("size the heap explicitly (-Xms = -Xmx) from a load test", "根据压测结果显式设置堆大小（-Xms = -Xmx）"),
			jvmFlagFix(j.PID, fmt.Sprintf("-Xms%[1]s -Xmx%[1]s", units.FormatJVMSize(roundGiB(mem/4))), ""), optsEv(j, "heap flags", "(none)")).WithSeverity(info)
	})
}

// evalJvmHeapOverLimit is the rule jvm.heap.over-limit.
func evalJvmHeapOverLimit(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		x := j.Options.XmxBytes
		if x == 0 {
			return skip(T("no -Xmx on the command line", "命令行没有 -Xmx"))
		}
		ex := optsEv(j, "-Xmx", units.FormatJVMSize(x))
		lim, el := jvmMemLimit(c, j)
		if lim > 0 {
			obs := Tf("-Xmx%s against a %s memory limit (%s)", "-Xmx%s，内存限额 %s（占 %s）", units.FormatJVMSize(x), units.FormatBytes(lim), pct(float64(x)/float64(lim)))
			if float64(x) <= 0.85*float64(lim) {
				return pass(obs, ex, el)
			}
			want := roundMiB(int64(float64(lim) * 0.75))
			f := fail(obs, Tf("-Xmx%s (75%% of the limit), or raise the limit", "-Xmx%s（限额的 75%%），或提高限额", units.FormatJVMSize(want)), jvmFlagFix(j.PID, "-Xmx"+units.FormatJVMSize(want), "-Xmx"+units.FormatJVMSize(x)), ex, el)
			if x < lim {
				f = f.WithSeverity(warning)
			}
			return f
		}
		tot, et, ok := meminfo(c, "MemTotal")
		if !ok {
			return unavailableFrom(same("/proc/meminfo MemTotal"), c.F.Memory.Meminfo)
		}
		avail, ea, _ := meminfo(c, "MemAvailable")
		total, free := tot*1024, avail*1024+j.RSSKB*1024
		obs := Tf("-Xmx%s on a host with %s RAM, %s available (+%s already resident in this JVM)", "-Xmx%s，主机内存 %s，可用 %s（该 JVM 已驻留 %s）", units.FormatJVMSize(x), units.FormatBytes(total), units.FormatBytes(avail*1024), units.FormatBytes(j.RSSKB*1024))
		want := roundMiB(int64(float64(free) * 0.75))
		switch {
		case x >= total:
			return fail(obs, Tf("-Xmx%s or less", "-Xmx%s 或更小", units.FormatJVMSize(want)), jvmFlagFix(j.PID, "-Xmx"+units.FormatJVMSize(want), "-Xmx"+units.FormatJVMSize(x)), ex, et, ea)
		case avail > 0 && x > free:
			return fail(obs, Tf("-Xmx%s or less, or free memory on the host", "-Xmx%s 或更小，或释放主机内存", units.FormatJVMSize(want)), jvmFlagFix(j.PID, "-Xmx"+units.FormatJVMSize(want), "-Xmx"+units.FormatJVMSize(x)), ex, et, ea).WithSeverity(warning)
		}
		return pass(obs, ex, et, ea)
	})
}

// evalJvmGcSerial is the rule jvm.gc.serial.
func evalJvmGcSerial(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		gc, ergo := effectiveGC(c, j)
		if gc == "" {
			return unavailable(finding.T("the collector in use", "正在使用的垃圾收集器"), finding.T("no explicit GC flag and JDK version unknown", "没有显式的 GC 参数，且 JDK 版本未知"))
		}
		heap := heapMax(c, j)
		e := optsEv(j, "gc", fmt.Sprintf("%s (ergonomic: %v), max heap %s", gc, ergo, units.FormatBytes(heap)))
		if gc != "Serial" || heap < 2<<30 {
			return pass(Tf("%s GC, max heap %s", "%s GC，最大堆 %s", gc, units.FormatBytes(heap)), e)
		}
		if ergo {
			return fail(Tf("the JVM picked Serial GC by ergonomics (it sees %.1f CPUs / %s) for a %s heap", "JVM 自动选择了 Serial GC（可见 %.1f 个 CPU / %s），而最大堆为 %s", jvmCPUs(c, j), units.FormatBytes(jvmMemory(c, j)), units.FormatBytes(heap)),
				T("-XX:+UseG1GC (and at least 2 CPUs, or -XX:ActiveProcessorCount=2)", "-XX:+UseG1GC（并至少分配 2 个 CPU，或 -XX:ActiveProcessorCount=2）"), gcFix(j, "-XX:+UseG1GC"), e)
		}
		return fail(Tf("-XX:+UseSerialGC with a %s heap", "-XX:+UseSerialGC，最大堆 %s", units.FormatBytes(heap)), T("-XX:+UseG1GC (or -XX:+UseParallelGC for batch throughput)", "-XX:+UseG1GC（批处理吞吐场景可用 -XX:+UseParallelGC）"), gcFix(j, "-XX:+UseG1GC"), e)
	})
}

// evalJvmGcCms is the rule jvm.gc.cms.
func evalJvmGcCms(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if j.Options.GC != "CMS" {
			return pass(Tf("collector %s", "收集器 %s", orDefault(j.Options.GC, "default")), optsEv(j, "gc", orDefault(j.Options.GC, "(default)")))
		}
		jdk := jdkOf(j)
		major := jdk.Major
		e := optsEv(j, "gc", "-XX:+UseConcMarkSweepGC on JDK "+jdk.Label())
		switch {
		case !jdk.Known():
			return unavailable(finding.T("JDK version (to judge CMS)", "JDK 版本（用于判断 CMS）"), finding.T("not found in the release file or the path; give it with --jdk", "release 文件和路径中都没有找到；请用 --jdk 给出"))
		case major >= 15:
			return fail(Tf("-XX:+UseConcMarkSweepGC on JDK %d: the JVM refuses to start (Unrecognized VM option)", "JDK %d 不接受 -XX:+UseConcMarkSweepGC：JVM 无法启动（Unrecognized VM option）", major), T("-XX:+UseG1GC and drop the CMS* flags", "改为 -XX:+UseG1GC 并删除 CMS* 参数"), gcFix(j, "-XX:+UseG1GC"), e, jdkEv(j, jdk)).WithSeverity(critical)
		case major >= 14:
			return fail(Tf("-XX:+UseConcMarkSweepGC on JDK %d: ignored, the JVM runs G1", "JDK %d 上的 -XX:+UseConcMarkSweepGC 被忽略，实际运行 G1", major), T("-XX:+UseG1GC and drop the CMS* flags", "改为 -XX:+UseG1GC 并删除 CMS* 参数"), gcFix(j, "-XX:+UseG1GC"), e, jdkEv(j, jdk))
		case major >= 9:
			return fail(Tf("-XX:+UseConcMarkSweepGC on JDK %d: deprecated", "JDK %d 上的 -XX:+UseConcMarkSweepGC 已废弃", major), T("-XX:+UseG1GC", "-XX:+UseG1GC"), gcFix(j, "-XX:+UseG1GC"), e).WithSeverity(info)
		}
		return pass(T("CMS on JDK 8: supported", "JDK 8 上使用 CMS：受支持"), e)
	})
}

// evalJvmGcParallelLatency is the rule jvm.gc.parallel-latency.
func evalJvmGcParallelLatency(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		gc, ergo := effectiveGC(c, j)
		if gc == "" {
			return unavailable(finding.T("the collector in use", "正在使用的垃圾收集器"), finding.T("no explicit GC flag and JDK version unknown", "没有显式的 GC 参数，且 JDK 版本未知"))
		}
		e := optsEv(j, "gc", fmt.Sprintf("%s (ergonomic: %v)", gc, ergo))
		if gc != "Parallel" {
			return pass(Tf("%s GC", "%s GC", gc), e)
		}
		jdk := jdkOf(j)
		want := latencyGC(jdk)
		return fail(T("Parallel (throughput) GC on a latency-critical service", "时延敏感服务使用 Parallel（吞吐型）GC"), Tf("%s", "%s", want), gcFix(j, want), e, jdkEv(j, jdk))
	})
}

// evalJvmGcG1Small is the rule jvm.gc.g1-small.
func evalJvmGcG1Small(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if j.Options.GC != "G1" {
			return pass(Tf("collector %s", "收集器 %s", orDefault(j.Options.GC, "default")), optsEv(j, "gc", orDefault(j.Options.GC, "(default)")))
		}
		cpus := jvmCPUs(c, j)
		x := j.Options.XmxBytes
		e := optsEv(j, "gc", fmt.Sprintf("G1, %.1f CPUs, -Xmx%s", cpus, units.FormatJVMSize(x)))
		if (cpus > 0 && cpus < 2) || (x > 0 && x < 512<<20) {
			return fail(Tf("G1 with %.1f CPUs and a %s max heap", "G1，%.1f 个 CPU，最大堆 %s", cpus, units.FormatBytes(x)), T("-XX:+UseSerialGC", "-XX:+UseSerialGC"), gcFix(j, "-XX:+UseSerialGC"), e)
		}
		return pass(Tf("G1 with %.1f CPUs", "G1，%.1f 个 CPU", cpus), e)
	})
}

// evalJvmGcLogging is the rule jvm.gc.logging.
func evalJvmGcLogging(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if j.Options.GCLogging {
			return pass(T("GC logging enabled", "已开启 GC 日志"), optsEv(j, "gc logging", "on"))
		}
		jdk := jdkOf(j)
		rec, fx := byJDK(j.PID, jdk, gcLogModern, gcLogJDK8)
		return fail(T("no GC logging flags", "没有 GC 日志参数"), Tf("%s (directory must exist and be writable)", "%s（目录需存在且可写）", rec), fx, optsEv(j, "gc logging", "off"), jdkEv(j, jdk))
	})
}

// evalJvmHeapdumpOom is the rule jvm.heapdump-oom.
func evalJvmHeapdumpOom(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if j.Options.Bools["HeapDumpOnOutOfMemoryError"] {
			return pass(T("heap dump on OOM enabled", "已开启 OOM 堆转储"), optsEv(j, "HeapDumpOnOutOfMemoryError", "true"))
		}
		flags := "-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=/var/log/java/"
		return fail(T("-XX:+HeapDumpOnOutOfMemoryError absent", "缺少 -XX:+HeapDumpOnOutOfMemoryError"), T(flags+" (on a volume with free space >= heap)", flags+"（所在卷剩余空间不小于堆）"),
			jvmFlagFix(j.PID, flags, ""), optsEv(j, "HeapDumpOnOutOfMemoryError", "absent"))
	})
}

// evalJvmThpFlag is the rule jvm.thp-flag.
func evalJvmThpFlag(c *Ctx) []Outcome {
	thp := c.F.Memory.THPEnabled
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if !thp.OK {
			return unavailableFrom(finding.T("host THP mode", "宿主机 THP 模式"), thp)
		}
		flag := j.Options.Bools["UseTransparentHugePages"]
		eh, ej := evf("transparent_hugepage/enabled", thp), optsEv(j, "UseTransparentHugePages", fmt.Sprint(flag))
		mode := thp.Value
		switch {
		case mode == "madvise" && flag:
			return pass(T("THP madvise with -XX:+UseTransparentHugePages: the heap gets huge pages", "THP 为 madvise 且有 -XX:+UseTransparentHugePages：堆使用大页"), eh, ej)
		case mode == "madvise" && !flag:
			if c.Profile == Database {
				return pass(T("THP madvise without the JVM flag (database profile: no huge pages wanted)", "THP 为 madvise，JVM 未加参数（database 配置档不需要大页）"), eh, ej)
			}
			return fail(T("THP madvise but the JVM does not ask for huge pages", "THP 为 madvise，但 JVM 未申请大页"), T("-XX:+UseTransparentHugePages", "-XX:+UseTransparentHugePages"),
				jvmFlagFix(j.PID, "-XX:+UseTransparentHugePages", ""), eh, ej).WithSeverity(info)
		case mode == "never" && flag:
			if c.Profile == Database {
				return fail(T("-XX:+UseTransparentHugePages with THP never: the flag does nothing", "THP 为 never，-XX:+UseTransparentHugePages 不起作用"), T("remove -XX:+UseTransparentHugePages (database hosts keep THP never)", "删除 -XX:+UseTransparentHugePages（数据库主机保持 THP never）"),
					finding.Fix{Apply: fmt.Sprintf("remove from the JVM options: -XX:+UseTransparentHugePages; then restart the service of pid %d", j.PID), Revert: fmt.Sprintf("add to the JVM options: -XX:+UseTransparentHugePages; then restart the service of pid %d", j.PID)}, eh, ej).WithSeverity(info)
			}
			fx := echoFix(thpEnabledPath, "madvise", "never")
			fx.Persist = thpPersist("transparent_hugepage", "madvise")
			return fail(T("-XX:+UseTransparentHugePages with THP never: the flag does nothing", "THP 为 never，-XX:+UseTransparentHugePages 不起作用"), T("host THP madvise so the flag takes effect", "主机 THP 改为 madvise，使参数生效"), fx, eh, ej)
		case mode == "always" && !flag:
			return pass(T("THP always: the heap already gets huge pages; the host-wide mode is judged by mem.thp.enabled", "THP 为 always：堆已经使用大页；全机模式由 mem.thp.enabled 评估"), eh, ej)
		case mode == "always":
			fx := echoFix(thpEnabledPath, "madvise", "always")
			fx.Persist = thpPersist("transparent_hugepage", "madvise")
			rec := T("host THP madvise and keep -XX:+UseTransparentHugePages on the JVM", "主机 THP 改为 madvise，JVM 保留 -XX:+UseTransparentHugePages")
			if !flag {
				rec = T("host THP madvise and add -XX:+UseTransparentHugePages to the JVM", "主机 THP 改为 madvise，并为 JVM 加上 -XX:+UseTransparentHugePages")
			}
			if c.Profile == Database {
				fx = echoFix(thpEnabledPath, "never", "always")
				fx.Persist = thpPersist("transparent_hugepage", "never")
				rec = T("host THP never (database profile)", "主机 THP 改为 never（database 配置档）")
			}
			return fail(T("THP always: every process gets huge pages, not just the heap", "THP 为 always：所有进程都使用大页，而不只是 JVM 堆"), rec, fx, eh, ej)
		}
		return pass(Tf("THP %s, flag %v", "THP %s，参数 %v", mode, flag), eh, ej)
	})
}

// evalJvmXssThreads is the rule jvm.xss-threads.
func evalJvmXssThreads(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		stack := j.Options.XssBytes
		if stack == 0 {
			stack = 1 << 20
			if c.F.Kernel.Arch.OK && c.F.Kernel.Arch.Value == "aarch64" {
				stack = 2 << 20
			}
		}
		mem := jvmMemory(c, j)
		if mem <= 0 {
			return unavailable(finding.T("memory size", "内存大小"), finding.T("no memory limit and MemTotal unknown", "没有内存限额，且 MemTotal 未知"))
		}
		reserve := stack * int64(j.Threads)
		e := ev("threads x stack", fmt.Sprintf("%d x %s", j.Threads, units.FormatBytes(stack)), fmt.Sprintf("/proc/%d/status Threads", j.PID))
		obs := Tf("%d threads x %s stack = %s (%s of %s)", "%d 个线程 x %s 栈 = %s（占 %[5]s 的 %[4]s）", j.Threads, units.FormatBytes(stack), units.FormatBytes(reserve), pct(float64(reserve)/float64(mem)), units.FormatBytes(mem))
		if reserve*4 <= mem {
			return pass(obs, e)
		}
		want := int64(512 << 10)
		if j.Options.XssBytes > 0 && j.Options.XssBytes <= want {
			return advice(obs, T("reduce the thread count (smaller pools, async I/O, virtual threads on JDK 21) or raise the memory", "减少线程数（缩小线程池、异步 I/O、JDK 21 虚拟线程）或增加内存"), e)
		}
		old := ""
		if j.Options.XssBytes > 0 {
			old = "-Xss" + units.FormatJVMSize(j.Options.XssBytes)
		}
		return fail(obs, T("-Xss512k (after testing deep call paths) and smaller thread pools", "-Xss512k（先验证深调用链），并缩小线程池"), jvmFlagFix(j.PID, "-Xss512k", old), e)
	})
}

// evalJvmContainerAwareness is the rule jvm.container-awareness.
func evalJvmContainerAwareness(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if !inContainer(c, j) {
			return skip(T("no cgroup CPU or memory limit on this JVM", "该 JVM 没有 cgroup CPU 或内存限制"))
		}
		jdk := jdkOf(j)
		aware, known := jdkContainerAware(jdk)
		if !known {
			return unavailable(finding.T("JDK version", "JDK 版本"), finding.Tf(finding.T("not in JAVA_HOME/release nor in the path; run `%s -version`", "JAVA_HOME/release 和路径中都没有；请运行 `%s -version`"), orDefault(j.Exe, "java")))
		}
		e := jdkEv(j, jdk)
		if aware {
			return pass(Tf("JDK %s reads cgroup limits", "JDK %s 能识别 cgroup 限制", jdk.Label()), e)
		}
		return advice(Tf("JDK %s in a container: cgroup limits are ignored", "容器中运行 JDK %s：cgroup 限制被忽略", jdk.Label()),
			T("JDK 8u191+ (e.g. current Bisheng JDK 8 / OpenJDK 8) or 11+; until then set -Xmx, -XX:ParallelGCThreads, -XX:CICompilerCount explicitly", "升级到 JDK 8u191+（如最新毕昇 JDK 8 / OpenJDK 8）或 11+；在此之前显式设置 -Xmx、-XX:ParallelGCThreads、-XX:CICompilerCount"), e)
	})
}

// evalJvmNumaBind is the rule jvm.numa.bind.
func evalJvmNumaBind(c *Ctx) []Outcome {
	nodes, o := multiNode(c)
	if o != nil {
		return one(*o)
	}
	nic, hasNIC := nicNode(c)
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		pinned, known, spanned := jvmPinned(nodes, j)
		if !known {
			return unavailable(same(fmt.Sprintf("/proc/%d/status Cpus_allowed_list", j.PID)), finding.T("not read", "未读取"))
		}
		e := ev("Cpus_allowed_list", sysinfo.FormatCPUList(j.CPUsAllowed), fmt.Sprintf("/proc/%d/status", j.PID))
		target := nodes[0]
		if hasNIC {
			if n, ok := nodeByID(nodes, nic.NUMANode); ok {
				target = n
			}
		} else {
			for _, n := range nodes {
				if n.MemFreeKB > target.MemFreeKB {
					target = n
				}
			}
		}
		fx := finding.Fix{
			Apply:   fmt.Sprintf("taskset -apc %s %d && migratepages %d all %d", sysinfo.FormatCPUList(target.CPUs), j.PID, j.PID, target.ID),
			Revert:  fmt.Sprintf("taskset -apc %s %d   # pages moved by migratepages stay on node %d", sysinfo.FormatCPUList(j.CPUsAllowed), j.PID, target.ID),
			Persist: fmt.Sprintf("numactl --cpunodebind=%[1]d --membind=%[1]d java ...\n# systemd 243+ unit, [Service]:\nCPUAffinity=%[2]s\nNUMAPolicy=bind\nNUMAMask=%[1]d", target.ID, sysinfo.FormatCPUList(target.CPUs)),
			Note: Tf("taskset moves the running threads; pages already allocated stay where they are (migratepages moves them). To keep the binding across restarts start the JVM under numactl, or set the systemd lines.",
				"taskset 迁移正在运行的线程；已分配的内存页不会自动迁移（migratepages 负责迁移）。要在重启后保持绑定，请用 numactl 启动 JVM，或在 systemd 单元中加上述配置。"),
		}
		nicNote := T("", "")
		if hasNIC {
			nicNote = Tf(" (node of %s)", "（%s 所在节点）", nic.Name)
		}
		if !pinned {
			return fail(Tf("JVM runs on CPUs %s spanning nodes %s", "JVM 运行在 CPU %s 上，跨节点 %s", sysinfo.FormatCPUList(j.CPUsAllowed), intsString(spanned)),
				T(fmt.Sprintf("bind to node %d%s: CPUs %s and its memory", target.ID, nicNote.EN, sysinfo.FormatCPUList(target.CPUs)), fmt.Sprintf("绑定到节点 %d%s：CPU %s 及其内存", target.ID, nicNote.ZH, sysinfo.FormatCPUList(target.CPUs))), fx, e)
		}
		if hasNIC && spanned[0] != nic.NUMANode {
			return fail(Tf("JVM bound to node %d but %s is on node %d", "JVM 绑定在节点 %d，而 %s 位于节点 %d", spanned[0], nic.Name, nic.NUMANode),
				Tf("bind to node %d (CPUs %s) where the NIC is, or move the NIC IRQs to node %d", "绑定到网卡所在的节点 %d（CPU %s），或把网卡中断移到节点 %d", target.ID, sysinfo.FormatCPUList(target.CPUs), spanned[0]), fx, e,
				ev(nic.Name+" numa_node", nic.NUMANode, nicSource(nic)+"/device/numa_node"))
		}
		return pass(Tf("JVM bound to node %d", "JVM 已绑定到节点 %d", spanned[0]), e)
	})
}

// evalJvmNumaUseNuma is the rule jvm.numa.use-numa.
func evalJvmNumaUseNuma(c *Ctx) []Outcome {
	nodes, o := multiNode(c)
	if o != nil {
		return one(*o)
	}
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		pinned, known, _ := jvmPinned(nodes, j)
		if known && pinned {
			return pass(T("bound to one node: UseNUMA not needed", "已绑定单个节点：无需 UseNUMA"), ev("Cpus_allowed_list", sysinfo.FormatCPUList(j.CPUsAllowed), fmt.Sprintf("/proc/%d/status", j.PID)))
		}
		gc, _ := effectiveGC(c, j)
		if !(gc == "Parallel" || (gc == "G1" && jdkOf(j).AtLeast(14))) {
			return skip(Tf("collector %s does not use UseNUMA", "收集器 %s 不支持 UseNUMA", orDefault(gc, "unknown")))
		}
		e := optsEv(j, "UseNUMA", fmt.Sprint(j.Options.Bools["UseNUMA"]))
		if j.Options.Bools["UseNUMA"] {
			return pass(T("-XX:+UseNUMA set", "已设置 -XX:+UseNUMA"), e)
		}
		return fail(Tf("unbound JVM with %s GC on %d nodes, no -XX:+UseNUMA", "JVM 未绑定，使用 %s GC，主机 %d 个节点，未设置 -XX:+UseNUMA", gc, len(nodes)),
			T("-XX:+UseNUMA (or bind the JVM to one node: jvm.numa.bind)", "-XX:+UseNUMA（或把 JVM 绑定到单个节点：见 jvm.numa.bind）"), jvmFlagFix(j.PID, "-XX:+UseNUMA", ""), e)
	})
}

// evalJvmLimitsNofile is the rule jvm.limits.nofile.
func evalJvmLimitsNofile(c *Ctx) []Outcome {
	return eachJVMAny(c, func(j *sysinfo.JVM) Outcome {
		l, ok := j.Limits["Max open files"]
		if !ok {
			return unavailable(same(fmt.Sprintf("/proc/%d/limits", j.PID)), finding.T("no 'Max open files' line (permission?)", "没有 'Max open files' 行（权限不够？）"))
		}
		e := ev("Max open files", fmt.Sprintf("soft %d, hard %d; open %d", l.Soft, l.Hard, j.OpenFDs), fmt.Sprintf("/proc/%d/limits", j.PID))
		if l.Soft < 0 {
			return pass(T("open files unlimited", "打开文件数不限制"), e)
		}
		obs := Tf("soft limit %d (hard %d), %d open", "软限制 %d（硬限制 %d），已打开 %d", l.Soft, l.Hard, j.OpenFDs)
		crit := j.OpenFDs > 0 && float64(j.OpenFDs) > 0.8*float64(l.Soft)
		if l.Soft >= 65535 && !crit { // 65535 is the common "64k" setting
			return pass(obs, e)
		}
		want := int64(65536)
		for crit && float64(j.OpenFDs) > 0.5*float64(want) {
			want *= 2
		}
		fx := prlimitFix(j.PID, "nofile", "LimitNOFILE", l, want,
			Tf("prlimit changes the running JVM only. To persist, add the lines with `systemctl edit <service>`, or for services started from a login shell write /etc/security/limits.d/90-java.conf: <user> - nofile %d.",
				"prlimit 只修改运行中的 JVM。持久化：用 `systemctl edit <服务>` 加入上述配置；若服务由登录 shell 启动，则写入 /etc/security/limits.d/90-java.conf：<用户> - nofile %d。", want))
		f := fail(obs, Tf("nofile %d", "nofile %d", want), fx, e)
		if crit {
			f = f.WithSeverity(critical)
		}
		return f
	})
}

// evalJvmLimitsNproc is the rule jvm.limits.nproc.
func evalJvmLimitsNproc(c *Ctx) []Outcome {
	return eachJVMAny(c, func(j *sysinfo.JVM) Outcome {
		l, ok := j.Limits["Max processes"]
		if !ok {
			return unavailable(same(fmt.Sprintf("/proc/%d/limits", j.PID)), finding.T("no 'Max processes' line (permission?)", "没有 'Max processes' 行（权限不够？）"))
		}
		e := ev("Max processes", fmt.Sprintf("soft %d, hard %d; threads %d", l.Soft, l.Hard, j.Threads), fmt.Sprintf("/proc/%d/limits", j.PID))
		if l.Soft < 0 {
			return pass(T("processes unlimited", "进程数不限制"), e)
		}
		need := int64(2 * j.Threads)
		if need < 4096 {
			need = 4096
		}
		obs := Tf("soft limit %d for a JVM with %d threads", "软限制 %d，JVM 有 %d 个线程", l.Soft, j.Threads)
		if l.Soft >= need {
			return pass(obs, e)
		}
		want := int64(65535)
		for want < need {
			want *= 2
		}
		fx := prlimitFix(j.PID, "nproc", "LimitNPROC", l, want,
			Tf("prlimit changes the running JVM only. To persist, add the lines with `systemctl edit <service>`, or write /etc/security/limits.d/90-java.conf: <user> - nproc %d.",
				"prlimit 只修改运行中的 JVM。持久化：用 `systemctl edit <服务>` 加入上述配置，或写入 /etc/security/limits.d/90-java.conf：<用户> - nproc %d。", want))
		return fail(obs, Tf("nproc %d", "nproc %d", want), fx, e)
	})
}

// evalJvmLargepages is the rule jvm.largepages.
func evalJvmLargepages(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		if !j.Options.Bools["UseLargePages"] || j.Options.Bools["UseTransparentHugePages"] {
			return skip(T("JVM does not use -XX:+UseLargePages with hugetlbfs", "JVM 未使用 -XX:+UseLargePages（hugetlbfs）"))
		}
		total, et, ok := meminfo(c, "HugePages_Total")
		if !ok {
			return unavailableFrom(same("/proc/meminfo HugePages_Total"), c.F.Memory.Meminfo)
		}
		if total > 0 {
			return pass(Tf("%d huge pages reserved", "已预留 %d 个大页", total), et)
		}
		size, _, _ := meminfo(c, "Hugepagesize")
		if size <= 0 {
			size = 2048
		}
		heap := heapMax(c, j)
		pages := int64(math.Ceil(float64(heap)/float64(size*1024)*1.05)) + 1
		return fail(T("-XX:+UseLargePages but HugePages_Total is 0: the JVM runs on small pages", "有 -XX:+UseLargePages 但 HugePages_Total 为 0：JVM 实际使用小页"),
			Tf("vm.nr_hugepages = %d (%s heap + 5%%), or use -XX:+UseTransparentHugePages with THP madvise", "vm.nr_hugepages = %d（%s 堆 + 5%%），或改用 -XX:+UseTransparentHugePages 配合 THP madvise", pages, units.FormatBytes(heap)),
			sysctlFix1("vm.nr_hugepages", pages, 0), et, optsEv(j, "UseLargePages", "true"))
	})
}

func roundMiB(b int64) int64 { return b / (1 << 20) * (1 << 20) }

func roundGiB(b int64) int64 {
	if b >= 1<<30 {
		return b / (1 << 30) * (1 << 30)
	}
	return roundMiB(b)
}

// quotaThreads checks a JVM thread-count flag (GC workers, JIT compilers)
// against the cgroup CPU quota: an explicit value above the quota fails, and
// so does the host-sized default of a JDK that ignores cgroups, when that
// default exceeds the quota.
type quotaThreads struct {
	flag        string
	min         int // the lowest sensible value
	what        finding.Text
	hostDefault func(host int) int
}

func (qt quotaThreads) eval(c *Ctx) []Outcome {
	return eachJVM(c, func(j *sysinfo.JVM) Outcome {
		q, eq := jvmQuota(c, j)
		if q <= 0 {
			return skip(T("no CPU quota on this JVM", "该 JVM 没有 CPU 配额"))
		}
		want := max(ceilCores(q), qt.min)
		flagTo := fmt.Sprintf("-XX:%s=%d", qt.flag, want)
		rec := T(flagTo, flagTo)
		if v, ok := j.Options.Values[qt.flag]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return unavailable(same("-XX:"+qt.flag), finding.Tf(finding.T("not a number: %s", "不是数字：%s"), v))
			}
			e := optsEv(j, qt.flag, v)
			if n <= want {
				return pass(Tf("%s=%d within a %.2f-core quota", "%s=%d，在 %.2f 核配额以内", qt.flag, n, q), e, eq)
			}
			return fail(Tf("%s=%d with a %.2f-core quota", "%s=%d，而 CPU 配额只有 %.2f 核", qt.flag, n, q), rec,
				jvmFlagFix(j.PID, flagTo, fmt.Sprintf("-XX:%s=%s", qt.flag, v)), e, eq)
		}
		jdk := jdkOf(j)
		if aware, known := jdkContainerAware(jdk); !known || aware {
			return pass(Tf("%s sized by the JVM from the quota", "%s 由 JVM 按配额自动确定", qt.flag), eq)
		}
		host := onlineCPUs(c)
		def := qt.hostDefault(host)
		if def <= want {
			return pass(finding.Text{EN: fmt.Sprintf("about %d %s from %d host CPUs, within the quota", def, qt.what.EN, host),
				ZH: fmt.Sprintf("按宿主机 %d 个 CPU 约 %d 个%s，在配额以内", host, def, qt.what.ZH)}, eq)
		}
		return fail(finding.Text{
			EN: fmt.Sprintf("JDK %s ignores the %.2f-core quota: about %d %s sized from %d host CPUs", jdk.Label(), q, def, qt.what.EN, host),
			ZH: fmt.Sprintf("JDK %s 忽略 %.2f 核配额：按宿主机 %d 个 CPU 约启动 %d 个%s", jdk.Label(), q, host, def, qt.what.ZH)},
			rec, jvmFlagFix(j.PID, flagTo, ""), eq, ev("online cpus", host, "/sys/devices/system/cpu/online"))
	})
}

// prlimitFix raises a running JVM's soft limit of resource to want (the hard
// limit too when it is lower), reverts to the limits seen, and persists
// through the systemd directive unitKey.
func prlimitFix(pid int, resource, unitKey string, l sysinfo.Limit, want int64, note finding.Text) finding.Fix {
	hard := l.Hard
	if hard >= 0 && hard < want {
		hard = want
	}
	return finding.Fix{
		Apply:   fmt.Sprintf("prlimit --pid %d --%s=%d:%s", pid, resource, want, limitString(hard)),
		Revert:  fmt.Sprintf("prlimit --pid %d --%s=%d:%s", pid, resource, l.Soft, limitString(l.Hard)),
		Persist: fmt.Sprintf("[Service]\n%s=%d", unitKey, want),
		Note:    note,
		Changes: []finding.Change{{Kind: finding.ChangePrlimit, Key: fmt.Sprintf("%d/%s", pid, resource),
			Value: fmt.Sprintf("%d:%s", want, limitString(hard))}},
	}
}

// limitString writes a /proc/PID/limits value (sysinfo.Limit: -1 is
// unlimited) as units.FormatRlimit does.
func limitString(v int64) string {
	if v < 0 {
		return units.FormatRlimit(units.RlimInfinity)
	}
	return units.FormatRlimit(uint64(v))
}

// GC logging options: unified logging (JEP 158/271) for JDK 9+, the JDK 8
// flags (refused by 9+: PrintGCDateStamps, UseGCLogFileRotation...) for 8.
const (
	gcLogModern = "-Xlog:gc*,safepoint:file=/var/log/java/gc-%p.log:time,uptime,level,tags:filecount=10,filesize=50m"
	gcLogJDK8   = "-Xloggc:/var/log/java/gc-%t.log -XX:+PrintGCDetails -XX:+PrintGCDateStamps -XX:+UseGCLogFileRotation -XX:NumberOfGCLogFiles=10 -XX:GCLogFileSize=50M"
)

// latencyGC is the low-pause collector to recommend for a JDK: generational
// ZGC where it exists (-XX:+ZGenerational on 21-22, the default mode from 23,
// the flag gone in 24), else G1 with a pause goal (8+, and when unknown).
func latencyGC(jdk jvmopts.JDK) string {
	switch {
	case jdk.AtLeast(23):
		return "-XX:+UseZGC"
	case jdk.AtLeast(21) && jdk.Known():
		return "-XX:+UseZGC -XX:+ZGenerational"
	case jdk.AtLeast(21):
		return "-XX:+UseZGC"
	}
	return "-XX:+UseG1GC -XX:MaxGCPauseMillis=100"
}
