package threaddump

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// idleDumps are real dumps of idle services written elsewhere (testdata
// README, "Idle dumps"): Tomcat before and after a load, Timers and a
// scheduled pool, ForkJoin pools after parallel work; three dumps each.
var idleDumps = []string{
	"jdk17_idle_tomcat_jcmd.txt",
	"jdk17_idle_tomcat-afterload_jcmd.txt",
	"jdk17_idle_timers_jcmd.txt",
	"jdk17_idle_forkjoin_jcmd.txt",
}

// Idle is idle: each idle dump alone, and all of them read as one set, give
// no warning or critical finding, no working thread (so none blocked,
// waiting or stuck) and no stuck thread across the dumps.
func TestRealIdleServersHaveNoWarning(t *testing.T) {
	cases := [][]string{idleDumps}
	for _, f := range idleDumps {
		cases = append(cases, []string{f})
	}
	for _, files := range cases {
		name := strings.Join(files, "+")
		t.Run(name, func(t *testing.T) {
			s := readSeries(t, files...)
			if len(s.Reports) < len(files) || len(s.Unreadable) > 0 {
				t.Fatalf("%d reports from %d files, unreadable %v", len(s.Reports), len(files), s.Unreadable)
			}
			for i, r := range s.Reports {
				if r.Java == 0 || r.Idle != r.Java {
					t.Errorf("%s: %d of %d Java threads recognised idle", s.Sources[i], r.Idle, r.Java)
				}
				if r.Active != 0 || r.Blocked != 0 || r.Waiting != 0 {
					var work []string
					for _, th := range r.Dump.Threads {
						if th.State != StateNone && !r.IsIdle(th) {
							work = append(work, th.Name+" "+string(th.State)+" at "+th.Top().String())
						}
					}
					t.Errorf("%s: %d working (%d blocked, %d waiting) in an idle service: %v", s.Sources[i], r.Active, r.Blocked, r.Waiting, work)
				}
			}
			if s.Series == nil {
				t.Fatal("no series over the dumps")
			}
			for _, st := range s.Series.Stuck {
				t.Errorf("stuck: %s %s at %s over %d dumps", st.Name, st.State, st.Top, st.Dumps)
			}
			if bad := atLeast(s.Findings, finding.Warning); len(bad) > 0 {
				t.Errorf("idle service gets %v", bad)
			}
			for _, f := range s.Findings {
				if f.ID == "threaddump.stuck" || f.ID == "threaddump.deadlock" {
					t.Errorf("%s: %s", f.ID, f.Observed.EN)
				}
			}
		})
	}
}
