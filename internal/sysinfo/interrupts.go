package sysinfo

// /proc/interrupts: a CPU header, then one row per IRQ with per-CPU counts,
// the chip, the hardware IRQ/trigger and the action names. x86 and arm64:
//
//	           CPU0       CPU1
//	 38:          0        645 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0
//	 40:   0   0   IR-PCI-MSI-edge      eth0-TxRx-0
//	 63:   9   0   ITS-MSI 524288 Edge      hinic0_queue0
//	NMI:          0          0   Non-maskable interrupts
//
// sample.ParseInterrupts is the one parser of this file (procfs' splits
// "Info" and "Devices" differently for each of these layouts); host facts
// keep its numbered rows, zero counts included (a NIC's idle queues), and
// name each by its action (sample.IRQDevice).

import (
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// interruptTable is /proc/interrupts' numbered rows.
type interruptTable struct {
	CPUs int   // columns in the header
	IRQs []IRQ // numbered rows in file order (no Affinity yet)
}

// byNumber indexes the table.
func (t interruptTable) byNumber() map[int]int {
	m := make(map[int]int, len(t.IRQs))
	for i, q := range t.IRQs {
		m[q.Number] = i
	}
	return m
}

// parseInterrupts keeps the numbered rows of sample.ParseInterrupts; any
// bad line fails the whole table (host facts cite a file they could read).
func parseInterrupts(s string) (interruptTable, error) {
	var t interruptTable
	if err := checkText(s); err != nil {
		return t, err
	}
	in, err := sample.ParseInterrupts([]byte(s))
	if err != nil {
		// Host facts cite "line N: ..." without sample's "malformed: ".
		return t, parseDetail(err)
	}
	t.CPUs = len(in.CPUs)
	var cols []int // column -> CPU, when not the identity
	for j, c := range in.CPUs {
		if c != j {
			cols = in.CPUs
			break
		}
	}
	for _, r := range in.Rows {
		n, err := strconv.Atoi(r.IRQ)
		if err != nil || n < 0 {
			continue // NMI, LOC, IPI0 ...: architecture counters, not device IRQs
		}
		q := IRQ{Number: n, Counts: r.Counts, CPUs: cols}
		q.Chip, q.Name = sample.IRQDevice(r.Name)
		for _, c := range r.Counts {
			q.Total += c
		}
		t.IRQs = append(t.IRQs, q)
	}
	return t, nil
}

// readInterrupts reads /proc/interrupts once per collection.
func readInterrupts(h hostfs.FS) (interruptTable, error) {
	p := h.ProcPath("interrupts")
	s, err := h.ReadString(p)
	if err != nil {
		return interruptTable{}, err
	}
	t, err := parseInterrupts(s)
	if err != nil {
		return t, fileErr(h, p, err)
	}
	if len(t.IRQs) == 0 {
		return t, fileErr(h, p, finding.Errorf(finding.T("no numbered IRQ rows", "没有编号的 IRQ 行")))
	}
	return t, nil
}

// irqAffinity fills Affinity and Effective of q from /proc/irq/N.
func irqAffinity(h hostfs.FS, q *IRQ) error {
	dir := h.ProcPath("irq", strconv.Itoa(q.Number))
	a := readField(h, dir+"/smp_affinity_list", ParseCPUList)
	if !a.OK {
		return a.AsErr()
	}
	q.Affinity = a.Value
	if e := readField(h, dir+"/effective_affinity_list", ParseCPUList); e.OK {
		q.Effective = e.Value
	}
	return nil
}
