package sample

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// /proc/loadavg: 1, 5 and 15 minute load averages, runnable/total
// scheduling entities, last PID. Sample:
//
//	0.28 0.28 0.11 2/94 14258
//	4.05 3.91 3.20 9/1187 2291004

// LoadAvg is /proc/loadavg.
type LoadAvg struct {
	Load1    float64 `json:"l1"`
	Load5    float64 `json:"l5"`
	Load15   float64 `json:"l15"`
	Runnable uint64  `json:"runnable"` // currently runnable threads
	Threads  uint64  `json:"threads"`  // threads on the host
}

type loadSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newLoadSampler(env *Env) (Sampler, error) {
	return &loadSampler{env: env, path: env.FS.ProcPath("loadavg")}, nil
}

func (p *loadSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	la, err := parseLoadAvg(b, &p.sc)
	if err != nil {
		return err
	}
	s.Load = &la
	return nil
}

func parseLoadAvg(b []byte, sc *scratch) (LoadAvg, error) {
	l := lines{b: b}
	if !l.next() {
		return LoadAvg{}, badLine(1, nil, finding.T("empty", "为空"))
	}
	f := sc.fields(l.line)
	if len(f) < 4 {
		return LoadAvg{}, badLine(1, l.line, finding.T("want 5 fields", "应为 5 个字段"))
	}
	var la LoadAvg
	var ok [5]bool
	la.Load1, ok[0] = atof2(f[0])
	la.Load5, ok[1] = atof2(f[1])
	la.Load15, ok[2] = atof2(f[2])
	r, t, _ := cut(f[3], '/')
	la.Runnable, ok[3] = atou(r)
	la.Threads, ok[4] = atou(t)
	for _, o := range ok {
		if !o {
			return LoadAvg{}, badLine(1, l.line, finding.T("bad number", "数字无效"))
		}
	}
	return la, nil
}

// atof2 parses a non-negative decimal like "0.28" or "13.00" (load
// averages, PSI averages) without strconv's allocation on error.
func atof2(b []byte) (float64, bool) {
	ip, fp, dot := cut(b, '.')
	i, ok := atou(ip)
	if !ok {
		return 0, false
	}
	v := float64(i)
	if dot {
		if len(fp) == 0 || len(fp) > 9 {
			return 0, false
		}
		f, ok := atou(fp)
		if !ok {
			return 0, false
		}
		d := 1.0
		for range fp {
			d *= 10
		}
		v += float64(f) / d
	}
	return v, true
}
