package rules

// Small helpers shared by the rule files: bilingual text, outcome builders,
// evidence from sysinfo Fields, sysctl getters and fixes, per-JVM / per-NIC
// iteration, CPU list and mask formatting. Everything here is pure.

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

const (
	info     = finding.Info
	warning  = finding.Warning
	critical = finding.Critical
)

// sysctlPersistFile is where Persist lines point for sysctl changes.
const sysctlPersistFile = "/etc/sysctl.d/90-tuneloop.conf"

// T builds a bilingual text.
func T(en, zh string) finding.Text { return finding.T(en, zh) }

// Tf formats both languages with the same arguments (use %[n]v when the
// Chinese word order differs).
func Tf(en, zh string, args ...any) finding.Text { return finding.Tf(finding.T(en, zh), args...) }

// pass is a passing outcome with what was seen.
func pass(observed finding.Text, ev ...finding.Evidence) Outcome {
	return Outcome{Status: finding.Pass, Observed: observed, Evidence: ev}
}

// fail is a failing outcome: what was seen, what to do, how to apply and undo it.
func fail(observed, rec finding.Text, fix finding.Fix, ev ...finding.Evidence) Outcome {
	return Outcome{Status: finding.Fail, Observed: observed, Recommended: rec, Fix: fix, Evidence: ev}
}

// advice is a failing outcome without a command to run (hardware, BIOS,
// security decisions, sizing).
func advice(observed, rec finding.Text, ev ...finding.Evidence) Outcome {
	return fail(observed, rec, finding.Fix{}, ev...)
}

// skip is a Skipped outcome: the rule does not apply here.
func skip(reason finding.Text) Outcome { return Outcome{Status: finding.Skipped, Reason: reason} }

// unavailable is an Unavailable outcome for an input that could not be
// read, and why.
func unavailable(what, why finding.Text) Outcome {
	if why.EN == "" {
		why = finding.T("not collected", "未采集")
	}
	return Outcome{Status: finding.Unavailable, Reason: finding.Tf(finding.T("%s could not be read: %s", "无法读取 %s：%s"), what, why)}
}

// same is a name that reads the same in both languages: a path, a key.
func same(s string) finding.Text { return finding.Text{EN: s, ZH: s} }

// unavailableFrom is unavailable with a Field's reason (sysinfo.Field.Why).
func unavailableFrom[V any](what finding.Text, f sysinfo.Field[V]) Outcome {
	return unavailable(what, f.Why())
}

// one wraps a single outcome.
func one(o Outcome) []Outcome { return []Outcome{o} }

// ev builds one piece of evidence.
func ev(key string, value any, source string) finding.Evidence {
	return finding.Evidence{Key: key, Value: fmt.Sprint(value), Source: source}
}

// evf is evidence from an available Field.
func evf[V any](key string, f sysinfo.Field[V]) finding.Evidence {
	return finding.Evidence{Key: key, Value: fmt.Sprint(f.Value), Source: f.Source}
}

// notPresent reports whether an Err says the file does not exist (as
// opposed to permission or parse errors): the feature is absent.
func notPresent(err string) bool {
	e := strings.ToLower(err)
	return strings.Contains(e, "not present") || strings.Contains(e, "no such file") ||
		strings.Contains(e, "does not exist") || strings.Contains(e, "not exist")
}

// sysctlPath is the /proc/sys path of a dotted key.
func sysctlPath(key string) string { return "/proc/sys/" + strings.ReplaceAll(key, ".", "/") }

// sysctl returns the Field of a sysctl key; a key that was not collected is
// unavailable with a reason.
func sysctl(c *Ctx, key string) sysinfo.Field[string] {
	if c.F.Sysctl != nil {
		if f, ok := c.F.Sysctl[key]; ok {
			return f
		}
	}
	return sysinfo.Field[string]{Err: sysctlPath(key) + ": not collected"}
}

// sysctlEv is the evidence of an available sysctl.
func sysctlEv(key string, f sysinfo.Field[string]) finding.Evidence {
	src := f.Source
	if src == "" {
		src = sysctlPath(key)
	}
	return finding.Evidence{Key: key, Value: strings.TrimSpace(f.Value), Source: src}
}

// sysctlInt reads an integer sysctl. When it cannot, the returned outcome
// (non-nil) says why: Skipped when the kernel has no such knob, else
// Unavailable.
func sysctlInt(c *Ctx, key string) (int64, finding.Evidence, *Outcome) {
	f := sysctl(c, key)
	if !f.OK {
		var o Outcome
		if notPresent(f.Err) && !strings.HasSuffix(f.Err, "not collected") {
			o = skip(Tf("%s does not exist on this kernel (%s)", "当前内核没有 %s（%s）", key, f.Why()))
		} else {
			o = unavailableFrom(same(key), f)
		}
		return 0, finding.Evidence{}, &o
	}
	fields := strings.Fields(f.Value)
	if len(fields) == 0 {
		o := unavailable(same(key), finding.T("empty value", "值为空"))
		return 0, finding.Evidence{}, &o
	}
	v, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		o := unavailable(same(key), finding.Tf(finding.T("not an integer: %q", "不是整数：%q"), f.Value))
		return 0, finding.Evidence{}, &o
	}
	if v < 0 && !signedSysctls[key] {
		o := unavailable(same(key), finding.Tf(finding.T("negative value %d is not valid for this knob", "负值 %d 对该参数无效"), v))
		return 0, finding.Evidence{}, &o
	}
	return v, sysctlEv(key, f), nil
}

// signedSysctls may legitimately be negative.
var signedSysctls = map[string]bool{"kernel.perf_event_paranoid": true}

// sysctlInts reads a whitespace-separated integer vector sysctl (tcp_rmem,
// ip_local_port_range).
func sysctlInts(c *Ctx, key string, n int) ([]int64, finding.Evidence, *Outcome) {
	f := sysctl(c, key)
	if !f.OK {
		o := unavailableFrom(same(key), f)
		if notPresent(f.Err) && !strings.HasSuffix(f.Err, "not collected") {
			o = skip(Tf("%s does not exist on this kernel (%s)", "当前内核没有 %s（%s）", key, f.Why()))
		}
		return nil, finding.Evidence{}, &o
	}
	fields := strings.Fields(f.Value)
	if len(fields) < n {
		o := unavailable(same(key), finding.Tf(finding.T("want %d numbers, got %q", "应为 %d 个数字，实际为 %q"), n, f.Value))
		return nil, finding.Evidence{}, &o
	}
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		v, err := strconv.ParseInt(fields[i], 10, 64)
		if err != nil {
			o := unavailable(same(key), finding.Tf(finding.T("not an integer: %q", "不是整数：%q"), f.Value))
			return nil, finding.Evidence{}, &o
		}
		out[i] = v
	}
	return out, sysctlEv(key, f), nil
}

// kv is one sysctl assignment.
type kv struct{ key, val string }

// sysctlArg quotes values with spaces for sysctl -w.
func sysctlArg(k kv) string {
	if strings.ContainsAny(k.val, " \t") {
		return fmt.Sprintf("%s=%q", k.key, k.val)
	}
	return k.key + "=" + k.val
}

// sysctlFix sets keys to want, reverts to was (same order), persists in sysctl.d.
func sysctlFix(want, was []kv) finding.Fix {
	var a, r, p []string
	var ch []finding.Change
	for _, k := range want {
		ch = append(ch, finding.Change{Kind: finding.ChangeSysctl, Key: k.key, Value: k.val})
		a = append(a, sysctlArg(k))
		p = append(p, fmt.Sprintf("echo '%s = %s' >> %s", k.key, k.val, sysctlPersistFile))
	}
	for _, k := range was {
		r = append(r, sysctlArg(k))
	}
	return finding.Fix{
		Apply:   "sysctl -w " + strings.Join(a, " "),
		Revert:  "sysctl -w " + strings.Join(r, " "),
		Persist: strings.Join(p, "\n") + "\nsysctl --system",
		Changes: ch,
		Note: finding.T("sysctl -w lasts until reboot; the sysctl.d file keeps it: check that no later file in /etc/sysctl.d (or a TuneD profile) sets the key again.",
			"sysctl -w 重启后失效；写入 sysctl.d 文件才能持久：确认 /etc/sysctl.d 中没有更靠后的文件（或 TuneD 配置档）再次设置该参数。"),
	}
}

// sysctlFix1 is sysctlFix for one key.
func sysctlFix1(key string, want, was any) finding.Fix {
	return sysctlFix([]kv{{key, fmt.Sprint(want)}}, []kv{{key, fmt.Sprint(was)}})
}

// echoFix writes want into a sysfs/procfs file and reverts to was.
func echoFix(path, want, was string) finding.Fix {
	return finding.Fix{Apply: fmt.Sprintf("echo %s > %s", want, path), Revert: fmt.Sprintf("echo %s > %s", was, path),
		Changes: []finding.Change{sysfsChange(path, want)}}
}

// sysfsChange is the knob behind an `echo want > path` line.
func sysfsChange(path, want string) finding.Change {
	return finding.Change{Kind: finding.ChangeSysfs, Key: path, Value: want}
}

// grubbyFix adds or removes kernel command-line arguments; takes a reboot.
func grubbyAdd(args, revertRemove string) finding.Fix {
	return finding.Fix{
		Apply:  fmt.Sprintf("grubby --update-kernel=ALL --args=%q", args),
		Revert: fmt.Sprintf("grubby --update-kernel=ALL --remove-args=%q", revertRemove),
		Note: finding.T("Takes effect after a reboot. grubby updates every boot entry (BLS / grub.cfg); on Debian/Ubuntu edit GRUB_CMDLINE_LINUX in /etc/default/grub and run update-grub instead.",
			"重启后生效。grubby 会更新所有启动项（BLS / grub.cfg）；Debian/Ubuntu 上请改为编辑 /etc/default/grub 的 GRUB_CMDLINE_LINUX 并执行 update-grub。"),
		Reboot: true,
	}
}

func grubbyRemove(names, revertAdd string) finding.Fix {
	return finding.Fix{
		Apply:  fmt.Sprintf("grubby --update-kernel=ALL --remove-args=%q", names),
		Revert: fmt.Sprintf("grubby --update-kernel=ALL --args=%q", revertAdd),
		Note: finding.T("Takes effect after a reboot. grubby updates every boot entry (BLS / grub.cfg); on Debian/Ubuntu edit GRUB_CMDLINE_LINUX in /etc/default/grub and run update-grub instead.",
			"重启后生效。grubby 会更新所有启动项（BLS / grub.cfg）；Debian/Ubuntu 上请改为编辑 /etc/default/grub 的 GRUB_CMDLINE_LINUX 并执行 update-grub。"),
		Reboot: true,
	}
}

// jvmFlagFix changes JVM options; the JVM must be restarted. Apply and
// Revert are written as edits of JAVA_OPTS so they read the same in every
// language: "JAVA_OPTS: -Xms2g -> -Xms8g", "JAVA_OPTS += ...", "JAVA_OPTS -= ...".
func jvmFlagFix(pid int, add, remove string) finding.Fix {
	apply, revert := "JAVA_OPTS += "+add, "JAVA_OPTS -= "+add
	if remove != "" {
		apply = fmt.Sprintf("JAVA_OPTS: %s -> %s", remove, add)
		revert = fmt.Sprintf("JAVA_OPTS: %s -> %s", add, remove)
	}
	return finding.Fix{
		Apply: apply, Revert: revert,
		Note: finding.Tf(finding.T("Edit the JVM options where the service of pid %d is started (start script, systemd unit Environment=JAVA_OPTS=..., container spec), then restart it: a running JVM does not pick up new options.",
			"在启动 pid %d 服务的地方修改 JVM 参数（启动脚本、systemd 单元的 Environment=JAVA_OPTS=...、容器配置），然后重启该服务：运行中的 JVM 不会读取新参数。"), pid),
	}
}

// ---- facts accessors ----

// meminfo returns a /proc/meminfo value (kB or count).
func meminfo(c *Ctx, key string) (int64, finding.Evidence, bool) {
	m := c.F.Memory.Meminfo
	if !m.OK || m.Value == nil {
		return 0, finding.Evidence{}, false
	}
	v, ok := m.Value[key]
	if !ok {
		return 0, finding.Evidence{}, false
	}
	return v, ev(key, v, m.Source), true
}

// isVM reports whether a hypervisor was detected (known=false when unknown).
func isVM(c *Ctx) (vm, known bool) {
	h := c.F.CPU.Hypervisor
	if !h.OK {
		return false, false
	}
	return h.Value != "", true
}

// onlineCPUs is the number of online CPUs, from the best source available.
func onlineCPUs(c *Ctx) int {
	if o := c.F.CPU.Online; o.OK && len(o.Value) > 0 {
		return len(o.Value)
	}
	if l := c.F.CPU.Logical; l.OK {
		return l.Value
	}
	return 0
}

// numaNodes returns the nodes; ok=false when unavailable (o says why).
func numaNodes(c *Ctx) ([]sysinfo.Node, *Outcome) {
	n := c.F.NUMA.Nodes
	if !n.OK {
		o := unavailableFrom(finding.T("NUMA topology (/sys/devices/system/node)", "NUMA 拓扑（/sys/devices/system/node）"), n)
		return nil, &o
	}
	return n.Value, nil
}

// multiNode returns the nodes when the host has more than one, or an outcome
// (Skipped on a single node, Unavailable when unknown).
func multiNode(c *Ctx) ([]sysinfo.Node, *Outcome) {
	nodes, o := numaNodes(c)
	if o != nil {
		return nil, o
	}
	if len(nodes) < 2 {
		s := skip(Tf("single NUMA node (%d node): no remote memory", "单 NUMA 节点（%d 个节点），不存在跨节点访存", len(nodes)))
		return nil, &s
	}
	return nodes, nil
}

// nodeOf maps CPU -> node id.
func nodeOf(nodes []sysinfo.Node) map[int]int {
	m := map[int]int{}
	for _, n := range nodes {
		for _, c := range n.CPUs {
			m[c] = n.ID
		}
	}
	return m
}

// nodeByID finds a node.
func nodeByID(nodes []sysinfo.Node, id int) (sysinfo.Node, bool) {
	for _, n := range nodes {
		if n.ID == id {
			return n, true
		}
	}
	return sysinfo.Node{}, false
}

// nodesSpanned lists the distinct nodes of cpus, sorted.
func nodesSpanned(nodes []sysinfo.Node, cpus []int) []int {
	m := nodeOf(nodes)
	seen := map[int]bool{}
	var out []int
	for _, c := range cpus {
		if n, ok := m[c]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// physicalNICs returns the hardware NICs (not virtual, not loopback), or an
// outcome explaining why there are none.
func physicalNICs(c *Ctx) ([]sysinfo.NIC, *Outcome) {
	n := c.F.NICs
	if !n.OK {
		o := unavailableFrom(finding.T("network interfaces (/sys/class/net)", "网络接口（/sys/class/net）"), n)
		return nil, &o
	}
	var out []sysinfo.NIC
	for _, nic := range n.Value {
		if nic.Virtual || nic.Loopback {
			continue
		}
		out = append(out, nic)
	}
	if len(out) == 0 {
		o := skip(T("no physical NIC found (only virtual or loopback interfaces)", "未发现物理网卡（只有虚拟网卡或回环接口）"))
		return nil, &o
	}
	return out, nil
}

// upNICs are physical NICs that are up (or state unknown but with IRQs).
func upNICs(c *Ctx) ([]sysinfo.NIC, *Outcome) {
	all, o := physicalNICs(c)
	if o != nil {
		return nil, o
	}
	var out []sysinfo.NIC
	for _, n := range all {
		if n.OperState == "up" || (n.OperState == "unknown" && len(n.IRQs) > 0) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		s := skip(T("no physical NIC is up", "没有处于 up 状态的物理网卡"))
		return nil, &s
	}
	return out, nil
}

// nicSource is the sysfs directory of a NIC, for evidence.
func nicSource(n sysinfo.NIC) string { return "/sys/class/net/" + n.Name }

// queues is the NIC's receive queue count: combined channels when known,
// else the sysfs rx queue count.
func queues(n sysinfo.NIC) int {
	if n.Combined > 0 {
		return n.Combined
	}
	return n.RxQueues
}

// jvms returns the running JVMs or an outcome (Unavailable / Skipped "no
// running JVM found").
func jvms(c *Ctx) ([]sysinfo.JVM, *Outcome) {
	j := c.F.JVMs
	if !j.OK {
		o := unavailableFrom(finding.T("running JVMs (/proc/[pid]/cmdline)", "运行中的 JVM（/proc/[pid]/cmdline）"), j)
		return nil, &o
	}
	if len(j.Value) == 0 {
		o := skip(T("no running JVM found", "未发现正在运行的 JVM"))
		return nil, &o
	}
	return j.Value, nil
}

// eachJVM runs fn for every JVM whose command line was read, with the
// subject "pid N". A command line of fewer than 2 arguments (a real one has
// at least the launcher and a main class or jar) is unreadable: the JVM's
// outcome is Unavailable rather than a guess from missing flags.
func eachJVM(c *Ctx, fn func(j *sysinfo.JVM) Outcome) []Outcome {
	return eachJVMWith(c, true, fn)
}

// eachJVMAny is eachJVM for rules that do not read the command line.
func eachJVMAny(c *Ctx, fn func(j *sysinfo.JVM) Outcome) []Outcome {
	return eachJVMWith(c, false, fn)
}

func eachJVMWith(c *Ctx, needArgs bool, fn func(j *sysinfo.JVM) Outcome) []Outcome {
	js, o := jvms(c)
	if o != nil {
		return one(*o)
	}
	out := make([]Outcome, 0, len(js))
	for i := range js {
		var r Outcome
		if needArgs && len(js[i].Args) < 2 {
			r = unavailable(finding.Tf(finding.T("the command line of pid %d (/proc/%d/cmdline)", "进程 %d 的命令行（/proc/%d/cmdline）"), js[i].PID, js[i].PID),
				finding.Tf(finding.T("%d argument(s): unreadable or not NUL-separated", "%d 个参数：不可读或不是以 NUL 分隔"), len(js[i].Args)))
		} else {
			r = fn(&js[i])
		}
		r.Subject = jvmSubject(&js[i])
		out = append(out, r)
	}
	return out
}

func jvmSubject(j *sysinfo.JVM) string { return fmt.Sprintf("pid %d", j.PID) }

// jvmSource is /proc/PID/cmdline, for evidence.
func jvmSource(j *sysinfo.JVM) string { return fmt.Sprintf("/proc/%d/cmdline", j.PID) }

// ---- formatting ----

// cpuMask formats CPUs as a kernel hex mask in 32-bit comma groups, as
// rps_cpus and smp_affinity expect: 00000000,000000f0.
func cpuMask(cpus []int) string {
	max := 0
	for _, c := range cpus {
		if c > max {
			max = c
		}
	}
	groups := make([]uint32, max/32+1)
	for _, c := range cpus {
		if c >= 0 {
			groups[c/32] |= 1 << (uint(c) % 32)
		}
	}
	parts := make([]string, len(groups))
	for i := range groups {
		parts[len(groups)-1-i] = fmt.Sprintf("%08x", groups[i])
	}
	return strings.Join(parts, ",")
}

// pct formats a fraction as a percentage.
func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" }

// ceilCores rounds a CPU quota up to whole cores (at least 1).
func ceilCores(q float64) int {
	n := int(math.Ceil(q - 1e-9))
	if n < 1 {
		n = 1
	}
	return n
}

// majority returns the most common key of a count map (ties: alphabetical).
func majority(m map[string]int) string {
	best, bestN := "", -1
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if m[k] > bestN {
			best, bestN = k, m[k]
		}
	}
	return best
}

// countsString formats a count map: "performance: 2, powersave: 94".
func countsString(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// kernelVersion parses "5.10.0-182..." into (5, 10).
func kernelVersion(release string) (major, minor int, ok bool) {
	r := release
	if i := strings.IndexAny(r, "-+_ "); i >= 0 {
		r = r[:i]
	}
	p := strings.Split(r, ".")
	if len(p) < 2 {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(p[0])
	b, err2 := strconv.Atoi(p[1])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return a, b, true
}

// kernelAtLeast reports whether the running kernel is >= maj.min (false if unknown).
func kernelAtLeast(c *Ctx, maj, min int) bool {
	r := c.F.Kernel.Release
	if !r.OK {
		return false
	}
	a, b, ok := kernelVersion(r.Value)
	return ok && (a > maj || (a == maj && b >= min))
}

// cmdlineArg returns a kernel command-line argument.
func cmdlineArg(c *Ctx, name string) (string, bool) {
	if c.F.Kernel.Args == nil {
		return "", false
	}
	v, ok := c.F.Kernel.Args[name]
	return v, ok
}

// cmdlineEv is evidence of /proc/cmdline.
func cmdlineEv(c *Ctx, arg string) finding.Evidence {
	return ev("cmdline "+arg, arg, orDefault(c.F.Kernel.Cmdline.Source, "/proc/cmdline"))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// unavailableBecause is an Unavailable outcome with a custom reason.
func unavailableBecause(reason finding.Text) Outcome {
	return Outcome{Status: finding.Unavailable, Reason: reason}
}

// orDefaultText is t, or d when t is empty.
func orDefaultText(t, d finding.Text) finding.Text {
	if t.EN == "" {
		return d
	}
	return t
}
