// Measuring threads with a file table of their own.

package probe

import (
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A Go process has many threads, so its descriptor table is shared, and
// the kernel then takes an atomic reference on the file for every read
// and write (fdget); a single-threaded process, as qperf and iperf3 are,
// skips that. Measured, 1 B write(2) to /dev/null pinned to one CPU: C
// 198-222 ns a call, C with one idle thread beside it 238-239, a Go
// thread 259-270, the same Go thread after unshare(CLONE_FILES) 210.
// A figure's bytes are therefore moved by a thread that unshares its
// table and ends with the figure (a thread with a table of its own must
// not run other goroutines after: their descriptors would be missing).
//
// The private table starts as a copy of the process's, and a copy of a
// socket keeps that socket open: with both ends in one process (the
// in-process listener) each end's table held the other's socket, and a
// figure waiting for its peer's close hung. So the copies of sockets and
// pipes the thread does not use are closed in its table; the runtime's
// own descriptors (its epoll instance and eventfd, which netpollBreak
// writes from any thread), the standard streams and every other kind of
// file are kept.

// ownThreadHook, when set (tests), is called on the measuring thread
// before fn, with whether its table is its own.
var ownThreadHook func(own bool)

// onOwnThread runs fn on a locked thread pinned to pin whose descriptor
// table is its own, holding of the process's sockets and pipes only
// keep, and waits for it. Descriptors fn opens must be closed by fn;
// keep's are closed by the caller, after (a close in the private table
// would leave the process's open). Where the table cannot be made
// private (unshare refused), fn runs on a locked thread sharing it.
func onOwnThread(pin CPUPin, keep []int, fn func() error) error {
	errc := make(chan error, 1)
	go ownThread(pin, keep, fn, errc)
	return <-errc
}

func ownThread(pin CPUPin, keep []int, fn func() error, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread never ends, so its table cannot be private for
		// one figure. Held here, locked, it runs no other goroutine: the
		// next lands on another thread.
		defer runtime.UnlockOSThread()
		done := make(chan struct{})
		go func() { defer close(done); ownThread(pin, keep, fn, errc) }()
		<-done
		return
	}
	own := ownFiles(keep)
	if !own {
		defer runtime.UnlockOSThread()
	} // else the goroutine ends locked and the runtime ends its thread, and the table with it
	release, err := pinThread(pin)
	if err != nil {
		errc <- err
		return
	}
	defer release()
	if ownThreadHook != nil {
		ownThreadHook(own)
	}
	errc <- fn()
}

// pollerUp makes sure Go's poller (its epoll instance and eventfd) exists
// in the process's table before any thread leaves it: the runtime opens
// them at their first use, on whatever thread that is, and one opened
// on a thread with a table of its own would be missing from every other
// thread's (sysmon's epoll_wait then fails with EBADF, and the runtime
// throws: seen in a child process whose first pollable file was opened
// after unshare).
var pollerUp = sync.OnceFunc(func() {
	if r, w, err := os.Pipe(); err == nil { // a pipe is pollable: its File starts the poller
		r.Close()
		w.Close()
	}
})

// ownFiles gives the calling (locked) thread a descriptor table of its
// own and closes in it the sockets and pipes not in keep. Nothing it
// opens after the unshare goes through os (the poller, above).
func ownFiles(keep []int) bool {
	// This thread's table (/proc/self/fd is the main thread's). Without it
	// the copies could not be found: the table stays shared.
	path := threadPath("fd")
	pollerUp()
	if _, err := os.Stat(path); err != nil || unix.Unshare(unix.CLONE_FILES) != nil {
		return false
	}
	dir, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return true // its own still, with copies left open until it ends
	}
	var names []string
	buf := make([]byte, 4096)
	for {
		n, err := unix.Getdents(dir, buf)
		if err != nil || n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	unix.Close(dir)
next:
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 {
			continue // the standard streams stay: a panic is written to 2
		}
		for _, k := range keep {
			if fd == k {
				continue next
			}
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			continue // the directory, closed
		}
		if t := st.Mode & unix.S_IFMT; t == unix.S_IFSOCK || t == unix.S_IFIFO {
			unix.Close(fd)
		}
	}
	return true
}

// connFD is c's descriptor number (-1 when it has none).
func connFD(c net.Conn) int {
	fd := -1
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			raw.Control(func(s uintptr) { fd = int(s) })
		}
	}
	return fd
}
