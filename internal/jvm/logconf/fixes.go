package logconf

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Literal fixes: each returns the config lines to put in (Apply), the lines
// as they are now (Revert), and where they go (Note).

func xa(s string) string { return `"` + xmlEscape(s) + `"` }

// propKey turns an appender name into a properties component id.
func propKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// replaceLast replaces the last occurrence of old in s.
func replaceLast(s, old, repl string) string {
	i := strings.LastIndex(s, old)
	if i < 0 || old == "" {
		return s
	}
	return s[:i] + repl + s[i+len(old):]
}

// redirectRefs rewrites the routes' reference texts to point at name.
func redirectRefs(rs []Route, from, to string, xml bool) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		t := strings.TrimSpace(r.Ref.Text)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if xml {
			out = append(out, replaceLast(t, xa(from), xa(to)))
		} else {
			out = append(out, replaceLast(t, from, to))
		}
	}
	return strings.Join(out, "\n")
}

var reloadNote = map[Library]finding.Text{
	Logback: finding.T("Restart the application to apply (logback re-reads the file by itself only with <configuration scan=\"true\">; Spring Boot needs a restart).",
		"重启应用后生效（仅当 <configuration scan=\"true\"> 时 logback 会自动重新加载；Spring Boot 需要重启）。"),
	Log4j2: finding.T("Restart the application to apply (log4j2 reloads the file by itself only with <Configuration monitorInterval=\"30\">).",
		"重启应用后生效（仅当设置了 <Configuration monitorInterval=\"30\"> 时 log4j2 会自动重新加载）。"),
	Log4j1: finding.T("Restart the application to apply (log4j 1.x reloads only when started with PropertyConfigurator.configureAndWatch).",
		"重启应用后生效（log4j 1.x 仅在使用 PropertyConfigurator.configureAndWatch 启动时才会自动重新加载）。"),
}

// asyncWrap wraps ap in the library's async appender and points the routes'
// references at the wrapper. ok is false for log4j 1.x properties, which
// cannot configure an AsyncAppender.
func (a *Input) asyncWrap(ap *Appender, rs []Route) (apply, revert string, note finding.Text, ok bool) {
	name := uniqueName(a.c, "ASYNC_"+ap.Name)
	revert = refLines(rs)
	where := finding.T(
		fmt.Sprintf("Add the async appender (the first lines) next to the definition of %s (line %d) and replace the reference(s) to %s at line(s) %s with the last line(s). Revert: delete %s and restore the reference lines. ",
			ap.Name, ap.Line, ap.Name, refLineNumbers(rs), name),
		fmt.Sprintf("把异步 Appender（前几行）加在 %s 的定义（第 %d 行）旁边，并把第 %s 行对 %s 的引用替换为最后几行。回退：删除 %s，恢复原引用行。",
			ap.Name, ap.Line, refLineNumbers(rs), ap.Name, name))
	switch a.c.Kind {
	case KindLogbackXML:
		apply = fmt.Sprintf("<appender name=%s class=\"ch.qos.logback.classic.AsyncAppender\">\n  <queueSize>8192</queueSize>\n  <neverBlock>true</neverBlock>\n  <appender-ref ref=%s/>\n</appender>\n%s",
			xa(name), xa(ap.Name), redirectRefs(rs, ap.Name, name, true))
	case KindLog4j2XML:
		apply = fmt.Sprintf("<Async name=%s bufferSize=\"8192\">\n  <AppenderRef ref=%s/>\n</Async>\n%s",
			xa(name), xa(ap.Name), redirectRefs(rs, ap.Name, name, true))
	case KindLog4j1XML:
		apply = fmt.Sprintf("<appender name=%s class=\"org.apache.log4j.AsyncAppender\">\n  <param name=\"BufferSize\" value=\"8192\"/>\n  <appender-ref ref=%s/>\n</appender>\n%s",
			xa(name), xa(ap.Name), redirectRefs(rs, ap.Name, name, true))
	case KindLog4j2Properties:
		k := propKey(name)
		apply = fmt.Sprintf("appender.%s.type = Async\nappender.%s.name = %s\nappender.%s.bufferSize = 8192\nappender.%s.appenderRef.0.ref = %s\n%s",
			k, k, name, k, k, ap.Name, redirectRefs(rs, ap.Name, name, false))
	default:
		return "", "", finding.Text{}, false
	}
	return apply, revert, finding.Join(where, reloadNote[a.lib]), true
}

// bufferFix turns off the per-event flush of a file appender.
func (a *Input) bufferFix(ap *Appender) (apply, revert string, note finding.Text) {
	where := finding.T(fmt.Sprintf("Set these on the appender %s defined at line %d. ", ap.Name, ap.Line),
		fmt.Sprintf("在第 %d 行定义的 Appender %s 上设置这些参数。", ap.Line, ap.Name))
	switch a.c.Kind {
	case KindLog4j1Properties:
		p := "log4j.appender." + ap.Name + "."
		apply = p + "ImmediateFlush=false\n" + p + "BufferedIO=true\n" + p + "BufferSize=8192"
		revert = strings.Join([]string{a.optLine(ap.ImmediateFlush, p+"ImmediateFlush=true"), a.optLine(ap.BufferedIO, p+"BufferedIO=false")}, "\n")
		if ap.BufferSize.Set {
			revert += "\n" + a.optLine(ap.BufferSize, "")
		}
	case KindLog4j1XML:
		apply = "<param name=\"ImmediateFlush\" value=\"false\"/>\n<param name=\"BufferedIO\" value=\"true\"/>\n<param name=\"BufferSize\" value=\"8192\"/>"
		revert = a.optLine(ap.ImmediateFlush, "<param name=\"ImmediateFlush\" value=\"true\"/>") + "\n" + a.optLine(ap.BufferedIO, "<param name=\"BufferedIO\" value=\"false\"/>")
	case KindLog4j2XML:
		set := []attr{{"immediateFlush", "false"}, {"bufferedIO", "true"}, {"bufferSize", "262144"}}
		if alwaysBuffered(ap.Class) {
			set = set[:1]
		}
		apply = renderTag(tagName(ap), ap.attrs, set...)
		revert = ap.StartTag
	case KindLog4j2Properties:
		p := "appender." + ap.key + "."
		apply = p + "immediateFlush = false\n" + p + "bufferedIO = true\n" + p + "bufferSize = 262144"
		revert = a.optLine(ap.ImmediateFlush, p+"immediateFlush = true") + "\n" + a.optLine(ap.BufferedIO, p+"bufferedIO = true") + "\n" + a.optLine(ap.BufferSize, p+"bufferSize = 8192")
		if alwaysBuffered(ap.Class) {
			apply = p + "immediateFlush = false"
			revert = a.optLine(ap.ImmediateFlush, p+"immediateFlush = true")
		}
	case KindLogbackXML:
		apply = "<immediateFlush>false</immediateFlush>"
		revert = a.optLine(ap.ImmediateFlush, "<immediateFlush>true</immediateFlush>")
		where = finding.Join(where, finding.T("(logback before 1.2 reads immediateFlush inside <encoder>.) ", "（logback 1.2 之前的版本需写在 <encoder> 内。）"))
	}
	return apply, revert, finding.Join(where, reloadNote[a.lib])
}

// tagName is the element name an appender was written with.
func tagName(ap *Appender) string { return tagOf(ap.StartTag, ap.Class) }

// tagOf is the element name of a start tag as written, or def.
func tagOf(start, def string) string {
	t := strings.TrimPrefix(strings.TrimSpace(start), "<")
	if i := strings.IndexAny(t, " \t\r\n/>"); i >= 0 {
		t = t[:i]
	}
	if t == "" {
		return def
	}
	return t
}

func alwaysBuffered(plugin string) bool {
	switch strings.ToLower(plugin) {
	case "randomaccessfile", "rollingrandomaccessfile", "memorymappedfile":
		return true
	}
	return false
}

// levelFix sets the root logger's level to INFO.
func (a *Input) levelFix(r *Logger) (apply, revert string) {
	switch a.c.Kind {
	case KindLog4j1Properties:
		k, v := splitProp(r.Snippet)
		apply = k + "=INFO"
		if _, refs, ok := strings.Cut(v, ","); ok {
			apply += "," + refs
		}
		return apply, r.Snippet
	case KindLog4j2Properties:
		if r.Level.Set {
			t := a.lineText(r.Level.Line)
			return replaceLast(t, r.Level.Raw, "info"), t
		}
		return r.key + ".level = info", ""
	case KindLog4j1XML:
		if r.Level.Set {
			t := a.lineText(r.Level.Line)
			return replaceLast(t, xa(r.Level.Raw), "\"INFO\""), t
		}
		return "<level value=\"INFO\"/>", ""
	}
	// logback, log4j2 XML: the level attribute (or a <level> child).
	if r.Level.Set && r.Level.Line != r.Line {
		t := a.lineText(r.Level.Line)
		return replaceLast(t, r.Level.Raw, "INFO"), t
	}
	if r.StartTag == "" {
		return "<root level=\"INFO\">", ""
	}
	return renderTag(tagOf(r.StartTag, "root"), r.attrs, attr{"level", "INFO"}), r.StartTag
}

// removeRef cuts a reference out of a logger's text, with its line when it
// stood alone.
func removeRef(snippet, ref string) string {
	i := strings.Index(snippet, ref)
	if i < 0 || ref == "" {
		return snippet
	}
	ls := strings.LastIndexByte(snippet[:i], '\n') + 1
	le := strings.IndexByte(snippet[i+len(ref):], '\n')
	if le >= 0 && strings.TrimSpace(snippet[ls:i]) == "" && strings.TrimSpace(snippet[i+len(ref):i+len(ref)+le]) == "" {
		return snippet[:ls] + snippet[i+len(ref)+le+1:]
	}
	return snippet[:i] + snippet[i+len(ref):]
}

// withoutRef is the logger's definition without the reference to name.
func (a *Input) withoutRef(l *Logger, name string) (apply, revert string) {
	switch a.c.Kind {
	case KindLog4j1Properties:
		k, v := splitProp(l.Snippet)
		parts := strings.Split(v, ",")
		var keep []string
		for i, p := range parts {
			if i == 0 || strings.TrimSpace(p) != name {
				keep = append(keep, strings.TrimSpace(p))
			}
		}
		return k + "=" + strings.Join(keep, ", "), l.Snippet
	case KindLog4j2Properties:
		for _, r := range l.Refs {
			if r.Name == name {
				if strings.Contains(r.Text, ",") { // shorthand rootLogger = INFO, A, B
					k, v := splitProp(r.Text)
					var keep []string
					for i, p := range strings.Split(v, ",") {
						if i == 0 || strings.TrimSpace(p) != name {
							keep = append(keep, strings.TrimSpace(p))
						}
					}
					return k + " = " + strings.Join(keep, ", "), r.Text
				}
				return "# " + r.Text, r.Text
			}
		}
	}
	s := l.Snippet
	for _, r := range l.Refs {
		if r.Name == name {
			s = removeRef(s, r.Text)
		}
	}
	return s, l.Snippet
}

// Location converters: logback %caller %C %class %F %file %L %line %M
// %method; log4j %C %F %l %L %M (%location in log4j2).
var locationConv = regexp.MustCompile(`%-?\d*(?:\.-?\d+)?(caller|class|file|line|method|location|C|F|L|M|l)\b(?:\{[^}]*\})?`)

// logback %lo/%logger start with l: a bare %l is log4j's location, which
// logback does not have; keep logback's words intact by matching whole words.
func locationWords(pattern string, lib Library) []string {
	var out []string
	for _, m := range locationConv.FindAllStringSubmatchIndex(pattern, -1) {
		if m[0] > 0 && pattern[m[0]-1] == '%' { // %%
			continue
		}
		word := pattern[m[2]:m[3]]
		if lib == Logback && word == "l" {
			continue
		}
		if lib == Log4j1 && len(word) > 1 {
			continue
		}
		out = append(out, pattern[m[0]:m[1]])
	}
	return out
}

// stripLocation removes location converters, and the punctuation left
// around them, from the space-separated parts of the pattern that had them.
func stripLocation(pattern string, lib Library) string {
	fields := strings.Split(pattern, " ")
	out := fields[:0]
	for _, f := range fields {
		words := locationWords(f, lib)
		if len(words) == 0 {
			out = append(out, f)
			continue
		}
		for _, w := range words {
			f = strings.Replace(f, w, "", 1)
		}
		for changed := true; changed; {
			before := f
			for _, junk := range []string{`\(\)`, `\(:\)`, `\(.\)`, "()", "(:)", "(.)", "[]", "[:]"} {
				f = strings.ReplaceAll(f, junk, "")
			}
			f = strings.Trim(f, ".:")
			changed = f != before
		}
		if strings.Trim(f, `.:()[]\`) == "" {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}
