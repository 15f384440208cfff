package sample

// /proc/vmstat: VM event counters since boot and gauges, "name value" per
// line. Sample:
//
//	pgfault 4704608
//	pgmajfault 1276
//	allocstall_normal 0
//	pgscan_direct 0
//	compact_stall 0
//	thp_fault_alloc 0
//
// Only the counters a diagnosis uses are kept (vmKeep): page faults, swap
// in/out, paging, direct reclaim (allocstall_*, pgscan_*, pgsteal_*),
// compaction, THP events, OOM kills, refaults, dirty/writeback.

import (
	"bytes"

	"github.com/tuneloop/tuneloop/internal/finding"
)

var vmKeep = [][]byte{
	[]byte("pgfault"), []byte("pgmajfault"), []byte("pswpin"), []byte("pswpout"),
	[]byte("pgpgin"), []byte("pgpgout"), []byte("allocstall"), []byte("pgscan_"),
	[]byte("pgsteal_"), []byte("compact_"), []byte("thp_"), []byte("oom_kill"),
	[]byte("workingset_refault"), []byte("nr_dirty"), []byte("nr_writeback"),
	[]byte("numa_pages_migrated"), []byte("pgmigrate_"), []byte("nr_free_pages"),
	[]byte("drop_pagecache"), []byte("drop_slab"), []byte("kswapd_"),
}

func vmWanted(name []byte) bool {
	for _, k := range vmKeep {
		if bytes.HasPrefix(name, k) {
			return true
		}
	}
	return false
}

type vmstatSampler struct {
	env  *Env
	path string
	sc   scratch
}

func newVmstatSampler(env *Env) (Sampler, error) {
	return &vmstatSampler{env: env, path: env.FS.ProcPath("vmstat")}, nil
}

func (p *vmstatSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.path)
	if err != nil {
		return err
	}
	if s.VM == nil {
		s.VM = make(map[string]uint64, 64)
	}
	return parseVmstat(b, s.VM, vmWanted, &p.sc)
}

// parseVmstat adds "name value" lines whose name keep accepts to m.
func parseVmstat(b []byte, m map[string]uint64, keep func([]byte) bool, sc *scratch) (err error) {
	l := lines{b: b}
	for l.next() {
		f := sc.fields(l.line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			firstErr(&err, badLine(l.n, l.line, finding.T("want name value", "应为名称与数值")))
			continue
		}
		if keep != nil && !keep(f[0]) {
			continue
		}
		v, ok := atou(f[1])
		if !ok {
			// Gauges like nr_zone_* are unsigned; a negative is a kernel
			// per-CPU drift artefact of a gauge we do not keep. Report it.
			firstErr(&err, badLine(l.n, l.line, finding.T("bad value", "值无效")))
			continue
		}
		m[sc.intern(f[0])] = v
	}
	return err
}
