package sysinfo

// /proc/self/cgroup (format in sample/cgroup.go):
//
//	4:memory:/process_api/ff1a3be377cf792c940e6dfada5435e6
//	0::/
//
// /proc/self/mountinfo:
//
//	32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
//	41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
//
// Controller files: cpu.max "max 100000" | "200000 100000"; cpu.cfs_quota_us
// "-1"; memory.max "max"; memory.limit_in_bytes "9223372036854771712";
// pids.max "max"; cpu.stat "nr_periods 0\nnr_throttled 0\nthrottled_usec 0".

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// parseProcCgroup reads /proc/PID/cgroup with sample.ParseCgroup; sysinfo
// wants a text file and every line good.
func parseProcCgroup(s string) ([]sample.CgroupLine, error) {
	if err := checkText(s); err != nil {
		return nil, err
	}
	ls, err := sample.ParseCgroup([]byte(s))
	if err != nil {
		return nil, err
	}
	return ls, nil
}

// mountInfo is one line of /proc/PID/mountinfo.
type mountInfo struct {
	Root       string // path within the filesystem that is mounted here
	MountPoint string
	FSType     string
	SuperOpts  []string
}

func parseMountinfo(s string) ([]mountInfo, error) {
	if err := checkText(s); err != nil {
		return nil, err
	}
	var out []mountInfo
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		sep := -1
		for j := 6; j < len(f); j++ {
			if f[j] == "-" {
				sep = j
				break
			}
		}
		if len(f) < 10 || sep < 0 || sep+3 > len(f) {
			return nil, lineErr(i+1, finding.T("not a mountinfo line: %q", "不是 mountinfo 行：%q"), finding.Clip(line, 40))
		}
		m := mountInfo{Root: unescapeMount(f[3]), MountPoint: unescapeMount(f[4]), FSType: f[sep+1]}
		if sep+3 < len(f) {
			m.SuperOpts = strings.Split(f[sep+3], ",")
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, errEmpty
	}
	return out, nil
}

// unescapeMount undoes the kernel's octal escapes (\040 for space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unlimitedBytes: v1 reports "no limit" as a page-rounded LONG_MAX.
const unlimitedBytes = int64(1) << 60

// parseCPUMax parses v2 cpu.max: quota in cores (0 = unlimited) and period.
func parseCPUMax(s string) (float64, int64, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, 0, finding.Errorf(finding.T("want \"QUOTA PERIOD\", got %q", "应为 \"QUOTA PERIOD\"，实际为 %q"), finding.Clip(s, 40))
	}
	period, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || period <= 0 {
		return 0, 0, finding.Errorf(finding.T("bad period %q", "周期无效：%q"), finding.Clip(f[1], 40))
	}
	if f[0] == "max" {
		return 0, period, nil
	}
	quota, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || quota <= 0 {
		return 0, 0, finding.Errorf(finding.T("bad quota %q", "配额无效：%q"), finding.Clip(f[0], 40))
	}
	return float64(quota) / float64(period), period, nil
}

// cfsQuota turns v1 cpu.cfs_quota_us and cpu.cfs_period_us into cores.
func cfsQuota(quotaS, periodS string) (float64, int64, error) {
	period, err := strconv.ParseInt(strings.TrimSpace(periodS), 10, 64)
	if err != nil || period <= 0 {
		return 0, 0, finding.Errorf(finding.T("bad cpu.cfs_period_us %q", "cpu.cfs_period_us 无效：%q"), finding.Clip(periodS, 40))
	}
	quota, err := strconv.ParseInt(strings.TrimSpace(quotaS), 10, 64)
	if err != nil || quota == 0 || quota < -1 {
		return 0, 0, finding.Errorf(finding.T("bad cpu.cfs_quota_us %q", "cpu.cfs_quota_us 无效：%q"), finding.Clip(quotaS, 40))
	}
	if quota == -1 {
		return 0, period, nil
	}
	return float64(quota) / float64(period), period, nil
}

// parseCgroupCPUStat reads throttling counters from v2 (throttled_usec) or
// v1 (throttled_time, ns) cpu.stat.
func parseCgroupCPUStat(s string) (CPUStat, error) {
	if err := checkText(s); err != nil {
		return CPUStat{}, err
	}
	var st CPUStat
	seen := false
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return CPUStat{}, lineErr(i+1, finding.T("want \"key value\", got %q", "应为 \"key value\"，实际为 %q"), finding.Clip(line, 40))
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || v < 0 {
			return CPUStat{}, lineErr(i+1, finding.T("bad value %q", "值无效：%q"), finding.Clip(f[1], 40))
		}
		switch f[0] {
		case "nr_periods":
			st.NrPeriods, seen = v, true
		case "nr_throttled":
			st.NrThrottled = v
		case "throttled_usec":
			st.ThrottledUsec = v
		case "throttled_time":
			st.ThrottledUsec = v / 1000
		}
	}
	if !seen {
		// A v2 cgroup without the cpu controller enabled has only usage lines.
		return CPUStat{}, finding.Errorf(finding.T("no nr_periods (cpu controller not enabled here)", "没有 nr_periods（此处未启用 cpu 控制器）"))
	}
	return st, nil
}

// parseLimitBytes parses memory.max / memory.limit_in_bytes / pids.max:
// "max" or a huge v1 value is 0 (unlimited).
func parseLimitBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Values above int64 are also "no limit" in practice.
		if u, uerr := strconv.ParseUint(s, 10, 64); uerr == nil && u >= uint64(unlimitedBytes) {
			return 0, nil
		}
		return 0, finding.Errorf(finding.T("want a number or \"max\", got %q", "应为数字或 \"max\"，实际为 %q"), finding.Clip(s, 40))
	}
	if v < 0 {
		return 0, finding.Errorf(finding.T("negative limit %q", "限额为负：%q"), finding.Clip(s, 40))
	}
	if v >= unlimitedBytes {
		return 0, nil
	}
	return v, nil
}
