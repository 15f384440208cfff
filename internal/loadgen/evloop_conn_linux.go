package loadgen

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event loops' connections: opened before the measured window
// (preconnect), opened again inside it when a server closes one, and the
// addresses they go to.

// preconnectEvloops is preconnect for the event loops: each loop opens its
// users' connections itself, non-blocking, 64 handshakes at a time (as
// preconnect, for small accept queues). A connection costs socket,
// setsockopt, connect and epoll_ctl, not a goroutine dialing through the
// netpoller and a dup: a thousand connections are a few milliseconds of
// CPU, where wrk, which connects inside its measured run, spends as much.
func (r *runner) preconnectEvloops(ctx context.Context) {
	r.newEvloops()
	deadline := time.Now().Add(r.timeout)
	var wg sync.WaitGroup
	for _, l := range r.evloops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.preconnect(ctx, deadline)
		}()
	}
	wg.Wait()
	r.restartClock()
}

func (l *evloop) preconnect(ctx context.Context, deadline time.Time) {
	const burst = 64
	if l.err != nil {
		return
	}
	nt := len(l.addrs)
	events := make([]unix.EpollEvent, burst)
	inflight, next := 0, 0
	for next < len(l.users)*nt || inflight > 0 {
		for inflight < burst && next < len(l.users)*nt {
			u, ti := l.users[next/nt], next%nt
			next++
			fd, err := rawSocket(l.domains[ti])
			if err != nil {
				continue
			}
			rawNoDelay(fd)
			if err = rawConnect(fd, l.raddrs[ti]); err != nil && err != unix.EINPROGRESS {
				rawClose(fd) // refused: the run meets it and counts it
				continue
			}
			l.add(u, ti, fd)
			if s := u.socks[ti]; s != nil && err != nil {
				s.connecting = true
				inflight++
			}
		}
		now := time.Now()
		if !now.Before(deadline) || ctx.Err() != nil {
			break
		}
		then := now.Add(sweepEvery)
		if deadline.Before(then) {
			then = deadline
		}
		n, err := l.wait(events, now, then)
		if err != nil {
			break
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd >= len(l.byFD) || l.byFD[fd].u == nil {
				continue
			}
			e := l.byFD[fd]
			s := e.u.socks[e.ti]
			if !s.connecting {
				continue
			}
			s.connecting = false
			inflight--
			if ev.Events&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
				l.drop(e.u, e.ti)
			}
		}
	}
	// Handshakes still going at the deadline are abandoned.
	for _, u := range l.users {
		for ti, s := range u.socks {
			if s != nil && s.connecting {
				l.drop(u, ti)
			}
		}
	}
}

// resolveTargets gives each target the address to reconnect to: the one
// the dialer reached in preflight or preconnect (a name with several
// addresses: the one that answered), else the name resolved once.
func (r *runner) resolveTargets() ([]*net.TCPAddr, error) {
	out := make([]*net.TCPAddr, len(r.targets))
	for ti := range out {
		if ti < len(r.reached) {
			out[ti] = r.reached[ti]
		}
	}
	for _, w := range r.workers {
		for ti, wc := range w.conns {
			if wc != nil && out[ti] == nil {
				out[ti], _ = wc.nc.RemoteAddr().(*net.TCPAddr)
			}
		}
	}
	for ti, t := range r.targets {
		if out[ti] != nil {
			continue
		}
		ta, err := net.ResolveTCPAddr("tcp", t.addr)
		if err != nil {
			return nil, err
		}
		out[ti] = ta
	}
	return out, nil
}

// rawSockaddr is a socket address as connect(2) takes it.
type rawSockaddr struct {
	p unsafe.Pointer
	n uintptr
}

// sockaddrs builds a loop's own socket addresses.
func sockaddrs(tas []*net.TCPAddr) ([]unix.Sockaddr, []rawSockaddr, []int) {
	var addrs []unix.Sockaddr
	var raws []rawSockaddr
	var domains []int
	for _, ta := range tas {
		port := [2]byte{byte(ta.Port >> 8), byte(ta.Port)} // network order
		if ip4 := ta.IP.To4(); ip4 != nil {
			sa := &unix.SockaddrInet4{Port: ta.Port}
			copy(sa.Addr[:], ip4)
			ra := &unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: sa.Addr}
			*(*[2]byte)(unsafe.Pointer(&ra.Port)) = port
			addrs, domains = append(addrs, sa), append(domains, unix.AF_INET)
			raws = append(raws, rawSockaddr{unsafe.Pointer(ra), unsafe.Sizeof(*ra)})
			continue
		}
		sa := &unix.SockaddrInet6{Port: ta.Port}
		copy(sa.Addr[:], ta.IP.To16())
		if ta.Zone != "" {
			if ifi, err := net.InterfaceByName(ta.Zone); err == nil {
				sa.ZoneId = uint32(ifi.Index)
			}
		}
		ra := &unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: sa.Addr, Scope_id: sa.ZoneId}
		*(*[2]byte)(unsafe.Pointer(&ra.Port)) = port
		addrs, domains = append(addrs, sa), append(domains, unix.AF_INET6)
		raws = append(raws, rawSockaddr{unsafe.Pointer(ra), unsafe.Sizeof(*ra)})
	}
	return addrs, raws, domains
}

// detach takes the socket of a connection net opened: a duplicate of its
// descriptor (still non-blocking), so closing the net.Conn leaves it open.
func detach(nc net.Conn) (int, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1, errors.New("not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := raw.Control(func(s uintptr) {
		fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil {
		return -1, cerr
	}
	return fd, err
}

// connect opens a non-blocking connection to u's target.
func (l *evloop) connect(u *euser) {
	if l.err != nil {
		u.a.dialing = true
		l.complete(u, &net.OpError{Op: "dial", Net: "tcp", Err: l.err})
		return
	}
	u.connAt = time.Now()
	u.a.dialing = true
	fd, err := rawSocket(l.domains[u.ti])
	if err == nil {
		rawNoDelay(fd)
		err = rawConnect(fd, l.raddrs[u.ti])
		if err == unix.EINPROGRESS || err == nil {
			l.add(u, u.ti, fd)
			if u.socks[u.ti] == nil {
				err = errors.New("epoll_ctl failed")
			} else if err == nil {
				l.connected(u, false)
				return
			} else {
				u.state = uConnecting // EPOLLOUT (or an error) says when it is done
				return
			}
		} else {
			rawClose(fd)
		}
	}
	l.drop(u, u.ti)
	l.complete(u, &net.OpError{Op: "dial", Net: "tcp", Addr: tcpAddr(l.addrs[u.ti]), Err: os.NewSyscallError("connect", err)})
}

// connected: the connect finished, well or not (failed: epoll reported an
// error or hang-up; only then is SO_ERROR read for the reason).
func (l *evloop) connected(u *euser, failed bool) {
	s := u.socks[u.ti]
	u.a.connect += time.Since(u.connAt)
	var err error
	if failed {
		var errno int
		errno, err = unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err == nil {
			err = syscall.Errno(errno)
			if errno == 0 {
				err = syscall.ECONNRESET
			}
		}
	}
	if err != nil {
		l.drop(u, u.ti)
		l.complete(u, &net.OpError{Op: "dial", Net: "tcp", Addr: tcpAddr(l.addrs[u.ti]), Err: os.NewSyscallError("connect", err)})
		return
	}
	u.a.dialing = false
	l.send(u)
}

func tcpAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return nil
}
