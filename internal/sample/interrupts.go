package sample

// /proc/interrupts: interrupts per IRQ per online CPU since boot, then the
// chip, hardware IRQ, trigger and action names. x86 (2 vCPUs) and arm64:
//
//	           CPU0       CPU1
//	 36:          0      41192 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0
//	 40:         12          0   IR-PCI-MSI-edge      eth0-TxRx-0
//	 16:          5          0   IO-APIC  16-fasteoi   ehci_hcd:usb1, uhci_hcd:usb2
//	NMI:          0          0   Non-maskable interrupts
//	LOC:      52856      52104   Local timer interrupts
//	ERR:          0
//	 11:       4508       3322     GICv3  27 Level     arch_timer
//	 63:          9          0   ITS-MSI 524288 Edge      hinic0_queue0
//	IPI0:     30233      31054       Rescheduling interrupts
//	Err:          0
//
// This is the one parser of the file: the sampler keeps the rows with a
// count on every CPU and drops all-zero rows (hosts have hundreds of unused
// vectors; a row absent from one snapshot and present in the next counted
// from zero in between); host facts (sysinfo) take every numbered row. Rows
// with one count and no name are host-wide (x86 ERR and MIS, arm64 Err).
// A row may hold fewer counts than the header has CPUs (a CPU taken offline
// while the file was read): ParseInterrupts keeps its counts for the first
// columns; the sampler, whose rates line columns up by CPU, reports it.
// Mapping an IRQ to a NIC queue or a disk is done from its name (sysinfo).

import (
	"bytes"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Interrupts is /proc/interrupts: Rows[i].Counts[j] is for CPU CPUs[j].
type Interrupts struct {
	CPUs   []int             `json:"cpus"`
	Rows   []IRQRow          `json:"rows"`
	Global map[string]uint64 `json:"global,omitempty"` // ERR, MIS (x86), Err (arm64)
}

// IRQRow is one IRQ: number (or name for NMI, LOC, IPI0...), description
// as printed (chip, hwirq, action; single-spaced) and per-CPU counts.
type IRQRow struct {
	IRQ    string   `json:"irq"`
	Name   string   `json:"name,omitempty"`
	Counts []uint64 `json:"c"`
}

// IRQDevice splits a numbered row's description into the interrupt chip and the
// action names (the device): "ITS-MSI 524288 Edge hinic0_queue0" ->
// "ITS-MSI", "hinic0_queue0"; hardware IRQ numbers and trigger words
// (1-edge, Level, fasteoi) between them are dropped. Action names may hold
// spaces ("ehci_hcd:usb1, uhci_hcd:usb2").
func IRQDevice(desc string) (chip, action string) {
	chip, rest := nextWord(desc)
	for {
		w, r := nextWord(rest)
		if w == "" || !isIRQTrigger(w) {
			break
		}
		rest = r
	}
	return chip, strings.TrimSpace(rest)
}

// nextWord returns the first space-separated word of s and the rest.
func nextWord(s string) (string, string) {
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
	_, ok := atou([]byte(w))
	return ok
}

type irqSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newIRQSampler(env *Env) (Sampler, error) {
	return &irqSampler{env: env, path: env.FS.ProcPath("interrupts")}, nil
}

func (p *irqSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	irq, err := parseInterrupts(b, &p.sc, false)
	if irq != nil && (len(irq.Rows) > 0 || err == nil) {
		s.Interrupts = irq
	}
	return err
}

// ParseInterrupts parses the whole file: every row, all-zero ones too, a
// row with fewer counts than CPUs with the counts it has. A bad line is
// skipped and the first one reported (naming its line).
func ParseInterrupts(b []byte) (*Interrupts, error) {
	var sc scratch
	return parseInterrupts(b, &sc, true)
}

// parseInterrupts is ParseInterrupts (all) or the sampler's view: only rows
// with a count per CPU and at least one interrupt, a short row reported.
func parseInterrupts(b []byte, sc *scratch, all bool) (*Interrupts, error) {
	l := lines{b: b}
	if !l.next() {
		return nil, badLine(1, nil, finding.T("empty", "为空"))
	}
	cpus, err := parseCPUHeader(l.line, sc)
	if err != nil {
		return nil, badLine(1, l.line, textOf(err))
	}
	irq := &Interrupts{CPUs: cpus}
	var desc []byte
	for l.next() {
		id, rest, ok := cut(l.line, ':')
		id = trimSpace(id)
		if !ok || len(id) == 0 {
			if len(trimSpace(l.line)) > 0 {
				firstErr(&err, badLine(l.n, l.line, finding.T("no IRQ id", "没有 IRQ 编号")))
			}
			continue
		}
		f := sc.fields(rest)
		n := 0 // leading numeric fields: the counts
		for n < len(f) && n < len(cpus) {
			if _, ok := atou(f[n]); !ok {
				break
			}
			n++
		}
		if _, numeric := atou(id); n == 1 && len(f) == 1 && len(cpus) > 1 && !numeric {
			if irq.Global == nil {
				irq.Global = map[string]uint64{}
			}
			irq.Global[sc.intern(id)], _ = atou(f[0])
			continue
		}
		if n == 0 {
			firstErr(&err, badLine(l.n, l.line, finding.T("no counts", "没有计数")))
			continue
		}
		if n != len(cpus) && !all {
			// Rates line columns up by CPU: a short row cannot be placed.
			firstErr(&err, badLine(l.n, l.line, finding.T("fewer counts than CPUs", "计数少于 CPU 数")))
			continue
		}
		var sum uint64
		counts := make([]uint64, n)
		for i := range n {
			counts[i], _ = atou(f[i])
			sum |= counts[i]
		}
		if sum == 0 && !all {
			continue
		}
		desc = desc[:0]
		for i, x := range f[n:] {
			if i > 0 {
				desc = append(desc, ' ')
			}
			desc = append(desc, x...)
		}
		irq.Rows = append(irq.Rows, IRQRow{IRQ: sc.intern(id), Name: sc.intern(bytes.TrimSpace(desc)), Counts: counts})
	}
	return irq, err
}
