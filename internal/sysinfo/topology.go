package sysinfo

// Per-CPU topology, one small file each:
//
//	/sys/devices/system/cpu/online:                           0-95
//	/sys/devices/system/cpu/cpu0/topology/physical_package_id: 0
//	/sys/devices/system/cpu/cpu0/topology/core_id:             0
//	/sys/devices/system/cpu/cpu0/topology/thread_siblings_list: 0,48
//	/sys/devices/system/cpu/smt/active:                        1

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// cpuTopo is one CPU's topology files.
type cpuTopo struct {
	pkg, core int
	siblings  int // CPUs in thread_siblings_list
}

// topoSummary is what Facts reports from all CPUs.
type topoSummary struct{ sockets, cores, threadsPerCore int }

// summarizeTopology counts distinct packages and (package, core) pairs;
// threads per core is the largest sibling group.
func summarizeTopology(cpus map[int]cpuTopo) (topoSummary, error) {
	if len(cpus) == 0 {
		return topoSummary{}, finding.Errorf(finding.T("no CPU topology", "没有 CPU 拓扑"))
	}
	pkgs := map[int]bool{}
	cores := map[[2]int]bool{}
	tpc := 0
	for _, t := range cpus {
		pkgs[t.pkg] = true
		cores[[2]int{t.pkg, t.core}] = true
		tpc = max(tpc, t.siblings)
	}
	return topoSummary{sockets: len(pkgs), cores: len(cores), threadsPerCore: tpc}, nil
}

// parseInt parses a one-integer pseudo-file ("-1" allowed).
func parseInt(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, finding.Errorf(finding.T("not an integer: %q", "不是整数：%q"), finding.Clip(s, 40))
	}
	return v, nil
}

// parseBool01 parses a "0"/"1" pseudo-file.
func parseBool01(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, finding.Errorf(finding.T("want 0 or 1, got %q", "应为 0 或 1，实际为 %q"), finding.Clip(s, 40))
}

// cpuDirs lists cpuN directory numbers under /sys/devices/system/cpu.
func cpuDirs(h hostfs.FS) ([]int, error) {
	names, err := h.ReadDir(h.SysPath("devices/system/cpu"))
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, "cpu"); ok {
			if id, err := strconv.Atoi(rest); err == nil && id >= 0 {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

func collectTopology(h hostfs.FS, c *CPU) {
	c.Online = readField(h, h.SysPath("devices/system/cpu/online"), parseCPUListNonEmpty)
	c.SMTActive = readField(h, h.SysPath("devices/system/cpu/smt/active"), parseBool01)

	ids, err := cpuDirs(h)
	topos := map[int]cpuTopo{}
	var firstErr error
	for _, id := range ids {
		dir := h.SysPath("devices/system/cpu", "cpu"+strconv.Itoa(id), "topology")
		pkg := readField(h, dir+"/physical_package_id", parseInt)
		core := readField(h, dir+"/core_id", parseInt)
		sib := readField(h, dir+"/thread_siblings_list", parseCPUListNonEmpty)
		if !pkg.OK || !core.OK || !sib.OK {
			// Offline CPUs have no topology dir; a bad file loses that CPU.
			for _, f := range []error{pkg.AsErr(), core.AsErr(), sib.AsErr()} {
				if f != nil && firstErr == nil {
					firstErr = f
				}
			}
			continue
		}
		topos[id] = cpuTopo{pkg: pkg.Value, core: core.Value, siblings: len(sib.Value)}
	}
	if err == nil && len(topos) == 0 {
		err = firstErr
		if err == nil {
			err = finding.Errorf(finding.T("%s: no cpuN/topology", "%s: 没有 cpuN/topology"), h.Display(h.SysPath("devices/system/cpu")))
		}
	}
	if err != nil {
		c.Sockets, c.Cores, c.ThreadsPerCore = Missing[int](err), Missing[int](err), Missing[int](err)
		return
	}
	sum, _ := summarizeTopology(topos)
	src := "derived: " + h.Display(h.SysPath("devices/system/cpu")) + "/cpu*/topology"
	c.Sockets = Got(sum.sockets, src)
	c.Cores = Got(sum.cores, src)
	c.ThreadsPerCore = Got(sum.threadsPerCore, src)
	if !c.SMTActive.OK && sum.threadsPerCore > 0 {
		// Kernels before 4.18 (CentOS 7) have no smt/active.
		c.SMTActive = Got(sum.threadsPerCore > 1, src)
	}
}

func parseCPUListNonEmpty(s string) ([]int, error) {
	l, err := ParseCPUList(s)
	if err == nil && len(l) == 0 {
		err = errEmpty
	}
	return l, err
}
