package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/testchild"
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

// sleeperJVM starts a JVM that only sleeps and returns its pid; it skips
// without java.
func sleeperJVM(t *testing.T) int {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	src := filepath.Join(t.TempDir(), "Sleeper.java")
	if err := os.WriteFile(src, []byte("public class Sleeper { public static void main(String[] a) throws Exception { System.out.println(\"up\"); Thread.sleep(600000); } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-Xmx32m", "-XX:TieredStopAtLevel=1", src)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testchild.ReapJVM(cmd) })
	if _, err := out.Read(make([]byte, 3)); err != nil { // "up": main runs, attach can start
		t.Fatalf("the JVM did not start: %v", err)
	}
	return cmd.Process.Pid
}

// TestWatchdogGCLogOutputByItsFile: the GC log output the run switched on
// moved to another index since it was noted (another output before it was
// removed: the JVM moves the last output into the hole, and a new one
// takes the noted number): the watchdog switches off the run's output,
// found by its file, and leaves the other tool's output on.
func TestWatchdogGCLogOutputByItsFile(t *testing.T) {
	pid := sleeperJVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other, later, ours := filepath.Join(dir, "other.log"), filepath.Join(dir, "later.log"), filepath.Join(dir, "tuneloop-gc.log")
	index := func(file string) int {
		outs, err := vm.LogOutputs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			if o.File() == file {
				return o.Index
			}
		}
		return -1
	}
	if _, err := vm.Execute(ctx, "VM.log", "output=file="+other, "what=safepoint=info"); err != nil {
		t.Fatal(err)
	}
	g, err := vm.EnableGCLog(ctx, ours)
	if err != nil || !g.Enabled {
		t.Fatalf("%+v %v", g, err)
	}
	// The other tool (logging safepoints) removes its output, then adds
	// one: it gets our number.
	if _, err := vm.Execute(ctx, "VM.log", fmt.Sprintf("output=#%d", index(other)), "what=all=off"); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Execute(ctx, "VM.log", "output=file="+later, "what=safepoint=info"); err != nil {
		t.Fatal(err)
	}
	if index(later) != g.Index || index(ours) == g.Index {
		t.Skipf("this JVM did not renumber its outputs (ours #%d now #%d, the later #%d)", g.Index, index(ours), index(later))
	}
	did := undo(&journalState{keep: true, gc: &Entry{Op: OpGCLog, PID: pid, Index: g.Index, File: ours}})
	if i := index(ours); i >= 0 {
		t.Errorf("the run's GC log output is still on (#%d); the watchdog did %v", i, did)
	}
	if index(later) < 0 {
		t.Errorf("the other tool's output was switched off; the watchdog did %v", did)
	}
	if m, _ := filepath.Glob(ours + "*"); len(m) > 0 {
		t.Errorf("left: %v", m)
	}
}

// TestWatchdogStopsLoadEngines: a load engine's group (JMeter) is stopped
// when the run dies, also with --keep-service; one noted as ended
// (engine-off) is not signalled.
func TestWatchdogStopsLoadEngines(t *testing.T) {
	eng, ended := startGroup(t), startGroup(t)
	wd, err := StartWatchdog("")
	if err != nil {
		t.Fatal(err)
	}
	wd.Note(Entry{Op: OpKeep})
	wd.Note(Entry{Op: OpEngine, PGID: eng.Process.Pid, GraceMS: 300, Started: ProcStart(eng.Process.Pid)})
	wd.Note(Entry{Op: OpEngine, PGID: ended.Process.Pid, GraceMS: 300})
	wd.Note(Entry{Op: OpEngineOff, PGID: ended.Process.Pid})
	wd.pipe.Close()
	if !waitGone(eng.Process.Pid, 5*time.Second) {
		t.Fatal("the load engine outlived its run")
	}
	time.Sleep(300 * time.Millisecond)
	if syscall.Kill(-ended.Process.Pid, 0) != nil {
		t.Fatal("an engine noted as ended was stopped")
	}
}
