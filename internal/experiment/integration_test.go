package experiment

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// serveEnv makes the test binary an HTTP service on the address it holds:
// each request sleeps DELAY_MS milliseconds (the knob the tests turn).
const serveEnv = "TUNELOOP_EXPERIMENT_TEST_SERVE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(killEnv); spec != "" {
		os.Exit(killChildMain(strings.Fields(spec)))
	}
	if addr := os.Getenv(serveEnv); addr != "" {
		delay, _ := strconv.Atoi(os.Getenv("DELAY_MS"))
		http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(time.Duration(delay) * time.Millisecond)
			_, _ = w.Write([]byte("ok\n"))
		})
		_ = http.ListenAndServe(addr, nil)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// childPlan is a plan whose service is this test binary on a free port.
func childPlan(t *testing.T, reps, confirm int, knobs ...Knob) *Plan {
	addr := freeAddr(t)
	p := &Plan{
		Service:     Service{Start: fmt.Sprintf("%s=%s exec %s -test.run='^$'", serveEnv, addr, shellQuote(os.Args[0])), Target: "http://" + addr + "/", StopTimeout: 2 * time.Second},
		Load:        Load{Users: 4, Duration: 3 * time.Second},
		Repetitions: reps, ConfirmRepetitions: confirm, Seed: 1,
		Knobs: knobs,
	}
	if err := p.validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeRoots is a host tree with vm.swappiness at 60.
func fakeRoots(t *testing.T) (string, hostfs.FS) {
	dir := t.TempDir()
	for _, d := range []string{"proc/sys/vm", "sys", "etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "proc/sys/vm/swappiness"), []byte("60\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "proc/sys/vm/swappiness"), hostfs.Under(dir)
}

func hostRunner(t *testing.T, p *Plan, roots hostfs.FS, out string, note func(finding.Text)) *HostRunner {
	state := t.TempDir()
	return &HostRunner{Plan: p, Roots: roots, Journal: &apply.Journal{Dir: filepath.Join(state, "journal")}, Owner: "experiment:" + out,
		NoCatalog: true, Note: note, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return state
			}
			return os.Getenv(k)
		}}
}

// A real service whose answers are slower with DELAY_MS=20 than with 2:
// the experiment measures each arm through the run flow, finds the faster
// one, and confirms it against the baseline.
func TestExperimentOnAServiceWithAKnob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a service per trial")
	}
	p := childPlan(t, 2, 4, Knob{Name: "delay", Kind: KindEnv, Key: "DELAY_MS", Values: []string{"20", "2"}, Baseline: "20"})
	out := t.TempDir()
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: out, Runner: hostRunner(t, p, hostfs.Live(), out, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Winner != "arm1" || doc.Confirm == nil || doc.Confirm.Objective == nil {
		t.Fatalf("winner %q confirm %+v", doc.Winner, doc.Confirm)
	}
	g := doc.Confirm.Objective
	// 4 users at 20 ms is about 200 TPS; at 2 ms several times that.
	// 4 trials a side: the fewest the exact U-test over launches can judge.
	if g.Verdict != "better" || g.Pct < 100 || doc.Confirm.Trials != 4 {
		t.Errorf("confirmed gain %+v; trials %+v", g, doc.Trials)
	}
	for _, tr := range doc.Trials {
		if tr.Status != "done" || tr.TPS <= 0 {
			t.Errorf("trial %+v", tr)
		}
		if _, err := os.Stat(filepath.Join(tr.Dir, "manifest.json")); err != nil {
			t.Errorf("trial %d has no run folder: %v", tr.Seq, err)
		}
		// A trial's report draws its load over time like any run's.
		if _, err := os.Stat(filepath.Join(tr.Dir, "raw", "load-detail.json")); err != nil {
			t.Errorf("trial %d kept no load detail: %v", tr.Seq, err)
		}
	}
	if len(doc.Changes) != 2 || !doc.Changes[0].Undone || !strings.Contains(doc.Changes[1].What, "DELAY_MS=2") {
		t.Errorf("changes %+v", doc.Changes)
	}
}

// Ctrl-C during a trial that set a host knob: the knob is put back, the
// service stopped, the log says where; the rerun continues and finishes.
func TestCancelRevertsThenResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a service per trial")
	}
	swap, roots := fakeRoots(t)
	p := childPlan(t, 1, 1,
		Knob{Name: "delay", Kind: KindEnv, Key: "DELAY_MS", Values: []string{"5"}, Baseline: "5"},
		Knob{Name: "swap", Kind: KindSysctl, Key: "vm.swappiness", Values: []string{"10"}})
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var seen []string
	note := func(m finding.Text) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, m.EN)
		if strings.Contains(m.EN, "set vm.swappiness") {
			// The knob is on: stop in the middle of its trial.
			time.AfterFunc(1500*time.Millisecond, func() {
				if b, _ := os.ReadFile(swap); strings.TrimSpace(string(b)) != "10" {
					t.Errorf("during the trial swappiness is %q", b)
				}
				cancel()
			})
		}
	}
	r := hostRunner(t, p, roots, out, note)
	doc, err := Conduct(ctx, Options{Plan: p, Out: out, Runner: r, LeftOpen: func() ([]string, error) { return RevertLeftOpen(r.Journal, r.Owner) }})
	if !errors.Is(err, ErrStopped) || doc == nil || doc.Stopped == nil {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(swap); string(b) != "60\n" {
		t.Errorf("after Ctrl-C swappiness is %q, want 60", b)
	}
	txs, err := apply.Status(r.Journal)
	if err != nil || len(txs) != 1 || txs[0].Open() {
		t.Errorf("journal after Ctrl-C: %v open=%v", err, txs != nil && txs[0].Open())
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(strings.TrimSuffix(p.Service.Target, "/"), "http://"), time.Second); err == nil {
		c.Close()
		t.Errorf("the service still answers after Ctrl-C")
	}
	log := readFile(t, filepath.Join(out, LogFile))
	for _, op := range []string{`"op":"applied"`, `"op":"reverted"`, `"op":"stopped"`} {
		if !strings.Contains(log, op) {
			t.Errorf("log lacks %s:\n%s", op, log)
		}
	}
	// The rerun continues: the stopped trial again, then the rest.
	r2 := hostRunner(t, p, roots, out, nil)
	r2.Journal = r.Journal
	doc, err = Conduct(context.Background(), Options{Plan: p, Out: out, Runner: r2, LeftOpen: func() ([]string, error) { return RevertLeftOpen(r2.Journal, r2.Owner) }})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Stopped != nil || doc.Winner == "" {
		t.Errorf("resumed: stopped %v winner %q", doc.Stopped, doc.Winner)
	}
	if b, _ := os.ReadFile(swap); string(b) != "60\n" {
		t.Errorf("after the experiment swappiness is %q, want 60", b)
	}
	for _, c := range doc.Changes {
		if !c.Undone {
			t.Errorf("left applied: %+v", c)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(out, "trials", "*.stopped-1"))
	if len(matches) == 0 {
		t.Errorf("the stopped trial's folder was not kept aside")
	}
}

// A running service given by pid takes host knobs only: each trial sets
// the knob, measures, puts it back; the service is left running as found.
func TestHostKnobsOnARunningService(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a service per trial")
	}
	addr := freeAddr(t)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), serveEnv+"="+addr, "DELAY_MS=2")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	swap, roots := fakeRoots(t)
	p := &Plan{Service: Service{PID: child.Process.Pid, Target: "http://" + addr + "/", StartTimeout: 10 * time.Second},
		Load: Load{Users: 2, Duration: 2 * time.Second}, Repetitions: 1, ConfirmRepetitions: 1,
		Knobs: []Knob{{Name: "swap", Kind: KindSysctl, Key: "vm.swappiness", Values: []string{"10"}}}}
	if err := p.validate(); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r := hostRunner(t, p, roots, out, nil)
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: out, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Trials) != 4 || doc.Winner != "arm1" {
		t.Errorf("trials %d winner %q", len(doc.Trials), doc.Winner)
	}
	if b, _ := os.ReadFile(swap); string(b) != "60\n" {
		t.Errorf("after the experiment swappiness is %q", b)
	}
	if len(doc.Changes) != 1 || !doc.Changes[0].Undone || len(doc.Changes[0].Txs) != 2 {
		t.Errorf("changes %+v", doc.Changes)
	}
	if err := child.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the running service was stopped: %v", err)
	}
}
