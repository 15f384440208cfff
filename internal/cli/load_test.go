package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
)

func loadEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

func TestLoadRunJSONAndJTLImport(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	env, out, _ := loadEnv()
	o := &LoadOptions{URL: srv.URL + "/api", Users: 3, Requests: 120, Output: "json",
		JTL: filepath.Join(dir, "r.jtl"), Save: filepath.Join(dir, "s.json"), ExpectBody: "ok"}
	if err := RunLoad(context.Background(), env, o); err != nil {
		t.Fatal(err)
	}
	var s loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Requests != 120 || hits.Load() != 120 || s.Errors != 0 {
		t.Fatalf("requests %d hits %d errors %d", s.Requests, hits.Load(), s.Errors)
	}
	if _, err := os.Stat(o.Save); err != nil {
		t.Fatal(err)
	}
	env, out, _ = loadEnv()
	if err := RunLoad(context.Background(), env, &LoadOptions{Import: o.JTL, Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "requests  120 in") || !strings.Contains(out.String(), "GET /api") {
		t.Fatalf("import output:\n%s", out)
	}
}

func TestLoadScenario(t *testing.T) {
	var a, b atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/login":
			a.Add(1)
			if !strings.HasPrefix(string(body), `{"user":"`) || r.Header.Get("X-Env") != "test" {
				w.WriteHeader(400)
			}
			io.WriteString(w, "token")
		case "/balance":
			b.Add(1)
			io.WriteString(w, r.URL.Query().Get("acct"))
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "vars.csv"), []byte("user,acct\nalice,1\nbob,2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(`
base_url: `+srv.URL+`
users: 2
requests_total: 200
variables: vars.csv
headers: {X-Env: test}
requests:
  - {label: login, method: POST, url: /login, body: '{"user":"${user}"}', weight: 1, assert: {status: 200, body_contains: token}}
  - {label: balance, url: "/balance?acct=${acct}", weight: 3, assert: {body_contains: "9"}}
`), 0o644)
	env, out, _ := loadEnv()
	if err := RunLoad(context.Background(), env, &LoadOptions{Scenario: filepath.Join(dir, "s.yaml"), Output: "json"}); err != nil {
		t.Fatal(err)
	}
	var s loadgen.Summary
	json.Unmarshal(out.Bytes(), &s)
	if s.Requests != 200 || a.Load()+b.Load() != 200 || a.Load() == 0 || b.Load() <= a.Load() {
		t.Fatalf("requests %d login %d balance %d", s.Requests, a.Load(), b.Load())
	}
	// The balance assertion wants "9", which neither account holds.
	if s.ErrorKinds["assertion"] != b.Load() || s.ErrorKinds["status"] != 0 {
		t.Fatalf("errors %v (balance %d)", s.ErrorKinds, b.Load())
	}
}

func TestLoadUsageAndTargetErrors(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	for name, o := range map[string]*LoadOptions{
		"no url":     {Output: "text"},
		"both":       {URL: "http://x", Users: 1, Rate: 1, Output: "text"},
		"bad output": {URL: "http://x", Output: "yaml"},
		"bad header": {URL: "http://x", Headers: []string{"nocolon"}, Output: "text"},
		"bad scheme": {URL: "ftp://x/", Output: "text"},
	} {
		env, _, _ := loadEnv()
		var ee *ExitError
		if err := RunLoad(context.Background(), env, o); !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%s: err %v, want usage error", name, err)
		}
	}
	env, _, _ := loadEnv()
	err := RunLoad(context.Background(), env, &LoadOptions{URL: "http://" + addr + "/", Requests: 1, Output: "text"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code == ExitUsage || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err %v", err)
	}
}

func TestLoadInterruptStillReports(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	env, out, _ := loadEnv()
	jtlPath := filepath.Join(t.TempDir(), "r.jtl")
	start := time.Now()
	if err := RunLoad(ctx, env, &LoadOptions{URL: srv.URL, Users: 2, Duration: time.Minute, Output: "text", JTL: jtlPath}); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second || !strings.Contains(out.String(), "interrupted") {
		t.Fatalf("took %v, output:\n%s", time.Since(start), out)
	}
	b, _ := os.ReadFile(jtlPath)
	if n := bytes.Count(b, []byte("\n")); n < 10 {
		t.Fatalf("JTL has %d lines", n)
	}
}

func TestLiveLine(t *testing.T) {
	p := loadgen.Progress{Elapsed: 12 * time.Second, Remaining: 48 * time.Second,
		Last: loadgen.Second{Requests: 1234, P50: 1.5, P99: 250}, Requests: 5000, Errors: 2}
	if l := report.LoadLiveLine(p, finding.EN); l != "12s  TPS 1234  p50 1.50ms  p99 250ms  requests 5000  errors 2  remaining 48s" {
		t.Fatalf("%q", l)
	}
	if l := report.LoadLiveLine(p, finding.ZH); l != "12s  TPS 1234  p50 1.50ms  p99 250ms  请求 5000  错误 2  剩余 48s" {
		t.Fatalf("%q", l)
	}
}

func TestLoadCommandFlags(t *testing.T) {
	var hdr atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr.Store(r.Method + " " + r.Header.Get("X-A"))
		w.WriteHeader(201)
	}))
	defer srv.Close()
	env, out, _ := loadEnv()
	cmd := newLoadCmd(env)
	cmd.SetArgs([]string{srv.URL, "-c", "2", "-n", "10", "-o", "json", "-H", "X-A: b", "-X", "put", "--expect-status", "201,204"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var s loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Requests != 10 || s.Errors != 0 || s.Users != 2 {
		t.Fatalf("%v %+v", err, s)
	}
	if got := hdr.Load(); got != "PUT b" {
		t.Fatalf("server saw %v", got)
	}
}

// A Chinese reader gets the summary and the errors in Chinese, with the
// tables still lined up, and the keys scripts grep for unchanged.
func TestLoadInChinese(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	env, out, errb := loadEnv()
	env.Getenv = func(k string) string { return map[string]string{"LANG": "zh_CN.UTF-8"}[k] }
	cmd := newLoadCmd(env)
	cmd.SetArgs([]string{srv.URL + "/zh", "-c", "2", "-n", "50", "-q"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"负载 （闭合模型，2 个用户）", "请求数    50", "状态码    200=50", "标签", "# 样本", "GET /zh", "时间单位：毫秒"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	// The per-label table: every line as wide on a terminal as its header.
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "标签") {
			w := finding.DisplayWidth(l)
			if row := lines[i+1]; finding.DisplayWidth(row) != w {
				t.Errorf("table not aligned:\n%s\n%s", l, row)
			}
		}
	}

	// An unreachable service: the error, with its hint, in Chinese.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	root := NewRoot(env)
	root.SetArgs([]string{"load", "http://" + addr + "/", "-n", "1", "-q"})
	err := root.ExecuteContext(context.Background())
	if code := Code(env, err); code == ExitOK {
		t.Fatal("a refused target exited 0")
	}
	if msg := errb.String(); !strings.Contains(msg, "无法连接 "+addr) || !strings.Contains(msg, "连接被拒绝") {
		t.Errorf("error not in Chinese: %q", msg)
	}
	// A bad command line (exit 2) too.
	errb.Reset()
	root = NewRoot(env)
	root.SetArgs([]string{"load", "http://" + addr + "/", "-c", "2", "--rate", "5"})
	if code := Code(env, root.ExecuteContext(context.Background())); code != ExitUsage || !strings.Contains(errb.String(), "-c（闭合模型）与 --rate（开放模型）不能同时使用") {
		t.Errorf("usage error: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	root = NewRoot(env)
	root.SetArgs([]string{"load", "http://" + addr + "/", "-n", "1", "-q", "--lang", "en"})
	if Code(env, root.ExecuteContext(context.Background())); !strings.Contains(errb.String(), "cannot connect to "+addr) {
		t.Errorf("--lang en: %q", errb.String())
	}
}

func TestLoadJMX(t *testing.T) {
	var hits, bad atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("X-Client") != "jmx-check" || strings.Contains(r.URL.RawQuery, "${") {
			bad.Add(1)
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	plan := filepath.Join("..", "jmx", "testdata", "local-plan.jmx")
	env, out, errb := loadEnv()
	o := &LoadOptions{JMX: plan, JProps: []string{"port=" + port, "users=2", "loops=3", "think=0"}, Output: "json"}
	if err := RunLoad(context.Background(), env, o); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	var s loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	// 2 users x 3 loops x 4 requests per iteration (login twice).
	if s.Requests != 24 || hits.Load() != 24 || bad.Load() != 0 || s.Errors != 0 {
		t.Fatalf("requests %d hits %d bad %d errors %d", s.Requests, hits.Load(), bad.Load(), s.Errors)
	}
	// In plan order: exactly as JMeter splits them, and nothing to note.
	for _, l := range s.Labels {
		if want := map[string]int64{"home": 6, "balance": 6, "login": 12}[l.Label]; l.Requests != want {
			t.Errorf("%s: %d requests, want %d", l.Label, l.Requests, want)
		}
	}
	if strings.Contains(errb.String(), "note:") {
		t.Errorf("notes for a plan run as JMeter runs it:\n%s", errb)
	}

	// A plan with a cookie manager is refused, naming it, unless skipped.
	env, _, errb = loadEnv()
	o = &LoadOptions{JMX: filepath.Join("..", "jmx", "testdata", "build-adv-web-test-plan.jmx"), Output: "json"}
	err := RunLoad(context.Background(), env, o)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(errb.String(), `CookieManager "HTTP Cookie Manager"`) {
		t.Fatalf("err %v, stderr:\n%s", err, errb)
	}
	env, _, _ = loadEnv()
	if err := RunLoad(context.Background(), env, &LoadOptions{JMX: plan, URL: srv.URL}); err == nil {
		t.Error("--jmx with a URL was accepted")
	}
}

// A server that accepts and never answers is not a clean run: tuneloop load
// says "0 completed of N sent" and exits 1, as its help says, in text and in
// JSON output alike.
func TestLoadExitsOneWhenNothingCompletes(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	defer func() { l.Close(); <-served }()
	go func() {
		defer close(served)
		var held []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				break
			}
			held = append(held, c) // read nothing, answer nothing
		}
		for _, c := range held {
			c.Close()
		}
	}()
	for _, output := range []string{"text", "json"} {
		env, out, _ := loadEnv()
		err := RunLoad(context.Background(), env, &LoadOptions{URL: "http://" + l.Addr().String() + "/", Users: 4,
			Duration: 700 * time.Millisecond, Output: output})
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "0 completed of") {
			t.Fatalf("%s: err %v, want exit 1 saying 0 completed", output, err)
		}
		if out.Len() == 0 {
			t.Errorf("%s: the summary was not printed before the error", output)
		}
	}
}
