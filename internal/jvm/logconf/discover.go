package logconf

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Candidate is a logging configuration named (or implied) by a JVM command line.
type Candidate struct {
	// Path is the file to read, made absolute against the JVM's working
	// directory; for a classpath resource it is the resource name, for a
	// configuration inside a jar the jar.
	Path string `json:"path"`
	// From is where the path came from: the system property
	// ("-Dlogback.configurationFile"), "--logging.config", "-jar" or "-cp".
	From    string  `json:"from"`
	Library Library `json:"library,omitempty"`
	// InJar is true when the configuration is a classpath resource (inside
	// the application jar, or a classpath: URL): it cannot be read as a file.
	InJar bool `json:"in_jar,omitempty"`
	// Default is true for a library's default file name in a classpath
	// directory: the file may not exist.
	Default bool `json:"default,omitempty"`
	// Remote is true for an http(s) URL.
	Remote bool         `json:"remote,omitempty"`
	Note   finding.Text `json:"note"`
}

// NoteInJar is the note for a configuration read from the classpath.
var NoteInJar = finding.T("config is on the classpath inside the jar; pass it with --file", "配置文件在 jar 包内的 classpath 上；请用 --file 指定")

// properties that name a logging configuration, in the order the libraries
// look at them.
var configProps = []struct {
	name string
	lib  Library
}{
	{"logging.config", ""}, // Spring Boot: logback or log4j2
	{"logback.configurationFile", Logback},
	{"log4j2.configurationFile", Log4j2},
	{"log4j.configurationFile", Log4j2},
	{"log4j.configuration", Log4j1},
}

// defaultNames are the files each library looks for on the classpath.
var defaultNames = []string{"logback-test.xml", "logback.xml", "logback-spring.xml", "log4j2-test.xml", "log4j2.xml", "log4j2-spring.xml", "log4j2.properties", "log4j.xml", "log4j.properties"}

// FindConfigs returns the configuration files a JVM command line names
// (-Dlogback.configurationFile, -Dlog4j2.configurationFile,
// -Dlog4j.configurationFile, -Dlog4j.configuration, -Dlogging.config or
// Spring Boot's --logging.config), absolute against cwd. Classpath
// resources, configurations inside the jar and default names are left out:
// Discover reports those with a note.
func FindConfigs(args []string, cwd string) []string {
	var out []string
	for _, c := range Discover(args, cwd) {
		if !c.InJar && !c.Default && !c.Remote {
			out = append(out, c.Path)
		}
	}
	return out
}

// Discover lists every configuration a JVM command line names or implies,
// with a note for those that cannot be read as a file. When no property
// names one, it lists the default names in classpath directories (Default)
// and the application jar (InJar).
func Discover(args []string, cwd string) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	add := func(c Candidate) {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c)
		}
	}
	var jar string
	var cp []string
	appArgs := false
	// A property given twice: the JVM keeps the last value.
	props := map[string]string{}
	var springArg string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if appArgs {
			if v, ok := strings.CutPrefix(a, "--logging.config="); ok {
				springArg = v
			}
			continue
		}
		switch {
		case a == "-jar" && i+1 < len(args):
			jar = abs(args[i+1], cwd)
			i++
			appArgs = true
			continue
		case (a == "-cp" || a == "-classpath" || a == "--class-path") && i+1 < len(args):
			cp = strings.Split(args[i+1], ":")
			i++
			continue
		case strings.HasPrefix(a, "--class-path="):
			cp = strings.Split(a[len("--class-path="):], ":")
			continue
		case strings.HasPrefix(a, "-D"):
			k, v, _ := strings.Cut(a[2:], "=")
			props[k] = v
			continue
		case (a == "-m" || a == "--module") && i+1 < len(args):
			i++
			appArgs = true
		case takesValue[a] && i+1 < len(args):
			i++
		case !strings.HasPrefix(a, "-") && !(i == 0 && isJava(a)):
			appArgs = true // the main class; what follows is the application's
		}
	}
	if springArg != "" {
		// Spring Boot: a program argument overrides the system property.
		props["logging.config"] = ""
		for _, c := range resolve(springArg, cwd, "--logging.config", "") {
			add(c)
		}
	}
	for _, p := range configProps {
		if v := props[p.name]; v != "" {
			for _, c := range resolve(v, cwd, "-D"+p.name, p.lib) {
				add(c)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, dir := range cp {
		if dir == "" || strings.HasSuffix(dir, ".jar") || strings.HasSuffix(dir, "*") || strings.HasSuffix(dir, ".zip") {
			continue
		}
		for _, n := range defaultNames {
			add(Candidate{Path: abs(path.Join(dir, n), cwd), From: "-cp", Library: libraryOfName(n), Default: true,
				Note: finding.T("default name in a classpath directory; may not exist", "classpath 目录中的默认文件名；文件可能不存在")})
		}
	}
	if jar != "" {
		add(Candidate{Path: jar, From: "-jar", InJar: true, Note: NoteInJar})
	}
	return out
}

// takesValue: launcher options whose value is the next argument.
var takesValue = map[string]bool{"-p": true, "--module-path": true, "--upgrade-module-path": true, "--add-modules": true,
	"--add-opens": true, "--add-exports": true, "--add-reads": true, "--patch-module": true, "--limit-modules": true,
	"--enable-native-access": true}

func isJava(a string) bool {
	b := path.Base(a)
	return b == "java" || b == "java.exe" || b == "javaw" || b == "javaw.exe"
}

func libraryOfName(n string) Library {
	switch {
	case strings.HasPrefix(n, "logback"):
		return Logback
	case strings.HasPrefix(n, "log4j2"):
		return Log4j2
	}
	return Log4j1
}

func abs(p, cwd string) string {
	if p == "" || path.IsAbs(p) || cwd == "" {
		return path.Clean(p)
	}
	return path.Join(cwd, p)
}

// resolve turns one property value (a path, file: URL, classpath: resource,
// jar: URL or comma-separated list for log4j2) into candidates.
func resolve(v, cwd, from string, lib Library) []Candidate {
	var out []Candidate
	vals := []string{v}
	if lib == Log4j2 || lib == "" {
		vals = strings.Split(v, ",")
	}
	for _, s := range vals {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		c := Candidate{From: from, Library: lib}
		low := strings.ToLower(s)
		switch {
		case strings.HasPrefix(low, "classpath:") || strings.HasPrefix(low, "classpath*:"):
			c.Path = strings.TrimLeft(s[strings.IndexByte(s, ':')+1:], "/")
			c.InJar, c.Note = true, NoteInJar
		case strings.HasPrefix(low, "jar:"):
			c.Path = s
			if i := strings.Index(s, "!/"); i >= 0 {
				c.Path = strings.TrimPrefix(strings.TrimPrefix(s[4:i], "file:"), "//")
			}
			c.InJar, c.Note = true, NoteInJar
		case strings.HasPrefix(low, "file:"):
			c.Path = fileURL(s, cwd)
		case strings.HasPrefix(low, "http:") || strings.HasPrefix(low, "https:"):
			c.Path, c.Remote = s, true
			c.Note = finding.T("configuration is fetched over HTTP; download it and pass it with --file", "配置通过 HTTP 获取；请下载后用 --file 指定")
		case lib == Log4j1 && !strings.Contains(s, "/") && !strings.Contains(s, `\`):
			// log4j 1.x reads a value that is not a URL as a classpath resource.
			c.Path, c.InJar, c.Note = s, true, NoteInJar
		default:
			c.Path = abs(s, cwd)
			if lib == Log4j1 {
				c.Note = finding.T("log4j 1.x reads -Dlog4j.configuration as a URL or a classpath resource; a plain path works only with file:", "log4j 1.x 把 -Dlog4j.configuration 当作 URL 或 classpath 资源；普通路径需加 file: 前缀才生效")
			}
		}
		if c.Path == "" {
			continue // "classpath:" naming no resource: nothing to look for
		}
		if c.Library == "" {
			c.Library = libraryOfName(strings.ToLower(path.Base(c.Path)))
			if !strings.Contains(strings.ToLower(path.Base(c.Path)), "log") {
				c.Library = ""
			}
		}
		out = append(out, c)
	}
	return out
}

// fileURL turns file:/a, file:///a, file:a into a path.
func fileURL(s, cwd string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		if p != "" {
			return abs(filepath.ToSlash(p), cwd)
		}
	}
	return abs(s[len("file:"):], cwd)
}
