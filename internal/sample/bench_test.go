package sample

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchCollect runs Collect b.N times, alternating two snapshots as the
// recorder does, and reports CPU ms per tick and the share of one core at
// a 1 s interval, which is the budget that matters (at most 1%).
func benchCollect(b *testing.B, pid int, only ...string) {
	opts := Options{PID: pid}
	if len(only) > 0 {
		for n := range Available() {
			opts.Disable = append(opts.Disable, n)
		}
		opts.Enable = only
	}
	c, err := New(hostfs.Live(), opts)
	if err != nil {
		b.Fatal(err)
	}
	var snaps [2]Snapshot
	c.Collect(time.Now(), &snaps[1]) // warm buffers
	for _, o := range snaps[1].Samplers {
		if o.Status != StatusOK {
			b.Logf("%s: %s %s", o.Name, o.Status, o.Reason)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		c.Collect(time.Now(), &snaps[i%2])
	}
	cpu := cpuTime() - cpu0
	n := float64(b.N)
	b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/tick")
	b.ReportMetric(float64(cpu.Microseconds())/1e6/n*100, "%core@1s")
	b.ReportMetric(float64(len(snaps[0].Threads)), "threads")
	b.ReportMetric(float64(maxRSSKB())/1024, "MB-maxrss")
}

// maxRSSKB is this process's peak resident set (the whole test binary:
// an upper bound for the recorder).
func maxRSSKB() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss
}

// BenchmarkCollectSelf samples the host with this process as the target.
func BenchmarkCollectSelf(b *testing.B) { benchCollect(b, os.Getpid()) }

// BenchmarkCollect500Threads samples the host and a child with 500
// sleeping threads: the production budget is 1% of a core at 1 s.
func BenchmarkCollect500Threads(b *testing.B) {
	ch := startChild(b, "idle=500")
	b.Run("all", func(b *testing.B) { benchCollect(b, ch.PID) })
	b.Run("threads", func(b *testing.B) { benchCollect(b, ch.PID, "threads") })
	b.Run("host", func(b *testing.B) { benchCollect(b, 0) })
}

// BenchmarkEncode500Threads measures writing one tick as a JSON line.
func BenchmarkEncode500Threads(b *testing.B) {
	ch := startChild(b, "idle=500")
	c, err := New(hostfs.Live(), Options{PID: ch.PID})
	if err != nil {
		b.Fatal(err)
	}
	s := c.Collect(time.Now(), nil)
	enc := NewEncoder(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		if err := enc.Encode(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(enc.last), "bytes/tick")
	b.ReportMetric(float64(enc.last)*3600/1e6, "MB/hour@1s")
	runtime.KeepAlive(s)
}

// TestRecorderFootprint records 300 ticks of a 500-thread target back to
// back, encoding each as the recorder would, and checks the budget: CPU per
// tick (at most 1% of a core at a 1 s interval) and resident memory.
func TestRecorderFootprint(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("spawns 500 threads; budgets mean nothing under -race")
	}
	ch := startChild(t, "idle=500")
	c, err := New(hostfs.Live(), Options{PID: ch.PID})
	if err != nil {
		t.Fatal(err)
	}
	enc := NewEncoder(io.Discard)
	var snaps [2]Snapshot
	for i := range 5 {
		c.Collect(time.Now(), &snaps[i%2])
	}
	runtime.GC()
	rss0 := statusRSSKB(t)
	const n = 300
	cpu0 := cpuTime()
	for i := range n {
		s := c.Collect(time.Now(), &snaps[i%2])
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := Delta(&snaps[(i+1)%2], s); err != nil {
				t.Fatal(err)
			}
		}
	}
	perTick := (cpuTime() - cpu0) / n
	rss1 := statusRSSKB(t)
	t.Logf("500 threads: %.2f ms CPU per tick (%.2f%% of a core at 1 s), %d threads read; RSS %d -> %d kB, %d bytes/line",
		float64(perTick.Microseconds())/1000, float64(perTick.Microseconds())/1e4, len(snaps[0].Threads), rss0, rss1, enc.last)
	if perTick > 10*time.Millisecond {
		t.Errorf("%v CPU per tick: over 1%% of a core at 1 s", perTick)
	}
	if rss1 > 50<<10 {
		t.Errorf("RSS %d kB over 50 MB", rss1)
	}
	if rss1-rss0 > 8<<10 {
		t.Errorf("RSS grew %d kB over %d ticks", rss1-rss0, n)
	}
}

func statusRSSKB(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Has&FieldVmRSS == 0 {
		t.Fatal("no VmRSS")
	}
	return int64(st.VmRSS >> 10)
}

// BenchmarkParsers runs each parser on this host's captured files
// (testdata/host/tick-0 and the java-proc thread files).
func BenchmarkParsers(b *testing.B) {
	read := func(p string) []byte {
		data, err := os.ReadFile("testdata/" + p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	h := "host/tick-0/"
	var sc scratch
	var ps ProcStatus
	cases := []struct {
		name string
		file string
		fn   func([]byte) error
	}{
		{"stat", h + "proc/stat", func(d []byte) error { return parseStat(d, new(Stat), &sc) }},
		{"softirqs", h + "proc/softirqs", func(d []byte) error { _, err := parseSoftirqs(d, &sc); return err }},
		{"interrupts", h + "proc/interrupts", func(d []byte) error { _, err := parseInterrupts(d, &sc, false); return err }},
		{"meminfo", h + "proc/meminfo", func(d []byte) error { return parseMeminfo(d, map[string]uint64{}, &sc) }},
		{"vmstat", h + "proc/vmstat", func(d []byte) error { return parseVmstat(d, map[string]uint64{}, vmWanted, &sc) }},
		{"diskstats", h + "proc/diskstats", func(d []byte) error { _, err := parseDiskstats(d, nil, &sc); return err }},
		{"netdev", h + "proc/net/dev", func(d []byte) error { _, err := parseNetDev(d, nil, &sc); return err }},
		{"netstat", h + "proc/net/netstat", func(d []byte) error { return parseSnmp(d, map[string]uint64{}, keepSet(), &sc) }},
		{"psi", h + "proc/pressure/cpu", func(d []byte) error { _, err := parsePSI(d, &sc); return err }},
		{"pidstat", "java-proc/tick-0/proc/6410/task/6492/stat", func(d []byte) error { _, err := parsePidStat(d, &sc); return err }},
		{"ctxtswitches", "java-proc/tick-0/proc/6410/task/6492/status", func(d []byte) error { _, _, err := parseCtxtSwitches(d, &ps); return err }},
		{"procstatus", "java-proc/tick-0/proc/6410/status", func(d []byte) error { return parseProcStatus(d, new(Proc), &ps) }},
		{"status-all", "java-proc/tick-0/proc/6410/status", func(d []byte) error { _, err := ParseStatus(d); return err }},
	}
	for _, c := range cases {
		data := read(c.file)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := c.fn(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
