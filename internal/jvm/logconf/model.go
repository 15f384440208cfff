package logconf

import (
	"strconv"
	"strings"
)

// Kind is the format of a logging configuration file.
type Kind int

const (
	KindUnknown Kind = iota
	KindLog4j1Properties
	KindLog4j1XML
	KindLog4j2XML
	KindLog4j2Properties
	KindLogbackXML
)

var kindNames = [...]string{"unknown", "log4j1-properties", "log4j1-xml", "log4j2-xml", "log4j2-properties", "logback-xml"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Library is the logging library a Kind configures.
func (k Kind) Library() Library {
	switch k {
	case KindLog4j1Properties, KindLog4j1XML:
		return Log4j1
	case KindLog4j2XML, KindLog4j2Properties:
		return Log4j2
	case KindLogbackXML:
		return Logback
	}
	return ""
}

// Library names a logging implementation.
type Library string

const (
	Log4j1  Library = "log4j 1.x"
	Log4j2  Library = "log4j2"
	Logback Library = "logback"
)

// Type classifies an appender by what it costs the thread that logs.
type Type string

const (
	// TypeSyncFile writes to a file on the caller's thread.
	TypeSyncFile Type = "sync-file"
	// TypeAsync hands events to a queue drained by a background thread.
	TypeAsync Type = "async"
	// TypeConsole writes to stdout/stderr on the caller's thread.
	TypeConsole Type = "console"
	// TypeSocket sends events over the network (syslog, TCP, Kafka...).
	TypeSocket Type = "socket"
	// TypeSifting routes each event to a child appender chosen per event
	// (logback SiftingAppender, log4j2 Routing).
	TypeSifting Type = "sifting"
	// TypeOther is anything else (JDBC, SMTP, custom classes not recognised).
	TypeOther Type = "other"
)

// Opt is one setting as written in the file: its raw text (after property
// substitution) and the line it is on. Set is false when the file does not
// mention it and the library default applies.
type Opt struct {
	Set  bool   `json:"set"`
	Raw  string `json:"raw,omitempty"`
	Line int    `json:"line,omitempty"`
}

func (o Opt) String() string { return o.Raw }

// Bool reads o as a boolean the way all three libraries do ("true" or
// "false", any case); def when unset or anything else (an unresolved
// ${placeholder}).
func (o Opt) Bool(def bool) bool {
	if !o.Set {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(o.Raw)) {
	case "true":
		return true
	case "false":
		return false
	}
	return def
}

// Int reads o as an integer; def when unset or not a number.
func (o Opt) Int(def int) int {
	if !o.Set {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(o.Raw))
	if err != nil {
		return def
	}
	return n
}

// Appender is one appender definition.
type Appender struct {
	Name string `json:"name"`
	// Class is the Java class (log4j 1.x, logback) or the plugin element or
	// type name (log4j2: "RollingFile", "Async").
	Class string `json:"class"`
	Type  Type   `json:"type"`
	// Guessed is true when Type comes from the class name only (a custom class).
	Guessed bool `json:"guessed,omitempty"`
	Line    int  `json:"line"`
	// Parent names the appender this one is nested in (a logback <sift>, a
	// log4j2 <Route>); "" for top-level appenders.
	Parent string `json:"parent,omitempty"`
	// Profile is the Spring profile expression of an enclosing <springProfile>.
	Profile string `json:"profile,omitempty"`

	File           Opt `json:"file"`
	ImmediateFlush Opt `json:"immediate_flush"`
	BufferedIO     Opt `json:"buffered_io"`
	BufferSize     Opt `json:"buffer_size"`
	Prudent        Opt `json:"prudent"`
	// QueueSize: logback AsyncAppender queueSize; log4j2 Async and log4j 1.x
	// AsyncAppender bufferSize.
	QueueSize           Opt `json:"queue_size"`
	DiscardingThreshold Opt `json:"discarding_threshold"`
	NeverBlock          Opt `json:"never_block"`
	Blocking            Opt `json:"blocking"`
	// CallerData: logback includeCallerData, log4j2 includeLocation, log4j
	// 1.x LocationInfo.
	CallerData Opt `json:"caller_data"`
	// Pattern is the layout's conversion pattern.
	Pattern Opt `json:"pattern"`
	// Target is the console target (System.out / SYSTEM_ERR).
	Target Opt `json:"target"`

	// Refs are the appenders this one forwards to (async, sifting, failover).
	Refs []Ref `json:"refs,omitempty"`

	// Snippet is the definition as written (XML element or property lines).
	Snippet string `json:"-"`
	// StartTag is the XML start tag as written ("" for properties).
	StartTag string `json:"-"`
	attrs    []attr
	key      string // log4j2 properties: the appender.<key>. component id
}

// Ref is a reference to an appender by name, where it is written.
type Ref struct {
	Name    string `json:"name"`
	Line    int    `json:"line"`
	Profile string `json:"profile,omitempty"`
	// Text is the reference as written (an XML element or a property line).
	Text string `json:"-"`
}

// Logger is one logger (or the root logger) and the appenders it names.
type Logger struct {
	// Name is "" for the root logger.
	Name  string `json:"name"`
	Root  bool   `json:"root,omitempty"`
	Level Opt    `json:"level"`
	// Async is true for log4j2 AsyncLogger / AsyncRoot.
	Async      bool   `json:"async,omitempty"`
	Additivity Opt    `json:"additivity"`
	CallerData Opt    `json:"caller_data"`
	Refs       []Ref  `json:"refs,omitempty"`
	Line       int    `json:"line"`
	Profile    string `json:"profile,omitempty"`
	Snippet    string `json:"-"`
	StartTag   string `json:"-"`
	attrs      []attr
	key        string // log4j2 properties: "rootLogger" or "logger.<key>"
	// levelProfile is the Spring profile of the block Level came from.
	levelProfile string
}

// Include is a logback <include> (not followed).
type Include struct {
	Target string `json:"target"`
	Line   int    `json:"line"`
	// Known is true for Spring Boot's own resources, whose appenders are
	// added to the model with this line.
	Known bool `json:"known,omitempty"`
}

// Config is one logging configuration file understood.
type Config struct {
	// Path is the name the file was read under, used in evidence sources.
	Path string `json:"path"`
	Kind Kind   `json:"kind"`

	Appenders []*Appender `json:"appenders"`
	// Loggers holds the root logger (first, when present) and named loggers.
	Loggers  []*Logger `json:"loggers"`
	Includes []Include `json:"includes,omitempty"`
	// Status is the log4j2 status attribute, the logback debug attribute or
	// log4j.debug.
	Status Opt `json:"status"`
	// Properties declared in the file (substitution variables).
	Properties map[string]string `json:"properties,omitempty"`

	lines []string // the file's lines, for snippets of properties files
}

// Appender returns the appender named name, or nil.
func (c *Config) Appender(name string) *Appender {
	for _, a := range c.Appenders {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Root returns the root logger, or nil when the file has none.
func (c *Config) Root() *Logger {
	for _, l := range c.Loggers {
		if l.Root {
			return l
		}
	}
	return nil
}

// logger returns the named logger (not the root), creating it.
func (c *Config) logger(name string, line int) *Logger {
	for _, l := range c.Loggers {
		if !l.Root && l.Name == name {
			return l
		}
	}
	l := &Logger{Name: name, Line: line}
	c.Loggers = append(c.Loggers, l)
	return l
}

// root returns the root logger, creating it first in the list.
func (c *Config) root(line int) *Logger {
	if r := c.Root(); r != nil {
		return r
	}
	r := &Logger{Root: true, Line: line}
	c.Loggers = append([]*Logger{r}, c.Loggers...)
	return r
}

// Display is a logger's name for people: "root" for the root logger.
func (l *Logger) Display() string {
	if l.Root {
		return "root"
	}
	return l.Name
}

// parent returns the nearest configured ancestor of l (by dotted name), or
// the root logger.
func (c *Config) parent(l *Logger) *Logger {
	if l.Root {
		return nil
	}
	var best *Logger
	for _, o := range c.Loggers {
		if o == l || o.Root {
			continue
		}
		if strings.HasPrefix(l.Name, o.Name+".") && (best == nil || len(o.Name) > len(best.Name)) {
			best = o
		}
	}
	if best != nil {
		return best
	}
	return c.Root()
}

// subst replaces ${name} and ${name:-default} from props; unknown names
// without a default are left as written. Lookup prefixes of log4j2
// (${sys:x}, ${env:x}) are tried without the prefix.
func subst(s string, props map[string]string) string { return substDepth(s, props, 0) }

func substDepth(s string, props map[string]string, depth int) string {
	if !strings.Contains(s, "${") || depth > 8 || len(s) > 1<<16 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if b.Len() > 1<<16 {
			b.WriteString(s[i:])
			break
		}
		j := strings.Index(s[i:], "${")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		k := strings.IndexByte(s[i+j:], '}')
		if k < 0 {
			b.WriteString(s[i+j:])
			break
		}
		expr := s[i+j+2 : i+j+k]
		b.WriteString(lookup(expr, props, s[i+j:i+j+k+1], depth))
		i += j + k + 1
	}
	return b.String()
}

func lookup(expr string, props map[string]string, orig string, depth int) string {
	name, def, hasDef := expr, "", false
	if p := strings.Index(expr, ":-"); p >= 0 {
		name, def, hasDef = expr[:p], expr[p+2:], true
	}
	if v, ok := props[name]; ok {
		return substDepth(v, props, depth+1)
	}
	if p := strings.IndexByte(name, ':'); p >= 0 {
		if v, ok := props[name[p+1:]]; ok {
			return substDepth(v, props, depth+1)
		}
	}
	if hasDef {
		return def
	}
	return orig
}
