// The UDP figures, both sides: the listener's datagram echo or count and
// the client's udp_lat and udp_bw.

package probe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// udpSession serves a udp mode: a UDP socket beside the TCP line, whose
// port it answers with "ok", until the client closes the line.
func udpSession(ctx context.Context, c net.Conn, h hello, pin CPUPin, conns *sync.Map) error {
	mode := h.mode
	local := c.LocalAddr().(*net.TCPAddr)
	client := c.RemoteAddr().(*net.TCPAddr)
	u, err := net.ListenUDP("udp", &net.UDPAddr{IP: local.IP, Zone: local.Zone})
	if err != nil {
		return err
	}
	port := u.LocalAddr().(*net.UDPAddr).Port
	// The datagrams are answered or counted by blocking recvfrom/sendto on
	// one locked thread, as qperf's server does: through Go's poller every
	// datagram would also wake a poller thread and hand a goroutine over.
	fd, release, err := trackedFD(u, conns)
	if err != nil {
		return err
	}
	defer release()
	if mode == "udpbw" {
		if err := unix.SetNonblock(fd, true); err != nil {
			return err
		}
	}
	var bytes, pkts atomic.Int64
	var stop atomic.Bool
	done, ready := make(chan struct{}), make(chan error, 1)
	tid := ""
	go func() {
		defer close(done)
		release, err := pinThread(pin)
		if err != nil {
			ready <- err
			return
		}
		defer release()
		tid = tidField(h.tid)
		ready <- nil
		buf := make([]byte, 65536)
		if mode == "udpbw" {
			countRaw(fd, buf, client.IP, &stop, &bytes, &pkts)
			return
		}
		for !stop.Load() {
			n, from, err := unix.Recvfrom(fd, buf, 0)
			if err == unix.EAGAIN || err == unix.EINTR {
				continue // SO_RCVTIMEO: look at stop again
			}
			if err != nil || from == nil {
				return // shut down: recvfrom returns 0 without a source
			}
			if !fromClient(from, client.IP) {
				continue // only the prober's address
			}
			if mode == "udplat" {
				unix.Sendto(fd, buf[:n], 0, from)
			} else {
				bytes.Add(int64(n))
				pkts.Add(1)
			}
		}
	}()
	if err := <-ready; err != nil {
		fmt.Fprintf(c, "error %s\n", finding.SafeLine(err.Error()))
		return err
	}
	fmt.Fprintf(c, "ok %d%s\n", port, tid)
	br := bufio.NewReaderSize(c, 64)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break
		}
		if strings.TrimSpace(line) == "done" {
			// Let datagrams still queued in the socket be counted.
			time.Sleep(20 * time.Millisecond)
			fmt.Fprintf(c, "%d %d\n", bytes.Load(), pkts.Load())
		}
	}
	// A blocking recvfrom is woken by shutdown (it returns 0), not by close.
	stop.Store(true)
	unix.Shutdown(fd, unix.SHUT_RDWR)
	<-done
	return nil
}

// countRaw counts the client's datagrams on fd (non-blocking) until stop
// or a shutdown. The first datagram from the prober's address connects the
// socket to its source: the kernel then drops any other sender's, and the
// rest are plain reads with no source to copy out and check, as qperf's
// server's recv. Those reads block in the kernel (fd made blocking, its
// SO_RCVTIMEO bounding each), through Go's system call entry: a raw read
// that polls when the socket is empty costs the receiver a ppoll and a
// second read per wake-up, and on a CPU shared with the sender it then
// drained a third fewer datagrams (64 KiB: 3.0 against 4.2 GB/s, 62%
// against 45% dropped; qperf 4.65 GB/s, 41%).
func countRaw(fd int, buf []byte, client net.IP, stop *atomic.Bool, bytes, pkts *atomic.Int64) {
	var from unix.RawSockaddrAny
	for !stop.Load() {
		n, err := rawRecvfrom(fd, buf, &from)
		if err == unix.EAGAIN {
			continue // nothing for sockWait: look at stop again
		}
		if err != nil || from.Addr.Family == unix.AF_UNSPEC {
			return // shut down
		}
		if !rawFromClient(&from, client) {
			continue
		}
		bytes.Add(int64(n))
		pkts.Add(1)
		if sa := rawSockaddr(&from); sa != nil && unix.Connect(fd, sa) == nil && unix.SetNonblock(fd, false) == nil {
			break
		}
	}
	for !stop.Load() {
		n, err := unix.Read(fd, buf)
		if err == unix.EAGAIN || err == unix.EINTR {
			continue // SO_RCVTIMEO: look at stop again
		}
		if err != nil || n == 0 {
			return // shut down: a read returns 0 (the prober sends no empty datagram)
		}
		bytes.Add(int64(n))
		pkts.Add(1)
	}
}

// rawSockaddr is a raw IPv4 or IPv6 source as connect(2) takes it.
func rawSockaddr(from *unix.RawSockaddrAny) unix.Sockaddr {
	switch from.Addr.Family {
	case unix.AF_INET:
		a := (*unix.RawSockaddrInet4)(unsafe.Pointer(from))
		return &unix.SockaddrInet4{Port: netPort(a.Port), Addr: a.Addr}
	case unix.AF_INET6:
		a := (*unix.RawSockaddrInet6)(unsafe.Pointer(from))
		return &unix.SockaddrInet6{Port: netPort(a.Port), ZoneId: a.Scope_id, Addr: a.Addr}
	}
	return nil
}

// netPort reads a port kept in network byte order.
func netPort(p uint16) int {
	b := (*[2]byte)(unsafe.Pointer(&p))
	return int(b[0])<<8 | int(b[1])
}

// rawFromClient is fromClient for a raw source address.
func rawFromClient(from *unix.RawSockaddrAny, ip net.IP) bool {
	switch from.Addr.Family {
	case unix.AF_INET:
		return ip.Equal(net.IP((*unix.RawSockaddrInet4)(unsafe.Pointer(from)).Addr[:]))
	case unix.AF_INET6:
		return ip.Equal(net.IP((*unix.RawSockaddrInet6)(unsafe.Pointer(from)).Addr[:]))
	}
	return false
}

// fromClient says whether a datagram's source is the prober's address.
func fromClient(from unix.Sockaddr, ip net.IP) bool {
	switch a := from.(type) {
	case *unix.SockaddrInet4:
		return ip.Equal(net.IP(a.Addr[:]))
	case *unix.SockaddrInet6:
		return ip.Equal(net.IP(a.Addr[:]))
	}
	return false
}

// udpPeer opens the UDP side of a udp mode: the TCP line (kept open: it
// is the session) and a blocking socket connected to the listener's port.
func (cl *client) udpPeer(ctx context.Context, mode string, size int) (net.Conn, int, *os.File, error) {
	c, rest, err := cl.dial(ctx, mode, size)
	if err != nil {
		return nil, 0, nil, err
	}
	port, err := strconv.Atoi(rest)
	if err != nil {
		c.Close()
		return nil, 0, nil, fmt.Errorf("%s: bad UDP port %.20q", cl.addr, rest)
	}
	host, _, _ := net.SplitHostPort(cl.addr)
	u, err := net.Dial("udp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		c.Close()
		return nil, 0, nil, err
	}
	fd, f, err := blockingFD(u)
	if err != nil {
		c.Close()
		return nil, 0, nil, err
	}
	tv := unix.NsecToTimeval(int64(udpWait))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return c, fd, f, nil
}

// udpLat is half the mean round trip of answered datagrams, in µs; lost
// datagrams (no answer within 200 ms) are counted into *lost.
func (cl *client) udpLat(ctx context.Context, size int, d time.Duration, lost *atomic.Int64) (float64, error) {
	return cl.onSocket(ctx, cl.udpPeer, "udplat", size, func(fd int, _ net.Conn) (float64, error) {
		buf := make([]byte, size)
		in := make([]byte, size+1)
		var n int64
		var waited time.Duration
		start := time.Now()
		end := start.Add(d)
		for time.Now().Before(end) && ctx.Err() == nil {
			if _, err := unix.Write(fd, buf); err != nil && err != unix.EINTR {
				return 0, err
			}
			t := time.Now()
			if _, err := unix.Read(fd, in); err != nil {
				if err == unix.EAGAIN || err == unix.EINTR {
					lost.Add(1)
					waited += time.Since(t)
					continue
				}
				return 0, err
			}
			n++
		}
		if n == 0 {
			return 0, fmt.Errorf("%s: no UDP datagram came back", cl.addr)
		}
		return nsPer(time.Since(start)-waited, 2*n) / 1e3, nil
	})
}

// udpBW sends size-byte datagrams for d and returns the bytes the listener
// received per second of sending, in MB/s; sent and received datagrams
// are added to the counters (their ratio is the loss).
func (cl *client) udpBW(ctx context.Context, size int, d time.Duration, sent, got *atomic.Int64) (float64, error) {
	return cl.onSocket(ctx, cl.udpPeer, "udpbw", size, func(fd int, c net.Conn) (float64, error) {
		if err := unix.SetNonblock(fd, true); err != nil {
			return 0, err
		}
		buf := make([]byte, size)
		every := max(1, 4096/size)
		var n int64
		start := time.Now()
		end := start.Add(d)
		for i := 1; ; i++ {
			if _, err := rawWrite(fd, buf); err == nil {
				n++
			} else if err != unix.ENOBUFS && err != unix.EINTR && err != unix.ECONNREFUSED {
				return 0, err
			}
			if i%every == 0 && (!time.Now().Before(end) || ctx.Err() != nil) {
				break
			}
		}
		// The time base is the sending window: UDP has no flow control, so
		// every datagram the listener counts was sent within it (qperf's
		// recv_bw divides by the test time alike). The listener's 20 ms wait
		// for queued datagrams and the count's round trip are not in it (they
		// were, and cut the figure by a half at --quick's 20 ms windows).
		el := time.Since(start)
		c.SetDeadline(time.Now().Add(helloWait))
		if _, err := io.WriteString(c, "done\n"); err != nil {
			return 0, err
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return 0, fmt.Errorf("%s: no UDP count: %w", cl.addr, err)
		}
		var bytes, pkts int64
		if _, err := fmt.Sscanf(line, "%d %d", &bytes, &pkts); err != nil {
			return 0, fmt.Errorf("%s: bad UDP count %.30q", cl.addr, line)
		}
		sent.Add(n)
		got.Add(pkts)
		return float64(bytes) / el.Seconds() / 1e6, nil
	})
}
