package logconf

// log4j2 properties configuration (log4j2.properties). Sample:
//
//	appender.rolling.type = RollingFile
//	appender.rolling.name = RollingFile
//	appender.rolling.fileName = ${filename}
//	rootLogger.level = info
//	rootLogger.appenderRef.rolling.ref = RollingFile

import (
	"io"
	"sort"
	"strings"
)

// ParseLog4j2Properties reads a log4j2 properties configuration.
func ParseLog4j2Properties(r io.Reader) (*Config, error) {
	src, err := readAll(r)
	if err != nil {
		return nil, err
	}
	entries, lines := parseProps(string(toUTF8(src)))
	c := &Config{Kind: KindLog4j2Properties, Properties: map[string]string{}, lines: lines}
	for _, e := range entries {
		if strings.HasPrefix(e.Key, "property.") {
			c.Properties[e.Key[len("property."):]] = e.Value
		}
	}
	type group struct {
		line    int
		entries []prop
	}
	appenders := map[string]*group{}
	loggers := map[string]*group{}
	var appOrder, logOrder []string
	var rootEntries []prop
	add := func(m map[string]*group, order *[]string, id string, e prop) {
		g := m[id]
		if g == nil {
			g = &group{line: e.Line}
			m[id] = g
			*order = append(*order, id)
		}
		g.entries = append(g.entries, e)
	}
	for _, e := range entries {
		e.Value = subst(e.Value, c.Properties)
		k := e.Key
		switch {
		case strings.EqualFold(k, "status"):
			c.Status = Opt{Set: true, Raw: e.Value, Line: e.Line}
		case strings.HasPrefix(k, "appender."):
			id, _, _ := strings.Cut(k[len("appender."):], ".")
			add(appenders, &appOrder, id, e)
		case strings.HasPrefix(k, "logger."):
			id, _, _ := strings.Cut(k[len("logger."):], ".")
			add(loggers, &logOrder, id, e)
		case k == "rootLogger" || strings.HasPrefix(k, "rootLogger."):
			rootEntries = append(rootEntries, e)
		}
	}
	for _, id := range appOrder {
		g := appenders[id]
		a := &Appender{Name: id, Line: g.line, key: id}
		var texts []string
		for _, e := range g.entries {
			texts = append(texts, e.Text)
			sub := strings.TrimPrefix(e.Key[len("appender.")+len(id):], ".")
			o := Opt{Set: true, Raw: e.Value, Line: e.Line}
			switch low := strings.ToLower(sub); {
			case low == "type":
				a.Class, a.Line = e.Value, e.Line
			case low == "name":
				a.Name = e.Value
			case low == "filename":
				a.File = o
			case low == "immediateflush":
				a.ImmediateFlush = o
			case low == "bufferedio":
				a.BufferedIO = o
			case low == "buffersize":
				a.BufferSize = o
			case low == "blocking":
				a.Blocking = o
			case low == "includelocation":
				a.CallerData = o
			case low == "target":
				a.Target = o
			case low == "layout.pattern":
				a.Pattern = o
			case strings.HasPrefix(low, "appenderref") && strings.HasSuffix(low, ".ref"), low == "primary":
				a.Refs = append(a.Refs, Ref{Name: e.Value, Line: e.Line, Text: e.Text})
			}
		}
		a.Type, a.Guessed = classifyPlugin(a.Class)
		if a.Class == "" {
			a.Type, a.Guessed = TypeOther, true
		}
		if a.Type == TypeAsync {
			a.QueueSize, a.BufferSize = a.BufferSize, Opt{}
		}
		a.Snippet = strings.Join(texts, "\n")
		c.Appenders = append(c.Appenders, a)
	}
	if len(rootEntries) > 0 {
		r := c.root(rootEntries[0].Line)
		log4j2PropsLogger(r, "rootLogger", rootEntries)
	}
	for _, id := range logOrder {
		g := loggers[id]
		name := id
		for _, e := range g.entries {
			if strings.EqualFold(e.Key, "logger."+id+".name") {
				name = e.Value
			}
		}
		l := c.logger(name, g.line)
		log4j2PropsLogger(l, "logger."+id, g.entries)
	}
	sort.SliceStable(c.Appenders, func(i, j int) bool { return c.Appenders[i].Line < c.Appenders[j].Line })
	return c, nil
}

func log4j2PropsLogger(l *Logger, prefix string, entries []prop) {
	var texts []string
	l.Line, l.key = entries[0].Line, prefix
	for _, e := range entries {
		texts = append(texts, e.Text)
		o := Opt{Set: true, Raw: e.Value, Line: e.Line}
		sub := strings.ToLower(strings.TrimPrefix(e.Key[len(prefix):], "."))
		switch {
		case sub == "":
			// Shorthand (2.17.2+): rootLogger = INFO, STDOUT
			parts := strings.Split(e.Value, ",")
			if lv := strings.TrimSpace(parts[0]); lv != "" {
				l.Level = Opt{Set: true, Raw: lv, Line: e.Line}
			}
			for _, p := range parts[1:] {
				if p = strings.TrimSpace(p); p != "" {
					l.Refs = append(l.Refs, Ref{Name: p, Line: e.Line, Text: e.Text})
				}
			}
		case sub == "level":
			l.Level = o
		case sub == "type":
			l.Async = strings.HasPrefix(strings.ToLower(e.Value), "async")
		case sub == "additivity":
			l.Additivity = o
		case sub == "includelocation":
			l.CallerData = o
		case strings.HasPrefix(sub, "appenderref") && strings.HasSuffix(sub, ".ref"):
			l.Refs = append(l.Refs, Ref{Name: e.Value, Line: e.Line, Text: e.Text})
		}
	}
	l.Snippet = strings.Join(texts, "\n")
}
