package report

import (
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/sample"
)

func TestRecordLiveLine(t *testing.T) {
	r := &sample.Rates{CPU: &sample.CPURates{All: sample.CPUPct{User: 40, Nice: 2, System: 5, SoftIRQ: 3, IRQ: 1, Idle: 49}},
		Proc:    &sample.ProcRate{CPUPct: 98},
		Threads: &sample.ThreadRates{Threads: []sample.ThreadRate{{TID: 77, Name: "worker-1", CPUPct: 97.4}}}}
	want := "● 01:15 / 10:00 (left 08:45)  CPU us 42.0 sy 5.0 si 4.0 id 49.0  proc 98%  top \"worker-1\" tid=77 97%"
	if got := RecordLiveLine(r, 75*time.Second, 10*time.Minute, "en"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := RecordLiveLine(&sample.Rates{}, 3725*time.Second, 0, "zh"); got != "● 1:02:05" {
		t.Errorf("%q", got)
	}
	// A thread name is the target's text: no escape sequence reaches the terminal.
	s := RecordLiveLine(&sample.Rates{Threads: &sample.ThreadRates{Threads: []sample.ThreadRate{{TID: 5, Name: "x\033[2J\ny", CPUPct: 50}}}}, time.Second, 0, "en")
	if strings.Contains(s, "\033") || strings.Contains(s, "\n") || !strings.Contains(s, `top "x`) {
		t.Errorf("%q", s)
	}
}

func TestRunLiveLine(t *testing.T) {
	p := loadgen.Progress{Elapsed: 65 * time.Second, Errors: 3}
	p.Last.Requests, p.Last.P99 = 1234, 8.25
	if got, want := RunLiveLine(p, 2*time.Minute, "zh"), "● 01:05 / 02:00  TPS 1234  p99 8.2 ms  错误 3"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
