package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

// Launch knobs: what the service's launch gets besides JVM options. Limits
// and the CPU binding are set on the start command's shell while it holds
// itself stopped (`kill -STOP $$` is the command's first word), so every
// process it starts inherits them before any thread runs; they are read
// back from /proc/PID/limits and /proc/PID/status once the service answers.
// A configuration file is copied into the trial's folder and the service is
// pointed at the copy through a system property: the original is only read.

// limitResources are the process limits a limit knob may set, with their
// line in /proc/PID/limits.
var limitResources = map[string]struct {
	res   int
	label string
}{
	"nofile":  {unix.RLIMIT_NOFILE, "Max open files"},
	"nproc":   {unix.RLIMIT_NPROC, "Max processes"},
	"memlock": {unix.RLIMIT_MEMLOCK, "Max locked memory"},
	"core":    {unix.RLIMIT_CORE, "Max core file size"},
	"stack":   {unix.RLIMIT_STACK, "Max stack size"},
}

// limitNames lists the resources for messages.
func limitNames() string {
	var n []string
	for k := range limitResources {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// parseLimit reads "N" (soft and hard), "SOFT:HARD", "unlimited" (or
// "infinity", "-1") as units.ParseRlimit does.
func parseLimit(v string) (unix.Rlimit, error) {
	soft, hard, err := units.ParseRlimit(v)
	switch {
	case errors.Is(err, units.ErrSoftAboveHard):
		return unix.Rlimit{}, bad("%q: the soft limit is above the hard one", "%q：软限制高于硬限制", v)
	case err != nil:
		return unix.Rlimit{}, bad("%q is not a limit (a number, unlimited, or SOFT:HARD)", "%q 不是限制值（数字、unlimited，或 SOFT:HARD）", v)
	}
	return unix.Rlimit{Cur: soft, Max: hard}, nil
}

// Binding is where a binding knob's value puts the service.
type Binding struct {
	Value string
	CPUs  []int // the CPU set (sorted)
	Node  int   // -1: CPUs only; else memory bound to this node too
}

// parseCPUList reads "0-3,8" into sorted CPUs with sysinfo.ParseCPUList
// (the one CPU list parser: strides and spaces too); a binding needs at
// least one CPU, and unix.CPUSet and the kernel stop far below 8192.
func parseCPUList(v string) ([]int, error) {
	cpus, err := sysinfo.ParseCPUList(v)
	if err != nil || len(cpus) == 0 || cpus[len(cpus)-1] >= 8192 {
		return nil, bad("%q is not a CPU list (e.g. 0-3,8)", "%q 不是 CPU 列表（例如 0-3,8）", v)
	}
	return cpus, nil
}

// checkBindingValue is the plan's check: "all", a CPU list, or node:N.
func checkBindingValue(v string) error {
	switch {
	case v == "all":
		return nil
	case strings.HasPrefix(v, "node:"):
		if n, err := strconv.Atoi(v[5:]); err != nil || n < 0 || n > 1023 {
			return bad("%q is not a NUMA node (node:0, node:1...)", "%q 不是 NUMA 节点（node:0、node:1……）", v)
		}
		return nil
	}
	_, err := parseCPUList(v)
	return err
}

// resolveBinding turns a binding value into CPUs on this host: "all" is the
// CPUs tuneloop itself may run on (what an unbound launch gets), node:N the
// node's CPUs (sysDir: /sys) and its memory.
func resolveBinding(v, sysDir string) (Binding, error) {
	b := Binding{Value: v, Node: -1}
	switch {
	case v == "all":
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return b, err
		}
		for c := 0; c < 8192 && len(b.CPUs) < set.Count(); c++ {
			if set.IsSet(c) {
				b.CPUs = append(b.CPUs, c)
			}
		}
		return b, nil
	case strings.HasPrefix(v, "node:"):
		b.Node, _ = strconv.Atoi(v[5:])
		raw, err := os.ReadFile(filepath.Join(sysDir, "devices/system/node", fmt.Sprintf("node%d", b.Node), "cpulist"))
		if err != nil {
			return b, bad("%s: no such NUMA node on this host (%v)", "%s：本机没有该 NUMA 节点（%v）", v, err)
		}
		if b.CPUs, err = parseCPUList(string(raw)); err != nil || len(b.CPUs) == 0 {
			return b, bad("%s: the node has no CPUs", "%s：该节点没有 CPU", v)
		}
		return b, nil
	}
	var err error
	b.CPUs, err = parseCPUList(v)
	return b, err
}

// gated reports whether the launch must stop before the service runs.
func (o Overlay) gated() bool { return len(o.Limits) > 0 || o.Binding != "" }

// gateCommand is the launch with the gate in front (and memory bound by
// numactl, the one tool that can: a memory policy is set by the process
// itself, never from outside).
func gateCommand(cmd string, b *Binding, numactl string) string {
	if b != nil && b.Node >= 0 {
		cmd = fmt.Sprintf("exec %s --membind=%d /bin/sh -c %s", shellQuote(numactl), b.Node, shellQuote(cmd))
	}
	return "kill -STOP $$; " + cmd
}

// waitStopped waits until pid is stopped by its own SIGSTOP.
func waitStopped(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return err
		}
		if st, err := sample.ParsePidStat(b); err == nil && st.State == 'T' {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the start command did not reach its gate")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// setLaunch sets the limits and the CPU binding on the stopped shell pid.
func setLaunch(pid int, limits []LimitSet, b *Binding) error {
	for _, l := range limits {
		r := limitResources[l.Resource]
		v, err := parseLimit(l.Value)
		if err != nil {
			return err
		}
		if err := unix.Prlimit(pid, r.res, &v, nil); err != nil {
			return bad("limit %s=%s could not be set on the service: %v (a hard limit above the current one needs CAP_SYS_RESOURCE; nofile above fs.nr_open never)",
				"无法为服务设置限制 %s=%s：%v（提高硬限制需要 CAP_SYS_RESOURCE；nofile 不能超过 fs.nr_open）", l.Resource, l.Value, err)
		}
	}
	if b != nil {
		var set unix.CPUSet
		for _, c := range b.CPUs {
			set.Set(c)
		}
		if err := unix.SchedSetaffinity(pid, &set); err != nil {
			return bad("binding %s (CPUs %s) could not be set: %v", "无法设置绑定 %s（CPU %s）：%v", b.Value, sysinfo.FormatCPUList(b.CPUs), err)
		}
	}
	return nil
}

// checkLaunch reads the limits and the binding back from the running
// service; each mismatch is a line.
func checkLaunch(procDir string, pid int, limits []LimitSet, b *Binding) (seen []string, bads []finding.Text) {
	if len(limits) > 0 {
		raw, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "limits"))
		if err != nil {
			return nil, []finding.Text{finding.Tf(finding.T("cannot read the service's limits back: %v", "无法读回服务的限制：%v"), err)}
		}
		got, err := procLimits(string(raw))
		if err != nil {
			return nil, []finding.Text{finding.Tf(finding.T("cannot read the service's limits back: /proc/%d/limits: %v", "无法读回服务的限制：/proc/%d/limits：%v"), pid, err)}
		}
		for _, l := range limits {
			want, _ := parseLimit(l.Value)
			w := units.FormatRlimit(want.Cur) + ":" + units.FormatRlimit(want.Max)
			g, ok := got[limitResources[l.Resource].label]
			if !ok {
				g = "(not listed)"
			}
			seen = append(seen, fmt.Sprintf("%s %s", l.Resource, g))
			switch {
			case g == w:
			case l.Resource == "nofile" && raisedSoft(g, want):
				// HotSpot (-XX:+MaxFDLimit, on by default) and Go raise
				// their soft nofile to (about) the hard limit at start.
				bads = append(bads, finding.Tf(finding.T("limit nofile=%s: pid %d raised its soft limit toward the hard one itself (%s; a JVM does so unless -XX:-MaxFDLimit): give soft = hard",
					"限制 nofile=%s：pid %d 自行把软限制提高到接近硬限制（%s；JVM 默认如此，除非 -XX:-MaxFDLimit）：请让软限制等于硬限制"), l.Value, pid, g))
			default:
				bads = append(bads, finding.Tf(finding.T("limit %s=%s did not take effect: pid %d runs with %s (/proc/%d/limits)",
					"限制 %s=%s 未生效：pid %d 实际为 %s（/proc/%d/limits）"), l.Resource, l.Value, pid, g, pid))
			}
		}
	}
	if b != nil {
		raw, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "status"))
		if err != nil {
			return seen, append(bads, finding.Tf(finding.T("cannot read the service's CPU binding back: %v", "无法读回服务的 CPU 绑定：%v"), err))
		}
		var st sample.ProcStatus // a list absent or malformed reads as "" and fails below
		st.Parse(raw, sample.FieldCpusAllowedList|sample.FieldMemsAllowedList)
		cpus, mems := st.CPUsAllowedList, st.MemsAllowedList
		seen = append(seen, "Cpus_allowed_list "+cpus, "Mems_allowed_list "+mems)
		if got, err := parseCPUList(cpus); err != nil || sysinfo.FormatCPUList(got) != sysinfo.FormatCPUList(b.CPUs) {
			bads = append(bads, finding.Tf(finding.T("binding %s did not take effect: pid %d may run on CPUs %s, want %s (/proc/%d/status)",
				"绑定 %s 未生效：pid %d 可运行于 CPU %s，应为 %s（/proc/%d/status）"), b.Value, pid, cpus, sysinfo.FormatCPUList(b.CPUs), pid))
		}
		if b.Node >= 0 {
			// numactl --membind sets the memory policy, shown per mapping
			// in numa_maps (Mems_allowed_list is the cpuset's, unchanged).
			nm, _ := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "numa_maps"))
			if want := fmt.Sprintf("bind:%d", b.Node); !strings.Contains(string(nm), want) {
				bads = append(bads, finding.Tf(finding.T("binding %s: the service's memory is not bound to node %d (no %s in /proc/%d/numa_maps)",
					"绑定 %s：服务的内存未绑定到节点 %d（/proc/%d/numa_maps 中没有 %s）"), b.Value, b.Node, want, pid))
			}
		}
	}
	return seen, bads
}

// raisedSoft: got ("soft:hard") has the hard limit asked and a soft one
// raised above the one asked, up to the hard one.
func raisedSoft(got string, want unix.Rlimit) bool {
	soft, hard, _ := strings.Cut(got, ":")
	s, err := strconv.ParseUint(soft, 10, 64)
	return err == nil && hard == units.FormatRlimit(want.Max) && s > want.Cur && s <= want.Max
}

// procLimits reads /proc/PID/limits (sample.ParseLimits) into label ->
// "soft:hard" written as FormatRlimit writes what was asked.
func procLimits(s string) (map[string]string, error) {
	lim, err := sample.ParseLimits([]byte(s))
	if err != nil {
		return nil, err
	}
	text := func(v int64) string {
		if v == sample.Unlimited {
			return units.FormatRlimit(units.RlimInfinity)
		}
		return units.FormatRlimit(uint64(v))
	}
	m := make(map[string]string, len(lim))
	for name, l := range lim {
		m[name] = text(l.Soft) + ":" + text(l.Hard)
	}
	return m, nil
}

// ConfigCopy is a configuration file as a trial used it.
type ConfigCopy struct {
	Prop, Src, Copy, Hash string
}

// fileHash is a file's SHA-256.
func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyConfigs copies each candidate file into dir (the trial's) and
// returns the copies with the originals' hashes.
func copyConfigs(cfgs []ConfigFile, dir string) ([]ConfigCopy, error) {
	var out []ConfigCopy
	for _, c := range cfgs {
		if strings.ContainsAny(dir, " \t'\"\\") {
			return nil, bad("the trial folder %q holds a blank or a quote: a JAVA_TOOL_OPTIONS path cannot", "试验目录 %q 含空白或引号：无法放入 JAVA_TOOL_OPTIONS 路径", dir)
		}
		sum, err := fileHash(c.Src)
		if err != nil {
			return nil, bad("config file %s: %v", "配置文件 %s：%v", c.Src, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, c.Knob+"-"+filepath.Base(c.Src))
		b, err := os.ReadFile(c.Src)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return nil, err
		}
		out = append(out, ConfigCopy{Prop: c.Prop, Src: c.Src, Copy: dst, Hash: sum})
	}
	return out, nil
}

// checkOriginals: every original is byte for byte as before the trial.
func checkOriginals(cs []ConfigCopy) error {
	for _, c := range cs {
		if sum, err := fileHash(c.Src); err != nil || sum != c.Hash {
			return bad("config file %s changed during the trial (sha256 %.12s before; tuneloop only read it): someone else edited it",
				"配置文件 %s 在试验期间被修改（之前 sha256 %.12s；tuneloop 只读取它）：有其他人编辑了它", c.Src, c.Hash)
		}
	}
	return nil
}

// findNumactl is numactl's path, "" when it is not installed.
func findNumactl() string {
	p, err := exec.LookPath("numactl")
	if err != nil {
		return ""
	}
	return p
}

// openGate waits for the launch to stop at its gate, sets what the arm
// asks on it and lets it go on.
func openGate(pid int, limits []LimitSet, b *Binding) error {
	if err := waitStopped(pid, 10*time.Second); err != nil {
		return err
	}
	if err := setLaunch(pid, limits, b); err != nil {
		return err
	}
	return unix.Kill(pid, unix.SIGCONT)
}
