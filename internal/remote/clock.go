package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// ClockSample is one round trip of the clock probe: when the request left
// here, when the answer came back (both local clock) and the remote
// CLOCK_REALTIME read in between.
type ClockSample struct {
	Send, Recv time.Time
	Remote     time.Time
}

// RTT is the round trip's duration on the wall clock, the clock the remote
// read is compared with. Not the monotonic one: time.Now reads the two
// clocks one after the other, and a thread descheduled between the two
// reads (a loaded host) gets a monotonic round trip shorter than the wall
// one, so a bound of half of it missed the true offset (CI: 28.6 µs ±17.8
// µs between two "hosts" on one machine).
func (s ClockSample) RTT() time.Duration { return s.Recv.Round(0).Sub(s.Send.Round(0)) }

// ClockOffset is the remote clock minus the local one, measured from the
// round trip with the least RTT (the remote read lies within that round
// trip, so the error is at most half of it).
type ClockOffset struct {
	Offset time.Duration // remote - local
	Bound  time.Duration // |error| <= Bound (= best RTT / 2)
	At     time.Time     // local time of the best round trip's middle
	N      int           // round trips
}

// EstimateOffset takes the round trip with the least RTT: offset = remote -
// (send+recv)/2, error bound RTT/2. ok is false without a sample.
func EstimateOffset(ss []ClockSample) (ClockOffset, bool) {
	best := -1
	for i, s := range ss {
		if s.RTT() < 0 {
			continue
		}
		if best < 0 || s.RTT() < ss[best].RTT() {
			best = i
		}
	}
	if best < 0 {
		return ClockOffset{}, false
	}
	s := ss[best]
	mid := s.Send.Add(s.RTT() / 2).Round(0) // wall clock only
	return ClockOffset{Offset: s.Remote.Sub(mid), Bound: (s.RTT() + 1) / 2, At: mid, N: len(ss)}, true
}

// ClockCommand is the hidden subcommand of our binary the probe runs: it
// prints "ready", then answers each line read with its CLOCK_REALTIME in
// nanoseconds, until its input ends.
const ClockCommand = "clock"

// ClockProbe is our binary running ClockCommand on the target: one copy,
// then as many measurements as wanted over the same channel (before and
// after a run).
type ClockProbe struct {
	host   string
	in     *io.PipeWriter
	out    *bufio.Reader
	closer func() error
	wait   chan error
}

// StartClock copies bin to the target and starts the clock answerer there,
// bounded by limit (it ends by itself if the connection is lost).
func (c *Client) StartClock(ctx context.Context, bin string, limit time.Duration) (*ClockProbe, error) {
	cp, err := c.startCopied(bin, []string{ClockCommand}, limit)
	if err != nil {
		return nil, err
	}
	p := &ClockProbe{host: c.Target.Addr(), in: cp.in, out: bufio.NewReader(cp.out), wait: make(chan error, 1), closer: cp.close}
	go func() { p.wait <- cp.s.Wait() }()
	line, err := p.readLine(ctx, 2*time.Minute) // the copy of the binary
	if err != nil || line != "ready" {
		p.Close()
		if detail := cp.copyErr(); detail != "" {
			return nil, c.copyError(cp.size, detail)
		}
		if err == nil {
			err = errors.New("unexpected answer " + strconv.Quote(finding.SafeLine(line)))
		}
		return nil, finding.Errorf(finding.T("%s: the clock probe did not start: %v", "%s：时钟探测未能启动：%v"), p.host, err)
	}
	return p, nil
}

// readLine reads one answer, giving up (and closing the session) after
// timeout or when ctx ends.
func (p *ClockProbe) readLine(ctx context.Context, timeout time.Duration) (string, error) {
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := p.out.ReadString('\n')
		ch <- res{strings.TrimSpace(s), err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-t.C:
		p.closer()
		return "", errors.New("no answer within " + timeout.String())
	case <-ctx.Done():
		p.closer()
		return "", ctx.Err()
	}
}

// Measure does n round trips and returns them.
func (p *ClockProbe) Measure(ctx context.Context, n int) ([]ClockSample, error) {
	var ss []ClockSample
	for range n {
		send := time.Now()
		if _, err := p.in.Write([]byte("\n")); err != nil {
			return ss, finding.Errorf(finding.T("%s: clock probe: %v", "%s：时钟探测：%v"), p.host, err)
		}
		line, err := p.readLine(ctx, 10*time.Second)
		recv := time.Now()
		if err != nil {
			return ss, finding.Errorf(finding.T("%s: clock probe: %v", "%s：时钟探测：%v"), p.host, err)
		}
		ns, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return ss, finding.Errorf(finding.T("%s: clock probe answered %q", "%s：时钟探测返回了 %q"), p.host, finding.SafeLine(line))
		}
		ss = append(ss, ClockSample{Send: send, Recv: recv, Remote: time.Unix(0, ns)})
	}
	return ss, nil
}

// Close ends the remote answerer (its input ends) and the session.
func (p *ClockProbe) Close() error {
	p.in.Close()
	select {
	case <-p.wait:
	case <-time.After(5 * time.Second):
	}
	return p.closer()
}

// AnswerClock is the other half of the probe, run by ClockCommand on the
// target: "ready", then for each line read from in one CLOCK_REALTIME in
// nanoseconds (shifted by skew, which only tests set), until in ends.
func AnswerClock(in io.Reader, out io.Writer, skew time.Duration) error {
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, "ready")
	if err := w.Flush(); err != nil {
		return err
	}
	if in == nil {
		return nil
	}
	r := bufio.NewReader(in)
	for {
		if _, err := r.ReadString('\n'); err != nil {
			return nil // the prober is done (or gone)
		}
		// time.Now is CLOCK_REALTIME (its wall part).
		fmt.Fprintln(w, time.Now().Add(skew).UnixNano())
		if err := w.Flush(); err != nil {
			return nil
		}
	}
}
