package cli

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// run --target A --target-b B --repeat 2: two real services on 127.0.0.1,
// B answering 30 ms later; the runs go a1 b1 a2 b2 into out/a and out/b,
// each run's summary on stderr, and stdout is their paired comparison that
// finds B's latency higher. --fail-on warning is judged after the last run:
// a warning in a1 (this host's audit has some) neither cuts the series nor
// the comparison short, and the exit status is 3 when any run had one.
func TestRunAB(t *testing.T) {
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer fast.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(30 * time.Millisecond)
		w.Write([]byte("ok"))
	}))
	defer slow.Close()
	out := filepath.Join(t.TempDir(), "ab")
	env, stdout, stderr := recEnv(t)
	err := RunRun(context.Background(), env, &RunOptions{Target: fast.URL + "/", TargetB: slow.URL + "/", Repeat: 2, Users: 2,
		Duration: 1500 * time.Millisecond, Interval: 250 * time.Millisecond, Out: out, Output: "json", NoCatalog: true, Quiet: true, FailOn: "warning"})
	warned := false
	for _, arm := range []string{"a", "b"} {
		for _, r := range []string{"run-1", "run-2"} {
			b, rerr := os.ReadFile(filepath.Join(out, arm, r, "report.json"))
			var rep struct {
				Run struct {
					Findings []finding.Finding `json:"findings"`
				} `json:"run"`
			}
			if rerr == nil {
				rerr = json.Unmarshal(b, &rep)
			}
			if rerr != nil {
				t.Fatalf("%s/%s: %v (the series stopped early?)\n%s", arm, r, rerr, stderr.String())
			}
			if w, any := finding.Worst(rep.Run.Findings); any && w >= finding.Warning {
				warned = true
			}
		}
	}
	var ee *ExitError
	if gated := errors.As(err, &ee) && ee.Code == ExitFindings; err != nil && !gated || gated != warned {
		t.Fatalf("exit %v with a warning in some run: %v\n%s", err, warned, stderr.String())
	}
	if n := strings.Count(stderr.String(), `"schema"`); n < 4 {
		t.Errorf("each run's page on stderr: %d pages", n)
	}
	var c struct {
		Design string `json:"design"`
		Pairs  int    `json:"pairs"`
		Rows   []struct {
			Key           string
			Before, After float64
		} `json:"metrics"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatalf("stdout is not the comparison: %v\n%.400s", err, stdout.String())
	}
	if c.Design != "paired" || c.Pairs != 2 {
		t.Errorf("design %q, %d pairs; want paired, 2", c.Design, c.Pairs)
	}
	found := false
	for _, r := range c.Rows {
		if strings.Contains(r.Key, "p50") {
			found = true
			if r.After < r.Before+20 {
				t.Errorf("%s: A %.1f ms, B %.1f ms; B answers 30 ms later", r.Key, r.Before, r.After)
			}
		}
	}
	if !found {
		t.Errorf("no p50 row in %+v", c.Rows)
	}
}

// run --host app=H --repeat 2: each run of the series is a run over the
// hosts, into out/run-1 and out/run-2, each with its hosts.json and its
// report, and its summary printed.
func TestRunHostsRepeat(t *testing.T) {
	app, _, ho := twoHosts(t)
	ho.Hosts = []string{"app=" + app.Spec()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "rep")
	env, stdout, stderr := testEnv()
	err := RunRun(context.Background(), env, &RunOptions{Target: srv.URL + "/", Users: 2, Duration: 2 * time.Second,
		Interval: 500 * time.Millisecond, Out: out, Output: "text", NoCatalog: true, Repeat: 2, Remote: ho})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, r := range []string{"run-1", "run-2"} {
		for _, f := range []string{"hosts.json", "report.html", "load.json"} {
			if _, err := os.Stat(filepath.Join(out, r, f)); err != nil {
				t.Errorf("%s lacks %s: %v", r, f, err)
			}
		}
	}
	if n := strings.Count(stdout.String(), " [app]"); n != 2 {
		t.Errorf("%d host sections printed, want one per run:\n%s", n, stdout.String())
	}
}
