package session

import (
	"context"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// stallAfter is how long without one completed request (a response of
// any status, or a fast failure), from a service that had answered (its
// readiness probe at least), makes a service that stopped answering: the
// load is stopped then, not run to its end against a hung service, and its
// threads are dumped. A service answering 500s is answering; requests
// timing out complete only after the request timeout (10 s by default).
const stallAfter = 5 * time.Second

// stallWatch reads the load's per-second progress.
type stallWatch struct {
	quiet    int           // seconds in a row without a completed request
	last     time.Duration // elapsed at the last second with one
	answered bool          // a request of this load completed (warm-up included)
	// firstWait is how long the load may wait for its first answer: a
	// service slow to answer at first (a cold JIT, CPUs taken by other
	// jobs) has not stopped answering; a request that gets no answer
	// completes as a timeout by then.
	firstWait time.Duration
}

// see takes one second of progress; true when the service has stalled.
func (s *stallWatch) see(p loadgen.Progress) bool {
	if p.Last.Requests > 0 {
		s.answered = true
		if !p.Warmup {
			s.quiet, s.last = 0, p.Elapsed
		}
		return false
	}
	if p.Warmup {
		return false
	}
	s.quiet++
	wait := stallAfter
	if !s.answered {
		wait = max(wait, s.firstWait)
	}
	return time.Duration(s.quiet)*time.Second >= wait
}

// errStalled is the cause the run is stopped with when the service stopped
// answering.
type errStalled struct{ at time.Duration }

func (e *errStalled) Error() string { return "the service stopped answering" }

// dumpStalled takes three thread dumps a second apart into the recording,
// numbered after those taken during the run.
func dumpStalled(ctx context.Context, rec *recording, pid int) {
	m := rec.w.Manifest()
	k := 0
	for _, r := range m.Raw {
		if strings.HasPrefix(r, runfolder.ThreadDumpPrefix) {
			k++
		}
	}
	d := &dumper{pid: pid, w: rec.w}
	for i := 1; i <= 3; i++ {
		if i > 1 {
			time.Sleep(time.Second)
		}
		if err := d.take(ctx, k+i); err != nil {
			d.err = err.Error()
			break
		}
	}
	d.finish(m)
}
