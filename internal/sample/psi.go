package sample

// /proc/pressure/{cpu,memory,io,irq}: pressure stall information (Linux
// 4.20+ with CONFIG_PSI, and psi=1 on kernels built with it off by default).
// total is cumulative stall time in microseconds. Sample (cpu):
//
//	some avg10=11.65 avg60=13.00 avg300=7.28 total=37225302
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
//
// The cpu "full" line exists since 5.13 (always zero at system level).

import (
	"errors"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// PSI is one resource's pressure: avg10 in percent, totals in µs.
type PSI struct {
	SomeAvg10 float64 `json:"some10"`
	SomeTotal uint64  `json:"some_us"`
	FullAvg10 float64 `json:"full10,omitempty"`
	FullTotal uint64  `json:"full_us,omitempty"`
}

var psiResources = []string{"cpu", "memory", "io", "irq"}

type psiSampler struct {
	env   *Env
	names []string
	paths []string
	sc    scratch
}

func newPSISampler(env *Env) (Sampler, error) {
	p := &psiSampler{env: env}
	for _, r := range psiResources {
		path := env.FS.ProcPath("pressure", r)
		if env.FS.Exists(path) {
			p.names = append(p.names, r)
			p.paths = append(p.paths, path)
		}
	}
	if len(p.paths) == 0 {
		return nil, &unavailable{what: env.FS.Display(env.FS.ProcPath("pressure")) + ": not present (needs Linux 4.20+ with CONFIG_PSI, psi=1 on the kernel command line on some distributions)"}
	}
	return p, nil
}

func (p *psiSampler) Sample(s *Snapshot) (err error) {
	if s.PSI == nil {
		s.PSI = make(map[string]PSI, len(p.paths))
	}
	for i, path := range p.paths {
		b, e := p.env.r.file(p.env.FS, path)
		if e != nil {
			// EOPNOTSUPP: compiled in but disabled (psi=0).
			if len(p.paths) == 1 || errors.Is(e, errNotSupp) {
				return e
			}
			firstErr(&err, partial{e})
			continue
		}
		v, e := parsePSI(b, &p.sc)
		if e != nil {
			firstErr(&err, e)
			continue
		}
		s.PSI[p.names[i]] = v
	}
	return err
}

func parsePSI(b []byte, sc *scratch) (v PSI, err error) {
	l := lines{b: b}
	seen := false
	for l.next() {
		f := sc.fields(l.line)
		if len(f) == 0 {
			continue
		}
		var avg *float64
		var total *uint64
		switch string(f[0]) {
		case "some":
			avg, total = &v.SomeAvg10, &v.SomeTotal
		case "full":
			avg, total = &v.FullAvg10, &v.FullTotal
		default:
			continue // forward compatible: unknown kinds are ignored
		}
		okA, okT := false, false
		for _, kv := range f[1:] {
			k, val, _ := cut(kv, '=')
			switch string(k) {
			case "avg10":
				*avg, okA = atof2(val)
			case "total":
				*total, okT = atou(val)
			}
		}
		if !okA || !okT {
			firstErr(&err, badLine(l.n, l.line, finding.T("want avg10= and total=", "应有 avg10= 与 total=")))
			continue
		}
		seen = true
	}
	if !seen && err == nil {
		err = badLine(0, nil, finding.T("no some/full line", "没有 some/full 行"))
	}
	return v, err
}
