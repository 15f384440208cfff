package sample

import (
	"errors"
	"testing"
	"time"
)

func TestCPUDeltaHotplugAndBackwards(t *testing.T) {
	prev := &Stat{All: CPUTimes{CPU: -1, User: 100, Idle: 100},
		CPUs: []CPUTimes{{CPU: 0, User: 50, Idle: 50, Iowait: 10}, {CPU: 1, User: 50, Idle: 50}}}
	cur := &Stat{All: CPUTimes{CPU: -1, User: 150, Idle: 150},
		// CPU 1 went offline (no line), CPU 2 came online, CPU 0's iowait
		// went backwards (a known kernel quirk).
		CPUs: []CPUTimes{{CPU: 0, User: 90, Idle: 110, Iowait: 5}, {CPU: 2, User: 1, Idle: 1}}}
	r := CPUDelta(prev, cur, 1)
	if len(r.CPUs) != 2 || !r.CPUs[1].New || r.CPUs[1].CPU != 2 {
		t.Fatalf("%+v", r.CPUs)
	}
	c0 := r.CPUs[0]
	if c0.Iowait != 0 || !near(c0.User, 40, 1e-9) || !near(c0.Idle, 60, 1e-9) || c0.Reset {
		t.Errorf("cpu0 %+v", c0)
	}
	// Everything going backwards: a reset, no percentages.
	r = CPUDelta(cur, prev, 1)
	if !r.All.Reset {
		t.Errorf("all %+v", r.All)
	}
	// Guest time is inside user: taken out and shown on its own.
	p := &Stat{All: CPUTimes{CPU: -1}}
	c := &Stat{All: CPUTimes{CPU: -1, User: 60, Guest: 40, Idle: 40}}
	if g := CPUDelta(p, c, 1).All; !near(g.User, 20, 1e-9) || !near(g.Guest, 40, 1e-9) || !near(g.Idle, 40, 1e-9) {
		t.Errorf("guest %+v", g)
	}
}

func TestDiskDeltaNewAndReset(t *testing.T) {
	prev := []Disk{{Name: "sda", RdIOs: 100, RdSectors: 800, IOTicks: 10}, {Name: "sdb", WrIOs: 50, WrSectors: 400}}
	cur := []Disk{
		{Name: "sda", RdIOs: 110, RdSectors: 880, RdTicks: 20, IOTicks: 510, QueueTicks: 250},
		{Name: "sdb", WrIOs: 3, WrSectors: 24}, // re-created: counters restarted
		{Name: "sdc", WrIOs: 4, WrSectors: 64}, // all zero before (not kept) or hot-added
	}
	r := DiskDelta(prev, cur, 1)
	if len(r) != 3 {
		t.Fatalf("%+v", r)
	}
	if a := r[0]; a.RPS != 10 || a.RkBPS != 40 || a.RAwait != 2 || a.Util != 50 || a.AquSz != 0.25 || a.RAreqKB != 4 {
		t.Errorf("sda %+v", a)
	}
	if !r[1].Reset || r[1].WPS != 0 {
		t.Errorf("sdb %+v", r[1])
	}
	if !r[2].New || r[2].WPS != 4 || r[2].WkBPS != 32 {
		t.Errorf("sdc %+v", r[2])
	}
}

func TestThreadDeltaLifecycle(t *testing.T) {
	prev := Threads{
		{TID: 10, Name: "main", Start: 100, Utime: 50, RunNS: 5e8},
		{TID: 11, Name: "gone", Start: 101, Utime: 10},
		{TID: 12, Name: "old12", Start: 102, Utime: 70, RunNS: 7e8},
		{TID: 13, Name: "hot", Start: 103, Utime: 10, Stime: 5, RunNS: 1e8, WaitNS: 0, VCS: 5, NVCS: 1},
	}
	cur := Threads{
		{TID: 10, Name: "main", Start: 100, Utime: 50, RunNS: 5e8},
		{TID: 12, Name: "new12", Start: 300, Utime: 1, RunNS: 1e7},                                             // TID reused
		{TID: 13, Name: "hot", Start: 103, Utime: 190, Stime: 15, RunNS: 2.1e9, WaitNS: 5e8, VCS: 5, NVCS: 41}, // 2 s later
		{TID: 14, Name: "fresh", Start: 310, Utime: 2, RunNS: 2e7},
		{TID: 15, Name: "missed", Start: 50, Utime: 900, RunNS: 9e9}, // existed at prev, not read then
	}
	r := ThreadDelta(prev, cur, 2)
	if len(r.Threads) != 5 || r.New != 3 {
		t.Fatalf("%+v", r)
	}
	if len(r.Exited) != 2 || r.Exited[0] != 11 || r.Exited[1] != 12 {
		t.Errorf("exited %v", r.Exited)
	}
	top := r.Threads[0]
	if top.TID != 13 || !near(top.CPUPct, 100, 1e-9) || !near(top.UserPct, 90, 1e-9) || !near(top.SysPct, 5, 1e-9) ||
		!near(top.WaitPct, 25, 1e-9) || top.NVCSPS != 20 || top.VCSPS != 0 {
		t.Errorf("top %+v", top)
	}
	for _, tr := range r.Threads {
		switch tr.TID {
		case 12:
			if !tr.New || tr.Name != "new12" || !near(tr.CPUPct, 0.5, 1e-9) {
				t.Errorf("reused %+v", tr)
			}
		case 15:
			if !tr.New || tr.CPUPct != 0 {
				t.Errorf("missed thread charged its whole life: %+v", tr)
			}
		}
	}
}

func TestIRQAndSoftirqDeltaAlignCPUs(t *testing.T) {
	prev := &Interrupts{CPUs: []int{0, 1, 2}, Rows: []IRQRow{{IRQ: "41", Counts: []uint64{10, 20, 30}}}}
	cur := &Interrupts{CPUs: []int{0, 2}, Rows: []IRQRow{ // CPU 1 offline
		{IRQ: "41", Name: "eth0-rx-0", Counts: []uint64{15, 40}},
		{IRQ: "42", Name: "eth0-tx-0", Counts: []uint64{0, 8}}, // was all zero
		{IRQ: "43", Counts: []uint64{5, 5}},
	}}
	prev.Rows = append(prev.Rows, IRQRow{IRQ: "43", Counts: []uint64{5, 0, 5}})
	r := IRQDelta(prev, cur, 1)
	if len(r.Rows) != 2 || r.Rows[0].IRQ != "41" || r.Rows[0].PerSec[0] != 5 || r.Rows[0].PerSec[1] != 10 || r.Rows[1].IRQ != "42" || r.Rows[1].Total != 8 {
		t.Errorf("%+v", r.Rows)
	}
	ps := &Softirqs{CPUs: []int{0, 1}, Rows: []SoftirqRow{{Type: "NET_RX", Counts: []uint64{100, 200}}}}
	cs := &Softirqs{CPUs: []int{0, 1}, Rows: []SoftirqRow{{Type: "NET_RX", Counts: []uint64{150, 100}}}}
	sr := SoftirqDelta(ps, cs, 0.5)
	if row := sr.Rows[0]; row.PerSec[0] != 100 || row.PerSec[1] != 0 || !row.Reset {
		t.Errorf("%+v", row)
	}
}

func TestNetTCPPSIProcDelta(t *testing.T) {
	n := NetDelta([]NetDev{{Name: "eth0", RxBytes: 1024, RxPackets: 1, RxDrop: 2}, {Name: "eth1", RxBytes: 5000}},
		[]NetDev{{Name: "eth0", RxBytes: 3072, RxPackets: 3, RxDrop: 6}, {Name: "eth1", RxBytes: 10}, {Name: "eth2"}}, 2)
	if n[0].RxKBPS != 1 || n[0].RxPPS != 1 || n[0].RxDropPS != 2 || !n[1].Reset || !n[2].New {
		t.Errorf("%+v", n)
	}
	tc := TCPDelta(&TCP{Counters: map[string]uint64{"Tcp.OutSegs": 1000, "Tcp.RetransSegs": 10, "Tcp.CurrEstab": 5}},
		&TCP{Counters: map[string]uint64{"Tcp.OutSegs": 3000, "Tcp.RetransSegs": 50, "Tcp.CurrEstab": 7}, TimeWait: 9}, 1)
	if tc.RetransPct != 2 || tc.Estab != 7 || tc.TimeWait != 9 || tc.PerSec["Tcp.OutSegs"] != 2000 {
		t.Errorf("%+v", tc)
	}
	if _, ok := tc.PerSec["Tcp.CurrEstab"]; ok {
		t.Error("CurrEstab is a level, not a rate")
	}
	p := PSIDelta(map[string]PSI{"cpu": {SomeTotal: 1000}}, map[string]PSI{"cpu": {SomeTotal: 251000, SomeAvg10: 20}}, 1)
	if p["cpu"].SomePct != 25 || p["cpu"].SomeAvg10 != 20 {
		t.Errorf("%+v", p)
	}
	pr := ProcDelta(&Proc{PID: 1, Start: 5, Utime: 100, Stime: 10}, &Proc{PID: 1, Start: 5, Utime: 250, Stime: 60, FDs: 500, FDSoft: 1000}, 1)
	if pr.CPUPct != 200 || pr.UserPct != 150 || pr.FDPct != 50 {
		t.Errorf("%+v", pr)
	}
	if pr := ProcDelta(&Proc{PID: 1, Start: 5}, &Proc{PID: 1, Start: 9}, 1); !pr.Reset {
		t.Errorf("new process under the same PID: %+v", pr)
	}
}

func TestDeltaOrder(t *testing.T) {
	now := time.Now()
	if _, err := Delta(&Snapshot{Time: now}, &Snapshot{Time: now}); !errors.Is(err, ErrInterval) {
		t.Errorf("%v", err)
	}
	r, err := Delta(&Snapshot{Time: now}, &Snapshot{Time: now.Add(time.Second)})
	if err != nil || r.CPU != nil || r.Threads != nil || r.Disks != nil {
		t.Errorf("empty snapshots: %+v %v", r, err)
	}
}

// A CPU busy in one state for the whole interval is at exactly 100%: the
// run page's schema caps shares at 100, and 3 ticks once gave
// 100.00000000000001.
func TestCPUPctWholeIntervalIsExactly100(t *testing.T) {
	for n := uint64(1); n <= 5000; n++ {
		p, c := &CPUTimes{User: 7, Idle: 11}, &CPUTimes{User: 7 + n, Idle: 11}
		if got := cpuPct(p, c); got.User != 100 || got.Idle != 0 {
			t.Fatalf("%d user ticks of %d: user %v idle %v", n, n, got.User, got.Idle)
		}
	}
}
