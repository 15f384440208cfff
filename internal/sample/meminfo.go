package sample

import "bytes"

// /proc/meminfo: memory gauges in kB (HugePages_* are page counts).
// Sample:
//
//	MemTotal:       24684096 kB
//	MemFree:        23967632 kB
//	MemAvailable:   24338056 kB
//	HugePages_Total:       0
//
// Every line is kept under its name, units dropped.

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
// (values in kB; HugePages_* are counts). It is the one /proc/meminfo
// parser: sysinfo's host facts and promexport call it too. A bad line is an ErrParse
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
				firstErr(&err, badLine(l.n, l.line, "no colon"))
			}
			continue
		}
		f := sc.fields(rest)
		if len(f) == 0 || len(f) > 2 {
			firstErr(&err, badLine(l.n, l.line, "want value [unit]"))
			continue
		}
		// Only the HugePages_* counts have no unit; a missing kB elsewhere
		// is a line cut short, another unit is not meminfo.
		name = trimSpace(name)
		if (len(f) == 2 && string(f[1]) != "kB") || (len(f) == 1 && !bytes.HasPrefix(name, []byte("HugePages_"))) {
			firstErr(&err, badLine(l.n, l.line, "no kB unit (truncated?)"))
			continue
		}
		v, ok := atou(f[0])
		if !ok {
			firstErr(&err, badLine(l.n, l.line, "bad value"))
			continue
		}
		m[sc.intern(name)] = v
	}
	return err
}
