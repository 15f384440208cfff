// Package diagnose turns a recorded run (package run) into ranked findings:
// rules over the per-tick series derived from the raw samples, each finding
// carrying the numbers and the time window it rests on.
//
// Diagnosis reads only the run folder (host facts from the manifest, the
// samples replayed with sample.Replay), so a folder copied to another
// machine gives the same findings. The series is also what reports plot
// (derived/series.json).
//
// Rules (a condition must hold in >= MinTicks ticks and >= MinFrac of the run):
//
//	run.irq.softirq-concentrated  one CPU's si+hi >= 30% and >= 3x the others' mean; NIC queues/IRQs from the facts -> fix
//	run.cpu.saturated             all-CPU busy >= 90% (critical >= 97%); user-, system-, softirq- or steal-bound; names the hot threads
//	run.cpu.hot-cpu               one CPU busy >= 90% while the others average <= 50%
//	run.thread.serial-bottleneck  a thread's CPU + run-queue wait >= 80% while all its other threads demand < one core
//	run.cpu.idle-under-load       host idle >= 50%, target >= 10 threads, 5% <= target CPU < half the cores, >= 500 voluntary cs/s or >= 1000 rx pkt/s
//	run.cpu.runqueue              procs_running (minus the recorder) > online CPUs
//	run.cpu.ctxswitch-storm       context switches >= 20000/s per CPU
//	run.io.iowait                 iowait >= 20%
//	run.io.disk-saturated         a device's util >= 90% with aqu-sz >= 1
//	run.mem.pressure              swap >= 100 pages/s, any direct reclaim, or memory PSI some >= 10% (critical: full >= 5%)
//	run.numa.target-remote        >= 2 nodes and >= 30% of the target's memory accesses remote (numa_maps x where its threads ran)
//	run.numa.remote               >= 2 nodes and a node's numa_miss >= 10% of its allocations (system-wide)
//	run.cpu.steal                 steal >= 10% (critical >= 30%)
//	run.net.tcp-retrans           retransmitted/sent segments >= 2% with >= 100 segments/s
//	run.net.listen-overflow       any ListenOverflows/ListenDrops
//	run.net.nic-saturated         a NIC's rx or tx bytes/s >= 90% of its link speed (critical >= 97%); known speeds only, never loopback
//	run.proc.fds                  target's open fds >= 80% of the soft limit (critical >= 95%)
//
// Symptoms are linked to their cause and demoted (severity info, "Symptom
// of ..."), so the cause ranks first: hot CPU <- softirq concentration or a
// serial thread; run queue and context switches <- CPU saturation;
// softirq- or steal-bound saturation <- softirq concentration or steal;
// iowait <- a saturated disk or memory pressure; system-wide NUMA misses
// <- the target's remote memory.
//
// When the run holds JVM thread dumps (record --thread-dumps), the hot
// threads are joined to their Java stacks by nid (= TID), the concurrency
// finding gets the dump's blocked/waiting share and most contended lock, and
// the dumps' own findings (threaddump.*: deadlocks, lock culprits, stuck
// threads) are added.
package diagnose

import (
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/sample"
)

// SeriesSchema names the derived/series.json format.
const SeriesSchema = "tuneloop.series/v1"

// TopThreads is how many threads each tick keeps.
const TopThreads = 5

// Series is a run as per-tick values.
type Series struct {
	Schema string `json:"schema"`
	// CPUs are the CPU numbers of the per-CPU arrays (from the first tick
	// that had them).
	CPUs  []int  `json:"cpus"`
	Ticks []Tick `json:"ticks"`
	// BadLines counts sample lines that could not be read (a torn last line
	// after a crash).
	BadLines int `json:"bad_lines,omitempty"`
}

// CPU is one CPU's (or all CPUs') split over a tick, in percent.
type CPU struct {
	User   float64 `json:"us"` // user + nice
	System float64 `json:"sy"`
	IRQ    float64 `json:"hi"`
	Soft   float64 `json:"si"`
	Iowait float64 `json:"wa"`
	Steal  float64 `json:"st"`
	Idle   float64 `json:"id"`
}

// Busy is 100 - idle - iowait.
func (c CPU) Busy() float64 { return share(100 - c.Idle - c.Iowait) }

// share keeps a percentage computed from others inside [0, 100]: 100 -
// 66.67 - 33.33 is -2.8e-15 in floating point.
func share(v float64) float64 { return min(max(v, 0), 100) }

// Tick is one interval of the run.
type Tick struct {
	T    time.Time `json:"t"` // end of the interval
	Secs float64   `json:"secs"`

	All  *CPU  `json:"all,omitempty"`
	CPUs []CPU `json:"cpus,omitempty"` // in Series.CPUs order
	// Softirq per type per CPU, per second (types with any activity).
	Softirq map[string][]float64 `json:"softirq,omitempty"`
	Running float64              `json:"running"` // procs_running minus the recorder itself
	Blocked float64              `json:"blocked"`
	CtxtPS  float64              `json:"ctxt_s"`
	Load1   float64              `json:"load1,omitempty"`

	SwapPS    float64            `json:"swap_pg_s"`    // pswpin+pswpout
	ReclaimPS float64            `json:"allocstall_s"` // direct reclaim stalls
	PSI       map[string]PSIPct  `json:"psi,omitempty"`
	MemAvail  uint64             `json:"mem_avail_kb,omitempty"`
	Disks     []Disk             `json:"disks,omitempty"` // only devices with I/O
	NUMAMiss  map[string]float64 `json:"numa_miss_pct,omitempty"`
	TCP       *TCP               `json:"tcp,omitempty"`
	RxPPS     float64            `json:"rx_pps"` // all non-loopback interfaces
	// NICs are the non-loopback interfaces that moved bytes in the tick.
	NICs []NICRate `json:"nics,omitempty"`

	Proc    *Proc    `json:"proc,omitempty"`
	Threads *Threads `json:"threads,omitempty"`
	// TargetCPUOn is the target's thread CPU% by the CPU each thread last
	// ran on (where the process runs, for NUMA locality).
	TargetCPUOn map[int]float64 `json:"target_cpu_on,omitempty"`
}

// Begin is when the tick's interval started: T less its length.
func (t *Tick) Begin() time.Time { return t.T.Add(-time.Duration(t.Secs * float64(time.Second))) }

// NICRate is one interface's traffic over a tick, in bytes per second.
type NICRate struct {
	Name  string  `json:"dev"`
	RxBPS float64 `json:"rx_bytes_s"`
	TxBPS float64 `json:"tx_bytes_s"`
}

// PSIPct is stall share over the tick.
type PSIPct struct {
	Some float64 `json:"some"`
	Full float64 `json:"full"`
}

// Disk is one device over a tick.
type Disk struct {
	Name   string  `json:"dev"`
	Util   float64 `json:"util"`
	AquSz  float64 `json:"aqu_sz"`
	RAwait float64 `json:"r_await"`
	WAwait float64 `json:"w_await"`
	IOPS   float64 `json:"iops"`
}

// TCP is the host's TCP over a tick.
type TCP struct {
	OutSegsPS         float64 `json:"out_s"`
	RetransPS         float64 `json:"retrans_s"`
	RetransPct        float64 `json:"retrans_pct"`
	ListenOverflowsPS float64 `json:"listen_overflows_s"`
	ListenDropsPS     float64 `json:"listen_drops_s"`
	// DelayedACKsPS are delayed ACKs sent per second (TcpExt DelayedACKs).
	DelayedACKsPS float64 `json:"delayed_acks_s,omitempty"`
}

// Proc is the target over a tick.
type Proc struct {
	CPUPct  float64 `json:"cpu_pct"`
	UserPct float64 `json:"usr_pct"`
	SysPct  float64 `json:"sys_pct"`
	RSSKB   uint64  `json:"rss_kb"`
	Threads uint64  `json:"threads"`
	FDs     int     `json:"fds"`
	FDSoft  int64   `json:"fd_soft"`
	FDPct   float64 `json:"fd_pct"`
}

// Threads is the target's threads over a tick.
type Threads struct {
	N      int     `json:"n"`
	CPUPct float64 `json:"cpu_pct"`  // sum
	Wait   float64 `json:"wait_pct"` // sum of run delay
	VCSPS  float64 `json:"cswch_s"`  // sum
	NVCSPS float64 `json:"nvcswch_s"`
	// Threads by state at the end of the tick: R running or runnable,
	// D in uninterruptible sleep (I/O), S sleeping (waiting on a lock,
	// a condition, a socket).
	Running int      `json:"r"`
	DSleep  int      `json:"d"`
	Sleep   int      `json:"s"`
	Top     []Thread `json:"top"` // by demand (CPU + wait), at most TopThreads
}

// Thread is one thread over a tick.
type Thread struct {
	TID    int     `json:"tid"`
	Name   string  `json:"name"`
	State  string  `json:"state"`
	CPUPct float64 `json:"cpu_pct"`
	Wait   float64 `json:"wait_pct"`
	VCSPS  float64 `json:"cswch_s"`
	NVCSPS float64 `json:"nvcswch_s"`
}

// Demand is the share of the tick the thread wanted a CPU: on CPU plus
// waiting in the run queue. A thread that never sleeps has ~100 whatever
// the host load; its CPU% alone drops when the host is saturated.
func (t Thread) Demand() float64 { return t.CPUPct + t.Wait }

// Build replays a samples.jsonl stream into a Series. Unreadable lines are
// counted in BadLines and skipped.
func Build(r io.Reader) (*Series, error) {
	s := &Series{Schema: SeriesSchema}
	err := sample.Replay(r, func(rt *sample.Rates, cur *sample.Snapshot) error {
		s.Ticks = append(s.Ticks, s.tick(rt, cur))
		return nil
	}, func(error) { s.BadLines++ })
	return s, err
}

func cpuOf(p sample.CPUPct) CPU {
	return CPU{User: share(p.User + p.Nice), System: p.System, IRQ: p.IRQ, Soft: p.SoftIRQ, Iowait: p.Iowait, Steal: p.Steal, Idle: p.Idle}
}

func (s *Series) tick(rt *sample.Rates, cur *sample.Snapshot) Tick {
	t := Tick{T: rt.To, Secs: rt.Seconds}
	if c := rt.CPU; c != nil {
		if !c.All.Reset { // counters went back (a restored snapshot): no figure
			all := cpuOf(c.All)
			t.All = &all
		}
		if s.CPUs == nil {
			for _, p := range c.CPUs {
				s.CPUs = append(s.CPUs, p.CPU)
			}
		}
		t.CPUs = make([]CPU, len(s.CPUs))
		for i := range t.CPUs {
			t.CPUs[i].Idle = 100 // a CPU gone offline counts as idle
		}
		for _, p := range c.CPUs {
			if i := index(s.CPUs, p.CPU); i >= 0 && !p.New && !p.Reset {
				t.CPUs[i] = cpuOf(p)
			}
		}
		t.Running = max(float64(c.Running)-1, 0)
		t.Blocked = float64(c.Blocked)
		t.CtxtPS = c.CtxtPS
	}
	if rt.Load != nil {
		t.Load1 = rt.Load.Load1
	}
	if si := rt.Softirqs; si != nil && len(s.CPUs) > 0 {
		for _, row := range si.Rows {
			if row.Total == 0 || row.Reset {
				continue
			}
			v := make([]float64, len(s.CPUs))
			for j, cpu := range si.CPUs {
				if i := index(s.CPUs, cpu); i >= 0 && j < len(row.PerSec) {
					v[i] = row.PerSec[j]
				}
			}
			if t.Softirq == nil {
				t.Softirq = map[string][]float64{}
			}
			t.Softirq[row.Type] = v
		}
	}
	if vm := rt.VM; vm != nil {
		t.SwapPS = vm["pswpin"] + vm["pswpout"]
		for k, v := range vm {
			if len(k) >= 10 && k[:10] == "allocstall" {
				t.ReclaimPS += v
			}
		}
	}
	if cur.Mem != nil {
		t.MemAvail = cur.Mem["MemAvailable"]
	}
	for k, p := range rt.PSI {
		if t.PSI == nil {
			t.PSI = map[string]PSIPct{}
		}
		t.PSI[k] = PSIPct{Some: p.SomePct, Full: p.FullPct}
	}
	for _, d := range rt.Disks {
		if d.Reset || d.New || d.RPS+d.WPS == 0 && d.Util == 0 {
			continue
		}
		t.Disks = append(t.Disks, Disk{Name: d.Name, Util: d.Util, AquSz: d.AquSz, RAwait: d.RAwait, WAwait: d.WAwait, IOPS: d.RPS + d.WPS})
	}
	for _, n := range rt.NUMA {
		if n.Reset || n.HitPS+n.MissPS == 0 {
			continue
		}
		if t.NUMAMiss == nil {
			t.NUMAMiss = map[string]float64{}
		}
		t.NUMAMiss[strconv.Itoa(n.Node)] = n.MissPct
	}
	if tc := rt.TCP; tc != nil {
		t.TCP = &TCP{OutSegsPS: tc.PerSec["Tcp.OutSegs"], RetransPS: tc.PerSec["Tcp.RetransSegs"], RetransPct: tc.RetransPct,
			ListenOverflowsPS: tc.PerSec["TcpExt.ListenOverflows"], ListenDropsPS: tc.PerSec["TcpExt.ListenDrops"],
			DelayedACKsPS: tc.PerSec["TcpExt.DelayedACKs"]}
	}
	for _, n := range rt.Net {
		if n.Name != "lo" && !n.Reset && !n.New {
			t.RxPPS += n.RxPPS
			if n.RxKBPS > 0 || n.TxKBPS > 0 {
				t.NICs = append(t.NICs, NICRate{Name: n.Name, RxBPS: n.RxKBPS * 1024, TxBPS: n.TxKBPS * 1024})
			}
		}
	}
	if p := rt.Proc; p != nil && !p.Reset {
		t.Proc = &Proc{CPUPct: p.CPUPct, UserPct: p.UserPct, SysPct: p.SysPct, RSSKB: p.RSSKB, Threads: p.Threads,
			FDs: p.FDs, FDSoft: p.FDSoft, FDPct: p.FDPct}
	}
	if th := rt.Threads; th != nil {
		ts := &Threads{N: len(th.Threads)}
		all := make([]Thread, 0, len(th.Threads))
		for _, x := range th.Threads {
			ts.CPUPct += x.CPUPct
			ts.Wait += max(0, min(x.WaitPct, 100-x.CPUPct))
			ts.VCSPS += x.VCSPS
			ts.NVCSPS += x.NVCSPS
			if x.CPUPct > 0 {
				if t.TargetCPUOn == nil {
					t.TargetCPUOn = map[int]float64{}
				}
				t.TargetCPUOn[int(x.CPU)] += x.CPUPct
			}
			switch x.State {
			case "R":
				ts.Running++
			case "D":
				ts.DSleep++
			case "S":
				ts.Sleep++
			}
			// Run delay is charged when the thread gets a CPU, so a long
			// wait can land in one interval as more than 100%: on CPU plus
			// waiting cannot exceed the interval.
			wait := max(0, min(x.WaitPct, 100-x.CPUPct))
			all = append(all, Thread{TID: x.TID, Name: x.Name, State: x.State, CPUPct: x.CPUPct, Wait: wait, VCSPS: x.VCSPS, NVCSPS: x.NVCSPS})
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].Demand() > all[j].Demand() })
		ts.Top = all[:min(TopThreads, len(all))]
		t.Threads = ts
	}
	return t
}

func index(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

// Stats summarises a series for the report header.
type Stats struct {
	Ticks    int     `json:"ticks"`
	Seconds  float64 `json:"seconds"`
	Busy     float64 `json:"busy_pct"`
	PeakBusy float64 `json:"peak_busy_pct"`
	User     float64 `json:"us_pct"`
	System   float64 `json:"sy_pct"`
	Soft     float64 `json:"si_hi_pct"`
	Iowait   float64 `json:"wa_pct"`
	Steal    float64 `json:"st_pct"`
	// ProcCPU is the target's mean CPU in % of one core; -1 without a target.
	ProcCPU float64 `json:"proc_cpu_pct"`
	// Top are the target's busiest threads over the whole run.
	Top []Thread `json:"top_threads,omitempty"`
}

// Summarize computes run-wide means.
func (s *Series) Summarize() Stats {
	st := Stats{Ticks: len(s.Ticks), ProcCPU: -1}
	var n, np float64
	acc := map[int]*Thread{}
	for i := range s.Ticks {
		t := &s.Ticks[i]
		st.Seconds += t.Secs
		if t.All != nil {
			n++
			st.Busy += t.All.Busy()
			st.PeakBusy = max(st.PeakBusy, t.All.Busy())
			st.User += t.All.User
			st.System += t.All.System
			st.Soft += t.All.Soft + t.All.IRQ
			st.Iowait += t.All.Iowait
			st.Steal += t.All.Steal
		}
		if t.Proc != nil {
			if np == 0 {
				st.ProcCPU = 0
			}
			np++
			st.ProcCPU += t.Proc.CPUPct
		}
		if t.Threads != nil {
			for _, th := range t.Threads.Top {
				a := acc[th.TID]
				if a == nil {
					a = &Thread{TID: th.TID, Name: th.Name}
					acc[th.TID] = a
				}
				a.CPUPct += th.CPUPct
				a.Wait += th.Wait
			}
		}
	}
	if n > 0 {
		st.Busy, st.User, st.System, st.Soft, st.Iowait, st.Steal = share(st.Busy/n), share(st.User/n), share(st.System/n), share(st.Soft/n), share(st.Iowait/n), share(st.Steal/n)
	}
	if np > 0 {
		st.ProcCPU /= np
	}
	for _, a := range acc {
		a.CPUPct /= float64(len(s.Ticks))
		a.Wait /= float64(len(s.Ticks))
		st.Top = append(st.Top, *a)
	}
	sort.Slice(st.Top, func(i, j int) bool {
		if st.Top[i].CPUPct != st.Top[j].CPUPct {
			return st.Top[i].CPUPct > st.Top[j].CPUPct
		}
		return st.Top[i].TID < st.Top[j].TID
	})
	st.Top = st.Top[:min(3, len(st.Top))]
	return st
}
