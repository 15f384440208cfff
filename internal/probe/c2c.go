package probe

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// maxMatrixCPUs bounds the matrix: pairs grow with the square.
const maxMatrixCPUs = 32

// line is a cache line of its own, so the two threads share exactly one.
type line struct {
	_ [64]byte
	v atomic.Uint64
	_ [56]byte
}

const c2cStop = math.MaxUint64 // odd: the answering side sees it and leaves

// c2c measures the core-to-core matrix: for every pair of allowed CPUs, two
// threads pinned one on each bounce a counter in one cache line (the one
// writes odd values, the other answers even), so a hop is the line moving
// between the two cores' caches. One round visits every pair; a cell is the
// median over rounds, and two figures sum it up per round: the median pair
// and the slowest pair.
func (p *prober) c2c(ctx context.Context) {
	cpus, err := allowedCPUs()
	if err != nil {
		p.skip(PartCPU, finding.T("core-to-core matrix: "+err.Error(), "核间矩阵："+err.Error()))
		return
	}
	if len(cpus) < 2 {
		p.skip(PartCPU, finding.T("core-to-core matrix: only one CPU is allowed to this process", "核间矩阵：本进程只能使用一个 CPU"))
		return
	}
	if len(cpus) > maxMatrixCPUs {
		// An even spread keeps both sockets and both SMT siblings in view.
		pick := spreadPick(cpus, maxMatrixCPUs)
		p.res.Notes = append(p.res.Notes, finding.T(fmt.Sprintf("core-to-core matrix over %d of %d CPUs, evenly spread", maxMatrixCPUs, len(cpus)),
			fmt.Sprintf("核间矩阵只覆盖 %d 个 CPU 中均匀分布的 %d 个", len(cpus), maxMatrixCPUs)))
		cpus = pick
	}
	n := len(cpus)
	pairs := n * (n - 1) / 2
	rounds := p.b.rounds
	per := min(50*time.Millisecond, max(200*time.Microsecond, p.b.c2c/time.Duration(rounds*pairs)))
	cells := make([][][]float64, n)
	for i := range cells {
		cells[i] = make([][]float64, n)
	}
	var med, worst, others, steal []float64
	stalled := 0
	for r := 0; r < rounds && ctx.Err() == nil; r++ {
		n0 := p.noise.read()
		var this []float64
		for i := 0; i < n && ctx.Err() == nil; i++ {
			for j := i + 1; j < n && ctx.Err() == nil; j++ {
				v, err := pingPong(ctx, cpus[i], cpus[j], per)
				if err != nil {
					p.skip(PartCPU, finding.T("core-to-core matrix: "+err.Error(), "核间矩阵："+err.Error()))
					return
				}
				if math.IsNaN(v) {
					if ctx.Err() != nil {
						break // the context ended: the round is incomplete
					}
					// A pinned thread not scheduled for a second: a busy
					// machine; the pair misses this round.
					stalled++
					continue
				}
				cells[i][j] = append(cells[i][j], v)
				this = append(this, v)
			}
		}
		if len(this) > 0 && ctx.Err() == nil {
			nb := p.noise.since(n0)
			med, worst = append(med, stats.Median(this)), append(worst, slices.Max(this))
			others, steal = append(others, nb.others), append(steal, nb.steal)
		}
	}
	m := &Matrix{CPUs: cpus, NS: make([][]float64, n), Rounds: len(med)}
	for i := range n {
		m.NS[i] = make([]float64, n)
		for j := range n {
			a, b := min(i, j), max(i, j)
			m.NS[i][j] = math.NaN()
			if i != j && len(cells[a][b]) > 0 {
				m.NS[i][j] = stats.Median(cells[a][b])
			}
		}
	}
	p.res.Matrix = m
	if stalled > 0 {
		p.res.Notes = append(p.res.Notes, finding.T(
			fmt.Sprintf("core-to-core: %d pair measurements dropped, a pinned thread not run for over a second (a busy machine)", stalled),
			fmt.Sprintf("核间矩阵：丢弃了 %d 次核对测量，绑定的线程超过一秒未被调度（机器繁忙）", stalled)))
	}
	for _, f := range []Figure{
		{ID: "cpu.c2c", Name: finding.T("core to core, cache line one way (median pair)", "核间缓存行单程延迟（中位数核对）"), Rounds: med},
		{ID: "cpu.c2c_max", Name: finding.T("core to core, cache line one way (slowest pair)", "核间缓存行单程延迟（最慢核对）"), Rounds: worst},
	} {
		f.Part, f.Unit = PartCPU, "ns"
		f.Median, f.Lo, f.Hi, f.Coverage, f.OK = stats.MedianCI(f.Rounds, stats.Confidence)
		f.OthersBusyPct, f.StealPct = median(others), median(steal)
		p.res.Figures = append(p.res.Figures, f)
	}
}

// pingPong is the one-way time of a cache line between CPUs a and b, in
// ns, over about d.
func pingPong(ctx context.Context, a, b int, d time.Duration) (float64, error) {
	var l line
	var dead atomic.Bool
	errc := make(chan error, 2)
	res := make(chan float64, 1)
	// Each goroutine ends locked: its thread exits with the pinned
	// affinity rather than serving other goroutines.
	go func() {
		runtime.LockOSThread()
		if err := pin(b); err != nil {
			dead.Store(true)
			errc <- err
			return
		}
		errc <- nil
		for want := uint64(1); ; want += 2 {
			for {
				v := l.v.Load()
				if v == c2cStop || dead.Load() {
					return
				}
				if v == want {
					break
				}
			}
			l.v.Store(want + 1)
		}
	}()
	go func() {
		runtime.LockOSThread()
		if err := pin(a); err != nil {
			dead.Store(true)
			errc <- err
			res <- 0
			return
		}
		errc <- nil
		start := time.Now()
		end := start.Add(d)
		var n uint64
		for k := uint64(1); ; k += 2 {
			l.v.Store(k)
			for spins := 0; l.v.Load() != k+1; spins++ {
				if spins&0xffff == 0xffff && (dead.Load() || ctx.Err() != nil || time.Since(start) > 10*d+time.Second) {
					l.v.Store(c2cStop)
					res <- math.NaN()
					return
				}
			}
			n++
			if n&63 == 0 && !time.Now().Before(end) {
				break
			}
		}
		el := time.Since(start)
		l.v.Store(c2cStop)
		res <- nsPer(el, int64(2*n))
	}()
	var err error
	for range 2 {
		if e := <-errc; e != nil && err == nil {
			err = e
		}
	}
	v := <-res
	if err != nil {
		return 0, err
	}
	return v, nil // NaN: stalled or cancelled
}
