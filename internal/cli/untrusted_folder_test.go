package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// recordedRun copies a real recorded run folder (no report.json: compare
// and analyze diagnose it) into a temporary one the test may spoil.
func recordedRun(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "verdict", "testdata", "runs", name), dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return dir
}

// within fails the test unless f returns within d (a FIFO read blocks).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}

// compare of a folder whose report.json links out of it is refused, naming
// the file; the page the link points to is not compared.
func TestUntrustedCompareReportLink(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	b, err := os.ReadFile(demoBefore)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(outside, b, 0o600)
	dir := t.TempDir()
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	env, out, errb := testEnv()
	if code := runRoot(t, env, "compare", dir, demoAfter); code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(errb.String(), link) || !strings.Contains(errb.String(), "symbolic link") {
		t.Errorf("stderr does not name %s as a link not read: %q", link, errb)
	}
	if out.Len() != 0 {
		t.Errorf("compared anyway:\n%s", out)
	}
}

// A FIFO as report.json (or as a record folder's check.json) does not
// block compare.
func TestUntrustedCompareFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "report.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never writes
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	env, _, errb := testEnv()
	within(t, time.Second, func() {
		if code := runRoot(t, env, "compare", dir, demoAfter); code != ExitFailure {
			t.Errorf("exit %d, want %d", code, ExitFailure)
		}
	})
	if !strings.Contains(errb.String(), fifo) {
		t.Errorf("stderr does not name %s: %q", fifo, errb)
	}
}

// apply --from a folder whose check.json links out of it (to a check.json
// that would apply) is refused; a FIFO there does not block it.
func TestUntrustedApplyFromLinkedCheck(t *testing.T) {
	host := applyHost(t)
	fs := []finding.Finding{{ID: "net.syn-backlog", Status: finding.Fail, Fix: finding.Fix{Apply: "sysctl -w net.ipv4.tcp_max_syn_backlog=4096",
		Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "net.ipv4.tcp_max_syn_backlog", Value: "4096"}}}}}
	b, _ := json.Marshal(fs)
	outside := filepath.Join(t.TempDir(), "check.json")
	os.WriteFile(outside, b, 0o600)
	// The same file inside a folder is applied: the refusal below is the link's.
	good := t.TempDir()
	os.WriteFile(filepath.Join(good, "check.json"), b, 0o600)
	env, out, _ := testEnv()
	if err := RunApply(context.Background(), env, &ApplyOptions{From: good, IDs: []string{"net.syn-backlog"}, Root: host, Journal: t.TempDir(), Output: "text"}); err != nil || !strings.Contains(out.String(), "[would change]") {
		t.Fatalf("a regular check.json: %v\n%s", err, out)
	}

	dir := t.TempDir()
	link := filepath.Join(dir, "check.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	env, out, _ = testEnv()
	err := RunApply(context.Background(), env, &ApplyOptions{From: dir, IDs: []string{"net.syn-backlog"}, Root: host, Journal: t.TempDir(), Output: "text"})
	if err == nil || !strings.Contains(err.Error(), "--from") || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("apply --from a linked check.json: %v; want refused naming %s", err, link)
	}
	if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, "未读取") {
		t.Errorf("zh message %q", zh)
	}
	if out.Len() != 0 {
		t.Errorf("planned anyway:\n%s", out)
	}

	fdir := t.TempDir()
	fifo := filepath.Join(fdir, "check.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	within(t, time.Second, func() {
		env, _, _ := testEnv()
		if err := RunApply(context.Background(), env, &ApplyOptions{From: fdir, AllSafe: true, Root: host, Journal: t.TempDir(), Output: "text"}); err == nil || !strings.Contains(err.Error(), fifo) {
			t.Errorf("apply --from a FIFO check.json: %v; want refused naming it", err)
		}
	})
}

// analyze RUN_DIR, compare and runs export of a record folder end with
// "interrupted" when their context is already done, reporting nothing.
func TestUntrustedFolderCancelledContext(t *testing.T) {
	dir := recordedRun(t, "healthy")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env, out, _ := testEnv()
	if err := analyzeRunDir(ctx, env, dir, AnalyzeRunOptions{}); err == nil || !strings.Contains(err.Error(), "interrupted") || out.Len() != 0 {
		t.Errorf("analyze RUN_DIR: %v, output %q", err, out)
	}
	env, out, _ = testEnv()
	if err := RunCompareArgs(ctx, env, &CompareOptions{Output: "text"}, []string{dir, dir}, -1); err == nil || !strings.Contains(err.Error(), "interrupted") || out.Len() != 0 {
		t.Errorf("compare: %v, output %q", err, out)
	}
	env, out, _ = testEnv()
	if err := RunRunsExport(ctx, env, &RunsExportOptions{OpenMetrics: true}, dir); err == nil || !strings.Contains(err.Error(), "interrupted") || out.Len() != 0 {
		t.Errorf("runs export: %v, output %q", err, out)
	}
}

// analyze RUN_DIR on a folder whose GC log is gigabytes (the real log,
// then a sparse hole to 6 GiB: many seconds to parse) ends within a second
// or two of SIGINT or SIGTERM, saying it was interrupted.
func TestUntrustedAnalyzeRunSignalEndsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "tuneloop")
	build := exec.Command("go", "build", "-o", bin, "github.com/tuneloop/tuneloop/cmd/tuneloop")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// How long the whole analysis of the folder as recorded takes here:
	// the signal comes after it, so inside the GC log.
	dir := recordedRun(t, "gc-pressure")
	start := time.Now()
	if out, err := exec.Command(bin, "analyze", dir).CombinedOutput(); err != nil {
		t.Fatalf("analyze of the folder as recorded: %v\n%s", err, out)
	}
	base := time.Since(start)
	if err := os.Truncate(filepath.Join(dir, "raw", "gc-0.log"), 6<<30); err != nil {
		t.Skip(err)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		cmd := exec.Command(bin, "analyze", dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			t.Fatalf("%v: analyze ended before the signal (%q): the GC log is not large enough to test with", sig, stderr.String())
		case <-time.After(base + 500*time.Millisecond):
		}
		sent := time.Now()
		cmd.Process.Signal(sig)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: still running 3 s after the signal", sig)
		}
		if el := time.Since(sent); el > 2*time.Second || cmd.ProcessState.ExitCode() == 0 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: ended after %v, code %d, stderr %q", sig, el, cmd.ProcessState.ExitCode(), stderr.String())
		}
	}
}
