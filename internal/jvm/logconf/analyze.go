package logconf

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Category of every finding this package produces.
const Category = "logconf"

// Finding IDs.
const (
	IDSyncFile      = "logconf.sync-file-appender"
	IDConsole       = "logconf.console-appender"
	IDQueueSmall    = "logconf.async-queue-small"
	IDAsyncBlocking = "logconf.async-blocking"
	IDCallerData    = "logconf.caller-data"
	IDDebugLevel    = "logconf.debug-level"
	IDPrudent       = "logconf.prudent"
	IDLog4j1EOL     = "logconf.log4j1-eol"
	IDSifting       = "logconf.sifting-appender"
)

// IDs lists every finding ID this package can produce.
var IDs = []string{IDSyncFile, IDConsole, IDQueueSmall, IDAsyncBlocking, IDCallerData, IDDebugLevel, IDPrudent, IDLog4j1EOL, IDSifting}

// Options change what the analysis assumes about the running JVM.
type Options struct {
	// AsyncLoggers: the JVM runs log4j2 with AsyncLoggerContextSelector
	// (-Dlog4j2.contextSelector=...), which makes every logger asynchronous.
	AsyncLoggers bool
}

// OptionsFromArgs reads the JVM command line for settings that change the
// analysis.
func OptionsFromArgs(args []string) Options {
	var o Options
	for _, a := range args {
		for _, p := range []string{"-Dlog4j2.contextSelector=", "-DLog4jContextSelector=", "-Dlog4j2.context.selector="} {
			if strings.HasPrefix(a, p) && strings.HasSuffix(a, "AsyncLoggerContextSelector") {
				o.AsyncLoggers = true
			}
		}
	}
	return o
}

// Analyze returns the findings for one configuration, ranked.
func Analyze(c *Config) []finding.Finding { return AnalyzeWith(c, Options{}) }

// prodRoutes drops routes that exist only under a development Spring
// profile (dev, local, test): that is where a console appender belongs.
func prodRoutes(ap *Appender, rs []Route) []Route {
	if isDevProfile(ap.Profile) {
		return nil
	}
	var out []Route
	for _, r := range rs {
		if !isDevProfile(r.Ref.Profile) {
			out = append(out, r)
		}
	}
	return out
}

func isDevProfile(p string) bool {
	p = strings.ToLower(strings.TrimSpace(p))
	if p == "" || strings.Contains(p, "!") {
		return false
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == ',' || r == '|' || r == '&' || r == ' ' || r == '(' || r == ')' }) {
		if !(strings.Contains(part, "dev") || strings.Contains(part, "local") || strings.Contains(part, "test")) {
			return false
		}
	}
	return true
}

func syncRoutes(rs []Route) []Route {
	var out []Route
	for _, r := range rs {
		if !r.Async {
			out = append(out, r)
		}
	}
	return out
}

func (a *Input) src(line int) string {
	if line <= 0 {
		return a.c.Path
	}
	return fmt.Sprintf("%s:%d", a.c.Path, line)
}

// flushesEachEvent: immediateFlush in effect (the default everywhere; log4j
// 1.x BufferedIO=true turns it off).
func (a *Input) flushesEachEvent(ap *Appender) bool {
	if a.lib == Log4j1 && ap.BufferedIO.Bool(false) {
		return false
	}
	if a.lib == Log4j2 && strings.EqualFold(ap.Class, "MemoryMappedFile") {
		return ap.ImmediateFlush.Bool(false) // the one log4j2 file appender that defaults to false
	}
	return ap.ImmediateFlush.Bool(true)
}

func (a *Input) insideSifting(ap *Appender) bool {
	if ap.Parent == "" || a.lib != Logback {
		return false
	}
	p := a.c.Appender(ap.Parent)
	return p != nil && p.Type == TypeSifting
}

// lineText is line n of the file as written, trimmed.
func (a *Input) lineText(n int) string {
	if n <= 0 || n > len(a.c.lines) {
		return ""
	}
	return strings.TrimSpace(a.c.lines[n-1])
}

// optLine is the setting's line as written, or def when the file does not set it.
func (a *Input) optLine(o Opt, def string) string {
	if o.Set {
		if t := a.lineText(o.Line); t != "" {
			return t
		}
	}
	return def
}

func routeLoggers(rs []Route) string { return routeLoggersFmt(rs, "%s (line %d)") }

func routeLoggersZH(rs []Route) string { return routeLoggersFmt(rs, "%s（第 %d 行）") }

func routeLoggersFmt(rs []Route, format string) string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rs {
		n := fmt.Sprintf(format, r.Logger.Display(), r.Ref.Line)
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

func (a *Input) appenderEvidence(ap *Appender) []finding.Evidence {
	ev := []finding.Evidence{{Key: "appender", Value: fmt.Sprintf("%s (%s)", ap.Name, ap.Class), Source: a.src(ap.Line)}}
	if ap.File.Set {
		ev = append(ev, finding.Evidence{Key: "file", Value: ap.File.Raw, Source: a.src(ap.File.Line)})
	}
	if ap.Profile != "" {
		ev = append(ev, finding.Evidence{Key: "springProfile", Value: ap.Profile, Source: a.src(ap.Line)})
	}
	if ap.Guessed {
		ev = append(ev, finding.Evidence{Key: "type", Value: string(ap.Type) + " (guessed from the class name)", Source: a.src(ap.Line)})
	}
	return ev
}

func routeEvidence(a *Input, rs []Route) []finding.Evidence {
	var ev []finding.Evidence
	for i, r := range rs {
		if i == 6 {
			ev = append(ev, finding.Evidence{Key: "reached by", Value: fmt.Sprintf("... +%d more", len(rs)-i)})
			break
		}
		v := r.Logger.Display()
		if len(r.Via) > 0 {
			v += " via " + strings.Join(r.Via, " -> ")
		}
		if r.Logger.Async {
			v += " (async logger)"
		}
		if r.Ref.Profile != "" {
			v += " [springProfile " + r.Ref.Profile + "]"
		}
		ev = append(ev, finding.Evidence{Key: "reached by", Value: v, Source: a.src(r.Ref.Line)})
	}
	return ev
}

func optEvidence(a *Input, key string, o Opt, def string, line int) finding.Evidence {
	if o.Set {
		return finding.Evidence{Key: key, Value: o.Raw, Source: a.src(o.Line)}
	}
	return finding.Evidence{Key: key, Value: def + " (default)", Source: a.src(line)}
}

// profileNote qualifies a finding that holds only under a Spring profile.
func profileNote(ap *Appender, rs []Route) finding.Text {
	profiles := map[string]bool{}
	all := true
	for _, r := range rs {
		if r.Ref.Profile == "" && ap.Profile == "" {
			all = false
		}
		if r.Ref.Profile != "" {
			profiles[r.Ref.Profile] = true
		}
	}
	if ap.Profile != "" {
		profiles[ap.Profile] = true
	}
	if !all || len(profiles) == 0 {
		return finding.Text{}
	}
	var ps []string
	for p := range profiles {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	j := strings.Join(ps, ", ")
	return finding.T(" Only when the Spring profile "+j+" is active.", " 仅在 Spring profile "+j+" 激活时生效。")
}

func (a *Input) confidence(ap *Appender, rs []Route) float64 {
	if !profileNote(ap, rs).IsZero() || ap.Guessed {
		return 0.8
	}
	return 1
}

func uniqueName(c *Config, base string) string {
	name := base
	for i := 2; c.Appender(name) != nil && i < 1000; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

func shortClass(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[i+1:]
	}
	return class
}

// refLines are the distinct reference texts of the routes, for Revert.
func refLines(rs []Route) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		t := strings.TrimSpace(r.Ref.Text)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

func refLineNumbers(rs []Route) string {
	var out []string
	seen := map[int]bool{}
	for _, r := range rs {
		if !seen[r.Ref.Line] {
			seen[r.Ref.Line] = true
			out = append(out, fmt.Sprint(r.Ref.Line))
		}
	}
	return strings.Join(out, ", ")
}

func isLevel(raw string, levels ...string) bool {
	v := strings.TrimSpace(raw)
	for _, l := range levels {
		if strings.EqualFold(v, l) {
			return true
		}
	}
	return false
}
