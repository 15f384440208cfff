package rules

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Block devices, file and task limits, cgroup throttling
// (kernel Documentation/block/ and
// admin-guide/sysctl/fs.rst, cgroup-v2.rst; TuneD disk plugin).

func realDisks(c *Ctx) ([]sysinfo.Disk, *Outcome) {
	d := c.F.Disks
	if !d.OK {
		o := unavailableFrom(finding.T("block devices (/sys/block)", "块设备（/sys/block）"), d)
		return nil, &o
	}
	var out []sysinfo.Disk
	for _, x := range d.Value {
		if !x.Virtual {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		o := skip(T("no physical block device found", "未发现物理块设备"))
		return nil, &o
	}
	return out, nil
}

func isNVMe(d sysinfo.Disk) bool { return d.Transport == "nvme" || strings.HasPrefix(d.Name, "nvme") }

func diskRules() []Rule {
	return []Rule{
		{
			ID: "disk.scheduler", Category: "disk", Severity: info,
			Reads:      []string{"/sys/block/DEV/queue/scheduler"},
			Title:      T("I/O scheduler", "I/O 调度器"),
			Checks:     T("Per physical disk: NVMe wants none, SATA/SAS SSD mq-deadline (or none), HDD mq-deadline (or bfq); only choices the device offers are suggested.", "逐块物理盘检查：NVMe 期望 none，SATA/SAS SSD 期望 mq-deadline（或 none），机械盘期望 mq-deadline（或 bfq）；只推荐设备支持的选项。"),
			Why:        T("A scheduler that does not match the device adds CPU and queueing to every log write; on NVMe the device's own queues do the job.", "与设备不匹配的调度器会给每次日志写入增加 CPU 和排队开销；NVMe 自身的多队列已经足够。"),
			Risk:       T("Low; takes effect immediately and is lost on reboot.", "风险低；立即生效，重启后失效。"),
			Workload:   T("Hosts writing logs, GC logs, temp files or local caches.", "写日志、GC 日志、临时文件或本地缓存的主机。"),
			References: []string{"TuneD disk plugin elevator", "kernel Documentation/block/switching-sched.rst"},
			Eval:       evalDiskScheduler,
		},
		{
			ID: "disk.readahead", Category: "disk", Severity: info,
			Reads:      []string{"/sys/block/DEV/queue/read_ahead_kb"},
			Title:      T("Read-ahead on SSDs", "SSD 的预读大小"),
			Checks:     T("Flags non-rotational disks with read_ahead_kb above 1024.", "检查非机械盘 read_ahead_kb 是否大于 1024。"),
			Why:        T("Read-ahead helps sequential reads on HDDs; on SSDs with random access a large value reads data nobody asked for and pollutes the page cache.", "预读对机械盘顺序读有效；SSD 随机读时过大的预读会读入无用数据并污染页缓存。"),
			Risk:       T("Sequential scans on that disk get slower.", "该盘上的顺序扫描会变慢。"),
			Workload:   T("Java services with random reads from local SSD (caches, embedded stores).", "从本地 SSD 随机读取的 Java 服务（缓存、嵌入式存储）。"),
			References: []string{"kernel Documentation/ABI/stable/sysfs-block (queue/read_ahead_kb)", "TuneD disk plugin readahead", "man 8 blockdev (--getra / --setra)"},
			Eval:       evalDiskReadahead,
		},
	}
}

// evalDiskScheduler is the rule disk.scheduler.
func evalDiskScheduler(c *Ctx) []Outcome {
	ds, o := realDisks(c)
	if o != nil {
		return one(*o)
	}
	var out []Outcome
	for _, d := range ds {
		p := fmt.Sprintf("/sys/block/%s/queue/scheduler", d.Name)
		e := ev("scheduler", d.Scheduler+" of "+strings.Join(d.Schedulers, " "), p)
		var ok []string
		switch {
		case isNVMe(d):
			ok = []string{"none"}
		case !d.Rotational:
			ok = []string{"mq-deadline", "none", "deadline", "noop", "kyber"}
		default:
			ok = []string{"mq-deadline", "bfq", "deadline", "cfq"}
		}
		good := false
		for _, s := range ok {
			if d.Scheduler == s {
				good = true
			}
		}
		if good || d.Scheduler == "" {
			out = append(out, pass(Tf("%s: %s", "%s：%s", d.Name, orDefault(d.Scheduler, "(no scheduler)")), e).On(d.Name))
			continue
		}
		want := ""
		for _, s := range ok {
			for _, a := range d.Schedulers {
				if a == s && want == "" {
					want = s
				}
			}
		}
		if want == "" {
			out = append(out, pass(Tf("%s: %s (no better choice offered)", "%s：%s（没有更合适的可选项）", d.Name, d.Scheduler), e).On(d.Name))
			continue
		}
		fx := echoFix(p, want, d.Scheduler)
		fx.Persist = fmt.Sprintf("udev rule: ACTION==\"add|change\", KERNEL==\"%s\", ATTR{queue/scheduler}=\"%s\" in /etc/udev/rules.d/60-tuneloop-io.rules", d.Name, want)
		kind := diskKind(d)
		obs := T(fmt.Sprintf("%s (%s) uses %s", d.Name, kind.EN, d.Scheduler), fmt.Sprintf("%s（%s）使用 %s", d.Name, kind.ZH, d.Scheduler))
		out = append(out, fail(obs, Tf("%s: %s", "%s：%s", d.Name, want), fx, e).On(d.Name))
	}
	return out
}

// evalDiskReadahead is the rule disk.readahead.
func evalDiskReadahead(c *Ctx) []Outcome {
	ds, o := realDisks(c)
	if o != nil {
		return one(*o)
	}
	var out []Outcome
	for _, d := range ds {
		p := fmt.Sprintf("/sys/block/%s/queue/read_ahead_kb", d.Name)
		e := ev("read_ahead_kb", d.ReadAheadKB, p)
		if d.Rotational || d.ReadAheadKB <= 1024 {
			out = append(out, pass(Tf("%s: read_ahead_kb %d", "%s：read_ahead_kb 为 %d", d.Name, d.ReadAheadKB), e).On(d.Name))
			continue
		}
		fx := echoFix(p, "128", fmt.Sprint(d.ReadAheadKB))
		fx.Persist = fmt.Sprintf("udev rule: ACTION==\"add|change\", KERNEL==\"%s\", ATTR{queue/read_ahead_kb}=\"128\"", d.Name)
		out = append(out, fail(Tf("%s (SSD): read_ahead_kb %d", "%s（SSD）：read_ahead_kb 为 %d", d.Name, d.ReadAheadKB), T("read_ahead_kb = 128 unless the workload reads sequentially", "除非以顺序读为主，read_ahead_kb 设为 128"), fx, e).On(d.Name))
	}
	return out
}

func diskKind(d sysinfo.Disk) finding.Text {
	switch {
	case isNVMe(d):
		return T("NVMe", "NVMe")
	case d.Rotational:
		return T("HDD", "机械盘")
	}
	return T("SSD", "SSD")
}

func limitsRules() []Rule {
	return []Rule{
		{
			ID: "limits.file-nr", Category: "limits", Severity: critical,
			Reads:      []string{"/proc/sys/fs/file-nr"},
			Title:      T("System-wide file handles", "系统级文件句柄"),
			Checks:     T("Reads fs.file-nr (allocated, unused, max) and fails above 80% of the maximum.", "读取 fs.file-nr（已分配、未使用、上限），超过上限 80% 时不通过。"),
			Why:        T("When the system table is full every process gets ENFILE: accept() and file opens fail host-wide.", "系统级句柄表满后所有进程都会得到 ENFILE：整机的 accept() 和打开文件都会失败。"),
			Risk:       T("Negligible.", "可以忽略。"),
			Workload:   T("All hosts.", "所有主机。"),
			References: []string{"kernel Documentation/admin-guide/sysctl/fs.rst (file-nr, file-max)"},
			Eval:       evalLimitsFileNr,
		},
		{
			ID: "limits.pids-cgroup", Category: "limits", Severity: warning,
			Reads:      []string{"/sys/fs/cgroup/.../pids.max (the service's cgroup)"},
			Title:      T("cgroup pids limit vs JVM threads", "cgroup pids 上限与 JVM 线程数"),
			Checks:     T("Compares the cgroup pids.max with the threads of the running JVMs: above 80% fails.", "比较 cgroup pids.max 与 JVM 线程数：超过 80% 不通过。"),
			Why:        T("Every Java thread counts against pids.max (systemd TasksMax, Kubernetes pod pids limit); at the limit thread creation fails with 'unable to create native thread'.", "每个 Java 线程都计入 pids.max（systemd TasksMax、Kubernetes Pod pids 限制）；达到上限后创建线程失败，报 unable to create native thread。"),
			Risk:       T("A higher limit weakens protection against fork bombs.", "调高上限会削弱对 fork 炸弹的防护。"),
			Workload:   T("JVMs in containers or systemd units with TasksMax.", "容器中或设置了 TasksMax 的 systemd 服务中的 JVM。"),
			References: []string{"systemd.resource-control(5) TasksMax", "kernel Documentation/admin-guide/cgroup-v2.rst (pids)"},
			Eval:       evalLimitsPidsCgroup,
		},
	}
}

// evalLimitsFileNr is the rule limits.file-nr.
func evalLimitsFileNr(c *Ctx) []Outcome {
	v, e, bad := sysctlInts(c, "fs.file-nr", 3)
	if bad != nil {
		return one(*bad)
	}
	if v[2] <= 0 {
		return one(unavailable(same("fs.file-nr"), finding.T("max is 0", "最大值为 0")))
	}
	r := float64(v[0]) / float64(v[2])
	obs := Tf("%d of %d file handles allocated (%s)", "已分配文件句柄 %d / %d（%s）", v[0], v[2], pct(r))
	if r <= 0.8 {
		return one(pass(obs, e))
	}
	want := v[2] * 4
	return one(fail(obs, Tf("fs.file-max = %d, and find the leak (ls /proc/*/fd | wc -l per process)", "fs.file-max = %d，并排查句柄泄漏（按进程统计 /proc/*/fd）", want),
		sysctlFix1("fs.file-max", want, v[2]), e))
}

// evalLimitsPidsCgroup is the rule limits.pids-cgroup.
func evalLimitsPidsCgroup(c *Ctx) []Outcome {
	p := c.F.Cgroup.PidsMax
	if !p.OK {
		if notPresent(p.Err) {
			return one(skip(Tf("no pids controller for this cgroup (%s)", "该 cgroup 没有 pids 控制器（%s）", p.Why())))
		}
		return one(unavailableFrom(finding.T("cgroup pids.max", "cgroup pids.max 上限"), p))
	}
	e := evf("pids.max", p)
	if p.Value == 0 {
		return one(pass(T("pids.max unlimited", "pids.max 不限制"), e))
	}
	js, o := jvms(c)
	if o != nil {
		return one(*o)
	}
	threads := 0
	for _, j := range js {
		threads += j.Threads
	}
	obs := Tf("pids.max %d; JVM threads %d", "pids.max 为 %d；JVM 线程共 %d 个", p.Value, threads)
	if float64(threads) <= 0.8*float64(p.Value) {
		return one(pass(obs, e))
	}
	return one(advice(obs, Tf("raise the limit to at least %d (systemd: TasksMax=; Kubernetes: pod pids limit) or shrink thread pools", "将上限提高到至少 %d（systemd：TasksMax=；Kubernetes：Pod pids 限制），或缩小线程池", threads*2), e))
}

func cgroupRules() []Rule {
	return []Rule{
		{
			ID: "cgroup.cpu-throttling", Category: "cgroup", Severity: warning,
			Reads:      []string{"the service's cgroup: cpu.max and cpu.stat (/sys/fs/cgroup/...)"},
			Title:      T("CFS CPU throttling", "CFS CPU 限流"),
			Checks:     T("Reads cpu.stat of the cgroup: throttled periods above 5% fail, above 20% critical.", "读取 cgroup 的 cpu.stat：被限流周期超过 5% 不通过，超过 20% 为严重。"),
			Why:        T("When a cgroup exhausts its quota all its threads stop until the next period (100 ms by default): multi-millisecond stalls in the middle of requests, worst with many GC/JIT threads.", "cgroup 用完配额后所有线程都要停到下一个周期（默认 100 ms）：请求中间出现数毫秒的停顿，GC/JIT 线程多时尤为严重。"),
			Risk:       T("Raising limits takes CPU from co-located tenants.", "提高配额会挤占同机其他租户的 CPU。"),
			Workload:   T("JVMs in containers / systemd units with CPUQuota.", "容器中或设置了 CPUQuota 的 systemd 服务中的 JVM。"),
			References: []string{"kernel Documentation/scheduler/sched-bwc.rst", "PerfSpect metrics --scope cgroup (#445)"},
			Eval:       evalCgroupCpuThrottling,
		},
	}
}

// evalCgroupCpuThrottling is the rule cgroup.cpu-throttling.
func evalCgroupCpuThrottling(c *Ctx) []Outcome {
	q := c.F.Cgroup.CPUQuota
	if !q.OK {
		return one(unavailableFrom(finding.T("cgroup CPU quota", "cgroup CPU 配额"), q))
	}
	if q.Value == 0 {
		return one(skip(T("no CPU quota on this cgroup", "该 cgroup 未设置 CPU 配额")))
	}
	t := c.F.Cgroup.Throttled
	if !t.OK {
		return one(unavailableFrom(finding.T("cgroup cpu.stat", "cgroup cpu.stat 统计"), t))
	}
	s := t.Value
	e := ev("nr_periods/nr_throttled/throttled_usec", fmt.Sprintf("%d/%d/%d", s.NrPeriods, s.NrThrottled, s.ThrottledUsec), t.Source)
	eq := evf("cpu quota (cores)", q)
	if s.NrPeriods == 0 {
		return one(pass(T("no CFS periods recorded yet", "尚无 CFS 周期记录"), e, eq))
	}
	r := float64(s.NrThrottled) / float64(s.NrPeriods)
	obs := Tf("throttled in %s of %d periods (%.1f s in total) with a quota of %.2f cores", "配额 %[4]v 核，%[2]d 个周期中有 %[1]s 被限流（累计 %.1[3]f 秒）",
		pct(r), s.NrPeriods, float64(s.ThrottledUsec)/1e6, q.Value)
	if r <= 0.05 {
		return one(pass(obs, e, eq))
	}
	o := advice(obs, T("raise the CPU limit to the peak need, or lower the JVM's parallelism (-XX:ActiveProcessorCount, ParallelGCThreads, CICompilerCount, pool sizes) to the quota",
		"将 CPU 限额提高到峰值需求，或把 JVM 并行度（-XX:ActiveProcessorCount、ParallelGCThreads、CICompilerCount、线程池大小）降到配额以内"), e, eq)
	if r > 0.20 {
		o = o.WithSeverity(critical)
	}
	return one(o)
}
