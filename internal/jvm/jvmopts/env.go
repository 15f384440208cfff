package jvmopts

// Options a JVM takes from its environment as well as its command line
// (/proc/PID/environ, NUL-separated):
//
//	JAVA_TOOL_OPTIONS=-Xms64m -XX:+HeapDumpOnOutOfMemoryError   (HotSpot, before the command line)
//	JDK_JAVA_OPTIONS=-Xms64m                                     (the JDK 9+ launcher, before the command line)
//	_JAVA_OPTIONS=-Xmx1g                                         (HotSpot, after the command line: wins)

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// EnvVars are the environment variables a JVM reads options from, in the
// order it applies them around the command line.
var EnvVars = []string{"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"}

// ParseWithEnv is Parse for a running JVM: the options of its environment
// env (variable -> value; see EnvVars) are applied where the JVM applies
// them: JAVA_TOOL_OPTIONS and (JDK 9+ launcher) JDK_JAVA_OPTIONS before the
// command line, _JAVA_OPTIONS after it, all before the main class. major is
// the JDK release when known (JDK 8 ignores JDK_JAVA_OPTIONS), else 0.
// Options.FromEnv names the variables that held options.
//
// Without this a JVM started as `JDK_JAVA_OPTIONS=-Xms64m java -Xmx64m ...`
// looks as if it had no -Xms.
func ParseWithEnv(args []string, env map[string]string, major int) Options {
	words := func(k string) []string {
		v := strings.TrimSpace(env[k])
		if v == "" || (k == "JDK_JAVA_OPTIONS" && major > 0 && major < 9) {
			return nil
		}
		return ParseCommandLine(v)
	}
	before := append(words("JAVA_TOOL_OPTIONS"), words("JDK_JAVA_OPTIONS")...)
	after := words("_JAVA_OPTIONS")
	if len(before) == 0 && len(after) == 0 {
		return Parse(args)
	}
	for len(args) > 0 && args[len(args)-1] == "" {
		args = args[:len(args)-1]
	}
	var argv0 []string
	if len(args) > 0 && IsLauncher(args[0]) {
		argv0, args = args[:1], args[1:]
	}
	split := mainIndex(args)
	all := make([]string, 0, len(args)+len(before)+len(after)+1)
	all = append(all, argv0...)
	all = append(all, before...)
	all = append(all, args[:split]...)
	all = append(all, after...)
	all = append(all, args[split:]...)
	o := Parse(all)
	for _, k := range EnvVars {
		if len(words(k)) > 0 {
			o.FromEnv = append(o.FromEnv, k+"="+strings.TrimSpace(env[k]))
		}
	}
	return o
}

// mainIndex is where the main class (or -jar FILE, -m MODULE) starts in
// args without argv[0]; len(args) when there is none.
func mainIndex(args []string) int {
	o := Parse(args)
	if o.Main == "" {
		return len(args)
	}
	n := len(args) - len(o.AppArgs) - 1
	if n > 0 && (o.JarFile || o.Module) && (args[n-1] == "-jar" || args[n-1] == "-m" || args[n-1] == "--module") {
		n--
	}
	if n < 0 {
		return len(args)
	}
	return n
}

// ErrNotJava is the error CheckJava returns for a command line that is not
// a java command (errors.Is(err, ErrNotJava)).
var ErrNotJava = finding.Errorf(finding.T("not a java command line", "不是 java 命令行"))

// CheckJava accepts args (from ParseCommandLine) that are a java command
// ("java ...", ".../bin/java ...", "$JAVA_HOME/bin/java ..."), or only JVM
// options (a pasted JAVA_OPTS value), or an unexpanded "$JAVA"-like program
// followed by JVM options. Anything else ("ls -la", "./start.sh") is
// ErrNotJava, with the program named, in both languages.
func CheckJava(args []string) error {
	if len(args) == 0 {
		return ErrNotJava
	}
	prog := args[0]
	switch {
	case IsLauncher(prog), strings.HasPrefix(prog, "-"):
		return nil
	case strings.HasPrefix(prog, "$") && hasJVMOption(args[1:]):
		return nil
	}
	return &finding.Error{
		Msg: finding.Tf(finding.T("%q is not a java command: give the JVM's command line ('java -Xmx4g -jar app.jar') or only its options ('-Xmx4g -XX:+UseG1GC')",
			"%q 不是 java 命令：请给出 JVM 的命令行（'java -Xmx4g -jar app.jar'）或只给出其参数（'-Xmx4g -XX:+UseG1GC'）"), finding.SafeLine(prog)),
		Err: ErrNotJava,
	}
}

// hasJVMOption reports whether args hold an option only a JVM takes.
func hasJVMOption(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-X") || strings.HasPrefix(a, "-D") || a == "-jar" || a == "-cp" || a == "-classpath" {
			return true
		}
	}
	return false
}
