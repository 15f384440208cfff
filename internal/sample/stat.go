package sample

// /proc/stat: per-CPU time in USER_HZ ticks, interrupts, context switches,
// forks, running and blocked tasks. Sample (kernel 6.18, 2 vCPUs; the intr
// line, one count per IRQ, is cut short here):
//
//	cpu  8585 0 1916 88769 574 0 55 5 0 0
//	cpu0 3731 0 895 45242 60 0 22 2 0 0
//	cpu1 4854 0 1021 43526 513 0 33 2 0 0
//	intr 313245 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 15 0 0
//	ctxt 599091
//	btime 1795305011
//	processes 14258
//	procs_running 1
//	procs_blocked 0
//	softirq 142098 0 15247 5 3755 41192 0 443 45669 0 35787
//
// Columns after cpuN: user nice system idle iowait irq softirq steal guest
// guest_nice (older kernels stop earlier; missing columns read as 0). guest
// time is also counted in user, guest_nice in nice. An offline CPU has no
// line.

import (
	"bytes"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// CPUTimes is one cpu line of /proc/stat, in USER_HZ ticks.
type CPUTimes struct {
	CPU       int    `json:"cpu"` // -1 for the all-CPU "cpu" line
	User      uint64 `json:"us"`
	Nice      uint64 `json:"ni"`
	System    uint64 `json:"sy"`
	Idle      uint64 `json:"id"`
	Iowait    uint64 `json:"wa"`
	IRQ       uint64 `json:"hi"`
	SoftIRQ   uint64 `json:"si"`
	Steal     uint64 `json:"st"`
	Guest     uint64 `json:"gu"`
	GuestNice uint64 `json:"gn"`
}

// Stat is /proc/stat.
type Stat struct {
	All     CPUTimes   `json:"all"`
	CPUs    []CPUTimes `json:"cpus"`
	Intr    uint64     `json:"intr"`    // interrupts serviced since boot
	Ctxt    uint64     `json:"ctxt"`    // context switches since boot
	Forks   uint64     `json:"forks"`   // processes created since boot
	Running uint64     `json:"running"` // procs_running (gauge)
	Blocked uint64     `json:"blocked"` // procs_blocked (gauge)
}

type statSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newStatSampler(env *Env) (Sampler, error) {
	return &statSampler{env: env, path: env.FS.ProcPath("stat")}, nil
}

func (p *statSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	st := new(Stat)
	err = parseStat(b, st, &p.sc)
	if len(st.CPUs) > 0 || err == nil {
		s.Stat = st
	}
	return err
}

// ParseStat parses /proc/stat: the one parser of it (sysinfo's host facts
// call it too). A bad line is an ErrParse naming it; the rest is kept.
func ParseStat(b []byte) (*Stat, error) {
	st := new(Stat)
	var sc scratch
	return st, parseStat(b, st, &sc)
}

// parseStat parses /proc/stat into st. Unknown lines are ignored; a bad
// known line is skipped and the first one reported.
func parseStat(b []byte, st *Stat, sc *scratch) (err error) {
	l := lines{b: b}
	seenAll := false
	for l.next() {
		line := l.line
		switch {
		case bytes.HasPrefix(line, []byte("cpu")):
			f := sc.fields(line)
			if len(f) < 5 {
				firstErr(&err, badLine(l.n, line, finding.T("fewer than 4 cpu times", "少于 4 个 CPU 时间")))
				continue
			}
			ct := CPUTimes{CPU: -1}
			if id := f[0][3:]; len(id) > 0 {
				n, ok := atou(id)
				if !ok || n > 1<<20 {
					firstErr(&err, badLine(l.n, line, finding.T("bad cpu number", "CPU 编号无效")))
					continue
				}
				ct.CPU = int(n)
			}
			dst := [...]*uint64{&ct.User, &ct.Nice, &ct.System, &ct.Idle, &ct.Iowait, &ct.IRQ, &ct.SoftIRQ, &ct.Steal, &ct.Guest, &ct.GuestNice}
			ok := true
			for i := 1; i < len(f) && i <= len(dst); i++ {
				if *dst[i-1], ok = atou(f[i]); !ok {
					break
				}
			}
			if !ok {
				firstErr(&err, badLine(l.n, line, finding.T("bad cpu time", "CPU 时间无效")))
				continue
			}
			if ct.CPU < 0 {
				st.All, seenAll = ct, true
			} else {
				st.CPUs = append(st.CPUs, ct)
			}
		case bytes.HasPrefix(line, []byte("intr ")):
			// Only the total: the per-IRQ counts are in /proc/interrupts.
			rest := trimSpace(line[5:])
			tok, _, _ := cut(rest, ' ')
			if st.Intr, _ = atou(tok); len(tok) == 0 {
				firstErr(&err, badLine(l.n, line, finding.T("no total", "没有 total")))
			}
		default:
			var dst *uint64
			key, val, _ := cut(line, ' ')
			switch string(key) {
			case "ctxt":
				dst = &st.Ctxt
			case "processes":
				dst = &st.Forks
			case "procs_running":
				dst = &st.Running
			case "procs_blocked":
				dst = &st.Blocked
			default:
				continue
			}
			v, ok := atou(trimSpace(val))
			if !ok {
				firstErr(&err, badLine(l.n, line, finding.T("bad value", "值无效")))
				continue
			}
			*dst = v
		}
	}
	if !seenAll && err == nil {
		err = badLine(0, nil, finding.T("no cpu line", "没有 cpu 行"))
	}
	return err
}
