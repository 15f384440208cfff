package jmeter

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Options say how to start JMeter.
type Options struct {
	Install *Install
	Plan    string // the .jmx to run
	// Dir receives results.jtl, jmeter.log and jmeter.out (JMeter's stdout
	// and stderr); it is created.
	Dir   string
	Props []string // name=value: -J, and -G too for remote engines
	// Remote are running jmeter-server engines (host:port): JMeter runs
	// as their controller (-R), and they send the load.
	Remote []string
}

// Result files in Options.Dir.
const (
	JTLFile = "results.jtl"
	LogFile = "jmeter.log"
	OutFile = "jmeter.out"
)

// Engine is a started JMeter (the controller, with Remote engines).
type Engine struct {
	Cmd     *exec.Cmd
	Dir     string
	JTL     string
	Remote  []string
	Started time.Time
	port    int // JMeter's UDP port for Shutdown / StopTestNow
	done    chan struct{}
	exited  time.Time
	err     error
	// stopNow is how long Stop waits after "StopTestNow" (5 s; tests)
	stopNow time.Duration
}

// resultProps make JMeter write what the follower reads: CSV with a header,
// milliseconds since the epoch, the start of each sample as its timestamp,
// and the columns the summary is made of.
var resultProps = []string{
	"jmeter.save.saveservice.output_format=csv",
	"jmeter.save.saveservice.print_field_names=true",
	"jmeter.save.saveservice.timestamp_format=ms",
	"jmeter.save.saveservice.default_delimiter=,",
	"sampleresult.timestamp.start=true",
	"jmeter.save.saveservice.label=true",
	"jmeter.save.saveservice.response_code=true",
	"jmeter.save.saveservice.response_message=true",
	"jmeter.save.saveservice.successful=true",
	"jmeter.save.saveservice.thread_name=true",
	"jmeter.save.saveservice.time=true",
	"jmeter.save.saveservice.latency=true",
	"jmeter.save.saveservice.connect_time=true",
	"jmeter.save.saveservice.bytes=true",
	"jmeter.save.saveservice.sent_bytes=true",
	"jmeter.save.saveservice.thread_counts=true",
	"jmeter.save.saveservice.url=true",
	"jmeter.save.saveservice.assertion_results_failure_message=true",
}

// Args is JMeter's command line for o (without the java), its UDP port given.
func Args(o Options, port int) []string {
	args := append(append([]string(nil), o.Install.JVMArgs...), "-jar", o.Install.Jar, "-n", "-t", o.Plan, "-l", filepath.Join(o.Dir, JTLFile), "-j", filepath.Join(o.Dir, LogFile))
	given := map[string]bool{}
	for _, kv := range o.Props {
		k, _, _ := strings.Cut(kv, "=")
		given[strings.TrimSpace(k)] = true
	}
	for _, kv := range resultProps {
		if k, _, _ := strings.Cut(kv, "="); !given[k] {
			args = append(args, "-J"+kv)
		}
	}
	args = append(args, "-Jjmeterengine.nongui.port="+strconv.Itoa(port), "-Jjmeterengine.nongui.maxport="+strconv.Itoa(port))
	for _, kv := range o.Props {
		args = append(args, "-J"+kv)
	}
	if len(o.Remote) > 0 {
		args = append(args, "-R", strings.Join(o.Remote, ","))
		for _, kv := range o.Props {
			args = append(args, "-G"+kv)
		}
		// Engines send their samples in batches, by default every 100
		// samples or 60 s: each second instead, so the run sees them live.
		if !given["time_threshold"] {
			args = append(args, "-Gtime_threshold=1000")
		}
	}
	return args
}

// Start starts JMeter in non-GUI mode in a process group of its own.
func Start(o Options) (*Engine, error) {
	// JMeter runs in our working directory (as the jmeter script would);
	// its files are named absolutely.
	var err error
	if o.Plan, err = filepath.Abs(o.Plan); err != nil {
		return nil, err
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	port, err := freeUDPPort()
	if err != nil {
		return nil, fmt.Errorf("JMeter's shutdown port: %w", err)
	}
	out, err := os.Create(filepath.Join(o.Dir, OutFile))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Install.Java, Args(o, port)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("starting JMeter (%s): %w", o.Install.Java, err)
	}
	e := &Engine{Cmd: cmd, Dir: o.Dir, JTL: filepath.Join(o.Dir, JTLFile), Remote: o.Remote, Started: time.Now(), port: port,
		done: make(chan struct{}), stopNow: 5 * time.Second}
	go func() {
		e.err = cmd.Wait()
		e.exited = time.Now()
		out.Close()
		close(e.done)
	}()
	return e, nil
}

// freeUDPPort is a UDP port on 127.0.0.1 that was free a moment ago.
func freeUDPPort() (int, error) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port, nil
}

// PID is JMeter's process (and process group) id.
func (e *Engine) PID() int { return e.Cmd.Process.Pid }

// Done is closed when JMeter has exited.
func (e *Engine) Done() <-chan struct{} { return e.done }

// Exited reports whether JMeter has exited, and how.
func (e *Engine) Exited() (bool, error) {
	select {
	case <-e.done:
		return true, e.err
	default:
		return false, nil
	}
}

// send gives JMeter one of its UDP commands (Shutdown, StopTestNow).
func (e *Engine) send(cmd string) {
	c, err := net.Dial("udp", "127.0.0.1:"+strconv.Itoa(e.port))
	if err != nil {
		return
	}
	defer c.Close()
	_, _ = c.Write([]byte(cmd))
}

// Stop ends JMeter: "Shutdown" (each thread ends after its current
// sample; a controller stops its remote engines too), up to grace; then
// "StopTestNow" and 5 s; then SIGTERM to its process group and 2 s; then
// SIGKILL. It returns once JMeter has exited, saying which step ended it.
func (e *Engine) Stop(grace time.Duration) string {
	wait := func(d time.Duration) bool {
		select {
		case <-e.done:
			return true
		case <-time.After(d):
			return false
		}
	}
	if wait(0) {
		return "exited"
	}
	e.send("Shutdown")
	if wait(grace) {
		return "Shutdown"
	}
	e.send("StopTestNow")
	if wait(e.stopNow) {
		return "StopTestNow"
	}
	_ = syscall.Kill(-e.PID(), syscall.SIGTERM)
	if wait(2 * time.Second) {
		return "SIGTERM"
	}
	_ = syscall.Kill(-e.PID(), syscall.SIGKILL)
	<-e.done
	return "SIGKILL"
}

// Kill ends JMeter's process group at once (a run that failed).
func (e *Engine) Kill() {
	if ok, _ := e.Exited(); !ok {
		_ = syscall.Kill(-e.PID(), syscall.SIGKILL)
		<-e.done
	}
}

// WaitFirst waits until JMeter has written its first sample, and fails
// when it exits before, or when timeout passes, with the end of its output.
func (e *Engine) WaitFirst(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if e.hasSample() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.done:
			if e.hasSample() {
				return nil
			}
			return finding.Errorf(finding.T("JMeter ended without a sample (%v); %s ends with:\n%s",
				"JMeter 结束时没有任何样本（%v）；%s 的结尾：\n%s"), exitText(e.err), filepath.Join(e.Dir, OutFile), e.Tail(1500))
		case <-deadline.C:
			return finding.Errorf(finding.T("JMeter wrote no sample within %s; %s ends with:\n%s",
				"JMeter 在 %s 内没有写出任何样本；%s 的结尾：\n%s"), timeout, filepath.Join(e.Dir, OutFile), e.Tail(1500))
		case <-tick.C:
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// hasSample reports a JTL with a line past its header.
func (e *Engine) hasSample() bool {
	f, err := os.Open(e.JTL)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, b)
	b = b[:n]
	i := strings.IndexByte(string(b), '\n')
	return i >= 0 && i+1 < len(b)
}

// Tail is the end of JMeter's output and of its log (for errors), sanitised.
func (e *Engine) Tail(n int64) string {
	var parts []string
	for _, name := range []string{OutFile, LogFile} {
		if t := tailOf(filepath.Join(e.Dir, name), n); t != "" {
			parts = append(parts, t)
		}
	}
	return finding.Safe(strings.Join(parts, "\n"))
}

func tailOf(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, n))
	return strings.TrimSpace(string(b))
}
