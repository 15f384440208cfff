package probe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// loopbackListener is a TCP listener on 127.0.0.1, closed when the test ends.
func loopbackListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// loopbackPair is a loopback listener and both ends of one connection to
// it (dialed: the prober's, accepted: the listener's), closed when the
// test ends.
func loopbackPair(t *testing.T) (ln net.Listener, dialed, accepted net.Conn) {
	t.Helper()
	ln = loopbackListener(t)
	dialed, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dialed.Close() })
	accepted, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { accepted.Close() })
	return ln, dialed, accepted
}

// sockProtocol is the protocol of c's socket (SO_PROTOCOL).
func sockProtocol(t *testing.T, c net.Conn) int {
	t.Helper()
	p, err := unix.GetsockoptInt(connFD(c), unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The figures are plain TCP's, as qperf's and netperf's, even where Go
// would make a socket Multipath TCP: its listeners are by default, and
// GODEBUG=multipathtcp=1 in the environment makes its dialers so too.
func TestFiguresArePlainTCP(t *testing.T) {
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP); err != nil {
		t.Skipf("this kernel makes no MPTCP socket (%v): Go falls back to TCP by itself", err)
	} else {
		unix.Close(fd)
	}
	t.Setenv("GODEBUG", "multipathtcp=1")
	ctx := context.Background()
	// The setting takes: Go's own listener and dialer are MPTCP now.
	goLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer goLn.Close()
	goC, err := (&net.Dialer{}).DialContext(ctx, "tcp", goLn.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer goC.Close()
	if p := sockProtocol(t, goC); p != unix.IPPROTO_MPTCP {
		t.Fatalf("with GODEBUG=multipathtcp=1 Go's dialer made protocol %d, not MPTCP: the test would prove nothing", p)
	}
	ln, err := listenTCP(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed, err := tcpDialer().DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer dialed.Close()
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	for side, c := range map[string]net.Conn{"prober": dialed, "listener": accepted} {
		if p := sockProtocol(t, c); p != unix.IPPROTO_TCP {
			t.Errorf("%s's socket is protocol %d, not TCP (%d)", side, p, unix.IPPROTO_TCP)
		}
	}
}

// Both ends of a TCP figure stream with Nagle on, as qperf and iperf3 do
// (Go turns it off on every connection): with it off, small writes are
// each sent at once and the 1 B to 1 KiB bandwidths measure another thing.
func TestDataSocketsKeepNagleOn(t *testing.T) {
	_, dialed, accepted := loopbackPair(t)
	for side, c := range map[string]net.Conn{"prober": dialed, "listener": accepted} {
		fd, f, err := blockingFD(c)
		if err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
		f.Close()
		if err != nil || v != 0 {
			t.Errorf("%s's socket: TCP_NODELAY %d (%v), want 0 (Nagle on, as qperf)", side, v, err)
		}
	}
}

// threadsIn counts this process's threads blocked in system call nr.
func threadsIn(t *testing.T, nr uintptr) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/syscall")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(b)); len(f) > 0 && f[0] == strconv.FormatUint(uint64(nr), 10) {
			n++
		}
	}
	return n
}

// The listener answers UDP datagrams as qperf's server does, from a
// thread blocked in recvfrom, not through Go's poller (which adds a
// wake-up and a goroutine handoff to every datagram), and counts them
// alike.
func TestUDPListenerReceivesOnABlockingThread(t *testing.T) {
	if _, err := os.ReadFile(threadPath("syscall")); err != nil {
		t.Skipf("no /proc/self/task/*/syscall here: %v", err)
	}
	addr, stop := listen(t, "", time.Minute)
	defer stop()
	const nr = unix.SYS_RECVFROM
	for _, mode := range []string{"udplat", "udpbw"} {
		before := threadsIn(t, nr)
		c, _, f, err := (&client{addr: addr}).udpPeer(context.Background(), mode, 64)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if n = threadsIn(t, nr); n > before {
				break
			}
		}
		if n <= before {
			t.Errorf("%s: no listener thread blocked in %s within 5 s (%d before, %d now)", mode, "recvfrom", before, n)
		}
		c.Close()
		f.Close()
		// The session ends with its line: its thread leaves recvfrom.
		for end := time.Now().Add(5 * time.Second); n > before && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			n = threadsIn(t, nr)
		}
		if n > before {
			t.Errorf("%s: the session's thread is still in %s 5 s after the prober left", mode, "recvfrom")
		}
	}
}

// A UDP bandwidth is the bytes received over the sending window: a
// listener slow to send its count (here 300 ms, as a far peer's round trip
// or its wait for queued datagrams) does not lower it.
func TestUDPBandwidthIsOverTheSendingWindow(t *testing.T) {
	var bytes atomic.Int64
	addr := udpFake(t, func(c net.Conn, br *bufio.Reader, u *net.UDPConn) {
		go func() {
			buf := make([]byte, 65536)
			for {
				n, err := u.Read(buf)
				if err != nil {
					return
				}
				bytes.Add(int64(n))
			}
		}()
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
		time.Sleep(300 * time.Millisecond)
		fmt.Fprintf(c, "%d 1\n", bytes.Load())
	})
	const window = 50 * time.Millisecond
	v, err := (&client{addr: addr}).udpBW(context.Background(), 1024, window, new(atomic.Int64), new(atomic.Int64))
	if err != nil {
		t.Fatal(err)
	}
	got := bytes.Load()
	if got == 0 {
		t.Fatal("no datagram arrived")
	}
	// Over the 50 ms window the figure is got/50ms; with the 300 ms wait
	// in its time base it would be under got/350ms. 200 ms leaves room for
	// a busy machine's late time check.
	if floor := float64(got) / 0.2 / 1e6; v < floor {
		t.Errorf("%.2f MB/s for %d bytes in a %v window: the time base includes the listener's answer (want at least %.2f)", v, got, window, floor)
	}
}

// The listener counts the prober's datagrams alone: once the first has
// come, another socket of the same host sending to the same port is not
// counted (the kernel drops its datagrams), so a neighbour cannot inflate
// the figure.
func TestUDPCountIsTheProbersAlone(t *testing.T) {
	addr, stop := listen(t, "", time.Minute)
	defer stop()
	c, fd, f, err := (&client{addr: addr}).udpPeer(context.Background(), "udpbw", 64)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer f.Close()
	br := bufio.NewReader(c)
	count := func() (bytes, pkts int64) {
		t.Helper()
		if _, err := fmt.Fprint(c, "done\n"); err != nil {
			t.Fatal(err)
		}
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		fmt.Sscanf(line, "%d %d", &bytes, &pkts)
		return bytes, pkts
	}
	send := func(fd, n int) {
		t.Helper()
		for range n {
			if _, err := unix.Write(fd, make([]byte, 64)); err != nil {
				t.Fatal(err)
			}
		}
	}
	send(fd, 5)
	var pkts int64
	for end := time.Now().Add(5 * time.Second); pkts < 5 && time.Now().Before(end); {
		_, pkts = count()
	}
	if pkts != 5 {
		t.Fatalf("the listener counted %d of the prober's 5 datagrams", pkts)
	}
	peer, err := unix.Getpeername(fd)
	if err != nil {
		t.Fatal(err)
	}
	other, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(other)
	if err := unix.Connect(other, peer); err != nil {
		t.Fatal(err)
	}
	for range 7 {
		// The port is connected to the prober: the kernel answers a
		// neighbour's datagram with "port unreachable", and its next
		// write says ECONNREFUSED.
		if _, err := unix.Write(other, make([]byte, 64)); err != nil && err != unix.ECONNREFUSED {
			t.Fatal(err)
		}
	}
	send(fd, 3)
	var bytes int64
	for end := time.Now().Add(5 * time.Second); pkts < 8 && time.Now().Before(end); {
		bytes, pkts = count()
	}
	time.Sleep(50 * time.Millisecond)
	if bytes, pkts = count(); pkts != 8 || bytes != 8*64 {
		t.Errorf("counted %d datagrams (%d B) after the prober's 8 and a neighbour's 7, want 8 (512 B)", pkts, bytes)
	}
}

// --window makes each round of a network figure as long as asked (here
// 300 ms, where --quick's is 20 ms), so a round can be set to one of an
// anchor's runs; the probe says so.
func TestWindowSetsTheRoundLength(t *testing.T) {
	if _, err := Measure(context.Background(), Options{Parts: []string{PartNet}, Window: 5 * time.Millisecond}); err == nil {
		t.Error("a 5 ms window was taken")
	}
	r, err := Measure(context.Background(), Options{Parts: []string{PartNet}, Quick: true, Rounds: 2, Sizes: []int{64}, Window: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// Each figure measured took 2 rounds of at least 300 ms (a figure may
	// fail on a busy machine, a UDP one timing out: it takes no rounds).
	measured := 0
	for _, f := range r.Figures {
		if f.Err != "" {
			t.Logf("%s: %s", f.ID, f.Err)
			continue
		}
		measured++
		if len(f.Rounds) != 2 {
			t.Errorf("%s: %d rounds, want 2", f.ID, len(f.Rounds))
		}
	}
	if measured == 0 {
		t.Fatal("no figure measured")
	}
	if want := float64(measured) * 2 * 0.3; len(r.PartSeconds) != 1 || r.PartSeconds[0].Seconds < want {
		t.Errorf("net part took %+v for %d figures, want at least %.1f s of 300 ms windows", r.PartSeconds, measured, want)
	}
	said := false
	for _, n := range r.Notes {
		said = said || strings.Contains(n.EN, "300ms (--window)")
	}
	if !said {
		t.Errorf("the probe does not say its window: %v", r.Notes)
	}
	// And keeps it, for compare: --window sets the net round, --quick the CPU's.
	if w := r.Windows; w == nil || w.Net != 300 || w.CPU != 20 {
		t.Errorf("window_ms: %+v, want net 300 and cpu 20", w)
	}
}

// polledInodes lists the inodes of the files this process's epoll sets
// watch (/proc/self/fdinfo of each eventpoll descriptor, lines as
// "tfd:        7 events:    80002019 data:   7f0c... pos:0 ino:1b2f3 sdev:8").
func polledInodes(t *testing.T) map[uint64]bool {
	t.Helper()
	out := map[uint64]bool{}
	links, _ := filepath.Glob("/proc/self/fd/*")
	for _, l := range links {
		if target, err := os.Readlink(l); err != nil || target != "anon_inode:[eventpoll]" {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + filepath.Base(l))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || f[0] != "tfd:" {
				continue
			}
			for _, w := range f {
				if v, ok := strings.CutPrefix(w, "ino:"); ok {
					if ino, err := strconv.ParseUint(v, 16, 64); err == nil {
						out[ino] = true
					}
				}
			}
		}
	}
	return out
}

// A socket a figure measures with blocking calls is out of Go's poller:
// left in it (edge-triggered, shared with the duplicate), every arriving
// segment also woke a thread blocked in epoll_wait, 1.65 epoll_pwait per
// read in a ping-pong against another process.
func TestMeasuredSocketsLeaveGosPoller(t *testing.T) {
	ln, dialed, accepted := loopbackPair(t)
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	for side, c := range map[string]net.Conn{"TCP prober": dialed, "TCP listener": accepted, "UDP": udp} {
		fd, f, err := blockingFD(c)
		if err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			t.Fatal(err)
		}
		if polledInodes(t)[st.Ino] {
			t.Errorf("%s: socket inode %d is still in Go's epoll set", side, st.Ino)
		}
		f.Close()
	}
	// The check itself sees a socket Go polls.
	{
		c2, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		raw, _ := c2.(*net.TCPConn).SyscallConn()
		var ino uint64
		raw.Control(func(fd uintptr) {
			var st unix.Stat_t
			unix.Fstat(int(fd), &st)
			ino = st.Ino
		})
		if !polledInodes(t)[ino] {
			t.Skip("this kernel's fdinfo does not list epoll's files; the check cannot see them")
		}
	}
}

// A raw read blocked on a peer gone quiet ends when its guard shuts the
// socket down (TCP and UDP alike), after the limit or when the context
// ends, and while it waits the rest of the process runs and allocates
// freely: the collector, off while a raw thread runs, never stops the
// world to wait for it. With it on, the allocations below start a cycle
// whose stop-the-world waits for the read, and the guard's timer cannot
// fire (so would a memory limit, which the child has): the process hangs,
// so the test runs in a child of its own and
// fails when that child is still there after a minute. A TCP peer that
// wrote its answer and closed is still read whole.
func TestRawCallsEndWithTheirSocket(t *testing.T) {
	if os.Getenv("TUNELOOP_RAW_CHILD") == "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRawCallsEndWithTheirSocket$", "-test.v")
		// A memory limit starts a cycle with the collector off: lifted too.
		cmd.Env = append(os.Environ(), "TUNELOOP_RAW_CHILD=1", "GOMEMLIMIT=16MiB")
		out, err := cmd.CombinedOutput()
		switch {
		case ctx.Err() != nil:
			t.Fatalf("the child hung for a minute: a stop-the-world waited on a raw call its guard could not end\n%s", out)
		case err != nil:
			t.Fatalf("%v\n%s", err, out)
		case !strings.Contains(string(out), "--- PASS: TestRawCallsEndWithTheirSocket"):
			t.Fatalf("the child did not run the test:\n%s", out)
		}
		return
	}
	u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ufd, uf, err := blockingFD(u)
	if err != nil {
		t.Fatal(err)
	}
	defer uf.Close()
	_, dialed, _ := loopbackPair(t)
	tfd, tf, err := blockingFD(dialed)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	for _, tc := range []struct {
		name   string
		fd     int
		cancel bool
	}{{"UDP, limit", ufd, false}, {"TCP, context", tfd, true}} {
		ctx, cancel := context.WithCancel(context.Background())
		limit := 300 * time.Millisecond
		if tc.cancel {
			limit = time.Hour
			time.AfterFunc(300*time.Millisecond, cancel)
		}
		g := guardFD(ctx, tc.fd, limit)
		res := make(chan error, 1)
		var raw atomic.Bool
		go func() {
			r, leave := enterRaw()
			raw.Store(r)
			var from unix.RawSockaddrAny
			n, err := sock{tc.fd, r}.recvfrom(make([]byte, 64), &from)
			if err == nil && n != 0 {
				err = fmt.Errorf("read %d bytes", n)
			}
			leave() // before the answer: the next case takes the slot again
			res <- err
		}()
		var junk [][]byte
		var done bool
		for t0 := time.Now(); !done && time.Since(t0) < 5*time.Second; {
			select {
			case err := <-res:
				done = true
				if err != nil {
					t.Errorf("%s: a raw read on a shut-down socket: %v, want 0 bytes", tc.name, err)
				}
			default:
				junk = append(junk, make([]byte, 64<<10))
				if len(junk) > 64 {
					junk = junk[:0]
				}
				time.Sleep(100 * time.Microsecond)
			}
		}
		if !done {
			unix.Shutdown(tc.fd, unix.SHUT_RDWR) // let the thread go before failing
			t.Fatalf("%s: the raw read still blocked 5 s after its guard was due", tc.name)
		}
		g.stop()
		cancel()
		if !raw.Load() {
			t.Errorf("%s: no raw slot was free (GOMAXPROCS %d)", tc.name, runtime.GOMAXPROCS(0))
		}
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Errorf("GOMAXPROCS %d after a raw thread ran: a guard needs a P of its own", runtime.GOMAXPROCS(0))
	}

	_, dialed2, accepted2 := loopbackPair(t)
	cfd, cf, err := blockingFD(dialed2)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	unix.Shutdown(cfd, unix.SHUT_WR)
	if _, err := accepted2.Write([]byte("123456\n")); err != nil {
		t.Fatal(err)
	}
	accepted2.Close()
	time.Sleep(20 * time.Millisecond) // the FIN is in: readable and hung up
	var got []byte
	buf := make([]byte, 4)
	raw, leave := enterRaw()
	s := sock{cfd, raw}
	for {
		n, err := s.read(buf)
		got = append(got, buf[:n]...)
		if n == 0 || err != nil {
			break
		}
	}
	leave()
	if string(got) != "123456\n" {
		t.Errorf("a raw read after the peer answered and closed: %q, want the whole answer", got)
	}
}

// A raw call reads the kernel's return itself (RawSyscallNoError passes
// -errno on as is): it must give what Go's entry gives, counts, EOF and
// errors alike.
func TestRawCallsAnswerAsGoEntry(t *testing.T) {
	for _, raw := range []bool{false, true} {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Raw calls that block take a raw slot each, as a figure's: the
		// collector is off while they run (a stop-the-world would wait on
		// them, and they on a peer it stopped).
		enter := func() (bool, func()) { return false, func() {} }
		if raw {
			reserveRaw(2)
			enter = enterRaw
		}
		rawB, leaveB := enter()
		a, b := sock{fds[0], raw}, sock{fds[1], rawB}
		msg := make([]byte, 300<<10) // more than the socket's buffer: writes and reads in parts
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		done := make(chan error, 1)
		go func() {
			rawA, leaveA := enter()
			defer leaveA()
			err := sock{fds[0], rawA}.writeFull(msg)
			if rawA != raw || rawB != raw {
				err = fmt.Errorf("raw slots taken: %v and %v, want %v", rawA, rawB, raw)
			}
			done <- err
		}()
		got := make([]byte, len(msg))
		if err := b.readFull(got); err != nil || !slices.Equal(got, msg) {
			t.Errorf("raw %v: readFull: %v, equal %v", raw, err, slices.Equal(got, msg))
		}
		if err := <-done; err != nil {
			t.Errorf("raw %v: writeFull: %v", raw, err)
		}
		if n, err := a.write([]byte("xyz")); n != 3 || err != nil {
			t.Errorf("raw %v: write: %d, %v", raw, n, err)
		}
		unix.Close(fds[0])
		one := make([]byte, 8)
		if n, err := b.read(one); n != 3 || err != nil || string(one[:3]) != "xyz" {
			t.Errorf("raw %v: read: %d %q, %v", raw, n, one[:n], err)
		}
		if n, err := b.read(one); n != 0 || err != nil {
			t.Errorf("raw %v: read at the peer's close: %d, %v; want 0, nil", raw, n, err)
		}
		if err := b.readFull(one); err != io.EOF {
			t.Errorf("raw %v: readFull at the peer's close: %v, want EOF", raw, err)
		}
		if _, err := b.write(one); err != unix.EPIPE {
			t.Errorf("raw %v: write to a closed peer: %v, want EPIPE", raw, err)
		}
		unix.Close(fds[1])
		if _, err := b.read(one); err != unix.EBADF {
			t.Errorf("raw %v: read of a closed descriptor: %v, want EBADF", raw, err)
		}
		if err := b.writeFull(one); err != unix.EBADF {
			t.Errorf("raw %v: writeFull to a closed descriptor: %v, want EBADF", raw, err)
		}
		leaveB()
		freeProcs()
	}
}

// Raw threads leave a P free (at most GOMAXPROCS-1 of them; a thread that
// finds none waits rawWait for one, then calls through Go's entry), the
// collector is off with no memory limit exactly while one runs, and a
// leave called twice gives back one slot.
func TestRawSlotsLeaveAPAndHoldTheCollector(t *testing.T) {
	gcWas := debug.SetGCPercent(77)
	defer debug.SetGCPercent(gcWas)
	limitWas := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(limitWas)
	rawThreads.Lock()
	n0 := rawThreads.n
	rawThreads.Unlock()
	var leaves []func()
	raws := 0
	for range runtime.GOMAXPROCS(0) + 2 {
		r, leave := enterRaw()
		leaves = append(leaves, leave)
		if r {
			raws++
		}
		if gc, limit := gcSetting("/gc/gogc:percent"), gcSetting("/gc/gomemlimit:bytes"); gc != -1 || limit != math.MaxInt64 {
			t.Errorf("the collector at %d%% with a limit of %d B while %d raw threads run, want off with none", gc, limit, raws)
		}
	}
	if want := runtime.GOMAXPROCS(0) - 1 - n0; raws != want {
		t.Errorf("%d raw slots with GOMAXPROCS %d (%d taken before), want %d", raws, runtime.GOMAXPROCS(0), n0, want)
	}
	// A thread that finds every slot taken gets one given back meanwhile.
	got := make(chan bool, 1)
	go func() {
		r, leave := enterRaw()
		leave()
		got <- r
	}()
	for waiting := false; !waiting; time.Sleep(time.Millisecond) {
		rawThreads.Lock()
		waiting = rawThreads.freed != nil
		rawThreads.Unlock()
	}
	leaves[0]()
	if !<-got {
		t.Errorf("a slot given back while a thread waited for one was not taken by it")
	}
	for _, leave := range leaves {
		leave()
		leave()
	}
	rawThreads.Lock()
	n1 := rawThreads.n
	rawThreads.Unlock()
	if n1 != n0 {
		t.Errorf("%d raw threads counted after each left twice, want %d as before", n1, n0)
	}
	if n0 == 0 {
		if gc, limit := gcSetting("/gc/gogc:percent"), gcSetting("/gc/gomemlimit:bytes"); gc != 77 || limit != 1<<40 {
			t.Errorf("the collector at %d%% with a limit of %d B once every raw thread left, want 77%% and %d as before", gc, limit, int64(1<<40))
		}
	}
}

var (
	preempted = regexp.MustCompile(`sending thread preempted \d+(-\d+)? times a second`)
	segments  = regexp.MustCompile(`segments of \d+(-\d+)? bytes on average`)
)

// --cpu and --peer-cpu pin the two ends of a network figure as qperf's
// -lca and -rca do, and the probe says where they ran: on one CPU in
// every round when pinned together, never when pinned apart. A TCP
// stream says how often its sender was preempted.
func TestPinnedEnds(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() < 2 {
		t.Skip("needs 2 usable CPUs")
	}
	var cpus []int
	for c := 0; len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	for _, c := range []struct {
		peer int
		same bool
	}{{cpus[0], true}, {cpus[1], false}} {
		r, err := Measure(context.Background(), Options{Parts: []string{PartNet}, Quick: true, Rounds: 3, Sizes: []int{64},
			CPU: Pin(cpus[0]), PeerCPU: Pin(c.peer)})
		if err != nil {
			t.Fatal(err)
		}
		if r.ProberCPU == nil || *r.ProberCPU != cpus[0] || r.ListenerCPU == nil || *r.ListenerCPU != c.peer {
			t.Errorf("pins not recorded: %v %v", r.ProberCPU, r.ListenerCPU)
		}
		if txt := r.PlacementText().EN; !strings.Contains(txt, fmt.Sprintf("prober CPU %d, listener CPU %d", cpus[0], c.peer)) {
			t.Errorf("placement text %q", txt)
		}
		placed := 0
		for _, f := range r.Figures {
			if strings.HasSuffix(f.Note.EN, "; ") || strings.HasSuffix(f.Note.ZH, "；") {
				t.Errorf("%s: a note joined with nothing: %q / %q", f.ID, f.Note.EN, f.Note.ZH)
			}
			if f.Err != "" || f.Placement == nil {
				continue
			}
			placed++
			// A stream on one CPU: its sender's preemptions a second and its segments.
			if strings.HasPrefix(f.ID, "net.tcp_bw.") {
				if !preempted.MatchString(f.Note.EN) || !strings.Contains(f.Note.ZH, "每秒被抢占") {
					t.Errorf("%s: note %q / %q names no preemption rate", f.ID, f.Note.EN, f.Note.ZH)
				}
				// One rate per round, each read (compare and bench-probe read them).
				if len(f.Preempt) != len(f.Rounds) || slices.ContainsFunc(f.Preempt, func(v float64) bool { return v < 0 }) {
					t.Errorf("%s: preemption rates %v for %d rounds", f.ID, f.Preempt, len(f.Rounds))
				}
				// And its segments: at least a write each, at most what
				// loopback's 64 KiB MTU lets through.
				if len(f.Segment) != len(f.Rounds) || slices.ContainsFunc(f.Segment, func(v float64) bool { return v < 64 || v > 65536 }) ||
					!segments.MatchString(f.Note.EN) || !strings.Contains(f.Note.ZH, "平均每个报文段") {
					t.Errorf("%s: segments %v for %d rounds; note %q / %q", f.ID, f.Segment, len(f.Rounds), f.Note.EN, f.Note.ZH)
				}
			}
			if want := map[bool]int{true: f.Placement.Rounds, false: 0}[c.same]; f.Placement.SameCPU != want {
				t.Errorf("pinned to %d and %d, %s: one CPU in %d of %d rounds", cpus[0], c.peer, f.ID, f.Placement.SameCPU, f.Placement.Rounds)
			}
		}
		if placed < 3 {
			t.Errorf("placement known for %d figures", placed)
		}
	}
	if _, err := Measure(context.Background(), Options{Parts: []string{PartNet}, Quick: true, CPU: Pin(4000)}); err == nil || !strings.Contains(err.Error(), "--cpu 4000") {
		t.Errorf("CPU 4000 taken: %v", err)
	}
}

// A signal interrupts a read that has a receive timeout (EINTR: the
// kernel does not restart it), and Go's runtime signals its threads
// (SIGURG to preempt). The connections figure reads its answer again
// instead of losing the round: here every thread of the process is
// signalled every 50 µs while it measures.
func TestConnectionsSurviveSignals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, err := listenTCP(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { serve(ctx, ln, "", CPUPin{}, nil); close(done) }()
	defer func() { cancel(); <-done }()
	stop := make(chan struct{})
	var sent atomic.Int64
	go signalStorm(stop, &sent)
	cl := &client{addr: ln.Addr().String()}
	rate, err := cl.tcpConn(ctx, 500*time.Millisecond)
	close(stop)
	if err != nil {
		t.Fatalf("connections under signals (%d sent): %v", sent.Load(), err)
	}
	if rate <= 0 || sent.Load() < 100 {
		t.Errorf("%.0f connections a second, %d signals sent", rate, sent.Load())
	}
}

// signalStorm sends SIGURG (what Go's runtime preempts with, so harmless)
// to every thread of the process every 50 µs until stop closes.
func signalStorm(stop chan struct{}, sent *atomic.Int64) {
	pid := unix.Getpid()
	for {
		select {
		case <-stop:
			return
		default:
		}
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, e := range tasks {
			if tid, err := strconv.Atoi(e.Name()); err == nil && unix.Tgkill(pid, tid, unix.SIGURG) == nil {
				sent.Add(1)
			}
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// A listener names its serving thread only when the hello asks (a prober
// of another version reads "ok PORT" as it always did), and says why
// when it cannot pin that thread, instead of serving unpinned.
func TestListenerNamesItsThreadWhenAsked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answer := func(pin CPUPin, mode string, tid bool) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { serve(ctx, ln, "", pin, nil); close(done) }()
		defer func() { ln.Close(); <-done }()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, helloLine("", mode, 64, tid))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.TrimSpace(line)
	}
	for _, c := range []struct {
		mode string
		tid  bool
		want string
	}{{"lat", false, `^ok$`}, {"lat", true, `^ok tid=[1-9][0-9]*$`}, {"udplat", false, `^ok [0-9]+$`}, {"udpbw", true, `^ok [0-9]+ tid=[1-9][0-9]*$`}} {
		if got := answer(CPUPin{}, c.mode, c.tid); !regexp.MustCompile(c.want).MatchString(got) {
			t.Errorf("%s, tid %v: %q, want %s", c.mode, c.tid, got, c.want)
		}
	}
	for _, mode := range []string{"bw", "udplat"} {
		if got := answer(Pin(4000), mode, true); !strings.HasPrefix(got, "error cannot pin to CPU 4000") {
			t.Errorf("%s pinned to CPU 4000: %q", mode, got)
		}
	}
}

// udpFake is a listener for udp modes on 127.0.0.1, for a test to play
// the other side: per connection it reads the hello, opens a UDP socket,
// answers "ok PORT" and hands the line (its reader past the hello) and
// the socket to serve, closing both when serve returns.
func udpFake(t *testing.T, serve func(c net.Conn, br *bufio.Reader, u *net.UDPConn)) string {
	t.Helper()
	ln := loopbackListener(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				if _, err := br.ReadString('\n'); err != nil {
					return
				}
				u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
				if err != nil {
					return
				}
				defer u.Close()
				fmt.Fprintf(c, "ok %d\n", u.LocalAddr().(*net.UDPAddr).Port)
				serve(c, br, u)
			}()
		}
	}()
	return ln.Addr().String()
}

// lossyEcho is a udpFake that answers each datagram delay after it came,
// except the ones drop says to lose (by their count from 1) and the ones
// late says to answer 300 ms late; it stops answering at all after quiet
// datagrams when quiet > 0.
func lossyEcho(t *testing.T, delay time.Duration, drop, late map[int]bool, quiet int) string {
	t.Helper()
	return udpFake(t, func(c net.Conn, br *bufio.Reader, u *net.UDPConn) {
		go func() { io.Copy(io.Discard, br); u.Close() }() // until the line closes
		buf := make([]byte, 65536)
		for i := 1; ; i++ {
			n, from, err := u.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if drop[i] || (quiet > 0 && i > quiet) {
				continue
			}
			// Each answer after its own delay, as over a path: two
			// datagrams in flight come back in half the time.
			wait := delay
			if late[i] {
				wait = 300 * time.Millisecond
			}
			b := append([]byte(nil), buf[:n]...)
			time.AfterFunc(wait, func() { u.WriteToUDP(b, from) })
		}
	})
}

// A lost UDP datagram costs the latency figure nothing: the guard sends
// it again after udpWait without a round trip, the stalled round trip is
// counted lost and left out of the mean (with it in, four stalls of 200
// ms in a 2 s window would double the figure or more). An answer that
// comes after the one to the datagram sent again is dropped, not paired
// with the next datagram (which would halve the figure from then on). A
// peer that stops answering for good ends the figure when its window and
// the guard's grace are over, with what was measured before.
func TestUDPLatencyOutlivesLoss(t *testing.T) {
	const d = 2 * time.Second
	lat := func(drop, late map[int]bool, quiet int) (float64, int64, time.Duration) {
		t.Helper()
		var lost atomic.Int64
		t0 := time.Now()
		v, err := (&client{addr: lossyEcho(t, time.Millisecond, drop, late, quiet)}).udpLat(context.Background(), 64, d, &lost)
		if err != nil {
			t.Fatal(err)
		}
		return v, lost.Load(), time.Since(t0)
	}
	clean, lost0, _ := lat(nil, nil, 0)
	if lost0 > 1 {
		t.Errorf("%d datagrams lost over loopback with none dropped", lost0)
	}
	lossy, lost1, _ := lat(map[int]bool{5: true, 20: true, 35: true, 50: true}, nil, 0)
	if lost1 < 4 || lost1 > 5 {
		t.Errorf("4 datagrams dropped, %d counted lost", lost1)
	}
	if lossy > 1.5*clean {
		t.Errorf("latency %.0f µs with 4 datagrams lost against %.0f µs with none: the stalls are in the figure", lossy, clean)
	}
	slow, lost2, _ := lat(nil, map[int]bool{10: true}, 0)
	if lost2 < 1 || lost2 > 2 {
		t.Errorf("one answer 300 ms late, %d counted lost", lost2)
	}
	if slow < clean/1.5 || slow > 1.5*clean {
		t.Errorf("latency %.0f µs after one late answer against %.0f µs with none: answers paired with the wrong datagrams", slow, clean)
	}
	gone, lost3, took := lat(nil, nil, 100)
	if lost3 != 1 {
		t.Errorf("a peer silent after 100 datagrams: %d counted lost, want 1 (the last)", lost3)
	}
	if gone > 1.5*clean {
		t.Errorf("latency %.0f µs from a peer gone quiet against %.0f µs: its silence is in the figure", gone, clean)
	}
	if took > d+3*time.Second {
		t.Errorf("a peer gone quiet held the figure %v (window %v)", took, d)
	}
}

// pingpong reads, from /proc/net/tcp, whether the socket local -> remote
// delays its ACKs (TCP's pingpong mode: the low bit of the field after
// rto and ato, "(quick << 1) | pingpong"). A line:
//
//	sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//	 1: 0100007F:A006 0100007F:4DC1 01 00000000:00000000 00:00000000 00000000     0        0 8812 1 00000000f3ba1ff1 20 4 1 10 -1
func pingpong(t *testing.T, local, remote *net.TCPAddr) (bool, bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skip(err)
	}
	want := func(a *net.TCPAddr) string { return fmt.Sprintf("0100007F:%04X", a.Port) }
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 17 && f[1] == want(local) && f[2] == want(remote) && f[3] == "01" {
			q, err := strconv.Atoi(f[14])
			if err != nil {
				t.Fatalf("/proc/net/tcp: %q: %v", line, err)
			}
			return q&1 == 1, true
		}
	}
	return false, false
}

// A bandwidth stream's receiver ACKs at once, as qperf's and iperf3's
// data sockets do: the hello and its answer must not leave it delaying its
// ACKs (pingpong mode), which, with Nagle on, lets small writes coalesce
// into larger segments. A latency session, which answers as the traffic
// does, is left as TCP set it (and shows the mode is read).
func TestBandwidthReceiverAcksAtOnce(t *testing.T) {
	addr, stop := listen(t, "", time.Minute)
	defer stop()
	cl := &client{addr: addr}
	for _, c := range []struct {
		mode     string
		pingpong bool
	}{{"lat", true}, {"bw", false}} {
		conn, _, err := cl.dial(context.Background(), c.mode, 64)
		if err != nil {
			t.Fatal(err)
		}
		// The listener's side of this connection: local is its port.
		server, client := conn.RemoteAddr().(*net.TCPAddr), conn.LocalAddr().(*net.TCPAddr)
		var pp, found bool
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if pp, found = pingpong(t, server, client); found && pp == c.pingpong {
				break
			}
		}
		conn.Close()
		if !found {
			t.Fatalf("%s: the listener's socket %v -> %v is not in /proc/net/tcp", c.mode, server, client)
		}
		if pp != c.pingpong {
			t.Errorf("%s session: the receiver delays its ACKs: %v, want %v", c.mode, pp, c.pingpong)
		}
	}
}
