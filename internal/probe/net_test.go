package probe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
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

var sysName = map[uintptr]string{unix.SYS_RECVFROM: "recvfrom", unix.SYS_PPOLL: "ppoll"}

// The listener answers UDP datagrams as qperf's server does, from a
// thread blocked in recvfrom, not through Go's poller (which adds a
// wake-up and a goroutine handoff to every datagram); it counts them on a
// thread that waits in ppoll between raw recvfrom calls (rawRecvfrom).
func TestUDPListenerReceivesOnABlockingThread(t *testing.T) {
	if _, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/syscall"); err != nil {
		t.Skipf("no /proc/self/task/*/syscall here: %v", err)
	}
	addr, stop := listen(t, "", time.Minute)
	defer stop()
	for mode, nr := range map[string]uintptr{"udplat": unix.SYS_RECVFROM, "udpbw": unix.SYS_PPOLL} {
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
			t.Errorf("%s: no listener thread blocked in %s within 5 s (%d before, %d now)", mode, sysName[nr], before, n)
		}
		c.Close()
		f.Close()
		// The session ends with its line: its thread leaves recvfrom.
		for end := time.Now().Add(5 * time.Second); n > before && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			n = threadsIn(t, nr)
		}
		if n > before {
			t.Errorf("%s: the session's thread is still in %s 5 s after the prober left", mode, sysName[nr])
		}
	}
}

// A UDP bandwidth is the bytes received over the sending window: a
// listener slow to send its count (here 300 ms, as a far peer's round trip
// or its wait for queued datagrams) does not lower it.
func TestUDPBandwidthIsOverTheSendingWindow(t *testing.T) {
	ln := loopbackListener(t)
	var bytes atomic.Int64
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
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
		fmt.Fprintf(c, "ok %d\n", u.LocalAddr().(*net.UDPAddr).Port)
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
		time.Sleep(300 * time.Millisecond)
		fmt.Fprintf(c, "%d 1\n", bytes.Load())
	}()
	const window = 50 * time.Millisecond
	v, err := (&client{addr: ln.Addr().String()}).udpBW(context.Background(), 1024, window, new(atomic.Int64), new(atomic.Int64))
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

// The raw calls of the bandwidth loops end when their socket does: a
// shut-down UDP socket (recvfrom says EAGAIN, not 0, once non-blocking,
// and polls readable: a loop on poll alone would spin for ever, as one
// did), and a TCP peer that wrote its answer and closed before the read
// (readable and hung up at once: the answer is still read whole).
func TestRawCallsEndWithTheirSocket(t *testing.T) {
	u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	fd, f, err := blockingFD(u)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		var from unix.RawSockaddrAny
		_, err := rawRecvfrom(fd, make([]byte, 64), &from)
		res <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it wait in ppoll
	unix.Shutdown(fd, unix.SHUT_RDWR)
	select {
	case err := <-res:
		if err != errShutDown {
			t.Errorf("rawRecvfrom on a shut-down UDP socket: %v, want %v", err, errShutDown)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("rawRecvfrom still running 5 s after its socket was shut down")
	}

	_, dialed, accepted := loopbackPair(t)
	cfd, cf, err := blockingFD(dialed)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	unix.SetNonblock(cfd, true)
	unix.Shutdown(cfd, unix.SHUT_WR)
	if _, err := accepted.Write([]byte("123456\n")); err != nil {
		t.Fatal(err)
	}
	accepted.Close()
	time.Sleep(20 * time.Millisecond) // the FIN is in: readable and hung up
	var got []byte
	buf := make([]byte, 4)
	for {
		n, err := rawRead(cfd, buf)
		got = append(got, buf[:n]...)
		if n == 0 || err != nil {
			break
		}
	}
	if string(got) != "123456\n" {
		t.Errorf("rawRead after the peer answered and closed: %q, want the whole answer", got)
	}
}

// --cpu and --peer-cpu pin the two ends of a network figure as qperf's
// -lca and -rca do, and the probe says where they ran: on one CPU in
// every round when pinned together, never when pinned apart.
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
			if f.Err != "" || f.Placement == nil {
				continue
			}
			placed++
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
