package probe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tableSockets lists the socket and pipe descriptors in thread tid's
// table.
func tableSockets(tid int) (map[int]bool, error) {
	dir := "/proc/self/task/" + strconv.Itoa(tid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fds := map[int]bool{}
	for _, e := range ents {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err != nil {
			continue
		}
		if strings.HasPrefix(link, "socket:") || strings.HasPrefix(link, "pipe:") {
			n, _ := strconv.Atoi(e.Name())
			fds[n] = true
		}
	}
	return fds, nil
}

// Every thread that moves a figure's bytes, the prober's and the
// in-process listener's, has a descriptor table of its own holding only
// the sockets its figure uses (a copy of any other socket would keep that
// socket open: the other end's close would never come), and ends with its
// figure, the table with it. The whole network part must finish: with the
// copies left open an end waits for its peer's close until its guard. And
// GOMAXPROCS, raised for the raw threads, is as it was after.
func TestMeasuringThreadsOwnTheirFiles(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	_, dialed, _ := loopbackPair(t) // a socket of the process's, in no figure
	other := connFD(dialed)
	type seen struct {
		tid  int
		own  bool
		fds  map[int]bool
		lerr error
	}
	var mu sync.Mutex
	var threads []seen
	ownThreadHook = func(own bool) {
		s := seen{tid: unix.Gettid(), own: own}
		s.fds, s.lerr = tableSockets(s.tid)
		mu.Lock()
		threads = append(threads, s)
		mu.Unlock()
	}
	defer func() { ownThreadHook = nil }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	freeProcs() // as raw threads of earlier tests may have left it
	procs := runtime.GOMAXPROCS(0)
	t0 := time.Now()
	r, err := Measure(ctx, Options{Parts: []string{PartNet}, Quick: true, Rounds: 1, Sizes: []int{64}, Window: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Figures {
		if f.Err != "" {
			t.Errorf("%s: %s", f.ID, f.Err)
		}
	}
	// 8 windows of 0.2 s; a figure waiting for a close its peer's table
	// held back waits sockWait (10 s) for its guard.
	if d := time.Since(t0); d > 8*time.Second {
		t.Errorf("the network part took %v: an end waited for its guard", d)
	}
	if p := runtime.GOMAXPROCS(0); p != procs {
		t.Errorf("GOMAXPROCS %d after the network part, %d before", p, procs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(threads) < 8 { // 4 figures with a measured socket, 2 ends each
		t.Fatalf("%d measuring threads seen, want 8 or more", len(threads))
	}
	if !threads[0].own {
		t.Skip("unshare(CLONE_FILES) is refused here: threads share the table")
	}
	procFDs, err := tableSockets(unix.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range []int{p[0], p[1], other} {
		if fd <= 2 || !procFDs[fd] {
			t.Fatalf("descriptor %d is not in the process's table", fd)
		}
	}
	for _, s := range threads {
		if s.lerr != nil {
			t.Errorf("thread %d: %v", s.tid, s.lerr)
			continue
		}
		if !s.own || s.tid == unix.Getpid() {
			t.Errorf("thread %d (process %d) measured with the process's table", s.tid, unix.Getpid())
		}
		// Its figure's socket, and the TCP line beside a UDP one (and the
		// standard streams, kept).
		for fd := range 3 {
			if procFDs[fd] && !s.fds[fd] {
				t.Errorf("thread %d closed standard stream %d: a panic there would be lost", s.tid, fd)
			}
			delete(s.fds, fd)
		}
		if len(s.fds) < 1 || len(s.fds) > 2 {
			t.Errorf("thread %d holds %d sockets and pipes %v, want its figure's 1 or 2", s.tid, len(s.fds), s.fds)
		}
		for _, fd := range []int{p[0], p[1], other} {
			if s.fds[fd] {
				t.Errorf("thread %d holds a copy of descriptor %d, in no figure", s.tid, fd)
			}
		}
	}
	for _, s := range threads {
		gone := false
		for t1 := time.Now(); time.Since(t1) < 2*time.Second; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(s.tid)); os.IsNotExist(err) {
				gone = true
				break
			}
		}
		if !gone {
			t.Errorf("thread %d, with a table of its own, outlived its figure", s.tid)
		}
	}
}

// ownThreadMain, in a child whose main goroutine is locked to the main
// thread (see init), calls ownThread on the main thread, which cannot end
// and so must not take a table of its own: the figure runs on another
// thread, and the main thread still holds the process's descriptors. No
// file of the child's is pollable before: the poller starts with the
// figure's pipe.
func ownThreadMain() {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		fmt.Println("error", err)
		return
	}
	onMain := unix.Gettid() == unix.Getpid()
	var tid int
	var own bool
	ownThreadHook = func(o bool) { tid, own = unix.Gettid(), o }
	errc := make(chan error, 1)
	// The figure opens the process's first pollable file: Go's poller
	// starts there, and must start in the process's table, not the
	// thread's (else sysmon's next poll, within 10 ms, throws).
	ownThread(CPUPin{}, nil, func() error {
		r, w, err := os.Pipe()
		if err == nil {
			r.Close()
			w.Close()
		}
		return err
	}, errc)
	err := <-errc
	time.Sleep(100 * time.Millisecond)
	var st unix.Stat_t
	mainHolds := unix.Fstat(p[1], &st) == nil
	fmt.Printf("on_main=%v tid=%d pid=%d own=%v main_holds=%v err=%v\n", onMain, tid, unix.Getpid(), own, mainHolds, err)
}

func init() {
	if os.Getenv("TUNELOOP_OWNTHREAD_CHILD") != "" {
		runtime.LockOSThread() // main runs on the main thread
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("TUNELOOP_OWNTHREAD_CHILD") != "" {
		ownThreadMain()
		return
	}
	os.Exit(m.Run())
}

func TestTheMainThreadKeepsTheProcesssFiles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "TUNELOOP_OWNTHREAD_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var onMain, own, mainHolds bool
	var tid, pid int
	var ferr string
	if _, err := fmt.Sscanf(string(out), "on_main=%t tid=%d pid=%d own=%t main_holds=%t err=%s", &onMain, &tid, &pid, &own, &mainHolds, &ferr); err != nil {
		t.Fatalf("child said %q: %v", out, err)
	}
	if !onMain {
		t.Fatalf("the child's main goroutine was not on the main thread: %s", out)
	}
	if !own {
		t.Skip("unshare(CLONE_FILES) is refused here")
	}
	if tid == pid || tid == 0 {
		t.Errorf("the figure ran on thread %d, the main thread (%d), or not at all", tid, pid)
	}
	if !mainHolds {
		t.Errorf("the main thread lost the process's descriptors: it took a table of its own")
	}
	if ferr != "<nil>" {
		t.Errorf("the figure: %s", ferr)
	}
}
