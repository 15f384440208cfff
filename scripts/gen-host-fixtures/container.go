package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

func container(t *tree) {
	const ncpu = 16
	flags := "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch invpcid_single pti fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid mpx avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves ida arat pku ospke avx512_vnni"
	var ci strings.Builder
	for c := 0; c < ncpu; c++ {
		core := c % 8
		fmt.Fprintf(&ci, "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"+
			"model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\nstepping\t: 7\nmicrocode\t: 0x5003604\n"+
			"cpu MHz\t\t: 2499.996\ncache size\t: 36608 KB\nphysical id\t: 0\nsiblings\t: 16\ncore id\t\t: %d\n"+
			"cpu cores\t: 8\napicid\t\t: %d\ninitial apicid\t: %d\nfpu\t\t: yes\nfpu_exception\t: yes\n"+
			"cpuid level\t: 13\nwp\t\t: yes\nflags\t\t: %s\nbugs\t\t: cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass swapgs taa itlb_multihit mmio_stale_data retbleed gds\n"+
			"bogomips\t: 4999.99\nclflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n",
			c, core, core*2+c/8, core*2+c/8, flags)
	}
	t.w("/proc/cpuinfo", ci.String())
	t.w("/proc/stat", procStat(ncpu, 3.5))
	const memKB = 65_039_800
	t.w("/proc/meminfo", meminfo(memSpec{totalKB: memKB, freeKB: 21_443_112, availKB: 44_800_020,
		buffersKB: 402_112, cachedKB: 22_104_332, anonHugeKB: 0, hugePageKB: 2048, shmemKB: 9_012}))
	t.w("/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
	t.w("/proc/net/softnet_stat", softnet(ncpu, 13, func(c int) [3]uint64 {
		return [3]uint64{40_000_000 + uint64(c)*1_009, 0, uint64(c)}
	}))
	t.w("/proc/version", "Linux version 5.15.0-1051-aws (buildd@lcy02-amd64-094) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #56-Ubuntu SMP Thu Nov 16 12:56:27 UTC 2023\n")
	t.w("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-5.15.0-1051-aws root=PARTUUID=5d2f8e4e-01 ro console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295 panic=-1\n")
	t.wl("/proc/sys/kernel/hostname", "7f3c2a9b1d4e")
	t.wl("/proc/sys/kernel/osrelease", "5.15.0-1051-aws")
	t.wl("/proc/sys/kernel/arch", "x86_64")
	t.sysctls(map[string]string{
		"vm.swappiness": "60", "vm.min_free_kbytes": "67584", "vm.dirty_ratio": "20",
		"vm.dirty_background_ratio": "10", "vm.dirty_bytes": "0", "vm.dirty_background_bytes": "0",
		"vm.dirty_expire_centisecs": "3000", "vm.zone_reclaim_mode": "0", "vm.max_map_count": "65530",
		"vm.overcommit_memory": "0", "vm.nr_hugepages": "0",
		"kernel.numa_balancing": "0", "kernel.sched_autogroup_enabled": "1", "kernel.nmi_watchdog": "0",
		"kernel.timer_migration": "1", "kernel.perf_event_paranoid": "4", "kernel.kptr_restrict": "1",
		"kernel.threads-max": "508123", "kernel.pid_max": "4194304",
		"fs.file-max": "9223372036854775807", "fs.nr_open": "1048576", "fs.file-nr": tabs(3104, 0, "9223372036854775807"),
		"net.core.somaxconn": "4096", "net.core.netdev_max_backlog": "1000", "net.core.netdev_budget": "300",
		"net.core.rmem_max": "212992", "net.core.wmem_max": "212992", "net.core.rmem_default": "212992",
		"net.core.wmem_default": "212992", "net.core.rps_sock_flow_entries": "0",
		"net.core.busy_read": "0", "net.core.busy_poll": "0",
		"net.ipv4.tcp_max_syn_backlog": "4096", "net.ipv4.tcp_syncookies": "1",
		"net.ipv4.ip_local_port_range": tabs(32768, 60999), "net.ipv4.tcp_tw_reuse": "2",
		"net.ipv4.tcp_fin_timeout": "60", "net.ipv4.tcp_max_tw_buckets": "262144",
		"net.ipv4.tcp_timestamps": "1", "net.ipv4.tcp_rmem": tabs(4096, 131072, 6291456),
		"net.ipv4.tcp_wmem": tabs(4096, 16384, 4194304), "net.ipv4.tcp_mem": tabs(762045, 1016061, 1524090),
		"net.ipv4.tcp_slow_start_after_idle": "1", "net.ipv4.tcp_keepalive_time": "7200",
		"net.ipv4.tcp_fastopen": "1", "net.ipv4.tcp_notsent_lowat": "4294967295",
		"net.netfilter.nf_conntrack_max": "262144", "net.netfilter.nf_conntrack_count": "211",
	})
	rows := []irqRow{
		{"24", counts(ncpu, func(c int) uint64 { return 0 }), "   PCI-MSI 65536-edge      nvme0q0"},
		{"27", counts(ncpu, func(c int) uint64 { return 9_000 + uint64(c)*11 }), "   PCI-MSI 81920-edge      ens5-Tx-Rx-0"},
		{"LOC", counts(ncpu, func(c int) uint64 { return 301_120_000 + uint64(c)*3_331 }), "   Local timer interrupts"},
		{"ERR", []uint64{0}, ""},
	}
	t.w("/proc/interrupts", interrupts(ncpu, rows))
	t.wl("/proc/irq/24/smp_affinity_list", "0-15")
	t.wl("/proc/irq/24/effective_affinity_list", "0")
	t.wl("/proc/irq/27/smp_affinity_list", "0-15")
	t.wl("/proc/irq/27/effective_affinity_list", "3")

	// cgroup v2 only, cgroup namespace: our cgroup is "/" and the container's
	// own cgroup is mounted at /sys/fs/cgroup.
	t.wl("/proc/self/cgroup", "0::/")
	t.w("/proc/self/mountinfo", strings.Join([]string{
		"1497 1402 0:312 / / rw,relatime master:724 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/4QMLTZQ2B7:/var/lib/docker/overlay2/l/XKQ3UF7W2A,upperdir=/var/lib/docker/overlay2/3f1c/diff,workdir=/var/lib/docker/overlay2/3f1c/work",
		"1498 1497 0:315 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
		"1499 1497 0:316 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64",
		"1502 1497 0:317 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro",
		"1503 1502 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw,nsdelegate,memory_recursiveprot",
		"1504 1499 0:314 / /dev/mqueue rw,nosuid,nodev,noexec,relatime - mqueue mqueue rw",
		"1505 1499 0:318 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64",
		"1506 1497 259:1 /var/lib/docker/containers/7f3c2a9b1d4e/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro",
		"1507 1497 259:1 /var/lib/docker/containers/7f3c2a9b1d4e/hostname /etc/hostname rw,relatime - ext4 /dev/root rw,discard,errors=remount-ro",
	}, "\n")+"\n")
	cg := "/sys/fs/cgroup/"
	t.wl(cg+"cpu.max", "200000 100000")
	t.w(cg+"cpu.stat", "usage_usec 918273645012\nuser_usec 801122334455\nsystem_usec 117151310557\n"+
		"nr_periods 4812097\nnr_throttled 1933110\nthrottled_usec 193311928374\nnr_bursts 0\nburst_usec 0\n")
	t.wl(cg+"cpuset.cpus.effective", "0-15")
	t.wl(cg+"memory.max", "4294967296")
	t.wl(cg+"pids.max", "4096")

	// JDK 8u121: no container support (UseContainerSupport came in 8u191),
	// so it sizes itself from 16 CPUs and 62 GiB; -Xmx6g exceeds the 4 GiB limit.
	t.jvm(procSpec{pid: 1, ppid: 0, uid: 0, threads: 97, rssKB: 3_921_408, vmKB: 11_534_336,
		ncpu: ncpu, cpus: span(0, 15), mems: []int{0}},
		"/opt/jdk1.8.0_121/bin/java",
		[]string{"java", "-Xmx6g", "-Djava.security.egd=file:/dev/./urandom", "-Dserver.port=8080",
			"-jar", "/app/order-service.jar"},
		limits("1048576", "1048576", "unlimited"),
		"0::/\n",
		[]string{"/dev/null", "pipe:[331120]", "pipe:[331121]", "/opt/jdk1.8.0_121/jre/lib/rt.jar",
			"socket:[331407]", "anon_inode:[eventpoll]", "socket:[331502]"})

	t.w("/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 8 (jessie)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"8\"\nVERSION=\"8 (jessie)\"\nID=debian\nHOME_URL=\"http://www.debian.org/\"\nSUPPORT_URL=\"http://www.debian.org/support\"\nBUG_REPORT_URL=\"https://bugs.debian.org/\"\n")
	t.w("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n")

	t.wl("/sys/devices/system/cpu/online", "0-15")
	t.wl("/sys/devices/system/cpu/smt/active", 1)
	t.cpuTopology(ncpu, func(int) int { return 0 }, func(c int) int { return c % 8 }, func(c int) []int { return []int{c % 8, c%8 + 8} })
	t.wl("/sys/devices/system/cpu/cpuidle/current_driver", "none")
	t.wl("/sys/devices/system/cpu/cpuidle/current_governor_ro", "menu")
	t.vulns(map[string]string{
		"gather_data_sampling": "Unknown: Dependent on hypervisor status", "itlb_multihit": "KVM: Mitigation: VMX unsupported",
		"l1tf": "Mitigation: PTE Inversion", "mds": "Vulnerable: Clear CPU buffers attempted, no microcode; SMT Host state unknown",
		"meltdown": "Mitigation: PTI", "mmio_stale_data": "Vulnerable: Clear CPU buffers attempted, no microcode; SMT Host state unknown",
		"retbleed":          "Vulnerable",
		"spec_store_bypass": "Vulnerable",
		"spectre_v1":        "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
		"spectre_v2":        "Mitigation: Retpolines, STIBP disabled, RSB filling, PBRSB-eIBRS Not affected",
		"srbds":             "Not affected", "tsx_async_abort": "Not affected",
	})
	t.numaNodes([][]int{span(0, 15)}, []int64{memKB}, []int64{21_443_112}, [][]int{{10}})
	t.wl("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never")
	t.wl("/sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never")
	t.wl("/sys/devices/system/clocksource/clocksource0/current_clocksource", "kvm-clock")
	t.wl("/sys/devices/system/clocksource/clocksource0/available_clocksource", "kvm-clock tsc acpi_pm ")
	t.ln("/sys/class/dmi/id", "../../devices/virtual/dmi/id")
	t.wl("/sys/devices/virtual/dmi/id/sys_vendor", "Amazon EC2")
	t.wl("/sys/devices/virtual/dmi/id/product_name", "m5.4xlarge")

	// eth0 is the container's veth end: virtual, no device link.
	d := "/sys/devices/virtual/net/eth0"
	t.ln("/sys/class/net/eth0", "../../devices/virtual/net/eth0")
	t.wl(d+"/operstate", "up")
	t.wl(d+"/speed", 10000)
	t.wl(d+"/mtu", 1500)
	t.wl(d+"/type", 1)
	t.wl(d+"/flags", "0x1003")
	t.wl(d+"/queues/rx-0/rps_cpus", cpuMask(nil, ncpu))
	t.wl(d+"/queues/rx-0/rps_flow_cnt", 0)
	t.wl(d+"/queues/tx-0/xps_cpus", cpuMask(nil, ncpu))
	t.wl(d+"/queues/tx-0/tx_timeout", 0)
	t.loopback(ncpu)
	t.disk(diskSpec{name: "nvme0n1", blockDir: "/sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1",
		deviceLink: "../../nvme0", deviceDir: "/sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0",
		subsystem: "/sys/class/nvme", sched: "[none] mq-deadline", rotational: 0, readAhead: 128, nrReq: 255,
		sizeSectors: 209715200, model: "Amazon Elastic Block Store", numa: -1})
}

// ---- empty ---------------------------------------------------------------

func empty(t *tree) {
	for _, d := range []string{"/proc", "/sys", "/etc"} {
		t.w(d+"/.gitkeep", "")
	}
}

// ---- garbage -------------------------------------------------------------

// garbage reuses build-vm-amd64's file names with junk in them: binary
// bytes, truncated lines, wrong formats, absurd numbers, a symlink loop and a
// directory where a file belongs. Readers must report these unavailable and
// never panic, hang or allocate without bound.
func garbage(t *tree) {
	rng := rand.New(rand.NewPCG(20261122, 1))
	junk := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return string(b)
	}
	const pid = "/proc/29607/" // the JVM of the build-vm-amd64 capture
	t.w("/proc/cpuinfo", junk(4096))
	t.w("/proc/meminfo", "MemTotal:       20")                                                        // truncated mid-line
	t.w("/proc/stat", "cpu  a b c d\ncpu0 1 2\ncpu1 18446744073709551616 -5 0 0 0 0 0 0 0 0\nintr\n") // wrong fields, overflow
	t.w("/proc/interrupts", "           CPU0       CPU1\n  24:          1\n  25: x y IO-APIC\nNMI:\n 99999999999999999999: 1 2 x\n")
	t.w("/proc/swaps", "Filename Type\n/dev/zram0 partition notanumber -1 x\n")
	t.w("/proc/version", "")
	t.w("/proc/net/softnet_stat", "00033ba7 zzzzzzzz\nffffffffffffffffffff 0 0\n"+junk(100))
	t.w("/proc/cmdline", junk(64)+"\n")
	t.w("/proc/sys/kernel/osrelease", "")
	t.w("/proc/sys/kernel/arch", "sparc64\n")
	t.w("/proc/sys/vm/swappiness", "sixty\n")
	t.w("/proc/sys/net/core/somaxconn", "-1\n")
	t.w("/proc/sys/net/ipv4/ip_local_port_range", "60999\n")
	t.w("/proc/irq/38/smp_affinity_list", "0-4294967295\n") // a range no reader should expand
	t.w("/proc/irq/39/smp_affinity_list", "3-1,,x\n")
	t.w("/proc/self/cgroup", "::::\n4:memory\n0::\n")
	t.w("/proc/self/mountinfo", "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs\n32 31 0:29 / /sys/fs/cg")
	t.w(pid+"cmdline", strings.Repeat("-Xmx", 16384)) // 64 KiB, no NUL
	t.w(pid+"comm", "java\n")
	t.w(pid+"status", junk(2048))
	t.w(pid+"limits", "Limit Soft Hard\nMax open files many lots files\n")
	t.w(pid+"cgroup", junk(32))
	t.ln(pid+"exe", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java (deleted)")
	t.mkdir(pid + "fd")
	t.ln(pid+"fd/0", "0") // a link to itself
	t.w("/etc/os-release", junk(512))
	t.w("/etc/passwd", "root:x:notanumber\n:::::::\n")
	t.w("/sys/devices/system/cpu/online", "0-\n")
	t.w("/sys/devices/system/cpu/cpu0/topology/physical_package_id", "-1\n")
	t.w("/sys/devices/system/cpu/cpu0/topology/core_id", junk(16))
	t.w("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0-1000000000\n")
	t.w("/sys/devices/system/node/node0/cpulist", "1-0\n")
	t.w("/sys/devices/system/node/node0/distance", "ten twenty\n")
	t.w("/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:\nNode x MemFree: 5 kB\n")
	t.w("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n") // no brackets
	t.mkdir("/sys/kernel/mm/transparent_hugepage/defrag")                        // a directory, not a file
	t.w("/sys/kernel/mm/transparent_hugepage/defrag/.keep", "")
	t.w("/sys/devices/system/clocksource/clocksource0/current_clocksource", junk(8))
	t.w("/sys/fs/cgroup/memory/process_api/8306e8da95cf4bc635163ffea65f6d87/memory.limit_in_bytes", "-5\n")
	t.w("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "max\n")
	t.w("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "0\n") // division by zero bait
	t.w("/sys/fs/cgroup/cpu/cpu.stat", "nr_periods\nnr_throttled -3\n")
	// net: eth0 loops to itself, lo is dangling, ifb0 has junk values.
	t.ln("/sys/class/net/eth0", "eth0")
	t.ln("/sys/class/net/lo", "../../devices/virtual/net/nowhere")
	t.ln("/sys/class/net/ifb0", "../../devices/virtual/net/ifb0")
	d := "/sys/devices/virtual/net/ifb0"
	t.w(d+"/mtu", "99999999999999999999\n")
	t.w(d+"/speed", "fast\n")
	t.w(d+"/operstate", junk(8))
	t.w(d+"/queues/rx-0/rps_cpus", "zz,zz\n")
	t.w(d+"/queues/rx-0/rps_flow_cnt", "-1\n")
	t.ln("/sys/block/vda", "../devices/pci0000:00/0000:00:02.0/virtio1/block/vda")
	b := "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"
	t.w(b+"/size", "-1\n")
	t.w(b+"/queue/scheduler", "[none [mq-deadline]\n")
	t.w(b+"/queue/rotational", "2\n")
	t.w(b+"/queue/read_ahead_kb", junk(4))
	t.ln("/sys/block/loop0", "../devices/virtual/block/nowhere")
}
