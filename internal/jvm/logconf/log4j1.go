package logconf

// log4j 1.x configuration: log4j.properties (PropertyConfigurator). Sample:
//
//	log4j.rootLogger=INFO, FILE, stdout
//	log4j.appender.FILE=org.apache.log4j.DailyRollingFileAppender
//	log4j.appender.FILE.File=/app/logs/app.log
//	log4j.appender.FILE.ImmediateFlush=true
//	log4j.appender.FILE.layout.ConversionPattern=%d{yyyy-MM-dd HH:mm:ss} %-5p [%t] %c{1}:%L - %m%n

import (
	"io"
	"sort"
	"strings"
)

// ParseLog4j1Properties reads a log4j 1.x properties configuration.
func ParseLog4j1Properties(r io.Reader) (*Config, error) {
	src, err := readAll(r)
	if err != nil {
		return nil, err
	}
	entries, lines := parseProps(string(toUTF8(src)))
	c := &Config{Kind: KindLog4j1Properties, Properties: map[string]string{}, lines: lines}
	const ap = "log4j.appender."
	// Appender names: keys log4j.appender.NAME whose value is a class name,
	// shortest first so NAME.layout=... is an option of NAME.
	type cand struct {
		name string
		e    prop
	}
	var cands []cand
	for _, e := range entries {
		if strings.HasPrefix(e.Key, ap) && len(e.Key) > len(ap) {
			cands = append(cands, cand{e.Key[len(ap):], e})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].name) < len(cands[j].name) })
	byName := map[string]*Appender{}
	var names []string
	for _, cd := range cands {
		if !looksLikeClass(cd.e.Value) || ownerOf(cd.name, names) != "" {
			continue
		}
		t, guessed := classify(cd.e.Value)
		a := &Appender{Name: cd.name, Class: cd.e.Value, Type: t, Guessed: guessed, Line: cd.e.Line}
		byName[cd.name] = a
		names = append(names, cd.name)
	}
	snippets := map[string][]string{}
	for _, e := range entries {
		k, v := e.Key, e.Value
		switch {
		case k == "log4j.rootLogger" || k == "log4j.rootCategory":
			root := c.root(e.Line)
			log4j1Logger(root, e)
		case strings.HasPrefix(k, "log4j.logger.") || strings.HasPrefix(k, "log4j.category."):
			name := k[strings.IndexByte(k[6:], '.')+7:]
			log4j1Logger(c.logger(name, e.Line), e)
		case strings.HasPrefix(k, "log4j.additivity."):
			l := c.logger(k[len("log4j.additivity."):], e.Line)
			l.Additivity = Opt{Set: true, Raw: v, Line: e.Line}
		case k == "log4j.debug":
			c.Status = Opt{Set: true, Raw: v, Line: e.Line}
		case strings.HasPrefix(k, ap):
			rest := k[len(ap):]
			owner := ownerOf(rest, names)
			if owner == "" {
				if a := byName[rest]; a != nil {
					snippets[rest] = append(snippets[rest], e.Text)
				}
				continue
			}
			a := byName[owner]
			snippets[owner] = append(snippets[owner], e.Text)
			o := Opt{Set: true, Raw: v, Line: e.Line}
			switch strings.ToLower(rest[len(owner)+1:]) {
			case "file":
				a.File = o
			case "immediateflush":
				a.ImmediateFlush = o
			case "bufferedio":
				a.BufferedIO = o
			case "buffersize":
				if a.Type == TypeAsync {
					a.QueueSize = o
				} else {
					a.BufferSize = o
				}
			case "blocking":
				a.Blocking = o
			case "locationinfo":
				a.CallerData = o
			case "layout.conversionpattern":
				a.Pattern = o
			case "target":
				a.Target = o
			}
		default:
			if strings.HasPrefix(k, "log4j.") {
				continue
			}
			c.Properties[k] = v
		}
	}
	for _, n := range names {
		a := byName[n]
		a.Snippet = strings.Join(snippets[n], "\n")
		c.Appenders = append(c.Appenders, a)
	}
	sort.SliceStable(c.Appenders, func(i, j int) bool { return c.Appenders[i].Line < c.Appenders[j].Line })
	return c, nil
}

// log4j1Logger reads "LEVEL, APPENDER, APPENDER" (the level may be empty or
// "inherited").
func log4j1Logger(l *Logger, e prop) {
	l.Line, l.Snippet = e.Line, e.Text
	parts := strings.Split(e.Value, ",")
	if lv := strings.TrimSpace(parts[0]); lv != "" && !strings.EqualFold(lv, "inherited") && !strings.EqualFold(lv, "null") {
		l.Level = Opt{Set: true, Raw: lv, Line: e.Line}
	}
	l.Refs = nil // a later line replaces the earlier one, as in Properties
	for _, p := range parts[1:] {
		if p = strings.TrimSpace(p); p != "" {
			l.Refs = append(l.Refs, Ref{Name: p, Line: e.Line, Text: e.Text})
		}
	}
}

// ownerOf returns the appender name that key (NAME.option) belongs to.
func ownerOf(key string, names []string) string {
	best := ""
	for _, n := range names {
		if strings.HasPrefix(key, n+".") && len(n) > len(best) {
			best = n
		}
	}
	return best
}

func looksLikeClass(v string) bool {
	if v == "" || !strings.Contains(v, ".") {
		return false
	}
	for _, r := range v {
		if !(r == '.' || r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
