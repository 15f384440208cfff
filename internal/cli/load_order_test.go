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
	cfg, err := runLoadConfig(&RunOptions{JMX: plan, JProps: props, Duration: 2 * time.Second}, env)
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
