package sysinfo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

const hybridCgroup = `9:name=systemd:/
8:pids:/
4:memory:/process_api/ff1a3be377cf792c940e6dfada5435e6
2:cpuacct:/
1:cpu:/
0::/
`

func TestParseProcCgroup(t *testing.T) {
	ls, err := parseProcCgroup(hybridCgroup)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 6 || ls[2].ID != 4 || !slices.Equal(ls[2].Controllers, []string{"memory"}) ||
		ls[2].Path != "/process_api/ff1a3be377cf792c940e6dfada5435e6" || ls[5].Controllers != nil {
		t.Errorf("got %+v", ls)
	}
	ls, err = parseProcCgroup("2:cpu,cpuacct:/kubepods/burstable/pod1f4/0c9e\n")
	if err != nil || !slices.Equal(ls[0].Controllers, []string{"cpu", "cpuacct"}) {
		t.Errorf("got %+v %v", ls, err)
	}
	for _, bad := range []string{"", "garbage", "x:cpu:/", "1:cpu:relative", "\x00\x01"} {
		if _, err := parseProcCgroup(bad); err == nil {
			t.Errorf("parseProcCgroup(%q): want error", bad)
		}
	}
}

func TestParseMountinfo(t *testing.T) {
	b, err := os.ReadFile("testdata/mountinfo-firecracker-hybrid.txt")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parseMountinfo(string(b))
	if err != nil {
		t.Fatal(err)
	}
	v, err := cgroupVersion(ms)
	if err != nil {
		t.Fatal(err)
	}
	if v != "hybrid" {
		t.Errorf("version %q, want hybrid", v)
	}
	// Optional fields before "-", and an escaped space.
	m, err := parseMountinfo("36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 shared:2 - cgroup2 cgroup2 rw,nsdelegate\n")
	if err != nil || m[0].MountPoint != "/mnt two" || m[0].Root != "/mnt1" || m[0].FSType != "cgroup2" || !slices.Equal(m[0].SuperOpts, []string{"rw", "nsdelegate"}) {
		t.Errorf("got %+v %v", m, err)
	}
	if _, err := parseMountinfo("1 2 3\n"); err == nil {
		t.Error("short line accepted")
	}
	v2, _ := parseMountinfo("29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
	if v, _ := cgroupVersion(v2); v != "v2" {
		t.Errorf("v2 got %q", v)
	}
	v1, _ := parseMountinfo("32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n")
	if v, _ := cgroupVersion(v1); v != "v1" {
		t.Errorf("v1 got %q", v)
	}
	if _, err := cgroupVersion(nil); err == nil {
		t.Error("no mounts: want error")
	}
}

func TestCgroupValues(t *testing.T) {
	if q, p, err := parseCPUMax("max 100000\n"); err != nil || q != 0 || p != 100000 {
		t.Errorf("cpu.max max: %v %v %v", q, p, err)
	}
	if q, p, err := parseCPUMax("200000 100000"); err != nil || q != 2 || p != 100000 {
		t.Errorf("cpu.max 2 cores: %v %v %v", q, p, err)
	}
	for _, bad := range []string{"", "max", "x 100000", "100 0", "-5 100000"} {
		if _, _, err := parseCPUMax(bad); err == nil {
			t.Errorf("parseCPUMax(%q): want error", bad)
		}
	}
	if q, p, err := cfsQuota("-1", "100000"); err != nil || q != 0 || p != 100000 {
		t.Errorf("cfs unlimited: %v %v %v", q, p, err)
	}
	if q, _, err := cfsQuota("150000\n", "100000\n"); err != nil || q != 1.5 {
		t.Errorf("cfs 1.5: %v %v", q, err)
	}
	if _, _, err := cfsQuota("x", "100000"); err == nil {
		t.Error("bad quota accepted")
	}
	for in, want := range map[string]int64{"max": 0, "9223372036854771712": 0, "2147483648": 2147483648, "18446744073709551615": 0, "1024\n": 1024} {
		if got, err := parseLimitBytes(in); err != nil || got != want {
			t.Errorf("parseLimitBytes(%q) = %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "-5", "lots"} {
		if _, err := parseLimitBytes(bad); err == nil {
			t.Errorf("parseLimitBytes(%q): want error", bad)
		}
	}
	st, err := parseCgroupCPUStat("usage_usec 123\nuser_usec 100\nsystem_usec 23\nnr_periods 50\nnr_throttled 7\nthrottled_usec 81234\n")
	if err != nil || st != (CPUStat{50, 7, 81234}) {
		t.Errorf("v2 cpu.stat %+v %v", st, err)
	}
	st, err = parseCgroupCPUStat("nr_periods 0\nnr_throttled 0\nthrottled_time 5000000\nnr_bursts 0\nburst_time 0\n")
	if err != nil || st != (CPUStat{0, 0, 5000}) {
		t.Errorf("v1 cpu.stat %+v %v", st, err)
	}
	if _, err := parseCgroupCPUStat("usage_usec 1\n"); err == nil {
		t.Error("v2 without cpu controller: want error")
	}
}

// writeTree writes path -> content files under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCollectCgroupV2Container(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"proc/self/cgroup":    "0::/kubepods.slice/pod42/cri-abc\n",
		"proc/self/mountinfo": "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
		"sys/fs/cgroup/kubepods.slice/pod42/cri-abc/cpu.max":               "150000 100000\n",
		"sys/fs/cgroup/kubepods.slice/pod42/cri-abc/cpu.stat":              "usage_usec 9\nnr_periods 10\nnr_throttled 4\nthrottled_usec 700\n",
		"sys/fs/cgroup/kubepods.slice/pod42/cri-abc/memory.max":            "2147483648\n",
		"sys/fs/cgroup/kubepods.slice/pod42/cri-abc/pids.max":              "max\n",
		"sys/fs/cgroup/kubepods.slice/pod42/cri-abc/cpuset.cpus.effective": "0-3\n",
	})
	c := collectCgroup(hostfs.Under(dir))
	if c.Version.Value != "v2" || c.Path.Value != "/kubepods.slice/pod42/cri-abc" || c.CPUQuota.Value != 1.5 ||
		c.CPUPeriodUS.Value != 100000 || c.Throttled.Value != (CPUStat{10, 4, 700}) || c.MemoryLimit.Value != 2<<30 ||
		!c.PidsMax.OK || c.PidsMax.Value != 0 || !slices.Equal(c.CPUSet.Value, []int{0, 1, 2, 3}) {
		t.Errorf("got %+v", c)
	}
	if c.CPUQuota.Source != "/sys/fs/cgroup/kubepods.slice/pod42/cri-abc/cpu.max" {
		t.Errorf("source %q", c.CPUQuota.Source)
	}

	// cgroup namespace: the path is not under the mount; read the mount root.
	ns := t.TempDir()
	writeTree(t, ns, map[string]string{
		"proc/self/cgroup":            "0::/../../pod42/cri-abc\n",
		"proc/self/mountinfo":         "29 23 0:26 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/cpu.max":       "50000 100000\n",
		"sys/fs/cgroup/memory.max":    "536870912\n",
		"sys/fs/cgroup/cpu.stat":      "nr_periods 1\nnr_throttled 1\nthrottled_usec 5\n",
		"sys/fs/cgroup/pids.max":      "512\n",
		"sys/fs/cgroup/cpuset.cpus":   "1\n",
		"sys/fs/cgroup/cgroup.procs":  "1\n",
		"sys/fs/cgroup/cgroup.events": "populated 1\n",
	})
	c = collectCgroup(hostfs.Under(ns))
	if c.CPUQuota.Value != 0.5 || c.MemoryLimit.Value != 512<<20 || c.PidsMax.Value != 512 || !slices.Equal(c.CPUSet.Value, []int{1}) {
		t.Errorf("namespace: %+v", c)
	}
	if want := "/sys/fs/cgroup/cpu.max (path /../../pod42/cri-abc not under the mount (cgroup namespace); read at mount root)"; c.CPUQuota.Source != want {
		t.Errorf("source %q", c.CPUQuota.Source)
	}
}

func TestCollectCgroupV1(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"proc/self/cgroup": "11:cpuset:/docker/abc\n4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n2:pids:/docker/abc\n1:name=systemd:/docker/abc\n",
		"proc/self/mountinfo": "25 18 0:21 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n" +
			"30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n" +
			"31 25 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
			"32 25 0:28 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n" +
			"33 25 0:29 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n",
		"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  "200000\n",
		"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
		"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.stat":          "nr_periods 3\nnr_throttled 1\nthrottled_time 2000\n",
		"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes":  "9223372036854771712\n",
		"sys/fs/cgroup/pids/docker/abc/pids.max":                 "4096\n",
		"sys/fs/cgroup/cpuset/docker/abc/cpuset.cpus":            "0-1\n",
	})
	c := collectCgroup(hostfs.Under(dir))
	if c.Version.Value != "v1" || c.CPUQuota.Value != 2 || c.Throttled.Value != (CPUStat{3, 1, 2}) ||
		!c.MemoryLimit.OK || c.MemoryLimit.Value != 0 || c.PidsMax.Value != 4096 || !slices.Equal(c.CPUSet.Value, []int{0, 1}) {
		t.Errorf("got %+v", c)
	}
}

func FuzzParseProcCgroup(f *testing.F) {
	f.Add(hybridCgroup)
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := parseProcCgroup(s)
		if err != nil {
			return
		}
		for _, l := range ls {
			if l.ID < 0 || len(l.Path) == 0 || l.Path[0] != '/' {
				t.Fatalf("bad line %+v", l)
			}
		}
	})
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n")
	f.Add("36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 - ext3 /dev/root rw\n")
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := parseMountinfo(s)
		if err == nil && len(ms) == 0 {
			t.Fatal("no error, no mounts")
		}
		_, _ = cgroupVersion(ms)
	})
}

func FuzzParseCgroupValues(f *testing.F) {
	f.Add("max 100000")
	f.Add("nr_periods 1\nnr_throttled 0\nthrottled_usec 0")
	f.Add("9223372036854771712")
	f.Fuzz(func(t *testing.T, s string) {
		if q, p, err := parseCPUMax(s); err == nil && (q < 0 || p <= 0) {
			t.Fatalf("cpu.max %v %v", q, p)
		}
		if q, p, err := cfsQuota(s, s); err == nil && (q < 0 || p <= 0) {
			t.Fatalf("cfs %v %v", q, p)
		}
		if v, err := parseLimitBytes(s); err == nil && (v < 0 || v >= unlimitedBytes) {
			t.Fatalf("limit %v", v)
		}
		if st, err := parseCgroupCPUStat(s); err == nil && (st.NrPeriods < 0 || st.ThrottledUsec < 0) {
			t.Fatalf("cpu.stat %+v", st)
		}
	})
}
