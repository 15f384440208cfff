package sample

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the target process: with SAMPLE_TEST_CHILD set
// it starts threads and waits for stdin to close. "idle=500,busy=1" gives
// 500 sleeping threads and one spinning thread, each its own OS thread
// (runtime.LockOSThread), and prints "busy TID" for each busy thread.
func TestMain(m *testing.M) {
	if spec := os.Getenv("SAMPLE_TEST_CHILD"); spec != "" {
		runChild(spec)
		return
	}
	os.Exit(m.Run())
}

func runChild(spec string) {
	idle, busy := 0, 0
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "idle":
			idle = n
		case "busy":
			busy = n
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
	os.Exit(0)
}

type child struct {
	cmd   *exec.Cmd
	pid   int
	busy  []int
	stdin interface{ Close() error }
}

// startChild runs the test binary as a target with the given threads.
func startChild(tb testing.TB, spec string) *child {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SAMPLE_TEST_CHILD="+spec, "GOMAXPROCS=2")
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
	c := &child{cmd: cmd, pid: cmd.Process.Pid, stdin: in}
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

func (c *child) stop() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill() // our own child, by its PID
		<-done
	}
}
