package probe

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// noise reads how busy the CPUs were while a figure was measured, and how
// much of that was us: what is left was others (a neighbour, a VM's other
// tenants as steal).
type noise struct {
	fs  procfs.FS
	err error
}

type noiseMark struct {
	at               time.Time
	busy, steal, own float64 // CPU seconds
	cpus             int     // CPUs /proc/stat lists (all online)
	ok               bool
}

type noiseSpan struct{ others, steal float64 }

func newNoise(procRoot string) *noise {
	fs, err := procfs.NewFS(procRoot)
	n := &noise{fs: fs, err: err}
	if err == nil {
		if _, err := fs.Stat(); err != nil {
			n.err = fmt.Errorf("%s/stat: %w", procRoot, err)
		}
	}
	return n
}

func (n *noise) read() noiseMark {
	m := noiseMark{at: time.Now()}
	if n.err != nil {
		return m
	}
	s, err := n.fs.Stat()
	if err != nil {
		return m
	}
	c := s.CPUTotal
	// Guest time is already inside user; iowait is idle waiting.
	m.busy = c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ
	m.steal = c.Steal
	m.cpus = max(1, len(s.CPU))
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		m.own = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		m.ok = true
	}
	return m
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
