package threaddump

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// readSeries reads testdata dumps (globs) as one set, the way analyze does.
func readSeries(t *testing.T, globs ...string) *Set {
	t.Helper()
	var ins []Input
	for _, g := range globs {
		ms, _ := filepath.Glob(filepath.Join("testdata", g))
		if len(ms) == 0 {
			t.Fatalf("no fixture %s", g)
		}
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			ins = append(ins, Input{Name: m, R: strings.NewReader(string(b))})
		}
	}
	return ReadSet(ins)
}

func atLeast(fs []finding.Finding, sev finding.Severity) []string {
	var out []string
	for _, f := range fs {
		if f.Severity >= sev {
			out = append(out, fmt.Sprintf("[%s] %s: %s", f.Severity, f.ID, f.Observed.EN))
		}
	}
	return out
}

// An idle application (Timers, a scheduled pool, an idle fixed pool, an
// idle ForkJoinPool and common pool, an acceptor, a selector, Object.wait
// worker loops, a thread in join, main in Thread.sleep): every Java thread
// is idle and no finding is a warning, on JDK 17 over three dumps 1.5 s
// apart and on JDK 25.
func TestIdleApplicationHasNoWarning(t *testing.T) {
	for _, globs := range [][]string{{"jdk17_wait_idle_series/dump*.txt"}, {"jdk25_wait_idle_jcmd.txt"}} {
		s := readSeries(t, globs...)
		for _, r := range s.Reports {
			if r.Active != 0 {
				var work []string
				for _, th := range r.Dump.Threads {
					if th.State != StateNone && !r.IsIdle(th) {
						work = append(work, th.Name)
					}
				}
				t.Errorf("%v: %d working threads in an idle app: %v", globs, r.Active, work)
			}
		}
		if bad := atLeast(s.Findings, finding.Warning); len(bad) > 0 {
			t.Errorf("%v: idle app gets %v", globs, bad)
		}
	}
}

// The same idle dump given three times is one dump, not threads stuck.
func TestSameDumpThriceIsNotStuck(t *testing.T) {
	s := readSeries(t, "jdk17_wait_idle_series/dump1.txt", "jdk17_wait_idle_series/dump1.txt", "jdk17_wait_idle_series/dump1.txt")
	if len(s.Dumps) != 1 || len(s.Duplicates) != 2 {
		t.Errorf("dumps %d duplicates %d", len(s.Dumps), len(s.Duplicates))
	}
	for _, f := range s.Findings {
		if f.ID == "threaddump.stuck" {
			t.Errorf("stuck from one dump: %s", f.Observed.EN)
		}
	}
}

// Each wait kind of WaitKinds.java is the first warning-or-worse finding,
// critical (most working threads wait), and names who serves the waiters.
func TestWaitKindsNameTheirServers(t *testing.T) {
	cases := []struct {
		mode, id, server, say string
	}{
		{"executor", "threaddump.wait.executor", "serial-stage-1", `pool "serial-stage-N" (1 worker(s), 1 busy, sleeping`},
		{"permits", "threaddump.wait.permits", "", "2 thread(s) run the guarded code"},
		{"queue", "threaddump.wait.queue", "order-writer", "ArrayBlockingQueue.put"},
		{"handoff", "threaddump.wait.queue", "ledger", "SynchronousQueue.take"},
		{"downstream", "threaddump.wait.downstream", "", "socket read"},
	}
	for _, tc := range cases {
		for _, globs := range []string{"jdk17_wait_" + tc.mode + "_series/dump*.txt", "jdk25_wait_" + tc.mode + "_jcmd.txt"} {
			t.Run(globs, func(t *testing.T) {
				s := readSeries(t, globs)
				fs := append([]finding.Finding{}, s.Findings...)
				finding.Sort(fs)
				var first *finding.Finding
				for i := range fs {
					if fs[i].Severity >= finding.Warning && fs[i].ID != "threaddump.blocked-share" && fs[i].ID != "threaddump.stuck" {
						first = &fs[i]
						break
					}
				}
				if first == nil || first.ID != tc.id || first.Severity != finding.Critical {
					t.Fatalf("first cause %+v, want critical %s; all %v", first, tc.id, atLeast(fs, finding.Info))
				}
				if !strings.Contains(first.Observed.EN, tc.say) || first.Observed.ZH == "" || first.Recommended.ZH == "" {
					t.Errorf("observed %q, want %q", first.Observed.EN, tc.say)
				}
				if len(s.Reports) == 3 && !strings.Contains(first.Observed.EN, "(in 3 of 3 dumps)") {
					t.Errorf("not counted over the dumps: %s", first.Observed.EN)
				}
				if tc.server != "" {
					_, r := s.Last()
					found := false
					for _, g := range r.Waits {
						for _, sv := range g.Servers {
							found = found || sv.Name == tc.server
						}
					}
					if !found {
						t.Errorf("server %q not joined to the waiters", tc.server)
					}
				}
			})
		}
	}
}

// Threads queueing for a busy pool are not stuck; threads reading from a
// server that never answers (same stack, no CPU gained, 3 s) are.
func TestStuckOnlyWithEvidence(t *testing.T) {
	for _, mode := range []string{"executor", "permits", "queue", "handoff"} {
		s := readSeries(t, "jdk17_wait_"+mode+"_series/dump*.txt")
		for _, f := range s.Findings {
			if f.ID == "threaddump.stuck" && f.Severity >= finding.Warning {
				t.Errorf("%s: queueing threads called stuck: %s", mode, f.Observed.EN)
			}
		}
	}
	s := readSeries(t, "jdk17_wait_downstream_series/dump*.txt")
	if s.Series == nil || len(s.Series.Stuck) < 20 || !s.Series.Stuck[0].Confirmed || s.Series.Stuck[0].SpanSec < 1 || s.Series.Stuck[0].CPUGainedMs != 0 {
		t.Fatalf("stuck readers %+v", s.Series)
	}
}

// A JDK 6 multi-dump log has no cpu=: the same stack is said as a reading,
// never as a warning.
func TestStuckWithoutCPUDataIsInfo(t *testing.T) {
	s := readSeries(t, "tda_test.log")
	for _, f := range s.Findings {
		if f.ID != "threaddump.stuck" {
			continue
		}
		if f.Severity != finding.Info || f.Status != finding.Pass || !strings.Contains(f.Observed.EN, "no CPU data") {
			t.Errorf("stuck without cpu= data: [%s] %s", f.Severity, f.Observed.EN)
		}
		return
	}
	t.Errorf("no same-stack reading for tda_test.log")
}

// The public TDA corpus: no false critical. Only tda_urlthread.log (a
// Heritrix crawler with 30 threads BLOCKED on one monitor) has one, and it
// names that lock.
func TestTDACorpusNoFalseCritical(t *testing.T) {
	ms, _ := filepath.Glob("testdata/tda_*.log")
	for _, m := range ms {
		s := readSeries(t, filepath.Base(m))
		for _, f := range s.Findings {
			if f.Severity < finding.Critical {
				continue
			}
			if filepath.Base(m) == "tda_urlthread.log" && (f.ID == "threaddump.lock.app" || f.ID == "threaddump.blocked-share") {
				continue
			}
			t.Errorf("%s: [critical] %s %s", m, f.ID, f.Observed.EN)
		}
	}
}
