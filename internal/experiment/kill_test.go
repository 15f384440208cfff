package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// killEnv makes the test binary an experiment that SIGKILLs itself at a
// given point: "OUT JOURNAL TREE STATE ADDR POINT", POINT one of
// journal:N (after the Nth durable journal step), log:OP (right after the
// trial log noted OP), load (during the load of the host knob's trial).
const killEnv = "TUNELOOP_EXPERIMENT_TEST_KILL"

// killPlan is the experiment the kill test runs: the test binary as the
// service, one sysctl knob (vm.swappiness 60 -> 10) on a fake tree.
func killPlan(addr string) *Plan {
	p := &Plan{
		Service: Service{Start: fmt.Sprintf("%s=%s DELAY_MS=2 exec %s -test.run='^$'", serveEnv, addr, shellQuote(os.Args[0])), Target: "http://" + addr + "/",
			StartTimeout: 15 * time.Second, StopTimeout: 2 * time.Second},
		Load:        Load{Users: 2, Duration: 2 * time.Second},
		Repetitions: 1, ConfirmRepetitions: 1, Seed: 1,
		Knobs: []Knob{{Name: "swap", Kind: KindSysctl, Key: "vm.swappiness", Values: []string{"10"}}},
	}
	if err := p.validate(); err != nil {
		panic(err)
	}
	return p
}

func stateGetenv(state string) func(string) string {
	return func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return os.Getenv(k)
	}
}

// killAfter kills the process right after the trial log took op.
type killAfter struct {
	Runner
	op  string
	die func()
}

func (k killAfter) Trial(ctx context.Context, t TrialSpec, note func(Record) error) (Measurement, error) {
	return k.Runner.Trial(ctx, t, func(r Record) error {
		err := note(r)
		if r.Op == k.op {
			k.die()
		}
		return err
	})
}

func killChildMain(a []string) int {
	out, jdir, tree, state, addr, point := a[0], a[1], a[2], a[3], a[4], a[5]
	os.Unsetenv(killEnv) // the service is this binary too: it must serve, not experiment
	die := func() {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
	p := killPlan(addr)
	j := &apply.Journal{Dir: jdir}
	if at, ok := strings.CutPrefix(point, "journal:"); ok {
		k, _ := strconv.Atoi(at)
		n := 0
		j.Hook = func() {
			if n++; n == k {
				die()
			}
		}
	}
	r := &HostRunner{Plan: p, Roots: hostfs.Under(tree), Journal: j, Owner: "experiment:" + out, NoCatalog: true, Getenv: stateGetenv(state)}
	r.Note = func(m finding.Text) {
		if point == "load" && strings.Contains(m.EN, "set vm.swappiness") {
			time.AfterFunc(1500*time.Millisecond, die) // the service is up and under load by then
		}
	}
	var runner Runner = r
	if op, ok := strings.CutPrefix(point, "log:"); ok {
		runner = killAfter{Runner: r, op: op, die: die}
	}
	if _, err := Conduct(context.Background(), Options{Plan: p, Out: out, Runner: runner,
		LeftOpen: func() ([]string, error) { return RevertLeftOpen(j, r.Owner) }}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// servicePIDs are the processes serving addr for these tests (found by
// their environment, so a service a killed experiment left is seen).
func servicePIDs(addr string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(b, []byte("\x00"+serveEnv+"="+addr+"\x00")) {
			out = append(out, pid)
		}
	}
	return out
}

// txSteps counts the durable journal steps of the experiment's host
// transaction (apply, then revert), done in process on a copy.
func txSteps(t *testing.T) int {
	_, roots := fakeRoots(t)
	n := 0
	j := &apply.Journal{Dir: t.TempDir(), Hook: func() { n++ }}
	res, err := apply.Apply(j, apply.NewPlan(roots, []apply.Group{{Finding: "x", Changes: []finding.Change{{Kind: KindSysctl, Key: "vm.swappiness", Value: "10"}}}}), apply.Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v", err)
	}
	if rr, err := apply.Revert(j, apply.RevertOptions{TxID: res.TxID}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %v", err, rr)
	}
	return n
}

// An experiment with a host knob, SIGKILLed at every journal step of its
// host trial (after begin, around the write, after apply, during and after
// revert), right after the trial log noted the apply and the revert, and
// during the trial's load: the launch watchdog stops the service, and the
// recovery (RevertLeftOpen, `revert --all`, or the experiment resumed)
// puts every value back and leaves nothing open.
func TestExperimentKilledAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a service per kill point")
	}
	steps := txSteps(t)
	if steps < 6 {
		t.Fatalf("only %d journal steps counted", steps)
	}
	var points []string
	for n := 1; n <= steps; n++ {
		points = append(points, fmt.Sprintf("journal:%d", n))
	}
	points = append(points, "log:"+OpApplied, "load", "log:"+OpReverted)
	for i, point := range points {
		swap, roots := fakeRoots(t)
		tree := filepath.Dir(roots.Proc)
		out, state := t.TempDir(), t.TempDir()
		jdir := filepath.Join(state, "journal")
		addr := freeAddr(t)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killEnv+"="+strings.Join([]string{out, jdir, tree, state, addr, point}, " "))
		msg, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("%s: the experiment was not killed: %v: %s", point, err, msg)
		}
		log := readFile(t, filepath.Join(out, LogFile))
		switch point {
		case "load":
			if !strings.Contains(log, `"op":"applied"`) || strings.Contains(log, `"op":"reverted"`) {
				t.Fatalf("load: not killed between apply and revert:\n%s", log)
			}
			if b, _ := os.ReadFile(swap); string(b) != "10\n" {
				t.Fatalf("load: swappiness %q while killed, want 10", b)
			}
		case "log:" + OpReverted:
			if b, _ := os.ReadFile(swap); string(b) != "60\n" {
				t.Fatalf("%s: swappiness %q, want 60", point, b)
			}
		}
		// The launch watchdog stops a service its experiment left.
		deadline := time.Now().Add(15 * time.Second)
		for len(servicePIDs(addr)) > 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if pids := servicePIDs(addr); len(pids) > 0 {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("%s: the service was left running (pids %v)", point, pids)
		}
		j := &apply.Journal{Dir: jdir}
		owner := "experiment:" + out
		var how string
		switch {
		case point == "load":
			how = "experiment resumed"
			r := &HostRunner{Plan: killPlan(addr), Roots: roots, Journal: j, Owner: owner, NoCatalog: true, Getenv: stateGetenv(state)}
			doc, err := Conduct(context.Background(), Options{Plan: r.Plan, Out: out, Runner: r,
				LeftOpen: func() ([]string, error) { return RevertLeftOpen(j, owner) }})
			if err != nil || doc.Winner == "" || doc.Stopped != nil {
				t.Fatalf("load: resume: %v %+v", err, doc)
			}
			for _, c := range doc.Changes {
				if !c.Undone {
					t.Errorf("resume: left applied: %+v", c)
				}
			}
			if pids := servicePIDs(addr); len(pids) > 0 {
				t.Errorf("resume: the service was left running (pids %v)", pids)
			}
		case i%2 == 0:
			how = "RevertLeftOpen"
			if _, err := RevertLeftOpen(j, owner); err != nil {
				t.Fatalf("%s: RevertLeftOpen: %v", point, err)
			}
		default:
			how = "revert --all"
			if rr, err := apply.Revert(j, apply.RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 {
				t.Fatalf("%s: revert --all: %v %+v", point, err, rr)
			}
		}
		if b, _ := os.ReadFile(swap); string(b) != "60\n" {
			t.Fatalf("killed at %s, recovered by %s: swappiness %q, want 60", point, how, b)
		}
		txs, err := apply.Status(j)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range txs {
			if tx.Open() {
				t.Fatalf("killed at %s, recovered by %s: transaction %s still open", point, how, tx.ID)
			}
		}
		if rr, err := apply.Revert(j, apply.RevertOptions{All: true}); err != nil || len(rr.Reverted)+len(rr.Errs) > 0 {
			t.Fatalf("killed at %s: a second revert was not a no-op: %v %+v", point, err, rr)
		}
	}
}
