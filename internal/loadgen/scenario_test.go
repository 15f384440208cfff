package loadgen

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestScenarioWithVariables(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	cs := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.Method+" "+r.URL.RequestURI()+" "+string(body)+" "+r.Header.Get("X-User")]++
		mu.Unlock()
		io.WriteString(w, "ok")
	})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "users.csv"), []byte("\ufeffuser,acct\nalice,1\n\"bob, jr\",2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"acct":"${acct}"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(`
base_url: `+cs.URL+`/
users: 1
requests_total: 40
ramp_up: 0s
timeout: 2s
variables: users.csv
requests:
  - label: pay
    method: post
    url: /pay?u=${acct}
    headers: {X-User: "${user}"}
    body_file: body.json
    assert: {status: [200, 201], body_contains: ok}
`), 0o644)
	var cfg Config
	if err := LoadScenario(filepath.Join(dir, "s.yaml"), &cfg); err != nil {
		t.Fatal(err)
	}
	s, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 40 || s.Errors != 0 || s.Labels[0].Label != "pay" {
		t.Fatalf("%+v", s)
	}
	// Rows are taken in turn: 20 each.
	mu.Lock()
	defer mu.Unlock()
	if seen[`POST /pay?u=1 {"acct":"1"} alice`] != 20 || seen[`POST /pay?u=2 {"acct":"2"} bob, jr`] != 20 {
		t.Fatalf("server saw %v", seen)
	}
}

func TestScenarioErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "",
		"unknown key": "users: 1\nrequests: [{url: http://h/}]\nthreads: 5\n",
		"bad dur":     "duration: 10 minutes\nrequests: [{url: http://h/}]\n",
		"no requests": "users: 1\n",
	} {
		if _, err := ParseScenario(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRenderEscapesVariables(t *testing.T) {
	var targets []target
	cols := map[string]int{"q": 0, "h": 1, "b": 2}
	c, err := compile(Request{URL: "http://h:8080/s?q=${q}", Headers: []Header{{"X-V", "${h}"}}, Body: []byte("${b}")}, cols, &targets, true)
	if err != nil {
		t.Fatal(err)
	}
	var scratch []byte
	got := string(c.render(nil, &scratch, []string{"a b/ü#", "x\r\nEvil: 1", "raw \r\n body"}))
	want := "POST /s?q=a%20b/%C3%BC%23 HTTP/1.1\r\nX-V: x  Evil: 1\r\nHost: h:8080\r\nUser-Agent: tuneloop\r\nAccept: */*\r\n" +
		"Content-Length: 11\r\n\r\nraw \r\n body"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestScenarioExampleParses(t *testing.T) {
	f, err := os.Open("testdata/scenario-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseScenario(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 3 || s.Users != 60 || s.Steps[0].Assert.Status[0] != 200 || s.Steps[1].Assert.Status[0] != 200 {
		t.Fatalf("%+v", s)
	}
}

func FuzzParseScenario(f *testing.F) {
	b, _ := os.ReadFile("testdata/scenario-example.yaml")
	f.Add(string(b))
	f.Add("requests: [{url: x, assert: {status: [1, 2]}}]\nduration: 1s\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseScenario(strings.NewReader(in))
		if err == nil && len(s.Steps) == 0 {
			t.Fatal("accepted a scenario without requests")
		}
	})
}
