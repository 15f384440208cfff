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
// procfs' parser splits "Info" and "Devices" differently for each of these
// layouts, so the name (last column) is parsed here.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/hostfs"
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

func parseInterrupts(s string) (interruptTable, error) {
	var t interruptTable
	if err := checkText(s); err != nil {
		return t, err
	}
	lines := strings.Split(s, "\n")
	hdr := strings.Fields(lines[0])
	for _, c := range hdr {
		if !strings.HasPrefix(c, "CPU") {
			return t, lineErr(1, "want CPU header, got %q", clipText(lines[0]))
		}
	}
	t.CPUs = len(hdr)
	if t.CPUs == 0 {
		return t, lineErr(1, "no CPU columns")
	}
	// One backing array for all counts: a 128-CPU host has hundreds of rows.
	backing := make([]uint64, 0, (len(lines)-1)*t.CPUs)
	for i, line := range lines[1:] {
		id, rest, ok := strings.Cut(line, ":")
		id = strings.TrimSpace(id)
		if !ok {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return t, lineErr(i+2, "no ':' in %q", clipText(line))
		}
		n, err := strconv.Atoi(id)
		if err != nil {
			continue // NMI, LOC, ERR ...: architecture counters, not device IRQs
		}
		if n < 0 {
			return t, lineErr(i+2, "negative IRQ %d", n)
		}
		q := IRQ{Number: n}
		start := len(backing)
		for len(q.Counts) < t.CPUs {
			w, r := nextField(rest)
			if w == "" {
				break
			}
			if w[0] < '0' || w[0] > '9' {
				break // not a count: the chip (checked first: ParseUint errors allocate)
			}
			v, err := strconv.ParseUint(w, 10, 64)
			if err != nil {
				break
			}
			rest = r
			backing = append(backing, v)
			q.Counts = backing[start:len(backing):len(backing)]
			q.Total += v
		}
		if len(q.Counts) == 0 {
			return t, lineErr(i+2, "IRQ %d has no counts", n)
		}
		q.Chip, rest = nextField(rest)
		// Skip hardware IRQ numbers and trigger words before the name.
		for {
			w, r := nextField(rest)
			if w == "" || !isIRQTrigger(w) {
				break
			}
			rest = r
		}
		q.Name = strings.TrimSpace(rest)
		if strings.Contains(q.Name, "  ") || strings.Contains(q.Name, "\t") {
			q.Name = strings.Join(strings.Fields(q.Name), " ")
		}
		t.IRQs = append(t.IRQs, q)
	}
	return t, nil
}

// nextField returns the first space-separated word of s and the rest.
func nextField(s string) (string, string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// isIRQTrigger matches "1-edge", "Edge", "Level", "524288", "fasteoi" ...
func isIRQTrigger(w string) bool {
	for _, t := range []string{"edge", "level", "fasteoi"} {
		if strings.EqualFold(w, t) {
			return true
		}
		if n := len(w) - len(t) - 1; n >= 0 && w[n] == '-' && strings.EqualFold(w[n+1:], t) {
			return true
		}
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
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
		return t, fileErr(h, p, errors.New("no numbered IRQ rows"))
	}
	return t, nil
}

// irqAffinity fills Affinity and Effective of q from /proc/irq/N.
func irqAffinity(h hostfs.FS, q *IRQ) error {
	dir := h.ProcPath("irq", strconv.Itoa(q.Number))
	a := readField(h, dir+"/smp_affinity_list", ParseCPUList)
	if !a.OK {
		return fmt.Errorf("%s", a.Err)
	}
	q.Affinity = a.Value
	if e := readField(h, dir+"/effective_affinity_list", ParseCPUList); e.OK {
		q.Effective = e.Value
	}
	return nil
}
