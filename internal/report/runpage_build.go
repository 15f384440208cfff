package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/stacks"
	"github.com/tuneloop/tuneloop/internal/units"
	"github.com/tuneloop/tuneloop/internal/verdict"
	"github.com/tuneloop/tuneloop/internal/version"
)

// NewRunSummary is the report of a recorded run: its header and every finding of
// the decision, ranked, the verdict first.
func NewRunSummary(L *verdict.Layers, d *verdict.Decision) *RunSummary {
	m := &L.Folder.Manifest
	r := &RunSummary{Schema: RunSchema, Tool: Tool{Name: "tuneloop", Version: version.Version},
		GeneratedAt: time.Now().UTC(), Dir: L.Folder.Dir, ID: m.ID, Status: string(m.Status), Incomplete: m.Incomplete(), Reason: m.Reason,
		Start: m.Start, End: m.End, Command: strings.Join(m.Argv, " "), IntervalMS: m.IntervalMS,
		Host: HostOf(m.Facts, "run "+m.ID), BadLines: L.Series.BadLines, Stats: L.Stats, Findings: d.Findings}
	if m.Target != nil {
		r.TargetPID, r.TargetComm = m.Target.PID, m.Target.Comm
	}
	if m.Cost != nil {
		r.CostCPUPct, r.CostMaxRSSKB = m.Cost.CPUPctOfCore, m.Cost.MaxRSSKB
		r.CostGenerator, r.CostInTarget = m.Cost.Generator, m.Cost.InTarget
	}
	r.Summary = countFindings(r.Findings)
	return r
}

// NewRunPage reduces a run's layers and its decision to what the report
// page draws. It decides nothing and reads no file.
func NewRunPage(L *verdict.Layers, d *verdict.Decision, lang finding.Lang) *RunPage {
	r := NewRunSummary(L, d)
	p := &RunPage{Schema: RunPageSchema, Lang: lang, Run: r, Verdict: d.Verdict, Title: "tuneloop run " + r.ID, Folder: r.Dir,
		Account: accountRows(d), Mechanisms: mechanismRows(d)}
	if s := L.Load; s != nil {
		if s.Target != "" {
			p.Title += " @ " + s.Target
		}
		p.Load = loadView(s)
		if L.LoadDetail != nil {
			p.LoadDetail = NewLoadPageDetail(s, L.LoadDetail, lang, r.Tool)
		}
	}
	for _, c := range L.Check {
		if c.Status == finding.Fail && c.Severity >= finding.Warning {
			p.Check = append(p.Check, c)
		}
	}
	p.CPU, p.Softirq = cpuViews(L.Series)
	for i, rep := range L.Reports {
		counts := map[string]int{}
		for _, sc := range rep.States {
			counts[string(sc.State)] += sc.Count
		}
		p.ThreadStates = append(p.ThreadStates, ThreadStateSample{T: L.DumpTimes[i], Counts: counts, BlockedWaitingPct: new(100 * rep.BlockedWaitingShare)})
	}
	p.Locks = joinLockWaits(lockRows(L.Reports), L)
	// JFR execution samples (every 10-20 ms per thread) beat a few dumps.
	if L.Stacks != nil {
		p.Flame = L.Stacks
		p.FlameSource = fmt.Sprintf("%d JFR execution samples", L.Samples)
	} else if fl, n := flameFromDumps(L.Dumps); fl != nil {
		p.Flame = fl
		p.FlameSource = fmt.Sprintf("%d RUNNABLE stacks in %d thread dumps", n, len(L.Dumps))
	}
	p.Flames = flameKinds(L)
	if L.GC != nil {
		p.GC = gcView(L)
	}
	p.Facts = factRows(r.Host)
	return p
}

func loadView(s *loadgen.Summary) *LoadView {
	v := &LoadView{Source: s.Source, Requests: s.Requests, Errors: s.Errors, TPS: s.TPS,
		MeanMS: s.Latency.Mean, P50MS: s.Latency.P50, P90MS: s.Latency.P90, P99MS: s.Latency.P99, MaxMS: s.Latency.Max, RampS: s.RampS,
		ClientCPU: s.ClientCPU}
	switch {
	case s.Model != "":
		v.Model = s.Model
	case s.Users > 0:
		v.Model = fmt.Sprintf("closed, %d users", s.Users)
	}
	for _, sec := range s.Series {
		v.Series = append(v.Series, LoadPoint{T: s.Start.Add(time.Duration(sec.T) * time.Second), TPS: float64(sec.Requests),
			P50MS: sec.P50, P99MS: sec.P99, Errors: sec.Errors})
	}
	return v
}

func cpuViews(s *diagnose.Series) ([]CPUTick, []SoftirqTick) {
	var cpu []CPUTick
	var si []SoftirqTick
	for _, t := range s.Ticks {
		if len(t.CPUs) > 0 {
			ct := CPUTick{T: t.T}
			for _, c := range t.CPUs {
				ct.PerCPU = append(ct.PerCPU, CPUShare{Us: c.User, Sy: c.System, Hi: c.IRQ, Si: c.Soft, Wa: c.Iowait, St: c.Steal})
			}
			cpu = append(cpu, ct)
		}
		if len(t.Softirq) > 0 {
			// Zeros, not null, on CPUs or ticks without NET_RX.
			st := SoftirqTick{T: t.T, All: make([]float64, len(s.CPUs)), NetRx: make([]float64, len(s.CPUs))}
			for typ, per := range t.Softirq {
				for i, v := range per {
					if i < len(st.All) {
						st.All[i] += v
						if typ == "NET_RX" {
							st.NetRx[i] = v
						}
					}
				}
			}
			si = append(si, st)
		}
	}
	return cpu, si
}

// lockRows merges the contended locks of every dump: the same lock (class
// and address) counts once, with its most waiters and in how many dumps.
func lockRows(reports []*threaddump.Report) []LockRow {
	rows := map[string]*LockRow{}
	for _, r := range reports {
		for _, l := range r.Locks {
			if l.NWaiter == 0 {
				continue
			}
			key := l.Ref.Class + "@" + l.Ref.Addr
			row := rows[key]
			if row == nil {
				row = &LockRow{Lock: l.Ref.Addr, Class: l.Ref.Class, Kind: l.Kind}
				rows[key] = row
			}
			row.Dumps++
			if l.NWaiter >= row.Waiters {
				row.Waiters = l.NWaiter
				row.Owner = l.OwnerName
				if l.Owner != nil {
					row.OwnerState = string(l.Owner.State)
				}
				row.OwnerFrame = l.OwnerDoing()
			}
		}
	}
	out := make([]LockRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Waiters != out[j].Waiters {
			return out[i].Waiters > out[j].Waiters
		}
		return out[i].Class+out[i].Lock < out[j].Class+out[j].Lock
	})
	if len(out) > 20 {
		out = out[:20]
	}
	return out
}

// flameFromDumps merges the stacks of RUNNABLE Java threads of every dump
// (a sampling profile at the dump interval), root frame first.
func flameFromDumps(dumps []*threaddump.Dump) (*FlameNode, int) {
	root := &stacks.Node{Name: "all"}
	n := 0
	for _, d := range dumps {
		for _, t := range d.Threads {
			if t.State != threaddump.StateRunnable || len(t.Frames) == 0 {
				continue
			}
			stack := make([]string, 0, len(t.Frames))
			for i := len(t.Frames) - 1; i >= 0; i-- {
				stack = append(stack, t.Frames[i].Method)
			}
			root.Add(stack, 1)
			n++
		}
	}
	if n == 0 {
		return nil, 0
	}
	return root, n
}

func gcView(L *verdict.Layers) *GCView {
	v := NewGCView(L.GC.Summary, L.GC.Findings)
	for _, p := range L.GCPauses {
		v.Timeline = append(v.Timeline, GCPause{UptimeS: p.UptimeS, MS: p.MS, Kind: p.Kind})
	}
	return v
}

func factRows(h Host) [][2]string {
	var rows [][2]string
	add := func(k, v string) {
		if v != "" && v != "0" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("host", h.Hostname)
	add("os", h.OS)
	add("kernel", h.Kernel)
	add("arch", h.Arch)
	add("cpu", h.CPU)
	add("logical CPUs", fmt.Sprint(h.Logical))
	add("sockets", fmt.Sprint(h.Sockets))
	add("NUMA nodes", fmt.Sprint(h.NUMANodes))
	if h.MemTotalKB > 0 {
		add("memory", units.FormatBytes(h.MemTotalKB*1024))
	}
	add("hypervisor", h.Hypervisor)
	return rows
}

// countFindings counts a run's findings by status and severity; a verdict
// that restates a finding of the list is not counted twice (one the
// verdict made itself, e.g. "the host is small for this load", is).
func countFindings(fs []finding.Finding) finding.Counts {
	keys := map[string]bool{}
	for i := range fs {
		if fs[i].ID != verdict.ID {
			keys[fs[i].Key()] = true
		}
	}
	rest := make([]finding.Finding, 0, len(fs))
	for _, f := range fs {
		if f.ID != verdict.ID || !keys[f.Subject] {
			rest = append(rest, f)
		}
	}
	return finding.Count(rest)
}
