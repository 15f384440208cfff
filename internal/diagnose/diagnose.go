package diagnose

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Input is everything a diagnosis reads: the host facts and target from a
// run manifest, and the series replayed from its samples.
type Input struct {
	Facts  *sysinfo.Facts
	Target *runfolder.Target
	Series *Series
	Start  time.Time // run start, for relative times; first tick when zero
	// NUMAMaps is the target's /proc/PID/numa_maps at the end of the run
	// (run.NUMAMapsFile); nil when not recorded.
	NUMAMaps []byte
	// Dumps are the JVM thread dumps taken during the run, read as one set
	// (nil: none).
	Dumps *threaddump.Set
}

// ctx is what rules see.
type ctx struct {
	in    Input
	ts    []Tick
	cpus  []int // CPU numbers of the per-CPU arrays
	ncpu  int   // online CPUs
	start time.Time
	// The last thread dump of the run and its analysis (nil without dumps).
	dump    *threaddump.Dump
	dumpRep *threaddump.Report
}

// Infos lists the diagnosis rules as data (lists and docs), in
// evaluation order.
func Infos() []finding.RuleInfo { return finding.Infos(allRules()) }

// Validate checks the rule list (finding.ValidateRules): both languages,
// references, IDs that start with their category.
func Validate() error { return finding.ValidateRules(allRules()) }

// allRules is every rule of the diagnosis: the data check, the dumps'
// readability, then the diagnoses.
func allRules() []finding.Rule[*ctx] {
	return append([]finding.Rule[*ctx]{dataRule(), dumpsRule()}, ruleList()...)
}

// Finding IDs (stable: reports and CI gates use them).
const (
	IDCPUSaturated        = "run.cpu.saturated"
	IDHotCPU              = "run.cpu.hot-cpu"
	IDSoftirqConcentrated = "run.irq.softirq-concentrated"
	IDSerialThread        = "run.thread.serial-bottleneck"
	IDIdleUnderLoad       = "run.cpu.idle-under-load"
	IDRunQueue            = "run.cpu.runqueue"
	IDCtxSwitch           = "run.cpu.ctxswitch-storm"
	IDIowait              = "run.io.iowait"
	IDDiskSaturated       = "run.io.disk-saturated"
	IDMemPressure         = "run.mem.pressure"
	IDNUMARemote          = "run.numa.remote"
	IDNUMATarget          = "run.numa.target-remote"
	IDSteal               = "run.cpu.steal"
	IDTCPRetrans          = "run.net.tcp-retrans"
	IDListenOverflow      = "run.net.listen-overflow"
	IDNICSaturated        = "run.net.nic-saturated"
	IDFDs                 = "run.proc.fds"
	IDNoData              = "run.data"
)

// Diagnose evaluates every rule (ruleList, through the one engine), links
// symptoms to their causes and ranks the findings (root cause first). A
// rule that panics becomes an unavailable finding naming the bug.
func Diagnose(in Input) []finding.Finding {
	c := &ctx{in: in}
	if in.Series != nil {
		c.ts = in.Series.Ticks
		c.cpus = in.Series.CPUs
	}
	if in.Facts == nil {
		c.in.Facts = &sysinfo.Facts{}
	}
	c.ncpu = len(c.cpus)
	if f := c.in.Facts.CPU.Online; f.OK && len(f.Value) > 0 {
		c.ncpu = len(f.Value)
	}
	c.start = in.Start
	if c.start.IsZero() && len(c.ts) > 0 {
		c.start = c.ts[0].Begin()
	}
	if len(c.ts) < MinTicks {
		r := dataRule()
		return r.Evaluate(c)
	}
	out := c.loadDumps()
	rs := ruleList()
	for i := range rs {
		out = append(out, rs[i].Evaluate(c)...)
	}
	link(out)
	finding.Sort(out)
	return out
}

// link demotes symptoms when their cause was found, saying which, so the
// root cause is ranked first and the symptom points at it.
func link(fs []finding.Finding) {
	by := map[string]*finding.Finding{}
	for i := range fs {
		if fs[i].Status == finding.Fail {
			by[fs[i].ID] = &fs[i]
		}
	}
	demote := func(symptom, cause string, same func(s, c *finding.Finding) bool) {
		s, c := by[symptom], by[cause]
		if s == nil || c == nil || (same != nil && !same(s, c)) {
			return
		}
		s.Severity = finding.Info
		s.Confidence = min(s.Confidence, c.Confidence*0.5)
		note := finding.Tf(finding.T("Symptom of %s (%s): fix that first.", "这是 %s（%s）的表象：先处理它。"), c.ID, c.Subject)
		s.Observed = finding.Text{EN: s.Observed.EN + " " + note.EN, ZH: s.Observed.ZH + " " + note.ZH}
		s.Evidence = append(s.Evidence, finding.Evidence{Key: "caused_by", Value: c.Key()})
	}
	sameCPU := func(s, c *finding.Finding) bool {
		return c.Subject == s.Subject || strings.HasSuffix(c.Subject, "/"+s.Subject)
	}
	demote(IDHotCPU, IDSoftirqConcentrated, sameCPU)
	if c := by[IDSoftirqConcentrated]; c != nil {
		if s := by[IDCPUSaturated]; s != nil && strings.Contains(s.Title.EN, "softirq/irq-bound") {
			demote(IDCPUSaturated, IDSoftirqConcentrated, nil)
		}
	}
	if s := by[IDCPUSaturated]; s != nil && strings.Contains(s.Title.EN, "steal-bound") {
		demote(IDCPUSaturated, IDSteal, nil)
	}
	demote(IDNUMARemote, IDNUMATarget, nil)
	demote(IDRunQueue, IDCPUSaturated, nil)
	demote(IDCtxSwitch, IDCPUSaturated, nil)
	demote(IDHotCPU, IDSerialThread, nil)
	demote(IDIowait, IDDiskSaturated, nil)
	demote(IDIowait, IDMemPressure, nil)
	// A serial thread while the host is saturated: the target's other
	// threads are idle, so the thread is its bottleneck and the saturation
	// (other processes, or this thread) is the context: rank the thread first.
	if s, c := by[IDSerialThread], by[IDCPUSaturated]; s != nil && c != nil {
		c.Confidence = min(c.Confidence, s.Confidence-0.05)
		c.Evidence = append(c.Evidence, finding.Evidence{Key: "see_also", Value: s.Key()})
	}
	if by[IDSerialThread] != nil && by[IDIdleUnderLoad] != nil {
		demote(IDIdleUnderLoad, IDSerialThread, nil)
	}
}

// ---- helpers over threads ----

// threadAvg is one thread averaged over a window.
type threadAvg struct {
	Thread
	ticks int
}

// topThreads averages the target's top threads over the window's ticks
// (a thread outside a tick's top counts 0 there), most CPU first.
func topThreads(c *ctx, w window) []threadAvg {
	acc := map[int]*threadAvg{}
	for _, i := range w.hits {
		th := c.ts[i].Threads
		if th == nil {
			continue
		}
		for _, t := range th.Top {
			a := acc[t.TID]
			if a == nil {
				a = &threadAvg{Thread: Thread{TID: t.TID, Name: t.Name}}
				acc[t.TID] = a
			}
			a.CPUPct += t.CPUPct
			a.Wait += t.Wait
			a.VCSPS += t.VCSPS
			a.NVCSPS += t.NVCSPS
			a.ticks++
		}
	}
	n := float64(len(w.hits))
	out := make([]threadAvg, 0, len(acc))
	for _, a := range acc {
		a.CPUPct /= n
		a.Wait /= n
		a.VCSPS /= n
		a.NVCSPS /= n
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CPUPct != out[j].CPUPct {
			return out[i].CPUPct > out[j].CPUPct
		}
		if out[i].Demand() != out[j].Demand() {
			return out[i].Demand() > out[j].Demand()
		}
		return out[i].TID < out[j].TID
	})
	return out
}

// nid is the TID as a Java thread dump prints it.
func nid(tid int) string { return fmt.Sprintf("0x%x", tid) }

func threadLabel(t Thread) string {
	return fmt.Sprintf("%q tid=%d nid=%s", t.Name, t.TID, nid(t.TID))
}

func (c *ctx) target() string {
	t := c.in.Target
	if t == nil || t.PID == 0 {
		return ""
	}
	if t.Comm != "" {
		return fmt.Sprintf("%s (pid %d)", t.Comm, t.PID)
	}
	return fmt.Sprintf("pid %d", t.PID)
}

func (c *ctx) pid() int {
	if c.in.Target == nil {
		return 0
	}
	return c.in.Target.PID
}

// perCPUArg is the CPU index with the highest mean of f over all ticks.
func perCPUArg(c *ctx, f func(p CPU) float64) int {
	if len(c.cpus) == 0 {
		return -1
	}
	sum := make([]float64, len(c.cpus))
	for i := range c.ts {
		for j, p := range c.ts[i].CPUs {
			if j < len(sum) {
				sum[j] += f(p)
			}
		}
	}
	best := 0
	for j := range sum {
		if sum[j] > sum[best] {
			best = j
		}
	}
	return best
}

// othersMean is the mean of f over the CPUs other than k in one tick.
func othersMean(t *Tick, k int, f func(p CPU) float64) float64 {
	if len(t.CPUs) < 2 {
		return 0
	}
	s := 0.0
	for j, p := range t.CPUs {
		if j != k {
			s += f(p)
		}
	}
	return s / float64(len(t.CPUs)-1)
}

func confidence(base float64, w window) float64 {
	// more of the run -> more confident, up to base
	v := base * (0.7 + 0.3*w.frac())
	return float64(int(v*100+0.5)) / 100
}
