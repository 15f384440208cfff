package loadgen

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// countingServer counts requests and the peak of concurrent ones.
type countingServer struct {
	*httptest.Server
	hits, inflight, peak atomic.Int64
	delay                atomic.Int64 // ns
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	cs := &countingServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.hits.Add(1)
		n := cs.inflight.Add(1)
		for {
			p := cs.peak.Load()
			if n <= p || cs.peak.CompareAndSwap(p, n) {
				break
			}
		}
		if d := cs.delay.Load(); d > 0 {
			time.Sleep(time.Duration(d))
		}
		cs.inflight.Add(-1)
		if h != nil {
			h(w, r)
			return
		}
		io.WriteString(w, "hello")
	}))
	t.Cleanup(cs.Close)
	return cs
}

// sawBetween waits briefly for handlers still starting, then checks the
// server's count: requests cut off at the end may or may not have reached it.
func (cs *countingServer) sawBetween(lo, hi int64) bool {
	for i := 0; i < 100 && cs.hits.Load() < lo; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	n := cs.hits.Load()
	return n >= lo && n <= hi
}

// bothEngines runs a closed-model test on the event loop and on the
// goroutine client; cfg adjusts a Config for the engine.
func bothEngines(t *testing.T, f func(t *testing.T, engine func(*Config))) {
	t.Run("evloop", func(t *testing.T) {
		f(t, func(c *Config) {
			r, err := newRunner(*c)
			if err == nil && !r.evloopOK() {
				t.Fatal("this configuration does not run on the event loop")
			}
		})
	})
	t.Run("goroutines", func(t *testing.T) { f(t, func(c *Config) { c.noEvloop = true }) })
}

func TestClosedCountMatchesServer(t *testing.T) { bothEngines(t, testClosedCountMatchesServer) }

func testClosedCountMatchesServer(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cfg := Config{Requests: []Request{{URL: cs.URL + "/x"}}, Users: 4, MaxRequests: 500}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 500 || cs.hits.Load() != 500 {
		t.Fatalf("requests %d, server saw %d, want 500", s.Requests, cs.hits.Load())
	}
	if s.Errors != 0 || s.StatusCodes["200"] != 500 {
		t.Fatalf("errors %d codes %v", s.Errors, s.StatusCodes)
	}
	if s.Labels[0].Label != "GET /x" || s.Latency.P50 <= 0 || s.Latency.Max < s.Latency.P99 {
		t.Fatalf("summary %+v", s)
	}
	var b bytes.Buffer
	WriteText(&b, s, finding.EN)
	t.Log(b.String())
}

func TestClosedHoldsExactlyNInFlight(t *testing.T) { bothEngines(t, testClosedHoldsExactlyNInFlight) }

func testClosedHoldsExactlyNInFlight(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cs.delay.Store(int64(20 * time.Millisecond))
	const users = 7
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Users: users, Duration: 600 * time.Millisecond}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p := cs.peak.Load(); p != users {
		t.Fatalf("peak concurrency %d, want %d", p, users)
	}
	if !cs.sawBetween(s.Requests, s.Requests+s.Aborted) {
		t.Fatalf("counted %d+%d aborted, server saw %d", s.Requests, s.Aborted, cs.hits.Load())
	}
}

// More connections than open files: a clear error before anything starts.
func TestConnectionsBeyondFileLimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	users := int(min(lim.Cur, 1<<30)) // plus the process's own files: over the limit
	_, err := Generate(context.Background(), Config{Requests: []Request{{URL: "http://127.0.0.1:9/"}}, Users: users, MaxRequests: 1})
	if err == nil || !strings.Contains(err.Error(), "ulimit -n") || !strings.Contains(err.Error(), strconv.FormatUint(lim.Cur, 10)) {
		t.Fatalf("err = %v", err)
	}
}

func TestRefusedIsClearError(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, err := Generate(context.Background(), Config{Requests: []Request{{URL: "http://" + addr}}, Users: 1, MaxRequests: 1})
	te, ok := err.(*TargetError)
	if !ok || te.Kind != KindRefused || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenKeepsRateAgainstSlowServer(t *testing.T) {
	bothEngines(t, testOpenKeepsRateAgainstSlowServer)
}

func testOpenKeepsRateAgainstSlowServer(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cs.delay.Store(int64(50 * time.Millisecond))
	// 2 connections can do 40 req/s; the schedule asks 100/s and must not slow.
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Rate: 100, Connections: 2,
		Duration: 1500 * time.Millisecond}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := s.Open
	if o == nil || o.Scheduled < 140 || o.Scheduled > 160 {
		t.Fatalf("scheduled %+v, want ~150", o)
	}
	if o.Sent+o.Missed != o.Scheduled || o.Missed < 50 || o.Late == 0 {
		t.Fatalf("open stats %+v", o)
	}
	// Latency from the intended time includes the wait for a connection.
	if s.Latency.Max < 500 || s.Latency.P50 <= o.Uncorrected.P50 {
		t.Fatalf("latency %+v uncorrected %+v", s.Latency, o.Uncorrected)
	}
	if !cs.sawBetween(s.Requests+s.Warmup, s.Requests+s.Aborted+s.Warmup) {
		t.Fatalf("counted %d+%d, server saw %d", s.Requests, s.Aborted, cs.hits.Load())
	}
}

func TestOpenRateWithEnoughConnections(t *testing.T) {
	bothEngines(t, testOpenRateWithEnoughConnections)
}

func testOpenRateWithEnoughConnections(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cs.delay.Store(int64(30 * time.Millisecond))
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Rate: 200, Connections: 50,
		Duration: 1500 * time.Millisecond}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Loose bounds: the machine running the tests may be busy.
	o := s.Open
	if o.Scheduled < 299 || o.Scheduled > 301 || o.Sent+o.Missed != o.Scheduled || s.Requests < 200 || s.Requests > 301 {
		t.Fatalf("requests %d, open %+v", s.Requests, s.Open)
	}
}

func TestOpenP99ReflectsStall(t *testing.T) { bothEngines(t, testOpenP99ReflectsStall) }

func testOpenP99ReflectsStall(t *testing.T, engine func(*Config)) {
	var stallFrom, stallTo atomic.Int64
	cs := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		if now >= stallFrom.Load() && now < stallTo.Load() {
			time.Sleep(time.Duration(stallTo.Load() - now))
		}
		io.WriteString(w, "ok")
	})
	start := time.Now()
	stallFrom.Store(start.Add(700 * time.Millisecond).UnixNano())
	stallTo.Store(start.Add(1700 * time.Millisecond).UnixNano())
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Rate: 200, Connections: 10,
		Duration: 2500 * time.Millisecond}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// About 200 of ~500 requests were due during the 1 s stall: a closed-loop
	// view would show ~10 slow samples; from the intended time p90 and p99 see it.
	if s.Latency.P99 < 700 || s.Latency.P90 < 300 {
		t.Fatalf("p90 %.1f p99 %.1f ms, want the 1 s stall visible", s.Latency.P90, s.Latency.P99)
	}
	if s.Open.Uncorrected.P90 > s.Latency.P90/2 {
		t.Fatalf("uncorrected p90 %.1f vs corrected %.1f", s.Open.Uncorrected.P90, s.Latency.P90)
	}
	if s.Requests < 350 {
		t.Fatalf("requests %d: schedule not kept (%+v)", s.Requests, s.Open)
	}
	var b bytes.Buffer
	WriteText(&b, s, finding.EN)
	t.Log(b.String())
}

func TestErrorKinds(t *testing.T) { bothEngines(t, testErrorKinds) }

func testErrorKinds(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			time.Sleep(1500 * time.Millisecond)
		case "/500":
			w.WriteHeader(500)
		case "/close":
			w.Header().Set("Connection", "close")
		case "/big": // chunked
			for range 100 {
				io.WriteString(w, strings.Repeat("x", 1000))
				w.(http.Flusher).Flush()
			}
			io.WriteString(w, "needle")
			return
		}
		io.WriteString(w, "ok")
	})
	cfg := Config{Requests: []Request{
		{URL: cs.URL + "/slow", Label: "slow"},
		{URL: cs.URL + "/500", Label: "500"},
		{URL: cs.URL + "/close", Label: "close", ExpectBody: "nope"},
		{URL: cs.URL + "/big", Label: "big", ExpectBody: "needle", ExpectStatus: []int{200}},
	}, Users: 4, MaxRequests: 40, Timeout: time.Second}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	byLabel := map[string]LabelStats{}
	for _, l := range s.Labels {
		byLabel[l.Label] = l
	}
	if l := byLabel["slow"]; l.Errors != l.Requests || s.ErrorKinds["timeout"] != l.Requests {
		t.Errorf("slow: %+v kinds %v", l, s.ErrorKinds)
	}
	if l := byLabel["500"]; l.Errors != l.Requests || s.ErrorKinds["status"] != l.Requests {
		t.Errorf("500: %+v kinds %v", l, s.ErrorKinds)
	}
	if l := byLabel["close"]; l.Errors != l.Requests || s.ErrorKinds["assertion"] != l.Requests {
		t.Errorf("close: %+v kinds %v", l, s.ErrorKinds)
	}
	if l := byLabel["big"]; l.Errors != 0 || l.Requests == 0 || l.RecvKBps <= 0 {
		t.Errorf("big: %+v", l)
	}
	if s.Requests != 40 {
		t.Errorf("requests %d", s.Requests)
	}
}

func TestWarmupExcludedAndSeries(t *testing.T) { bothEngines(t, testWarmupExcludedAndSeries) }

func testWarmupExcludedAndSeries(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cs.delay.Store(int64(5 * time.Millisecond))
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Rate: 100, Connections: 10,
		WarmUp: 500 * time.Millisecond, Duration: 2 * time.Second}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Warm-up is decided by the intended send time, so CPU starvation on a
	// shared machine cannot move requests across the boundary.
	o := s.Open
	if s.Warmup < 49 || s.Warmup > 51 || o.Scheduled < 199 || o.Scheduled > 201 || o.Sent+o.Missed != o.Scheduled {
		t.Fatalf("warm-up %d requests %d open %+v", s.Warmup, s.Requests, o)
	}
	if !cs.sawBetween(s.Requests+s.Warmup, s.Requests+s.Warmup+s.Aborted) {
		t.Fatalf("%d+%d+%d != server %d", s.Requests, s.Warmup, s.Aborted, cs.hits.Load())
	}
	if len(s.Series) < 2 || s.Series[0].T != 0 || s.Series[0].Requests == 0 {
		t.Fatalf("series %+v", s.Series)
	}
	var sum int64
	for _, p := range s.Series {
		sum += p.Requests
	}
	if sum != s.Requests {
		t.Fatalf("series sums to %d, want %d", sum, s.Requests)
	}
}

// A late last warm-up tick (here held up 1.5 s by the progress callback,
// as a starved machine holds it up) must not take the first measured
// answers out of the series: the series still sums to the requests.
func TestSeriesAfterLateWarmupTick(t *testing.T) { bothEngines(t, testSeriesAfterLateWarmupTick) }

func testSeriesAfterLateWarmupTick(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	held := false
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Rate: 100, Connections: 4,
		WarmUp: 2 * time.Second, Duration: time.Second,
		OnSecond: func(p Progress) {
			if p.Warmup && !held {
				held = true
				time.Sleep(1500 * time.Millisecond)
			}
		}}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, p := range s.Series {
		sum += p.Requests
	}
	if !held || s.Requests < 50 || sum != s.Requests {
		t.Fatalf("held %v: series sums to %d, requests %d (series %+v)", held, sum, s.Requests, s.Series)
	}
}

func TestRampUpAndThink(t *testing.T) {
	// The server stamps each request: users that start late cannot have sent
	// early, however slow the machine is (timers never fire early), so the
	// bound below holds on a busy host and fails when the ramp is ignored.
	var mu sync.Mutex
	var stamps []time.Time
	cs := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stamps = append(stamps, time.Now())
		mu.Unlock()
		io.WriteString(w, "hello")
	})
	var ticks []Progress
	before := time.Now()
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: cs.URL}}, Users: 5,
		RampUp: time.Second, Think: 50 * time.Millisecond, Duration: 2 * time.Second,
		OnSecond: func(p Progress) { ticks = append(ticks, p) }})
	if err != nil {
		t.Fatal(err)
	}
	// Users start at 0, .2, .4, .6, .8 s; each does <= 20 req/s: well under 200.
	if s.Requests < 5 || s.Requests > 200 || len(s.Series) < 2 {
		t.Fatalf("requests %d series %+v", s.Requests, s.Series)
	}
	// In the first 0.5 s only users 1-3 can have started: at most 11+7+3
	// requests with 50 ms think (5 users from the start would send up to 55).
	mu.Lock()
	early := 0
	for _, at := range stamps {
		if at.Sub(before) < 500*time.Millisecond {
			early++
		}
	}
	mu.Unlock()
	if early > 25 {
		t.Fatalf("%d requests in the first 0.5 s: the ramp-up did not hold users back", early)
	}
	if len(ticks) < 1 || ticks[0].Remaining <= 0 || ticks[0].Last.Requests == 0 {
		t.Fatalf("progress %+v", ticks)
	}
}

func TestOpenCountBound(t *testing.T) { bothEngines(t, testOpenCountBound) }

func testOpenCountBound(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Rate: 1000, Connections: 5, MaxRequests: 300}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The count ends the run (no duration was given); at 1000/s that is
	// 0.3 s, and a starved generator that needed longer says it fell behind.
	if s.Requests != 300 || cs.hits.Load() != 300 || s.Open.Scheduled != 300 || s.Duration > 1 && s.Open.Behind != "generator" {
		t.Fatalf("requests %d hits %d open %+v dur %v", s.Requests, cs.hits.Load(), s.Open, s.Duration)
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tls") }))
	defer srv.Close()
	_, err := Generate(context.Background(), Config{Requests: []Request{{URL: srv.URL}}, Users: 1, MaxRequests: 1})
	var te *TargetError
	if !errors.As(err, &te) || te.Kind != KindTLS || !strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("untrusted certificate: %v", err)
	}
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: srv.URL, ExpectBody: "tls"}}, Users: 2, MaxRequests: 50, Insecure: true})
	if err != nil || s.Requests != 50 || s.Errors != 0 {
		t.Fatalf("insecure: %v %+v", err, s)
	}
	// Plain HTTP to a TLS port, and TLS to a plain port.
	plain := newCountingServer(t, nil)
	_, err = Generate(context.Background(), Config{Requests: []Request{{URL: strings.Replace(plain.URL, "http:", "https:", 1)}},
		Users: 1, MaxRequests: 1, Timeout: 2 * time.Second})
	if !errors.As(err, &te) || te.Kind != KindTLS {
		t.Fatalf("https to http port: %v", err)
	}
}

func TestDNSFailure(t *testing.T) {
	_, err := Generate(context.Background(), Config{Requests: []Request{{URL: "http://no-such-host.invalid/"}}, Users: 1,
		MaxRequests: 1, Timeout: 3 * time.Second})
	var te *TargetError
	if !errors.As(err, &te) || (te.Kind != KindDNS && te.Kind != KindConnect) {
		t.Fatalf("err %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for name, c := range map[string]Config{
		"no requests": {Users: 1, Duration: time.Second},
		"unbounded":   {Requests: []Request{{URL: "http://127.0.0.1/"}}, Users: 1},
		"both models": {Requests: []Request{{URL: "http://127.0.0.1/"}}, Users: 1, Rate: 1, Duration: time.Second},
		"bad url":     {Requests: []Request{{URL: "http://"}}, Users: 1, Duration: time.Second},
		"bad method":  {Requests: []Request{{URL: "http://h/", Method: "GE T"}}, Users: 1, Duration: time.Second},
		"unknown var": {Requests: []Request{{URL: "http://h/${nope}"}}, Users: 1, Duration: time.Second, Vars: &Vars{Names: []string{"a"}, Rows: [][]string{{"1"}}}},
	} {
		if _, err := Generate(context.Background(), c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestInterruptReturnsSummary(t *testing.T) { bothEngines(t, testInterruptReturnsSummary) }

func testInterruptReturnsSummary(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cs.delay.Store(int64(200 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Users: 3, Duration: time.Minute}
	engine(&cfg)
	s, err := Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second || !s.Interrupted || s.Requests == 0 {
		t.Fatalf("took %v, %+v", time.Since(start), s)
	}
}

func TestOpenScheduleMath(t *testing.T) {
	for _, ramp := range []time.Duration{0, time.Second, 2500 * time.Millisecond} {
		r := &runner{cfg: Config{Rate: 200, RampUp: ramp}}
		r.rampN = r.cfg.Rate * ramp.Seconds() / 2
		prev := time.Duration(-1)
		for i := int64(0); i < 2000; i++ {
			off := r.offset(i)
			if off < prev {
				t.Fatalf("ramp %v: offset(%d)=%v before offset(%d)=%v", ramp, i, off, i-1, prev)
			}
			prev = off
			// dueBefore is the inverse: just after offset(i), i+1 sends are due.
			if d := r.dueBefore(off + time.Microsecond); math.Abs(d-float64(i+1)) > 1 {
				t.Fatalf("ramp %v: dueBefore(offset(%d)) = %.2f", ramp, i, d)
			}
		}
		// After the ramp the rate is full: rate*ramp/2 + rate*(t-ramp).
		if d := r.dueBefore(ramp + 2*time.Second); math.Abs(d-(r.rampN+400)) > 1e-6 {
			t.Fatalf("ramp %v: due %.1f", ramp, d)
		}
	}
}

func TestHTTP2WhereOffered(t *testing.T) {
	var h2 atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		}
		body, _ := io.ReadAll(r.Body)
		w.Write(body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: srv.URL + "/echo", Method: "POST", Body: []byte("ping"),
		ExpectBody: "ping"}}, Users: 3, MaxRequests: 60, HTTP2: true, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 60 || s.Errors != 0 || s.HTTP2Requests != 60 || h2.Load() != 60 {
		t.Fatalf("requests %d errors %d %v http2 %d server h2 %d", s.Requests, s.Errors, s.ErrorKinds, s.HTTP2Requests, h2.Load())
	}
	// A plain-HTTP server: the same path falls back to HTTP/1.1.
	plain := newCountingServer(t, nil)
	s, err = Generate(context.Background(), Config{Requests: []Request{{URL: plain.URL}}, Users: 2, MaxRequests: 20, HTTP2: true})
	if err != nil || s.Requests != 20 || s.Errors != 0 || s.HTTP2Requests != 0 || plain.hits.Load() != 20 {
		t.Fatalf("plain: %v %+v", err, s)
	}
}

// A server that silently closes each keep-alive connection after one
// response (as an idle timeout does): the next request on it fails before
// any byte, is retried on a new connection, and is not an error.
func TestStaleKeepAliveRetried(t *testing.T) { bothEngines(t, testStaleKeepAliveRetried) }

func testStaleKeepAliveRetried(t *testing.T, engine func(*Config)) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				if _, err := c.Read(buf); err != nil {
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				time.Sleep(5 * time.Millisecond) // close after the client has the response
			}()
		}
	}()
	cfg := Config{Requests: []Request{{URL: "http://" + l.Addr().String() + "/"}}, Users: 1, MaxRequests: 20}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 20 || s.Errors != 0 {
		t.Fatalf("requests %d errors %d %v", s.Requests, s.Errors, s.ErrorKinds)
	}
}

// The service goes away mid-run: every later request fails with a
// connection error, counted by kind, and the run still ends on its bound
// (the users back off meanwhile: TestBackoffWhileTheServiceIsDown).
func TestServiceGoneMidRun(t *testing.T) { bothEngines(t, testServiceGoneMidRun) }

func testServiceGoneMidRun(t *testing.T, engine func(*Config)) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 100 {
			go l.Close() // no new connections
		}
		w.Header().Set("Connection", "close") // every request needs a new one
		io.WriteString(w, "ok")
	})}
	go srv.Serve(l)
	defer srv.Close()
	cfg := Config{Requests: []Request{{URL: "http://" + l.Addr().String() + "/"}},
		Users: 2, Duration: 2 * time.Second, Timeout: 2 * time.Second}
	engine(&cfg)
	start := time.Now()
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ok := s.Requests - s.Errors
	if ok < 99 || ok > served.Load() || s.ErrorKinds["connect_refused"] < 2 {
		t.Fatalf("requests %d errors %d kinds %v", s.Requests, s.Errors, s.ErrorKinds)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

// Ramp-up without think time runs on the event loop: users start in turn.
func TestRampUpOnEventLoop(t *testing.T) { bothEngines(t, testRampUp) }

func testRampUp(t *testing.T, engine func(*Config)) {
	cs := newCountingServer(t, nil)
	cs.delay.Store(int64(10 * time.Millisecond))
	cfg := Config{Requests: []Request{{URL: cs.URL}}, Users: 4, RampUp: 2 * time.Second, Duration: 2 * time.Second}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Users start at 0, .5, 1, 1.5 s: the first second has at most 2 in flight.
	if len(s.Series) < 2 || s.Series[0].Requests == 0 || s.Series[0].Requests >= s.Series[1].Requests {
		t.Fatalf("series %+v", s.Series)
	}
	if p := cs.peak.Load(); p != 4 {
		t.Fatalf("peak %d in flight, want 4", p)
	}
}

// A service that goes down mid-run: each user backs off after refused
// connects (10 ms doubling to 1 s) instead of spinning, and comes back
// when the service does.
func TestBackoffWhileTheServiceIsDown(t *testing.T) { bothEngines(t, testBackoffWhileTheServiceIsDown) }

func testBackoffWhileTheServiceIsDown(t *testing.T, engine func(*Config)) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var hits atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); io.WriteString(w, "ok") })
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	const users = 8
	cfg := Config{Requests: []Request{{URL: "http://" + addr + "/"}}, Users: users, Duration: 3 * time.Second}
	engine(&cfg)
	var down, back atomic.Int64 // hits when the service went down and came back
	go func() {
		time.Sleep(500 * time.Millisecond)
		srv.Close() // the listener and every keep-alive connection
		down.Store(hits.Load())
		time.Sleep(time.Second)
		ln2, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen again on %s: %v", addr, err)
			return
		}
		back.Store(hits.Load())
		srv2 := &http.Server{Handler: h}
		go srv2.Serve(ln2)
		t.Cleanup(func() { srv2.Close() })
	}()
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	refused := s.ErrorKinds["connect_refused"]
	// Down for 1 s: a user makes at most ~8 attempts (0, 10, 30, 70, 150,
	// 310, 630 ms, then every second); spinning makes hundreds of thousands.
	if refused == 0 || refused > users*12 {
		t.Errorf("%d refused connects while down for 1 s with %d users, want 1..%d", refused, users, users*12)
	}
	if hits.Load() <= back.Load() || back.Load() == 0 {
		t.Errorf("no request reached the service after it came back (hits %d, %d when it came back)", hits.Load(), back.Load())
	}
	t.Logf("%d refused, %d requests before the outage, %d after", refused, down.Load(), hits.Load()-back.Load())
}
