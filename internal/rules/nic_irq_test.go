package rules

import (
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// With CPU 1 offline, /proc/interrupts' columns are CPUs 0, 2, 3: the
// interrupts of the third column land on CPU 3, not CPU 2.
func TestIRQTargetsOfflineCPU(t *testing.T) {
	n := sysinfo.NIC{IRQs: []sysinfo.IRQ{
		{Number: 40, Counts: []uint64{0, 10, 90}, CPUs: []int{0, 2, 3}},
		{Number: 41, Counts: []uint64{0, 0, 100}, CPUs: []int{0, 2, 3}},
	}}
	cpus, busiest, share := irqTargets(n)
	if !slices.Equal(cpus, []int{2, 3}) || busiest != 3 || share != 0.95 {
		t.Errorf("irqTargets = %v, %d, %v; want [2 3], 3, 0.95", cpus, busiest, share)
	}
	// Columns 0..n-1 (no CPUs): the column is the CPU, as before.
	n = sysinfo.NIC{IRQs: []sysinfo.IRQ{{Number: 40, Counts: []uint64{0, 10, 90}}}}
	if cpus, busiest, _ := irqTargets(n); !slices.Equal(cpus, []int{1, 2}) || busiest != 2 {
		t.Errorf("irqTargets = %v, %d; want [1 2], 2", cpus, busiest)
	}
}
