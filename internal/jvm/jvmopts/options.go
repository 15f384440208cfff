// Package jvmopts parses a HotSpot command line (from /proc/PID/cmdline, a
// start script, or pasted text) into the options tuneloop's rules reason about:
// heap sizes, the chosen collector, -XX flags, system properties, GC logging.
//
// Sample input (one argument per element):
//
//	java -server -Xms4g -Xmx4g -XX:+UseG1GC -XX:MaxGCPauseMillis=200
//	-Xloggc:/var/log/app/gc.log -Dlogback.configurationFile=/etc/app/logback.xml -jar app.jar
//	/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java -Xms2g -Xmx8g -XX:+UseParallelGC -cp /opt/app/lib/* com.bank.core.Main --port 8080
//	java -XX:MaxRAMPercentage=75.0 -XX:+UseZGC -XX:+ZGenerational -Xlog:gc*:file=/logs/gc.log:time -m app/app.Main
//	/usr/java/jdk1.8.0_181/bin/java -Xss512k -XX:ThreadStackSize=256 -XX:+UseConcMarkSweepGC -XX:+PrintGCDetails -javaagent:/opt/sw/skywalking-agent.jar Main
//
// Parsing follows the java launcher and HotSpot's Arguments::parse: options
// are read left to right, a later option overrides an earlier one, and the
// first argument that is not an option is the main class; everything after
// it (or after -jar FILE, -m MODULE) belongs to the application.
package jvmopts

import (
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/units"
)

// Options is a JVM command line understood: heap, GC, and the flags the
// rules look at.
type Options struct {
	// Launcher is argv[0] when the line started with a java executable
	// (".../bin/java", "java", "java.exe", "javaw"); "" otherwise.
	Launcher string `json:"launcher,omitempty"`

	XmsBytes int64 `json:"xms_bytes,omitempty"` // -Xms / -XX:InitialHeapSize
	XmxBytes int64 `json:"xmx_bytes,omitempty"` // -Xmx / -XX:MaxHeapSize
	// XssBytes from -Xss (bytes) or -XX:ThreadStackSize (given in KB, as
	// HotSpot reads it: -XX:ThreadStackSize=512 is 512 KiB).
	XssBytes int64 `json:"xss_bytes,omitempty"`
	XmnBytes int64 `json:"xmn_bytes,omitempty"` // -Xmn / -XX:MaxNewSize (young generation)
	// MaxRAMPercentage etc. as given; 0 when absent.
	MaxRAMPercentage     float64 `json:"max_ram_percentage,omitempty"`
	InitialRAMPercentage float64 `json:"initial_ram_percentage,omitempty"`
	// GC chosen explicitly: "Serial", "Parallel", "CMS", "G1", "Shenandoah",
	// "ZGC", "Epsilon"; "" when the JVM's ergonomic default applies (see
	// DefaultGC). Generational ZGC shows as "ZGC" with Bools["ZGenerational"].
	GC string `json:"gc,omitempty"`
	// GCConflict is true when two different collectors were enabled: HotSpot
	// refuses to start with "Conflicting collector combinations"; GC then
	// holds the last one, as if the earlier had been removed.
	GCConflict bool `json:"gc_conflict,omitempty"`
	// Bools: -XX:+Name -> true, -XX:-Name -> false.
	Bools map[string]bool `json:"bools,omitempty"`
	// Values: -XX:Name=value (raw text, including the size flags above).
	Values map[string]string `json:"values,omitempty"`
	// Props: -Dkey=value ("" for a bare -Dkey).
	Props map[string]string `json:"props,omitempty"`
	// GCLogging is true when any of -Xloggc, -Xlog:gc, -verbose:gc,
	// -XX:+PrintGC(Details) is set.
	GCLogging bool `json:"gc_logging"`
	// GCLogFile is the -Xloggc file or the file= output of a gc -Xlog; ""
	// when GC logs go to stdout or nowhere.
	GCLogFile string `json:"gc_log_file,omitempty"`
	// Agents: -javaagent / -agentlib / -agentpath arguments, as given
	// ("-javaagent:/opt/agent.jar=opts"), so the kind stays visible.
	Agents []string `json:"agents,omitempty"`
	// ClassPath from -cp / -classpath / --class-path (last wins).
	ClassPath string `json:"class_path,omitempty"`
	// Main is the main class, the -jar file, or the -m module[/class];
	// JarFile / Module say which.
	Main    string `json:"main,omitempty"`
	JarFile bool   `json:"jar_file,omitempty"`
	Module  bool   `json:"module,omitempty"`
	// AppArgs are the application's own arguments after the main class.
	AppArgs []string `json:"app_args,omitempty"`
	// Other keeps recognised options no field models (-server, -ea,
	// -Xshare:auto, --add-opens=VALUE ...), two-argument forms joined by "=".
	Other []string `json:"other,omitempty"`
	// Unparsed keeps what was not recognised, for display.
	Unparsed []string `json:"unparsed,omitempty"`
	// FromEnv lists the variables whose options were read with the command
	// line ("JAVA_TOOL_OPTIONS=-Xms64m"): see ParseWithEnv.
	FromEnv []string `json:"from_env,omitempty"`
	// JDKGiven is the release the user said the line runs on (--jdk 17);
	// 0 when not given. It wins over every other hint (see JDK).
	JDKGiven int `json:"jdk_given,omitempty"`
}

// gcFlags maps the -XX:+UseXxxGC flags to Options.GC names.
var gcFlags = map[string]string{
	"UseSerialGC":        "Serial",
	"UseParallelGC":      "Parallel",
	"UseParallelOldGC":   "Parallel",
	"UseConcMarkSweepGC": "CMS",
	"UseG1GC":            "G1",
	"UseShenandoahGC":    "Shenandoah",
	"UseZGC":             "ZGC",
	"UseEpsilonGC":       "Epsilon",
}

// valueOpts are launcher options whose value is the next argument.
var valueOpts = map[string]bool{
	"-cp": true, "-classpath": true, "--class-path": true,
	"-p": true, "--module-path": true, "--upgrade-module-path": true,
	"--add-modules": true, "--limit-modules": true,
	"--add-opens": true, "--add-exports": true, "--add-reads": true,
	"--patch-module": true, "--enable-native-access": true,
	"--source": true, "-d": true, "--describe-module": true,
}

// flagOpts are recognised single-argument options that no field models.
var flagOpts = map[string]bool{
	"-server": true, "-client": true, "-d32": true, "-d64": true,
	"-ea": true, "-da": true, "-esa": true, "-dsa": true,
	"-enableassertions": true, "-disableassertions": true,
	"-enablesystemassertions": true, "-disablesystemassertions": true,
	"-Xint": true, "-Xcomp": true, "-Xmixed": true, "-Xbatch": true,
	"-Xrs": true, "-Xnoclassgc": true, "-Xdebug": true, "-Xdiag": true,
	"-Xfuture": true, "-Xprof": true, "-Xnoagent": true, "-Xcheck:jni": true, "-Xinternalversion": true,
	"-XshowSettings": true, "-showversion": true, "-version": true,
	"--show-version": true, "--version": true,
	"--enable-preview": true, "--disable-@files": true, "-Xdock": true,
	"-reduce-memory-footprint": true, "-noverify": true,
}

// Parse understands a JVM command line, one argument per element (argv[0]
// included or not). It never fails: what it does not recognise goes to
// Unparsed.
func Parse(args []string) Options {
	var o Options
	// /proc/PID/cmdline ends with NUL: a split leaves trailing "".
	for len(args) > 0 && args[len(args)-1] == "" {
		args = args[:len(args)-1]
	}
	if len(args) > 0 && IsLauncher(args[0]) {
		o.Launcher = args[0]
		args = args[1:]
	}
	var loggc, xlogGC, verbose bool
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "":
			continue
		case a == "-jar":
			if i+1 < len(args) {
				o.Main, o.JarFile = args[i+1], true
				o.AppArgs = tail(args, i+2)
			} else {
				o.Unparsed = append(o.Unparsed, a)
			}
			i = len(args)
		case a == "-m" || a == "--module":
			if i+1 < len(args) {
				o.Main, o.Module = args[i+1], true
				o.AppArgs = tail(args, i+2)
			} else {
				o.Unparsed = append(o.Unparsed, a)
			}
			i = len(args)
		case strings.HasPrefix(a, "--module="):
			o.Main, o.Module = a[len("--module="):], true
			o.AppArgs = tail(args, i+1)
			i = len(args)
		case !strings.HasPrefix(a, "-"):
			if strings.HasPrefix(a, "@") {
				// JDK 9+ @argfile: expanded by the launcher from a file we
				// do not read.
				o.Unparsed = append(o.Unparsed, a)
				continue
			}
			o.Main = a
			o.AppArgs = tail(args, i+1)
			i = len(args)
		case valueOpts[a]:
			if i+1 >= len(args) {
				o.Unparsed = append(o.Unparsed, a)
				continue
			}
			i++
			o.launcherValue(a, args[i])
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			name, val, _ := strings.Cut(a, "=")
			if valueOpts[name] {
				o.launcherValue(name, val)
			} else {
				o.Other = append(o.Other, a) // --illegal-access=deny, --finalization=disabled
			}
		case strings.HasPrefix(a, "-XX:"):
			o.xx(a)
		case strings.HasPrefix(a, "-D"):
			if len(a) == 2 {
				o.Unparsed = append(o.Unparsed, a)
				continue
			}
			k, v, _ := strings.Cut(a[2:], "=")
			o.Props = setMap(o.Props, k, v)
		case hasSizePrefix(a, "-Xms"):
			o.size(a, a[4:], &o.XmsBytes, 1)
		case hasSizePrefix(a, "-Xmx"):
			o.size(a, a[4:], &o.XmxBytes, 1)
		case hasSizePrefix(a, "-Xss"):
			o.size(a, a[4:], &o.XssBytes, 1)
		case hasSizePrefix(a, "-Xmn"):
			o.size(a, a[4:], &o.XmnBytes, 1)
		case strings.HasPrefix(a, "-Xloggc:") && len(a) > len("-Xloggc:"):
			loggc = true
			o.GCLogFile = a[len("-Xloggc:"):]
		case a == "-Xlog" || strings.HasPrefix(a, "-Xlog:"):
			on, file, disable := xlog(a)
			if disable {
				xlogGC = false
				if !loggc {
					o.GCLogFile = ""
				}
			}
			if on {
				xlogGC = true
				if file != "" {
					o.GCLogFile = file
				}
			}
			o.Other = append(o.Other, a)
		case a == "-Xincgc" || a == "-Xconcgc":
			// JDK 8 and older shorthands for CMS (removed in JDK 9).
			if o.GC != "" && o.GC != "CMS" {
				o.GCConflict = true
			}
			o.GC = "CMS"
			o.Other = append(o.Other, a)
		case a == "-verbose:gc" || a == "-verbosegc":
			verbose = true
		case strings.HasPrefix(a, "-javaagent:"), strings.HasPrefix(a, "-agentlib:"),
			strings.HasPrefix(a, "-agentpath:"), strings.HasPrefix(a, "-Xrunjdwp"):
			o.Agents = append(o.Agents, a)
		case flagOpts[a], strings.HasPrefix(a, "-verbose"), strings.HasPrefix(a, "-Xshare:"),
			strings.HasPrefix(a, "-Xverify"), strings.HasPrefix(a, "-Xbootclasspath"),
			strings.HasPrefix(a, "-ea:"), strings.HasPrefix(a, "-da:"),
			strings.HasPrefix(a, "-enableassertions:"), strings.HasPrefix(a, "-disableassertions:"),
			strings.HasPrefix(a, "-splash:"), strings.HasPrefix(a, "-XshowSettings:"),
			strings.HasPrefix(a, "-Xcheck:"), strings.HasPrefix(a, "-Xdock:"):
			o.Other = append(o.Other, a)
		default:
			o.Unparsed = append(o.Unparsed, a)
		}
	}
	o.GCLogging = loggc || xlogGC || verbose || o.Bools["PrintGC"] || o.Bools["PrintGCDetails"]
	if !loggc && !xlogGC {
		o.GCLogFile = ""
	}
	return o
}

// IsLauncher reports whether s names a java executable (argv[0]).
func IsLauncher(s string) bool {
	base := path.Base(strings.ReplaceAll(s, `\`, "/"))
	switch strings.ToLower(base) {
	case "java", "java.exe", "javaw", "javaw.exe":
		return true
	}
	return false
}

func tail(args []string, i int) []string {
	if i >= len(args) {
		return nil
	}
	return append([]string(nil), args[i:]...)
}

func setMap[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = make(map[string]V)
	}
	m[k] = v
	return m
}

// hasSizePrefix is true for "-Xmx4g"-like options (prefix plus a value);
// -Xmx alone is malformed.
func hasSizePrefix(a, p string) bool { return len(a) > len(p) && strings.HasPrefix(a, p) }

func (o *Options) launcherValue(name, val string) {
	switch name {
	case "-cp", "-classpath", "--class-path":
		o.ClassPath = val
	default:
		o.Other = append(o.Other, name+"="+val)
	}
}

// size sets *dst from a HotSpot size ("512m"); scale multiplies (1024 for
// flags given in KB). A malformed value goes to Unparsed and leaves *dst.
func (o *Options) size(arg, val string, dst *int64, scale int64) {
	n, ok := units.ParseJVMSize(val)
	if ok && scale > 1 {
		if n > math.MaxInt64/scale {
			ok = false
		} else {
			n *= scale
		}
	}
	if !ok {
		o.Unparsed = append(o.Unparsed, arg)
		return
	}
	*dst = n
}

// xx handles one -XX: option.
func (o *Options) xx(a string) {
	body := a[len("-XX:"):]
	switch {
	case len(body) > 1 && (body[0] == '+' || body[0] == '-'):
		name, on := body[1:], body[0] == '+'
		if !validFlagName(name) {
			o.Unparsed = append(o.Unparsed, a)
			return
		}
		o.Bools = setMap(o.Bools, name, on)
		if gc, ok := gcFlags[name]; ok {
			switch {
			case on:
				if o.GC != "" && o.GC != gc {
					o.GCConflict = true
				}
				o.GC = gc
			case o.GC == gc && !(name == "UseParallelOldGC" && o.Bools["UseParallelGC"]):
				// -XX:-UseParallelOldGC keeps ParallelGC (JDK 8: with a
				// serial old generation); other -XX:-UseXxxGC undo a choice.
				o.GC = ""
			}
		}
	case strings.Contains(body, "="):
		name, val, _ := strings.Cut(body, "=")
		if !validFlagName(name) {
			o.Unparsed = append(o.Unparsed, a)
			return
		}
		o.Values = setMap(o.Values, name, val)
		switch name {
		case "InitialHeapSize":
			o.size(a, val, &o.XmsBytes, 1)
		case "MaxHeapSize":
			o.size(a, val, &o.XmxBytes, 1)
		case "ThreadStackSize":
			o.size(a, val, &o.XssBytes, 1024)
		case "MaxNewSize":
			o.size(a, val, &o.XmnBytes, 1)
		case "MaxRAMPercentage":
			o.percent(a, val, &o.MaxRAMPercentage)
		case "InitialRAMPercentage":
			o.percent(a, val, &o.InitialRAMPercentage)
		}
	default:
		o.Unparsed = append(o.Unparsed, a)
	}
}

func (o *Options) percent(arg, val string, dst *float64) {
	f, err := strconv.ParseFloat(val, 64)
	if err != nil || f < 0 || f > 100 || math.IsNaN(f) {
		o.Unparsed = append(o.Unparsed, arg)
		return
	}
	*dst = f
}

func validFlagName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// xlog reads a unified logging option (JDK 9+):
//
//	-Xlog[:[what][:[output][:[decorators][:output-options]]]]
//
// It reports whether the selection logs gc, the file output if any, and
// whether it is -Xlog:disable (which turns off all earlier logging).
func xlog(a string) (gc bool, file string, disable bool) {
	if a == "-Xlog" {
		return true, "", false // all tags at info, to stdout
	}
	spec := a[len("-Xlog:"):]
	if spec == "disable" {
		return false, "", true
	}
	what, rest, _ := strings.Cut(spec, ":")
	if what == "" {
		what = "all"
	}
	for _, sel := range strings.Split(what, ",") {
		tags, level, _ := strings.Cut(sel, "=")
		if level == "off" {
			continue
		}
		tags = strings.TrimSuffix(tags, "*")
		for _, t := range strings.Split(tags, "+") {
			if t == "gc" || t == "all" {
				gc = true
			}
		}
	}
	if !gc {
		return false, "", false
	}
	out := rest
	if i := strings.Index(rest, ":"); i >= 0 {
		out = rest[:i]
	}
	out = strings.Trim(out, `"`)
	switch {
	case out == "", out == "stdout", out == "stderr":
	case strings.HasPrefix(out, "file="):
		file = strings.Trim(out[len("file="):], `"`)
	default:
		file = out
	}
	return gc, file, false
}
