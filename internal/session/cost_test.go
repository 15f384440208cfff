package session

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// TestTargetCostOfARecordedRun: the JFR and attach cost inside the service
// of a real recorded run (verdict's sync-logging-jfr: JDK 17, JFR on, 18
// samples over 8.5 s). Its four threads' schedstat run time grew by
// 49.08 ms (JFR Thread Samp), 4.80 ms (JFR Recorder Th), 2.94 ms (JFR
// Periodic Ta) and 1.91 ms (Attach Listener): 58.7 ms, 0.69% of a core.
// The application's threads ("java", "GC Thread#0", the pool) count for
// nothing.
func TestTargetCostOfARecordedRun(t *testing.T) {
	f, err := runfolder.Open(filepath.Join("..", "verdict", "testdata", "runs", "sync-logging-jfr"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := f.Samples()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	d := sample.NewDecoder(rc)
	var c targetCost
	var snaps [2]sample.Snapshot // reused as the tick loop does
	for n := 0; ; n++ {
		s := &snaps[n%2]
		if err := d.Decode(s); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		c.add(s)
	}
	got := c.cost()
	if got == nil {
		t.Fatal("no cost from 18 samples")
	}
	if got.CPUMS != 58 || got.Samples != 18 || got.Seconds < 8.4 || got.Seconds > 8.6 {
		t.Errorf("%d ms over %.2f s in %d samples, want 58 ms over 8.50 s in 18", got.CPUMS, got.Seconds, got.Samples)
	}
	if got.PctOfCore < 0.68 || got.PctOfCore > 0.70 {
		t.Errorf("%.3f%% of a core, want 0.69%%", got.PctOfCore)
	}
	want := []string{"Attach Listener", "JFR Periodic Ta", "JFR Recorder Th", "JFR Thread Samp"}
	if !slices.Equal(got.Threads, want) {
		t.Errorf("threads %q, want %q", got.Threads, want)
	}
}

// TestTargetCostThreads: a JFR thread born during the run counts from
// zero, one seen at the first sample from its CPU then, a reused TID as a
// new thread; without schedstat the USER_HZ ticks count; one sample, or a
// target without such threads, is no cost.
func TestTargetCostThreads(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	snap := func(sec int, ths ...sample.Thread) *sample.Snapshot {
		return &sample.Snapshot{Time: t0.Add(time.Duration(sec) * time.Second), Threads: ths}
	}
	var c targetCost
	c.add(snap(0, sample.Thread{TID: 10, Name: "Attach Listener", Start: 5, RunNS: 7e9}, sample.Thread{TID: 11, Name: "java", Start: 5, RunNS: 9e9}))
	if c.cost() != nil {
		t.Error("a cost from one sample")
	}
	c.add(snap(1, sample.Thread{TID: 10, Name: "Attach Listener", Start: 5, RunNS: 7.1e9}, sample.Thread{TID: 11, Name: "java", Start: 5, RunNS: 19e9},
		sample.Thread{TID: 12, Name: "JFR Recorder Th", Start: 80, RunNS: 0.2e9}))
	c.add(snap(2, sample.Thread{TID: 10, Name: "Attach Listener", Start: 5, RunNS: 7.1e9},
		sample.Thread{TID: 12, Name: "JFR Recorder Th", Start: 80, RunNS: 0.3e9}, sample.Thread{TID: 11, Name: "JFR Periodic Ta", Start: 150, RunNS: 0.05e9}))
	got := c.cost()
	// 100 ms (Attach Listener since the first sample) + 300 ms (born in
	// the run) + 50 ms (TID 11 reused by JFR), over 2 s.
	if got.CPUMS != 450 || got.PctOfCore < 22.49 || got.PctOfCore > 22.51 || got.Samples != 3 || len(got.Threads) != 3 {
		t.Errorf("%+v, want 450 ms, 22.5%% of a core, 3 samples, 3 threads", got)
	}

	var none targetCost // a target with no JFR or attach thread has no such cost
	none.add(snap(0, sample.Thread{TID: 1, Name: "nginx", RunNS: 1e9}))
	none.add(snap(1, sample.Thread{TID: 1, Name: "nginx", RunNS: 2e9}))
	if got := none.cost(); got != nil {
		t.Errorf("a target without JFR or attach threads: %+v", got)
	}

	var ticks targetCost // no schedstat: utime+stime in 10 ms ticks
	ticks.add(snap(0, sample.Thread{TID: 10, Name: "JFR Thread Samp", Utime: 100, Stime: 10}))
	ticks.add(snap(4, sample.Thread{TID: 10, Name: "JFR Thread Samp", Utime: 130, Stime: 20}))
	if got := ticks.cost(); got.CPUMS != 400 || got.PctOfCore < 9.99 || got.PctOfCore > 10.01 {
		t.Errorf("from ticks: %+v, want 400 ms, 10%% of a core", got)
	}
}

// TestGeneratorCost: under run the process's CPU (2 cores) holds the
// recorder's samplers: 30% of the cores less 4% of one core is 28%; a
// recorder that measured more than the process used leaves 0, not less.
func TestGeneratorCost(t *testing.T) {
	g := generatorCost(30, 2, &runfolder.Cost{CPUPctOfCore: 4})
	if g.CPUPct != 28 || g.ProcessCPUPct != 30 || g.Cores != 2 {
		t.Errorf("%+v, want 28%% own of the process's 30%% of 2 cores", g)
	}
	if g := generatorCost(1, 2, &runfolder.Cost{CPUPctOfCore: 5}); g.CPUPct != 0 {
		t.Errorf("own %.2f%%, want 0", g.CPUPct)
	}
	if g := generatorCost(12, 4, nil); g.CPUPct != 12 {
		t.Errorf("without a recorder's cost: %.2f%%, want the process's 12%%", g.CPUPct)
	}
}

// TestRunCostsOfARealRun: a short run of a real JVM with JFR and two thread
// dumps keeps each cost for what it is in its manifest: JFR's and the
// Attach Listener's CPU inside the service, sampled every tick, and the
// load generator's CPU with the recorder's taken out (load.json holds the
// generator's own).
func TestRunCostsOfARealRun(t *testing.T) {
	start, url, _ := tinyService(t)
	dir := filepath.Join(t.TempDir(), "run")
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 3 * time.Second, Requests: []loadgen.Request{{URL: url}}}, Interval: 500 * time.Millisecond,
		ThreadDumps: 2, Out: dir, NoCatalog: true, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return filepath.Join(filepath.Dir(dir), "state")
			}
			return ""
		}}, RunHooks{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Folder.Manifest.Cost
	if c == nil || c.InTarget == nil || c.Generator == nil {
		t.Fatalf("manifest cost %+v", c)
	}
	in := c.InTarget
	t.Logf("recorder %.2f%% of one core; generator %+v; in the service %+v", c.CPUPctOfCore, *c.Generator, *in)
	jfr := slices.IndexFunc(in.Threads, func(n string) bool { return strings.HasPrefix(n, "JFR ") })
	// About 8 ticks of 500 ms; a busy machine delays some, so half is the floor.
	if jfr < 0 || !slices.Contains(in.Threads, "Attach Listener") || in.Samples < 4 || in.CPUMS <= 0 || in.PctOfCore <= 0 || in.PctOfCore > 100 {
		t.Errorf("in the service: %+v, want JFR threads and the Attach Listener, >= 4 samples, some CPU", in)
	}
	g := c.Generator
	if g.Cores != runtime.GOMAXPROCS(0) || g.ProcessCPUPct <= 0 || g.CPUPct > g.ProcessCPUPct || g.CPUPct < g.ProcessCPUPct-c.CPUPctOfCore/float64(g.Cores)-0.001 {
		t.Errorf("generator %+v with the recorder's %.2f%% of one core", g, c.CPUPctOfCore)
	}
	var saved loadgen.Summary
	b, err := os.ReadFile(filepath.Join(dir, verdict.LoadFile))
	if err != nil || json.Unmarshal(b, &saved) != nil {
		t.Fatalf("load.json: %v", err)
	}
	if math.Abs(saved.ClientCPU-g.CPUPct) > 0.001 {
		t.Errorf("load.json says the generator used %.3f%%, its own is %.3f%%", saved.ClientCPU, g.CPUPct)
	}
}
