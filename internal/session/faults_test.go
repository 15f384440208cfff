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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// runChildEnv makes the test binary a `tuneloop run` (session.Run with the
// options in the variable, JSON), for tests that kill it with SIGKILL.
const runChildEnv = "TUNELOOP_TEST_RUN_CHILD"

// childRun is what the child runs: `run --start START --target URL
// --warm-up 2s -d 20s -c 2 --out OUT --no-catalog`.
type childRun struct{ Start, URL, Out string }

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
	o := RunOptions{Target: c.URL, Start: c.Start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second, WarmUp: 2 * time.Second,
		Load: loadgen.Config{Users: 2, Duration: 20 * time.Second, Requests: []loadgen.Request{{URL: c.URL}}}, Interval: 500 * time.Millisecond,
		Out: c.Out, NoCatalog: true, Getenv: os.Getenv}
	_, err := Run(context.Background(), o, RunHooks{
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
	res, err := Run(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
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
	f, err := run.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Service == nil || f.Manifest.Status != run.Interrupted || !strings.Contains(f.Manifest.Reason, "code 137") {
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

// TestRunKilledLeavesNothing: `run --start` killed with SIGKILL after the
// start, during the warm-up and during the load leaves no service, JFR
// recording, GC log switch, attach socket or file behind: the watchdog
// undoes them within seconds.
func TestRunKilledLeavesNothing(t *testing.T) {
	for _, point := range []string{"NOTE started", "NOTE warming up", "LOAD"} {
		t.Run(strings.TrimPrefix(point, "NOTE "), func(t *testing.T) {
			start, url, pidFile := tinyService(t)
			tmp := t.TempDir()
			b, _ := json.Marshal(childRun{Start: start, URL: url, Out: filepath.Join(tmp, "run")})
			exe, _ := os.Executable()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), runChildEnv+"="+string(b), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			sc := bufio.NewScanner(stderr)
			var log []string
			reached := false
			deadline := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
			for sc.Scan() {
				log = append(log, sc.Text())
				if strings.HasPrefix(sc.Text(), point) {
					reached = true
					break
				}
			}
			deadline.Stop()
			if !reached {
				t.Fatalf("the run never reached %q:\n%s", point, strings.Join(log, "\n"))
			}
			if point != "NOTE started" {
				time.Sleep(1500 * time.Millisecond) // GC log and JFR switched on by now
			}
			jvm := readPID(pidFile)
			for jvm == 0 && point == "NOTE started" { // the JVM writes its pid once it listens
				time.Sleep(50 * time.Millisecond)
				jvm = readPID(pidFile)
			}
			if point == "LOAD" {
				if m, _ := filepath.Glob(fmt.Sprintf("/tmp/tuneloop-gc-%d-*", jvm)); len(m) == 0 {
					t.Log("note: no GC log file was switched on before the kill")
				}
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			go func() { // drain its stderr; the cleanup waits for it
				for sc.Scan() {
				}
			}()
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
	res, err := Run(ctx, RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 5 * time.Second,
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
	if res.Folder.Manifest.Status != run.Interrupted {
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
	res, err := Run(context.Background(), RunOptions{Target: srv, StartTimeout: 10 * time.Second,
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
	f, err := run.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Status != run.Interrupted || !strings.Contains(f.Manifest.Reason, "no space left on device") || f.Manifest.Ticks == 0 {
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
	res, err := Run(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 8 * time.Second, StopTimeout: 2 * time.Second,
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
	res, err := Run(context.Background(), RunOptions{Target: url, Start: start, StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second,
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
	_, err := Run(context.Background(), RunOptions{Target: "http://127.0.0.1:1/", Start: "touch " + marker,
		Load: loadgen.Config{Users: 1, Duration: time.Minute}, Out: filepath.Join(mnt, "run"), NoCatalog: true}, RunHooks{})
	if err == nil || !strings.Contains(err.Error(), "MB free") {
		t.Errorf("a 2 MB file system for a 1 min run: %v", err)
	}
	srv := httptestServer(t)
	_, err = Run(context.Background(), RunOptions{Target: srv, Start: "touch " + marker,
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
}
