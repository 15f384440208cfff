package sysinfo

// Per-process files read for JVMs, and /etc/passwd (/proc/PID/limits is
// read by sample.ParseLimits):
//
//	/proc/PID/status:  Uid:	1000	1000	1000	1000
//	                   Threads:	213
//	                   VmRSS:	 2254388 kB
//	                   Cpus_allowed_list:	0-95
//	/etc/passwd:       app:x:1000:1000:App user:/home/app:/bin/bash

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// procStatus is what tuneloop reads from /proc/PID/status.
type procStatus struct {
	Name        string
	UID         int
	Threads     int
	RSSKB       int64
	CPUsAllowed []int
	MemsAllowed []int
}

func parseProcStatus(s string) (procStatus, error) {
	st := procStatus{UID: -1}
	if err := checkText(s); err != nil {
		return st, err
	}
	seen := false
	for i, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return st, lineErr(i+1, "no ':' in %q", clipText(line))
		}
		v = strings.TrimSpace(v)
		var err error
		switch k {
		case "Name":
			st.Name, seen = v, true
		case "Uid":
			f := strings.Fields(v)
			if len(f) == 0 {
				return st, lineErr(i+1, "empty Uid")
			}
			st.UID, err = strconv.Atoi(f[0])
		case "Threads":
			st.Threads, err = strconv.Atoi(v)
		case "VmRSS":
			st.RSSKB, err = strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
		case "Cpus_allowed_list":
			st.CPUsAllowed, err = ParseCPUList(v)
		case "Mems_allowed_list":
			st.MemsAllowed, err = ParseCPUList(v)
		}
		if err != nil {
			return st, lineErr(i+1, "bad %s %q", k, clipText(v))
		}
	}
	if !seen {
		return st, errors.New("no Name line")
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
			return nil, lineErr(i+1, "not a passwd entry: %q", clipText(line))
		}
		uid, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, lineErr(i+1, "bad uid %q", clipText(f[2]))
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
			return nil, fmt.Errorf("argument %w", err)
		}
	}
	return args, nil
}
