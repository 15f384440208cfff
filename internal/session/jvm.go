package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/units"
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
// switches off what run switched on. It returns the GC log files copied,
// and what could not be kept whole (a full disk), each said through warn:
// what fits is kept, and nothing of ours is left in the JVM's /tmp.
func (j *jvmSide) collect(ctx context.Context, dir string, warn func(error)) (gcFiles []string, lost []string) {
	if j.gc != nil {
		var l []string
		gcFiles, l = j.collectGCLog(ctx, dir, warn)
		lost = append(lost, l...)
	}
	if j.jfr != "" {
		if l, err := j.collectJFR(ctx, dir); err != nil {
			if l != "" {
				lost = append(lost, l)
			}
			warn(finding.Errorf(finding.T("JFR recording not collected: %v", "未能收集 JFR 记录：%v"), err))
		}
	}
	return gcFiles, lost
}

// keepFile copies src to dst and says how much of it dst holds: on a write
// error (a full disk) what was written stays, a part of the file rather
// than nothing.
func keepFile(dst, src string) (kept, total int64, err error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	if st, err := in.Stat(); err == nil {
		total = st.Size()
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, total, err
	}
	kept, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if kept == 0 && err != nil {
		_ = os.Remove(dst) // nothing of it: no empty file that looks like one
	}
	return kept, total, err
}

// lostText says how much of a file was kept: "raw/recording.jfr: 1.2 MiB of 4 MiB kept".
func lostText(name string, kept, total int64) string {
	return fmt.Sprintf("%s: %s of %s kept", name, units.FormatBytesScaled(float64(kept), 1), units.FormatBytesScaled(float64(total), 1))
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

// collectJFR stops the recording (which writes it) and moves it into raw/;
// lost names what of it could not be kept.
func (j *jvmSide) collectJFR(ctx context.Context, dir string) (lost string, err error) {
	vm, err := attachTo(ctx, j.pid)
	if err != nil {
		return "", err
	}
	if _, err := vm.Execute(ctx, "JFR.stop", "name="+j.recording()); err != nil {
		return "", err
	}
	j.wd.Note(launch.Entry{Op: launch.OpJFROff})
	src := j.inJVM(j.jfr)
	j.jfr = ""
	kept, total, err := keepFile(filepath.Join(dir, JFRFile), src)
	_ = os.Remove(src) // ours: leave nothing behind in the JVM's /tmp, kept or not
	if err != nil {
		lost = lostText(JFRFile, kept, total)
		return lost, fmt.Errorf("%s (%w)", lost, err)
	}
	return "", nil
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
// switches off the output run switched on; our own files are removed from
// the JVM's /tmp whether or not they fitted.
func (j *jvmSide) collectGCLog(ctx context.Context, dir string, warn func(error)) (out, lost []string) {
	g := j.gc
	if g.File == "" {
		return nil, nil
	}
	j.gcOff(ctx)
	matches, _ := filepath.Glob(j.inJVM(g.File) + "*")
	sort.Strings(matches)
	for i, m := range matches {
		name := filepath.Join("raw", "gc-"+strconv.Itoa(i)+".log")
		if st, err := os.Stat(m); err == nil && st.Size() == 0 {
			if g.Enabled {
				_ = os.Remove(m) // an empty log has nothing to keep
			}
			continue
		}
		kept, total, err := keepFile(filepath.Join(dir, name), m)
		if kept > 0 {
			out = append(out, filepath.Join(dir, name))
		}
		if err != nil {
			l := lostText(name, kept, total)
			lost = append(lost, l)
			warn(finding.Errorf(finding.T("GC log %s not kept whole: %s (%v)", "GC 日志 %s 未能完整保存：%s（%v）"), m, l, err))
		}
		if g.Enabled {
			_ = os.Remove(m) // our own file: leave nothing behind in the JVM's /tmp
		}
	}
	j.gc = nil
	j.wd.Note(launch.Entry{Op: launch.OpGCOff})
	return out, lost
}
