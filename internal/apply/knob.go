package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/units"
)

// KindFile is a whole file tuneloop owns (the sysctl.d persistence file):
// created or replaced atomically, removed again on revert when it was absent.
const KindFile = "file"

// knob is one value on the host: read it, write it.
type knob interface {
	// read returns the current value; absent is true for a file that does
	// not exist (only KindFile may be absent and still be a knob).
	read() (v string, absent bool, err error)
	// write sets v; absent removes the file (KindFile only).
	write(v string, absent bool) error
}

// target is a resolved knob: the key as the user knows it and where it lives.
type target struct {
	Kind string
	Key  string // host name: net.core.somaxconn, /sys/..., 1234/nofile, eth0/combined
	Path string // the file under the configured root ("" for prlimit, ethtool)
	PID  int
	// PIDStart is the process start time (/proc/PID/stat field 22), so a
	// reused PID is never mistaken for the process we changed.
	PIDStart uint64
}

// resolve turns a Change into targets under the roots: a glob expands to
// one target per file.
func resolve(h hostfs.FS, c finding.Change) ([]target, error) {
	switch c.Kind {
	case finding.ChangeSysctl:
		if c.Key == "" || strings.ContainsAny(c.Key, "*?[") || strings.Contains(c.Key, "..") {
			return nil, fmt.Errorf("bad sysctl name %q", c.Key)
		}
		p := h.ProcPath("sys", strings.ReplaceAll(c.Key, ".", "/"))
		return []target{{Kind: c.Kind, Key: c.Key, Path: p}}, nil
	case finding.ChangeSysfs:
		// Device and kernel attributes only: not /proc/sysrq-trigger, not
		// a process's files, not /etc (a crafted check.json names any path).
		if !strings.HasPrefix(c.Key, "/sys/") && !strings.HasPrefix(c.Key, "/proc/sys/") && !strings.HasPrefix(c.Key, "/proc/irq/") {
			return nil, fmt.Errorf("%q: not a /sys, /proc/sys or /proc/irq attribute", c.Key)
		}
		p, err := hostPath(h, c.Key)
		if err != nil {
			return nil, err
		}
		if !strings.ContainsAny(c.Key, "*?[") {
			return []target{{Kind: c.Kind, Key: c.Key, Path: p}}, nil
		}
		ms, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Key, err)
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("%s: no such file", c.Key)
		}
		sort.Strings(ms)
		out := make([]target, len(ms))
		for i, m := range ms {
			out[i] = target{Kind: c.Kind, Key: h.Display(m), Path: m}
		}
		return out, nil
	case finding.ChangePrlimit:
		pid, res, ok := strings.Cut(c.Key, "/")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("bad process limit %q (want PID/resource)", c.Key)
		}
		if _, ok := rlimit(res); !ok {
			return nil, fmt.Errorf("unknown resource %q (want nofile or nproc)", res)
		}
		if !h.IsLive() {
			// prlimit(2) reaches this host's processes, never a captured tree's.
			return nil, fmt.Errorf("process limits of pid %d: need the live host, not a captured tree", n)
		}
		st, err := startTime(h, n)
		if err != nil {
			return nil, err
		}
		return []target{{Kind: c.Kind, Key: c.Key, PID: n, PIDStart: st}}, nil
	case finding.ChangeEthtool:
		ifc, param, ok := strings.Cut(c.Key, "/")
		if !ok || ifc == "" || len(ifc) >= unix.IFNAMSIZ {
			return nil, fmt.Errorf("bad NIC setting %q (want IFACE/param)", c.Key)
		}
		if param != "combined" {
			return nil, fmt.Errorf("ethtool %s: not supported yet (only combined channels, ethtool -L)", param)
		}
		if !h.IsLive() {
			return nil, fmt.Errorf("ethtool %s: needs the live host, not a captured tree", c.Key)
		}
		return []target{{Kind: c.Kind, Key: c.Key}}, nil
	case KindDropin:
		return resolveDropin(h, c)
	case KindFile:
		if c.Key != PersistFile {
			return nil, fmt.Errorf("%q: tuneloop writes no file but %s", c.Key, PersistFile)
		}
		p, err := hostPath(h, c.Key)
		if err != nil {
			return nil, err
		}
		return []target{{Kind: c.Kind, Key: c.Key, Path: p}}, nil
	}
	return nil, fmt.Errorf("unknown kind %q", c.Kind)
}

// hostPath maps an absolute /sys, /proc or /etc path under the roots; any
// other path, or one climbing out with "..", is refused.
func hostPath(h hostfs.FS, key string) (string, error) {
	if strings.Contains(key, "..") || !strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("%q: not an absolute path under /sys, /proc or /etc", key)
	}
	for _, r := range []struct{ host, root string }{{"/sys/", h.Sys}, {"/proc/", h.Proc}, {"/etc/", h.Etc}} {
		if rest, ok := strings.CutPrefix(key, r.host); ok && r.root != "" {
			return filepath.Join(r.root, rest), nil
		}
	}
	return "", fmt.Errorf("%q: not under /sys, /proc or /etc", key)
}

// knobOf builds the reader/writer of a target.
func knobOf(t target, roots hostfs.FS) knob {
	switch t.Kind {
	case finding.ChangePrlimit:
		_, res, _ := strings.Cut(t.Key, "/")
		r, _ := rlimit(res)
		return prlimitKnob{pid: t.PID, start: t.PIDStart, res: r, root: roots.Proc}
	case finding.ChangeEthtool:
		ifc, _, _ := strings.Cut(t.Key, "/")
		return ethtoolKnob{ifc: ifc}
	case KindFile, KindDropin:
		return fileKnob{path: t.Path}
	}
	return pseudoFile{path: t.Path}
}

// pseudoFile is a /proc/sys or /sys attribute: written in place (never
// created: a missing knob is an error, as on the real host).
type pseudoFile struct{ path string }

func (p pseudoFile) read() (string, bool, error) {
	b, err := os.ReadFile(p.path)
	if err != nil {
		return "", false, err
	}
	return strings.TrimRight(string(b), "\n"), false, nil
}

func (p pseudoFile) write(v string, _ bool) error {
	f, err := os.OpenFile(p.path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	// One write(2) with the newline, as `echo v > file` does: the kernel
	// parses a sysfs store in one call.
	_, err = f.Write([]byte(v + "\n"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fileKnob is a regular file tuneloop owns: replaced atomically (temporary
// file, fsync, rename, fsync of the directory) or removed.
type fileKnob struct{ path string }

func (k fileKnob) read() (string, bool, error) {
	b, err := os.ReadFile(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", true, nil
	}
	return string(b), false, err
}

func (k fileKnob) write(v string, absent bool) error {
	dir := filepath.Dir(k.path)
	if absent {
		if err := os.Remove(k.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return syncDir(dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := k.path + ".tuneloop-tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(v)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, k.path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// rlimit is the resource number of a process limit a finding may change.
func rlimit(name string) (int, bool) {
	switch name {
	case "nofile":
		return unix.RLIMIT_NOFILE, true
	case "nproc":
		return unix.RLIMIT_NPROC, true
	}
	return 0, false
}

// prlimitKnob is a running process's limit, "soft:hard" ("unlimited" for
// RLIM_INFINITY), set with prlimit(2) as `prlimit --pid` does.
type prlimitKnob struct {
	pid   int
	start uint64
	res   int
	root  string
}

func (k prlimitKnob) same() error {
	st, err := startTime(hostfs.FS{Proc: k.root}, k.pid)
	if err != nil {
		return err
	}
	if st != k.start {
		return fmt.Errorf("pid %d is another process now (it was restarted)", k.pid)
	}
	return nil
}

func (k prlimitKnob) read() (string, bool, error) {
	if err := k.same(); err != nil {
		return "", false, err
	}
	var l unix.Rlimit
	if err := unix.Prlimit(k.pid, k.res, nil, &l); err != nil {
		return "", false, fmt.Errorf("prlimit pid %d: %w", k.pid, err)
	}
	return units.FormatRlimit(l.Cur) + ":" + units.FormatRlimit(l.Max), false, nil
}

func (k prlimitKnob) write(v string, _ bool) error {
	if err := k.same(); err != nil {
		return err
	}
	l, err := parseLimits(v)
	if err != nil {
		return err
	}
	if err := unix.Prlimit(k.pid, k.res, &l, nil); err != nil {
		return fmt.Errorf("prlimit pid %d: %w", k.pid, err)
	}
	return nil
}

// parseLimits reads "soft:hard" or "n" (both) as units.ParseRlimit does.
func parseLimits(v string) (unix.Rlimit, error) {
	soft, hard, err := units.ParseRlimit(v)
	if err != nil {
		return unix.Rlimit{}, err
	}
	return unix.Rlimit{Cur: soft, Max: hard}, nil
}

// startTime is field 22 of /proc/PID/stat, read by sample.ParsePidStat:
// with the pid it names one process across pid reuse.
func startTime(h hostfs.FS, pid int) (uint64, error) {
	b, err := os.ReadFile(h.ProcPath(strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("pid %d: %w", pid, err)
	}
	st, err := sample.ParsePidStat(b)
	if err != nil {
		return 0, fmt.Errorf("pid %d: %w", pid, err)
	}
	return st.Start, nil
}

// normalize is the value as compared: a bracketed choice ("always [madvise]
// never") is the choice; CPU masks lose commas and leading zeros; CPU lists
// are expanded; whitespace runs (tcp_rmem's tabs) become one space.
func normalize(key, v string) string {
	if isDropin(key) {
		return contentHash(v)
	}
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '['); i >= 0 {
		if j := strings.IndexByte(v[i:], ']'); j > 0 {
			return v[i+1 : i+j]
		}
	}
	switch {
	case strings.HasSuffix(key, "/rps_cpus") || strings.HasSuffix(key, "/smp_affinity") || strings.HasSuffix(key, "/xps_cpus"):
		m := strings.TrimLeft(strings.ToLower(strings.ReplaceAll(v, ",", "")), "0")
		if m == "" {
			m = "0"
		}
		return m
	case strings.HasSuffix(key, "_list"):
		if l, ok := expandList(v); ok {
			return l
		}
	}
	return strings.Join(strings.Fields(v), " ")
}

// expandList turns "0-2,5" into "0,1,2,5".
func expandList(v string) (string, bool) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		a, b, rng := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil {
			return "", false
		}
		hi := lo
		if rng {
			if hi, err = strconv.Atoi(b); err != nil || hi < lo || hi-lo > 1<<16 {
				return "", false
			}
		}
		for i := lo; i <= hi; i++ {
			out = append(out, strconv.Itoa(i))
		}
	}
	return strings.Join(out, ","), true
}

// restoreValue is what to write to put back a value read before: the
// choice of a bracketed list, else the value as read.
func restoreValue(key, before string) string {
	if strings.IndexByte(before, '[') >= 0 && !isDropin(key) {
		return normalize(key, before)
	}
	return before
}

// partner is the other half of a coupled sysctl, "" when none: writing one
// of vm.dirty_bytes / vm.dirty_ratio makes the kernel zero the other, and
// the bytes forms refuse 0 (EINVAL), so a pair goes as a group, zero first.
func partner(key string) string {
	switch key {
	case "vm.dirty_bytes":
		return "vm.dirty_ratio"
	case "vm.dirty_ratio":
		return "vm.dirty_bytes"
	case "vm.dirty_background_bytes":
		return "vm.dirty_background_ratio"
	case "vm.dirty_background_ratio":
		return "vm.dirty_background_bytes"
	}
	return ""
}
