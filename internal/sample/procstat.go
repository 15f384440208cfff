package sample

// /proc/PID/stat and /proc/PID/task/TID/stat: one line, the command name in
// parentheses (it may hold spaces and parentheses: the last ')' ends it).
// Samples (a JDK 17 process and two of its threads; "C2 CompilerThre" is
// "C2 CompilerThread0" cut to 15 bytes):
//
//	1784 (java) S 1782 1782 13811 0 -1 4194304 12559 0 14 0 567 7 0 0 20 0 26 0 95881 2709745664 19195 18446744073709551615 94107109421056 94107109421941 140736239974608 0 0 0 0 0 16800975 0 0 0 17 1 0 0 0 0 0 94107109432640 94107109433368 94107545206784 140736239983080 140736239983109 140736239983109 140736239984618 0
//	1808 (C2 CompilerThre) S 1782 1782 13811 0 -1 4194368 1403 0 0 0 11 1 0 0 20 0 26 0 95885 2709745664 19195 18446744073709551615 94107109421056 94107109421941 140736239974608 0 0 0 4 0 16800975 1 0 0 -1 0 0 0 0 0 0 94107109432640 94107109433368 94107545206784 140736239983080 140736239983109 140736239983109 140736239984618 0
//	1847 (hot-spinner) R 1782 1782 13811 0 -1 4194368 24 0 0 0 814 2 0 0 20 0 26 0 95956 2709745664 19195 18446744073709551615 94107109421056 94107109421941 140736239974608 0 0 0 4 0 16800975 0 0 0 -1 1 0 0 0 0 0 94107109432640 94107109433368 94107545206784 140736239983080 140736239983109 140736239983109 140736239984618 0
//
// Fields (1-based, proc(5)): 3 state, 4 ppid, 10 minflt, 12 majflt, 14 utime, 15
// stime (USER_HZ ticks; for the process: all threads, live and exited), 20
// num_threads, 22 starttime (ticks after boot), 39 processor (CPU last run
// on). For a process the times cover all its threads, live and dead.
//
// /proc/PID/task/TID/schedstat: ns on CPU, ns waiting on a run queue, time
// slices run. Sample (the hot-spinner thread above):
//
//	8167360219 2919600084 10279
//
// /proc/PID/task/TID/status ends with the context switch counts, all the
// thread sampler reads of it (format in status.go):
//
//	voluntary_ctxt_switches:	353
//	nonvoluntary_ctxt_switches:	74

import (
	"bytes"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// PidStat is the part of a /proc/PID/stat line tuneloop reads.
type PidStat struct {
	Comm         []byte // aliases the input
	State        byte   // R, S, D, T (stopped), Z (zombie), ...
	PPID         uint64
	MinFlt       uint64
	MajFlt       uint64
	Utime, Stime uint64
	Threads      uint64
	Start        uint64
	CPU          int64 // -1 when the line is too short to have it
}

// ParsePidStat parses one /proc/PID/stat (or task/TID/stat) line. It is
// the one parser of that file: the samplers, jmeter (engine CPU), apply
// (a process's identity by start time), launch (alive, parent, start) and
// experiment (stopped at its gate) call it. The comm runs from the first
// '(' to the last ')', so a name holding spaces, ") (" or a digit parses;
// the 20 fields after it, up to starttime (22), must be there, as every
// kernel since 2.6 writes them; processor (39) is -1 when absent. Times
// are in UserHZ ticks.
func ParsePidStat(b []byte) (PidStat, error) {
	var sc scratch
	return parsePidStat(b, &sc)
}

// parsePidStat is ParsePidStat with the sampler's scratch.
func parsePidStat(b []byte, sc *scratch) (PidStat, error) {
	var st PidStat
	b = trimNL(b) // a line read whole ends in "\n"; strings.Fields-based copies dropped it
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return st, badLine(1, b, finding.T("no (comm)", "没有 (comm)"))
	}
	st.Comm = b[open+1 : end]
	f := sc.fields(b[end+1:])
	// f[i] is field i+3.
	if len(f) < 20 || len(f[0]) != 1 {
		return st, badLine(1, b, finding.T("fewer than 22 fields", "少于 22 个字段"))
	}
	st.State = f[0][0]
	vals := [...]struct {
		i   int
		dst *uint64
	}{{1, &st.PPID}, {7, &st.MinFlt}, {9, &st.MajFlt}, {11, &st.Utime}, {12, &st.Stime}, {17, &st.Threads}, {19, &st.Start}}
	for _, v := range vals {
		x, ok := atou(f[v.i])
		if !ok {
			return st, badLine(1, b, finding.Tf(finding.T("bad number in field %s", "第 %s 个字段数字无效"), itoa(v.i+3)))
		}
		*v.dst = x
	}
	st.CPU = -1
	if len(f) > 36 {
		if c, ok := atou(f[36]); ok && c < 1<<20 {
			st.CPU = int64(c)
		}
	}
	return st, nil
}

// ParseSchedstat parses /proc/PID[/task/TID]/schedstat, "run_ns wait_ns
// slices": the time on a CPU and waiting for one, in ns.
func ParseSchedstat(b []byte) (run, wait uint64, err error) {
	var sc scratch
	return parseSchedstat(b, &sc)
}

// parseSchedstat is ParseSchedstat with the sampler's scratch.
func parseSchedstat(b []byte, sc *scratch) (run, wait uint64, err error) {
	f := sc.fields(trimNL(b))
	if len(f) < 2 {
		return 0, 0, badLine(1, b, finding.T("want run_ns wait_ns", "应为 run_ns wait_ns"))
	}
	var ok1, ok2 bool
	run, ok1 = atou(f[0])
	wait, ok2 = atou(f[1])
	if !ok1 || !ok2 {
		return 0, 0, badLine(1, b, finding.T("bad number", "数字无效"))
	}
	return run, wait, nil
}

// parseCtxtSwitches reads the two context switch counts of a status file
// (ProcStatus.Parse, from the end: they are its last lines) into ps.
func parseCtxtSwitches(b []byte, ps *ProcStatus) (vcs, nvcs uint64, err error) {
	const want = FieldVoluntaryCtxt | FieldNonvoluntaryCtxt
	if err := ps.Parse(b, want); err != nil {
		return 0, 0, err
	}
	if ps.Has&want != want {
		return 0, 0, badLine(0, nil, finding.T("no voluntary_ctxt_switches/nonvoluntary_ctxt_switches", "没有 voluntary_ctxt_switches/nonvoluntary_ctxt_switches"))
	}
	return ps.VoluntaryCtxt, ps.NonvoluntaryCtxt, nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == 0) {
		b = b[:len(b)-1]
	}
	return b
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	neg := i < 0
	u := uint64(i)
	if neg {
		u = uint64(-i)
	}
	for u > 0 {
		n--
		b[n] = byte('0' + u%10)
		u /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
