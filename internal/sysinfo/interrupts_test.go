package sysinfo

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseInterrupts(t *testing.T) {
	b, err := os.ReadFile("testdata/interrupts-firecracker-virtio.txt")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := parseInterrupts(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if tab.CPUs != 2 {
		t.Errorf("CPUs = %d", tab.CPUs)
	}
	q := tab.IRQs[tab.byNumber()[38]]
	if q.Name != "virtio2-input.0" || q.Chip != "PCI-MSIX-0000:00:03.0" || len(q.Counts) != 2 || q.Total != q.Counts[0]+q.Counts[1] {
		t.Errorf("irq 38: %+v", q)
	}
	if q := tab.IRQs[tab.byNumber()[24]]; q.Name != "ACPI:Ged" || q.Chip != "IO-APIC" {
		t.Errorf("irq 24: %+v", q)
	}
	for _, q := range tab.IRQs {
		if q.Number < 0 || len(q.Counts) == 0 {
			t.Errorf("bad row %+v", q)
		}
	}

	tests := []struct {
		name, in  string
		num       int
		chip, irq string
		counts    []uint64
	}{
		{"centos7 x86", "           CPU0       CPU1       \n 40:   12   0   IR-PCI-MSI-edge      eth0-TxRx-0\n", 40, "IR-PCI-MSI-edge", "eth0-TxRx-0", []uint64{12, 0}},
		{"kunpeng its", "           CPU0       CPU1\n 63:          9          0   ITS-MSI 524288 Edge      hinic0_queue0\n", 63, "ITS-MSI", "hinic0_queue0", []uint64{9, 0}},
		{"gic level", "      CPU0  CPU1\n 11:  4508  3322  GICv3  27 Level     arch_timer\n", 11, "GICv3", "arch_timer", []uint64{4508, 3322}},
		{"shared names", "   CPU0\n 16:  5  IO-APIC  16-fasteoi   ehci_hcd:usb1, uhci_hcd:usb2\n", 16, "IO-APIC", "ehci_hcd:usb1, uhci_hcd:usb2", []uint64{5}},
		{"no name", "   CPU0 CPU1\n  2:  0  0  XT-PIC-XT-PIC  \n", 2, "XT-PIC-XT-PIC", "", []uint64{0, 0}},
	}
	for _, tt := range tests {
		tab, err := parseInterrupts(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		q := tab.IRQs[0]
		if q.Number != tt.num || q.Chip != tt.chip || q.Name != tt.irq || !slices.Equal(q.Counts, tt.counts) {
			t.Errorf("%s: %+v", tt.name, q)
		}
	}
	// CPU 1 offline: the header skips it, and the columns say which CPU
	// each count is for; a row cut short by a CPU going offline mid-read
	// keeps the counts it has.
	tab, err = parseInterrupts("   CPU0 CPU2 CPU3\n 40: 7 0 9 PCI-MSI eth0-rx\n 41: 5 6 PCI-MSI eth0-tx\n")
	if err != nil || len(tab.IRQs) != 2 || !slices.Equal(tab.IRQs[0].CPUs, []int{0, 2, 3}) || !slices.Equal(tab.IRQs[1].Counts, []uint64{5, 6}) || tab.IRQs[1].Total != 11 {
		t.Errorf("offline CPU: %+v %v", tab, err)
	}
	if tab, _ := parseInterrupts("   CPU0 CPU1\n 40: 7 0 PCI-MSI eth0-rx\n"); tab.IRQs[0].CPUs != nil {
		t.Errorf("contiguous CPUs numbered: %v", tab.IRQs[0].CPUs)
	}
	for _, bad := range []string{"", "garbage\n", "  CPU0\n 1: x y\n", "\x00\x01"} {
		if _, err := parseInterrupts(bad); err == nil {
			t.Errorf("parseInterrupts(%q): want error", bad)
		}
	}
	if _, err := parseInterrupts("  CPU0\n 1: 5 chip a\n 2: x\n"); err == nil || !strings.HasPrefix(err.Error(), "line 3:") {
		t.Errorf("want line 3 error, got %v", err)
	}
}

// interrupts128 is a /proc/interrupts of a 128-CPU Kunpeng 920 host with
// 300 device IRQs.
func interrupts128() string {
	var b strings.Builder
	for c := range 128 {
		fmt.Fprintf(&b, "%11s", fmt.Sprintf("CPU%d", c))
	}
	b.WriteString("\n")
	for irq := range 300 {
		fmt.Fprintf(&b, "%4d: ", irq+40)
		for c := range 128 {
			fmt.Fprintf(&b, "%10d ", (irq*7+c*13)%100000)
		}
		fmt.Fprintf(&b, "  ITS-MSI %d Edge      hinic0_queue%d\n", 524288+irq, irq)
	}
	b.WriteString("IPI0:  1 2\n")
	return b.String()
}

func BenchmarkParseInterrupts128(b *testing.B) {
	s := interrupts128()
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		tab, err := parseInterrupts(s)
		if err != nil || len(tab.IRQs) != 300 {
			b.Fatal(err)
		}
	}
}

func FuzzParseInterrupts(f *testing.F) {
	f.Add("           CPU0       CPU1\n 38:          0        645 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\nNMI: 0 0 Non-maskable interrupts\n")
	f.Add("  CPU0\n 63: 9 ITS-MSI 524288 Edge hinic0_queue0\n")
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := parseInterrupts(s)
		if err != nil {
			return
		}
		for _, q := range tab.IRQs {
			if len(q.Counts) == 0 || len(q.Counts) > tab.CPUs || q.Number < 0 {
				t.Fatalf("bad row %+v (cpus %d)", q, tab.CPUs)
			}
			var sum uint64
			for _, c := range q.Counts {
				sum += c
			}
			if sum != q.Total {
				t.Fatalf("total %d != sum %d", q.Total, sum)
			}
		}
	})
}
