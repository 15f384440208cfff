// Package testchild lets a test binary double as the process a test
// watches: started again with a thread spec, it runs that many sleeping and
// spinning OS threads (the spinning ones named, their TIDs reported) until
// its parent closes stdin. The sampler and record tests use it to have a
// target whose threads they know. It also holds what tests of several
// packages share: ReapJVM and Qemu. Imported by tests only.
package testchild

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const envVar = "TUNELOOP_TEST_CHILD"

// Serve runs the child when this binary was started as one, and then exits;
// otherwise it returns at once. Call it first in TestMain (or an init).
func Serve() {
	if spec := os.Getenv(envVar); spec != "" {
		run(spec)
		os.Exit(0)
	}
}

// run starts the threads of spec, "busy=N,idle=M,name=NAME": M sleeping
// and N spinning OS threads (runtime.LockOSThread), the spinning ones
// named NAME; it prints "busy TID" for each of those, then "ready", and
// returns when stdin closes.
func run(spec string) {
	idle, busy, name := 0, 0, "busy"
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "idle":
			idle = n
		case "busy":
			busy = n
		case "name":
			name = v
		}
	}
	ready := make(chan int)
	for range idle {
		go func() {
			runtime.LockOSThread()
			ready <- 0
			select {}
		}()
	}
	for range busy {
		go func() {
			runtime.LockOSThread()
			b := append([]byte(name), 0)
			_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
			ready <- syscall.Gettid()
			x := 0
			for {
				x++
			}
		}()
	}
	for range idle + busy {
		if tid := <-ready; tid != 0 {
			fmt.Printf("busy %d\n", tid)
		}
	}
	fmt.Println("ready")
	buf := make([]byte, 1)
	os.Stdin.Read(buf) // until the parent closes it
}

// Child is a running child process.
type Child struct {
	Cmd  *exec.Cmd
	PID  int
	Busy []int // TIDs of the spinning threads
	in   io.Closer
}

// Start runs this test binary as a child with the threads of spec and
// GOMAXPROCS gomaxprocs; it is stopped when the test ends.
func Start(tb testing.TB, spec string, gomaxprocs int) *Child {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envVar+"="+spec, "GOMAXPROCS="+strconv.Itoa(gomaxprocs))
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &Child{Cmd: cmd, PID: cmd.Process.Pid, in: in}
	tb.Cleanup(c.Stop)
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		line := sc.Text()
		if line == "ready" {
			return c
		}
		if v, ok := strings.CutPrefix(line, "busy "); ok {
			tid, _ := strconv.Atoi(v)
			c.Busy = append(c.Busy, tid)
		}
	}
	tb.Fatalf("child did not start: %v", sc.Err())
	return nil
}

// Stop closes the child's stdin and waits for it (killing it after 5 s).
func (c *Child) Stop() {
	if c.Cmd.ProcessState != nil {
		return
	}
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.Cmd.Process.Kill() // our own child, by its PID
		<-done
	}
}

// ReapJVM kills a test's JVM (SIGKILL, if it still runs), waits for it and
// removes the attach socket it could not remove itself: pids come round,
// and a stale /tmp/.java_pid<N> of one user blocks the attach of the next
// JVM of another user that gets pid N (jvm/attach TestAttachStaleSocket).
func ReapJVM(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	_ = os.Remove("/tmp/.java_pid" + strconv.Itoa(cmd.Process.Pid))
}

// Qemu is the qemu-user binary that runs arm64 programs on this host
// (.ci/run installs it); without one the test is skipped.
func Qemu(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"qemu-aarch64", "qemu-aarch64-static"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Skip("no qemu-aarch64 (apt-get install qemu-user)")
	return ""
}
