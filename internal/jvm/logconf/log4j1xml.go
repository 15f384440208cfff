package logconf

// log4j 1.x configuration: log4j.xml (DOMConfigurator). Sample:
//
//	<log4j:configuration xmlns:log4j="http://jakarta.apache.org/log4j/">
//	  <appender name="ASYNC" class="org.apache.log4j.AsyncAppender">
//	    <param name="BufferSize" value="512"/>
//	    <appender-ref ref="FILE"/>

import (
	"io"
	"strings"
)

// ParseLog4j1XML reads a log4j 1.x XML configuration.
func ParseLog4j1XML(r io.Reader) (*Config, error) { return parseXMLWith(r, log4j1FromDoc) }

func log4j1FromDoc(d *doc) (*Config, error) {
	if !strings.EqualFold(d.Root.Name, "configuration") {
		return nil, &ParseError{Line: d.Root.Line, Msg: "not a log4j 1.x configuration: root element <" + qname(d.Root) + ">"}
	}
	c := &Config{Kind: KindLog4j1XML, Properties: map[string]string{}, lines: strings.Split(string(d.Src), "\n")}
	if v, ok := d.Root.attr("debug"); ok {
		c.Status = Opt{Set: true, Raw: v, Line: d.Root.Line}
	}
	ref := func(n *node) Ref { return Ref{Name: n.attrOr("ref"), Line: n.Line, Text: d.text(n.Start, n.End)} }
	for _, n := range d.Root.Children {
		switch strings.ToLower(n.Name) {
		case "appender":
			class := n.attrOr("class")
			t, guessed := classify(class)
			a := &Appender{Name: n.attrOr("name"), Class: class, Type: t, Guessed: guessed, Line: n.Line,
				Snippet: d.block(n.Start, n.End), StartTag: d.block(n.Start, n.TagEnd), attrs: n.Attrs}
			for _, ch := range n.Children {
				switch strings.ToLower(ch.Name) {
				case "param":
					o := Opt{Set: true, Raw: ch.attrOr("value"), Line: ch.Line}
					switch strings.ToLower(ch.attrOr("name")) {
					case "file":
						a.File = o
					case "immediateflush":
						a.ImmediateFlush = o
					case "bufferedio":
						a.BufferedIO = o
					case "buffersize":
						if t == TypeAsync {
							a.QueueSize = o
						} else {
							a.BufferSize = o
						}
					case "blocking":
						a.Blocking = o
					case "locationinfo":
						a.CallerData = o
					case "target":
						a.Target = o
					}
				case "layout":
					for _, p := range ch.Children {
						if strings.EqualFold(p.attrOr("name"), "ConversionPattern") {
							a.Pattern = Opt{Set: true, Raw: p.attrOr("value"), Line: p.Line}
						}
					}
				case "appender-ref":
					a.Refs = append(a.Refs, ref(ch))
				}
			}
			c.Appenders = append(c.Appenders, a)
		case "logger", "category", "root":
			var l *Logger
			if strings.EqualFold(n.Name, "root") {
				l = c.root(n.Line)
			} else {
				l = c.logger(n.attrOr("name"), n.Line)
			}
			l.Line, l.Snippet, l.StartTag, l.attrs = n.Line, d.block(n.Start, n.End), d.block(n.Start, n.TagEnd), n.Attrs
			if v, ok := n.attr("additivity"); ok {
				l.Additivity = Opt{Set: true, Raw: v, Line: n.Line}
			}
			for _, ch := range n.Children {
				switch strings.ToLower(ch.Name) {
				case "level", "priority":
					l.Level = Opt{Set: true, Raw: ch.attrOr("value"), Line: ch.Line}
				case "appender-ref":
					l.Refs = append(l.Refs, ref(ch))
				}
			}
		}
	}
	return c, nil
}
