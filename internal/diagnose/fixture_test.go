package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// SoftirqFixture is a run folder recorded (synthetically) on a Kunpeng-like
// host: 8 CPUs in 2 NUMA nodes, NIC enp125s0f0 (hinic) with one queue whose
// IRQ is bound to CPU 0; NET_RX softirq keeps CPU 0 at ~95% si while the
// other CPUs idle.
const SoftirqFixture = "testdata/runs/kunpeng-softirq"

func kunpengFacts() *sysinfo.Facts {
	f := &sysinfo.Facts{SchemaVersion: sysinfo.SchemaVersion, CollectedAt: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
	f.Hostname = sysinfo.Got("kp920-app01", "/proc/sys/kernel/hostname")
	f.Kernel.Arch = sysinfo.Got("aarch64", "/proc/sys/kernel/arch")
	f.Kernel.Release = sysinfo.Got("5.10.0-182.0.0.95.oe2203sp3.aarch64", "/proc/sys/kernel/osrelease")
	f.OS.PrettyName = sysinfo.Got("openEuler 22.03 (LTS-SP3)", "/etc/os-release")
	f.CPU.Vendor = sysinfo.Got("HiSilicon", "/proc/cpuinfo")
	f.CPU.Model = sysinfo.Got("Kunpeng 920 (TaiShan v110)", "/proc/cpuinfo")
	f.CPU.Implementer, f.CPU.Part, f.CPU.Kunpeng = "0x48", "0xd01", true
	f.CPU.Logical = sysinfo.Got(8, "/proc/cpuinfo")
	f.CPU.Online = sysinfo.Got([]int{0, 1, 2, 3, 4, 5, 6, 7}, "/sys/devices/system/cpu/online")
	f.CPU.Hypervisor = sysinfo.Got("", "/proc/cpuinfo")
	f.NUMA.Nodes = sysinfo.Got([]sysinfo.Node{
		{ID: 0, CPUs: []int{0, 1, 2, 3}, Distances: []int{10, 16}},
		{ID: 1, CPUs: []int{4, 5, 6, 7}, Distances: []int{16, 10}},
	}, "/sys/devices/system/node")
	f.NICs = sysinfo.Got([]sysinfo.NIC{
		{Name: "lo", Virtual: true, Loopback: true, OperState: "unknown", SpeedMbps: -1, MTU: 65536, NUMANode: -1},
		{Name: "enp125s0f0", Driver: "hinic", OperState: "up", SpeedMbps: 25000, MTU: 1500, NUMANode: 0, PCI: "0000:7d:00.0",
			RxQueues: 1, TxQueues: 1, Combined: 1, MaxCombined: 16,
			IRQs: []sysinfo.IRQ{{Number: 97, Name: "enp125s0f0-TxRx-0", Chip: "ITS-MSI", Counts: []uint64{48213377, 0, 0, 0, 0, 0, 0, 0},
				Total: 48213377, Affinity: []int{0}, Effective: []int{0}}}},
	}, "/sys/class/net")
	f.IRQBalance = sysinfo.Got(false, "/proc/*/comm")
	f.Sysctl = map[string]sysinfo.Field[string]{"net.core.somaxconn": sysinfo.Got("4096", "/proc/sys/net/core/somaxconn")}
	return f
}

// softirqSnapshots builds n+1 raw snapshots 1 s apart.
func softirqSnapshots(n int) []*sample.Snapshot {
	start := time.Date(2026, 11, 21, 9, 0, 1, 0, time.UTC)
	cpus := []int{0, 1, 2, 3, 4, 5, 6, 7}
	var out []*sample.Snapshot
	st := sample.Stat{All: sample.CPUTimes{CPU: -1}}
	for _, c := range cpus {
		st.CPUs = append(st.CPUs, sample.CPUTimes{CPU: c, User: 1000, System: 500, Idle: 100000, SoftIRQ: 200})
	}
	netrx := make([]uint64, 8)
	timer := make([]uint64, 8)
	irq97 := make([]uint64, 8)
	for i := range 8 {
		netrx[i], timer[i] = 1000, 50000
	}
	netrx[0], irq97[0] = 48000000, 48213377
	for k := 0; k <= n; k++ {
		if k > 0 {
			// one second = 100 ticks per CPU
			for i := range st.CPUs {
				c := &st.CPUs[i]
				if i == 0 {
					c.SoftIRQ += 95
					c.System += 3
					c.User += 2
				} else {
					c.User += 3
					c.Idle += 97
				}
				timer[i] += 250
			}
			netrx[0] += 41000 + uint64(k*37%500)
			irq97[0] += 38000
			for i := 1; i < 8; i++ {
				netrx[i] += 4
			}
		}
		all := sample.CPUTimes{CPU: -1}
		for _, c := range st.CPUs {
			all.User += c.User
			all.System += c.System
			all.Idle += c.Idle
			all.SoftIRQ += c.SoftIRQ
		}
		s := &sample.Snapshot{Time: start.Add(time.Duration(k) * time.Second), Tick: int64(k + 1), CostUS: 900,
			Samplers: []sample.Outcome{{Name: "cpu", Status: sample.StatusOK, CostUS: 80}, {Name: "interrupts", Status: sample.StatusOK, CostUS: 200},
				{Name: "softirqs", Status: sample.StatusOK, CostUS: 60}},
			Stat:       &sample.Stat{All: all, CPUs: append([]sample.CPUTimes(nil), st.CPUs...), Ctxt: uint64(1000000 + 9000*k), Running: 2},
			Softirqs:   &sample.Softirqs{CPUs: cpus, Rows: []sample.SoftirqRow{{Type: "TIMER", Counts: append([]uint64(nil), timer...)}, {Type: "NET_RX", Counts: append([]uint64(nil), netrx...)}}},
			Interrupts: &sample.Interrupts{CPUs: cpus, Rows: []sample.IRQRow{{IRQ: "97", Name: "ITS-MSI 65536 Edge enp125s0f0-TxRx-0", Counts: append([]uint64(nil), irq97...)}}},
		}
		out = append(out, s)
	}
	return out
}

func TestSingleQueueNoMoreChannelsUsesRPS(t *testing.T) {
	f := kunpengFacts()
	f.NICs.Value[1].MaxCombined = 1
	s := series(6, 8, func(_ int, t *Tick) {
		t.CPUs[0] = CPU{Soft: 95, System: 3, User: 2}
		t.Softirq = map[string][]float64{"NET_RX": {41000, 4, 4, 4, 4, 4, 4, 4}}
	})
	fs := diag(s, f)
	top := fs[0]
	if top.ID != IDSoftirqConcentrated || !strings.Contains(top.Fix.Apply, "echo e > /sys/class/net/enp125s0f0/queues/rx-0/rps_cpus") ||
		strings.Contains(top.Fix.Apply, "ethtool -L") || !strings.Contains(top.Fix.Revert, "echo 0 > /sys/class/net/enp125s0f0/queues/rx-0/rps_cpus") {
		t.Fatalf("%s:\n%s\n--\n%s", top.ID, top.Fix.Apply, top.Fix.Revert)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
