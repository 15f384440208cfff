package logconf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// The appender and logger tables in Chinese, with appenders and loggers
// named in Chinese: the type and level columns start in one display column.
func TestSummaryAlignedInChinese(t *testing.T) {
	const xml = `<configuration>
  <appender name="订单文件" class="ch.qos.logback.core.FileAppender"><file>/tmp/o.log</file></appender>
  <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender"/>
  <appender name="异步" class="ch.qos.logback.classic.AsyncAppender"><appender-ref ref="订单文件"/></appender>
  <logger name="com.example.订单" level="DEBUG"><appender-ref ref="异步"/></logger>
  <logger name="org.hibernate.SQL" level="警告"/>
  <root level="INFO"><appender-ref ref="CONSOLE"/></root>
</configuration>`
	c, err := ParseLogback(strings.NewReader(xml))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, c, finding.ZH); err != nil {
		t.Fatal(err)
	}
	var appenders, loggers []string
	section := ""
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "Appender:"):
			section = "a"
		case strings.HasPrefix(l, "Logger:"):
			section = "l"
		case !strings.HasPrefix(l, "  "):
			section = ""
		case section == "a":
			appenders = append(appenders, l)
		case section == "l":
			loggers = append(loggers, l)
		}
	}
	if len(appenders) != 3 || len(loggers) != 3 {
		t.Fatalf("%d appenders, %d loggers:\n%s", len(appenders), len(loggers), b.String())
	}
	// Column 2+24+1: where the type starts; 2+32+1: where the level starts,
	// 2+32+1+6: what follows it.
	at := func(l string, col int) string {
		w := 0
		for i, r := range l {
			if w == col {
				return l[i:]
			}
			w += finding.DisplayWidth(string(r))
		}
		return ""
	}
	for _, l := range appenders {
		if s := at(l, 27); s == "" || s[0] == ' ' || at(l, 26)[0] != ' ' {
			t.Errorf("type not at column 27: %q\n%s", l, b.String())
		}
	}
	for _, l := range loggers {
		if s := at(l, 35); s == "" || s[0] == ' ' || at(l, 34)[0] != ' ' {
			t.Errorf("level not at column 35: %q\n%s", l, b.String())
		}
		if !strings.HasPrefix(at(l, 41), " 写入") && !strings.HasPrefix(at(l, 41), " async") {
			t.Errorf("what follows the level not at column 41: %q", l)
		}
	}
}
