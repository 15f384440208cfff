package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/sample"
)

// noise reads how busy the CPUs were while a figure was measured, and how
// much of that was us: what is left was others (a neighbour, a VM's other
// tenants as steal).
type noise struct {
	path string // /proc/stat under the probe's root
	err  error
	// peer is our loopback listener's /proc/PID/stat ("": none): a process
	// of its own, but its CPU is the probe's, not a neighbour's.
	peer string
}

type noiseMark struct {
	at               time.Time
	busy, steal, own float64 // CPU seconds
	cpus             int     // CPUs /proc/stat lists (all online)
	ok               bool
}

type noiseSpan struct{ others, steal float64 }

func newNoise(procRoot string, peerPID int) *noise {
	n := &noise{path: filepath.Join(procRoot, "stat")}
	if peerPID > 0 {
		n.peer = filepath.Join(procRoot, strconv.Itoa(peerPID), "stat")
	}
	_, n.err = n.stat()
	return n
}

// stat reads /proc/stat with sample's parser, the one of the project.
func (n *noise) stat() (*sample.Stat, error) {
	b, err := os.ReadFile(n.path)
	if err != nil {
		return nil, err
	}
	s, err := sample.ParseStat(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.path, err)
	}
	return s, nil
}

func (n *noise) read() noiseMark {
	m := noiseMark{at: time.Now()}
	if n.err != nil {
		return m
	}
	s, err := n.stat()
	if err != nil {
		return m
	}
	c := s.All
	// Guest time is already inside user; iowait is idle waiting. The
	// counters are in USER_HZ ticks.
	m.busy = float64(c.User+c.Nice+c.System+c.IRQ+c.SoftIRQ) / sample.UserHZ
	m.steal = float64(c.Steal) / sample.UserHZ
	m.cpus = max(1, len(s.CPUs))
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		m.own = float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9 + n.peerCPU()
		m.ok = true
	}
	return m
}

// peerCPU is our listener process's CPU seconds (utime + stime of its
// /proc/PID/stat); 0 when there is none or it is gone.
func (n *noise) peerCPU() float64 {
	if n.peer == "" {
		return 0
	}
	b, err := os.ReadFile(n.peer)
	if err != nil {
		return 0
	}
	st, err := sample.ParsePidStat(b)
	if err != nil {
		return 0
	}
	return float64(st.Utime+st.Stime) / sample.UserHZ
}

// since is the share of all CPUs others kept busy since m, in percent
// (-1 when unknown). /proc/stat counts in ticks (10 ms): a short window
// reads coarse, so the figure's value is the median over its rounds.
func (n *noise) since(m noiseMark) noiseSpan {
	e := n.read()
	if !m.ok || !e.ok {
		return noiseSpan{-1, -1}
	}
	wall := e.at.Sub(m.at).Seconds() * float64(e.cpus)
	if wall <= 0 {
		return noiseSpan{-1, -1}
	}
	others := max(0, (e.busy-m.busy)-(e.own-m.own))
	return noiseSpan{others: min(100, 100*others/wall), steal: min(100, 100*(e.steal-m.steal)/wall)}
}
