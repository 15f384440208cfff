package diagnose

// /proc/PID/numa_maps: one line per mapping, the pages on each node as
// N<node>=<pages>, in pages of kernelpagesize_kB:
//
//	7f3c40000000 default anon=262144 dirty=262144 active=0 N0=131072 N1=131072 kernelpagesize_kB=4
//	7f3c80000000 bind:0 anon=512 dirty=512 N0=512 kernelpagesize_kB=2048
//	560c4d53f000 default file=/usr/bin/cat mapped=2 N0=2 kernelpagesize_kB=4

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// parseNUMAMaps sums each node's resident memory in kB over all mappings.
// Lines it cannot read are skipped (the file is a snapshot of a live
// process; a mapping may vanish mid-read).
func parseNUMAMaps(b []byte) map[int]uint64 {
	out := map[int]uint64{}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		pageKB := uint64(4)
		var nodes [][2]uint64
		for f := range bytes.FieldsSeq(line) {
			if v, ok := bytes.CutPrefix(f, []byte("kernelpagesize_kB=")); ok {
				if n, err := strconv.ParseUint(string(v), 10, 64); err == nil && n > 0 {
					pageKB = n
				}
				continue
			}
			if len(f) < 4 || f[0] != 'N' {
				continue
			}
			k, v, ok := bytes.Cut(f[1:], []byte("="))
			if !ok {
				continue
			}
			node, err1 := strconv.ParseUint(string(k), 10, 16)
			pages, err2 := strconv.ParseUint(string(v), 10, 64)
			if err1 == nil && err2 == nil {
				nodes = append(nodes, [2]uint64{node, pages})
			}
		}
		for _, n := range nodes {
			out[int(n[0])] += n[1] * pageKB
		}
	}
	return out
}

// Per-target NUMA locality thresholds.
const (
	// TargetRemotePct: the share of the target's memory on nodes where it
	// does not run, weighted by where its threads ran.
	TargetRemotePct = 30.0
	// TargetNUMAMinMiB: below this the placement does not matter.
	TargetNUMAMinMiB = 64
)

func ruleNUMATarget(c *ctx) []finding.Outcome {
	facts := c.in.Facts
	if len(c.in.NUMAMaps) == 0 || c.pid() == 0 || !facts.NUMA.Nodes.OK || len(facts.NUMA.Nodes.Value) < 2 {
		return nil
	}
	nodeOf := map[int]int{}
	for _, n := range facts.NUMA.Nodes.Value {
		for _, cpu := range n.CPUs {
			nodeOf[cpu] = n.ID
		}
	}
	// Where the target ran: its thread CPU time per node over the run.
	cpuBy := map[int]float64{}
	total := 0.0
	w := sustained(c.ts, func(_ int, t *Tick) bool { return len(t.TargetCPUOn) > 0 })
	for _, i := range w.hits {
		for cpu, v := range c.ts[i].TargetCPUOn {
			if node, ok := nodeOf[cpu]; ok {
				cpuBy[node] += v
				total += v
			}
		}
	}
	mem := parseNUMAMaps(c.in.NUMAMaps)
	var memTotal uint64
	for _, v := range mem {
		memTotal += v
	}
	if total == 0 || memTotal < TargetNUMAMinMiB*1024 {
		return nil
	}
	// Expected share of accesses that are remote if each thread touches
	// the process's memory evenly: sum over nodes of (memory share there)
	// x (CPU share elsewhere).
	remote := 0.0
	for node, kb := range mem {
		remote += float64(kb) / float64(memTotal) * (1 - cpuBy[node]/total)
	}
	remote *= 100
	if remote < TargetRemotePct {
		return nil
	}
	nodes := make([]int, 0, len(facts.NUMA.Nodes.Value))
	for _, n := range facts.NUMA.Nodes.Value {
		nodes = append(nodes, n.ID)
	}
	sort.Ints(nodes)
	home := nodes[0]
	var memParts, cpuParts []string
	for _, n := range nodes {
		if cpuBy[n] > cpuBy[home] {
			home = n
		}
		memParts = append(memParts, fmt.Sprintf("N%d %s", n, mib(float64(mem[n]))))
		cpuParts = append(cpuParts, fmt.Sprintf("N%d %s", n, pct(100*cpuBy[n]/total)))
	}
	f := finding.Outcome{Status: finding.Fail, Severity: finding.Warning, SevSet: true, Subject: c.target(), Confidence: 0.6,
		Observed: finding.Text{
			EN: fmt.Sprintf("About %s of %s's memory accesses are remote: memory by node %s; thread CPU time by node %s.", pct(remote), c.target(),
				strings.Join(memParts, ", "), strings.Join(cpuParts, ", ")),
			ZH: fmt.Sprintf("%s 约 %s 的内存访问是跨节点的：各节点内存 %s；各节点线程 CPU 时间 %s。", c.target(), pct(remote),
				strings.Join(memParts, "，"), strings.Join(cpuParts, "，")),
		},
		Recommended: finding.Tf(finding.T("Keep the JVM and its memory on one node when it fits (numactl --cpunodebind=%d --membind=%d), or let the JVM place memory per node with -XX:+UseNUMA (Parallel GC; G1 since JDK 14).",
			"JVM 能放进一个节点时，把它和它的内存放在同一个节点（numactl --cpunodebind=%d --membind=%d），或用 -XX:+UseNUMA 让 JVM 按节点分配内存（Parallel GC；G1 自 JDK 14 起）。"), home, home),
		Fix: finding.Fix{Apply: fmt.Sprintf("numactl --cpunodebind=%d --membind=%d java ...   # the service's start command", home, home),
			Revert: "java ...   # start without numactl",
			Note: finding.T("Takes effect at the next start of the service; check with numastat -p PID afterwards. Make sure the heap fits in the node's free memory.",
				"下次启动服务时生效；之后用 numastat -p PID 核实。确保堆能放进该节点的空闲内存。")}}
	f.Evidence = []finding.Evidence{
		ev("remote_access_pct", pct(remote), "derived"),
		ev("memory_by_node", strings.Join(memParts, ", "), fmt.Sprintf("/proc/%d/numa_maps (%s)", c.pid(), "raw/numa_maps.txt")),
		ev("thread_cpu_by_node", strings.Join(cpuParts, ", "), fmt.Sprintf("/proc/%d/task/*/stat (last CPU)", c.pid())),
	}
	return []finding.Outcome{f}
}
