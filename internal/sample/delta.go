package sample

// Delta turns two Snapshots into rates and percentages over the interval
// between them, computed the way the sysstat tools do, so numbers can be
// checked against mpstat -P ALL, iostat -x, sar -n DEV and pidstat -t:
//
//   - per-CPU %: each state's tick delta over the CPU's total tick delta
//     (user and nice exclude guest time, which is reported on its own);
//   - diskstats: r/s, w/s, rkB/s, wkB/s, r_await, w_await (ms per I/O),
//     aqu-sz (weighted ms per ms), %util (busy ms per ms) as iostat -x;
//   - counters per second over the wall time between the snapshots.
//
// Counters that go backwards are handled explicitly, never turned into a
// huge unsigned delta: a device, interface, IRQ or thread that is new in
// cur (it did not exist, or for rows the samplers omit when all zero, had
// counted nothing) counts from zero; one whose counters decreased was reset
// (device re-created, CPU back online, counter wrapped) and is marked
// Reset with no rates; a thread in prev but not in cur exited. iowait is
// known to decrease on some kernels; a single state going backwards is
// clamped to zero, as mpstat does.

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Rates is what happened between two snapshots. A part is nil when either
// snapshot lacks it (its sampler unavailable or failed in that tick).
type Rates struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Seconds float64   `json:"secs"`

	CPU      *CPURates          `json:"cpu,omitempty"`
	Load     *LoadAvg           `json:"load,omitempty"`
	Softirqs *SoftirqRates      `json:"softirqs,omitempty"`
	IRQs     *IRQRates          `json:"irqs,omitempty"`
	VM       map[string]float64 `json:"vm,omitempty"` // counters per second
	NUMA     []NUMARate         `json:"numa,omitempty"`
	Disks    []DiskRate         `json:"disks,omitempty"`
	Net      []NetRate          `json:"net,omitempty"`
	TCP      *TCPRates          `json:"tcp,omitempty"`
	PSI      map[string]PSIRate `json:"psi,omitempty"`
	Proc     *ProcRate          `json:"proc,omitempty"`
	Threads  *ThreadRates       `json:"threads,omitempty"`
}

// ErrInterval is returned when cur is not after prev.
var ErrInterval = errors.New("snapshots not in time order")

// Delta computes every part both snapshots have.
func Delta(prev, cur *Snapshot) (*Rates, error) {
	secs := cur.Time.Sub(prev.Time).Seconds()
	if secs <= 0 {
		return nil, ErrInterval
	}
	r := &Rates{From: prev.Time, To: cur.Time, Seconds: secs}
	if prev.Stat != nil && cur.Stat != nil {
		r.CPU = CPUDelta(prev.Stat, cur.Stat, secs)
	}
	r.Load = cur.Load
	if prev.Softirqs != nil && cur.Softirqs != nil {
		r.Softirqs = SoftirqDelta(prev.Softirqs, cur.Softirqs, secs)
	}
	if prev.Interrupts != nil && cur.Interrupts != nil {
		r.IRQs = IRQDelta(prev.Interrupts, cur.Interrupts, secs)
	}
	if prev.VM != nil && cur.VM != nil {
		r.VM = CounterDelta(prev.VM, cur.VM, secs, vmGauge)
	}
	if has(prev, "numa", len(prev.NUMA)) && has(cur, "numa", len(cur.NUMA)) {
		r.NUMA = NUMADelta(prev.NUMA, cur.NUMA, secs)
	}
	if has(prev, "diskstats", len(prev.Disks)) && has(cur, "diskstats", len(cur.Disks)) {
		r.Disks = DiskDelta(prev.Disks, cur.Disks, secs)
	}
	if has(prev, "netdev", len(prev.Net)) && has(cur, "netdev", len(cur.Net)) {
		r.Net = NetDelta(prev.Net, cur.Net, secs)
	}
	if prev.TCP != nil && cur.TCP != nil {
		r.TCP = TCPDelta(prev.TCP, cur.TCP, secs)
	}
	if prev.PSI != nil && cur.PSI != nil {
		r.PSI = PSIDelta(prev.PSI, cur.PSI, secs)
	}
	if prev.Proc != nil && cur.Proc != nil {
		r.Proc = ProcDelta(prev.Proc, cur.Proc, secs)
	}
	if has(prev, "threads", len(prev.Threads)) && has(cur, "threads", len(cur.Threads)) {
		r.Threads = ThreadDelta(prev.Threads, cur.Threads, secs)
	}
	return r, nil
}

// has says a snapshot has a list part: its sampler succeeded (an empty list
// is then real: no rows) or, in hand-built snapshots, the list is there.
func has(s *Snapshot, sampler string, n int) bool { return n > 0 || s.OK(sampler) }

// sub is cur-prev, and false when the counter went backwards.
func sub(prev, cur uint64) (uint64, bool) {
	if cur < prev {
		return 0, false
	}
	return cur - prev, true
}

// sub0 is cur-prev clamped at 0.
func sub0(prev, cur uint64) uint64 {
	d, _ := sub(prev, cur)
	return d
}

// ---- CPU ----

// CPUPct is one CPU's time split over the interval, in percent (sums to
// 100 with Guest and GuestNice, like mpstat's %usr..%idle).
type CPUPct struct {
	CPU       int     `json:"cpu"` // -1: all CPUs
	User      float64 `json:"us"`
	Nice      float64 `json:"ni"`
	System    float64 `json:"sy"`
	Idle      float64 `json:"id"`
	Iowait    float64 `json:"wa"`
	IRQ       float64 `json:"hi"`
	SoftIRQ   float64 `json:"si"`
	Steal     float64 `json:"st"`
	Guest     float64 `json:"gu"`
	GuestNice float64 `json:"gn"`
	New       bool    `json:"new,omitempty"`   // came online: no interval
	Reset     bool    `json:"reset,omitempty"` // counters went backwards
}

// Busy is 100 - idle - iowait.
func (c CPUPct) Busy() float64 { return 100 - c.Idle - c.Iowait }

// CPURates is /proc/stat over an interval.
type CPURates struct {
	All     CPUPct   `json:"all"`
	CPUs    []CPUPct `json:"cpus"`
	CtxtPS  float64  `json:"ctxt_ps"`
	IntrPS  float64  `json:"intr_ps"`
	ForksPS float64  `json:"forks_ps"`
	Running uint64   `json:"running"` // at the end of the interval
	Blocked uint64   `json:"blocked"`
}

// CPUDelta computes per-CPU and all-CPU percentages and the event rates.
func CPUDelta(prev, cur *Stat, secs float64) *CPURates {
	r := &CPURates{All: cpuPct(&prev.All, &cur.All), Running: cur.Running, Blocked: cur.Blocked}
	byCPU := make(map[int]*CPUTimes, len(prev.CPUs))
	for i := range prev.CPUs {
		byCPU[prev.CPUs[i].CPU] = &prev.CPUs[i]
	}
	for i := range cur.CPUs {
		c := &cur.CPUs[i]
		p, ok := byCPU[c.CPU]
		if !ok {
			r.CPUs = append(r.CPUs, CPUPct{CPU: c.CPU, New: true})
			continue
		}
		r.CPUs = append(r.CPUs, cpuPct(p, c))
	}
	if secs > 0 {
		r.CtxtPS = float64(sub0(prev.Ctxt, cur.Ctxt)) / secs
		r.IntrPS = float64(sub0(prev.Intr, cur.Intr)) / secs
		r.ForksPS = float64(sub0(prev.Forks, cur.Forks)) / secs
	}
	return r
}

func cpuPct(p, c *CPUTimes) CPUPct {
	out := CPUPct{CPU: c.CPU}
	// user includes guest and nice includes guest_nice: take them out.
	pu, cu := sub0(p.Guest, p.User), sub0(c.Guest, c.User)
	pn, cn := sub0(p.GuestNice, p.Nice), sub0(c.GuestNice, c.Nice)
	d := [...]uint64{sub0(pu, cu), sub0(pn, cn), sub0(p.System, c.System), sub0(p.Idle, c.Idle), sub0(p.Iowait, c.Iowait),
		sub0(p.IRQ, c.IRQ), sub0(p.SoftIRQ, c.SoftIRQ), sub0(p.Steal, c.Steal), sub0(p.Guest, c.Guest), sub0(p.GuestNice, c.GuestNice)}
	pt := p.User + p.Nice + p.System + p.Idle + p.Iowait + p.IRQ + p.SoftIRQ + p.Steal
	ct := c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	if ct < pt {
		out.Reset = true
		return out
	}
	var total uint64
	for _, v := range d {
		total += v
	}
	if total == 0 {
		// No tick elapsed (interval shorter than a tick, or a tickless
		// idle CPU whose counters had not been folded in): idle.
		out.Idle = 100
		return out
	}
	// 100*v/total, not v*(100/total): the whole interval in one state is
	// exactly 100, never 100.00000000000001.
	t := float64(total)
	f := func(v uint64) float64 { return 100 * float64(v) / t }
	out.User, out.Nice, out.System, out.Idle, out.Iowait = f(d[0]), f(d[1]), f(d[2]), f(d[3]), f(d[4])
	out.IRQ, out.SoftIRQ, out.Steal, out.Guest, out.GuestNice = f(d[5]), f(d[6]), f(d[7]), f(d[8]), f(d[9])
	return out
}

// ---- softirqs and interrupts ----

// SoftirqRates is softirqs per second: Rows[i].PerSec[j] for CPU CPUs[j].
type SoftirqRates struct {
	CPUs []int         `json:"cpus"`
	Rows []SoftirqRate `json:"rows"`
}

// SoftirqRate is one softirq type's rate per CPU and in total.
type SoftirqRate struct {
	Type   string    `json:"n"`
	PerSec []float64 `json:"ps"`
	Total  float64   `json:"total_ps"`
	Reset  bool      `json:"reset,omitempty"`
}

// SoftirqDelta computes per-CPU per-type rates. CPUs are matched by number,
// so a CPU set that changed between snapshots still lines up.
func SoftirqDelta(prev, cur *Softirqs, secs float64) *SoftirqRates {
	r := &SoftirqRates{CPUs: cur.CPUs}
	for _, row := range cur.Rows {
		var p []uint64
		for _, pr := range prev.Rows {
			if pr.Type == row.Type {
				p = pr.Counts
				break
			}
		}
		ps, total, reset := perCPURates(prev.CPUs, p, cur.CPUs, row.Counts, secs)
		r.Rows = append(r.Rows, SoftirqRate{Type: row.Type, PerSec: ps, Total: total, Reset: reset})
	}
	return r
}

// perCPURates aligns two per-CPU count rows by CPU number. A CPU or row
// missing from prev counts from zero; a count that went backwards gives 0
// and reset.
func perCPURates(pcpus []int, p []uint64, ccpus []int, c []uint64, secs float64) (ps []float64, total float64, reset bool) {
	ps = make([]float64, len(c))
	same := len(pcpus) == len(ccpus) && len(p) == len(c)
	for j := 0; same && j < len(pcpus); j++ {
		same = pcpus[j] == ccpus[j]
	}
	for j, v := range c {
		var pv uint64
		switch {
		case same:
			pv = p[j]
		case p != nil && j < len(ccpus):
			for k, cpu := range pcpus {
				if cpu == ccpus[j] && k < len(p) {
					pv = p[k]
				}
			}
		}
		d, ok := sub(pv, v)
		if !ok {
			reset = true
			continue
		}
		ps[j] = float64(d) / secs
		total += ps[j]
	}
	return ps, total, reset
}

// IRQRates is interrupts per second per IRQ per CPU.
type IRQRates struct {
	CPUs     []int              `json:"cpus"`
	Rows     []IRQRate          `json:"rows"`                // busiest first
	GlobalPS map[string]float64 `json:"global_ps,omitempty"` // ERR, MIS, Err per second
}

// IRQRate is one IRQ over the interval.
type IRQRate struct {
	IRQ    string    `json:"irq"`
	Name   string    `json:"name,omitempty"`
	PerSec []float64 `json:"ps"`
	Total  float64   `json:"total_ps"`
	Reset  bool      `json:"reset,omitempty"`
}

// IRQDelta computes rates of every IRQ in cur (rows absent from prev had
// counted nothing then), busiest first; IRQs with no interrupt in the
// interval are left out.
func IRQDelta(prev, cur *Interrupts, secs float64) *IRQRates {
	r := &IRQRates{CPUs: cur.CPUs}
	if cur.Global != nil && prev.Global != nil {
		r.GlobalPS = CounterDelta(prev.Global, cur.Global, secs, nil)
	}
	pidx := make(map[string][]uint64, len(prev.Rows))
	for _, row := range prev.Rows {
		pidx[row.IRQ] = row.Counts
	}
	for _, row := range cur.Rows {
		ps, total, reset := perCPURates(prev.CPUs, pidx[row.IRQ], cur.CPUs, row.Counts, secs)
		if total == 0 && !reset {
			continue
		}
		r.Rows = append(r.Rows, IRQRate{IRQ: row.IRQ, Name: row.Name, PerSec: ps, Total: total, Reset: reset})
	}
	sort.SliceStable(r.Rows, func(i, j int) bool { return r.Rows[i].Total > r.Rows[j].Total })
	return r
}

// ---- vmstat, NUMA ----

// vmGauge says which vmstat values are levels, not event counters.
func vmGauge(name string) bool { return strings.HasPrefix(name, "nr_") }

// CounterDelta gives per-second rates of the counters in cur; names for
// which gauge is true are left out (read them from the snapshot); a counter
// missing from prev is left out, one that went backwards is 0.
func CounterDelta(prev, cur map[string]uint64, secs float64, gauge func(string) bool) map[string]float64 {
	r := make(map[string]float64, len(cur))
	for k, v := range cur {
		if gauge != nil && gauge(k) {
			continue
		}
		p, ok := prev[k]
		if !ok {
			continue
		}
		r[k] = float64(sub0(p, v)) / secs
	}
	return r
}

// NUMARate is one node's allocation rates in pages per second.
type NUMARate struct {
	Node      int     `json:"node"`
	HitPS     float64 `json:"hit_ps"`
	MissPS    float64 `json:"miss_ps"`
	ForeignPS float64 `json:"foreign_ps"`
	LocalPS   float64 `json:"local_ps"`
	OtherPS   float64 `json:"other_ps"`
	// MissPct is miss/(hit+miss): allocations that landed here though
	// another node was wanted.
	MissPct float64 `json:"miss_pct"`
	Reset   bool    `json:"reset,omitempty"`
}

// NUMADelta computes per-node rates for nodes in both snapshots.
func NUMADelta(prev, cur []NUMANode, secs float64) []NUMARate {
	var out []NUMARate
	for _, c := range cur {
		for _, p := range prev {
			if p.Node != c.Node {
				continue
			}
			hit, ok1 := sub(p.Hit, c.Hit)
			miss, ok2 := sub(p.Miss, c.Miss)
			r := NUMARate{Node: c.Node, HitPS: float64(hit) / secs, MissPS: float64(miss) / secs,
				ForeignPS: float64(sub0(p.Foreign, c.Foreign)) / secs, LocalPS: float64(sub0(p.Local, c.Local)) / secs,
				OtherPS: float64(sub0(p.Other, c.Other)) / secs, Reset: !ok1 || !ok2}
			if hit+miss > 0 {
				r.MissPct = 100 * float64(miss) / float64(hit+miss)
			}
			out = append(out, r)
		}
	}
	return out
}

// ---- disks ----

// DiskRate is one device over the interval, as iostat -x prints it.
type DiskRate struct {
	Name     string  `json:"dev"`
	RPS      float64 `json:"r_s"`
	WPS      float64 `json:"w_s"`
	DPS      float64 `json:"d_s,omitempty"`
	FPS      float64 `json:"f_s,omitempty"`
	RkBPS    float64 `json:"rkB_s"`
	WkBPS    float64 `json:"wkB_s"`
	RMergePS float64 `json:"rrqm_s"`
	WMergePS float64 `json:"wrqm_s"`
	RAwait   float64 `json:"r_await"` // ms per read, queue + service
	WAwait   float64 `json:"w_await"`
	RAreqKB  float64 `json:"rareq_sz"` // kB per read
	WAreqKB  float64 `json:"wareq_sz"`
	AquSz    float64 `json:"aqu_sz"` // average queue length
	Util     float64 `json:"util"`   // % of time with I/O in flight
	New      bool    `json:"new,omitempty"`
	Reset    bool    `json:"reset,omitempty"`
}

// DiskDelta computes iostat -x figures for each device in cur. Sectors are
// 512 bytes. %util is io_ticks over wall time (can exceed what it means on
// devices serving requests in parallel: NVMe, RAID, virtio-blk).
func DiskDelta(prev, cur []Disk, secs float64) []DiskRate {
	pidx := make(map[string]*Disk, len(prev))
	for i := range prev {
		pidx[prev[i].Name] = &prev[i]
	}
	out := make([]DiskRate, 0, len(cur))
	for i := range cur {
		c := &cur[i]
		r := DiskRate{Name: c.Name}
		p, ok := pidx[c.Name]
		if !ok {
			p, r.New = &Disk{}, true // was all zero or absent: counts from zero
		}
		if reset := diskWentBack(p, c); reset {
			r.Reset = true
			out = append(out, r)
			continue
		}
		rd, wr, dc, fl := float64(c.RdIOs-p.RdIOs), float64(c.WrIOs-p.WrIOs), float64(c.DcIOs-p.DcIOs), float64(c.FlIOs-p.FlIOs)
		r.RPS, r.WPS, r.DPS, r.FPS = rd/secs, wr/secs, dc/secs, fl/secs
		r.RkBPS = float64(c.RdSectors-p.RdSectors) / 2 / secs
		r.WkBPS = float64(c.WrSectors-p.WrSectors) / 2 / secs
		r.RMergePS = float64(c.RdMerges-p.RdMerges) / secs
		r.WMergePS = float64(c.WrMerges-p.WrMerges) / secs
		if rd > 0 {
			r.RAwait = float64(c.RdTicks-p.RdTicks) / rd
			r.RAreqKB = float64(c.RdSectors-p.RdSectors) / 2 / rd
		}
		if wr > 0 {
			r.WAwait = float64(c.WrTicks-p.WrTicks) / wr
			r.WAreqKB = float64(c.WrSectors-p.WrSectors) / 2 / wr
		}
		ms := secs * 1000
		r.AquSz = float64(c.QueueTicks-p.QueueTicks) / ms
		r.Util = 100 * float64(c.IOTicks-p.IOTicks) / ms
		if r.Util > 100 {
			r.Util = 100
		}
		out = append(out, r)
	}
	return out
}

func diskWentBack(p, c *Disk) bool {
	return c.RdIOs < p.RdIOs || c.WrIOs < p.WrIOs || c.RdSectors < p.RdSectors || c.WrSectors < p.WrSectors ||
		c.RdTicks < p.RdTicks || c.WrTicks < p.WrTicks || c.RdMerges < p.RdMerges || c.WrMerges < p.WrMerges ||
		c.IOTicks < p.IOTicks || c.QueueTicks < p.QueueTicks || c.DcIOs < p.DcIOs || c.FlIOs < p.FlIOs
}

// ---- network ----

// NetRate is one interface over the interval.
type NetRate struct {
	Name     string  `json:"dev"`
	RxKBPS   float64 `json:"rxkB_s"`
	TxKBPS   float64 `json:"txkB_s"`
	RxPPS    float64 `json:"rxpck_s"`
	TxPPS    float64 `json:"txpck_s"`
	RxDropPS float64 `json:"rxdrop_s"`
	TxDropPS float64 `json:"txdrop_s"`
	RxErrPS  float64 `json:"rxerr_s"`
	TxErrPS  float64 `json:"txerr_s"`
	RxFifoPS float64 `json:"rxfifo_s,omitempty"`
	New      bool    `json:"new,omitempty"`
	Reset    bool    `json:"reset,omitempty"`
}

// NetDelta computes sar -n DEV / EDEV style rates per interface.
func NetDelta(prev, cur []NetDev, secs float64) []NetRate {
	out := make([]NetRate, 0, len(cur))
	for i := range cur {
		c := &cur[i]
		r := NetRate{Name: c.Name}
		var p *NetDev
		for j := range prev {
			if prev[j].Name == c.Name {
				p = &prev[j]
				break
			}
		}
		if p == nil {
			r.New = true
			out = append(out, r) // appeared: its counters may predate prev
			continue
		}
		if c.RxBytes < p.RxBytes || c.TxBytes < p.TxBytes || c.RxPackets < p.RxPackets || c.TxPackets < p.TxPackets {
			r.Reset = true // interface re-created, or a 32-bit counter wrapped
			out = append(out, r)
			continue
		}
		r.RxKBPS = float64(c.RxBytes-p.RxBytes) / 1024 / secs
		r.TxKBPS = float64(c.TxBytes-p.TxBytes) / 1024 / secs
		r.RxPPS = float64(c.RxPackets-p.RxPackets) / secs
		r.TxPPS = float64(c.TxPackets-p.TxPackets) / secs
		r.RxDropPS = float64(sub0(p.RxDrop, c.RxDrop)) / secs
		r.TxDropPS = float64(sub0(p.TxDrop, c.TxDrop)) / secs
		r.RxErrPS = float64(sub0(p.RxErrs, c.RxErrs)) / secs
		r.TxErrPS = float64(sub0(p.TxErrs, c.TxErrs)) / secs
		r.RxFifoPS = float64(sub0(p.RxFifo, c.RxFifo)) / secs
		out = append(out, r)
	}
	return out
}

// TCPRates is TCP over the interval.
type TCPRates struct {
	PerSec map[string]float64 `json:"ps"` // every counter kept, per second (CurrEstab is a level: see Estab)
	// RetransPct is RetransSegs/OutSegs in percent (sar -n ETCP's
	// retrans/s over oseg/s).
	RetransPct float64 `json:"retrans_pct"`
	Estab      uint64  `json:"estab"`
	TimeWait   uint64  `json:"tw"`
	Orphan     uint64  `json:"orphan"`
}

// TCPDelta computes per-second rates of the kept counters.
func TCPDelta(prev, cur *TCP, secs float64) *TCPRates {
	r := &TCPRates{PerSec: CounterDelta(prev.Counters, cur.Counters, secs, func(k string) bool { return k == "Tcp.CurrEstab" }),
		Estab: cur.Counters["Tcp.CurrEstab"], TimeWait: cur.TimeWait, Orphan: cur.Orphan}
	if out := r.PerSec["Tcp.OutSegs"]; out > 0 {
		r.RetransPct = 100 * r.PerSec["Tcp.RetransSegs"] / out
	}
	return r
}

// ---- PSI ----

// PSIRate is one resource's stall share over the interval (from the
// totals, exact for any interval) and the kernel's 10 s average at its end.
type PSIRate struct {
	SomePct   float64 `json:"some_pct"`
	FullPct   float64 `json:"full_pct"`
	SomeAvg10 float64 `json:"some10"`
	FullAvg10 float64 `json:"full10"`
}

// PSIDelta computes stall percentages per resource.
func PSIDelta(prev, cur map[string]PSI, secs float64) map[string]PSIRate {
	r := make(map[string]PSIRate, len(cur))
	us := secs * 1e6
	for k, c := range cur {
		p, ok := prev[k]
		if !ok {
			continue
		}
		r[k] = PSIRate{SomePct: clamp100(100 * float64(sub0(p.SomeTotal, c.SomeTotal)) / us),
			FullPct: clamp100(100 * float64(sub0(p.FullTotal, c.FullTotal)) / us), SomeAvg10: c.SomeAvg10, FullAvg10: c.FullAvg10}
	}
	return r
}

func clamp100(v float64) float64 { return min(v, 100) }

// ---- process and threads ----

// ProcRate is the target process over the interval.
type ProcRate struct {
	CPUPct   float64 `json:"cpu_pct"` // of one CPU: 250 = two and a half cores
	UserPct  float64 `json:"usr_pct"`
	SysPct   float64 `json:"sys_pct"`
	MajFltPS float64 `json:"majflt_s"`
	MinFltPS float64 `json:"minflt_s"`
	RSSKB    uint64  `json:"rss_kb"`
	SwapKB   uint64  `json:"swap_kb"`
	Threads  uint64  `json:"threads"`
	FDs      int     `json:"fds"`
	FDSoft   int64   `json:"fd_soft"`
	FDPct    float64 `json:"fd_pct"` // open descriptors over the soft limit
	Reset    bool    `json:"reset,omitempty"`
}

// ProcDelta computes the process's CPU use and levels (pidstat -u -r).
func ProcDelta(prev, cur *Proc, secs float64) *ProcRate {
	r := &ProcRate{RSSKB: cur.RSSKB, SwapKB: cur.SwapKB, Threads: cur.Threads, FDs: cur.FDs, FDSoft: cur.FDSoft}
	if cur.FDSoft > 0 && cur.FDs >= 0 {
		r.FDPct = 100 * float64(cur.FDs) / float64(cur.FDSoft)
	}
	if prev.PID != cur.PID || prev.Start != cur.Start {
		r.Reset = true
		return r
	}
	ticks := secs * UserHZ
	r.UserPct = 100 * float64(sub0(prev.Utime, cur.Utime)) / ticks
	r.SysPct = 100 * float64(sub0(prev.Stime, cur.Stime)) / ticks
	r.CPUPct = r.UserPct + r.SysPct
	r.MajFltPS = float64(sub0(prev.MajFlt, cur.MajFlt)) / secs
	r.MinFltPS = float64(sub0(prev.MinFlt, cur.MinFlt)) / secs
	return r
}

// ThreadRate is one thread over the interval (pidstat -t -u -w, plus run
// queue delay).
type ThreadRate struct {
	TID     int     `json:"tid"` // jstack nid = 0x%x of this
	Name    string  `json:"name"`
	State   string  `json:"state"` // at the end of the interval
	CPU     int32   `json:"cpu"`   // CPU it last ran on
	CPUPct  float64 `json:"cpu_pct"`
	UserPct float64 `json:"usr_pct"`
	SysPct  float64 `json:"sys_pct"`
	// WaitPct is the share of the interval the thread was runnable but
	// waiting for a CPU (schedstat run delay): CPU starvation as the
	// thread felt it.
	WaitPct float64 `json:"wait_pct"`
	VCSPS   float64 `json:"cswch_s"`
	NVCSPS  float64 `json:"nvcswch_s"`
	New     bool    `json:"new,omitempty"` // started during the interval
}

// NID is the TID as a Java thread dump prints it (nid=0x1a2b), to join a
// hot thread to its stack.
func (t ThreadRate) NID() string { return "0x" + strconv.FormatInt(int64(t.TID), 16) }

// ThreadRates is every thread over the interval, busiest first.
type ThreadRates struct {
	Threads []ThreadRate `json:"threads"`
	Exited  []int        `json:"exited,omitempty"` // TIDs gone since prev
	New     int          `json:"new"`
}

// ThreadDelta joins threads by TID (the samplers write them sorted; other
// input is sorted first). CPUPct comes
// from schedstat's on-CPU nanoseconds when the kernel has them (exact), else
// from utime+stime ticks (10 ms resolution); the user/system split is from
// the ticks. A TID whose start time changed is a new thread reusing it.
// A TID missing from prev counts from zero if it started after every
// thread in prev; one that started earlier existed at prev but was not read
// (it raced the listing): its rates are left at zero rather than charging
// its whole life to one interval.
func ThreadDelta(prev, cur Threads, secs float64) *ThreadRates {
	byTID := func(a, b Thread) int { return a.TID - b.TID }
	if !slices.IsSortedFunc(prev, byTID) {
		prev = slices.Clone(prev)
		slices.SortFunc(prev, byTID)
	}
	if !slices.IsSortedFunc(cur, byTID) {
		cur = slices.Clone(cur)
		slices.SortFunc(cur, byTID)
	}
	r := &ThreadRates{Threads: make([]ThreadRate, 0, len(cur))}
	var lastStart uint64
	for _, p := range prev {
		lastStart = max(lastStart, p.Start)
	}
	ns := secs * 1e9
	ticks := secs * UserHZ
	i := 0
	for _, c := range cur {
		for i < len(prev) && prev[i].TID < c.TID {
			r.Exited = append(r.Exited, prev[i].TID)
			i++
		}
		p := Thread{}
		tr := ThreadRate{TID: c.TID, Name: c.Name, State: stateString(c.State), CPU: c.CPU}
		switch {
		case i < len(prev) && prev[i].TID == c.TID && prev[i].Start == c.Start:
			p = prev[i]
			i++
		case i < len(prev) && prev[i].TID == c.TID: // TID reused
			r.Exited = append(r.Exited, prev[i].TID)
			i++
			tr.New = true
		default:
			tr.New = true
		}
		if tr.New {
			r.New++
			if c.Start < lastStart {
				r.Threads = append(r.Threads, tr)
				continue
			}
		}
		tr.UserPct = 100 * float64(sub0(p.Utime, c.Utime)) / ticks
		tr.SysPct = 100 * float64(sub0(p.Stime, c.Stime)) / ticks
		if c.RunNS > 0 {
			tr.CPUPct = 100 * float64(sub0(p.RunNS, c.RunNS)) / ns
		} else {
			tr.CPUPct = tr.UserPct + tr.SysPct
		}
		tr.WaitPct = 100 * float64(sub0(p.WaitNS, c.WaitNS)) / ns
		tr.VCSPS = float64(sub0(p.VCS, c.VCS)) / secs
		tr.NVCSPS = float64(sub0(p.NVCS, c.NVCS)) / secs
		r.Threads = append(r.Threads, tr)
	}
	for ; i < len(prev); i++ {
		r.Exited = append(r.Exited, prev[i].TID)
	}
	sort.SliceStable(r.Threads, func(a, b int) bool { return r.Threads[a].CPUPct > r.Threads[b].CPUPct })
	return r
}
