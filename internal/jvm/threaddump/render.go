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

// WriteText renders a set: each dump (in time order) and the set's
// findings as plain text; with two or more dumps the earlier ones in brief
// and the across-dumps analysis. Inputs not read and identical dumps counted
// once are said first. Text from the dumps passes finding.Safe.
func WriteText(w io.Writer, s *Set, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	for _, u := range s.Unreadable {
		fmt.Fprintf(bw, "%s: %s\n", t("Not read", "未能读取"), finding.SafeLine(u.Message))
	}
	for _, d := range s.Duplicates {
		fmt.Fprintf(bw, "%s: %s:%d = %s\n", t("Identical dump counted once", "相同的转储只计一次"),
			finding.SafeLine(d.Source), d.Line, finding.SafeLine(d.SameAs))
	}
	if s.DuplicatesMore > 0 {
		fmt.Fprintf(bw, t("%d more identical dumps counted once\n", "另有 %d 个相同的转储只计一次\n"), s.DuplicatesMore)
	}
	if th := s.Thinned; th != nil {
		fmt.Fprintf(bw, t("%d distinct dumps read; %d kept, one every %d in the order read, so they span the whole input (a set keeps at most %d dumps and %d threads): give a narrower slice of the log to see every dump\n",
			"读取了 %d 个不同的转储；保留 %d 个，按读取顺序每 %d 个取一个，覆盖整个输入（一组最多保留 %d 个转储、%d 个线程）：如需查看每个转储，请给出日志中更小的一段\n"),
			th.Read, th.Kept, th.Every, maxSetDumps, maxSetThreads)
	}
	if len(s.Unreadable)+len(s.Duplicates) > 0 || s.DuplicatesMore > 0 || s.Thinned != nil {
		bw.WriteString("\n")
	}
	reports := s.Reports
	many := len(reports) >= 2
	for i, r := range reports {
		var fs []finding.Finding
		if !many {
			fs = s.Findings
		}
		writeReport(bw, r, i+1, lang, many && i < len(reports)-1, fs)
	}
	if many {
		ser := s.Series
		if ser == nil {
			ser = NewSeries(reports)
		}
		fmt.Fprintf(bw, "== %s (%d)\n", t("Across dumps", "多次转储对比"), len(reports))
		if len(ser.Stuck) > 0 {
			fmt.Fprintf(bw, "%s:\n", t("Stuck threads", "停滞线程"))
			for i, st := range ser.Stuck {
				if i == renderLocks {
					fmt.Fprintf(bw, "  ... +%d\n", len(ser.Stuck)-i)
					break
				}
				fmt.Fprintf(bw, "  %s %s x%d  %s  %s\n", quoteName(st.Name), st.State, st.Dumps, safeFrame(st.Top), safeFrame(st.App))
			}
		}
		for _, hs := range []struct {
			title string
			fs    []HotFrame
		}{{t("Hot RUNNABLE frames", "RUNNABLE 热点帧"), ser.HotFrames}, {t("Hot application frames", "应用代码热点帧"), ser.HotMethods}} {
			if len(hs.fs) == 0 {
				continue
			}
			fmt.Fprintf(bw, "%s (%d):\n", hs.title, ser.Samples)
			for i, h := range hs.fs {
				if i == renderLocks {
					break
				}
				fmt.Fprintf(bw, "  %4d %5.1f%%  %s\n", h.Count, 100*h.Share, safeFrame(h.Frame))
			}
		}
		if len(ser.CPU) > 0 && ser.CPU[0].CPUSeconds > 0 {
			fmt.Fprintf(bw, "%s:\n", t("CPU between the last two dumps (cpu=)", "最近两次转储之间的 CPU 时间（cpu=）"))
			for i, c := range ser.CPU {
				if i == renderLocks || c.CPUSeconds <= 0 {
					break
				}
				fmt.Fprintf(bw, "  %8.3fs  nid=%d  %s  %s\n", c.CPUSeconds, c.NativeID, quoteName(c.Name), safeFrame(c.Top))
			}
		}
		writeFindings(bw, s.Findings, lang)
	}
	return bw.Flush()
}

// safeFrame is a frame as text a terminal shows harmlessly.
func safeFrame(f Frame) string { return finding.SafeLine(f.String()) }

// writeReport renders one dump; brief leaves out the pools and locks past
// the first three and the identical stacks; fs are the findings to print
// under it (none when said once for all dumps).
func writeReport(w *bufio.Writer, r *Report, n int, lang finding.Lang, brief bool, fs []finding.Finding) {
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	maxPools, maxLocks := renderPools, renderLocks
	if brief {
		maxPools, maxLocks = 3, 3
	}
	d := r.Dump
	fmt.Fprintf(w, "== %s %d", t("Dump", "转储"), n)
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
		fmt.Fprintf(w, " (%s)", finding.SafeLine(strings.Join(parts, ", ")))
	}
	fmt.Fprintf(w, "\n%d %s: %d %s, %d %s, %d %s", r.Threads, t("threads", "个线程"), r.Java, "Java", r.VMInternal, t("VM-internal", "JVM 内部"),
		r.Idle, t("idle (waiting for work)", "空闲（等待任务）"))
	if r.Virtual > 0 {
		fmt.Fprintf(w, ", %d %s", r.Virtual, t("virtual", "虚拟线程"))
	}
	if r.Unknown > 0 {
		fmt.Fprintf(w, ", %d %s", r.Unknown, t("state not printed", "未打印状态"))
	}
	w.WriteString("\n")
	if d != nil && !d.Truncated.IsZero() {
		fmt.Fprintf(w, "%s: %s\n", t("Cut short", "不完整"), finding.SafeLine(d.Truncated.In(lang)))
	}
	if d != nil && d.Dropped > 0 {
		fmt.Fprintf(w, "%s: %d (%s)\n", t("Left out", "已略去"), d.Dropped, finding.SafeLine(d.DroppedWhy.In(lang)))
	}
	fmt.Fprintf(w, "%s:", t("States", "状态分布"))
	for _, dc := range r.Details {
		if dc.Detail != "" {
			fmt.Fprintf(w, "  %s (%s) %d", finding.SafeLine(string(dc.State)), finding.SafeLine(dc.Detail), dc.Count)
		} else {
			fmt.Fprintf(w, "  %s %d", finding.SafeLine(string(dc.State)), dc.Count)
		}
	}
	w.WriteString("\n")
	fmt.Fprintf(w, "%s: "+t("%.2f%% of %d working threads (%d BLOCKED, %d WAITING); idle pool threads excluded (%.2f%% counting them)",
		"%.2f%%（%d 个工作线程；BLOCKED %d，WAITING %d）；已排除空闲线程池线程（计入则为 %.2f%%）")+"\n",
		t("Blocked or waiting", "阻塞或等待"), 100*r.BlockedWaitingShare, r.Active, r.Blocked, r.Waiting, 100*r.RawBlockedWaitingShare)

	if len(r.Pools) > 0 {
		fmt.Fprintf(w, "%s:\n", t("Thread pools", "线程池"))
		for i, p := range r.Pools {
			if i == maxPools {
				fmt.Fprintf(w, "  ... +%d\n", len(r.Pools)-i)
				break
			}
			// Padded by display width: a pool named in Chinese takes two columns a character.
			fmt.Fprintf(w, "  "+t("%s %4d threads  %4d busy  %4d idle  %4d blocked  %4d waiting", "%s %4d 线程  %4d 忙  %4d 空闲  %4d 阻塞  %4d 等待")+"\n",
				finding.PadRight(quoteName(p.Name), 40), p.Size, p.Busy, p.Idle, p.Blocked, p.Waiting)
		}
	}
	contended := 0
	for _, l := range r.Locks {
		if l.NWaiter > 0 {
			contended++
		}
	}
	if contended > 0 {
		fmt.Fprintf(w, "%s:\n", t("Locks by waiters", "锁（按等待线程数排序）"))
		for i, l := range r.Locks {
			if l.NWaiter == 0 {
				break
			}
			if i == maxLocks {
				fmt.Fprintf(w, "  ... +%d\n", contended-i)
				break
			}
			fmt.Fprintf(w, "  "+t("%4d waiting  %s %s", "%4d 个等待  %s %s")+"\n", l.NWaiter, finding.SafeLine(l.Ref.String()), finding.SafeLine(fmt.Sprint(l.Kind)))
			if l.Owner != nil {
				just := ""
				if l.JustTaken() {
					just = t(" (caught in the instant it took the lock)", "（转储恰好发生在它刚拿到锁的瞬间）")
				}
				fmt.Fprintf(w, "        %s %s: %s%s\n", t("held by", "持有者"), quoteName(l.Owner.Name), finding.SafeLine(l.OwnerDoingIn(lang)), just)
			} else {
				if l.BetweenOwners(r.Dump) {
					fmt.Fprintf(w, "        %s\n", t("no owner at this instant: the lock was changing hands", "此刻无持有者：锁正在交接"))
				} else {
					fmt.Fprintf(w, "        %s\n", t("owner not in dump", "转储中无持有者"))
				}
			}
		}
	}
	if len(r.Deadlocks) > 0 {
		fmt.Fprintf(w, "%s:\n", t("Deadlocks", "死锁"))
		for _, dl := range r.Deadlocks {
			fmt.Fprintf(w, "  %s\n", quoteNames(dl.Names, 10))
		}
	}
	if brief {
		w.WriteString("\n")
		return
	}
	if len(r.StackGroups) > 0 {
		fmt.Fprintf(w, "%s:\n", t("Identical stacks", "相同堆栈"))
		for i, g := range r.StackGroups {
			if i == renderGroups {
				break
			}
			fmt.Fprintf(w, "  %d x %s  %s\n", len(g.Threads), finding.SafeLine(string(g.State)), quoteNames(g.Names, 3))
			for j, f := range g.Frames {
				if j == renderFrames {
					fmt.Fprintf(w, "        ... +%d\n", len(g.Frames)-j)
					break
				}
				fmt.Fprintf(w, "        at %s\n", safeFrame(f))
			}
		}
	}
	writeFindings(w, fs, lang)
	w.WriteString("\n")
}

// writeFindings prints the failed findings (finding.WriteText, the one
// text renderer of findings).
func writeFindings(w *bufio.Writer, fs []finding.Finding, lang finding.Lang) {
	_ = finding.WriteText(w, fs, lang, finding.Text{})
}
