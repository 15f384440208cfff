package sample

// /proc/PID/status and /proc/PID/task/TID/status: one "Key:<tab>value" a
// line; sizes in kB; Uid and Gid list real, effective, saved and fs ids;
// NSpid the pid in each pid namespace, outermost first. Sample (a JDK 17
// process in a container; cut):
//
//	Name:	java
//	State:	S (sleeping)
//	Tgid:	6410
//	Pid:	6410
//	PPid:	6391
//	Uid:	1000	1000	1000	1000
//	Gid:	1000	1000	1000	1000
//	NSpid:	6410	1
//	VmSize:	 2709744 kB
//	VmHWM:	   76784 kB
//	VmRSS:	   76784 kB
//	RssAnon:	   58336 kB
//	Threads:	26
//	SigCgt:	2000000181005ccf
//	Cpus_allowed_list:	0-1
//	Mems_allowed_list:	0
//	voluntary_ctxt_switches:	3
//	nonvoluntary_ctxt_switches:	1
//
// ParseStatus is the one reader of this file: sysinfo's process scan and
// JVM facts, attach (ids, namespace pid, SIGQUIT handler), the whole-wait
// profile (a thread's namespace id), launch and experiment (threads, CPU
// binding) and, through ProcStatus.Parse with only the fields they want, the
// process and thread samplers every tick.

import (
	"bytes"
	"math/bits"
	"unicode/utf8"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// StatusField names the lines of /proc/PID/status that ProcStatus holds; a
// set of them (ORed) says which to read and which were read.
type StatusField uint32

const (
	FieldName StatusField = 1 << iota
	FieldState
	FieldTgid
	FieldPid
	FieldPPid
	FieldUid
	FieldGid
	FieldNSpid
	FieldVmSize
	FieldVmHWM
	FieldVmRSS
	FieldRssAnon
	FieldRssFile
	FieldRssShmem
	FieldVmSwap
	FieldThreads
	FieldSigCgt
	FieldCpusAllowedList
	FieldMemsAllowedList
	FieldVoluntaryCtxt
	FieldNonvoluntaryCtxt

	// FieldsAll is every field ProcStatus holds.
	FieldsAll = FieldNonvoluntaryCtxt<<1 - 1
)

// statusKeys is each field's key, in StatusField bit order.
var statusKeys = [...]string{"Name", "State", "Tgid", "Pid", "PPid", "Uid", "Gid", "NSpid",
	"VmSize", "VmHWM", "VmRSS", "RssAnon", "RssFile", "RssShmem", "VmSwap", "Threads", "SigCgt",
	"Cpus_allowed_list", "Mems_allowed_list", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"}

// ProcStatus is the part of /proc/PID/status tuneloop reads. A field counts
// only when its bit is in Has: a line absent or malformed leaves it out,
// and what a reused ProcStatus holds there means nothing.
type ProcStatus struct {
	Has   StatusField
	Name  string // as printed: the kernel escapes '\n' and '\\' in it
	State byte   // R, S, D, T, t, Z, X, ...

	Tgid, Pid, PPid int
	UID, GID        [4]int // real, effective, saved, filesystem; -1 for a column not printed
	NSpid           []int  // outermost namespace first; the last is the pid the process sees

	// Memory, in bytes (the file prints kB).
	VmSize, VmHWM, VmRSS, RssAnon, RssFile, RssShmem, VmSwap uint64

	Threads int
	SigCgt  uint64 // signals caught, bit N-1 for signal N

	CPUsAllowedList, MemsAllowedList string // as printed ("0-3,8"), read with sysinfo.ParseCPUList

	VoluntaryCtxt, NonvoluntaryCtxt uint64
}

// ParseStatus reads a whole /proc/PID/status. Every line needs a colon; a
// bad line is skipped and the first one reported as an ErrParse naming
// its line; the fields read are kept (Has). A file holding none of the
// fields is an error.
func ParseStatus(b []byte) (ProcStatus, error) {
	var st ProcStatus
	err := st.Parse(b, FieldsAll)
	return st, err
}

// Parse reads the fields in want into st, reusing its NSpid array. For
// one or two fields it finds each one's line from the end (the context
// switch lines, which the thread sampler reads every tick for every
// thread, are the file's last); for more it walks the lines once. Both
// ways read the last line of a key and parse it with statusLine, so they
// agree (the fuzz test checks). Only with every field (FieldsAll) is a
// line without a colon an error. A wanted field that is absent is not an
// error; the caller checks Has.
func (st *ProcStatus) Parse(b []byte, want StatusField) error {
	want &= FieldsAll
	st.Has &^= want
	if bits.OnesCount32(uint32(want)) > 2 {
		return st.parseLines(b, want)
	}
	var err error
	for w := want; w != 0; w &= w - 1 {
		i := bits.TrailingZeros32(uint32(w))
		f, key := StatusField(1)<<i, statusKeys[i]
		at, line, ok := findKey(b, key)
		if !ok {
			continue
		}
		if what := st.statusLine(f, line[len(key)+1:]); what.EN != "" {
			firstErr(&err, badLine(bytes.Count(b[:at], []byte{'\n'})+1, line, what))
		}
	}
	return err
}

// parseLines is Parse walking every line.
func (st *ProcStatus) parseLines(b []byte, want StatusField) error {
	var err error
	l := lines{b: b}
	for l.next() {
		k, v, ok := cut(l.line, ':')
		if !ok {
			if want == FieldsAll && len(trimSpace(l.line)) > 0 {
				firstErr(&err, badLine(l.n, l.line, finding.T("no colon", "没有冒号")))
			}
			continue
		}
		f := statusFieldOf(k) & want
		if f == 0 {
			continue
		}
		st.Has &^= f // the last line of a key counts, good or bad
		if what := st.statusLine(f, v); what.EN != "" {
			firstErr(&err, badLine(l.n, l.line, what))
		}
	}
	if want == FieldsAll && st.Has == 0 && err == nil {
		err = badLine(l.n, nil, finding.T("no status lines", "没有 status 行"))
	}
	return err
}

func statusFieldOf(k []byte) StatusField {
	for i, key := range statusKeys {
		if string(k) == key {
			return StatusField(1) << i
		}
	}
	return 0
}

// findKey finds the last line that starts with key and a colon: its
// offset and the line without its newline.
func findKey(b []byte, key string) (i int, line []byte, ok bool) {
	var pat [32]byte // "\n" + the longest key + ":" fits
	p := append(append(append(pat[:0], '\n'), key...), ':')
	i = bytes.LastIndex(b, p) + 1
	if i == 0 && !bytes.HasPrefix(b, p[1:]) {
		return 0, nil, false
	}
	line = b[i:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return i, line, true
}

// statusLine parses the value v of field f into st and sets its bit; it
// says what is wrong otherwise. Only Name, NSpid and the CPU lists
// allocate.
func (st *ProcStatus) statusLine(f StatusField, v []byte) (what finding.Text) {
	v = trimSpace(v)
	var sc [5][]byte
	switch f {
	case FieldName:
		if !utf8.Valid(v) || bytes.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return finding.T("binary name", "名称为二进制内容")
		}
		st.Name = string(v)
	case FieldState:
		if len(v) == 0 || !(v[0] >= 'A' && v[0] <= 'Z' || v[0] >= 'a' && v[0] <= 'z') {
			return finding.T("bad state", "状态无效")
		}
		st.State = v[0]
	case FieldTgid, FieldPid, FieldPPid, FieldThreads:
		n, ok := atoi(v)
		if !ok || n < 0 || n > 1<<31-1 {
			return finding.T("bad number", "数字无效")
		}
		switch f {
		case FieldTgid:
			st.Tgid = int(n)
		case FieldPid:
			st.Pid = int(n)
		case FieldPPid:
			st.PPid = int(n)
		default:
			st.Threads = int(n)
		}
	case FieldUid, FieldGid:
		ids := fields(v, sc[:0])
		if len(ids) == 0 || len(ids) > 4 {
			return finding.T("want 1 to 4 ids", "应为 1 到 4 个 ID")
		}
		out := [4]int{-1, -1, -1, -1}
		for i, id := range ids {
			n, ok := atou(id)
			if !ok || n > 1<<32-1 {
				return finding.T("bad id", "ID 无效")
			}
			out[i] = int(n)
		}
		if f == FieldUid {
			st.UID = out
		} else {
			st.GID = out
		}
	case FieldNSpid:
		pids := st.NSpid[:0]
		for len(v) > 0 {
			var tok []byte
			i := 0
			for i < len(v) && !isSpace(v[i]) {
				i++
			}
			tok, v = v[:i], trimSpace(v[i:])
			n, ok := atou(tok)
			if !ok || n == 0 || n > 1<<31-1 {
				return finding.T("bad pid", "pid 无效")
			}
			pids = append(pids, int(n))
		}
		if len(pids) == 0 {
			return finding.T("no pid", "没有 pid")
		}
		st.NSpid = pids
	case FieldVmSize, FieldVmHWM, FieldVmRSS, FieldRssAnon, FieldRssFile, FieldRssShmem, FieldVmSwap:
		num, unit, _ := bytes.Cut(v, []byte{' '})
		kb, ok := atou(num)
		if u := string(trimSpace(unit)); !ok || kb > 1<<54 || (u != "kB" && u != "") {
			return finding.T(`want "N kB"`, `应为 "N kB"`)
		}
		b := kb << 10
		switch f {
		case FieldVmSize:
			st.VmSize = b
		case FieldVmHWM:
			st.VmHWM = b
		case FieldVmRSS:
			st.VmRSS = b
		case FieldRssAnon:
			st.RssAnon = b
		case FieldRssFile:
			st.RssFile = b
		case FieldRssShmem:
			st.RssShmem = b
		default:
			st.VmSwap = b
		}
	case FieldSigCgt:
		m, ok := units.ParseHex(v)
		if !ok {
			return finding.T("bad signal mask", "信号掩码无效")
		}
		st.SigCgt = m
	case FieldCpusAllowedList, FieldMemsAllowedList:
		if len(v) == 0 || bytes.ContainsFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '-' && r != ',' }) {
			return finding.T("bad list", "列表无效")
		}
		if f == FieldCpusAllowedList {
			st.CPUsAllowedList = string(v)
		} else {
			st.MemsAllowedList = string(v)
		}
	case FieldVoluntaryCtxt, FieldNonvoluntaryCtxt:
		n, ok := atou(v)
		if !ok {
			return finding.T("bad count", "计数无效")
		}
		if f == FieldVoluntaryCtxt {
			st.VoluntaryCtxt = n
		} else {
			st.NonvoluntaryCtxt = n
		}
	}
	st.Has |= f
	return finding.Text{}
}
