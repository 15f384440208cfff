package diagnose_test

// Tests that read whole run folders: through verdict, the one reader of a
// run folder (diagnose has none of its own).

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

var updateFixture = flag.Bool("update-fixture", false, "regenerate testdata/runs/kunpeng-softirq")

// SoftirqFixture: see the package's own tests.
const SoftirqFixture = diagnose.SoftirqFixture

func TestGenerateSoftirqFixture(t *testing.T) {
	if !*updateFixture {
		t.Skip("run with -update-fixture to regenerate " + SoftirqFixture)
	}
	os.RemoveAll(SoftirqFixture)
	snaps := diagnose.SoftirqSnapshots(10)
	m := runfolder.Manifest{Tool: runfolder.Tool{Name: "tuneloop", Version: "fixture"}, Host: "kp920-app01",
		Argv: []string{"tuneloop", "record", "--duration", "10s"}, Start: snaps[0].Time, IntervalMS: 1000, DurationMS: 10000,
		Samplers: map[string]string{"cpu": "on", "softirqs": "on", "interrupts": "on"}, Facts: diagnose.KunpengFacts()}
	w, err := runfolder.Create(SoftirqFixture, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if err := w.Append(s); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := runfolder.Open(SoftirqFixture)
	f.Manifest = *w.Manifest()
	res, err := verdict.FromFolder(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(runfolder.Complete, snaps[len(snaps)-1].Time, res.Series, res.Recorded); err != nil {
		t.Fatal(err)
	}
}

func TestSoftirqFixture(t *testing.T) {
	f, err := runfolder.Open(SoftirqFixture)
	if err != nil {
		t.Fatal(err)
	}
	res, err := verdict.FromFolder(f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Incomplete() || len(res.Series.Ticks) != 10 {
		t.Fatalf("incomplete=%v ticks=%d", f.Manifest.Incomplete(), len(res.Series.Ticks))
	}
	fs := res.Recorded
	top := fs[0]
	if top.ID != diagnose.IDSoftirqConcentrated || top.Severity != finding.Critical || top.Subject != "enp125s0f0/cpu0" {
		t.Fatalf("first finding %s (%s); all %v", top.ID, top.Subject, diagnose.Keys(fs))
	}
	for _, want := range []string{"ethtool -L enp125s0f0 combined 4", "smp_affinity_list"} {
		if !strings.Contains(top.Fix.Apply, want) {
			t.Errorf("fix lacks %q:\n%s", want, top.Fix.Apply)
		}
	}
	if !strings.Contains(top.Fix.Revert, "ethtool -L enp125s0f0 combined 1") || !strings.Contains(top.Fix.Revert, "echo 0 > /proc/irq/97/smp_affinity_list") {
		t.Errorf("revert: %s", top.Fix.Revert)
	}
	evs := map[string]string{}
	for _, e := range top.Evidence {
		evs[e.Key] = e.Value
	}
	if evs["softirq_type"] != "NET_RX" || !strings.HasPrefix(evs["si_hi_pct"], "95") || !strings.Contains(evs["nic_irqs"], "97(enp125s0f0-TxRx-0)->cpu 0") ||
		!strings.Contains(evs["nic_queues"], "rx 1") {
		t.Errorf("evidence: %v", evs)
	}
	// The window the diagnosis rests on, for charts: the fixture's 10 s.
	if w := top.Window; w == nil || !w.From.Equal(f.Manifest.Start) || w.To.Sub(w.From) != 10*time.Second {
		t.Errorf("window %+v, run start %s", top.Window, f.Manifest.Start)
	}
	hot := diagnose.FindFail(fs, diagnose.IDHotCPU)
	if hot == nil || hot.Severity != finding.Info || !strings.Contains(hot.Observed.EN, "Symptom of "+diagnose.IDSoftirqConcentrated) {
		t.Errorf("CPU0 saturation not linked as a symptom: %+v", hot)
	}
	// The recorded findings.json matches a fresh diagnosis.
	saved, err := f.Findings()
	if err != nil || len(saved) != len(fs) || saved[0].ID != fs[0].ID {
		t.Errorf("saved findings differ: %v vs %v (%v)", diagnose.Keys(saved), diagnose.Keys(fs), err)
	}
	// A copy elsewhere analyses the same.
	dst := filepath.Join(t.TempDir(), "copy")
	diagnose.CopyDir(t, SoftirqFixture, dst)
	g, err := runfolder.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := verdict.FromFolder(g)
	if err != nil || len(res2.Recorded) != len(fs) || res2.Recorded[0].Fix.Apply != top.Fix.Apply {
		t.Errorf("copy analyses differently: %v", err)
	}
}

const runsDir = "../verdict/testdata/runs"

func analyzeDir(t *testing.T, dir string) []finding.Finding {
	t.Helper()
	L, err := verdict.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return L.Recorded
}

// healthyWithDumps copies the healthy run (a 200/s open-model load the
// service kept up with) and puts the thread dumps of run src in place of
// its own ("" for none).
func healthyWithDumps(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	diagnose.CopyDir(t, filepath.Join(runsDir, "healthy"), dir)
	old, _ := filepath.Glob(filepath.Join(dir, runfolder.ThreadDumpPrefix+"*"))
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if src == "" {
		return dir
	}
	dumps, _ := filepath.Glob(filepath.Join(runsDir, src, runfolder.ThreadDumpPrefix+"*"))
	if len(dumps) == 0 {
		t.Fatalf("%s has no thread dumps", src)
	}
	for _, p := range dumps {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "raw", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The healthy run's host is idle under load, but its dumps show no working
// thread waiting: the service had room, which is no warning.
func TestIdleUnderLoadHealthyHadRoom(t *testing.T) {
	fs := analyzeDir(t, filepath.Join(runsDir, "healthy"))
	f := diagnose.FindFail(fs, diagnose.IDIdleUnderLoad)
	if f == nil {
		t.Fatalf("the healthy run's idle host under load is not reported at all: %v", diagnose.Keys(fs))
	}
	if f.Severity != finding.Info {
		t.Errorf("severity %s, want info: %s", f.Severity, f.Title.EN)
	}
	if !strings.Contains(f.Title.EN, "room at this load") || !strings.Contains(f.Title.EN, "no queueing") || !strings.Contains(f.Title.ZH, "余量") {
		t.Errorf("title: %q / %q", f.Title.EN, f.Title.ZH)
	}
	if strings.Contains(f.Why.EN, "waiting on something other than CPU") {
		t.Errorf("still claims the threads wait: %s", f.Why.EN)
	}
	if !strings.Contains(f.Observed.EN, "0 of 0 working threads were off CPU") {
		t.Errorf("observed does not say what the dumps show: %s", f.Observed.EN)
	}
	// A user's check: a healthy service gets no warning about CPU or threads.
	for _, x := range fs {
		if (x.Category == "run.cpu" || x.Category == "run.thread" || x.Category == "threaddump") && x.Severity >= finding.Warning {
			t.Errorf("healthy run: %s %s %q", x.Severity, x.ID, x.Title.EN)
		}
	}
}

// The same idle host keeps its warning when nothing contradicts it (no
// dumps) or when the dumps show working threads queueing: on a pool (real
// dumps of pool-starvation, 50 of 50 working threads waiting) or on a
// downstream (remote-call, threads in socket reads: RUNNABLE, yet off CPU).
func TestIdleUnderLoadWarnsWhenDumpsQueue(t *testing.T) {
	for _, src := range []string{"", "pool-starvation", "remote-call", "future-serial"} {
		fs := analyzeDir(t, healthyWithDumps(t, src))
		f := diagnose.FindFail(fs, diagnose.IDIdleUnderLoad)
		if f == nil {
			t.Errorf("dumps %q: no idle-under-load finding: %v", src, diagnose.Keys(fs))
			continue
		}
		if f.Severity != finding.Warning || !strings.Contains(f.Title.EN, "concurrency-bound") {
			t.Errorf("dumps %q: %s %q, want the concurrency-bound warning", src, f.Severity, f.Title.EN)
		}
	}
}
