package session

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/stats"
)

func sleepyConfig(t *testing.T, d time.Duration) loadgen.Config {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(d)
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return loadgen.Config{Requests: []loadgen.Request{{URL: srv.URL + "/"}}, Users: 4}
}

// Versus keeps each window's latencies: every measured request is in its
// window's distribution, whose p99 is the one the window reports, so a
// side's windows can be pooled; pooled, a service three times slower per
// request has the higher p99.
func TestVersusWindowLatencies(t *testing.T) {
	fast, slow := sleepyConfig(t, 10*time.Millisecond), sleepyConfig(t, 30*time.Millisecond)
	pairs, err := Versus(context.Background(), fast, slow, VersusOptions{Window: time.Second, Pairs: 4, WarmUp: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 4 {
		t.Fatalf("%d pairs", len(pairs))
	}
	var b, a []stats.Dist
	for i, p := range pairs {
		for j, w := range p {
			if want := [2]string{"a", "b"}[j]; w.Side != want {
				t.Errorf("pair %d window %d: side %q", i, j, w.Side)
			}
			if w.Requests == 0 || w.Latency.Total() != w.Requests {
				t.Errorf("pair %d %s: %d requests, %d in its latencies", i, w.Side, w.Requests, w.Latency.Total())
			}
			if q := w.Latency.Quantile(0.99); math.Abs(q-w.P99) > 0.01*w.P99+0.002 {
				t.Errorf("pair %d %s: p99 %.3f ms from the latencies, %.3f reported", i, w.Side, q, w.P99)
			}
		}
		t.Logf("pair %d: a %.0f TPS p99 %.2f ms, b %.0f TPS p99 %.2f ms", i, p[0].TPS, p[0].P99, p[1].TPS, p[1].P99)
		b, a = append(b, p[0].Latency), append(a, p[1].Latency)
	}
	// ABBA: the second pair's B window came first.
	if !pairs[1][1].Start.Before(pairs[1][0].Start) || !pairs[0][0].Start.Before(pairs[0][1].Start) {
		t.Errorf("not A B B A: %v %v", pairs[0], pairs[1])
	}
	// The verdict on these pooled p99s is compare's (tested there on
	// deterministic windows); on a host this busy 4 pairs may leave it
	// inconclusive, but the slow service's pooled p99 is the higher: its
	// 30 ms sleep is a floor no scheduling delay removes, while a margin
	// such as 1.5x is eaten by the delays both sides get on a loaded host.
	e, ok := stats.ComparePooledQuantile(b, a, 0.99)
	if !ok || e.NBefore != 4 || e.After <= e.Before {
		t.Errorf("3x slower: pooled p99 %.2f -> %.2f ms (%+.1f%%, [%+.1f, %+.1f])", e.Before, e.After, e.ChangePct, e.LoPct, e.HiPct)
	}
}
