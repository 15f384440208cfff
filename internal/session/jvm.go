package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// JFRFile is the run's JFR recording, inside the run folder.
const JFRFile = verdict.JFRFile

// jvmSide is what run switched on in the target JVM: the GC log output and
// the JFR recording, both written to files in the JVM's /tmp.
type jvmSide struct {
	pid int
	// tag makes every name this run gives in the JVM and its /tmp its own
	// (two runs against one JVM in the same second share pid and time).
	tag string
	gc  *attach.GCLog
	jfr string // the JFR file in the JVM's /tmp; "" = none running
	// wd hears each switch on and off, to undo them if tuneloop is killed.
	wd *launch.Watchdog
}

// runTag is 8 random hex digits, drawn once per run.
func (j *jvmSide) runTag() string {
	if j.tag == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		j.tag = hex.EncodeToString(b[:])
	}
	return j.tag
}

// recording is the run's JFR recording name in the JVM.
func (j *jvmSide) recording() string { return "tuneloop-" + j.runTag() }

func attachTo(ctx context.Context, pid int) (*attach.VM, error) {
	return attach.AttachContext(ctx, pid, attach.Options{Timeout: 5 * time.Second})
}

// enableGCLog switches GC logging on to a file in the JVM's /tmp, unless it
// already logs GC to a file.
func (j *jvmSide) enableGCLog(ctx context.Context, start time.Time) error {
	vm, err := attachTo(ctx, j.pid)
	if err != nil {
		return err
	}
	file := fmt.Sprintf("/tmp/%s%d-%d-%s.log", attach.GCLogPrefix, j.pid, start.Unix(), j.runTag())
	// Noted first, by its file (the watchdog finds the output by it): a
	// kill between the switch and its note would leave it on.
	j.wd.Note(launch.Entry{Op: launch.OpGCLog, PID: j.pid, File: file})
	g, err := vm.EnableGCLog(ctx, file)
	if err != nil || !g.Enabled {
		j.wd.Note(launch.Entry{Op: launch.OpGCOff}) // not ours to switch off
	}
	if err != nil {
		return err
	}
	j.gc = &g
	if g.Enabled {
		j.wd.Note(launch.Entry{Op: launch.OpGCLog, PID: j.pid, Index: g.Index, File: g.File})
	}
	return nil
}

// startJFR starts a profiling JFR recording.
func (j *jvmSide) startJFR(ctx context.Context, start time.Time) error {
	vm, err := attachTo(ctx, j.pid)
	if err != nil {
		return err
	}
	file := fmt.Sprintf("/tmp/tuneloop-%d-%d-%s.jfr", j.pid, start.Unix(), j.runTag())
	// Noted first: a kill between the start and its note would leave it on.
	j.wd.Note(launch.Entry{Op: launch.OpJFR, PID: j.pid, File: file, Name: j.recording()})
	if _, err := vm.Execute(ctx, "JFR.start", "name="+j.recording(), "settings=profile", "filename="+file); err != nil {
		j.wd.Note(launch.Entry{Op: launch.OpJFROff})
		return err
	}
	j.jfr = file
	return nil
}

// collect moves the JFR recording and the GC log files into dir/raw and
// switches off what run switched on. It returns the GC log files copied.
func (j *jvmSide) collect(ctx context.Context, dir string, warn func(error)) []string {
	var gcFiles []string
	if j.gc != nil {
		gcFiles = j.collectGCLog(ctx, dir)
	}
	if j.jfr != "" {
		if err := j.collectJFR(ctx, dir); err != nil {
			warn(finding.Errorf(finding.T("JFR recording not collected: %v", "未能收集 JFR 记录：%v"), err))
		}
	}
	return gcFiles
}

// abandon switches off what run switched on when the run failed half way,
// and leaves nothing in the JVM's /tmp.
func (j *jvmSide) abandon(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if j.jfr != "" {
		if vm, err := attachTo(ctx, j.pid); err == nil {
			_, _ = vm.Execute(ctx, "JFR.stop", "name="+j.recording())
		}
		_ = os.Remove(j.inJVM(j.jfr))
		j.jfr = ""
		j.wd.Note(launch.Entry{Op: launch.OpJFROff})
	}
	if j.gc != nil {
		j.gcOff(ctx)
		if j.gc.Enabled && j.gc.File != "" {
			matches, _ := filepath.Glob(j.inJVM(j.gc.File) + "*")
			for _, m := range matches {
				_ = os.Remove(m) // our own file
			}
		}
		j.gc = nil
		j.wd.Note(launch.Entry{Op: launch.OpGCOff})
	}
}

// inJVM is a path of the JVM's file system as seen from here (containers);
// the path itself once the JVM is gone (its /proc/PID/root with it).
func (j *jvmSide) inJVM(path string) string {
	root := fmt.Sprintf("/proc/%d/root", j.pid)
	if _, err := os.Stat(root + "/"); err != nil {
		return path
	}
	return root + path
}

// collectJFR stops the recording (which writes it) and moves it into raw/.
func (j *jvmSide) collectJFR(ctx context.Context, dir string) error {
	vm, err := attachTo(ctx, j.pid)
	if err != nil {
		return err
	}
	if _, err := vm.Execute(ctx, "JFR.stop", "name="+j.recording()); err != nil {
		return err
	}
	j.wd.Note(launch.Entry{Op: launch.OpJFROff})
	src := j.inJVM(j.jfr)
	j.jfr = ""
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	_ = os.Remove(src) // ours: leave nothing behind in the JVM's /tmp
	return os.WriteFile(filepath.Join(dir, JFRFile), b, 0o644)
}

// gcOff switches off the GC log output run switched on.
func (j *jvmSide) gcOff(ctx context.Context) {
	if !j.gc.Enabled {
		return
	}
	if vm, err := attachTo(ctx, j.pid); err == nil {
		// By its file, not the index noted: removing another output since
		// may have moved ours to another number (launch.GCOutput).
		if i, ok := launch.GCOutput(ctx, vm, &launch.Entry{Index: j.gc.Index, File: j.gc.File}); ok {
			_, _ = vm.Execute(ctx, "VM.log", fmt.Sprintf("output=#%d", i), "what=all=off")
		}
	}
}

// collectGCLog copies the GC log (and its rotated parts) into raw/ and
// switches off the output run switched on.
func (j *jvmSide) collectGCLog(ctx context.Context, dir string) []string {
	g := j.gc
	if g.File == "" {
		return nil
	}
	j.gcOff(ctx)
	matches, _ := filepath.Glob(j.inJVM(g.File) + "*")
	sort.Strings(matches)
	var out []string
	for i, m := range matches {
		b, err := os.ReadFile(m)
		copied := err == nil && len(b) == 0 // an empty log has nothing to keep
		if err == nil && len(b) > 0 {
			name := filepath.Join(dir, "raw", "gc-"+strconv.Itoa(i)+".log")
			if err := os.WriteFile(name, b, 0o644); err == nil {
				out = append(out, name)
				copied = true
			}
		}
		if g.Enabled && copied {
			_ = os.Remove(m) // our own file: leave nothing behind in the JVM's /tmp
		}
	}
	j.gc = nil
	j.wd.Note(launch.Entry{Op: launch.OpGCOff})
	return out
}
