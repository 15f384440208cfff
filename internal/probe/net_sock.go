// Blocking sockets outside Go's poller, and their whole-buffer read and
// write, shared by the listener and the client (see blockingFD).

package probe

import (
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// blockingSock is a session's blocking socket in the listener's set.
type blockingSock int

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
	f := os.NewFile(uintptr(fd), "probe socket")
	tv := unix.NsecToTimeval(int64(10 * time.Second))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	return fd, f, nil
}

// readFull reads all of b from fd, or fails (io.EOF at the peer's end).
func readFull(fd int, b []byte) error { return whole(unix.Read, fd, b) }

// writeFull writes all of b to fd.
func writeFull(fd int, b []byte) error { return whole(unix.Write, fd, b) }

// whole repeats op (a blocking read or write) until all of b is done,
// past EINTR; 0 bytes with b left is the peer's end.
func whole(op func(int, []byte) (int, error), fd int, b []byte) error {
	for len(b) > 0 {
		n, err := op(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.EOF
		}
		b = b[n:]
	}
	return nil
}
