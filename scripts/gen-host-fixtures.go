//go:build ignore

// gen-host-fixtures writes the constructed host trees under testdata/hosts
// (kunpeng920-2s4n, centos7-3.10-cgv1, container-quota, empty, garbage).
// The trees are not captures: every value is chosen from public facts about
// the platform (see testdata/hosts/README.md, one section per tree) and the
// generator is deterministic, so re-running it gives byte-identical trees.
//
//	go run scripts/gen-host-fixtures.go            # all constructed trees
//	go run scripts/gen-host-fixtures.go -only kunpeng920-2s4n
//
// build-vm-amd64 is a real capture (scripts/capture-host.sh) and is only
// read here: the garbage tree reuses its file names.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

var outDir = flag.String("out", "testdata/hosts", "directory holding the host trees")

func main() {
	only := flag.String("only", "", "generate just this tree")
	flag.Parse()
	gens := []struct {
		name string
		fn   func(*tree)
	}{
		{"kunpeng920-2s4n", kunpeng},
		{"centos7-3.10-cgv1", centos7},
		{"container-quota", container},
		{"empty", empty},
		{"garbage", garbage},
	}
	for _, g := range gens {
		if *only != "" && *only != g.name {
			continue
		}
		t := &tree{root: filepath.Join(*outDir, g.name)}
		if err := os.RemoveAll(t.root); err != nil {
			log.Fatal(err)
		}
		g.fn(t)
		log.Printf("%s: %d files, %d symlinks", g.name, t.files, t.links)
	}
}

// ---- tree writing -------------------------------------------------------

type tree struct {
	root         string
	files, links int
}

// w writes content at host path p ("/proc/cpuinfo").
func (t *tree) w(p, content string) {
	full := filepath.Join(t.root, filepath.FromSlash(p))
	must(os.MkdirAll(filepath.Dir(full), 0o755))
	must(os.WriteFile(full, []byte(content), 0o644))
	t.files++
}

// wl writes a one-line file (content plus "\n"), as sysfs attributes read.
func (t *tree) wl(p string, v any) { t.w(p, fmt.Sprint(v)+"\n") }

// ln makes host path p a symlink with target text target.
func (t *tree) ln(p, target string) {
	full := filepath.Join(t.root, filepath.FromSlash(p))
	must(os.MkdirAll(filepath.Dir(full), 0o755))
	must(os.Symlink(target, full))
	t.links++
}

func (t *tree) mkdir(p string) {
	must(os.MkdirAll(filepath.Join(t.root, filepath.FromSlash(p)), 0o755))
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// ---- formats -------------------------------------------------------------

// cpuList formats CPUs as the kernel's %*pbl: "0-31,64-95".
func cpuList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		} else {
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}

// cpuMask formats CPUs as the kernel's %*pb for nbits CPUs: 32-bit hex
// groups, most significant first, the first group only as wide as needed.
func cpuMask(cpus []int, nbits int) string {
	words := (nbits + 31) / 32
	v := make([]uint32, words)
	for _, c := range cpus {
		v[c/32] |= 1 << (c % 32)
	}
	var parts []string
	for i := words - 1; i >= 0; i-- {
		width := 8
		if i == words-1 && nbits%32 != 0 {
			width = (nbits%32 + 3) / 4
		}
		parts = append(parts, fmt.Sprintf("%0*x", width, v[i]))
	}
	return strings.Join(parts, ",")
}

func span(lo, hi int) []int {
	var r []int
	for i := lo; i <= hi; i++ {
		r = append(r, i)
	}
	return r
}

func tabs(v ...any) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, "\t")
}

type memSpec struct {
	totalKB, freeKB, availKB, buffersKB, cachedKB                            int64
	swapTotalKB, swapFreeKB, anonHugeKB, hugePagesTotal, hugePageKB, shmemKB int64
}

func meminfo(m memSpec) string {
	anon := m.totalKB - m.freeKB - m.buffersKB - m.cachedKB - m.totalKB/50
	rows := []struct {
		k string
		v int64
	}{
		{"MemTotal", m.totalKB}, {"MemFree", m.freeKB}, {"MemAvailable", m.availKB},
		{"Buffers", m.buffersKB}, {"Cached", m.cachedKB}, {"SwapCached", (m.swapTotalKB - m.swapFreeKB) / 20},
		{"Active", anon*7/10 + m.cachedKB/2}, {"Inactive", anon*3/10 + m.cachedKB/2},
		{"Active(anon)", anon * 7 / 10}, {"Inactive(anon)", anon * 3 / 10},
		{"Active(file)", m.cachedKB / 2}, {"Inactive(file)", m.cachedKB / 2},
		{"Unevictable", 0}, {"Mlocked", 0},
		{"SwapTotal", m.swapTotalKB}, {"SwapFree", m.swapFreeKB},
		{"Dirty", 1244}, {"Writeback", 0}, {"AnonPages", anon}, {"Mapped", m.cachedKB / 10},
		{"Shmem", m.shmemKB}, {"KReclaimable", m.totalKB / 100}, {"Slab", m.totalKB / 60},
		{"SReclaimable", m.totalKB / 100}, {"SUnreclaim", m.totalKB / 150},
		{"KernelStack", 38912}, {"PageTables", anon / 300}, {"NFS_Unstable", 0}, {"Bounce", 0},
		{"WritebackTmp", 0}, {"CommitLimit", m.totalKB/2 + m.swapTotalKB}, {"Committed_AS", anon * 3 / 2},
		{"VmallocTotal", 133143592960}, {"VmallocUsed", 412004}, {"VmallocChunk", 0},
		{"Percpu", 98304}, {"HardwareCorrupted", 0}, {"AnonHugePages", m.anonHugeKB},
		{"ShmemHugePages", 0}, {"ShmemPmdMapped", 0}, {"FileHugePages", 0}, {"FilePmdMapped", 0},
		{"HugePages_Total", m.hugePagesTotal}, {"HugePages_Free", m.hugePagesTotal},
		{"HugePages_Rsvd", 0}, {"HugePages_Surp", 0}, {"Hugepagesize", m.hugePageKB},
		{"Hugetlb", m.hugePagesTotal * m.hugePageKB},
	}
	var b strings.Builder
	for _, r := range rows {
		if strings.HasPrefix(r.k, "HugePages_") {
			fmt.Fprintf(&b, "%-15s %8d\n", r.k+":", r.v)
		} else {
			fmt.Fprintf(&b, "%-15s %8d kB\n", r.k+":", r.v)
		}
	}
	return b.String()
}

func nodeMeminfo(id int, totalKB, freeKB int64) string {
	used := totalKB - freeKB
	rows := []struct {
		k string
		v int64
	}{
		{"MemTotal", totalKB}, {"MemFree", freeKB}, {"MemUsed", used}, {"SwapCached", 0},
		{"Active", used / 2}, {"Inactive", used / 3}, {"Active(anon)", used / 3}, {"Inactive(anon)", used / 8},
		{"Active(file)", used / 6}, {"Inactive(file)", used / 5}, {"Unevictable", 0}, {"Mlocked", 0},
		{"Dirty", 12}, {"Writeback", 0}, {"FilePages", used / 3}, {"Mapped", used / 40},
		{"AnonPages", used / 2}, {"Shmem", 2048}, {"KernelStack", 9000}, {"PageTables", used / 400},
		{"NFS_Unstable", 0}, {"Bounce", 0}, {"WritebackTmp", 0}, {"KReclaimable", used / 50},
		{"Slab", used / 30}, {"SReclaimable", used / 50}, {"SUnreclaim", used / 80},
		{"AnonHugePages", used / 4}, {"ShmemHugePages", 0}, {"ShmemPmdMapped", 0},
		{"FileHugePages", 0}, {"FilePmdMapped", 0},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "Node %d %-15s %8d kB\n", id, r.k+":", r.v)
	}
	for _, k := range []string{"HugePages_Total", "HugePages_Free", "HugePages_Surp"} {
		fmt.Fprintf(&b, "Node %d %-15s %5d\n", id, k+":", 0)
	}
	return b.String()
}

// procStat writes a /proc/stat with per-CPU lines; stealPct of all time.
func procStat(ncpu int, stealPct float64) string {
	var b strings.Builder
	per := func(i int) [10]int64 {
		base := int64(1_000_000 + 1_000*i)
		user, sys, idle := base*22/100, base*6/100, base*68/100
		steal := int64(float64(base) * stealPct / 100)
		idle -= steal
		return [10]int64{user, 1200, sys, idle, base / 100, 0, base / 50, steal, 0, 0}
	}
	var tot [10]int64
	for i := 0; i < ncpu; i++ {
		v := per(i)
		for j := range tot {
			tot[j] += v[j]
		}
	}
	line := func(name string, v [10]int64) {
		b.WriteString(name)
		for _, x := range v {
			fmt.Fprintf(&b, " %d", x)
		}
		b.WriteByte('\n')
	}
	line("cpu ", tot)
	for i := 0; i < ncpu; i++ {
		line(fmt.Sprintf("cpu%d", i), per(i))
	}
	b.WriteString("intr 1894412337 0 0 0\nctxt 3922147741\nbtime 1763600000\nprocesses 1289931\nprocs_running 3\nprocs_blocked 0\nsoftirq 988123456 0 301234567 1234 98765432 0 0 4567890 387654321 0 195432100\n")
	return b.String()
}

// softnet writes /proc/net/softnet_stat: one row per CPU of ncols hex
// columns; v gives processed, dropped and time_squeeze of a CPU. Kernels
// 5.10+ print 13 columns (the last two: backlog length, CPU id).
func softnet(ncpu, ncols int, v func(cpu int) [3]uint64) string {
	var b strings.Builder
	for c := 0; c < ncpu; c++ {
		x := v(c)
		row := make([]string, ncols)
		for i := range row {
			var n uint64
			switch {
			case i < 3:
				n = x[i]
			case i == 12:
				n = uint64(c)
			}
			row[i] = fmt.Sprintf("%08x", uint32(n))
		}
		b.WriteString(strings.Join(row, " ") + "\n")
	}
	return b.String()
}

func limits(nofileSoft, nofileHard, nproc string) string {
	rows := [][4]string{
		{"Limit", "Soft Limit", "Hard Limit", "Units"},
		{"Max cpu time", "unlimited", "unlimited", "seconds"},
		{"Max file size", "unlimited", "unlimited", "bytes"},
		{"Max data size", "unlimited", "unlimited", "bytes"},
		{"Max stack size", "8388608", "unlimited", "bytes"},
		{"Max core file size", "0", "unlimited", "bytes"},
		{"Max resident set", "unlimited", "unlimited", "bytes"},
		{"Max processes", nproc, nproc, "processes"},
		{"Max open files", nofileSoft, nofileHard, "files"},
		{"Max locked memory", "65536", "65536", "bytes"},
		{"Max address space", "unlimited", "unlimited", "bytes"},
		{"Max file locks", "unlimited", "unlimited", "locks"},
		{"Max pending signals", nproc, nproc, "signals"},
		{"Max msgqueue size", "819200", "819200", "bytes"},
		{"Max nice priority", "0", "0", ""},
		{"Max realtime priority", "0", "0", ""},
		{"Max realtime timeout", "unlimited", "unlimited", "us"},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", r[0], r[1], r[2], r[3])
	}
	return b.String()
}

type procSpec struct {
	pid, ppid, uid int
	threads        int
	rssKB, vmKB    int64
	ncpu           int // for the Cpus_allowed mask width
	cpus, mems     []int
	nodes          int
	comm           string
}

func status(p procSpec) string {
	comm := p.comm
	if comm == "" {
		comm = "java"
	}
	u := strconv.Itoa(p.uid)
	return strings.Join([]string{
		"Name:\t" + comm, "Umask:\t0022", "State:\tS (sleeping)",
		fmt.Sprintf("Tgid:\t%d", p.pid), "Ngid:\t0", fmt.Sprintf("Pid:\t%d", p.pid),
		fmt.Sprintf("PPid:\t%d", p.ppid), "TracerPid:\t0",
		"Uid:\t" + tabs(u, u, u, u), "Gid:\t" + tabs(u, u, u, u), "FDSize:\t512", "Groups:\t" + u + " ",
		fmt.Sprintf("NStgid:\t%d", p.pid), fmt.Sprintf("NSpid:\t%d", p.pid),
		fmt.Sprintf("NSpgid:\t%d", p.pid), fmt.Sprintf("NSsid:\t%d", p.pid),
		fmt.Sprintf("VmPeak:\t%8d kB", p.vmKB+65536), fmt.Sprintf("VmSize:\t%8d kB", p.vmKB),
		"VmLck:\t       0 kB", "VmPin:\t       0 kB",
		fmt.Sprintf("VmHWM:\t%8d kB", p.rssKB+1024), fmt.Sprintf("VmRSS:\t%8d kB", p.rssKB),
		fmt.Sprintf("RssAnon:\t%8d kB", p.rssKB-23000), "RssFile:\t   22488 kB", "RssShmem:\t     512 kB",
		fmt.Sprintf("VmData:\t%8d kB", p.vmKB-300000), "VmStk:\t     132 kB", "VmExe:\t       4 kB",
		"VmLib:\t   19880 kB", fmt.Sprintf("VmPTE:\t%8d kB", p.rssKB/500+100), "VmSwap:\t       0 kB",
		"HugetlbPages:\t       0 kB", "CoreDumping:\t0", "THP_enabled:\t1",
		fmt.Sprintf("Threads:\t%d", p.threads), "SigQ:\t0/1546171",
		"SigPnd:\t0000000000000000", "ShdPnd:\t0000000000000000", "SigBlk:\t0000000000000000",
		"SigIgn:\t0000000000000003", "SigCgt:\t2000000181005ccc",
		"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapBnd:\t000001ffffffffff", "CapAmb:\t0000000000000000", "NoNewPrivs:\t0", "Seccomp:\t0",
		"Speculation_Store_Bypass:\tthread vulnerable",
		"Cpus_allowed:\t" + cpuMask(p.cpus, p.ncpu), "Cpus_allowed_list:\t" + cpuList(p.cpus),
		"Mems_allowed:\t" + cpuMask(p.mems, 64), "Mems_allowed_list:\t" + cpuList(p.mems),
		"voluntary_ctxt_switches:\t1834", "nonvoluntary_ctxt_switches:\t97",
	}, "\n") + "\n"
}

// jvm writes /proc/PID/{cmdline,comm,status,limits,cgroup,exe,fd/*}.
func (t *tree) jvm(p procSpec, exe string, args []string, lim, cgroup string, fds []string) {
	d := fmt.Sprintf("/proc/%d/", p.pid)
	t.w(d+"cmdline", strings.Join(args, "\x00")+"\x00")
	t.wl(d+"comm", "java")
	t.w(d+"status", status(p))
	t.w(d+"limits", lim)
	t.w(d+"cgroup", cgroup)
	t.ln(d+"exe", exe)
	for i, f := range fds {
		t.ln(d+"fd/"+strconv.Itoa(i), f)
	}
}

func (t *tree) daemon(pid int, comm string) { t.wl(fmt.Sprintf("/proc/%d/comm", pid), comm) }

func (t *tree) sysctls(m map[string]string) {
	for k, v := range m {
		t.wl("/proc/sys/"+strings.ReplaceAll(k, ".", "/"), v)
	}
}

// irqRow is one /proc/interrupts line.
type irqRow struct {
	irq    string // "107" or "NMI"
	counts []uint64
	tail   string // chip, hwirq, trigger and name, as the kernel prints them
}

func interrupts(ncpu int, rows []irqRow) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", 11))
	for c := 0; c < ncpu; c++ {
		fmt.Fprintf(&b, "CPU%-8d", c)
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%3s: ", r.irq)
		for _, c := range r.counts {
			fmt.Fprintf(&b, "%10d ", c)
		}
		b.WriteString(strings.TrimPrefix(r.tail, " "))
		b.WriteString("\n")
	}
	return b.String()
}

// counts spreads total over CPUs: each CPU gets total*weight(cpu)/sum.
func counts(ncpu int, weight func(cpu int) uint64) []uint64 {
	r := make([]uint64, ncpu)
	for i := range r {
		r[i] = weight(i)
	}
	return r
}

func (t *tree) cpuTopology(ncpu int, pkg, core func(cpu int) int, siblings func(cpu int) []int) {
	for c := 0; c < ncpu; c++ {
		d := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/", c)
		t.wl(d+"physical_package_id", pkg(c))
		t.wl(d+"core_id", core(c))
		t.wl(d+"thread_siblings_list", cpuList(siblings(c)))
	}
}

// cpufreq writes per-CPU policies (policyN) with cpuN/cpufreq links to them.
func (t *tree) cpufreq(ncpu int, driver, avail string, gov func(cpu int) string, epp string) {
	for c := 0; c < ncpu; c++ {
		d := fmt.Sprintf("/sys/devices/system/cpu/cpufreq/policy%d/", c)
		t.wl(d+"scaling_driver", driver)
		t.wl(d+"scaling_governor", gov(c))
		t.wl(d+"scaling_available_governors", avail)
		if epp != "" {
			t.wl(d+"energy_performance_preference", epp)
		}
		t.ln(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq", c), fmt.Sprintf("../cpufreq/policy%d", c))
	}
}

func (t *tree) idleStates(states [][3]string) {
	for i, s := range states {
		d := fmt.Sprintf("/sys/devices/system/cpu/cpu0/cpuidle/state%d/", i)
		t.wl(d+"name", s[0])
		t.wl(d+"latency", s[1])
		t.wl(d+"disable", s[2])
	}
}

func (t *tree) vulns(m map[string]string) {
	for k, v := range m {
		t.wl("/sys/devices/system/cpu/vulnerabilities/"+k, v)
	}
}

type nicSpec struct {
	name, devPath, pci, driverLink string // devPath: /sys/devices/... of the PCI function
	speed, mtu, numa, rxq, txq     int
	ncpu                           int
	msi                            []int
	rpsCPUs                        []int
	operstate                      string
}

func (t *tree) nic(n nicSpec) {
	netDir := n.devPath + "/net/" + n.name
	rel, err := filepath.Rel("/sys/class/net", netDir)
	must(err)
	t.ln("/sys/class/net/"+n.name, rel)
	t.wl(netDir+"/operstate", n.operstate)
	t.wl(netDir+"/speed", n.speed)
	t.wl(netDir+"/mtu", n.mtu)
	t.wl(netDir+"/type", 1)
	t.wl(netDir+"/flags", "0x1003")
	t.ln(netDir+"/device", "../../../"+n.pci)
	rel, err = filepath.Rel(n.devPath, n.driverLink)
	must(err)
	t.ln(n.devPath+"/driver", rel)
	t.wl(n.devPath+"/numa_node", n.numa)
	for _, irq := range n.msi {
		t.wl(fmt.Sprintf("%s/msi_irqs/%d", n.devPath, irq), "msix")
	}
	for q := 0; q < n.rxq; q++ {
		t.wl(fmt.Sprintf("%s/queues/rx-%d/rps_cpus", netDir, q), cpuMask(n.rpsCPUs, n.ncpu))
		t.wl(fmt.Sprintf("%s/queues/rx-%d/rps_flow_cnt", netDir, q), 0)
	}
	for q := 0; q < n.txq; q++ {
		t.wl(fmt.Sprintf("%s/queues/tx-%d/xps_cpus", netDir, q), cpuMask(nil, n.ncpu))
		t.wl(fmt.Sprintf("%s/queues/tx-%d/tx_timeout", netDir, q), 0)
	}
}

func (t *tree) loopback(ncpu int) {
	d := "/sys/devices/virtual/net/lo"
	t.ln("/sys/class/net/lo", "../../devices/virtual/net/lo")
	t.wl(d+"/operstate", "unknown")
	t.wl(d+"/mtu", 65536)
	t.wl(d+"/type", 772)
	t.wl(d+"/flags", "0x9")
	t.wl(d+"/queues/rx-0/rps_cpus", cpuMask(nil, ncpu))
	t.wl(d+"/queues/rx-0/rps_flow_cnt", 0)
	t.wl(d+"/queues/tx-0/tx_timeout", 0)
}

type diskSpec struct {
	name, blockDir   string // blockDir: real /sys/devices/.../block/NAME
	deviceLink       string // target text of NAME/device ("" for none)
	deviceDir        string // where device points, for its files and links
	subsystem        string // absolute /sys path the subsystem link names
	driver           string // absolute /sys path of the driver
	sched            string
	rotational       int
	readAhead, nrReq int
	sizeSectors      int64
	model            string
	queueDepth, numa int // queueDepth 0: file absent; numa -2: file absent
}

func (t *tree) disk(d diskSpec) {
	rel, err := filepath.Rel("/sys/block", d.blockDir)
	must(err)
	t.ln("/sys/block/"+d.name, rel)
	t.wl(d.blockDir+"/size", d.sizeSectors)
	t.wl(d.blockDir+"/queue/rotational", d.rotational)
	t.wl(d.blockDir+"/queue/scheduler", d.sched)
	t.wl(d.blockDir+"/queue/read_ahead_kb", d.readAhead)
	t.wl(d.blockDir+"/queue/nr_requests", d.nrReq)
	if d.deviceLink == "" {
		return
	}
	t.ln(d.blockDir+"/device", d.deviceLink)
	if d.subsystem != "" {
		rel, err = filepath.Rel(d.deviceDir, d.subsystem)
		must(err)
		t.ln(d.deviceDir+"/subsystem", rel)
	}
	if d.driver != "" {
		rel, err = filepath.Rel(d.deviceDir, d.driver)
		must(err)
		t.ln(d.deviceDir+"/driver", rel)
	}
	if d.model != "" {
		t.wl(d.deviceDir+"/model", d.model)
	}
	if d.queueDepth > 0 {
		t.wl(d.deviceDir+"/queue_depth", d.queueDepth)
	}
	if d.numa != -2 {
		t.wl(d.deviceDir+"/numa_node", d.numa)
	}
}

func (t *tree) numaNodes(cpus [][]int, memKB []int64, freeKB []int64, dist [][]int) {
	for i := range cpus {
		d := fmt.Sprintf("/sys/devices/system/node/node%d/", i)
		t.wl(d+"cpulist", cpuList(cpus[i]))
		t.w(d+"meminfo", nodeMeminfo(i, memKB[i], freeKB[i]))
		ds := make([]string, len(dist[i]))
		for j, x := range dist[i] {
			ds[j] = strconv.Itoa(x)
		}
		t.wl(d+"distance", strings.Join(ds, " "))
	}
}

// ---- kunpeng920-2s4n -----------------------------------------------------

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
