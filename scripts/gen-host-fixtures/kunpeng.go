package main

import (
	"fmt"
	"strconv"
	"strings"
)

func kunpeng(t *tree) {
	const ncpu = 128
	all := span(0, ncpu-1)

	var ci strings.Builder
	for c := 0; c < ncpu; c++ {
		fmt.Fprintf(&ci, "processor\t: %d\nBogoMIPS\t: 200.00\n"+
			"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma dcpop asimddp asimdfhm\n"+
			"CPU implementer\t: 0x48\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd01\nCPU revision\t: 0\n\n", c)
	}
	t.w("/proc/cpuinfo", ci.String())
	t.w("/proc/stat", procStat(ncpu, 0))
	nodeKB := []int64{132514816, 133137408, 133137408, 133120000}
	var memTotal int64
	for _, x := range nodeKB {
		memTotal += x
	}
	t.w("/proc/meminfo", meminfo(memSpec{totalKB: memTotal, freeKB: 388_214_784, availKB: 452_901_120,
		buffersKB: 41_216, cachedKB: 71_902_336, anonHugeKB: 11_794_432, hugePageKB: 2048, shmemKB: 33_120}))
	t.w("/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
	// All NIC softirq work lands on CPU 0: backlog drops and budget squeezes there.
	t.w("/proc/net/softnet_stat", softnet(ncpu, 13, func(c int) [3]uint64 {
		if c == 0 {
			return [3]uint64{3_911_203_117, 184_220, 9_310_442}
		}
		return [3]uint64{1_200_000 + uint64(c)*977, 0, uint64(c % 3)}
	}))
	t.w("/proc/version", "Linux version 5.10.0-136.12.0.86.oe2203sp1.aarch64 (root@dc-64g.compass-ci) (gcc_old (GCC) 10.3.1, GNU ld (GNU Binutils) 2.37) #1 SMP Tue Dec 27 17:50:15 CST 2022\n")
	t.w("/proc/cmdline", "BOOT_IMAGE=/vmlinuz-5.10.0-136.12.0.86.oe2203sp1.aarch64 root=/dev/mapper/openeuler-root ro rd.lvm.lv=openeuler/root video=VGA-1:640x480-32@60me rhgb quiet console=tty0 crashkernel=1024M,high smmu.bypassdev=0x1000:0x17 smmu.bypassdev=0x1000:0x15 video=efifb:off\n")
	t.wl("/proc/sys/kernel/hostname", "kp920-card-core-01")
	t.wl("/proc/sys/kernel/osrelease", "5.10.0-136.12.0.86.oe2203sp1.aarch64")
	t.wl("/proc/sys/kernel/arch", "aarch64")
	t.sysctls(map[string]string{
		"vm.swappiness": "60", "vm.min_free_kbytes": "180224", "vm.dirty_ratio": "20",
		"vm.dirty_background_ratio": "10", "vm.dirty_bytes": "0", "vm.dirty_background_bytes": "0",
		"vm.dirty_expire_centisecs": "3000", "vm.zone_reclaim_mode": "0", "vm.max_map_count": "65530",
		"vm.overcommit_memory": "0", "vm.nr_hugepages": "0",
		"kernel.numa_balancing": "1", "kernel.sched_autogroup_enabled": "0", "kernel.nmi_watchdog": "0",
		"kernel.timer_migration": "1", "kernel.perf_event_paranoid": "2", "kernel.kptr_restrict": "0",
		"kernel.threads-max": "4181432", "kernel.pid_max": "131072",
		"fs.file-max": "9223372036854775807", "fs.nr_open": "1073741816",
		"fs.file-nr":         tabs(4224, 0, "9223372036854775807"),
		"net.core.somaxconn": "4096", "net.core.netdev_max_backlog": "1000", "net.core.netdev_budget": "300",
		"net.core.rmem_max": "212992", "net.core.wmem_max": "212992", "net.core.rmem_default": "212992",
		"net.core.wmem_default": "212992", "net.core.rps_sock_flow_entries": "0",
		"net.core.busy_read": "0", "net.core.busy_poll": "0",
		"net.ipv4.tcp_max_syn_backlog": "4096", "net.ipv4.tcp_syncookies": "1",
		"net.ipv4.ip_local_port_range": tabs(32768, 60999), "net.ipv4.tcp_tw_reuse": "2",
		"net.ipv4.tcp_fin_timeout": "60", "net.ipv4.tcp_max_tw_buckets": "262144",
		"net.ipv4.tcp_timestamps": "1", "net.ipv4.tcp_rmem": tabs(4096, 131072, 6291456),
		"net.ipv4.tcp_wmem": tabs(4096, 16384, 4194304), "net.ipv4.tcp_mem": tabs(6188901, 8251869, 12377802),
		"net.ipv4.tcp_slow_start_after_idle": "1", "net.ipv4.tcp_keepalive_time": "7200",
		"net.ipv4.tcp_fastopen": "1", "net.ipv4.tcp_notsent_lowat": "4294967295",
		"net.netfilter.nf_conntrack_max": "262144", "net.netfilter.nf_conntrack_count": "1532",
	})

	// Interrupts: arch_timer (PPI) everywhere, nvme queues spread by the
	// kernel (managed affinity), the hinic NIC's single queue all on CPU 0.
	const nicIRQ = 107
	rows := []irqRow{
		{"3", counts(ncpu, func(c int) uint64 { return 48_113_000 + uint64(c)*977 }), "     GICv3  27 Level     arch_timer"},
		{"5", counts(ncpu, func(c int) uint64 { return 0 }), "     GICv3  23 Level     arm-pmu"},
	}
	irqAff := map[int][2]string{3: {"0-127", ""}, 5: {"0-127", ""}}
	rows = append(rows, irqRow{strconv.Itoa(nicIRQ),
		counts(ncpu, func(c int) uint64 {
			if c == 0 {
				return 2_918_337_512
			}
			return 0
		}),
		"   ITS-MSI 65536001 Edge      enp125s0f0_qp0"})
	irqAff[nicIRQ] = [2]string{"0", "0"}
	for q := 0; q < 8; q++ {
		irq := 140 + q
		lo, hi := q*16, q*16+15
		rows = append(rows, irqRow{strconv.Itoa(irq),
			counts(ncpu, func(c int) uint64 {
				if c >= lo && c <= hi {
					return 310_000 + uint64(c%16)*1_013
				}
				return 0
			}),
			fmt.Sprintf("   ITS-MSI %d Edge      nvme0q%d", 1572865+q, q+1)})
		irqAff[irq] = [2]string{fmt.Sprintf("%d-%d", lo, hi), strconv.Itoa(lo)}
	}
	for i, name := range []string{"Rescheduling interrupts", "Function call interrupts", "CPU stop interrupts",
		"CPU stop (for crash dump) interrupts", "Timer broadcast interrupts", "IRQ work interrupts", "CPU wake-up interrupts"} {
		rows = append(rows, irqRow{fmt.Sprintf("IPI%d", i),
			counts(ncpu, func(c int) uint64 {
				if i < 2 || i == 5 {
					return 1_200_000 + uint64(c)*31
				}
				return 0
			}), "       " + name})
	}
	rows = append(rows, irqRow{"Err", []uint64{0}, ""})
	t.w("/proc/interrupts", interrupts(ncpu, rows))
	for irq, a := range irqAff {
		t.wl(fmt.Sprintf("/proc/irq/%d/smp_affinity_list", irq), a[0])
		if a[1] != "" {
			t.wl(fmt.Sprintf("/proc/irq/%d/effective_affinity_list", irq), a[1])
		} else {
			t.wl(fmt.Sprintf("/proc/irq/%d/effective_affinity_list", irq), a[0])
		}
	}

	// cgroup v1 with systemd's unified hierarchy (hybrid).
	t.w("/proc/self/cgroup", strings.Join([]string{
		"12:devices:/user.slice", "11:hugetlb:/", "10:perf_event:/", "9:memory:/user.slice/user-0.slice/session-3.scope",
		"8:pids:/user.slice/user-0.slice/session-3.scope", "7:net_cls,net_prio:/", "6:cpuset:/", "5:freezer:/",
		"4:rdma:/", "3:blkio:/user.slice", "2:cpu,cpuacct:/user.slice", "1:name=systemd:/user.slice/user-0.slice/session-3.scope",
		"0::/user.slice/user-0.slice/session-3.scope",
	}, "\n")+"\n")
	t.w("/proc/self/mountinfo", strings.Join([]string{
		"22 97 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw",
		"23 97 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:22 - proc proc rw",
		"97 1 253:0 / / rw,relatime shared:1 - xfs /dev/mapper/openeuler-root rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
		"26 22 0:24 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:3 - tmpfs tmpfs ro,size=4096k,nr_inodes=1024,mode=755",
		"27 26 0:25 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate",
		"28 26 0:26 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:5 - cgroup cgroup rw,xattr,name=systemd",
		"31 26 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:8 - cgroup cgroup rw,cpu,cpuacct",
		"32 26 0:30 / /sys/fs/cgroup/blkio rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,blkio",
		"33 26 0:31 / /sys/fs/cgroup/rdma rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup rw,rdma",
		"34 26 0:32 / /sys/fs/cgroup/freezer rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,freezer",
		"35 26 0:33 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:12 - cgroup cgroup rw,cpuset",
		"36 26 0:34 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,net_cls,net_prio",
		"37 26 0:35 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,pids",
		"38 26 0:36 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,memory",
		"39 26 0:37 / /sys/fs/cgroup/perf_event rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,perf_event",
		"40 26 0:38 / /sys/fs/cgroup/hugetlb rw,nosuid,nodev,noexec,relatime shared:17 - cgroup cgroup rw,hugetlb",
		"41 26 0:39 / /sys/fs/cgroup/devices rw,nosuid,nodev,noexec,relatime shared:18 - cgroup cgroup rw,devices",
		"82 97 8:2 / /boot rw,relatime shared:47 - xfs /dev/sda2 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
		"85 97 259:1 / /data rw,relatime shared:49 - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
	}, "\n")+"\n")
	t.ln("/sys/fs/cgroup/cpu", "cpu,cpuacct")
	t.ln("/sys/fs/cgroup/cpuacct", "cpu,cpuacct")
	cg := "/sys/fs/cgroup/"
	for _, p := range []string{"", "/user.slice", "/system.slice/card-core.service"} {
		t.wl(cg+"cpu,cpuacct"+p+"/cpu.cfs_quota_us", -1)
		t.wl(cg+"cpu,cpuacct"+p+"/cpu.cfs_period_us", 100000)
		t.w(cg+"cpu,cpuacct"+p+"/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n")
	}
	t.wl(cg+"cpuset/cpuset.cpus", "0-127")
	t.wl(cg+"cpuset/cpuset.effective_cpus", "0-127")
	t.wl(cg+"memory/memory.limit_in_bytes", "9223372036854771712")
	t.wl(cg+"memory/user.slice/user-0.slice/session-3.scope/memory.limit_in_bytes", "9223372036854771712")
	t.wl(cg+"memory/system.slice/card-core.service/memory.limit_in_bytes", "9223372036854771712")
	t.wl(cg+"pids/user.slice/user-0.slice/session-3.scope/pids.max", "max")
	t.wl(cg+"pids/system.slice/card-core.service/pids.max", "19660")
	t.w(cg+"unified/user.slice/user-0.slice/session-3.scope/cpu.stat", "usage_usec 7812345\nuser_usec 5123456\nsystem_usec 2688889\n")

	// JVM: Bisheng JDK 8, Parallel GC, no GC log, no heap dump, not bound.
	t.jvm(procSpec{pid: 4127, ppid: 1, uid: 1000, threads: 486, rssKB: 6_815_744, vmKB: 15_204_352,
		ncpu: ncpu, cpus: all, mems: span(0, 3)},
		"/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java",
		[]string{"/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java", "-Xms2g", "-Xmx8g", "-XX:+UseParallelGC",
			"-Dfile.encoding=UTF-8", "-Duser.timezone=Asia/Shanghai", "-Dspring.profiles.active=prod",
			"-cp", "/opt/card-core/conf:/opt/card-core/lib/*", "com.bank.card.core.Bootstrap", "--server.port=8443"},
		limits("1024", "1024", "1546171"),
		"12:devices:/system.slice/card-core.service\n11:hugetlb:/\n10:perf_event:/\n9:memory:/system.slice/card-core.service\n"+
			"8:pids:/system.slice/card-core.service\n7:net_cls,net_prio:/\n6:cpuset:/\n5:freezer:/\n4:rdma:/\n"+
			"3:blkio:/system.slice/card-core.service\n2:cpu,cpuacct:/system.slice/card-core.service\n"+
			"1:name=systemd:/system.slice/card-core.service\n0::/system.slice/card-core.service\n",
		[]string{"/dev/null", "/data/logs/card-core/stdout.log", "/data/logs/card-core/stdout.log",
			"/usr/lib/jvm/bisheng-jdk1.8.0_342/jre/lib/rt.jar", "socket:[88231]", "socket:[88240]",
			"anon_inode:[eventpoll]", "pipe:[88236]", "pipe:[88236]", "socket:[91002]", "socket:[91013]",
			"/opt/card-core/lib/card-core-3.4.1.jar"})
	// JAVA_HOME/release beside the tree's proc/sys/etc (readers look under
	// the tree root). Assumed content: the OpenJDK 8 keys; IMPLEMENTOR left
	// out because Bisheng 8's value is not confirmed (Bisheng 17 writes "BiSheng").
	t.w("/usr/lib/jvm/bisheng-jdk1.8.0_342/release", "JAVA_VERSION=\"1.8.0_342\"\nOS_NAME=\"Linux\"\nOS_VERSION=\"2.6\"\nOS_ARCH=\"aarch64\"\nSOURCE=\"\"\n")
	t.daemon(1650, "auditd")
	t.daemon(1801, "sshd")

	t.w("/etc/os-release", "NAME=\"openEuler\"\nVERSION=\"22.03 (LTS-SP1)\"\nID=\"openEuler\"\nVERSION_ID=\"22.03\"\nPRETTY_NAME=\"openEuler 22.03 (LTS-SP1)\"\nANSI_COLOR=\"0;31\"\n\n")
	t.w("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\ncardapp:x:1000:1000::/home/cardapp:/bin/bash\n")

	// sys: CPU topology (no SMT, 64 cores per socket), cpufreq, cpuidle.
	t.wl("/sys/devices/system/cpu/online", "0-127")
	t.cpuTopology(ncpu, func(c int) int { return c / 64 }, func(c int) int { return c }, func(c int) []int { return []int{c} })
	t.cpufreq(ncpu, "cppc_cpufreq", "conservative ondemand userspace powersave performance schedutil",
		func(c int) string {
			if c < 4 {
				return "performance"
			}
			return "ondemand"
		}, "")
	t.wl("/sys/devices/system/cpu/cpuidle/current_driver", "acpi_idle")
	t.wl("/sys/devices/system/cpu/cpuidle/current_governor_ro", "menu")
	t.idleStates([][3]string{{"WFI", "1", "0"}})
	t.vulns(map[string]string{
		"itlb_multihit": "Not affected", "l1tf": "Not affected", "mds": "Not affected",
		"meltdown": "Not affected", "mmio_stale_data": "Not affected", "retbleed": "Not affected",
		"spec_store_bypass": "Mitigation: Speculative Store Bypass disabled via prctl",
		"spectre_v1":        "Mitigation: __user pointer sanitization",
		"spectre_v2":        "Mitigation: CSV2, BHB", "srbds": "Not affected", "tsx_async_abort": "Not affected",
	})
	t.numaNodes([][]int{span(0, 31), span(32, 63), span(64, 95), span(96, 127)}, nodeKB,
		[]int64{91_052_800, 98_938_880, 99_016_704, 99_206_400},
		[][]int{{10, 12, 20, 22}, {12, 10, 22, 20}, {20, 22, 10, 12}, {22, 20, 12, 10}})
	t.wl("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never")
	t.wl("/sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never")
	t.wl("/sys/devices/system/clocksource/clocksource0/current_clocksource", "arch_sys_counter")
	t.wl("/sys/devices/system/clocksource/clocksource0/available_clocksource", "arch_sys_counter ")
	t.wl("/sys/fs/selinux/enforce", "1")
	t.ln("/sys/class/dmi/id", "../../devices/virtual/dmi/id")
	t.wl("/sys/devices/virtual/dmi/id/sys_vendor", "Huawei")
	t.wl("/sys/devices/virtual/dmi/id/product_name", "TaiShan 200 (Model 2280)")

	t.nic(nicSpec{name: "enp125s0f0", devPath: "/sys/devices/pci0000:7c/0000:7c:00.0/0000:7d:00.0",
		pci: "0000:7d:00.0", driverLink: "/sys/bus/pci/drivers/hinic", operstate: "up",
		speed: 25000, mtu: 1500, numa: 0, rxq: 1, txq: 1, ncpu: ncpu, msi: []int{nicIRQ}})
	t.loopback(ncpu)

	t.disk(diskSpec{name: "nvme0n1", blockDir: "/sys/devices/pci0000:00/0000:00:08.0/0000:04:00.0/nvme/nvme0/nvme0n1",
		deviceLink: "../../nvme0", deviceDir: "/sys/devices/pci0000:00/0000:00:08.0/0000:04:00.0/nvme/nvme0",
		subsystem: "/sys/class/nvme", sched: "[none] mq-deadline", rotational: 0, readAhead: 128, nrReq: 1023,
		sizeSectors: 7501476528, model: "HWE52P434T0L005N", numa: 0})
	t.disk(diskSpec{name: "sda", blockDir: "/sys/devices/pci0000:74/0000:74:02.0/host2/port-2:0/end_device-2:0/target2:0:0/2:0:0:0/block/sda",
		deviceLink: "../../../2:0:0:0", deviceDir: "/sys/devices/pci0000:74/0000:74:02.0/host2/port-2:0/end_device-2:0/target2:0:0/2:0:0:0",
		subsystem: "/sys/bus/scsi", driver: "/sys/bus/scsi/drivers/sd", sched: "mq-deadline kyber [bfq] none",
		rotational: 1, readAhead: 128, nrReq: 64, sizeSectors: 7814037168, model: "HUS726T4TAL5204", queueDepth: 64, numa: -2})
}

// ---- centos7-3.10-cgv1 ---------------------------------------------------
