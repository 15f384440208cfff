package apply

import (
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

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/units"
)

// The test binary doubles as the processes these tests need: an apply (or
// a revert) that SIGKILLs itself after step N, the detached watchdog, and a
// real sysctl change inside a private network namespace.
const (
	envChild    = "TUNELOOP_TEST_APPLY_CHILD"    // "apply|revert JOURNAL TREE KILL_AT"
	envWatchdog = "TUNELOOP_TEST_APPLY_WATCHDOG" // "JOURNAL TX DEADLINE(unix nanos)"
	envNetns    = "TUNELOOP_TEST_APPLY_NETNS"    // "JOURNAL"
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envChild) != "":
		os.Exit(childMain(strings.Fields(os.Getenv(envChild))))
	case os.Getenv(envWatchdog) != "":
		f := strings.Fields(os.Getenv(envWatchdog))
		ns, _ := strconv.ParseInt(f[2], 10, 64)
		if _, err := Watch(context.Background(), &Journal{Dir: f[0]}, f[1], time.Unix(0, ns)); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case os.Getenv(envNetns) != "":
		os.Exit(netnsMain(os.Getenv(envNetns)))
	}
	os.Exit(m.Run())
}

// crashGroups touch every kind of fake-tree knob the crash test can compare
// byte for byte: plain sysctls, a coupled pair, a triple with tabs, a disk
// and an IRQ attribute, across several groups.
func crashGroups() []Group {
	return []Group{
		{Finding: "net.socket-buffers", Changes: []finding.Change{sysctl("net.core.rmem_max", "16777216"), sysctl("net.core.wmem_max", "16777216")}},
		{Finding: "net.tcp-buffers", Changes: []finding.Change{sysctl("net.ipv4.tcp_rmem", "4096 131072 16777216"), sysctl("net.ipv4.tcp_wmem", "4096 131072 16777216")}},
		{Finding: "mem.dirty", Changes: []finding.Change{sysctl("vm.dirty_bytes", "268435456")}},
		{Finding: "disk.read-ahead/vda", Changes: []finding.Change{sysfs("/sys/block/vda/queue/read_ahead_kb", "128")}},
		{Finding: "nic.irq/eth0", Changes: []finding.Change{sysfs("/proc/irq/24/smp_affinity_list", "1")}},
	}
}

// childMain applies (or reverts) and kills itself with SIGKILL right after
// durable step KILL_AT (0: never).
func childMain(args []string) int {
	killAt, _ := strconv.Atoi(args[3])
	n := 0
	j := &Journal{Dir: args[1], Hook: func() {
		n++
		if n == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}}
	var err error
	if args[0] == "apply" {
		_, err = Apply(j, NewPlan(hostfs.Under(args[2]), crashGroups()), Options{})
	} else {
		var rr *RevertResult
		rr, err = Revert(j, RevertOptions{All: true})
		if err == nil && len(rr.Errs) > 0 {
			err = rr.Errs[0]
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runChild(t *testing.T, role, journal, tree string, killAt int) (killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %s %d", envChild, role, journal, tree, killAt))
	out, err := cmd.CombinedOutput()
	if err == nil {
		return false
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	t.Fatalf("%s child (kill at %d): %v: %s", role, killAt, err, out)
	return false
}

// countSteps runs the apply in-process on a copy of tree and counts its
// durable steps.
func countSteps(t *testing.T, tree string) int {
	dir := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", tree, dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	n := 0
	j := &Journal{Dir: t.TempDir(), Hook: func() { n++ }}
	res, err := Apply(j, NewPlan(hostfs.Under(dir), crashGroups()), Options{})
	if err != nil || res.Applied() != len(crashGroups()) {
		t.Fatalf("apply: %v %+v", err, res)
	}
	return n
}

// crashHost is the part of a fixture tree crashGroups touch (small, so
// each of the many copies is quick).
func crashHost(t *testing.T) string {
	src := filepath.Join("..", "..", "testdata", "hosts", "build-vm-amd64")
	dir := filepath.Join(t.TempDir(), "host")
	for _, d := range []string{"proc/sys/net/core", "proc/sys/net/ipv4", "proc/sys/vm", "sys/block/vda/queue", "proc/irq/24"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, d)), 0o755)
		if out, err := exec.Command("cp", "-a", filepath.Join(src, d), filepath.Join(dir, d)).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	return dir
}

func TestKilledAtEveryStepRevertRestores(t *testing.T) {
	dir := crashHost(t)
	// The host uses dirty_bytes: writing it zeroes dirty_ratio on a kernel.
	os.WriteFile(filepath.Join(dir, "proc/sys/vm/dirty_ratio"), []byte("0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "proc/sys/vm/dirty_bytes"), []byte("134217728\n"), 0o644)
	pristine := filepath.Join(t.TempDir(), "pristine")
	if out, err := exec.Command("cp", "-a", dir, pristine).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	total := countSteps(t, pristine)
	if total < 20 {
		t.Fatalf("only %d steps counted", total)
	}
	before := snapshot(t, pristine)
	for n := 1; n <= total+1; n++ {
		reverts := []int{0}
		if n%3 == 0 {
			reverts = append(reverts, 2) // and a revert killed part way, for every third step
		}
		for _, killRevertAt := range reverts {
			tree := filepath.Join(t.TempDir(), "host")
			if out, err := exec.Command("cp", "-a", pristine, tree).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			journal := filepath.Join(t.TempDir(), "journal")
			killed := runChild(t, "apply", journal, tree, n)
			if killed != (n <= total) {
				t.Fatalf("kill at step %d of %d: killed=%v", n, total, killed)
			}
			if killRevertAt > 0 {
				// A revert killed too, part way: the next one still converges.
				runChild(t, "revert", journal, tree, killRevertAt)
			}
			j := &Journal{Dir: journal}
			rr, err := Revert(j, RevertOptions{All: true})
			if err != nil || len(rr.Errs) > 0 {
				t.Fatalf("kill at %d: revert: %v %v", n, err, rr.Errs)
			}
			if d := diff(before, snapshot(t, tree)); len(d) > 0 {
				t.Fatalf("killed after step %d of %d (revert killed at %d): revert left %v", n, total, killRevertAt, d)
			}
			rr, err = Revert(j, RevertOptions{All: true})
			if err != nil || len(rr.Reverted)+len(rr.Errs) > 0 {
				t.Fatalf("kill at %d: second revert was not a no-op: %v %+v", n, err, rr)
			}
			if txs, _ := Status(j); len(txs) > 0 && txs[0].Open() {
				t.Fatalf("kill at %d: transaction still open after revert", n)
			}
		}
	}
}

func TestDeadManTimerReverts(t *testing.T) {
	dir, roots := fakeHost(t, "build-vm-amd64")
	before := snapshot(t, dir)
	j := &Journal{Dir: t.TempDir()}
	apply := func() string {
		res, err := Apply(j, NewPlan(roots, []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", "8192")}}}), Options{})
		if err != nil || res.Applied() != 1 {
			t.Fatalf("apply: %v %+v", err, res)
		}
		return res.TxID
	}
	arm := func(id string, within time.Duration) time.Time {
		deadline := time.Now().Add(within)
		t.Setenv(envWatchdog, fmt.Sprintf("%s %s %d", j.Dir, id, deadline.UnixNano()))
		if err := Arm(j, id, deadline, func() (int, error) { return StartWatchdog([]string{os.Args[0], "-test.run=^$"}) }); err != nil {
			t.Fatal(err)
		}
		return deadline
	}
	somaxconn := filepath.Join(dir, "proc/sys/net/core/somaxconn")

	// Not confirmed: reverted by itself shortly after the 1 s window.
	id := apply()
	deadline := arm(id, time.Second)
	if err := Confirm(j, "20990101-000000-0000"); err == nil {
		t.Error("confirming an unknown transaction succeeded")
	}
	waitFor(t, deadline.Add(5*time.Second), func() bool {
		txs, _ := Status(j)
		return len(txs) > 0 && txs[0].Expired
	})
	if time.Now().Before(deadline) {
		t.Error("reverted before the deadline")
	}
	if d := diff(before, snapshot(t, dir)); len(d) > 0 {
		t.Fatalf("the watchdog left %v", d)
	}
	if err := Confirm(j, id); err == nil || !strings.Contains(err.Error(), "too late") {
		t.Errorf("confirm after expiry: %v", err)
	}

	// Confirmed in time: the change stays after the deadline.
	id = apply()
	deadline = arm(id, time.Second)
	if err := Confirm(j, id); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(deadline) + 1500*time.Millisecond)
	if got := read(t, somaxconn); got != "8192\n" {
		t.Errorf("confirmed change reverted: somaxconn %q", got)
	}
	txs, _ := Status(j)
	if txs[0].ID != id || !txs[0].Confirmed || txs[0].Expired || !txs[0].Open() {
		t.Errorf("confirmed transaction: %+v", txs[0])
	}
}

func waitFor(t *testing.T, until time.Time, ok func() bool) {
	t.Helper()
	for time.Now().Before(until) {
		if ok() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("timed out")
}

func TestPrlimitOnALiveProcess(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	var l unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &l); err != nil {
		t.Skip("prlimit:", err)
	}
	soft := l.Cur / 2 // lowering the soft limit needs no privilege
	roots := hostfs.FS{Proc: "/proc", Sys: t.TempDir(), Etc: t.TempDir()}
	key := fmt.Sprintf("%d/nofile", pid)
	want := fmt.Sprintf("%d:%s", soft, units.FormatRlimit(l.Max))
	j := &Journal{Dir: t.TempDir()}
	res, err := Apply(j, NewPlan(roots, []Group{{Finding: "jvm.limits.nofile/pid", Changes: []finding.Change{{Kind: finding.ChangePrlimit, Key: key, Value: want}}}}), Options{})
	if err != nil || res.Applied() != 1 {
		t.Fatalf("apply: %v %+v", err, res)
	}
	var now unix.Rlimit
	unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &now)
	if now.Cur != soft || now.Max != l.Max {
		t.Fatalf("limit now %+v, want soft %d", now, soft)
	}
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 {
		t.Fatalf("revert: %v %v", err, rr.Errs)
	}
	unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &now)
	if now != l {
		t.Errorf("limit after revert %+v, want %+v", now, l)
	}
	// Another process with the same PID would have another start time.
	if _, _, err := (prlimitKnob{pid: pid, start: 1, res: unix.RLIMIT_NOFILE, root: "/proc"}).read(); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("a restarted PID was not told apart: %v", err)
	}
}

// netnsMain runs in a fresh network namespace: a real sysctl on this
// kernel, applied, read back, reverted, without touching the host's.
func netnsMain(journal string) int {
	f := "/proc/sys/net/core/somaxconn"
	b, err := os.ReadFile(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	orig := strings.TrimSpace(string(b))
	want := "1234"
	if orig == want {
		want = "2345"
	}
	j := &Journal{Dir: journal}
	res, err := Apply(j, NewPlan(hostfs.Live(), []Group{{Finding: "net.somaxconn", Changes: []finding.Change{sysctl("net.core.somaxconn", want)}}}), Options{})
	if err != nil || res.Applied() != 1 {
		fmt.Fprintln(os.Stderr, "apply:", err, res.Groups)
		return 1
	}
	if b, _ := os.ReadFile(f); strings.TrimSpace(string(b)) != want {
		fmt.Fprintf(os.Stderr, "somaxconn %q after apply, want %s\n", b, want)
		return 1
	}
	if rr, err := Revert(j, RevertOptions{All: true}); err != nil || len(rr.Errs) > 0 {
		fmt.Fprintln(os.Stderr, "revert:", err, rr.Errs)
		return 1
	}
	if b, _ := os.ReadFile(f); strings.TrimSpace(string(b)) != orig {
		fmt.Fprintf(os.Stderr, "somaxconn %q after revert, want %s\n", b, orig)
		return 1
	}
	// The ethtool ioctls on a real device of this namespace: a veth has
	// rx/tx channels but no combined ones, which the plan says.
	if out, err := exec.Command("ip", "link", "add", "tlv0", "type", "veth", "peer", "name", "tlv1").CombinedOutput(); err == nil {
		p := NewPlan(hostfs.Live(), []Group{{Finding: "nic.queues", Changes: []finding.Change{{Kind: finding.ChangeEthtool, Key: "tlv0/combined", Value: "2"}}}})
		if err := p.Groups[0].Err; err == nil || !strings.Contains(err.Error(), "no combined channels") {
			fmt.Fprintln(os.Stderr, "ethtool on a veth:", err)
			return 1
		}
	} else {
		fmt.Fprintf(os.Stderr, "(no veth: %v %s)\n", err, out)
	}
	return 0
}

func TestRealSysctlInPrivateNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace")
	}
	host, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envNetns+"="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(err.Error(), "operation not permitted") {
			t.Skip("no network namespaces here:", err)
		}
		t.Fatalf("%v: %s", err, out)
	}
	if now, _ := os.ReadFile("/proc/sys/net/core/somaxconn"); string(now) != string(host) {
		t.Errorf("the host's somaxconn changed: %q -> %q", host, now)
	}
}

func TestEthtoolOnLoopbackFailsCleanly(t *testing.T) {
	p := NewPlan(hostfs.Live(), []Group{{Finding: "nic.queues", Changes: []finding.Change{{Kind: finding.ChangeEthtool, Key: "lo/combined", Value: "2"}}}})
	if err := p.Groups[0].Err; err == nil || !strings.Contains(err.Error(), "ethtool -l lo") {
		t.Errorf("ethtool channels of lo: %v, want a clean error", err)
	}
}
