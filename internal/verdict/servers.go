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
		if g == nil || len(g.Servers) == 0 || e.L.Series == nil || !e.dumpsOfTarget() {
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

// dumpsOfTarget is false when a dump names a process other than the one
// the recorder sampled (a dump file added to the folder from elsewhere):
// its nids are not the recorder's TIDs, and joining them would say false
// things of the servers.
func (e evidence) dumpsOfTarget() bool {
	var pid int64
	if e.L.Folder != nil && e.L.Folder.Manifest.Target != nil {
		pid = int64(e.L.Folder.Manifest.Target.PID)
	}
	for _, d := range e.L.Dumps {
		if d.PID != 0 && d.PID != pid {
			return false
		}
	}
	return true
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

// stageCost is what a pool serving a wait costs per task, when the load's
// throughput measures it: every worker of the pool was busy in every dump,
// so the requests that passed through it were served at Workers per
// MSPerTask, and the stage caps throughput near what was measured.
type stageCost struct {
	Pool           string
	Workers, Dumps int
	TPS, MSPerTask float64
}

// serialStageCost joins an executor wait's pool (busy in every dump) to
// load.json's throughput; nil when any of it is missing or a worker was
// idle in some dump (then the pool is not what throughput measures).
func serialStageCost(L *Layers, c *finding.Finding) *stageCost {
	if c.ID != "threaddump.wait."+string(threaddump.WaitExecutor) || L.Load == nil || L.Load.TPS <= 0 || len(L.Reports) == 0 {
		return nil
	}
	pool, on := c.EvidenceValue("pool"), c.EvidenceValue("waiting_on")
	if pool == "" {
		return nil
	}
	workers := 0
	for _, r := range L.Reports {
		var g *threaddump.WaitGroup
		for _, w := range r.Waits {
			if w.Kind == threaddump.WaitExecutor && w.Object == on && finding.SafeLine(w.Pool) == pool {
				g = w
				break
			}
		}
		if g == nil || len(g.Servers) == 0 || g.Busy != len(g.Servers) || (workers != 0 && workers != len(g.Servers)) {
			return nil
		}
		workers = len(g.Servers)
	}
	return &stageCost{Pool: pool, Workers: workers, Dumps: len(L.Reports), TPS: L.Load.TPS,
		MSPerTask: float64(workers) / L.Load.TPS * 1000}
}

func (s *stageCost) text() finding.Text {
	return finding.Tf(finding.T("Stage: %d busy worker(s) of pool %q served %.1f req/s: ~%.0f ms per task; this stage caps throughput near %.0f/s (every worker busy in all %d dumps; throughput from load.json).",
		"阶段：线程池 %[2]q 的 %[1]d 个繁忙工作线程处理了 %.1[3]f 请求/秒：每个任务约 %.0[4]f ms；该阶段把吞吐限制在约 %.0[5]f/秒（全部 %[6]d 次转储中每个工作线程都繁忙；吞吐来自 load.json）。"),
		s.Workers, s.Pool, s.TPS, s.MSPerTask, s.TPS, s.Dumps)
}

func (s *stageCost) evidence() []finding.Evidence {
	return []finding.Evidence{{Key: "stage_workers_busy_in_every_dump", Value: fmt.Sprintf("%d (%d dumps)", s.Workers, s.Dumps), Source: "raw/threaddump-*"},
		{Key: "stage_throughput_rps", Value: fmt.Sprintf("%.1f", s.TPS), Source: LoadFile},
		{Key: "stage_ms_per_task", Value: fmt.Sprintf("%.1f", s.MSPerTask), Source: "workers / throughput"}}
}

// stageCost is the serial stage's cost per task as an evidence line.
func (e evidence) stageCost(c *finding.Finding) func() (finding.Text, bool) {
	return func() (finding.Text, bool) {
		if s := serialStageCost(e.L, c); s != nil {
			return s.text(), true
		}
		return finding.Text{}, false
	}
}
