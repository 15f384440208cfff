// The UDP figures, both sides: the listener's datagram echo or count and
// the client's udp_lat and udp_bw.

package probe

import (
	"bufio"
	"context"
	"errors"
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
	var bytes, pkts atomic.Int64
	var stop atomic.Bool
	done, ready := make(chan struct{}), make(chan error, 1)
	tid := ""
	go func() {
		defer close(done)
		err := onOwnThread(pin, []int{fd}, func() error {
			tid = tidField(h.tid)
			raw, leave := enterRaw() // before the answer, as a TCP session's
			defer leave()
			ready <- nil
			s := sock{fd, raw}
			buf := make([]byte, 65536)
			if mode == "udpbw" {
				countRaw(s, buf, client.IP, &stop, &bytes, &pkts)
				return nil
			}
			var from unix.RawSockaddrAny
			for !stop.Load() {
				n, err := s.recvfrom(buf, &from)
				if err != nil || from.Addr.Family == unix.AF_UNSPEC {
					return nil // shut down: recvfrom returns 0 without a source
				}
				if !rawFromClient(&from, client.IP) {
					continue // only the prober's address
				}
				if mode == "udplat" {
					s.sendto(buf[:n], &from, rawLen(&from))
				} else {
					bytes.Add(int64(n))
					pkts.Add(1)
				}
			}
			return nil
		})
		if err != nil {
			ready <- err // not pinned: fn, which answers ready, did not run
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

// countRaw counts the client's datagrams on s until stop or a shutdown.
// The first datagram from the prober's address connects the socket to its
// source: the kernel then drops any other sender's, and the rest are plain
// reads with no source to copy out and check, as qperf's server's recv.
// Each read blocks in the kernel: a read that polls when the socket is
// empty costs the receiver a ppoll and a second read per wake-up, and on
// a CPU shared with the sender it then drained a third fewer datagrams
// (64 KiB: 3.0 against 4.2 GB/s, 62% against 45% dropped; qperf 4.65
// GB/s, 41%).
func countRaw(s sock, buf []byte, client net.IP, stop *atomic.Bool, bytes, pkts *atomic.Int64) {
	var from unix.RawSockaddrAny
	for !stop.Load() {
		n, err := s.recvfrom(buf, &from)
		if err != nil || from.Addr.Family == unix.AF_UNSPEC {
			return // shut down
		}
		if !rawFromClient(&from, client) {
			continue
		}
		bytes.Add(int64(n))
		pkts.Add(1)
		if sa := rawSockaddr(&from); sa != nil && unix.Connect(s.fd, sa) == nil {
			break
		}
	}
	for !stop.Load() {
		n, err := s.read(buf)
		if err != nil || n == 0 {
			return // shut down: a read returns 0 (the prober sends no empty datagram)
		}
		bytes.Add(int64(n))
		pkts.Add(1)
	}
}

// rawLen is the length of the raw address from holds, for sendto.
func rawLen(from *unix.RawSockaddrAny) uint32 {
	if from.Addr.Family == unix.AF_INET6 {
		return unix.SizeofSockaddrInet6
	}
	return unix.SizeofSockaddrInet4
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

// rawFromClient says whether a datagram's source is the prober's address.
func rawFromClient(from *unix.RawSockaddrAny, ip net.IP) bool {
	switch from.Addr.Family {
	case unix.AF_INET:
		return ip.Equal(net.IP((*unix.RawSockaddrInet4)(unsafe.Pointer(from)).Addr[:]))
	case unix.AF_INET6:
		return ip.Equal(net.IP((*unix.RawSockaddrInet6)(unsafe.Pointer(from)).Addr[:]))
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
	return c, fd, f, nil
}

// udpLat is half the mean round trip of answered datagrams, in µs. A
// round trip that took udpWait or more lost its datagram (or its answer):
// it is counted into *lost and its time left out. The wait for an answer
// that will not come ends when the guard beside the loop, seeing no round
// trip done for udpWait, sends the datagram again (qperf waits for ever);
// the socket has no timeout to arm on every read. Each datagram's first
// byte is its round trip's number (mod 256), which the listener echoes:
// an answer that comes late, after the one to the datagram sent again,
// is then read and dropped, where it would have paired every later
// datagram with the answer to the one before and halved the figure.
func (cl *client) udpLat(ctx context.Context, size int, d time.Duration, lost *atomic.Int64) (float64, error) {
	return cl.onSocket(ctx, cl.udpPeer, "udplat", size, d+4*udpWait, func(s sock, _ net.Conn) (float64, error) {
		buf := make([]byte, size)
		in := make([]byte, size+1)
		var trips atomic.Int64
		defer resendOnStall(s.fd, size, &trips)()
		var n int64
		var waited time.Duration
		start := time.Now()
		prev := time.Duration(0)
		for seq := byte(0); ; seq++ {
			buf[0] = seq
			if _, err := s.write(buf); err != nil {
				return 0, err
			}
			k, err := s.read(in)
			for err == nil && k > 0 && in[0] != seq {
				k, err = s.read(in) // a late answer to an earlier datagram
			}
			now := time.Since(start)
			if k == 0 || err != nil {
				if now >= d && ctx.Err() == nil {
					lost.Add(1) // the guard shut the socket: no answer came
					break
				}
				if err == nil {
					err = errShutDown
				}
				return 0, err
			}
			if rt := now - prev; rt >= udpWait {
				lost.Add(1)
				waited += rt
			} else {
				n++
			}
			prev = now
			trips.Add(1)
			if now >= d || ctx.Err() != nil {
				break
			}
		}
		if n == 0 {
			return 0, fmt.Errorf("%s: no UDP datagram came back", cl.addr)
		}
		return nsPer(prev-waited, 2*n) / 1e3, nil
	})
}

// errShutDown: the guard shut the socket before the figure's window was
// over (its peer silent past sockWait, or the probe stopped).
var errShutDown = errors.New("socket shut down")

// resendOnStall sends the round trip in flight again (size bytes, its
// number first) whenever trips has not moved for udpWait, until the
// returned stop; it looks every udpWait/8.
func resendOnStall(fd, size int, trips *atomic.Int64) (stop func()) {
	done := make(chan struct{})
	over := make(chan struct{})
	go func() {
		defer close(over)
		msg := make([]byte, size)
		t := time.NewTicker(udpWait / 8)
		defer t.Stop()
		last, moved := trips.Load(), time.Now()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				if cur := trips.Load(); cur != last {
					last, moved = cur, now
				} else if now.Sub(moved) >= udpWait {
					msg[0] = byte(cur)
					unix.Write(fd, msg)
					moved = now
				}
			}
		}
	}()
	return func() { close(done); <-over }
}

// udpBW sends size-byte datagrams for d and returns the bytes the listener
// received per second of sending, in MB/s; sent and received datagrams
// are added to the counters (their ratio is the loss).
func (cl *client) udpBW(ctx context.Context, size int, d time.Duration, sent, got *atomic.Int64) (float64, error) {
	return cl.onSocket(ctx, cl.udpPeer, "udpbw", size, d+sockWait, func(s sock, c net.Conn) (float64, error) {
		buf := make([]byte, size)
		every := max(1, 4096/size)
		var n int64
		start := time.Now()
		end := start.Add(d)
		for i := 1; ; i++ {
			if _, err := s.write(buf); err == nil {
				n++
			} else if err != unix.ENOBUFS && err != unix.ECONNREFUSED {
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
