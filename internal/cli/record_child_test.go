package cli

import (
	"bufio"
	"context"
	"fmt"
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

// The test binary doubles as the processes the record tests watch. With
// TUNELOOP_TEST_CHILD="busy=N,idle=M,name=NAME" it starts M sleeping and N
// spinning OS threads (the busy ones named NAME), prints "busy TID" for each
// busy thread and "ready", and exits when stdin closes. With
// TUNELOOP_TEST_RECORD=DIR it is a recorder writing to DIR (the kill test).
func init() {
	if spec := os.Getenv("TUNELOOP_TEST_CHILD"); spec != "" {
		runTestChild(spec)
		os.Exit(0)
	}
	if dir := os.Getenv("TUNELOOP_TEST_RECORD"); dir != "" {
		env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		err := RunRecord(context.Background(), env, &RecordOptions{Duration: time.Minute, Interval: 100 * time.Millisecond,
			Out: dir, NoCatalog: true, Output: "text", Argv: []string{"tuneloop", "record"}})
		os.Exit(Code(env, err))
	}
}

func setThreadName(name string) {
	b := append([]byte(name), 0)
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
}

func runTestChild(spec string) {
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
			setThreadName(name)
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
	os.Stdin.Read(buf)
}

type testChild struct {
	cmd  *exec.Cmd
	pid  int
	busy []int
	in   interface{ Close() error }
}

// startTestChild runs the test binary as a target with the given threads.
func startTestChild(tb testing.TB, spec string, gomaxprocs int) *testChild {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TUNELOOP_TEST_CHILD="+spec, "GOMAXPROCS="+strconv.Itoa(gomaxprocs))
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
	c := &testChild{cmd: cmd, pid: cmd.Process.Pid, in: in}
	tb.Cleanup(c.stop)
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
			c.busy = append(c.busy, tid)
		}
	}
	tb.Fatalf("child did not start: %v", sc.Err())
	return nil
}

func (c *testChild) stop() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill() // our own child, by its PID
		<-done
	}
}
