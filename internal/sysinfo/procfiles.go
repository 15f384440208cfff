package sysinfo

// Per-process files read for JVMs, and /etc/passwd (/proc/PID/limits and
// /proc/PID/status are read by sample.ParseLimits and sample.ParseStatus):
//
//	/proc/PID/status:  Uid:	1000	1000	1000	1000
//	                   Threads:	213
//	                   VmRSS:	 2254388 kB
//	                   Cpus_allowed_list:	0-95
//	/etc/passwd:       app:x:1000:1000:App user:/home/app:/bin/bash

import (
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// procStatus is what sysinfo keeps of /proc/PID/status.
type procStatus struct {
	Name        string
	UID         int // real; -1 without a Uid line
	Threads     int
	RSSKB       int64 // VmRSS
	CPUsAllowed []int
	MemsAllowed []int
}

// parseProcStatus reads the file with sample.ParseStatus; sysinfo wants a
// text file, a Name line and every line good.
func parseProcStatus(s string) (procStatus, error) {
	st := procStatus{UID: -1}
	if err := checkText(s); err != nil {
		return st, err
	}
	ps, err := sample.ParseStatus([]byte(s))
	if err != nil {
		return st, err
	}
	if ps.Has&sample.FieldName == 0 {
		return st, finding.Errorf(finding.T("no Name line", "没有 Name 行"))
	}
	st.Name, st.Threads, st.RSSKB = ps.Name, ps.Threads, int64(ps.VmRSS>>10)
	if ps.Has&sample.FieldUid != 0 {
		st.UID = ps.UID[0]
	}
	for _, l := range []struct {
		f    sample.StatusField
		name string
		v    string
		dst  *[]int
	}{{sample.FieldCpusAllowedList, "Cpus_allowed_list", ps.CPUsAllowedList, &st.CPUsAllowed}, {sample.FieldMemsAllowedList, "Mems_allowed_list", ps.MemsAllowedList, &st.MemsAllowed}} {
		if ps.Has&l.f == 0 {
			continue
		}
		if *l.dst, err = ParseCPUList(l.v); err != nil {
			return st, finding.Errorf(finding.T("bad %s %q: %v", "%s 无效 %q：%v"), l.name, finding.Clip(l.v, 40), err)
		}
	}
	return st, nil
}

// parsePasswd maps uid -> user name.
func parsePasswd(s string) (map[int]string, error) {
	if err := checkText(s); err != nil {
		return nil, err
	}
	m := map[int]string{}
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 4 || f[0] == "" {
			return nil, lineErr(i+1, finding.T("not a passwd entry: %q", "不是 passwd 条目：%q"), finding.Clip(line, 40))
		}
		uid, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, lineErr(i+1, finding.T("bad uid %q", "uid 无效：%q"), finding.Clip(f[2], 40))
		}
		if _, dup := m[uid]; !dup {
			m[uid] = f[0]
		}
	}
	return m, nil
}

// splitCmdline splits /proc/PID/cmdline on NUL. Kernel threads have an
// empty cmdline (nil); a process that rewrote its title may have spaces
// and no NULs, which stays one argument.
func splitCmdline(b []byte) ([]string, error) {
	s := strings.TrimRight(string(b), "\x00")
	if s == "" {
		return nil, nil
	}
	args := strings.Split(s, "\x00")
	for _, a := range args {
		if err := checkText(a); err != nil {
			return nil, finding.Errorf(finding.T("argument %v", "参数 %v"), err)
		}
	}
	return args, nil
}
