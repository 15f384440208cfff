package loadgen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// Histogram range: 1 µs to 10 minutes at 3 significant digits (~170 KB
// each); longer values are clamped to the top. Memory does not grow with the
// request count.
const (
	histMaxUS  = int64(10 * time.Minute / time.Microsecond)
	histDigits = 3
)

func newHist() *hdr.Histogram { return hdr.New(1, histMaxUS, histDigits) }

func clampUS(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < 0 {
		return 0
	}
	if us > histMaxUS {
		return histMaxUS
	}
	return us
}

// acc accumulates samples of one label (or all of them): a histogram plus
// exact count, sum, min and max.
type acc struct {
	h                 *hdr.Histogram
	n, errs           int64
	sum, min, max     int64 // µs
	bytesIn, bytesOut int64
}

func newAcc() *acc { return &acc{h: newHist()} }

// newIntervalAcc is for one-second intervals: two significant digits are
// enough for the live p50/p99 and cost 25 KB instead of 170 KB.
func newIntervalAcc() *acc { return &acc{h: hdr.New(1, histMaxUS, 2)} }

func (a *acc) add(us int64, failed bool, in, out int64) {
	_ = a.h.RecordValue(us)
	if a.n == 0 || us < a.min {
		a.min = us
	}
	if us > a.max {
		a.max = us
	}
	a.n++
	a.sum += us
	if failed {
		a.errs++
	}
	a.bytesIn += in
	a.bytesOut += out
}

func (a *acc) merge(b *acc) {
	if b.n == 0 {
		return
	}
	a.h.Merge(b.h)
	if a.n == 0 || b.min < a.min {
		a.min = b.min
	}
	if b.max > a.max {
		a.max = b.max
	}
	a.n += b.n
	a.errs += b.errs
	a.sum += b.sum
	a.bytesIn += b.bytesIn
	a.bytesOut += b.bytesOut
}

func (a *acc) reset() {
	a.h.Reset()
	a.n, a.errs, a.sum, a.min, a.max, a.bytesIn, a.bytesOut = 0, 0, 0, 0, 0, 0, 0
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	Mean float64 `json:"mean_ms"`
	Min  float64 `json:"min_ms"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p99_9_ms"`
	Max  float64 `json:"max_ms"`
}

func usToMS(us int64) float64 { return float64(us) / 1000 }

func (a *acc) latency() Latency {
	if a.n == 0 {
		return Latency{}
	}
	q := a.h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
	l := Latency{Mean: round3(float64(a.sum) / float64(a.n) / 1000), Min: usToMS(a.min), Max: usToMS(a.max),
		P50: usToMS(q[0]), P90: usToMS(q[1]), P95: usToMS(q[2]), P99: usToMS(q[3]), P999: usToMS(q[4])}
	// The histogram reports bucket tops; never let a percentile pass the exact max.
	for _, p := range []*float64{&l.P50, &l.P90, &l.P95, &l.P99, &l.P999} {
		*p = math.Min(*p, l.Max)
	}
	return l
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// LabelStats is one row of the JMeter-like per-label table.
type LabelStats struct {
	Label    string  `json:"label"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	ErrorPct float64 `json:"error_pct"`
	TPS      float64 `json:"tps"`
	RecvKBps float64 `json:"received_kb_per_s"`
	SentKBps float64 `json:"sent_kb_per_s"`
	Latency
}

// Second is one point of the per-second series; T counts seconds from the
// start of the measured window.
type Second struct {
	T        int     `json:"t"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Mean     float64 `json:"mean_ms"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
}

func (a *acc) second(t int) Second {
	s := Second{T: t, Requests: a.n, Errors: a.errs}
	if a.n > 0 {
		l := a.latency()
		s.Mean, s.P50, s.P99, s.Max = l.Mean, l.P50, l.P99, l.Max
	}
	return s
}

// OpenStats describes how well an open-model run kept its schedule.
type OpenStats struct {
	Rate      float64 `json:"rate"`
	Scheduled int64   `json:"scheduled"`  // sends due in the measured window
	Sent      int64   `json:"sent"`       // of those, sent
	Missed    int64   `json:"missed"`     // due but never sent (all connections busy until the end)
	Late      int64   `json:"late"`       // sent more than LateThreshold after their intended time
	MaxLagMS  float64 `json:"max_lag_ms"` // worst send delay behind schedule
	MeanLagMS float64 `json:"mean_lag_ms"`
	// Behind says who kept sends from their schedule, when they were:
	// "server" (its connections were held by requests it did not answer)
	// or "generator" (this process could not keep up); "" when on time.
	Behind string `json:"behind,omitempty"`
	// Uncorrected measures from the actual send, as a closed-loop tool
	// would; compare with Summary.Latency to see coordinated omission.
	Uncorrected Latency `json:"uncorrected"`
}

// LateThreshold is how far behind schedule a send counts as late.
const LateThreshold = 5 * time.Millisecond

// Summary is the result of a run or an imported results file.
type Summary struct {
	Source        string           `json:"source"` // "load" or the imported file's format
	Model         string           `json:"model,omitempty"`
	Target        string           `json:"target,omitempty"`
	Start         time.Time        `json:"start"`
	Duration      float64          `json:"duration_s"` // measured window
	Users         int              `json:"users,omitempty"`
	Connections   int              `json:"connections,omitempty"`
	Requests      int64            `json:"requests"`
	Errors        int64            `json:"errors"`
	ErrorPct      float64          `json:"error_pct"`
	TPS           float64          `json:"tps"`
	BytesIn       int64            `json:"bytes_received"`
	BytesOut      int64            `json:"bytes_sent"`
	Latency       Latency          `json:"latency"`
	ErrorKinds    map[string]int64 `json:"errors_by_kind"`
	StatusCodes   map[string]int64 `json:"status_codes"`
	Labels        []LabelStats     `json:"labels"`
	Series        []Second         `json:"series"`
	Open          *OpenStats       `json:"open,omitempty"`
	HTTP2Requests int64            `json:"http2_requests,omitempty"`  // answered over HTTP/2 (Config.HTTP2)
	Warmup        int64            `json:"warmup_requests,omitempty"` // sent during warm-up, excluded
	// RampS: seconds at the start of the series while the load itself
	// still ramped up (a ramp-up longer than the warm-up): throughput
	// rises there by design, not because the service warms up.
	RampS   float64 `json:"ramp_s,omitempty"`
	Aborted int64   `json:"aborted,omitempty"` // in flight when the run ended, excluded
	// AbortedInBody of the Aborted had their response begun and never
	// finished (an endless chunked or very long body); the rest got no
	// response byte at all.
	AbortedInBody int64 `json:"aborted_in_body,omitempty"`
	Interrupted   bool  `json:"interrupted,omitempty"` // stopped by Ctrl-C/SIGTERM
	// ClientCPU is this process's CPU use during the run, in % of the cores
	// Go runs on; near 100 the generator, not the server, may set the pace.
	// With JMeter as the engine it is JMeter's (the processes on this host).
	ClientCPU float64 `json:"client_cpu_pct,omitempty"`
	// Engine is what sent the load: "" (tuneloop's generator) or "jmeter".
	Engine string `json:"engine,omitempty"`
	// Engines are JMeter's engines (one, or each jmeter-server of a
	// distributed run) with their share of the samples and their CPU.
	Engines []EngineStats `json:"engines,omitempty"`
}

// EngineStats is one JMeter engine of a load.
type EngineStats struct {
	Name    string `json:"name"` // "local", or host:port of a jmeter-server
	Samples int64  `json:"samples"`
	Users   int    `json:"users,omitempty"` // the most threads it ran at once
	PID     int    `json:"pid,omitempty"`   // its process, when on this host
	// CPUPct is its process's CPU over the measured window in % of this
	// host's Cores; -1 when it is not known (an engine on another host).
	CPUPct float64 `json:"cpu_pct"`
	Cores  int     `json:"cores,omitempty"`
	Errors int64   `json:"errors,omitempty"`
	// Connections is the most established load connections it held at
	// once (its process's sockets, read each second; 0: not known).
	Connections int `json:"connections,omitempty"`
	// ConnCapped: fewer connections than threads while its samples failed
	// (a thread that cannot connect: descriptors, ports, a refusing peer).
	ConnCapped bool `json:"connections_capped,omitempty"`
	// ClockOffsetMS is its host's clock minus this one's (its samples'
	// times were moved back by it), within ±ClockBoundMS; engines started
	// over SSH only.
	ClockOffsetMS *float64 `json:"clock_offset_ms,omitempty"`
	ClockBoundMS  float64  `json:"clock_bound_ms,omitempty"`
}

// fill computes the totals of s from per-label accumulators.
func (s *Summary) fill(order []string, accs []*acc, kinds *[numKinds]int64, codes map[int]int64, other map[string]int64) {
	total := newAcc()
	s.Labels = s.Labels[:0]
	secs := s.Duration
	for i, a := range accs {
		total.merge(a)
		s.Labels = append(s.Labels, labelStats(order[i], a, secs))
	}
	t := labelStats("TOTAL", total, secs)
	s.Requests, s.Errors, s.ErrorPct, s.TPS = t.Requests, t.Errors, t.ErrorPct, t.TPS
	s.BytesIn, s.BytesOut = total.bytesIn, total.bytesOut
	s.Latency = t.Latency
	s.ErrorKinds = map[string]int64{}
	for k := KindNone + 1; k < numKinds; k++ {
		if kinds[k] > 0 {
			s.ErrorKinds[k.String()] = kinds[k]
		}
	}
	s.StatusCodes = map[string]int64{}
	for c, n := range codes {
		s.StatusCodes[strconv.Itoa(c)] = n
	}
	for c, n := range other {
		s.StatusCodes[c] += n
	}
}

func labelStats(label string, a *acc, secs float64) LabelStats {
	l := LabelStats{Label: label, Requests: a.n, Errors: a.errs, Latency: a.latency()}
	if a.n > 0 {
		l.ErrorPct = round3(100 * float64(a.errs) / float64(a.n))
	}
	if secs > 0 {
		l.TPS = round3(float64(a.n) / secs)
		l.RecvKBps = round3(float64(a.bytesIn) / 1024 / secs)
		l.SentKBps = round3(float64(a.bytesOut) / 1024 / secs)
	}
	return l
}

// Sample is one finished request: what the JTL writer writes and the
// Aggregator consumes. Message and ErrText alias reused buffers in a live
// run and are only valid during the call they are passed to.
type Sample struct {
	Start          time.Time // JMeter timeStamp: the (intended) send time
	Elapsed        time.Duration
	Latency        time.Duration // to the first response byte
	Connect        time.Duration // connection setup, when this request opened one
	Lag            time.Duration // open model: how late it was sent after Start
	Label          string
	Code           int    // HTTP status; 0 when no response arrived
	CodeText       string // the response code when it is not a number (imports)
	Message        []byte // reason phrase, or error text
	Success        bool
	Kind           ErrorKind
	FailureMessage string
	Thread         int
	BytesIn        int64
	BytesOut       int64
	GrpThreads     int
	AllThreads     int
	URL            string
	ThreadName     string // imports: JMeter's threadName ("host:port-Group 1-3" from a remote engine)
}

// Aggregator builds a Summary from a stream of samples in one goroutine;
// importers use it. Memory is bounded: histograms, not samples.
type Aggregator struct {
	index       map[string]int
	order       []string
	accs        []*acc
	kinds       [numKinds]int64
	codes       map[int]int64
	otherCodes  map[string]int64
	first, last time.Time
	secs        map[int64]*acc // open seconds, by Unix second
	done        map[int64]Second
	maxSec      int64
	pool        []*acc
}

// secondWindow is how many seconds behind the newest sample a second stays
// open for percentiles; later stragglers still count but not in percentiles.
const secondWindow = 120

// NewAggregator returns an empty Aggregator.
func NewAggregator() *Aggregator {
	return &Aggregator{index: map[string]int{}, codes: map[int]int64{}, otherCodes: map[string]int64{},
		secs: map[int64]*acc{}, done: map[int64]Second{}}
}

// MaxLabels bounds the per-label rows of an Aggregator (each holds a
// ~170 KB histogram); samples of further labels share the OtherLabel row.
const (
	MaxLabels  = 200
	OtherLabel = "(other labels)"
)

// Add records one sample.
func (g *Aggregator) Add(s *Sample) {
	label := s.Label
	if _, ok := g.index[label]; !ok && len(g.accs) >= MaxLabels-1 {
		label = OtherLabel
	}
	i, ok := g.index[label]
	if !ok {
		i = len(g.accs)
		g.index[label] = i
		g.order = append(g.order, label)
		g.accs = append(g.accs, newAcc())
	}
	us := clampUS(s.Elapsed)
	g.accs[i].add(us, !s.Success, s.BytesIn, s.BytesOut)
	if !s.Success {
		k := s.Kind
		if k == KindNone {
			k = KindOther
		}
		g.kinds[k]++
	}
	switch {
	case s.Code > 0:
		g.codes[s.Code]++
	case s.CodeText != "":
		g.otherCodes[s.CodeText]++
	}
	if g.first.IsZero() || s.Start.Before(g.first) {
		g.first = s.Start
	}
	if end := s.Start.Add(s.Elapsed); end.After(g.last) {
		g.last = end
	}
	sec := s.Start.Unix()
	if sec > g.maxSec {
		g.maxSec = sec
		for k, a := range g.secs {
			if k < sec-secondWindow {
				g.closeSecond(k, a)
			}
		}
	}
	if a := g.secs[sec]; a != nil {
		a.add(us, !s.Success, 0, 0)
		return
	}
	if d, ok := g.done[sec]; ok { // a straggler for a closed second
		d.Mean = round3((d.Mean*float64(d.Requests) + usToMS(us)) / float64(d.Requests+1))
		d.Requests++
		if !s.Success {
			d.Errors++
		}
		d.Max = math.Max(d.Max, usToMS(us))
		g.done[sec] = d
		return
	}
	var a *acc
	if n := len(g.pool); n > 0 {
		a, g.pool = g.pool[n-1], g.pool[:n-1]
	} else {
		a = newIntervalAcc()
	}
	a.add(us, !s.Success, 0, 0)
	g.secs[sec] = a
}

func (g *Aggregator) closeSecond(k int64, a *acc) {
	g.done[k] = a.second(0)
	a.reset()
	g.pool = append(g.pool, a)
	delete(g.secs, k)
}

// Summary computes the summary of everything added so far; the window runs
// from the first sample's start to the last sample's end (JMeter's
// throughput definition).
func (g *Aggregator) Summary(source string) *Summary {
	for k, a := range g.secs {
		g.closeSecond(k, a)
	}
	s := &Summary{Source: source, Start: g.first}
	if !g.first.IsZero() {
		s.Duration = g.last.Sub(g.first).Seconds()
	}
	s.fill(g.order, g.accs, &g.kinds, g.codes, g.otherCodes)
	keys := make([]int64, 0, len(g.done))
	for k := range g.done {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		d := g.done[k]
		d.T = int(k - g.first.Unix())
		s.Series = append(s.Series, d)
	}
	return s
}

// SummaryOver is Summary over a measured window that starts at from and
// lasts secs (rates divide by it; the series counts seconds from from),
// rather than from the first sample's start to the last one's end.
func (g *Aggregator) SummaryOver(source string, from time.Time, secs float64) *Summary {
	for k, a := range g.secs {
		g.closeSecond(k, a)
	}
	s := &Summary{Source: source, Start: from, Duration: secs}
	s.fill(g.order, g.accs, &g.kinds, g.codes, g.otherCodes)
	keys := make([]int64, 0, len(g.done))
	for k := range g.done {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		d := g.done[k]
		d.T = int(k - from.Unix())
		s.Series = append(s.Series, d)
	}
	return s
}

// ModelText says a summary's Model ("closed", "open", "closed, 60 users")
// in both languages; anything else is shown as it is.
func ModelText(model string) finding.Text {
	var users int
	switch {
	case model == "closed":
		return finding.T("closed model", "闭合模型")
	case model == "open":
		return finding.T("open model", "开放模型")
	case strings.HasPrefix(model, "closed, "):
		if _, err := fmt.Sscanf(model, "closed, %d users", &users); err == nil {
			return finding.Tf(finding.T("closed model, %d users", "闭合模型，%d 个用户"), users)
		}
	}
	return finding.T(model, model)
}

// Sent is every measured request that went out: those that completed (as
// results or errors) and those still in flight at the end.
func (s *Summary) Sent() int64 { return s.Requests + s.Aborted }

// NoAnswer is not nil when the load got no completed response at all while
// requests were sent: the server accepted them and never answered, or its
// responses never ended. It says which; such a run measured nothing, and
// the commands exit non-zero on it.
func (s *Summary) NoAnswer() error {
	if s == nil || s.Requests > 0 || s.Aborted == 0 {
		return nil
	}
	return finding.Errorf(noAnswerText(s))
}

func noAnswerText(s *Summary) finding.Text {
	noByte := s.Aborted - s.AbortedInBody
	switch {
	case s.AbortedInBody == 0:
		return finding.Tf(finding.T("0 completed of %d sent: the server accepted the requests and never answered (no response byte before the end of the run)",
			"已发送 %d 个请求，完成 0 个：服务端接受了请求但从未响应（运行结束前没有收到任何响应字节）"), s.Aborted)
	case noByte == 0:
		return finding.Tf(finding.T("0 completed of %d sent: every response began and never ended (an endless or chunked body that does not finish, or one too long for the run)",
			"已发送 %d 个请求，完成 0 个：每个响应都开始了但从未结束（无尽的或不结束的 chunked 响应体，或响应体长到超出运行时间）"), s.Aborted)
	}
	return finding.Tf(finding.T("0 completed of %d sent: %d got no response byte, %d responses began and never ended",
		"已发送 %d 个请求，完成 0 个：%d 个没有收到任何响应字节，%d 个响应开始了但从未结束"), s.Aborted, noByte, s.AbortedInBody)
}

// serverHeld reports whether the server, not the generator, held the
// connections: requests were still waiting for it at the end on most
// connections, or requests timed out.
func (s *Summary) serverHeld() bool {
	conns := int64(max(s.Connections, 1))
	return 2*s.Aborted >= conns || s.ErrorKinds[KindTimeout.String()] > 0
}

// NoSuccess is not nil when no request of the load succeeded: nothing
// completed (NoAnswer), or every completed request failed (garbage or bad
// status lines, every connection reset, every request timed out, only
// error statuses). The error names the failure classes, most frequent
// first, so the user sees why; such a run measured no service.
func (s *Summary) NoSuccess() error {
	if err := s.NoAnswer(); err != nil {
		return err
	}
	if s == nil || s.Requests == 0 || s.Errors < s.Requests {
		return nil
	}
	return finding.Errorf(finding.T("0 succeeded of %d requests: %s", "%d 个请求中成功 0 个：%s"), s.Requests, s.errorClasses())
}

// kindWhy says what each error kind means, for NoSuccess.
var kindWhy = [numKinds]finding.Text{
	KindRefused:   finding.T("connection refused", "连接被拒绝"),
	KindDNS:       finding.T("the host name did not resolve", "主机名无法解析"),
	KindConnect:   finding.T("could not connect", "无法建立连接"),
	KindTLS:       finding.T("TLS handshake or certificate failed", "TLS 握手或证书失败"),
	KindTimeout:   finding.T("no complete response within the request timeout", "请求超时内未收到完整响应"),
	KindReset:     finding.T("the connection was closed or reset", "连接被关闭或重置"),
	KindProtocol:  finding.T("the answer is not valid HTTP/1.x", "响应不是合法的 HTTP/1.x"),
	KindStatus:    finding.T("unexpected status", "非预期的状态码"),
	KindAssertion: finding.T("the body assertion failed", "响应体断言失败"),
	KindOther:     finding.T("other errors", "其他错误"),
}

// errorClasses lists the error kinds as "N kind (why)", most frequent
// first; a status class names its codes.
func (s *Summary) errorClasses() finding.Text {
	keys := make([]string, 0, len(s.ErrorKinds))
	for k := range s.ErrorKinds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := s.ErrorKinds[keys[i]], s.ErrorKinds[keys[j]]
		return a > b || a == b && keys[i] < keys[j]
	})
	var en, zh []string
	for _, k := range keys {
		n := s.ErrorKinds[k]
		why := kindWhy[KindByName(k)]
		if KindByName(k) == KindStatus && len(s.StatusCodes) > 0 {
			codes := make([]string, 0, len(s.StatusCodes))
			for c := range s.StatusCodes {
				codes = append(codes, c)
			}
			sort.Strings(codes)
			why = finding.Tf(finding.T("%s %s", "%s %s"), why, strings.Join(codes, ","))
		}
		k = finding.SafeLine(k)
		en = append(en, fmt.Sprintf("%d %s (%s)", n, k, why.EN))
		zh = append(zh, fmt.Sprintf("%d 个 %s（%s）", n, k, why.In(finding.ZH)))
	}
	if len(en) == 0 {
		return finding.T("no error class was recorded", "未记录错误类别")
	}
	return finding.Text{EN: strings.Join(en, ", "), ZH: strings.Join(zh, "，")}
}

// StillRising says whether throughput still climbed across the seconds
// after the load's own ramp-up (RampS) and the series' warm-up
// (stats.SteadyStart, stats.StillRising): the load ended before the
// service reached its steady state.
func (s *Summary) StillRising() (rise float64, ok bool) {
	var tps, p99 []float64
	for _, d := range s.Series {
		if float64(d.T) >= s.RampS {
			tps, p99 = append(tps, float64(d.Requests)), append(p99, d.P99)
		}
	}
	return stats.StillRising(tps[stats.SteadyStart(tps, p99):])
}
