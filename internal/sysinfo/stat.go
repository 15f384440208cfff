package sysinfo

// /proc/stat, aggregate cpu line (USER_HZ ticks since boot):
//
//	cpu  1709 0 444 52100 125 0 12 1 0 0
//	cpu0 594 0 176 26416 6 0 2 0 0 0
//	      user nice system idle iowait irq softirq steal guest guest_nice
//
// sample.ParseStat is the one parser of this file; here its aggregate
// line becomes a percentage.

import (
	"errors"

	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// stealPct is steal as a percentage of all CPU time (guest time is already
// counted inside user, so it is not added again).
func stealPct(c sample.CPUTimes) (float64, error) {
	total := c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	if total == 0 {
		return 0, errors.New("no cpu time in aggregate cpu line")
	}
	return 100 * float64(c.Steal) / float64(total), nil
}

func collectSteal(h hostfs.FS) Field[float64] {
	p := h.ProcPath("stat")
	b, err := h.ReadFile(p)
	if err != nil {
		return Missing[float64](err) // also the not-present/permission wording
	}
	st, err := sample.ParseStat(b)
	if err != nil {
		return Missing[float64](fileErr(h, p, err))
	}
	v, err := stealPct(st.All)
	if err != nil {
		return Missing[float64](fileErr(h, p, err))
	}
	return Got(v, h.Display(p))
}
