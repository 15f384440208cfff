package main

import (
	"fmt"
	"strconv"
	"strings"
)

func centos7(t *tree) {
	const ncpu = 80
	// Linux numbering on 2S HT Xeon: 0-19 socket 0 cores, 20-39 socket 1,
	// 40-59 the socket-0 siblings, 60-79 the socket-1 siblings.
	coreIDs := []int{0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28}
	pkg := func(c int) int { return (c % 40) / 20 }
	core := func(c int) int { return coreIDs[c%20] }
	sib := func(c int) []int { b := c % 40; return []int{b, b + 40} }
	node0 := append(span(0, 19), span(40, 59)...)
	node1 := append(span(20, 39), span(60, 79)...)

	flags := "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc aperfmperf eagerfpu pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch epb cat_l3 cdp_l3 invpcid_single intel_ppin intel_pt ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid fsgsbase tsc_adjust bmi1 hle avx2 smep bmi2 erms invpcid rtm cqm mpx rdt_a avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local dtherm ida arat pln pts pku ospke avx512_vnni md_clear spec_ctrl intel_stibp flush_l1d arch_capabilities"
	var ci strings.Builder
	for c := 0; c < ncpu; c++ {
		apic := pkg(c)*64 + core(c)*2 + c/40
		fmt.Fprintf(&ci, "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"+
			"model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\nstepping\t: 7\nmicrocode\t: 0x5003302\n"+
			"cpu MHz\t\t: 1000.000\ncache size\t: 28160 KB\nphysical id\t: %d\nsiblings\t: 40\ncore id\t\t: %d\n"+
			"cpu cores\t: 20\napicid\t\t: %d\ninitial apicid\t: %d\nfpu\t\t: yes\nfpu_exception\t: yes\n"+
			"cpuid level\t: 22\nwp\t\t: yes\nflags\t\t: %s\nbogomips\t: 5000.00\nclflush size\t: 64\n"+
			"cache_alignment\t: 64\naddress sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n",
			c, pkg(c), core(c), apic, apic, flags)
	}
	t.w("/proc/cpuinfo", ci.String())
	t.w("/proc/stat", procStat(ncpu, 0))
	nodeKB := []int64{195_911_112, 196_608_000}
	t.w("/proc/meminfo", meminfo(memSpec{totalKB: nodeKB[0] + nodeKB[1], freeKB: 9_812_236, availKB: 61_004_880,
		buffersKB: 212_004, cachedKB: 58_331_904, swapTotalKB: 4_194_300, swapFreeKB: 2_935_804,
		anonHugeKB: 301_989_888, hugePageKB: 2048, shmemKB: 410_112}))
	t.w("/proc/swaps", "Filename\t\t\t\tType\t\tSize\tUsed\tPriority\n/dev/dm-1                               partition\t4194300\t1258496\t-2\n")
	t.w("/proc/net/softnet_stat", softnet(ncpu, 11, func(c int) [3]uint64 {
		if c < 16 && c%2 == 0 { // the CPUs irqbalance gave the 8 ixgbe queues
			return [3]uint64{611_000_000 + uint64(c)*100_003, 0, 1_204 + uint64(c)}
		}
		return [3]uint64{2_000_000 + uint64(c)*311, 0, 0}
	}))
	t.w("/proc/version", "Linux version 3.10.0-1160.el7.x86_64 (mockbuild@kbuilder.bsys.centos.org) (gcc version 4.8.5 20150623 (Red Hat 4.8.5-44) (GCC) ) #1 SMP Mon Oct 19 16:18:59 UTC 2020\n")
	t.w("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-3.10.0-1160.el7.x86_64 root=/dev/mapper/centos-root ro crashkernel=auto rd.lvm.lv=centos/root rd.lvm.lv=centos/swap rhgb quiet LANG=en_US.UTF-8\n")
	t.wl("/proc/sys/kernel/hostname", "ticket-app-07")
	t.wl("/proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64")
	// No /proc/sys/kernel/arch on 3.10, no sched_autogroup_enabled (not
	// configured in RHEL 7), tcp_tw_recycle still present.
	t.sysctls(map[string]string{
		"vm.swappiness": "60", "vm.min_free_kbytes": "90112", "vm.dirty_ratio": "30",
		"vm.dirty_background_ratio": "10", "vm.dirty_bytes": "0", "vm.dirty_background_bytes": "0",
		"vm.dirty_expire_centisecs": "3000", "vm.zone_reclaim_mode": "0", "vm.max_map_count": "65530",
		"vm.overcommit_memory": "0", "vm.nr_hugepages": "0",
		"kernel.numa_balancing": "1", "kernel.nmi_watchdog": "1",
		"kernel.timer_migration": "1", "kernel.perf_event_paranoid": "2", "kernel.kptr_restrict": "0",
		"kernel.threads-max": "3089428", "kernel.pid_max": "81920",
		"fs.file-max": "38851911", "fs.nr_open": "1048576", "fs.file-nr": tabs(5568, 0, 38851911),
		"net.core.somaxconn": "128", "net.core.netdev_max_backlog": "1000", "net.core.netdev_budget": "300",
		"net.core.rmem_max": "212992", "net.core.wmem_max": "212992", "net.core.rmem_default": "212992",
		"net.core.wmem_default": "212992", "net.core.rps_sock_flow_entries": "0",
		"net.core.busy_read": "0", "net.core.busy_poll": "0",
		"net.ipv4.tcp_max_syn_backlog": "2048", "net.ipv4.tcp_syncookies": "1",
		"net.ipv4.ip_local_port_range": tabs(32768, 60999), "net.ipv4.tcp_tw_reuse": "0",
		"net.ipv4.tcp_fin_timeout": "60", "net.ipv4.tcp_max_tw_buckets": "262144",
		"net.ipv4.tcp_timestamps": "1", "net.ipv4.tcp_rmem": tabs(4096, 87380, 6291456),
		"net.ipv4.tcp_wmem": tabs(4096, 16384, 4194304), "net.ipv4.tcp_mem": tabs(4588512, 6118019, 9177024),
		"net.ipv4.tcp_slow_start_after_idle": "1", "net.ipv4.tcp_keepalive_time": "7200",
		"net.ipv4.tcp_tw_recycle": "0", "net.ipv4.tcp_fastopen": "0", "net.ipv4.tcp_notsent_lowat": "-1",
		"net.netfilter.nf_conntrack_max": "262144", "net.netfilter.nf_conntrack_count": "40933",
	})

	// ixgbe, 8 queues, IRQs 115-122 one per CPU on node 0 (irqbalance), 123 the link IRQ.
	var rows []irqRow
	zero := func(int) uint64 { return 0 }
	rows = append(rows,
		irqRow{"0", counts(ncpu, func(c int) uint64 {
			if c == 0 {
				return 42
			}
			return 0
		}), "   IO-APIC-edge      timer"},
		irqRow{"8", counts(ncpu, zero), "   IO-APIC-edge      rtc0"},
		irqRow{"9", counts(ncpu, func(c int) uint64 {
			if c == 0 {
				return 4
			}
			return 0
		}), "   IO-APIC-fasteoi   acpi"},
		irqRow{"40", counts(ncpu, func(c int) uint64 {
			if c == 10 {
				return 18_877_213
			}
			return 0
		}), "   IR-PCI-MSI-edge      ahci"},
	)
	irqAff := map[int]string{0: "0-79", 8: "0-79", 9: "0-79", 40: "10"}
	msi := []int{}
	for q := 0; q < 8; q++ {
		irq, cpu := 115+q, q*2
		rows = append(rows, irqRow{strconv.Itoa(irq), counts(ncpu, func(c int) uint64 {
			switch {
			case c == cpu:
				return 612_000_000 + uint64(q)*1_234_567
			case c == 0:
				return 1_024 // before irqbalance's first pass
			}
			return 0
		}), fmt.Sprintf("   IR-PCI-MSI-edge      enp59s0f0-TxRx-%d", q)})
		irqAff[irq] = strconv.Itoa(cpu)
		msi = append(msi, irq)
	}
	rows = append(rows, irqRow{"123", counts(ncpu, func(c int) uint64 {
		if c == 16 {
			return 3
		}
		return 0
	}), "   IR-PCI-MSI-edge      enp59s0f0"})
	irqAff[123] = "16"
	msi = append(msi, 123)
	for _, r := range [][2]string{{"NMI", "Non-maskable interrupts"}, {"LOC", "Local timer interrupts"},
		{"SPU", "Spurious interrupts"}, {"PMI", "Performance monitoring interrupts"}, {"IWI", "IRQ work interrupts"},
		{"RTR", "APIC ICR read retries"}, {"RES", "Rescheduling interrupts"}, {"CAL", "Function call interrupts"},
		{"TLB", "TLB shootdowns"}, {"TRM", "Thermal event interrupts"}, {"THR", "Threshold APIC interrupts"},
		{"DFR", "Deferred Error APIC interrupts"}, {"MCE", "Machine check exceptions"}, {"MCP", "Machine check polls"}} {
		w := func(c int) uint64 {
			switch r[0] {
			case "LOC":
				return 980_000_000 + uint64(c)*7_919
			case "RES", "CAL", "TLB", "NMI", "PMI":
				return 3_000_000 + uint64(c)*911
			case "MCP":
				return 12_050
			}
			return 0
		}
		rows = append(rows, irqRow{r[0], counts(ncpu, w), "   " + r[1]})
	}
	rows = append(rows, irqRow{"ERR", []uint64{0}, ""}, irqRow{"MIS", []uint64{0}, ""})
	t.w("/proc/interrupts", interrupts(ncpu, rows))
	for irq, a := range irqAff { // 3.10 has no effective_affinity_list
		t.wl(fmt.Sprintf("/proc/irq/%d/smp_affinity_list", irq), a)
	}

	// cgroup v1 only (RHEL 7: no unified mount at all).
	t.w("/proc/self/cgroup", "11:hugetlb:/\n10:memory:/\n9:pids:/\n8:cpuset:/\n7:blkio:/\n6:perf_event:/\n5:freezer:/\n"+
		"4:net_prio,net_cls:/\n3:devices:/user.slice\n2:cpuacct,cpu:/\n1:name=systemd:/user.slice/user-0.slice/session-4211.scope\n")
	t.w("/proc/self/mountinfo", strings.Join([]string{
		"18 62 0:17 / /sys rw,nosuid,nodev,noexec,relatime shared:6 - sysfs sysfs rw",
		"19 62 0:3 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw",
		"62 1 253:0 / / rw,relatime shared:1 - xfs /dev/mapper/centos-root rw,attr2,inode64,noquota",
		"24 18 0:20 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755",
		"25 24 0:21 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup rw,xattr,release_agent=/usr/lib/systemd/systemd-cgroups-agent,name=systemd",
		"28 24 0:24 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,net_prio,net_cls",
		"29 24 0:25 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpuacct,cpu",
		"30 24 0:26 / /sys/fs/cgroup/devices rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,devices",
		"31 24 0:27 / /sys/fs/cgroup/freezer rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,freezer",
		"32 24 0:28 / /sys/fs/cgroup/perf_event rw,nosuid,nodev,noexec,relatime shared:17 - cgroup cgroup rw,perf_event",
		"33 24 0:29 / /sys/fs/cgroup/blkio rw,nosuid,nodev,noexec,relatime shared:18 - cgroup cgroup rw,blkio",
		"34 24 0:30 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:19 - cgroup cgroup rw,cpuset",
		"35 24 0:31 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:20 - cgroup cgroup rw,pids",
		"36 24 0:32 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:21 - cgroup cgroup rw,memory",
		"37 24 0:33 / /sys/fs/cgroup/hugetlb rw,nosuid,nodev,noexec,relatime shared:22 - cgroup cgroup rw,hugetlb",
		"80 62 8:1 / /boot rw,relatime shared:23 - xfs /dev/sda1 rw,attr2,inode64,noquota",
		"82 62 253:2 / /data rw,relatime shared:24 - xfs /dev/mapper/centos-data rw,attr2,inode64,noquota",
	}, "\n")+"\n")
	t.ln("/sys/fs/cgroup/cpu", "cpu,cpuacct")
	t.ln("/sys/fs/cgroup/cpuacct", "cpu,cpuacct")
	cg := "/sys/fs/cgroup/"
	for _, p := range []string{"", "/system.slice/ticket-service.service"} {
		t.wl(cg+"cpu,cpuacct"+p+"/cpu.cfs_quota_us", -1)
		t.wl(cg+"cpu,cpuacct"+p+"/cpu.cfs_period_us", 100000)
		t.w(cg+"cpu,cpuacct"+p+"/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n")
		t.wl(cg+"memory"+p+"/memory.limit_in_bytes", "9223372036854771712")
	}
	t.wl(cg+"cpuset/cpuset.cpus", "0-79")

	t.jvm(procSpec{pid: 24817, ppid: 1, uid: 1001, threads: 312, rssKB: 4_093_112, vmKB: 12_779_520,
		ncpu: ncpu, cpus: span(0, 79), mems: []int{0, 1}},
		"/usr/java/jdk1.8.0_181/bin/java",
		[]string{"/usr/java/jdk1.8.0_181/bin/java", "-server", "-Xms1g", "-Xmx4g", "-XX:+UseConcMarkSweepGC",
			"-XX:+UseParNewGC", "-XX:CMSInitiatingOccupancyFraction=75", "-XX:+UseCMSInitiatingOccupancyOnly",
			"-XX:+PrintGCDetails", "-XX:+PrintGCDateStamps", "-Xloggc:/data/logs/ticket/gc.log",
			"-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=/data/logs/ticket", "-Dfile.encoding=UTF-8",
			"-jar", "/data/app/ticket-service.jar", "--spring.profiles.active=prod"},
		limits("65535", "65535", "1546171"),
		"11:hugetlb:/\n10:memory:/system.slice/ticket-service.service\n9:pids:/system.slice/ticket-service.service\n"+
			"8:cpuset:/\n7:blkio:/system.slice/ticket-service.service\n6:perf_event:/\n5:freezer:/\n4:net_prio,net_cls:/\n"+
			"3:devices:/system.slice/ticket-service.service\n2:cpuacct,cpu:/system.slice/ticket-service.service\n"+
			"1:name=systemd:/system.slice/ticket-service.service\n",
		[]string{"/dev/null", "/data/logs/ticket/console.log", "/data/logs/ticket/console.log",
			"/usr/java/jdk1.8.0_181/jre/lib/rt.jar", "/data/logs/ticket/gc.log", "socket:[5512301]",
			"socket:[5512310]", "anon_inode:[eventpoll]", "pipe:[5512299]", "/data/app/ticket-service.jar"})
	t.w("/usr/java/jdk1.8.0_181/release", "JAVA_VERSION=\"1.8.0_181\"\nOS_NAME=\"Linux\"\nOS_VERSION=\"2.6\"\nOS_ARCH=\"amd64\"\nSOURCE=\"\"\nBUILD_TYPE=\"commercial\"\n")
	t.daemon(812, "auditd")
	t.daemon(987, "irqbalance")
	t.daemon(1203, "tuned")

	t.w("/etc/os-release", "NAME=\"CentOS Linux\"\nVERSION=\"7 (Core)\"\nID=\"centos\"\nID_LIKE=\"rhel fedora\"\nVERSION_ID=\"7\"\nPRETTY_NAME=\"CentOS Linux 7 (Core)\"\nANSI_COLOR=\"0;31\"\nCPE_NAME=\"cpe:/o:centos:centos:7\"\nHOME_URL=\"https://www.centos.org/\"\nBUG_REPORT_URL=\"https://bugs.centos.org/\"\n\nCENTOS_MANTISBT_PROJECT=\"CentOS-7\"\nCENTOS_MANTISBT_PROJECT_VERSION=\"7\"\nREDHAT_SUPPORT_PRODUCT=\"centos\"\nREDHAT_SUPPORT_PRODUCT_VERSION=\"7\"\n\n")
	t.w("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nticket:x:1001:1001::/home/ticket:/bin/bash\n")
	t.wl("/etc/tuned/active_profile", "virtual-guest")

	t.wl("/sys/devices/system/cpu/online", "0-79")
	t.wl("/sys/devices/system/cpu/smt/active", 1)
	t.cpuTopology(ncpu, pkg, core, sib)
	t.cpufreq(ncpu, "intel_pstate", "performance powersave", func(int) string { return "powersave" }, "")
	t.wl("/sys/devices/system/cpu/intel_pstate/status", "active")
	t.wl("/sys/devices/system/cpu/intel_pstate/no_turbo", 0)
	t.wl("/sys/devices/system/cpu/intel_pstate/min_perf_pct", 25)
	t.wl("/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle")
	t.wl("/sys/devices/system/cpu/cpuidle/current_governor_ro", "menu")
	t.idleStates([][3]string{{"POLL", "0", "0"}, {"C1", "2", "0"}, {"C1E", "10", "0"}, {"C6", "133", "0"}})
	t.vulns(map[string]string{
		"itlb_multihit": "KVM: Mitigation: Split huge pages", "l1tf": "Not affected", "mds": "Not affected",
		"meltdown":          "Not affected",
		"spec_store_bypass": "Mitigation: Speculative Store Bypass disabled via prctl and seccomp",
		"spectre_v1":        "Mitigation: Load fences, usercopy/swapgs barriers and __user pointer sanitization",
		"spectre_v2":        "Mitigation: Enhanced IBRS", "srbds": "Not affected",
		"tsx_async_abort": "Mitigation: Clear CPU buffers; SMT vulnerable",
	})
	t.numaNodes([][]int{node0, node1}, nodeKB, []int64{4_100_112, 5_712_124}, [][]int{{10, 21}, {21, 10}})
	t.wl("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never")
	t.wl("/sys/kernel/mm/transparent_hugepage/defrag", "[always] madvise never")
	t.wl("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc")
	t.wl("/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm ")
	t.wl("/sys/fs/selinux/enforce", "0")
	t.ln("/sys/class/dmi/id", "../../devices/virtual/dmi/id")
	t.wl("/sys/devices/virtual/dmi/id/sys_vendor", "Dell Inc.")
	t.wl("/sys/devices/virtual/dmi/id/product_name", "PowerEdge R740")

	t.nic(nicSpec{name: "enp59s0f0", devPath: "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
		pci: "0000:3b:00.0", driverLink: "/sys/bus/pci/drivers/ixgbe", operstate: "up",
		speed: 10000, mtu: 1500, numa: 0, rxq: 8, txq: 8, ncpu: ncpu, msi: msi})
	t.loopback(ncpu)
	t.disk(diskSpec{name: "sda", blockDir: "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda",
		deviceLink: "../../../0:0:0:0", deviceDir: "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0",
		subsystem: "/sys/bus/scsi", driver: "/sys/bus/scsi/drivers/sd", sched: "noop deadline [cfq]",
		rotational: 1, readAhead: 4096, nrReq: 128, sizeSectors: 3907029168, model: "ST2000NM0055-1V4", queueDepth: 32, numa: -2})
	for i, sz := range []int64{104857600, 8388608} { // centos-root, centos-swap
		name := fmt.Sprintf("dm-%d", i)
		t.disk(diskSpec{name: name, blockDir: "/sys/devices/virtual/block/" + name, sched: "none",
			rotational: 1, readAhead: 4096, nrReq: 128, sizeSectors: sz})
	}
}

// ---- container-quota -----------------------------------------------------
