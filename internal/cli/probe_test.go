package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
	"github.com/tuneloop/tuneloop/internal/testchild"
)

// TestProbeFolderAndCompare: a real quick CPU probe writes its folder in
// four forms, and comparing it with itself finds no significant change.
func TestProbeFolderAndCompare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	env, out, _ := testEnv()
	if err := RunProbe(context.Background(), env, &ProbeOptions{Output: "text", Out: dir, Quick: true, Only: "cpu", Sizes: "1", NoCatalog: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "system call (getppid)") || !strings.Contains(out.String(), "95% interval") {
		t.Errorf("text output:\n%s", out)
	}
	for _, f := range []string{"probe.json", "probe.txt", "probe.md", "probe.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "probe.html"))
	if runtime.NumCPU() > 1 && !strings.Contains(string(page), `aria-label="core to core"`) {
		t.Error("the page has no core-to-core heat map")
	}
	if strings.Contains(string(page), "http://") || strings.Contains(string(page), "https://") {
		t.Error("the page must not reach the network")
	}
	env, out, _ = testEnv()
	if err := RunCompareArgs(context.Background(), env, &CompareOptions{Output: "json"}, []string{dir, filepath.Join(dir, "probe.json")}, -1); err != nil {
		t.Fatal(err)
	}
	var c probe.Comparison
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(c.Rows) < 7 {
		t.Fatalf("%d rows", len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Verdict != probe.Same {
			t.Errorf("%s compared with itself: %s", r.ID, r.Verdict)
		}
	}
	env, out, _ = testEnv()
	if err := RunCompareArgs(context.Background(), env, &CompareOptions{Output: "text"}, []string{dir, dir}, -1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no significant difference") {
		t.Errorf("compare text:\n%s", out)
	}
}

// TestProbeChinese: --lang zh writes the folder's pages in Chinese too.
func TestProbeChinese(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	env, out, _ := testEnv()
	if err := RunProbe(context.Background(), env, &ProbeOptions{Output: "markdown", Lang: "zh", Out: dir, Quick: true, Only: "disk", Dir: t.TempDir(), DiskMB: 8, Sizes: "1", NoCatalog: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "## 磁盘") || !strings.Contains(out.String(), "fsync 延迟中位数") {
		t.Errorf("markdown in Chinese:\n%s", out)
	}
	for _, f := range []string{"probe.txt", "probe.html"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if !strings.Contains(string(b), "磁盘") && !strings.Contains(string(b), "DISK") {
			t.Errorf("%s has no disk section", f)
		}
		if !strings.Contains(string(b), "fsync 延迟") {
			t.Errorf("%s is not in Chinese", f)
		}
	}
}

func TestProbeUsage(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "--only", "gpu"},
		{"probe", "--listen", "127.0.0.1:0", "--peer", "127.0.0.1:1"},
		{"probe", "--sizes", "0"},
		{"probe", "--sizes", "2m"},
		{"probe", "-o", "html"},
	} {
		env, _, errb := testEnv()
		if code := runRoot(t, env, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, errb)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "probe.json"), []byte(`{"schema": "tuneloop.probe/v1", "core_to_core": {"cpus": [0, 1], "ns": [[1]]}}`), 0o644)
	env, _, errb := testEnv()
	if code := runRoot(t, env, "compare", dir, dir); code != ExitFailure || !strings.Contains(errb.String(), filepath.Join(dir, "probe.json")) {
		t.Errorf("a broken probe.json: exit %d, %s", code, errb)
	}
}

// TestProbeListenTokenFromEnv: --listen takes its token from the
// environment and stops after --for.
func TestProbeListenTokenFromEnv(t *testing.T) {
	env, out, _ := testEnv()
	env.Getenv = func(k string) string {
		if k == probeTokenEnv {
			return "from-env"
		}
		return ""
	}
	start := time.Now()
	if err := RunProbe(context.Background(), env, &ProbeOptions{Output: "text", Listen: "127.0.0.1:0", For: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("--for 200ms took over 5 s")
	}
	if !strings.HasPrefix(out.String(), "listening on 127.0.0.1:") {
		t.Errorf("%q", out)
	}
	// In Chinese when asked (--peer-ssh starts its listener with --lang en).
	env, out, _ = testEnv()
	if err := RunProbe(context.Background(), env, &ProbeOptions{Output: "text", Listen: "127.0.0.1:0", For: 100 * time.Millisecond, Token: "t", Lang: "zh"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "正在监听 127.0.0.1:") || !strings.Contains(out.String(), "，直到 ") {
		t.Errorf("zh: %q", out)
	}
}

// TestProbeSIGTERMLeavesNothing stops the real binary with SIGTERM in the
// middle of its disk part: it reports what it measured, exits non-zero,
// and the measured folder holds nothing of it.
func TestProbeSIGTERMLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tuneloop")
	}
	exe := buildTuneloop(t)
	dir := t.TempDir()
	cmd := exec.Command(exe, "probe", "--only", "disk", "--dir", dir, "--disk-size", "64", "--out", "-")
	var out strings.Builder
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && sc.Text() != "probe: disk" {
	}
	var errb strings.Builder
	copied := make(chan struct{})
	go func() { io.Copy(&errb, stderr); close(copied) }()
	// Into its rounds: its nameless file in dir is open (however slowly a
	// starved machine got there).
	if !openUnder(cmd.Process.Pid, dir, 60*time.Second) {
		cmd.Process.Kill()
		t.Fatalf("no file open under %s 60 s into the disk part", dir)
	}
	time.Sleep(time.Second) // most often past its first figure; either way is checked below
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("an interrupted probe must not exit 0")
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 15 s after SIGTERM")
	}
	<-copied
	if es, _ := os.ReadDir(dir); len(es) > 0 {
		t.Errorf("left in %s: %v", dir, es)
	}
	switch {
	case strings.Contains(out.String(), "INTERRUPTED"): // what it measured, said to be partial
	case out.Len() == 0 && strings.Contains(errb.String(), "interrupted before any figure was measured"):
		// A starved machine got the signal in before the first figure.
		t.Logf("signalled before the first figure: %s", strings.TrimSpace(errb.String()))
	default:
		t.Errorf("neither a report that says it was interrupted nor why there is none:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

// openUnder waits up to d for process pid to hold a file open under dir
// (O_TMPFILE and unlinked files read "dir/#N (deleted)" or "dir/x
// (deleted)" in /proc/PID/fd).
func openUnder(pid int, dir string, d time.Duration) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		es, err := os.ReadDir(fds)
		if err != nil {
			return false // gone
		}
		for _, e := range es {
			if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
				return true
			}
		}
	}
	return false
}

// listenersOf are the PIDs of exe's processes serving `probe --listen`.
func listenersOf(exe string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 2 && args[0] == exe && args[1] == "probe" && args[2] == "--listen" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// Over loopback the network part's other side is the binary again, in a
// process of its own (as qperf's server: the exchanges cross address
// spaces), and the result says so; it ends with the probe, and when the
// probe is killed with SIGKILL it ends too (its stdin closes).
func TestProbeLoopbackListenerIsAProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tuneloop")
	}
	exe := buildTuneloop(t)
	// Prober and listener pinned apart (--cpu, --peer-cpu: qperf's -lca,
	// -rca), when there are two CPUs to pin to.
	args := []string{"probe", "--quick", "--only", "net", "--sizes", "64", "--out", "-", "-o", "json"}
	var set unix.CPUSet
	unix.SchedGetaffinity(0, &set)
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	pinned := len(cpus) == 2
	if pinned {
		args = append(args, "--cpu", strconv.Itoa(cpus[0]), "--peer-cpu", strconv.Itoa(cpus[1]))
	}
	b, err := exec.Command(exe, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	var r probe.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if r.Peer != probe.PeerOwnProcess {
		t.Errorf("peer %q, want %q", r.Peer, probe.PeerOwnProcess)
	}
	for _, id := range []string{"net.tcp_lat.64", "net.tcp_bw.64", "net.udp_lat.64", "net.udp_bw.64", "net.tcp_conn"} {
		f := r.Figure(id)
		if f == nil || !(f.Median > 0) || f.Err != "" {
			t.Errorf("%s: %+v", id, f)
			continue
		}
		// Where the listener process's serving thread ran is read from
		// /proc/PID/task/TID: never on the prober's CPU when pinned apart.
		if pinned && id != "net.tcp_conn" && (f.Placement == nil || f.Placement.Rounds == 0 || f.Placement.SameCPU != 0) {
			t.Errorf("%s pinned to CPUs %v: placement %+v", id, cpus, f.Placement)
		}
	}
	if pinned && (r.ListenerCPU == nil || *r.ListenerCPU != cpus[1]) {
		t.Errorf("listener CPU %v, want %d", r.ListenerCPU, cpus[1])
	}
	if l := listenersOf(exe); len(l) > 0 {
		t.Errorf("listeners left after the probe: %v", l)
	}
	cmd := exec.Command(exe, "probe", "--only", "net", "--out", "-")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var l []int
	for end := time.Now().Add(20 * time.Second); len(l) == 0 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		l = listenersOf(exe)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(l) == 0 {
		t.Fatal("no listener process while the probe ran")
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if len(listenersOf(exe)) == 0 {
			return
		}
	}
	t.Errorf("the listener %v outlived its probe's SIGKILL by 10 s", listenersOf(exe))
}

// TestProbeArm64UnderQemu builds the arm64 binary and runs a quick CPU
// probe with it under qemu-user (installed by .ci/run; skipped without it).
func TestProbeArm64UnderQemu(t *testing.T) {
	qemu := testchild.Qemu(t)
	if testing.Short() {
		t.Skip("builds the arm64 binary")
	}
	bin := filepath.Join(t.TempDir(), "tuneloop-arm64")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/tuneloop")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build arm64: %v\n%s", err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu, bin, "probe", "--quick", "--only", "cpu,net", "--out", "-", "-o", "json")
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s probe: %v", qemu, err)
	}
	var r probe.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if r.Host.Arch != "arm64" {
		t.Errorf("arch %q, want arm64", r.Host.Arch)
	}
	// net: the bandwidth loops' raw system calls by arm64's numbers.
	for _, id := range []string{"cpu.syscall", "cpu.ctxswitch", "cpu.crc32", "net.tcp_bw.64", "net.udp_bw.64", "net.tcp_lat.64"} {
		if f := r.Figure(id); f == nil || !(f.Median > 0) || f.Err != "" {
			t.Errorf("%s under qemu: %+v", id, f)
		}
	}
	if runtime.GOARCH != "arm64" {
		emulated := false
		for _, n := range r.Notes {
			emulated = emulated || strings.Contains(n.EN, "emulated")
		}
		if !emulated {
			t.Errorf("the probe must say it ran emulated: %v", r.Notes)
		}
	}
}

// TestProbePeerOverSSH starts the other side on a real sshd (this machine)
// over SSH and measures the network to it; nothing stays in its /tmp.
func TestProbePeerOverSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tuneloop, starts sshd")
	}
	// A private /tmp (tmpfs in its own mount namespace): what is left there
	// is ours, whatever other tests do in this machine's /tmp.
	d := sshdtest.StartWith(t, sshdtest.Config{TmpSize: "200m"})
	exe := buildTuneloop(t)
	env, out, errb := testEnv()
	o := &ProbeOptions{Output: "json", Out: "-", Quick: true, Only: "net", Sizes: "64", Rounds: 2, SSH: d.Spec(),
		Remote: hostOptions{Identity: []string{d.UserKey}, KnownHosts: d.Known, Exe: exe}}
	if err := RunProbe(context.Background(), env, o); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	var r probe.Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(r.Peer, "loopback") || r.Peer == "" {
		t.Errorf("peer %q: the network part did not go to the SSH host's listener", r.Peer)
	}
	for _, id := range []string{"net.tcp_lat.64", "net.udp_bw.64", "net.tcp_conn"} {
		if f := r.Figure(id); f == nil || !(f.Median > 0) || f.Err != "" {
			t.Errorf("%s: %+v", id, f)
		}
	}
	if left := targetTmp(t, d); len(left) > 0 {
		t.Errorf("left on the target: %v", left)
	}
}
