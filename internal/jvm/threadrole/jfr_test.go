package threadrole_test

import (
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// The two pieces together on a real recording (the verdict's sync-logging
// fixture: a Tomcat service whose request threads queue on logback's
// appender lock): JFR's per-thread events, their threads' roles, and the
// first application frame of each stack. The request workers hold most of
// the time the recording saw, parked; their first application frame is the
// service's own code that logs.
func TestJFRTimeByRole(t *testing.T) {
	buf, err := os.ReadFile("../../verdict/testdata/runs/sync-logging-jfr/raw/recording.jfr")
	if err != nil {
		t.Fatal(err)
	}
	var events []stacks.ThreadEvent
	read, err := stacks.JFRThreadEvents(buf, func(e stacks.ThreadEvent) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	pools := threadrole.NewPools()
	for _, e := range events {
		pools.Observe(e.Thread, methods(e.Stack))
	}
	byRole := map[threadrole.Kind]int64{}
	var total int64
	parkedApp, parked, withApp := map[string]int{}, 0, 0
	for _, e := range events {
		w := e.Duration
		if e.Kind.Sampled() {
			w = read.PeriodOrDefault(e.Kind)
		}
		r := pools.Role(e.Thread)
		byRole[r.Kind] += w
		total += w
		if r.Kind == threadrole.RequestWorker && e.Kind == stacks.EvPark {
			parked++
			if i := threadrole.FirstAppFrameFunc(len(e.Stack), func(i int) string { return e.Stack[i].Method }); i >= 0 {
				parkedApp[e.Stack[i].Method]++
				withApp++
				if e.Stack[i].Line <= 0 {
					t.Errorf("first application frame %v without its line", e.Stack[i])
				}
			}
		}
	}
	t.Logf("time by role: %v of %d ms; request workers' parks by first application frame: %v", byRole, total/1e6, parkedApp)
	if 2*byRole[threadrole.RequestWorker] <= total {
		t.Errorf("request workers hold %d of %d ns", byRole[threadrole.RequestWorker], total)
	}
	top, n := "", 0
	for f, c := range parkedApp {
		if c > n {
			top, n = f, c
		}
	}
	// The service's own method (its ten log lines) under most parks that
	// hold application code (the others: idle workers waiting for work).
	if !strings.HasPrefix(top, "com.example.zoo.") || 2*n <= withApp || 2*withApp <= parked {
		t.Errorf("parks' first application frame %q in %d of %d (%d parks)", top, n, withApp, parked)
	}
}

func methods(st []stacks.Frame) []string {
	out := make([]string, len(st))
	for i, f := range st {
		out[i] = f.Method
	}
	return out
}
