package probe

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// The wire protocol, one hello line per TCP connection, then the mode's
// traffic:
//
//	TLPROBE/1 <hex token or -> <mode> <size>\n   (client)
//	ok [udp port]\n | refused\n                   (listener)
//
// lat: size bytes each way until EOF; bw: size-byte writes until the
// client shuts its side, then the listener's "<bytes>\n"; crr: "ok" and
// close (a connection per figure's operation); quit: the listener stops
// (only with a token: the prober that started it over SSH ends it so its
// copy is removed at once); udplat/udpbw: a UDP socket
// whose port follows "ok", echoing or counting datagrams from the client's
// address only, "done\n" on the TCP line answered "<bytes> <datagrams>\n".
// Every figure moves its bytes as qperf's tcp_lat, tcp_bw, udp_lat and
// udp_bw do (socket.c): blocking read/write (UDP: recvfrom/sendto) system
// calls on one thread on each side, so a figure is the kernel's and not
// Go's poller; TCP with Nagle on (qperf sets no TCP_NODELAY); default
// socket buffers; one connection per figure and round. A latency is half
// the mean round trip of size-byte messages each way, each read whole
// before the answer; a bandwidth is the bytes the receiver read (qperf's
// recv_bw) per second: TCP from the first write until the count arrives
// after the sender shut down (the receiver has read everything); UDP the
// sending window (all the receiver counts was sent in it). Unlike
// qperf (one 2 s run on one connection per figure), a figure is the median
// of several short windows (120 ms, 20 ms with --quick; --window), each on
// a new connection.
const (
	magic = "TLPROBE/1"
	// MaxMsg is the largest message size either side accepts.
	MaxMsg = 1 << 20
	// udpMax is the largest UDP payload over IPv4.
	udpMax = 65507
	// maxSessions bounds the connections a listener serves at once.
	maxSessions = 32
	// sessionMax bounds one connection's life on the listener.
	sessionMax = 2 * time.Minute
	helloWait  = 5 * time.Second
	udpWait    = 200 * time.Millisecond
)

// ErrRefused: the peer refused our token.
var errRefused = finding.Errorf(finding.T("the peer refused the connection: its --token differs from ours", "对端拒绝了连接：它的 --token 与本端不同"))

// ListenOptions configure `probe --listen`.
type ListenOptions struct {
	Addr  string
	Token string        // "": anyone who connects may probe
	For   time.Duration // the listener stops by itself after this (0: 10 min)
	// Ready hears the address actually bound (the port of ":0").
	Ready func(addr string)
	Log   io.Writer
}

// Listen serves probes on o.Addr until o.For has passed or ctx ends.
func Listen(ctx context.Context, o ListenOptions) error {
	if o.For <= 0 {
		o.For = 10 * time.Minute
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return finding.Errorf(finding.T("--listen %s: %v", "--listen %s：%v"), o.Addr, err)
	}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	ctx, cancel := context.WithTimeout(ctx, o.For)
	defer cancel()
	serve(ctx, ln, o.Token, o.Log)
	return nil
}

// serve accepts until ctx ends, then closes ln and waits for its sessions.
func serve(ctx context.Context, ln net.Listener, token string, log io.Writer) {
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	var wg sync.WaitGroup
	var conns sync.Map
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		conns.Range(func(k, _ any) bool {
			if fd, ok := k.(blockingSock); ok {
				// A blocking socket: shutdown wakes the thread in read,
				// close would not (its owner closes it, after taking it
				// out of conns; the listener is going anyway).
				unix.Shutdown(int(fd), unix.SHUT_RDWR)
				return true
			}
			k.(io.Closer).Close()
			return true
		})
	})
	defer stop()
	sem := make(chan struct{}, maxSessions)
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				break
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like: do not spin
			continue
		}
		select {
		case sem <- struct{}{}:
		default:
			c.Close()
			continue
		}
		wg.Add(1)
		conns.Store(c, nil)
		go func() {
			defer wg.Done()
			defer func() { conns.Delete(c); c.Close(); <-sem }()
			if err := session(ctx, c, token, &conns, quit); err != nil && log != nil {
				fmt.Fprintf(log, "probe listener: %s: %v\n", c.RemoteAddr(), err)
			}
		}()
	}
	ln.Close()
	wg.Wait()
}

// helloLine is the client's first line.
func helloLine(token, mode string, size int) string {
	t := "-"
	if token != "" {
		t = hex.EncodeToString([]byte(token))
	}
	return fmt.Sprintf("%s %s %s %d\n", magic, t, mode, size)
}

// parseHello reads a hello line: the token (decoded), mode and size.
func parseHello(line string) (token, mode string, size int, err error) {
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != magic {
		return "", "", 0, fmt.Errorf("not a probe hello: %.40q", line)
	}
	if f[1] != "-" {
		b, err := hex.DecodeString(f[1])
		if err != nil {
			return "", "", 0, fmt.Errorf("bad token field")
		}
		token = string(b)
	}
	size, err = strconv.Atoi(f[3])
	if err != nil || size < 0 || size > MaxMsg {
		return "", "", 0, fmt.Errorf("message size %q: want 0 to %d", f[3], MaxMsg)
	}
	switch f[2] {
	case "lat", "bw", "crr", "udplat", "udpbw", "quit":
	default:
		return "", "", 0, fmt.Errorf("unknown mode %.20q", f[2])
	}
	if (f[2] == "udplat" || f[2] == "udpbw") && size > udpMax {
		return "", "", 0, fmt.Errorf("UDP message size %d over %d", size, udpMax)
	}
	return token, f[2], size, nil
}

func session(ctx context.Context, c net.Conn, token string, conns *sync.Map, quit func()) error {
	c.SetDeadline(time.Now().Add(helloWait))
	br := bufio.NewReaderSize(c, 256)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("no hello: %w", err)
	}
	got, mode, size, err := parseHello(string(line))
	if err != nil {
		return err
	}
	if token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
		io.WriteString(c, "refused\n")
		return fmt.Errorf("refused: wrong token")
	}
	if br.Buffered() > 0 {
		return fmt.Errorf("data before ok")
	}
	c.SetDeadline(time.Now().Add(sessionMax))
	switch mode {
	case "crr":
		_, err = io.WriteString(c, "ok\n")
		return err
	case "quit":
		if token == "" {
			io.WriteString(c, "refused\n")
			return fmt.Errorf("quit refused: a listener without a token is stopped by its --for only")
		}
		io.WriteString(c, "ok\n")
		quit()
		return nil
	case "udplat", "udpbw":
		return udpSession(ctx, c, mode, conns)
	}
	if _, err := io.WriteString(c, "ok\n"); err != nil {
		return err
	}
	fd, f, err := blockingFD(c)
	if err != nil {
		return err
	}
	defer f.Close()
	conns.Store(blockingSock(fd), nil) // shut down when the listener stops
	defer conns.Delete(blockingSock(fd))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, max(size, 1))
	end := time.Now().Add(sessionMax)
	switch mode {
	case "lat":
		for time.Now().Before(end) {
			if err := readFull(fd, buf); err != nil {
				return nil // the client is done
			}
			if err := writeFull(fd, buf); err != nil {
				return nil
			}
		}
	case "bw":
		var n int64
		for {
			k, err := unix.Read(fd, buf)
			if k > 0 {
				n += int64(k)
			}
			if k == 0 || (err != nil && err != unix.EINTR) || !time.Now().Before(end) {
				break
			}
		}
		writeFull(fd, []byte(strconv.FormatInt(n, 10)+"\n"))
	}
	return nil
}

func udpSession(ctx context.Context, c net.Conn, mode string, conns *sync.Map) error {
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
	fd, f, err := blockingFD(u)
	if err != nil {
		return err
	}
	defer f.Close()
	conns.Store(blockingSock(fd), nil) // shut down when the listener stops
	defer conns.Delete(blockingSock(fd))
	fmt.Fprintf(c, "ok %d\n", port)
	var bytes, pkts atomic.Int64
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		buf := make([]byte, 65536)
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

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
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

func writeFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// client speaks to one listener.
type client struct {
	addr, token string
}

// dial opens a TCP connection and says hello; it returns the connection
// and the listener's answer after "ok".
func (cl *client) dial(ctx context.Context, mode string, size int) (net.Conn, string, error) {
	d := net.Dialer{Timeout: helloWait}
	c, err := d.DialContext(ctx, "tcp", cl.addr)
	if err != nil {
		return nil, "", err
	}
	c.SetDeadline(time.Now().Add(helloWait))
	if _, err := io.WriteString(c, helloLine(cl.token, mode, size)); err != nil {
		c.Close()
		return nil, "", err
	}
	br := bufio.NewReaderSize(c, 64)
	line, err := br.ReadString('\n')
	if err != nil {
		c.Close()
		return nil, "", fmt.Errorf("%s: no answer to hello: %w", cl.addr, err)
	}
	line = strings.TrimSpace(line)
	switch {
	case line == "refused":
		c.Close()
		return nil, "", errRefused
	case line != "ok" && !strings.HasPrefix(line, "ok "):
		c.Close()
		return nil, "", fmt.Errorf("%s: not a tuneloop probe listener (%.40q)", cl.addr, line)
	}
	c.SetDeadline(time.Time{})
	return c, strings.TrimPrefix(strings.TrimPrefix(line, "ok"), " "), nil
}

// tcpLat is half the mean round trip of size-byte ping-pongs over d, in µs.
func (cl *client) tcpLat(ctx context.Context, size int, d time.Duration) (float64, error) {
	c, _, err := cl.dial(ctx, "lat", size)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	fd, f, err := blockingFD(c)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, size)
	var n int64
	start := time.Now()
	end := start.Add(d)
	for {
		if err := writeFull(fd, buf); err != nil {
			return 0, err
		}
		if err := readFull(fd, buf); err != nil {
			return 0, err
		}
		n++
		if n&7 == 0 && (!time.Now().Before(end) || ctx.Err() != nil) {
			break
		}
	}
	return nsPer(time.Since(start), 2*n) / 1e3, nil
}

// tcpBW streams size-byte writes for d and returns what the listener
// received per second, in MB/s (10^6, as qperf).
func (cl *client) tcpBW(ctx context.Context, size int, d time.Duration) (float64, error) {
	c, _, err := cl.dial(ctx, "bw", size)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	fd, f, err := blockingFD(c)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, size)
	every := max(1, 4096/size)
	start := time.Now()
	end := start.Add(d)
	for i := 1; ; i++ {
		if err := writeFull(fd, buf); err != nil {
			return 0, err
		}
		if i%every == 0 && (!time.Now().Before(end) || ctx.Err() != nil) {
			break
		}
	}
	if err := unix.Shutdown(fd, unix.SHUT_WR); err != nil {
		return 0, err
	}
	ans := make([]byte, 32)
	k := 0
	for k < len(ans) {
		n, err := unix.Read(fd, ans[k:])
		if err == unix.EINTR {
			continue
		}
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
}

// tcpConn is the rate of whole connections (connect, hello, answer,
// close: netperf's TCP_CRR), per second.
func (cl *client) tcpConn(ctx context.Context, d time.Duration) (float64, error) {
	ra, err := net.ResolveTCPAddr("tcp", cl.addr)
	if err != nil {
		return 0, err
	}
	sa, fam := sockaddr(ra.IP, ra.Port)
	hello := []byte(helloLine(cl.token, "crr", 0))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
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
			err = writeFull(fd, hello)
		}
		k := 0
		if err == nil {
			k, err = unix.Read(fd, ans)
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
	c, fd, f, err := cl.udpPeer(ctx, "udplat", size)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	defer f.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
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
}

// udpBW sends size-byte datagrams for d and returns the bytes the listener
// received per second of sending, in MB/s; sent and received datagrams
// are added to the counters (their ratio is the loss).
func (cl *client) udpBW(ctx context.Context, size int, d time.Duration, sent, got *atomic.Int64) (float64, error) {
	c, fd, f, err := cl.udpPeer(ctx, "udpbw", size)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	defer f.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, size)
	every := max(1, 4096/size)
	var n int64
	start := time.Now()
	end := start.Add(d)
	for i := 1; ; i++ {
		if _, err := unix.Write(fd, buf); err == nil {
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
}

// Quit asks the listener at addr (which must have a token) to stop.
func Quit(ctx context.Context, addr, token string) error {
	c, _, err := (&client{addr: addr, token: token}).dial(ctx, "quit", 0)
	if err != nil {
		return err
	}
	return c.Close()
}

// newToken is a random token for our own loopback listener.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// net measures the network part against o.Peer, or against a listener of
// our own on 127.0.0.1.
func (p *prober) net(ctx context.Context) error {
	cl := &client{addr: p.o.Peer, token: p.o.Token}
	p.res.Peer = p.o.Peer
	if p.o.Peer == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.skip(PartNet, finding.T("no loopback listener: "+err.Error(), "无法在环回地址监听："+err.Error()))
			return nil
		}
		lctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		cl.addr, cl.token = ln.Addr().String(), newToken()
		go func() { serve(lctx, ln, cl.token, nil); close(done) }()
		defer func() { cancel(); <-done }()
		p.res.Peer = "loopback"
	}
	// A first connection says at once whether the peer is there and takes us.
	c, _, err := cl.dial(ctx, "crr", 0)
	if err != nil {
		if errors.Is(err, errRefused) {
			return err
		}
		return finding.Errorf(finding.T("--peer %s: %v", "--peer %s：%v"), cl.addr, err)
	}
	c.Close()
	var benches []bench
	for _, size := range p.o.Sizes {
		benches = append(benches,
			bench{id: fmt.Sprintf("net.tcp_lat.%d", size), unit: "us",
				name: finding.T(fmt.Sprintf("TCP latency %s (half a round trip, as qperf tcp_lat)", fmtSize(size)), fmt.Sprintf("TCP 延迟 %s（往返时间的一半，同 qperf tcp_lat）", fmtSize(size))),
				run:  func(ctx context.Context, d time.Duration) (float64, error) { return cl.tcpLat(ctx, size, d) }},
			bench{id: fmt.Sprintf("net.tcp_bw.%d", size), unit: "MB/s", higher: true,
				name: finding.T(fmt.Sprintf("TCP bandwidth %s writes (received; Nagle on, as qperf tcp_bw)", fmtSize(size)), fmt.Sprintf("TCP 带宽（每次写 %s，按接收计；Nagle 开启，同 qperf tcp_bw）", fmtSize(size))),
				run:  func(ctx context.Context, d time.Duration) (float64, error) { return cl.tcpBW(ctx, size, d) }})
	}
	for _, size := range p.o.Sizes {
		usize := min(size, udpMax)
		var note finding.Text
		if usize < size {
			note = finding.T(fmt.Sprintf("datagrams of %d B, the UDP maximum", udpMax), fmt.Sprintf("数据报 %d B（UDP 上限）", udpMax))
		}
		lost, sent, got := new(atomic.Int64), new(atomic.Int64), new(atomic.Int64)
		benches = append(benches,
			bench{id: fmt.Sprintf("net.udp_lat.%d", size), unit: "us",
				name: finding.T(fmt.Sprintf("UDP latency %s (half a round trip, as qperf udp_lat)", fmtSize(size)), fmt.Sprintf("UDP 延迟 %s（往返时间的一半，同 qperf udp_lat）", fmtSize(size))),
				run:  func(ctx context.Context, d time.Duration) (float64, error) { return cl.udpLat(ctx, usize, d, lost) },
				note: func() finding.Text {
					if l := lost.Load(); l > 0 {
						return joinNote(note, finding.T(fmt.Sprintf("%d datagrams lost (not counted)", l), fmt.Sprintf("丢失 %d 个数据报（未计入）", l)))
					}
					return note
				}},
			bench{id: fmt.Sprintf("net.udp_bw.%d", size), unit: "MB/s", higher: true,
				name: finding.T(fmt.Sprintf("UDP bandwidth %s datagrams (received per second of sending, as qperf udp_bw recv_bw)", fmtSize(size)), fmt.Sprintf("UDP 带宽（%s 数据报，每秒发送时间内的接收量，同 qperf udp_bw 的 recv_bw）", fmtSize(size))),
				run:  func(ctx context.Context, d time.Duration) (float64, error) { return cl.udpBW(ctx, usize, d, sent, got) },
				note: func() finding.Text {
					s, g := sent.Load(), got.Load()
					if s > 0 && g < s {
						pct := 100 * float64(s-g) / float64(s)
						return joinNote(note, finding.T(fmt.Sprintf("%.1f%% of datagrams dropped before the receiver", pct), fmt.Sprintf("%.1f%% 的数据报在接收端之前被丢弃", pct)))
					}
					return note
				}})
	}
	benches = append(benches, bench{id: "net.tcp_conn", unit: "conn/s", higher: true,
		name: finding.T("TCP connections per second (connect, 1 exchange, close)", "每秒 TCP 连接数（建连、一次往返、关闭）"),
		run:  cl.tcpConn})
	p.rounds(ctx, PartNet, benches, p.b.net)
	for _, f := range p.res.Figures {
		if f.Err == errRefused.Error() {
			return errRefused
		}
	}
	return nil
}

func joinNote(a, b finding.Text) finding.Text {
	if a.EN == "" {
		return b
	}
	return finding.T(a.EN+"; "+b.EN, a.ZH+"；"+b.ZH)
}

// fmtSize is 1 B, 64 B, 1 KiB, 64 KiB.
func fmtSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
