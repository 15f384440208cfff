// One jmeter-server engine started by tuneloop on its host (`tuneloop
// jmeter-serve`, run there over SSH), and the lines it sends back. Sample
// lines, one a second after "ready":
//
//	ready 48211 4
//	stat 1764322741123 1532 20
//
// ready: the engine's pid and that host's cores, once its RMI registry
// listens; stat: the engine host's clock (ms since the epoch), the
// engine process's CPU time (clock ticks, user+system) and its established
// load connections (see LoadConns). "error TEXT" ends a failed start.

package jmeter

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// ServeOptions say how to start a jmeter-server engine on this host.
type ServeOptions struct {
	Install *Install
	Port    int // its RMI registry (server_port)
	ObjPort int // its remote object (server.rmi.localport); 0 = a free port
	// Hostname is the address the controller reaches it at
	// (java.rmi.server.hostname), "" = JMeter's own guess.
	Hostname string
	Props    []string // -J name=value (server.rmi.ssl.disable=true, ...)
	// SkipRemotePorts are connections not counted as load: the
	// controller's RMI ports the engine calls back.
	SkipRemotePorts []int
	Proc            string // "" = /proc
}

// Serve starts the engine in a process group of its own, says "ready"
// once its registry listens, then every second its CPU and connections,
// until in ends (the SSH session closed: the controller is done, or gone;
// a line "skip PORT ..." before names more of the controller's ports)
// or ctx ends; then the engine is stopped (SIGTERM, 5 s, SIGKILL). It
// returns once the engine has exited.
func Serve(ctx context.Context, o ServeOptions, in io.Reader, out io.Writer) error {
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	if o.ObjPort == 0 {
		ln, err := net.Listen("tcp", ":0")
		if err != nil {
			return err
		}
		o.ObjPort = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	w := bufio.NewWriter(out)
	say := func(format string, a ...any) {
		fmt.Fprintf(w, format+"\n", a...)
		w.Flush()
	}
	dir, err := os.MkdirTemp("", "tuneloop-jmeter-server-")
	if err != nil {
		say("error %s", finding.SafeOneLine(err.Error()))
		return err
	}
	defer os.RemoveAll(dir)
	args := append([]string(nil), o.Install.JVMArgs...)
	if o.Hostname != "" {
		args = append(args, "-Djava.rmi.server.hostname="+o.Hostname)
	}
	args = append(args, "-jar", o.Install.Jar, "-s", "-j", filepath.Join(dir, "jmeter-server.log"),
		"-Jserver_port="+strconv.Itoa(o.Port), "-Jserver.rmi.localport="+strconv.Itoa(o.ObjPort))
	for _, kv := range o.Props {
		args = append(args, "-J"+kv)
	}
	logf, err := os.Create(filepath.Join(dir, "jmeter-server.out"))
	if err != nil {
		say("error %s", finding.SafeOneLine(err.Error()))
		return err
	}
	defer logf.Close()
	cmd := exec.Command(o.Install.Java, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		say("error starting %s: %s", o.Install.Java, finding.SafeOneLine(err.Error()))
		return err
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-done
		}
	}
	// The controller's end: our input ends. Until then it may name its
	// RMI ports ("skip PORT ..."), whose connections are not load.
	var mu sync.Mutex
	skip := append([]int(nil), o.SkipRemotePorts...)
	eof := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) > 1 && f[0] == "skip" {
				mu.Lock()
				for _, v := range f[1:] {
					if p, err := strconv.Atoi(v); err == nil && p > 0 && p < 65536 {
						skip = append(skip, p)
					}
				}
				mu.Unlock()
			}
		}
		_, _ = io.Copy(io.Discard, in)
		close(eof)
	}()
	// Ready once its registry listens (a JVM start: seconds).
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for ListenerPID(o.Proc, o.Port) != pid {
		select {
		case <-done:
			b, _ := os.ReadFile(filepath.Join(dir, "jmeter-server.out"))
			say("error jmeter-server exited: %s", finding.SafeOneLine(tailText(string(b), 600)))
			return errors.New("jmeter-server exited")
		case <-eof:
			stop()
			return nil
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case <-tick.C:
		}
	}
	say("ready %d %d", pid, runtime.NumCPU())
	sec := time.NewTicker(time.Second)
	defer sec.Stop()
	for {
		t, _ := cpuTicks(o.Proc, pid)
		mu.Lock()
		sk := append([]int(nil), skip...)
		mu.Unlock()
		say("stat %d %d %d", time.Now().UnixMilli(), t, LoadConns(o.Proc, pid, sk))
		select {
		case <-done:
			say("error jmeter-server exited")
			return errors.New("jmeter-server exited")
		case <-eof:
			stop()
			return nil
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case <-sec.C:
		}
	}
}

func tailText(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// ServeLine is one line of Serve's output.
type ServeLine struct {
	Kind  string // ready, stat or error
	PID   int    // ready
	Cores int    // ready
	At    time.Time
	Ticks uint64 // stat
	Conns int    // stat
	Text  string // error
}

// ParseServeLine reads one line of Serve's output.
func ParseServeLine(s string) (ServeLine, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ServeLine{}, errors.New("empty line")
	}
	l := ServeLine{Kind: f[0]}
	bad := func() (ServeLine, error) { return ServeLine{}, fmt.Errorf("bad %s line %q", f[0], tailText(s, 80)) }
	switch f[0] {
	case "ready":
		if len(f) != 3 {
			return bad()
		}
		var err1, err2 error
		l.PID, err1 = strconv.Atoi(f[1])
		l.Cores, err2 = strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || l.PID <= 0 || l.Cores <= 0 || l.Cores > 1<<16 {
			return bad()
		}
	case "stat":
		if len(f) != 4 {
			return bad()
		}
		ms, err1 := strconv.ParseInt(f[1], 10, 64)
		t, err2 := strconv.ParseUint(f[2], 10, 64)
		c, err3 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || err3 != nil || ms < 0 || c < 0 {
			return bad()
		}
		l.At, l.Ticks, l.Conns = time.UnixMilli(ms), t, c
	case "error":
		l.Text = strings.TrimSpace(strings.TrimPrefix(s, "error"))
	default:
		return ServeLine{}, fmt.Errorf("unknown line %q", tailText(s, 80))
	}
	return l, nil
}

// EngineWatch is what an engine started over SSH said about itself: its
// CPU and connections each second, and its clock's offset from this one.
type EngineWatch struct {
	// Offset is the engine host's clock minus this one's (its JTL
	// timestamps are moved back by it), within ±Bound.
	Offset, Bound time.Duration
	Cores         int
	PID           int
	mu            sync.Mutex
	pts           []watchPoint
}

type watchPoint struct {
	at    time.Time // this host's clock, when the line arrived
	ticks uint64
	conns int
}

// Add takes one stat line (others are ignored).
func (w *EngineWatch) Add(l ServeLine, now time.Time) {
	if l.Kind != "stat" {
		return
	}
	w.mu.Lock()
	w.pts = append(w.pts, watchPoint{at: now, ticks: l.Ticks, conns: l.Conns})
	w.mu.Unlock()
}

// Window is the engine's CPU over [from, to] in % of its host's cores and
// the most load connections it held at once (ok false: fewer than two
// seconds of lines there).
func (w *EngineWatch) Window(from, to time.Time) (cpuPct float64, conns int, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first, last *watchPoint
	for i := range w.pts {
		p := &w.pts[i]
		if p.at.Before(from.Add(-time.Second)) || p.at.After(to.Add(time.Second)) {
			continue
		}
		if first == nil {
			first = p
		}
		last = p
		conns = max(conns, p.conns)
	}
	if first == nil || last == first || w.Cores <= 0 || last.ticks < first.ticks {
		return 0, conns, false
	}
	wall := last.at.Sub(first.at).Seconds()
	pct := 100 * float64(last.ticks-first.ticks) / sample.UserHZ / wall / float64(w.Cores)
	return float64(int64(pct*10+0.5)) / 10, conns, true
}

// counted reports a stat line in [from-1s, to+1s]: the engine's
// connections were counted there.
func (w *EngineWatch) counted(from, to time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.pts {
		if !p.at.Before(from.Add(-time.Second)) && !p.at.After(to.Add(time.Second)) {
			return true
		}
	}
	return false
}
