package threaddump

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Series is the analysis of several dumps of one JVM taken over time.
type Series struct {
	Reports []*Report `json:"-"`
	// Stuck are threads whose stack did not change across consecutive dumps.
	Stuck []StuckThread `json:"stuck"`
	// HotFrames is a sampling profile from the dumps: the top frames of
	// working RUNNABLE threads, most frequent first.
	HotFrames []HotFrame `json:"hot_frames"`
	// HotMethods counts the first application (non-JDK) frame of the same
	// stacks: where in the service's own code the time goes.
	HotMethods []HotFrame `json:"hot_methods"`
	// Samples is how many RUNNABLE working thread stacks HotFrames counts.
	Samples int `json:"samples"`
	// CPU joins the last dump's threads to the CPU they used since the dump
	// before, from the cpu= field (JDK 11+); empty when not printed.
	CPU []ThreadCPU `json:"cpu,omitempty"`
}

// StuckThread is one thread seen with the same stack in Dumps consecutive dumps.
type StuckThread struct {
	Name   string  `json:"name"`
	ID     int64   `json:"id,omitempty"`
	State  State   `json:"state"`
	Top    Frame   `json:"top"`
	App    Frame   `json:"app_frame"`
	Dumps  int     `json:"dumps"`
	Thread *Thread `json:"-"` // as seen in the last dump of the streak
	// SpanSec is the time between the first and last dump of the streak
	// (-1 when the dumps carry no timestamps); CPUGainedMs the CPU the
	// thread used meanwhile, from cpu= (-1 when not printed).
	SpanSec     float64 `json:"span_s"`
	CPUGainedMs float64 `json:"cpu_gained_ms"`
	// Confirmed: no progress is shown, not only an unchanged stack: dumps
	// at least a second apart and no CPU time gained.
	Confirmed bool `json:"confirmed"`
}

// stuckCPUMillis is the CPU a thread may gain over a streak and still be
// making no progress: a parked thread gains 0.00 ms, a timed wait's
// wake-ups a few hundredths.
const stuckCPUMillis = 0.5

// dumpTime parses a dump's timestamp (jstack's local time or the JSON
// dump's RFC 3339).
func dumpTime(d *Dump) (time.Time, bool) {
	layout := "2006-01-02 15:04:05"
	if strings.Contains(d.Time, "T") {
		layout = time.RFC3339Nano
	}
	t, err := time.Parse(layout, d.Time)
	return t, err == nil
}

// HotFrame counts one frame at the top of RUNNABLE stacks.
type HotFrame struct {
	Frame Frame   `json:"frame"`
	Count int     `json:"count"`
	Share float64 `json:"share"`
}

// AnalyzeSeries analyses each dump and what persists between them.
func AnalyzeSeries(dumps []*Dump) *Series {
	rs := make([]*Report, 0, len(dumps))
	for _, d := range dumps {
		rs = append(rs, Analyze(d))
	}
	return NewSeries(rs)
}

// NewSeries builds the series analysis from reports already computed, in dump order.
func NewSeries(reports []*Report) *Series {
	s := &Series{Reports: reports}
	s.stuck()
	s.hot()
	if n := len(reports); n >= 2 {
		a, b := reports[n-2].Dump, reports[n-1].Dump
		if a.PID == b.PID {
			s.CPU = Join(b, CPUDelta(a, b))
		}
	}
	return s
}

// threadKey follows a thread from dump to dump: Java id and name (ids are
// reused after a thread dies; names alone repeat across pools).
func threadKey(t *Thread) string {
	return strconv.FormatInt(t.ID, 10) + "\x00" + strconv.FormatInt(t.NativeID, 10) + "\x00" + t.Name
}

func sameStack(a, b []Frame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Method != b[i].Method || a[i].Source != b[i].Source {
			return false
		}
	}
	return true
}

func (s *Series) stuck() {
	if len(s.Reports) < 2 {
		return
	}
	type run struct {
		t, first    *Thread
		from, to, n int  // dumps of the streak
		last        bool // the streak reaches the last dump
	}
	runs := map[string]*run{}
	best := map[string]*run{}
	var prevWaits map[*Thread]*Lock
	for di, r := range s.Reports {
		next := map[string]*run{}
		waits := waitsFor(r)
		// Threads queueing for busy servers (a pool, permit holders, a
		// consumer) wait for others' progress: the wait finding says so.
		served := map[*Thread]bool{}
		for _, g := range r.Waits {
			if g.Busy > 0 {
				for _, w := range g.Waiters {
					served[w] = true
				}
			}
		}
		for _, t := range r.Dump.Threads {
			if t.State == StateNone || r.IsIdle(t) || len(t.Stack()) == 0 || served[t] {
				continue
			}
			k := threadKey(t)
			if p := runs[k]; p != nil && p.t.State == t.State && sameStack(p.t.Stack(), t.Stack()) && !queueMoved(prevWaits[p.t], waits[t]) {
				next[k] = &run{t: t, first: p.first, from: p.from, to: di, n: p.n + 1}
			} else {
				next[k] = &run{t: t, first: t, from: di, to: di, n: 1}
			}
			if b := best[k]; next[k].n >= 2 && (b == nil || next[k].n >= b.n) {
				best[k] = next[k]
			}
		}
		runs, prevWaits = next, waits
	}
	for _, r := range runs {
		r.last = true
	}
	for _, b := range best {
		// A RUNNABLE thread on the same line in two dumps is usually a hot
		// path sampled twice; it takes three, and still there in the last
		// dump: a busy consumer shows its hottest frame a few dumps in a row
		// and moves on, a loop that never ends does not.
		if b.t.State == StateRunnable && (b.n < 3 || !b.last) {
			continue
		}
		st := StuckThread{Name: b.t.Name, ID: b.t.ID, State: b.t.State, Top: b.t.Top(), App: firstAppFrame(b.t), Dumps: b.n, Thread: b.t, SpanSec: -1, CPUGainedMs: -1}
		t0, ok0 := dumpTime(s.Reports[b.from].Dump)
		t1, ok1 := dumpTime(s.Reports[b.to].Dump)
		if ok0 && ok1 {
			st.SpanSec = t1.Sub(t0).Seconds()
		}
		if b.first.CPUMillis >= 0 && b.t.CPUMillis >= 0 {
			st.CPUGainedMs = b.t.CPUMillis - b.first.CPUMillis
		}
		if st.CPUGainedMs > stuckCPUMillis {
			continue // it ran between the dumps: the same wait again, not the same one
		}
		st.Confirmed = st.SpanSec >= 1 && st.CPUGainedMs >= 0
		s.Stuck = append(s.Stuck, st)
	}
	sort.Slice(s.Stuck, func(i, j int) bool {
		a, b := s.Stuck[i], s.Stuck[j]
		if a.Confirmed != b.Confirmed {
			return a.Confirmed
		}
		if a.Dumps != b.Dumps {
			return a.Dumps > b.Dumps
		}
		return a.Name < b.Name
	})
}

// waitsFor maps each thread waiting to acquire a lock to the lock.
func waitsFor(r *Report) map[*Thread]*Lock {
	m := map[*Thread]*Lock{}
	for _, l := range r.Locks {
		for _, w := range l.Waiters {
			m[w] = l
		}
	}
	return m
}

// queueMoved: the same stack in two dumps, but the lock it waits for changed
// hands in between, or it waits in one dump and has just taken the lock in
// the other (HotSpot shows a new owner BLOCKED for an instant): it queues
// behind a lock that serves others (the lock finding says so), not stuck.
func queueMoved(a, b *Lock) bool {
	if (a == nil) != (b == nil) {
		return true
	}
	return a != nil && a.Ref.Key() == b.Ref.Key() && a.Owner != nil && b.Owner != nil && threadKey(a.Owner) != threadKey(b.Owner)
}

func (s *Series) hot() {
	n := map[Frame]int{}
	app := map[Frame]int{}
	for _, r := range s.Reports {
		for _, t := range r.Dump.Threads {
			if t.State != StateRunnable || r.IsIdle(t) {
				continue
			}
			if t.Carrying != 0 && len(t.MountedFrames) == 0 {
				continue // JSON dumps list the mounted virtual thread on its own
			}
			st := t.Stack()
			if len(st) == 0 {
				continue
			}
			s.Samples++
			n[st[0]]++
			for _, f := range st {
				if !isJDKFrame(f.Method) {
					app[f]++
					break
				}
			}
		}
	}
	s.HotMethods = rankFrames(app, s.Samples)
	s.HotFrames = rankFrames(n, s.Samples)
}

func rankFrames(n map[Frame]int, samples int) []HotFrame {
	var out []HotFrame
	for f, c := range n {
		out = append(out, HotFrame{Frame: f, Count: c, Share: float64(c) / float64(samples)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Frame.String() < b.Frame.String()
	})
	return out
}

// ThreadCPU is a dump thread joined to its CPU use by native id.
type ThreadCPU struct {
	Thread     *Thread `json:"-"`
	Name       string  `json:"name"`
	NativeID   int64   `json:"native_id"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Top        Frame   `json:"top"`
}

// Join matches dump threads to per-thread CPU seconds keyed by OS thread id
// (from /proc/PID/task/TID/stat, top -H or pidstat -t; the nid in the dump is
// that id), most CPU first. Threads without a native id or not in cpu are left out.
func Join(d *Dump, cpu map[int64]float64) []ThreadCPU {
	var out []ThreadCPU
	for _, t := range d.Threads {
		if t.NativeID == 0 {
			continue
		}
		c, ok := cpu[t.NativeID]
		if !ok {
			continue
		}
		out = append(out, ThreadCPU{Thread: t, Name: t.Name, NativeID: t.NativeID, CPUSeconds: c, Top: t.Top()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CPUSeconds > out[j].CPUSeconds })
	return out
}

// CPUDelta derives per-thread CPU seconds between two dumps of one JVM from
// the cpu= field (JDK 11+), keyed by native id, for Join without a recorder.
func CPUDelta(prev, cur *Dump) map[int64]float64 {
	before := map[int64]float64{}
	for _, t := range prev.Threads {
		if t.NativeID != 0 && t.CPUMillis >= 0 {
			before[t.NativeID] = t.CPUMillis
		}
	}
	out := map[int64]float64{}
	for _, t := range cur.Threads {
		if t.NativeID == 0 || t.CPUMillis < 0 {
			continue
		}
		if b, ok := before[t.NativeID]; ok && t.CPUMillis >= b {
			out[t.NativeID] = (t.CPUMillis - b) / 1000
		} else if !ok {
			out[t.NativeID] = t.CPUMillis / 1000 // new thread: all its CPU is in the interval
		}
	}
	return out
}

// SeriesInput is what the across-dumps rules read: the series of one JVM's
// dumps and the inputs it came from ("a.txt, b.txt").
type SeriesInput struct {
	S      *Series
	Source string
}

// SeriesRules lists the rules over several dumps of one JVM.
func SeriesRules() []finding.Rule[*SeriesInput] {
	return []finding.Rule[*SeriesInput]{
		{
			ID: "threaddump.stuck", Category: Category, Severity: finding.Warning,
			Title:  finding.T("Threads stuck in the same place across dumps", "多次转储中线程停在同一位置"),
			Checks: finding.T("Working threads with the same stack in consecutive dumps: stuck (warning; critical over every dump of three or more) only when they gained no CPU time (cpu=) over dumps at least 1 s apart, else a reading.", "在连续转储中堆栈相同的工作线程：只有在间隔至少 1 秒的转储之间未消耗 CPU 时间（cpu=）时才判为停滞（警告；三次及以上转储中全部出现为严重），否则仅为读数。"),
			Why: finding.T("A thread with the same stack and no CPU time gained in dumps taken seconds apart is not making progress: a long lock wait, a call without a timeout, a wait for work that never comes.",
				"间隔数秒的多次转储中堆栈相同且没有消耗 CPU 时间的线程没有进展：长时间等锁、没有超时的调用，或等待永远不会到来的任务。"),
			Recommended: finding.T("Look at the application frame of each stuck thread; add timeouts to remote calls and lock acquisitions (tryLock, socket/read timeouts).",
				"查看每个停滞线程的应用帧；为远程调用和加锁增加超时（tryLock、socket/read 超时）。"),
			Risk:       finding.T("None: a reading.", "无：仅为读数。"),
			Workload:   finding.T("all", "所有负载"),
			Reads:      []string{"thread dumps over time: stacks, states, cpu= and timestamps of each thread"},
			References: []string{refHangs},
			Eval: func(in *SeriesInput) []finding.Outcome {
				if len(in.S.Reports) < 2 || len(in.S.Stuck) == 0 {
					return nil
				}
				return []finding.Outcome{stuckOutcome(in.S, in.Source)}
			},
		},
		{
			ID: "threaddump.hot-frames", Category: Category, Severity: finding.Info,
			Title:  finding.T("Where RUNNABLE threads are (a sampling profile from the dumps)", "RUNNABLE 线程所在位置（基于转储的采样剖析）"),
			Checks: finding.T("Counts the top frames of RUNNABLE threads over the dumps: a coarse sampling profile (a reading, never a failure).", "统计各次转储中 RUNNABLE 线程的栈顶方法：粗略的采样剖析（仅为读数，不会判为不通过）。"),
			Why: finding.T("Frames that keep showing at the top of running threads are where CPU time goes; a few dumps are a coarse profile, a profiler (async-profiler) a precise one.",
				"反复出现在运行线程栈顶的方法就是 CPU 时间的去向；少量转储只是粗略剖析，精确剖析请用 async-profiler。"),
			Risk:       finding.T("None: a reading.", "无：仅为读数。"),
			Workload:   finding.T("CPU-bound services", "CPU 密集型服务"),
			Reads:      []string{"thread dumps over time: top frames of RUNNABLE threads"},
			References: []string{refHangs, "async-profiler README (github.com/async-profiler/async-profiler)"},
			Eval: func(in *SeriesInput) []finding.Outcome {
				s := in.S
				if s.Samples <= 0 || len(s.HotFrames) == 0 {
					return nil
				}
				o := finding.Outcome{Status: finding.Pass, Confidence: 0.6,
					Observed: finding.T(fmt.Sprintf("%d RUNNABLE stacks in %d dumps; top frame %s in %.0f%%", s.Samples, len(s.Reports), s.HotFrames[0].Frame.String(), 100*s.HotFrames[0].Share),
						fmt.Sprintf("%d 次转储中共 %d 个 RUNNABLE 堆栈；最常见的栈顶 %s 占 %.0f%%", len(s.Reports), s.Samples, s.HotFrames[0].Frame.String(), 100*s.HotFrames[0].Share)),
					Recommended: finding.T("Optimise or cache the hottest frames; confirm with async-profiler before changing code.", "优化或缓存最热的方法；改代码前先用 async-profiler 确认。"),
				}
				for i, h := range s.HotFrames {
					if i == 10 {
						break
					}
					o.Evidence = append(o.Evidence, finding.Evidence{Key: "frame", Value: fmt.Sprintf("%d (%.0f%%) %s", h.Count, 100*h.Share, h.Frame.String()), Source: in.Source})
				}
				return []finding.Outcome{o}
			},
		},
	}
}

// SeriesFindings reports what persists across dumps, ranked; source names
// the file.
func SeriesFindings(s *Series, source string) []finding.Finding {
	return finding.Evaluate(SeriesRules(), &SeriesInput{S: s, Source: source})
}

// TimeOrder is the order of ds by their timestamps; nil when a dump has none
// or they are not all of one kind (jstack's local "2026-11-22 03:59:51", the
// JSON dump's UTC time). jstack's second resolution leaves ties, ordered by
// source with numbers compared as numbers, then line: dumps named dump1 to
// dump10 arrive from a shell glob as dump1, dump10, dump2.
func TimeOrder(ds []*Dump) []int {
	ts := make([]time.Time, len(ds))
	kind := ""
	for i, d := range ds {
		k, layout := "text", "2006-01-02 15:04:05"
		if strings.Contains(d.Time, "T") {
			k, layout = "iso", time.RFC3339Nano
		}
		t, err := time.Parse(layout, d.Time)
		if err != nil || (kind != "" && k != kind) {
			return nil
		}
		kind, ts[i] = k, t
	}
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if !ts[i].Equal(ts[j]) {
			return ts[i].Before(ts[j])
		}
		if c := naturalCompare(ds[i].Source, ds[j].Source); c != 0 {
			return c < 0
		}
		return ds[i].Line < ds[j].Line
	})
	return idx
}

// naturalCompare compares strings with digit runs as numbers: d2 < d10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return cmpInt(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmpInt(int(a[0]), int(b[0]))
		}
		a, b = a[1:], b[1:]
	}
	return cmpInt(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// stuckOutcome reports threads with an unchanged stack: stuck (warning,
// critical over every dump of three or more) only with evidence of no
// progress, else a reading that says what evidence is missing.
func stuckOutcome(s *Series, source string) finding.Outcome {
	var confirmed, unconfirmed []StuckThread
	for _, st := range s.Stuck {
		if st.Confirmed {
			confirmed = append(confirmed, st)
		} else {
			unconfirmed = append(unconfirmed, st)
		}
	}
	f := finding.Outcome{Status: finding.Fail, Confidence: 0.8}
	list := confirmed
	if len(confirmed) > 0 {
		f.Observed = finding.T(fmt.Sprintf("%d working threads have the same stack and gained no CPU time over %d or more consecutive dumps at least 1 s apart (of %d)", len(confirmed), 2, len(s.Reports)),
			fmt.Sprintf("%d 个工作线程在连续 %d 次及以上、间隔至少 1 秒的转储中堆栈不变且未消耗 CPU 时间（共 %d 次转储）", len(confirmed), 2, len(s.Reports)))
		if confirmed[0].Dumps == len(s.Reports) && len(s.Reports) >= 3 {
			f = f.WithSeverity(finding.Critical)
		}
	} else {
		list = unconfirmed
		why, whyZH := "no CPU data (cpu= is printed from JDK 11)", "没有 CPU 数据（JDK 11 起才打印 cpu=）"
		if unconfirmed[0].CPUGainedMs >= 0 {
			why, whyZH = "the dumps are less than 1 s apart or carry no timestamps", "转储间隔不足 1 秒或没有时间戳"
		}
		f.Status, f.Confidence = finding.Pass, 0.5
		f.Title = finding.T("Same stack across dumps, no evidence of no progress", "多次转储中堆栈相同，但无证据表明没有进展")
		f.Observed = finding.T(fmt.Sprintf("%d working threads have the same stack in consecutive dumps (of %d); same stack, %s: not evidence that they are stuck", len(unconfirmed), len(s.Reports), why),
			fmt.Sprintf("%d 个工作线程在连续转储中堆栈相同（共 %d 次转储）；堆栈相同，但%s：不能证明它们停滞", len(unconfirmed), len(s.Reports), whyZH))
		f.Recommended = finding.T("Take dumps a few seconds apart with jcmd <pid> Thread.print -l -e (JDK 11+ prints each thread's cpu=).", "间隔数秒用 jcmd <pid> Thread.print -l -e 采集转储（JDK 11 起会打印每个线程的 cpu=）。")
	}
	for i, st := range list {
		if i == 10 {
			break
		}
		v := fmt.Sprintf("%s %s in %d dumps at %s (%s)", quoteName(st.Name), st.State, st.Dumps, safeFrame(st.Top), safeFrame(st.App))
		if st.SpanSec >= 0 {
			v += fmt.Sprintf(", over %.0f s", st.SpanSec)
		}
		if st.CPUGainedMs >= 0 {
			v += fmt.Sprintf(", cpu gained %.2f ms", st.CPUGainedMs)
		}
		f.Evidence = append(f.Evidence, finding.Evidence{Key: "thread", Value: v, Source: source})
	}
	if len(confirmed) > 0 && len(unconfirmed) > 0 {
		f.Evidence = append(f.Evidence, finding.Evidence{Key: "same_stack_without_evidence", Value: strconv.Itoa(len(unconfirmed)), Source: source})
	}
	return f
}
