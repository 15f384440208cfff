package sample

// /proc/PID/cgroup and /proc/self/cgroup: one line per hierarchy,
// "ID:controllers:path"; cgroup v1 hierarchies list their controllers
// (comma separated, or a named one "name=systemd"), the v2 line is
// "0::path". The path may hold colons (only the first two separate).
// Sample (a hybrid host, v1 and v2 both mounted):
//
//	9:name=systemd:/
//	4:memory:/process_api/9b2311c328df08ed77ef54e482a9cc75
//	2:cpu,cpuacct:/kubepods/burstable/pod1f4/0c9e
//	0::/
//
// ParseCgroup is the one reader of this file: sysinfo (the cgroup facts
// and a JVM's limits) and apply (the systemd unit that holds a process).

import (
	"strings"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// CgroupLine is one line of /proc/PID/cgroup.
type CgroupLine struct {
	ID          int
	Controllers []string // nil for the v2 line; "name=systemd" kept as is
	Path        string   // starts with '/'
}

// ParseCgroup reads a whole /proc/PID/cgroup. A bad line is skipped and
// the first one reported as an ErrParse naming its line; the good lines
// are returned. A file without one line is an error.
func ParseCgroup(b []byte) ([]CgroupLine, error) {
	var out []CgroupLine
	var err error
	l := lines{b: b}
	for l.next() {
		if len(trimSpace(l.line)) == 0 {
			continue
		}
		id, rest, ok1 := cut(l.line, ':')
		ctrl, path, ok2 := cut(rest, ':')
		n, ok := atou(id)
		switch {
		case !ok1 || !ok2 || len(path) == 0 || path[0] != '/':
			firstErr(&err, badLine(l.n, l.line, finding.T("want ID:controllers:/path", "应为 ID:controllers:/path")))
			continue
		case !ok || n > 1<<31-1:
			firstErr(&err, badLine(l.n, l.line, finding.T("bad hierarchy ID", "层级 ID 无效")))
			continue
		case !utf8.Valid(l.line) || strings.ContainsFunc(string(l.line), func(r rune) bool { return r < 0x20 || r == 0x7f }):
			firstErr(&err, badLine(l.n, l.line, finding.T("binary text", "文本为二进制内容")))
			continue
		}
		c := CgroupLine{ID: int(n), Path: string(path)}
		if len(ctrl) > 0 {
			c.Controllers = strings.Split(string(ctrl), ",")
		}
		out = append(out, c)
	}
	if len(out) == 0 && err == nil {
		err = badLine(l.n, nil, finding.T("no cgroup lines", "没有 cgroup 行"))
	}
	return out, err
}
