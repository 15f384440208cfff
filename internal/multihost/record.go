package multihost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/remote"
)

// Clock probing: round trips per measurement (the least RTT is kept).
const ClockTrips = 8

// RecordLead is the time a remote recorder has, once its binary runs, to
// take its first sample before the load starts.
const RecordLead = 2 * time.Second

// Conn is how every host is reached.
type Conn struct {
	Options remote.Options // keys, known_hosts, environment
	Exe     string         // the local tuneloop binary ("" = this executable)
	Sudo    bool           // run tuneloop there through sudo
	// Password asks for sudo's password (nil: none can be asked); it is
	// used only with one host, as a prompt per host would interleave.
	Password func(prompt string) (string, error)
	Stderr   io.Writer // each host's remote stderr, prefixed by its name
}

// Plan is what each host records and what happens here meanwhile.
type Plan struct {
	Dir      string
	Hosts    []Host
	Conn     Conn
	Duration time.Duration // each remote record's --duration
	Interval time.Duration
	// AppArgs are added to the app host's record (--jvm/--pid, dumps).
	AppArgs []string
	Enable  []string
	Disable []string
	// During runs here once every host records (the load; nil = wait).
	During func(ctx context.Context) error
	Note   func(finding.Text)
}

// job is one host's connection, clock probe and record job.
type job struct {
	entry   Entry
	client  *remote.Client
	bin     string
	probe   *remote.ClockProbe
	started chan struct{}
	done    chan struct{}
	res     *remote.Result
	err     error
}

// Record records every host of p at once into p.Dir/hosts/NAME, their
// clocks measured before and after, and writes hosts.json. During runs
// once all have started (or failed to). What a lost host sent is kept and
// said in its entry.
func Record(ctx context.Context, p Plan) (*Manifest, error) {
	if p.Note == nil {
		p.Note = func(finding.Text) {}
	}
	if p.Conn.Stderr == nil {
		p.Conn.Stderr = io.Discard
	}
	jobs, err := connectAll(ctx, p)
	defer func() {
		for _, j := range jobs {
			if j.probe != nil {
				j.probe.Close()
			}
			if j.client != nil {
				j.client.Close()
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	clocksBefore(ctx, p, jobs)
	m := &Manifest{Start: time.Now()}
	duringErr, err := recordAll(ctx, p, jobs)
	if err != nil {
		return nil, err
	}
	m.End = time.Now()
	for _, j := range jobs {
		m.Hosts = append(m.Hosts, j.finish(ctx, p.Note))
	}
	if err := Write(p.Dir, m); err != nil {
		return m, err
	}
	return m, duringErr
}

// connectAll connects to every host first: a host that cannot be reached
// stops the run before any load (the user fixes the name, the key, the
// known_hosts).
func connectAll(ctx context.Context, p Plan) ([]*job, error) {
	jobs := make([]*job, len(p.Hosts))
	errs := make([]error, len(p.Hosts))
	var wg sync.WaitGroup
	for i, h := range p.Hosts {
		jobs[i] = &job{entry: Entry{Host: h}, started: make(chan struct{}), done: make(chan struct{})}
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := jobs[i]
			j.client, j.bin, errs[i] = remote.Connect(ctx, h.Address, p.Conn.Options, p.Conn.Exe)
			if errs[i] == nil {
				j.entry.Arch = filepath.Base(j.bin)
				if a, err := j.client.Arch(); err == nil {
					j.entry.Arch = a
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return jobs, finding.Errorf(finding.T("host %s (%s): %v", "主机 %s（%s）：%v"), finding.SafeLine(p.Hosts[i].Name), finding.SafeLine(p.Hosts[i].Address), err)
		}
	}
	return jobs, nil
}

// clocksBefore starts one clock probe per host, kept open for the measure
// after, and measures each clock once.
func clocksBefore(ctx context.Context, p Plan, jobs []*job) {
	limit := p.Duration + 3*time.Minute
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, err := j.client.StartClock(ctx, j.bin, limit+2*time.Minute)
			if err != nil {
				p.Note(finding.Tf(finding.T("%s: clock not measured: %v", "%s：未能测量时钟：%v"), j.entry.Name, err))
				return
			}
			j.probe = pr
			j.entry.Before = MeasureClock(ctx, pr)
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if off, bound, ok := j.entry.Offset(); ok {
			p.Note(finding.Tf(finding.T("%s (%s): clock offset %s ±%s", "%s（%s）：时钟偏差 %s ±%s"), j.entry.Name, j.entry.Arch,
				ClockMS(ms(off), true), ClockMS(ms(bound), false)))
		}
	}
}

// recordArgs is the remote record's command line for host j.
func (p Plan) recordArgs(j *job) []string {
	args := []string{"record", "--out", remote.FetchDir, "--no-catalog", "--quiet", "--output", "json",
		"--duration", p.Duration.String(), "--interval", p.Interval.String()}
	if j.entry.Role == RoleApp {
		args = append(args, p.AppArgs...)
	}
	for _, e := range p.Enable {
		args = append(args, "--enable", e)
	}
	for _, d := range p.Disable {
		args = append(args, "--disable", d)
	}
	return args
}

// recordAll starts every host's recorder behind one gate, opens it once
// all are copied and started, runs During, and waits for all to end.
func recordAll(ctx context.Context, p Plan, jobs []*job) (duringErr error, err error) {
	// Every recorder waits, copied, for the others: they start together.
	gate := make(chan struct{})
	var openGate sync.Once
	defer openGate.Do(func() { close(gate) })
	for i, j := range jobs {
		into := Dir(p.Dir, p.Hosts[i].Name)
		if err := os.MkdirAll(into, 0o755); err != nil {
			return nil, err
		}
		var once sync.Once
		rj := remote.Job{Binary: j.bin, Args: p.recordArgs(j), Limit: p.Duration + 2*time.Minute, Fetch: true, Into: into,
			Stderr: prefixWriter(p.Conn.Stderr, j.entry.Name), Sudo: p.Conn.Sudo, FailOnExit: true,
			Started: func() { once.Do(func() { close(j.started) }) }, Gate: gate}
		if len(jobs) == 1 {
			rj.Password = p.Conn.Password
		}
		go func() {
			defer close(j.done)
			defer once.Do(func() { close(j.started) }) // ended before it started
			j.res, j.err = j.client.Exec(ctx, rj)
		}()
	}
	// The copies can take a while over a slow link: the recorders start
	// together once all are copied, and the load a moment later (a
	// recorder's own start).
	for _, j := range jobs {
		select {
		case <-j.started:
		case <-ctx.Done():
		}
	}
	openGate.Do(func() { close(gate) })
	if p.During != nil && ctx.Err() == nil {
		time.Sleep(RecordLead)
		duringErr = p.During(ctx)
	}
	for _, j := range jobs {
		<-j.done
	}
	return duringErr, nil
}

// finish is the host's entry once its recorder ended: files, what was
// lost, the clock after and its drift.
func (j *job) finish(ctx context.Context, note func(finding.Text)) Entry {
	if j.res != nil {
		j.entry.Files = len(j.res.Files)
	}
	if j.err != nil {
		var le *remote.LostError
		var t finding.Text
		if errors.As(j.err, &le) {
			j.entry.Files = len(le.Arrived)
			t = finding.T(le.Localize(finding.EN), le.Localize(finding.ZH))
		} else {
			t = finding.T(finding.Localize(j.err, finding.EN), finding.Localize(j.err, finding.ZH))
		}
		j.entry.Lost = &t
		if j.probe != nil { // its connection is gone
			j.probe.Close()
			j.probe = nil
		}
	}
	if j.probe != nil {
		j.entry.After = MeasureClock(ctx, j.probe)
	}
	if d, ok := j.entry.Drift(); ok {
		note(finding.Tf(finding.T("%s: clock drift over the run %s", "%s：运行期间时钟漂移 %s"), j.entry.Name, ClockMS(ms(d), true)))
	}
	return j.entry
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ClockMS says a clock offset, bound or drift in milliseconds readably:
// under a millisecond in whole microseconds (a LAN round trip), else in
// ms with one decimal; sign forces the + of a positive value.
func ClockMS(ms float64, sign bool) string {
	f := "%"
	if sign {
		f += "+"
	}
	if ms > -1 && ms < 1 {
		return fmt.Sprintf(f+".0f µs", ms*1000)
	}
	return fmt.Sprintf(f+".1f ms", ms)
}

// MeasureClock does one measurement (nil: the probe failed).
func MeasureClock(ctx context.Context, pr *remote.ClockProbe) *Clock {
	ss, _ := pr.Measure(ctx, ClockTrips)
	off, ok := remote.EstimateOffset(ss)
	if !ok {
		return nil
	}
	return &Clock{OffsetNS: int64(off.Offset), BoundNS: int64(off.Bound), At: off.At, Trips: off.N}
}

// prefixWriter is the host's remote stderr, each line prefixed by its name.
func prefixWriter(w io.Writer, name string) *linePrefix {
	return &linePrefix{w: w, prefix: "[" + name + "] "}
}

type linePrefix struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	pen    []byte
}

func (l *linePrefix) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pen = append(l.pen, p...)
	for {
		i := strings.IndexByte(string(l.pen), '\n')
		if i < 0 {
			break
		}
		l.w.Write([]byte(l.prefix + string(l.pen[:i+1])))
		l.pen = l.pen[i+1:]
	}
	return len(p), nil
}
