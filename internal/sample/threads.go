package sample

// Every thread of the target: /proc/PID/task/TID/{stat,schedstat,status}
// (formats in procstat.go). The TID is the kernel's thread id, which a Java
// thread dump prints as nid=0x<hex TID>, so a hot TID found here joins to
// its Java stack.
//
// This is the hot path of `tuneloop record`: a JVM has hundreds of threads
// and each costs three files a second. The files are opened relative to the
// task directory (openat, short kernel path walk) into the collector's one
// buffer, read in one read(2) each (single-show seq files), and scanned
// without allocating; thread names are kept per TID and reused.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"syscall"
)

// Thread is one thread's counters. It is written to JSON as an array (see
// Threads.MarshalJSON) because a JVM has hundreds of them every tick.
type Thread struct {
	TID    int    // kernel thread id (jstack nid)
	Name   string // comm: the first 15 bytes of the thread name
	State  byte   // R S D T Z ...
	CPU    int32  // CPU it last ran on
	Utime  uint64 // USER_HZ ticks
	Stime  uint64
	Start  uint64 // ticks after boot: tells a reused TID from the old thread
	RunNS  uint64 // ns on CPU (schedstat 1)
	WaitNS uint64 // ns runnable but waiting for a CPU (schedstat 2, run delay)
	VCS    uint64 // voluntary context switches (blocking, sleeping)
	NVCS   uint64 // involuntary (preempted: CPU contention)
}

// Threads is the target's threads, sorted by TID.
type Threads []Thread

type threadSampler struct {
	env      *Env
	pid      int
	taskDir  string
	start    uint64 // process start time, to notice PID reuse
	sc       scratch
	tids     []int
	names    map[int]string
	noSched  bool // schedstat absent (CONFIG_SCHED_INFO off)
	noStatus bool
	ps       ProcStatus // reused: no allocation per thread
}

func newThreadSampler(env *Env) (Sampler, error) {
	if env.PID <= 0 {
		return nil, nil
	}
	pid := strconv.Itoa(env.PID)
	p := &threadSampler{env: env, pid: env.PID, taskDir: env.FS.ProcPath(pid, "task"), names: map[int]string{}}
	b, err := env.r.file(env.FS, env.FS.ProcPath(pid, "stat"))
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", env.PID, err)
	}
	st, err := parsePidStat(b, &p.sc)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", env.PID, err)
	}
	p.start = st.Start
	return p, nil
}

func (p *threadSampler) Sample(s *Snapshot) error {
	dfd, err := openDir(p.taskDir)
	if err != nil {
		if isGone(err) {
			return exited(p.pid, "exited")
		}
		return &pathError{p.env.FS.Display(p.taskDir), err}
	}
	defer syscall.Close(dfd)
	p.tids = p.tids[:0]
	err = p.env.r.dirNames(dfd, func(name []byte) {
		if v, ok := atou(name); ok && v < 1<<31 {
			p.tids = append(p.tids, int(v))
		}
	})
	if err != nil {
		if isGone(err) {
			return exited(p.pid, "exited")
		}
		return &pathError{p.env.FS.Display(p.taskDir), err}
	}
	if len(p.tids) == 0 {
		return exited(p.pid, "exited (no threads left)")
	}
	slices.Sort(p.tids)
	readStatus := !p.noStatus
	var firstBad error
	out := s.Threads[:0]
	for _, tid := range p.tids {
		t, err := p.thread(dfd, tid, readStatus)
		if err != nil {
			if isGone(err) {
				continue // exited between the listing and the read
			}
			firstErr(&firstBad, fmt.Errorf("thread %d: %w", tid, err))
			continue
		}
		if tid == p.pid && t.Start != p.start {
			return exited(p.pid, "exited (PID reused by another process)")
		}
		out = append(out, t)
	}
	if len(p.names) > 2*len(p.tids)+64 {
		p.prune()
	}
	s.Threads = out
	if firstBad != nil {
		return partial{firstBad}
	}
	if len(out) == 0 {
		return exited(p.pid, "exited")
	}
	return nil
}

// thread reads one thread's three files.
func (p *threadSampler) thread(dfd, tid int, readStatus bool) (Thread, error) {
	r := p.env.r
	t := Thread{TID: tid}
	r.path = strconv.AppendInt(r.path[:0], int64(tid), 10)
	r.path = append(r.path, "/stat"...)
	b, err := r.atPath(dfd, true)
	if err != nil {
		return t, err
	}
	st, err := parsePidStat(b, &p.sc)
	if err != nil {
		return t, err
	}
	t.State, t.Utime, t.Stime, t.Start, t.CPU = st.State, st.Utime, st.Stime, st.Start, int32(st.CPU)
	if name, ok := p.names[tid]; ok && name == string(st.Comm) {
		t.Name = name
	} else {
		t.Name = string(st.Comm)
		p.names[tid] = t.Name
	}
	if !p.noSched {
		r.path = strconv.AppendInt(r.path[:0], int64(tid), 10)
		r.path = append(r.path, "/schedstat"...)
		b, err := r.atPath(dfd, true)
		switch {
		case err == nil:
			if t.RunNS, t.WaitNS, err = parseSchedstat(b, &p.sc); err != nil {
				return t, err
			}
		case errors.Is(err, syscall.ENOENT) && tid == p.tids[0]:
			p.noSched = true // the stat file was there: the kernel has no schedstat
		default:
			return t, err
		}
	}
	if readStatus {
		r.path = strconv.AppendInt(r.path[:0], int64(tid), 10)
		r.path = append(r.path, "/status"...)
		b, err := r.atPath(dfd, true)
		if err != nil {
			return t, err
		}
		if t.VCS, t.NVCS, err = parseCtxtSwitches(b, &p.ps); err != nil {
			if !bytes.Contains(b, []byte("ctxt_switches")) {
				p.noStatus = true // a kernel before 2.6.23
				return t, nil
			}
			return t, err
		}
	}
	return t, nil
}

// prune forgets the names of threads that exited.
func (p *threadSampler) prune() {
	live := make(map[int]bool, len(p.tids))
	for _, t := range p.tids {
		live[t] = true
	}
	for tid := range p.names {
		if !live[tid] {
			delete(p.names, tid)
		}
	}
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }
