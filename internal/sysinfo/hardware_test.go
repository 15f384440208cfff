package sysinfo

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/sample"
)

func TestSummarizeTopology(t *testing.T) {
	// 2 sockets x 2 cores x 2 threads (x86 with SMT).
	smt := map[int]cpuTopo{}
	for cpu := range 8 {
		smt[cpu] = cpuTopo{pkg: cpu / 4, core: (cpu % 4) / 2, siblings: 2}
	}
	got, err := summarizeTopology(smt)
	if err != nil || got != (topoSummary{sockets: 2, cores: 4, threadsPerCore: 2}) {
		t.Errorf("smt: %+v %v", got, err)
	}
	// Kunpeng 920: no SMT; core_id repeats across packages.
	kp := map[int]cpuTopo{}
	for cpu := range 128 {
		kp[cpu] = cpuTopo{pkg: cpu / 64, core: cpu % 64, siblings: 1}
	}
	got, _ = summarizeTopology(kp)
	if got != (topoSummary{sockets: 2, cores: 128, threadsPerCore: 1}) {
		t.Errorf("kunpeng: %+v", got)
	}
	if _, err := summarizeTopology(nil); err == nil {
		t.Error("want error on empty")
	}
}

func TestParseSmallFiles(t *testing.T) {
	if v, err := parseInt("-1\n"); err != nil || v != -1 {
		t.Errorf("parseInt: %v %v", v, err)
	}
	if _, err := parseInt("1400 x"); err == nil {
		t.Error("parseInt garbage accepted")
	}
	if v, err := parseBool01("1"); err != nil || !v {
		t.Errorf("parseBool01: %v %v", v, err)
	}
	if _, err := parseBool01("forceoff"); err == nil {
		t.Error("parseBool01 garbage accepted")
	}
	if w, err := parseWords("ladder menu haltpoll \n"); err != nil || !slices.Equal(w, []string{"ladder", "menu", "haltpoll"}) {
		t.Errorf("parseWords: %v %v", w, err)
	}
	if v, err := parseSysctl("4096\t131072\t6291456\n"); err != nil || v != "4096 131072 6291456" {
		t.Errorf("parseSysctl: %q %v", v, err)
	}
	if sysctlPath("kernel.threads-max") != "sys/kernel/threads-max" || sysctlPath("net.ipv4.tcp_rmem") != "sys/net/ipv4/tcp_rmem" {
		t.Error("sysctlPath")
	}
}

func TestParseBracketChoice(t *testing.T) {
	tests := []struct {
		in      string
		sel     string
		all     []string
		wantErr bool
	}{
		{"always [madvise] never", "madvise", []string{"always", "madvise", "never"}, false},
		{"always defer defer+madvise [madvise] never\n", "madvise", []string{"always", "defer", "defer+madvise", "madvise", "never"}, false},
		{"[always] madvise never", "always", []string{"always", "madvise", "never"}, false},
		{"always madvise never", "", nil, true},
		{"[a] [b]", "", nil, true},
		{"[]", "", nil, true},
		{"", "", nil, true},
	}
	for _, tt := range tests {
		sel, all, err := parseBracketChoice(tt.in)
		if (err != nil) != tt.wantErr || sel != tt.sel || !slices.Equal(all, tt.all) {
			t.Errorf("parseBracketChoice(%q) = %q %v %v", tt.in, sel, all, err)
		}
	}
	for in, want := range map[string]string{"none [mq-deadline] kyber bfq": "mq-deadline", "[none] mq-deadline": "none", "none": "none", "noop deadline [cfq]": "cfq"} {
		if sel, _, err := parseScheduler(in); err != nil || sel != want {
			t.Errorf("parseScheduler(%q) = %q %v", in, sel, err)
		}
	}
}

func TestParseMeminfo(t *testing.T) {
	in := "MemTotal:       24684096 kB\nMemFree:        23639524 kB\nMemAvailable:   24071900 kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\nActive(anon):       1588 kB\n"
	m, err := parseMeminfo(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"MemTotal": 24684096, "MemFree": 23639524, "MemAvailable": 24071900, "HugePages_Total": 0, "Hugepagesize": 2048, "Active(anon)": 1588}
	if !maps.Equal(m, want) {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"", "MemFree: 1 kB\n", "MemTotal: x kB", "MemTotal: 1 MB", "\x00garbage"} {
		if _, err := parseMeminfo(bad); err == nil {
			t.Errorf("parseMeminfo(%q): want error", bad)
		}
	}
	// The error is sample.ParseMeminfo's (the one meminfo parser): it names the line.
	if _, err := parseMeminfo("MemTotal: 1 kB\nbroken\n"); err == nil || !strings.Contains(err.Error(), `line 2: no colon: "broken"`) {
		t.Errorf("line error: %v", err)
	}
}

func TestParseNodeMeminfo(t *testing.T) {
	in := "Node 0 MemTotal:        4417752 kB\nNode 0 MemFree:         4185388 kB\nNode 0 MemUsed:          232364 kB\nNode 0 HugePages_Total:     0\n"
	tot, free, err := parseNodeMeminfo(in)
	if err != nil || tot != 4417752 || free != 4185388 {
		t.Errorf("got %d %d %v", tot, free, err)
	}
	if _, _, err := parseNodeMeminfo("MemTotal: 1 kB"); err == nil {
		t.Error("want error for /proc/meminfo format")
	}
	d, err := parseDistance("10 12 20 22\n")
	if err != nil || !slices.Equal(d, []int{10, 12, 20, 22}) {
		t.Errorf("distance %v %v", d, err)
	}
	if _, err := parseDistance("10 x"); err == nil {
		t.Error("bad distance accepted")
	}
}

func TestStealPct(t *testing.T) {
	// cpu  1709 0 444 52100 125 0 12 1 0 0 (USER_HZ ticks, as sample.ParseStat reads them)
	st, err := sample.ParseStat([]byte("cpu  1709 0 444 52100 125 0 12 1 0 0\ncpu0 1709 0 444 52100 125 0 12 1 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := stealPct(st.All)
	if err != nil || math.Abs(got-0.00183) > 0.0001 {
		t.Errorf("stealPct = %v %v", got, err)
	}
	if _, err := stealPct(sample.CPUTimes{}); err == nil {
		t.Error("want error on zero line")
	}
}

func TestDetectHypervisor(t *testing.T) {
	dsdt := []byte("DSDTS\x0f\x00\x00\x02wFIRECKFCVMDSDT\x00\x00\x00\x00FCAT")
	oem, err := acpiOEMID(dsdt)
	if err != nil || oem != "FIRECK" {
		t.Fatalf("acpiOEMID = %q %v", oem, err)
	}
	if _, err := acpiOEMID([]byte("garbage")); err == nil {
		t.Error("acpiOEMID garbage accepted")
	}
	srcs := map[string]string{"xen": "x", "dmi": "d", "acpi": "a", "cmdline": "c", "cpuinfo": "p"}
	tests := []struct {
		name    string
		e       hvEvidence
		want    string
		src     string
		wantErr bool
	}{
		{"this machine: firecracker on EPYC", hvEvidence{acpiOEM: oem, cpuinfoKnown: true, x86: true, hypervisorFlag: true, clocksources: "tsc kvm-clock"}, "Firecracker", "a", false},
		{"firecracker by cmdline", hvEvidence{cmdline: "... -- --firecracker-init", cpuinfoKnown: true, x86: true, hypervisorFlag: true}, "Firecracker", "c", false},
		{"xen", hvEvidence{xenType: "xen"}, "Xen", "x", false},
		{"qemu kvm", hvEvidence{dmiVendor: "QEMU", dmiProd: "Standard PC (Q35 + ICH9, 2009)", cpuinfoKnown: true, x86: true, hypervisorFlag: true}, "KVM", "d", false},
		{"vmware", hvEvidence{dmiVendor: "VMware, Inc.", dmiProd: "VMware Virtual Platform"}, "VMware", "d", false},
		{"hyper-v", hvEvidence{dmiVendor: "Microsoft Corporation", dmiProd: "Virtual Machine"}, "Microsoft", "d", false},
		{"huawei cloud ecs arm", hvEvidence{dmiVendor: "Huawei Cloud", dmiProd: "KVM Virtual Machine", cpuinfoKnown: true}, "KVM", "d", false},
		{"ec2 metal", hvEvidence{dmiVendor: "Amazon EC2", dmiProd: "c5.metal", cpuinfoKnown: true, x86: true}, "", "p", false},
		{"kvm by flag", hvEvidence{cpuinfoKnown: true, x86: true, hypervisorFlag: true, clocksources: "kvm-clock tsc"}, "KVM", "p", false},
		{"unknown by flag", hvEvidence{cpuinfoKnown: true, x86: true, hypervisorFlag: true}, "unknown", "p", false},
		{"x86 bare metal", hvEvidence{cpuinfoKnown: true, x86: true, dmiVendor: "Dell Inc."}, "", "p", false},
		{"taishan bare metal", hvEvidence{cpuinfoKnown: true, dmiVendor: "Huawei", dmiProd: "TaiShan 200 (Model 2280)"}, "", "d", false},
		{"arm without dmi", hvEvidence{cpuinfoKnown: true}, "", "", true},
		{"nothing", hvEvidence{}, "", "", true},
	}
	for _, tt := range tests {
		tt.e.srcs = srcs
		got, src, err := detectHypervisor(tt.e)
		if (err != nil) != tt.wantErr || got != tt.want || src != tt.src {
			t.Errorf("%s: got %q from %q, %v", tt.name, got, src, err)
		}
	}
}

func FuzzParseMeminfo(f *testing.F) {
	f.Add("MemTotal:       24684096 kB\nHugePages_Total:       0\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseMeminfo(s)
		if err == nil {
			if _, ok := m["MemTotal"]; !ok {
				t.Fatal("no MemTotal but no error")
			}
		}
	})
}

func FuzzParseNodeMeminfo(f *testing.F) {
	f.Add("Node 0 MemTotal:        4417752 kB\nNode 0 MemFree:         4185388 kB\n")
	f.Fuzz(func(t *testing.T, s string) {
		tot, free, err := parseNodeMeminfo(s)
		if err == nil && (tot < 0 || free < 0) {
			t.Fatal("negative")
		}
	})
}

func FuzzParseBracketChoice(f *testing.F) {
	f.Add("always defer defer+madvise [madvise] never")
	f.Fuzz(func(t *testing.T, s string) {
		sel, all, err := parseBracketChoice(s)
		if err == nil && (sel == "" || !slices.Contains(all, sel)) {
			t.Fatalf("selected %q not among %v", sel, all)
		}
	})
}

func FuzzDetectHypervisor(f *testing.F) {
	f.Add([]byte("DSDTS\x0f\x00\x00\x02wFIRECKFCVMDSDT"), "QEMU", "KVM")
	f.Fuzz(func(t *testing.T, dsdt []byte, vendor, product string) {
		oem, _ := acpiOEMID(dsdt)
		_, _, _ = detectHypervisor(hvEvidence{acpiOEM: oem, dmiVendor: vendor, dmiProd: product})
	})
}

func TestParseSoftnet(t *testing.T) {
	in := "000336da 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n" +
		"001c81aa 00000002 0000000a 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001 00000000 00000000\n"
	sn, err := parseSoftnet(in)
	if err != nil || sn != (Softnet{Processed: 0x336da + 0x1c81aa, Dropped: 2, TimeSqueeze: 10}) {
		t.Errorf("got %+v %v", sn, err)
	}
	for _, bad := range []string{"", "zz 0 0", "1 2", "\x00"} {
		if _, err := parseSoftnet(bad); err == nil {
			t.Errorf("parseSoftnet(%q): want error", bad)
		}
	}
}

func FuzzParseSoftnet(f *testing.F) {
	f.Add("000336da 00000000 00000000 00000000\n001c81aa 00000000 00000001 00000000\n")
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseSoftnet(s); err == nil && strings.TrimSpace(s) == "" {
			t.Fatal("blank input accepted")
		}
	})
}

func FuzzParseSmallFiles(f *testing.F) {
	for _, s := range []string{"1", "-1\n", "4096\t131072\t6291456", "x86_64", "10 12 20 22", "0-3", "ladder menu"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseInt(s); err == nil && strings.TrimSpace(s) == "" {
			t.Fatal("blank int")
		}
		_, _ = parseBool01(s)
		if w, err := parseWords(s); err == nil && len(w) == 0 {
			t.Fatal("no words, no error")
		}
		if v, err := parseSysctl(s); err == nil && (v == "" || strings.Contains(v, "  ")) {
			t.Fatalf("sysctl %q", v)
		}
		if a, err := parseArch(s); err == nil && a == "" {
			t.Fatal("empty arch")
		}
		if d, err := parseDistance(s); err == nil && len(d) == 0 {
			t.Fatal("no distances")
		}
		if l, err := parseCPUListNonEmpty(s); err == nil && len(l) == 0 {
			t.Fatal("empty list accepted")
		}
		_, _ = acpiOEMID([]byte(s))
	})
}
