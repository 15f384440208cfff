// Package jmeter drives Apache JMeter as tuneloop's load engine: it finds
// an installation, starts JMeter in non-GUI mode (alone, or as the
// controller of running jmeter-server engines, -R) in a process group of its
// own, follows the JTL as JMeter writes it into the same summary and
// per-second detail tuneloop's own generator produces, measures the
// engines' CPU where they run on this host (/proc), and stops JMeter
// cleanly: its UDP "Shutdown" message, then "StopTestNow", then signals to
// its process group.
//
// A plan run under `tuneloop run` is first rewritten (ForRun): every
// standard thread group loops until the run's time is up, with the run's
// users when they were given, so the run, not the plan, bounds the load.
package jmeter

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Install is a JMeter installation: the launcher jar run with a java.
type Install struct {
	Home string // JMETER_HOME: bin/ApacheJMeter.jar is under it
	Jar  string
	Java string
	// JVMArgs are $JVM_ARGS, as the jmeter script takes them (-Xmx...),
	// put before -jar.
	JVMArgs []string
}

// jarIn is the launcher of a JMETER_HOME, when it is there.
func jarIn(home string) (string, bool) {
	jar := filepath.Join(home, "bin", "ApacheJMeter.jar")
	st, err := os.Stat(jar)
	return jar, err == nil && st.Mode().IsRegular()
}

// Find locates JMeter: explicit (--jmeter: a JMETER_HOME, its
// bin/ApacheJMeter.jar, or its bin/jmeter script), else $JMETER_HOME,
// else a jmeter script on PATH (symbolic links followed to its bin/).
// The java is $JAVA_HOME/bin/java, else java on PATH; $JVM_ARGS are its
// options, as for the jmeter script.
func Find(explicit string, getenv func(string) string) (*Install, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var tried []string
	try := func(p string) (string, bool) {
		if p == "" {
			return "", false
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		tried = append(tried, p)
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return "", false
		case st.IsDir():
			if _, ok := jarIn(p); ok {
				return p, true
			}
		case strings.HasSuffix(p, ".jar"):
			home := filepath.Dir(filepath.Dir(p))
			if jar, ok := jarIn(home); ok && sameFile(jar, p) {
				return home, true
			}
		default: // a script in bin/
			if _, ok := jarIn(filepath.Dir(filepath.Dir(p))); ok {
				return filepath.Dir(filepath.Dir(p)), true
			}
		}
		return "", false
	}
	var home string
	var ok bool
	switch {
	case explicit != "":
		if home, ok = try(explicit); !ok {
			return nil, finding.Errorf(finding.T("--jmeter %s: not a JMeter installation (no bin/ApacheJMeter.jar found from it)",
				"--jmeter %s：不是 JMeter 安装目录（从它找不到 bin/ApacheJMeter.jar）"), explicit)
		}
	default:
		if home, ok = try(getenv("JMETER_HOME")); !ok {
			if p, err := exec.LookPath("jmeter"); err == nil {
				home, ok = try(p)
			}
		}
		if !ok {
			where := "JMETER_HOME unset, no jmeter on PATH"
			if len(tried) > 0 {
				where = strings.Join(tried, ", ")
			}
			return nil, finding.Errorf(finding.T("JMeter not found (%s): install it, set JMETER_HOME, or give --jmeter PATH",
				"找不到 JMeter（%s）：请安装它、设置 JMETER_HOME，或用 --jmeter PATH 指定"), where)
		}
	}
	jar, _ := jarIn(home)
	java := ""
	if jh := getenv("JAVA_HOME"); jh != "" {
		if p := filepath.Join(jh, "bin", "java"); isExec(p) {
			java = p
		}
	}
	if java == "" {
		p, err := exec.LookPath("java")
		if err != nil {
			return nil, finding.Errorf(finding.T("JMeter %s needs a java: none in JAVA_HOME or on PATH", "JMeter %s 需要 java：JAVA_HOME 和 PATH 中都没有"), home)
		}
		java = p
	}
	return &Install{Home: home, Jar: jar, Java: java, JVMArgs: strings.Fields(getenv("JVM_ARGS"))}, nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// RemoteSpec is one engine of --jmeter-remote: host:port, and the
// JMETER_HOME to start it from when tuneloop starts it over SSH.
type RemoteSpec struct {
	Addr string // host:port
	Host string
	Home string // "" = $JMETER_HOME there, else jmeter on its PATH
}

// ParseRemote splits --jmeter-remote's list (host:port,host:port); a host
// without a port gets JMeter's default server port, 1099.
func ParseRemote(list string) ([]string, error) {
	specs, err := ParseRemoteSpecs(list)
	var out []string
	for _, s := range specs {
		out = append(out, s.Addr)
	}
	return out, err
}

// ParseRemoteSpecs reads host[:port][=JMETER_HOME],...
func ParseRemoteSpecs(list string) ([]RemoteSpec, error) {
	var out []RemoteSpec
	for _, h := range strings.Split(list, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		h, home, _ := strings.Cut(h, "=")
		if home = strings.TrimSpace(home); strings.ContainsAny(home, "\x00\n") || (home != "" && !strings.HasPrefix(home, "/")) {
			return nil, finding.Errorf(finding.T("--jmeter-remote %q: JMETER_HOME must be an absolute path", "--jmeter-remote %q：JMETER_HOME 必须是绝对路径"), h)
		}
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			host, port, err = net.SplitHostPort(h + ":1099")
		}
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n <= 0 || n > 65535 || host == "" || strings.ContainsAny(host, " \t/@,") {
			return nil, finding.Errorf(finding.T("--jmeter-remote %q: want host:port", "--jmeter-remote %q：格式应为 host:port"), h)
		}
		out = append(out, RemoteSpec{Addr: net.JoinHostPort(host, port), Host: host, Home: home})
	}
	if len(out) == 0 {
		return nil, finding.Errorf(finding.T("--jmeter-remote: no engine given", "--jmeter-remote：没有给出任何引擎"))
	}
	return out, nil
}
