package sysinfo

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// readPaths is every file Collect reads, relative to a tree root.
var readPaths = func() []string {
	p := []string{
		"proc/sys/kernel/hostname", "proc/sys/kernel/osrelease", "proc/version", "proc/sys/kernel/arch", "proc/cmdline",
		"etc/os-release", "etc/passwd", "etc/tuned/active_profile", "etc/machine-id",
		"proc/cpuinfo", "proc/stat", "proc/meminfo", "proc/swaps", "proc/interrupts", "proc/net/softnet_stat",
		"proc/self/cgroup", "proc/self/mountinfo",
		"proc/1/comm", "proc/1/cmdline", "proc/4321/comm", "proc/4321/cmdline", "proc/4321/status", "proc/4321/limits",
		"proc/irq/38/smp_affinity_list", "proc/irq/38/effective_affinity_list",
		"sys/devices/system/cpu/online", "sys/devices/system/cpu/smt/active",
		"sys/devices/system/cpu/cpu0/topology/physical_package_id", "sys/devices/system/cpu/cpu0/topology/core_id",
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors", "sys/devices/system/cpu/intel_pstate/no_turbo",
		"sys/devices/system/cpu/cpuidle/current_driver", "sys/devices/system/cpu/cpuidle/current_governor",
		"sys/devices/system/cpu/cpu0/cpuidle/state0/name", "sys/devices/system/cpu/cpu0/cpuidle/state0/latency",
		"sys/devices/system/cpu/vulnerabilities/meltdown", "sys/devices/system/cpu/vulnerabilities/spectre_v2",
		"sys/hypervisor/type", "sys/class/dmi/id/sys_vendor", "sys/class/dmi/id/product_name", "sys/firmware/acpi/tables/DSDT",
		"sys/devices/system/node/node0/cpulist", "sys/devices/system/node/node0/meminfo", "sys/devices/system/node/node0/distance",
		"sys/kernel/mm/transparent_hugepage/enabled", "sys/kernel/mm/transparent_hugepage/defrag",
		"sys/fs/cgroup/cpu.max", "sys/fs/cgroup/memory.max", "sys/fs/cgroup/pids.max", "sys/fs/cgroup/cpu.stat",
		"sys/class/net/eth0/mtu", "sys/class/net/eth0/operstate", "sys/class/net/eth0/speed", "sys/class/net/eth0/device/numa_node",
		"sys/class/net/eth0/queues/rx-0/rps_cpus",
		"sys/block/sda/size", "sys/block/sda/queue/scheduler", "sys/block/sda/queue/rotational",
		"sys/fs/selinux/enforce",
		"sys/devices/system/clocksource/clocksource0/current_clocksource",
		"sys/devices/system/clocksource/clocksource0/available_clocksource",
	}
	for _, k := range SysctlKeys {
		p = append(p, "proc/"+sysctlPath(k))
	}
	return p
}()

// garbageTree writes binary junk at every path Collect reads, plus at
// every file of the capture fixture when it exists.
func garbageTree(t *testing.T, seed uint64) string {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(seed, 1))
	junk := func() []byte {
		b := make([]byte, 1+r.IntN(300))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		b[0] = 0 // always binary
		return b
	}
	write := func(rel string) {
		full := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, junk(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range readPaths {
		write(p)
	}
	fixture := "../../testdata/hosts/build-vm-amd64"
	filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		rel, _ := filepath.Rel(fixture, p)
		write(rel)
		return nil
	})
	return dir
}

func TestCollectGarbageTree(t *testing.T) {
	for seed := range uint64(3) {
		f := collect(t, hostfs.Under(garbageTree(t, seed)))
		assertAllUnavailable(t, f)
	}
}

// Plausible-looking but wrong text must not panic either.
func TestCollectTextGarbage(t *testing.T) {
	texts := []string{"", "\n", "hello world", "1 2 3\n4 5 6\n", "key: value\n", "[", "-", "0-", "ffffffff,", "max max", "-1", "99999999999999999999999"}
	for shift := range len(texts) {
		dir := t.TempDir()
		for i, p := range readPaths {
			writeTree(t, dir, map[string]string{p: texts[(i+shift)%len(texts)]})
		}
		_ = collect(t, hostfs.Under(dir))
	}
}
