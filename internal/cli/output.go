package cli

import (
	"github.com/spf13/pflag"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// outputFormat checks --output against the formats the document's writer
// lists (report.Formats) and refuses any other with one message naming
// them from the same list.
func outputFormat(s string, fs report.Formats) (report.Format, error) {
	if f, ok := fs.Parse(s); ok {
		return f, nil
	}
	return "", usageErr(report.UnknownFormat(), "--output", s, fs.Text())
}

// outputFlag defines -o/--output (default text), its help naming the
// formats from fs, the list outputFormat checks it against.
func outputFlag(f *pflag.FlagSet, p *string, fs report.Formats) {
	outputFlagNote(f, p, fs, finding.Text{})
}

// outputFlagNote is outputFlag with a note after the formats, e.g. what
// one of them needs.
func outputFlagNote(f *pflag.FlagSet, p *string, fs report.Formats, note finding.Text) {
	t := fs.Text()
	if note.EN != "" {
		t = finding.T(t.EN+" ("+note.EN+")", t.ZH+"（"+note.ZH+"）")
	}
	f.StringVarP(p, "output", "o", "text", helpText(finding.T("output format: "+t.EN, "输出格式："+t.ZH)))
}

// langFlag defines --lang, the one definition every command shares.
func langFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "lang", "", helpText(finding.T("language: en or zh (default from LANG)", "语言：en 或 zh（默认取自 LANG）")))
}

// failOnFlag defines --fail-on of the commands whose findings have a
// severity (failOnOpt parses it, failOnGate gates on it).
func failOnFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "fail-on", "", helpText(finding.T("exit 3 if a finding is at least this severe: warning or critical",
		"存在至少达到该严重级别的发现时以退出码 3 退出：warning 或 critical")))
}
