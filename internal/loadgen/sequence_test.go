package loadgen

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pathLog records, per client connection, the paths a 127.0.0.1 server saw
// in the order it saw them.
type pathLog struct {
	mu     sync.Mutex
	byConn map[string][]string
	count  map[string]int
}

func newPathServer(t *testing.T) (*countingServer, *pathLog) {
	pl := &pathLog{byConn: map[string][]string{}, count: map[string]int{}}
	cs := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		pl.mu.Lock()
		pl.byConn[r.RemoteAddr] = append(pl.byConn[r.RemoteAddr], r.URL.Path)
		pl.count[r.URL.Path]++
		pl.mu.Unlock()
		w.Write([]byte("ok"))
	})
	return cs, pl
}

func labelCounts(s *Summary) map[string]int64 {
	m := map[string]int64{}
	for _, l := range s.Labels {
		m[l.Label] = l.Requests
	}
	return m
}

func TestSequenceLoopsSendExactCounts(t *testing.T) {
	cs, pl := newPathServer(t)
	cfg := Config{Users: 3, Sequence: true, Loops: 5, Requests: []Request{
		{Label: "a", URL: cs.URL + "/a"},
		{Label: "b", URL: cs.URL + "/b", Weight: 2}, // a loop controller of 2 around it
		{Label: "c", URL: cs.URL + "/c"},
	}}
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a": 15, "b": 30, "c": 15}
	if got := labelCounts(s); !equalCounts(got, want) || s.Requests != 60 || s.Errors != 0 {
		t.Fatalf("labels %v (want %v), requests %d, errors %d", got, want, s.Requests, s.Errors)
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.count["/a"] != 15 || pl.count["/b"] != 30 || pl.count["/c"] != 15 {
		t.Fatalf("server saw %v", pl.count)
	}
	// Each user (one keep-alive connection) sends the plan in order.
	pass := strings.Repeat("/a /b /b /c ", 5)
	for conn, paths := range pl.byConn {
		if got := strings.Join(paths, " ") + " "; got != pass {
			t.Errorf("connection %s sent %q, want %q", conn, got, pass)
		}
	}
}

func TestSequenceThreadGroups(t *testing.T) {
	cs, pl := newPathServer(t)
	cfg := Config{Users: 3, Sequence: true, Requests: []Request{
		{Label: "a", URL: cs.URL + "/a"},
		{Label: "b", URL: cs.URL + "/b"},
		{Label: "c", URL: cs.URL + "/c"},
	}, Groups: []UserGroup{{Users: 2, Requests: 1, Loops: 3}, {Users: 1, Requests: 2, Loops: 4}}}
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a": 6, "b": 4, "c": 4}
	if got := labelCounts(s); !equalCounts(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.count["/a"] != 6 || pl.count["/b"] != 4 || pl.count["/c"] != 4 {
		t.Fatalf("server saw %v", pl.count)
	}
}

// A duration-bounded sequence run (the event loop where it applies): every
// user is within one pass of the others, so per-label counts differ by at
// most the users.
func TestSequenceByDuration(t *testing.T) { bothEngines(t, testSequenceByDuration) }

func testSequenceByDuration(t *testing.T, engine func(*Config)) {
	cs, _ := newPathServer(t)
	cfg := Config{Users: 4, Sequence: true, Duration: 300 * time.Millisecond, Requests: []Request{
		{Label: "a", URL: cs.URL + "/a"},
		{Label: "b", URL: cs.URL + "/b", Weight: 3},
	}}
	engine(&cfg)
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := labelCounts(s)
	if got["a"] < 10 || got["b"] < 3*got["a"]-3*4 || got["b"] > 3*got["a"]+4 {
		t.Fatalf("labels %v: b should be 3a within 4 users' passes", got)
	}
}

func TestScenarioSequence(t *testing.T) {
	cs, pl := newPathServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	os.WriteFile(path, []byte("base_url: "+cs.URL+"\nusers: 2\norder: sequence\nloops: 7\nrequests:\n  - {label: login, url: /login}\n  - {label: list, url: /list, weight: 3}\n"), 0o644)
	var cfg Config
	if err := LoadScenario(path, &cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.BoundedByLoops() {
		t.Fatal("a scenario with loops is bounded by them")
	}
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := labelCounts(s); got["login"] != 14 || got["list"] != 42 {
		t.Fatalf("labels %v", got)
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.count["/login"] != 14 || pl.count["/list"] != 42 {
		t.Fatalf("server saw %v", pl.count)
	}
	for _, bad := range []string{"order: random\n", "loops: 3\n", "order: sequence\nloops: -1\n"} {
		os.WriteFile(path, []byte("users: 1\n"+bad+"requests:\n  - {url: http://127.0.0.1:1/}\n"), 0o644)
		if err := LoadScenario(path, &Config{}); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestSequenceConfigErrors(t *testing.T) {
	q := []Request{{URL: "http://127.0.0.1:1/"}}
	for name, cfg := range map[string]Config{
		"loops without sequence": {Users: 1, Loops: 2, Requests: q, Duration: time.Second},
		"sequence open model":    {Rate: 10, Sequence: true, Requests: q, Duration: time.Second},
		"groups do not add up":   {Users: 2, Sequence: true, Requests: q, Groups: []UserGroup{{Users: 1, Requests: 1, Loops: 1}}},
		"unbounded":              {Users: 1, Sequence: true, Requests: q},
	} {
		if _, err := newRunner(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func equalCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// In sequence order a pass's requests share one row of variables, as a
// JMeter iteration shares one CSV line: the user who logs in is the one
// whose balance is read; passes take the rows in turn.
func TestSequenceRowPerPass(t *testing.T) {
	var mu sync.Mutex
	byConn := map[string][]string{}
	cs := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		byConn[r.RemoteAddr] = append(byConn[r.RemoteAddr], r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Write([]byte("ok"))
	})
	cfg := Config{Users: 2, Sequence: true, Loops: 3, Vars: &Vars{Names: []string{"u"}, Rows: [][]string{{"alice"}, {"bob"}, {"carol"}}},
		Requests: []Request{{Label: "login", URL: cs.URL + "/login?u=${u}"}, {Label: "balance", URL: cs.URL + "/balance?u=${u}", Weight: 2}}}
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	users := map[string]int{}
	for conn, reqs := range byConn {
		if len(reqs) != 9 {
			t.Fatalf("%s sent %d requests: %v", conn, len(reqs), reqs)
		}
		for p := 0; p < 3; p++ {
			pass := reqs[3*p : 3*p+3]
			u := strings.TrimPrefix(pass[0], "/login?u=")
			if pass[1] != "/balance?u="+u || pass[2] != "/balance?u="+u {
				t.Errorf("%s: a pass mixes rows: %v", conn, pass)
			}
			users[u]++
		}
	}
	// 6 passes over 3 rows in turn: each row twice.
	if users["alice"] != 2 || users["bob"] != 2 || users["carol"] != 2 {
		t.Errorf("rows per pass: %v", users)
	}
}
