package sysinfo

// JVM discovery: every /proc/PID whose argv[0] or exe is "java":
//
//	/proc/4321/cmdline: /usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java\0-Xmx4g\0-jar\0app.jar\0
//	/proc/4321/exe -> /usr/lib/jvm/bisheng-jdk1.8.0_342/jre/bin/java
//	$JAVA_HOME/release: JAVA_VERSION="1.8.0_342"
//	                    IMPLEMENTOR="Huawei Technologies Co., Ltd"

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/sample"
)

// javaHomeOf strips /bin/java and a JDK 8 /jre from the java binary path.
func javaHomeOf(exe string) string {
	if !strings.HasPrefix(exe, "/") || filepath.Base(exe) != "java" {
		return ""
	}
	d := filepath.Dir(filepath.Clean(exe))
	if filepath.Base(d) != "bin" {
		return ""
	}
	d = filepath.Dir(d)
	if filepath.Base(d) == "jre" {
		d = filepath.Dir(d)
	}
	return d
}

var javaPathVersions = []*regexp.Regexp{
	// jdk1.8.0_292, bisheng-jdk1.8.0_342, jre1.8.0_301
	regexp.MustCompile(`(?:jdk|jre)(1\.[0-9]+\.[0-9]+(?:_[0-9]+)?)`),
	// java-17-openjdk-amd64, java-1.8.0-openjdk-1.8.0.392..., java-11-openjdk-11.0.21.0.9-2.el8
	regexp.MustCompile(`java-(1\.[0-9]+\.[0-9]+|[0-9]+)(?:\.[0-9.]+)?-openjdk`),
	// jdk-21.0.2, bisheng-jdk-17.0.9, openjdk-11.0.2, zulu17.44.53-ca-jdk17.0.8.1
	regexp.MustCompile(`(?:jdk|jre)-?([0-9]+(?:\.[0-9]+)*)`),
}

// javaVersionFromPath guesses the version from a JAVA_HOME path.
func javaVersionFromPath(p string) string {
	base := strings.ToLower(filepath.Base(p))
	for _, s := range []string{base, strings.ToLower(p)} {
		for _, re := range javaPathVersions {
			if m := re.FindStringSubmatch(s); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// mainClass finds the main class, "-jar" file or "-m" module of a java
// command line (argv[0] included).
func mainClass(args []string) string {
	takesValue := map[string]bool{
		"-cp": true, "-classpath": true, "--class-path": true, "-p": true, "--module-path": true,
		"--add-modules": true, "--add-opens": true, "--add-exports": true, "--add-reads": true,
		"--patch-module": true, "--limit-modules": true, "--upgrade-module-path": true,
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar" || a == "-m" || a == "--module":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "--module="):
			return strings.TrimPrefix(a, "--module=")
		case takesValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

func isJava(args []string, exe string) bool {
	if len(args) > 0 && filepath.Base(args[0]) == "java" {
		return true
	}
	return exe != "" && filepath.Base(exe) == "java"
}

func collectJVMs(h hostfs.FS, ps procScan) Field[[]JVM] {
	if ps.err != nil {
		return Missing[[]JVM](ps.err)
	}
	var users map[int]string
	if s, err := h.ReadString(h.EtcPath("passwd")); err == nil {
		users, _ = parsePasswd(s)
	}
	var view *cgroupView
	if mi, err := h.ReadString(h.ProcPath("self/mountinfo")); err == nil {
		if mounts, err := parseMountinfo(mi); err == nil {
			view = &cgroupView{h: h, mounts: mounts}
		}
	}
	root := filepath.Dir(h.Proc) // JAVA_HOME is a host path: under the tree's root
	jvms := []JVM{}
	var firstErr error
	for _, p := range ps.procs {
		pid := strconv.Itoa(p.pid)
		b, err := h.ReadFile(h.ProcPath(pid, "cmdline"))
		if err != nil {
			continue
		}
		args, err := splitCmdline(b)
		if err != nil {
			continue
		}
		exe, _ := h.ReadLink(h.ProcPath(pid, "exe"))
		exe = strings.TrimSuffix(exe, " (deleted)")
		if !isJava(args, exe) {
			continue
		}
		if p.status == nil {
			// A JVM is only reported with its status (threads, RSS, CPUs).
			if firstErr == nil {
				firstErr = finding.Errorf(finding.T("%s: not present", "%s: 不存在"), h.Display(h.ProcPath(pid, "status")))
			}
			continue
		}
		jvms = append(jvms, readJVM(h, p, args, exe, users, view, root))
	}
	if len(jvms) == 0 && firstErr != nil {
		return Missing[[]JVM](firstErr)
	}
	return Got(jvms, h.Display(h.ProcPath("[0-9]*/cmdline")))
}

func readJVM(h hostfs.FS, p proc, args []string, exe string, users map[int]string, view *cgroupView, root string) JVM {
	ps := strconv.Itoa(p.pid)
	st := p.status
	j := JVM{PID: p.pid, UID: -1, Exe: exe, Args: args, MainClass: mainClass(args), OpenFDs: -1}
	bin := exe
	if bin == "" && len(args) > 0 && strings.HasPrefix(args[0], "/") {
		// No permission for exe: follow argv[0] (often /usr/bin/java via
		// alternatives) inside the tree being read.
		bin = args[0]
		if real, err := filepath.EvalSymlinks(filepath.Join(root, bin)); err == nil {
			if rel, err := filepath.Rel(root, real); err == nil && !strings.HasPrefix(rel, "..") {
				bin = "/" + filepath.ToSlash(rel)
			}
		}
	}
	j.JavaHome = javaHomeOf(bin)
	if j.JavaHome != "" {
		// /proc/PID/root first: a JVM in a container sees its own filesystem.
		for _, r := range []string{h.ProcPath(ps, "root"), root} {
			s, err := h.ReadString(filepath.Join(r, j.JavaHome, "release"))
			if err != nil {
				continue
			}
			if kv, err := parseKeyValues(s); err == nil {
				j.Version, j.Vendor = kv["JAVA_VERSION"], kv["IMPLEMENTOR"]
				if j.Version != "" {
					j.VersionFrom = string(jvmopts.SourceRelease)
				}
				break
			}
		}
		if j.Version == "" {
			j.Version = javaVersionFromPath(j.JavaHome)
			if j.Version != "" {
				j.VersionFrom = string(jvmopts.SourcePath)
			}
		}
		if j.Vendor == "" && strings.Contains(strings.ToLower(j.JavaHome), "bisheng") {
			j.Vendor = "Huawei" // Bisheng JDK, from the path
		}
	}
	j.UID, j.Threads, j.RSSKB = st.UID, st.Threads, st.RSSKB
	j.CPUsAllowed, j.MemsAllowed = st.CPUsAllowed, st.MemsAllowed
	if j.UID >= 0 {
		j.User = strconv.Itoa(j.UID)
		if n, ok := users[j.UID]; ok {
			j.User = n
		}
	}
	if s, err := h.ReadString(h.ProcPath(ps, "limits")); err == nil {
		j.Limits, _ = sample.ParseLimits([]byte(s)) // the rows read are kept
	}
	if fds, err := h.ReadDir(h.ProcPath(ps, "fd")); err == nil {
		j.OpenFDs = len(fds)
	}
	if view != nil {
		if s, err := h.ReadString(h.ProcPath(ps, "cgroup")); err == nil {
			if lines, err := parseProcCgroup(s); err == nil {
				if q, _ := view.cpuQuota(lines); q.OK {
					j.CPUQuota = q.Value
				}
				if m := view.memoryLimit(lines); m.OK {
					j.MemoryLimit = m.Value
				}
			}
		}
	}
	// Options in the environment count as much as the command line's
	// (JDK_JAVA_OPTIONS=-Xms64m java -Xmx64m ... has an -Xms).
	var env map[string]string
	if b, err := h.ReadFile(h.ProcPath(ps, "environ")); err == nil {
		env = javaOptionsEnv(b)
	}
	j.Options = jvmopts.ParseWithEnv(args, env, jvmopts.MajorVersion(j.Version))
	return j
}

// javaOptionsEnv picks the JVM option variables (jvmopts.EnvVars) out of a
// NUL-separated /proc/PID/environ.
func javaOptionsEnv(b []byte) map[string]string {
	var env map[string]string
	for _, kv := range strings.Split(string(b), "\x00") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || checkText(v) != nil {
			continue
		}
		for _, name := range jvmopts.EnvVars {
			if k == name {
				if env == nil {
					env = map[string]string{}
				}
				env[k] = v
			}
		}
	}
	return env
}
