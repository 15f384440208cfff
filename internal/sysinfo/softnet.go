package sysinfo

// /proc/net/softnet_stat, one row per CPU, hex columns: processed,
// dropped (backlog full), time_squeeze (budget exhausted), then others:
//
//	000336da 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000
//	001c81aa 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001 00000000 00000000
//
// procfs.NetSoftnetStat parses this too, but requires 9+ columns per row
// (older 3.10 kernels print fewer on some builds); we need only three.

import (
	"math"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/units"
)

func parseSoftnet(s string) (Softnet, error) {
	var sn Softnet
	if err := checkText(s); err != nil {
		return sn, err
	}
	rows := 0
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 {
			return Softnet{}, lineErr(i+1, finding.T("want at least 3 hex columns, got %q", "应至少有 3 个十六进制列，实际为 %q"), finding.Clip(line, 40))
		}
		var v [3]uint64
		for j := range v {
			n, ok := units.ParseHex(f[j])
			if !ok || n > math.MaxUint32 {
				return Softnet{}, lineErr(i+1, finding.T("bad hex column %d %q", "第 %d 个十六进制列无效 %q"), j+1, finding.Clip(f[j], 40))
			}
			v[j] = n
		}
		sn.Processed += v[0]
		sn.Dropped += v[1]
		sn.TimeSqueeze += v[2]
		rows++
	}
	if rows == 0 {
		return Softnet{}, finding.Errorf(finding.T("no CPU rows", "没有 CPU 行"))
	}
	return sn, nil
}

func collectSoftnet(h hostfs.FS) Field[Softnet] {
	return readField(h, h.ProcPath("net/softnet_stat"), parseSoftnet)
}
