package logconf

// log4j2 XML configuration (log4j2.xml, log4j2-spring.xml). Sample:
//
//	<Configuration status="WARN">
//	  <Appenders>
//	    <RollingFile name="RollingFile" fileName="logs/app.log" filePattern="logs/app-%d{yyyy-MM-dd}-%i.log.gz">
//	  <Loggers>
//	    <Root level="info"><AppenderRef ref="RollingFile"/></Root>

import (
	"io"
	"strings"
)

// ParseLog4j2XML reads a log4j2 XML configuration (concise or strict form).
func ParseLog4j2XML(r io.Reader) (*Config, error) { return parseXMLWith(r, log4j2FromDoc) }

func log4j2FromDoc(d *doc) (*Config, error) {
	if !strings.EqualFold(d.Root.Name, "configuration") {
		return nil, &ParseError{Line: d.Root.Line, Msg: "not a log4j2 configuration: root element <" + qname(d.Root) + ">"}
	}
	c := &Config{Kind: KindLog4j2XML, Properties: map[string]string{}, lines: strings.Split(string(d.Src), "\n")}
	if v, ok := d.Root.attr("status"); ok {
		c.Status = Opt{Set: true, Raw: v, Line: d.Root.Line}
	}
	x := &log4j2Reader{d: d, c: c}
	for _, n := range d.Root.Children {
		if strings.EqualFold(n.Name, "Properties") {
			for _, p := range n.Children {
				if name := p.attrOr("name"); name != "" {
					v := p.Text
					if a, ok := p.attr("value"); ok {
						v = a
					}
					c.Properties[name] = v
				}
			}
		}
	}
	for _, n := range d.Root.Children {
		switch strings.ToLower(n.Name) {
		case "appenders":
			for _, a := range n.Children {
				x.appender(a, "")
			}
		case "loggers":
			for _, l := range n.Children {
				x.logger(l)
			}
		}
	}
	return c, nil
}

type log4j2Reader struct {
	d *doc
	c *Config
}

func (x *log4j2Reader) attrOpt(n *node, name string) Opt {
	if v, ok := n.attr(name); ok {
		return Opt{Set: true, Raw: subst(v, x.c.Properties), Line: n.Line}
	}
	return Opt{}
}

func (x *log4j2Reader) ref(n *node) Ref {
	return Ref{Name: subst(n.attrOr("ref"), x.c.Properties), Line: n.Line, Text: x.d.text(n.Start, n.End)}
}

// pluginName is the element name, or the type attribute in strict form.
func pluginName(n *node) string {
	if t, ok := n.attr("type"); ok && (strings.EqualFold(n.Name, "Appender") || strings.EqualFold(n.Name, "Logger") || strings.EqualFold(n.Name, "Root") || strings.EqualFold(n.Name, "Layout")) {
		return t
	}
	return n.Name
}

func (x *log4j2Reader) appender(n *node, parent string) {
	class := pluginName(n)
	t, guessed := classifyPlugin(class)
	a := &Appender{Name: subst(n.attrOr("name"), x.c.Properties), Class: class, Type: t, Guessed: guessed, Line: n.Line, Parent: parent,
		Snippet: x.d.block(n.Start, n.End), StartTag: x.d.block(n.Start, n.TagEnd), attrs: n.Attrs}
	a.File = x.attrOpt(n, "fileName")
	a.ImmediateFlush = x.attrOpt(n, "immediateFlush")
	a.BufferedIO = x.attrOpt(n, "bufferedIO")
	if t == TypeAsync {
		a.QueueSize = x.attrOpt(n, "bufferSize")
		a.Blocking = x.attrOpt(n, "blocking")
		a.CallerData = x.attrOpt(n, "includeLocation")
	} else {
		a.BufferSize = x.attrOpt(n, "bufferSize")
	}
	a.Target = x.attrOpt(n, "target")
	x.c.Appenders = append(x.c.Appenders, a)
	for _, ch := range n.Children {
		switch strings.ToLower(pluginName(ch)) {
		case "appenderref":
			a.Refs = append(a.Refs, x.ref(ch))
		case "patternlayout":
			if p := x.attrOpt(ch, "pattern"); p.Set {
				a.Pattern = p
			} else if pc := ch.child("Pattern"); pc != nil {
				a.Pattern = Opt{Set: true, Raw: subst(pc.Text, x.c.Properties), Line: pc.Line}
			}
		case "routes":
			for _, route := range ch.Children {
				if !strings.EqualFold(route.Name, "Route") {
					continue
				}
				if r, ok := route.attr("ref"); ok {
					a.Refs = append(a.Refs, Ref{Name: subst(r, x.c.Properties), Line: route.Line, Text: x.d.text(route.Start, route.End)})
				}
				for _, inner := range route.Children {
					x.appender(inner, a.Name)
				}
			}
		case "failovers":
			for _, r := range ch.Children {
				if strings.EqualFold(pluginName(r), "AppenderRef") {
					a.Refs = append(a.Refs, x.ref(r))
				}
			}
		}
	}
	if p, ok := n.attr("primary"); ok {
		a.Refs = append(a.Refs, Ref{Name: subst(p, x.c.Properties), Line: n.Line, Text: a.StartTag})
	}
}

func (x *log4j2Reader) logger(n *node) {
	kind := strings.ToLower(pluginName(n))
	var l *Logger
	switch kind {
	case "root", "asyncroot":
		l = x.c.root(n.Line)
	case "logger", "asynclogger":
		l = x.c.logger(subst(n.attrOrDefault("name", ""), x.c.Properties), n.Line)
	default:
		return
	}
	l.Async = l.Async || strings.HasPrefix(kind, "async")
	l.Line = n.Line
	l.Snippet, l.StartTag, l.attrs = x.d.block(n.Start, n.End), x.d.block(n.Start, n.TagEnd), n.Attrs
	if o := x.attrOpt(n, "level"); o.Set {
		l.Level = o
	}
	if o := x.attrOpt(n, "additivity"); o.Set {
		l.Additivity = o
	}
	if o := x.attrOpt(n, "includeLocation"); o.Set {
		l.CallerData = o
	}
	for _, ch := range n.Children {
		if strings.EqualFold(pluginName(ch), "AppenderRef") {
			l.Refs = append(l.Refs, x.ref(ch))
		}
	}
}

func (n *node) attrOrDefault(name, def string) string {
	if v, ok := n.attr(name); ok {
		return v
	}
	return def
}
