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
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// parseNodeMeminfo reads MemTotal and MemFree (kB) of a node's meminfo.
func parseNodeMeminfo(s string) (total, free int64, err error) {
	if err := checkText(s); err != nil {
		return 0, 0, err
	}
	var gotTotal bool
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 || f[0] != "Node" {
			return 0, 0, lineErr(i+1, "want \"Node N Key: value [kB]\", got %q", clipText(line))
		}
		v, perr := strconv.ParseInt(f[3], 10, 64)
		if perr != nil || v < 0 {
			return 0, 0, lineErr(i+1, "bad value %q", clipText(f[3]))
		}
		switch f[2] {
		case "MemTotal:":
			total, gotTotal = v, true
		case "MemFree:":
			free = v
		}
	}
	if !gotTotal {
		return 0, 0, errors.New("no MemTotal")
	}
	return total, free, nil
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
			return nil, fmt.Errorf("bad distance %q", clipText(w))
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
					firstErr = errors.New(cpus.Err)
				case merr != nil:
					firstErr = merr
				default:
					firstErr = errors.New(dist.Err)
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
		return NUMA{Nodes: Missing[[]Node](fmt.Errorf("%s: no nodeN directories", h.Display(dir)))}
	}
	return NUMA{Nodes: Got(nodes, h.Display(dir))}
}
