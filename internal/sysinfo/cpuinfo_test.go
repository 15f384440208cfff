package sysinfo

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

const kunpengCPUInfo = `processor	: 0
BogoMIPS	: 200.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma dcpop asimddp asimdfhm
CPU implementer	: 0x48
CPU architecture: 8
CPU variant	: 0x1
CPU part	: 0xd01
CPU revision	: 0

processor	: 1
BogoMIPS	: 200.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma dcpop asimddp asimdfhm
CPU implementer	: 0x48
CPU architecture: 8
CPU variant	: 0x1
CPU part	: 0xd01
CPU revision	: 0
`

func TestParseCPUInfo(t *testing.T) {
	epyc, err := os.ReadFile("testdata/cpuinfo-firecracker-epyc.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                     string
		in                       string
		procs                    int
		vendor, model, impl, prt string
		arch                     string
		flag                     string
	}{
		{"epyc-firecracker", string(epyc), 2, "AuthenticAMD", "AMD EPYC", "", "", "x86_64", "hypervisor"},
		{"kunpeng920", kunpengCPUInfo, 2, "", "", "0x48", "0xd01", "aarch64", "asimd"},
		{"neoverse-n1", "processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n", 1, "", "", "0x41", "0xd0c", "aarch64", ""},
		{"xeon", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\nflags\t\t: fpu vme tsc\n", 1, "GenuineIntel", "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "", "", "x86_64", "tsc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ci, err := parseCPUInfo(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if ci.processors != tt.procs || ci.vendorID != tt.vendor || ci.modelName != tt.model ||
				ci.implementer != tt.impl || ci.part != tt.prt || ci.arch != tt.arch {
				t.Errorf("got %+v", ci)
			}
			if tt.flag != "" && !slices.Contains(ci.flags, tt.flag) {
				t.Errorf("flags %v lack %q", ci.flags, tt.flag)
			}
		})
	}
	for _, bad := range []string{"", "garbage without colon", "\x00\x01\x02", "model name : x\n"} {
		if _, err := parseCPUInfo(bad); err == nil {
			t.Errorf("parseCPUInfo(%q): want error", bad)
		}
	}
}

func TestARMCores(t *testing.T) {
	tests := []struct {
		impl, part, vendor, name string
		kunpeng                  bool
	}{
		{"0x48", "0xd01", "HiSilicon", "Kunpeng 920 (TaiShan v110)", true},
		{"0x48", "0xd02", "HiSilicon", "HiSilicon part 0xd02", true},
		{"0x41", "0xd0c", "ARM", "Neoverse N1", false},
		{"0x41", "0xd40", "ARM", "Neoverse V1", false},
		{"0x41", "0xd49", "ARM", "Neoverse N2", false},
		{"0x41", "0xd4f", "ARM", "Neoverse V2", false},
		{"0x41", "0xd08", "ARM", "Cortex-A72", false},
		{"0xc0", "0xac3", "Ampere", "AmpereOne", false},
		{"0x70", "0x662", "Phytium", "Phytium FTC662", false},
		{"0x70", "0x663", "Phytium", "Phytium FTC663", false},
		{"0x99", "0x123", "implementer 0x99", "implementer 0x99 part 0x123", false},
	}
	for _, tt := range tests {
		if v, n, k := armVendor(tt.impl), armCoreName(tt.impl, tt.part), isKunpeng(tt.impl, tt.part); v != tt.vendor || n != tt.name || k != tt.kunpeng {
			t.Errorf("%s/%s = %q %q %v", tt.impl, tt.part, v, n, k)
		}
	}
}

func FuzzParseCPUInfo(f *testing.F) {
	f.Add(kunpengCPUInfo)
	f.Add("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t: fpu\n")
	f.Fuzz(func(t *testing.T, s string) {
		ci, err := parseCPUInfo(s)
		if err == nil && ci.processors < 1 {
			t.Fatal("no error but no processors")
		}
	})
}

// bigCPUInfo is a 128-processor Kunpeng cpuinfo.
func bigCPUInfo(n int) string {
	var b strings.Builder
	block := strings.SplitN(kunpengCPUInfo, "\n\n", 2)[0]
	for i := range n {
		fmt.Fprintf(&b, "%s\n\n", strings.Replace(block, "processor\t: 0", fmt.Sprintf("processor\t: %d", i), 1))
	}
	return b.String()
}

func BenchmarkParseCPUInfo128(b *testing.B) {
	s := bigCPUInfo(128)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := parseCPUInfo(s); err != nil {
			b.Fatal(err)
		}
	}
}
