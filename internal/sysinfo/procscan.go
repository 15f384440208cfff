package sysinfo

// Process scan, /proc/[0-9]*/comm (the kernel's 15-byte task name):
//
//	/proc/1/comm:    systemd
//	/proc/812/comm:  irqbalance
//	/proc/4321/comm: java

import (
	"errors"
	"io/fs"
	"slices"
	"strconv"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// interestingDaemons own host knobs tuneloop also reasons about (IRQ
// affinity, sysctls, CPU placement) or cost CPU on hot paths (audit).
var interestingDaemons = []string{
	"irqbalance", "tuned", "atuned", "auditd", "numad", "ksmtuned",
	"kubelet", "dockerd", "containerd", "chronyd", "ntpd",
}

type proc struct {
	pid    int
	comm   string
	status *procStatus // nil when /proc/PID/status is absent (minimal fixtures)
}

// procScan is the result of one pass over /proc.
type procScan struct {
	procs  []proc
	source string
	err    error // set when no process could be read at all
}

func scanProcs(h hostfs.FS) procScan {
	ps := procScan{source: h.Display(h.ProcPath("[0-9]*/comm"))}
	names, err := h.ReadDir(h.Proc)
	if err != nil {
		ps.err = err
		return ps
	}
	var firstErr error
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		p, err := readProc(h, pid)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue // exited meanwhile, or garbage
		}
		ps.procs = append(ps.procs, p)
	}
	if len(ps.procs) == 0 {
		ps.err = firstErr
		if ps.err == nil {
			ps.err = finding.Errorf(finding.T("%s: no process directories", "%s: 没有进程目录"), h.Display(h.Proc))
		}
	}
	return ps
}

// readProc reads comm and, when present, status, whose Name must agree
// with comm: a process whose files contradict each other is not trusted.
func readProc(h hostfs.FS, pid int) (proc, error) {
	n := strconv.Itoa(pid)
	f := readField(h, h.ProcPath(n, "comm"), parseText)
	if !f.OK {
		return proc{}, f.AsErr()
	}
	p := proc{pid: pid, comm: f.Value}
	sp := h.ProcPath(n, "status")
	s, err := h.ReadString(sp)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && h.Exists(h.ProcPath(n, "comm")) {
			return p, nil
		}
		return proc{}, err
	}
	st, err := parseProcStatus(s)
	if err != nil {
		return proc{}, fileErr(h, sp, err)
	}
	if st.Name != p.comm {
		return proc{}, fileErr(h, sp, finding.Errorf(finding.T("Name %q disagrees with comm %q", "Name %q 与 comm %q 不一致"), finding.Clip(st.Name, 40), finding.Clip(p.comm, 40)))
	}
	p.status = &st
	return p, nil
}

// daemons lists the interesting daemons found, sorted and distinct.
func (ps procScan) daemons() Field[[]string] {
	if ps.err != nil {
		return Missing[[]string](ps.err)
	}
	found := []string{}
	for _, p := range ps.procs {
		if slices.Contains(interestingDaemons, p.comm) && !slices.Contains(found, p.comm) {
			found = append(found, p.comm)
		}
	}
	slices.Sort(found)
	return Got(found, ps.source)
}

// running reports whether a process with this comm exists.
func (ps procScan) running(comm string) Field[bool] {
	if ps.err != nil {
		return Missing[bool](ps.err)
	}
	for _, p := range ps.procs {
		if p.comm == comm {
			return Got(true, ps.source)
		}
	}
	return Got(false, ps.source)
}
