package report

// The load test page's document: what `tuneloop load --html` draws. Its
// totals come from the run's loadgen.Summary (or a load.json); its time
// series from a LoadRecorder that saw every sample as the run went, or,
// without one, from the summary's per-second series (fewer lines: no p90,
// no per-label, error-kind or lag series).

import (
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// LoadPage is the load test page. It is drawn, not serialised (missing
// values are NaN); load.json is the summary.
type LoadPage struct {
	Lang    finding.Lang
	Tool    Tool
	Title   string
	Summary *loadgen.Summary
	Notes   []finding.Text // said at the top: saturation, interruption
	Seconds []LoadSecond
	Labels  []LoadLabelSeries // per label, busiest first (at most loaddetail.MaxLabels)
	// Percentiles is the latency distribution: latency at each percentile
	// (HDR's percentile plot), from the recorder's full histogram or, from
	// a summary alone, its few percentiles.
	Percentiles []PercentilePoint
	// Series says where the series came from: "samples" or "summary".
	Series string
}

// LoadSecond is one second of the load, T seconds after the first.
type LoadSecond struct {
	T                  int
	Requests, Errors   int64
	P50, P90, P99, Max float64          // ms; P90 is NaN from a summary
	Kinds              map[string]int64 // errors by kind
	Codes              map[string]int64 // responses by HTTP status
	LagMean, LagMax    float64          // open model: send lag behind schedule, ms
	Lagged             int64            // sends with a lag recorded
	// Span is how much of this second the measured window covers (1 but
	// for the first and last seconds of a window that did not start or end
	// on a whole second): counts divided by it are rates.
	Span float64
}

// LoadLabelSeries is one label's requests and p90 per second (aligned with
// LoadPage.Seconds).
type LoadLabelSeries struct {
	Label    string
	Requests []int64
	P90      []float64
}

// PercentilePoint is the latency (ms) at or below which Pct% of requests
// completed.
type PercentilePoint struct {
	Pct float64
	MS  float64
}

// LoadRecorder is a loadgen.SampleSink that keeps what the page draws over
// time: per second (of the intended send time, as JMeter's dashboard
// buckets), a histogram of all requests, small log-bucket histograms per
// label, errors by kind and status codes, and the open model's send lag;
// plus one full histogram for the percentile plot. Memory grows with the
// seconds and labels, not the requests. Samples go to one of a few shards
// by their user, so the generator's event loops rarely wait on one lock.
type LoadRecorder struct {
	shards [recShards]*recShard
	// done holds the seconds the shards are finished with, merged (under
	// its own mu, taken after a shard's): a shard hands a second over when
	// it sees one 3 s later, so a long load keeps one histogram per second,
	// not one per shard (300 s at 8 shards: 61 MiB live before, 9.4 MiB after).
	done *recShard
}

// recShards is how many locks the recorder's samples are spread over.
const recShards = 8

// recShard is one lock's part of a recorder: a recorder of its own.
type recShard struct {
	mu     sync.Mutex
	secs   map[int64]*recSecond
	labels map[string]int // label -> index
	names  []string
	all    *hdr.Histogram
}

type recSecond struct {
	h        *hdr.Histogram
	n, errs  int64
	kinds    map[string]int64
	codes    map[int]int64    // by HTTP status (no string per sample)
	texts    map[string]int64 // response codes that are not numbers (imports)
	lagSum   int64            // µs
	lagMax   int64
	lagN     int64
	perLabel []*logHist
}

// NewLoadRecorder returns an empty recorder.
func NewLoadRecorder() *LoadRecorder {
	r := &LoadRecorder{done: newRecShard()}
	for i := range r.shards {
		r.shards[i] = newRecShard()
	}
	return r
}

func newRecShard() *recShard {
	return &recShard{secs: map[int64]*recSecond{}, labels: map[string]int{}, all: hdr.New(1, histTopUS, 3)}
}

// histTopUS is the histograms' top (10 minutes, loadgen's too).
const histTopUS = int64(10 * time.Minute / time.Microsecond)

// Record implements loadgen.SampleSink.
func (rec *LoadRecorder) Record(s *loadgen.Sample) {
	us := min(max(int64(s.Elapsed/time.Microsecond), 0), histTopUS)
	key := s.Start.Unix()
	r := rec.shards[uint(s.Thread)%recShards]
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.all.RecordValue(us)
	sec := r.secs[key]
	if sec == nil {
		sec = &recSecond{h: hdr.New(1, histTopUS, 2)}
		r.secs[key] = sec
		rec.handOver(r, key)
	}
	_ = sec.h.RecordValue(us)
	sec.n++
	if !s.Success {
		sec.errs++
		if sec.kinds == nil {
			sec.kinds = map[string]int64{}
		}
		k := s.Kind
		if k == loadgen.KindNone {
			k = loadgen.KindOther
		}
		sec.kinds[k.String()]++
	}
	switch {
	case s.Code > 0:
		if sec.codes == nil {
			sec.codes = map[int]int64{}
		}
		sec.codes[s.Code]++
	case s.CodeText != "":
		if sec.texts == nil {
			sec.texts = map[string]int64{}
		}
		sec.texts[s.CodeText]++
	}
	if s.Lag > 0 {
		lag := int64(s.Lag / time.Microsecond)
		sec.lagSum += lag
		sec.lagMax = max(sec.lagMax, lag)
		sec.lagN++
	}
	li, ok := r.labels[s.Label]
	if !ok {
		if len(r.names) >= loadgen.MaxLabels {
			return // the table has them all; the series only the first ones
		}
		li = len(r.names)
		r.labels[s.Label] = li
		r.names = append(r.names, s.Label)
	}
	sec.label(li).add(us)
}

// label is the second's histogram of label li, made on first use.
func (sec *recSecond) label(li int) *logHist {
	for len(sec.perLabel) <= li {
		sec.perLabel = append(sec.perLabel, nil)
	}
	if sec.perLabel[li] == nil {
		sec.perLabel[li] = &logHist{}
	}
	return sec.perLabel[li]
}

// handOver moves r's seconds before now-2 into the recorder's done seconds
// (r is locked). A sample of a second handed over (a late answer) starts
// it again in r, to be handed over and added later.
func (rec *LoadRecorder) handOver(r *recShard, now int64) {
	d := rec.done
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, sec := range r.secs {
		if k < now-2 {
			d.addSecond(r, k, sec)
			delete(r.secs, k)
		}
	}
}

// merged is every shard's samples in one shard.
func (rec *LoadRecorder) merged() *recShard {
	m := newRecShard()
	for _, r := range rec.shards {
		r.mu.Lock()
		defer r.mu.Unlock()
	}
	rec.done.mu.Lock()
	defer rec.done.mu.Unlock()
	for _, r := range append(rec.shards[:], rec.done) {
		m.all.Merge(r.all)
		for k, sec := range r.secs {
			m.addSecond(r, k, sec)
		}
	}
	return m
}

// addSecond adds second k of shard r to m.
func (m *recShard) addSecond(r *recShard, k int64, sec *recSecond) {
	d := m.secs[k]
	if d == nil {
		d = &recSecond{h: hdr.New(1, histTopUS, 2)}
		m.secs[k] = d
	}
	d.h.Merge(sec.h)
	d.n += sec.n
	d.errs += sec.errs
	d.kinds = addCounts(d.kinds, sec.kinds)
	d.texts = addCounts(d.texts, sec.texts)
	for c, n := range sec.codes {
		if d.codes == nil {
			d.codes = map[int]int64{}
		}
		d.codes[c] += n
	}
	d.lagSum += sec.lagSum
	d.lagMax = max(d.lagMax, sec.lagMax)
	d.lagN += sec.lagN
	for li, h := range sec.perLabel {
		if h == nil {
			continue
		}
		mi, ok := m.labels[r.names[li]]
		if !ok {
			if len(m.names) >= loadgen.MaxLabels {
				continue
			}
			mi = len(m.names)
			m.labels[r.names[li]] = mi
			m.names = append(m.names, r.names[li])
		}
		dh := d.label(mi)
		dh.n += h.n
		for i, c := range h.counts {
			dh.counts[i] += c
		}
	}
}

func addCounts(dst, src map[string]int64) map[string]int64 {
	for k, n := range src {
		if dst == nil {
			dst = map[string]int64{}
		}
		dst[k] += n
	}
	return dst
}

// logHist is a small histogram for per-label seconds: buckets 2^(1/8) apart
// (values within 9%), 240 of them from 1 µs past 10 minutes.
type logHist struct {
	n      int64
	counts [240]uint32
}

func (h *logHist) add(us int64) {
	i := 0
	if us > 1 {
		i = min(int(math.Log2(float64(us))*8), len(h.counts)-1)
	}
	h.counts[i]++
	h.n++
}

// quantile is the value (µs, the bucket's middle) at quantile q.
func (h *logHist) quantile(q float64) float64 {
	if h == nil || h.n == 0 {
		return math.NaN()
	}
	want := int64(math.Ceil(q * float64(h.n)))
	var seen int64
	for i, c := range h.counts {
		seen += int64(c)
		if seen >= max(want, 1) {
			return math.Pow(2, (float64(i)+0.5)/8)
		}
	}
	return math.NaN()
}

// NewLoadPage builds the page of one load test from its summary and, when
// it was recorded, the recorder (nil: the summary's series only).
func NewLoadPage(s *loadgen.Summary, rec *LoadRecorder, l finding.Lang, tool Tool) *LoadPage {
	p := &LoadPage{Lang: l, Tool: tool, Summary: s, Title: finding.SafeLine(s.Target)}
	if s.Interrupted {
		p.Notes = append(p.Notes, finding.T("The run was interrupted: the results cover the time until then.",
			"压测被中断：结果只包含中断前的部分。"))
	}
	if t := saturation(s); t != (finding.Text{}) {
		p.Notes = append(p.Notes, t)
	}
	var d *loaddetail.Detail
	if rec != nil {
		d = rec.Detail(s)
	}
	p.from(d)
	return p
}

// NewLoadPageDetail builds the page of one load test from its summary and
// the detail a run folder kept (nil: the summary's series only).
func NewLoadPageDetail(s *loadgen.Summary, d *loaddetail.Detail, l finding.Lang, tool Tool) *LoadPage {
	p := NewLoadPage(s, nil, l, tool)
	p.Seconds, p.Labels, p.Percentiles = nil, nil, nil
	p.from(d)
	return p
}

// from fills the series from d, or from the summary without one.
func (p *LoadPage) from(d *loaddetail.Detail) {
	if d == nil {
		p.Series = "summary"
		p.fromSummary()
		return
	}
	p.Series = "samples"
	p.fromDetail(d)
}

// GeneratorSaturatedPct is the generator's CPU share (of the cores it had)
// past which its own pace may have set the result.
const GeneratorSaturatedPct = 85

// saturation says when the generator itself may have been the limit.
func saturation(s *loadgen.Summary) finding.Text {
	switch {
	case s.Open != nil && s.Open.Behind == "generator":
		return finding.Tf(finding.T("The generator fell behind its schedule (%d of %d sends late or missed, lag up to %.1f ms) and not because of the server: this result measures the generator, not only the service. Use fewer connections, a lower rate, or more generator CPUs.",
			"负载生成器落后于发送计划（%d/%d 次发送延迟或未发出，延迟最高 %.1f ms），且不是服务端造成的：此结果反映的是生成器，而不只是服务。请减少连接数、降低速率或为生成器分配更多 CPU。"),
			s.Open.Late+s.Open.Missed, s.Open.Scheduled, s.Open.MaxLagMS)
	case s.ClientCPU >= GeneratorSaturatedPct:
		return finding.Tf(finding.T("The generator used %.0f%% of its CPUs: it may have set the pace, so this result may measure the generator rather than the service. Run it on another host or give it more CPUs.",
			"负载生成器使用了 %.0f%% 的 CPU：可能是它决定了节奏，此结果可能反映的是生成器而不是服务。请在另一台主机上运行，或为其分配更多 CPU。"), s.ClientCPU)
	}
	return finding.Text{}
}

// plotPercentiles are the percentiles the distribution is drawn at: dense
// where the tail is, 0 to 99.999.
func plotPercentiles() []float64 {
	var out []float64
	for k := 0.0; k <= 5.0001; k += 0.125 { // 1-10^-k: 0%, ..., 99.999%
		out = append(out, math.Round((1-math.Pow(10, -k))*1e6)/1e4)
	}
	return out
}

func (p *LoadPage) fromSummary() {
	s := p.Summary
	for _, x := range s.Series {
		if x.T < 0 {
			continue
		}
		p.Seconds = append(p.Seconds, LoadSecond{T: x.T, Requests: x.Requests, Errors: x.Errors,
			P50: x.P50, P90: math.NaN(), P99: x.P99, Max: x.Max, LagMean: math.NaN(), LagMax: math.NaN(), Span: 1})
	}
	l := s.Latency
	if s.Requests > 0 {
		for _, pp := range []PercentilePoint{{0, l.Min}, {50, l.P50}, {90, l.P90}, {95, l.P95}, {99, l.P99}, {99.9, l.P999}, {100, l.Max}} {
			p.Percentiles = append(p.Percentiles, pp)
		}
	}
}

// LoadErrorKindText names an error kind of loadgen (its String) for people.
func LoadErrorKindText(kind string) finding.Text {
	switch kind {
	case "connect_refused":
		return finding.T("connection refused", "连接被拒绝")
	case "dns":
		return finding.T("host name did not resolve", "主机名无法解析")
	case "connect":
		return finding.T("connect failed", "连接失败")
	case "tls":
		return finding.T("TLS handshake", "TLS 握手失败")
	case "timeout":
		return finding.T("timeout", "超时")
	case "connection_reset":
		return finding.T("connection closed or reset", "连接被关闭或重置")
	case "protocol":
		return finding.T("not valid HTTP", "无效的 HTTP 响应")
	case "status":
		return finding.T("unexpected status code", "意外的状态码")
	case "assertion":
		return finding.T("body assertion failed", "响应体断言失败")
	case "other":
		return finding.T("other", "其他")
	}
	return finding.T(kind, kind)
}
