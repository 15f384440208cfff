package cli

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Help and command-line errors in the user's language. Every command's
// Short, Long and Example and every flag's usage has its Chinese in
// helpZH (help_zh.go), keyed by the English; a test walks the tree so a new
// flag cannot ship in English only.

// helpLang is the language help is shown in: the command's --lang when
// given, else the environment's.
func helpLang(c *cobra.Command, env *Env) finding.Lang {
	if f := c.Flags().Lookup("lang"); f != nil && f.Changed {
		if l, err := finding.ParseLang(f.Value.String()); err == nil {
			return l
		}
	}
	return finding.LangFromEnv(env.Getenv)
}

// installHelp makes help follow the language.
func installHelp(root *cobra.Command, env *Env) {
	def := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if helpLang(c, env) == finding.ZH {
			localizeTree(c.Root())
		}
		def(c, args)
	})
}

// completeTree adds the commands and flags cobra adds on its own (help,
// completion, --help, --version), so they are localized too.
func completeTree(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// visitHelp calls fn with a pointer to every help text of the tree.
func visitHelp(root *cobra.Command, fn func(*string)) {
	completeTree(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range []*string{&c.Short, &c.Long, &c.Example} {
			if strings.TrimSpace(*s) != "" {
				fn(s)
			}
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { fn(&f.Usage) })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

var (
	helpForRE = regexp.MustCompile(`^help for (\S+)$`)
	defaultRE = regexp.MustCompile(` ?\(default ([^)\n]*)\)`) // pflag's suffix
)

// localizeTree puts the Chinese help in place, once per process.
func localizeTree(root *cobra.Command) {
	if root.Annotations["lang"] == "zh" {
		return
	}
	visitHelp(root, func(s *string) {
		if zh, ok := helpZH[*s]; ok {
			*s = zh
		} else if m := helpForRE.FindStringSubmatch(*s); m != nil {
			*s = "显示 " + m[1] + " 的帮助"
		}
	})
	cobra.AddTemplateFunc("zh", func(s string) string {
		return defaultRE.ReplaceAllString(strings.ReplaceAll(s, "[flags]", "[参数]"), "（默认 $1）")
	})
	root.SetUsageTemplate(usageTemplateZH.Replace(root.UsageTemplate()))
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations["lang"] = "zh"
}

// usageTemplateZH turns cobra's usage template's headings into Chinese.
var usageTemplateZH = strings.NewReplacer(
	"Usage:", "用法：",
	"Aliases:", "别名：",
	"Examples:", "示例：",
	"Available Commands:", "可用命令：",
	"Additional Commands:", "其他命令：",
	"Global Flags:", "全局参数：",
	"Flags:", "参数：",
	"Additional help topics:", "其他帮助主题：",
	"{{.UseLine}}", "{{zh .UseLine}}",
	"FlagUsages | trimTrailingWhitespaces}}", "FlagUsages | trimTrailingWhitespaces | zh}}",
	`Use "{{.CommandPath}} [command] --help" for more information about a command.`,
	`运行 "{{.CommandPath}} [command] --help" 查看各命令的说明。`,
	"[command]", "[命令]",
)

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
