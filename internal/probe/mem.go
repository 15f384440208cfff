package probe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// maxMemNodes bounds the node pairs measured (the pairs grow with the square).
const maxMemNodes = 4

// mpolBind is MPOL_BIND of mbind(2).
const mpolBind = 2

// memNode is a NUMA node: its id and CPUs (none: memory only).
type memNode struct {
	id   int
	cpus []int
}

// mem measures read and copy bandwidth and the latency of dependent loads
// over a buffer larger than the last-level cache, for each pair of
// (node whose CPUs run, node whose memory is read) when there are several
// nodes; with one node, once.
func (p *prober) mem(ctx context.Context) {
	size, note := p.memSize()
	p.res.MemBytes = size
	nodes := p.numaNodes()
	if len(nodes) <= 1 {
		p.res.Notes = append(p.res.Notes, finding.T("memory: one NUMA node here, so local only", "内存：本机只有一个 NUMA 节点，只测本地"))
		nodes = []memNode{{id: -1}}
	} else if len(nodes) > maxMemNodes {
		p.res.Notes = append(p.res.Notes, finding.T(fmt.Sprintf("memory: %d of %d NUMA nodes measured", maxMemNodes, len(nodes)),
			fmt.Sprintf("内存：只测了 %d 个 NUMA 节点中的 %d 个", len(nodes), maxMemNodes)))
		nodes = nodes[:maxMemNodes]
	}
	bufs := map[int][]uint64{}
	defer func() {
		for _, b := range bufs {
			unix.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*8))
		}
	}()
	for _, n := range nodes {
		b, err := mapOn(n.id, size)
		if err != nil {
			p.skip(PartMem, finding.T(fmt.Sprintf("memory of node %d: %v", n.id, err), fmt.Sprintf("节点 %d 的内存：%v", n.id, err)))
			continue
		}
		bufs[n.id] = b
	}
	var benches []bench
	for _, run := range nodes {
		if run.id >= 0 && len(run.cpus) == 0 {
			continue // a memory-only node runs nothing
		}
		for _, at := range nodes {
			buf, ok := bufs[at.id]
			if !ok {
				continue
			}
			suffix, where := "", finding.Text{}
			if run.id >= 0 {
				suffix = fmt.Sprintf(".cpu%d_mem%d", run.id, at.id)
				kind := finding.T("local", "本地")
				if run.id != at.id {
					kind = finding.T("remote", "远端")
				}
				where = finding.T(fmt.Sprintf(", CPUs of node %d, memory of node %d (%s)", run.id, at.id, kind.EN),
					fmt.Sprintf("，节点 %d 的 CPU 访问节点 %d 的内存（%s）", run.id, at.id, kind.ZH))
			}
			cpus := run.cpus
			benches = append(benches,
				bench{id: "mem.read" + suffix, unit: "GB/s", higher: true, note: constNote(note),
					name: finding.T("memory read bandwidth, one core"+where.EN, "内存读带宽，单核"+where.ZH),
					run: func(ctx context.Context, d time.Duration) (float64, error) {
						return onCPUs(cpus, func() float64 { return memRead(ctx, buf, d) })
					}},
				bench{id: "mem.copy" + suffix, unit: "GB/s", higher: true, note: constNote(note),
					name: finding.T("memory copy bandwidth, one core (bytes read + written, as STREAM)"+where.EN, "内存拷贝带宽，单核（读+写字节，同 STREAM）"+where.ZH),
					run: func(ctx context.Context, d time.Duration) (float64, error) {
						return onCPUs(cpus, func() float64 { return memCopy(ctx, buf, d) })
					}},
				bench{id: "mem.lat" + suffix, unit: "ns", note: constNote(note),
					name: finding.T("memory latency (dependent loads, random lines)"+where.EN, "内存延迟（随机缓存行的相关加载）"+where.ZH),
					run: func(ctx context.Context, d time.Duration) (float64, error) {
						return onCPUs(cpus, func() float64 { return memChase(ctx, buf, d) })
					}})
		}
	}
	budget := 12 * time.Second
	if p.o.Quick {
		budget = 1500 * time.Millisecond
	}
	d := p.b.mem
	if n := len(benches) * p.b.rounds; n > 0 {
		d = min(d, max(20*time.Millisecond, budget/time.Duration(n)))
	}
	p.rounds(ctx, PartMem, benches, d)
}

func constNote(t finding.Text) func() finding.Text { return func() finding.Text { return t } }

// memSize is the buffer: four times the last-level cache (the chase runs
// over half of it), within the budget's bounds and an eighth of the memory
// available and of the cgroup's limit; note says when the chase's half is
// not twice the cache.
func (p *prober) memSize() (int64, finding.Text) {
	lo, hi := int64(256<<20), int64(1<<30)
	if p.o.Quick {
		lo, hi = 64<<20, 128<<20
	}
	llc := lastLevelCache(p.o.SysRoot)
	size := min(max(4*llc, lo), hi)
	if f := p.o.Facts; f != nil && f.Memory.Meminfo.OK {
		if avail := f.Memory.Meminfo.Value["MemAvailable"] * 1024; avail > 0 {
			size = min(size, avail/8)
		}
	}
	// A container's own limit, not the host's memory, is what an OOM kill
	// answers to.
	if f := p.o.Facts; f != nil && f.Cgroup.MemoryLimit.OK && f.Cgroup.MemoryLimit.Value > 0 {
		size = min(size, f.Cgroup.MemoryLimit.Value/8)
	}
	size = max(size, 8<<20) &^ (1<<20 - 1)
	var note finding.Text
	if llc > 0 && size < 4*llc {
		note = finding.T(fmt.Sprintf("buffer %d MiB (latency over %d MiB) against a last-level cache of %d MiB: partly cached", size>>20, size>>21, llc>>20),
			fmt.Sprintf("缓冲区 %d MiB（延迟测 %d MiB），末级缓存 %d MiB：部分命中缓存", size>>20, size>>21, llc>>20))
	}
	return size, note
}

// lastLevelCache is cpu0's largest cache in bytes (0: unknown).
func lastLevelCache(sys string) int64 {
	var best int64
	ms, _ := filepath.Glob(filepath.Join(sys, "devices/system/cpu/cpu0/cache/index*/size"))
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		// "32K", "1024K", "32768K": sysfs's size, HotSpot's syntax.
		if v, ok := units.ParseJVMSize(strings.TrimSpace(string(b))); ok {
			best = max(best, v)
		}
	}
	return best
}

// numaNodes are the host's nodes from the facts (none known: none).
func (p *prober) numaNodes() []memNode {
	f := p.o.Facts
	if f == nil || !f.NUMA.Nodes.OK {
		return nil
	}
	allowed, _ := allowedCPUs()
	ok := map[int]bool{}
	for _, c := range allowed {
		ok[c] = true
	}
	var out []memNode
	for _, n := range f.NUMA.Nodes.Value {
		m := memNode{id: n.ID}
		for _, c := range n.CPUs {
			if ok[c] {
				m.cpus = append(m.cpus, c)
			}
		}
		out = append(out, m)
	}
	return out
}

// mapOn maps size bytes of anonymous memory, bound to node (-1: the
// default policy), every page touched so it is placed before timing.
func mapOn(node int, size int64) ([]uint64, error) {
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("mmap %d MiB: %w", size>>20, err)
	}
	if node >= 0 {
		var mask [16]uint64
		if node >= len(mask)*64 {
			unix.Munmap(b)
			return nil, fmt.Errorf("node %d beyond the mask", node)
		}
		mask[node/64] |= 1 << (node % 64)
		_, _, e := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), mpolBind,
			uintptr(unsafe.Pointer(&mask[0])), uintptr(len(mask)*64+1), 0)
		if e != 0 {
			unix.Munmap(b)
			return nil, fmt.Errorf("mbind: %w", e)
		}
	}
	w := unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	// A single cycle through every cache line in random order (Sattolo):
	// w[i*8] holds the next line's index, so the chase's loads depend on
	// each other and the prefetcher cannot guess the next one.
	lines := len(w) / 16 // the first half: memCopy writes the second
	for i := range lines {
		w[i*8] = uint64(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := lines - 1; i > 0; i-- {
		j := r.IntN(i)
		w[i*8], w[j*8] = w[j*8], w[i*8]
	}
	return w, nil
}

// onCPUs runs fn on a thread bound to cpus (none: unbound) and returns
// its value; the thread ends with the goroutine, its affinity with it.
func onCPUs(cpus []int, fn func() float64) (float64, error) {
	type out struct {
		v   float64
		err error
	}
	c := make(chan out, 1)
	go func() {
		if len(cpus) > 0 {
			runtime.LockOSThread() // never unlocked: the thread goes
			var set unix.CPUSet
			for _, cpu := range cpus {
				set.Set(cpu)
			}
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				c <- out{err: fmt.Errorf("sched_setaffinity: %w", err)}
				return
			}
		}
		c <- out{v: fn()}
	}()
	o := <-c
	return o.v, o.err
}

// memChunk is how much a timed batch of the bandwidth kernels moves: small
// enough that a window ends on time, large enough to stream.
const memChunk = 4 << 20

// memRead sums the buffer chunk by chunk with 16-byte loads (read16), on
// round the buffer, in GB/s.
func memRead(ctx context.Context, w []uint64, d time.Duration) float64 {
	var sum uint64
	words := memChunk / 8
	at := 0
	ops, el := timed(ctx, d, memChunk, func() {
		if at+words > len(w) {
			at = 0
		}
		sum += read16(&w[at], memChunk/64)
		at += words
	})
	runtime.KeepAlive(sum)
	return float64(ops) / el.Seconds() / 1e9
}

// memCopy copies the buffer's first half onto its second chunk by chunk,
// the bytes read and written counted (STREAM's copy), in GB/s. The chase
// lives in the first half only, which the copy reads and never writes.
func memCopy(ctx context.Context, w []uint64, d time.Duration) float64 {
	half := len(w) / 2 * 8
	b := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
	src, dst := b[:half], b[half:]
	at := 0
	ops, el := timed(ctx, d, 2*memChunk, func() {
		if at+memChunk > len(src) {
			at = 0
		}
		copy(dst[at:at+memChunk], src[at:at+memChunk])
		at += memChunk
	})
	return float64(ops) / el.Seconds() / 1e9
}

// memChase follows the cycle for about d and returns ns per load.
func memChase(ctx context.Context, w []uint64, d time.Duration) float64 {
	idx := uint64(0)
	ops, el := timed(ctx, d, 1024, func() {
		for range 1024 {
			idx = w[idx*8]
		}
	})
	runtime.KeepAlive(idx)
	return nsPer(el, ops)
}
