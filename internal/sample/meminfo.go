package sample

import (
	"bytes"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// /proc/meminfo: memory gauges in kB (HugePages_* are page counts).
// Sample:
//
//	MemTotal:       24684096 kB
//	MemFree:        23967632 kB
//	MemAvailable:   24338056 kB
//	HugePages_Total:       0
//
// and a NUMA node's, /sys/devices/system/node/node0/meminfo:
//
//	Node 0 MemTotal:        4417752 kB
//	Node 0 HugePages_Total:     0
//
// Every line is kept under its name ("Node N " dropped), units dropped.

type meminfoSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newMeminfoSampler(env *Env) (Sampler, error) {
	return &meminfoSampler{env: env, path: env.FS.ProcPath("meminfo")}, nil
}

func (p *meminfoSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	if s.Mem == nil {
		s.Mem = make(map[string]uint64, 64)
	}
	return parseMeminfo(b, s.Mem, &p.sc)
}

// ParseMeminfo adds every "Name: value [kB]" line of /proc/meminfo to m
// (values in kB; HugePages_* are counts), and of a NUMA node's meminfo
// ("Node 0 MemFree: ..."). It is the one meminfo parser: sysinfo's host
// facts and promexport call it too. A bad line is an ErrParse
// naming it; the lines after it are still read.
func ParseMeminfo(b []byte, m map[string]uint64) error {
	var sc scratch
	return parseMeminfo(b, m, &sc)
}

// parseMeminfo is ParseMeminfo with the sampler's scratch (no allocation
// per sample once the names are interned).
func parseMeminfo(b []byte, m map[string]uint64, sc *scratch) (err error) {
	l := lines{b: b}
	for l.next() {
		name, rest, ok := cut(l.line, ':')
		if !ok {
			if len(trimSpace(l.line)) > 0 {
				firstErr(&err, badLine(l.n, l.line, finding.T("no colon", "没有冒号")))
			}
			continue
		}
		f := sc.fields(rest)
		if len(f) == 0 || len(f) > 2 {
			firstErr(&err, badLine(l.n, l.line, finding.T("want value [unit]", "应为 数值 [单位]")))
			continue
		}
		// Only the HugePages_* counts have no unit; a missing kB elsewhere
		// is a line cut short, another unit is not meminfo.
		name = trimSpace(name)
		// A NUMA node's meminfo (/sys/devices/system/node/nodeN/meminfo)
		// writes each line after "Node N ".
		if rest, ok := bytes.CutPrefix(name, []byte("Node ")); ok {
			if i := bytes.IndexByte(rest, ' '); i > 0 {
				if _, num := atou(rest[:i]); num {
					name = trimSpace(rest[i+1:])
				}
			}
		}
		if (len(f) == 2 && string(f[1]) != "kB") || (len(f) == 1 && !bytes.HasPrefix(name, []byte("HugePages_"))) {
			firstErr(&err, badLine(l.n, l.line, finding.T("no kB unit (truncated?)", "没有 kB 单位（被截断？）")))
			continue
		}
		v, ok := atou(f[0])
		if !ok {
			firstErr(&err, badLine(l.n, l.line, finding.T("bad value", "值无效")))
			continue
		}
		m[sc.intern(name)] = v
	}
	return err
}
