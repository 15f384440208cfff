package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"runtime"
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
	s, err := Run(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 50, MaxRequests: int64(b.N), noEvloop: goroutines})
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
		s, err := Run(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 8, MaxRequests: n})
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
	s, err := Run(context.Background(), Config{Requests: []Request{{URL: url}}, Users: 50, MaxRequests: int64(b.N)})
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
	s, err := Run(context.Background(), Config{Requests: []Request{{URL: url}}, Rate: 1e6, Connections: 50, MaxRequests: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	if s.Requests != int64(b.N) {
		b.Fatalf("%d requests", s.Requests)
	}
}
