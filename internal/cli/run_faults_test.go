package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunDiskFullPrintsWhatWasMeasured: a disk that fills during `run`
// no longer ends in a bare "no space left on device": the summary of what
// was measured is printed, and the exit status is 1 with the reason.
func TestRunDiskFullPrintsWhatWasMeasured(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=48m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"
	go func() {
		// Fill the disk once the load has run a second.
		time.Sleep(1500 * time.Millisecond)
		f, err := os.Create(filepath.Join(mnt, "filler"))
		if err != nil {
			return
		}
		defer f.Close()
		for _, n := range []int{64 << 10, 512, 1} {
			for buf := make([]byte, n); ; {
				if _, err := f.Write(buf); err != nil {
					break
				}
			}
		}
	}()
	env, out, errb := recEnv(t)
	err = RunRun(context.Background(), env, &RunOptions{Target: url, Users: 2, Duration: 3 * time.Second, WarmUp: 0,
		Interval: 250 * time.Millisecond, Out: filepath.Join(mnt, "run"), Output: "text", NoCatalog: true, Quiet: true})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("err = %v, want exit 1 naming the full disk\n%s", err, errb.String())
	}
	if s := out.String(); !strings.Contains(s, "load: ") || !strings.Contains(s, "TPS") {
		t.Errorf("what was measured is not printed:\n%s", s)
	}
}

// TestRunServiceExitedExitsNonZero: the service killed mid-run: the
// verdict's first line says so, and run exits 1.
func TestRunServiceExitedExitsNonZero(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	src, _ := filepath.Abs(filepath.Join("..", "session", "testdata", "TinyService.java"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	pidFile := filepath.Join(t.TempDir(), "svc.pid")
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	go func() {
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			var pid int
			if b, err := os.ReadFile(pidFile); err == nil {
				fmt.Sscan(string(b), &pid)
			}
			if pid > 0 {
				time.Sleep(3 * time.Second) // into the load (no warm-up)
				_ = syscall.Kill(pid, syscall.SIGKILL)
				return
			}
		}
	}()
	env, out, errb := recEnv(t)
	dir := filepath.Join(t.TempDir(), "run")
	err = RunRun(context.Background(), env, &RunOptions{Target: url, Users: 2, Duration: 8 * time.Second, WarmUp: 0,
		Interval: 500 * time.Millisecond, Out: dir, Output: "text", NoCatalog: true, Quiet: true, NoJFR: true,
		Start: fmt.Sprintf("%s -Xmx64m %s %d %s", java, src, port, pidFile), StartTimeout: 60 * time.Second, StopTimeout: 2 * time.Second})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "the service exited with code 137") {
		t.Fatalf("err = %v, want exit 1: the service exited\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "VERDICT: Root cause: The service exited with code 137 (SIGKILL) at +") {
		t.Errorf("stdout:\n%s", out.String())
	}
	for _, name := range []string{"report.md", "report.html", "report.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), "The service exited with code 137 (SIGKILL)") {
			t.Errorf("%s does not say the service exited: %v", name, err)
		}
	}
}

// TestRecordTargetCommIsSanitised: a target whose comm holds terminal
// escapes (a window title, a colour) reaches the terminal through record's
// "target:" line as harmless text.
func TestRecordTargetCommIsSanitised(t *testing.T) {
	cmd := exec.Command("bash", "-c", `printf '\033]0;PWN\007\033[31m' > /proc/$$/comm; sleep 30; true`)
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.Contains(string(b), "PWN") {
			break
		}
	}
	env, out, errb := recEnv(t)
	err := RunRecord(context.Background(), env, &RecordOptions{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond, PID: pid,
		Out: filepath.Join(t.TempDir(), "run"), Output: "text", NoCatalog: true})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String() + errb.String()
	if !strings.Contains(s, "PWN") || strings.ContainsAny(s, "\x1b\x07") {
		t.Errorf("target comm printed raw (or not at all):\n%q", s)
	}
}

// TestRecordDiskFull: the disk fills while record runs: the report of what
// was recorded is printed, exit 1 says why, and the manifest is not left
// saying "recording".
func TestRecordDiskFull(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	fill := func() {
		f, err := os.Create(filepath.Join(mnt, "filler"))
		if err != nil {
			return
		}
		defer f.Close()
		for _, n := range []int{64 << 10, 512, 1} {
			for buf := make([]byte, n); ; {
				if _, err := f.Write(buf); err != nil {
					break
				}
			}
		}
	}
	env, out, _ := recEnv(t)
	dir := filepath.Join(mnt, "run")
	err := RunRecord(context.Background(), env, &RecordOptions{Duration: 1500 * time.Millisecond, Interval: 100 * time.Millisecond,
		Out: dir, Output: "text", NoCatalog: true, OnStart: func(string) { time.AfterFunc(400*time.Millisecond, fill) }})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("err = %v, want exit 1 naming the full disk", err)
	}
	if !strings.Contains(out.String(), "run folder") && !strings.Contains(out.String(), "CPU") {
		t.Errorf("no report printed:\n%s", out.String())
	}
	os.Remove(filepath.Join(mnt, "filler"))
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	var m struct{ Status, Reason string }
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil || m.Status != "interrupted" || !strings.Contains(m.Reason, "no space left on device") {
		t.Errorf("manifest %+v (%v)", m, err)
	}
}
