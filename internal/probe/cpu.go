package probe

import (
	"context"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// cpu measures the kernel's entry cost and the single-core kernels, then
// the core-to-core matrix.
func (p *prober) cpu(ctx context.Context) {
	var sink uint64
	benches := []bench{
		{id: "cpu.syscall", unit: "ns", name: finding.T("system call (getppid)", "系统调用（getppid）"), run: syscallCost},
		{id: "cpu.ctxswitch", unit: "ns", name: finding.T("context switch (two threads on one CPU, pipe ping-pong)", "上下文切换（同一 CPU 上两个线程经管道往返）"), run: ctxSwitch},
		{id: "cpu.clock", unit: "ns", name: finding.T("clock read (CLOCK_REALTIME + MONOTONIC, as time.Now)", "读时钟（time.Now）"), run: clockRead},
		{id: "cpu.int", unit: "Gop/s", higher: true, name: finding.T("integer kernel, one core (xorshift, multiply)", "整数运算，单核（xorshift、乘法）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) { return intKernel(ctx, d, &sink) }},
		{id: "cpu.float", unit: "GFLOP/s", higher: true, name: finding.T("floating-point kernel, one core (multiply-add)", "浮点运算，单核（乘加）"),
			run: func(ctx context.Context, d time.Duration) (float64, error) { return floatKernel(ctx, d, &sink) }},
		{id: "cpu.crc32", unit: "GB/s", higher: true, name: finding.T("CRC-32C of 64 KiB, one core", "CRC-32C（64 KiB），单核"), run: crcKernel},
		{id: "cpu.memcpy", unit: "GB/s", higher: true, name: finding.T("memcpy of 1 MiB (in cache), one core", "memcpy 1 MiB（缓存内），单核"), run: memcpyKernel},
	}
	if cs := p.res.Host.Clocksource; cs != "" && cs != "tsc" && cs != "arch_sys_counter" && cs != "kvm-clock" {
		benches[2].note = func() finding.Text {
			return finding.T("clock source "+cs+": clock reads may enter the kernel", "时钟源 "+cs+"：读时钟可能陷入内核")
		}
	}
	p.rounds(ctx, PartCPU, benches, p.b.cpu)
	p.perCPU(ctx)
	p.c2c(ctx)
}

// maxSpreadCPUs bounds the per-CPU kernel runs.
const maxSpreadCPUs = 64

// perCPU runs the integer kernel pinned on each allowed CPU in turn, each
// round visiting every CPU: SMT siblings sharing a core, a slower cluster
// of big/little cores, a CPU throttled or busy with interrupts stand out.
// The figure is the spread per round, (max-min)/median over CPUs.
func (p *prober) perCPU(ctx context.Context) {
	cpus, err := allowedCPUs()
	if err != nil || len(cpus) < 2 {
		return
	}
	cpus = spreadPick(cpus, maxSpreadCPUs)
	budget := 3 * time.Second
	if p.o.Quick {
		budget = 300 * time.Millisecond
	}
	per := min(p.b.cpu, max(5*time.Millisecond, budget/time.Duration(p.b.rounds*len(cpus))))
	vals := make([][]float64, len(cpus))
	var spread, others, steal []float64
	var sink uint64
	for r := 0; r < p.b.rounds && ctx.Err() == nil; r++ {
		n0 := p.noise.read()
		var this []float64
		for i, c := range cpus {
			v, err := onCPUs([]int{c}, func() float64 { x, _ := intKernel(ctx, per, &sink); return x })
			if err != nil {
				p.skip(PartCPU, finding.T("per-CPU kernel: "+err.Error(), "逐 CPU 计算："+err.Error()))
				return
			}
			if ctx.Err() != nil {
				break
			}
			vals[i] = append(vals[i], v)
			this = append(this, v)
		}
		if len(this) == len(cpus) {
			nb := p.noise.since(n0)
			m := stats.Median(this)
			spread = append(spread, 100*(slices.Max(this)-slices.Min(this))/m)
			others, steal = append(others, nb.others), append(steal, nb.steal)
		}
	}
	for i, c := range cpus {
		if len(vals[i]) > 0 {
			p.res.PerCPU = append(p.res.PerCPU, CPUValue{CPU: c, Value: stats.Median(vals[i])})
		}
	}
	f := Figure{ID: "cpu.int_spread", Part: PartCPU, Unit: "%", Rounds: spread, OthersBusyPct: median(others), StealPct: median(steal),
		Name: finding.T(fmt.Sprintf("integer kernel spread over %d CPUs, (max-min)/median", len(cpus)), fmt.Sprintf("整数运算在 %d 个 CPU 间的离散度（(最大-最小)/中位数）", len(cpus)))}
	f.Median, f.Lo, f.Hi, f.Coverage, f.OK = stats.MedianCI(f.Rounds, stats.Confidence)
	p.res.Figures = append(p.res.Figures, f)
}

// spreadPick is at most n of cpus, evenly spread.
func spreadPick(cpus []int, n int) []int {
	if len(cpus) <= n {
		return cpus
	}
	step := float64(len(cpus)) / float64(n)
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, cpus[int(float64(i)*step)])
	}
	return out
}

// timed runs batch (n operations each) until d has passed; it returns the
// operations done and the time they took.
func timed(ctx context.Context, d time.Duration, n int64, batch func()) (int64, time.Duration) {
	start := time.Now()
	end := start.Add(d)
	var ops int64
	for {
		batch()
		ops += n
		if !time.Now().Before(end) || ctx.Err() != nil {
			return ops, time.Since(start)
		}
	}
}

func syscallCost(ctx context.Context, d time.Duration) (float64, error) {
	ops, el := timed(ctx, d, 256, func() {
		for range 256 {
			unix.Getppid() // a raw system call with no work behind it
		}
	})
	return nsPer(el, ops), nil
}

func clockRead(ctx context.Context, d time.Duration) (float64, error) {
	var t time.Time
	ops, el := timed(ctx, d, 1024, func() {
		for range 1024 {
			t = time.Now()
		}
	})
	_ = t
	return nsPer(el, ops), nil
}

// ctxSwitch pins two OS threads to the same CPU and bounces a byte
// between them through two pipes: each hop blocks one thread and wakes
// the other, so a hop is one switch (lmbench's lat_ctx, size 0).
func ctxSwitch(ctx context.Context, d time.Duration) (float64, error) {
	cpus, err := allowedCPUs()
	if err != nil {
		return 0, err
	}
	var ab, ba [2]int
	if err := unix.Pipe2(ab[:], unix.O_CLOEXEC); err != nil {
		return 0, err
	}
	if err := unix.Pipe2(ba[:], unix.O_CLOEXEC); err != nil {
		unix.Close(ab[0])
		unix.Close(ab[1])
		return 0, err
	}
	defer func() {
		for _, fd := range []int{ab[0], ab[1], ba[0], ba[1]} {
			unix.Close(fd)
		}
	}()
	type out struct {
		v   float64
		err error
	}
	res := make(chan out, 1)
	echoed := make(chan error, 1)
	// Both goroutines end locked: their threads exit with the changed
	// affinity instead of going back to the runtime.
	go func() {
		runtime.LockOSThread()
		if err := pin(cpus[0]); err != nil {
			echoed <- err
			return
		}
		b := []byte{0}
		for {
			if _, err := unix.Read(ab[0], b); err != nil || b[0] == 1 {
				echoed <- nil
				return
			}
			unix.Write(ba[1], b)
		}
	}()
	go func() {
		runtime.LockOSThread()
		if err := pin(cpus[0]); err != nil {
			unix.Write(ab[1], []byte{1})
			res <- out{err: err}
			return
		}
		b := []byte{0}
		ops, el := timed(ctx, d, 64, func() {
			for range 64 {
				unix.Write(ab[1], b)
				unix.Read(ba[0], b)
			}
		})
		unix.Write(ab[1], []byte{1})
		res <- out{v: nsPer(el, 2*ops)}
	}()
	r := <-res
	if err := <-echoed; err != nil && r.err == nil {
		r.err = err
	}
	return r.v, r.err
}

func intKernel(ctx context.Context, d time.Duration, sink *uint64) (float64, error) {
	x := uint64(88172645463325252)
	acc := uint64(1)
	const n = 1 << 14
	ops, el := timed(ctx, d, 4*n, func() {
		for range n {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			acc = acc*x + 1 // 4 dependent ops counted: 3 shifts+xors pairs, 1 multiply-add
		}
	})
	*sink += acc
	return float64(ops) / el.Seconds() / 1e9, nil
}

func floatKernel(ctx context.Context, d time.Duration, sink *uint64) (float64, error) {
	a, b, c, e := 1.0, 1.1, 1.2, 1.3
	const m, k = 0.999999, 1e-7
	const n = 1 << 13
	// Four independent chains, each a multiply and an add: 8 FLOP per step.
	ops, el := timed(ctx, d, 8*n, func() {
		for range n {
			a = a*m + k
			b = b*m + k
			c = c*m + k
			e = e*m + k
		}
	})
	*sink += math.Float64bits(a + b + c + e)
	return float64(ops) / el.Seconds() / 1e9, nil
}

func crcKernel(ctx context.Context, d time.Duration) (float64, error) {
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	var sum uint32
	ops, el := timed(ctx, d, int64(len(buf)), func() { sum = crc32.Update(sum, tab, buf) })
	_ = sum
	return float64(ops) / el.Seconds() / 1e9, nil
}

func memcpyKernel(ctx context.Context, d time.Duration) (float64, error) {
	src, dst := make([]byte, 1<<20), make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i)
	}
	ops, el := timed(ctx, d, int64(len(src)), func() { copy(dst, src) })
	return float64(ops) / el.Seconds() / 1e9, nil
}

// allowedCPUs lists the CPUs this process may run on, in order.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var out []int
	for i := 0; i < len(set)*64 && len(out) < set.Count(); i++ {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CPU in the affinity mask")
	}
	return out, nil
}

// pin binds the calling thread (locked by the caller) to cpu.
func pin(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity CPU %d: %w", cpu, err)
	}
	return nil
}
