package sysinfo

// Cgroup resolution: /proc/PID/cgroup says which path each controller's
// hierarchy puts the process in; /proc/self/mountinfo says where each
// hierarchy is mounted (under the sys root, e.g. /sys/fs/cgroup/cpu). Format
// samples are in cgroup_parse.go.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// cgroupView resolves controller directories with one mount table.
type cgroupView struct {
	h      hostfs.FS
	mounts []mountInfo
}

// ctlDir is where one controller's files are for a process.
type ctlDir struct {
	dir  string // host-rooted directory to read
	top  string // mount root directory: the walk up stops here
	v2   bool
	root bool   // the hierarchy's root cgroup: no cpu.max/memory.max/pids.max there
	note string // e.g. why the mount root was used
}

// version: "v1", "v2" or "hybrid" from the mounted cgroup filesystems.
func cgroupVersion(mounts []mountInfo) (string, error) {
	v1, v2 := false, false
	for _, m := range mounts {
		switch m.FSType {
		case "cgroup2":
			v2 = true
		case "cgroup":
			for _, o := range m.SuperOpts {
				if isV1Controller(o) {
					v1 = true
				}
			}
		}
	}
	switch {
	case v1 && v2:
		return "hybrid", nil
	case v1:
		return "v1", nil
	case v2:
		return "v2", nil
	}
	return "", finding.Errorf(finding.T("no cgroup filesystem mounted", "未挂载 cgroup 文件系统"))
}

func isV1Controller(opt string) bool {
	switch opt {
	case "cpu", "cpuacct", "cpuset", "memory", "pids", "blkio", "devices", "freezer", "net_cls", "net_prio", "hugetlb", "perf_event", "rdma", "misc":
		return true
	}
	return false
}

// hostDir maps a mount point to the tree being read: /sys/... lives under
// the sys root; elsewhere (old "/cgroup" layouts) only on the live host.
func (v cgroupView) hostDir(mp string) (string, error) {
	if mp == "/sys" {
		return v.h.Sys, nil
	}
	if rest, ok := strings.CutPrefix(mp, "/sys/"); ok {
		return v.h.SysPath(rest), nil
	}
	if v.h.IsLive() {
		return mp, nil
	}
	return "", finding.Errorf(finding.T("cgroup mounted at %s, outside /sys", "cgroup 挂载在 %s，不在 /sys 下"), mp)
}

// dirFor finds ctrl's directory for a process with the given cgroup lines:
// the v1 hierarchy carrying ctrl if mounted, else the v2 hierarchy.
func (v cgroupView) dirFor(lines []sample.CgroupLine, ctrl string) (ctlDir, string, error) {
	for _, l := range lines {
		if !slices.Contains(l.Controllers, ctrl) {
			continue
		}
		for _, m := range v.mounts {
			if m.FSType == "cgroup" && slices.Contains(m.SuperOpts, ctrl) {
				d, err := v.resolve(m, l.Path, false)
				return d, l.Path, err
			}
		}
	}
	for _, l := range lines {
		if l.ID != 0 || len(l.Controllers) != 0 {
			continue
		}
		for _, m := range v.mounts {
			if m.FSType == "cgroup2" {
				d, err := v.resolve(m, l.Path, true)
				return d, l.Path, err
			}
		}
	}
	return ctlDir{}, "", finding.Errorf(finding.T("no mounted cgroup hierarchy has the %s controller", "已挂载的 cgroup 层级中没有 %s 控制器"), ctrl)
}

func (v cgroupView) resolve(m mountInfo, cgPath string, v2 bool) (ctlDir, error) {
	top, err := v.hostDir(m.MountPoint)
	if err != nil {
		return ctlDir{}, err
	}
	rel := cgPath
	if m.Root != "/" {
		if r, ok := strings.CutPrefix(cgPath, m.Root); ok && (r == "" || r[0] == '/') {
			rel = r
		}
	}
	rel = path.Clean("/" + rel)
	d := ctlDir{dir: top + rel, top: top, v2: v2}
	if rel == "/" {
		d.dir, d.root = top, true
		return d, nil
	}
	if !v.h.Exists(d.dir) {
		// In a cgroup namespace (containers) the path is relative to a root
		// we cannot see; the namespace's root is what is mounted.
		d.note = fmt.Sprintf("path %s not under the mount (cgroup namespace); read at mount root", cgPath)
		d.dir = top
	}
	return d, nil
}

// read reads the first of names present in d.dir or, walking up, in an
// ancestor up to the mount root (a nested cgroup without the controller
// enabled inherits its parent's limit). Returns content and the file read.
func (v cgroupView) read(d ctlDir, names ...string) (string, string, error) {
	var firstErr error
	for dir := d.dir; ; dir = path.Dir(dir) {
		for _, n := range names {
			p := dir + "/" + n
			s, err := v.h.ReadString(p)
			if err == nil {
				return s, p, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if dir == d.top || len(dir) <= len(d.top) || dir == "/" || dir == "." {
			break
		}
	}
	return "", "", firstErr
}

// cite is a Field source: the file and any resolution note.
func (v cgroupView) cite(p string, d ctlDir) string {
	if d.note != "" {
		return v.h.Display(p) + " (" + d.note + ")"
	}
	return v.h.Display(p)
}

// isRoot reports that d is the hierarchy's root cgroup, which has no
// cpu.max, memory.max or pids.max: no limit there by definition.
func (d ctlDir) isRoot() bool { return d.root }

func (v cgroupView) cpuQuota(lines []sample.CgroupLine) (Field[float64], Field[int64]) {
	d, _, err := v.dirFor(lines, "cpu")
	if err != nil {
		return Missing[float64](err), Missing[int64](err)
	}
	if d.v2 {
		s, p, err := v.read(d, "cpu.max")
		if err != nil {
			if d.isRoot() {
				src := "derived: " + v.h.Display(d.dir) + " is the root cgroup (no cpu.max)"
				return Got(0.0, src), Missing[int64](err)
			}
			return Missing[float64](err), Missing[int64](err)
		}
		q, per, err := parseCPUMax(s)
		if err != nil {
			err = fileErr(v.h, p, err)
			return Missing[float64](err), Missing[int64](err)
		}
		return Got(q, v.cite(p, d)), Got(per, v.cite(p, d))
	}
	qs, qp, err := v.read(d, "cpu.cfs_quota_us")
	if err != nil {
		return Missing[float64](err), Missing[int64](err)
	}
	ps, pp, err := v.read(d, "cpu.cfs_period_us")
	if err != nil {
		return Missing[float64](err), Missing[int64](err)
	}
	q, per, err := cfsQuota(qs, ps)
	if err != nil {
		err = fileErr(v.h, qp, err)
		return Missing[float64](err), Missing[int64](err)
	}
	return Got(q, v.cite(qp, d)), Got(per, v.cite(pp, d))
}

func (v cgroupView) memoryLimit(lines []sample.CgroupLine) Field[int64] {
	d, _, err := v.dirFor(lines, "memory")
	if err != nil {
		return Missing[int64](err)
	}
	name := "memory.limit_in_bytes"
	if d.v2 {
		name = "memory.max"
	}
	s, p, err := v.read(d, name)
	if err != nil {
		if d.isRoot() {
			return Got(int64(0), "derived: "+v.h.Display(d.dir)+" is the root cgroup (no memory.max)")
		}
		return Missing[int64](err)
	}
	lim, err := parseLimitBytes(s)
	if err != nil {
		return Missing[int64](fileErr(v.h, p, err))
	}
	return Got(lim, v.cite(p, d))
}

func collectCgroup(h hostfs.FS) Cgroup {
	var c Cgroup
	selfP := h.ProcPath("self/cgroup")
	lines := readField(h, selfP, parseProcCgroup)
	mounts := readField(h, h.ProcPath("self/mountinfo"), parseMountinfo)
	fail := func(e error) Cgroup {
		return Cgroup{Version: Missing[string](e), Path: Missing[string](e), CPUQuota: Missing[float64](e),
			CPUPeriodUS: Missing[int64](e), Throttled: Missing[CPUStat](e), CPUSet: Missing[[]int](e),
			MemoryLimit: Missing[int64](e), PidsMax: Missing[int64](e)}
	}
	if !mounts.OK {
		return fail(mounts.AsErr())
	}
	ver, err := cgroupVersion(mounts.Value)
	if err != nil {
		return fail(fileErr(h, h.ProcPath("self/mountinfo"), err))
	}
	c.Version = Got(ver, mounts.Source)
	if !lines.OK {
		f := fail(lines.AsErr())
		f.Version = c.Version
		return f
	}
	v := cgroupView{h: h, mounts: mounts.Value}

	cpuDir, cpuPath, err := v.dirFor(lines.Value, "cpu")
	if err != nil {
		c.Path, c.Throttled = Missing[string](err), Missing[CPUStat](err)
	} else {
		c.Path = Got(cpuPath, lines.Source)
		if s, p, err := v.read(ctlDir{dir: cpuDir.dir, top: cpuDir.dir, v2: cpuDir.v2, note: cpuDir.note}, "cpu.stat"); err != nil {
			c.Throttled = Missing[CPUStat](err)
		} else if st, err := parseCgroupCPUStat(s); err != nil {
			c.Throttled = Missing[CPUStat](fileErr(h, p, err))
		} else {
			c.Throttled = Got(st, v.cite(p, cpuDir))
		}
	}
	c.CPUQuota, c.CPUPeriodUS = v.cpuQuota(lines.Value)
	c.MemoryLimit = v.memoryLimit(lines.Value)

	if d, _, err := v.dirFor(lines.Value, "cpuset"); err != nil {
		c.CPUSet = Missing[[]int](err)
	} else if s, p, err := v.read(d, "cpuset.cpus.effective", "cpuset.effective_cpus", "cpuset.cpus"); err != nil {
		c.CPUSet = Missing[[]int](err)
	} else if l, err := parseCPUListNonEmpty(s); err != nil {
		c.CPUSet = Missing[[]int](fileErr(h, p, err))
	} else {
		c.CPUSet = Got(l, v.cite(p, d))
	}

	if d, _, err := v.dirFor(lines.Value, "pids"); err != nil {
		c.PidsMax = Missing[int64](err)
	} else if s, p, err := v.read(d, "pids.max"); err != nil {
		if d.isRoot() {
			c.PidsMax = Got(int64(0), "derived: "+h.Display(d.dir)+" is the root cgroup (no pids.max)")
		} else {
			c.PidsMax = Missing[int64](err)
		}
	} else if n, err := parseLimitBytes(s); err != nil {
		c.PidsMax = Missing[int64](fileErr(h, p, err))
	} else {
		c.PidsMax = Got(n, v.cite(p, d))
	}
	return c
}
