package launch

// The watchdog: what `tuneloop run` starts and switches on belongs to the
// run, even when tuneloop is killed with SIGKILL (no defer runs then). A
// copy of this program (/proc/self/exe: the tuneloop binary and test
// binaries alike, selected by watchdogEnv as attach's helper is) is
// started in a session of its own, holding the read end of a pipe. The run
// tells it each thing it starts or switches on, and its undoing, one JSON
// line each (the journal); a clean end says "done". When the pipe closes
// without "done" (the run died), the watchdog switches off the JFR
// recording and the GC log output in the JVM, stops the service (SIGTERM,
// the grace period, SIGKILL) unless it was to be kept, and removes what
// was left in /tmp.
//
// The same lines are kept in a journal file; a run that finds the journal
// of a dead run whose watchdog is gone too (killed with it, or the host
// rebooted under it) undoes it at its start (RecoverJournals).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/sample"
)

const watchdogEnv = "TUNELOOP_WATCHDOG"

func init() {
	if v := os.Getenv(watchdogEnv); v != "" {
		code := runWatchdog(os.NewFile(3, "journal"))
		if v != "1" && code != 1 {
			_ = os.Remove(v) // the journal file: done, or undone here
		}
		os.Exit(code)
	}
}

// Journal operations.
const (
	OpOwner   = "owner"   // PID: the tuneloop process running the run
	OpService = "service" // PGID: the service's process group; GraceMS
	OpJVM     = "jvm"     // PID: the service's (or target's) JVM
	OpKeep    = "keep"    // --keep-service: do not stop it
	OpGCLog   = "gclog"   // PID, Index, File: GC log output switched on
	OpGCOff   = "gclog-off"
	OpJFR     = "jfr" // PID, File, Name: the run's JFR recording started
	OpJFROff  = "jfr-off"
	// OpEngine: PGID: a load engine's process group (JMeter), stopped
	// (SIGTERM, GraceMS, SIGKILL) when the run dies; OpEngineOff: it ended.
	OpEngine    = "engine"
	OpEngineOff = "engine-off"
	OpDone      = "done" // the run ended cleanly: nothing to undo
)

// Entry is one line of the journal.
type Entry struct {
	Op    string `json:"op"`
	PID   int    `json:"pid,omitempty"`
	PGID  int    `json:"pgid,omitempty"`
	Index int    `json:"index,omitempty"`
	File  string `json:"file,omitempty"`
	// Name is the JFR recording's name (unique per run; "tuneloop" in
	// journals written before names were).
	Name    string `json:"name,omitempty"`
	GraceMS int64  `json:"grace_ms,omitempty"`
	// Started is the process's start time (/proc/PID/stat field 22): a pid
	// reused by another process since is never signalled.
	Started uint64 `json:"started,omitempty"`
}

// journalState is what a journal says is on now.
type journalState struct {
	owner, watchdog int
	pgid, jvm       int
	pgidStart       uint64
	jvmStart        uint64
	grace           time.Duration
	keep, done      bool
	gc              *Entry
	jfr             *Entry
	engines         []Entry
}

func (s *journalState) apply(e Entry) {
	switch e.Op {
	case OpOwner:
		s.owner = e.PID
	case "watchdog":
		s.watchdog = e.PID
	case OpService:
		s.pgid, s.grace, s.pgidStart = e.PGID, time.Duration(e.GraceMS)*time.Millisecond, e.Started
	case OpJVM:
		s.jvm, s.jvmStart = e.PID, e.Started
	case OpKeep:
		s.keep = true
	case OpGCLog:
		s.gc = &e
	case OpGCOff:
		s.gc = nil
	case OpJFR:
		s.jfr = &e
	case OpJFROff:
		s.jfr = nil
	case OpEngine:
		s.engines = append(s.engines, e)
	case OpEngineOff:
		for i, x := range s.engines {
			if x.PGID == e.PGID {
				s.engines = append(s.engines[:i], s.engines[i+1:]...)
				break
			}
		}
	case OpDone:
		s.done = true
	}
}

// runWatchdog reads the journal from r until it closes; without "done" it
// undoes what is still on. Its exit status is for tests.
func runWatchdog(r io.Reader) int {
	// Ctrl-C on the terminal and the run's SIGTERM are for the run; the
	// watchdog acts when the run is gone.
	signalIgnore()
	var st journalState
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			st.apply(e)
		}
	}
	if st.done {
		return 0
	}
	undo(&st)
	return 3
}

// undo switches off and stops what st says is on; it returns what it did.
func undo(st *journalState) []string {
	var did []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	jvmAlive := func(pid int) bool { return pid > 0 && alive(pid) }
	var vm *attach.VM
	vmOf := func(pid int) *attach.VM {
		if vm == nil && jvmAlive(pid) {
			vm, _ = attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second, Method: attach.Socket})
		}
		return vm
	}
	if e := st.jfr; e != nil {
		if v := vmOf(e.PID); v != nil {
			name := e.Name
			if name == "" {
				name = "tuneloop"
			}
			if _, err := v.Execute(ctx, "JFR.stop", "name="+name); err == nil {
				did = append(did, "JFR recording "+name+" stopped")
			}
		}
	}
	if e := st.gc; e != nil {
		if v := vmOf(e.PID); v != nil {
			if idx, ok := GCOutput(ctx, v, e); ok {
				if _, err := v.Execute(ctx, "VM.log", fmt.Sprintf("output=#%d", idx), "what=all=off"); err == nil {
					did = append(did, "GC log output switched off")
				}
			}
		}
	}
	// A pid reused since (a journal read after a reboot) is not ours.
	if st.jvm > 0 && st.jvmStart != 0 && ProcStart(st.jvm) != st.jvmStart {
		st.jvm = 0
	}
	if st.pgid > 0 && st.pgidStart != 0 {
		switch now := ProcStart(st.pgid); {
		case now != 0 && now != st.pgidStart:
			st.pgid = 0 // the leader's pid is another process's now
		case now == 0 && st.jvm == 0:
			st.pgid = 0 // the shell is gone and no JVM of ours is known in its group
		}
	}
	// Load engines first: the load stops before the service does.
	for _, e := range st.engines {
		if stopEngine(e) {
			did = append(did, fmt.Sprintf("load engine (process group %d) stopped", e.PGID))
		}
	}
	if st.pgid > 0 && !st.keep {
		s := &Service{Cmd: &exec.Cmd{Process: &os.Process{Pid: st.pgid}}, StopTimeout: st.grace, jvm: st.jvm}
		s.stopOrphan()
		did = append(did, "service stopped")
	}
	// Files it left in the JVM's /tmp (ours), once it no longer writes them.
	for _, e := range []*Entry{st.jfr, st.gc} {
		if e == nil || e.File == "" {
			continue
		}
		for _, root := range []string{fmt.Sprintf("/proc/%d/root", e.PID), ""} {
			matches, _ := filepath.Glob(root + e.File + "*")
			for _, m := range matches {
				if os.Remove(m) == nil {
					did = append(did, "removed "+m)
				}
			}
		}
	}
	// A JVM killed before it could clean up leaves its attach socket.
	if st.jvm > 0 && !st.keep && !alive(st.jvm) {
		if os.Remove(fmt.Sprintf("/tmp/.java_pid%d", st.jvm)) == nil {
			did = append(did, "removed the stale attach socket")
		}
	}
	return did
}

// GCOutput is the index the run's GC log output has now, found by its file:
// the index noted may name another output since (removing an output moves
// the last one into its place, and a later one takes the freed number).
// Only when the list cannot be read is the noted index trusted; stdout and
// stderr (#0, #1) are never switched off.
func GCOutput(ctx context.Context, v *attach.VM, e *Entry) (int, bool) {
	outs, err := v.LogOutputs(ctx)
	if err != nil || e.File == "" {
		return e.Index, e.Index > 1
	}
	for _, o := range outs {
		if o.File() == e.File {
			return o.Index, o.Index > 1
		}
	}
	return 0, false // not (or no longer) on
}

// stopOrphan is Stop for a service this process did not start (the
// watchdog's): the same signals, waiting on /proc instead of Wait.
func (s *Service) stopOrphan() {
	grace := s.StopTimeout
	if grace <= 0 {
		grace = DefaultStopTimeout
	}
	pgid, jvm := s.Cmd.Process.Pid, s.jvm
	if jvm == 0 {
		jvm = FindJVM(hostfs.Live(), pgid)
	}
	if jvm != 0 {
		_ = syscall.Kill(jvm, syscall.SIGTERM)
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	end := time.Now().Add(grace)
	for time.Now().Before(end) && (jvm != 0 && alive(jvm) || groupAlive(pgid)) {
		time.Sleep(20 * time.Millisecond)
	}
	if jvm != 0 && alive(jvm) {
		_ = syscall.Kill(jvm, syscall.SIGKILL)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for end := time.Now().Add(5 * time.Second); jvm != 0 && alive(jvm) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
}

// stopEngine ends a load engine's process group: SIGTERM, its grace (2 s
// by default), SIGKILL. A group whose leader is another process now (a
// reused pid) is left alone; it reports whether it signalled.
func stopEngine(e Entry) bool {
	if e.PGID <= 1 || !groupAlive(e.PGID) {
		return false
	}
	if now := ProcStart(e.PGID); e.Started != 0 && now != 0 && now != e.Started {
		return false
	}
	grace := time.Duration(e.GraceMS) * time.Millisecond
	if grace <= 0 {
		grace = 2 * time.Second
	}
	_ = syscall.Kill(-e.PGID, syscall.SIGTERM)
	for end := time.Now().Add(grace); time.Now().Before(end) && groupAlive(e.PGID); {
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-e.PGID, syscall.SIGKILL)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && groupAlive(e.PGID); {
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// Watchdog is the run's side of the watchdog: Note each change, Done at a
// clean end.
type Watchdog struct {
	mu      sync.Mutex
	pipe    *os.File
	journal *os.File
	path    string
	cmd     *exec.Cmd
	done    bool
}

// StartWatchdog starts the watchdog process and the journal file in
// journalDir ("" = no journal file).
func StartWatchdog(journalDir string) (*Watchdog, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var path string
	if journalDir != "" {
		if err := os.MkdirAll(journalDir, 0o700); err == nil {
			path = filepath.Join(journalDir, fmt.Sprintf("run-%d.jsonl", os.Getpid()))
		}
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), watchdogEnv+"="+orOne(path))
	cmd.ExtraFiles = []*os.File{r}
	// A session of its own: neither the terminal's Ctrl-C nor a kill of
	// the run's process group reaches it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("starting the watchdog: %w", err)
	}
	r.Close()
	wd := &Watchdog{pipe: w, cmd: cmd}
	go func() { _ = cmd.Wait() }() // reaped when it exits (after Done, or never while we live)
	if path != "" {
		wd.path = path
		wd.journal, _ = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	}
	wd.Note(Entry{Op: OpOwner, PID: os.Getpid()})
	wd.Note(Entry{Op: "watchdog", PID: cmd.Process.Pid})
	return wd, nil
}

// Note tells the watchdog (and the journal) of one change.
func (w *Watchdog) Note(e Entry) {
	if w == nil {
		return
	}
	b, _ := json.Marshal(e)
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	_, _ = w.pipe.Write(b)
	if w.journal != nil {
		_, _ = w.journal.Write(b)
		_ = w.journal.Sync()
	}
}

// Done ends the watchdog with nothing to undo and removes the journal.
func (w *Watchdog) Done() {
	if w == nil {
		return
	}
	w.Note(Entry{Op: OpDone})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.pipe.Close()
	if w.journal != nil {
		w.journal.Close()
		os.Remove(w.path)
	}
}

// PID is the watchdog process's pid.
func (w *Watchdog) PID() int { return w.cmd.Process.Pid }

// RecoverJournals undoes the journals in dir of runs that died with their
// watchdog (a journal whose run and watchdog are both gone), and removes
// them. It returns what was done, for the user.
func RecoverJournals(dir string) []finding.Text {
	files, _ := filepath.Glob(filepath.Join(dir, "run-*.jsonl"))
	var out []finding.Text
	for _, f := range files {
		b, err := readSmall(f, 1<<20)
		if err != nil {
			continue
		}
		var st journalState
		for _, line := range strings.Split(string(b), "\n") {
			var e Entry
			if json.Unmarshal([]byte(line), &e) == nil {
				st.apply(e)
			}
		}
		if st.done || alive(st.owner) || alive(st.watchdog) {
			if st.done {
				os.Remove(f)
			}
			continue
		}
		did := undo(&st)
		os.Remove(f)
		if len(did) > 0 {
			out = append(out, finding.Tf(finding.T("an earlier run (pid %d) was killed with its watchdog: undone now: %s",
				"之前的一次运行（pid %d）连同其看护进程被杀死：现已撤销：%s"), st.owner, strings.Join(did, "; ")))
		}
	}
	return out
}

func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// JournalDir is where run journals live: $XDG_STATE_HOME/tuneloop/journal,
// else ~/.local/state/tuneloop/journal.
func JournalDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tuneloop", "journal")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "tuneloop-journal-"+strconv.Itoa(os.Getuid()))
	}
	return filepath.Join(home, ".local", "state", "tuneloop", "journal")
}

func orOne(s string) string {
	if s == "" {
		return "1"
	}
	return s
}

// ProcStart is pid's start time in clock ticks since boot (/proc/PID/stat
// field 22); 0 when it is gone.
func ProcStart(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	st, err := sample.ParsePidStat(b)
	if err != nil {
		return 0
	}
	return st.Start
}
