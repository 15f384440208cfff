package sample

// /sys/devices/system/node/nodeN/numastat: page allocation outcomes per NUMA
// node since boot, in pages. Sample (node0):
//
//	numa_hit 5017417
//	numa_miss 0
//	numa_foreign 0
//	interleave_hit 1130
//	local_node 5017417
//	other_node 0
//
// numa_miss: allocated here though another node was preferred; numa_foreign:
// preferred here but allocated elsewhere; other_node: allocated here for a
// process running on another node.

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// NUMANode is one node's numastat.
type NUMANode struct {
	Node          int    `json:"node"`
	Hit           uint64 `json:"hit"`
	Miss          uint64 `json:"miss"`
	Foreign       uint64 `json:"foreign"`
	InterleaveHit uint64 `json:"interleave"`
	Local         uint64 `json:"local"`
	Other         uint64 `json:"other"`
}

type numaSampler struct {
	env   *Env
	nodes []int
	paths []string
	sc    scratch
}

// newNUMASampler lists the nodes once: nodes do not come and go while a JVM
// runs (memory hotplug aside, which then shows as a node missing a tick).
func newNUMASampler(env *Env) (Sampler, error) {
	dir := env.FS.SysPath("devices", "system", "node")
	names, err := env.FS.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &numaSampler{env: env}
	for _, n := range names {
		id, ok := strings.CutPrefix(n, "node")
		if !ok {
			continue
		}
		v, err := strconv.Atoi(id)
		if err != nil {
			continue
		}
		p.nodes = append(p.nodes, v)
	}
	sort.Ints(p.nodes)
	for _, n := range p.nodes {
		p.paths = append(p.paths, env.FS.SysPath("devices", "system", "node", "node"+strconv.Itoa(n), "numastat"))
	}
	if len(p.nodes) == 0 {
		return nil, &unavailable{what: env.FS.Display(dir) + ": no node directories (kernel without NUMA)"}
	}
	return p, nil
}

func (p *numaSampler) Sample(s *Snapshot) (err error) {
	for i, path := range p.paths {
		b, e := p.env.r.file(p.env.FS, path)
		if e != nil {
			if len(p.paths) == 1 {
				return e
			}
			firstErr(&err, e)
			continue
		}
		st, e := parseNumastat(b, &p.sc)
		if e != nil {
			firstErr(&err, e)
			continue
		}
		st.Node = p.nodes[i]
		s.NUMA = append(s.NUMA, st)
	}
	if err != nil && len(s.NUMA) > 0 {
		return partial{err}
	}
	return err
}

func parseNumastat(b []byte, sc *scratch) (st NUMANode, err error) {
	l := lines{b: b}
	seen := 0
	for l.next() {
		f := sc.fields(l.line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			firstErr(&err, badLine(l.n, l.line, finding.T("want name value", "应为名称与数值")))
			continue
		}
		v, ok := atou(f[1])
		if !ok {
			firstErr(&err, badLine(l.n, l.line, finding.T("bad value", "值无效")))
			continue
		}
		switch string(f[0]) {
		case "numa_hit":
			st.Hit = v
		case "numa_miss":
			st.Miss = v
		case "numa_foreign":
			st.Foreign = v
		case "interleave_hit":
			st.InterleaveHit = v
		case "local_node":
			st.Local = v
		case "other_node":
			st.Other = v
		default:
			continue
		}
		seen++
	}
	if seen == 0 && err == nil {
		err = badLine(0, nil, finding.T("no numastat counters", "没有 numastat 计数器"))
	}
	return st, err
}
