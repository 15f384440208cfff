package logconf

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func load(t testing.TB, name string) *Config {
	t.Helper()
	c, err := LoadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func parseString(t *testing.T, name, src string) *Config {
	t.Helper()
	c, err := Parse(name, strings.NewReader(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// appenderSummary is "NAME:type" for each appender, in file order.
func appenderSummary(c *Config) string {
	var s []string
	for _, a := range c.Appenders {
		n := a.Name
		if a.Parent != "" {
			n = a.Parent + "/" + n
		}
		s = append(s, n+":"+string(a.Type))
	}
	return strings.Join(s, " ")
}

func refNames(refs []Ref) string {
	var s []string
	for _, r := range refs {
		s = append(s, r.Name)
	}
	return strings.Join(s, ",")
}

func TestParseFixtures(t *testing.T) {
	for _, tc := range []struct {
		file      string
		kind      Kind
		appenders string
		rootLevel string
		rootRefs  string
		loggers   int
	}{
		{"logback-spring.xml", KindLogbackXML, "CONSOLE:console FILE:sync-file SQL:sync-file", "INFO", "CONSOLE,FILE", 2},
		{"logback-spring-async.xml", KindLogbackXML, "CONSOLE:console FILE:sync-file ASYNC_FILE:async", "INFO", "CONSOLE,ASYNC_FILE", 1},
		{"logback-sift.xml", KindLogbackXML, "SIFT:sifting SIFT/FILE-${tenant}:sync-file SHARED:sync-file ASYNC:async", "", "SIFT,ASYNC", 1},
		{"log4j.properties", KindLog4j1Properties, "stdout:console FILE:sync-file", "INFO", "FILE,stdout", 2},
		{"log4j.xml", KindLog4j1XML, "FILE:sync-file ASYNC:async JDBC:other", "info", "ASYNC", 2},
		{"log4j2-rolling.xml", KindLog4j2XML, "Console:console RollingFile:sync-file", "info", "Console,RollingFile", 2},
		{"log4j2-asyncroot.xml", KindLog4j2XML, "RollingFile:sync-file AsyncAudit:async Audit:sync-file", "info", "RollingFile", 2},
		{"log4j2-location.xml", KindLog4j2XML, "RollingFile:sync-file", "info", "RollingFile", 2},
		{"log4j2.properties", KindLog4j2Properties, "STDOUT:console RollingFile:sync-file", "debug", "STDOUT,RollingFile", 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := load(t, tc.file)
			if c.Kind != tc.kind {
				t.Errorf("kind %v, want %v", c.Kind, tc.kind)
			}
			if got := appenderSummary(c); got != tc.appenders {
				t.Errorf("appenders %q, want %q", got, tc.appenders)
			}
			r := c.Root()
			if r == nil {
				t.Fatal("no root logger")
			}
			if r.Level.Raw != tc.rootLevel {
				t.Errorf("root level %q, want %q", r.Level.Raw, tc.rootLevel)
			}
			if got := refNames(r.Refs); got != tc.rootRefs {
				t.Errorf("root refs %q, want %q", got, tc.rootRefs)
			}
			if len(c.Loggers) != tc.loggers {
				t.Errorf("%d loggers, want %d", len(c.Loggers), tc.loggers)
			}
			for _, a := range c.Appenders {
				if a.Line <= 0 || a.Snippet == "" {
					t.Errorf("appender %s: line %d snippet %q", a.Name, a.Line, a.Snippet)
				}
			}
		})
	}
}

func TestParseDetails(t *testing.T) {
	c := load(t, "log4j.properties")
	f := c.Appender("FILE")
	if f.ImmediateFlush.Raw != "true" || f.ImmediateFlush.Line != 13 || f.File.Raw != "/app/credit/logs/core.log" {
		t.Errorf("FILE options %+v %+v", f.ImmediateFlush, f.File)
	}
	if !strings.Contains(f.Snippet, "log4j.appender.FILE.layout.ConversionPattern") || strings.Contains(f.Snippet, "stdout") {
		t.Errorf("FILE snippet:\n%s", f.Snippet)
	}
	c = load(t, "logback-spring.xml")
	if got := c.Appender("FILE").File.Raw; got != "/data/logs/zw-station-ticket/app.log" {
		t.Errorf("nested property substitution: %q", got)
	}
	if l := c.Loggers[1]; l.Name != "com.example.ticket.mapper" || l.Additivity.Bool(true) || l.Level.Raw != "DEBUG" {
		t.Errorf("logger %+v", l)
	}
	c = load(t, "log4j2-location.xml")
	for _, l := range c.Loggers {
		if !l.Async {
			t.Errorf("%s should be async", l.Display())
		}
	}
	if l := c.Loggers[1]; !l.CallerData.Bool(false) || l.CallerData.Line != 10 {
		t.Errorf("includeLocation %+v", l.CallerData)
	}
	c = load(t, "log4j2-asyncroot.xml")
	if a := c.Appender("AsyncAudit"); a.QueueSize.Int(0) != 256 || refNames(a.Refs) != "Audit" {
		t.Errorf("Async %+v", a)
	}
	c = load(t, "log4j.xml")
	if a := c.Appender("FILE"); !a.BufferedIO.Bool(false) || a.BufferSize.Int(0) != 8192 {
		t.Errorf("log4j.xml FILE %+v", a)
	}
	if a := c.Appender("ASYNC"); !a.CallerData.Bool(false) || a.CallerData.Line != 14 {
		t.Errorf("log4j.xml ASYNC %+v", a.CallerData)
	}
	c = load(t, "log4j2.properties")
	if a := c.Appender("RollingFile"); a.File.Raw != "/var/log/app/app.log" || a.Pattern.Raw != "%d %p %C{1.} [%t] %m%n" || a.Line != 10 {
		t.Errorf("log4j2.properties RollingFile %+v", a)
	}
}

func TestParseInline(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		check     func(t *testing.T, c *Config)
	}{
		{"logback-base.xml", `<configuration>
  <include resource="org/springframework/boot/logging/logback/base.xml"/>
  <logger name="com.acme" level="DEBUG"/>
</configuration>`, func(t *testing.T, c *Config) {
			if appenderSummary(c) != "CONSOLE:console FILE:sync-file" || refNames(c.Root().Refs) != "CONSOLE,FILE" || !c.Includes[0].Known {
				t.Errorf("base.xml include: %s root %s", appenderSummary(c), refNames(c.Root().Refs))
			}
		}},
		{"logback.xml", `<configuration>
  <appender name="F" class="ch.qos.logback.core.FileAppender">
    <file>a.log</file>
    <encoder><pattern>%msg%n</pattern><immediateFlush>false</immediateFlush></encoder>
  </appender>
  <root><level value="warn"/><appender-ref ref="F"/></root>
</configuration>`, func(t *testing.T, c *Config) {
			if a := c.Appender("F"); a.ImmediateFlush.Bool(true) || a.ImmediateFlush.Line != 4 {
				t.Errorf("encoder immediateFlush %+v", a.ImmediateFlush)
			}
			if c.Root().Level.Raw != "warn" {
				t.Errorf("child level %+v", c.Root().Level)
			}
		}},
		{"log4j2.xml", `<Configuration strict="true">
  <Appenders>
    <Appender type="File" name="F" fileName="a.log" immediateFlush="false"><Layout type="PatternLayout" pattern="%m%n"/></Appender>
    <Routing name="R"><Routes pattern="$${ctx:tenant}"><Route><RollingFile name="R-${ctx:tenant}" fileName="${ctx:tenant}.log" filePattern="x"/></Route><Route ref="F" key="audit"/></Routes></Routing>
  </Appenders>
  <Loggers><Root level="info"><AppenderRef ref="R"/></Root></Loggers>
</Configuration>`, func(t *testing.T, c *Config) {
			if got := appenderSummary(c); got != "F:sync-file R:sifting R/R-${ctx:tenant}:sync-file" {
				t.Errorf("strict/routing: %s", got)
			}
			if refNames(c.Appender("R").Refs) != "F" {
				t.Errorf("route ref: %s", refNames(c.Appender("R").Refs))
			}
		}},
		{"log4j2.properties", `rootLogger = INFO, STDOUT
rootLogger.type = AsyncRoot
appender.console.type = Console
appender.console.name = STDOUT
logger.x = DEBUG, STDOUT
logger.x.name = com.x
`, func(t *testing.T, c *Config) {
			r := c.Root()
			if r.Level.Raw != "INFO" || refNames(r.Refs) != "STDOUT" || !r.Async {
				t.Errorf("shorthand root %+v", r)
			}
			if l := c.Loggers[1]; l.Name != "com.x" || l.Level.Raw != "DEBUG" {
				t.Errorf("shorthand logger %+v", l)
			}
		}},
		{"log4j.properties", `log4j.rootCategory=, A1
log4j.appender.A1=org.apache.log4j.FileAppender
log4j.appender.A1.File=\
  /var/log/a.log
log4j.additivity.com.foo=false
log4j.logger.com.foo=WARN,A1
`, func(t *testing.T, c *Config) {
			if c.Root().Level.Set || refNames(c.Root().Refs) != "A1" {
				t.Errorf("root %+v", c.Root())
			}
			if a := c.Appender("A1"); a.File.Raw != "/var/log/a.log" || a.File.Line != 3 {
				t.Errorf("continuation %+v", a.File)
			}
			if l := c.Loggers[1]; l.Name != "com.foo" || l.Additivity.Bool(true) {
				t.Errorf("additivity %+v", l)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, parseString(t, tc.name, tc.src)) })
	}
}

func TestParseProps(t *testing.T) {
	es, _ := parseProps("# c\n! c\n a = b \nk:v\nk2 v2\nlong=one \\\n   two\nesc\\ key=\\u4e2d\\t\n\nempty=\n")
	want := []prop{{Key: "a", Value: "b", Line: 3}, {Key: "k", Value: "v", Line: 4}, {Key: "k2", Value: "v2", Line: 5},
		{Key: "long", Value: "one two", Line: 6}, {Key: "esc key", Value: "中", Line: 8}, {Key: "empty", Value: "", Line: 10}}
	if len(es) != len(want) {
		t.Fatalf("got %d entries: %+v", len(es), es)
	}
	for i, w := range want {
		if es[i].Key != w.Key || es[i].Value != w.Value || es[i].Line != w.Line {
			t.Errorf("entry %d = %q=%q@%d, want %q=%q@%d", i, es[i].Key, es[i].Value, es[i].Line, w.Key, w.Value, w.Line)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      Kind
		err       string
	}{
		{"logback.xml", `<configuration><appender name="A" class="ch.qos.logback.core.ConsoleAppender"/></configuration>`, KindLogbackXML, ""},
		{"app-log.xml", `<configuration><springProfile name="dev"/></configuration>`, KindLogbackXML, ""},
		{"x.xml", `<Configuration status="warn"><Appenders/></Configuration>`, KindLog4j2XML, ""},
		{"x.xml", `<?xml version="1.0"?><!DOCTYPE log4j:configuration SYSTEM "log4j.dtd"><log4j:configuration/>`, KindLog4j1XML, ""},
		{"x.xml", `<configuration><appender name="A" class="org.apache.log4j.ConsoleAppender"><param name="Target" value="System.out"/></appender></configuration>`, KindLog4j1XML, ""},
		{"log4j2.xml", `<configuration/>`, KindLog4j2XML, ""},
		{"log4j.xml", `<configuration/>`, KindLog4j1XML, ""},
		{"whatever.xml", `<configuration/>`, KindLogbackXML, ""},
		{"log4j.properties", "log4j.rootLogger=INFO, A\n", KindLog4j1Properties, ""},
		{"log4j2.properties", "status = warn\nappender.a.type = Console\n", KindLog4j2Properties, ""},
		{"latin1.xml", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<configuration><!-- caf\xe9 --><root level=\"INFO\"/></configuration>", KindLogbackXML, ""},
		{"gbk.xml", "<?xml version=\"1.0\" encoding=\"GBK\"?>\n<configuration><!-- \xc8\xd5\xd6\xbe --><root level=\"INFO\"/></configuration>", KindLogbackXML, ""},
		{"x.xml", `<?xml version="1.0" encoding="UTF-8"?>
<beans xmlns="http://www.springframework.org/schema/beans"/>`, KindUnknown, "x.xml: not a log4j/log4j2/logback configuration: root element <beans>"},
		{"empty.xml", "  \n", KindUnknown, "empty.xml: not a log4j/log4j2/logback configuration: empty file"},
		{"app.properties", "server.port=8080\n", KindUnknown, "app.properties: not a log4j/log4j2/logback configuration: no log4j.* or appender./logger./rootLogger keys"},
		{"log4j2.json", `{"configuration":{}}`, KindUnknown, "log4j2.json: log4j2 JSON/YAML configurations are not supported; convert to XML or properties"},
		{"bin.xml", "\x00\x01\x02garbage", KindUnknown, "bin.xml: not a log4j/log4j2/logback configuration: binary content"},
		{"bad.xml", "<configuration>\n  <root>\n</configuration>\n", KindUnknown, "bad.xml:3: malformed XML: element <root> closed by </configuration>"},
	} {
		got, err := Detect(tc.name, strings.NewReader(tc.src))
		if got != tc.want {
			t.Errorf("%s %q: kind %v, want %v (err %v)", tc.name, tc.src, got, tc.want, err)
		}
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}

func TestMalformedNamesFileAndLine(t *testing.T) {
	_, err := LoadFile("testdata/malformed.xml")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 5 || pe.File != "testdata/malformed.xml" {
		t.Fatalf("got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "testdata/malformed.xml:5: malformed XML") {
		t.Errorf("message %q", err)
	}
	_, err = AnalyzeFile("testdata/beans.xml")
	if err == nil || err.Error() != "testdata/beans.xml: not a log4j/log4j2/logback configuration: root element <beans>" {
		t.Errorf("beans.xml: %v", err)
	}
	if _, err := AnalyzeFile("testdata/does-not-exist.xml"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// Truncated files of every fixture: an error or a config, never a panic.
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		b, _ := os.ReadFile("testdata/" + e.Name())
		for n := 0; n < len(b); n += 7 {
			if c, err := Parse(e.Name(), strings.NewReader(string(b[:n]))); err == nil {
				Analyze(c)
			}
		}
	}
}

func TestStripLocation(t *testing.T) {
	for _, tc := range []struct {
		lib       Library
		in, out   string
		locations string
	}{
		{Logback, `%d [%thread] %-5level %C.%M\(%F:%L\) - %msg%n`, `%d [%thread] %-5level - %msg%n`, `%C %M %F %L`},
		{Logback, `%d %-5level %logger{36} %caller{1} - %msg%n`, `%d %-5level %logger{36} - %msg%n`, `%caller{1}`},
		{Logback, `%d %level %lo - %msg %line%n`, `%d %level %lo - %msg %n`, `%line`},
		{Log4j1, `%d %-5p %c{1}:%L - %m%n`, `%d %-5p %c{1} - %m%n`, `%L`},
		{Log4j1, `%d %-5p [%t] (%F:%L) %l - %m%n`, `%d %-5p [%t] - %m%n`, `%F %L %l`},
		{Log4j2, `%d %p %C{1.} [%t] %m%n`, `%d %p [%t] %m%n`, `%C{1.}`},
		{Log4j2, `%d %p %c{1.} [%t] 100%% %m%n`, `%d %p %c{1.} [%t] 100%% %m%n`, ``},
	} {
		if got := strings.Join(locationWords(tc.in, tc.lib), " "); got != tc.locations {
			t.Errorf("%s %q: locations %q, want %q", tc.lib, tc.in, got, tc.locations)
		}
		if got := stripLocation(tc.in, tc.lib); got != tc.out {
			t.Errorf("%s %q: stripped %q, want %q", tc.lib, tc.in, got, tc.out)
		}
	}
}

func TestSubst(t *testing.T) {
	props := map[string]string{"A": "/a", "B": "${A}/b", "LOOP": "${LOOP}${LOOP}x"}
	for in, want := range map[string]string{
		"${B}/c": "/a/b/c", "${X:-dflt}": "dflt", "${sys:A}": "/a", "${missing}": "${missing}", "no vars": "no vars", "${unterminated": "${unterminated",
	} {
		if got := subst(in, props); got != want {
			t.Errorf("subst(%q) = %q, want %q", in, got, want)
		}
	}
	if got := subst("${LOOP}", props); len(got) > 1<<18 {
		t.Errorf("self-reference grew to %d bytes", len(got))
	}
}
