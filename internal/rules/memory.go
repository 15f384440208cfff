package rules

import (
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Memory: THP, huge pages, swap, headroom, writeback, reclaim, map count,
// overcommit (kernel Documentation/admin-guide/mm/ and
// admin-guide/sysctl/vm.rst; TuneD and A-Tune profile values).

const (
	thpEnabledPath = "/sys/kernel/mm/transparent_hugepage/enabled"
	thpDefragPath  = "/sys/kernel/mm/transparent_hugepage/defrag"
)

// thpPersist is how to keep a THP mode across reboots.
func thpPersist(arg, mode string) string {
	return fmt.Sprintf("grubby --update-kernel=ALL --args=\"%s=%s\"   # or a TuneD profile with [vm] transparent_hugepages=%s", arg, mode, mode)
}

func memoryRules() []Rule {
	return []Rule{
		{
			ID: "mem.thp.enabled", Category: "mem", Severity: warning,
			Reads:  []string{"/sys/kernel/mm/transparent_hugepage/enabled"},
			Title:  T("Transparent Huge Pages mode", "透明大页（THP）模式"),
			Checks: T("Reads transparent_hugepage/enabled: java-web and latency want madvise (with -XX:+UseTransparentHugePages), database wants never.", "读取 transparent_hugepage/enabled：java-web 和 latency 配置档期望 madvise（配合 -XX:+UseTransparentHugePages），database 期望 never。"),
			Why: T("Huge pages cut TLB misses for a large Java heap (the JVM asks for them on its heap with -XX:+UseTransparentHugePages); 'always' also backs every small allocation, causing compaction stalls, sys-time spikes and RSS bloat; databases and caches (Redis, MongoDB) suffer most.",
				"大页可减少大堆 Java 应用的 TLB 缺失（JVM 通过 -XX:+UseTransparentHugePages 只为堆申请大页）；always 会让所有小内存分配也使用大页，导致内存规整停顿、sys 飙高和 RSS 膨胀，数据库和缓存（Redis、MongoDB）受影响最大。"),
			Risk:     T("'always' → 'madvise' loses THP for applications that never call madvise; 'never' loses it for the JVM too.", "always 改为 madvise 后，不调用 madvise 的程序不再使用大页；never 则连 JVM 也用不上。"),
			Workload: T("java-web / latency: madvise; database / cache hosts: never.", "java-web / latency：madvise；数据库/缓存主机：never。"),
			References: []string{"Linux kernel Documentation/admin-guide/mm/transhuge.rst", "TuneD network-latency / oracle / postgresql: THP never",
				"JDK-8024838 (-XX:+UseTransparentHugePages)", "eclipse-openj9/openj9 #6156"},
			Eval: evalMemThpEnabled,
		},
		{
			ID: "mem.thp.defrag", Category: "mem", Severity: warning,
			Reads:      []string{"/sys/kernel/mm/transparent_hugepage/defrag"},
			Title:      T("THP defrag policy", "透明大页整理（defrag）策略"),
			Checks:     T("Reads transparent_hugepage/defrag and fails on 'always'.", "读取 transparent_hugepage/defrag，为 always 时不通过。"),
			Why:        T("defrag=always makes a page fault compact memory synchronously when no huge page is free, stalling request threads for milliseconds.", "defrag=always 时，没有空闲大页的缺页会同步进行内存规整，请求线程会被卡住数毫秒。"),
			Risk:       T("Fewer huge pages under fragmentation.", "内存碎片化时大页数量减少。"),
			Workload:   T("All Java services.", "所有 Java 服务。"),
			References: []string{"kernel Documentation/admin-guide/mm/transhuge.rst (defrag)", "TuneD vm plugin transparent_hugepage.defrag"},
			Eval:       evalMemThpDefrag,
		},
		{
			ID: "mem.hugepages", Category: "mem", Severity: warning,
			Reads:      []string{"/proc/meminfo"},
			Title:      T("Reserved huge pages nobody uses", "预留大页无人使用"),
			Checks:     T("Compares HugePages_Total with the JVMs started with -XX:+UseLargePages.", "比较 HugePages_Total 与带 -XX:+UseLargePages 启动的 JVM。"),
			Why:        T("Pages reserved in vm.nr_hugepages are unavailable to anything that does not use hugetlbfs: a reservation no JVM uses is memory taken from the heap and page cache.", "vm.nr_hugepages 预留的内存只能给 hugetlbfs 使用：没有 JVM 使用的预留等于从堆和页缓存中拿走了这部分内存。"),
			Risk:       T("A database or other hugetlbfs user (not a JVM) may need the reservation; freeing it at runtime is instant, reserving it again may fail when memory is fragmented.", "数据库等非 JVM 程序可能在使用 hugetlbfs；运行时释放立即生效，但内存碎片化后再次预留可能失败。"),
			Workload:   T("All hosts with explicit huge pages.", "配置了静态大页的主机。"),
			References: []string{"kernel Documentation/admin-guide/mm/hugetlbpage.rst", "A-Tune SPECjbb/Dubbo profiles (hugepages cmdline)"},
			Eval:       evalMemHugepages,
		},
		{
			ID: "mem.swap.used", Category: "mem", Severity: warning,
			Reads:      []string{"/proc/meminfo"},
			Title:      T("Swap in use", "正在使用交换分区"),
			Checks:     T("Computes SwapTotal - SwapFree from /proc/meminfo: more than 256 MiB used fails (critical above 25% of swap).", "由 /proc/meminfo 计算 SwapTotal - SwapFree：已用超过 256 MiB 不通过（超过交换区 25% 为严重）。"),
			Why:        T("GC walks large parts of the heap: a swapped-out heap page turns a millisecond pause into seconds.", "GC 会遍历大部分堆：堆内存一旦被换出，毫秒级停顿会变成秒级。"),
			Risk:       T("None (diagnostic); `swapoff -a; swapon -a` pulls pages back only if MemAvailable is larger than the used swap.", "无（诊断项）；只有当 MemAvailable 大于已用交换时，才可用 `swapoff -a; swapon -a` 把页换回内存。"),
			Workload:   T("All Java services.", "所有 Java 服务。"),
			References: []string{"Brendan Gregg, Linux Performance Analysis in 60,000 Milliseconds: vmstat si/so", "kernel Documentation/admin-guide/sysctl/vm.rst (swappiness)"},
			Eval:       evalMemSwapUsed,
		},
		{
			ID: "mem.swappiness", Category: "mem", Severity: warning,
			Reads:      []string{"/proc/meminfo", "/proc/sys/vm/swappiness"},
			Title:      T("vm.swappiness", "vm.swappiness"),
			Checks:     T("Reads vm.swappiness when swap is configured and expects 10 or less.", "在配置了交换分区时读取 vm.swappiness，期望不大于 10。"),
			Why:        T("At the default 60 the kernel swaps out idle anonymous memory, including cold parts of the Java heap that the next full GC will touch.", "默认值 60 时内核会换出空闲的匿名内存，包括下次 Full GC 要遍历的冷堆内存。"),
			Risk:       T("With very low swappiness memory pressure ends in OOM kills sooner.", "swappiness 很低时内存紧张会更早触发 OOM。"),
			Workload:   T("All Java services and databases (TuneD throughput/latency-performance: 10).", "所有 Java 服务和数据库（TuneD throughput/latency-performance 为 10）。"),
			References: []string{"TuneD throughput-performance: vm.swappiness=10 (virtual-guest 30)", "A-Tune: vm.swappiness=10", "kernel Documentation/admin-guide/sysctl/vm.rst"},
			Eval:       evalMemSwappiness,
		},
		{
			ID: "mem.available", Category: "mem", Severity: warning,
			Reads:      []string{"/proc/meminfo"},
			Title:      T("Memory headroom", "可用内存余量"),
			Checks:     T("Computes MemAvailable / MemTotal: below 10% fails, below 5% is critical.", "计算 MemAvailable / MemTotal：低于 10% 不通过，低于 5% 为严重。"),
			Why:        T("Without headroom the kernel reclaims page cache and swaps under load, and the OOM killer picks the biggest process: usually the JVM.", "没有余量时，负载下内核会回收页缓存、换页，OOM killer 通常会选中最大的进程，也就是 JVM。"),
			Risk:       T("None (sizing advice).", "无（容量建议）。"),
			Workload:   T("All services.", "所有服务。"),
			References: []string{"Brendan Gregg USE method: memory saturation", "man 5 proc (MemAvailable)"},
			Eval:       evalMemAvailable,
		},
		{
			ID: "mem.dirty", Category: "mem", Severity: warning,
			Reads:  []string{"/proc/sys/vm/dirty_background_ratio", "/proc/sys/vm/dirty_ratio"},
			Title:  T("Dirty page writeback thresholds", "脏页回写阈值"),
			Checks: T("Reads vm.dirty_ratio / dirty_background_ratio (or the *_bytes forms as a share of RAM): latency wants at most 10/3, java-web and database at most 40/10.", "读取 vm.dirty_ratio / dirty_background_ratio（或 *_bytes 换算成内存占比）：latency 期望不超过 10/3，java-web 和 database 不超过 40/10。"),
			Why: T("When dirty pages reach dirty_ratio every writer (log appenders, GC log) blocks until writeback catches up; a lower background ratio starts writeback earlier in smaller bursts. The kernel default 20/10 is fine for throughput; latency services want 10/3 (TuneD latency-performance).",
				"脏页达到 dirty_ratio 时所有写入者（日志 appender、GC 日志）都会阻塞直到回写跟上；较低的后台比例让回写更早、更平滑地开始。内核默认 20/10 对吞吐型服务足够，时延敏感服务建议 10/3（TuneD latency-performance）。"),
			Risk:       T("Too low means more, smaller I/Os; writing *_bytes zeroes the *_ratio twin and vice versa.", "过低会产生更多小 I/O；写 *_bytes 会把对应的 *_ratio 清零，反之亦然。"),
			Workload:   T("latency: 10/3; java-web and database: up to 40/10 (TuneD throughput-performance).", "latency：10/3；java-web 与 database：不超过 40/10（TuneD throughput-performance）。"),
			References: []string{"TuneD throughput-performance 40/10, latency-performance 10/3", "kernel Documentation/admin-guide/sysctl/vm.rst (dirty_*)"},
			Eval:       evalMemDirty,
		},
		{
			ID: "mem.min-free-kbytes", Category: "mem", Severity: info,
			Reads:      []string{"/proc/meminfo", "/proc/sys/vm/min_free_kbytes"},
			Title:      T("vm.min_free_kbytes", "vm.min_free_kbytes"),
			Checks:     T("On hosts with 64 GiB or more, flags min_free_kbytes below 65536 (and above 5% of RAM on any host).", "内存 64 GiB 及以上的主机上 min_free_kbytes 低于 65536 判为不通过（任何主机高于内存 5% 也不通过）。"),
			Why:        T("A small free reserve on a big host lets allocation bursts (network buffers, new threads) hit direct reclaim or fail atomic allocations; too large a reserve wastes RAM and starts reclaim early.", "大内存主机上保留值过小，突发分配（网络缓冲区、新线程）会进入直接回收甚至原子分配失败；保留过大则浪费内存并过早触发回收。"),
			Risk:       T("Raising it triggers reclaim once to build the reserve.", "调大时会触发一次内存回收来建立保留区。"),
			Workload:   T("Large-memory hosts with bursty allocation.", "有突发分配的大内存主机。"),
			References: []string{"A-Tune profiles: vm.min_free_kbytes 112640", "TuneD hpc-compute: vm.min_free_kbytes 135168", "kernel Documentation/admin-guide/sysctl/vm.rst (min_free_kbytes)"},
			Eval:       evalMemMinFreeKbytes,
		},
		{
			ID: "mem.max-map-count", Category: "mem", Severity: info,
			Reads:      []string{"/proc/sys/vm/max_map_count"},
			Title:      T("vm.max_map_count", "vm.max_map_count"),
			Checks:     T("Reads vm.max_map_count: below 262144 fails; a warning when the JVMs' threads need more than half of it.", "读取 vm.max_map_count：低于 262144 不通过；JVM 线程所需映射超过其一半时为警告。"),
			Why:        T("Every thread stack, guard page and mapped file is a memory mapping; when the count is exhausted the JVM cannot create threads or map files (OutOfMemoryError: unable to create native thread, mmap failed).", "每个线程栈、保护页和映射文件都是一个内存映射；映射数耗尽时 JVM 无法创建线程或映射文件（OutOfMemoryError: unable to create native thread、mmap 失败）。"),
			Risk:       T("Negligible.", "可以忽略。"),
			Workload:   T("Thread-heavy or mmap-heavy JVMs (Elasticsearch, Kafka, large Tomcat pools).", "线程多或大量使用 mmap 的 JVM（Elasticsearch、Kafka、大线程池 Tomcat）。"),
			References: []string{"TuneD openshift: vm.max_map_count=262144", "Elasticsearch docs: vm.max_map_count 262144"},
			Eval:       evalMemMaxMapCount,
		},
		{
			ID: "mem.overcommit", Category: "mem", Severity: warning,
			Reads:      []string{"/proc/sys/vm/overcommit_memory"},
			Title:      T("Memory overcommit policy", "内存超分（overcommit）策略"),
			Checks:     T("Reads vm.overcommit_memory and fails on 2 (strict accounting).", "读取 vm.overcommit_memory，为 2（严格模式）时不通过。"),
			Why:        T("In strict mode every virtual reservation counts: the JVM reserves heap, code cache, metaspace and thread stacks up front and fails to start or to create threads long before RAM is used.", "严格模式下所有虚拟地址预留都计入：JVM 启动时就会预留堆、代码缓存、元空间和线程栈，远未用满物理内存就会启动失败或无法创建线程。"),
			Risk:       T("Strict accounting is sometimes a deliberate policy; with 0 the OOM killer handles real exhaustion.", "严格模式有时是有意的策略；改为 0 后真正耗尽内存时由 OOM killer 处理。"),
			Workload:   T("All Java services.", "所有 Java 服务。"),
			References: []string{"kernel Documentation/mm/overcommit-accounting.rst"},
			Eval:       evalMemOvercommit,
		},
	}
}

// evalMemThpEnabled is the rule mem.thp.enabled.
func evalMemThpEnabled(c *Ctx) []Outcome {
	f := c.F.Memory.THPEnabled
	if !f.OK {
		if notPresent(f.Err) {
			return one(skip(Tf("kernel built without THP (%s)", "内核未启用透明大页（%s）", f.Why())))
		}
		return one(unavailableFrom(finding.T("THP mode", "THP 模式"), f))
	}
	e := evf("transparent_hugepage/enabled", f)
	mode := f.Value
	want := "madvise"
	if c.Profile == Database {
		want = "never"
	}
	if mode == want {
		if want == "madvise" {
			return one(pass(T("THP madvise: only regions that ask (the JVM heap with -XX:+UseTransparentHugePages) get huge pages", "THP 为 madvise：只有主动申请的内存（如加了 -XX:+UseTransparentHugePages 的 JVM 堆）才使用大页"), e))
		}
		return one(pass(T("THP never, as recommended for databases and caches", "THP 为 never，符合数据库/缓存的建议"), e))
	}
	fx := echoFix(thpEnabledPath, want, mode)
	fx.Persist = thpPersist("transparent_hugepage", want)
	obs := Tf("THP mode is %s", "THP 模式为 %s", mode)
	rec := Tf("transparent_hugepage/enabled = %s", "transparent_hugepage/enabled = %s", want)
	var o Outcome
	switch {
	case mode == "always" && c.Profile == Latency:
		o = fail(obs, rec, fx, e).WithSeverity(critical)
	case mode == "always":
		o = fail(obs, rec, fx, e)
	case mode == "never": // java-web / latency want madvise
		o = fail(obs, Tf("%s, and add -XX:+UseTransparentHugePages to the JVM", "%s，并为 JVM 加上 -XX:+UseTransparentHugePages", rec.EN), fx, e).WithSeverity(info)
		o.Recommended.ZH = "transparent_hugepage/enabled = madvise，并为 JVM 加上 -XX:+UseTransparentHugePages"
	default: // database, madvise
		o = fail(obs, rec, fx, e).WithSeverity(info)
	}
	return one(o)
}

// evalMemThpDefrag is the rule mem.thp.defrag.
func evalMemThpDefrag(c *Ctx) []Outcome {
	f := c.F.Memory.THPDefrag
	if !f.OK {
		if notPresent(f.Err) {
			return one(skip(Tf("kernel built without THP (%s)", "内核未启用透明大页（%s）", f.Why())))
		}
		return one(unavailableFrom(finding.T("THP defrag mode", "THP 碎片整理模式"), f))
	}
	e := evf("transparent_hugepage/defrag", f)
	if f.Value != "always" {
		return one(pass(Tf("THP defrag %s", "THP defrag 为 %s", f.Value), e))
	}
	fx := echoFix(thpDefragPath, "madvise", "always")
	fx.Persist = "add to a boot-time unit: echo madvise > " + thpDefragPath + "   # or a TuneD profile with [vm] transparent_hugepage.defrag=madvise"
	return one(fail(T("THP defrag always: page faults compact memory synchronously", "THP defrag 为 always：缺页时同步规整内存"),
		T("defrag = madvise (or defer+madvise)", "defrag 设为 madvise（或 defer+madvise）"), fx, e))
}

// evalMemHugepages is the rule mem.hugepages.
func evalMemHugepages(c *Ctx) []Outcome {
	total, et, ok := meminfo(c, "HugePages_Total")
	if !ok {
		return one(unavailableFrom(same("/proc/meminfo HugePages_Total"), c.F.Memory.Meminfo))
	}
	if total == 0 {
		return one(pass(T("no huge pages reserved", "未预留静态大页"), et))
	}
	size, _, _ := meminfo(c, "Hugepagesize")
	free, ef, _ := meminfo(c, "HugePages_Free")
	js, jo := jvms(c)
	users := 0
	for i := range js {
		if js[i].Options.Bools["UseLargePages"] && !js[i].Options.Bools["UseTransparentHugePages"] {
			users++
		}
	}
	obs := Tf("%d huge pages reserved (%s), %d free; %d JVM(s) use -XX:+UseLargePages", "预留 %d 个大页（%s），空闲 %d 个；%d 个 JVM 使用 -XX:+UseLargePages",
		total, units.FormatBytes(total*size*1024), free, users)
	if users > 0 || (free < total) {
		return one(pass(obs, et, ef))
	}
	fx := sysctlFix1("vm.nr_hugepages", 0, total)
	o := fail(obs, T("vm.nr_hugepages = 0, or start the JVM with -XX:+UseLargePages and size the reservation to the heap", "vm.nr_hugepages = 0，或用 -XX:+UseLargePages 启动 JVM 并按堆大小预留"), fx, et, ef)
	if jo != nil || c.Profile == Database {
		o = o.WithSeverity(info)
	}
	return one(o)
}

// evalMemSwapUsed is the rule mem.swap.used.
func evalMemSwapUsed(c *Ctx) []Outcome {
	tot, et, ok := meminfo(c, "SwapTotal")
	if !ok {
		return one(unavailableFrom(same("/proc/meminfo SwapTotal"), c.F.Memory.Meminfo))
	}
	if tot == 0 {
		return one(pass(T("no swap configured", "未配置交换分区"), et))
	}
	free, ef, _ := meminfo(c, "SwapFree")
	used := tot - free
	obs := Tf("%s of %s swap in use", "已使用交换 %s / %s", units.FormatBytes(used*1024), units.FormatBytes(tot*1024))
	if used <= 256*1024 {
		return one(pass(obs, et, ef))
	}
	rec := T("find what was swapped (grep VmSwap /proc/*/status); keep the JVM heap plus native memory below MemAvailable; lower vm.swappiness (mem.swappiness)",
		"找出被换出的进程（grep VmSwap /proc/*/status）；保证 JVM 堆加本地内存小于 MemAvailable；调低 vm.swappiness（见 mem.swappiness）")
	o := advice(obs, rec, et, ef)
	if used*4 > tot {
		o = o.WithSeverity(critical)
	}
	return one(o)
}

// evalMemSwappiness is the rule mem.swappiness.
func evalMemSwappiness(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "vm.swappiness")
	if bad != nil {
		return one(*bad)
	}
	tot, et, ok := meminfo(c, "SwapTotal")
	if ok && tot == 0 {
		return one(pass(Tf("swappiness %d, but no swap is configured: anonymous memory cannot be swapped", "swappiness 为 %d，但未配置交换分区，匿名内存不会被换出", v), e, et))
	}
	if v <= 10 {
		return one(pass(Tf("swappiness %d", "swappiness 为 %d", v), e))
	}
	want := 10
	rec := T("vm.swappiness = 10", "vm.swappiness = 10")
	if c.Profile == Database {
		want = 1
		rec = T("vm.swappiness = 1 (database: keep the buffer pool in RAM; TuneD postgresql 3, mssql 1)", "vm.swappiness = 1（数据库：保证缓冲池常驻内存；TuneD postgresql 为 3，mssql 为 1）")
	}
	return one(fail(Tf("swappiness %d with swap configured", "已配置交换分区，swappiness 为 %d", v), rec,
		sysctlFix1("vm.swappiness", want, v), e))
}

// evalMemAvailable is the rule mem.available.
func evalMemAvailable(c *Ctx) []Outcome {
	tot, et, ok := meminfo(c, "MemTotal")
	avail, ea, ok2 := meminfo(c, "MemAvailable")
	if !ok || !ok2 || tot <= 0 {
		return one(unavailable(same("/proc/meminfo MemTotal/MemAvailable"), orDefaultText(c.F.Memory.Meminfo.Why(), finding.T("MemAvailable missing (kernel < 3.14)", "没有 MemAvailable（内核 < 3.14）"))))
	}
	r := float64(avail) / float64(tot)
	obs := Tf("MemAvailable %s of %s (%s)", "可用内存 %s / %s（%s）", units.FormatBytes(avail*1024), units.FormatBytes(tot*1024), pct(r))
	if r >= 0.10 {
		return one(pass(obs, et, ea))
	}
	o := advice(obs, T("keep at least 10% available: reduce -Xmx or the number of JVMs, or find other consumers (ps -eo rss,comm --sort=-rss | head)",
		"至少保留 10% 可用内存：调小 -Xmx 或减少 JVM 数量，或找出其他内存占用者（ps -eo rss,comm --sort=-rss | head）"), et, ea)
	if r < 0.05 {
		o = o.WithSeverity(critical)
	}
	return one(o)
}

// evalMemDirty is the rule mem.dirty.
func evalMemDirty(c *Ctx) []Outcome {
	dr, e1, b1 := sysctlInt(c, "vm.dirty_ratio")
	if b1 != nil {
		return one(*b1)
	}
	br, e2, b2 := sysctlInt(c, "vm.dirty_background_ratio")
	if b2 != nil {
		return one(*b2)
	}
	db, e3, _ := sysctlInt(c, "vm.dirty_bytes")
	bb, e4, _ := sysctlInt(c, "vm.dirty_background_bytes")
	evs := []finding.Evidence{e1, e2}
	effD, effB := float64(dr), float64(br)
	was := []kv{{"vm.dirty_ratio", fmt.Sprint(dr)}, {"vm.dirty_background_ratio", fmt.Sprint(br)}}
	if db > 0 || bb > 0 {
		tot, _, ok := meminfo(c, "MemTotal")
		if !ok || tot <= 0 {
			return one(unavailable(finding.T("MemTotal (to convert vm.dirty_bytes)", "MemTotal（用于换算 vm.dirty_bytes）"), c.F.Memory.Meminfo.Why()))
		}
		evs = append(evs, e3, e4)
		was = nil
		if db > 0 {
			effD = float64(db) * 100 / float64(tot*1024)
			was = append(was, kv{"vm.dirty_bytes", fmt.Sprint(db)})
		} else {
			was = append(was, kv{"vm.dirty_ratio", fmt.Sprint(dr)})
		}
		if bb > 0 {
			effB = float64(bb) * 100 / float64(tot*1024)
			was = append(was, kv{"vm.dirty_background_bytes", fmt.Sprint(bb)})
		} else {
			was = append(was, kv{"vm.dirty_background_ratio", fmt.Sprint(br)})
		}
	}
	maxD, maxB := 40.0, 10.0
	if c.Profile == Latency {
		maxD, maxB = 10, 3
	}
	obs := Tf("dirty %.1f%% / background %.1f%% of memory", "脏页上限 %.1f%% / 后台回写 %.1f%%（占内存）", effD, effB)
	if effD <= maxD && effB <= maxB {
		return one(pass(obs, evs...))
	}
	want := []kv{{"vm.dirty_ratio", fmt.Sprint(int(maxD))}, {"vm.dirty_background_ratio", fmt.Sprint(int(maxB))}}
	if c.Profile != Latency {
		want = []kv{{"vm.dirty_ratio", "20"}, {"vm.dirty_background_ratio", "10"}}
	}
	return one(fail(obs, Tf("vm.dirty_ratio = %s, vm.dirty_background_ratio = %s", "vm.dirty_ratio = %s，vm.dirty_background_ratio = %s", want[0].val, want[1].val),
		sysctlFix(want, was), evs...))
}

// evalMemMinFreeKbytes is the rule mem.min-free-kbytes.
func evalMemMinFreeKbytes(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "vm.min_free_kbytes")
	if bad != nil {
		return one(*bad)
	}
	tot, et, ok := meminfo(c, "MemTotal")
	if !ok {
		return one(unavailableFrom(same("/proc/meminfo MemTotal"), c.F.Memory.Meminfo))
	}
	obs := Tf("min_free_kbytes %d on %s RAM", "min_free_kbytes 为 %d，内存 %s", v, units.FormatBytes(tot*1024))
	switch {
	case v*20 > tot:
		return one(fail(obs, T("vm.min_free_kbytes = 112640", "vm.min_free_kbytes = 112640"), sysctlFix1("vm.min_free_kbytes", 112640, v), e, et).WithSeverity(warning))
	case tot >= 64<<20 && v < 65536:
		return one(fail(obs, T("vm.min_free_kbytes = 112640 (the A-Tune profile value)", "vm.min_free_kbytes = 112640（A-Tune 配置档取值）"), sysctlFix1("vm.min_free_kbytes", 112640, v), e, et))
	}
	return one(pass(obs, e, et))
}

// evalMemMaxMapCount is the rule mem.max-map-count.
func evalMemMaxMapCount(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "vm.max_map_count")
	if bad != nil {
		return one(*bad)
	}
	threads := 0
	if js, o := jvms(c); o == nil {
		for _, j := range js {
			threads += j.Threads
		}
	}
	obs := Tf("max_map_count %d; JVM threads %d", "max_map_count 为 %d；JVM 线程数 %d", v, threads)
	if v >= 262144 && int64(threads)*2 <= v/2 {
		return one(pass(obs, e))
	}
	want := int64(262144)
	for want < int64(threads)*4 {
		want *= 2
	}
	o := fail(obs, Tf("vm.max_map_count = %d", "vm.max_map_count = %d", want), sysctlFix1("vm.max_map_count", want, v), e)
	if int64(threads)*2 > v/2 {
		o = o.WithSeverity(warning)
	}
	return one(o)
}

// evalMemOvercommit is the rule mem.overcommit.
func evalMemOvercommit(c *Ctx) []Outcome {
	v, e, bad := sysctlInt(c, "vm.overcommit_memory")
	if bad != nil {
		return one(*bad)
	}
	if v != 2 {
		return one(pass(Tf("overcommit_memory = %d", "overcommit_memory = %d", v), e))
	}
	return one(fail(T("overcommit_memory = 2 (strict)", "overcommit_memory = 2（严格模式）"), T("vm.overcommit_memory = 0", "vm.overcommit_memory = 0"),
		sysctlFix1("vm.overcommit_memory", 0, v), e))
}
