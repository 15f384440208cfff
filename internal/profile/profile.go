// Package profile captures a CPU, allocation, lock or wall-clock profile of
// a live JVM through its own Flight Recorder, over the project's attach
// protocol: no agent to load and no JDK tool beside the target.
//
// Capture starts a JFR recording of the kind's events only (a settings file
// written into the JVM's /tmp, jfc.go; JFR's "profile" settings when the JVM
// refuses it), waits, stops it, reads the file through /proc/PID/root (so a
// JVM in a container works the same) and removes it from the JVM's /tmp. A
// cancelled context (Ctrl-C) stops the recording early and still returns
// what was recorded.
//
// JFR writes a lock wait or park only when it ends, so for the lock and
// wall kinds Capture also takes a thread dump when the recording has
// started and one before it stops: a thread waiting on the same lock with
// the same stack in both, with no event in the recording, waited through
// the capture and is added to the view with that time, a lower bound, and
// a note says so (wholewait.go).
package profile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// RecordingName starts the JFR recording's name inside the JVM and its
// files' names in the JVM's /tmp; each capture adds a random tag, so two
// captures of one JVM at once do not stop each other's recording.
const RecordingName = "tuneloop-profile"

// MaxRecording caps the recording read back (JFR's own default maxsize is
// 250 MB; a profile of minutes stays far below).
const MaxRecording = 512 << 20

// Options tune Capture.
type Options struct {
	Attach attach.Options
	// Extra JFR.start arguments, appended after the kind's own.
	Extra []string
	// jfc replaces the kind's settings file (tests: one the JVM refuses).
	jfc []byte
}

// Result is one captured profile.
type Result struct {
	Kind    stacks.Kind
	PID     int
	Version string // the JVM's VM.version first line
	Start   time.Time
	// Duration is how long it actually recorded (shorter than asked when
	// interrupted).
	Duration    time.Duration
	Interrupted bool
	// Command is the JFR.start line sent.
	Command string
	// JFR is the recording, as written by the JVM.
	JFR     []byte
	Profile *stacks.Profile
	// Notes say what the recording could not do as asked (an older JDK
	// ignoring the kind's options, no events of the kind).
	Notes []finding.Text
}

// kindOptions are the JFR.start options each kind needs on JDK 17+ when it
// records with the "profile" settings (the JVM refused tuneloop's own
// settings file): the profile settings' .jfc options; JDK 11-16 know none
// and get the plain profile settings, said in a note.
func kindOptions(k stacks.Kind) []string {
	switch k {
	case stacks.Alloc:
		return []string{"allocation-profiling=high"}
	case stacks.Lock, stacks.Wall:
		// The profile settings keep monitor waits over 10 ms only; a
		// contended logging lock is held for far less each time.
		return []string{"locking-threshold=1ms"}
	}
	return nil
}

// Capture records a profile of kind from the JVM pid for d. A cancelled ctx
// stops the recording early and returns what was recorded, with
// Interrupted set; an error is returned only when nothing could be recorded.
func Capture(ctx context.Context, pid int, kind stacks.Kind, d time.Duration, o Options) (*Result, error) {
	if d <= 0 {
		return nil, fmt.Errorf("profile duration: want a positive duration, got %v", d)
	}
	vm, err := attach.AttachContext(ctx, pid, o.Attach)
	if err != nil {
		return nil, err
	}
	res := &Result{Kind: kind, PID: pid, Version: vm.Version}
	// The files as the JVM sees them, in its /tmp; reached from here through its root.
	var tag [4]byte
	_, _ = rand.Read(tag[:])
	name := RecordingName + "-" + hex.EncodeToString(tag[:])
	stem := fmt.Sprintf("/tmp/%s-%d-%d", name, vm.NSPID, time.Now().UnixNano())
	file, settings := stem+".jfr", stem+".jfc"
	root := "/proc/" + strconv.Itoa(pid) + "/root"
	// First the kind's own events only; a JVM that refuses the file (or a
	// /tmp it cannot be written to) records with the profile settings.
	args := append(append([]string{"name=" + name, "settings=" + settings}, o.Extra...), "filename="+file)
	var out string
	body := o.jfc
	if body == nil {
		body = jfc(kind, jdkFeature(vm.Version))
	}
	refused := writeJFC(root+settings, body)
	if refused == nil {
		out, err = vm.Execute(ctx, "JFR.start", args...)
		os.Remove(root + settings) // read when the recording started
		if err != nil {
			refused = err
		} else if low := strings.ToLower(out); strings.Contains(low, "could not") || strings.Contains(low, "error") || strings.Contains(low, "disabled") {
			refused = errors.New(finding.FirstLine(strings.TrimSpace(out)))
		}
	}
	if refused != nil {
		why := finding.SafeLine(finding.FirstLine(strings.TrimSpace(refused.Error()))) // the JVM's words
		res.Notes = append(res.Notes, finding.T(
			fmt.Sprintf("tuneloop's settings of the %s events only were not taken (%s): recorded with JFR's 'profile' settings, which record more and cost the JVM more", kind, why),
			fmt.Sprintf("未能使用 tuneloop 仅含 %s 所需事件的设置（%s）：改用 JFR 的 profile 设置记录，记录更多事件，对 JVM 的开销更大", kind, why)))
		base := []string{"name=" + name, "settings=profile"}
		args = append(append(append(append([]string(nil), base...), kindOptions(kind)...), o.Extra...), "filename="+file)
		out, err = vm.Execute(ctx, "JFR.start", args...)
		if err != nil && len(kindOptions(kind)) > 0 && unknownOption(err, out) {
			// JDK 11-16: no .jfc options on the command line; the plain
			// profile settings still record every kind, with JFR's thresholds.
			res.Notes = append(res.Notes, finding.T(
				"this JVM takes no .jfc options on JFR.start (JDK 17+ does): recorded with the plain 'profile' settings (locks only over 10 ms, medium allocation sampling)",
				"该 JVM 的 JFR.start 不接受 .jfc 选项（JDK 17+ 才支持）：按默认 profile 设置记录（仅记录超过 10 ms 的锁等待，中等分配采样）"))
			args = append(append(append([]string(nil), base...), o.Extra...), "filename="+file)
			out, err = vm.Execute(ctx, "JFR.start", args...)
		}
	}
	if err != nil {
		return nil, startError(pid, vm.Version, err, out)
	}
	if strings.Contains(out, "disabled") || strings.Contains(out, "Could not") {
		return nil, startError(pid, vm.Version, errors.New(finding.FirstLine(strings.TrimSpace(out))), out)
	}
	res.Command = "JFR.start " + strings.Join(args, " ")
	res.Start = time.Now()
	inJVM := root + file

	t := time.NewTimer(d)
	// A wait is written when it ends: a thread dump now and one at the end
	// find the waits the recording will not hold (wholewait.go).
	var w waitDumps
	if kind == stacks.Lock || kind == stacks.Wall {
		w.first, w.firstAt, w.err = takeDump(ctx, vm, pid)
	}
	select {
	case <-ctx.Done():
		res.Interrupted = true
	case <-t.C:
	}
	t.Stop()

	defer os.Remove(inJVM) // ours: leave nothing behind in the JVM's /tmp
	if w.err == nil && w.first != nil {
		w.last, _, w.err = takeDump(context.WithoutCancel(ctx), vm, pid)
	}
	w.stopAt = time.Now()
	res.Duration = w.stopAt.Sub(res.Start)
	// Stop even when ctx is cancelled: the recording must not keep running
	// in the JVM, and what it holds is the result.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := vm.Execute(sctx, "JFR.stop", "name="+name); err != nil {
		return nil, fmt.Errorf("pid %d: JFR.stop name=%s: %w", pid, name, err)
	}
	buf, err := readCapped(inJVM)
	if err != nil {
		return nil, fmt.Errorf("pid %d: reading the recording %s: %w", pid, file, err)
	}
	res.JFR = buf
	p, err := stacks.JFRProfile(buf, kind)
	if err != nil {
		return res, fmt.Errorf("pid %d: the recording %s: %w", pid, file, err)
	}
	res.Profile = p
	if kind == stacks.Lock {
		if d := p.DropIdleWaits(); d > 0 {
			res.Notes = append(res.Notes, finding.T(
				fmt.Sprintf("%.1f s of pool threads waiting for work (ThreadPoolExecutor.getTask, ForkJoinPool.awaitWork) left out: idle, not blocked (the wall profile keeps them)", float64(d)/1e9),
				fmt.Sprintf("已略去线程池线程等待任务的 %.1f 秒（ThreadPoolExecutor.getTask、ForkJoinPool.awaitWork）：属于空闲而非阻塞（wall 剖析保留这些时间）", float64(d)/1e9)))
		}
	}
	if kind == stacks.Lock || kind == stacks.Wall {
		if n, ok := w.add(p, buf); ok {
			res.Notes = append(res.Notes, n)
		}
	}
	if p.Note != "" {
		res.Notes = append(res.Notes, finding.T(p.Note, noteZH(kind)))
	}
	if p.LacksNative() {
		res.Notes = append(res.Notes, finding.T(stacks.WallNativeGap()))
	}
	return res, nil
}

// noteZH is stacks' empty-profile note in Chinese.
func noteZH(k stacks.Kind) string {
	switch k {
	case stacks.CPU:
		return "记录中没有 jdk.ExecutionSample 事件：请用 settings=profile（或打开 method-profiling）"
	case stacks.Alloc:
		return "记录中没有分配事件：请用 settings=profile（JDK 16+：jdk.ObjectAllocationSample）"
	case stacks.Lock:
		return "记录中没有超过阈值的 jdk.JavaMonitorEnter 或 jdk.ThreadPark 事件：请用 settings=profile 或更低的 locking-threshold"
	}
	return "记录中没有任何采样"
}

// readCapped reads a file of at most MaxRecording bytes.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if st.Size() > MaxRecording {
		return nil, fmt.Errorf("%d bytes, over the cap of %d", st.Size(), MaxRecording)
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, err
	}
	return buf, nil
}

// unknownOption is JFR.start refusing an argument it does not know.
func unknownOption(err error, out string) bool {
	var ce *attach.CommandError
	if errors.As(err, &ce) {
		out += ce.Output
	}
	s := strings.ToLower(out + " " + err.Error())
	return strings.Contains(s, "unknown argument") || strings.Contains(s, "no such") || strings.Contains(s, "not recognized")
}

// StartError is a JVM that cannot record: no JFR.start (JDK 8 before 8u262,
// or an OpenJ9 reached through jcmd), or JFR switched off.
type StartError struct {
	PID     int
	Version string
	Reason  finding.Text // what was seen
	Advice  finding.Text // what would allow it
	Err     error
}

func (e *StartError) Error() string { return e.Message(finding.EN) }

// Unwrap gives the attach error underneath.
func (e *StartError) Unwrap() error { return e.Err }

// Message is the error in one language.
func (e *StartError) Message(l finding.Lang) string {
	sep := ". "
	if l == finding.ZH {
		sep = "。"
	}
	return fmt.Sprintf("pid %d: %s (%s)%s%s", e.PID, e.Reason.In(l), finding.FirstLine(strings.TrimSpace(e.Err.Error())), sep, e.Advice.In(l))
}

func startError(pid int, version string, err error, out string) error {
	var ce *attach.CommandError
	if errors.As(err, &ce) {
		out += "\n" + ce.Output
	}
	low := strings.ToLower(out + " " + err.Error())
	se := &StartError{PID: pid, Version: version, Err: err}
	switch {
	case strings.Contains(low, "unknown diagnostic command") || strings.Contains(low, "not available"):
		se.Reason = finding.T("this JVM has no JFR.start (JDK 8 before 8u262, or no Flight Recorder built in)",
			"该 JVM 没有 JFR.start（早于 8u262 的 JDK 8，或未内置 Flight Recorder）")
		se.Advice = finding.T("upgrade to JDK 8u262+ or 11+ (OpenJDK, Bisheng JDK 8 newer builds), or profile it with async-profiler (asprof -e cpu -d 30 PID)",
			"升级到 JDK 8u262+ 或 11+（OpenJDK、较新的毕昇 JDK 8），或用 async-profiler 采样（asprof -e cpu -d 30 PID）")
	case strings.Contains(low, "disabled") || strings.Contains(low, "flightrecorder"):
		se.Reason = finding.T("Flight Recorder is switched off in this JVM", "该 JVM 关闭了 Flight Recorder")
		se.Advice = finding.T("restart it without -XX:-FlightRecorder (on JDK 8 also with -XX:+UnlockCommercialFeatures -XX:+FlightRecorder on Oracle JDK)",
			"去掉 -XX:-FlightRecorder 后重启（Oracle JDK 8 还需 -XX:+UnlockCommercialFeatures -XX:+FlightRecorder）")
	default:
		se.Reason = finding.T("JFR.start failed", "JFR.start 执行失败")
		se.Advice = finding.T("run `tuneloop jvm PID --jcmd 'JFR.check'` to see the JVM's recordings, and check that its user can write to its /tmp",
			"运行 `tuneloop jvm PID --jcmd 'JFR.check'` 查看该 JVM 的记录，并确认其用户可写其 /tmp")
	}
	return se
}

// The files WriteFiles writes, by role.
const (
	FileJFR       = "recording.jfr"
	FileCollapsed = "profile.collapsed"
	FilePprof     = "profile.pb.gz"
	FileHTML      = "profile.html"
)

// WriteFiles writes the recording, the collapsed stacks (FlameGraph,
// speedscope) and the pprof profile into dir, creating it; it returns the
// paths by role (jfr, collapsed, pprof). The recording is written first:
// raw evidence before what is derived from it.
func (r *Result) WriteFiles(dir string) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := map[string]string{}
	write := func(role, name string, fill func(io.Writer) error) error {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		err = fill(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		files[role] = path
		return nil
	}
	if len(r.JFR) > 0 { // none for a native profile
		if err := write("jfr", FileJFR, func(w io.Writer) error { _, err := w.Write(r.JFR); return err }); err != nil {
			return files, err
		}
	}
	if r.Profile == nil {
		return files, nil
	}
	if err := write("collapsed", FileCollapsed, r.Profile.WriteCollapsed); err != nil {
		return files, err
	}
	if len(r.Profile.Samples) == 0 {
		return files, nil // pprof wants at least a sample type; an empty file helps no one
	}
	if err := write("pprof", FilePprof, r.Profile.WritePprof); err != nil {
		return files, err
	}
	return files, nil
}
