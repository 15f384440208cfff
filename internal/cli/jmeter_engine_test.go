//go:build jmeter

// JMeter as tuneloop's load engine, against real JMeter 5.6.3 (assembled
// from Maven Central by scripts/jmeter-fetch.sh; `make test-jmeter` sets
// JMETER_HOME) and a server on 127.0.0.1: a plan the built-in generator
// cannot run (a JSR223 timer, a Debug Sampler), run by JMeter alone, by
// `tuneloop load --engine jmeter`, by two jmeter-server engines
// (--jmeter-remote), and under `tuneloop run` (twice, compared); and a
// kill -9 of tuneloop that must leave no JMeter behind. Plans are bounded by
// loops where counts are compared, so they must be equal, not close.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/loaddetail"
	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// With TUNELOOP_TEST_JMETER_RUN=JSON (RunOptions) the test binary is
// `tuneloop run` (the kill -9 test's victim).
func init() {
	if js := os.Getenv("TUNELOOP_TEST_JMETER_RUN"); js != "" {
		var o RunOptions
		if err := json.Unmarshal([]byte(js), &o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		// Ctrl-C as cmd/tuneloop takes it: the run stops and keeps what it has.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		code := Code(env, RunRun(ctx, env, &o))
		stop()
		os.Exit(code)
	}
}

func jmeterHome(t *testing.T) string {
	t.Helper()
	home := os.Getenv("JMETER_HOME")
	if home == "" {
		t.Skip("JMETER_HOME is not set: make test-jmeter")
	}
	return home
}

// countingServer answers every request and counts them by method and path.
type countingServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]int64
}

func newCountingServer(t *testing.T) *countingServer {
	s := &countingServer{seen: map[string]int64{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) take() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = map[string]int64{}
	return out
}

func (s *countingServer) port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

func enginePlan(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("testdata", "jmeter", "engine-plan.jmx"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// jmeterAlone runs the plan with JMeter itself and returns its JTL's
// requests per label, read by tuneloop's importer.
func jmeterAlone(t *testing.T, home, plan string, props ...string) map[string]int64 {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "alone.jtl")
	args := append(strings.Fields(os.Getenv("JVM_ARGS")), "-jar", filepath.Join(home, "bin", "ApacheJMeter.jar"), "-n", "-t", plan, "-l", out, "-j", filepath.Join(dir, "jmeter.log"))
	for _, p := range props {
		args = append(args, "-J"+p)
	}
	cmd := exec.Command("java", args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jmeter: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := jtl.Import(f)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int64{}
	for _, l := range res.Summary.Labels {
		m[l.Label] = l.Requests
	}
	return m
}

func byLabel(s *loadgen.Summary) map[string]int64 {
	m := map[string]int64{}
	for _, l := range s.Labels {
		m[l.Label] = l.Requests
	}
	return m
}

func loadJSON(t *testing.T, o *LoadOptions) (*loadgen.Summary, string) {
	t.Helper()
	env, out, errb := testEnv()
	env.Getenv = os.Getenv
	o.Output = "json"
	o.Quiet = true
	if err := RunLoad(context.Background(), env, o); err != nil {
		t.Fatalf("load: %v\n%s", err, errb)
	}
	var s loadgen.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return &s, errb.String()
}

func sameCounts(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		t.Logf("%s %-8s %6d %6d", what, k, want[k], got[k])
		if got[k] != want[k] {
			t.Errorf("%s: %s: %d, want %d", what, k, got[k], want[k])
		}
	}
}

// The plan under JMeter alone and under `tuneloop load` (auto picks JMeter:
// the generator lacks the timer and the sampler): the same requests per
// label and the same paths at the server; --engine builtin refuses it and
// says to use --engine jmeter. Then two jmeter-server engines on 127.0.0.1
// (--jmeter-remote) each run the whole plan: twice the counts, each
// engine's share and CPU (its process, found by its port) in the summary.
func TestJMeterEngineCounts(t *testing.T) {
	home := jmeterHome(t)
	srv := newCountingServer(t)
	plan := enginePlan(t)
	props := []string{"port=" + srv.port(), "users=3", "loops=25"}
	// The two jmeter-server engines boot meanwhile (a JVM each).
	servers := []func() string{startJMeterServer(t, home), startJMeterServer(t, home)}
	t0 := time.Now()
	alone := jmeterAlone(t, home, plan, props...)
	aloneSeen := srv.take()
	t.Logf("JMeter alone: %.1f s", time.Since(t0).Seconds())
	if alone["home"] != 75 || alone["order"] != 75 || alone["debug"] != 75 {
		t.Fatalf("JMeter alone: %v", alone)
	}

	t0 = time.Now()
	s, stderr := loadJSON(t, &LoadOptions{JMX: plan, JProps: props})
	t.Logf("tuneloop load --engine auto: %.1f s", time.Since(t0).Seconds())
	sameCounts(t, "tuneloop load", byLabel(s), alone)
	sameCounts(t, "server", srv.take(), aloneSeen)
	if s.Engine != "jmeter" || !strings.Contains(stderr, `JSR223Timer "think (groovy)"`) || s.Users != 3 {
		t.Errorf("engine %q, users %d; stderr %s", s.Engine, s.Users, stderr)
	}
	if len(s.Engines) != 1 || s.Engines[0].Samples != s.Requests || s.Engines[0].CPUPct <= 0 || s.ClientCPU <= 0 {
		t.Errorf("engines %+v, JMeter CPU %.1f%%", s.Engines, s.ClientCPU)
	}

	env, _, errb := testEnv()
	err := RunLoad(context.Background(), env, &LoadOptions{JMX: plan, JProps: props, Output: "json", Engine: engineOptions{Engine: "builtin"}})
	if Code(env, err) != ExitUsage || !strings.Contains(errb.String()+err.Error(), "--engine jmeter") {
		t.Errorf("builtin: exit %d, %v\n%s", Code(env, err), err, errb)
	}

	// Distributed: two engines, RMI without SSL, each on its own ports.
	var remote []string
	for _, ready := range servers {
		remote = append(remote, ready())
	}
	t0 = time.Now()
	rprops := append([]string{"server.rmi.ssl.disable=true"}, props...)
	d, _ := loadJSON(t, &LoadOptions{JMX: plan, JProps: rprops, Engine: engineOptions{Remote: strings.Join(remote, ",")}})
	t.Logf("tuneloop load --jmeter-remote (2 engines): %.1f s", time.Since(t0).Seconds())
	twice := map[string]int64{}
	for k, v := range alone {
		twice[k] = 2 * v
	}
	sameCounts(t, "2 engines", byLabel(d), twice)
	if len(d.Engines) != 2 || d.Users != 6 {
		t.Fatalf("engines %+v, users %d", d.Engines, d.Users)
	}
	for i, e := range d.Engines {
		if e.Name != remote[i] && e.Name != remote[1-i] || e.Samples != d.Requests/2 || e.PID == 0 || e.CPUPct < 0 || e.ConnCapped {
			t.Errorf("engine %+v (of %v): want half the samples and its CPU from its process", e, remote)
		}
	}

	// The first engine out of file descriptors: the few it has left after
	// its start (and the controller's calls) are all its 20 threads can
	// connect with; the others fail. It is named capped by its connections.
	engPID := d.Engines[0].PID
	if d.Engines[0].Name != remote[0] {
		engPID = d.Engines[1].PID
	}
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(engPID), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	var lim unix.Rlimit
	if err := unix.Prlimit(engPID, unix.RLIMIT_NOFILE, nil, &lim); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	if err := unix.Prlimit(engPID, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: uint64(len(fds) + 12), Max: lim.Max}, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	t0 = time.Now()
	c, _ := loadJSON(t, &LoadOptions{JMX: plan, JProps: rprops, Users: 20, Duration: 3 * time.Second, Engine: engineOptions{Remote: remote[0]}})
	t.Logf("engine out of descriptors (%d open, limit +12): %.1f s", len(fds), time.Since(t0).Seconds())
	if len(c.Engines) != 1 {
		t.Fatalf("engines %+v", c.Engines)
	}
	e := c.Engines[0]
	t.Logf("engine %s: %d threads, %d connections at most, %d samples, %d failed", e.Name, e.Users, e.Connections, e.Samples, e.Errors)
	if !e.ConnCapped || e.Connections >= 18 || e.Errors == 0 {
		t.Errorf("engine out of descriptors not capped: %+v", e)
	}
}

// startJMeterServer starts a jmeter-server on 127.0.0.1 (its registry and
// its object each on a port of its own); the function it returns waits
// until it serves and returns its host:port.
func startJMeterServer(t *testing.T, home string) func() string {
	t.Helper()
	reg, obj := jmFreePort(t), jmFreePort(t)
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "server.out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", append(strings.Fields(os.Getenv("JVM_ARGS")), "-Djava.rmi.server.hostname=127.0.0.1", "-jar", filepath.Join(home, "bin", "ApacheJMeter.jar"),
		"-s", "-Jserver.rmi.ssl.disable=true", "-Jserver_port="+strconv.Itoa(reg), "-Jserver.rmi.localport="+strconv.Itoa(obj),
		"-j", filepath.Join(dir, "server.log"))...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); out.Close(); close(done) }()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-done })
	return func() string {
		t.Helper()
		for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(dir, "server.out"))
			if bytes.Contains(b, []byte("Created remote object")) {
				return "127.0.0.1:" + strconv.Itoa(reg)
			}
			select {
			case <-done:
				t.Fatalf("jmeter-server exited:\n%s", b)
			default:
			}
		}
		t.Fatal("jmeter-server did not start within 90 s")
		return ""
	}
}

func jmFreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// `tuneloop run` with JMeter as the engine, twice (--repeat 2), then
// compared: each run's load is JMeter's samples of its window (the JTL
// kept in raw/jmeter, read again over [start, start+duration]: the same
// requests plus those in flight at the end), the warm-up left out, its
// detail over time holding the same requests; compare reads both runs.
func TestJMeterEngineRun(t *testing.T) {
	jmeterHome(t)
	srv := newCountingServer(t)
	dir := t.TempDir()
	env, out, errb := testEnv()
	env.Getenv = os.Getenv
	cmd := newRunCmd(env)
	cmd.SetArgs([]string{"--target", srv.URL + "/", "--jmx", enginePlan(t), "-J", "port=" + srv.port(), "--engine", "jmeter",
		"-d", "5s", "--warm-up", "2s", "--interval", "500ms", "--out", dir, "--no-catalog", "-q", "--repeat", "2"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("run --repeat 2: %v\n%s", err, errb)
	}
	for i := 1; i <= 2; i++ {
		run := filepath.Join(dir, "run-"+strconv.Itoa(i))
		var s loadgen.Summary
		readJSONFile(t, filepath.Join(run, "load.json"), &s)
		if s.Engine != "jmeter" || s.Requests < 30 || s.Warmup == 0 || s.Duration != 5 {
			t.Fatalf("run %d: engine %q, %d requests, %d warm-up, %.1f s", i, s.Engine, s.Requests, s.Warmup, s.Duration)
		}
		if l := byLabel(&s); l["home"] == 0 || l["order"] == 0 || l["debug"] == 0 {
			t.Errorf("run %d: labels %v", i, l)
		}
		f, err := os.Open(filepath.Join(run, "raw", "jmeter", "results.jtl"))
		if err != nil {
			t.Fatal(err)
		}
		w, err := jtl.ImportWindow(f, s.Start, s.Start.Add(5*time.Second))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if w.Samples != s.Requests+s.Aborted {
			t.Errorf("run %d: the JTL has %d samples sent in the window, load.json %d + %d in flight", i, w.Samples, s.Requests, s.Aborted)
		}
		b, err := os.ReadFile(filepath.Join(run, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		validateJSON(t, compileSchema(t, "run-page-v1.schema.json"), "run-page-v1.schema.json", b)
		var d loaddetail.Detail
		readJSONFile(t, filepath.Join(run, loaddetail.File), &d)
		var n int64
		for _, r := range d.Rows {
			n += r.N
		}
		if n != s.Requests {
			t.Errorf("run %d: detail %d requests, load.json %d", i, n, s.Requests)
		}
	}
	out.Reset()
	if err := RunCompareArgs(context.Background(), env, &CompareOptions{Output: "json"}, []string{filepath.Join(dir, "run-1"), filepath.Join(dir, "run-2")}, -1); err != nil {
		t.Fatalf("compare: %v\n%s", err, errb)
	}
	if !strings.Contains(out.String(), "tps") {
		t.Errorf("compare printed no TPS:\n%.2000s", out)
	}
	validateJSON(t, compileSchema(t, "compare-v1.schema.json"), "compare-v1.schema.json", out.Bytes())
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// A kill -9 of `tuneloop run` while JMeter sends the load: the run's
// watchdog stops JMeter's process group; no JMeter process is left, and
// the server hears no more of it. Ctrl-C (SIGINT): the run stops JMeter
// itself and keeps what it measured until then (load.json interrupted,
// JMeter's JTL in raw/jmeter).
func TestJMeterEngineKill9(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) { stopRunUnderJMeter(t, sig) })
	}
}

func stopRunUnderJMeter(t *testing.T, sig syscall.Signal) {
	jmeterHome(t)
	srv := newCountingServer(t)
	dir := t.TempDir()
	o := RunOptions{Target: srv.URL + "/", JMX: enginePlan(t), JProps: []string{"port=" + srv.port()}, Duration: time.Minute,
		WarmUp: 0, Interval: time.Second, Out: filepath.Join(dir, "run"), Output: "text", Profile: "java-web", NoCatalog: true, Quiet: true,
		Engine: engineOptions{Engine: "jmeter"}, StartTimeout: 2 * time.Minute}
	js, _ := json.Marshal(o)
	exe, _ := os.Executable()
	var log bytes.Buffer
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TUNELOOP_TEST_JMETER_RUN="+string(js), "XDG_STATE_HOME="+dir)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() { cmd.Process.Kill(); <-done }()
	// JMeter: the java child of the run, once it sends requests
	// (POST /order: only JMeter sends it; the readiness probe is a GET /).
	var jm int
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end) && (jm == 0 || srv.take()["POST /order"] == 0); time.Sleep(200 * time.Millisecond) {
		if jm == 0 {
			jm = javaChild(cmd.Process.Pid)
		}
		select {
		case <-done:
			t.Fatalf("the run ended first:\n%s", log.String())
		default:
		}
	}
	if jm == 0 {
		t.Fatalf("no JMeter under the run:\n%s", log.String())
	}
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the run did not end on %s:\n%s", sig, log.String())
	}
	gone := false
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && !gone; time.Sleep(100 * time.Millisecond) {
		gone = syscall.Kill(jm, 0) != nil && syscall.Kill(-jm, 0) != nil
	}
	if !gone {
		syscall.Kill(-jm, syscall.SIGKILL)
		t.Fatalf("JMeter (pid %d) outlived the run stopped by %s", jm, sig)
	}
	srv.take()
	time.Sleep(time.Second)
	if n := srv.take(); len(n) > 0 {
		t.Fatalf("requests after JMeter was stopped: %v", n)
	}
	if sig == syscall.SIGINT {
		var s loadgen.Summary
		readJSONFile(t, filepath.Join(dir, "run", "load.json"), &s)
		if !s.Interrupted || s.Engine != "jmeter" || s.Requests == 0 {
			t.Errorf("load.json after Ctrl-C: interrupted %v, engine %q, %d requests\n%s", s.Interrupted, s.Engine, s.Requests, log.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "run", "raw", "jmeter", "results.jtl")); err != nil {
			t.Errorf("JMeter's JTL not kept: %v", err)
		}
	}
}

// javaChild is a java process whose parent is pid (0: none yet).
func javaChild(pid int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) && strings.Contains(s[:i], "(java") {
			return p
		}
	}
	return 0
}
