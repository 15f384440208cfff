//go:build jmeter

// JMeter engines tuneloop starts itself over SSH (run --engine jmeter
// --host ... --jmeter-remote), against the repo's sshd harness on
// 127.0.0.1: one engine from a JMETER_HOME given with it, one found on the
// host's PATH; the engine host recorded like any other host; the engines'
// CPU, connections and clock offsets in load.json; nothing left running
// there after the run, nor after a kill -9 of tuneloop; --rate through the
// plan copies' Constant Throughput Timer, split between the engines.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jmeter"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote/sshdtest"
	"github.com/tuneloop/tuneloop/internal/session"
)

// pathInstall is a JMeter installation whose bin/ holds a jmeter script
// (the cached one, assembled from Maven, has none): its bin/ on a host's
// PATH is how Find locates it there. Links into home, nothing copied.
func pathInstall(t *testing.T, home string) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "jmeter")
	if err := os.MkdirAll(filepath.Join(d, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "bin" {
			os.Symlink(filepath.Join(home, e.Name()), filepath.Join(d, e.Name()))
		}
	}
	bins, _ := os.ReadDir(filepath.Join(home, "bin"))
	for _, e := range bins {
		os.Symlink(filepath.Join(home, "bin", e.Name()), filepath.Join(d, "bin", e.Name()))
	}
	script := "#!/bin/sh\nexec java $JVM_ARGS -jar \"$(dirname \"$0\")/ApacheJMeter.jar\" \"$@\"\n"
	if err := os.WriteFile(filepath.Join(d, "bin", "jmeter"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "bin")
}

// sshEngineRun is a `run` whose two engines tuneloop starts on the sshd
// "host" (the first from home, the second from the host's PATH), that
// host recorded as "other"; returns the options and the engines' ports.
func sshEngineRun(t *testing.T, home string, srv *countingServer, out string) (*RunOptions, [2]int) {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java")
	}
	bin := pathInstall(t, home)
	d := sshdtest.StartEnv(t, "PATH="+bin+":"+filepath.Dir(java)+":/usr/bin:/bin", strconv.Quote("JVM_ARGS="+os.Getenv("JVM_ARGS")))
	exe := sharedTuneloop(t)
	ports := [2]int{jmFreePort(t), jmFreePort(t)}
	o := &RunOptions{Target: srv.URL + "/", JMX: enginePlan(t), JProps: []string{"port=" + srv.port()},
		Duration: 5 * time.Second, WarmUp: 2 * time.Second, Rate: 60, Interval: 500 * time.Millisecond, Out: out, Output: "json",
		Profile: "java-web", NoCatalog: true, Quiet: true, StartTimeout: 2 * time.Minute,
		Engine: engineOptions{Engine: "jmeter", Remote: fmt.Sprintf("127.0.0.1:%d=%s,127.0.0.1:%d", ports[0], home, ports[1])},
		Remote: hostOptions{Hosts: []string{"other=" + d.Spec()}, Identity: []string{d.UserKey}, KnownHosts: d.Known, Exe: exe}}
	return o, ports
}

var (
	tuneloopOnce sync.Once
	tuneloopExe  string
)

// sharedTuneloop is one build of tuneloop for the tests of this file (a
// build takes a while on two cores).
func sharedTuneloop(t *testing.T) string {
	t.Helper()
	tuneloopOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tuneloop-jmeter-test-")
		if err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "tuneloop")
		build := exec.Command("go", "build", "-o", exe, "../../cmd/tuneloop")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		tuneloopExe = exe
	})
	if tuneloopExe == "" {
		t.Fatal("tuneloop did not build")
	}
	return tuneloopExe
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// enginesGone waits until nothing listens on the engines' ports and no
// jmeter-serve keeper is left; it fails the test naming what is left.
func enginesGone(t *testing.T, ports [2]int, within time.Duration) {
	t.Helper()
	var left []string
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		left = left[:0]
		for _, p := range ports {
			if pid := jmeter.ListenerPID("/proc", p); pid > 0 {
				left = append(left, fmt.Sprintf("jmeter-server pid %d on port %d", pid, p))
			}
		}
		for _, pid := range keepers(ports) {
			left = append(left, fmt.Sprintf("jmeter-serve pid %d", pid))
		}
		if len(left) == 0 {
			return
		}
	}
	for _, p := range ports {
		if pid := jmeter.ListenerPID("/proc", p); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	for _, pid := range keepers(ports) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Fatalf("left running after %s: %s", within, strings.Join(left, ", "))
}

// keepers are the jmeter-serve processes of these ports.
func keepers(ports [2]int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(b), "\x00")
		if len(args) < 2 || !strings.Contains(string(b), session.JMeterServeCommand) || strings.Contains(args[0], ".test") {
			continue
		}
		for _, p := range ports {
			if bytes.Contains(b, []byte("\x00"+strconv.Itoa(p)+"\x00")) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// The whole run: both engines start over SSH and send the plan; load.json
// has each with its samples, its CPU and connections from its host and its
// clock offset (this host: near 0, within its bound); the warm-up is left
// out; --rate is split between the engines and met; the host is
// recorded; and once the run is over nothing of the engines is left on
// the host.
func TestJMeterEngineSSH(t *testing.T) {
	home := jmeterHome(t)
	srv := newCountingServer(t)
	dir := filepath.Join(t.TempDir(), "run")
	o, ports := sshEngineRun(t, home, srv, dir)
	env, out, errb := testEnv()
	env.Getenv = os.Getenv
	t0 := time.Now()
	if err := RunRun(context.Background(), env, o); err != nil {
		t.Fatalf("run: %v\n%s\n%.3000s", err, errb, out)
	}
	t.Logf("run with 2 engines over SSH: %.1f s", time.Since(t0).Seconds())
	var s loadgen.Summary
	readJSONFile(t, filepath.Join(dir, "load.json"), &s)
	if s.Engine != "jmeter" || len(s.Engines) != 2 || s.Warmup == 0 || s.Requests < 30 || s.Duration != 5 {
		t.Fatalf("load: engine %q, engines %+v, warm-up %d, %d requests, %.1f s\n%s", s.Engine, s.Engines, s.Warmup, s.Requests, s.Duration, errb)
	}
	var sum int64
	for i, e := range s.Engines {
		t.Logf("engine %s: %d samples, %d threads, CPU %.1f%% of %d cores, %d connections, clock offset %v ±%.3f ms", e.Name, e.Samples, e.Users, e.CPUPct, e.Cores, e.Connections, deref(e.ClockOffsetMS), e.ClockBoundMS)
		sum += e.Samples
		// Engines are sorted by name, not in the order given.
		a, b := "127.0.0.1:"+strconv.Itoa(ports[0]), "127.0.0.1:"+strconv.Itoa(ports[1])
		want := a + " or " + b
		if e.Name != a && e.Name != b || e.Name == s.Engines[1-i].Name || e.Samples == 0 || e.CPUPct <= 0 || e.Cores <= 0 || e.PID <= 0 || e.Connections < 1 || e.ConnCapped {
			t.Errorf("engine %d: %+v, want %s with its samples, CPU, pid and connections", i, e, want)
		}
		if e.ClockOffsetMS == nil || math.Abs(*e.ClockOffsetMS) > math.Max(e.ClockBoundMS, 50) {
			t.Errorf("engine %s: clock offset %v ±%.3f ms: the same clock", e.Name, e.ClockOffsetMS, e.ClockBoundMS)
		}
	}
	if sum != s.Requests {
		t.Errorf("engines' samples %d, requests %d", sum, s.Requests)
	}
	// --rate 60: each engine's plan copy paces its samplers to 30/s (a
	// Constant Throughput Timer; it schedules each sample from the last
	// one's planned time, whole milliseconds); 15% holds on a busy machine.
	t.Logf("--rate 60: %.1f samples/s (%d in %.1f s)", s.TPS, s.Requests, s.Duration)
	if s.TPS < 60*0.85 || s.TPS > 60*1.15 {
		t.Errorf("--rate 60 with 2 engines: %.1f samples/s", s.TPS)
	}
	if n := srv.take()["POST /order"]; n == 0 {
		t.Error("the server saw no POST /order")
	}
	m, err := multihost.Read(dir)
	if err != nil || len(m.Hosts) != 1 || m.Hosts[0].Lost != nil || m.Hosts[0].Files == 0 {
		t.Fatalf("hosts.json: %+v %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, session.JMeterDir, jmeter.JTLFile)); err != nil {
		t.Error(err)
	}
	enginesGone(t, ports, 20*time.Second)
}

// A kill -9 of tuneloop while the engines it started over SSH send the
// load: the SSH sessions end with it, each keeper stops its jmeter-server,
// and the server hears no more.
func TestJMeterEngineSSHKill9(t *testing.T) {
	home := jmeterHome(t)
	srv := newCountingServer(t)
	dir := t.TempDir()
	o, ports := sshEngineRun(t, home, srv, filepath.Join(dir, "run"))
	o.Duration, o.Output = time.Minute, "text"
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
	for end := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if jmeter.ListenerPID("/proc", ports[0]) > 0 && jmeter.ListenerPID("/proc", ports[1]) > 0 && srv.take()["POST /order"] > 0 {
			break
		}
		select {
		case <-done:
			t.Fatalf("the run ended first:\n%s", log.String())
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("the engines did not send the load:\n%s", log.String())
		}
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	enginesGone(t, ports, 30*time.Second)
	srv.take()
	time.Sleep(time.Second)
	if n := srv.take(); len(n) > 0 {
		t.Fatalf("requests after the engines were stopped: %v", n)
	}
}

// TestMain removes the shared build (build tag jmeter only).
func TestMain(m *testing.M) {
	code := m.Run()
	if tuneloopExe != "" {
		os.RemoveAll(filepath.Dir(tuneloopExe))
	}
	os.Exit(code)
}
