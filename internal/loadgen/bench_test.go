package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// rawServer answers every request with a fixed keep-alive response, using
// little CPU so benchmarks measure the client.
func rawServer(tb testing.TB, resp string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReaderSize(c, 16<<10)
				out := []byte(resp)
				for {
					// A request ends with an empty line; bodies are not used here.
					for {
						line, err := br.ReadSlice('\n')
						if err != nil {
							return
						}
						if len(bytes.TrimSpace(line)) == 0 {
							break
						}
					}
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/"
}

const okResp = "HTTP/1.1 200 OK\r\nServer: bench\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n" +
	"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"

// benchWorker returns a worker of a prepared runner, outside Run, so one
// request can be timed and its allocations counted.
func benchWorker(tb testing.TB, url string) *worker {
	r, err := newRunner(Config{Requests: []Request{{URL: url}}, Users: 1, Duration: time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	r.prepare()
	tb.Cleanup(func() { r.stop(); r.workers[0].closeAll() })
	return r.workers[0]
}

func TestZeroAllocsPerRequest(t *testing.T) {
	w := benchWorker(t, rawServer(t, okResp))
	c := w.r.reqs[0]
	for range 10 {
		w.do(c, time.Now(), true)
	}
	// AllocsPerRun runs the function once more to warm up: 211 in all.
	allocs := testing.AllocsPerRun(200, func() { w.do(c, time.Now(), true) })
	if allocs != 0 {
		t.Fatalf("%.1f allocations per keep-alive request, want 0", allocs)
	}
	sh := w.shard
	if sh.labels[0].n != 211 || sh.labels[0].errs != 0 {
		t.Fatalf("recorded %d requests, %d errors", sh.labels[0].n, sh.labels[0].errs)
	}
}

// BenchmarkRequest: one keep-alive request through the whole client path
// (render, write, parse, record) against a raw local server.
func BenchmarkRequest(b *testing.B) {
	w := benchWorker(b, rawServer(b, okResp))
	c := w.r.reqs[0]
	w.do(c, time.Now(), true)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.do(c, time.Now(), true)
	}
}

// BenchmarkClosedRun: a closed-model run of b.N requests on 50 connections
// (the event loop).
func BenchmarkClosedRun(b *testing.B) { benchClosed(b, false) }

// BenchmarkClosedRunGoroutines: the same on the goroutine-per-user client
// (TLS, think time, no keep-alive), for comparison with the event loop.
func BenchmarkClosedRunGoroutines(b *testing.B) { benchClosed(b, true) }

func benchClosed(b *testing.B, goroutines bool) {
	url := rawServer(b, okResp)
	b.ReportAllocs()
	b.ResetTimer()
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 50, MaxRequests: int64(b.N), noEvloop: goroutines})
	if err != nil {
		b.Fatal(err)
	}
	if s.Requests != int64(b.N) || s.Errors != 0 {
		b.Fatalf("%d requests %d errors", s.Requests, s.Errors)
	}
}

// The event loop allocates nothing per request either: the allocations of
// two runs differ by their setup only, whatever the request count.
func TestEventLoopAllocsPerRequest(t *testing.T) {
	url := rawServer(t, okResp)
	mallocs := func(n int64) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := Generate(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 8, MaxRequests: n})
		runtime.ReadMemStats(&after)
		if err != nil || s.Requests != n {
			t.Fatalf("%v %+v", err, s)
		}
		return after.Mallocs - before.Mallocs
	}
	mallocs(1000) // warm
	small, large := mallocs(1000), mallocs(21000)
	per := (float64(large) - float64(small)) / 20000
	if per > 0.01 {
		t.Fatalf("%.3f allocations per request (%d for 1000 requests, %d for 21000)", per, small, large)
	}
}

// BenchmarkExternal loads TUNELOOP_BENCH_URL (e.g. a local nginx) with 50
// users and reports requests per second of generator CPU, the figure to
// compare with wrk (getrusage: this process is only the client here).
func BenchmarkExternal(b *testing.B) {
	url := os.Getenv("TUNELOOP_BENCH_URL")
	if url == "" {
		b.Skip("set TUNELOOP_BENCH_URL")
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ReportAllocs()
	b.ResetTimer()
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 50, MaxRequests: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(s.Requests)/cpu.Seconds(), "req/cpu-s")
	b.ReportMetric(s.TPS, "req/s")
	b.ReportMetric(s.Latency.P99, "p99-ms")
}

// BenchmarkOpenRun: an open-model run at a rate above what the machine
// does, so it measures the pacer and workers flat out (allocs/op ~ 0).
func BenchmarkOpenRun(b *testing.B) {
	url := rawServer(b, okResp)
	b.ReportAllocs()
	b.ResetTimer()
	s, err := Generate(context.Background(), Config{Requests: []Request{{URL: url}}, Rate: 1e6, Connections: 50, MaxRequests: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	if s.Requests != int64(b.N) {
		b.Fatalf("%d requests", s.Requests)
	}
}

// closingServer answers each connection's one request with resp and closes
// it, one connection at a time, on raw system calls: it allocates nothing
// per connection, so the client's allocations can be counted process-wide.
func closingServer(tb testing.TB, resp string) (url string, conns *atomic.Int64) {
	lfd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Bind(lfd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Listen(lfd, 128); err != nil {
		tb.Fatal(err)
	}
	sa, err := syscall.Getsockname(lfd)
	if err != nil {
		tb.Fatal(err)
	}
	conns = new(atomic.Int64)
	done := make(chan struct{})
	tb.Cleanup(func() {
		syscall.Shutdown(lfd, syscall.SHUT_RDWR) // wakes accept
		<-done
		syscall.Close(lfd)
	})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		out := []byte(resp)
		for {
			cfd, _, e := syscall.Syscall6(syscall.SYS_ACCEPT4, uintptr(lfd), 0, 0, syscall.SOCK_CLOEXEC, 0, 0)
			if e != 0 {
				if e == syscall.EINTR || e == syscall.ECONNABORTED {
					continue
				}
				return
			}
			conns.Add(1)
			n := 0
			for n < len(buf) {
				m, err := syscall.Read(int(cfd), buf[n:])
				if err != nil || m <= 0 {
					break
				}
				n += m
				if bytes.Contains(buf[:n], []byte("\r\n\r\n")) {
					syscall.Write(int(cfd), out)
					break
				}
			}
			syscall.Close(int(cfd))
		}
	}()
	return fmt.Sprintf("http://127.0.0.1:%d/", sa.(*syscall.SockaddrInet4).Port), conns
}

const closeResp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"

// Without keep-alive the event loop runs too: a connection per request,
// its connect time in the sample, and no allocation per request either.
func TestEventLoopNoKeepAlive(t *testing.T) {
	url, conns := closingServer(t, closeResp)
	cfg := Config{Requests: []Request{{URL: url}}, Users: 4, MaxRequests: 300, DisableKeepAlive: true}
	if r, err := newRunner(cfg); err != nil || !r.evloopOK() {
		t.Fatalf("no keep-alive does not run on the event loop (%v)", err)
	}
	var sink connectSink
	cfg.Sink = &sink
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The pre-flight check opens one connection more.
	if s.Requests != 300 || s.Errors != 0 || conns.Load() != 301 {
		t.Fatalf("%d requests, %d errors, %d connections, want 300, 0, 301", s.Requests, s.Errors, conns.Load())
	}
	if sink.n.Load() != 300 || sink.withConnect.Load() != 300 {
		t.Fatalf("%d samples, %d with a connect time, want 300 and 300", sink.n.Load(), sink.withConnect.Load())
	}

	mallocs := func(n int64) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := Generate(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 4, MaxRequests: n, DisableKeepAlive: true})
		runtime.ReadMemStats(&after)
		if err != nil || s.Requests != n || s.Errors != 0 {
			t.Fatalf("%v %+v", err, s)
		}
		return after.Mallocs - before.Mallocs
	}
	mallocs(200) // warm
	small, large := mallocs(200), mallocs(4200)
	if per := (float64(large) - float64(small)) / 4000; per > 0.01 {
		t.Fatalf("%.3f allocations per request (%d for 200 requests, %d for 4200)", per, small, large)
	}
}

type connectSink struct{ n, withConnect atomic.Int64 }

func (c *connectSink) Record(s *Sample) {
	c.n.Add(1)
	if s.Connect > 0 {
		c.withConnect.Add(1)
	}
}

// The event loops open every user's connection before the clock starts, as
// the goroutine client's preconnect does: no request pays a connect, and
// the server sees one connection per user (and preflight's).
func TestEventLoopPreconnects(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	cfg := Config{Requests: []Request{{URL: srv.URL}}, Users: 20, MaxRequests: 400}
	if r, err := newRunner(cfg); err != nil || !r.evloopOK() {
		t.Fatalf("does not run on the event loop (%v)", err)
	}
	var sink connectSink
	cfg.Sink = &sink
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 400 || s.Errors != 0 || sink.n.Load() != 400 {
		t.Fatalf("%d requests, %d errors, %d samples", s.Requests, s.Errors, sink.n.Load())
	}
	if sink.withConnect.Load() != 0 || conns.Load() != 21 {
		t.Fatalf("%d requests paid a connect, the server saw %d connections; want 0 and 21", sink.withConnect.Load(), conns.Load())
	}
}

// A body nobody keeps goes through the sink in reads larger than the
// connection's buffer, and never past its end: the next response on the
// connection parses whole. A body kept for an assertion does not.
func TestSinkReadsLargeBodies(t *testing.T) {
	body := strings.Repeat("y", 1<<20)
	stream := "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + body +
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" +
		"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + body +
		"HTTP/1.0 200 OK\r\n\r\n" + body // to EOF
	src := &countingReader{r: strings.NewReader(stream)}
	rr := newRespReader(src, 8<<10)
	rr.sink = make([]byte, 256<<10)
	var resp response
	if err := rr.readResponse(&resp, false, 0); err != nil || resp.bodyLen != 1<<20 {
		t.Fatalf("first: %v, body %d", err, resp.bodyLen)
	}
	if src.reads > 8 {
		t.Fatalf("1 MiB body in %d reads, want at most 8 (the sink's 256 KiB)", src.reads)
	}
	if err := rr.readResponse(&resp, false, 0); err != nil || resp.bodyLen != 5 || resp.status != 200 {
		t.Fatalf("second: %v, status %d body %d", err, resp.status, resp.bodyLen)
	}
	// Kept for an assertion: through the buffer, the prefix captured.
	if err := rr.readResponse(&resp, false, 64); err != nil || resp.bodyLen != 1<<20 || string(resp.body) != strings.Repeat("y", 64) {
		t.Fatalf("captured: %v, body %d, kept %q", err, resp.bodyLen, resp.body)
	}
	if err := rr.readResponse(&resp, false, 0); err != nil || resp.bodyLen != 1<<20 || !resp.close {
		t.Fatalf("to EOF: %v, body %d, close %v", err, resp.bodyLen, resp.close)
	}
}

// countingReader hands out at most 300 KiB a read and counts the reads.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p[:min(len(p), 300<<10)])
}
