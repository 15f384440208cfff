package jmeter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// fakeJava is a "java" that writes the JTL given after -l, as JMeter
// would, then waits to be stopped: its samples are in $FAKE_JTL_BODY.
const fakeJava = `#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -l ] && out=$2; shift; done
printf '%s\n' "$FAKE_JTL_BODY" > "$out"
trap 'exit 0' TERM
while :; do sleep 0.05; done
`

// startFake starts the fake JMeter with body as its JTL.
func startFake(t *testing.T, body string, remote []string) *Engine {
	t.Helper()
	dir := t.TempDir()
	java := filepath.Join(dir, "java")
	if err := os.WriteFile(java, []byte(fakeJava), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_JTL_BODY", body)
	e, err := Start(Options{Install: &Install{Jar: "x.jar", Java: java}, Plan: "p.jmx", Dir: filepath.Join(dir, "out"), Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	e.stopNow = 100 * time.Millisecond
	t.Cleanup(e.Kill)
	if err := e.WaitFirst(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return e
}

// jtlLine is one JMeter CSV sample sent at ms (Unix milliseconds).
func jtlLine(ms int64, elapsed int, label, thread string, ok bool, threads int) string {
	code := "200"
	if !ok {
		code = "500"
	}
	return fmt.Sprintf("%d,%d,%s,%s,OK,%s,text,%v,,100,50,%d,%d,http://127.0.0.1/,%d,0,0", ms, elapsed, label, code, thread, ok, threads, threads, elapsed)
}

// The window: samples sent before From are the warm-up, those that had not
// ended by From+Duration are in flight (left out, counted), those sent
// after it are not the run's; the rest, and only they, are the load and go
// to the sink. Rates divide by the window.
func TestMeasureWindow(t *testing.T) {
	now := time.Now()
	from := now.Add(-4 * time.Second)
	to := now.Add(500 * time.Millisecond)
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	lines := []string{loadgen.JTLHeader}
	want := map[string]int64{}
	for i := range 40 { // every 100 ms from 5 s ago: 10 before the window
		at := now.Add(-5*time.Second + time.Duration(i)*100*time.Millisecond)
		label := []string{"home", "order"}[i%2]
		lines = append(lines, jtlLine(ms(at), 20, label, "Users 1-1", i%10 != 3, 4))
		if !at.Before(from) {
			want[label]++
		}
	}
	lines = append(lines, jtlLine(ms(to.Add(-100*time.Millisecond)), 900, "home", "Users 1-2", true, 4)) // ends after the window
	lines = append(lines, jtlLine(ms(to.Add(200*time.Millisecond)), 1, "home", "Users 1-3", true, 4))    // sent after it
	e := startFake(t, strings.Join(lines, "\n"), nil)
	rec := &countSink{}
	s, err := e.Measure(context.Background(), MeasureOptions{From: from, Duration: to.Sub(from), Grace: 100 * time.Millisecond, Sink: rec, Target: "p.jmx"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, l := range s.Labels {
		got[l.Label] = l.Requests
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || s.Warmup != 10 || s.Aborted != 1 || rec.n != s.Requests {
		t.Fatalf("labels %v want %v; warm-up %d, aborted %d, sink %d of %d", got, want, s.Warmup, s.Aborted, rec.n, s.Requests)
	}
	if s.Errors != 3 || s.Engine != "jmeter" || s.Users != 4 || s.Duration < 4.4 || s.Duration > 4.6 || !s.Start.Equal(from.Truncate(time.Millisecond)) {
		t.Errorf("errors %d, engine %q, users %d, duration %.2f, start %v", s.Errors, s.Engine, s.Users, s.Duration, s.Start)
	}
	if len(s.Engines) != 1 || s.Engines[0].Name != "local" || s.Engines[0].Samples != s.Requests || s.Engines[0].PID != e.PID() {
		t.Errorf("engines %+v", s.Engines)
	}
}

// Remote engines: each sample counts for the engine its thread name
// starts with; users are summed over the engines.
func TestMeasureRemoteEngines(t *testing.T) {
	now := time.Now()
	lines := []string{loadgen.JTLHeader}
	for i := range 30 {
		eng := []string{"127.0.0.1:24101", "10.9.9.9:1099"}[i%3/2]
		lines = append(lines, jtlLine(now.Add(time.Duration(i-40)*10*time.Millisecond).UnixMilli(), 2, "home", eng+"-Users 1-1", true, 2+i%3/2))
	}
	e := startFake(t, strings.Join(lines, "\n"), []string{"127.0.0.1:24101", "10.9.9.9:1099"})
	s, err := e.Measure(context.Background(), MeasureOptions{From: now.Add(-time.Second), Duration: 1200 * time.Millisecond, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Engines) != 2 || s.Engines[0].Name != "10.9.9.9:1099" || s.Engines[0].Samples != 10 || s.Engines[0].CPUPct != -1 ||
		s.Engines[1].Samples != 20 || s.Users != 5 {
		t.Fatalf("engines %+v, users %d", s.Engines, s.Users)
	}
}

// Ctrl-C ends the window at once: what was measured until then, Interrupted.
func TestMeasureInterrupted(t *testing.T) {
	now := time.Now()
	body := loadgen.JTLHeader + "\n" + jtlLine(now.Add(-time.Second).UnixMilli(), 3, "home", "Users 1-1", true, 1)
	e := startFake(t, body, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	s, err := e.Measure(ctx, MeasureOptions{From: now.Add(-2 * time.Second), Duration: time.Hour, Grace: 100 * time.Millisecond})
	if err != nil || !s.Interrupted || s.Requests != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	if ok, _ := e.Exited(); !ok {
		t.Fatal("JMeter still runs after the window")
	}
}

type countSink struct{ n int64 }

func (c *countSink) Record(*loadgen.Sample) { c.n++ }

// An engine whose clock runs 3 s ahead: its JTL times are 3 s late on this
// host's timeline, so without the shift its warm-up samples would be in the
// window and its window's last ones after it. With its offset, exactly the
// samples sent in the window (this host's clock) are the load; the
// engine's CPU and connections come from what it reported, and an engine
// with fewer connections than threads while 1 in 5 of its samples got no
// response is capped (one whose failures are HTTP 500s is not).
func TestMeasureRemoteClockOffset(t *testing.T) {
	const eng = "10.9.9.9:1099"
	skew := 3 * time.Second
	now := time.Now()
	from := now.Add(-4 * time.Second)
	to := now.Add(300 * time.Millisecond)
	lines := []string{loadgen.JTLHeader}
	want := int64(0)
	for i := range 50 { // every 100 ms (this host's clock) from 5 s ago
		at := now.Add(-5*time.Second + time.Duration(i)*100*time.Millisecond)
		if !at.Before(from) && at.Add(5*time.Millisecond).Before(to) {
			want++
		}
		line := jtlLine(at.Add(skew).UnixMilli(), 5, "home", eng+"-Users 1-1", i%5 != 0, 40)
		if i%5 == 0 { // no response at all: JMeter's code for a failed connect
			line = strings.Replace(line, ",500,", ",Non HTTP response code: java.net.SocketException,", 1)
		}
		lines = append(lines, line)
		// A second engine, on this host's clock, whose failures are the
		// service's answers (HTTP 500): not capped.
		lines = append(lines, jtlLine(at.UnixMilli(), 5, "home", "10.9.9.8:1099-Users 1-1", i%5 != 0, 40))
	}
	e := startFake(t, strings.Join(lines, "\n"), []string{eng, "10.9.9.8:1099"})
	w := &EngineWatch{Offset: skew, Bound: 2 * time.Millisecond, Cores: 4, PID: 777}
	w2 := &EngineWatch{Cores: 4, PID: 778}
	for i := range 8 {
		w.Add(ServeLine{Kind: "stat", Ticks: uint64(200 * i), Conns: 12}, from.Add(time.Duration(i)*600*time.Millisecond))
		w2.Add(ServeLine{Kind: "stat", Ticks: uint64(20 * i), Conns: 12}, from.Add(time.Duration(i)*600*time.Millisecond))
	}
	s, err := e.Measure(context.Background(), MeasureOptions{From: from, Duration: to.Sub(from), Grace: 100 * time.Millisecond,
		Watch: map[string]*EngineWatch{eng: w, "10.9.9.8:1099": w2}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 2*want || s.Warmup != 20 {
		t.Fatalf("%d requests (want %d), %d warm-up (want 20)", s.Requests, 2*want, s.Warmup)
	}
	if len(s.Engines) != 2 || s.Engines[0].ConnCapped || s.Engines[0].Errors == 0 {
		t.Fatalf("engines %+v: the one answered HTTP 500 is not capped", s.Engines)
	}
	en := s.Engines[1]
	// 200 ticks per 0.6 s = 3.33 cores of 4.
	if en.CPUPct < 80 || en.CPUPct > 86 || en.Cores != 4 || en.PID != 777 || en.Connections != 12 || en.ClockOffsetMS == nil || *en.ClockOffsetMS != 3000 || !en.ConnCapped {
		t.Errorf("engine %+v", en)
	}
}

// The plan's ramp-up counts from JMeter's first sample, warm-up included:
// the part inside the window is the load's own ramp (RampS), so the
// steady state starts after it; a ramp over before the window is none.
func TestMeasureRampInsideWindow(t *testing.T) {
	now := time.Now()
	lines := []string{loadgen.JTLHeader}
	for i := range 40 { // every 100 ms from 5 s ago
		lines = append(lines, jtlLine(now.Add(-5*time.Second+time.Duration(i)*100*time.Millisecond).UnixMilli(), 5, "home", "Users 1-1", true, 4))
	}
	body := strings.Join(lines, "\n")
	for _, c := range []struct {
		ramp, warm time.Duration // ramp-up; warm-up before the window
		want       float64
	}{{3 * time.Second, time.Second, 2}, {3 * time.Second, 0, 3}, {time.Second, 2 * time.Second, 0}, {0, 0, 0}} {
		e := startFake(t, body, nil)
		from := now.Add(-5 * time.Second).Truncate(time.Millisecond).Add(c.warm)
		s, err := e.Measure(context.Background(), MeasureOptions{From: from, Duration: now.Add(time.Second).Sub(from), Grace: 100 * time.Millisecond, RampUp: c.ramp})
		if err != nil {
			t.Fatal(err)
		}
		if s.RampS != c.want {
			t.Errorf("ramp-up %s, window from %s in: ramp_s %.3f, want %g", c.ramp, c.warm, s.RampS, c.want)
		}
	}
}
