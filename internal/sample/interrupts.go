package sample

// /proc/interrupts: interrupts per IRQ per online CPU since boot, then the
// chip, hardware IRQ and action names. Sample (2 vCPUs):
//
//	           CPU0       CPU1
//	 36:          0      41192 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0
//	 41:       1998          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx
//	LOC:      52856      52104   Local timer interrupts
//	ERR:          0
//
// Rows whose counts are all zero are not kept (hosts have hundreds of unused
// vectors); a row absent from one snapshot and present in the next counted
// from zero in between. Rows with one count and no name are host-wide
// (x86 ERR and MIS, arm64 Err). Mapping an
// IRQ to a NIC queue or a disk is done later from its name and sysinfo.

import "bytes"

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
	irq, err := parseInterrupts(b, &p.sc)
	if irq != nil && (len(irq.Rows) > 0 || err == nil) {
		s.Interrupts = irq
	}
	return err
}

func parseInterrupts(b []byte, sc *scratch) (*Interrupts, error) {
	l := lines{b: b}
	if !l.next() {
		return nil, badLine(1, nil, "empty")
	}
	cpus, err := parseCPUHeader(l.line, sc)
	if err != nil {
		return nil, badLine(1, l.line, err.Error())
	}
	irq := &Interrupts{CPUs: cpus}
	var desc []byte
	for l.next() {
		id, rest, ok := cut(l.line, ':')
		id = trimSpace(id)
		if !ok || len(id) == 0 {
			if len(trimSpace(l.line)) > 0 {
				firstErr(&err, badLine(l.n, l.line, "no IRQ id"))
			}
			continue
		}
		f := sc.fields(rest)
		n := 0 // leading numeric fields
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
		if n != len(cpus) {
			// Some arm64 rows (e.g. "IPI7:  0  0  CPU backtrace" on a
			// kernel that prints fewer columns) are kept only if whole.
			firstErr(&err, badLine(l.n, l.line, "fewer counts than CPUs"))
			continue
		}
		var sum uint64
		counts := make([]uint64, n)
		for i := range n {
			counts[i], _ = atou(f[i])
			sum |= counts[i]
		}
		if sum == 0 {
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
