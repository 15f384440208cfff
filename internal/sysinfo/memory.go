package sysinfo

// /proc/meminfo (kB unless no unit) and THP mode files:
//
//	MemTotal:        4417752 kB
//	MemAvailable:    4120184 kB
//	HugePages_Total:       0
//	Hugepagesize:       2048 kB
//	/sys/kernel/mm/transparent_hugepage/enabled: always [madvise] never
//
// procfs.Meminfo is a fixed struct; rules want the keys as the file names them.

import (
	"math"
	"strings"

	"github.com/prometheus/procfs"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// parseMeminfo reads /proc/meminfo with sample.ParseMeminfo (the one
// parser of it) into key -> value; MemTotal must be there.
func parseMeminfo(s string) (map[string]int64, error) {
	if err := checkText(s); err != nil {
		return nil, err
	}
	u := map[string]uint64{}
	if err := sample.ParseMeminfo([]byte(s), u); err != nil {
		// Host facts cite "line N: ..." without sample's "malformed: ".
		return nil, parseDetail(err)
	}
	m := make(map[string]int64, len(u))
	for k, v := range u {
		if v > math.MaxInt64 {
			return nil, finding.Errorf(finding.T("%s: value %d out of range", "%s: 值 %d 超出范围"), k, v)
		}
		m[k] = int64(v)
	}
	if _, ok := m["MemTotal"]; !ok {
		return nil, finding.Errorf(finding.T("no MemTotal", "没有 MemTotal"))
	}
	return m, nil
}

// parseBracketChoice returns the [selected] word of a sysfs choice file
// and all choices: "always [madvise] never" -> "madvise".
func parseBracketChoice(s string) (string, []string, error) {
	ws, err := parseWords(s)
	if err != nil {
		return "", nil, err
	}
	sel := ""
	all := make([]string, 0, len(ws))
	for _, w := range ws {
		if len(w) > 2 && w[0] == '[' && w[len(w)-1] == ']' {
			if sel != "" {
				return "", nil, finding.Errorf(finding.T("two selected choices in %q", "%q 中有两个选中项"), finding.Clip(s, 40))
			}
			w = w[1 : len(w)-1]
			sel = w
		}
		all = append(all, w)
	}
	if sel == "" {
		return "", nil, finding.Errorf(finding.T("no [selected] choice in %q", "%q 中没有 [选中] 项"), finding.Clip(s, 40))
	}
	return sel, all, nil
}

func parseChoice(s string) (string, error) {
	sel, _, err := parseBracketChoice(s)
	return sel, err
}

func collectMemory(h hostfs.FS) Memory {
	thp := h.SysPath("kernel/mm/transparent_hugepage")
	return Memory{
		Meminfo:    readField(h, h.ProcPath("meminfo"), parseMeminfo),
		THPEnabled: readField(h, thp+"/enabled", parseChoice),
		THPDefrag:  readField(h, thp+"/defrag", parseChoice),
		Swaps:      collectSwaps(h),
	}
}

// collectSwaps uses procfs, which parses /proc/swaps exactly:
//
//	Filename				Type		Size		Used		Priority
//	/dev/dm-1                               partition	8388604		0		-2
func collectSwaps(h hostfs.FS) Field[[]Swap] {
	p := h.ProcPath("swaps")
	s, err := h.ReadString(p)
	if err != nil {
		return Missing[[]Swap](err)
	}
	// procfs skips the header unseen; insist on it so garbage is not "no swap".
	if !strings.HasPrefix(s, "Filename") {
		return Missing[[]Swap](fileErr(h, p, finding.Errorf(finding.T("no header line, got %q", "没有表头行，实际为 %q"), finding.Clip(s, 40))))
	}
	fs, err := procfs.NewFS(h.Proc)
	if err != nil {
		return Missing[[]Swap](fileErr(h, p, err))
	}
	ps, err := fs.Swaps()
	if err != nil {
		return Missing[[]Swap](fileErr(h, p, err))
	}
	out := make([]Swap, 0, len(ps))
	for _, sw := range ps {
		out = append(out, Swap{Name: sw.Filename, Type: sw.Type, SizeKB: int64(sw.Size), UsedKB: int64(sw.Used), Priority: sw.Priority})
	}
	return Got(out, h.Display(p))
}
