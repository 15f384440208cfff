package sysinfo

// NUMA nodes, /sys/devices/system/node/nodeN/:
//
//	cpulist:  0-23
//	distance: 10 12 20 22
//	meminfo:
//	Node 0 MemTotal:       131592436 kB
//	Node 0 MemFree:        125092708 kB
//	Node 0 MemUsed:          6499728 kB

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// parseNodeMeminfo reads MemTotal and MemFree (kB) of a node's meminfo:
// /proc/meminfo's lines, each after "Node N " (sample.ParseMeminfo).
func parseNodeMeminfo(s string) (total, free int64, err error) {
	if first, _, _ := strings.Cut(strings.TrimLeft(s, " \n"), " "); first != "Node" {
		return 0, 0, finding.Errorf(finding.T(`not a node's meminfo: want "Node N Key: value [kB]" lines`, `不是 NUMA 节点的 meminfo：应为 "Node N Key: value [kB]" 行`))
	}
	m, err := parseMeminfo(s)
	if err != nil {
		return 0, 0, err
	}
	return m["MemTotal"], m["MemFree"], nil
}

// parseDistance parses a node's distance row.
func parseDistance(s string) ([]int, error) {
	ws, err := parseWords(s)
	if err != nil {
		return nil, err
	}
	d := make([]int, len(ws))
	for i, w := range ws {
		v, err := strconv.Atoi(w)
		if err != nil || v < 0 || v > 255 {
			return nil, finding.Errorf(finding.T("bad distance %q", "距离无效：%q"), finding.Clip(w, 40))
		}
		d[i] = v
	}
	return d, nil
}

func collectNUMA(h hostfs.FS) NUMA {
	dir := h.SysPath("devices/system/node")
	names, err := h.ReadDir(dir)
	if err != nil {
		return NUMA{Nodes: Missing[[]Node](err)}
	}
	var nodes []Node
	var firstErr error
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, "node")
		id, aerr := strconv.Atoi(rest)
		if !ok || aerr != nil {
			continue
		}
		nd := dir + "/" + n
		cpus := readField(h, nd+"/cpulist", ParseCPUList)
		mem, merr := h.ReadString(nd + "/meminfo")
		var total, free int64
		if merr == nil {
			total, free, merr = parseNodeMeminfo(mem)
			if merr != nil {
				merr = fileErr(h, nd+"/meminfo", merr)
			}
		}
		dist := readField(h, nd+"/distance", parseDistance)
		if !cpus.OK || merr != nil || !dist.OK {
			if firstErr == nil {
				switch {
				case !cpus.OK:
					firstErr = cpus.AsErr()
				case merr != nil:
					firstErr = merr
				default:
					firstErr = dist.AsErr()
				}
			}
			continue
		}
		nodes = append(nodes, Node{ID: id, CPUs: cpus.Value, MemTotalKB: total, MemFreeKB: free, Distances: dist.Value})
	}
	if firstErr != nil {
		// A partial node list would mislead NUMA rules: all or nothing.
		return NUMA{Nodes: Missing[[]Node](firstErr)}
	}
	if len(nodes) == 0 {
		return NUMA{Nodes: Missing[[]Node](finding.Errorf(finding.T("%s: no nodeN directories", "%s: 没有 nodeN 目录"), h.Display(dir)))}
	}
	return NUMA{Nodes: Got(nodes, h.Display(dir))}
}
