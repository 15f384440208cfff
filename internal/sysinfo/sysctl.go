package sysinfo

// Sysctls, one value per file under /proc/sys (dots become slashes; dashes
// stay, as in kernel.threads-max):
//
//	/proc/sys/vm/swappiness:              60
//	/proc/sys/net/ipv4/tcp_rmem:          4096	131072	6291456
//	/proc/sys/net/ipv4/ip_local_port_range: 32768	60999

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// sysctlIntFields: keys whose value is N integers (1 unless listed), so a
// wrong-looking value ("sixty", a truncated "60999") is unavailable rather
// than misread. Keys not in SysctlKeys are checked as text only.
var sysctlIntFields = map[string]int{
	"net.ipv4.tcp_rmem": 3, "net.ipv4.tcp_wmem": 3, "net.ipv4.tcp_mem": 3,
	"net.ipv4.ip_local_port_range": 2, "fs.file-nr": 3,
}

// sysctlSigned are the integer keys whose documented range includes
// negatives (3.10 prints tcp_notsent_lowat's "unset" as -1).
var sysctlSigned = map[string]bool{
	"kernel.perf_event_paranoid": true, "net.ipv4.tcp_notsent_lowat": true,
}

// sysctlPath maps a dotted key to its path under /proc/sys.
func sysctlPath(key string) string { return "sys/" + strings.ReplaceAll(key, ".", "/") }

// parseSysctl accepts a sysctl value: one line of text; multi-field values
// (tcp_rmem) are normalised to single spaces.
func parseSysctl(s string) (string, error) {
	s, err := parseText(s)
	if err != nil {
		return "", err
	}
	return strings.Join(strings.Fields(s), " "), nil
}

// sysctlParser returns the parser for key: integer shape checks for the
// known numeric keys, text otherwise.
func sysctlParser(key string) func(string) (string, error) {
	known := false
	for _, k := range SysctlKeys {
		if k == key {
			known = true
		}
	}
	if !known {
		return parseSysctl
	}
	n := max(sysctlIntFields[key], 1)
	signed := sysctlSigned[key]
	return func(s string) (string, error) {
		v, err := parseSysctl(s)
		if err != nil {
			return "", err
		}
		f := strings.Fields(v)
		if len(f) != n {
			return "", finding.Errorf(finding.T("want %d integer(s), got %q", "应为 %d 个整数，实际为 %q"), n, finding.Clip(v, 40))
		}
		for _, w := range f {
			x, err := strconv.ParseInt(w, 10, 64)
			if err != nil {
				return "", finding.Errorf(finding.T("not an integer: %q", "不是整数：%q"), finding.Clip(w, 40))
			}
			if x < 0 && !signed {
				return "", finding.Errorf(finding.T("negative value %d", "值为负：%d"), x)
			}
		}
		return v, nil
	}
}

func collectSysctl(h hostfs.FS) map[string]Field[string] {
	m := make(map[string]Field[string], len(SysctlKeys))
	for _, k := range SysctlKeys {
		m[k] = readField(h, h.ProcPath(sysctlPath(k)), sysctlParser(k))
	}
	return m
}
