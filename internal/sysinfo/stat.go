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
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// stealPct is steal as a percentage of all CPU time (guest time is already
// counted inside user, so it is not added again). The ticks are summed as
// seconds (USER_HZ 100), as procfs did before, so the figure is the same
// to the last bit.
func stealPct(c sample.CPUTimes) (float64, error) {
	sec := func(v uint64) float64 { return float64(v) / sample.UserHZ }
	total := sec(c.User) + sec(c.Nice) + sec(c.System) + sec(c.Idle) + sec(c.Iowait) + sec(c.IRQ) + sec(c.SoftIRQ) + sec(c.Steal)
	if !(total > 0) {
		return 0, finding.Errorf(finding.T("no cpu time in aggregate cpu line", "汇总 cpu 行中没有 CPU 时间"))
	}
	return 100 * sec(c.Steal) / total, nil
}

func collectSteal(h hostfs.FS) Field[float64] {
	p := h.ProcPath("stat")
	b, err := h.ReadFile(p)
	if err != nil {
		return Missing[float64](err) // also the not-present/permission wording
	}
	st, err := sample.ParseStat(b)
	if err != nil {
		// Host facts cite "line N: ..." without sample's "malformed: ".
		return Missing[float64](fileErr(h, p, parseDetail(err)))
	}
	v, err := stealPct(st.All)
	if err != nil {
		return Missing[float64](fileErr(h, p, err))
	}
	return Got(v, h.Display(p))
}
