package jmeter

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// MeasureOptions say which of JMeter's samples are the measured load.
type MeasureOptions struct {
	// From starts the measured window: samples sent before it are the
	// warm-up (counted in Summary.Warmup, left out), as with tuneloop's
	// generator.
	From time.Time
	// Duration > 0: JMeter is stopped once From+Duration has passed, and
	// samples that had not ended by then are left out (Summary.Aborted).
	// 0: the plan bounds the load; JMeter ends by itself.
	Duration time.Duration
	Grace    time.Duration // Stop's grace for samples in flight (default 10 s)
	Target   string        // the summary's target (the plan, or the run's URL)
	Sink     loadgen.SampleSink
	OnSecond func(loadgen.Progress)
	// RampUp is the plan's thread groups' longest ramp-up, counted from
	// JMeter's first sample: the part of it inside the window is the
	// summary's RampS (the load itself still climbing, not the service
	// warming up).
	RampUp time.Duration
	Proc   string // /proc root; "" = /proc
	// Watch are the engines started over SSH, by name (host:port): their
	// clock offsets move their samples onto this host's timeline, and
	// their CPU and connections come from what they report.
	Watch map[string]*EngineWatch
}

// Measure follows JMeter's JTL from its start as JMeter writes it, into the
// measured window's summary (every sample also to Sink), calling OnSecond
// each second; then stops JMeter (Stop) and reads what is left. Ctrl-C
// (ctx) ends the window at once: the summary says Interrupted.
func (e *Engine) Measure(ctx context.Context, mo MeasureOptions) (*loadgen.Summary, error) {
	if mo.Proc == "" {
		mo.Proc = "/proc"
	}
	if mo.Grace <= 0 {
		mo.Grace = 10 * time.Second
	}
	// JMeter's timestamps are whole milliseconds: a sample sent in the
	// window's first millisecond is the window's.
	mo.From = mo.From.Truncate(time.Millisecond)
	m := newMeter(e, mo)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	nextSec := time.Now().Add(time.Second)
	interrupted, byItself := false, false
loop:
	for {
		m.read()
		m.sampleCPU()
		now := time.Now()
		if !now.Before(nextSec) {
			m.second(now)
			nextSec = nextSec.Add(time.Second)
		}
		if mo.Duration > 0 && !now.Before(m.to) {
			break
		}
		select {
		case <-ctx.Done():
			interrupted = true
			if m.to.IsZero() || now.Before(m.to) {
				m.to = now
			}
			break loop
		case <-e.done:
			byItself = true
			break loop
		case <-tick.C:
		}
	}
	m.sampleCPU()
	e.Stop(mo.Grace)
	m.read()
	m.f.Flush(m.emit)
	if m.file != nil {
		m.file.Close()
	}
	if m.agg == nil || m.n == 0 {
		if interrupted {
			return nil, ctx.Err()
		}
		return nil, finding.Errorf(finding.T("JMeter sent no request in the measured window (%d before it, %d unreadable lines; JMeter: %v); %s ends with:\n%s",
			"JMeter 在测量窗口内没有发出请求（之前 %d 个，%d 行无法读取；JMeter：%v）；%s 的结尾：\n%s"),
			m.warm, m.f.Skipped, exitText(e.err), e.Dir, e.Tail(1500))
	}
	var s *loadgen.Summary
	switch {
	case mo.Duration > 0 || interrupted:
		end := m.to
		if byItself && m.lastEnd.Before(end) {
			end = m.lastEnd // the plan ended before the window
		}
		s = m.agg.SummaryOver("jmeter", mo.From, max(end.Sub(mo.From).Seconds(), 0.001))
	default:
		s = m.agg.Summary("jmeter")
	}
	s.Engine, s.Target, s.Interrupted = "jmeter", mo.Target, interrupted
	s.Warmup, s.Aborted = m.warm, m.aborted
	s.Engines, s.ClientCPU = m.engines()
	for _, en := range s.Engines {
		s.Users += en.Users
	}
	s.Model = "closed" // JMeter's threads; a throughput timer's pacing is the plan's
	if mo.RampUp > 0 && !m.first.IsZero() {
		if d := m.first.Add(mo.RampUp).Sub(s.Start); d > 0 {
			s.RampS = min(d, mo.RampUp).Seconds()
		}
	}
	return s, nil
}

// meter is Measure's state.
type meter struct {
	e       *Engine
	mo      MeasureOptions
	f       *jtl.Follower
	file    *os.File
	buf     []byte
	agg     *loadgen.Aggregator
	to      time.Time // the window's end; zero: open
	n       int64     // samples in the window
	errs    int64
	warm    int64
	aborted int64
	lastEnd time.Time
	first   time.Time // the earliest sample's start, warm-up included
	// per engine: samples and most threads; processes on this host: CPU
	byName map[string]*loadgen.EngineStats
	noResp map[string]int64 // per engine: failures without any response
	procs  []*cpuProc
	cores  int
	// the second in progress, for the live line
	secN, secErr int64
	secLat       []time.Duration
}

type cpuProc struct {
	engine     string // "" for the controller of remote engines
	pid        int
	t0, t1     uint64
	at0, at1   time.Time
	ok0, alive bool
	conns      int  // the most load connections seen
	counted    bool // conns was read at least once
}

func newMeter(e *Engine, mo MeasureOptions) *meter {
	m := &meter{e: e, mo: mo, f: jtl.NewFollower(), buf: make([]byte, 256<<10), agg: loadgen.NewAggregator(),
		byName: map[string]*loadgen.EngineStats{}, noResp: map[string]int64{}, cores: runtime.NumCPU()}
	if mo.Duration > 0 {
		m.to = mo.From.Add(mo.Duration)
	}
	if len(e.Remote) == 0 {
		m.byName["local"] = &loadgen.EngineStats{Name: "local", PID: e.PID(), CPUPct: -1}
		m.procs = append(m.procs, &cpuProc{engine: "local", pid: e.PID()})
	} else {
		m.procs = append(m.procs, &cpuProc{pid: e.PID()}) // the controller: this host's CPU, no engine's
		for _, r := range e.Remote {
			st := &loadgen.EngineStats{Name: r, CPUPct: -1}
			if host, port, err := net.SplitHostPort(r); err == nil && IsLocal(host) {
				p, _ := strconv.Atoi(port)
				if pid := ListenerPID(mo.Proc, p); pid > 0 {
					st.PID = pid
					m.procs = append(m.procs, &cpuProc{engine: r, pid: pid})
				}
			}
			m.byName[r] = st
		}
	}
	for _, p := range m.procs {
		p.t0, p.ok0 = cpuTicks(mo.Proc, p.pid)
		p.at0, p.t1, p.at1, p.alive = time.Now(), p.t0, time.Now(), p.ok0
	}
	return m
}

// sampleCPU keeps each process's latest CPU time (the last one read
// before it exits is its total over the window).
func (m *meter) sampleCPU() {
	for _, p := range m.procs {
		if !p.ok0 || !p.alive {
			continue
		}
		if t, ok := cpuTicks(m.mo.Proc, p.pid); ok {
			p.t1, p.at1 = t, time.Now()
		} else {
			p.alive = false
		}
	}
}

// read feeds what JMeter appended to the JTL since the last read.
func (m *meter) read() {
	if m.file == nil {
		f, err := os.Open(m.e.JTL)
		if err != nil {
			return
		}
		m.file = f
	}
	for {
		n, err := m.file.Read(m.buf)
		if n > 0 {
			m.f.Feed(m.buf[:n], m.emit)
		}
		if err == io.EOF || err != nil || n == 0 {
			return
		}
	}
}

func (m *meter) emit(s *loadgen.Sample) {
	name := "local"
	if len(m.e.Remote) > 0 {
		name = "other"
		for _, r := range m.e.Remote {
			if strings.HasPrefix(s.ThreadName, r+"-") {
				name = r
				break
			}
		}
	}
	// An engine's timestamps are its host's clock: onto this one's.
	if w := m.mo.Watch[name]; w != nil && w.Offset != 0 {
		s.Start = s.Start.Add(-w.Offset)
	}
	if m.first.IsZero() || s.Start.Before(m.first) {
		m.first = s.Start
	}
	end := s.Start.Add(s.Elapsed)
	switch {
	case s.Start.Before(m.mo.From):
		m.warm++
		return
	case !m.to.IsZero() && s.Start.After(m.to):
		return // sent after the window (JMeter stopping)
	case !m.to.IsZero() && end.After(m.to):
		m.aborted++ // in flight when the window ended, as the generator counts it
		return
	}
	m.agg.Add(s)
	if m.mo.Sink != nil {
		m.mo.Sink.Record(s)
	}
	m.n++
	m.secN++
	if !s.Success {
		m.errs++
		m.secErr++
	}
	m.secLat = append(m.secLat, s.Elapsed)
	if end.After(m.lastEnd) {
		m.lastEnd = end
	}
	st := m.byName[name]
	if st == nil {
		st = &loadgen.EngineStats{Name: name, CPUPct: -1}
		m.byName[name] = st
	}
	st.Samples++
	if !s.Success {
		st.Errors++
		if s.Code == 0 && strings.HasPrefix(s.CodeText, loadgen.NonHTTPCodePrefix) {
			m.noResp[name]++ // an HTTP sampler got no response: connect refused, no descriptor, reset
		}
	}
	st.Users = max(st.Users, s.AllThreads)
}

// countConns keeps the most load connections each engine process on this
// host held: its RMI sockets (to ports it or the controller listens on)
// are not load.
func (m *meter) countConns() {
	var skip []int
	if len(m.e.Remote) > 0 {
		skip = ListenPorts(m.mo.Proc, m.e.PID())
	}
	for _, p := range m.procs {
		if p.engine == "" || !p.alive {
			continue
		}
		p.conns, p.counted = max(p.conns, LoadConns(m.mo.Proc, p.pid, skip)), true
	}
}

// second reports the samples read in the last second to OnSecond.
func (m *meter) second(now time.Time) {
	m.countConns()
	if m.mo.OnSecond != nil {
		p := loadgen.Progress{Elapsed: now.Sub(m.mo.From), Remaining: -1, Requests: m.n, Errors: m.errs,
			Last: loadgen.Second{Requests: m.secN, Errors: m.secErr}}
		if m.mo.Duration > 0 {
			p.Remaining = max(m.to.Sub(now), 0)
		}
		if len(m.secLat) > 0 {
			sort.Slice(m.secLat, func(i, j int) bool { return m.secLat[i] < m.secLat[j] })
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			p.Last.P50 = ms(m.secLat[len(m.secLat)/2])
			p.Last.P99 = ms(m.secLat[(len(m.secLat)*99)/100])
			p.Last.Max = ms(m.secLat[len(m.secLat)-1])
		}
		m.mo.OnSecond(p)
	}
	m.secN, m.secErr, m.secLat = 0, 0, m.secLat[:0]
}

// engines are the engines by name, with the CPU of those on this host,
// and the CPU of every JMeter process on this host together (% of cores).
func (m *meter) engines() ([]loadgen.EngineStats, float64) {
	var total float64
	for _, p := range m.procs {
		wall := p.at1.Sub(p.at0).Seconds()
		if !p.ok0 || wall < 0.5 {
			continue
		}
		pct := 100 * float64(p.t1-p.t0) / sample.UserHZ / wall / float64(m.cores)
		pct = float64(int64(pct*10+0.5)) / 10
		total += pct
		if st := m.byName[p.engine]; st != nil && p.engine != "" {
			st.CPUPct, st.Cores, st.Connections = pct, m.cores, p.conns
		}
	}
	to := m.to
	if to.IsZero() || time.Now().Before(to) {
		to = time.Now()
	}
	for name, w := range m.mo.Watch {
		st := m.byName[name]
		if st == nil {
			continue
		}
		cpu, conns, ok := w.Window(m.mo.From, to)
		if ok {
			st.CPUPct, st.Cores = cpu, w.Cores
		}
		st.Connections, st.PID = conns, w.PID
		off := float64(w.Offset) / float64(time.Millisecond)
		st.ClockOffsetMS, st.ClockBoundMS = &off, float64(w.Bound)/float64(time.Millisecond)
	}
	counted := map[string]bool{}
	for _, p := range m.procs {
		counted[p.engine] = counted[p.engine] || p.counted
	}
	for name, w := range m.mo.Watch {
		counted[name] = counted[name] || w.counted(m.mo.From, to)
	}
	out := make([]loadgen.EngineStats, 0, len(m.byName))
	for name, st := range m.byName {
		st.ConnCapped = counted[name] && connCapped(st, m.noResp[name])
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, total
}

// connCapped: an engine (its connections counted) whose threads did not
// all hold a connection while at least 1% of its samples got no response
// at all: its threads could not connect (out of descriptors or ports, or
// refused), so it sent less than its threads would have. Keep-alive
// threads hold one connection each; without keep-alive a thread between
// requests holds none, which is why the failures must come with it (and
// failures with an HTTP status are the service's answers, not these).
func connCapped(st *loadgen.EngineStats, noResp int64) bool {
	return st.Users > 0 && float64(st.Connections) < 0.9*float64(st.Users) &&
		st.Samples > 0 && float64(noResp) >= 0.01*float64(st.Samples)
}
