// Blocking sockets outside Go's poller, and their whole-buffer read and
// write, shared by the listener and the client (see blockingFD).

package probe

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

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
	tv := unix.NsecToTimeval(int64(sockWait))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	return fd, f, nil
}

// sockWait bounds every wait of a measured socket for the peer.
const sockWait = 10 * time.Second

// rawRead and rawWrite are read(2) and write(2) on a non-blocking socket
// without Go's system call entry and exit, for the bandwidth loops: at
// 1-64 B a message, entersyscall and exitsyscall cost about as much as the
// write itself (one thread writing 64 B messages over loopback here:
// 85-116 MB/s through unix.Write, 150-155 MB/s raw, qperf 181-183 MB/s). A
// raw call must not block, or it would hold up the scheduler and every
// stop-the-world, hence the non-blocking descriptor: when the socket is
// full (or empty) the thread waits in ppoll(2), an ordinary system call,
// for at most sockWait (then EAGAIN, as SO_RCVTIMEO says it).
func rawRead(fd int, b []byte) (int, error) { return rawIO(unix.SYS_READ, unix.POLLIN, fd, b) }

func rawWrite(fd int, b []byte) (int, error) { return rawIO(unix.SYS_WRITE, unix.POLLOUT, fd, b) }

func rawIO(nr uintptr, ev int16, fd int, b []byte) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	return retryRaw(fd, ev, func() (uintptr, syscall.Errno) {
		n, _, e := unix.RawSyscall(nr, uintptr(fd), uintptr(p), uintptr(len(b)))
		return n, e
	})
}

// rawRecvfrom is recvfrom(2) as rawRead is read(2); from gets the source
// (its family is AF_UNSPEC when none was given).
func rawRecvfrom(fd int, b []byte, from *unix.RawSockaddrAny) (int, error) {
	if len(b) == 0 {
		return 0, unix.EINVAL
	}
	var l uint32
	n, err := retryRaw(fd, unix.POLLIN, func() (uintptr, syscall.Errno) {
		l = uint32(unix.SizeofSockaddrAny)
		n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0,
			uintptr(unsafe.Pointer(from)), uintptr(unsafe.Pointer(&l)))
		return n, e
	})
	if err == nil && l == 0 {
		from.Addr.Family = unix.AF_UNSPEC
	}
	return n, err
}

// retryRaw makes a raw call until it is done: again after EINTR, after a
// wait for ev on EAGAIN, and errShutDown when it would still block on a
// socket that is hung up.
func retryRaw(fd int, ev int16, call func() (uintptr, syscall.Errno)) (int, error) {
	hup := false
	for {
		n, e := call()
		switch {
		case e == 0:
			return int(n), nil
		case e == unix.EAGAIN && hup:
			return 0, errShutDown
		case e == unix.EAGAIN:
			var err error
			if hup, err = waitFD(fd, ev); err != nil {
				return 0, err
			}
		case e != unix.EINTR:
			return 0, e
		}
	}
}

// errShutDown: a socket that would block is hung up. A UDP socket the
// listener shut down polls readable and hung up while recvfrom says
// EAGAIN; a TCP socket shut both ways with nothing left to read alike.
var errShutDown = errors.New("socket shut down")

// waitFD waits in ppoll(2) until fd is ready for ev, hung up or in error,
// for at most sockWait in all (then EAGAIN, as SO_RCVTIMEO says it; ppoll
// is not restarted after a signal, so the wait goes on to one deadline);
// hup says it is hung up or in error: a call that would still block then
// never will do more (an error is the next call's to say).
func waitFD(fd int, ev int16) (hup bool, err error) {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: ev}}
	deadline := time.Now().Add(sockWait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false, unix.EAGAIN
		}
		ts := unix.NsecToTimespec(int64(left))
		n, err := unix.Ppoll(pfd, &ts, nil) // ppoll: the one on every architecture
		switch {
		case err == unix.EINTR:
		case err != nil:
			return false, err
		case n == 0:
			return false, unix.EAGAIN
		default:
			return pfd[0].Revents&(unix.POLLHUP|unix.POLLNVAL|unix.POLLERR) != 0, nil
		}
	}
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
