package attach

// What attach needs to know about a process, from /proc/PID. Samples:
//
//	/proc/PID/status:  Uid:	65534	65534	65534	65534   (sample.ParseStatus)
//	                   NSpid:	18657	1
//	                   SigCgt:	2000000101005ccd
//	/proc/PID/maps:    7f3c2a000000-7f3c2b1e0000 r-xp 00000000 08:01 1312 /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so
//	                   7f3c48a00000-7f3c48a08000 rw-s 00000000 08:01 4411 /tmp/hsperfdata_root/17023

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/sample"
)

// procInfo is the part of /proc/PID that decides how to attach.
type procInfo struct {
	PID, NSPID int
	UID, GID   int  // effective, as seen from this process's user namespace
	Zombie     bool // exited, not yet reaped
	Stopped    bool // state T or t: stopped by a signal or a tracer; it answers nothing until SIGCONT
	CatchQuit  bool // SIGQUIT is caught (the JVM's handler is installed)
	// From maps: the JVM library and the hsperfdata file, as the target sees them.
	LibJVM   string
	OpenJ9   bool
	PerfData string
	Args     []string // cmdline
}

func procPath(pid int, name string) string { return "/proc/" + strconv.Itoa(pid) + "/" + name }

// readStatus reads /proc/PID/status; ENOENT means no such process.
func readStatus(pid int) (procInfo, error) {
	p := procInfo{PID: pid, NSPID: pid, UID: -1, GID: -1}
	b, err := os.ReadFile(procPath(pid, "status"))
	if err != nil {
		return p, err
	}
	if err := parseStatus(b, &p); err != nil {
		return p, fmt.Errorf("%s: %w", procPath(pid, "status"), err)
	}
	return p, nil
}

// parseStatus fills the fields of p that /proc/PID/status holds
// (sample.ParseStatus): the effective ids are required; a bad State, NSpid
// or SigCgt line leaves its default.
func parseStatus(b []byte, p *procInfo) error {
	const ids = sample.FieldUid | sample.FieldGid
	var st sample.ProcStatus
	err := st.Parse(b, ids|sample.FieldState|sample.FieldNSpid|sample.FieldSigCgt)
	if st.Has&ids != ids || st.UID[1] < 0 || st.GID[1] < 0 {
		if err != nil {
			return err
		}
		return errors.New("no Uid/Gid lines with an effective id")
	}
	p.UID, p.GID = st.UID[1], st.GID[1] // real, effective, saved, fs
	if st.Has&sample.FieldState != 0 {
		p.Zombie = st.State == 'Z' || st.State == 'X'
		p.Stopped = st.State == 'T' || st.State == 't'
	}
	if st.Has&sample.FieldNSpid != 0 {
		p.NSPID = st.NSpid[len(st.NSpid)-1]
	}
	if st.Has&sample.FieldSigCgt != 0 {
		p.CatchQuit = st.SigCgt&(1<<(uint(syscall.SIGQUIT)-1)) != 0
	}
	return nil
}

// parseMaps finds libjvm.so (or OpenJ9's libj9vm) and the hsperfdata file
// in /proc/PID/maps.
func parseMaps(b []byte, p *procInfo) {
	for line := range bytes.Lines(b) {
		i := bytes.IndexByte(line, '/')
		if i < 0 {
			continue
		}
		path := string(bytes.TrimRight(line[i:], "\n"))
		path = strings.TrimSuffix(path, " (deleted)")
		base := path[strings.LastIndexByte(path, '/')+1:]
		switch {
		case base == "libjvm.so":
			p.LibJVM = path
		case strings.HasPrefix(base, "libj9vm"):
			p.OpenJ9 = true
		case p.PerfData == "" && strings.Contains(path, "/hsperfdata_"):
			p.PerfData = path
		}
	}
}

// stopped reports whether pid is in state T or t now (stopped while we wait).
func stopped(pid int) bool {
	p, err := readStatus(pid)
	return err == nil && p.Stopped
}

// exited reports whether pid is gone or a zombie (exited, not yet reaped).
func exited(pid int) bool {
	p, err := readStatus(pid)
	return err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)) || err == nil && p.Zombie
}

// exitedWithin is exited, waited for up to d: a JVM killed while it answers
// closes its sockets before its state turns Z, so a connection cut without
// a reply, or a /proc file refused, is seen a moment before the exit is.
func exitedWithin(pid int, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		if exited(pid) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readProc reads status, maps and cmdline; errors are typed.
func readProc(pid int) (procInfo, error) {
	if pid <= 0 {
		return procInfo{}, errNoProcess(pid, fmt.Errorf("pid must be positive"))
	}
	p, err := readStatus(pid)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return p, errNoProcess(pid, nil)
		}
		return p, err
	}
	if p.Zombie {
		return p, errNoProcess(pid, errors.New("the process has exited (zombie)"))
	}
	if p.Stopped {
		return p, errStopped(pid)
	}
	if cl, err := os.ReadFile(procPath(pid, "cmdline")); err == nil {
		p.Args = strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
	}
	me := os.Geteuid()
	b, err := os.ReadFile(procPath(pid, "maps"))
	switch {
	case err == nil:
		parseMaps(b, &p)
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH):
		return p, errNoProcess(pid, nil)
	case errors.Is(err, fs.ErrPermission) || (me != 0 && me != p.UID):
		return p, errPermission(pid, userName(p.UID), err)
	default:
		return p, err
	}
	return p, nil
}

// userName is the name of uid in this host's user database, else the number.
func userName(uid int) string {
	if uid < 0 {
		return "?"
	}
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return strconv.Itoa(uid)
}

// sameNamespace reports whether pid shares this process's namespace of the
// given kind ("user", "mnt", "pid"); unknown counts as different.
func sameNamespace(pid int, kind string) bool {
	same, known := nsCompare(pid, kind)
	return same && known
}

// otherNamespace reports whether pid is known to be in another namespace.
func otherNamespace(pid int, kind string) bool {
	same, known := nsCompare(pid, kind)
	return known && !same
}

func nsCompare(pid int, kind string) (same, known bool) {
	a, err1 := os.Readlink("/proc/self/ns/" + kind)
	b, err2 := os.Readlink(procPath(pid, "ns/"+kind))
	if err1 != nil || err2 != nil {
		return false, false
	}
	return a == b, true
}

// readEnviron returns the JVM option variables of the target's environment.
func readEnviron(pid int) []string {
	b, err := os.ReadFile(procPath(pid, "environ"))
	if err != nil {
		return nil
	}
	var out []string
	for _, kv := range strings.Split(string(b), "\x00") {
		for _, k := range []string{"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", "_JAVA_OPTIONS="} {
			if v, ok := strings.CutPrefix(kv, k); ok {
				out = append(out, strings.Fields(v)...)
			}
		}
	}
	return out
}

// lastBoolFlag reports the last -XX:+Name / -XX:-Name among args.
func lastBoolFlag(args []string, name string) (val, set bool) {
	for _, a := range args {
		switch a {
		case "-XX:+" + name:
			val, set = true, true
		case "-XX:-" + name:
			val, set = false, true
		}
	}
	return val, set
}

func hasArg(args []string, s string) bool {
	for _, a := range args {
		if a == s {
			return true
		}
	}
	return false
}

// CheckRunnable says at once why pid cannot be attached to or answer
// anything: it does not exist or has exited, or it is stopped (state T: a
// stopped JVM answers nothing, so waiting for it only runs out a timeout).
// nil when it runs.
func CheckRunnable(pid int) error {
	p, err := readStatus(pid)
	switch {
	case err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)):
		return errNoProcess(pid, nil)
	case err != nil:
		return nil // unreadable here: the attach says why, if it must
	case p.Zombie:
		return errNoProcess(pid, errors.New("the process has exited (zombie)"))
	case p.Stopped:
		return errStopped(pid)
	}
	return nil
}
