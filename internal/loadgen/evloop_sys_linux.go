package loadgen

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event loops' system calls, made raw (see rawRead).

// epollPoll is epoll_wait without a timeout, as a raw system call.
func epollPoll(epfd int, events []unix.EpollEvent) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		if e == unix.EINTR {
			return 0, nil
		}
		return 0, e
	}
	return int(n), nil
}

// rawRead, rawWrite and the other raw calls skip the scheduler's system
// call bookkeeping: on a non-blocking socket they return at once, and at a
// few hundred thousand calls a second that bookkeeping is a tenth of the
// client's own CPU; entering a system call also wakes the runtime's monitor
// when the loop had parked, which then polls every 20 µs for a while.
func rawRead(fd int, p []byte) (int, error) { return rawIO(unix.SYS_READ, fd, p) }

func rawWrite(fd int, p []byte) (int, error) { return rawIO(unix.SYS_WRITE, fd, p) }

func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawSocket(domain int) (int, error) {
	fd, _, e := unix.RawSyscall(unix.SYS_SOCKET, uintptr(domain), unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// rawNoDelay sets TCP_NODELAY: a request goes out at once, as wrk's do.
func rawNoDelay(fd int) {
	one := int32(1)
	_, _, _ = unix.RawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_NODELAY, uintptr(unsafe.Pointer(&one)), 4, 0)
}

func rawConnect(fd int, sa rawSockaddr) error {
	if _, _, e := unix.RawSyscall(unix.SYS_CONNECT, uintptr(fd), uintptr(sa.p), sa.n); e != 0 {
		return e
	}
	return nil
}

// rawClose closes a socket: without SO_LINGER it does not block.
func rawClose(fd int) { _, _, _ = unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0) }
