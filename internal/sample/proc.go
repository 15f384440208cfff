package sample

// The target process: /proc/PID/stat (CPU, faults, threads; format in
// procstat.go), /proc/PID/status (memory), /proc/PID/limits (open files
// limit) and the entries of /proc/PID/fd. Samples (status: format in
// status.go):
//
//	VmRSS:	   17600 kB
//	RssAnon:	   11284 kB
//
//	Limit                     Soft Limit           Hard Limit           Units
//	Max open files            20000                20000                files
//
// The process is identified by PID and start time: if the PID disappears
// or is reused by another process the sampler reports it once
// (unavailable) and is not read again; the host samplers go on.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Proc is the target process.
type Proc struct {
	PID     int    `json:"pid"`
	Comm    string `json:"comm"`
	State   string `json:"state"`
	Utime   uint64 `json:"utime"` // USER_HZ ticks, all threads live and exited
	Stime   uint64 `json:"stime"`
	MinFlt  uint64 `json:"minflt"`
	MajFlt  uint64 `json:"majflt"`
	Threads uint64 `json:"threads"`
	Start   uint64 `json:"start"` // ticks after boot
	RSSKB   uint64 `json:"rss_kb"`
	AnonKB  uint64 `json:"anon_kb"`
	FileKB  uint64 `json:"file_kb"`
	ShmemKB uint64 `json:"shmem_kb"`
	SwapKB  uint64 `json:"swap_kb"`
	VSizeKB uint64 `json:"vsz_kb"`
	FDs     int    `json:"fds"`           // open descriptors; -1 when unreadable (see Err)
	FDSoft  int64  `json:"fd_soft"`       // Max open files soft limit; Unlimited (-1), 0 in runs recorded before
	FDHard  int64  `json:"fd_hard"`       // hard limit; likewise
	Err     string `json:"err,omitempty"` // parts that could not be read
}

type procSampler struct {
	env                  *Env
	pid                  int
	stat, status, limits string
	fdDir                string
	start                uint64
	sc                   scratch
	comm                 string
	ps                   ProcStatus // reused: no allocation per tick
}

func newProcSampler(env *Env) (Sampler, error) {
	if env.PID <= 0 {
		return nil, nil
	}
	pid := strconv.Itoa(env.PID)
	p := &procSampler{env: env, pid: env.PID, stat: env.FS.ProcPath(pid, "stat"), status: env.FS.ProcPath(pid, "status"),
		limits: env.FS.ProcPath(pid, "limits"), fdDir: env.FS.ProcPath(pid, "fd")}
	b, err := env.r.file(env.FS, p.stat)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", env.PID, err)
	}
	st, err := parsePidStat(b, &p.sc)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", env.PID, err)
	}
	p.start, p.comm = st.Start, string(st.Comm)
	return p, nil
}

// exited is the unavailable reason for a target that went away.
func exited(pid int, why string) error {
	return &unavailable{what: fmt.Sprintf("process %d %s", pid, why)}
}

func (p *procSampler) Sample(s *Snapshot) error {
	b, err := p.env.r.file(p.env.FS, p.stat)
	if err != nil {
		if isGone(err) {
			return exited(p.pid, "exited")
		}
		return err
	}
	st, err := parsePidStat(b, &p.sc)
	if err != nil {
		return err
	}
	if st.Start != p.start {
		return exited(p.pid, "exited (PID reused by another process)")
	}
	if string(st.Comm) != p.comm {
		p.comm = string(st.Comm)
	}
	pr := &Proc{PID: p.pid, Comm: p.comm, State: stateString(st.State), Utime: st.Utime, Stime: st.Stime,
		MinFlt: st.MinFlt, MajFlt: st.MajFlt, Threads: st.Threads, Start: st.Start, FDs: -1}
	var errs []byte
	if b, err := p.env.r.file(p.env.FS, p.status); err == nil {
		if err := parseProcStatus(b, pr, &p.ps); err != nil {
			errs = appendErr(errs, fmt.Errorf("%s: %w", p.env.FS.Display(p.status), err))
		}
	} else {
		errs = append(errs, err.Error()...)
	}
	if b, err := p.env.r.file(p.env.FS, p.limits); err == nil {
		if err := parseLimits(b, pr, &p.sc); err != nil {
			errs = appendErr(errs, err)
		}
	} else {
		errs = appendErr(errs, err)
	}
	if n, err := p.countFDs(); err == nil {
		pr.FDs = n
	} else {
		errs = appendErr(errs, err)
	}
	if len(errs) > 0 {
		pr.Err = string(errs)
	}
	s.Proc = pr
	return nil
}

func appendErr(b []byte, err error) []byte {
	if len(b) > 0 {
		b = append(b, "; "...)
	}
	return append(b, err.Error()...)
}

// countFDs counts /proc/PID/fd entries with getdents (no stat per entry).
func (p *procSampler) countFDs() (int, error) {
	fd, err := openDir(p.fdDir)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", p.env.FS.Display(p.fdDir), err)
	}
	defer syscall.Close(fd)
	n := 0
	if err := p.env.r.dirNames(fd, func([]byte) { n++ }); err != nil {
		return 0, fmt.Errorf("%s: %w", p.env.FS.Display(p.fdDir), err)
	}
	return n, nil
}

// stateLetters holds every state letter /proc prints (R S D Z T t X x K W P I).
const stateLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// stateString turns a state letter into a string without allocating (a
// slice of a constant); anything else is converted, which is rare.
func stateString(c byte) string {
	if i := strings.IndexByte(stateLetters, c); i >= 0 {
		return stateLetters[i : i+1]
	}
	return string(rune(c))
}

// procMemory is the memory lines the process sampler reads.
const procMemory = FieldVmRSS | FieldRssAnon | FieldRssFile | FieldRssShmem | FieldVmSwap | FieldVmSize

// parseProcStatus takes the memory lines of /proc/PID/status (ParseStatus
// reads bytes; Proc keeps kB). A line absent (RssAnon before Linux 4.5)
// leaves 0; a malformed one is the error.
func parseProcStatus(b []byte, pr *Proc, ps *ProcStatus) error {
	err := ps.Parse(b, procMemory)
	for _, k := range [...]struct {
		f   StatusField
		v   uint64
		dst *uint64
	}{{FieldVmRSS, ps.VmRSS, &pr.RSSKB}, {FieldRssAnon, ps.RssAnon, &pr.AnonKB}, {FieldRssFile, ps.RssFile, &pr.FileKB},
		{FieldRssShmem, ps.RssShmem, &pr.ShmemKB}, {FieldVmSwap, ps.VmSwap, &pr.SwapKB}, {FieldVmSize, ps.VmSize, &pr.VSizeKB}} {
		if ps.Has&k.f != 0 {
			*k.dst = k.v >> 10
		}
	}
	return err
}

// parseLimits takes the "Max open files" row of /proc/PID/limits through
// ParseLimits' row reader (limits.go), without allocating.
func parseLimits(b []byte, pr *Proc, sc *scratch) error {
	l := lines{b: b}
	for l.next() {
		if !bytes.HasPrefix(l.line, []byte("Max open files")) {
			continue
		}
		n, r, what := limitRow(sc.fields(l.line))
		if what.EN == "" && n != 3 {
			what = finding.T("not the Max open files row", "不是 Max open files 行")
		}
		if what.EN != "" {
			return badLine(l.n, l.line, what)
		}
		pr.FDSoft, pr.FDHard = r.Soft, r.Hard
		return nil
	}
	return badLine(0, nil, finding.T("no Max open files line", "没有 Max open files 行"))
}
