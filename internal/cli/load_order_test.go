package cli

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// --jmx runs the plan in order; -c replaces its one group's users, --rate
// turns it into an open-model mix, and run --jmx lets the run's -d bound it.
func TestLoadJMXOrderAndOverrides(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	plan := filepath.Join("..", "jmx", "testdata", "local-plan.jmx")
	props := []string{"port=" + port, "users=2", "loops=3", "think=0"}
	run := func(o *LoadOptions) *loadgen.Summary {
		t.Helper()
		env, out, errb := loadEnv()
		o.Output = "json"
		if err := RunLoad(context.Background(), env, o); err != nil {
			t.Fatalf("%v\n%s", err, errb)
		}
		var s loadgen.Summary
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	s := run(&LoadOptions{JMX: plan, JProps: props, Users: 3})
	want := map[string]int64{"home": 9, "balance": 9, "login": 18} // 3 users x 3 loops
	for _, l := range s.Labels {
		if l.Requests != want[l.Label] {
			t.Errorf("-c 3: %s %d, want %d", l.Label, l.Requests, want[l.Label])
		}
	}
	if s = run(&LoadOptions{JMX: plan, JProps: props, Rate: 200, Duration: 300 * time.Millisecond}); s.Model != "open" || s.Requests == 0 {
		t.Errorf("--rate with --jmx: model %q, %d requests", s.Model, s.Requests)
	}

	env, _, _ := loadEnv()
	cfg, err := runLoadConfig(&RunOptions{JMX: plan, JProps: props, Duration: 2 * time.Second, Users: 50}, env, false)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BoundedByLoops() || cfg.Duration != 2*time.Second || !cfg.Sequence {
		t.Errorf("run --jmx: bounded by loops %v, duration %v, in order %v", cfg.BoundedByLoops(), cfg.Duration, cfg.Sequence)
	}
}

// A scenario bounded by its loops ends with them, not after the default 10 s.
func TestLoadScenarioLoops(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(path, []byte("base_url: "+srv.URL+"\nusers: 2\norder: sequence\nloops: 4\nrequests:\n  - {label: a, url: /a}\n  - {label: b, url: /b, weight: 2}\n"), 0o644)
	env, out, errb := loadEnv()
	start := time.Now()
	if err := RunLoad(context.Background(), env, &LoadOptions{Scenario: path, Output: "json"}); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	var s loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Requests != 24 || time.Since(start) > 5*time.Second {
		t.Errorf("%d requests in %v", s.Requests, time.Since(start))
	}
}

// run reads its load as load does: the flags the user gave win over the
// scenario's or plan's (-c, --rate), the run's default users apply only
// where the scenario or plan sets no model, and the run's -d bounds it.
func TestRunLoadConfigFlagsWinAsInLoad(t *testing.T) {
	dir := t.TempDir()
	scen := func(name, model string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("base_url: http://127.0.0.1:9\n"+model+"duration: 1m\nrequests:\n  - {url: /a}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seven, open, none := scen("seven.yaml", "users: 7\n"), scen("open.yaml", "rate: 40\n"), scen("none.yaml", "")
	plan := filepath.Join("..", "jmx", "testdata", "local-plan.jmx")
	props := []string{"port=9", "users=2", "loops=3", "think=0"}
	env, _, _ := loadEnv()
	for _, c := range []struct {
		name  string
		o     RunOptions
		given bool
		users int
		rate  float64
	}{
		{"scenario's users", RunOptions{Scenario: seven, Users: 50}, false, 7, 0},
		{"-c over the scenario's users", RunOptions{Scenario: seven, Users: 3}, true, 3, 0},
		{"--rate over the scenario's users", RunOptions{Scenario: seven, Rate: 25}, false, 0, 25},
		{"scenario's rate", RunOptions{Scenario: open, Users: 50}, false, 0, 40},
		{"-c over the scenario's rate", RunOptions{Scenario: open, Users: 4}, true, 4, 0},
		{"run's default where the scenario sets none", RunOptions{Scenario: none, Users: 50}, false, 50, 0},
		{"a URL", RunOptions{Target: "http://127.0.0.1:9/", Users: 50}, false, 50, 0},
		{"plan's users", RunOptions{JMX: plan, JProps: props, Users: 50}, false, 2, 0},
		{"-c over the plan's users", RunOptions{JMX: plan, JProps: props, Users: 3}, true, 3, 0},
	} {
		c.o.Duration = 2 * time.Second
		cfg, err := runLoadConfig(&c.o, env, c.given)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		users := cfg.Users
		if len(cfg.Groups) == 1 {
			users = cfg.Groups[0].Users
		}
		if users != c.users || cfg.Rate != c.rate || cfg.Duration != 2*time.Second || len(cfg.Requests) == 0 {
			t.Errorf("%s: users %d rate %v duration %v, %d requests; want users %d rate %v duration 2s", c.name, users, cfg.Rate, cfg.Duration, len(cfg.Requests), c.users, c.rate)
		}
	}
}
