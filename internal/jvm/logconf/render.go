package logconf

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Text read from a configuration file (paths, appender and logger names,
// values) passes finding.Safe, the one sanitiser, before it is printed.

// WriteText renders the findings for one configuration file as plain text.
func WriteText(w io.Writer, path string, fs []finding.Finding, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	fmt.Fprintf(bw, "== %s: %s\n", t("Logging configuration", "日志配置"), finding.SafeLine(path))
	writeFindings(bw, fs, lang)
	return bw.Flush()
}

// WriteSummary renders the model: appenders, loggers and what each writes to.
func WriteSummary(w io.Writer, c *Config, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(lang) }
	fmt.Fprintf(bw, "== %s: %s (%s)\n", t("Logging configuration", "日志配置"), finding.SafeLine(c.Path), c.Kind)
	fmt.Fprintf(bw, "%s:\n", t("Appenders", "Appender"))
	for i, a := range c.Appenders {
		if i == 50 {
			fmt.Fprintf(bw, "  ... +%d\n", len(c.Appenders)-i)
			break
		}
		name := a.Name
		if a.Parent != "" {
			name = a.Parent + "/" + a.Name
		}
		fmt.Fprintf(bw, "  %s %-10s %s (%s %d)", finding.PadRight(finding.Safe(name), 24), a.Type, finding.Safe(shortClass(a.Class)), t("line", "行"), a.Line)
		if a.File.Set {
			fmt.Fprintf(bw, "  %s", finding.Safe(a.File.Raw))
		}
		if len(a.Refs) > 0 {
			var rs []string
			for _, r := range a.Refs {
				rs = append(rs, finding.Safe(r.Name))
			}
			fmt.Fprintf(bw, "  -> %s", strings.Join(rs, ", "))
		}
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "%s:\n", t("Loggers", "Logger"))
	routes := c.Routes(false)
	for i, l := range c.Loggers {
		if i == 50 {
			fmt.Fprintf(bw, "  ... +%d\n", len(c.Loggers)-i)
			break
		}
		lvl := l.Level.Raw
		if !l.Level.Set {
			lvl = "-"
		}
		var names []string
		for j, a := range c.reached(l, routes) {
			if j == 20 {
				names = append(names, "...")
				break
			}
			names = append(names, finding.Safe(a.Name))
		}
		async := ""
		if l.Async {
			async = " async"
		}
		fmt.Fprintf(bw, "  %s %s%s %s %s\n", finding.PadRight(finding.Safe(l.Display()), 32), finding.PadRight(finding.Safe(lvl), 6), async, t("writes to", "写入"), strings.Join(names, ", "))
	}
	if un := c.Unresolved(); len(un) > 0 {
		fmt.Fprintf(bw, "%s:\n", t("Unresolved appender references", "未解析的 Appender 引用"))
		for i, r := range un {
			if i == 20 {
				break
			}
			fmt.Fprintf(bw, "  %s (line %d)\n", finding.Safe(r.Name), r.Line)
		}
	}
	if len(c.Includes) > 0 {
		fmt.Fprintf(bw, "%s:\n", t("Includes (not followed)", "Include（未展开）"))
		for _, in := range c.Includes {
			fmt.Fprintf(bw, "  %s (line %d)\n", finding.Safe(in.Target), in.Line)
		}
	}
	return bw.Flush()
}

// writeFindings prints the failed findings (finding.WriteText, the one
// text renderer of findings).
func writeFindings(w *bufio.Writer, fs []finding.Finding, lang finding.Lang) {
	_ = finding.WriteText(w, fs, lang, finding.T("no logging problems found", "未发现日志配置问题"))
}
