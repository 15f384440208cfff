package threaddump

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Render limits: a report is read by a person, the JSON carries the rest.
const (
	renderPools  = 10
	renderLocks  = 10
	renderGroups = 5
	renderFrames = 8
)

type labels struct {
	dump, threads, java, vm, virtual, idle, states, share, shareFmt, pools, poolFmt, locks, lockFmt, heldBy, noOwner, between, justTaken,
	deadlocks, groups, findings, fix, revert, risk, why, evidence, series, stuck, hot, hotApp, cpu, unknown, none string
}

var labelsEN = labels{
	dump: "Dump", threads: "threads", java: "Java", vm: "VM-internal", virtual: "virtual", idle: "idle (waiting for work)",
	states: "States", share: "Blocked or waiting",
	shareFmt: "%.2f%% of %d working threads (%d BLOCKED, %d WAITING); idle pool threads excluded (%.2f%% counting them)",
	pools:    "Thread pools", poolFmt: "%-40s %4d threads  %4d busy  %4d idle  %4d blocked  %4d waiting",
	locks: "Locks by waiters", lockFmt: "%4d waiting  %s %s", heldBy: "held by", noOwner: "owner not in dump",
	between:   "no owner at this instant: the lock was changing hands",
	justTaken: " (caught in the instant it took the lock)",
	deadlocks: "Deadlocks", groups: "Identical stacks", findings: "Findings", fix: "Apply", revert: "Revert", risk: "Risk",
	why: "Why", evidence: "Evidence", series: "Across dumps", stuck: "Stuck threads", hot: "Hot RUNNABLE frames",
	hotApp: "Hot application frames", unknown: "state not printed", cpu: "CPU between the last two dumps (cpu=)", none: "none",
}

var labelsZH = labels{
	dump: "转储", threads: "个线程", java: "Java", vm: "JVM 内部", virtual: "虚拟线程", idle: "空闲（等待任务）",
	states: "状态分布", share: "阻塞或等待",
	shareFmt: "%.2f%%（%d 个工作线程；BLOCKED %d，WAITING %d）；已排除空闲线程池线程（计入则为 %.2f%%）",
	pools:    "线程池", poolFmt: "%-40s %4d 线程  %4d 忙  %4d 空闲  %4d 阻塞  %4d 等待",
	locks: "锁（按等待线程数排序）", lockFmt: "%4d 个等待  %s %s", heldBy: "持有者", noOwner: "转储中无持有者",
	between:   "此刻无持有者：锁正在交接",
	justTaken: "（转储恰好发生在它刚拿到锁的瞬间）",
	deadlocks: "死锁", groups: "相同堆栈", findings: "发现", fix: "操作", revert: "回退", risk: "风险",
	why: "原因", evidence: "证据", series: "多次转储对比", stuck: "停滞线程", hot: "RUNNABLE 热点帧",
	hotApp: "应用代码热点帧", unknown: "未打印状态", cpu: "最近两次转储之间的 CPU 时间（cpu=）", none: "无",
}

// WriteText renders reports (one per dump, in file order) and their findings
// as plain text; with two or more reports it adds the across-dumps analysis.
func WriteText(w io.Writer, reports []*Report, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	L := labelsEN
	if lang == finding.ZH {
		L = labelsZH
	}
	// Several dumps: each one in brief but the last, then each problem once,
	// from the dump that shows it best (FindingsOver), beside what persists.
	many := len(reports) >= 2
	for i, r := range reports {
		writeReport(bw, r, i+1, L, lang, many && i < len(reports)-1, !many)
	}
	if many {
		s := NewSeries(reports)
		fmt.Fprintf(bw, "== %s (%d)\n", L.series, len(reports))
		if len(s.Stuck) > 0 {
			fmt.Fprintf(bw, "%s:\n", L.stuck)
			for i, st := range s.Stuck {
				if i == renderLocks {
					fmt.Fprintf(bw, "  ... +%d\n", len(s.Stuck)-i)
					break
				}
				fmt.Fprintf(bw, "  %s %s x%d  %s  %s\n", quoteName(st.Name), st.State, st.Dumps, st.Top, st.App)
			}
		}
		for _, hs := range []struct {
			title string
			fs    []HotFrame
		}{{L.hot, s.HotFrames}, {L.hotApp, s.HotMethods}} {
			if len(hs.fs) == 0 {
				continue
			}
			fmt.Fprintf(bw, "%s (%d):\n", hs.title, s.Samples)
			for i, h := range hs.fs {
				if i == renderLocks {
					break
				}
				fmt.Fprintf(bw, "  %4d %5.1f%%  %s\n", h.Count, 100*h.Share, h.Frame)
			}
		}
		if len(s.CPU) > 0 && s.CPU[0].CPUSeconds > 0 {
			fmt.Fprintf(bw, "%s:\n", L.cpu)
			for i, c := range s.CPU {
				if i == renderLocks || c.CPUSeconds <= 0 {
					break
				}
				fmt.Fprintf(bw, "  %8.3fs  nid=%d  %s  %s\n", c.CPUSeconds, c.NativeID, quoteName(c.Name), c.Top)
			}
		}
		names := make([]string, len(reports))
		for i, r := range reports {
			names[i] = fmt.Sprintf("%s %d", L.dump, i+1)
			if r.Dump != nil && r.Dump.Source != "" {
				names[i] = r.Dump.Source
			}
		}
		writeFindings(bw, append(FindingsOver(reports, names), SeriesFindings(s, "dumps")...), L, lang)
	}
	return bw.Flush()
}

// writeReport renders one dump; brief leaves out the pools and locks past
// the first three and the identical stacks; findings=false the findings
// (said once for all dumps).
func writeReport(w *bufio.Writer, r *Report, n int, L labels, lang finding.Lang, brief, findings bool) {
	maxPools, maxLocks := renderPools, renderLocks
	if brief {
		maxPools, maxLocks = 3, 3
	}
	d := r.Dump
	fmt.Fprintf(w, "== %s %d", L.dump, n)
	if d != nil {
		var parts []string
		if d.Time != "" {
			parts = append(parts, d.Time)
		}
		if d.VM != "" {
			parts = append(parts, d.VM)
		}
		where := fmt.Sprintf("line %d", d.Line)
		if d.Source != "" {
			where = fmt.Sprintf("%s:%d", d.Source, d.Line)
		}
		parts = append(parts, string(d.Format), where)
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "\n%d %s: %d %s, %d %s, %d %s", r.Threads, L.threads, r.Java, L.java, r.VMInternal, L.vm, r.Idle, L.idle)
	if r.Virtual > 0 {
		fmt.Fprintf(w, ", %d %s", r.Virtual, L.virtual)
	}
	if r.Unknown > 0 {
		fmt.Fprintf(w, ", %d %s", r.Unknown, L.unknown)
	}
	w.WriteString("\n")
	fmt.Fprintf(w, "%s:", L.states)
	for _, dc := range r.Details {
		if dc.Detail != "" {
			fmt.Fprintf(w, "  %s (%s) %d", dc.State, dc.Detail, dc.Count)
		} else {
			fmt.Fprintf(w, "  %s %d", dc.State, dc.Count)
		}
	}
	w.WriteString("\n")
	fmt.Fprintf(w, "%s: "+L.shareFmt+"\n", L.share, 100*r.BlockedWaitingShare, r.Active, r.Blocked, r.Waiting, 100*r.RawBlockedWaitingShare)

	if len(r.Pools) > 0 {
		fmt.Fprintf(w, "%s:\n", L.pools)
		for i, p := range r.Pools {
			if i == maxPools {
				fmt.Fprintf(w, "  ... +%d\n", len(r.Pools)-i)
				break
			}
			fmt.Fprintf(w, "  "+L.poolFmt+"\n", quoteName(p.Name), p.Size, p.Busy, p.Idle, p.Blocked, p.Waiting)
		}
	}
	contended := 0
	for _, l := range r.Locks {
		if l.NWaiter > 0 {
			contended++
		}
	}
	if contended > 0 {
		fmt.Fprintf(w, "%s:\n", L.locks)
		for i, l := range r.Locks {
			if l.NWaiter == 0 {
				break
			}
			if i == maxLocks {
				fmt.Fprintf(w, "  ... +%d\n", contended-i)
				break
			}
			fmt.Fprintf(w, "  "+L.lockFmt+"\n", l.NWaiter, l.Ref, l.Kind)
			if l.Owner != nil {
				just := ""
				if l.JustTaken() {
					just = L.justTaken
				}
				fmt.Fprintf(w, "        %s %s: %s%s\n", L.heldBy, quoteName(l.Owner.Name), l.OwnerDoingIn(lang), just)
			} else {
				if l.BetweenOwners(r.Dump) {
					fmt.Fprintf(w, "        %s\n", L.between)
				} else {
					fmt.Fprintf(w, "        %s\n", L.noOwner)
				}
			}
		}
	}
	if len(r.Deadlocks) > 0 {
		fmt.Fprintf(w, "%s:\n", L.deadlocks)
		for _, dl := range r.Deadlocks {
			fmt.Fprintf(w, "  %s\n", quoteNames(dl.Names, 10))
		}
	}
	if brief {
		w.WriteString("\n")
		return
	}
	if len(r.StackGroups) > 0 {
		fmt.Fprintf(w, "%s:\n", L.groups)
		for i, g := range r.StackGroups {
			if i == renderGroups {
				break
			}
			fmt.Fprintf(w, "  %d x %s  %s\n", len(g.Threads), g.State, quoteNames(g.Names, 3))
			for j, f := range g.Frames {
				if j == renderFrames {
					fmt.Fprintf(w, "        ... +%d\n", len(g.Frames)-j)
					break
				}
				fmt.Fprintf(w, "        at %s\n", f)
			}
		}
	}
	if findings {
		writeFindings(w, Findings(r, fmt.Sprintf("%s %d", L.dump, n)), L, lang)
	}
	w.WriteString("\n")
}

func writeFindings(w *bufio.Writer, fs []finding.Finding, L labels, lang finding.Lang) {
	finding.Sort(fs)
	shown := false
	for _, f := range fs {
		if f.Status != finding.Fail {
			continue
		}
		if !shown {
			fmt.Fprintf(w, "%s:\n", L.findings)
			shown = true
		}
		fmt.Fprintf(w, "  [%s] %s  (%s)\n", f.Severity.Label(lang), f.Title.In(lang), f.Key())
		fmt.Fprintf(w, "      %s\n", f.Observed.In(lang))
		if t := f.Why.In(lang); t != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.why, t)
		}
		if t := f.Recommended.In(lang); t != "" {
			fmt.Fprintf(w, "      => %s\n", t)
		}
		if f.Fix.Apply != "" {
			fmt.Fprintf(w, "      %s:\n", L.fix)
			for _, ln := range strings.Split(f.Fix.Apply, "\n") {
				fmt.Fprintf(w, "        %s\n", ln)
			}
		}
		if f.Fix.Revert != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.revert, strings.ReplaceAll(f.Fix.Revert, "\n", "; "))
		}
		if t := f.Risk.In(lang); t != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.risk, t)
		}
		for i, e := range f.Evidence {
			if i == 8 {
				break
			}
			fmt.Fprintf(w, "      - %s: %s\n", e.Key, e.Value)
		}
	}
}
