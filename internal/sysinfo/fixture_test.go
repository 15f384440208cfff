package sysinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

const fixtureRoot = "../../testdata/hosts"

// fixture collects from testdata/hosts/NAME (captured trees, in the repo).
func fixture(t *testing.T, name string) *Facts {
	t.Helper()
	dir := filepath.Join(fixtureRoot, name)
	if _, err := os.Stat(filepath.Join(dir, "proc")); err != nil {
		t.Fatalf("fixture %s not present", name)
	}
	f := collect(t, hostfs.Under(dir))
	if os.Getenv("SYSINFO_DUMP_FIXTURE") != "" {
		b, _ := json.MarshalIndent(f, "", " ")
		os.WriteFile(filepath.Join(os.Getenv("SYSINFO_DUMP_FIXTURE"), name+".json"), b, 0o644)
	}
	if f.Live {
		t.Error("fixture reported as live")
	}
	return f
}

// logUnavailable lists what the fixture could not supply, for -v runs.
func logUnavailable(t *testing.T, f *Facts) {
	for name, st := range fieldStates(f) {
		if !st.OK {
			t.Logf("unavailable %s: %s", name, st.Err)
		}
	}
}

// build-vm-amd64 is this machine: a Firecracker VM on AMD EPYC, 2 vCPUs,
// virtio NIC eth0 (virtio2 on PCI 0000:00:03.0), hybrid cgroups, one JVM.
func TestFixtureBuildVM(t *testing.T) {
	f := fixture(t, "build-vm-amd64")
	logUnavailable(t, f)
	want := map[string]bool{
		"release":     f.Kernel.Release.Value == "6.18.44-fc-v595",
		"arch":        f.Kernel.Arch.Value == "x86_64",
		"vendor":      f.CPU.Vendor.Value == "AuthenticAMD",
		"model":       f.CPU.Model.Value == "AMD EPYC",
		"not kunpeng": !f.CPU.Kunpeng,
		"logical":     f.CPU.Logical.Value == 2,
		"hypervisor":  f.CPU.Hypervisor.OK && f.CPU.Hypervisor.Value == "Firecracker",
		"meminfo":     f.Memory.Meminfo.Value["MemTotal"] > 0,
		"thp":         f.Memory.THPEnabled.Value == "madvise",
		"cgroup":      f.Cgroup.Version.Value == "hybrid",
		"os":          f.OS.ID.Value == "debian",
		"irqbalance":  f.IRQBalance.OK && !f.IRQBalance.Value,
	}
	for k, ok := range want {
		if !ok {
			t.Errorf("%s: unexpected value", k)
		}
	}
	var eth0 *NIC
	for i, n := range f.NICs.Value {
		if n.Name == "eth0" {
			eth0 = &f.NICs.Value[i]
		}
	}
	if eth0 == nil {
		t.Fatalf("no eth0 in %+v", f.NICs)
	}
	if eth0.Driver != "virtio_net" || eth0.Virtual || eth0.PCI != "0000:00:03.0" || len(eth0.IRQs) != 2 ||
		eth0.IRQs[0].Name != "virtio2-input.0" || eth0.IRQs[1].Name != "virtio2-output.0" || len(eth0.IRQs[0].Affinity) == 0 {
		t.Errorf("eth0 = %+v", *eth0)
	}
	if !f.JVMs.OK || len(f.JVMs.Value) != 1 {
		t.Fatalf("jvms %+v", f.JVMs)
	}
	if j := f.JVMs.Value[0]; j.JavaHome != "/usr/lib/jvm/java-17-openjdk-amd64" || j.Version == "" || j.MainClass != "Sleep" || j.Limits["Max open files"].Soft <= 0 {
		t.Errorf("jvm %+v", j)
	}
}

// check reports every false entry of want.
func check(t *testing.T, want map[string]bool) {
	t.Helper()
	for k, ok := range want {
		if !ok {
			t.Errorf("%s: unexpected value", k)
		}
	}
}

func findNIC(f *Facts, name string) *NIC {
	for i, n := range f.NICs.Value {
		if n.Name == name {
			return &f.NICs.Value[i]
		}
	}
	return &NIC{}
}

func findDisk(f *Facts, name string) *Disk {
	for i, d := range f.Disks.Value {
		if d.Name == name {
			return &f.Disks.Value[i]
		}
	}
	return &Disk{}
}

func firstJVM(t *testing.T, f *Facts) JVM {
	t.Helper()
	if !f.JVMs.OK || len(f.JVMs.Value) != 1 {
		t.Fatalf("jvms %+v", f.JVMs)
	}
	return f.JVMs.Value[0]
}

// kunpeng920-2s4n: a 2-socket, 4-NUMA-node Kunpeng 920 whose NIC IRQs were
// all left on CPU 0 with irqbalance stopped (see testdata/hosts/README.md).
func TestFixtureKunpeng(t *testing.T) {
	f := fixture(t, "kunpeng920-2s4n")
	logUnavailable(t, f)
	cf := f.CPU.Cpufreq.Value
	check(t, map[string]bool{
		"kunpeng":  f.CPU.Kunpeng && f.CPU.Vendor.Value == "HiSilicon" && f.CPU.Model.Value == "Kunpeng 920 (TaiShan v110)",
		"arch":     f.Kernel.Arch.Value == "aarch64",
		"topology": f.CPU.Logical.Value == 128 && f.CPU.Sockets.Value == 2 && f.CPU.Cores.Value == 128 && f.CPU.ThreadsPerCore.Value == 1,
		"smt":      f.CPU.SMTActive.OK && !f.CPU.SMTActive.Value,
		"numa":     f.NUMA.Nodes.OK && len(f.NUMA.Nodes.Value) == 4 && len(f.NUMA.Nodes.Value[3].CPUs) == 32 && slices.Equal(f.NUMA.Nodes.Value[0].Distances, []int{10, 12, 20, 22}),
		"cpufreq":  cf.Driver == "cppc_cpufreq" && cf.Governors["ondemand"] == 124 && cf.Governors["performance"] == 4 && cf.Boost == nil,
		"thp":      f.Memory.THPEnabled.Value == "always",
		"selinux":  f.Security.SELinux.Value == "enforcing",
		"bare":     f.CPU.Hypervisor.OK && f.CPU.Hypervisor.Value == "",
		"irqbal":   f.IRQBalance.OK && !f.IRQBalance.Value,
		"softnet":  f.Softnet.OK && f.Softnet.Value.Dropped == 184220,
		"numa_bal": f.Sysctl["kernel.numa_balancing"].Value == "1",
		"clock":    f.Clocksource.Current.Value == "arch_sys_counter",
		"nvme":     findDisk(f, "nvme0n1").Transport == "nvme" && findDisk(f, "nvme0n1").Scheduler == "none" && findDisk(f, "nvme0n1").NUMANode == 0,
		"sda":      findDisk(f, "sda").Rotational && findDisk(f, "sda").Scheduler == "bfq" && findDisk(f, "sda").QueueDepth == 64,
	})
	nic := findNIC(f, "enp125s0f0")
	if nic.Driver != "hinic" || nic.PCI != "0000:7d:00.0" || nic.NUMANode != 0 || nic.SpeedMbps != 25000 || nic.RxQueues != 1 ||
		len(nic.RPS) != 1 || len(nic.RPS[0].CPUs) != 0 || len(nic.IRQs) != 1 || nic.IRQs[0].Number != 107 {
		t.Errorf("nic %+v", *nic)
	}
	for _, q := range nic.IRQs {
		if !slices.Equal(q.Affinity, []int{0}) || !slices.Equal(q.Effective, []int{0}) || q.Counts[0] != q.Total {
			t.Errorf("irq %d (%s) affinity %v effective %v", q.Number, q.Name, q.Affinity, q.Effective)
		}
	}
	j := firstJVM(t, f)
	if j.PID != 4127 || j.User != "cardapp" || j.Version != "1.8.0_342" || j.Vendor != "Huawei" || j.MainClass != "com.bank.card.core.Bootstrap" ||
		j.Limits["Max open files"].Soft != 1024 || j.Threads != 486 || j.OpenFDs != 12 || !slices.Equal(j.MemsAllowed, []int{0, 1, 2, 3}) {
		t.Errorf("jvm %+v", j)
	}
}

// centos7-3.10-cgv1: CentOS 7, kernel 3.10 (no kernel/arch), 2 x Xeon Gold
// 6248 with HT, cgroup v1 only, tuned + irqbalance running, ixgbe spread.
func TestFixtureCentOS7(t *testing.T) {
	f := fixture(t, "centos7-3.10-cgv1")
	logUnavailable(t, f)
	cf := f.CPU.Cpufreq.Value
	check(t, map[string]bool{
		"release":  f.Kernel.Release.Value == "3.10.0-1160.el7.x86_64",
		"arch":     f.Kernel.Arch.OK && f.Kernel.Arch.Value == "x86_64" && f.Kernel.Arch.Source == "derived: /proc/sys/kernel/osrelease",
		"topology": f.CPU.Logical.Value == 80 && f.CPU.Sockets.Value == 2 && f.CPU.Cores.Value == 40 && f.CPU.ThreadsPerCore.Value == 2 && f.CPU.SMTActive.Value,
		"cpufreq":  cf.Driver == "intel_pstate" && cf.Governors["powersave"] == 80 && cf.Boost != nil && *cf.Boost && cf.MinPerfPct != nil && *cf.MinPerfPct == 25,
		"cpuidle":  f.CPU.Cpuidle.OK && len(f.CPU.Cpuidle.Value.States) == 4,
		"numa":     len(f.NUMA.Nodes.Value) == 2 && slices.Equal(f.NUMA.Nodes.Value[1].Distances, []int{21, 10}),
		"swap":     len(f.Memory.Swaps.Value) == 1 && f.Memory.Swaps.Value[0].UsedKB == 1258496,
		"cgroup":   f.Cgroup.Version.Value == "v1" && f.Cgroup.PidsMax.OK && f.Cgroup.PidsMax.Value == 0,
		"tuned":    f.Tuned.Running.Value && f.Tuned.ActiveProfile.Value == "virtual-guest",
		"irqbal":   f.IRQBalance.Value,
		"daemons":  slices.Equal(f.Daemons.Value, []string{"auditd", "irqbalance", "tuned"}),
		"selinux":  f.Security.SELinux.Value == "permissive",
		"somax":    f.Sysctl["net.core.somaxconn"].Value == "128",
		"lowat":    f.Sysctl["net.ipv4.tcp_notsent_lowat"].Value == "-1",
		"sda":      findDisk(f, "sda").Scheduler == "cfq" && findDisk(f, "sda").Transport == "ata" && findDisk(f, "sda").QueueDepth == 32,
		"dm":       findDisk(f, "dm-0").Virtual,
	})
	nic := findNIC(f, "enp59s0f0")
	if nic.Driver != "ixgbe" || nic.RxQueues != 8 || nic.TxQueues != 8 || len(nic.IRQs) != 9 || nic.IRQs[0].Name != "enp59s0f0-TxRx-0" {
		t.Errorf("nic %+v", *nic)
	}
	for i, q := range nic.IRQs[:min(8, len(nic.IRQs))] {
		if !slices.Equal(q.Affinity, []int{2 * i}) || q.Effective != nil {
			t.Errorf("irq %d affinity %v effective %v", q.Number, q.Affinity, q.Effective)
		}
	}
	j := firstJVM(t, f)
	if j.User != "ticket" || j.Version != "1.8.0_181" || j.MainClass != "/data/app/ticket-service.jar" || j.Limits["Max open files"].Hard != 65535 || j.Threads != 312 {
		t.Errorf("jvm %+v", j)
	}
}

// container-quota: inside a cgroup-v2 container (namespace root) limited to
// 2 CPUs and 4 GiB on a 16-vCPU EC2 host.
func TestFixtureContainerQuota(t *testing.T) {
	f := fixture(t, "container-quota")
	logUnavailable(t, f)
	c := f.Cgroup
	check(t, map[string]bool{
		"version":    c.Version.Value == "v2",
		"quota":      c.CPUQuota.OK && c.CPUQuota.Value == 2 && c.CPUPeriodUS.Value == 100000,
		"throttled":  c.Throttled.Value.NrThrottled == 1933110 && c.Throttled.Value.NrPeriods == 4812097,
		"memory":     c.MemoryLimit.Value == 4<<30,
		"pids":       c.PidsMax.Value == 4096,
		"cpuset":     len(c.CPUSet.Value) == 16,
		"logical":    f.CPU.Logical.Value == 16,
		"hypervisor": f.CPU.Hypervisor.Value == "KVM",
		"steal":      f.CPU.StealPct.OK && f.CPU.StealPct.Value > 3 && f.CPU.StealPct.Value < 4,
		"veth":       findNIC(f, "eth0").Virtual && findNIC(f, "eth0").IRQs == nil,
		"selinux":    f.Security.SELinux.Value == "absent",
		"daemons":    f.Daemons.OK && len(f.Daemons.Value) == 0,
	})
	j := firstJVM(t, f)
	if j.PID != 1 || j.Version != "1.8.0_121" || j.CPUQuota != 2 || j.MemoryLimit != 4<<30 || j.MainClass != "/app/order-service.jar" {
		t.Errorf("jvm %+v", j)
	}
}

// The empty and garbage trees must yield nothing, with reasons, and no panic.
func TestFixtureEmptyAndGarbage(t *testing.T) {
	for _, name := range []string{"empty", "garbage"} {
		t.Run(name, func(t *testing.T) {
			assertAllUnavailable(t, fixture(t, name))
		})
	}
}

func BenchmarkCollectKunpengFixture(b *testing.B) {
	dir := filepath.Join(fixtureRoot, "kunpeng920-2s4n")
	if _, err := os.Stat(dir); err != nil {
		b.Skip("fixture not present")
	}
	h := hostfs.Under(dir)
	b.ReportAllocs()
	for b.Loop() {
		Collect(h, Options{Now: fixedNow})
	}
}
