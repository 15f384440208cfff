package diagnose

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

var (
	t0         = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	diagTarget = &runfolder.Target{PID: 4242, Comm: "java"}
)

// series builds n idle ticks on ncpu CPUs and applies mut to each.
func series(n, ncpu int, mut func(i int, t *Tick)) *Series {
	s := &Series{Schema: SeriesSchema}
	for c := range ncpu {
		s.CPUs = append(s.CPUs, c)
	}
	for i := range n {
		t := Tick{T: t0.Add(time.Duration(i+1) * time.Second), Secs: 1, All: &CPU{Idle: 100}}
		t.CPUs = make([]CPU, ncpu)
		for c := range t.CPUs {
			t.CPUs[c].Idle = 100
		}
		t.Proc = &Proc{CPUPct: 3, Threads: 30, FDs: 10, FDSoft: 1024}
		t.Threads = &Threads{N: 30, CPUPct: 5, Top: []Thread{{TID: 100, Name: "main", CPUPct: 3}, {TID: 101, Name: "worker", CPUPct: 2}}}
		t.TCP = &TCP{}
		if mut != nil {
			mut(i, &t)
		}
		s.Ticks = append(s.Ticks, t)
	}
	return s
}

func setAll(t *Tick, us, sy, si, wa, st float64) {
	t.All = &CPU{User: us, System: sy, Soft: si, Iowait: wa, Steal: st, Idle: max(0, 100-us-sy-si-wa-st)}
}

func facts(ncpu int) *sysinfo.Facts {
	f := &sysinfo.Facts{}
	var cpus []int
	for c := range ncpu {
		cpus = append(cpus, c)
	}
	f.CPU.Online = sysinfo.Got(cpus, "/sys/devices/system/cpu/online")
	return f
}

func diag(s *Series, f *sysinfo.Facts) []finding.Finding {
	if f == nil {
		f = facts(len(s.CPUs))
	}
	return Diagnose(Input{Facts: f, Target: diagTarget, Series: s, Start: t0})
}

func find(fs []finding.Finding, id string) *finding.Finding {
	for i := range fs {
		if fs[i].ID == id && fs[i].Status == finding.Fail {
			return &fs[i]
		}
	}
	return nil
}

// Each case is a condition just at its threshold (fires) and just short
// of it (does not).
func TestThresholdEdges(t *testing.T) {
	const n = 10
	cases := []struct {
		id       string
		at, just func(i int, t *Tick)
	}{
		{IDCPUSaturated,
			func(_ int, t *Tick) { setAll(t, 80, 10, 0, 0, 0) },
			func(_ int, t *Tick) { setAll(t, 79.9, 10, 0, 0, 0) }},
		{IDHotCPU,
			func(_ int, t *Tick) {
				t.CPUs[2] = CPU{User: 90, Idle: 10}
				t.CPUs[0] = CPU{User: 100}
				t.CPUs[1] = CPU{User: 50, Idle: 50}
			},
			func(_ int, t *Tick) { t.CPUs[2] = CPU{User: 89.9, Idle: 10.1} }},
		{IDHotCPU, // others' mean at the limit vs just over it
			func(_ int, t *Tick) {
				t.CPUs[0] = CPU{User: 95, Idle: 5}
				t.CPUs[1] = CPU{User: 75, Idle: 25}
				t.CPUs[2] = CPU{User: 75, Idle: 25}
			},
			func(_ int, t *Tick) {
				t.CPUs[0] = CPU{User: 95, Idle: 5}
				t.CPUs[1] = CPU{User: 75.2, Idle: 24.8}
				t.CPUs[2] = CPU{User: 75, Idle: 25}
			}},
		{IDSoftirqConcentrated,
			func(_ int, t *Tick) {
				t.CPUs[1] = CPU{Soft: 30, Idle: 70}
				t.CPUs[0] = CPU{Soft: 10, Idle: 90}
				t.CPUs[2] = CPU{Soft: 10, Idle: 90}
				t.CPUs[3] = CPU{Soft: 10, Idle: 90}
			},
			func(_ int, t *Tick) { t.CPUs[1] = CPU{Soft: 29.9, Idle: 70.1} }},
		{IDSoftirqConcentrated, // ratio edge: 3x the others
			func(_ int, t *Tick) {
				t.CPUs[1] = CPU{Soft: 60, Idle: 40}
				t.CPUs[0] = CPU{Soft: 20, Idle: 80}
				t.CPUs[2] = CPU{Soft: 20, Idle: 80}
				t.CPUs[3] = CPU{Soft: 20, Idle: 80}
			},
			func(_ int, t *Tick) {
				t.CPUs[1] = CPU{Soft: 60, Idle: 40}
				t.CPUs[0] = CPU{Soft: 20.1, Idle: 79.9}
				t.CPUs[2] = CPU{Soft: 20, Idle: 80}
				t.CPUs[3] = CPU{Soft: 20, Idle: 80}
			}},
		{IDSerialThread,
			func(_ int, t *Tick) { serial(t, 60, 20, 99.9) },
			func(_ int, t *Tick) { serial(t, 60, 19.9, 50) }},
		{IDSerialThread, // the rest of the process at one core: parallel work, not serial
			func(_ int, t *Tick) { serial(t, 90, 5, 99.9) },
			func(_ int, t *Tick) { serial(t, 90, 5, 100) }},
		{IDIdleUnderLoad,
			func(_ int, t *Tick) { setAll(t, 30, 20, 0, 0, 0); t.Threads.VCSPS = 500; t.Proc.CPUPct = 150 },
			func(_ int, t *Tick) { setAll(t, 30, 20.1, 0, 0, 0); t.Threads.VCSPS = 500; t.Proc.CPUPct = 150 }},
		{IDIdleUnderLoad, // no sign of load
			func(_ int, t *Tick) { t.RxPPS = 1000; t.Proc.CPUPct = 10 },
			func(_ int, t *Tick) { t.RxPPS = 999; t.Threads.VCSPS = 499; t.Proc.CPUPct = 10 }},
		{IDIdleUnderLoad, // an idle JVM: timers switch, no real work
			func(_ int, t *Tick) { t.Threads.VCSPS = 800; t.Proc.CPUPct = 5 },
			func(_ int, t *Tick) { t.Threads.VCSPS = 800; t.Proc.CPUPct = 4.9 }},
		{IDIdleUnderLoad, // the target already uses half the cores: not idle-bound
			func(_ int, t *Tick) { t.Threads.VCSPS = 800; t.Proc.CPUPct = 199.9 },
			func(_ int, t *Tick) { t.Threads.VCSPS = 800; t.Proc.CPUPct = 200 }},
		{IDRunQueue,
			func(_ int, t *Tick) { t.Running = 5 },
			func(_ int, t *Tick) { t.Running = 4 }},
		{IDCtxSwitch,
			func(_ int, t *Tick) { t.CtxtPS = 80000 },
			func(_ int, t *Tick) { t.CtxtPS = 79999 }},
		{IDIowait,
			func(_ int, t *Tick) { setAll(t, 5, 5, 0, 20, 0) },
			func(_ int, t *Tick) { setAll(t, 5, 5, 0, 19.9, 0) }},
		{IDDiskSaturated,
			func(_ int, t *Tick) { t.Disks = []Disk{{Name: "sda", Util: 90, AquSz: 1}, {Name: "sdb", Util: 10}} },
			func(_ int, t *Tick) { t.Disks = []Disk{{Name: "sda", Util: 89.9, AquSz: 4}} }},
		{IDDiskSaturated, // busy but no queue
			func(_ int, t *Tick) { t.Disks = []Disk{{Name: "sda", Util: 100, AquSz: 1}} },
			func(_ int, t *Tick) { t.Disks = []Disk{{Name: "sda", Util: 100, AquSz: 0.99}} }},
		{IDMemPressure,
			func(_ int, t *Tick) { t.SwapPS = 100 },
			func(_ int, t *Tick) { t.SwapPS = 99.9 }},
		{IDMemPressure,
			func(_ int, t *Tick) { t.PSI = map[string]PSIPct{"memory": {Some: 10}} },
			func(_ int, t *Tick) { t.PSI = map[string]PSIPct{"memory": {Some: 9.9}} }},
		{IDMemPressure,
			func(_ int, t *Tick) { t.ReclaimPS = 1 },
			func(_ int, t *Tick) { t.ReclaimPS = 0 }},
		{IDSteal,
			func(_ int, t *Tick) { setAll(t, 20, 5, 0, 0, 10) },
			func(_ int, t *Tick) { setAll(t, 20, 5, 0, 0, 9.9) }},
		{IDTCPRetrans,
			func(_ int, t *Tick) { t.TCP = &TCP{OutSegsPS: 100, RetransPS: 2, RetransPct: 2} },
			func(_ int, t *Tick) { t.TCP = &TCP{OutSegsPS: 100, RetransPS: 1.9, RetransPct: 1.9} }},
		{IDTCPRetrans, // too little traffic for the ratio to mean anything
			func(_ int, t *Tick) { t.TCP = &TCP{OutSegsPS: 1000, RetransPct: 50} },
			func(_ int, t *Tick) { t.TCP = &TCP{OutSegsPS: 99, RetransPct: 50} }},
		{IDListenOverflow,
			func(i int, t *Tick) {
				if i == 3 {
					t.TCP.ListenOverflowsPS = 1
				}
			},
			nil},
		{IDFDs,
			func(i int, t *Tick) {
				if i == 7 {
					t.Proc.FDs, t.Proc.FDPct = 820, 80
				}
			},
			func(_ int, t *Tick) { t.Proc.FDs, t.Proc.FDPct = 818, 79.9 }},
	}
	for _, tc := range cases {
		fs := diag(series(n, 4, tc.at), nil)
		f := find(fs, tc.id)
		if f == nil {
			t.Errorf("%s: did not fire at the threshold; got %v", tc.id, ids(fs))
			continue
		}
		if len(f.Evidence) < 2 || f.Evidence[0].Key != "window" || f.Observed.EN == "" || f.Observed.ZH == "" ||
			f.Title.ZH == "" || f.Why.ZH == "" || f.Confidence <= 0 || f.Confidence > 1 {
			t.Errorf("%s: incomplete finding %+v", tc.id, f)
		}
		if b, _ := json.Marshal(fs); strings.Contains(string(b), "%!") {
			t.Errorf("%s: bad format in %s", tc.id, b)
		}
		fs = diag(series(n, 4, tc.just), nil)
		if f := find(fs, tc.id); f != nil {
			t.Errorf("%s: fired just short of the threshold: %s", tc.id, f.Observed.EN)
		}
	}
}

// serial makes thread 200 the top thread with the given CPU and wait, and
// the other threads together demanding others% of a core.
func serial(t *Tick, cpu, wait, others float64) {
	t.Threads = &Threads{N: 21, CPUPct: cpu + others, Wait: wait,
		Top: []Thread{{TID: 200, Name: "hot-worker", CPUPct: cpu, Wait: wait}, {TID: 201, Name: "idle", CPUPct: others}}}
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Key()+":"+string(f.Status)+":"+f.Severity.String())
	}
	return out
}

func TestSustained(t *testing.T) {
	// Half the ticks fire; fewer do not.
	mk := func(k int) *Series {
		return series(10, 2, func(i int, t *Tick) {
			if i < k {
				setAll(t, 95, 5, 0, 0, 0)
			}
		})
	}
	if find(diag(mk(5), nil), IDCPUSaturated) == nil {
		t.Error("5 of 10 ticks: not sustained")
	}
	if find(diag(mk(4), nil), IDCPUSaturated) != nil {
		t.Error("4 of 10 ticks: sustained")
	}
	// A single tick is never enough, even as the whole run.
	if find(diag(series(3, 2, func(i int, t *Tick) {
		if i == 0 {
			setAll(t, 100, 0, 0, 0, 0)
		}
	}), nil), IDCPUSaturated) != nil {
		t.Error("one tick of three sustained")
	}
}

func TestCPUSaturatedKindAndThread(t *testing.T) {
	s := series(6, 2, func(_ int, t *Tick) {
		setAll(t, 30, 68, 0, 0, 0)
		t.Proc.CPUPct = 180
		t.Threads.Top = []Thread{{TID: 300, Name: "burner", CPUPct: 90, Wait: 10}, {TID: 301, Name: "x", CPUPct: 1}}
	})
	f := find(diag(s, nil), IDCPUSaturated)
	if f == nil || !strings.Contains(f.Title.EN, "system-bound") || f.Severity != finding.Critical {
		t.Fatalf("want critical system-bound, got %+v", f)
	}
	if !strings.Contains(f.Observed.EN, `"burner" tid=300 nid=0x12c`) || !strings.Contains(f.Fix.Apply, "tuneloop jvm 4242") || !strings.Contains(f.Fix.Note.EN, "nid=0x12c") {
		t.Errorf("hot thread not named: %s / %s", f.Observed.EN, f.Fix.Apply)
	}
	s = series(6, 2, func(_ int, t *Tick) { setAll(t, 85, 7, 0, 0, 0) })
	f = find(diag(s, nil), IDCPUSaturated)
	if f == nil || !strings.Contains(f.Title.EN, "user-bound") || f.Severity != finding.Warning {
		t.Fatalf("want warning user-bound, got %+v", f)
	}
}

func TestSerialAndSaturationLinked(t *testing.T) {
	// One CPU hot because of one thread: the thread is the cause.
	s := series(8, 2, func(_ int, t *Tick) {
		t.CPUs[1] = CPU{User: 99, Idle: 1}
		serial(t, 99, 1, 3)
	})
	fs := diag(s, nil)
	if fs[0].ID != IDSerialThread {
		t.Fatalf("serial thread not first: %v", ids(fs))
	}
	if h := find(fs, IDHotCPU); h == nil || h.Severity != finding.Info || !strings.Contains(h.Observed.EN, "Symptom of "+IDSerialThread) {
		t.Errorf("hot CPU not linked: %+v", h)
	}
	if !strings.Contains(fs[0].Observed.EN, `"hot-worker" tid=200 nid=0xc8`) {
		t.Errorf("thread not named: %s", fs[0].Observed.EN)
	}
}

// A serial thread on a host saturated by others: the thread ranks first.
func TestSerialOutranksHostSaturation(t *testing.T) {
	s := series(8, 2, func(_ int, t *Tick) {
		setAll(t, 97, 3, 0, 0, 0)
		serial(t, 50, 50, 1)
	})
	fs := diag(s, nil)
	if fs[0].ID != IDSerialThread || find(fs, IDCPUSaturated) == nil {
		t.Fatalf("%v", ids(fs))
	}
}

// Softirq concentration demotes all-CPU saturation only when that is
// softirq-bound itself.
func TestSoftirqDemotesSaturation(t *testing.T) {
	mk := func(us float64) *Series {
		return series(6, 2, func(_ int, t *Tick) {
			t.CPUs[0] = CPU{Soft: 95, User: 5}
			t.CPUs[1] = CPU{Soft: 5, User: us, Idle: 95 - us}
			setAll(t, (5+us)/2, 0, 50, 0, 0)
		})
	}
	fs := diag(mk(40), nil) // all busy 72.5%: not saturated
	if fs[0].ID != IDSoftirqConcentrated || find(fs, IDCPUSaturated) != nil {
		t.Fatalf("%v", ids(fs))
	}
	fs = diag(mk(90), nil) // all 97.5% busy, softirq 50% > user 47.5%
	if s := find(fs, IDCPUSaturated); fs[0].ID != IDSoftirqConcentrated || s == nil || s.Severity != finding.Info {
		t.Fatalf("%v", ids(fs))
	}
}

func TestJVMThreadHint(t *testing.T) {
	s := series(6, 2, func(_ int, t *Tick) {
		t.Threads = &Threads{N: 30, CPUPct: 95, Wait: 5, Top: []Thread{{TID: 31, Name: "VM Thread", CPUPct: 95, Wait: 5}}}
	})
	f := find(diag(s, nil), IDSerialThread)
	if f == nil || !strings.Contains(f.Recommended.EN, "safepoint") || !strings.Contains(f.Recommended.ZH, "安全点") {
		t.Fatalf("%+v", f)
	}
	for name, want := range map[string]string{"GC Thread#3": "garbage-collector", "C2 CompilerThre": "JIT", "http-nio-8080-e": ""} {
		if h := jvmThreadHint(name); !strings.Contains(h.EN, want) || (want == "") != h.IsZero() {
			t.Errorf("%s: %q", name, h.EN)
		}
	}
}

func TestStealBoundSaturation(t *testing.T) {
	fs := diag(series(6, 2, func(_ int, t *Tick) { setAll(t, 30, 5, 0, 0, 62) }), nil)
	s := find(fs, IDCPUSaturated)
	if fs[0].ID != IDSteal || fs[0].Severity != finding.Critical || s == nil || !strings.Contains(s.Title.EN, "steal-bound") || s.Severity != finding.Info {
		t.Fatalf("%v", ids(fs))
	}
}

func TestTooFewTicks(t *testing.T) {
	fs := diag(series(1, 2, nil), nil)
	if len(fs) != 1 || fs[0].ID != IDNoData || fs[0].Status != finding.Unavailable {
		t.Fatalf("%v", ids(fs))
	}
	fs = Diagnose(Input{})
	if len(fs) != 1 || fs[0].ID != IDNoData {
		t.Fatalf("empty input: %v", ids(fs))
	}
}

func TestNUMANeedsTwoNodes(t *testing.T) {
	s := series(6, 2, func(_ int, t *Tick) { t.NUMAMiss = map[string]float64{"0": 10, "1": 2} })
	f := facts(2)
	if find(diag(s, f), IDNUMARemote) != nil {
		t.Error("fired without NUMA facts")
	}
	f.NUMA.Nodes = sysinfo.Got([]sysinfo.Node{{ID: 0, CPUs: []int{0}}, {ID: 1, CPUs: []int{1}}}, "/sys/devices/system/node")
	if find(diag(s, f), IDNUMARemote) == nil {
		t.Error("did not fire at 10% with two nodes")
	}
	s = series(6, 2, func(_ int, t *Tick) { t.NUMAMiss = map[string]float64{"0": 9.9} })
	if find(diag(s, f), IDNUMARemote) != nil {
		t.Error("fired at 9.9%")
	}
}

func TestCPUListMask(t *testing.T) {
	if got := sysinfo.FormatCPUList([]int{0, 1, 2, 3, 8, 10, 11}); got != "0-3,8,10-11" {
		t.Error(got)
	}
	if got := cpuMask([]int{1, 2, 3}); got != "e" {
		t.Error(got)
	}
	if got := cpuMask([]int{0, 33}); got != "2,00000001" {
		t.Error(got)
	}
}

// Counters that go backwards give no CPU figure, not 100% busy.
func TestBuildCounterReset(t *testing.T) {
	in := `{"t":"2026-01-01T00:00:00Z","stat":{"all":{"cpu":-1,"us":500,"id":500},"cpus":[{"cpu":0,"us":500,"id":500}]}}
{"t":"2026-01-01T00:00:01Z","stat":{"all":{"cpu":-1,"us":10,"id":10},"cpus":[{"cpu":0,"us":10,"id":10}]}}
{"t":"2026-01-01T00:00:02Z","stat":{"all":{"cpu":-1,"us":20,"id":20},"cpus":[{"cpu":0,"us":20,"id":20}]}}
`
	s, err := Build(strings.NewReader(in))
	if err != nil || len(s.Ticks) != 2 {
		t.Fatalf("%v %d", err, len(s.Ticks))
	}
	if s.Ticks[0].All != nil || s.Ticks[0].CPUs[0].Busy() != 0 || s.Ticks[1].All == nil || s.Ticks[1].All.Busy() != 50 {
		t.Errorf("%+v %+v", s.Ticks[0], s.Ticks[1].All)
	}
}

// Run delay is charged when a thread finally runs: a long wait can exceed
// the interval; demand is capped at the interval.
func TestThreadWaitClamped(t *testing.T) {
	s := &Series{}
	tk := s.tick(&sample.Rates{Seconds: 1, Threads: &sample.ThreadRates{Threads: []sample.ThreadRate{
		{TID: 1, Name: "C2 CompilerThre", CPUPct: 0, WaitPct: 125}, {TID: 2, Name: "w", CPUPct: 40, WaitPct: 68}}}}, &sample.Snapshot{})
	if tk.Threads.Top[0].Demand() != 100 || tk.Threads.Top[1].Demand() != 100 || tk.Threads.Wait != 160 {
		t.Fatalf("%+v", tk.Threads)
	}
}

// A target that uses a small part of a saturated host did not saturate it:
// the finding says other processes did, as a warning.
func TestCPUSaturatedByOthers(t *testing.T) {
	s := series(6, 2, func(_ int, t *Tick) {
		setAll(t, 80, 18, 0, 0, 0)
		t.Proc.CPUPct = 40 // 0.4 core of 1.96 busy: below a quarter
	})
	f := find(diag(s, nil), IDCPUSaturated)
	if f == nil || f.Severity != finding.Warning || !strings.Contains(f.Title.EN, "other processes") {
		t.Fatalf("want a warning 'saturated by other processes', got %+v", f)
	}
	s = series(6, 2, func(_ int, t *Tick) {
		setAll(t, 80, 18, 0, 0, 0)
		t.Proc.CPUPct = 50 // just over a quarter: the target's own saturation
	})
	if f := find(diag(s, nil), IDCPUSaturated); f == nil || strings.Contains(f.Title.EN, "other processes") {
		t.Errorf("target at 0.5 of 1.96 busy cores blamed on others: %+v", f)
	}
}

// On a saturated host every thread queues for a CPU: the others' run-queue
// wait must not hide a serial thread whose peers use little CPU.
func TestSerialThreadOnBusyHost(t *testing.T) {
	s := series(6, 2, func(_ int, tk *Tick) {
		setAll(tk, 90, 8, 0, 0, 0)
		serial(tk, 55, 35, 20)
		tk.Threads.Wait += 400 // 50 workers each waiting a little for a CPU
	})
	if f := find(diag(s, nil), IDSerialThread); f == nil {
		t.Error("serial thread not found when the other threads' run-queue wait is high")
	}
}

// A JIT compiler thread pinned during warm-up is not a serial stage; the
// busiest application thread is judged instead.
func TestSerialThreadIgnoresJVMInternals(t *testing.T) {
	s := series(6, 2, func(_ int, tk *Tick) {
		setAll(tk, 90, 8, 0, 0, 0)
		tk.Threads = &Threads{N: 40, CPUPct: 110, Wait: 200, Top: []Thread{
			{TID: 50, Name: "C2 CompilerThre", CPUPct: 85, Wait: 10},
			{TID: 60, Name: "http-nio-8080-e", CPUPct: 3, Wait: 20}}}
	})
	if f := find(diag(s, nil), IDSerialThread); f != nil {
		t.Errorf("JIT compiler thread reported as a serial bottleneck: %s", f.Observed.EN)
	}
	s = series(6, 2, func(_ int, tk *Tick) {
		setAll(tk, 90, 8, 0, 0, 0)
		tk.Threads = &Threads{N: 40, CPUPct: 150, Wait: 200, Top: []Thread{
			{TID: 50, Name: "C2 CompilerThre", CPUPct: 60, Wait: 10},
			{TID: 70, Name: "order-sequencer", CPUPct: 70, Wait: 25}}}
	})
	f := find(diag(s, nil), IDSerialThread)
	if f == nil || !strings.Contains(f.Observed.EN, "order-sequencer") {
		t.Errorf("the application thread behind a hot compiler thread was not judged: %+v", f)
	}
}

// The zoo's fixed single-thread scenario on a host saturated by others
// (CI, 03:19): two pool threads both named "order-sequencer" by the kernel,
// each starved for a CPU. A pool sharing the stage is not a serial
// bottleneck; one busy thread beside an idle namesake still is.
func TestSerialThreadNotAPool(t *testing.T) {
	mk := func(siblingCPU, siblingWait float64) *Series {
		return series(6, 2, func(_ int, tk *Tick) {
			setAll(tk, 97, 3, 0, 0, 0)
			tk.Threads = &Threads{N: 81, CPUPct: 32 + 67, Wait: 64 + siblingWait + 300, Top: []Thread{
				{TID: 29274, Name: "order-sequencer", CPUPct: 32, Wait: 64},
				{TID: 29273, Name: "order-sequencer", CPUPct: siblingCPU, Wait: siblingWait}}}
		})
	}
	if f := find(diag(mk(30, 40), nil), IDSerialThread); f != nil {
		t.Errorf("a two-thread pool reported as a serial bottleneck: %s", f.Observed.EN)
	}
	if f := find(diag(mk(1, 2), nil), IDSerialThread); f == nil {
		t.Error("one busy thread beside an idle namesake is still serial")
	}
}

func TestRuleListIsValid(t *testing.T) {
	rs := ruleList()
	if err := finding.ValidateRules(rs); err != nil {
		t.Fatal(err)
	}
	for _, r := range Infos() {
		if strings.Contains(r.Checks.EN+r.Checks.ZH, "%!") || len(r.Reads) == 0 || !strings.HasPrefix(r.ID, "run.") {
			t.Errorf("%s: checks %q / %q, reads %v", r.ID, r.Checks.EN, r.Checks.ZH, r.Reads)
		}
	}
	if len(rs) != 17 || len(Infos()) != 19 || Validate() != nil {
		t.Errorf("%d rules, %d listed: %v", len(rs), len(Infos()), Validate())
	}
}
