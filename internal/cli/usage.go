package cli

// Command-line errors said in the user's language, each exit 2: the flag
// parser's (pflag's typed errors) and cobra's argument errors (untyped:
// matched on their wording), besides the commands' own usageErr.

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// usageErr is a bad command line (exit 2), said in both languages.
func usageErr(t finding.Text, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: finding.Errorf(t, args...)}
}

// flagError says a flag parsing error in both languages (exit 2).
func flagError(err error) error {
	var notExist *pflag.NotExistError
	var needs *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	var syntax *pflag.InvalidSyntaxError
	var t finding.Text
	var args []any
	switch {
	case errors.As(err, &notExist):
		name := "--" + notExist.GetSpecifiedName()
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			name = "-" + notExist.GetSpecifiedName()
		}
		t, args = finding.T("unknown flag: %s (see --help)", "未知参数：%s（见 --help）"), []any{name}
	case errors.As(err, &needs):
		name := "--" + needs.GetSpecifiedName()
		if needs.GetSpecifiedShortnames() != "" {
			name = "-" + needs.GetSpecifiedName()
		}
		t, args = finding.T("flag %s needs a value", "参数 %s 需要一个值"), []any{name}
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		t, args = finding.T("invalid value %q for %s: %s", "参数 %[2]s 的值 %[1]q 无效：%[3]s"), []any{invalid.GetValue(), name, valueProblem(f, invalid)}
	case errors.As(err, &syntax):
		t, args = finding.T("bad flag syntax: %s", "参数格式错误：%s"), []any{syntax.GetSpecifiedFlag()}
	default:
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return usageErr(t, args...)
}

// valueProblem says what is wrong with a flag value, in both languages.
func valueProblem(f *pflag.Flag, err error) finding.Text {
	var num *strconv.NumError
	switch {
	case f.Value.Type() == "duration":
		return finding.T("not a duration (examples: 500ms, 10s, 2m, 1h30m)", "不是时长（例如 500ms、10s、2m、1h30m）")
	case errors.As(err, &num) && errors.Is(num.Err, strconv.ErrRange):
		return finding.T("out of range", "超出范围")
	case errors.As(err, &num) && (strings.HasPrefix(f.Value.Type(), "int") || strings.HasPrefix(f.Value.Type(), "uint")):
		return finding.T("not a whole number", "不是整数")
	case errors.As(err, &num):
		return finding.T("not a number", "不是数字")
	case f.Value.Type() == "bool":
		return finding.T("not true or false", "不是 true 或 false")
	}
	msg := err.Error()
	if u := errors.Unwrap(err); u != nil {
		msg = u.Error()
	}
	return finding.T(msg, msg)
}

// cobra's own argument errors, which carry no type.
var (
	unknownCmdRE = regexp.MustCompile(`^unknown command "(.*)" for "(.*?)"`)
	argCountRE   = regexp.MustCompile(`^(requires at least|accepts at most|accepts) (\d+) arg\(s\), (?:only )?received (\d+)$`)
)

// argsError says cobra's argument errors in both languages (exit 2); other
// errors pass unchanged.
func argsError(err error) error {
	var ee *ExitError
	var loc finding.Localizer
	if err == nil || errors.As(err, &ee) || errors.As(err, &loc) {
		return err
	}
	msg := err.Error()
	if m := unknownCmdRE.FindStringSubmatch(msg); m != nil {
		if strings.Contains(m[2], " ") {
			// A leaf command given an argument it does not take.
			return usageErr(finding.T("%s takes no argument, got %q (see --help)", "%s 不接受参数，却收到了 %q（见 --help）"), m[2], m[1])
		}
		return usageErr(finding.T("unknown command %q (see %s --help)", "未知命令 %q（见 %s --help）"), m[1], m[2])
	}
	if m := argCountRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[2])
		got, _ := strconv.Atoi(m[3])
		switch m[1] {
		case "requires at least":
			return usageErr(finding.T("needs at least %d argument(s), got %d (see --help)", "至少需要 %d 个参数，实际 %d 个（见 --help）"), n, got)
		case "accepts at most":
			return usageErr(finding.T("takes at most %d argument(s), got %d (see --help)", "最多接受 %d 个参数，实际 %d 个（见 --help）"), n, got)
		default:
			return usageErr(finding.T("takes %d argument(s), got %d (see --help)", "需要 %d 个参数，实际 %d 个（见 --help）"), n, got)
		}
	}
	return err
}
