package attach

// The output of `jcmd PID VM.log list` (JDK 9+): after the available levels,
// decorators and tags, one line per log output. Samples:
//
//	Log output configuration:
//	 #0: stdout all=warning uptime,level,tags
//	 #1: stderr all=off uptime,level,tags foldmultilines=false
//	 #2: file=/tmp/gc.log all=off,gc*=info time,uptime,level,tags filecount=5,filesize=20480K,async=false (reconfigured)
//	 #3: file="/var/log/my app/gc.log" all=off,gc=debug,safepoint=info uptime filecount=5,filesize=20480K

import (
	"strconv"
	"strings"
)

// LogOutput is one unified logging output of a JVM.
type LogOutput struct {
	Index      int    `json:"index"`
	Name       string `json:"name"`      // stdout, stderr or file=PATH
	Selection  string `json:"selection"` // all=off,gc*=info
	Decorators string `json:"decorators,omitempty"`
	Options    string `json:"options,omitempty"`
}

// File is the output's file path, "" for stdout and stderr.
func (o LogOutput) File() string {
	f, ok := strings.CutPrefix(o.Name, "file=")
	if !ok {
		return ""
	}
	return strings.Trim(f, `"`)
}

// LogsGC reports whether the output logs the gc tag at info or finer
// (what a GC log analyser needs); "all=warning" does not.
func (o LogOutput) LogsGC() bool {
	for _, sel := range strings.Split(o.Selection, ",") {
		tags, level, ok := strings.Cut(sel, "=")
		if !ok {
			continue
		}
		switch level {
		case "info", "debug", "trace":
		default:
			continue
		}
		if tags == "all" {
			return true
		}
		for _, t := range strings.Split(strings.TrimSuffix(tags, "*"), "+") {
			if t == "gc" {
				return true
			}
		}
	}
	return false
}

// parseLogList reads the output lines of VM.log list; other lines are skipped.
func parseLogList(s string) []LogOutput {
	var out []LogOutput
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		num, rest, ok := strings.Cut(rest, ": ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		o := LogOutput{Index: n}
		// The name may be quoted and hold spaces: file="/a b/gc.log".
		if q, ok := strings.CutPrefix(rest, `file="`); ok {
			if end := strings.IndexByte(q, '"'); end >= 0 {
				o.Name = `file="` + q[:end+1]
				rest = q[end+1:]
			}
		}
		f := strings.Fields(rest)
		if o.Name == "" {
			if len(f) == 0 {
				continue
			}
			o.Name, f = f[0], f[1:]
		}
		if len(f) > 0 && f[len(f)-1] == "(reconfigured)" {
			f = f[:len(f)-1]
		}
		if len(f) > 0 {
			o.Selection, f = f[0], f[1:]
		}
		if len(f) > 0 {
			o.Decorators, f = f[0], f[1:]
		}
		o.Options = strings.Join(f, " ")
		out = append(out, o)
	}
	return out
}
