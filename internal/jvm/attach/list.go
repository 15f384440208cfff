package attach

import (
	"bufio"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
)

// Process is a JVM found on this host.
type Process struct {
	PID   int    `json:"pid"`
	NSPID int    `json:"nspid,omitempty"` // the pid it sees, when different
	UID   int    `json:"uid"`
	User  string `json:"user"`
	// Main is the main class, -jar file or module.
	Main string `json:"main,omitempty"`
	// Version is java.version ("17.0.15"), from hsperfdata or the JDK's release file.
	Version string `json:"version,omitempty"`
	// VM is "HotSpot", "OpenJ9" or "" when its memory map could not be read.
	VM string `json:"vm,omitempty"`
	// Container is true when it runs in another pid or mount namespace.
	Container bool `json:"container,omitempty"`
	// AttachDisabled is true when it was started with -XX:+DisableAttachMechanism.
	AttachDisabled bool `json:"attach_disabled,omitempty"`
	// Listening is true when its attach listener already runs.
	Listening bool     `json:"listening,omitempty"`
	Args      []string `json:"args,omitempty"`
}

// List finds the JVMs on this host: processes that map libjvm.so or
// OpenJ9's libj9vm (all of them as root), plus, when a memory map cannot be
// read, processes whose executable is named java.
func List() ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		p, err := readStatus(pid)
		if err != nil || p.Zombie {
			continue
		}
		if cl, err := os.ReadFile(procPath(pid, "cmdline")); err == nil {
			p.Args = strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
		}
		if len(p.Args) == 0 || p.Args[0] == "" {
			continue // kernel thread
		}
		mapsOK := false
		if b, err := os.ReadFile(procPath(pid, "maps")); err == nil {
			parseMaps(b, &p)
			mapsOK = true
		}
		isJava := path.Base(p.Args[0]) == "java"
		if p.LibJVM == "" && !p.OpenJ9 && (mapsOK || !isJava) {
			continue
		}
		out = append(out, describe(p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

func describe(p procInfo) Process {
	o := jvmopts.Parse(p.Args)
	jp := Process{PID: p.PID, UID: p.UID, User: userName(p.UID), Main: o.Main, Args: p.Args,
		Container: p.NSPID != p.PID || otherNamespace(p.PID, "pid") || otherNamespace(p.PID, "mnt")}
	if p.NSPID != p.PID {
		jp.NSPID = p.NSPID
	}
	switch {
	case p.LibJVM != "":
		jp.VM = "HotSpot"
	case p.OpenJ9:
		jp.VM = "OpenJ9"
	}
	if p.PerfData != "" {
		if b, err := os.ReadFile(procPath(p.PID, "root"+p.PerfData)); err == nil {
			if pd, err := parsePerfData(b); err == nil {
				jp.Version = pd["java.property.java.version"]
				if cmd := strings.Fields(pd["sun.rt.javaCommand"]); jp.Main == "" && len(cmd) > 0 {
					jp.Main = cmd[0]
				}
			}
		}
	}
	if jp.Version == "" {
		jp.Version = releaseVersion(p.PID)
	}
	if jp.VM == "HotSpot" {
		jp.AttachDisabled, _ = attachDisabled(p)
		if st, err := os.Stat(procPath(p.PID, "root/tmp/.java_pid"+strconv.Itoa(p.NSPID))); err == nil && st.Mode().Type() == os.ModeSocket {
			jp.Listening = true
		}
	}
	return jp
}

// releaseVersion reads JAVA_VERSION from the release file of the JDK the
// process runs (bin/java -> ../release, or jre/bin/java -> ../../release).
func releaseVersion(pid int) string {
	exe, err := os.Readlink(procPath(pid, "exe"))
	if err != nil {
		return ""
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	home := path.Dir(path.Dir(exe))
	for _, f := range []string{home + "/release", path.Dir(home) + "/release"} {
		fh, err := os.Open(procPath(pid, "root"+f))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "JAVA_VERSION="); ok {
				fh.Close()
				return strings.Trim(v, `"`)
			}
		}
		fh.Close()
	}
	return ""
}
