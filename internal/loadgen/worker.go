package loadgen

import (
	"math/rand/v2"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// wconn is one keep-alive connection of a worker. nc never changes, so halt
// may read it from another goroutine; a reconnect makes a new wconn.
type wconn struct {
	nc     net.Conn
	rr     *respReader // shared by the worker's successive connections to one target
	reused bool        // has served a response: a failure before any byte may be a stale keep-alive
	// deadline is the one last set on nc (zero: none yet).
	deadline time.Time
}

// newConn installs a fresh connection to target ti, reusing its read buffer.
func (w *worker) newConn(ti int, nc net.Conn) *wconn {
	rr := w.readers[ti]
	if rr == nil {
		rr = newRespReader(nc, readBufSize)
		w.readers[ti] = rr
	} else {
		rr.reset(nc)
	}
	wc := &wconn{nc: nc, rr: rr}
	w.conns[ti] = wc
	return wc
}

func (w *worker) dropConn(ti int) {
	if wc := w.conns[ti]; wc != nil {
		wc.nc.Close()
		w.conns[ti] = nil
	}
}

// worker runs one user (closed) or one connection (open). All its buffers
// are reused, so a keep-alive request allocates nothing.
type worker struct {
	id      int
	r       *runner
	shard   *shard
	conns   []*wconn
	readers []*respReader
	std     *http.Client          // Config.HTTP2: the net/http path
	cur     atomic.Pointer[wconn] // the connection in use, for halt
	rng     *rand.PCG
	timer   *time.Timer
	wbuf    []byte
	scratch []byte
	resp    response
	sample  Sample
	// seq is this user's cursor over its requests (Config.Sequence); nil
	// when requests are picked by weight.
	seq *cursor
	// dialFails counts this user's connect failures in a row (closed model):
	// it waits before the next attempt, as a person would, so a service that
	// went down is not hammered with a million refused connects a second.
	dialFails int
}

// Backoff after a failed connect: 10 ms, doubling to 1 s. A service
// restarting is reached again within a second of coming back.
const (
	backoffMin = 10 * time.Millisecond
	backoffMax = time.Second
)

// noteDial notes whether the request's connect failed.
func (w *worker) noteDial(ok bool) {
	if ok {
		w.dialFails = 0
	} else {
		w.dialFails++
	}
}

// backoff is how long a closed-model user waits before its next request:
// 0 unless its last connects failed. The open model keeps its schedule.
func (w *worker) backoff() time.Duration {
	if w.dialFails == 0 || w.r.open {
		return 0
	}
	return min(backoffMin<<min(w.dialFails-1, 16), backoffMax)
}

func (w *worker) closeAll() {
	for ti := range w.conns {
		w.dropConn(ti)
	}
}

// sleepUntil waits for t; false when the run was halted meanwhile.
func (w *worker) sleepUntil(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return !w.r.stopped.Load()
	}
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
		return !w.r.stopped.Load()
	case <-w.r.stopCtx.Done():
		w.timer.Stop()
		return false
	}
}

// UserGroup is a JMeter-like thread group of a Sequence run: Users users
// (the next ones, in the order of Config.Groups) send Requests requests of
// Config.Requests (the next ones), in order, Loops times each (0: until the
// run ends; -1: Config.Loops).
type UserGroup struct {
	Users, Requests, Loops int
}

// cursor walks one user's requests in order: each compiled request rep
// times in a row, then the next; a pass ends after the last.
type cursor struct {
	reqs   []*compiled
	i, rep int
	passes int      // completed passes over reqs
	loops  int      // passes to make; 0 = no bound
	row    []string // the variables of this pass (Config.Vars)
}

// next returns the request to send, or nil when the user made its passes.
func (c *cursor) next() *compiled {
	if c.loops > 0 && c.passes >= c.loops {
		return nil
	}
	q := c.reqs[c.i]
	c.rep++
	if c.rep >= q.weight {
		c.rep = 0
		c.i++
		if c.i == len(c.reqs) {
			c.i = 0
			c.passes++
		}
	}
	return q
}

// done reports a user that made all its passes.
func (c *cursor) done() bool { return c != nil && c.loops > 0 && c.passes >= c.loops }

// groups is cfg's thread groups: as given, or all users over all requests.
func groups(cfg Config) []UserGroup {
	if len(cfg.Groups) > 0 {
		return cfg.Groups
	}
	return []UserGroup{{Users: cfg.Users, Requests: len(cfg.Requests), Loops: -1}}
}

// BoundedByLoops reports a Sequence run whose every user stops after its
// loops: it needs no duration or request count to end.
func (cfg *Config) BoundedByLoops() bool {
	if !cfg.Sequence {
		return false
	}
	for _, g := range groups(*cfg) {
		if l := g.Loops; l == 0 || l < 0 && cfg.Loops <= 0 {
			return false
		}
	}
	return true
}

// Unloop lets every user of a Sequence run go on until the run ends (a
// duration or count bounds it instead of the loops).
func (cfg *Config) Unloop() {
	cfg.Loops = 0
	for i := range cfg.Groups {
		cfg.Groups[i].Loops = 0
	}
}

// checkOrder refuses sequence settings that do not fit the run.
func checkOrder(cfg Config) error {
	if !cfg.Sequence {
		if cfg.Loops != 0 || len(cfg.Groups) > 0 {
			return finding.Errorf(finding.T("loops and thread groups need requests in sequence order", "循环次数和线程组需要按顺序发送请求"))
		}
		return nil
	}
	if cfg.Rate > 0 {
		return finding.Errorf(finding.T("requests in sequence order need the closed model (users), not a rate", "按顺序发送请求需要闭合模型（用户数），而不是速率"))
	}
	if cfg.Loops < 0 {
		return finding.Errorf(finding.T("loops must not be negative", "循环次数不能为负数"))
	}
	if len(cfg.Groups) == 0 {
		return nil
	}
	users, reqs := 0, 0
	for _, g := range cfg.Groups {
		if g.Users <= 0 || g.Requests <= 0 || g.Loops < -1 {
			return finding.Errorf(finding.T("a thread group needs users and requests", "线程组需要用户和请求"))
		}
		users += g.Users
		reqs += g.Requests
	}
	if users != cfg.Users || reqs != len(cfg.Requests) {
		return finding.Errorf(finding.T("the thread groups have %d users and %d requests, the run %d and %d",
			"线程组共有 %d 个用户和 %d 个请求，而压测有 %d 个和 %d 个"), users, reqs, cfg.Users, len(cfg.Requests))
	}
	return nil
}

// assignSequences gives every user of a Sequence run its cursor. Users
// bounded by loops stop on their own, which the event loops cannot do: such
// a run uses the goroutine per user (as JMeter has a thread per user).
func (r *runner) assignSequences() {
	if !r.cfg.Sequence {
		return
	}
	wi, qi := 0, 0
	for _, g := range groups(r.cfg) {
		loops := g.Loops
		if loops < 0 {
			loops = r.cfg.Loops
		}
		if loops > 0 {
			r.cfg.noEvloop = true
		}
		for range g.Users {
			if wi < len(r.workers) {
				r.workers[wi].seq = &cursor{reqs: r.reqs[qi : qi+g.Requests], loops: loops}
			}
			wi++
		}
		qi += g.Requests
	}
}

func (w *worker) pick() *compiled {
	r := w.r
	if w.seq != nil {
		// A pass takes the next row of variables, as a JMeter thread takes
		// the next line of its CSV Data Set at each iteration: a pass's
		// requests share one row (the user who logs in is the one who pays).
		if w.seq.i == 0 && w.seq.rep == 0 && r.rows != nil {
			w.seq.row = r.rows[(r.rowSeq.Add(1)-1)%uint64(len(r.rows))]
		}
		if q := w.seq.next(); q != nil {
			return q
		}
		return w.seq.reqs[0] // past its loops: never sent, loop stops first
	}
	if len(r.reqs) == 1 {
		return r.reqs[0]
	}
	x := int(w.rng.Uint64() % uint64(r.totalWeight))
	for i, c := range r.cumWeight {
		if x < c {
			return r.reqs[i]
		}
	}
	return r.reqs[len(r.reqs)-1]
}

func (w *worker) loop() {
	r := w.r
	r.active.Add(1)
	defer r.active.Add(-1)
	if !r.open && r.cfg.RampUp > 0 {
		delay := r.cfg.RampUp * time.Duration(w.id-1) / time.Duration(r.cfg.Users)
		if !w.sleepUntil(r.t0.Add(delay)) {
			return
		}
	}
	for !r.stopped.Load() && !w.seq.done() {
		var intended time.Time
		if r.open {
			i := r.seq.Add(1) - 1
			intended = r.t0.Add(r.offset(i))
		} else {
			intended = time.Now()
		}
		if !r.end.IsZero() && !intended.Before(r.end) {
			return
		}
		measured := !intended.Before(r.measure)
		if measured && r.cfg.MaxRequests > 0 && r.budget.Add(-1) < 0 {
			return
		}
		if r.open && !w.sleepUntil(intended) {
			return
		}
		if !r.end.IsZero() && !time.Now().Before(r.end) {
			return // due but never sent: counted as missed
		}
		if w.std != nil {
			w.doStd(w.pick(), intended, measured)
		} else {
			w.do(w.pick(), intended, measured)
		}
		if r.cfg.Think > 0 && !w.sleepUntil(time.Now().Add(r.cfg.Think)) {
			return
		}
		if d := w.backoff(); d > 0 && !w.sleepUntil(time.Now().Add(d)) {
			return
		}
	}
}

// attempt is one request on its way: what finish needs to record it.
type attempt struct {
	c        *compiled
	intended time.Time // closed model: when it was sent; open: its schedule slot
	sendAt   time.Time
	deadline time.Time
	measured bool
	capture  int           // body bytes to keep for an assertion
	connect  time.Duration // time spent connecting, reconnects included
	dialing  bool          // the failure, if any, happened while connecting
	gotByte  bool          // a response had begun when it failed (cut off in its body)
}

// start renders request c into w.wbuf and fills a for it.
func (w *worker) start(a *attempt, c *compiled, intended, now time.Time, measured bool) {
	r := w.r
	deadline := now.Add(r.timeout)
	if !r.end.IsZero() && deadline.After(r.end) {
		deadline = r.end // in flight at the end: aborted, as oha does
	}
	var row []string
	switch {
	case w.seq != nil:
		row = w.seq.row
	case r.rows != nil:
		row = r.rows[(r.rowSeq.Add(1)-1)%uint64(len(r.rows))]
	}
	w.wbuf = c.render(w.wbuf[:0], &w.scratch, row)
	*a = attempt{c: c, intended: intended, sendAt: now, deadline: deadline, measured: measured}
	if c.expBody != nil {
		a.capture = captureLimit
	}
}

// do sends one request and records it.
func (w *worker) do(c *compiled, intended time.Time, measured bool) {
	r := w.r
	var a attempt
	w.start(&a, c, intended, time.Now(), measured)
	var err error
	wc := w.conns[c.target]
	for try := 0; ; try++ {
		if wc == nil {
			a.dialing = true
			t := time.Now()
			nc, derr := r.dial(r.stopCtx, c.target, a.deadline)
			a.connect += time.Since(t)
			if err = derr; err != nil {
				break
			}
			a.dialing = false
			wc = w.newConn(c.target, nc)
		}
		w.cur.Store(wc)
		// SetDeadline costs a clock read and a poller update: at hundreds of
		// thousands of requests per second, refresh it only when it has slid
		// by a tenth of the timeout. A request's timeout stays within 90-100%
		// of the configured one; an earlier deadline (the run's end) is set
		// at once.
		if a.deadline.Before(wc.deadline) || a.deadline.Sub(wc.deadline) > r.timeout/10 {
			_ = wc.nc.SetDeadline(a.deadline)
			wc.deadline = a.deadline
		}
		if r.stopped.Load() {
			err = net.ErrClosed
			break
		}
		_, err = wc.nc.Write(w.wbuf)
		if err == nil {
			err = wc.rr.readResponse(&w.resp, c.head, a.capture)
		}
		if err == nil {
			break
		}
		retry := wc.reused && !wc.rr.gotByte && try == 0 && classify(err, false) == KindReset
		a.gotByte = wc.rr.gotByte
		w.dropConn(c.target)
		wc = nil
		if !retry {
			break
		}
	}
	w.cur.Store(nil)
	var rr *respReader
	if err == nil {
		wc.reused = true
		rr = wc.rr
		if w.resp.close {
			w.dropConn(c.target)
		}
	}
	w.finish(&a, rr, err)
}

// finish records a request that ended: with the response in w.resp, read
// by rr, when err is nil.
func (w *worker) finish(a *attempt, rr *respReader, err error) {
	r := w.r
	c := a.c
	// A response that arrived whole in one read ended when its first byte
	// came: one clock read less per request (small responses, the common case).
	var done, firstByte time.Time
	if err == nil {
		firstByte = rr.firstByte
	}
	if err == nil && rr.fills == 1 && rr.firstInFill {
		done = firstByte
	} else {
		done = time.Now()
	}
	w.noteDial(err == nil || !a.dialing)
	// Cut off by Ctrl-C or by the end of the run: neither a result nor an error.
	if err != nil && (r.stopped.Load() || (!r.end.IsZero() && !done.Before(r.end))) {
		w.aborted(a)
		return
	}
	if !a.measured {
		w.shard.mu.Lock()
		w.shard.warmup++
		w.shard.mu.Unlock()
		return
	}
	s := &w.sample
	*s = Sample{Label: c.label, Thread: w.id, URL: c.url, BytesOut: int64(len(w.wbuf))}
	s.Start = a.intended
	s.Elapsed = done.Sub(a.intended)
	s.Connect = a.connect
	kind := KindNone
	if err != nil {
		kind = classify(err, a.dialing)
		s.Message = append(w.scratch[:0], err.Error()...)
	} else {
		s.Code = w.resp.status
		s.Message = w.resp.reason
		s.BytesIn = w.resp.nRead
		if !firstByte.IsZero() {
			s.Latency = firstByte.Sub(a.intended)
		}
		kind = c.check(w.resp.status, w.resp.body)
		if kind == KindAssertion {
			s.FailureMessage = c.failMsg
		} else if kind == KindStatus {
			s.FailureMessage = c.statusMsg
		}
	}
	w.record(c, s, kind, a.sendAt, done)
}

// aborted counts a measured request cut off by the end of the run or a stop.
func (w *worker) aborted(a *attempt) {
	if !a.measured {
		return
	}
	w.shard.mu.Lock()
	w.shard.aborted++
	if a.gotByte {
		w.shard.abortedInBody++
	}
	if w.r.open {
		w.shard.sent++
	}
	w.shard.mu.Unlock()
}

// record adds a measured sample to the worker's shard and the sink.
func (w *worker) record(c *compiled, s *Sample, kind ErrorKind, sendAt, done time.Time) {
	r := w.r
	s.Kind = kind
	s.Success = kind == KindNone
	us := clampUS(s.Elapsed)
	sh := w.shard
	sh.mu.Lock()
	sh.labels[c.index].add(us, !s.Success, s.BytesIn, s.BytesOut)
	sh.interval.add(us, !s.Success, 0, 0)
	sh.kinds[kind]++
	if s.Code > 0 && s.Code < len(sh.codes) {
		sh.codes[s.Code]++
	}
	if r.open {
		_ = sh.uncorr.RecordValue(clampUS(done.Sub(sendAt)))
		s.Lag = sendAt.Sub(s.Start)
		lag := int64(s.Lag / time.Microsecond)
		sh.sent++
		sh.lagSum += lag
		sh.lagMax = max(sh.lagMax, lag)
		if lag > int64(LateThreshold/time.Microsecond) {
			sh.late++
		}
	}
	sh.mu.Unlock()
	if r.cfg.Sink != nil {
		n := int(r.active.Load())
		s.GrpThreads, s.AllThreads = n, n
		r.cfg.Sink.Record(s)
	}
}
