// gen-host-fixtures writes the constructed host trees under testdata/hosts
// (kunpeng920-2s4n, centos7-3.10-cgv1, container-quota, empty, garbage).
// The trees are not captures: every value is chosen from public facts about
// the platform (see testdata/hosts/README.md, one section per tree) and the
// generator is deterministic, so re-running it gives byte-identical trees.
//
//	go run ./scripts/gen-host-fixtures            # all constructed trees
//	go run ./scripts/gen-host-fixtures -only kunpeng920-2s4n
//
// build-vm-amd64 is a real capture (scripts/capture-host.sh) and is only
// read here: the garbage tree reuses its file names.
package main

import (
	"flag"
	"fmt"
	"log"
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
