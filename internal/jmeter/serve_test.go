package jmeter

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// This process, holding a listener and three connections to it: the three
// accepted ends are its own RMI-like sockets (to a port it listens on),
// the three dialled ends are load; a skipped remote port takes them out.
func TestLoadConnsOwnSockets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	port := ln.Addr().(*net.TCPAddr).Port
	var n int
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if n = LoadConns("/proc", os.Getpid(), nil); n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("load connections %d, want the 3 dialled", n)
	}
	if n := LoadConns("/proc", os.Getpid(), []int{port}); n != 0 {
		t.Errorf("with the port skipped: %d", n)
	}
	found := false
	for _, p := range ListenPorts("/proc", os.Getpid()) {
		found = found || p == port
	}
	if !found {
		t.Errorf("listen ports %v lack %d", ListenPorts("/proc", os.Getpid()), port)
	}
}

func TestParseServeLine(t *testing.T) {
	l, err := ParseServeLine("ready 48211 4")
	if err != nil || l.PID != 48211 || l.Cores != 4 {
		t.Errorf("%+v %v", l, err)
	}
	l, err = ParseServeLine("stat 1764322741123 1532 20")
	if err != nil || l.Ticks != 1532 || l.Conns != 20 || l.At.UnixMilli() != 1764322741123 {
		t.Errorf("%+v %v", l, err)
	}
	for _, bad := range []string{"", "ready", "ready -1 4", "stat 1 2", "stat x 1 2", "stat 1 2 -3", "hello"} {
		if _, err := ParseServeLine(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The window's CPU is the ticks between its first and last second over
// the wall time between them, in % of the engine host's cores.
func TestEngineWatchWindow(t *testing.T) {
	w := &EngineWatch{Cores: 2}
	t0 := time.Unix(1000, 0)
	for i := range 11 {
		w.Add(ServeLine{Kind: "stat", Ticks: uint64(100 * i), Conns: 5 + i%3}, t0.Add(time.Duration(i)*time.Second))
	}
	cpu, conns, ok := w.Window(t0.Add(2*time.Second), t0.Add(8*time.Second))
	// 100 ticks a second = one core of two.
	if !ok || cpu != 50 || conns != 7 {
		t.Errorf("cpu %.1f conns %d ok %v", cpu, conns, ok)
	}
	if _, _, ok := (&EngineWatch{Cores: 2}).Window(t0, t0.Add(time.Hour)); ok {
		t.Error("no lines: a CPU")
	}
}

func FuzzParseServeLine(f *testing.F) {
	for _, s := range []string{"ready 48211 4", "stat 1764322741123 1532 20", "error jmeter-server exited: x", "stat 1 2 3 4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseServeLine(s)
		if err == nil && l.Kind != "ready" && l.Kind != "stat" && l.Kind != "error" {
			t.Fatalf("kind %q", l.Kind)
		}
	})
}

// With TUNELOOP_TEST_FAKE_SERVER=PORT the test binary is a stand-in
// jmeter-server: it listens on PORT (its registry), dials it twice (its
// "load"), and waits to be stopped.
func init() {
	port := os.Getenv("TUNELOOP_TEST_FAKE_SERVER")
	if port == "" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		os.Exit(3)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for range 2 {
		if _, err := net.Dial("tcp", ln.Addr().String()); err != nil {
			os.Exit(4)
		}
	}
	select {}
}

// Serve: "ready" with the engine's pid once its port listens, then a stat
// line a second (its CPU ticks, its 2 load connections: the accepted ends
// are to its own port and not counted); the input's end stops the engine.
func TestServeStandIn(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	t.Setenv("TUNELOOP_TEST_FAKE_SERVER", strconv.Itoa(port))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), ServeOptions{Install: &Install{Java: exe, Jar: "ApacheJMeter.jar"}, Port: port}, inR, outW)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	var lines []ServeLine
	for len(lines) < 3 && sc.Scan() {
		l, err := ParseServeLine(sc.Text())
		if err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if l.Kind == "error" {
			t.Fatalf("error line: %s", l.Text)
		}
		lines = append(lines, l)
	}
	if len(lines) < 3 || lines[0].Kind != "ready" || lines[0].PID <= 0 || lines[1].Kind != "stat" || lines[2].Conns != 2 {
		t.Fatalf("lines %+v", lines)
	}
	pid := lines[0].PID
	if ListenerPID("/proc", port) != pid {
		t.Fatalf("pid %d does not listen on %d", pid, port)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after its input ended")
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the engine (pid %d) outlived Serve", pid)
	}
}
