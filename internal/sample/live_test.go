package sample

import (
	"bytes"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

func failOnPanic(t *testing.T) func(string, any, []byte) {
	return func(n string, v any, st []byte) { t.Errorf("sampler %s panicked: %v\n%s", n, v, st) }
}

// TestLiveBusyThread samples the live host with a child process that has
// one spinning thread and 20 sleeping ones: two ticks a second apart must
// put the spinning thread on top with its TID, and each CPU's states must
// add up to 100%.
func TestLiveBusyThread(t *testing.T) {
	ch := startChild(t, "idle=20,busy=1")
	c, err := New(hostfs.Live(), Options{PID: ch.PID, OnPanic: failOnPanic(t)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	a := c.Collect(time.Now(), nil)
	time.Sleep(time.Second)
	b := c.Collect(time.Now(), nil)
	for _, o := range b.Samplers {
		switch {
		case o.Status == StatusFailed:
			t.Errorf("%s failed: %s", o.Name, o.Reason)
		case o.Status == StatusUnavailable && (o.Name == "process" || o.Name == "threads" || o.Name == "cpu"):
			t.Errorf("%s unavailable: %s", o.Name, o.Reason)
		}
	}
	r, err := Delta(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Threads == nil || len(r.Threads.Threads) < 21 {
		t.Fatalf("threads: %+v", r.Threads)
	}
	top := r.Threads.Threads[0]
	if len(ch.Busy) != 1 || top.TID != ch.Busy[0] {
		t.Fatalf("top thread %+v, busy TIDs %v", top, ch.Busy)
	}
	// On a saturated host the spinner is runnable all the time but may get
	// less than half a CPU; it then waits on the run queue the rest.
	if top.CPUPct <= 50 {
		if top.CPUPct+top.WaitPct < 80 || r.CPU.All.Idle > 10 {
			t.Errorf("busy thread %+v (host idle %.1f%%)", top, r.CPU.All.Idle)
		} else {
			t.Logf("host saturated: busy thread on CPU %.1f%%, waiting %.1f%%", top.CPUPct, top.WaitPct)
		}
	}
	if top.State != "R" {
		t.Errorf("busy thread state %q", top.State)
	}
	if r.Proc == nil || r.Proc.CPUPct < top.CPUPct*0.5 || r.Proc.FDs <= 0 || r.Proc.RSSKB == 0 {
		t.Errorf("process %+v", r.Proc)
	}
	if r.CPU == nil || len(r.CPU.CPUs) == 0 {
		t.Fatalf("cpu %+v", r.CPU)
	}
	for _, cp := range append([]CPUPct{r.CPU.All}, r.CPU.CPUs...) {
		sum := cp.User + cp.Nice + cp.System + cp.Idle + cp.Iowait + cp.IRQ + cp.SoftIRQ + cp.Steal + cp.Guest + cp.GuestNice
		if !near(sum, 100, 0.01) {
			t.Errorf("cpu %d sums to %.3f: %+v", cp.CPU, sum, cp)
		}
	}
	if b.CostUS <= 0 || b.Self.CPUUS <= 0 {
		t.Errorf("cost %d us, self %+v", b.CostUS, b.Self)
	}
	// The snapshot round-trips through a JSON line.
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode(b); err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatal(err)
	}
	r2, err := Delta(a, &back)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Threads.Threads[0].TID != top.TID || !near(r2.Threads.Threads[0].CPUPct, top.CPUPct, 1e-6) {
		t.Errorf("after round trip: %+v", r2.Threads.Threads[0])
	}
}

// TestVanishedProcess: a target that exits makes the process samplers
// unavailable once; the host samplers go on.
func TestVanishedProcess(t *testing.T) {
	ch := startChild(t, "idle=2")
	c, err := New(hostfs.Live(), Options{PID: ch.PID, OnPanic: failOnPanic(t)})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Collect(time.Now(), nil)
	if !s.OK("process") || !s.OK("threads") {
		t.Fatalf("before exit: %+v", s.Samplers)
	}
	ch.Stop()
	for i := range 3 {
		s = c.Collect(time.Now(), s)
		for _, name := range []string{"process", "threads"} {
			o, _ := s.Outcome(name)
			if o.Status != StatusUnavailable {
				t.Errorf("tick %d %s: %+v", i, name, o)
			}
			if i == 0 && !strings.Contains(o.Reason, "exited") {
				t.Errorf("%s reason %q", name, o.Reason)
			}
			if i > 0 && (o.Reason != "" || o.CostUS != 0) {
				t.Errorf("tick %d %s said again: %+v", i, name, o)
			}
		}
		if s.Proc != nil || len(s.Threads) != 0 {
			t.Errorf("tick %d: stale process data", i)
		}
		if !s.OK("cpu") || !s.OK("meminfo") {
			t.Errorf("host samplers stopped: %+v", s.Samplers)
		}
	}
}

// TestMissingSourcesUnavailableOnce: on an empty tree every sampler is
// unavailable with a reason on the first tick, then silent.
func TestMissingSourcesUnavailableOnce(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"proc", "sys"} {
		if err := os.MkdirAll(dir+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c, err := New(hostfs.Under(dir), Options{PID: 4242, OnPanic: failOnPanic(t)})
	if err != nil {
		t.Fatal(err)
	}
	s1 := c.Collect(time.Now(), nil)
	s2 := c.Collect(time.Now(), nil)
	if len(s1.Samplers) == 0 {
		t.Fatal("no samplers")
	}
	for i, o := range s1.Samplers {
		if o.Status != StatusUnavailable || o.Reason == "" {
			t.Errorf("tick 1: %+v", o)
		}
		if o2 := s2.Samplers[i]; o2.Status != StatusUnavailable || o2.Reason != "" {
			t.Errorf("tick 2: %+v", o2)
		}
	}
	if _, err := New(hostfs.Live(), Options{Enable: []string{"nope"}}); err == nil {
		t.Error("unknown sampler accepted")
	}
}

// TestReuseSnapshots: alternating two snapshots keeps them independent.
func TestReuseSnapshots(t *testing.T) {
	c, err := New(hostfs.Live(), Options{PID: os.Getpid(), OnPanic: failOnPanic(t)})
	if err != nil {
		t.Fatal(err)
	}
	var s [2]Snapshot
	c.Collect(time.Now(), &s[0])
	time.Sleep(20 * time.Millisecond)
	c.Collect(time.Now(), &s[1])
	for i := 2; i < 6; i++ {
		time.Sleep(20 * time.Millisecond)
		cur, prev := &s[i%2], &s[(i+1)%2]
		c.Collect(time.Now(), cur)
		if cur.Tick != int64(i+1) || prev.Tick != int64(i) {
			t.Fatalf("ticks %d %d", cur.Tick, prev.Tick)
		}
		r, err := Delta(prev, cur)
		if err != nil {
			t.Fatal(err)
		}
		if r.CPU == nil || r.Threads == nil || r.Proc == nil {
			t.Fatalf("tick %d: missing parts %+v", i, r)
		}
		for _, tr := range r.Threads.Threads {
			if tr.CPUPct > 100.5 {
				t.Errorf("tick %d thread %+v", i, tr)
			}
		}
	}
}

// TestLiveTCPStates reads the socket tables of this process's namespace
// through the streaming reader, with a listener of our own.
func TestLiveTCPStates(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := New(hostfs.Live(), Options{PID: os.Getpid(), Enable: []string{"tcpstates"}, OnPanic: failOnPanic(t)})
	if err != nil {
		t.Fatal(err)
	}
	// A tiny buffer makes lines straddle reads.
	c.env.r.buf = make([]byte, 200)
	s := c.Collect(time.Now(), nil)
	if o, _ := s.Outcome("tcpstates"); o.Status != StatusOK {
		t.Fatalf("%+v", o)
	}
	found := false
	for _, l := range s.TCPStates.Listen {
		found = found || l.Port == port
	}
	if !found || s.TCPStates.States["LISTEN"] == 0 || !strings.HasSuffix(s.TCPStates.Src, "/net") {
		t.Errorf("port %d not listed: %+v", port, s.TCPStates)
	}
}

// TestReplay writes ticks as JSON lines with a torn line in the middle and
// replays them into rates.
func TestReplay(t *testing.T) {
	c, err := New(hostfs.Live(), Options{PID: os.Getpid(), OnPanic: failOnPanic(t)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for i := range 4 {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		if err := enc.Encode(c.Collect(time.Now(), nil)); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			buf.WriteString(`{"t":"2026-11-22T00:00:00Z","threads":[[1,"x"` + "\n")
		}
	}
	buf.WriteString(`{"t":"2026`) // torn last line, no newline
	var n, bad int
	err = Replay(&buf, func(r *Rates, cur *Snapshot) error {
		n++
		if r.CPU == nil || r.Threads == nil || len(r.Threads.Threads) == 0 || r.Threads.Threads[0].NID()[:2] != "0x" {
			t.Errorf("rates %+v", r)
		}
		return nil
	}, func(error) { bad++ })
	if err != nil || n != 3 || bad != 2 {
		t.Errorf("replay: %d intervals, %d bad lines, %v", n, bad, err)
	}
}
