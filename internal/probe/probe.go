// Package probe measures the platform itself, the way seed 004 proves a
// kernel slower with qperf before blaming the application: network
// ping-pong latency and streaming bandwidth at several message sizes (TCP
// and UDP) and the TCP connection rate, against this same binary listening
// on the other side; CPU and kernel costs (a raw syscall, a context switch,
// a clock read, single-core kernels, a core-to-core cache-line matrix);
// memory bandwidth and latency per NUMA node; and a disk's fsync latency
// and sequential and random throughput.
//
// Every figure is measured in rounds: each round measures every figure of
// a part once (interleaved, so a neighbour's burst hits one round of many
// figures rather than every round of one), and a figure is the median of
// its rounds with the sign-test 95% interval (stats.MedianCI), together
// with the CPU others kept busy while it ran (/proc/stat less our own
// getrusage). Nothing is left behind: the disk part writes only to a file
// without a name (O_TMPFILE, else created and unlinked at once), so even a
// SIGKILL leaves no file.
//
// Files by job: probe.go (options, figures, rounds, Run), noise.go (the
// CPU others used), net.go (the listener and the client), cpu.go, c2c.go
// (the core-to-core matrix), mem.go, disk.go, compare.go (two probes).
package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/stats"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Schema of probe.json.
const Schema = "tuneloop.probe/v1"

// File is the probe's result in a probe folder.
const File = "probe.json"

// Parts, in the order they run.
const (
	PartNet  = "net"
	PartCPU  = "cpu"
	PartMem  = "mem"
	PartDisk = "disk"
)

// AllParts lists every part in run order.
func AllParts() []string { return []string{PartNet, PartCPU, PartMem, PartDisk} }

// DefaultSizes are the message sizes of the network part (qperf's msg_size).
func DefaultSizes() []int { return []int{1, 64, 1024, 64 << 10} }

// Options say what to measure and how long.
type Options struct {
	Parts []string // empty: all
	Quick bool     // about 10 s in all instead of about 60 s
	// Rounds overrides the number of repeats of every figure (0: 7, or 6
	// with Quick: the fewest whose range covers the median with 95%).
	Rounds int
	// Window overrides how long one round of a network, memory or disk
	// figure lasts (0: 120, 250 and 300 ms; 20, 60 and 50 ms with Quick).
	// With the anchors' 1-2 s (qperf -t, fio --runtime) a round is one of
	// their runs: on a busy machine the median of short windows skips the
	// windows others took while one long window averages them in.
	Window time.Duration
	// Peer is HOST:PORT of `probe --listen` on the other side; empty: a
	// listener of our own on 127.0.0.1, in this process (PeerInProcess).
	// PeerLabel names Peer in the result when it is not a remote host
	// (PeerOwnProcess: our listener started in a process of its own).
	Peer      string
	PeerLabel string
	// PeerPID is that listener's process here: its CPU is the probe's own
	// when the noise (others' CPU) is read.
	PeerPID int
	// CPU pins the prober's measuring thread (qperf -lca); PeerCPU the
	// in-process listener's (a listener process or remote peer takes its
	// own --cpu; the caller says so in Result.ListenerCPU).
	CPU, PeerCPU CPUPin
	Token        string // shared with the peer's --token
	Sizes        []int  // message sizes in bytes (default DefaultSizes)
	// Dir is where the disk part writes its one unnamed file (default ".").
	Dir string
	// DiskBytes caps the disk part's file (0: 256 MiB, 32 MiB with Quick;
	// never more than a tenth of the free space).
	DiskBytes int64
	// Log receives one line per part as it starts (nil: none).
	Log io.Writer
	// Facts are the host's (sysinfo.Collect; nil: collected here): its
	// NUMA nodes, memory, and what compare explains a slower side with.
	Facts *sysinfo.Facts
	// ProcRoot and SysRoot are /proc and /sys (tests: the same; kept apart
	// so the noise and topology readers cite where they read).
	ProcRoot, SysRoot string
}

// Figure is one measured quantity.
type Figure struct {
	ID   string       `json:"id"` // stable, dotted: net.tcp_lat.64
	Part string       `json:"part"`
	Name finding.Text `json:"name"`
	Unit string       `json:"unit"`
	// Higher is true when a higher value is better (bandwidth, rates).
	Higher bool `json:"higher_is_better"`
	// Median of Rounds, and the interval [Lo, Hi] covering the population
	// median with probability Coverage (0.95 or more when OK).
	Median   float64 `json:"median"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Coverage float64 `json:"coverage"`
	OK       bool    `json:"ci_ok"`
	// Rounds are the repeats' values in the order they were taken.
	Rounds []float64 `json:"rounds"`
	// OthersBusyPct is the CPU others kept busy while this figure was
	// measured, in percent of all CPUs (median over its rounds); -1 when
	// /proc/stat could not be read.
	OthersBusyPct float64 `json:"others_busy_pct"`
	// StealPct is the CPU a hypervisor took (same rounds).
	StealPct float64 `json:"steal_pct"`
	// Note qualifies the figure (buffered I/O, loss, a cap applied).
	Note finding.Text `json:"note,omitzero"`
	// Placement: a loopback figure's rounds that ended with prober and
	// listener on one CPU (nil when not known: a remote peer).
	Placement *Placement `json:"placement,omitempty"`
	// Preempt is, per round (as Rounds), how many times a second the
	// thread that sent the bytes was preempted (involuntary context
	// switches; -1: not read). Set for TCP bandwidth: with both ends on
	// one CPU it says which pattern the stream ran in (see tcpBW).
	Preempt []float64 `json:"sender_preempt_per_s,omitempty"`
	// Segment is, per round, the stream's average TCP segment in bytes
	// (what its socket sent over the data segments it sent; -1: not
	// read): with Nagle on, small writes gather until the receiver's ACK,
	// so it says how the receiver ACKed.
	Segment []float64 `json:"segment_bytes,omitempty"`
	// Dist is the latency distribution of every operation of every round
	// (the fsync figures): upper bound in microseconds, count.
	Dist []Bucket `json:"dist,omitempty"`
	// Err is why the figure has no value (the others are still measured).
	Err string `json:"error,omitempty"`
}

// Bucket is one bar of a latency distribution: values <= LeUS, above the
// previous bucket.
type Bucket struct {
	LeUS  float64 `json:"le_us"`
	Count int64   `json:"count"`
}

// Matrix is the core-to-core cache-line round trip, one way, in ns:
// NS[i][j] between CPUs[i] and CPUs[j] (NaN on the diagonal and when not
// measured).
type Matrix struct {
	CPUs []int       `json:"cpus"`
	NS   [][]float64 `json:"ns"`
	// Rounds per pair, and the pairs measured out of all.
	Rounds int `json:"rounds"`
}

// CPUValue is one CPU's figure.
type CPUValue struct {
	CPU   int     `json:"cpu"`
	Value float64 `json:"value"`
}

// PartTime is how long a part took.
type PartTime struct {
	Part    string  `json:"part"`
	Seconds float64 `json:"seconds"`
}

// Skip says why a part (or a piece of one) was not measured.
type Skip struct {
	Part string       `json:"part"`
	Why  finding.Text `json:"why"`
}

// Host is what identifies the measured machine, for comparing two probes.
type Host struct {
	Name     string `json:"name"`
	Kernel   string `json:"kernel"`
	Arch     string `json:"arch"`
	CPUModel string `json:"cpu_model,omitempty"`
	// MachineID is /etc/machine-id hashed for tuneloop (sysinfo.Facts):
	// it tells apart hosts that share the three above.
	MachineID string `json:"machine_id,omitempty"`
	CPUs      int    `json:"cpus"` // usable by this process
	Nodes     int    `json:"numa_nodes"`
	// Clocksource is the kernel's current clock source (tsc, arch_sys_counter,
	// hpet...): a slow one makes every clock read a syscall.
	Clocksource string `json:"clocksource,omitempty"`
	// Mitigations: /sys/devices/system/cpu/vulnerabilities, file -> first
	// line, as the kernel says it.
	Mitigations map[string]string `json:"mitigations,omitempty"`
	THP         string            `json:"thp,omitempty"`
}

// Result is one probe.
type Result struct {
	Schema string    `json:"schema"`
	Tool   string    `json:"tool"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Quick  bool      `json:"quick"`
	Parts  []string  `json:"parts"`
	Rounds int       `json:"rounds"`
	Host   Host      `json:"host"`
	Peer   string    `json:"peer"` // PeerOwnProcess, PeerInProcess or HOST:PORT
	// ProberCPU and ListenerCPU: the CPUs the network figures' two ends
	// were pinned to (--cpu, --peer-cpu), absent when not pinned.
	ProberCPU   *int   `json:"prober_cpu,omitempty"`
	ListenerCPU *int   `json:"listener_cpu,omitempty"`
	Dir         string `json:"disk_dir,omitempty"`
	DiskFS      string `json:"disk_fs,omitempty"`
	// MemBytes is the memory part's buffer (the chase runs over half).
	MemBytes int64 `json:"mem_buffer_bytes,omitempty"`
	// DiskBytes is the disk part's file.
	DiskBytes int64 `json:"disk_file_bytes,omitempty"`
	// Windows is how long one round of each part's figures lasted;
	// absent from probes taken before it was kept.
	Windows *Windows `json:"window_ms,omitempty"`
	Figures []Figure `json:"figures"`
	Matrix  *Matrix  `json:"core_to_core,omitempty"`
	// PerCPU is the integer kernel pinned on each CPU (Gop/s, median of
	// rounds), behind the cpu.int_spread figure.
	PerCPU  []CPUValue     `json:"per_cpu,omitempty"`
	Skipped []Skip         `json:"skipped,omitempty"`
	Notes   []finding.Text `json:"notes,omitempty"`
	// Facts are the host's facts at the start (what `check` reads), so
	// compare can say what differs between two probed hosts.
	Facts *sysinfo.Facts `json:"facts,omitempty"`
	// PartSeconds is how long each part took, in run order.
	PartSeconds []PartTime `json:"part_seconds"`
	// Interrupted is set when the context ended the probe early.
	Interrupted bool `json:"interrupted,omitempty"`
	// Status is StatusProbing in the probe.json written when a probe
	// starts (so a probe killed before its end is seen as incomplete, as
	// a run's manifest is), StatusComplete or StatusInterrupted once it
	// ended; "" in probes written before it existed (see State).
	Status string `json:"status,omitempty"`
	// Origin is the probe folder this copy was taken from, when a run
	// keeps it (RunFile).
	Origin string `json:"origin,omitempty"`
}

// Statuses of a probe folder.
const (
	StatusProbing     = "probing" // running, or killed before its end
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted" // ended early (Ctrl-C), what was measured kept
)

// State is r's status, also for a probe.json written before Status was:
// interrupted when it says so, else complete.
func (r *Result) State() string {
	switch {
	case r.Status != "":
		return r.Status
	case r.Interrupted:
		return StatusInterrupted
	}
	return StatusComplete
}

// busyWarnPct is the CPU busy by others above which a probe says so.
const busyWarnPct = 25

// busy is the median over figures of the CPU others kept busy (-1: unknown).
func (r *Result) busy() float64 {
	var v []float64
	for _, f := range r.Figures {
		if f.OthersBusyPct >= 0 && len(f.Rounds) > 0 {
			v = append(v, f.OthersBusyPct)
		}
	}
	return median(v)
}

// Figure returns the figure with id, or nil.
func (r *Result) Figure(id string) *Figure {
	for i := range r.Figures {
		if r.Figures[i].ID == id {
			return &r.Figures[i]
		}
	}
	return nil
}

// Windows is how long one round of a part's figures lasts, in
// milliseconds (the core-to-core matrix: all its pairs).
type Windows struct {
	Net  float64 `json:"net"`
	CPU  float64 `json:"cpu"`
	Mem  float64 `json:"mem"`
	Disk float64 `json:"disk"`
	C2C  float64 `json:"core_to_core"`
}

// budget is how long each measurement window lasts.
type budget struct {
	rounds                   int
	net, cpu, mem, disk, c2c time.Duration
	diskBytes                int64
	memBytes                 int64
}

func newBudget(o *Options) budget {
	b := budget{rounds: 7, net: 120 * time.Millisecond, cpu: 80 * time.Millisecond, mem: 250 * time.Millisecond,
		disk: 300 * time.Millisecond, c2c: 4 * time.Second, diskBytes: 256 << 20, memBytes: 256 << 20}
	if o.Quick {
		b = budget{rounds: 6, net: 20 * time.Millisecond, cpu: 20 * time.Millisecond, mem: 60 * time.Millisecond,
			disk: 50 * time.Millisecond, c2c: 600 * time.Millisecond, diskBytes: 32 << 20, memBytes: 64 << 20}
	}
	if o.Rounds > 0 {
		b.rounds = o.Rounds
	}
	if o.Window > 0 {
		b.net, b.mem, b.disk = o.Window, o.Window, o.Window
	}
	if o.DiskBytes > 0 {
		b.diskBytes = o.DiskBytes
	}
	return b
}

// windows is the budget's round lengths as a probe keeps them.
func (b budget) windows() *Windows {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return &Windows{Net: ms(b.net), CPU: ms(b.cpu), Mem: ms(b.mem), Disk: ms(b.disk), C2C: ms(b.c2c)}
}

// bench is one figure's measurement: run once for about d, return the value.
type bench struct {
	id, unit string
	name     finding.Text
	higher   bool
	run      func(ctx context.Context, d time.Duration) (float64, error)
	// note, when set, is read after the rounds (what the runs found out).
	note func() finding.Text
	dist func() []Bucket
	// follows: the value comes from the bench before it, measured in the
	// same run (a p99 beside a median); it takes that run's noise.
	follows bool
	// placed: a network figure whose two ends each move its bytes on one
	// thread, so where those threads ran is recorded (Placement).
	placed bool
	// preempt and segment, when set, hold what the last run read of its
	// sender's preemptions a second and its average segment
	// (Figure.Preempt, Figure.Segment).
	preempt, segment *lastRead
}

// rounds runs every bench once per round, in turn, after one unrecorded
// warm-up round of a quarter window; a bench that fails stops being run
// and keeps its error.
func (p *prober) rounds(ctx context.Context, part string, benches []bench, d time.Duration) {
	vals := make([][]float64, len(benches))
	places := make([]Placement, len(benches))
	others := make([][]float64, len(benches))
	steal := make([][]float64, len(benches))
	errs := make([]error, len(benches))
	pre, seg := make([][]float64, len(benches)), make([][]float64, len(benches))
	for r := -1; r < p.b.rounds && ctx.Err() == nil; r++ {
		for i, b := range benches {
			if errs[i] != nil || ctx.Err() != nil {
				continue
			}
			if r < 0 {
				if _, err := b.run(ctx, d/4); err != nil {
					errs[i] = err
				}
				b.preempt.take()
				b.segment.take()
				continue
			}
			var nb noiseSpan
			if b.follows && i > 0 && len(others[i-1]) > 0 {
				nb = noiseSpan{others[i-1][len(others[i-1])-1], steal[i-1][len(steal[i-1])-1]}
			}
			placed := b.placed && p.place != nil
			if placed {
				p.place.start()
			}
			n0 := p.noise.read()
			v, err := b.run(ctx, d)
			if !b.follows {
				nb = p.noise.since(n0)
			}
			rate, segBytes := b.preempt.take(), b.segment.take()
			if err != nil {
				errs[i] = err
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue // nothing completed in the window (the context ended)
			}
			vals[i] = append(vals[i], v)
			if b.preempt != nil {
				pre[i] = append(pre[i], rate)
			}
			if b.segment != nil {
				seg[i] = append(seg[i], segBytes)
			}
			if placed {
				if same := p.place.same(); same >= 0 {
					places[i].Rounds++
					places[i].SameCPU += same
				}
			}
			others[i] = append(others[i], nb.others)
			steal[i] = append(steal[i], nb.steal)
		}
	}
	for i, b := range benches {
		f := Figure{ID: b.id, Part: part, Name: b.name, Unit: b.unit, Higher: b.higher, Rounds: vals[i],
			OthersBusyPct: median(others[i]), StealPct: median(steal[i]), Preempt: pre[i], Segment: seg[i]}
		f.Median, f.Lo, f.Hi, f.Coverage, f.OK = stats.MedianCI(vals[i], stats.Confidence)
		if errs[i] != nil && !errors.Is(errs[i], context.Canceled) {
			f.Err = errs[i].Error()
		}
		if b.note != nil {
			f.Note = b.note()
		}
		f.Note = joinNote(f.Note, streamText(f.Preempt, f.Segment))
		if b.dist != nil {
			f.Dist = b.dist()
		}
		if pl := &places[i]; pl.Rounds > 0 {
			f.Placement = pl
			if pl.SameCPU > 0 && pl.SameCPU < pl.Rounds {
				// Rounds of either placement measured different paths.
				f.Note = joinNote(f.Note, pl.Text())
			}
		}
		p.res.Figures = append(p.res.Figures, f)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return -1
	}
	m := stats.Median(v)
	if m < 0 {
		return -1
	}
	return m
}

// prober is one Run's state.
type prober struct {
	o     *Options
	b     budget
	res   *Result
	noise *noise
	place *placer // a local listener's (nil: remote peer)
}

// Measure measures the parts o asks for and returns the result; a part that
// cannot run here is listed in Skipped with the reason, not an error. The
// error is for options that make no sense (an unknown part, an unreachable
// peer, a refused token) or the context ending before anything was measured.
func Measure(ctx context.Context, o Options) (*Result, error) {
	if o.ProcRoot == "" {
		o.ProcRoot = "/proc"
	}
	if o.SysRoot == "" {
		o.SysRoot = "/sys"
	}
	if len(o.Sizes) == 0 {
		o.Sizes = DefaultSizes()
	}
	if o.Dir == "" {
		o.Dir = "."
	}
	parts, err := ParseParts(strings.Join(o.Parts, ","))
	if err != nil {
		return nil, err
	}
	for _, s := range o.Sizes {
		if s < 1 || s > MaxMsg {
			return nil, finding.Errorf(finding.T("message size %d: want 1 to %d bytes", "消息大小 %d：应为 1 到 %d 字节"), s, MaxMsg)
		}
	}
	for _, c := range []struct {
		flag string
		pin  CPUPin
	}{{"--cpu", o.CPU}, {"--peer-cpu", o.PeerCPU}} {
		if c.flag == "--peer-cpu" && o.Peer != "" && o.PeerPID == 0 {
			continue // another host's CPU: its listener says
		}
		if err := c.pin.Check(); err != nil {
			return nil, finding.Errorf(finding.T("%s %d: %v", "%s %d：%v"), c.flag, c.pin.CPU, err)
		}
	}
	if o.Window != 0 && (o.Window < 10*time.Millisecond || o.Window > 10*time.Second) {
		return nil, finding.Errorf(finding.T("--window %v: want 10ms to 10s", "--window %v：应为 10ms 到 10s"), o.Window)
	}
	if o.Facts == nil {
		o.Facts = sysinfo.Collect(hostfs.FS{Proc: o.ProcRoot, Sys: o.SysRoot, Etc: "/etc"}, sysinfo.Options{NoEthtool: true})
	}
	p := &prober{o: &o, b: newBudget(&o), noise: newNoise(o.ProcRoot, o.PeerPID)}
	p.res = &Result{Schema: Schema, Start: time.Now(), Quick: o.Quick, Parts: parts, Rounds: p.b.rounds, Host: HostOf(o.Facts), Facts: o.Facts,
		Windows: p.b.windows()}
	for _, c := range []struct {
		pin CPUPin
		to  **int
	}{{o.CPU, &p.res.ProberCPU}, {o.PeerCPU, &p.res.ListenerCPU}} {
		if c.pin.On && slices.Contains(parts, PartNet) {
			*c.to = &c.pin.CPU
		}
	}
	if k := o.Facts.Kernel.Arch; k.OK && kernelArch(runtime.GOARCH) != "" && k.Value != kernelArch(runtime.GOARCH) {
		p.res.Notes = append(p.res.Notes, finding.T(
			fmt.Sprintf("this is the %s binary on a %s kernel: emulated (qemu-user), so the figures measure the emulator, not the CPU", runtime.GOARCH, k.Value),
			fmt.Sprintf("这是 %s 版本的程序运行在 %s 内核上：处于仿真（qemu-user）中，数字反映的是仿真器而非 CPU", runtime.GOARCH, k.Value)))
	}
	if o.Window > 0 {
		p.res.Notes = append(p.res.Notes, finding.T(
			fmt.Sprintf("each round of a network, memory or disk figure lasted %v (--window), not the default", o.Window),
			fmt.Sprintf("网络、内存、磁盘指标的每一轮持续 %v（--window），而非默认值", o.Window)))
	}
	if p.noise.err != nil {
		p.res.Notes = append(p.res.Notes, finding.T("CPU busy by others unknown: "+p.noise.err.Error(), "无法得知其他进程占用的 CPU："+p.noise.err.Error()))
	}
	for _, part := range parts {
		if ctx.Err() != nil {
			break
		}
		p.log("probe: %s", part)
		t0 := time.Now()
		switch part {
		case PartNet:
			err = p.net(ctx)
		case PartCPU:
			p.cpu(ctx)
		case PartMem:
			p.mem(ctx)
		case PartDisk:
			p.disk(ctx)
		}
		if err != nil {
			return nil, err
		}
		p.res.PartSeconds = append(p.res.PartSeconds, PartTime{part, time.Since(t0).Seconds()})
	}
	p.res.End = time.Now()
	if busy := p.res.busy(); busy > busyWarnPct {
		p.res.Notes = append(p.res.Notes, finding.T(
			fmt.Sprintf("others kept %.0f%% of the CPUs busy while the figures were measured (median): this is a shared machine's capacity, compare it only with probes taken under similar noise", busy),
			fmt.Sprintf("测量期间其他进程占用了 %.0f%% 的 CPU（中位数）：这是共享机器的能力，只能与噪声相近的探测结果比较", busy)))
	}
	p.res.Status = StatusComplete
	if ctx.Err() != nil {
		p.res.Interrupted, p.res.Status = true, StatusInterrupted
		if len(p.res.Figures) == 0 {
			return nil, finding.Errorf(finding.T("interrupted before any figure was measured: nothing to report (%v)", "在测出任何指标之前被中断：没有可报告的结果（%v）"), ctx.Err())
		}
	}
	return p.res, nil
}

func (p *prober) log(format string, args ...any) {
	if p.o.Log != nil {
		fmt.Fprintf(p.o.Log, format+"\n", args...)
	}
}

func (p *prober) skip(part string, why finding.Text) {
	p.res.Skipped = append(p.res.Skipped, Skip{Part: part, Why: why})
}

// ParseParts reads --only: a comma-separated list of net, cpu, mem, disk
// (empty: all), returned in run order without repeats.
func ParseParts(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return AllParts(), nil
	}
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(AllParts(), f) {
			return nil, finding.Errorf(finding.T("--only: unknown part %q (want net, cpu, mem, disk)", "--only：未知部分 %q（应为 net、cpu、mem、disk）"), f)
		}
		want[f] = true
	}
	var out []string
	for _, p := range AllParts() {
		if want[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// nsPer is d per operation in ns (NaN for no operation).
func nsPer(d time.Duration, n int64) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return float64(d.Nanoseconds()) / float64(n)
}

// kernelArch is the kernel's name for a Go architecture.
func kernelArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return ""
}

// HostOf sums up the facts that name the machine (Identity, the hostname
// from the system when the facts lack it) and move its figures.
func HostOf(f *sysinfo.Facts) Host {
	h := Identity(f)
	h.Arch, h.CPUs = runtime.GOARCH, runtime.NumCPU()
	if h.Name == "" {
		h.Name, _ = os.Hostname()
	}
	if f.NUMA.Nodes.OK {
		h.Nodes = len(f.NUMA.Nodes.Value)
	}
	if f.Clocksource.Current.OK {
		h.Clocksource = f.Clocksource.Current.Value
	}
	if f.CPU.Vulnerabilities.OK {
		h.Mitigations = f.CPU.Vulnerabilities.Value
	}
	if f.Memory.THPEnabled.OK {
		h.THP = f.Memory.THPEnabled.Value
	}
	return h
}
