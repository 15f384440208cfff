package logconf

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile("testdata/" + n)
		if err == nil {
			f.Add(b)
		}
	}
}

// exercise runs everything downstream of a parse; none of it may panic.
func exercise(t *testing.T, c *Config) {
	if c == nil {
		t.Fatal("nil config without error")
	}
	fs := AnalyzeWith(c, Options{AsyncLoggers: true})
	fs = append(fs, Analyze(c)...)
	if err := WriteText(io.Discard, c.Path, fs, finding.ZH); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(io.Discard, c, finding.EN); err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.ID == "" || f.Title.EN == "" || f.Title.ZH == "" {
			t.Fatalf("incomplete finding %+v", f)
		}
	}
}

func fuzzParser(f *testing.F, parse func(io.Reader) (*Config, error)) {
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parse(bytes.NewReader(b))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			return
		}
		c.Path = "fuzz"
		exercise(t, c)
	})
}

func FuzzParse(f *testing.F) {
	addFixtures(f, "logback-spring.xml", "log4j.properties", "log4j.xml", "log4j2-rolling.xml", "log4j2.properties", "logback-sift.xml", "malformed.xml")
	f.Add([]byte(`<configuration><root/></configuration>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := Detect("fuzz.xml", bytes.NewReader(b)); err != nil && !strings.HasPrefix(err.Error(), "fuzz.xml") {
			t.Fatalf("error does not name the file: %v", err)
		}
		c, err := Parse("fuzz.xml", bytes.NewReader(b))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.xml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		exercise(t, c)
	})
}

func FuzzParseLogback(f *testing.F) {
	addFixtures(f, "logback-spring.xml", "logback-spring-async.xml", "logback-sift.xml")
	f.Add([]byte(`<configuration><appender name="A" class="ch.qos.logback.classic.AsyncAppender"><appender-ref ref="A"/></appender><root><appender-ref ref="A"/></root></configuration>`))
	fuzzParser(f, ParseLogback)
}

func FuzzParseLog4j2XML(f *testing.F) {
	addFixtures(f, "log4j2-rolling.xml", "log4j2-asyncroot.xml", "log4j2-location.xml")
	f.Add([]byte(`<Configuration><Appenders><Routing name="R"><Routes><Route><File name="F"/></Route></Routes></Routing></Appenders><Loggers><Root><AppenderRef ref="R"/></Root></Loggers></Configuration>`))
	fuzzParser(f, ParseLog4j2XML)
}

func FuzzParseLog4j1XML(f *testing.F) {
	addFixtures(f, "log4j.xml")
	fuzzParser(f, ParseLog4j1XML)
}

func FuzzParseLog4j1Properties(f *testing.F) {
	addFixtures(f, "log4j.properties")
	f.Add([]byte("log4j.rootLogger=,A\nlog4j.appender.A=a.B\nlog4j.appender.A.B=c.D\nlog4j.appender.A.B.ImmediateFlush=\\\n"))
	fuzzParser(f, ParseLog4j1Properties)
}

func FuzzParseLog4j2Properties(f *testing.F) {
	addFixtures(f, "log4j2.properties")
	f.Add([]byte("rootLogger = INFO, A\nappender.a.type = Async\nappender.a.name = A\nappender.a.appenderRef.x.ref = A\n"))
	fuzzParser(f, ParseLog4j2Properties)
}

func FuzzDiscover(f *testing.F) {
	f.Add("java -Dlogback.configurationFile=file:conf/logback.xml -cp a:b -jar x.jar --logging.config=classpath:x", "/srv")
	f.Add("-Dlog4j.configuration=jar:file:/a.jar!/ -m mod/Main", "")
	f.Fuzz(func(t *testing.T, cmd, cwd string) {
		for _, c := range Discover(strings.Split(cmd, " "), cwd) {
			if c.Path == "" && !c.Remote {
				t.Fatalf("empty path from %q", cmd)
			}
		}
		FindConfigs(strings.Fields(cmd), cwd)
	})
}

func BenchmarkParseAnalyze(b *testing.B) {
	for _, n := range []string{"logback-spring.xml", "log4j2-rolling.xml", "log4j.properties"} {
		src, err := os.ReadFile("testdata/" + n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(n, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c, err := Parse(n, bytes.NewReader(src))
				if err != nil {
					b.Fatal(err)
				}
				Analyze(c)
			}
		})
	}
}
