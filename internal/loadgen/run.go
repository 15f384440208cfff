// Package loadgen is tuneloop's HTTP load generator.
//
// Two models: closed (Config.Users workers, each sends its next request when
// the last one returns, like wrk or JMeter threads) and open (Config.Rate
// requests per second on a fixed schedule, like wrk2). In the open model the
// schedule is arithmetic on the request index, not a goroutine handing out
// ticks, so a slow server cannot slow it; latency runs from the intended send
// time, so when every connection is busy the wait shows up in the
// percentiles instead of vanishing (coordinated omission), and late or
// missed sends are counted.
//
// Requests go over a lean HTTP/1.1 client: pre-serialised request bytes, one
// reused read buffer per connection, a response parser that does not
// allocate. Plain HTTP/1.1, keep-alive or not, closed or open model, runs on
// epoll event loops, one per CPU (evloop_linux.go); TLS, HTTP/2 and think
// time on a goroutine per user over net.Conn. Latencies go into HDR histograms kept per shard of
// workers and merged once a second, so memory does not grow with the number
// of requests.
package loadgen

import (
	"context"
	"crypto/tls"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Config describes a run. Exactly one of Users (closed model) and Rate (open
// model) is set, and at least one of Duration and MaxRequests bounds it.
type Config struct {
	Requests []Request
	Vars     *Vars // optional ${name} values, one row per request, in turn

	Users       int           // closed model: concurrent users
	Rate        float64       // open model: requests per second
	Connections int           // open model: connections (workers); 0 = Rate/10 clamped to [100, 10000]
	Duration    time.Duration // measured time, after WarmUp
	MaxRequests int64         // measured requests; 0 = no limit
	RampUp      time.Duration // closed: users start evenly over it; open: rate climbs linearly
	WarmUp      time.Duration // run first, excluded from the results
	Think       time.Duration // closed model: pause after each response
	Timeout     time.Duration // per request, connect included; 0 = 10s

	// Sequence has every user send the requests in list order (each Weight
	// times in a row), as a JMeter thread runs its samplers, instead of
	// picking each at random by weight. Loops then bounds each user's passes
	// over its list (0: until the run ends); Groups, when set, splits users
	// and requests into thread groups (worker.go).
	Sequence bool
	Loops    int
	Groups   []UserGroup

	DisableKeepAlive bool // a new connection per request (Connection: close)
	HTTP2            bool // use net/http: HTTP/2 where the server offers it over TLS, else HTTP/1.1
	Insecure         bool // skip TLS certificate verification

	// Sink receives every measured sample (e.g. a JTLWriter); called from
	// many goroutines.
	Sink SampleSink
	// OnSecond is called once a second from one goroutine (live status).
	OnSecond func(Progress)

	noEvloop bool // tests: the goroutine client even where the event loop would do
}

// SampleSink consumes per-request samples; Record must be safe for
// concurrent use and must not keep s.
type SampleSink interface{ Record(s *Sample) }

// Tee sends every sample to a (if any) and b: a JTL file and a report's
// recorder fed by one load.
func Tee(a, b SampleSink) SampleSink {
	if a == nil {
		return b
	}
	return tee{a, b}
}

type tee struct{ a, b SampleSink }

func (t tee) Record(s *Sample) { t.a.Record(s); t.b.Record(s) }

// Progress is what the live status line shows.
type Progress struct {
	Elapsed   time.Duration // since the start, warm-up included
	Remaining time.Duration // -1 when bounded by count only
	Warmup    bool
	Last      Second // the second just finished
	Requests  int64  // measured so far
	Errors    int64
}

// TargetError is a failed pre-flight connection: the run did not start.
type TargetError struct {
	Addr string
	Kind ErrorKind
	Err  error
}

func (e *TargetError) Error() string { return e.Localize(finding.EN) }

// Localize says why the target could not be reached, with a hint, in l.
func (e *TargetError) Localize(l finding.Lang) string {
	var hint finding.Text
	switch e.Kind {
	case KindRefused:
		hint = finding.T(" (connection refused: is the service running and listening on that port?)", "（连接被拒绝：服务是否已启动并在该端口监听？）")
	case KindDNS:
		hint = finding.T(" (the host name does not resolve)", "（主机名无法解析）")
	case KindConnect:
		hint = finding.T(" (host unreachable or not answering: check address, firewall, routing)", "（主机不可达或无响应：请检查地址、防火墙和路由）")
	case KindTLS:
		hint = finding.T(" (TLS handshake failed: plain http on that port, or an untrusted certificate? --insecure skips verification)",
			"（TLS 握手失败：该端口是否为普通 http，或证书不受信任？--insecure 可跳过校验）")
	}
	return finding.Tf(finding.T("cannot connect to %s: %v", "无法连接 %s:%v"), e.Addr, e.Err).In(l) + hint.In(l)
}

func (e *TargetError) Unwrap() error { return e.Err }

const (
	readBufSize  = 8 << 10 // per connection; grows for headers up to maxHeaderBuf
	captureLimit = 1 << 20 // body bytes kept for a body assertion
)

type runner struct {
	cfg          Config
	reqs         []*compiled
	cumWeight    []int
	totalWeight  int
	targets      []target
	tlsConf      []*tls.Config
	open         bool
	rows         [][]string
	rowSeq       atomic.Uint64
	t0, measure  time.Time
	end          time.Time // zero: no time bound
	budget       atomic.Int64
	seq          atomic.Int64 // open model: next schedule index
	stopped      atomic.Bool
	stopCtx      context.Context
	stop         context.CancelFunc
	shards       []*shard
	workers      []*worker
	evloops      []*evloop      // set up by preconnectEvloops, else by runEvloops
	reached      []*net.TCPAddr // per target: the address preflight reached
	active       atomic.Int32
	timeout      time.Duration
	rampN        float64 // open model: sends due during the ramp
	firstMeasure int64   // open model: first schedule index in the measured window
}

type shard struct {
	mu       sync.Mutex
	labels   []*acc
	interval *acc
	uncorr   *hdr.Histogram
	kinds    [numKinds]int64
	codes    [600]int64
	warmup   int64
	aborted  int64
	// abortedInBody of them had their response begun: an endless or very slow body.
	abortedInBody int64
	sent          int64 // open model: measured sends
	late          int64
	lagSum        int64 // µs
	lagMax        int64
	h2            int64 // responses over HTTP/2 (Config.HTTP2)
}

// Generate executes the load and returns its summary. It returns an error without
// a summary for a bad Config or an unreachable target; when ctx is
// cancelled it stops, and the summary so far is returned with Interrupted.
func Generate(ctx context.Context, cfg Config) (*Summary, error) {
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	if err := r.preflight(ctx); err != nil {
		return nil, err
	}
	return r.run(ctx), nil
}

func newRunner(cfg Config) (*runner, error) {
	switch {
	case len(cfg.Requests) == 0:
		return nil, finding.Errorf(finding.T("no requests to send", "没有要发送的请求"))
	case cfg.Users > 0 && cfg.Rate > 0:
		return nil, finding.Errorf(finding.T("set users (closed model) or rate (open model), not both", "请设置用户数（闭合模型）或速率（开放模型），不能同时设置"))
	case cfg.Users <= 0 && cfg.Rate <= 0:
		return nil, finding.Errorf(finding.T("set users (closed model) or rate (open model)", "请设置用户数（闭合模型）或速率（开放模型）"))
	case cfg.Duration <= 0 && cfg.MaxRequests <= 0 && !cfg.BoundedByLoops():
		return nil, finding.Errorf(finding.T("a run needs a duration or a request count", "压测需要设置时长或请求数"))
	case cfg.Duration < 0 || cfg.MaxRequests < 0 || cfg.RampUp < 0 || cfg.WarmUp < 0 || cfg.Think < 0 || cfg.Timeout < 0:
		return nil, finding.Errorf(finding.T("durations and counts must not be negative", "时长和数量不能为负数"))
	case math.IsInf(cfg.Rate, 0) || math.IsNaN(cfg.Rate) || cfg.Rate > 10e6:
		return nil, finding.Errorf(finding.T("rate must be at most 10,000,000/s", "速率不能超过每秒 10,000,000 次"))
	}
	if err := checkOrder(cfg); err != nil {
		return nil, err
	}
	if err := fdBudget(cfg); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, open: cfg.Rate > 0, timeout: cfg.Timeout}
	if r.timeout == 0 {
		r.timeout = 10 * time.Second
	}
	var cols map[string]int
	if cfg.Vars != nil {
		cols = map[string]int{}
		for i, n := range cfg.Vars.Names {
			cols[n] = i
		}
		r.rows = cfg.Vars.Rows
		if len(r.rows) == 0 {
			return nil, finding.Errorf(finding.T("the variables file has no data rows", "变量文件中没有数据行"))
		}
	}
	for _, q := range cfg.Requests {
		c, err := compile(q, cols, &r.targets, !cfg.DisableKeepAlive)
		if err != nil {
			return nil, err
		}
		c.index = len(r.reqs)
		r.reqs = append(r.reqs, c)
		r.totalWeight += c.weight
		r.cumWeight = append(r.cumWeight, r.totalWeight)
	}
	for _, t := range r.targets {
		var tc *tls.Config
		if t.tls {
			tc = &tls.Config{ServerName: t.serverName, InsecureSkipVerify: cfg.Insecure, //nolint:gosec // user's choice
				NextProtos: []string{"http/1.1"}, ClientSessionCache: tls.NewLRUClientSessionCache(0)}
		}
		r.tlsConf = append(r.tlsConf, tc)
	}
	return r, nil
}

// workersFor is how many workers (each one connection per target) a run
// has: the users, or the open model's connections (default Rate/10 within
// [100, 10000]).
func workersFor(cfg Config) int {
	if cfg.Rate > 0 {
		if cfg.Connections > 0 {
			return cfg.Connections
		}
		return min(max(int(cfg.Rate/10), 100), 10000)
	}
	return cfg.Users
}

// fdBudget refuses a run whose connections cannot all be open at once: past
// the open-files limit every connect would fail with "too many open files"
// and the run would measure that instead of the service. (Go already raises
// the soft limit to the hard one at start.)
func fdBudget(cfg Config) error {
	conns := workersFor(cfg)
	hosts := map[string]bool{}
	for _, q := range cfg.Requests {
		if u, err := url.Parse(q.URL); err == nil {
			hosts[u.Host] = true
		}
	}
	need := uint64(conns)*uint64(max(len(hosts), 1)) + 64 // + the process's own files
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && need > lim.Cur {
		return finding.Errorf(finding.T("%d connections need about %d open files, the limit is %d: lower the users/connections or raise the limit (ulimit -n, LimitNOFILE= in a systemd unit)",
			"%d 个连接需要约 %d 个打开文件，上限为 %d：请减少用户数/连接数，或提高上限（ulimit -n,systemd 单元中的 LimitNOFILE=）"),
			conns*max(len(hosts), 1), need, lim.Cur)
	}
	return nil
}

// preflight connects once to every target so an unreachable service is one
// clear message rather than a run full of connect errors.
func (r *runner) preflight(ctx context.Context) error {
	for i, t := range r.targets {
		nc, err := r.dial(ctx, i, time.Now().Add(r.timeout))
		if err != nil {
			return &TargetError{Addr: t.addr, Kind: classify(err, true), Err: err}
		}
		// The address that answered, for the event loops' own connects (a
		// name may resolve to several, e.g. localhost to ::1 and 127.0.0.1).
		ta, _ := nc.RemoteAddr().(*net.TCPAddr)
		r.reached = append(r.reached, ta)
		nc.Close()
	}
	return nil
}

func (r *runner) dial(ctx context.Context, ti int, deadline time.Time) (net.Conn, error) {
	d := net.Dialer{Deadline: deadline}
	nc, err := d.DialContext(ctx, "tcp", r.targets[ti].addr)
	if err != nil {
		return nil, err
	}
	if tc := r.tlsConf[ti]; tc != nil {
		c := tls.Client(nc, tc)
		_ = nc.SetDeadline(deadline)
		if err := c.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		return c, nil
	}
	return nc, nil
}

// prepare builds shards and workers and fixes the timeline.
func (r *runner) prepare() {
	cfg := r.cfg
	nWorkers := workersFor(cfg)
	// Workers share a shard's histograms under its mutex (held ~100 ns per
	// request). A few shards per core keep contention low; at ~170 KB per
	// histogram, cap the total near 256 histograms (~45 MB) however many
	// labels a scenario has.
	nShards := max(1, min(nWorkers, 4*runtime.GOMAXPROCS(0), 256/(len(r.reqs)+1)))
	for range nShards {
		s := &shard{interval: newIntervalAcc()}
		for range r.reqs {
			s.labels = append(s.labels, newAcc())
		}
		if r.open {
			s.uncorr = newHist()
		}
		r.shards = append(r.shards, s)
	}
	r.budget.Store(cfg.MaxRequests)
	r.stopCtx, r.stop = context.WithCancel(context.Background())
	r.t0 = time.Now()
	r.measure = r.t0.Add(cfg.WarmUp)
	if cfg.Duration > 0 {
		r.end = r.measure.Add(cfg.Duration)
	}
	if r.open {
		ramp := cfg.RampUp.Seconds()
		r.rampN = cfg.Rate * ramp / 2
		r.firstMeasure = int64(math.Ceil(r.dueBefore(cfg.WarmUp)))
	}
	var std *http.Client
	if cfg.HTTP2 {
		std = r.newStdClient(nWorkers)
	}
	for i := range nWorkers {
		w := &worker{std: std, id: i + 1, r: r, shard: r.shards[i%nShards], conns: make([]*wconn, len(r.targets)),
			readers: make([]*respReader, len(r.targets)),
			rng:     rand.NewPCG(uint64(i)+1, 0x9e3779b97f4a7c15), timer: time.NewTimer(time.Hour)}
		w.timer.Stop()
		r.workers = append(r.workers, w)
	}
	r.assignSequences()
}

func (r *runner) run(ctx context.Context) *Summary {
	cfg := r.cfg
	r.prepare()
	defer r.stop()
	if !cfg.DisableKeepAlive && !cfg.HTTP2 {
		if r.evloopOK() {
			r.preconnectEvloops(ctx)
		} else {
			r.preconnect(ctx)
		}
	}

	cpu0 := processCPU()
	workersDone := make(chan struct{})
	if r.evloopOK() {
		go func() { r.runEvloops(); close(workersDone) }()
	} else {
		var wg sync.WaitGroup
		for _, w := range r.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.loop()
				w.closeAll()
			}()
		}
		go func() { wg.Wait(); close(workersDone) }()
	}

	var series []Second
	collector := newIntervalAcc()
	var reqs, errs int64
	collect := func(t int) {
		// The intervals hold measured samples only. A warm-up tick leaves
		// them for the first measured second: on a starved machine the last
		// warm-up tick fires late, after the first measured answers, and
		// took them out of the series (which then fell short of Requests).
		if t >= 0 {
			r.drainIntervals(collector)
		}
		sec := collector.second(t)
		collector.reset()
		reqs += sec.Requests
		errs += sec.Errors
		if t >= 0 {
			series = append(series, sec)
		}
		if cfg.OnSecond != nil {
			now := time.Now()
			p := Progress{Elapsed: now.Sub(r.t0), Remaining: -1, Warmup: t < 0, Last: sec, Requests: reqs, Errors: errs}
			if !r.end.IsZero() {
				p.Remaining = max(r.end.Sub(now), 0)
			}
			cfg.OnSecond(p)
		}
	}
	// Ticks fall on whole seconds after the start of the measured window, so
	// series points are full seconds; warm-up ticks report progress only.
	tick := time.NewTimer(time.Hour)
	defer tick.Stop()
	first := r.measure
	for first.After(r.t0) {
		first = first.Add(-time.Second)
	}
	k := int(math.Round(first.Sub(r.measure).Seconds())) // <= 0
	next := first.Add(time.Second)
	interrupted := false
	finish := time.Time{}
loop:
	for {
		tick.Reset(time.Until(next))
		select {
		case <-ctx.Done():
			interrupted = true
			finish = time.Now()
			r.halt()
			<-workersDone
			break loop
		case <-workersDone:
			finish = time.Now()
			break loop
		case <-tick.C:
			collect(k)
			k++
			next = next.Add(time.Second)
		}
	}
	if !r.end.IsZero() && finish.After(r.end) {
		finish = r.end
	}
	if k >= 0 { // the last partial second, if anything landed in it
		r.drainIntervals(collector)
		if collector.n > 0 {
			series = append(series, collector.second(k))
		}
	}
	s := r.summary(series, finish, interrupted)
	if wall := time.Since(r.t0).Seconds(); wall > 0 {
		s.ClientCPU = round3(100 * (processCPU() - cpu0) / wall / float64(runtime.GOMAXPROCS(0)))
	}
	return s
}

// drainIntervals moves the samples the shards measured since the last
// tick into into.
func (r *runner) drainIntervals(into *acc) {
	for _, s := range r.shards {
		s.mu.Lock()
		into.merge(s.interval)
		s.interval.reset()
		s.mu.Unlock()
	}
}

// preconnect opens every worker's connections before the clock starts, as
// wrk does, so the first second does not measure a connect storm. Failures
// are left for the run to meet and count.
func (r *runner) preconnect(ctx context.Context) {
	sem := make(chan struct{}, 64) // a burst of SYNs larger than this overflows small accept queues
	var wg sync.WaitGroup
	deadline := time.Now().Add(r.timeout)
	for _, w := range r.workers {
		for ti := range r.targets {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				if nc, err := r.dial(ctx, ti, deadline); err == nil {
					w.newConn(ti, nc)
				}
			}()
		}
	}
	wg.Wait()
	r.restartClock()
}

// restartClock starts the run's timeline now, after the connections opened.
func (r *runner) restartClock() {
	r.t0 = time.Now()
	r.measure = r.t0.Add(r.cfg.WarmUp)
	if r.cfg.Duration > 0 {
		r.end = r.measure.Add(r.cfg.Duration)
	}
}

// processCPU is the CPU time this process has used, in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// halt stops the workers: no new requests, and in-flight ones are cut off
// through their connection deadline.
func (r *runner) halt() {
	r.stopped.Store(true)
	r.stop()
	for _, w := range r.workers {
		if c := w.cur.Load(); c != nil {
			_ = c.nc.SetDeadline(time.Unix(1, 0))
		}
	}
}

func (r *runner) summary(series []Second, finish time.Time, interrupted bool) *Summary {
	cfg := r.cfg
	s := &Summary{Source: "load", Model: "closed", Target: r.cfg.Requests[0].URL, Start: r.measure,
		Users: cfg.Users, Series: series, Interrupted: interrupted}
	if r.open {
		s.Model = "open"
		s.Connections = len(r.workers)
	} else {
		s.Connections = len(r.workers) * len(r.targets)
	}
	if finish.After(r.measure) {
		s.Duration = finish.Sub(r.measure).Seconds()
	}
	if d := cfg.RampUp - cfg.WarmUp; d > 0 {
		s.RampS = d.Seconds()
	}
	labels := make([]*acc, len(r.reqs))
	order := make([]string, 0, len(r.reqs))
	var kinds [numKinds]int64
	codes := map[int]int64{}
	var uncorr *hdr.Histogram
	var sent, late, lagSum, lagMax int64
	for i := range r.reqs {
		labels[i] = newAcc()
	}
	if r.open {
		uncorr = newHist()
	}
	for _, sh := range r.shards {
		sh.mu.Lock()
		for i, a := range sh.labels {
			labels[i].merge(a)
		}
		for k, n := range sh.kinds {
			kinds[k] += n
		}
		for c, n := range sh.codes {
			if n > 0 {
				codes[c] += n
			}
		}
		s.HTTP2Requests += sh.h2
		s.Warmup += sh.warmup
		s.Aborted += sh.aborted
		s.AbortedInBody += sh.abortedInBody
		if r.open {
			uncorr.Merge(sh.uncorr)
			sent += sh.sent
			late += sh.late
			lagSum += sh.lagSum
			lagMax = max(lagMax, sh.lagMax)
		}
		sh.mu.Unlock()
	}
	// Requests sharing a label share a row.
	var merged []*acc
	idx := map[string]int{}
	for i, c := range r.reqs {
		j, ok := idx[c.label]
		if !ok {
			j = len(merged)
			idx[c.label] = j
			order = append(order, c.label)
			merged = append(merged, newAcc())
		}
		merged[j].merge(labels[i])
	}
	s.fill(order, merged, &kinds, codes, nil)
	if r.open {
		o := &OpenStats{Rate: cfg.Rate, Sent: sent, Late: late, MaxLagMS: usToMS(lagMax)}
		if sent > 0 {
			o.MeanLagMS = round3(float64(lagSum) / float64(sent) / 1000)
		}
		if finish.After(r.measure) {
			o.Scheduled = int64(math.Ceil(r.dueBefore(finish.Sub(r.t0)))) - r.firstMeasure
			if cfg.MaxRequests > 0 {
				o.Scheduled = min(o.Scheduled, cfg.MaxRequests)
			}
		}
		o.Missed = max(o.Scheduled-sent, 0)
		tmp := &acc{h: uncorr, n: uncorr.TotalCount()}
		if tmp.n > 0 {
			tmp.min, tmp.max = uncorr.Min(), uncorr.Max()
			tmp.sum = int64(uncorr.Mean() * float64(tmp.n))
		}
		o.Uncorrected = tmp.latency()
		s.Open = o
		if o.Missed > 0 || o.Late > o.Sent/100 {
			o.Behind = "generator"
			if s.serverHeld() {
				o.Behind = "server"
			}
		}
	}
	return s
}

// dueBefore is how many sends the open schedule has due in the first t of
// the run (fractional); offset is its inverse.
func (r *runner) dueBefore(t time.Duration) float64 {
	x, rate, ramp := t.Seconds(), r.cfg.Rate, r.cfg.RampUp.Seconds()
	if x <= 0 {
		return 0
	}
	if x < ramp {
		return rate * x * x / (2 * ramp)
	}
	return r.rampN + rate*(x-ramp)
}

func (r *runner) offset(i int64) time.Duration {
	n, rate, ramp := float64(i), r.cfg.Rate, r.cfg.RampUp.Seconds()
	var sec float64
	if n < r.rampN {
		sec = math.Sqrt(2 * ramp * n / rate)
	} else {
		sec = ramp + (n-r.rampN)/rate
	}
	return time.Duration(sec * float64(time.Second))
}
