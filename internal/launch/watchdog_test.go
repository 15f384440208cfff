package launch

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startGroup runs sleep in a process group of its own, as Start would.
func startGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "sleep 60; true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Reaped at once, so a stopped group is gone (no zombie holds it).
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-done })
	return cmd
}

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

func waitGone(pgid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return true
		}
	}
	return false
}

// TestWatchdogStopsTheServiceWhenTheRunDies: the pipe closes without "done"
// (the run was killed): the watchdog stops the service's group.
func TestWatchdogStopsTheServiceWhenTheRunDies(t *testing.T) {
	svc := startGroup(t)
	wd, err := StartWatchdog("")
	if err != nil {
		t.Fatal(err)
	}
	wd.Note(Entry{Op: OpService, PGID: svc.Process.Pid, GraceMS: 500})
	wd.pipe.Close() // as the kernel does when the run dies
	if !waitGone(svc.Process.Pid, 5*time.Second) {
		t.Fatal("the service outlived its run")
	}
}

// TestWatchdogDoneLeavesTheService: a clean end ("done") undoes nothing,
// and --keep-service keeps the service even when the run dies.
func TestWatchdogDoneLeavesTheService(t *testing.T) {
	for _, keep := range []bool{false, true} {
		svc := startGroup(t)
		wd, err := StartWatchdog("")
		if err != nil {
			t.Fatal(err)
		}
		wd.Note(Entry{Op: OpService, PGID: svc.Process.Pid, GraceMS: 500})
		if keep {
			wd.Note(Entry{Op: OpKeep})
			wd.pipe.Close()
		} else {
			wd.Done()
		}
		if waitGone(svc.Process.Pid, 1500*time.Millisecond) {
			t.Fatalf("keep=%v: the service was stopped", keep)
		}
	}
}

// TestRecoverJournals: a journal whose run and watchdog both died (killed
// together, a reboot) is undone at the next start and removed; a live
// run's journal is left alone.
func TestRecoverJournals(t *testing.T) {
	dir := t.TempDir()
	svc := startGroup(t)
	write := func(name string, es ...Entry) string {
		var b strings.Builder
		for _, e := range es {
			j, _ := json.Marshal(e)
			b.Write(append(j, '\n'))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := write("run-1.jsonl", Entry{Op: OpOwner, PID: deadPID(t)}, Entry{Op: "watchdog", PID: deadPID(t)},
		Entry{Op: OpService, PGID: svc.Process.Pid, GraceMS: 500})
	live := write("run-2.jsonl", Entry{Op: OpOwner, PID: os.Getpid()}, Entry{Op: OpService, PGID: svc.Process.Pid})
	notes := RecoverJournals(dir)
	if len(notes) != 1 || !strings.Contains(notes[0].EN, "service stopped") {
		t.Errorf("notes %v", notes)
	}
	if !waitGone(svc.Process.Pid, 5*time.Second) {
		t.Error("the dead run's service still runs")
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the undone journal is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("a live run's journal was removed")
	}
}

// TestRecoverJournalsSparesReusedPIDs: a journal read after its pids were
// reused (a reboot) signals nothing: the start times differ.
func TestRecoverJournalsSparesReusedPIDs(t *testing.T) {
	dir := t.TempDir()
	other := startGroup(t) // stands for a process that got the old pids
	pid := other.Process.Pid
	b, _ := json.Marshal(Entry{Op: OpOwner, PID: deadPID(t)})
	b2, _ := json.Marshal(Entry{Op: OpService, PGID: pid, GraceMS: 100, Started: ProcStart(pid) + 12345})
	b3, _ := json.Marshal(Entry{Op: OpJVM, PID: pid, Started: ProcStart(pid) + 12345})
	p := filepath.Join(dir, "run-9.jsonl")
	if err := os.WriteFile(p, []byte(string(b)+"\n"+string(b2)+"\n"+string(b3)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := RecoverJournals(dir)
	if waitGone(pid, time.Second) {
		t.Fatalf("a reused pid was stopped (%v)", notes)
	}
	t.Log(notes)
	if _, err := os.Stat(p); err == nil {
		t.Error("the journal is still there")
	}
}
