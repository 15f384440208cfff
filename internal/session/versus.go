package session

import (
	"context"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// Window is one window of an alternating A/B load.
type Window struct {
	Side  string    `json:"side"` // "a" or "b"
	Start time.Time `json:"start"`
	// TPS and P99 (ms) of the window; Requests and Errors its counts.
	TPS      float64 `json:"tps"`
	P99      float64 `json:"p99_ms"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	// Latency is the window's latency distribution (ms), kept so that a
	// side's windows can be pooled (stats.ComparePooledQuantile).
	Latency stats.Dist `json:"-"`
}

// VersusOptions bound an alternating load.
type VersusOptions struct {
	// Window is each side's turn; Pairs the number of A/B pairs measured
	// (rounded up to whole ABBA blocks); WarmUp each side's load first.
	Window time.Duration
	Pairs  int
	WarmUp time.Duration
	// OnWindow, if set, is told of each finished window.
	OnWindow func(i, n int, w Window)
}

// Versus loads two services in turn, in windows ordered A B B A A B B A ...:
// both services are up, only one is loaded at a time, and the two windows
// of a pair are back to back, so what drifts on a shared host (a
// neighbour's job, a CPU's clock, the other JVM's GC) hits both sides of a
// pair alike. Whole runs taken in turn leave minutes between the two sides
// of a pair; windows leave none. ABBA rather than ABAB so that neither side
// always goes first. Pairs are (windows 0,1), (3,2), (4,5), (7,6) ...: each
// pair's A and B windows are adjacent.
func Versus(ctx context.Context, a, b loadgen.Config, o VersusOptions) (pairs [][2]Window, err error) {
	if o.WarmUp > 0 {
		for _, cfg := range []loadgen.Config{a, b} {
			cfg.Duration, cfg.WarmUp, cfg.MaxRequests, cfg.Sink, cfg.OnSecond = o.WarmUp, 0, 0, nil, nil
			if _, err := loadgen.Generate(ctx, cfg); err != nil {
				return nil, err
			}
		}
	}
	blocks := (o.Pairs + 1) / 2
	n := 4 * blocks
	for k := range blocks {
		var w [4]Window
		for j, side := range []string{"a", "b", "b", "a"} {
			cfg := a
			if side == "b" {
				cfg = b
			}
			cfg.Duration, cfg.WarmUp, cfg.MaxRequests, cfg.OnSecond = o.Window, 0, 0, nil
			h := &histSink{h: hdr.New(1, int64(10*time.Minute/time.Microsecond), 3)}
			cfg.Sink = loadgen.Tee(cfg.Sink, h)
			start := time.Now()
			sum, err := loadgen.Generate(ctx, cfg)
			if err != nil {
				return pairs, err
			}
			w[j] = Window{Side: side, Start: start, TPS: sum.TPS, P99: sum.Latency.P99, Requests: sum.Requests, Errors: sum.Errors, Latency: h.dist()}
			if o.OnWindow != nil {
				o.OnWindow(4*k+j+1, n, w[j])
			}
		}
		pairs = append(pairs, [2]Window{w[0], w[1]}, [2]Window{w[3], w[2]})
	}
	return pairs, nil
}

// histSink keeps a window's latencies as the load's own summary does (the
// elapsed time in µs, 1 µs to 10 min at 3 significant digits: a bucket is
// 0.1% wide, finer than any change the gate judges).
type histSink struct {
	mu sync.Mutex
	h  *hdr.Histogram
}

func (s *histSink) Record(x *loadgen.Sample) {
	us := min(max(int64(x.Elapsed/time.Microsecond), 1), s.h.HighestTrackableValue())
	s.mu.Lock()
	_ = s.h.RecordValue(us)
	s.mu.Unlock()
}

// dist is the histogram's non-empty buckets, each at its highest
// equivalent value in ms (the value HdrHistogram reports a percentile as).
func (s *histSink) dist() stats.Dist {
	s.mu.Lock()
	defer s.mu.Unlock()
	var d stats.Dist
	for _, b := range s.h.Distribution() {
		if b.Count > 0 {
			d.Values = append(d.Values, float64(b.To)/1000)
			d.Counts = append(d.Counts, b.Count)
		}
	}
	return d
}

// VersusCompare judges the pairs of Versus as pairs of adjacent windows
// (compare.FromWindows) of urlA against urlB, with the failed requests as
// a warning. A side on which no request succeeded was not measured: that
// is an error, not a comparison.
func VersusCompare(pairs [][2]Window, urlA, urlB string, window time.Duration, powerPct float64) (*compare.Comparison, error) {
	var wp []compare.WindowPair
	var errs, reqs int64
	var sideReqs, sideErrs [2]int64
	for _, p := range pairs {
		wp = append(wp, compare.WindowPair{BeforeTPS: p[0].TPS, AfterTPS: p[1].TPS, BeforeP99: p[0].P99, AfterP99: p[1].P99,
			BeforeLatency: p[0].Latency, AfterLatency: p[1].Latency})
		errs += p[0].Errors + p[1].Errors
		reqs += p[0].Requests + p[1].Requests
		for i := range 2 {
			sideReqs[i] += p[i].Requests
			sideErrs[i] += p[i].Errors
		}
	}
	for i, url := range []string{urlA, urlB} {
		if sideReqs[i] > 0 && sideErrs[i] >= sideReqs[i] {
			return nil, finding.Errorf(finding.T("%s: 0 succeeded of %d requests: nothing to compare (tuneloop load %s alone names the errors)",
				"%s：%d 个请求中成功 0 个：无从比较（单独运行 tuneloop load %s 可列出错误）"), finding.SafeLine(url), sideReqs[i], finding.SafeLine(url))
		}
	}
	c := compare.FromWindows(urlA, urlB, wp, window.String(), powerPct)
	if errs > 0 {
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("%d of %d requests failed", "%d / %d 个请求失败"), errs, reqs))
	}
	return c, nil
}
