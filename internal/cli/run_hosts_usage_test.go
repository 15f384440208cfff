package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// TestHostsRefusals: what a run or a recording over other hosts cannot
// do is refused before anything connects, with exit 2 and the flag named
// in both languages, each check written once (runHostsOptions,
// promOptions.localOnly, session's errNoDuration).
func TestHostsRefusals(t *testing.T) {
	hosts := hostOptions{Hosts: []string{"app=127.0.0.1"}}
	run := func(o RunOptions) error {
		env, _, _ := recEnv(t)
		o.Remote, o.Duration, o.Out, o.Output, o.NoCatalog, o.Quiet = hosts, time.Second, t.TempDir(), "text", true, true
		return RunRun(context.Background(), env, &o)
	}
	record := func(o RecordOptions) error {
		env, _, _ := recEnv(t)
		o.Remote, o.Out, o.Output, o.Interval, o.NoCatalog = hosts, t.TempDir(), "text", 250*time.Millisecond, true
		return RunRecord(context.Background(), env, &o)
	}
	for _, c := range []struct {
		name, want string
		err        func() error
	}{
		{"run --start", "--start starts a service here", func() error {
			return run(RunOptions{Target: "http://127.0.0.1:1/", Start: "java -jar app.jar"})
		}},
		{"run --jtl-watch", "--jtl-watch", func() error {
			return run(RunOptions{Target: "http://127.0.0.1:1/", JTLWatch: "results.jtl", PID: 1})
		}},
		{"run --prometheus-listen", "--prometheus-listen", func() error {
			return run(RunOptions{Target: "http://127.0.0.1:1/", PID: 1, Prom: promOptions{Listen: "127.0.0.1:0"}})
		}},
		{"record without --duration", "--host needs --duration", func() error { return record(RecordOptions{PID: 1}) }},
		{"record --prometheus-textfile", "--prometheus-textfile", func() error {
			return record(RecordOptions{PID: 1, Duration: time.Second, Prom: promOptions{Textfile: t.TempDir()}})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want exit 2 naming %q", err, c.want)
			}
			if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, strings.Fields(c.want)[0]) || zh == err.Error() {
				t.Errorf("no Chinese: %q", zh)
			}
		})
	}
}
