package logconf

// java.util.Properties text, the container of log4j.properties and
// log4j2.properties. Sample:
//
//	# comment
//	log4j.appender.FILE.File=/app/logs/app.log
//	appender.rolling.fileName = ${filename}
//	log4j.appender.FILE.layout.ConversionPattern=%d %-5p [%t] %c - \
//	    %m%n

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/units"
)

// prop is one key=value entry of a Java .properties file.
type prop struct {
	Key, Value string
	Line       int    // line of the key (first physical line)
	EndLine    int    // last physical line (continuations)
	Text       string // the entry as written
}

// parseProps reads the java.util.Properties format: '#'/'!' comments,
// key=value, key:value or key value, backslash continuations and escapes.
// It never fails: a line that is not an entry is skipped, as Java does.
func parseProps(src string) (entries []prop, lines []string) {
	src = strings.TrimPrefix(src, "\uFEFF")
	lines = strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimLeft(lines[i], " \t\f")
		if raw == "" || raw[0] == '#' || raw[0] == '!' {
			continue
		}
		start := i
		logical := raw
		for continued(logical) && i+1 < len(lines) {
			i++
			logical = logical[:len(logical)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		if continued(logical) {
			logical = logical[:len(logical)-1]
		}
		k, v := splitProp(logical)
		entries = append(entries, prop{Key: unescapeProp(k), Value: strings.TrimSpace(unescapeProp(v)), Line: start + 1, EndLine: i + 1,
			Text: strings.Join(lines[start:i+1], "\n")})
	}
	return entries, lines
}

// continued reports an odd number of trailing backslashes.
func continued(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func splitProp(s string) (key, val string) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(s) {
		i = len(s)
	}
	key = s[:i]
	rest := strings.TrimLeft(s[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

func unescapeProp(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 <= len(s) {
				if n, ok := units.ParseHex(s[i+1 : i+5]); ok {
					b.WriteRune(rune(n))
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
