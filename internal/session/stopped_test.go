package session

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// TestRunPIDStopped: `run --pid` on a process stopped with SIGSTOP (its
// port then accepts and never answers) says at once that it is stopped
// (state T) and how to resume it, instead of waiting out --start-timeout.
func TestRunPIDStopped(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); attach.CheckRunnable(cmd.Process.Pid) == nil && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // the stopped service's port: accepted by the kernel, never answered
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String() + "/"
	start := time.Now()
	_, err = LoadAndRecord(context.Background(), RunOptions{Target: url, PID: cmd.Process.Pid, StartTimeout: 30 * time.Second,
		Load: loadgen.Config{Users: 1, Duration: time.Second, Requests: []loadgen.Request{{URL: url}}}, Interval: 500 * time.Millisecond,
		Out: filepath.Join(t.TempDir(), "run"), NoCatalog: true, Getenv: func(string) string { return "" }}, RunHooks{})
	if !errors.Is(err, attach.ErrStopped) || !strings.Contains(err.Error(), "state is T") || !strings.Contains(err.Error(), "kill -CONT") {
		t.Fatalf("err %v, want the process named as stopped", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("said after %v: want at once, not after the 30 s start timeout", d.Round(time.Second))
	}
}
