package probe

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// The wire protocol, one hello line per TCP connection, then the mode's
// traffic:
//
//	TLPROBE/1 <hex token or -> <mode> <size> [tid]\n   (client)
//	ok [udp port] [tid=N]\n | refused\n | error <why>\n  (listener)
//
// "tid" asks the listener to name the thread that serves the figure
// (tid=N), so a prober on the same host can read where it ran; only a
// local listener, always this binary, is asked (one of another version
// on another host would refuse a fifth field or, answering it, an old
// prober's port parse). "error": the listener could not do what the
// hello asked (pin its thread to its --cpu).
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

// hello is what a client's first line asks.
type hello struct {
	token, mode string
	size        int
	tid         bool // name the serving thread in the answer
}

// helloLine is the client's first line.
func helloLine(token, mode string, size int, tid bool) string {
	t := "-"
	if token != "" {
		t = hex.EncodeToString([]byte(token))
	}
	if tid {
		return fmt.Sprintf("%s %s %s %d tid\n", magic, t, mode, size)
	}
	return fmt.Sprintf("%s %s %s %d\n", magic, t, mode, size)
}

// parseHello reads a hello line: the token (decoded), mode, size and
// whether the thread is to be named.
func parseHello(line string) (hello, error) {
	var h hello
	f := strings.Fields(line)
	if len(f) != 4 && (len(f) != 5 || f[4] != "tid") || f[0] != magic {
		return h, fmt.Errorf("not a probe hello: %.40q", line)
	}
	h.tid = len(f) == 5
	if f[1] != "-" {
		b, err := hex.DecodeString(f[1])
		if err != nil {
			return h, fmt.Errorf("bad token field")
		}
		h.token = string(b)
	}
	size, err := strconv.Atoi(f[3])
	if err != nil || size < 0 || size > MaxMsg {
		return h, fmt.Errorf("message size %q: want 0 to %d", f[3], MaxMsg)
	}
	h.size = size
	switch f[2] {
	case "lat", "bw", "crr", "udplat", "udpbw", "quit":
	default:
		return h, fmt.Errorf("unknown mode %.20q", f[2])
	}
	h.mode = f[2]
	if (h.mode == "udplat" || h.mode == "udpbw") && size > udpMax {
		return h, fmt.Errorf("UDP message size %d over %d", size, udpMax)
	}
	return h, nil
}

// client speaks to one listener.
type client struct {
	addr, token string
	pin         CPUPin // the measuring thread's CPU (--cpu)
	ends        ends   // where the two ends ran last
	// local: the listener is on this host (ours), asked to name its
	// serving thread.
	local bool
}

// dial opens a TCP connection and says hello; it returns the connection
// and the listener's answer after "ok".
func (cl *client) dial(ctx context.Context, mode string, size int) (net.Conn, string, error) {
	d := tcpDialer()
	c, err := d.DialContext(ctx, "tcp", cl.addr)
	if err != nil {
		return nil, "", err
	}
	c.SetDeadline(time.Now().Add(helloWait))
	if _, err := io.WriteString(c, helloLine(cl.token, mode, size, cl.local && mode != "crr" && mode != "quit")); err != nil {
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
	case strings.HasPrefix(line, "error "):
		c.Close()
		return nil, "", fmt.Errorf("%s: %s", cl.addr, strings.TrimPrefix(line, "error "))
	case line != "ok" && !strings.HasPrefix(line, "ok "):
		c.Close()
		return nil, "", fmt.Errorf("%s: not a tuneloop probe listener (%.40q)", cl.addr, line)
	}
	c.SetDeadline(time.Time{})
	// "ok [port] [tid=N]": N is the listener's thread serving the figure.
	var rest []string
	tid := int64(0)
	for _, f := range strings.Fields(strings.TrimPrefix(line, "ok")) {
		if v, ok := strings.CutPrefix(f, "tid="); ok {
			tid, _ = strconv.ParseInt(v, 10, 32)
			continue
		}
		rest = append(rest, f)
	}
	cl.ends.peerTid.Store(int32(tid))
	return c, strings.Join(rest, " "), nil
}

// onSocket runs a figure on the blocking socket that open (tcpPeer or
// udpPeer) gives for mode, on a thread of its own (onOwnThread): the
// figure's calls are the kernel's, on one thread, as qperf's (raw when a
// slot is free, see enterRaw). line is the TCP line a udp mode keeps
// beside its socket (nil for TCP). The socket is shut down when ctx ends or limit has
// passed, which ends any wait for a peer gone quiet.
func (cl *client) onSocket(ctx context.Context, open func(ctx context.Context, mode string, size int) (net.Conn, int, *os.File, error),
	mode string, size int, limit time.Duration, figure func(s sock, line net.Conn) (float64, error)) (float64, error) {
	line, fd, f, err := open(ctx, mode, size)
	if err != nil {
		return 0, err
	}
	if line != nil {
		defer line.Close()
	}
	defer f.Close()
	keep := []int{fd}
	if line != nil {
		keep = append(keep, connFD(line))
	}
	var v float64
	err = onOwnThread(cl.pin, keep, func() error {
		raw, leave := enterRaw()
		defer leave()
		defer guardFD(ctx, fd, limit).stop() // armed after enterRaw's collection
		cl.ends.marked.Store(false)
		defer cl.ends.mark() // unless the figure marked first
		var ferr error
		v, ferr = figure(sock{fd, raw}, line)
		return ferr
	})
	if err != nil && ctx.Err() != nil {
		return 0, ctx.Err() // stopped: the guard's shutdown is no error of the peer's
	}
	return v, err
}

// listenTCP listens on addr with plain TCP. Go 1.24 made its listeners
// Multipath TCP by default where the kernel has it (net.mptcp.enabled), and
// GODEBUG=multipathtcp=1 makes its dialers so too. A plain TCP client
// falls back to TCP on such a listener, but its connections are set up
// through the MPTCP layer (connections a second, both ends on one CPU,
// four interleaved runs: 6,200-6,800 through Go's default listener,
// 6,800-7,700 through this one), and with both ends MPTCP a 1 B stream
// moved 0.32 MB/s against 0.55. qperf, netperf and iperf3 measure
// plain TCP unless asked, and so does the probe, whatever its environment.
func listenTCP(ctx context.Context, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(ctx, "tcp", addr)
}

// tcpDialer dials plain TCP (listenTCP).
func tcpDialer() *net.Dialer {
	d := &net.Dialer{Timeout: helloWait}
	d.SetMultipathTCP(false)
	return d
}

// Quit asks the listener at addr (which must have a token) to stop.
func Quit(ctx context.Context, addr, token string) error {
	c, _, err := (&client{addr: addr, token: token}).dial(ctx, "quit", 0)
	if err != nil {
		return err
	}
	return c.Close()
}

// TokenEnv holds a listener's token when it should not show in ps.
const TokenEnv = "TUNELOOP_PROBE_TOKEN"

// NewToken is a fresh random token for a listener of our own.
func NewToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// The loopback peers: a listener of our own on 127.0.0.1 in a process of
// its own (as qperf's server: prober and listener switch address space,
// and pay what CPU vulnerability mitigations add to that switch), or in
// this process (its threads never switch address space). Probes of
// different peers measure different paths.
const (
	PeerOwnProcess = "loopback (listener process)"
	PeerInProcess  = "loopback (in-process)"
)

// PeerText is a result's Peer as a reader reads it: the loopback peers in
// either language, a remote HOST:PORT as it is.
func PeerText(peer string) finding.Text {
	switch peer {
	case PeerOwnProcess:
		return finding.T(peer, "环回（监听在独立进程中）")
	case PeerInProcess:
		return finding.T(peer, "环回（监听在探测进程内）")
	case "loopback": // probes before the two were told apart: in-process
		return finding.T(peer, "环回")
	}
	return finding.T(peer, peer)
}

// net measures the network part against o.Peer, or against a listener of
// our own on 127.0.0.1 in this process.
func (p *prober) net(ctx context.Context) error {
	cl := &client{addr: p.o.Peer, token: p.o.Token, pin: p.o.CPU}
	reserveRaw(1)
	defer freeProcs() // after the in-process listener's sessions, deferred below
	p.res.Peer = cmp.Or(p.o.PeerLabel, p.o.Peer)
	if p.o.PeerPID > 0 {
		p.place = newPlacer(filepath.Join(p.o.ProcRoot, strconv.Itoa(p.o.PeerPID), "task"), cl)
		cl.local = true
	}
	if p.o.Peer == "" {
		ln, err := listenTCP(ctx, "127.0.0.1:0")
		if err != nil {
			p.skip(PartNet, finding.T("no loopback listener: "+err.Error(), "无法在环回地址监听："+err.Error()))
			return nil
		}
		reserveRaw(2) // both ends in this process, each its own raw thread
		lctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		cl.addr, cl.token = ln.Addr().String(), NewToken()
		go func() { serve(lctx, ln, cl.token, p.o.PeerCPU, nil); close(done) }()
		defer func() { cancel(); <-done }()
		p.res.Peer = PeerInProcess
		p.place = newPlacer(filepath.Join(p.o.ProcRoot, "self", "task"), cl)
		cl.local = true
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
		pre, seg := &lastRead{}, &lastRead{}
		benches = append(benches,
			bench{id: fmt.Sprintf("net.tcp_lat.%d", size), placed: true, unit: "us",
				name: finding.T(fmt.Sprintf("TCP latency %s (half a round trip, as qperf tcp_lat)", fmtSize(size)), fmt.Sprintf("TCP 延迟 %s（往返时间的一半，同 qperf tcp_lat）", fmtSize(size))),
				run:  func(ctx context.Context, d time.Duration) (float64, error) { return cl.tcpLat(ctx, size, d) }},
			bench{id: fmt.Sprintf("net.tcp_bw.%d", size), placed: true, unit: "MB/s", higher: true,
				name:    finding.T(fmt.Sprintf("TCP bandwidth %s writes (received; Nagle on, as qperf tcp_bw)", fmtSize(size)), fmt.Sprintf("TCP 带宽（每次写 %s，按接收计；Nagle 开启，同 qperf tcp_bw）", fmtSize(size))),
				run:     func(ctx context.Context, d time.Duration) (float64, error) { return cl.tcpBW(ctx, size, d, pre, seg) },
				preempt: pre, segment: seg})
	}
	for _, size := range p.o.Sizes {
		usize := min(size, udpMax)
		var note finding.Text
		if usize < size {
			note = finding.T(fmt.Sprintf("datagrams of %d B, the UDP maximum", udpMax), fmt.Sprintf("数据报 %d B（UDP 上限）", udpMax))
		}
		lost, sent, got := new(atomic.Int64), new(atomic.Int64), new(atomic.Int64)
		benches = append(benches,
			bench{id: fmt.Sprintf("net.udp_lat.%d", size), placed: true, unit: "us",
				name: finding.T(fmt.Sprintf("UDP latency %s (half a round trip, as qperf udp_lat)", fmtSize(size)), fmt.Sprintf("UDP 延迟 %s（往返时间的一半，同 qperf udp_lat）", fmtSize(size))),
				run:  func(ctx context.Context, d time.Duration) (float64, error) { return cl.udpLat(ctx, usize, d, lost) },
				note: func() finding.Text {
					if l := lost.Load(); l > 0 {
						return joinNote(note, finding.T(fmt.Sprintf("%d datagrams lost (not counted)", l), fmt.Sprintf("丢失 %d 个数据报（未计入）", l)))
					}
					return note
				}},
			bench{id: fmt.Sprintf("net.udp_bw.%d", size), placed: true, unit: "MB/s", higher: true,
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
	if b.EN == "" {
		return a
	}
	return finding.T(a.EN+"; "+b.EN, a.ZH+"；"+b.ZH)
}

// fmtSize is 1 B, 64 B, 1 KiB, 64 KiB.
func fmtSize(n int) string { return units.FormatBytesExact(int64(n)) }
