// The client's TCP figures: tcp_lat, tcp_bw and connections per second.

package probe

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// tcpPeer opens a TCP figure's connection as a blocking socket (no line
// beside it: blockingFD has closed the net.Conn and keeps the connection).
func (cl *client) tcpPeer(ctx context.Context, mode string, size int) (net.Conn, int, *os.File, error) {
	c, _, err := cl.dial(ctx, mode, size)
	if err != nil {
		return nil, 0, nil, err
	}
	fd, f, err := blockingFD(c)
	if err != nil {
		c.Close()
		return nil, 0, nil, err
	}
	return nil, fd, f, nil
}

// tcpLat is half the mean round trip of size-byte ping-pongs over d, in µs.
func (cl *client) tcpLat(ctx context.Context, size int, d time.Duration) (float64, error) {
	return cl.onSocket(ctx, cl.tcpPeer, "lat", size, d+sockWait, func(s sock, _ net.Conn) (float64, error) {
		buf := make([]byte, size)
		var n int64
		start := time.Now()
		end := start.Add(d)
		for {
			if err := s.writeFull(buf); err != nil {
				return 0, err
			}
			if err := s.readFull(buf); err != nil {
				return 0, err
			}
			n++
			if n&7 == 0 && (!time.Now().Before(end) || ctx.Err() != nil) {
				break
			}
		}
		return nsPer(time.Since(start), 2*n) / 1e3, nil
	})
}

// tcpBW streams size-byte writes for d and returns what the listener
// received per second, in MB/s (10^6, as qperf).
// With both ends on one CPU a small-write stream runs in one of two
// patterns, set by the receiver's ACKs: ACKed at once, each ACK releases
// the writes Nagle held, segments stay small (64 B writes: ~2.5 KB) and
// every one wakes the receiver, which preempts the sender (~15,000 times
// a second); with ACKs delayed (TCP's pingpong mode) the writes gather
// into large segments (~24 KB) and the two take whole slices in turn
// (~600), which moves more small writes (38 against 45 MB/s). pre and
// seg keep the sender's preemptions a second and the average segment, so
// a figure is read with its pattern known.
func (cl *client) tcpBW(ctx context.Context, size int, d time.Duration, pre, seg *lastRead) (float64, error) {
	return cl.onSocket(ctx, cl.tcpPeer, "bw", size, d+sockWait, func(s sock, _ net.Conn) (float64, error) {
		buf := make([]byte, size)
		every := max(1, 4096/size)
		pre0, preOK := preemptions()
		b0, s0, segOK := sentSegments(s.fd)
		start := time.Now()
		end := start.Add(d)
		for i := 1; ; i++ {
			if err := s.writeFull(buf); err != nil {
				return 0, err
			}
			if i%every == 0 && (!time.Now().Before(end) || ctx.Err() != nil) {
				break
			}
		}
		if pre1, ok := preemptions(); ok && preOK {
			pre.set(float64(pre1-pre0) / time.Since(start).Seconds())
		}
		if b1, s1, ok := sentSegments(s.fd); ok && segOK && s1 > s0 && b1 > b0 {
			seg.set(float64(b1-b0) / float64(s1-s0))
		}
		// Both ends are still at work (the listener reads until this
		// shutdown, then unpins): where they ran is read now.
		cl.ends.mark()
		if err := unix.Shutdown(s.fd, unix.SHUT_WR); err != nil {
			return 0, err
		}
		ans := make([]byte, 32)
		k := 0
		for k < len(ans) {
			n, err := s.read(ans[k:])
			if n <= 0 || err != nil {
				break
			}
			k += n
		}
		el := time.Since(start)
		got, err := strconv.ParseInt(strings.TrimSpace(string(ans[:k])), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: bad byte count %.20q", cl.addr, ans[:k])
		}
		return float64(got) / el.Seconds() / 1e6, nil
	})
}

// sentSegments is what a TCP socket has sent: bytes and data segments
// (TCP_INFO; kernels before 4.19 give neither: not ok).
func sentSegments(fd int) (bytes uint64, segs uint32, ok bool) {
	ti, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil || ti.Bytes_sent == 0 || ti.Data_segs_out == 0 {
		return 0, 0, false
	}
	return ti.Bytes_sent, ti.Data_segs_out, true
}

// tcpConn is the rate of whole connections (connect, hello, answer,
// close: netperf's TCP_CRR), per second.
func (cl *client) tcpConn(ctx context.Context, d time.Duration) (float64, error) {
	ra, err := net.ResolveTCPAddr("tcp", cl.addr)
	if err != nil {
		return 0, err
	}
	sa, fam := sockaddr(ra.IP, ra.Port)
	hello := []byte(helloLine(cl.token, "crr", 0, false))
	// Pinned as the other figures; not placed (a connection a call, its
	// listener side on no thread of its own).
	release, err := pinThread(cl.pin)
	if err != nil {
		return 0, err
	}
	defer release()
	ans := make([]byte, 16)
	var n int64
	start := time.Now()
	end := start.Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		fd, err := unix.Socket(fam, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return 0, err
		}
		tv := unix.NsecToTimeval(int64(helloWait))
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		err = unix.Connect(fd, sa)
		if err == nil {
			err = sock{fd: fd}.writeFull(hello)
		}
		k := 0
		if err == nil {
			// Again after EINTR: the receive timeout makes the kernel not
			// restart a read a signal interrupts, and Go signals its threads
			// (SIGURG preempts a goroutine that ran 10 ms): through
			// unix.Read, about half of the probes here lost a round of
			// this figure to "interrupted system call".
			k, err = sock{fd: fd}.read(ans)
		}
		unix.Close(fd)
		if err != nil {
			return 0, err
		}
		if k < 2 || string(ans[:2]) != "ok" {
			if strings.HasPrefix(string(ans[:max(k, 0)]), "refused") {
				return 0, errRefused
			}
			return 0, fmt.Errorf("%s: connection answered %.20q", cl.addr, ans[:max(k, 0)])
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// sockaddr is ip:port as a raw socket address and its family.
func sockaddr(ip net.IP, port int) (unix.Sockaddr, int) {
	if v4 := ip.To4(); v4 != nil {
		sa := &unix.SockaddrInet4{Port: port}
		copy(sa.Addr[:], v4)
		return sa, unix.AF_INET
	}
	sa := &unix.SockaddrInet6{Port: port}
	copy(sa.Addr[:], ip.To16())
	return sa, unix.AF_INET6
}
