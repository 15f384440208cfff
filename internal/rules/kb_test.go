package rules

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
)

func TestValidateAll(t *testing.T) {
	rs := All()
	if err := Validate(rs); err != nil {
		t.Fatal(err)
	}
	if len(rs) < 60 {
		t.Fatalf("%d rules, want at least 60", len(rs))
	}
	for _, r := range rs {
		if r.Severity < finding.Info || r.Severity > finding.Critical {
			t.Errorf("%s: severity %v", r.ID, r.Severity)
		}
	}
}

func TestAllIsStable(t *testing.T) {
	a, b := All(), All()
	for i := range a {
		if a[i].ID != b[i].ID {
			t.Fatalf("order differs at %d: %s vs %s", i, a[i].ID, b[i].ID)
		}
	}
}

// Nothing known: every rule is unavailable or skipped, none fails, none panics.
func TestZeroFacts(t *testing.T) {
	for _, p := range Profiles {
		fs := Evaluate(All(), &sysinfo.Facts{}, p)
		if len(fs) < len(All()) {
			t.Fatalf("%s: %d findings for %d rules", p, len(fs), len(All()))
		}
		for _, f := range fs {
			checkFinding(t, f)
			if f.Status == finding.Fail || f.Status == finding.Pass {
				t.Errorf("%s %s: %s with no facts (%s)", p, f.Key(), f.Status, f.Observed.EN)
			}
		}
	}
}

// A host tuned as recommended only reports the advisory multi-node finding.
func TestHealthyHost(t *testing.T) {
	for _, p := range Profiles {
		for _, f := range Evaluate(All(), healthyHost(), p) {
			checkFinding(t, f)
			if f.Status != finding.Fail {
				continue
			}
			allowed := f.ID == "numa.topology" ||
				(p == Latency && f.ID == "net.busy-poll") ||
				(p == Latency && f.ID == "mem.dirty") ||
				(p == Database && f.ID == "mem.thp.enabled")
			if !allowed {
				t.Errorf("%s: unexpected %s %s: %s", p, f.Severity, f.Key(), f.Observed.EN)
			}
		}
	}
}

func find(fs []finding.Finding, id string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

func one1(t *testing.T, fs []finding.Finding, id string) finding.Finding {
	t.Helper()
	m := find(fs, id)
	if len(m) != 1 {
		t.Fatalf("%s: %d findings, want 1", id, len(m))
	}
	return m[0]
}

func TestTHPProfileSwitch(t *testing.T) {
	f := healthyHost() // madvise
	web := one1(t, Evaluate(All(), f, JavaWeb), "mem.thp.enabled")
	db := one1(t, Evaluate(All(), f, Database), "mem.thp.enabled")
	if web.Status != finding.Pass {
		t.Errorf("java-web madvise: %s", web.Status)
	}
	if db.Status != finding.Fail || !strings.Contains(db.Fix.Apply, "echo never > /sys/kernel/mm/transparent_hugepage/enabled") ||
		db.Fix.Revert != "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled" {
		t.Errorf("database madvise: %s %+v", db.Status, db.Fix)
	}
	f.Memory.THPEnabled.Value = "never"
	web = one1(t, Evaluate(All(), f, JavaWeb), "mem.thp.enabled")
	db = one1(t, Evaluate(All(), f, Database), "mem.thp.enabled")
	if web.Status != finding.Fail || !strings.Contains(web.Fix.Apply, "echo madvise >") || !strings.Contains(web.Recommended.EN, "UseTransparentHugePages") {
		t.Errorf("java-web never: %s %+v %s", web.Status, web.Fix, web.Recommended.EN)
	}
	if db.Status != finding.Pass {
		t.Errorf("database never: %s", db.Status)
	}
	// the JVM flag follows the profile too
	jw := one1(t, Evaluate(All(), f, JavaWeb), "jvm.thp-flag")
	jd := one1(t, Evaluate(All(), f, Database), "jvm.thp-flag")
	if jw.Severity != finding.Warning || !strings.Contains(jw.Fix.Apply, "echo madvise") {
		t.Errorf("java-web never+flag: %s %+v", jw.Severity, jw.Fix)
	}
	if jd.Severity != finding.Info || !strings.Contains(jd.Fix.Apply, "remove") {
		t.Errorf("database never+flag: %s %+v", jd.Severity, jd.Fix)
	}
}

func TestKunpeng2S4N(t *testing.T) {
	fs := Evaluate(All(), kunpeng2s4n(), JavaWeb)
	for _, f := range fs {
		checkFinding(t, f)
	}
	irq := one1(t, fs, "nic.irq.concentration")
	if irq.Status != finding.Fail || irq.Severity != finding.Critical || irq.Subject != "enp125s0f0" {
		t.Fatalf("irq concentration: %s %s %s", irq.Status, irq.Severity, irq.Observed.EN)
	}
	if irq.Fix.Apply != "echo 0-31 > /proc/irq/57/smp_affinity_list" || !strings.HasPrefix(irq.Fix.Revert, "echo 0 > /proc/irq/57/smp_affinity_list") {
		t.Errorf("irq fix: %+v", irq.Fix)
	}
	for _, want := range []string{"ethtool -L enp125s0f0 combined", "irqbalance", "0-31"} {
		if !strings.Contains(irq.Recommended.EN, want) {
			t.Errorf("irq recommendation lacks %q: %s", want, irq.Recommended.EN)
		}
	}
	q := one1(t, fs, "nic.queues")
	if q.Status != finding.Fail || q.Severity != finding.Warning || !strings.Contains(q.Observed.EN, "1 queue(s) on a 128-CPU host") ||
		q.Fix.Apply != "ethtool -L enp125s0f0 combined 16" || q.Fix.Revert != "ethtool -L enp125s0f0 combined 1" {
		t.Errorf("queues: %s %s %q %+v", q.Status, q.Severity, q.Observed.EN, q.Fix)
	}
	rps := one1(t, fs, "nic.rps")
	if rps.Status != finding.Fail || !strings.Contains(rps.Fix.Apply, "echo fffffffe > /sys/class/net/enp125s0f0/queues/rx-0/rps_cpus") ||
		!strings.Contains(rps.Fix.Revert, "echo 0 > /sys/class/net/enp125s0f0/queues/rx-0/rps_cpus") ||
		!strings.Contains(rps.Fix.Revert, "sysctl -w net.core.rps_sock_flow_entries=0") {
		t.Errorf("rps: %s %+v", rps.Status, rps.Fix)
	}
	topo := one1(t, fs, "numa.topology")
	if topo.Status != finding.Fail || !strings.Contains(topo.Observed.EN, "4 NUMA nodes") {
		t.Errorf("topology: %s %s", topo.Status, topo.Observed.EN)
	}
	bind := one1(t, fs, "jvm.numa.bind")
	if bind.Status != finding.Fail || bind.Subject != "pid 4321" || bind.Fix.Apply != "taskset -apc 0-31 4321 && migratepages 4321 all 0" ||
		!strings.HasPrefix(bind.Fix.Revert, "taskset -apc 0-127 4321") {
		t.Errorf("bind: %s %s %+v", bind.Status, bind.Subject, bind.Fix)
	}
	if b := one1(t, fs, "numa.balancing"); b.Status != finding.Pass {
		t.Errorf("balancing 1 with an unbound JVM should pass: %s %s", b.Status, b.Observed.EN)
	}
	if l := one1(t, fs, "numa.nic-locality"); l.Status != finding.Pass {
		t.Errorf("NIC on node 0 with its IRQ on CPU 0 is local: %s %s", l.Status, l.Observed.EN)
	}
	// the NIC on node 2 with its IRQ on CPU 0 is remote
	f := kunpeng2s4n()
	nic0(f).NUMANode = 2
	fs2 := Evaluate(All(), f, JavaWeb)
	l := one1(t, fs2, "numa.nic-locality")
	if l.Status != finding.Fail || l.Fix.Apply != "echo 64-95 > /proc/irq/57/smp_affinity_list" || l.Fix.Revert != "echo 0 > /proc/irq/57/smp_affinity_list" {
		t.Errorf("remote NIC: %s %+v", l.Status, l.Fix)
	}
	if b := one1(t, fs2, "jvm.numa.bind"); !strings.HasPrefix(b.Fix.Apply, "taskset -apc 64-95 4321") {
		t.Errorf("bind should target the NIC's node 2: %+v", b.Fix)
	}
	for _, id := range []string{"jvm.heap.xms-xmx", "jvm.gc.logging", "jvm.heapdump-oom", "jvm.numa.use-numa", "kernel.cmdline.iommu"} {
		if x := one1(t, fs, id); x.Status != finding.Fail {
			t.Errorf("%s: %s", id, x.Status)
		}
	}
	if g := one1(t, fs, "jvm.gc.logging"); !strings.Contains(g.Fix.Apply, "-Xloggc:") {
		t.Errorf("JDK 8 GC logging flags: %s", g.Fix.Apply)
	}
}

func TestFirecrackerVM(t *testing.T) {
	fs := Evaluate(All(), firecrackerVM(), JavaWeb)
	for _, f := range fs {
		checkFinding(t, f)
	}
	g := one1(t, fs, "cpu.governor")
	if g.Status != finding.Skipped || !strings.Contains(g.Reason.EN, "hypervisor") || !strings.Contains(g.Reason.ZH, "虚拟") {
		t.Errorf("governor in a VM: %s %q", g.Status, g.Reason)
	}
	if x := one1(t, fs, "mem.thp.enabled"); x.Status != finding.Pass {
		t.Errorf("THP madvise for java-web: %s", x.Status)
	}
	if x := one1(t, fs, "virt.hypervisor"); x.Status != finding.Fail || x.Severity != finding.Info || !strings.Contains(x.Recommended.EN, "steal") {
		t.Errorf("VM advice: %s %s %s", x.Status, x.Severity, x.Recommended.EN)
	}
	if x := one1(t, fs, "mem.swappiness"); x.Status != finding.Pass {
		t.Errorf("no swap: %s", x.Status)
	}
	for _, f := range fs {
		if f.Status == finding.Fail && f.Severity > finding.Info {
			t.Errorf("unexpected %s on the build VM: %s %s", f.Severity, f.Key(), f.Observed.EN)
		}
	}
}

// Bare metal without cpufreq: unavailable, pointing at firmware control.
func TestNoCpufreqBareMetal(t *testing.T) {
	f := healthyHost()
	f.CPU.Cpufreq = missing[sysinfo.Cpufreq]("/sys/devices/system/cpu/cpu0/cpufreq: not present")
	g := one1(t, Evaluate(All(), f, JavaWeb), "cpu.governor")
	if g.Status != finding.Unavailable || !strings.Contains(g.Reason.EN, "firmware") || !strings.Contains(g.Reason.ZH, "固件") {
		t.Errorf("%s %q", g.Status, g.Reason)
	}
}

func TestRevertRestoresObserved(t *testing.T) {
	f := healthyHost()
	setSysctl(f, "vm.swappiness", 60)
	setMeminfo(f, "SwapTotal", 8<<20)
	setMeminfo(f, "SwapFree", 8<<20)
	s := one1(t, Evaluate(All(), f, JavaWeb), "mem.swappiness")
	if s.Fix.Apply != "sysctl -w vm.swappiness=10" || s.Fix.Revert != "sysctl -w vm.swappiness=60" ||
		!strings.Contains(s.Fix.Persist, "echo 'vm.swappiness = 10' >> /etc/sysctl.d/90-tuneloop.conf") {
		t.Errorf("%+v", s.Fix)
	}
	f.CPU.Cpufreq.Value.Governors = map[string]int{"powersave": 64}
	g := one1(t, Evaluate(All(), f, JavaWeb), "cpu.governor")
	if !strings.Contains(g.Fix.Apply, "echo performance > $f") || !strings.Contains(g.Fix.Revert, "echo powersave > $f") {
		t.Errorf("%+v", g.Fix)
	}
	setSysctl(f, "net.ipv4.ip_local_port_range", "40000 50000")
	pr := one1(t, Evaluate(All(), f, JavaWeb), "net.port-range")
	if pr.Fix.Apply != `sysctl -w net.ipv4.ip_local_port_range="9000 65499"` || pr.Fix.Revert != `sysctl -w net.ipv4.ip_local_port_range="40000 50000"` {
		t.Errorf("%+v", pr.Fix)
	}
	args := "ro isolcpus=2-5"
	setArgs(f, args)
	iso := one1(t, Evaluate(All(), f, JavaWeb), "kernel.cmdline.isolation")
	if !iso.Fix.Reboot || iso.Fix.Revert != `grubby --update-kernel=ALL --args="isolcpus=2-5"` {
		t.Errorf("%+v", iso.Fix)
	}
}

func TestHelpers(t *testing.T) {
	if got := sysinfo.FormatCPUList([]int{0, 1, 2, 3, 8, 10, 11}); got != "0-3,8,10-11" {
		t.Errorf("cpuList %q", got)
	}
	if got := cpuMask([]int{4, 5, 6, 7}); got != "000000f0" {
		t.Errorf("cpuMask %q", got)
	}
	if got := cpuMask(seq(32, 63)); got != "ffffffff,00000000" {
		t.Errorf("cpuMask %q", got)
	}
	if got := units.FormatJVMSize(4 * gib); got != "4g" {
		t.Errorf("jvmSize %q", got)
	}
	for in, want := range map[string][2]int{"1.8.0_191": {8, 191}, "1.8.0": {8, 0}, "11.0.20": {11, 0}, "17": {17, 0}, "21.0.1+12": {21, 0}, "8u342": {8, 342}} {
		m, u, ok := javaVersion(&sysinfo.JVM{Version: in})
		if !ok || m != want[0] || u != want[1] {
			t.Errorf("javaVersion(%q) = %d,%d,%v", in, m, u, ok)
		}
	}
	for path, want := range map[string][2]int{"/usr/lib/jvm/java-1.8.0-openjdk-1.8.0.292.b10-1.el7_9.x86_64": {8, 292}, "/opt/jdk1.8.0_181": {8, 181}, "/usr/lib/jvm/java-11-openjdk-amd64": {11, 0}, "/opt/jdk-17.0.2": {17, 0}} {
		m, u, ok := javaVersion(&sysinfo.JVM{JavaHome: path})
		if !ok || m != want[0] || u != want[1] {
			t.Errorf("javaVersion(path %q) = %d,%d,%v", path, m, u, ok)
		}
	}
	if a, b, ok := kernelVersion("3.10.0-1160.el7.x86_64"); !ok || a != 3 || b != 10 {
		t.Errorf("kernelVersion %d.%d %v", a, b, ok)
	}
}

// Every rule says what it reads (docs/rules.md lists it): the files the
// evidence of its findings cites.
func TestEveryRuleSaysWhatItReads(t *testing.T) {
	for _, r := range All() {
		if len(r.Reads) == 0 {
			t.Errorf("%s: no Reads", r.ID)
		}
	}
}
