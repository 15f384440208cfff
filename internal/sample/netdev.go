package sample

import (
	"github.com/tuneloop/tuneloop/internal/finding"
)

// /proc/net/dev: per-interface counters since the interface came up.
// Sample:
//
//	Inter-|   Receive                                                |  Transmit
//	 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
//	    lo:    3193      29    0    0    0     0          0         0     3193      29    0    0    0     0       0          0
//	  eth0: 59304117    2870    0    0    0     0          0         0   286427    2761    0    0    0     0       0          0
//
// Old kernels print no space after the colon ("eth0:59304117").

// NetDev is one interface.
type NetDev struct {
	Name      string `json:"dev"`
	RxBytes   uint64 `json:"rb"`
	RxPackets uint64 `json:"rp"`
	RxErrs    uint64 `json:"re"`
	RxDrop    uint64 `json:"rd"`
	RxFifo    uint64 `json:"rfifo,omitempty"`
	RxFrame   uint64 `json:"rframe,omitempty"`
	RxCompr   uint64 `json:"rcompr,omitempty"`
	RxMcast   uint64 `json:"rmc,omitempty"`
	TxBytes   uint64 `json:"tb"`
	TxPackets uint64 `json:"tp"`
	TxErrs    uint64 `json:"te"`
	TxDrop    uint64 `json:"td"`
	TxFifo    uint64 `json:"tfifo,omitempty"`
	TxColls   uint64 `json:"tcolls,omitempty"`
	TxCarrier uint64 `json:"tcarrier,omitempty"`
	TxCompr   uint64 `json:"tcompr,omitempty"`
}

type netDevSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newNetDevSampler(env *Env) (Sampler, error) {
	return &netDevSampler{env: env, path: env.FS.ProcPath("net", "dev")}, nil
}

func (p *netDevSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	s.Net, err = parseNetDev(b, s.Net[:0], &p.sc)
	return err
}

func parseNetDev(b []byte, dst []NetDev, sc *scratch) ([]NetDev, error) {
	var err error
	l := lines{b: b}
	for l.next() {
		if l.n <= 2 {
			continue // the two header lines
		}
		name, rest, ok := cut(l.line, ':')
		if !ok {
			if len(trimSpace(l.line)) > 0 {
				firstErr(&err, badLine(l.n, l.line, finding.T("no colon", "没有冒号")))
			}
			continue
		}
		f := sc.fields(rest)
		if len(f) != 16 {
			firstErr(&err, badLine(l.n, l.line, finding.T("want 16 counters", "应为 16 个计数器")))
			continue
		}
		var d NetDev
		cols := [...]*uint64{&d.RxBytes, &d.RxPackets, &d.RxErrs, &d.RxDrop, &d.RxFifo, &d.RxFrame, &d.RxCompr, &d.RxMcast,
			&d.TxBytes, &d.TxPackets, &d.TxErrs, &d.TxDrop, &d.TxFifo, &d.TxColls, &d.TxCarrier, &d.TxCompr}
		for i, c := range cols {
			if *c, ok = atou(f[i]); !ok {
				break
			}
		}
		if !ok {
			firstErr(&err, badLine(l.n, l.line, finding.T("bad counter", "计数器无效")))
			continue
		}
		d.Name = sc.intern(trimSpace(name))
		dst = append(dst, d)
	}
	return dst, err
}
