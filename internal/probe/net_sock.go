// Blocking sockets outside Go's poller, and their whole-buffer read and
// write, shared by the listener and the client (see blockingFD).

package probe

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// blockingFD is a blocking duplicate of c's socket, so reads and writes
// are plain system calls, and closes c: that takes the socket out of Go's
// poller, where every segment arriving would also wake a thread blocked
// in epoll_wait (measured: 25,131 epoll_pwait for 15,243 reads in a 1 s
// ping-pong against a listener in another process); c must not be used
// after, the duplicate keeps the connection.
func blockingFD(c net.Conn) (int, *os.File, error) {
	if tc, ok := c.(*net.TCPConn); ok {
		// Nagle on, as qperf and iperf3 leave it (neither sets TCP_NODELAY;
		// Go sets it on every TCP connection): small writes are coalesced
		// while a segment is unacknowledged, which is what their streaming
		// figures at small message sizes measure.
		if err := tc.SetNoDelay(false); err != nil {
			return 0, nil, err
		}
	}
	// Not c.File(): os.NewFile puts a non-blocking descriptor into the
	// poller too. A plain dup, made blocking before it becomes a File, is
	// in no epoll set once c is closed.
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, nil, fmt.Errorf("not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, nil, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return 0, nil, err
	}
	c.Close()
	if derr != nil {
		return 0, nil, derr
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return 0, nil, err
	}
	return fd, os.NewFile(uintptr(fd), "probe socket"), nil
}

// sockWait is how long past its window a figure waits for its peer
// before the guard shuts its socket down.
const sockWait = 10 * time.Second

// A measured socket carries no kernel timeout: SO_RCVTIMEO and
// SO_SNDTIMEO arm a timer on every wait that blocks, 1-2% of a loopback
// round trip (measured: 7.27 against 7.20 µs one way for a 1 B ping-pong
// pinned to one CPU; C 6.86). Its waits are bounded by a guard instead,
// which shuts the socket down: a blocked read then returns 0, a blocked
// write EPIPE.

// fdGuard shuts a socket down when its time is up, its context ends or
// shut is called (the listener's stop), until stop, which is called
// before the socket is closed: a number the kernel gave out again is
// never shut.
type fdGuard struct {
	mu   sync.Mutex
	fd   int
	live bool
	t    *time.Timer
	c    func() bool
}

// guardFD arms a guard on fd for ctx and limit.
func guardFD(ctx context.Context, fd int, limit time.Duration) *fdGuard {
	g := &fdGuard{fd: fd, live: true}
	g.t = time.AfterFunc(limit, g.shut)
	g.c = context.AfterFunc(ctx, g.shut)
	return g
}

func (g *fdGuard) shut() {
	g.mu.Lock()
	if g.live {
		unix.Shutdown(g.fd, unix.SHUT_RDWR)
	}
	g.mu.Unlock()
}

func (g *fdGuard) stop() {
	g.mu.Lock()
	g.live = false
	g.mu.Unlock()
	g.t.Stop()
	g.c()
}

// Go's system call entry and exit (entersyscall, exitsyscall) around every
// read and write cost a loopback ping-pong 4-5% (1 B, one CPU: 7.20 µs one
// way through unix.Read/Write, 6.94 raw, C 6.86, qperf 6.9-7.0) and at
// 1-64 B a streaming write as much as the write itself (64 B: 85-116 MB/s
// against 150-155 raw, qperf 181-183). A measuring thread therefore calls
// the kernel raw, and blocks there. Such a thread holds its P, and the
// runtime cannot stop the world until its call returns; so
//   - raw threads take at most GOMAXPROCS-1 of the Ps (enterRaw), leaving
//     one for the guards, the listener's accept loop and the signal
//     handler. reserveRaw sets GOMAXPROCS before the first raw thread (a
//     P is not a CPU: 2 on a one-CPU host, 3 when both ends are in this
//     process), which also stops the runtime changing it, and stopping
//     the world, when the cgroup's CPU limit moves; and
//   - the collector is off while any raw thread runs (GC percent -1 and
//     no memory limit; the measuring loops allocate nothing, the rest of
//     a probe little), so no stop-the-world waits on a peer that went
//     quiet while a guard could not run to shut its socket.
//
// A thread that finds no slot free calls through Go's entry (sock.raw
// false): slower, never stuck.
var rawThreads struct {
	sync.Mutex
	n        int
	gcWas    int
	limitWas int64
	procsWas int           // GOMAXPROCS before reserveRaw set it (0: not set)
	freed    chan struct{} // closed when a slot is given back, if any thread waits
}

// reserveRaw makes room for want raw threads and a free P, while none
// runs (GOMAXPROCS stops the world).
func reserveRaw(want int) {
	r := &rawThreads
	r.Lock()
	defer r.Unlock()
	if r.n == 0 {
		cur := runtime.GOMAXPROCS(0)
		if r.procsWas == 0 {
			r.procsWas = cur
		}
		runtime.GOMAXPROCS(max(want+1, cur))
	}
}

// freeProcs puts GOMAXPROCS back as it was before reserveRaw, and the
// runtime's updating of it with it (a load generated later in this
// process sizes itself by it), once no raw thread runs.
func freeProcs() {
	r := &rawThreads
	r.Lock()
	defer r.Unlock()
	if r.n > 0 || r.procsWas == 0 {
		return
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.SetDefaultGOMAXPROCS() // nothing else here sets it: the default was in force
	} else {
		runtime.GOMAXPROCS(r.procsWas)
	}
	r.procsWas = 0
}

// rawWait is how long enterRaw waits for a slot to be given back: a
// window's end can start while the last window's other end is still
// leaving its slot (seen in 2-6 of the ~100 windows of an in-process
// --quick net part, which then called through Go's entry).
const rawWait = 100 * time.Millisecond

// enterRaw takes a raw slot when one is free or given back within
// rawWait; leave gives it back (once, however often it is called).
func enterRaw() (raw bool, leave func()) {
	reserveRaw(1)
	r := &rawThreads
	deadline := time.Now().Add(rawWait)
	r.Lock()
	for r.n >= runtime.GOMAXPROCS(0)-1 {
		if r.freed == nil {
			r.freed = make(chan struct{})
		}
		freed := r.freed
		r.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return false, func() {}
		}
		t := time.NewTimer(left)
		select {
		case <-freed:
			t.Stop()
		case <-t.C:
			select {
			case <-freed: // given back as the time ran out: taken still
			default:
				return false, func() {}
			}
		}
		r.Lock()
	}
	defer r.Unlock()
	if r.n == 0 {
		// Off, and then one whole cycle: a cycle that had decided to start
		// before it went off (its trigger test passed, its stop-the-world
		// not yet taken) is over when runtime.GC returns, or sees the
		// collector off and does not start.
		r.gcWas = debug.SetGCPercent(-1)
		r.limitWas = debug.SetMemoryLimit(math.MaxInt64)
		runtime.GC()
	}
	r.n++
	var once sync.Once
	return true, func() {
		once.Do(func() {
			r.Lock()
			defer r.Unlock()
			if r.freed != nil {
				close(r.freed) // wakes the threads waiting for a slot
				r.freed = nil
			}
			if r.n--; r.n == 0 {
				// Back as they were, unless another hand set them meanwhile.
				if gcSetting("/gc/gogc:percent") == -1 {
					debug.SetGCPercent(r.gcWas)
				}
				if gcSetting("/gc/gomemlimit:bytes") == math.MaxInt64 {
					debug.SetMemoryLimit(r.limitWas)
				}
			}
		})
	}
}

// gcSetting reads one of the collector's settings without changing it.
func gcSetting(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// sock is a measured (blocking) socket and how its thread calls the
// kernel: raw, or through Go's entry.
type sock struct {
	fd  int
	raw bool
}

// call is one system call on s, again after EINTR (Go's handlers are
// SA_RESTART and these sockets have no timeout, so the kernel restarts
// a call a signal interrupted; the loop is for what else may not).
func (s sock) call(nr, a1, a2, a3, a4, a5 uintptr) (int, error) {
	for {
		var n uintptr
		var e syscall.Errno
		if s.raw {
			n, _, e = unix.RawSyscall6(nr, uintptr(s.fd), a1, a2, a3, a4, a5)
		} else {
			n, _, e = unix.Syscall6(nr, uintptr(s.fd), a1, a2, a3, a4, a5)
		}
		if e == 0 {
			return int(n), nil
		}
		if e != unix.EINTR {
			return 0, e
		}
	}
}

// ptr is b's first byte, or nil for an empty b.
func ptr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}

// A raw read or write is called from the loop that repeats it (full, or
// once for a single call) through unix.RawSyscallNoError, an assembly
// routine that makes the call and returns: read, write, readFull and
// writeFull are one-line wrappers the compiler inlines. Every frame
// between a measuring loop and the kernel costs each message, far more
// than its instructions (likely the kernel's entry mitigations, retpolines
// and return-stack handling on this AMD VM, leaving the returns after each
// call unpredicted: the cost was measured, not its cause). 1 B tcp_bw,
// both ends on one CPU, four interleaved rounds against one listener,
// sender CPU a write, MB/s, average segment: through call and a shared
// loop taking the call as a func value (five frames) 977-1032 ns,
// 0.52-0.55, 32-34 B; syscall.RawSyscall (three) 902-939 ns, 0.57-0.59,
// 41-46 B; unix.RawSyscallNoError (one) 878-916 ns, 0.58-0.60, 51-54 B; a C
// sender 862-900 ns, 0.59-0.61 (qperf's loop calls write from send_full, as
// this one from full). A cheaper write also moves the pattern: more
// writes gather while the receiver runs, so fewer, larger segments. As
// built, four interleaved probes against the build before: 1 B 0.575-0.584
// MB/s against 0.543-0.548, segments 37-39 B against 31-36 (qperf's 38-40);
// 64 B 36.2-37.4 against 33.8-34.8, segments 2.3-2.9 KB against 2.1-2.2.

// read and write are one read(2) or write(2).
func (s sock) read(b []byte) (int, error)  { return s.once(unix.SYS_READ, b) }
func (s sock) write(b []byte) (int, error) { return s.once(unix.SYS_WRITE, b) }

// readFull reads all of b, or fails (io.EOF at the peer's end or a
// shutdown).
func (s sock) readFull(b []byte) error { return s.full(unix.SYS_READ, b) }

// writeFull writes all of b.
func (s sock) writeFull(b []byte) error { return s.full(unix.SYS_WRITE, b) }

// once is one read(2) or write(2) (nr) of b.
func (s sock) once(nr uintptr, b []byte) (int, error) {
	for s.raw {
		r, _ := unix.RawSyscallNoError(nr, uintptr(s.fd), ptr(b), uintptr(len(b)))
		n, e := rawDone(r)
		if e == 0 {
			return n, nil
		}
		if e != unix.EINTR {
			return 0, e
		}
	}
	return s.call(nr, ptr(b), uintptr(len(b)), 0, 0, 0)
}

// full repeats read(2) or write(2) (nr) until all of b is done; 0 bytes
// with b left is the end of the socket.
func (s sock) full(nr uintptr, b []byte) error {
	for len(b) > 0 {
		var n int
		if s.raw {
			r, _ := unix.RawSyscallNoError(nr, uintptr(s.fd), ptr(b), uintptr(len(b)))
			var e syscall.Errno
			if n, e = rawDone(r); e == unix.EINTR {
				continue
			} else if e != 0 {
				return e
			}
		} else {
			var err error
			if n, err = s.call(nr, ptr(b), uintptr(len(b)), 0, 0, 0); err != nil {
				return err
			}
		}
		if n == 0 {
			return io.EOF
		}
		b = b[n:]
	}
	return nil
}

// rawDone reads a raw call's return: a count, or -errno (Linux's system
// call convention, which RawSyscallNoError passes on as is).
func rawDone(r uintptr) (int, syscall.Errno) {
	if n := int(r); n < 0 {
		return 0, syscall.Errno(-n)
	}
	return int(r), 0
}

// recvfrom is recvfrom(2) with the source in from (its family AF_UNSPEC
// when none was given: a shut-down socket's 0).
func (s sock) recvfrom(b []byte, from *unix.RawSockaddrAny) (int, error) {
	l := uint32(unix.SizeofSockaddrAny)
	n, err := s.call(unix.SYS_RECVFROM, ptr(b), uintptr(len(b)), 0, uintptr(unsafe.Pointer(from)), uintptr(unsafe.Pointer(&l)))
	if err == nil && l == 0 {
		from.Addr.Family = unix.AF_UNSPEC
	}
	return n, err
}

// sendto sends b to the raw address from gave (l bytes of it).
func (s sock) sendto(b []byte, to *unix.RawSockaddrAny, l uint32) (int, error) {
	return s.call(unix.SYS_SENDTO, ptr(b), uintptr(len(b)), 0, uintptr(unsafe.Pointer(to)), uintptr(l))
}
