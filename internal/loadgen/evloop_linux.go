package loadgen

// The event loop: the closed model's engine for plain HTTP/1.1, keep-alive
// or not, wrk's design done with fewer system calls. One loop per CPU owns a
// share of the users' sockets (non-blocking, edge-triggered epoll, both
// directions registered once, never modified). When a response is complete
// the next request is written at once, and a socket is read only when epoll
// says bytes came: a read and a write per request, plus one epoll_wait for
// every batch of ready sockets; a new connection adds socket, setsockopt,
// connect, one epoll_ctl and close. The goroutine-per-user client costs a
// third system call per request (the read that finds nothing and parks the
// goroutine) and a goroutine switch; wrk costs two epoll_ctl calls per
// request to switch write interest on and off.
//
// The loop polls its epoll set without blocking (a raw system call, nothing
// for the scheduler to do), and when nothing is ready it parks on the Go
// netpoller, which watches the epoll descriptor itself. Blocking in
// epoll_wait instead would leave the loop's P in a system call: the
// runtime's monitor then takes the P away every 20 µs of waiting, wakes
// another thread for it and takes it back when epoll_wait returns, a tenth
// of the generator's CPU at a few tens of thousands of requests a second.
//
// One clock read per batch of events stamps the responses of that batch
// (they had all come when epoll_wait returned, so later ones are not charged
// for the time spent on earlier ones); a request's send time is read when it
// is written.
//
// The open model runs on the same loops: a connection that is free takes
// the next slot of the schedule (one request in flight per connection, as
// wrk2 does) and waits for it on a timerfd, which wakes the loop to the
// microsecond (epoll_wait's millisecond would add up to 1 ms to every
// latency measured from the intended time).
//
// TLS, HTTP/2 and think time stay on the goroutine client, which handles
// everything.

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// evloopOK says whether this run can use event loops.
func (r *runner) evloopOK() bool {
	if r.cfg.noEvloop || r.cfg.HTTP2 || r.cfg.Think > 0 {
		return false
	}
	for _, tc := range r.tlsConf {
		if tc != nil {
			return false
		}
	}
	return true
}

// sinkSize is the loop's read size for bodies nobody keeps: a 1 MiB
// response in 4 reads rather than 128 of the 8 KiB connection buffer.
const sinkSize = 256 << 10

// sweepEvery bounds how late a request timeout, a stop or the end of the run
// is noticed when no socket is ready.
const sweepEvery = 10 * time.Millisecond

type userState uint8

const (
	uIdle       userState = iota // between requests (ramp-up: not started)
	uConnecting                  // non-blocking connect in progress
	uWriting                     // the request did not fit the socket buffer
	uReading                     // waiting for the response
	uDone                        // no more requests for this user
)

// esock is one of a user's keep-alive connections.
type esock struct {
	fd     int
	rd     fdReader
	rr     *respReader
	reused bool // has served a response: a failure before any byte may be a stale keep-alive
	// connecting: preconnect's handshake is not done yet
	connecting bool
}

// fdReader reads a non-blocking socket for the response parser, once per
// readiness event: a short read emptied the socket, so a second read would
// find nothing, and edge-triggered epoll reports the next bytes to come. A
// read that fills the buffer earns another.
type fdReader struct {
	fd    int
	reads int
}

func (f *fdReader) Read(p []byte) (int, error) {
	if f.reads <= 0 {
		return 0, errWouldBlock
	}
	f.reads--
	n, err := rawRead(f.fd, p)
	if n == len(p) {
		f.reads++ // a full buffer: more may be waiting, and edge-triggered epoll will not say so
	}
	switch {
	case err == unix.EAGAIN:
		return 0, errWouldBlock
	case err == unix.EINTR:
		f.reads++
		return 0, nil
	case err != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", err)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// euser is one closed-model user of an event loop.
type euser struct {
	w       *worker
	socks   []*esock // per target; nil: not connected
	sockMem []esock  // socks point here: a new connection allocates nothing
	state   userState
	startAt time.Time // ramp-up
	a       attempt
	ti      int // target of the request in flight
	woff    int // bytes of w.wbuf written
	tries   int
	connAt  time.Time // connect started
	started bool      // counted in runner.active (JMeter's active threads)
	resume  time.Time // backing off after failed connects until then
	// open model: the schedule slot taken, waited for in evloop.waiting
	at       time.Time
	measured bool
}

type fdEntry struct {
	u  *euser
	ti int
}

type evloop struct {
	r        *runner
	epfd     int
	pf       *os.File        // epfd on the Go netpoller, to park on (nil: block in epoll_wait)
	prc      syscall.RawConn // pf's
	pollFn   func(uintptr) bool
	events   []unix.EpollEvent // pollFn's results
	polled   int
	pollErr  error
	deadline time.Time // last set on pf
	sink     []byte    // body bytes nobody keeps, for all the loop's connections
	users    []*euser
	byFD     []fdEntry
	ready    []*euser // finished a request: send the next one
	spare    []*euser // the other ready buffer
	pending  []*euser // ramp-up: not started yet, in start order
	backing  []*euser // backing off after failed connects (worker.backoff)
	waiting  []*euser // open model: waiting for their slot, in slot order
	tfd      int      // open model: timerfd that wakes the loop for waiting[0]
	armed    time.Time
	live     int             // users not done
	addrs    []unix.Sockaddr // per target, for messages
	raddrs   []rawSockaddr   // the same for connect(2)
	domains  []int
	err      error // setting the loop up failed: its users' requests fail
}

// runEvloops runs the closed model on one event loop per CPU and returns
// when every user is done, the run has ended, or it was halted.
func (r *runner) runEvloops() {
	if r.evloops == nil {
		r.newEvloops()
	}
	for _, l := range r.evloops {
		for _, u := range l.users {
			u.startAt = r.t0
			if r.cfg.RampUp > 0 && !r.open { // the open model ramps its rate instead
				u.startAt = r.t0.Add(r.cfg.RampUp * time.Duration(u.w.id-1) / time.Duration(r.cfg.Users))
			}
		}
	}
	var wg sync.WaitGroup
	for _, l := range r.evloops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run()
		}()
	}
	wg.Wait()
}

// newEvloops sets up the loops and shares the users out among them.
func (r *runner) newEvloops() {
	n := min(runtime.GOMAXPROCS(0), len(r.workers))
	loops := make([]*evloop, n)
	tas, rerr := r.resolveTargets()
	for i := range loops {
		l := &evloop{r: r, err: rerr, tfd: -1}
		l.addrs, l.raddrs, l.domains = sockaddrs(tas)
		loops[i] = l
		if l.err == nil {
			l.epfd, l.err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		}
		if l.err == nil {
			l.park()
		}
		if l.err == nil && r.open {
			l.err = l.timer()
		}
	}
	for i, w := range r.workers {
		l := loops[i%n]
		u := &euser{w: w, socks: make([]*esock, len(r.targets)), sockMem: make([]esock, len(r.targets))}
		l.users = append(l.users, u)
		l.pending = append(l.pending, u)
		// Connections net opened (none when preconnectEvloops ran) move to the loop.
		for ti, wc := range w.conns {
			if wc == nil {
				continue
			}
			if l.err == nil {
				if fd, err := detach(wc.nc); err == nil {
					l.add(u, ti, fd)
				}
			}
			wc.nc.Close()
			w.conns[ti] = nil
		}
	}
	r.evloops = loops
}

// add registers fd as u's connection to target ti.
func (l *evloop) add(u *euser, ti, fd int) {
	rr := u.w.readers[ti]
	if rr == nil {
		rr = newRespReader(nil, readBufSize)
		u.w.readers[ti] = rr
	}
	if l.sink == nil {
		l.sink = make([]byte, sinkSize)
	}
	rr.sink = l.sink
	s := &u.sockMem[ti]
	*s = esock{fd: fd, rr: rr}
	s.rd.fd = fd
	rr.reset(&s.rd)
	u.socks[ti] = s
	for fd >= len(l.byFD) {
		l.byFD = append(l.byFD, fdEntry{})
	}
	l.byFD[fd] = fdEntry{u: u, ti: ti}
	// Both directions, edge-triggered, once: EPOLLOUT is reported when a
	// connect completes and when a full send buffer drains, nothing else.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(fd)}
	if _, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(l.epfd), unix.EPOLL_CTL_ADD, uintptr(fd), uintptr(unsafe.Pointer(&ev)), 0, 0); e != 0 {
		l.drop(u, ti)
	}
}

// drop closes u's connection to target ti.
func (l *evloop) drop(u *euser, ti int) {
	s := u.socks[ti]
	if s == nil {
		return
	}
	// Closing a descriptor removes it from the epoll set.
	rawClose(s.fd)
	l.byFD[s.fd] = fdEntry{}
	u.socks[ti] = nil
}

// park puts the epoll descriptor on the Go netpoller (see the top of the
// file); without it the loop blocks in epoll_wait.
func (l *evloop) park() {
	if unix.SetNonblock(l.epfd, true) != nil {
		return
	}
	pf := os.NewFile(uintptr(l.epfd), "epoll")
	rc, err := pf.SyscallConn()
	if err != nil {
		pf.Close()
		l.epfd = -1
		l.err = err
		return
	}
	l.pf, l.prc = pf, rc
	l.pollFn = l.pollOnce // one closure for the run: parking allocates nothing
}

// pollOnce is RawConn.Read's callback: done when something is ready.
func (l *evloop) pollOnce(uintptr) bool {
	l.polled, l.pollErr = epollPoll(l.epfd, l.events)
	return l.polled > 0 || l.pollErr != nil
}

// wait returns the ready events, waiting for some until then at the
// latest (not at all when then is not after now).
func (l *evloop) wait(events []unix.EpollEvent, now, then time.Time) (int, error) {
	if !then.After(now) {
		return epollPoll(l.epfd, events)
	}
	if l.pf == nil {
		if n, err := epollPoll(l.epfd, events); n > 0 || err != nil {
			return n, err
		}
		d := then.Sub(now)
		return unix.EpollWait(l.epfd, events, int((d+time.Millisecond-1)/time.Millisecond))
	}
	// The deadline is mostly the next sweep: set once per sweep, not per
	// wait (a clock read and a timer update each).
	if !then.Equal(l.deadline) {
		if err := l.pf.SetReadDeadline(then); err != nil {
			return 0, err
		}
		l.deadline = then
	}
	// Read polls first (pollOnce) and parks only when nothing is ready;
	// the netpoller reports the epoll descriptor readable when one of its
	// sockets is, and a readiness that comes after Read began is kept for
	// its wait, which then returns at once.
	l.events, l.polled, l.pollErr = events, 0, nil
	err := l.prc.Read(l.pollFn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return l.polled, l.pollErr
}

func (l *evloop) run() {
	r := l.r
	defer l.close()
	l.live = len(l.users)
	events := make([]unix.EpollEvent, 512)
	now := time.Now()
	lastSweep := now
	for {
		if r.stopped.Load() || (!r.end.IsZero() && !now.Before(r.end)) {
			l.abortAll()
			return
		}
		for len(l.pending) > 0 && !l.pending[0].startAt.After(now) {
			u := l.pending[0]
			l.pending = l.pending[1:]
			u.started = true
			r.active.Add(1)
			l.next(u, now)
		}
		if len(l.ready) > 0 {
			// One batch per turn: next may finish a user at once (a refused
			// connect) and queue it again, and the sockets that did answer
			// must not wait for a target that is down. New ones go to the
			// spare slice.
			batch := l.ready
			l.ready = l.spare[:0]
			for _, u := range batch {
				l.next(u, time.Now())
			}
			l.spare = batch
		}
		for len(l.waiting) > 0 && !l.waiting[0].at.After(now) {
			u := l.waiting[0]
			l.waiting = l.waiting[1:]
			l.fire(u, time.Now())
		}
		if len(l.backing) > 0 {
			// next may fail a connect at once and back the user off again:
			// it lands in a new slice.
			batch := l.backing
			l.backing = nil
			for _, u := range batch {
				if u.resume.After(now) {
					l.backing = append(l.backing, u)
				} else {
					l.next(u, time.Now())
				}
			}
		}
		if l.live == 0 {
			return
		}
		if now.Sub(lastSweep) >= sweepEvery {
			l.sweep(now)
			lastSweep = now
		}
		then := lastSweep.Add(sweepEvery)
		if len(l.pending) > 0 && l.pending[0].startAt.Before(then) {
			then = l.pending[0].startAt
		}
		for _, u := range l.backing {
			if u.resume.Before(then) {
				then = u.resume
			}
		}
		if len(l.waiting) > 0 && l.arm(then.Sub(now), now) <= 0 {
			then = now
		}
		if len(l.ready) > 0 {
			then = now
		}
		n, err := l.wait(events, now, then)
		now = time.Now()
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			l.err = os.NewSyscallError("epoll_wait", err)
			l.abortAll()
			return
		}
		// A response that comes after the end of the run is cut off, as
		// the goroutine client's deadline does.
		if n > 0 && !r.end.IsZero() && !now.Before(r.end) {
			l.abortAll()
			return
		}
		for i := range n {
			l.event(&events[i], now)
		}
	}
}

// event handles one ready socket; now is when the batch was polled.
func (l *evloop) event(ev *unix.EpollEvent, now time.Time) {
	fd := int(ev.Fd)
	if fd == l.tfd {
		var b [8]byte
		_, _ = rawRead(fd, b[:]) // the expiry count: the loop checks the schedule itself
		return
	}
	if fd >= len(l.byFD) {
		return
	}
	e := l.byFD[fd]
	u := e.u
	if u == nil {
		return
	}
	active := u.ti == e.ti
	gone := ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
	switch {
	case active && u.state == uConnecting:
		l.connected(u, ev.Events&(unix.EPOLLHUP|unix.EPOLLERR) != 0)
	case active && u.state == uWriting:
		if ev.Events&unix.EPOLLOUT != 0 || gone {
			l.write(u)
			// An answer may have come while the request was being
			// written, its edge already reported: look now.
			if u.state == uReading {
				l.read(u, gone, now)
			}
		}
	case active && u.state == uReading:
		if ev.Events&unix.EPOLLIN != 0 || gone { // else the send buffer drained: nothing to read
			l.read(u, gone, now)
		}
	case ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0:
		// An idle keep-alive connection: the server closed it (or sent
		// something unasked). Either way it is no use any more.
		l.drop(u, e.ti)
	}
}

// read goes on with u's response: bytes came (or the peer is gone) by now.
func (l *evloop) read(u *euser, gone bool, now time.Time) {
	s := u.socks[u.ti]
	s.rd.reads = 1
	s.rr.now = now
	err := s.rr.resume(&u.w.resp)
	if err == errWouldBlock {
		if !gone {
			return
		}
		// The peer is gone; read until the EOF the parser needs.
		s.rd.reads = 100
		if err = s.rr.resume(&u.w.resp); err == errWouldBlock {
			err = io.ErrUnexpectedEOF
		}
	}
	l.complete(u, err)
}

// next starts u's next request, as worker.loop does.
func (l *evloop) next(u *euser, now time.Time) {
	r := l.r
	if u.state == uDone {
		return
	}
	u.state = uIdle
	if r.stopped.Load() || (!r.end.IsZero() && !now.Before(r.end)) {
		l.done(u)
		return
	}
	if r.open {
		// The next slot of the schedule, whatever the time: a slot already
		// past is sent at once, and its latency counts from the slot.
		at := r.t0.Add(r.offset(r.seq.Add(1) - 1))
		if !r.end.IsZero() && !at.Before(r.end) {
			l.done(u)
			return
		}
		u.at, u.measured = at, !at.Before(r.measure)
		if u.measured && r.cfg.MaxRequests > 0 && r.budget.Add(-1) < 0 {
			l.done(u)
			return
		}
		if at.After(now) {
			l.waiting = append(l.waiting, u) // slots are taken in order: stays sorted
			return
		}
		l.fire(u, now)
		return
	}
	measured := !now.Before(r.measure)
	if measured && r.cfg.MaxRequests > 0 && r.budget.Add(-1) < 0 {
		l.done(u)
		return
	}
	c := u.w.pick()
	u.w.start(&u.a, c, now, now, measured)
	u.ti, u.tries = c.target, 0
	l.send(u)
}

// fire sends u's request for its schedule slot (open model).
func (l *evloop) fire(u *euser, now time.Time) {
	r := l.r
	if r.stopped.Load() || (!r.end.IsZero() && !now.Before(r.end)) {
		l.done(u) // due but never sent: counted as missed
		return
	}
	c := u.w.pick()
	u.w.start(&u.a, c, u.at, now, u.measured)
	u.ti, u.tries = c.target, 0
	l.send(u)
}

// timer creates the loop's timerfd.
func (l *evloop) timer() error {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("timerfd_create", err)
	}
	l.tfd = fd
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// timerSlack: a slot this close is waited for by polling, not a timer.
const timerSlack = 2 * time.Microsecond

// arm makes the timerfd wake the loop when the first waiting slot is due
// and returns the epoll_wait timeout to use.
func (l *evloop) arm(wait time.Duration, now time.Time) time.Duration {
	d := l.waiting[0].at.Sub(now)
	switch {
	case d <= timerSlack:
		return 0
	case d >= wait:
		return wait
	}
	if at := l.waiting[0].at; !at.Equal(l.armed) {
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
		if err := unix.TimerfdSettime(l.tfd, 0, &spec, nil); err != nil {
			return 0 // poll instead
		}
		l.armed = at
	}
	return wait // the timer wakes epoll_wait first
}

func (l *evloop) done(u *euser) {
	u.state = uDone
	l.live--
	if u.started {
		l.r.active.Add(-1)
	}
	for ti := range u.socks {
		l.drop(u, ti)
	}
}

// send writes the request in u.w.wbuf, connecting first when needed.
func (l *evloop) send(u *euser) {
	s := u.socks[u.ti]
	if s == nil {
		l.connect(u)
		return
	}
	u.woff = 0
	s.rr.begin(&u.w.resp, u.a.c.head, u.a.capture)
	u.state = uReading // write switches to uWriting if the socket is full
	l.write(u)
}

func (l *evloop) write(u *euser) {
	s := u.socks[u.ti]
	for u.woff < len(u.w.wbuf) {
		n, err := rawWrite(s.fd, u.w.wbuf[u.woff:])
		if n > 0 {
			u.woff += n
		}
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			u.state = uWriting // EPOLLOUT says when the buffer drains
			return
		case err != nil:
			l.complete(u, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", err)})
			return
		}
	}
	u.state = uReading
}

// complete ends u's request: a response (err nil) or a failure, retried
// once on a new connection when a reused keep-alive connection failed
// before any byte of the response (the server had closed it).
func (l *evloop) complete(u *euser, err error) {
	s := u.socks[u.ti]
	var rr *respReader
	if err == nil {
		s.reused = true
		rr = s.rr
		if u.w.resp.close {
			l.drop(u, u.ti)
		}
	} else {
		retry := s != nil && s.reused && !s.rr.gotByte && u.tries == 0 && !u.a.dialing && classify(err, false) == KindReset
		u.a.gotByte = s != nil && s.rr.gotByte
		l.drop(u, u.ti)
		if retry && !l.r.stopped.Load() {
			u.tries++
			l.connect(u)
			return
		}
	}
	u.state = uIdle
	u.w.finish(&u.a, rr, err)
	if d := u.w.backoff(); d > 0 {
		u.resume = time.Now().Add(d)
		l.backing = append(l.backing, u)
		return
	}
	l.ready = append(l.ready, u)
}

// sweep fails requests past their deadline.
func (l *evloop) sweep(now time.Time) {
	for _, u := range l.users {
		if u.state == uConnecting || u.state == uWriting || u.state == uReading {
			if !now.Before(u.a.deadline) {
				op := "read"
				if u.state == uConnecting {
					op = "dial"
				}
				l.drop(u, u.ti)
				u.tries = 1 // a timeout is not retried
				l.complete(u, &net.OpError{Op: op, Net: "tcp", Err: os.ErrDeadlineExceeded})
			}
		}
	}
}

// abortAll ends the loop at the end of the run or on a stop: requests in
// flight are cut off (counted as aborted, not as results).
func (l *evloop) abortAll() {
	for _, u := range l.users {
		if u.state == uConnecting || u.state == uWriting || u.state == uReading {
			if s := u.socks[u.ti]; s != nil {
				u.a.gotByte = s.rr.gotByte
			}
			u.w.aborted(&u.a)
		}
		if u.state != uDone {
			l.done(u)
		}
	}
}

func (l *evloop) close() {
	for _, u := range l.users {
		for ti := range u.socks {
			l.drop(u, ti)
		}
	}
	if l.tfd >= 0 {
		unix.Close(l.tfd)
	}
	switch {
	case l.pf != nil:
		l.pf.Close() // and with it epfd
	case l.epfd > 0:
		unix.Close(l.epfd)
	}
}
