package logconf

// logback XML configuration (logback.xml, logback-spring.xml). Sample:
//
//	<appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">
//	  <file>${LOG_HOME}/app.log</file>
//	  <encoder><pattern>%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n</pattern></encoder>
//	</appender>
//	<root level="INFO"><appender-ref ref="FILE"/></root>

import (
	"io"
	"strings"
)

// ParseLogback reads a logback XML configuration.
func ParseLogback(r io.Reader) (*Config, error) { return parseXMLWith(r, logbackFromDoc) }

func logbackFromDoc(d *doc) (*Config, error) {
	if !strings.EqualFold(d.Root.Name, "configuration") {
		return nil, &ParseError{Line: d.Root.Line, Msg: "not a logback configuration: root element <" + qname(d.Root) + ">"}
	}
	c := &Config{Kind: KindLogbackXML, Properties: map[string]string{}, lines: strings.Split(string(d.Src), "\n")}
	if v, ok := d.Root.attr("debug"); ok {
		c.Status = Opt{Set: true, Raw: v, Line: d.Root.Line}
	}
	// Properties first: logback substitutes in document order, but a
	// configuration rarely uses a variable before defining it.
	d.Root.walk(func(n *node, _ int) {
		switch strings.ToLower(n.Name) {
		case "property", "variable":
			if name := n.attrOr("name"); name != "" {
				if v, ok := n.attr("value"); ok {
					c.Properties[name] = v
				} else if n.Text != "" {
					c.Properties[name] = n.Text
				}
			}
		case "springproperty":
			if name := n.attrOr("name"); name != "" {
				if v, ok := n.attr("defaultValue"); ok {
					c.Properties[name] = v
				}
			}
		}
	}, 0)
	lb := &logbackReader{d: d, c: c}
	lb.children(d.Root, "")
	return c, nil
}

type logbackReader struct {
	d *doc
	c *Config
}

func (lb *logbackReader) opt(n *node) Opt {
	line := n.TextLine
	if line == 0 {
		line = n.Line
	}
	v := n.Text
	if a, ok := n.attr("value"); ok && v == "" {
		v, line = a, n.Line
	}
	return Opt{Set: true, Raw: subst(v, lb.c.Properties), Line: line}
}

func (lb *logbackReader) children(parent *node, profile string) {
	for _, n := range parent.Children {
		switch strings.ToLower(n.Name) {
		case "appender":
			lb.appender(n, profile, "")
		case "logger":
			name := subst(n.attrOr("name"), lb.c.Properties)
			lb.logger(lb.c.logger(name, n.Line), n, profile)
		case "root":
			lb.logger(lb.c.root(n.Line), n, profile)
		case "springprofile":
			p := n.attrOr("name")
			if profile != "" {
				p = profile + " & " + p
			}
			lb.children(n, p)
		case "if", "then", "else":
			// Janino conditionals: both branches are taken as possible.
			lb.children(n, profile)
		case "include":
			lb.include(n, profile)
		}
	}
}

func (lb *logbackReader) logger(l *Logger, n *node, profile string) {
	if l.Snippet == "" {
		l.Line, l.Profile = n.Line, profile
		l.Snippet, l.StartTag, l.attrs = lb.d.block(n.Start, n.End), lb.d.block(n.Start, n.TagEnd), n.Attrs
	}
	setLevel := func(o Opt) {
		// A level from a development profile does not hide another block's.
		if l.Level.Set && isDevProfile(profile) && !isDevProfile(l.levelProfile) {
			return
		}
		l.Level, l.levelProfile = o, profile
	}
	if v, ok := n.attr("level"); ok {
		setLevel(Opt{Set: true, Raw: subst(v, lb.c.Properties), Line: n.Line})
	}
	if v, ok := n.attr("additivity"); ok {
		l.Additivity = Opt{Set: true, Raw: subst(v, lb.c.Properties), Line: n.Line}
	}
	for _, ch := range n.Children {
		switch strings.ToLower(ch.Name) {
		case "level":
			setLevel(lb.opt(ch))
		case "appender-ref":
			l.Refs = append(l.Refs, Ref{Name: subst(ch.attrOr("ref"), lb.c.Properties), Line: ch.Line, Profile: profile, Text: lb.d.text(ch.Start, ch.End)})
		}
	}
}

func (lb *logbackReader) appender(n *node, profile, parent string) {
	class := strings.TrimSpace(n.attrOr("class"))
	t, guessed := classify(class)
	a := &Appender{Name: subst(n.attrOr("name"), lb.c.Properties), Class: class, Type: t, Guessed: guessed, Line: n.Line,
		Parent: parent, Profile: profile, Snippet: lb.d.block(n.Start, n.End), StartTag: lb.d.block(n.Start, n.TagEnd), attrs: n.Attrs}
	lb.c.Appenders = append(lb.c.Appenders, a)
	var visit func(p *node, depth int)
	visit = func(p *node, depth int) {
		for _, ch := range p.Children {
			switch strings.ToLower(ch.Name) {
			case "sift":
				for _, s := range ch.Children {
					if strings.EqualFold(s.Name, "appender") {
						lb.appender(s, profile, a.Name)
					}
				}
				continue
			case "appender-ref":
				if depth == 0 {
					a.Refs = append(a.Refs, Ref{Name: subst(ch.attrOr("ref"), lb.c.Properties), Line: ch.Line, Profile: profile, Text: lb.d.text(ch.Start, ch.End)})
				}
				continue
			case "file":
				if depth == 0 {
					a.File = lb.opt(ch)
				}
			case "filenamepattern":
				if !a.File.Set {
					a.File = lb.opt(ch)
				}
			case "immediateflush":
				a.ImmediateFlush = lb.opt(ch)
			case "prudent":
				a.Prudent = lb.opt(ch)
			case "buffersize":
				a.BufferSize = lb.opt(ch)
			case "queuesize":
				a.QueueSize = lb.opt(ch)
			case "discardingthreshold":
				a.DiscardingThreshold = lb.opt(ch)
			case "neverblock":
				a.NeverBlock = lb.opt(ch)
			case "includecallerdata":
				a.CallerData = lb.opt(ch)
			case "pattern":
				if !a.Pattern.Set {
					a.Pattern = lb.opt(ch)
				}
			case "target":
				a.Target = lb.opt(ch)
			}
			if depth < 3 && len(ch.Children) > 0 {
				visit(ch, depth+1)
			}
		}
	}
	visit(n, 0)
}

// Spring Boot's own logback resources, which define appenders a
// logback-spring.xml refers to by name.
var springBootIncludes = map[string][]struct{ name, class, file string }{
	"org/springframework/boot/logging/logback/console-appender.xml": {{"CONSOLE", "ch.qos.logback.core.ConsoleAppender", ""}},
	"org/springframework/boot/logging/logback/file-appender.xml":    {{"FILE", "ch.qos.logback.core.rolling.RollingFileAppender", "${LOG_FILE}"}},
	"org/springframework/boot/logging/logback/base.xml": {
		{"CONSOLE", "ch.qos.logback.core.ConsoleAppender", ""},
		{"FILE", "ch.qos.logback.core.rolling.RollingFileAppender", "${LOG_FILE}"},
	},
}

func (lb *logbackReader) include(n *node, profile string) {
	target := n.attrOr("resource")
	if target == "" {
		target = n.attrOr("file")
	}
	if target == "" {
		target = n.attrOr("url")
	}
	target = subst(target, lb.c.Properties)
	known, ok := springBootIncludes[strings.TrimPrefix(target, "/")]
	lb.c.Includes = append(lb.c.Includes, Include{Target: target, Line: n.Line, Known: ok})
	text := lb.d.block(n.Start, n.End)
	for _, k := range known {
		if lb.c.Appender(k.name) != nil {
			continue
		}
		t, _ := classify(k.class)
		a := &Appender{Name: k.name, Class: k.class, Type: t, Line: n.Line, Profile: profile, Snippet: text}
		if k.file != "" {
			a.File = Opt{Set: true, Raw: k.file, Line: n.Line}
		}
		lb.c.Appenders = append(lb.c.Appenders, a)
	}
	if strings.HasSuffix(target, "logback/base.xml") {
		r := lb.c.root(n.Line)
		if !r.Level.Set {
			r.Level = Opt{Set: true, Raw: "INFO", Line: n.Line}
		}
		for _, name := range []string{"CONSOLE", "FILE"} {
			r.Refs = append(r.Refs, Ref{Name: name, Line: n.Line, Profile: profile, Text: text})
		}
		if r.Snippet == "" {
			r.Snippet = text
		}
	}
}
