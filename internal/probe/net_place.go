// Where the two ends of a loopback network figure run. On few CPUs the
// scheduler's placement of the prober and the listener is part of what a
// loopback figure measures: on one CPU a round trip is two context
// switches and the data stays in that CPU's cache; on two it is a wake-up
// of the other CPU (an IPI, dear under some hypervisors) and a copy
// between caches. qperf pins its ends with -lca/-rca; so does --cpu and
// --peer-cpu here, and an unpinned probe says where its ends ran.

package probe

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// CPUPin pins the threads that move a figure's bytes to one CPU (qperf's
// -lca and -rca). The zero value pins nothing.
type CPUPin struct {
	On  bool
	CPU int
}

// Pin is CPU cpu.
func Pin(cpu int) CPUPin { return CPUPin{On: true, CPU: cpu} }

func (c CPUPin) String() string {
	if !c.On {
		return "-"
	}
	return strconv.Itoa(c.CPU)
}

// Check: the CPU is one this process may run on.
func (c CPUPin) Check() error {
	if !c.On {
		return nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return err
	}
	if c.CPU < 0 || c.CPU >= len(set)*64 || !set.IsSet(c.CPU) {
		return finding.Errorf(finding.T("not a CPU this process may run on (%d usable)", "不是本进程可用的 CPU（可用 %d 个）"), set.Count())
	}
	return nil
}

// pinThread locks the calling goroutine to its thread and pins that
// thread to c's CPU (when c is on); release puts the affinity back, then
// unlocks. On error the thread is already released.
func pinThread(c CPUPin) (release func(), err error) {
	runtime.LockOSThread()
	if !c.On {
		return runtime.UnlockOSThread, nil
	}
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	set.Set(c.CPU)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return nil, finding.Errorf(finding.T("cannot pin to CPU %d: %v", "无法绑定到 CPU %d：%v"), c.CPU, err)
	}
	return func() { unix.SchedSetaffinity(0, &old); runtime.UnlockOSThread() }, nil
}

// getcpu is the CPU the calling thread runs on now (-1 if unknown).
func getcpu() int {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return -1
	}
	return int(cpu)
}

// ends is where a figure's two ends ran: the prober's measuring thread's
// CPU when it marks the round's end, the listener's thread serving it (as
// its "ok" names it) and, through onMark, that thread's CPU. The mark is
// taken while the listener still serves (a latency figure before its
// connection closes, tcp_bw before the prober shuts its side down): after
// that the listener's thread is unpinned and may move.
type ends struct {
	cpu, peerTid atomic.Int32
	marked       atomic.Bool // this round's ends are read (the first mark counts)
	onMark       func()
}

func (e *ends) mark() {
	if e.marked.Swap(true) {
		return
	}
	e.cpu.Store(int32(getcpu()))
	if e.onMark != nil {
		e.onMark()
	}
}

// placer reads where a local listener's serving thread last ran, to tell
// whether prober and listener shared a CPU at a round's end.
type placer struct {
	task    string // /proc/PID/task of the listener (ours when in-process)
	pr      *ends
	peerCPU int // at the prober's mark; -1 unknown
}

// newPlacer watches the listener's threads under task for the client's
// figures.
func newPlacer(task string, cl *client) *placer {
	p := &placer{task: task, pr: &cl.ends, peerCPU: -1}
	cl.ends.onMark = func() {
		p.peerCPU = -1
		if tid := cl.ends.peerTid.Load(); tid > 0 {
			if b, err := os.ReadFile(filepath.Join(p.task, strconv.Itoa(int(tid)), "stat")); err == nil {
				if st, err := sample.ParsePidStat(b); err == nil {
					p.peerCPU = int(st.CPU)
				}
			}
		}
	}
	return p
}

// start is called before a round.
func (p *placer) start() { p.peerCPU = -1 }

// same says whether the two ends were on one CPU when the round ended: 1
// yes, 0 no, -1 unknown (a listener that names no thread, a kernel that
// does not say).
func (p *placer) same() int {
	pc := int(p.pr.cpu.Load())
	switch {
	case pc < 0 || p.peerCPU < 0:
		return -1
	case pc == p.peerCPU:
		return 1
	}
	return 0
}

// Placement is how often, in a loopback figure's rounds, the prober and
// the listener were found on one CPU at a round's end.
type Placement struct {
	Rounds  int `json:"rounds"`
	SameCPU int `json:"same_cpu"`
}

// Text: "prober and listener on one CPU at the end of 5 of 7 rounds".
func (p *Placement) Text() finding.Text {
	if p == nil || p.Rounds == 0 {
		return finding.Text{}
	}
	return finding.T(fmt.Sprintf("prober and listener on one CPU at the end of %d of %d rounds", p.SameCPU, p.Rounds),
		fmt.Sprintf("%d/%d 轮结束时探测端与监听端在同一 CPU 上", p.SameCPU, p.Rounds))
}

// PlacementText says where the network figures' two ends ran: the CPUs
// they were pinned to, or how often an unpinned pair shared one.
func (r *Result) PlacementText() finding.Text {
	cpu := func(c *int) string {
		if c == nil {
			return "-"
		}
		return strconv.Itoa(*c)
	}
	switch {
	case r.ProberCPU != nil && r.ListenerCPU != nil:
		return finding.T(fmt.Sprintf("pinned: prober CPU %s, listener CPU %s", cpu(r.ProberCPU), cpu(r.ListenerCPU)),
			fmt.Sprintf("已绑定：探测端 CPU %s，监听端 CPU %s", cpu(r.ProberCPU), cpu(r.ListenerCPU)))
	case r.ProberCPU != nil:
		return finding.T("pinned: prober CPU "+cpu(r.ProberCPU), "已绑定：探测端 CPU "+cpu(r.ProberCPU))
	case r.ListenerCPU != nil:
		return finding.T("pinned: listener CPU "+cpu(r.ListenerCPU), "已绑定：监听端 CPU "+cpu(r.ListenerCPU))
	}
	return r.placed().Text()
}

// placed sums the loopback figures' placements.
func (r *Result) placed() *Placement {
	var all Placement
	for _, f := range r.Figures {
		if f.Placement != nil {
			all.Rounds += f.Placement.Rounds
			all.SameCPU += f.Placement.SameCPU
		}
	}
	return &all
}

// preemptions is the calling thread's count of involuntary context
// switches (sample.ProcStatus reads its status file).
func preemptions() (int64, bool) {
	b, err := os.ReadFile(threadPath("status"))
	if err != nil {
		return 0, false
	}
	var st sample.ProcStatus
	if st.Parse(b, sample.FieldNonvoluntaryCtxt) != nil || st.Has&sample.FieldNonvoluntaryCtxt == 0 {
		return 0, false
	}
	return int64(st.NonvoluntaryCtxt), true
}

// threadPath is the calling thread's /proc/self/task/TID/name
// (/proc/self is the main thread's; /proc/thread-self is newer than some
// kernels served).
func threadPath(name string) string {
	return "/proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/" + name
}

// lastRead is a value one run of a bench read beside its figure (a rate,
// a size), taken by the round that ran it.
type lastRead struct {
	mu sync.Mutex
	v  float64
	ok bool
}

func (r *lastRead) set(v float64) {
	r.mu.Lock()
	r.v, r.ok = v, true
	r.mu.Unlock()
}

// take returns the last run's value and forgets it: -1 when that run read
// none (or r is nil).
func (r *lastRead) take() float64 {
	if r == nil {
		return -1
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.v, r.ok
	r.ok = false
	if !ok {
		return -1
	}
	return v
}

// span is the lowest and highest of the rounds' values read ("" when
// none was), at prec decimals.
func span(v []float64, prec int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if x >= 0 {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if lo > hi {
		return ""
	}
	s := strconv.FormatFloat(lo, 'f', prec, 64)
	if h := strconv.FormatFloat(hi, 'f', prec, 64); h != s {
		s += "-" + h
	}
	return s
}

// streamText: "sending thread preempted 15021-15800 times a second;
// segments of 1181-1290 bytes on average (...)", the parts read.
func streamText(pre, seg []float64) finding.Text {
	p, g := span(pre, 0), span(seg, 0)
	var t finding.Text
	if p != "" {
		t = finding.T("sending thread preempted "+p+" times a second", "发送线程每秒被抢占 "+p+" 次")
	}
	if g != "" {
		t = joinNote(t, finding.T("segments of "+g+" bytes on average", "平均每个报文段 "+g+" 字节"))
	}
	if t.IsZero() {
		return t
	}
	t.EN += " (with Nagle on, a small write waits for the ACK of what is in flight: small segments and, ends on one CPU, thousands of preemptions when the receiver ACKs at once; large ones and hundreds when it delays its ACKs)"
	t.ZH += "（Nagle 开启时，小块写入要等待在途数据的 ACK：接收端立即 ACK 时报文段小，两端同在一个 CPU 时每秒抢占数千次；接收端延迟 ACK 时报文段大，抢占数百次）"
	return t
}
