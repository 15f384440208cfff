package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/testchild"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// runChildEnv makes the test binary a `tuneloop run` (session.LoadAndRecord with the
// options in the variable, JSON), for tests that kill it with SIGKILL.
const runChildEnv = "TUNELOOP_TEST_RUN_CHILD"

// childRun is what the child runs: `run --start START --target URL
// --warm-up 2s -d 20s -c 2 --out OUT --no-catalog`; with PID, `--pid PID`
// instead of --start; Keep is --keep-service; Secs, when set, the load's
// duration in seconds.
type childRun struct {
	Start, URL, Out string
	PID             int
	Keep            bool
	Secs            int
}

func init() {
	v := os.Getenv(runChildEnv)
	if v == "" {
		return
	}
	var c childRun
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	secs := time.Duration(max(c.Secs, 0)) * time.Second
	if secs == 0 {
		secs = 20 * time.Second
	}
	o := RunOptions{Target: c.URL, Start: c.Start, PID: c.PID, KeepService: c.Keep, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
		WarmUp: 2 * time.Second, Load: loadgen.Config{Users: 2, Duration: secs, Requests: []loadgen.Request{{URL: c.URL}}},
		Interval: 500 * time.Millisecond, Out: c.Out, NoCatalog: true, Getenv: os.Getenv}
	_, err := LoadAndRecord(context.Background(), o, RunHooks{
		Note:   func(t finding.Text) { fmt.Fprintln(os.Stderr, "NOTE", t.EN) },
		OnLoad: func(p loadgen.Progress) { fmt.Fprintln(os.Stderr, "LOAD", p.Elapsed.Seconds()) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// tinyService is the command line of testdata/TinyService.java on a free
// port, its URL and its pid file; it skips without java.
func tinyService(t *testing.T) (start, url, pidFile string) {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	src, _ := filepath.Abs(filepath.Join("testdata", "TinyService.java"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	pidFile = filepath.Join(t.TempDir(), "svc.pid")
	// No exec: the JVM is the shell's child, as with most start scripts.
	start = fmt.Sprintf("%s -Xmx64m -XX:TieredStopAtLevel=1 %s %d %s", java, src, port, pidFile)
	return start, fmt.Sprintf("http://127.0.0.1:%d/", port), pidFile
}

func readPID(path string) int {
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// leftovers lists what a run may leave of a JVM: the process, its attach
// socket, GC log and JFR files of ours.
func leftovers(jvm int) []string {
	var out []string
	if launch.Alive(jvm) {
		out = append(out, fmt.Sprintf("JVM %d still running", jvm))
	}
	for _, g := range []string{fmt.Sprintf("/tmp/.java_pid%d", jvm), fmt.Sprintf("/tmp/tuneloop-gc-%d-*", jvm), fmt.Sprintf("/tmp/tuneloop-%d-*.jfr", jvm)} {
		m, _ := filepath.Glob(g)
		out = append(out, m...)
	}
	return out
}

// TestRunServiceDiesMidRun: the JVM killed with SIGKILL 1.5 s into a 6 s
// load: the load ends at once, the verdict's first line says the service
// exited with code 137 and when, the evidence until then is kept (load.json,
// samples, the manifest's service record), and nothing of ours is left.
func TestRunServiceDiesMidRun(t *testing.T) {
	start, url, pidFile := tinyService(t)
	dir := filepath.Join(t.TempDir(), "run")
	var killedAt time.Time
	hooks := RunHooks{OnLoad: func(p loadgen.Progress) {
		if killedAt.IsZero() && p.Elapsed >= time.Second {
			killedAt = time.Now()
			time.AfterFunc(500*time.Millisecond, func() { _ = syscall.Kill(readPID(pidFile), syscall.SIGKILL) })
		}
	}}
	t0 := time.Now()
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 6 * time.Second, Requests: []loadgen.Request{{URL: url}}}, Interval: 500 * time.Millisecond,
		Out: dir, NoCatalog: true, NoJFR: true, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return filepath.Join(filepath.Dir(dir), "state")
			}
			return ""
		}}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	jvm := readPID(pidFile)
	if res.Service == nil || res.Service.ExitCode != 137 || res.Service.Signal != "SIGKILL" {
		t.Fatalf("service end %+v, want code 137 (SIGKILL)", res.Service)
	}
	if at := res.Service.AtS; at < 1 || at > 3.5 {
		t.Errorf("seen gone at %+.1f s, killed at about +1.5 s", at)
	}
	if el := time.Since(killedAt); el > 4*time.Second {
		t.Errorf("the run went on %v after the kill (the load should end at once; total %v)", el, time.Since(t0))
	}
	if res.Decision.Branch != verdict.ServiceExited || !strings.Contains(res.Decision.Verdict.Title.EN, "The service exited with code 137 (SIGKILL) at +") {
		t.Errorf("verdict %q (%s)", res.Decision.Verdict.Title.EN, res.Decision.Branch)
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Service == nil || f.Manifest.Status != runfolder.Interrupted || !strings.Contains(f.Manifest.Reason, "code 137") {
		t.Errorf("manifest: %s %q %+v", f.Manifest.Status, f.Manifest.Reason, f.Manifest.Service)
	}
	if res.Load == nil || res.Load.Requests == 0 {
		t.Errorf("the load until the kill is not kept: %+v", res.Load)
	}
	if _, err := os.Stat(filepath.Join(dir, verdict.LoadFile)); err != nil {
		t.Error(err)
	}
	if !strings.Contains(strings.Join(res.Service.LastLog, "\n"), "READY on") {
		t.Errorf("last log lines %q", res.Service.LastLog)
	}
	if l := leftovers(jvm); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// child is a `tuneloop run` in a child process (runChildEnv), to be killed
// with SIGKILL at a chosen point.
type child struct {
	cmd     *exec.Cmd
	lines   chan string
	log     []string
	journal string // its watchdog journal
}

// startChild starts the run c with its state (the journal) under tmp.
func startChild(t *testing.T, c childRun, tmp string) *child {
	t.Helper()
	b, _ := json.Marshal(c)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), runChildEnv+"="+string(b), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: cmd, lines: make(chan string, 1024),
		journal: filepath.Join(tmp, "state", "tuneloop", "journal", fmt.Sprintf("run-%d.jsonl", cmd.Process.Pid))}
	drained := make(chan struct{})
	go func() { // drained to the end, so the child never blocks on its stderr
		defer close(drained)
		defer close(ch.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case ch.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-drained; _ = cmd.Wait() })
	return ch
}

// waitLine waits (90 s at most) for a line of the child's stderr starting
// with prefix.
func (c *child) waitLine(t *testing.T, prefix string) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("the run ended before %q:\n%s", prefix, strings.Join(c.log, "\n"))
			}
			c.log = append(c.log, l)
			if strings.HasPrefix(l, prefix) {
				return
			}
		case <-deadline:
			t.Fatalf("the run never reached %q:\n%s", prefix, strings.Join(c.log, "\n"))
		}
	}
}

// ops is the operations in the child's journal so far, in order.
func (c *child) ops() []string {
	b, _ := os.ReadFile(c.journal)
	var out []string
	for line := range strings.Lines(string(b)) {
		var e launch.Entry
		if json.Unmarshal([]byte(line), &e) == nil {
			out = append(out, e.Op)
		}
	}
	return out
}

// waitOp waits (within d) until the journal holds op.
func (c *child) waitOp(t *testing.T, op string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if slices.Contains(c.ops(), op) {
			return
		}
	}
	t.Fatalf("the journal never said %q (it holds %v):\n%s", op, c.ops(), strings.Join(c.log, "\n"))
}

func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("killing the run: %v", err)
	}
}

// TestRunKilledLeavesNothing: `run --start` killed with SIGKILL after the
// start, during the warm-up, during the load and during the collection
// after it leaves no service, JFR recording, GC log switch, attach socket or
// file behind: the watchdog undoes them within seconds.
func TestRunKilledLeavesNothing(t *testing.T) {
	for _, point := range []string{"NOTE started", "NOTE warming up", "LOAD", "collect"} {
		t.Run(strings.TrimPrefix(point, "NOTE "), func(t *testing.T) {
			start, url, pidFile := tinyService(t)
			tmp := t.TempDir()
			c := childRun{Start: start, URL: url, Out: filepath.Join(tmp, "run")}
			if point == "collect" {
				c.Secs = 3
			}
			ch := startChild(t, c, tmp)
			switch point {
			case "collect":
				// The GC log is collected and switched off first, then the
				// JFR recording: killed in between.
				ch.waitOp(t, launch.OpGCOff, 90*time.Second)
			default:
				ch.waitLine(t, point)
			}
			jvm := readPID(pidFile)
			for jvm == 0 && point == "NOTE started" { // the JVM writes its pid once it listens
				time.Sleep(50 * time.Millisecond)
				jvm = readPID(pidFile)
			}
			if point == "LOAD" {
				// GC logging is switched on before the warm-up, JFR after it:
				// both are in the journal before the load's first second.
				ops := ch.ops()
				if !slices.Contains(ops, launch.OpGCLog) || !slices.Contains(ops, launch.OpJFR) {
					t.Fatalf("killed during the load with nothing to undo: the journal holds %v", ops)
				}
				if m, _ := filepath.Glob(fmt.Sprintf("/tmp/tuneloop-gc-%d-*", jvm)); len(m) == 0 {
					t.Fatal("no GC log file was switched on before the kill")
				}
			}
			ch.kill(t)
			var left []string
			for end := time.Now().Add(8 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if left = leftovers(jvm); len(left) == 0 {
					break
				}
			}
			if len(left) > 0 {
				_ = syscall.Kill(jvm, syscall.SIGKILL)
				t.Fatalf("after SIGKILL of the run: %v", left)
			}
			if _, err := os.Stat(pidFile + ".stopped"); err != nil {
				t.Errorf("the service was not stopped gracefully (its shutdown hook did not finish): %v", err)
			}
		})
	}
}

// ourSwitches is what of ours is on in the live JVM pid, through our own
// attach: a JFR recording named tuneloop, a GC log output to a file of
// ours.
func ourSwitches(pid int) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	var on []string
	out, err := vm.Execute(ctx, "JFR.check")
	if err != nil {
		return nil, err
	}
	if strings.Contains(out, "name=tuneloop") {
		on = append(on, "JFR: "+strings.TrimSpace(out))
	}
	outs, err := vm.LogOutputs(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		if strings.Contains(o.File(), "/tuneloop-gc-") {
			on = append(on, fmt.Sprintf("VM.log #%d %s %s", o.Index, o.Name, o.Selection))
		}
	}
	return on, nil
}

// TestRunKilledSurvivingJVM: a run whose JVM outlives it (--keep-service,
// or --pid of a JVM the run did not start) killed with SIGKILL during the
// load: the watchdog switches the JFR recording and the GC log output off
// in the live JVM (asked through our own attach: JFR.check, VM.log list),
// removes their files, and leaves the JVM running and answering.
func TestRunKilledSurvivingJVM(t *testing.T) {
	for _, how := range []string{"keep-service", "pid"} {
		t.Run(how, func(t *testing.T) {
			start, url, pidFile := tinyService(t)
			tmp := t.TempDir()
			c := childRun{URL: url, Out: filepath.Join(tmp, "run")}
			if how == "pid" {
				args := strings.Fields(start)
				svc := exec.Command(args[0], args[1:]...)
				svc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := svc.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = syscall.Kill(-svc.Process.Pid, syscall.SIGKILL); testchild.ReapJVM(svc) })
				for end := time.Now().Add(60 * time.Second); readPID(pidFile) == 0 && time.Now().Before(end); {
					time.Sleep(50 * time.Millisecond)
				}
				c.PID = readPID(pidFile)
				if c.PID == 0 {
					t.Fatal("the service never wrote its pid")
				}
			} else {
				c.Start, c.Keep = start, true
			}
			ch := startChild(t, c, tmp)
			if how == "keep-service" {
				t.Cleanup(func() {
					if pid := readPID(pidFile); pid != 0 {
						_ = syscall.Kill(pid, syscall.SIGKILL)
						for end := time.Now().Add(5 * time.Second); launch.Alive(pid) && time.Now().Before(end); {
							time.Sleep(20 * time.Millisecond)
						}
						launch.RemoveStaleAttach(pid) // not our child: its socket, once it is gone
					}
				})
			}
			ch.waitLine(t, "LOAD")
			jvm := readPID(pidFile)
			on, err := ourSwitches(jvm)
			if err != nil {
				t.Fatal(err)
			}
			if len(on) != 2 {
				t.Fatalf("before the kill, want our JFR recording and GC log on, got %v (journal %v)", on, ch.ops())
			}
			ch.kill(t)
			var left []string
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
				on, err := ourSwitches(jvm)
				if err != nil {
					t.Fatalf("the JVM after the watchdog: %v", err)
				}
				left = on
				for _, g := range []string{fmt.Sprintf("/tmp/tuneloop-gc-%d-*", jvm), fmt.Sprintf("/tmp/tuneloop-%d-*.jfr", jvm)} {
					m, _ := filepath.Glob(g)
					left = append(left, m...)
				}
				if len(left) == 0 {
					break
				}
			}
			if len(left) > 0 {
				t.Fatalf("after SIGKILL of the run, the live JVM keeps: %v", left)
			}
			if !launch.Alive(jvm) {
				t.Fatal("the JVM was stopped")
			}
			resp, err := http.Get(url)
			if err != nil {
				t.Fatalf("the kept JVM does not answer: %v", err)
			}
			resp.Body.Close()
			if _, err := os.Stat(pidFile + ".stopped"); err == nil {
				t.Error("the service was stopped")
			}
		})
	}
}

// TestRunInterruptedStopsGracefully: Ctrl-C during the load: the JFR
// recording and GC log are still collected and switched off (no "stuck at
// a safepoint" from a cancelled attach), the service is stopped through
// its shutdown hook, and nothing of ours is left in /tmp.
func TestRunInterruptedStopsGracefully(t *testing.T) {
	start, url, pidFile := tinyService(t)
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var notes []string
	hooks := RunHooks{Note: func(t finding.Text) { notes = append(notes, t.EN) }, OnLoad: func(p loadgen.Progress) {
		if p.Elapsed >= 2*time.Second {
			cancel()
		}
	}}
	res, err := LoadAndRecord(ctx, RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 5 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 10 * time.Second, Requests: []loadgen.Request{{URL: url}}}, Interval: 500 * time.Millisecond,
		Out: dir, NoCatalog: true, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return filepath.Join(filepath.Dir(dir), "state")
			}
			return ""
		}}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	jvm := readPID(pidFile)
	all := strings.Join(notes, "\n")
	if strings.Contains(all, "safepoint") || strings.Contains(all, "not collected") {
		t.Errorf("notes:\n%s", all)
	}
	if res.JFR == "" {
		t.Errorf("no JFR recording collected after Ctrl-C; notes:\n%s", all)
	}
	if _, err := os.Stat(pidFile + ".stopped"); err != nil {
		t.Errorf("the service's shutdown hook did not finish: %v", err)
	}
	if l := leftovers(jvm); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
	if res.Folder.Manifest.Status != runfolder.Interrupted {
		t.Errorf("status %s", res.Folder.Manifest.Status)
	}
}

// smallDisk mounts a tmpfs of size (root only; else skip) and returns it
// and a function that fills what is left of it.
func smallDisk(t *testing.T, size string) (mnt string, fill func()) {
	t.Helper()
	mnt = t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	return mnt, func() {
		f, err := os.Create(filepath.Join(mnt, "filler"))
		if err != nil {
			return
		}
		defer f.Close()
		for _, n := range []int{64 << 10, 512, 1} {
			buf := make([]byte, n)
			for {
				if _, err := f.Write(buf); err != nil {
					break
				}
			}
		}
	}
}

// TestRunDiskFull: the disk fills during the run: the run ends with what it
// measured (the load's summary, the verdict), the folder keeps what was
// written and its manifest says why it is incomplete instead of
// "recording".
func TestRunDiskFull(t *testing.T) {
	mnt, fill := smallDisk(t, "48m") // room enough for the check before the run
	srv := httptestServer(t)
	dir := filepath.Join(mnt, "run")
	filled := false
	hooks := RunHooks{OnLoad: func(p loadgen.Progress) {
		if !filled && p.Elapsed >= time.Second {
			filled = true
			fill()
		}
	}}
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: srv, StartTimeout: 10 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 3 * time.Second, Requests: []loadgen.Request{{URL: srv}}}, Interval: 250 * time.Millisecond,
		Out: dir, NoCatalog: true}, hooks)
	if err != nil {
		t.Fatalf("a full disk lost the run: %v", err)
	}
	if res.WriteErr == nil || !strings.Contains(res.WriteErr.Error(), "no space left on device") {
		t.Errorf("write error %v", res.WriteErr)
	}
	if res.Load == nil || res.Load.Requests == 0 || res.Layers == nil || res.Layers.Load == nil || res.Decision == nil {
		t.Fatalf("what was measured is not returned: %+v", res)
	}
	os.Remove(filepath.Join(mnt, "filler")) // read it back as a user would, after freeing space
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Status != runfolder.Interrupted || !strings.Contains(f.Manifest.Reason, "no space left on device") || f.Manifest.Ticks == 0 {
		t.Errorf("manifest %s %q ticks %d", f.Manifest.Status, f.Manifest.Reason, f.Manifest.Ticks)
	}
}

func httptestServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// TestRunHungServiceIsDiagnosed: a service whose request threads queue
// behind a deadlock never answers the readiness probe: run no longer ends
// with "did not answer within ..." alone; it takes three thread dumps, writes
// the folder and names the deadlock.
func TestRunHungServiceIsDiagnosed(t *testing.T) {
	start, url, pidFile := tinyService(t)
	start += " deadlock"
	dir := filepath.Join(t.TempDir(), "run")
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 8 * time.Second, StopTimeout: 2 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 30 * time.Second, Requests: []loadgen.Request{{URL: url}}}, Interval: time.Second,
		Out: dir, NoCatalog: true, ThreadDumps: 5, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return filepath.Join(filepath.Dir(dir), "state")
			}
			return ""
		}}, RunHooks{})
	if err != nil {
		t.Fatalf("a hung service is not diagnosed: %v", err)
	}
	if res.Unready == nil || !strings.Contains(res.Unready.Error(), "did not answer within 8s") {
		t.Errorf("unready: %v", res.Unready)
	}
	if res.Decision.Branch != verdict.Deadlock {
		t.Errorf("verdict %s: %v", res.Decision.Branch, res.Decision.Verdict)
	}
	if n := len(res.Layers.Dumps); n != 3 {
		t.Errorf("%d thread dumps, want 3", n)
	}
	if l := leftovers(readPID(pidFile)); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestRunServiceStopsAnswering: a service that deadlocks 1.5 s into the
// load: the load stops after a few seconds without a success (not at the
// end of its 30 s), three thread dumps are taken, and the verdict's first
// line says it stopped answering, because of the deadlock.
func TestRunServiceStopsAnswering(t *testing.T) {
	start, url, pidFile := tinyService(t)
	dir := filepath.Join(t.TempDir(), "run")
	triggered := false
	hooks := RunHooks{OnLoad: func(p loadgen.Progress) {
		if !triggered && p.Elapsed >= time.Second {
			triggered = true
			go func() {
				time.Sleep(500 * time.Millisecond)
				if resp, err := http.Get(url + "deadlock"); err == nil {
					resp.Body.Close()
				}
			}()
		}
	}}
	t0 := time.Now()
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 30 * time.Second, Requests: []loadgen.Request{{URL: url}}}, Interval: 500 * time.Millisecond,
		Out: dir, NoCatalog: true, NoJFR: true, Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return filepath.Join(filepath.Dir(dir), "state")
			}
			return ""
		}}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > 25*time.Second {
		t.Errorf("the run took %v: the load ran on against a hung service", el)
	}
	if res.Service == nil || !res.Service.Hung {
		t.Fatalf("service %+v, want stopped answering", res.Service)
	}
	if at := res.Service.AtS; at < 0.5 || at > 3.5 {
		t.Errorf("stopped answering at %+.1f s, deadlocked at about +1.5 s", at)
	}
	v := res.Decision.Verdict
	if res.Decision.Branch != verdict.ServiceStalled || v == nil || !strings.Contains(strings.ToLower(v.Title.EN), "deadlock") {
		t.Errorf("verdict %s: %v", res.Decision.Branch, v)
	}
	if len(res.Layers.Dumps) < 3 {
		t.Errorf("%d thread dumps, want the 3 taken when it stopped answering", len(res.Layers.Dumps))
	}
	if l := leftovers(readPID(pidFile)); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestRunPreconditions: a folder on a file system without room for the run
// and a port that already answers are refused before anything starts.
func TestRunPreconditions(t *testing.T) {
	mnt, _ := smallDisk(t, "2m")
	marker := filepath.Join(t.TempDir(), "started")
	_, err := LoadAndRecord(context.Background(), RunOptions{Target: "http://127.0.0.1:1/", Start: "touch " + marker,
		Load: loadgen.Config{Users: 1, Duration: time.Minute}, Out: filepath.Join(mnt, "run"), NoCatalog: true}, RunHooks{})
	if err == nil || !strings.Contains(err.Error(), "iB free") {
		t.Errorf("a 2 MB file system for a 1 min run: %v", err)
	}
	srv := httptestServer(t)
	_, err = LoadAndRecord(context.Background(), RunOptions{Target: srv, Start: "touch " + marker,
		Load: loadgen.Config{Users: 1, Duration: time.Second}, Out: filepath.Join(t.TempDir(), "run"), NoCatalog: true}, RunHooks{})
	if err == nil || !strings.Contains(err.Error(), "already listens on 127.0.0.1:") {
		t.Errorf("a port already in use: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the service was started anyway")
	}
}

func TestStallWatch(t *testing.T) {
	var s stallWatch
	sec := func(i int, n, errs int64) bool {
		return s.see(loadgen.Progress{Elapsed: time.Duration(i) * time.Second, Last: loadgen.Second{Requests: n, Errors: errs}})
	}
	for i := 1; i <= 10; i++ { // a service answering only 500s is answering
		if sec(i, 50, 50) {
			t.Fatalf("errors read as a stall at %d s", i)
		}
	}
	for i := 11; i <= 14; i++ {
		if sec(i, 0, 0) {
			t.Fatalf("a stall after %d quiet seconds", i-10)
		}
	}
	if !sec(15, 0, 0) || s.last != 10*time.Second {
		t.Errorf("no stall after 5 quiet seconds (last answer at %v)", s.last)
	}
	// A load whose first answer is slow (other jobs on the CPUs, a cold
	// JIT) has not stalled until the request timeout and 5 s more have
	// passed without one; then it has.
	s = stallWatch{firstWait: 15 * time.Second}
	for i := 1; i <= 14; i++ {
		if sec(i, 0, 0) {
			t.Fatalf("a slow first answer read as a stall at %d s", i)
		}
	}
	if !sec(15, 0, 0) {
		t.Error("no stall after 15 s without a first answer")
	}
	// Answers in the warm-up count as answers.
	s = stallWatch{firstWait: 15 * time.Second}
	s.see(loadgen.Progress{Warmup: true, Last: loadgen.Second{Requests: 3}})
	for i := 1; i <= 4; i++ {
		sec(i, 0, 0)
	}
	if !sec(5, 0, 0) {
		t.Error("a service that answered in the warm-up and then not for 5 s is not a stall")
	}
}
