package sysinfo

// CPU lists and masks as the kernel prints them:
//
//	/sys/devices/system/node/node0/cpulist:   0-23,48-71
//	/proc/irq/38/smp_affinity_list:           1
//	/sys/class/net/eth0/queues/rx-0/rps_cpus: 00000000,0000ff00
//	/proc/irq/38/smp_affinity:                ffffffff,ffffffff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// maxCPU bounds CPU numbers we accept, so a corrupt "0-4294967295" cannot
// allocate gigabytes. Linux NR_CPUS tops out at 8192 today.
const maxCPU = 1 << 16

// ParseCPUList parses "0-3,8,10-11" (optionally with ":stride" groups as in
// isolcpus, "0-7:2") into sorted, distinct CPU numbers. Empty input is an
// empty list (e.g. an unset rps_cpus or a memory-only NUMA node).
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return []int{}, nil
	}
	seen := map[int]bool{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, finding.Errorf(finding.T("cpu list %q: empty element", "CPU 列表 %q：有空元素"), finding.Clip(s, 40))
		}
		stride := 1
		if r, st, ok := strings.Cut(part, ":"); ok {
			n, err := strconv.Atoi(st)
			if err != nil || n < 1 {
				return nil, finding.Errorf(finding.T("cpu list %q: bad stride %q", "CPU 列表 %q：步长无效 %q"), finding.Clip(s, 40), finding.Clip(st, 40))
			}
			part, stride = r, n
		}
		lo, hi := part, part
		if a, b, ok := strings.Cut(part, "-"); ok {
			lo, hi = a, b
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || l < 0 || h < l || h >= maxCPU {
			return nil, finding.Errorf(finding.T("cpu list %q: bad range %q", "CPU 列表 %q：范围无效 %q"), finding.Clip(s, 40), finding.Clip(part, 40))
		}
		for c := l; c <= h; c += stride {
			seen[c] = true
		}
	}
	return sortedKeys(seen), nil
}

// FormatCPUList writes CPU numbers as the kernel writes a list
// ("0-3,8,10-11"): sorted, duplicates dropped, runs as ranges. It is
// ParseCPUList's inverse and the one formatter of CPU lists.
func FormatCPUList(cpus []int) string {
	s := slices.Clone(cpus)
	slices.Sort(s)
	s = slices.Compact(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// parseHexMask parses a cpumask ("ff,00000001": comma-separated 32-bit hex
// groups, most significant first) into CPU numbers. All-zero is empty.
func parseHexMask(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, finding.Errorf(finding.T("empty cpu mask", "CPU 掩码为空"))
	}
	groups := strings.Split(s, ",")
	if len(groups)*32 > maxCPU {
		return nil, finding.Errorf(finding.T("cpu mask %q: too many groups", "CPU 掩码 %q：分组过多"), finding.Clip(s, 40))
	}
	var cpus []int
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		if g == "" || len(g) > 8 {
			return nil, finding.Errorf(finding.T("cpu mask %q: bad group %q", "CPU 掩码 %q：分组无效 %q"), finding.Clip(s, 40), finding.Clip(g, 40))
		}
		v, ok := units.ParseHex(g)
		if !ok {
			return nil, finding.Errorf(finding.T("cpu mask %q: bad group %q", "CPU 掩码 %q：分组无效 %q"), finding.Clip(s, 40), finding.Clip(g, 40))
		}
		base := (len(groups) - 1 - i) * 32
		for b := 0; b < 32; b++ {
			if v&(1<<b) != 0 {
				cpus = append(cpus, base+b)
			}
		}
	}
	if cpus == nil {
		cpus = []int{}
	}
	return cpus, nil
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
