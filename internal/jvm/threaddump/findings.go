package threaddump

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Category of every finding this package produces.
const Category = "threaddump"

// Thresholds for the blocked/waiting share of working threads.
const (
	shareWarn     = 0.30
	shareCritical = 0.50
	// minActive below which the share says nothing (a handful of threads).
	minActive = 5
)

// DumpInput is what the per-dump rules read: one dump's report and where it
// was read ("dump.txt" or "dump.txt:120" for a dump further into a file).
type DumpInput struct {
	R      *Report
	Source string
}

// ev is one reading from the dump.
func (in *DumpInput) ev(k, v string) finding.Evidence {
	return finding.Evidence{Key: k, Value: v, Source: in.Source}
}

var (
	underLoad = finding.T("services under load (take the dump during the slow period)", "负载下的服务（在变慢期间采集线程转储）")
	allLoads  = finding.T("all", "所有负载")

	refHangs    = "Troubleshoot Process Hangs and Loops (Oracle, Java SE Troubleshooting Guide, docs.oracle.com/en/java/javase/17/troubleshoot)"
	refJstackL  = "The jstack Utility: -l prints java.util.concurrent locks (Oracle, Java SE 8 Troubleshooting Guide, docs.oracle.com/javase/8/docs/technotes/guides/troubleshoot/tooldescr016.html)"
	refThreadMX = "java.lang.management.ThreadMXBean.findDeadlockedThreads (Oracle, Java SE API documentation)"
)

// Rules lists every per-dump rule: the deadlock, one rule per fingerprint
// of the culprits table (culprits.go), the wait groups, the blocked share
// and the dump's own completeness.
func Rules() []finding.Rule[*DumpInput] { return slices.Clone(dumpRules()) }

var dumpRules = sync.OnceValue(func() []finding.Rule[*DumpInput] {
	rs := []finding.Rule[*DumpInput]{deadlockRule()}
	for _, fp := range append(append([]*Fingerprint{}, Fingerprints...), fpSocketRead, fpAppLock) {
		rs = append(rs, culpritRule(fp))
	}
	rs = append(rs, waitRules()...)
	return append(rs, shareRule(), ownableRule())
})

// Findings turns a report into findings, ranked. source names the dump in
// evidence, e.g. "dump.txt" or "dump.txt#2" for the second dump of a file.
func Findings(r *Report, source string) []finding.Finding {
	src := source
	if r.Dump != nil && r.Dump.Line > 1 {
		src = fmt.Sprintf("%s:%d", source, r.Dump.Line)
	}
	return finding.Evaluate(dumpRules(), &DumpInput{R: r, Source: src})
}

func deadlockRule() finding.Rule[*DumpInput] {
	return finding.Rule[*DumpInput]{
		ID: "threaddump.deadlock", Category: Category, Severity: finding.Critical,
		Title:  finding.T("Deadlock: threads wait for each other forever", "死锁：线程互相等待，永远无法继续"),
		Checks: finding.T("Cycles of threads each waiting for a lock (monitor or j.u.c) the next one holds, from the dump's lock owners and waiters and the JVM's own deadlock report.", "由转储中锁的持有者与等待者以及 JVM 自身的死锁报告，找出每个线程都在等待下一个线程所持有的锁（monitor 或 j.u.c）的环。"),
		Why: finding.T("Each thread holds a lock the next one needs; none can proceed, and every other thread that touches these locks will hang too until the JVM restarts.",
			"每个线程都持有下一个线程需要的锁，谁也无法继续；之后任何访问这些锁的线程也会一直挂起，直到 JVM 重启。"),
		Recommended: finding.T("Restart to recover; then fix the code: take the locks in one global order, or use tryLock with a timeout for j.u.c locks, and keep calls to other components out of synchronized blocks.",
			"先重启恢复服务；再修复代码：所有线程按同一全局顺序加锁，j.u.c 锁使用带超时的 tryLock，不要在 synchronized 块内调用其他组件。"),
		Risk:       finding.T("None from the diagnosis; the restart drops in-flight requests.", "诊断本身无风险；重启会中断正在处理的请求。"),
		Workload:   allLoads,
		Reads:      []string{"thread dump: locks held and waited for, the JVM's \"Found one Java-level deadlock\" section"},
		References: []string{refHangs, refThreadMX},
		Eval: func(in *DumpInput) []finding.Outcome {
			var out []finding.Outcome
			for _, dl := range in.R.Deadlocks {
				out = append(out, deadlockOutcome(in, dl))
			}
			return out
		},
	}
}

func deadlockOutcome(in *DumpInput, dl *Deadlock) finding.Outcome {
	o := finding.Outcome{Status: finding.Fail, Subject: strings.Join(dl.Names, " <-> ")}
	how := "detected from lock owners and waiters"
	howZH := "根据锁的持有者与等待者检测"
	switch {
	case dl.ReportedByJVM && dl.Detected:
		how, howZH = "also reported by the JVM", "JVM 也报告了该死锁"
	case dl.ReportedByJVM:
		how, howZH = "reported by the JVM", "由 JVM 报告"
	}
	o.Observed = finding.T(fmt.Sprintf("%d threads in a cycle (%s): %s", len(dl.Names), how, quoteNames(dl.Names, 6)),
		fmt.Sprintf("%d 个线程形成环（%s）：%s", len(dl.Names), howZH, quoteNames(dl.Names, 6)))
	for i, n := range dl.Names {
		next := dl.Names[(i+1)%len(dl.Names)]
		v := quoteName(n) + " waits for "
		if i < len(dl.Locks) {
			v += dl.Locks[i].String()
		}
		v += " held by " + quoteName(next)
		if i < len(dl.Threads) {
			if fr := firstAppFrame(dl.Threads[i]); fr.Method != "" {
				v += " at " + fr.String()
			}
		}
		o.Evidence = append(o.Evidence, in.ev("thread", v))
	}
	return o
}

// culpritRule is the rule of one fingerprint: its texts and fix are the
// table's data; the condition is that the analysis attributed a group of
// threads to it.
func culpritRule(fp *Fingerprint) finding.Rule[*DumpInput] {
	reads := []string{"thread dump: thread stacks and states"}
	if fp.Kind == KindLock {
		reads = []string{"thread dump: thread stacks and states, locks with their owners and waiters"}
	}
	return finding.Rule[*DumpInput]{
		ID: "threaddump." + fp.ID, Category: Category, Severity: finding.Warning,
		Title: fp.Title, Checks: fingerprintChecks(fp), Why: fp.Why, Recommended: fp.Recommended, Risk: fp.Risk,
		Fix:        finding.Fix{Apply: fp.Apply, Revert: fp.Revert, Note: fixNote(fp)},
		Workload:   underLoad,
		Reads:      reads,
		References: fp.Refs,
		Eval: func(in *DumpInput) []finding.Outcome {
			var out []finding.Outcome
			for _, c := range in.R.Culprits {
				if c.FP == fp {
					out = append(out, culpritOutcome(in, c))
				}
			}
			return out
		},
	}
}

// fingerprintChecks says in one sentence what a fingerprint matches.
func fingerprintChecks(fp *Fingerprint) finding.Text {
	var what finding.Text
	switch {
	case fp == fpAppLock:
		what = finding.T("threads waiting for one lock that no library fingerprint explains (idle pool workers not counted)", "等待同一把锁、且无法归因到已知类库的线程（不计空闲线程池线程）")
	case fp == fpSocketRead:
		what = finding.T("RUNNABLE threads whose top frame is a socket read; the client library below names the downstream", "栈顶为 Socket 读取的 RUNNABLE 线程；其下方的客户端库指出下游")
	case len(fp.Frames) > 0:
		what = finding.Tf(finding.T("threads waiting in %s frames (%s)", "在 %s 的栈帧（%s）中等待的线程"), fp.Library, fp.Frames[0])
	default:
		what = finding.Tf(finding.T("threads waiting for a lock of class %s", "等待 %s 类锁的线程"), strings.Join(fp.LockClasses, ", "))
	}
	return finding.Tf(finding.T("Groups %s: reported from %d threads; critical from %.0f %% of working threads and 5 threads.",
		"归组%s：%d 个线程起报告；占工作线程 %.0f%% 且至少 5 个线程时为严重。"), what, fp.MinThreads, 100*fp.Severe)
}

// culpritSubject names what a culprit's threads wait for: the lock, the
// downstream, or the library.
func culpritSubject(c *Culprit) string {
	switch {
	case c.Lock != nil:
		return c.Lock.Ref.Class + "@" + c.Lock.Ref.Addr
	case c.FP == fpSocketRead:
		return c.Downstream
	}
	return c.FP.Library
}

func culpritOutcome(in *DumpInput, c *Culprit) finding.Outcome {
	r, fp := in.R, c.FP
	o := finding.Outcome{Status: finding.Fail, Subject: culpritSubject(c), Confidence: 0.9}
	if c.Share >= fp.Severe && len(c.Threads) >= 5 {
		o = o.WithSeverity(finding.Critical)
	}
	if fp == fpAppLock || fp == fpSocketRead {
		o.Confidence = 0.8
	}
	n := len(c.Threads)
	pct := 100 * c.Share
	var en, zh string
	switch {
	case c.Lock != nil:
		holder, holderZH := "no thread shows it as held", "没有线程显示持有该锁"
		if c.Holder != nil {
			holder = "held by " + quoteName(c.Holder.Name) + ", " + describe(c.Holder, finding.EN)
			holderZH = "持有者 " + quoteName(c.Holder.Name) + "，" + describe(c.Holder, finding.ZH)
			if c.caughtTaking() {
				holder += " (caught in the instant it took the lock)"
				holderZH += "（转储恰好发生在它刚拿到锁的瞬间）"
			}
		} else if c.Lock.BetweenOwners(r.Dump) {
			holder, holderZH = "no owner at the instant of the dump: the lock was changing hands", "转储时刻无持有者：锁正在交接"
		} else if c.Lock.Kind == "juc" && r.Dump != nil && !r.Dump.HasOwnable {
			holder += " (dump taken without -l: j.u.c owners are not printed)"
			holderZH += "（转储未使用 -l 参数：不会打印 j.u.c 锁的持有者）"
		}
		en = fmt.Sprintf("%d threads (%.0f%% of working threads) wait for %s; %s", n, pct, c.Lock.Ref.String(), holder)
		zh = fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在等待 %s；%s", n, pct, c.Lock.Ref.String(), holderZH)
		if a := c.HolderActivity; a.IO() || a == ActSleep {
			en += ": " + a.Text().EN + " while holding the lock"
			zh += "：持有锁期间" + a.Text().ZH
		}
		if fp == fpAppLock {
			if adv, ok := c.HolderActivity.lockAdvice(); ok {
				o.Recommended = adv
			}
			what, whatZH := c.Lock.Ref.Class, c.Lock.Ref.Class
			if c.Frame.Method != "" {
				what = c.Frame.Method + " on " + what
				whatZH = c.Frame.Method + "，锁对象 " + whatZH
			}
			o.Title = finding.T(fp.Title.EN+": "+what, fp.Title.ZH+"："+whatZH)
		}
	case fp == fpSocketRead:
		ds := ""
		if c.Downstream != "" {
			ds = " (" + c.Downstream + ")"
		}
		en = fmt.Sprintf("%d threads (%.0f%% of working threads) are in a socket read%s, waiting for a downstream (its address is not in a dump: see the live connections)", n, pct, ds)
		zh = fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）停在 Socket 读取中%s，在等待下游（转储中没有远端地址：请查看存活连接）", n, pct, ds)
	default:
		en = fmt.Sprintf("%d threads (%.0f%% of working threads) wait in %s", n, pct, c.Frame.Method)
		zh = fmt.Sprintf("%d 个线程（占工作线程的 %.0f%%）在 %s 处等待", n, pct, c.Frame.Method)
	}
	o.Observed = finding.T(en, zh)
	ev := func(k, v string) { o.Evidence = append(o.Evidence, in.ev(k, v)) }
	ev("threads", strconv.Itoa(n))
	ev("share_of_working_threads", fmt.Sprintf("%.1f%%", pct))
	if c.Lock != nil {
		ev("lock", c.Lock.Ref.String()+" "+c.Lock.Kind)
	}
	if c.Frame.Method != "" {
		ev("waiting_at", c.Frame.String())
	}
	if c.Holder != nil {
		ev("holder", quoteName(c.Holder.Name)+" "+describe(c.Holder, finding.EN))
		if c.HolderFrame.Method != "" {
			ev("holder_frame", c.HolderFrame.String())
		}
		if c.HolderActivity != ActNone {
			ev("holder_activity", string(c.HolderActivity))
		}
	}
	ev("sample_threads", quoteNames(threadNames(c.Threads), 5))
	return o
}

func shareRule() finding.Rule[*DumpInput] {
	return finding.Rule[*DumpInput]{
		ID: "threaddump.blocked-share", Category: Category, Severity: finding.Warning,
		Title: finding.T("Share of working threads blocked or waiting", "工作线程中阻塞或等待的比例"),
		Checks: finding.Tf(finding.T("Share of working threads (idle pool workers excluded) that are BLOCKED or WAITING: warning from %.0f %% with %d or more working threads, critical from %.0f %% when some are BLOCKED.",
			"工作线程（不含空闲线程池线程）中处于 BLOCKED 或 WAITING 的比例：工作线程不少于 %[2]d 个时，%.0[1]f%% 起为警告；%.0[3]f%% 起且有 BLOCKED 线程时为严重。"),
			100*shareWarn, minActive, 100*shareCritical),
		Why: finding.T("Threads that wait for locks, connections or other threads do not use the CPU: a high share with low CPU use means the service is limited by contention, not by hardware. Idle pool threads waiting for work are not counted: they inflate the figure without meaning anything.",
			"等待锁、连接或其他线程的线程不占用 CPU：该比例高而 CPU 利用率低，说明服务受限于锁竞争而不是硬件。等待任务的空闲线程池线程不计入：它们只会虚增比例，不代表问题。"),
		Risk:       finding.T("None: a reading.", "无：仅为读数。"),
		Workload:   finding.T("services under load", "负载下的服务"),
		Reads:      []string{"thread dump: thread states, idle pool workers"},
		References: []string{"java.lang.Thread.State (Oracle, Java SE API documentation)", refHangs},
		Eval: func(in *DumpInput) []finding.Outcome {
			r := in.R
			// An indicator, not a cause: below the findings that name what threads wait for.
			o := finding.Outcome{Status: finding.Pass, Confidence: 0.75}
			o.Recommended = finding.T("Look at the lock and pool findings for this dump: they name what the threads wait for.", "查看本转储的锁与连接池相关发现：它们指出线程在等待什么。")
			pct := 100 * r.BlockedWaitingShare
			o.Observed = finding.T(
				fmt.Sprintf("%.2f%% of %d working threads are blocked or waiting (%d BLOCKED, %d WAITING/TIMED_WAITING); %d idle pool threads not counted (%.2f%% counting them)",
					pct, r.Active, r.Blocked, r.Waiting, r.Idle, 100*r.RawBlockedWaitingShare),
				fmt.Sprintf("%d 个工作线程中 %.2f%% 处于阻塞或等待（BLOCKED %d 个，WAITING/TIMED_WAITING %d 个）；另有 %d 个空闲线程池线程未计入（计入则为 %.2f%%）",
					r.Active, pct, r.Blocked, r.Waiting, r.Idle, 100*r.RawBlockedWaitingShare))
			ev := func(k, v string) { o.Evidence = append(o.Evidence, in.ev(k, v)) }
			ev("java_threads", strconv.Itoa(r.Java))
			ev("idle_threads", strconv.Itoa(r.Idle))
			ev("working_threads", strconv.Itoa(r.Active))
			ev("blocked", strconv.Itoa(r.Blocked))
			ev("waiting", strconv.Itoa(r.Waiting))
			ev("blocked_waiting_share", fmt.Sprintf("%.2f%%", pct))
			ev("share_including_idle", fmt.Sprintf("%.2f%%", 100*r.RawBlockedWaitingShare))
			if r.Active >= minActive && r.BlockedWaitingShare >= shareWarn {
				o.Status = finding.Fail
				if r.BlockedWaitingShare >= shareCritical && r.Blocked > 0 {
					o = o.WithSeverity(finding.Critical)
				}
			}
			return []finding.Outcome{o}
		},
	}
}

// ownableRule: j.u.c waiters in a dump without -l have unknown owners.
func ownableRule() finding.Rule[*DumpInput] {
	return finding.Rule[*DumpInput]{
		ID: "threaddump.no-ownable", Category: Category, Severity: finding.Info,
		Title:  finding.T("j.u.c lock owners unknown: dump taken without -l", "j.u.c 锁持有者未知：转储未使用 -l 参数"),
		Checks: finding.T("HotSpot dumps without \"Locked ownable synchronizers\" in which threads wait for j.u.c locks whose owner is therefore not shown.", "未包含 \"Locked ownable synchronizers\" 的 HotSpot 转储中，有线程在等待 j.u.c 锁而其持有者因此无法显示。"),
		Why: finding.T("Only jstack -l / jcmd Thread.print -l print \"Locked ownable synchronizers\", the one place ReentrantLock owners appear; without them lock contention and deadlocks on j.u.c locks cannot be traced to a holder.",
			"只有 jstack -l / jcmd Thread.print -l 会打印 \"Locked ownable synchronizers\"，这是 ReentrantLock 持有者出现的唯一位置；没有它就无法把 j.u.c 锁竞争和死锁追溯到持有者。"),
		Recommended: finding.T("Take the next dumps with jcmd <pid> Thread.print -l -e (or jstack -l <pid>).", "后续转储请使用 jcmd <pid> Thread.print -l -e（或 jstack -l <pid>）。"),
		Risk:        finding.T("-l takes slightly longer at a safepoint on JVMs with very many threads.", "线程极多时，-l 会让安全点停顿略长。"),
		Fix:         finding.Fix{Apply: "jcmd <pid> Thread.print -l -e > dump.txt"},
		Workload:    allLoads,
		Reads:       []string{"thread dump: format, ownable synchronizers section, j.u.c locks and their waiters"},
		References:  []string{refJstackL},
		Eval: func(in *DumpInput) []finding.Outcome {
			r := in.R
			if r.Dump == nil || r.Dump.HasOwnable || r.Dump.Format != FormatHotSpot {
				return nil
			}
			n := 0
			for _, l := range r.Locks {
				if l.Kind == "juc" && l.Owner == nil {
					n += len(l.Waiters)
				}
			}
			if n == 0 {
				return nil
			}
			return []finding.Outcome{{Status: finding.Fail,
				Observed: finding.T(fmt.Sprintf("%d threads wait for j.u.c locks whose owner the dump does not show", n), fmt.Sprintf("%d 个线程在等待 j.u.c 锁，但转储中没有这些锁的持有者", n)),
				Evidence: []finding.Evidence{in.ev("juc_waiters_without_owner", strconv.Itoa(n))}}}
		},
	}
}

// describe says what a thread is doing: state, top frame, first application frame.
// describe says what t runs, in lang.
func describe(t *Thread, lang finding.Lang) string {
	l := Lock{Owner: t}
	return l.OwnerDoingIn(lang)
}

func firstAppFrame(t *Thread) Frame {
	st := t.Stack()
	for _, f := range st {
		if !isJDKFrame(f.Method) {
			return f
		}
	}
	if len(st) > 0 {
		return st[0]
	}
	return Frame{}
}

func threadNames(ts []*Thread) []string {
	out := make([]string, 0, min(len(ts), 10))
	for i, t := range ts {
		if i == 10 {
			break
		}
		out = append(out, t.Name)
	}
	return out
}

// quoteNames renders at most max names, then "and N more".
func quoteNames(ns []string, max int) string {
	var b strings.Builder
	for i, n := range ns {
		if i == max {
			fmt.Fprintf(&b, " +%d", len(ns)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteName(n))
	}
	return b.String()
}

// quoteName quotes a thread name for display: names come from the
// application and may hold quotes, newlines, escape sequences or invalid UTF-8.
func quoteName(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return `"` + finding.SafeLine(s) + `"`
}

// fixNote says where a fingerprint's lines go when the table gives no
// specific note: JVM options in the start command, anything else in the
// library's configuration file.
func fixNote(fp *Fingerprint) finding.Text {
	switch {
	case !fp.Note.IsZero():
		return fp.Note
	case fp.Apply == "":
		return finding.Text{}
	case strings.HasPrefix(fp.Apply, "JAVA_OPTS"):
		return finding.T("JVM option: change it where the service is started (start script, systemd unit, container spec), then restart.",
			"JVM 参数：在服务的启动参数中修改（启动脚本、systemd 单元、容器配置），然后重启。")
	}
	return finding.Tf(finding.T("Goes in the %s configuration (log4j.properties / log4j2.xml / logback.xml / application.properties); restart, or wait for the library's automatic reload if it is on. Revert restores the previous lines.",
		"写入 %s 的配置文件（log4j.properties / log4j2.xml / logback.xml / application.properties）；重启应用，或在开启自动重载时等待生效。回退即恢复原配置行。"), fp.Library)
}

// FindingsOver reports several dumps of one JVM taken over time (sources[i]
// names reports[i]'s file). Each problem is reported once, from the dump that
// shows it best, with how many of the dumps show it. One dump is an instant:
// it can catch a lock's holder in the microsecond after it took the lock,
// still BLOCKED and not yet in the I/O that makes the lock hot, so the dump
// whose holder is in a fingerprinted frame wins over a later one whose is not.
func FindingsOver(reports []*Report, sources []string) []finding.Finding {
	type pick struct {
		f       finding.Finding
		quality [5]int // compared in order, higher wins
		dumps   int
		acts    map[Activity]int // what the lock holder does, per dump
		lock    bool             // a lock culprit
		last    int              // the last dump counted
	}
	var order []string
	best := map[string]*pick{}
	for i, r := range reports {
		fs := Findings(r, sources[i])
		// The culprit behind each culprit finding, by the finding's key.
		culprit := map[string]*Culprit{}
		for _, c := range r.Culprits {
			f := finding.Finding{ID: c.ID, Subject: culpritSubject(c)}
			if k := f.Key(); culprit[k] == nil {
				culprit[k] = c
			}
		}
		for _, f := range fs {
			key := f.StableKey()
			c := culprit[f.Key()]
			// status, what the holder shows, severity, threads, recency
			q := [5]int{statusRank(f.Status), 0, int(f.Severity), 0, i}
			if c != nil {
				switch {
				case c.HolderConfirmed:
					q[1] = 2
				case c.Holder != nil && (c.Lock == nil || !c.Lock.JustTaken()):
					q[1] = 1
				}
				q[3] = len(c.Threads)
			}
			p := best[key]
			if p == nil {
				p = &pick{acts: map[Activity]int{}, last: -1}
				best[key] = p
				order = append(order, key)
			}
			// Two locks of one class in a dump share a key: the dump counts once.
			if first := p.last != i; first {
				p.last = i
				if c != nil && c.Lock != nil {
					p.lock = true
					if a := c.HolderActivity; a != ActNone {
						p.acts[a]++
					}
				}
				if f.Status == finding.Fail {
					p.dumps++
				}
			}
			if p.f.ID == "" || better(q, p.quality) {
				p.f, p.quality = f, q
			}
		}
	}
	out := make([]finding.Finding, 0, len(order))
	for _, k := range order {
		p := best[k]
		f := p.f
		if len(reports) >= 2 && f.Status == finding.Fail {
			f.Observed.EN += fmt.Sprintf(" (in %d of %d dumps)", p.dumps, len(reports))
			f.Observed.ZH += fmt.Sprintf("（%d 次转储中出现 %d 次）", len(reports), p.dumps)
			f.Evidence = append(f.Evidence, finding.Evidence{Key: "dumps_showing_it", Value: fmt.Sprintf("%d of %d", p.dumps, len(reports))})
			if p.lock {
				holderOverDumps(&f, p.acts, p.dumps)
			}
			if 2*p.dumps < len(reports) {
				// A passing moment, not the state of the service.
				f.Confidence *= 0.8
			}
		}
		out = append(out, f)
	}
	return out
}

// holderOverDumps says what a lock's holder did in each of the dumps that
// show the lock: a sample of its critical section (fsync in 3, a file write
// in 1), and the dumps where the lock was changing hands (no owner yet, or
// the new one caught in the handoff); it gives the advice for the I/O seen
// most.
func holderOverDumps(f *finding.Finding, acts map[Activity]int, dumps int) {
	as := make([]Activity, 0, len(acts))
	for a := range acts {
		as = append(as, a)
	}
	sort.Slice(as, func(i, j int) bool {
		if acts[as[i]] != acts[as[j]] {
			return acts[as[i]] > acts[as[j]]
		}
		return as[i] < as[j]
	})
	var ev, en, zh []string
	for _, a := range as {
		ev = append(ev, fmt.Sprintf("%s in %d", a, acts[a]))
		en = append(en, fmt.Sprintf("%s in %d", a.Text().EN, acts[a]))
		zh = append(zh, fmt.Sprintf("%s %d 次", a.Text().ZH, acts[a]))
	}
	seen := 0
	for _, n := range acts {
		seen += n
	}
	if n := dumps - seen; n > 0 {
		ev = append(ev, fmt.Sprintf("handoff in %d", n))
		en = append(en, fmt.Sprintf("the lock changing hands in %d", n))
		zh = append(zh, fmt.Sprintf("锁正在交接 %d 次", n))
	}
	f.Observed.EN += fmt.Sprintf("; the holder over those %d dumps: %s", dumps, strings.Join(en, ", "))
	f.Observed.ZH += fmt.Sprintf("；这 %d 次转储中持有者：%s", dumps, strings.Join(zh, "、"))
	if n := dumps - seen; 2*n > dumps && dumps >= 3 {
		f.Observed.EN += " (mostly changing hands: each release wakes a waiter that must first get a CPU, and the lock sits idle in between: a lock convoy)"
		f.Observed.ZH += "（多数时候锁正在交接：每次释放都要唤醒一个等待者，它要先等到 CPU，锁在两任持有者之间空闲：锁护航）"
	}
	evs := make([]finding.Evidence, 0, len(f.Evidence)+1)
	for _, e := range f.Evidence {
		if e.Key != "holder_activity" {
			evs = append(evs, e)
		}
	}
	f.Evidence = append(evs, finding.Evidence{Key: "holder_activity", Value: strings.Join(ev, ", ")})
	if f.ID == "threaddump."+fpAppLock.ID {
		for _, a := range as {
			if adv, ok := a.lockAdvice(); ok {
				f.Recommended = adv
				break
			}
		}
	}
}

func better(a, b [5]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

func statusRank(s finding.Status) int {
	if s == finding.Fail {
		return 1
	}
	return 0
}
