package logconf

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

type labels struct {
	config, findings, none, why, fix, revert, note, risk, workload, evidence, refs, appenders, loggers, reaches, unresolved, includes string
}

var labelsEN = labels{config: "Logging configuration", findings: "Findings", none: "no logging problems found",
	why: "Why", fix: "Apply", revert: "Revert", note: "Note", risk: "Risk", workload: "Applies to", evidence: "Evidence",
	refs: "References", appenders: "Appenders", loggers: "Loggers", reaches: "writes to", unresolved: "Unresolved appender references",
	includes: "Includes (not followed)"}

var labelsZH = labels{config: "日志配置", findings: "发现", none: "未发现日志配置问题",
	why: "原因", fix: "操作", revert: "回退", note: "说明", risk: "风险", workload: "适用", evidence: "证据",
	refs: "参考", appenders: "Appender", loggers: "Logger", reaches: "写入", unresolved: "未解析的 Appender 引用",
	includes: "Include（未展开）"}

// clean makes text from a configuration file safe for a terminal: control
// characters (escape sequences) are shown as \x.. and nothing else changes.
func clean(s string) string {
	if !strings.ContainsFunc(s, isCtl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isCtl(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isCtl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// WriteText renders the findings for one configuration file as plain text.
func WriteText(w io.Writer, path string, fs []finding.Finding, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	L := labelsEN
	if lang == finding.ZH {
		L = labelsZH
	}
	fmt.Fprintf(bw, "== %s: %s\n", L.config, clean(path))
	writeFindings(bw, fs, L, lang)
	return bw.Flush()
}

// WriteSummary renders the model: appenders, loggers and what each writes to.
func WriteSummary(w io.Writer, c *Config, lang finding.Lang) error {
	bw := bufio.NewWriter(w)
	L := labelsEN
	if lang == finding.ZH {
		L = labelsZH
	}
	fmt.Fprintf(bw, "== %s: %s (%s)\n", L.config, clean(c.Path), c.Kind)
	fmt.Fprintf(bw, "%s:\n", L.appenders)
	for i, a := range c.Appenders {
		if i == 50 {
			fmt.Fprintf(bw, "  ... +%d\n", len(c.Appenders)-i)
			break
		}
		name := a.Name
		if a.Parent != "" {
			name = a.Parent + "/" + a.Name
		}
		fmt.Fprintf(bw, "  %-24s %-10s %s (line %d)", clean(name), a.Type, clean(shortClass(a.Class)), a.Line)
		if a.File.Set {
			fmt.Fprintf(bw, "  %s", clean(a.File.Raw))
		}
		if len(a.Refs) > 0 {
			var rs []string
			for _, r := range a.Refs {
				rs = append(rs, clean(r.Name))
			}
			fmt.Fprintf(bw, "  -> %s", strings.Join(rs, ", "))
		}
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "%s:\n", L.loggers)
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
			names = append(names, clean(a.Name))
		}
		async := ""
		if l.Async {
			async = " async"
		}
		fmt.Fprintf(bw, "  %-32s %-6s%s %s %s\n", clean(l.Display()), clean(lvl), async, L.reaches, strings.Join(names, ", "))
	}
	if un := c.Unresolved(); len(un) > 0 {
		fmt.Fprintf(bw, "%s:\n", L.unresolved)
		for i, r := range un {
			if i == 20 {
				break
			}
			fmt.Fprintf(bw, "  %s (line %d)\n", clean(r.Name), r.Line)
		}
	}
	if len(c.Includes) > 0 {
		fmt.Fprintf(bw, "%s:\n", L.includes)
		for _, in := range c.Includes {
			fmt.Fprintf(bw, "  %s (line %d)\n", clean(in.Target), in.Line)
		}
	}
	return bw.Flush()
}

func writeFindings(w *bufio.Writer, fs []finding.Finding, L labels, lang finding.Lang) {
	fs = append([]finding.Finding(nil), fs...)
	finding.Sort(fs)
	shown := false
	for _, f := range fs {
		if f.Status != finding.Fail {
			continue
		}
		if !shown {
			fmt.Fprintf(w, "%s:\n", L.findings)
			shown = true
		}
		fmt.Fprintf(w, "  [%s] %s  (%s)\n", f.Severity.Label(lang), clean(f.Title.In(lang)), clean(f.Key()))
		fmt.Fprintf(w, "      %s\n", clean(f.Observed.In(lang)))
		if t := f.Why.In(lang); t != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.why, clean(t))
		}
		if t := f.Recommended.In(lang); t != "" {
			fmt.Fprintf(w, "      => %s\n", clean(t))
		}
		if f.Fix.Apply != "" {
			fmt.Fprintf(w, "      %s:\n", L.fix)
			for _, ln := range strings.Split(f.Fix.Apply, "\n") {
				fmt.Fprintf(w, "        %s\n", clean(ln))
			}
		}
		if f.Fix.Revert != "" {
			fmt.Fprintf(w, "      %s:\n", L.revert)
			for _, ln := range strings.Split(f.Fix.Revert, "\n") {
				fmt.Fprintf(w, "        %s\n", clean(ln))
			}
		}
		if t := f.Fix.Note.In(lang); t != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.note, clean(t))
		}
		if t := f.Risk.In(lang); t != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.risk, clean(t))
		}
		if t := f.Workload.In(lang); t != "" {
			fmt.Fprintf(w, "      %s: %s\n", L.workload, clean(t))
		}
		for i, e := range f.Evidence {
			if i == 10 {
				fmt.Fprintf(w, "      - ... +%d\n", len(f.Evidence)-i)
				break
			}
			if e.Source != "" {
				fmt.Fprintf(w, "      - %s: %s  [%s]\n", clean(e.Key), clean(e.Value), clean(e.Source))
			} else {
				fmt.Fprintf(w, "      - %s: %s\n", clean(e.Key), clean(e.Value))
			}
		}
		if len(f.References) > 0 {
			fmt.Fprintf(w, "      %s: %s\n", L.refs, clean(strings.Join(f.References, " ")))
		}
	}
	if !shown {
		fmt.Fprintf(w, "%s\n", L.none)
	}
}
