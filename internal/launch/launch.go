// Package launch starts the service under test for `tuneloop run --start`,
// waits until it answers, finds its JVM among the processes it started, and
// stops it again. Besides jvm/attach it is the only user of os/exec: the
// command is the user's own start line, run by /bin/sh in a process group of
// its own so the whole service (scripts, the JVM) is stopped together.
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// Service is a started service.
type Service struct {
	Cmd     *exec.Cmd
	Command string
	LogPath string
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL
	// (DefaultStopTimeout when 0).
	StopTimeout time.Duration
	// Killed: Stop had to send SIGKILL, the service (its JVM, or its
	// process) still running StopTimeout after SIGTERM, so its shutdown
	// hooks may not have finished; KilledText says so.
	Killed bool
	jvm    int // found by WaitJVM
	done   chan struct{}
	err    error
}

// Start runs command with /bin/sh -c in its own process group; stdout and
// stderr go to logPath.
func Start(command, logPath string) (*Service, error) {
	if strings.TrimSpace(command) == "" {
		return nil, finding.Errorf(finding.T("--start: empty command", "--start：命令为空"))
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("--start %q: %w", command, err)
	}
	s := &Service{Cmd: cmd, Command: command, LogPath: logPath, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	return s, nil
}

// Exited reports whether the service's shell has ended, and how.
func (s *Service) Exited() (bool, error) {
	select {
	case <-s.done:
		return true, s.err
	default:
		return false, nil
	}
}

// DefaultStopTimeout is how long Stop waits for the service to exit after
// SIGTERM when Service.StopTimeout is not set.
const DefaultStopTimeout = 10 * time.Second

// WaitJVM finds the service's JVM among the processes it started, polling
// until it appears or timeout passes; 0 when there is none. Stop then
// signals that JVM itself too.
func (s *Service) WaitJVM(ctx context.Context, h hostfs.FS, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		if pid := FindJVM(h, s.Cmd.Process.Pid); pid != 0 {
			s.jvm = pid
			return pid
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop ends the service: SIGTERM to its JVM and to its process group, then
// up to StopTimeout for the JVM and the shell to exit, then SIGKILL to the
// group. The JVM gets the grace of its own: a wrapper shell dies at once on
// SIGTERM, and killing the group then would cut the JVM's shutdown hooks
// short.
func (s *Service) Stop() {
	grace := s.StopTimeout
	if grace <= 0 {
		grace = DefaultStopTimeout
	}
	pgid := s.Cmd.Process.Pid
	jvm := s.jvm
	if jvm == 0 {
		jvm = FindJVM(hostfs.Live(), pgid)
	}
	if jvm != 0 && jvm != pgid {
		_ = syscall.Kill(jvm, syscall.SIGTERM)
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	end := time.Now().Add(grace)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-s.done:
	case <-timer.C:
		select {
		case <-s.done:
		default:
			s.Killed = true // the process it started still ran
		}
	}
	if jvm != 0 && jvm != pgid {
		for alive(jvm) && time.Now().Before(end) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(jvm) {
			s.Killed = true
			_ = syscall.Kill(jvm, syscall.SIGKILL)
		}
	}
	// Whatever is left of the group (children the shell left behind) goes now.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-s.done
	// A killed JVM with many threads takes a moment to be gone: Stop
	// returns once it is (or after a bound), so a caller can reuse its port.
	for deadline := time.Now().Add(5 * time.Second); jvm != 0 && alive(jvm) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	RemoveStaleAttach(jvm)
}

// KilledText says that Stop killed the service, and what to do: nil when
// it stopped on SIGTERM within its grace period.
func (s *Service) KilledText() *finding.Text {
	if !s.Killed {
		return nil
	}
	grace := s.StopTimeout
	if grace <= 0 {
		grace = DefaultStopTimeout
	}
	t := finding.Tf(finding.T("the service still ran %s after SIGTERM and was killed with SIGKILL: its shutdown hooks (flushing logs, closing connections, deregistering) may not have finished; give it longer with --stop-timeout",
		"服务在收到 SIGTERM %s 后仍在运行，已用 SIGKILL 杀死：其关闭钩子（刷新日志、关闭连接、注销服务）可能没有执行完；可用 --stop-timeout 给它更长时间"), grace)
	return &t
}

// RemoveStaleAttach removes the attach socket of a JVM that is gone: one
// killed with SIGKILL cannot remove its /tmp/.java_pidN itself.
func RemoveStaleAttach(jvm int) {
	if jvm > 0 && !alive(jvm) {
		_ = os.Remove("/tmp/.java_pid" + strconv.Itoa(jvm))
	}
}

// alive reports whether pid runs (a zombie has exited).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, err := sample.ParsePidStat(b)
	return err == nil && st.State != 'Z'
}

// LogTail returns the last n bytes of the service log, for error messages.
func (s *Service) LogTail(n int64) string {
	f, err := os.Open(s.LogPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return strings.TrimSpace(string(b))
}

// WaitReady polls url with GET until any HTTP response below 500 comes back,
// the service exits (when s is not nil), or timeout passes.
func WaitReady(ctx context.Context, url string, timeout time.Duration, s *Service) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A slow answer is an answer (a service whose every request waits 2 s
	// on a downstream is ready, and the load measures how slow): each probe
	// may take up to 10 s, within the overall timeout.
	client := &http.Client{Timeout: 10 * time.Second}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("--target %q: %w", url, err)
		}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			last = fmt.Errorf("HTTP %d", resp.StatusCode)
		} else {
			last = err
		}
		if s != nil {
			if exited, werr := s.Exited(); exited {
				return finding.Errorf(finding.T("the service exited before answering (%v); its log %s ends with:\n%s", "服务在响应之前就退出了（%v）；其日志 %s 的结尾：\n%s"), werr, s.LogPath, s.LogTail(2000))
			}
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &NotReadyError{finding.Errorf(finding.T("%s did not answer within %s (last: %v)", "%s 在 %s 内没有响应（最后一次：%v）"), url, timeout, last)}
			}
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// NotReadyError is a service that runs and did not answer in time (not one
// that exited): a hung service, worth diagnosing rather than leaving.
type NotReadyError struct{ Err *finding.Error }

func (e *NotReadyError) Error() string                  { return e.Err.Error() }
func (e *NotReadyError) Localize(l finding.Lang) string { return e.Err.Localize(l) }
func (e *NotReadyError) Unwrap() error                  { return e.Err }

// FindJVM returns the JVM among root and its descendants (root itself when it
// is one): the java process with the most threads, or 0 when there is none.
func FindJVM(h hostfs.FS, root int) int {
	children := map[int][]int{}
	names, err := h.ReadDir(h.Proc)
	if err != nil {
		return 0
	}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if pp := ppid(h, pid); pp > 0 {
			children[pp] = append(children[pp], pid)
		}
	}
	best, bestThreads := 0, -1
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		queue = append(queue, children[pid]...)
		if !isJava(h, pid) {
			continue
		}
		if t := threads(h, pid); t > bestThreads {
			best, bestThreads = pid, t
		}
	}
	return best
}

// ppid reads the parent from /proc/PID/stat; 0 when unreadable.
func ppid(h hostfs.FS, pid int) int {
	b, err := h.ReadFile(h.ProcPath(strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	st, err := sample.ParsePidStat(b)
	if err != nil || st.PPID > 1<<22 { // over PID_MAX_LIMIT: not a pid
		return 0
	}
	return int(st.PPID)
}

func isJava(h hostfs.FS, pid int) bool {
	b, err := h.ReadFile(h.ProcPath(strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return false
	}
	argv0 := string(b)
	if i := strings.IndexByte(argv0, 0); i >= 0 {
		argv0 = argv0[:i]
	}
	return filepath.Base(argv0) == "java"
}

func threads(h hostfs.FS, pid int) int {
	b, err := h.ReadFile(h.ProcPath(strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	var st sample.ProcStatus
	if st.Parse(b, sample.FieldThreads); st.Has&sample.FieldThreads == 0 {
		return 0
	}
	return st.Threads
}

// Alive reports whether pid runs (a zombie has exited).
func Alive(pid int) bool { return alive(pid) }

// ExitStatus is how the service's shell ended, as a shell reports it: the
// exit code, or 128+N and the signal's name for a death by signal N. ok is
// false while it runs.
func (s *Service) ExitStatus() (code int, signal string, ok bool) {
	select {
	case <-s.done:
	default:
		return 0, "", false
	}
	ps := s.Cmd.ProcessState
	if ps == nil {
		return -1, "", true
	}
	if ws, isWS := ps.Sys().(syscall.WaitStatus); isWS && ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal()), true
	}
	// A shell whose child died of signal N exits with 128+N.
	if c := ps.ExitCode(); c > 128 && c < 128+32 {
		return c, signalName(syscall.Signal(c - 128)), true
	}
	return ps.ExitCode(), "", true
}

// Done is closed when the service's shell has ended.
func (s *Service) Done() <-chan struct{} { return s.done }

// JVM is the service's JVM found by WaitJVM (0: none yet).
func (s *Service) JVM() int { return s.jvm }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return "signal " + strconv.Itoa(int(sig))
}

// LogLines returns the last n lines of the service log (within its last
// 8 KB), as written.
func (s *Service) LogLines(n int) []string {
	t := s.LogTail(8 << 10)
	if t == "" {
		return nil
	}
	lines := strings.Split(t, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
