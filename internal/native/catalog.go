package native

// The catalogue of known native pathologies, checked on a recording's hot
// functions and gated on what the CPU has:
//
//	native.spin-wait        a hot function whose body is a pause/yield/isb loop (InnoDB's ut_delay)
//	native.crc32-software   a hot crc32* function without the CPU's CRC32 instruction while the CPU has one
//	native.llsc-atomics     arm64: hot LL/SC (ldxr/stxr) loops on a core with LSE atomics
//	native.memcpy           memcpy/memmove/memset hot
//	native.futex-storm      the kernel's futex code hot: threads queueing on one lock
//	native.page-faults      the kernel's page-fault path hot
//	native.thp-compaction   the kernel compacting memory for transparent huge pages

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// CPU is what the catalogue needs to know of the processor.
type CPU struct {
	Arch  string          // amd64 or arm64 (GOARCH names)
	Flags map[string]bool // x86 "flags" / arm64 "Features" of /proc/cpuinfo
}

// ParseCPUInfo reads the first processor's flags (x86) or Features (arm64):
//
//	flags		: fpu vme de pse tsc msr pae mce cx8 apic sep ... sse4_2 ... pclmulqdq
//	Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid
func ParseCPUInfo(r io.Reader, arch string) CPU {
	c := CPU{Arch: arch, Flags: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if k = strings.TrimSpace(k); !ok || (k != "flags" && k != "Features") {
			continue
		}
		for _, f := range strings.Fields(v) {
			c.Flags[f] = true
		}
		break
	}
	return c
}

// ReadCPU is this host's CPU.
func ReadCPU() CPU {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return CPU{Arch: runtime.GOARCH, Flags: map[string]bool{}}
	}
	defer f.Close()
	return ParseCPUInfo(f, runtime.GOARCH)
}

// HasCRC32 says whether the CPU has a CRC32 instruction, and which flag says so.
func (c CPU) HasCRC32() (bool, string) {
	switch c.Arch {
	case "amd64", "386":
		return c.Flags["sse4_2"], "sse4_2"
	case "arm64":
		return c.Flags["crc32"], "crc32"
	}
	return false, ""
}

// Thresholds: the share of all samples a function (self) or a kernel path
// (total) must hold to be named.
const (
	hotSelf        = 0.05
	hotCopy        = 0.10
	hotFutex       = 0.10
	hotFaults      = 0.10
	hotCompaction  = 0.02
	maxCodeScanned = 4096
)

// Catalogue checks rec's hot functions against the known pathologies.
func Catalogue(rec *Recording, cpu CPU) []finding.Finding {
	if rec == nil || rec.Samples == 0 {
		return nil
	}
	n := float64(rec.Samples)
	var out []finding.Finding
	ev := func(f Func, share float64) []finding.Evidence {
		e := []finding.Evidence{{Key: "function", Value: finding.SafeLine(f.Name), Source: "perf_event_open cpu-clock"},
			{Key: "share", Value: fmt.Sprintf("%.1f%% of %d samples", 100*share, rec.Samples)}}
		if f.Module != "" {
			e = append(e, finding.Evidence{Key: "module", Value: finding.SafeLine(f.Module), Source: "/proc/PID/maps"})
		}
		return e
	}
	copyShare, copyTop := 0.0, Func{}
	futex, faults, compact := 0, 0, 0
	for _, f := range rec.Funcs {
		self := float64(f.Self) / n
		name := strings.ToLower(f.Name)
		switch f.Kind {
		case "user":
			if self >= hotSelf && (spinning(f, cpu.Arch) || knownSpin(f.Name)) {
				out = append(out, spinFinding(f, self, ev(f, self), cpu))
			}
			if self >= hotSelf && strings.Contains(name, "crc32") && f.Code != nil {
				if has, flag := cpu.HasCRC32(); has && !hasCRCInstruction(f.Code, cpu.Arch) {
					out = append(out, crcFinding(f, self, append(ev(f, self), finding.Evidence{Key: "cpu flag", Value: flag, Source: "/proc/cpuinfo"}), cpu))
				}
			}
			if self >= hotSelf && cpu.Arch == "arm64" && cpu.Flags["atomics"] && llscLoop(f.Code) {
				out = append(out, llscFinding(f, self, append(ev(f, self), finding.Evidence{Key: "cpu flag", Value: "atomics", Source: "/proc/cpuinfo"})))
			}
			if isCopy(name) {
				copyShare += self
				if f.Self > copyTop.Self {
					copyTop = f
				}
			}
		case "kernel":
			switch {
			case strings.HasPrefix(name, "futex_") || name == "do_futex" || strings.HasSuffix(name, "sys_futex"):
				futex = max(futex, f.Total)
			case name == "handle_mm_fault" || name == "do_user_addr_fault" || name == "exc_page_fault" || name == "do_page_fault" || name == "do_translation_fault" || name == "do_mem_abort":
				faults = max(faults, f.Total)
			case name == "compact_zone" || strings.HasPrefix(name, "isolate_migratepages") || name == "try_to_compact_pages":
				compact = max(compact, f.Total)
			}
		}
	}
	if copyShare >= hotCopy {
		out = append(out, copyFinding(copyTop, copyShare, ev(copyTop, copyShare)))
	}
	kev := func(path string, v int) []finding.Evidence {
		return []finding.Evidence{{Key: "kernel path", Value: path, Source: "perf_event_open cpu-clock, /proc/kallsyms"},
			{Key: "share", Value: fmt.Sprintf("%.1f%% of %d samples", 100*float64(v)/n, rec.Samples)}}
	}
	if s := float64(futex) / n; s >= hotFutex {
		out = append(out, futexFinding(s, kev("futex_*", futex)))
	}
	if s := float64(faults) / n; s >= hotFaults {
		out = append(out, faultFinding(s, kev("handle_mm_fault", faults)))
	}
	if s := float64(compact) / n; s >= hotCompaction {
		out = append(out, compactFinding(s, kev("compact_zone / isolate_migratepages", compact)))
	}
	finding.Sort(out)
	return out
}

// knownSpin names spin-wait functions known from practice.
func knownSpin(name string) bool {
	switch name {
	case "ut_delay", "SpinPause":
		return true
	}
	return false
}

// pauses are the offsets of the pause (x86: F3 90) or yield/isb (arm64)
// instructions in code.
func pauses(code []byte, arch string) []uint64 {
	code = code[:min(len(code), maxCodeScanned)]
	var at []uint64
	switch arch {
	case "amd64", "386":
		for i := 0; i+2 <= len(code); i++ {
			if code[i] == 0xf3 && code[i+1] == 0x90 {
				at = append(at, uint64(i))
			}
		}
	case "arm64":
		for i := 0; i+4 <= len(code); i += 4 {
			switch binary.LittleEndian.Uint32(code[i:]) {
			case 0xd503203f, 0xd5033fdf: // yield, isb
				at = append(at, uint64(i))
			}
		}
	}
	return at
}

// spinning says whether most of f's own samples sit in a pause loop (within
// 16 bytes of a pause instruction): a lock routine that merely has a spin
// path, but spends its time elsewhere, is not a spin wait.
func spinning(f Func, arch string) bool {
	at := pauses(f.Code, arch)
	if len(at) == 0 || f.Self == 0 {
		return false
	}
	in, all := 0, 0
	for off, n := range f.Offsets {
		all += n
		for _, p := range at {
			if off+16 >= p && off <= p+16 {
				in += n
				break
			}
		}
	}
	return all > 0 && 2*in >= all
}

// hasCRCInstruction finds the CPU's CRC32 instruction in code: x86 SSE4.2
// crc32 (F2 [REX] 0F 38 F0/F1), arm64 CRC32{B,H,W,X}/CRC32C*.
func hasCRCInstruction(code []byte, arch string) bool {
	code = code[:min(len(code), maxCodeScanned)]
	switch arch {
	case "amd64", "386":
		for i := 0; i+4 <= len(code); i++ {
			if code[i] != 0xf2 {
				continue
			}
			j := i + 1
			if code[j]&0xf0 == 0x40 && j+4 <= len(code) { // REX
				j++
			}
			if j+3 <= len(code) && code[j] == 0x0f && code[j+1] == 0x38 && (code[j+2] == 0xf0 || code[j+2] == 0xf1) {
				return true
			}
		}
	case "arm64":
		for i := 0; i+4 <= len(code); i += 4 {
			if binary.LittleEndian.Uint32(code[i:])&0x7fe0e000 == 0x1ac04000 {
				return true
			}
		}
	}
	return false
}

// llscLoop is an arm64 body with a load-exclusive and a store-exclusive
// (ldxr/ldaxr ... stxr/stlxr): atomics done the ARMv8.0 way.
func llscLoop(code []byte) bool {
	var ld, st bool
	for i := 0; i+4 <= min(len(code), maxCodeScanned); i += 4 {
		w := binary.LittleEndian.Uint32(code[i:])
		switch w & 0x3fe00000 {
		case 0x08400000:
			ld = true
		case 0x08000000:
			st = true
		}
	}
	return ld && st
}

func isCopy(name string) bool {
	for _, p := range []string{"memcpy", "memmove", "memset", "__memcpy", "__memmove", "__memset"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func pct(s float64) string { return fmt.Sprintf("%.0f%%", 100*s) }

func spinFinding(f Func, s float64, e []finding.Evidence, cpu CPU) finding.Finding {
	insn := "pause"
	if cpu.Arch == "arm64" {
		insn = "yield/isb"
	}
	return finding.Finding{ID: "native.spin-wait", Category: "native", Status: finding.Fail, Severity: finding.Warning, Subject: finding.SafeLine(f.Name), Confidence: 0.8,
		Title:    finding.T("CPU burnt in a spin-wait loop", "CPU 消耗在自旋等待循环中"),
		Observed: finding.T(fmt.Sprintf("%s holds %s of the CPU samples, and its body is a %s loop", f.Name, pct(s), insn), fmt.Sprintf("%s 占 CPU 采样的 %s，其函数体是 %s 循环", f.Name, pct(s), insn)),
		Evidence: e,
		Why: finding.T("threads spin waiting for a lock or a flag instead of sleeping; the spinning is pure overhead, and on ARM a pause/yield loop tuned for x86 waits a different time",
			"线程自旋等待锁或标志而不休眠，自旋是纯开销；在 ARM 上，按 x86 调校的 pause/yield 循环等待时间不同"),
		Recommended: finding.T("shorten the spin and park sooner: for MySQL/InnoDB's ut_delay lower innodb_spin_wait_delay (and innodb_spin_wait_pause_multiplier, 8.0.16+); in your own code spin a bounded number of times, then futex-wait",
			"缩短自旋、尽早挂起：MySQL/InnoDB 的 ut_delay 可调低 innodb_spin_wait_delay（8.0.16+ 还有 innodb_spin_wait_pause_multiplier）；自有代码应限定自旋次数，然后 futex 等待"),
		Fix:        finding.Fix{Apply: "SET GLOBAL innodb_spin_wait_delay = 2;", Revert: "SET GLOBAL innodb_spin_wait_delay = 6;", Note: finding.T("the MySQL case; for other code the fix is in the source", "以 MySQL 为例；其他程序需改源码")},
		Risk:       finding.T("less spinning can mean more context switches under short lock holds: measure TPS before and after", "减少自旋可能在锁持有时间很短时增加上下文切换：请前后对比 TPS"),
		References: []string{"https://dev.mysql.com/doc/refman/8.0/en/innodb-performance-spin_lock_polling.html"}}
}

func crcFinding(f Func, s float64, e []finding.Evidence, cpu CPU) finding.Finding {
	flag := "-msse4.2 -mpclmul"
	if cpu.Arch == "arm64" {
		flag = "-march=armv8-a+crc"
	}
	return finding.Finding{ID: "native.crc32-software", Category: "native", Status: finding.Fail, Severity: finding.Warning, Subject: finding.SafeLine(f.Name), Confidence: 0.9,
		Title: finding.T("CRC32 computed in software although the CPU has CRC instructions", "CPU 支持 CRC 指令，CRC32 却由软件计算"),
		Observed: finding.T(fmt.Sprintf("%s holds %s of the CPU samples and uses no CRC32 instruction; the CPU has them", f.Name, pct(s)),
			fmt.Sprintf("%s 占 CPU 采样的 %s，且未使用 CRC32 指令；而 CPU 支持该指令", f.Name, pct(s))),
		Evidence: e,
		Why: finding.T("a table-driven CRC32 costs several cycles per byte; the CPU's instruction does 8 bytes in about one, so checksums of pages, packets or logs become almost free",
			"查表法 CRC32 每字节需数个时钟周期；CPU 指令约一个周期处理 8 字节，页、报文、日志的校验几乎不再耗时"),
		Recommended: finding.T(fmt.Sprintf("use a build with the hardware CRC: compile with %s (or runtime dispatch), use zlib-ng or a zlib with hardware CRC, MySQL built for the target CPU (ut_crc32 hardware path)", flag),
			fmt.Sprintf("使用带硬件 CRC 的构建：以 %s 编译（或运行时分派），使用 zlib-ng 或支持硬件 CRC 的 zlib，按目标 CPU 构建 MySQL（ut_crc32 硬件路径）", flag)),
		Fix:        finding.Fix{Apply: "CFLAGS=\"$CFLAGS " + flag + "\"", Revert: "CFLAGS=\"$CFLAGS\"", Note: finding.T("rebuild the library or program, or install a build that dispatches to the CRC instruction", "重新编译该库或程序，或安装会分派到 CRC 指令的构建")},
		Risk:       finding.T("a binary built for the instruction does not start on a CPU without it: keep runtime dispatch for mixed fleets", "为该指令编译的程序在不支持它的 CPU 上无法运行：混合机群请保留运行时分派"),
		References: []string{"https://github.com/zlib-ng/zlib-ng"}}
}

func llscFinding(f Func, s float64, e []finding.Evidence) finding.Finding {
	return finding.Finding{ID: "native.llsc-atomics", Category: "native", Status: finding.Fail, Severity: finding.Warning, Subject: finding.SafeLine(f.Name), Confidence: 0.8,
		Title: finding.T("LL/SC atomics on a core with LSE", "支持 LSE 的核心上仍使用 LL/SC 原子操作"),
		Observed: finding.T(fmt.Sprintf("%s holds %s of the CPU samples and loops on ldxr/stxr; the CPU has LSE atomics", f.Name, pct(s)),
			fmt.Sprintf("%s 占 CPU 采样的 %s，且在 ldxr/stxr 上循环；而 CPU 支持 LSE 原子指令", f.Name, pct(s))),
		Evidence: e,
		Why: finding.T("under contention an exclusive-load/store loop retries and its cache line bounces between cores; LSE's single atomic instructions (ldadd, cas, swp) scale far better on many-core ARM servers",
			"竞争时独占加载/存储循环会反复重试，缓存行在核间来回迁移；LSE 的单条原子指令（ldadd、cas、swp）在多核 ARM 服务器上扩展性好得多"),
		Recommended: finding.T("rebuild with -march=armv8.1-a (or -moutline-atomics, the GCC 10+ default), use glibc 2.28+ and a JDK 11+ (UseLSE is on by default where the CPU has it)",
			"用 -march=armv8.1-a（或 GCC 10+ 默认的 -moutline-atomics）重新编译，使用 glibc 2.28+ 与 JDK 11+（CPU 支持时默认开启 UseLSE）"),
		Fix:        finding.Fix{Apply: "CFLAGS=\"$CFLAGS -march=armv8.1-a\"", Revert: "CFLAGS=\"$CFLAGS\"", Note: finding.T("rebuild the library or program", "重新编译该库或程序")},
		Risk:       finding.T("an armv8.1-a build does not run on ARMv8.0 cores; -moutline-atomics keeps both", "armv8.1-a 构建无法在 ARMv8.0 核心上运行；-moutline-atomics 可兼顾两者"),
		References: []string{"https://learn.arm.com/learning-paths/servers-and-cloud-computing/lse/"}}
}

func copyFinding(f Func, s float64, e []finding.Evidence) finding.Finding {
	return finding.Finding{ID: "native.memcpy", Category: "native", Status: finding.Fail, Severity: finding.Info, Subject: finding.SafeLine(f.Name), Confidence: 0.7,
		Title:    finding.T("Memory copying is hot", "内存拷贝是热点"),
		Observed: finding.T(fmt.Sprintf("memcpy/memmove/memset hold %s of the CPU samples (most in %s)", pct(s), f.Name), fmt.Sprintf("memcpy/memmove/memset 占 CPU 采样的 %s（主要在 %s）", pct(s), f.Name)),
		Evidence: e,
		Why:      finding.T("copying is memory-bandwidth bound; buffers copied again and again (small reads, JNI arrays, byte[] to direct buffers) cost CPU and cache", "拷贝受内存带宽限制；反复拷贝缓冲区（小块读写、JNI 数组、byte[] 与直接缓冲区互转）消耗 CPU 和缓存"),
		Recommended: finding.T("find the callers in the flame graph and copy less (larger I/O buffers, direct ByteBuffers reused, zero-copy sendfile); a glibc 2.26+ picks AVX2/ERMS or SVE copy variants",
			"在火焰图中找到调用方并减少拷贝（更大的 I/O 缓冲区、复用直接 ByteBuffer、零拷贝 sendfile）；glibc 2.26+ 会选用 AVX2/ERMS 或 SVE 的拷贝实现"),
		Risk: finding.T("none from looking; changing buffer sizes changes memory use", "查看本身无风险；调整缓冲区大小会改变内存占用")}
}

func futexFinding(s float64, e []finding.Evidence) finding.Finding {
	return finding.Finding{ID: "native.futex-storm", Category: "native", Status: finding.Fail, Severity: finding.Warning, Confidence: 0.8,
		Title:    finding.T("Futex storm: threads queue on a lock in the kernel", "futex 风暴：线程在内核中排队等锁"),
		Observed: finding.T(fmt.Sprintf("the kernel's futex code is on %s of the CPU samples", pct(s)), fmt.Sprintf("内核 futex 代码出现在 %s 的 CPU 采样中", pct(s))),
		Evidence: e,
		Why:      finding.T("many threads waking and sleeping on one contended lock spend the CPU in the kernel, not in work; throughput stops growing with threads", "大量线程在同一把争用的锁上反复唤醒和休眠，CPU 消耗在内核而非业务上；吞吐不再随线程数增长"),
		Recommended: finding.T("find the lock (for a JVM: tuneloop jvm PID --profile lock) and shard or shorten it; use fewer threads than cores for CPU-bound pools; for pthread mutexes try PTHREAD_MUTEX_ADAPTIVE_NP",
			"找到该锁（JVM 可用 tuneloop jvm PID --profile lock）并拆分或缩短临界区；CPU 密集型线程池的线程数不超过核数；pthread 互斥锁可尝试 PTHREAD_MUTEX_ADAPTIVE_NP"),
		Risk: finding.T("none from looking", "查看本身无风险")}
}

func faultFinding(s float64, e []finding.Evidence) finding.Finding {
	return finding.Finding{ID: "native.page-faults", Category: "native", Status: finding.Fail, Severity: finding.Warning, Confidence: 0.8,
		Title:    finding.T("Page faults are hot in the kernel", "内核缺页处理是热点"),
		Observed: finding.T(fmt.Sprintf("the kernel's page-fault path is on %s of the CPU samples", pct(s)), fmt.Sprintf("内核缺页路径出现在 %s 的 CPU 采样中", pct(s))),
		Evidence: e,
		Why:      finding.T("memory touched for the first time (a heap growing, mmap/munmap churn, malloc returning memory) is zeroed and mapped page by page on the request path", "首次访问的内存（堆扩张、频繁 mmap/munmap、malloc 归还内存）在请求路径上被逐页清零并映射"),
		Recommended: finding.T("for a JVM set -Xms equal to -Xmx with -XX:+AlwaysPreTouch; for malloc churn set MALLOC_ARENA_MAX / M_TRIM_THRESHOLD or use jemalloc",
			"JVM：令 -Xms 等于 -Xmx 并加 -XX:+AlwaysPreTouch；malloc 频繁归还：设置 MALLOC_ARENA_MAX / M_TRIM_THRESHOLD 或改用 jemalloc"),
		Fix:  finding.Fix{Apply: "-XX:+AlwaysPreTouch", Revert: "-XX:-AlwaysPreTouch", Note: finding.T("a JVM option: add it to the service's start script and restart", "JVM 参数：加入服务启动脚本并重启")},
		Risk: finding.T("pre-touching makes the JVM start slower and commits the whole heap at once", "预触碰使 JVM 启动变慢，并一次性提交整个堆")}
}

func compactFinding(s float64, e []finding.Evidence) finding.Finding {
	return finding.Finding{ID: "native.thp-compaction", Category: "native", Status: finding.Fail, Severity: finding.Critical, Confidence: 0.8,
		Title:       finding.T("The kernel compacts memory for transparent huge pages on the request path", "内核在请求路径上为透明大页整理内存"),
		Observed:    finding.T(fmt.Sprintf("compact_zone/isolate_migratepages are on %s of the CPU samples", pct(s)), fmt.Sprintf("compact_zone/isolate_migratepages 出现在 %s 的 CPU 采样中", pct(s))),
		Evidence:    e,
		Why:         finding.T("with THP defrag=always a page fault waits while the kernel moves pages to assemble a huge page: latency spikes of milliseconds", "THP defrag=always 时，缺页要等内核搬移页面拼出大页：造成毫秒级延迟尖刺"),
		Recommended: finding.T("let faults fall back to small pages and compact in the background", "让缺页回退到小页，由后台整理内存"),
		Fix: finding.Fix{Apply: "echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag", Revert: "echo always > /sys/kernel/mm/transparent_hugepage/defrag",
			Persist: "transparent_hugepage=madvise (kernel command line)", Note: finding.T("takes effect at once; Revert assumes the previous value was always", "立即生效；回退命令假定原值为 always"),
			Changes: []finding.Change{{Kind: finding.ChangeSysfs, Key: "/sys/kernel/mm/transparent_hugepage/defrag", Value: "defer+madvise"}}},
		Risk:       finding.T("fewer huge pages for applications that do not madvise", "未使用 madvise 的应用获得的大页会减少"),
		References: []string{"https://www.kernel.org/doc/html/latest/admin-guide/mm/transhuge.html"}}
}
