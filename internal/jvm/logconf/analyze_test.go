package logconf

import (
	"bytes"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func keys(fs []finding.Finding) string {
	var ks []string
	for _, f := range fs {
		ks = append(ks, f.Key()+":"+f.Severity.String())
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func TestAnalyzeFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string
	}{
		{"logback-spring.xml", "logconf.caller-data/SQL:warning logconf.console-appender/CONSOLE:warning logconf.sync-file-appender/FILE:warning logconf.sync-file-appender/SQL:warning"},
		{"logback-spring-async.xml", ""},
		{"logback-sift.xml", "logconf.async-blocking/ASYNC:info logconf.async-queue-small/ASYNC:warning logconf.debug-level/root:warning logconf.prudent/SHARED:warning logconf.sifting-appender/SIFT:warning"},
		{"log4j.properties", "logconf.caller-data/stdout:warning logconf.console-appender/stdout:warning logconf.log4j1-eol:warning logconf.sync-file-appender/FILE:warning"},
		{"log4j.xml", "logconf.async-blocking/ASYNC:info logconf.async-queue-small/ASYNC:info logconf.caller-data/ASYNC:warning logconf.log4j1-eol:critical"},
		{"log4j2-rolling.xml", "logconf.console-appender/Console:warning logconf.sync-file-appender/RollingFile:warning"},
		{"log4j2-asyncroot.xml", "logconf.async-blocking/AsyncAudit:info logconf.async-queue-small/AsyncAudit:info"},
		{"log4j2-location.xml", "logconf.caller-data/com.example:warning"},
		{"log4j2.properties", "logconf.caller-data/RollingFile:warning logconf.console-appender/STDOUT:warning logconf.debug-level/root:warning logconf.sync-file-appender/RollingFile:warning"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			fs, err := AnalyzeFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(fs); got != tc.want {
				t.Errorf("findings\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

var sourceRE = regexp.MustCompile(`^testdata/[^:]+:[0-9]+$`)

// Every finding is complete in both languages, cites the file and line, and
// has a literal fix with its revert.
func TestFindingsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, file := range []string{"logback-spring.xml", "logback-sift.xml", "log4j.properties", "log4j.xml", "log4j2-rolling.xml", "log4j2-asyncroot.xml", "log4j2-location.xml", "log4j2.properties"} {
		fs, err := AnalyzeFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			seen[f.ID] = true
			where := file + " " + f.Key()
			if f.Category != Category || f.Status != finding.Fail || f.Confidence <= 0 {
				t.Errorf("%s: category %q status %q confidence %v", where, f.Category, f.Status, f.Confidence)
			}
			for name, tx := range map[string]finding.Text{"title": f.Title, "observed": f.Observed, "why": f.Why, "recommended": f.Recommended,
				"risk": f.Risk, "workload": f.Workload, "note": f.Fix.Note} {
				if tx.EN == "" || tx.ZH == "" {
					t.Errorf("%s: %s missing a language: %+v", where, name, tx)
				}
				if strings.Contains(tx.EN+tx.ZH, "%!") {
					t.Errorf("%s: %s has a format error: %+v", where, name, tx)
				}
			}
			if f.Fix.Apply == "" || f.Fix.Revert == "" {
				t.Errorf("%s: fix apply %q revert %q", where, f.Fix.Apply, f.Fix.Revert)
			}
			if len(f.References) == 0 {
				t.Errorf("%s: no references", where)
			}
			if len(f.Evidence) == 0 {
				t.Errorf("%s: no evidence", where)
			} else if f.ID != IDLog4j1EOL && !sourceRE.MatchString(f.Evidence[0].Source) {
				t.Errorf("%s: first evidence source %q is not path:line", where, f.Evidence[0].Source)
			}
		}
	}
	for _, id := range IDs {
		if !seen[id] {
			t.Errorf("no fixture produces %s", id)
		}
	}
}

func TestFixesPerLibrary(t *testing.T) {
	for _, tc := range []struct {
		file, key       string
		apply, revert   []string
		noteContains    string
		applyNotContain string
	}{
		{"logback-spring.xml", "logconf.sync-file-appender/FILE",
			[]string{`<appender name="ASYNC_FILE" class="ch.qos.logback.classic.AsyncAppender">`, "<queueSize>8192</queueSize>", "<neverBlock>true</neverBlock>", `<appender-ref ref="FILE"/>`, `<appender-ref ref="ASYNC_FILE"/>`},
			[]string{`<appender-ref ref="FILE"/>`}, "<immediateFlush>false</immediateFlush>", ""},
		{"log4j.properties", "logconf.sync-file-appender/FILE",
			[]string{"log4j.appender.FILE.ImmediateFlush=false", "log4j.appender.FILE.BufferedIO=true", "log4j.appender.FILE.BufferSize=8192"},
			[]string{"log4j.appender.FILE.ImmediateFlush=true", "log4j.appender.FILE.BufferedIO=false"}, "line 10", ""},
		{"log4j2-rolling.xml", "logconf.sync-file-appender/RollingFile",
			[]string{`<RollingFile name="RollingFile"`, `immediateFlush="false" bufferedIO="true" bufferSize="262144">`},
			[]string{`<RollingFile name="RollingFile" fileName="${LOG_HOME}/order.log"`}, "com.lmax:disruptor", ""},
		{"log4j2.properties", "logconf.sync-file-appender/RollingFile",
			[]string{"appender.rolling.immediateFlush = false", "appender.rolling.bufferedIO = true", "appender.rolling.bufferSize = 262144"},
			[]string{"appender.rolling.immediateFlush = true"}, "AsyncRoot", ""},
		{"log4j.properties", "logconf.console-appender/stdout", []string{"log4j.rootLogger=INFO, FILE"}, []string{"log4j.rootLogger=INFO, FILE, stdout"}, "line 3", "stdout"},
		{"logback-spring.xml", "logconf.console-appender/CONSOLE", []string{"<root level=\"INFO\">\n    <appender-ref ref=\"FILE\"/>\n</root>"}, []string{`<appender-ref ref="CONSOLE"/>`}, "line 44", "CONSOLE"},
		{"log4j2.properties", "logconf.console-appender/STDOUT", []string{"# rootLogger.appenderRef.stdout.ref = STDOUT"}, []string{"rootLogger.appenderRef.stdout.ref = STDOUT"}, "", ""},
		{"log4j2.properties", "logconf.debug-level/root", []string{"rootLogger.level = info"}, []string{"rootLogger.level = debug"}, "line 25", ""},
		{"logback-sift.xml", "logconf.debug-level/root", []string{`<root level="INFO">`}, []string{"<root>"}, "", ""},
		{"logback-sift.xml", "logconf.sifting-appender/SIFT", []string{`<appender name="ASYNC_SIFT"`, `<appender-ref ref="SIFT"/>`, `<appender-ref ref="ASYNC_SIFT"/>`}, []string{`<appender-ref ref="SIFT"/>`}, "", ""},
		{"logback-sift.xml", "logconf.async-queue-small/ASYNC", []string{"<queueSize>8192</queueSize>"}, []string{"<queueSize>256</queueSize>"}, "line 19", ""},
		{"logback-sift.xml", "logconf.prudent/SHARED", []string{"<prudent>false</prudent>"}, []string{"<prudent>true</prudent>"}, "line 16", ""},
		{"log4j2-asyncroot.xml", "logconf.async-queue-small/AsyncAudit", []string{`<Async name="AsyncAudit" bufferSize="8192">`}, []string{`bufferSize="256"`}, "", ""},
		{"log4j2-asyncroot.xml", "logconf.async-blocking/AsyncAudit", []string{"-Dlog4j2.asyncQueueFullPolicy=Discard", "-Dlog4j2.discardThreshold=INFO"}, []string{"remove -Dlog4j2.asyncQueueFullPolicy"}, "log4j2.component.properties", ""},
		{"log4j2-location.xml", "logconf.caller-data/com.example", []string{`includeLocation="false"`}, []string{`includeLocation="true"`}, "line 10", ""},
		{"logback-spring.xml", "logconf.caller-data/SQL", []string{`<pattern>%d{HH:mm:ss.SSS} [%thread] %-5level - %msg%n</pattern>`}, []string{`%C.%M\(%F:%L\)`}, "line 36", ""},
		{"log4j.xml", "logconf.caller-data/ASYNC", []string{`<param name="LocationInfo" value="false"/>`}, []string{`<param name="LocationInfo" value="true"/>`}, "line 14", ""},
		{"log4j.xml", "logconf.log4j1-eol", []string{"log4j-1.2-api", "log4j-core"}, []string{"<artifactId>log4j</artifactId>"}, "-Dlog4j1.compatibility=true", ""},
	} {
		t.Run(tc.file+"/"+tc.key, func(t *testing.T) {
			fs, err := AnalyzeFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Key() != tc.key {
					continue
				}
				for _, s := range tc.apply {
					if !strings.Contains(f.Fix.Apply, s) {
						t.Errorf("apply lacks %q:\n%s", s, f.Fix.Apply)
					}
				}
				for _, s := range tc.revert {
					if !strings.Contains(f.Fix.Revert, s) {
						t.Errorf("revert lacks %q:\n%s", s, f.Fix.Revert)
					}
				}
				if !strings.Contains(f.Fix.Note.EN, tc.noteContains) {
					t.Errorf("note lacks %q: %s", tc.noteContains, f.Fix.Note.EN)
				}
				if tc.applyNotContain != "" && strings.Contains(f.Fix.Apply, tc.applyNotContain) {
					t.Errorf("apply still has %q:\n%s", tc.applyNotContain, f.Fix.Apply)
				}
				return
			}
			t.Fatalf("no finding %s in %s", tc.key, keys(fs))
		})
	}
}

func TestAnalyzeInline(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		opts      Options
		want      string
	}{
		{"buffered log4j1", "log4j.rootLogger=INFO, F\nlog4j.appender.F=org.apache.log4j.FileAppender\nlog4j.appender.F.BufferedIO=true\n", Options{},
			"logconf.log4j1-eol:warning"},
		{"logback immediateFlush=false", `<configuration><appender name="F" class="ch.qos.logback.core.FileAppender"><immediateFlush>false</immediateFlush></appender><root level="info"><appender-ref ref="F"/></root></configuration>`, Options{}, ""},
		{"log4j2 context selector", `<Configuration><Appenders><File name="F" fileName="a"/></Appenders><Loggers><Root level="info"><AppenderRef ref="F"/></Root></Loggers></Configuration>`,
			OptionsFromArgs([]string{"-Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector"}), ""},
		{"log4j2 sync root under async logger", `<Configuration><Appenders><File name="F" fileName="a"/></Appenders><Loggers>
<AsyncLogger name="com.x" level="info"/><Root level="info"><AppenderRef ref="F"/></Root></Loggers></Configuration>`, Options{}, "logconf.sync-file-appender/F:warning"},
		{"level OFF reaches nothing", `<configuration><appender name="F" class="ch.qos.logback.core.FileAppender"/><root level="OFF"><appender-ref ref="F"/></root></configuration>`, Options{}, ""},
		{"unreferenced appender", `<configuration><appender name="F" class="ch.qos.logback.core.FileAppender"/><root level="INFO"/></configuration>`, Options{}, ""},
		{"console only in dev profile", `<configuration><appender name="C" class="ch.qos.logback.core.ConsoleAppender"/>
<springProfile name="dev | local"><root level="INFO"><appender-ref ref="C"/></root></springProfile></configuration>`, Options{}, ""},
		{"console only, in prod profile", `<configuration><appender name="C" class="ch.qos.logback.core.ConsoleAppender"/>
<springProfile name="prod"><root level="INFO"><appender-ref ref="C"/></root></springProfile></configuration>`, Options{}, "logconf.console-appender/C:warning"},
		{"async cycle", `<configuration><appender name="A" class="ch.qos.logback.classic.AsyncAppender"><queueSize>8192</queueSize><neverBlock>true</neverBlock><appender-ref ref="B"/></appender>
<appender name="B" class="ch.qos.logback.classic.AsyncAppender"><queueSize>8192</queueSize><neverBlock>true</neverBlock><appender-ref ref="A"/></appender><root level="INFO"><appender-ref ref="A"/></root></configuration>`, Options{}, ""},
		{"logback async with discardingThreshold 0", `<configuration><appender name="A" class="ch.qos.logback.classic.AsyncAppender"><queueSize>512</queueSize><discardingThreshold>0</discardingThreshold><neverBlock>true</neverBlock><appender-ref ref="F"/></appender>
<appender name="F" class="ch.qos.logback.core.FileAppender"/><root level="INFO"><appender-ref ref="A"/></root></configuration>`, Options{}, "logconf.async-queue-small/A:info"},
		{"log4j2 async non-blocking, big queue", `<Configuration><Appenders><Async name="A" blocking="false" bufferSize="4096"><AppenderRef ref="F"/></Async><File name="F" fileName="a"/></Appenders><Loggers><Root level="info"><AppenderRef ref="A"/></Root></Loggers></Configuration>`, Options{}, ""},
		{"dev DEBUG after prod INFO", `<configuration><springProfile name="prod"><root level="INFO"/></springProfile><springProfile name="dev"><root level="DEBUG"/></springProfile></configuration>`, Options{}, ""},
		{"prod DEBUG", `<configuration><springProfile name="prod"><root level="DEBUG"/></springProfile></configuration>`, Options{}, "logconf.debug-level/root:warning"},
		{"log4j2 MemoryMappedFile defaults to no flush", `<Configuration><Appenders><MemoryMappedFile name="M" fileName="a"/></Appenders><Loggers><Root level="info"><AppenderRef ref="M"/></Root></Loggers></Configuration>`, Options{}, ""},
		{"boolean yes is not true", `<configuration><appender name="F" class="ch.qos.logback.core.FileAppender"><prudent>yes</prudent><immediateFlush>false</immediateFlush></appender><root level="info"><appender-ref ref="F"/></root></configuration>`, Options{}, ""},
		{"log4j2 root default level ERROR", `<Configuration><Loggers><Root/></Loggers></Configuration>`, Options{}, ""},
		{"log4j1 JMSAppender critical", "log4j.rootLogger=INFO, J\nlog4j.appender.J=org.apache.log4j.net.JMSAppender\n", Options{}, "logconf.log4j1-eol:critical"},
		{"log4j1 console only", "log4j.rootLogger=INFO, C\nlog4j.appender.C=org.apache.log4j.ConsoleAppender\n", Options{}, "logconf.console-appender/C:warning logconf.log4j1-eol:warning"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := parseString(t, "inline", tc.src)
			if got := keys(AnalyzeWith(c, tc.opts)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestProfileQualifies(t *testing.T) {
	c := parseString(t, "logback-spring.xml", `<configuration><appender name="C" class="ch.qos.logback.core.ConsoleAppender"/>
<springProfile name="prod"><root level="INFO"><appender-ref ref="C"/></root></springProfile></configuration>`)
	fs := Analyze(c)
	if len(fs) != 1 || fs[0].Confidence != 0.8 || !strings.Contains(fs[0].Observed.EN, "Spring profile prod") || !strings.Contains(fs[0].Observed.ZH, "prod") {
		t.Fatalf("%+v", fs)
	}
	// Only console: the fix wraps it in an AsyncAppender.
	if !strings.Contains(fs[0].Fix.Apply, `<appender name="ASYNC_C" class="ch.qos.logback.classic.AsyncAppender">`) {
		t.Errorf("apply %s", fs[0].Fix.Apply)
	}
}

// Names from the file are data: HTML and control characters survive into
// findings verbatim, are escaped in XML fixes, and cannot drive a terminal.
func TestHostileNames(t *testing.T) {
	src := `<configuration>
  <appender name="&lt;img src=x onerror=alert(1)&gt;" class="ch.qos.logback.core.FileAppender"><file>&lt;/td&gt;.log</file></appender>
  <root level="INFO"><appender-ref ref="&lt;img src=x onerror=alert(1)&gt;"/></root>
</configuration>`
	c := parseString(t, "x<script>.xml", src)
	fs := Analyze(c)
	if len(fs) != 1 {
		t.Fatalf("%s", keys(fs))
	}
	f := fs[0]
	if f.Subject != "<img src=x onerror=alert(1)>" {
		t.Errorf("subject %q", f.Subject)
	}
	if !strings.Contains(f.Fix.Apply, `ref="&lt;img src=x onerror=alert(1)&gt;`) || strings.Contains(f.Fix.Apply, `ref="<img`) {
		t.Errorf("apply not escaped:\n%s", f.Fix.Apply)
	}
	var b bytes.Buffer
	if err := WriteText(&b, c.Path, fs, finding.EN); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<img src=x onerror=alert(1)>") {
		t.Errorf("rendered:\n%s", b.String())
	}
	// Terminal escapes in a properties file.
	c = parseString(t, "log4j.properties", "log4j.rootLogger=INFO, A\x1b[31m\nlog4j.appender.A\x1b[31m=org.apache.log4j.FileAppender\n")
	fs = Analyze(c)
	if keys(fs) != "logconf.log4j1-eol:warning logconf.sync-file-appender/A\x1b[31m:warning" {
		t.Fatalf("%s", keys(fs))
	}
	b.Reset()
	if err := WriteText(&b, c.Path, fs, finding.EN); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), `A\x1b[31m`) {
		t.Errorf("rendered:\n%s", b.String())
	}
	b.Reset()
	if err := WriteSummary(&b, c, finding.ZH); err != nil || strings.Contains(b.String(), "\x1b") {
		t.Errorf("summary %v:\n%s", err, b.String())
	}
}

func TestWriteText(t *testing.T) {
	c := load(t, "log4j.properties")
	fs := Analyze(c)
	for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
		var b bytes.Buffer
		if err := WriteText(&b, c.Path, fs, lang); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, s := range []string{"testdata/log4j.properties", "logconf.sync-file-appender/FILE", "log4j.appender.FILE.ImmediateFlush=false", "[testdata/log4j.properties:10]"} {
			if !strings.Contains(out, s) {
				t.Errorf("%s output lacks %q:\n%s", lang, s, out)
			}
		}
		if lang == finding.ZH && !strings.Contains(out, "同步文件 Appender") {
			t.Errorf("zh output not Chinese:\n%s", out)
		}
	}
	var b bytes.Buffer
	WriteText(&b, "ok.xml", nil, finding.ZH)
	if !strings.Contains(b.String(), "未发现日志配置问题") {
		t.Errorf("empty zh: %s", b.String())
	}
}

func TestReached(t *testing.T) {
	c := load(t, "log4j.properties")
	var names []string
	for _, a := range c.Reached(c.Loggers[1], false) {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "stdout,FILE" {
		t.Errorf("com.bank.card.dao reaches %v (additivity to root)", names)
	}
	c = load(t, "logback-spring.xml")
	names = nil
	for _, a := range c.Reached(c.Loggers[1], false) {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "SQL" {
		t.Errorf("additivity=false logger reaches %v", names)
	}
	c = parseString(t, "x.xml", `<configuration><root><appender-ref ref="NOPE"/></root></configuration>`)
	if u := c.Unresolved(); len(u) != 1 || u[0].Name != "NOPE" {
		t.Errorf("unresolved %+v", u)
	}
}

func TestDebugLevelFixLog4j1(t *testing.T) {
	c := parseString(t, "log4j.properties", "log4j.rootLogger=DEBUG, A, B\nlog4j.appender.A=org.apache.log4j.varia.NullAppender\n")
	for _, f := range Analyze(c) {
		if f.ID == IDDebugLevel {
			if f.Fix.Apply != "log4j.rootLogger=INFO, A, B" || f.Fix.Revert != "log4j.rootLogger=DEBUG, A, B" {
				t.Errorf("apply %q revert %q", f.Fix.Apply, f.Fix.Revert)
			}
			return
		}
	}
	t.Fatal("no debug-level finding")
}

func TestRulesAreValidAndListEveryID(t *testing.T) {
	rs := Rules()
	if err := finding.ValidateRules(rs); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, r := range finding.Infos(rs) {
		listed[r.ID] = true
		if len(r.Reads) == 0 {
			t.Errorf("%s: says nothing of what it reads", r.ID)
		}
	}
	for _, id := range IDs {
		if !listed[id] {
			t.Errorf("%s has no rule", id)
		}
	}
	if len(listed) != len(IDs) {
		t.Errorf("%d rules for %d IDs", len(listed), len(IDs))
	}
	// Every finding of every sample configuration comes from a listed rule
	// and carries its texts in both languages.
	files, _ := filepath.Glob("testdata/*")
	n := 0
	for _, fn := range files {
		fs, err := AnalyzeFile(fn)
		if err != nil {
			continue
		}
		for _, f := range fs {
			n++
			if !listed[f.ID] || f.Why.ZH == "" || f.Risk.ZH == "" || f.Workload.ZH == "" || len(f.References) == 0 {
				t.Errorf("%s: %s lacks its rule's texts: %+v", fn, f.Key(), f)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d findings over %d sample configurations", n, len(files))
	}
}
