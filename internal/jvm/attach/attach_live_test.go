package attach

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// jvm is a test JVM: its host pid and the command that runs it.
type jvm struct {
	pid int
	cmd *exec.Cmd
}

// liveTimeout bounds starting a test JVM's attach listener where the test
// checks what an attach does, not how fast: on a loaded CI machine a JVM
// took more than the default 5 s to answer SIGQUIT.
const liveTimeout = 30 * time.Second

// startJVM runs testdata/Sleeper.java with java (a path, or "java" from
// PATH) under wrap (e.g. runuser -u nobody --) and waits for READY. The
// JVM is killed at the end of the test, and the attach socket it leaves
// removed: pids come round, and a stale socket of another user blocks the
// next JVM with that pid (TestAttachStaleSocket).
func startJVM(t *testing.T, java string, wrap []string, env []string, jvmArgs ...string) jvm {
	t.Helper()
	if java == "java" {
		p, err := exec.LookPath("java")
		if err != nil {
			t.Skip("no java on PATH")
		}
		java = p
	} else if _, err := os.Stat(java); err != nil {
		t.Skipf("no %s", java)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "Sleeper.java"))
	if err != nil {
		t.Fatal(err)
	}
	args := append(append(append([]string{}, wrap...), java), jvmArgs...)
	args = append(args, src, "120")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = os.TempDir() // world-readable, for a JVM run as nobody
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) } // the JVM and any wrapper
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var jpid int
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if jpid != 0 {
			_ = os.Remove("/tmp/.java_pid" + strconv.Itoa(jpid))
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "READY ") {
				ready <- true
				break
			}
		}
		close(ready)
		for sc.Scan() { // drain: the JVM prints a thread dump on SIGQUIT when attach is off
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			_ = cmd.Wait()
			t.Skipf("%v did not start: %s", args, stderr.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("%v: no READY: %s", args, stderr.String())
	}
	pid := jvmPid(t, cmd.Process.Pid)
	if sameNamespace(pid, "mnt") { // else its /tmp is its own
		jpid = pid
	}
	return jvm{pid: pid, cmd: cmd}
}

// jvmPid finds the JVM under a wrapper: pid itself, or its only descendant mapping libjvm.so.
func jvmPid(t *testing.T, pid int) int {
	t.Helper()
	for range 50 {
		if b, err := os.ReadFile(procPath(pid, "maps")); err == nil && bytes.Contains(b, []byte("/libjvm.so")) {
			return pid
		}
		b, err := os.ReadFile(procPath(pid, "task/"+strconv.Itoa(pid)+"/children"))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			t.Fatalf("pid %d: no JVM below it", pid)
		}
		pid, _ = strconv.Atoi(f[0])
	}
	t.Fatal("no JVM found")
	return 0
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func threadPrintOK(t *testing.T, vm *VM) {
	t.Helper()
	ctx := context.Background()
	out, err := vm.ThreadPrint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := threaddump.Parse("Thread.print", strings.NewReader(out))
	if err != nil || len(ds) != 1 {
		t.Fatalf("parse: %d dumps, %v\n%s", len(ds), err, out)
	}
	main := false
	for _, th := range ds[0].Threads {
		main = main || th.Name == "main"
	}
	if !main {
		t.Errorf("no main thread among %d threads", len(ds[0].Threads))
	}
	flags, err := vm.Flags(ctx)
	if err != nil || !strings.Contains(flags, "-XX:MaxHeapSize=") {
		t.Errorf("VM.flags: %v %q", err, flags)
	}
}

func TestAttachLive(t *testing.T) {
	j := startJVM(t, "java", nil, nil)
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("attach (listener started=%v) %v via %s: %s", vm.Started, vm.Latency, vm.Via, vm.Version)
	if !vm.Started || vm.Via != "socket" || !strings.Contains(vm.Version, "VM version") {
		t.Errorf("started=%v via=%q version=%q", vm.Started, vm.Via, vm.Version)
	}
	threadPrintOK(t, vm)
	ctx := context.Background()
	props, err := vm.SystemProperties(ctx)
	if err != nil || !strings.Contains(props, "java.vm.name=") {
		t.Errorf("VM.system_properties: %v %.200q", err, props)
	}
	heap, err := vm.HeapInfo(ctx)
	if err != nil || !strings.Contains(heap, "Metaspace") {
		t.Errorf("GC.heap_info: %v %q", err, heap)
	}
	_, err = vm.Execute(ctx, "No.such_command")
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Code == 0 || !strings.Contains(ce.Output, "Unknown diagnostic command") {
		t.Errorf("unknown command: %v", err)
	}
	// The socket removed under the running JVM (a /tmp cleaner): restarted.
	if err := os.Remove(vm.Socket); err != nil {
		t.Fatal(err)
	}
	if flags, err := vm.Flags(ctx); err != nil || !strings.Contains(flags, "MaxHeapSize") {
		t.Errorf("after the socket was removed: %v", err)
	}
	// Again, with the listener running: no signal, one round trip.
	vm2, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil || vm2.Started {
		t.Fatalf("second attach: %v started=%v", err, vm2 != nil && vm2.Started)
	}
	t.Logf("attach (listener running) %v", vm2.Latency)
	// Processes: the JVM is listed, with its version and main class.
	ps, err := List()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range ps {
		if p.PID == j.pid {
			found = true
			if p.VM != "HotSpot" || p.Version == "" || !strings.Contains(p.Main, "Sleeper") || !p.Listening {
				t.Errorf("List: %+v", p)
			}
		}
	}
	if !found {
		t.Errorf("List: pid %d missing from %d JVMs", j.pid, len(ps))
	}
}

func TestAttachJDK25(t *testing.T) {
	j := startJVM(t, "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java", nil, nil)
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("JDK 25 attach %v: %s", vm.Latency, vm.Version)
	threadPrintOK(t, vm)
}

func TestAttachOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("no runuser")
	}
	j := startJVM(t, "java", []string{"runuser", "-u", "nobody", "--"}, nil)
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if vm.User != "nobody" || vm.asUser {
		t.Errorf("user %q asUser %v (host root is accepted in the same user namespace)", vm.User, vm.asUser)
	}
	threadPrintOK(t, vm)
}

// TestAttachContainer runs the JVM as nobody in new user, pid and mount
// namespaces with its own /tmp: what a rootless container looks like.
func TestAttachContainer(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, tool := range []string{"runuser", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	src, _ := filepath.Abs(filepath.Join("testdata", "Sleeper.java"))
	j := startJVM(t, "/bin/sh", []string{"runuser", "-u", "nobody", "--", "unshare", "-U", "-r", "-p", "-f", "-m", "--mount-proc"}, nil,
		"-c", "mount -t tmpfs tmpfs /tmp && exec "+java+" "+src+" 120 #")
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("container attach %v via %s, nspid %d", vm.Latency, vm.Via, vm.NSPID)
	if vm.NSPID == vm.PID || !vm.asUser {
		t.Errorf("nspid %d pid %d asUser %v", vm.NSPID, vm.PID, vm.asUser)
	}
	if _, err := os.Stat("/tmp/.java_pid" + strconv.Itoa(vm.NSPID)); err == nil && vm.NSPID != vm.PID {
		t.Logf("note: a /tmp/.java_pid%d exists on the host too", vm.NSPID)
	}
	threadPrintOK(t, vm)
}

// TestAttachStaleSocket plants what a JVM killed with SIGKILL leaves: a
// socket /tmp/.java_pid<N> (or its .tmp) that nothing listens on, owned by
// another user than the JVM that now has pid N. The JVM cannot replace it in
// the sticky /tmp, so attach must name the file and the fix at once, not
// wait out its timeout; a root JVM can replace it, so attach must work.
func TestAttachStaleSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("no runuser")
	}
	if fi, err := os.Stat("/tmp"); err != nil || fi.Mode()&os.ModeSticky == 0 {
		t.Skip("/tmp is not sticky")
	}
	j := startJVM(t, "java", []string{"runuser", "-u", "nobody", "--"}, nil)
	sock := "/tmp/.java_pid" + strconv.Itoa(j.pid)
	for _, c := range []struct {
		path    string
		owner   int
		refused bool
	}{
		{sock, 1, false},          // another user's: never connected to
		{sock + ".tmp", 0, false}, // the listener's bind fails on it
		{sock, 0, true},           // root's, as test runs and services run as root leave them
	} {
		plantSocket(t, c.path, c.owner)
		t0 := time.Now()
		_, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
		t.Logf("%s uid %d: %v: %v", c.path, c.owner, time.Since(t0), err)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrStaleSocket) {
			t.Fatalf("%s owned by uid %d: %v, want a stale socket error", c.path, c.owner, err)
		}
		en, zh := e.Message(finding.EN), e.Message(finding.ZH)
		if !strings.Contains(en, "rm "+c.path+"`") || !strings.Contains(zh, "rm "+c.path+"`") || !strings.Contains(en, "sticky") {
			t.Errorf("the message does not name the file and its removal:\n%s\n%s", en, zh)
		}
		if got := strings.Contains(en, "refuses connections"); got != c.refused {
			t.Errorf("%s: says it refuses connections: %v, want %v: %s", c.path, got, c.refused, en)
		}
		if err := os.Remove(c.path); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	t.Logf("clean: %v", time.Since(t0))
	if err != nil {
		t.Fatalf("after removing the stale sockets, as the error advised: %v", err)
	}
	threadPrintOK(t, vm)

	// A root JVM may replace anybody's file in /tmp: attach goes ahead.
	r := startJVM(t, "java", nil, nil)
	plantSocket(t, "/tmp/.java_pid"+strconv.Itoa(r.pid), 65534)
	vm, err = Attach(r.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatalf("a root JVM behind a stale socket of nobody: %v", err)
	}
	if !vm.Started {
		t.Error("attached without starting the listener: to the planted socket?")
	}
	threadPrintOK(t, vm)
}

// plantSocket leaves a socket at path that nothing listens on, owned by uid.
func plantSocket(t *testing.T, path string, uid int) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	_ = os.Remove(path)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(path) })
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}

func TestAttachDisabled(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"hsperfdata", nil, []string{"-XX:+DisableAttachMechanism"}},
		{"JAVA_TOOL_OPTIONS", []string{"JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"}, []string{"-XX:-UsePerfData"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := startJVM(t, "java", nil, c.env, c.args...)
			start := time.Now()
			_, err := Attach(j.pid, Options{Timeout: 3 * time.Second})
			if !errors.Is(err, ErrAttachDisabled) {
				t.Fatalf("got %v, want ErrAttachDisabled", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
			t.Log(err)
		})
	}
}

// TestAttachXrs: with -Xrs the listener starts with the JVM; once its
// socket is gone, SIGQUIT would kill the JVM, so attach must refuse.
func TestAttachXrs(t *testing.T) {
	j := startJVM(t, "java", nil, nil, "-Xrs")
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if vm.Started {
		t.Error("-Xrs: the listener should already run")
	}
	if err := os.Remove(vm.Socket); err != nil {
		t.Fatal(err)
	}
	_, err = Attach(j.pid, Options{Method: Socket, Timeout: time.Second})
	if !errors.Is(err, ErrAttachDisabled) {
		t.Errorf("got %v, want ErrAttachDisabled", err)
	}
	time.Sleep(200 * time.Millisecond)
	if !alive(j.pid) {
		t.Fatal("the JVM died")
	}
}

// TestAttachStopped: a JVM in state T (SIGSTOP, a debugger) is said to be
// stopped at once, not after the timeout with a guess at a safepoint.
func TestAttachStopped(t *testing.T) {
	j := startJVM(t, "java", nil, nil)
	stopJVM(t, j.pid)
	defer syscall.Kill(j.pid, syscall.SIGCONT)
	start := time.Now()
	_, err := Attach(j.pid, Options{Method: Socket, Timeout: 5 * time.Second})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("got %v, want ErrStopped", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v, want at once", d)
	}
	var ae *Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message(finding.EN), "kill -CONT") || strings.Contains(err.Error(), "safepoint") {
		t.Errorf("message: %v", err)
	}
	if _, err := os.Stat(procPath(j.pid, "cwd/.attach_pid"+strconv.Itoa(j.pid))); err == nil {
		t.Error("trigger file left behind")
	}
}

// stopJVM sends SIGSTOP and waits until every thread is stopped: kill
// returns before they are, and a listener thread that is on a CPU at that
// moment could still answer one more request.
func stopJVM(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		stopped := len(tasks) > 0
		for _, p := range tasks {
			b, err := os.ReadFile(p)
			i := bytes.LastIndexByte(b, ')')
			if err != nil || i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
				stopped = false
				break
			}
		}
		if stopped {
			return
		}
	}
	t.Fatalf("pid %d did not stop", pid)
}

// TestCommandStopped: the listener runs, then the JVM is stopped; the
// command ends at its timeout and says the process is stopped.
func TestCommandStopped(t *testing.T) {
	j := startJVM(t, "java", nil, nil)
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	stopJVM(t, j.pid)
	defer syscall.Kill(j.pid, syscall.SIGCONT)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err = vm.ThreadPrint(ctx)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("got %v, want ErrStopped", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestAttachNoSuchProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	for _, pid := range []int{cmd.Process.Pid, 0, -1} { // an exited process's pid, and nonsense
		if _, err := Attach(pid, Options{}); !errors.Is(err, ErrNoSuchProcess) {
			t.Errorf("pid %d: got %v, want ErrNoSuchProcess", pid, err)
		}
	}
}

func TestAttachNotJava(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	time.Sleep(100 * time.Millisecond)
	_, err := Attach(cmd.Process.Pid, Options{Timeout: time.Second})
	if !errors.Is(err, ErrNotHotSpot) {
		t.Errorf("got %v, want ErrNotHotSpot", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !alive(cmd.Process.Pid) || cmd.ProcessState != nil {
		t.Error("the process was killed")
	}
}

func TestEnableGCLog(t *testing.T) {
	j := startJVM(t, "java", nil, nil)
	vm, err := Attach(j.pid, Options{Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gc.log")
	g, err := vm.EnableGCLog(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Enabled || g.File != path || g.Index < 2 {
		t.Errorf("%+v", g)
	}
	if _, err := vm.Execute(ctx, "GC.run"); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for range 50 {
		if b, _ = os.ReadFile(path); bytes.Contains(b, []byte("Pause")) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !bytes.Contains(b, []byte("[info][gc")) || !bytes.Contains(b, []byte("Pause Full")) {
		t.Errorf("GC log:\n%s", b)
	}
	// On again: already on, nothing added.
	g2, err := vm.EnableGCLog(ctx, filepath.Join(t.TempDir(), "other.log"))
	if err != nil || g2.Enabled || g2.File != path {
		t.Errorf("second: %+v %v", g2, err)
	}
	if _, err := vm.EnableGCLog(ctx, "relative.log"); err == nil {
		t.Error("relative path accepted")
	}
	// The undo the CLI prints removes that output and only it.
	if _, err := vm.Execute(ctx, "VM.log", "output=#"+strconv.Itoa(g.Index), "what=all=off"); err != nil {
		t.Fatal(err)
	}
	outs, err := vm.LogOutputs(ctx)
	if err != nil || len(outs) != 2 || outs[0].Selection != "all=warning" {
		t.Errorf("after undo: %+v %v", outs, err)
	}
}

// TestJCmdFallback: the same commands through the JDK's jcmd.
func TestJCmdFallback(t *testing.T) {
	j := startJVM(t, "java", nil, nil)
	vm, err := Attach(j.pid, Options{Method: JCmd, Timeout: liveTimeout})
	if err != nil {
		if strings.Contains(err.Error(), "no jcmd") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	threadPrintOK(t, vm)
}

// TestAttachSymlinkTrigger: a JVM user who plants .attach_pid<N> as a
// symlink to a root-owned file must not get that file created or chowned.
func TestAttachSymlinkTrigger(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("no runuser")
	}
	cwd, err := os.MkdirTemp("", "attach-cwd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cwd) })
	if err := os.Chmod(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(cwd, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Abs(filepath.Join("testdata", "Sleeper.java"))
	j := startJVM(t, "/bin/sh", []string{"runuser", "-u", "nobody", "--"}, nil, "-c", "cd "+cwd+" && exec "+java+" "+src+" 120 #")
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("root's"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(cwd, ".attach_pid"+strconv.Itoa(j.pid))
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	vm, err := Attach(j.pid, Options{Method: Socket, Timeout: liveTimeout})
	if err != nil {
		t.Fatal(err) // the trigger in the JVM's /tmp still works
	}
	if !vm.Started {
		t.Error("listener not started by this attach")
	}
	var st syscall.Stat_t
	if err := syscall.Stat(victim, &st); err != nil || st.Uid != 0 {
		t.Errorf("victim: uid %d, %v", st.Uid, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link was replaced: %v", err)
	}
}
