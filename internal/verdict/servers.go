package verdict

import (
	"fmt"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// The threads that serve a wait (an executor's workers, a permit's holders,
// a queue's consumer) are named in the dumps; the recorder sampled every
// thread's CPU and run-queue delay by TID (= the dump's nid). Joining the
// two says whether the server is busy on a CPU, waiting for one, or off
// the CPUs (sleeping, blocked on I/O): what the fix must change.

// maxServersShown bounds the servers named in the verdict.
const maxServersShown = 3

// serversLine joins the servers of the wait group behind culprit c to the
// recorder's per-thread samples. Only for the wait-for graph's findings.
func (e evidence) servers(c *finding.Finding) func() (finding.Text, bool) {
	return func() (finding.Text, bool) {
		if !strings.HasPrefix(c.ID, "threaddump.wait.") || strings.Contains(c.ID, "downstream") {
			return finding.Text{}, false
		}
		g := e.waitGroupOf(c)
		if g == nil || len(g.Servers) == 0 || e.L.Series == nil {
			return finding.Text{}, false
		}
		var en, zh []string
		for _, t := range g.Servers {
			if len(en) == maxServersShown {
				break
			}
			if t.NativeID <= 0 {
				continue
			}
			cpu, wait, seen, ticks := e.threadSamples(int(t.NativeID))
			if ticks == 0 {
				break // no per-thread samples in this run
			}
			name := finding.SafeLine(t.Name)
			if seen == 0 {
				en = append(en, fmt.Sprintf("%q (nid 0x%x) was never among the busiest threads: off the CPUs", name, t.NativeID))
				zh = append(zh, fmt.Sprintf("%q（nid 0x%x）从未进入最繁忙的线程之列：不在 CPU 上", name, t.NativeID))
				continue
			}
			en = append(en, fmt.Sprintf("%q (nid 0x%x) %.0f%% of a CPU, %.0f%% waiting for one (in %d of %d ticks)", name, t.NativeID, cpu, wait, seen, ticks))
			zh = append(zh, fmt.Sprintf("%q（nid 0x%x）占用 %.0f%% 个 CPU，%.0f%% 的时间在等待 CPU（%d/%d 个采样）", name, t.NativeID, cpu, wait, seen, ticks))
		}
		if len(en) == 0 {
			return finding.Text{}, false
		}
		return finding.T("Servers, as the recorder sampled them: "+strings.Join(en, "; ")+".",
			"服务方线程（记录器采样）："+strings.Join(zh, "；")+"。"), true
	}
}

// waitGroupOf finds the wait group of the last dump that shows c's wait.
func (e evidence) waitGroupOf(c *finding.Finding) *threaddump.WaitGroup {
	on := c.EvidenceValue("waiting_on")
	for i := len(e.L.Reports) - 1; i >= 0; i-- {
		for _, g := range e.L.Reports[i].Waits {
			if g.Object == on && len(g.Servers) > 0 {
				return g
			}
		}
	}
	return nil
}

// threadSamples averages a thread's CPU and run-queue delay over the ticks
// it was among the top threads, and says in how many of the ticks with
// per-thread samples it was.
func (e evidence) threadSamples(tid int) (cpu, wait float64, seen, ticks int) {
	for _, t := range e.L.Series.Ticks {
		if t.Threads == nil {
			continue
		}
		ticks++
		for _, th := range t.Threads.Top {
			if th.TID == tid {
				cpu += th.CPUPct
				wait += th.Wait
				seen++
			}
		}
	}
	if seen > 0 {
		cpu, wait = cpu/float64(seen), wait/float64(seen)
	}
	return cpu, wait, seen, ticks
}
