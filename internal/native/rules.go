package native

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

var anyNative = finding.T("native code and the JVM's own (perf-sampled processes)", "原生代码与 JVM 自身（perf 采样的进程）")

// Rules is the catalogue: each pathology's texts as data, its condition
// over the recording's hot functions and the CPU's features.
func Rules() []finding.Rule[*Input] {
	return []finding.Rule[*Input]{
		{
			ID: "native.spin-wait", Category: "native", Severity: finding.Warning,
			Title:  finding.T("CPU burnt in a spin-wait loop", "CPU 消耗在自旋等待循环中"),
			Checks: finding.Tf(finding.T("A user function holding at least %.0f%% of the samples on its own whose samples sit mostly in a pause (x86) or yield/isb (arm64) loop, or a known spin routine (ut_delay, SpinPause).", "某个用户态函数自身占采样至少 %.0f%%，且其采样大多落在 pause（x86）或 yield/isb（arm64）循环中，或为已知的自旋例程（ut_delay、SpinPause）。"), 100*hotSelf),
			Why: finding.T("threads spin waiting for a lock or a flag instead of sleeping; the spinning is pure overhead, and on ARM a pause/yield loop tuned for x86 waits a different time",
				"线程自旋等待锁或标志而不休眠，自旋是纯开销；在 ARM 上，按 x86 调校的 pause/yield 循环等待时间不同"),
			Recommended: finding.T("shorten the spin and park sooner: for MySQL/InnoDB's ut_delay lower innodb_spin_wait_delay (and innodb_spin_wait_pause_multiplier, 8.0.16+); in your own code spin a bounded number of times, then futex-wait",
				"缩短自旋、尽早挂起：MySQL/InnoDB 的 ut_delay 可调低 innodb_spin_wait_delay（8.0.16+ 还有 innodb_spin_wait_pause_multiplier）；自有代码应限定自旋次数，然后 futex 等待"),
			Fix:        finding.Fix{Apply: "SET GLOBAL innodb_spin_wait_delay = 2;", Revert: "SET GLOBAL innodb_spin_wait_delay = 6;", Note: finding.T("the MySQL case; for other code the fix is in the source", "以 MySQL 为例；其他程序需改源码")},
			Risk:       finding.T("less spinning can mean more context switches under short lock holds: measure TPS before and after", "减少自旋可能在锁持有时间很短时增加上下文切换：请前后对比 TPS"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples", "the function's code (/proc/PID/mem, the ELF file)"},
			References: []string{"https://dev.mysql.com/doc/refman/8.0/en/innodb-performance-spin_lock_polling.html"},
			Eval:       evalSpin,
		},
		{
			ID: "native.crc32-software", Category: "native", Severity: finding.Warning,
			Title:  finding.T("CRC32 computed in software although the CPU has CRC instructions", "CPU 支持 CRC 指令，CRC32 却由软件计算"),
			Checks: finding.Tf(finding.T("A hot crc32* function (at least %.0f%% of the samples on its own) whose code has no CRC32 instruction while the CPU has one (x86 sse4_2, arm64 crc32).", "某个热点 crc32* 函数（自身占采样至少 %.0f%%）的代码中没有 CRC32 指令，而 CPU 支持（x86 sse4_2、arm64 crc32）。"), 100*hotSelf),
			Why: finding.T("a table-driven CRC32 costs several cycles per byte; the CPU's instruction does 8 bytes in about one, so checksums of pages, packets or logs become almost free",
				"查表法 CRC32 每字节需数个时钟周期；CPU 指令约一个周期处理 8 字节，页、报文、日志的校验几乎不再耗时"),
			Risk:       finding.T("a binary built for the instruction does not start on a CPU without it: keep runtime dispatch for mixed fleets", "为该指令编译的程序在不支持它的 CPU 上无法运行：混合机群请保留运行时分派"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples", "the function's code", "/proc/cpuinfo flags"},
			References: []string{"https://github.com/zlib-ng/zlib-ng"},
			Eval:       evalCRC,
		},
		{
			ID: "native.llsc-atomics", Category: "native", Severity: finding.Warning,
			Title:  finding.T("LL/SC atomics on a core with LSE", "支持 LSE 的核心上仍使用 LL/SC 原子操作"),
			Checks: finding.Tf(finding.T("arm64: a user function holding at least %.0f%% of the samples on its own that loops on ldxr/stxr while the CPU has LSE atomics.", "arm64：某个用户态函数自身占采样至少 %.0f%%，在 ldxr/stxr 上循环，而 CPU 支持 LSE 原子指令。"), 100*hotSelf),
			Why: finding.T("under contention an exclusive-load/store loop retries and its cache line bounces between cores; LSE's single atomic instructions (ldadd, cas, swp) scale far better on many-core ARM servers",
				"竞争时独占加载/存储循环会反复重试，缓存行在核间来回迁移；LSE 的单条原子指令（ldadd、cas、swp）在多核 ARM 服务器上扩展性好得多"),
			Recommended: finding.T("rebuild with -march=armv8.1-a (or -moutline-atomics, the GCC 10+ default), use glibc 2.28+ and a JDK 11+ (UseLSE is on by default where the CPU has it)",
				"用 -march=armv8.1-a（或 GCC 10+ 默认的 -moutline-atomics）重新编译，使用 glibc 2.28+ 与 JDK 11+（CPU 支持时默认开启 UseLSE）"),
			Fix:        finding.Fix{Apply: "CFLAGS=\"$CFLAGS -march=armv8.1-a\"", Revert: "CFLAGS=\"$CFLAGS\"", Note: finding.T("rebuild the library or program", "重新编译该库或程序")},
			Risk:       finding.T("an armv8.1-a build does not run on ARMv8.0 cores; -moutline-atomics keeps both", "armv8.1-a 构建无法在 ARMv8.0 核心上运行；-moutline-atomics 可兼顾两者"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples", "the function's code", "/proc/cpuinfo Features (atomics)"},
			References: []string{"https://learn.arm.com/learning-paths/servers-and-cloud-computing/lse/"},
			Eval:       evalLLSC,
		},
		{
			ID: "native.memcpy", Category: "native", Severity: finding.Info,
			Title:  finding.T("Memory copying is hot", "内存拷贝是热点"),
			Checks: finding.Tf(finding.T("memcpy/memmove/memset together hold at least %.0f%% of the samples on their own.", "memcpy/memmove/memset 自身合计占采样至少 %.0f%%。"), 100*hotCopy),
			Why:    finding.T("copying is memory-bandwidth bound; buffers copied again and again (small reads, JNI arrays, byte[] to direct buffers) cost CPU and cache", "拷贝受内存带宽限制；反复拷贝缓冲区（小块读写、JNI 数组、byte[] 与直接缓冲区互转）消耗 CPU 和缓存"),
			Recommended: finding.T("find the callers in the flame graph and copy less (larger I/O buffers, direct ByteBuffers reused, zero-copy sendfile); a glibc 2.26+ picks AVX2/ERMS or SVE copy variants",
				"在火焰图中找到调用方并减少拷贝（更大的 I/O 缓冲区、复用直接 ByteBuffer、零拷贝 sendfile）；glibc 2.26+ 会选用 AVX2/ERMS 或 SVE 的拷贝实现"),
			Risk:       finding.T("none from looking; changing buffer sizes changes memory use", "查看本身无风险；调整缓冲区大小会改变内存占用"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples"},
			References: []string{"sendfile(2) manual page", "Java SE API: java.nio.ByteBuffer.allocateDirect"},
			Eval:       evalCopy,
		},
		{
			ID: "native.futex-storm", Category: "native", Severity: finding.Warning,
			Title:  finding.T("Futex storm: threads queue on a lock in the kernel", "futex 风暴：线程在内核中排队等锁"),
			Checks: finding.Tf(finding.T("The kernel's futex code (futex_*, do_futex, sys_futex) is on at least %.0f%% of the samples.", "内核 futex 代码（futex_*、do_futex、sys_futex）出现在至少 %.0f%% 的采样中。"), 100*hotFutex),
			Why:    finding.T("many threads waking and sleeping on one contended lock spend the CPU in the kernel, not in work; throughput stops growing with threads", "大量线程在同一把争用的锁上反复唤醒和休眠，CPU 消耗在内核而非业务上；吞吐不再随线程数增长"),
			Recommended: finding.T("find the lock (for a JVM: tuneloop jvm PID --profile lock) and shard or shorten it; use fewer threads than cores for CPU-bound pools; for pthread mutexes try PTHREAD_MUTEX_ADAPTIVE_NP",
				"找到该锁（JVM 可用 tuneloop jvm PID --profile lock）并拆分或缩短临界区；CPU 密集型线程池的线程数不超过核数；pthread 互斥锁可尝试 PTHREAD_MUTEX_ADAPTIVE_NP"),
			Risk:       finding.T("none from looking", "查看本身无风险"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples (kernel stacks)", "/proc/kallsyms"},
			References: []string{"futex(2) manual page", "futex(7) manual page"},
			Eval: func(in *Input) []finding.Outcome {
				return in.kernel(in.futex, hotFutex, "futex_*", 0.8, func(s float64) finding.Text {
					return finding.T(fmt.Sprintf("the kernel's futex code is on %s of the CPU samples", pct(s)), fmt.Sprintf("内核 futex 代码出现在 %s 的 CPU 采样中", pct(s)))
				})
			},
		},
		{
			ID: "native.page-faults", Category: "native", Severity: finding.Warning,
			Title:  finding.T("Page faults are hot in the kernel", "内核缺页处理是热点"),
			Checks: finding.Tf(finding.T("The kernel's page-fault path (handle_mm_fault, do_user_addr_fault, exc_page_fault, do_page_fault, do_translation_fault, do_mem_abort) is on at least %.0f%% of the samples.", "内核缺页路径（handle_mm_fault、do_user_addr_fault、exc_page_fault、do_page_fault、do_translation_fault、do_mem_abort）出现在至少 %.0f%% 的采样中。"), 100*hotFaults),
			Why:    finding.T("memory touched for the first time (a heap growing, mmap/munmap churn, malloc returning memory) is zeroed and mapped page by page on the request path", "首次访问的内存（堆扩张、频繁 mmap/munmap、malloc 归还内存）在请求路径上被逐页清零并映射"),
			Recommended: finding.T("for a JVM set -Xms equal to -Xmx with -XX:+AlwaysPreTouch; for malloc churn set MALLOC_ARENA_MAX / M_TRIM_THRESHOLD or use jemalloc",
				"JVM：令 -Xms 等于 -Xmx 并加 -XX:+AlwaysPreTouch；malloc 频繁归还：设置 MALLOC_ARENA_MAX / M_TRIM_THRESHOLD 或改用 jemalloc"),
			Fix:        finding.Fix{Apply: "-XX:+AlwaysPreTouch", Revert: "-XX:-AlwaysPreTouch", Note: finding.T("a JVM option: add it to the service's start script and restart", "JVM 参数：加入服务启动脚本并重启")},
			Risk:       finding.T("pre-touching makes the JVM start slower and commits the whole heap at once", "预触碰使 JVM 启动变慢，并一次性提交整个堆"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples (kernel stacks)", "/proc/kallsyms"},
			References: []string{"https://docs.oracle.com/en/java/javase/17/docs/specs/man/java.html (-XX:+AlwaysPreTouch)", "mallopt(3) manual page (M_TRIM_THRESHOLD, M_ARENA_MAX)"},
			Eval: func(in *Input) []finding.Outcome {
				return in.kernel(in.faults, hotFaults, "handle_mm_fault", 0.8, func(s float64) finding.Text {
					return finding.T(fmt.Sprintf("the kernel's page-fault path is on %s of the CPU samples", pct(s)), fmt.Sprintf("内核缺页路径出现在 %s 的 CPU 采样中", pct(s)))
				})
			},
		},
		{
			ID: "native.thp-compaction", Category: "native", Severity: finding.Critical,
			Title:       finding.T("The kernel compacts memory for transparent huge pages on the request path", "内核在请求路径上为透明大页整理内存"),
			Checks:      finding.Tf(finding.T("The kernel's compaction (compact_zone, isolate_migratepages*, try_to_compact_pages) is on at least %.0f%% of the samples.", "内核内存整理（compact_zone、isolate_migratepages*、try_to_compact_pages）出现在至少 %.0f%% 的采样中。"), 100*hotCompaction),
			Why:         finding.T("with THP defrag=always a page fault waits while the kernel moves pages to assemble a huge page: latency spikes of milliseconds", "THP defrag=always 时，缺页要等内核搬移页面拼出大页：造成毫秒级延迟尖刺"),
			Recommended: finding.T("let faults fall back to small pages and compact in the background", "让缺页回退到小页，由后台整理内存"),
			Fix: finding.Fix{Apply: "echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag", Revert: "echo always > /sys/kernel/mm/transparent_hugepage/defrag",
				Persist: "transparent_hugepage=madvise (kernel command line)", Note: finding.T("takes effect at once; Revert assumes the previous value was always", "立即生效；回退命令假定原值为 always"),
				Changes: []finding.Change{{Kind: finding.ChangeSysfs, Key: "/sys/kernel/mm/transparent_hugepage/defrag", Value: "defer+madvise"}}},
			Risk:       finding.T("fewer huge pages for applications that do not madvise", "未使用 madvise 的应用获得的大页会减少"),
			Workload:   anyNative,
			Reads:      []string{"perf_event_open cpu-clock samples (kernel stacks)", "/proc/kallsyms"},
			References: []string{"https://www.kernel.org/doc/html/latest/admin-guide/mm/transhuge.html"},
			Eval: func(in *Input) []finding.Outcome {
				return in.kernel(in.compact, hotCompaction, "compact_zone / isolate_migratepages", 0.8, func(s float64) finding.Text {
					return finding.T(fmt.Sprintf("compact_zone/isolate_migratepages are on %s of the CPU samples", pct(s)), fmt.Sprintf("compact_zone/isolate_migratepages 出现在 %s 的 CPU 采样中", pct(s)))
				})
			},
		},
	}
}

func evalSpin(in *Input) []finding.Outcome {
	insn := "pause"
	if in.CPU.Arch == "arm64" {
		insn = "yield/isb"
	}
	var out []finding.Outcome
	in.hotUser(func(f Func, s float64) {
		if !spinning(f, in.CPU.Arch) && !knownSpin(f.Name) {
			return
		}
		out = append(out, finding.Outcome{Status: finding.Fail, Subject: finding.SafeLine(f.Name), Confidence: 0.8, Evidence: in.ev(f, s),
			Observed: finding.T(fmt.Sprintf("%s holds %s of the CPU samples, and its body is a %s loop", f.Name, pct(s), insn), fmt.Sprintf("%s 占 CPU 采样的 %s，其函数体是 %s 循环", f.Name, pct(s), insn))})
	})
	return out
}

func evalCRC(in *Input) []finding.Outcome {
	has, cpuFlag := in.CPU.HasCRC32()
	flag := "-msse4.2 -mpclmul"
	if in.CPU.Arch == "arm64" {
		flag = "-march=armv8-a+crc"
	}
	var out []finding.Outcome
	in.hotUser(func(f Func, s float64) {
		if !strings.Contains(strings.ToLower(f.Name), "crc32") || f.Code == nil || !has || hasCRCInstruction(f.Code, in.CPU.Arch) {
			return
		}
		out = append(out, finding.Outcome{Status: finding.Fail, Subject: finding.SafeLine(f.Name), Confidence: 0.9,
			Evidence: append(in.ev(f, s), finding.Evidence{Key: "cpu flag", Value: cpuFlag, Source: "/proc/cpuinfo"}),
			Observed: finding.T(fmt.Sprintf("%s holds %s of the CPU samples and uses no CRC32 instruction; the CPU has them", f.Name, pct(s)),
				fmt.Sprintf("%s 占 CPU 采样的 %s，且未使用 CRC32 指令；而 CPU 支持该指令", f.Name, pct(s))),
			Recommended: finding.T(fmt.Sprintf("use a build with the hardware CRC: compile with %s (or runtime dispatch), use zlib-ng or a zlib with hardware CRC, MySQL built for the target CPU (ut_crc32 hardware path)", flag),
				fmt.Sprintf("使用带硬件 CRC 的构建：以 %s 编译（或运行时分派），使用 zlib-ng 或支持硬件 CRC 的 zlib，按目标 CPU 构建 MySQL（ut_crc32 硬件路径）", flag)),
			Fix: finding.Fix{Apply: "CFLAGS=\"$CFLAGS " + flag + "\"", Revert: "CFLAGS=\"$CFLAGS\"", Note: finding.T("rebuild the library or program, or install a build that dispatches to the CRC instruction", "重新编译该库或程序，或安装会分派到 CRC 指令的构建")}})
	})
	return out
}

func evalLLSC(in *Input) []finding.Outcome {
	if in.CPU.Arch != "arm64" || !in.CPU.Flags["atomics"] {
		return nil
	}
	var out []finding.Outcome
	in.hotUser(func(f Func, s float64) {
		if !llscLoop(f.Code) {
			return
		}
		out = append(out, finding.Outcome{Status: finding.Fail, Subject: finding.SafeLine(f.Name), Confidence: 0.8,
			Evidence: append(in.ev(f, s), finding.Evidence{Key: "cpu flag", Value: "atomics", Source: "/proc/cpuinfo"}),
			Observed: finding.T(fmt.Sprintf("%s holds %s of the CPU samples and loops on ldxr/stxr; the CPU has LSE atomics", f.Name, pct(s)),
				fmt.Sprintf("%s 占 CPU 采样的 %s，且在 ldxr/stxr 上循环；而 CPU 支持 LSE 原子指令", f.Name, pct(s)))})
	})
	return out
}

func evalCopy(in *Input) []finding.Outcome {
	if in.copyShare < hotCopy {
		return nil
	}
	f, s := in.copyTop, in.copyShare
	return []finding.Outcome{{Status: finding.Fail, Subject: finding.SafeLine(f.Name), Confidence: 0.7, Evidence: in.ev(f, s),
		Observed: finding.T(fmt.Sprintf("memcpy/memmove/memset hold %s of the CPU samples (most in %s)", pct(s), f.Name), fmt.Sprintf("memcpy/memmove/memset 占 CPU 采样的 %s（主要在 %s）", pct(s), f.Name))}}
}
