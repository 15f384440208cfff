package experiment

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/units"
)

// overlayVar carries an arm's JVM options and system properties. Every
// HotSpot and OpenJ9 JVM from 8 to 25 reads JAVA_TOOL_OPTIONS (JDK_JAVA_OPTIONS
// is JDK 9+ and the java launcher only), so the user's start command and
// files stay untouched. It loses to the command line: a flag the start
// command sets itself wins, which is why every option is read back from the
// running JVM (checkFlags) and a trial whose knob did not take effect is
// refused rather than measured as if it had.
const overlayVar = "JAVA_TOOL_OPTIONS"

// jvmOptions splits a jvm knob's value into options; each must be a JVM
// option (-X..., -XX:..., -D..., -verbose...), with no shell syntax.
func jvmOptions(v string) ([]string, error) {
	opts := strings.Fields(v)
	for _, o := range opts {
		if !strings.HasPrefix(o, "-") || strings.ContainsAny(o, "'\"`$\\;&|<>(){}") {
			return nil, bad("%q is not a JVM option", "%q 不是 JVM 选项", o)
		}
	}
	return opts, nil
}

// Overlay is what an arm adds to the service's launch.
type Overlay struct {
	// JVM are the options added to JAVA_TOOL_OPTIONS (properties as -D).
	JVM []string
	// Env are other variables set for the service, sorted by name.
	Env [][2]string
	// Limits are process limits set on the launch (launchknobs.go).
	Limits []LimitSet
	// Binding is the launch's CPU set or NUMA node ("" unbound).
	Binding string
	// Configs are files copied into the trial's folder, each passed as a
	// system property.
	Configs []ConfigFile
}

// LimitSet is one process limit of a launch.
type LimitSet struct{ Resource, Value string }

// ConfigFile is a candidate configuration file and the property that
// points the service at it.
type ConfigFile struct{ Knob, Prop, Src string }

// overlayOf is the launch overlay of the settings of one arm.
func overlayOf(knobs []Knob, values []string) Overlay {
	var o Overlay
	for i, k := range knobs {
		v := values[i]
		if v == "" {
			continue
		}
		switch k.Kind {
		case KindJVM:
			opts, _ := jvmOptions(v)
			o.JVM = append(o.JVM, opts...)
		case KindProperty:
			o.JVM = append(o.JVM, "-D"+k.Key+"="+v)
		case KindEnv:
			o.Env = append(o.Env, [2]string{k.Key, v})
		case KindLimit:
			o.Limits = append(o.Limits, LimitSet{Resource: k.Key, Value: v})
		case KindBinding:
			o.Binding = v
		case KindConfigFile:
			o.Configs = append(o.Configs, ConfigFile{Knob: k.Name, Prop: k.Key, Src: v})
		}
	}
	sort.Slice(o.Env, func(i, j int) bool { return o.Env[i][0] < o.Env[j][0] })
	return o
}

// Command is start prefixed with the exports of the overlay, for /bin/sh -c:
// the exports reach every process the command starts, whatever the command
// is (a script, `cd dir && java ...`). JAVA_TOOL_OPTIONS the user already
// has is kept, the overlay's options after it (a later option wins).
func (o Overlay) Command(start string, getenv func(string) string) string {
	var b strings.Builder
	for _, kv := range o.Env {
		fmt.Fprintf(&b, "export %s=%s; ", kv[0], shellQuote(kv[1]))
	}
	if len(o.JVM) > 0 {
		v := strings.Join(o.JVM, " ")
		if old := strings.TrimSpace(getenv(overlayVar)); old != "" {
			v = old + " " + v
		}
		fmt.Fprintf(&b, "export %s=%s; ", overlayVar, shellQuote(v))
	}
	return b.String() + start
}

// shellQuote quotes s for sh as one word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Expect is one thing to read back from the running JVM.
type Expect struct {
	Option string // as given, e.g. -Xmx256m
	Flag   string // the VM flag it sets ("" for a property)
	Want   string // the flag's value in VM.flags -all, or the property's value
	Prop   string // the system property's name
	// Size: the JVM may round it up to its alignment (heap regions,
	// pages), so within 2% (or 4 MiB) is taken as set.
	Size bool
}

// expectations are what the JVM options of an overlay must show in the
// running JVM; options not understood here are not checked (said in Note).
func expectations(opts []string) (ex []Expect, unchecked []string) {
	for _, o := range opts {
		switch {
		case strings.HasPrefix(o, "-D"):
			k, v, _ := strings.Cut(o[2:], "=")
			ex = append(ex, Expect{Option: o, Prop: k, Want: v})
		case strings.HasPrefix(o, "-XX:+") || strings.HasPrefix(o, "-XX:-"):
			ex = append(ex, Expect{Option: o, Flag: o[5:], Want: strconv.FormatBool(o[4] == '+')})
		case strings.HasPrefix(o, "-XX:") && strings.Contains(o, "="):
			k, v, _ := strings.Cut(o[4:], "=")
			// VM.flags prints a size in decimal bytes: "64m" and "0x40" read back as such.
			if n, ok := units.ParseJVMSize(v); ok {
				v = strconv.FormatInt(n, 10)
			}
			ex = append(ex, Expect{Option: o, Flag: k, Want: v})
		case strings.HasPrefix(o, "-Xmx"), strings.HasPrefix(o, "-Xms"), strings.HasPrefix(o, "-Xmn"):
			n, ok := units.ParseJVMSize(o[4:])
			if !ok {
				unchecked = append(unchecked, o)
				continue
			}
			flag := map[string]string{"-Xmx": "MaxHeapSize", "-Xms": "InitialHeapSize", "-Xmn": "NewSize"}[o[:4]]
			ex = append(ex, Expect{Option: o, Flag: flag, Want: strconv.FormatInt(n, 10), Size: true})
		default:
			unchecked = append(unchecked, o)
		}
	}
	return ex, unchecked
}

// parseFlagsAll reads `VM.flags -all`: lines such as
//
//	  bool UseParallelGC                            = true                                      {product} {command line}
//	size_t MaxHeapSize                              = 268435456                                 {product} {ergonomic}
//	 uintx MaxHeapSize                              := 268435456                           {product}
//
// (JDK 8 marks a set flag with ":="; 9+ with "=" and an origin).
func parseFlagsAll(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || (f[2] != "=" && f[2] != ":=") {
			continue
		}
		m[f[1]] = f[3]
	}
	return m
}

// parseProperties reads `VM.system_properties` (java.util.Properties
// format; only the escapes a value is likely to hold are undone).
func parseProperties(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		un := strings.NewReplacer(`\:`, ":", `\=`, "=", `\ `, " ", `\\`, `\`)
		m[un.Replace(k)] = un.Replace(v)
	}
	return m
}

// checkFlags compares what the overlay asked for with what the JVM runs
// with; each mismatch is a line naming the option, the value in effect and,
// when the JVM's command line sets the same thing, that flag (it wins over
// JAVA_TOOL_OPTIONS).
func checkFlags(ex []Expect, flags, props map[string]string, cmdline []string) []finding.Text {
	var out []finding.Text
	for _, e := range ex {
		got, ok := "", false
		if e.Prop != "" {
			got, ok = props[e.Prop]
		} else {
			got, ok = flags[e.Flag]
		}
		if ok && (got == e.Want || e.Size && closeSize(got, e.Want)) {
			continue
		}
		if !ok {
			got = "(not set)"
		}
		name := e.Flag
		if e.Prop != "" {
			name = e.Prop
		}
		t := finding.Tf(finding.T("%s did not take effect: the JVM runs with %s=%s",
			"%s 未生效：JVM 实际运行值 %s=%s"), e.Option, name, finding.SafeLine(got))
		if c := conflicting(e, cmdline); c != "" {
			t = finding.Tf(finding.T("%s; its command line sets %s, which wins over JAVA_TOOL_OPTIONS: remove it from the start command or make it a knob",
				"%s；其命令行设置了 %s，它优先于 JAVA_TOOL_OPTIONS：请从启动命令中去掉它，或把它作为一个试验设置"), t, finding.SafeLine(c))
		}
		out = append(out, t)
	}
	return out
}

// conflicting is the command-line argument that sets what e sets, if any.
func conflicting(e Expect, cmdline []string) string {
	for _, a := range cmdline {
		switch {
		case e.Prop != "" && strings.HasPrefix(a, "-D"+e.Prop+"="):
			return a
		case e.Prop != "":
		case len(e.Option) >= 4 && strings.HasPrefix(e.Option, "-X") && !strings.HasPrefix(e.Option, "-XX:") && strings.HasPrefix(a, e.Option[:4]):
			return a
		case strings.HasPrefix(a, "-XX:+"+e.Flag) || strings.HasPrefix(a, "-XX:-"+e.Flag) || strings.HasPrefix(a, "-XX:"+e.Flag+"="):
			return a
		case gcSelector(e.Flag) && gcSelector(strings.TrimLeft(strings.TrimPrefix(a, "-XX:"), "+-")):
			return a // another collector chosen on the command line
		}
	}
	return ""
}

// gcSelector reports whether flag chooses the collector.
func gcSelector(flag string) bool {
	switch flag {
	case "UseSerialGC", "UseParallelGC", "UseParallelOldGC", "UseG1GC", "UseZGC", "UseShenandoahGC", "UseConcMarkSweepGC", "UseEpsilonGC":
		return true
	}
	return false
}

// closeSize: got is want rounded up to an alignment.
func closeSize(got, want string) bool {
	g, err1 := strconv.ParseUint(got, 10, 64)
	w, err2 := strconv.ParseUint(want, 10, 64)
	return err1 == nil && err2 == nil && g >= w && (g-w <= 4<<20 || float64(g-w) <= 0.02*float64(w))
}
