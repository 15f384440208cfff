// Package hostfs reads /proc, /sys and /etc under configurable roots, so
// every reader in tuneloop runs unchanged against the live host or against a
// captured fixture tree (testdata/hosts/NAME/{proc,sys,etc}).
//
// It does no parsing: callers get bytes or trimmed strings and a path to cite
// as evidence. Errors keep the path and say whether the file is missing or
// unreadable, so a rule can report "unavailable" with a reason.
package hostfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// MaxFileSize bounds what one read returns: pseudo-files are small, and a
// fixture tree with a huge or endless file must not exhaust memory.
const MaxFileSize = 8 << 20

// FS is a host's pseudo-filesystems rooted at configurable directories.
type FS struct {
	Proc string // default /proc
	Sys  string // default /sys
	Etc  string // default /etc
}

// Live returns the running host's roots.
func Live() FS { return FS{Proc: "/proc", Sys: "/sys", Etc: "/etc"} }

// Under returns the roots of a captured tree: DIR/proc, DIR/sys, DIR/etc.
func Under(dir string) FS {
	return FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Etc: filepath.Join(dir, "etc")}
}

// IsLive reports whether the roots are the real ones, which is when
// process-level facts (our own cgroup, running daemons) are meaningful.
func (h FS) IsLive() bool { return h.Proc == "/proc" }

// ProcPath joins elements under the proc root.
func (h FS) ProcPath(elem ...string) string {
	return filepath.Join(append([]string{h.Proc}, elem...)...)
}

// SysPath joins elements under the sys root.
func (h FS) SysPath(elem ...string) string { return filepath.Join(append([]string{h.Sys}, elem...)...) }

// EtcPath joins elements under the etc root.
func (h FS) EtcPath(elem ...string) string { return filepath.Join(append([]string{h.Etc}, elem...)...) }

// Display turns a path under a root back into the host path a user knows
// (/proc/..., /sys/..., /etc/...), for evidence and messages.
func (h FS) Display(p string) string {
	for _, r := range []struct{ root, host string }{{h.Proc, "/proc"}, {h.Sys, "/sys"}, {h.Etc, "/etc"}} {
		if r.root == "" {
			continue
		}
		if p == r.root {
			return r.host
		}
		if rel, ok := strings.CutPrefix(p, r.root+string(filepath.Separator)); ok {
			return r.host + "/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// Error is a failed read of one host file.
type Error struct {
	Path string // host path as the user knows it (/proc/...)
	Err  error
}

// hostfs's own words for the two failures any read can meet.
var (
	notPresent   = finding.T("not present", "不存在")
	noPermission = finding.T("permission denied", "权限不够")
)

func (e *Error) Error() string { return e.Localize(finding.EN) }

func (e *Error) Unwrap() error { return e.Err }

// Localize says the error in l: hostfs's own words, the system's as
// finding.Localize has them.
func (e *Error) Localize(l finding.Lang) string {
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		return e.Path + ": " + notPresent.In(l)
	case errors.Is(e.Err, fs.ErrPermission):
		return e.Path + ": " + noPermission.In(l)
	}
	return e.Path + ": " + finding.Localize(e.Err, l)
}

// LocalizeText says hostfs's fixed words in a message saved as text (a
// Field's error from before it kept its Chinese) in l.
func LocalizeText(msg string, l finding.Lang) string {
	if l != finding.ZH {
		return msg
	}
	return zhWords.Replace(msg)
}

var zhWords = strings.NewReplacer(": "+notPresent.EN, ": "+notPresent.ZH, ": "+noPermission.EN, ": "+noPermission.ZH)

// ReadFile reads a whole file of at most MaxFileSize bytes. It reads until
// EOF rather than trusting the size, which is 0 or 4096 for /proc and /sys.
func (h FS) ReadFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, &Error{Path: h.Display(p), Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		return nil, &Error{Path: h.Display(p), Err: finding.Errorf(finding.T("is a directory", "是一个目录"))}
	}
	buf, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return buf, &Error{Path: h.Display(p), Err: err}
	}
	if len(buf) > MaxFileSize {
		return nil, &Error{Path: h.Display(p), Err: finding.Errorf(finding.T("larger than %d bytes", "大于 %d 字节"), MaxFileSize)}
	}
	return buf, nil
}

// ReadString reads a file and trims surrounding white space.
func (h FS) ReadString(p string) (string, error) {
	b, err := h.ReadFile(p)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadInt reads a file holding one integer.
func (h FS) ReadInt(p string) (int64, error) {
	s, err := h.ReadString(p)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &Error{Path: h.Display(p), Err: finding.Errorf(finding.T("not an integer: %q", "不是整数：%q"), finding.Clip(s, 40))}
	}
	return v, nil
}

// ReadLink reads a symlink target (drivers, devices, /proc/PID/exe).
func (h FS) ReadLink(p string) (string, error) {
	t, err := os.Readlink(p)
	if err != nil {
		return "", &Error{Path: h.Display(p), Err: err}
	}
	return t, nil
}

// ReadDir lists directory entry names, sorted.
func (h FS) ReadDir(p string) ([]string, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, &Error{Path: h.Display(p), Err: err}
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, nil
}

// Exists reports whether p exists (a broken link counts as existing).
func (h FS) Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
