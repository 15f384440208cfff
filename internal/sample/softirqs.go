package sample

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// /proc/softirqs: softirqs handled per CPU per type since boot. Sample
// (2 vCPUs; one column per possible CPU):
//
//	                    CPU0       CPU1
//	          HI:          0          0
//	       TIMER:       6812       8435
//	      NET_TX:          5          0
//	      NET_RX:       1947       1808

// Softirqs is /proc/softirqs: Rows[i].Counts[j] is for CPU CPUs[j].
type Softirqs struct {
	CPUs []int        `json:"cpus"`
	Rows []SoftirqRow `json:"rows"`
}

// SoftirqRow is one softirq type (HI, TIMER, NET_TX, NET_RX, BLOCK,
// IRQ_POLL, TASKLET, SCHED, HRTIMER, RCU).
type SoftirqRow struct {
	Type   string   `json:"n"`
	Counts []uint64 `json:"c"`
}

type softirqSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newSoftirqSampler(env *Env) (Sampler, error) {
	return &softirqSampler{env: env, path: env.FS.ProcPath("softirqs")}, nil
}

func (p *softirqSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	si, err := parseSoftirqs(b, &p.sc)
	if len(si.Rows) > 0 {
		s.Softirqs = si
	}
	return err
}

func parseSoftirqs(b []byte, sc *scratch) (*Softirqs, error) {
	si := new(Softirqs)
	l := lines{b: b}
	if !l.next() {
		return si, badLine(1, nil, finding.T("empty", "为空"))
	}
	cpus, err := parseCPUHeader(l.line, sc)
	if err != nil {
		return si, badLine(1, l.line, textOf(err))
	}
	si.CPUs = cpus
	for l.next() {
		name, rest, ok := cut(l.line, ':')
		if !ok {
			if len(trimSpace(l.line)) > 0 {
				firstErr(&err, badLine(l.n, l.line, finding.T("no colon", "没有冒号")))
			}
			continue
		}
		f := sc.fields(rest)
		if len(f) != len(cpus) {
			firstErr(&err, badLine(l.n, l.line, finding.T("column count differs from header", "列数与表头不一致")))
			continue
		}
		row := SoftirqRow{Type: sc.intern(trimSpace(name)), Counts: make([]uint64, len(f))}
		bad := false
		for i, x := range f {
			if row.Counts[i], ok = atou(x); !ok {
				bad = true
			}
		}
		if bad {
			firstErr(&err, badLine(l.n, l.line, finding.T("bad count", "计数无效")))
			continue
		}
		si.Rows = append(si.Rows, row)
	}
	return si, err
}

// parseCPUHeader parses "CPU0 CPU1 ..." into CPU numbers.
func parseCPUHeader(line []byte, sc *scratch) ([]int, error) {
	f := sc.fields(line)
	cpus := make([]int, 0, len(f))
	for _, c := range f {
		if len(c) < 4 || string(c[:3]) != "CPU" {
			return nil, errBadHeader
		}
		n, ok := atou(c[3:])
		if !ok || n > 1<<20 {
			return nil, errBadHeader
		}
		cpus = append(cpus, int(n))
	}
	if len(cpus) == 0 {
		return nil, errBadHeader
	}
	return cpus, nil
}

var errBadHeader = &finding.Error{Msg: finding.T("bad CPU header", "CPU 表头无效")}
