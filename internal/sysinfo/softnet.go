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
	"errors"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/hostfs"
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
			return Softnet{}, lineErr(i+1, "want at least 3 hex columns, got %q", clipText(line))
		}
		var v [3]uint64
		for j := range v {
			n, err := strconv.ParseUint(f[j], 16, 32)
			if err != nil {
				return Softnet{}, lineErr(i+1, "bad hex column %d %q", j+1, clipText(f[j]))
			}
			v[j] = n
		}
		sn.Processed += v[0]
		sn.Dropped += v[1]
		sn.TimeSqueeze += v[2]
		rows++
	}
	if rows == 0 {
		return Softnet{}, errors.New("no CPU rows")
	}
	return sn, nil
}

func collectSoftnet(h hostfs.FS) Field[Softnet] {
	return readField(h, h.ProcPath("net/softnet_stat"), parseSoftnet)
}
