// Package session holds the long flows of `tuneloop record` and `tuneloop
// run`: choosing the target, the tick loop with its background thread
// dumps, the catalog entry, and for run the service launch, the host audit,
// GC log and JFR switched on at run time, the warm-up, the measured load
// and the recorder side by side, and the collection of every layer into the
// run folder; and the flows of the short commands (check's audit, probe,
// load with either engine, the runs catalog, check and jvm on one host
// over SSH, a JVM's profile), so that each command is flags, one call
// here and one writer. It prints nothing: the cli supplies callbacks for
// the live status and notes, and renders what Record and Run return.
package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// UsageError is an error in what the user asked for (a --pid that is no
// process, an unknown sampler): the cli exits 2 on it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErr(t finding.Text, args ...any) error {
	return &UsageError{Err: finding.Errorf(t, args...)}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// DefaultDir is the run folder when --out is not given:
// runs/<UTC timestamp>-<host>.
func DefaultDir(start time.Time, host string) string {
	if host == "" {
		host = "host"
	}
	return filepath.Join("runs", start.UTC().Format("20060102-150405")+"-"+unsafeName.ReplaceAllString(host, "_"))
}

// ClaimDefaultDir creates the default run folder and returns it: the
// DefaultDir name, or with -2, -3 ... when another run started in the same
// second took it (two `record` at once shared one folder). The folder is
// claimed by creating it: no two runs get the same one.
func ClaimDefaultDir(start time.Time, host string) (string, error) {
	base := DefaultDir(start, host)
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= 1000; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", finding.Errorf(finding.T("%s: 1000 run folders of this second exist: give --out", "%s：同一秒的运行目录已有 1000 个：请用 --out 指定"), base)
}

// CheckOut refuses a run folder that cannot be created fresh: a regular
// file, or a folder that already holds something. Run calls it before the
// service is started or anything in the JVM is switched on.
func CheckOut(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return finding.Errorf(finding.T("--out %s: %v", "--out %s：%v"), dir, err)
	case !st.IsDir():
		return finding.Errorf(finding.T("--out %s is a file, not a folder: choose another --out",
			"--out %s 是一个文件而不是目录：请换一个 --out"), dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return finding.Errorf(finding.T("--out %s: %v", "--out %s：%v"), dir, err)
	}
	if len(ents) > 0 {
		return finding.Errorf(finding.T("--out %s is not empty (it may hold an earlier run): choose another --out",
			"--out %s 不是空目录（可能已有一次运行）：请换一个 --out"), dir)
	}
	return nil
}

// pickTarget resolves --pid or --jvm auto (the JVM with the largest RSS);
// neither is no target.
func pickTarget(h hostfs.FS, facts *sysinfo.Facts, pid int, jvmAuto bool) (*runfolder.Target, error) {
	if pid > 0 {
		b, err := os.ReadFile(h.ProcPath(strconv.Itoa(pid), "comm"))
		if err != nil {
			return nil, usageErr(finding.T("--pid %d: no such process", "--pid %d：没有这个进程"), pid)
		}
		return &runfolder.Target{PID: pid, Comm: strings.TrimSpace(string(b)), How: "pid"}, nil
	}
	if !jvmAuto {
		return nil, nil
	}
	if !facts.JVMs.OK || len(facts.JVMs.Value) == 0 {
		return nil, finding.Errorf(finding.T("--jvm auto: no running JVM found (give --pid)", "--jvm auto：没有找到正在运行的 JVM（请用 --pid）"))
	}
	jvms := append([]sysinfo.JVM(nil), facts.JVMs.Value...)
	sort.SliceStable(jvms, func(i, j int) bool { return jvms[i].RSSKB > jvms[j].RSSKB })
	j := jvms[0]
	comm := "java"
	if j.MainClass != "" {
		comm = "java " + j.MainClass
	}
	return &runfolder.Target{PID: j.PID, Comm: comm, How: "jvm-auto"}, nil
}
