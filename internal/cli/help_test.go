package cli

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Every help text of the tree (each command's Short, Long and Example, each
// flag's usage) has its Chinese: written with it through helpText where the
// command or flag is defined, or one of cobra's own (cobraHelp). No pair is
// left unsplit, and cobraHelp holds nothing cobra no longer shows.
func TestHelpAllTranslated(t *testing.T) {
	env, _, _ := testEnv()
	seen := map[string]bool{}
	var missing []string
	visitHelp(NewRoot(env), func(s *string, zh string, ok bool) {
		seen[*s] = true
		switch {
		case strings.Contains(*s, helpMark) || strings.Contains(zh, helpMark):
			t.Errorf("help text not split: %q", *s)
		case !ok:
			missing = append(missing, *s)
		case strings.TrimSpace(zh) == "":
			t.Errorf("empty Chinese for %q", *s)
		}
	})
	if len(missing) > 0 {
		t.Errorf("%d help texts have no Chinese: write them as helpText(finding.T(en, zh)) where the command or flag is defined:\n%q", len(missing), missing)
	}
	var stale []string
	for _, h := range cobraHelp {
		if !seen[h.EN] {
			stale = append(stale, h.EN)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("cobraHelp has texts cobra no longer shows:\n%q", stale)
	}
}

// helpText's pair reaches cobra as the English, the Chinese kept by the
// command or flag; splitting twice changes nothing.
func TestHelpTextSplit(t *testing.T) {
	var v bool
	c := &cobra.Command{Use: "x", Short: helpText(finding.T("short", "短")), Long: helpText(finding.T("long\ntext", "长\n文本"))}
	c.Flags().BoolVar(&v, "flag", false, helpText(finding.T("a flag", "一个参数")))
	c.PersistentFlags().BoolVar(&v, "pflag", false, helpText(finding.T("inherited", "继承的")))
	sub := &cobra.Command{Use: "sub", Example: helpText(finding.T("  x sub", "  x sub # 示例"))}
	c.AddCommand(sub)
	for range 2 {
		splitHelp(c)
	}
	if c.Short != "short" || c.Long != "long\ntext" || sub.Example != "  x sub" {
		t.Errorf("English: %q %q %q", c.Short, c.Long, sub.Example)
	}
	if c.Annotations[zhFieldKeys[0]] != "短" || c.Annotations[zhFieldKeys[1]] != "长\n文本" || sub.Annotations[zhFieldKeys[2]] != "  x sub # 示例" {
		t.Errorf("Chinese: %q %q", c.Annotations, sub.Annotations)
	}
	for name, want := range map[string][2]string{"flag": {"a flag", "一个参数"}, "pflag": {"inherited", "继承的"}} {
		f := c.Flags().Lookup(name)
		if f == nil {
			f = c.PersistentFlags().Lookup(name)
		}
		if f.Usage != want[0] || len(f.Annotations[zhFlagKey]) != 1 || f.Annotations[zhFlagKey][0] != want[1] {
			t.Errorf("--%s: %q %q", name, f.Usage, f.Annotations)
		}
	}
}

func runRoot(t *testing.T, env *Env, args ...string) int {
	t.Helper()
	root := NewRoot(env)
	root.SetArgs(args)
	return Code(env, root.ExecuteContext(context.Background()))
}

func TestHelpFollowsTheLanguage(t *testing.T) {
	cases := []struct {
		lang      string // LANG
		args      []string
		want, not []string
	}{
		{"zh_CN.UTF-8", []string{"--help"}, []string{"用法：", "可用命令：", "对 HTTP 服务施加负载（闭合或开放模型），报告 TPS、时延百分位和错误"}, []string{"Available Commands:"}},
		{"", []string{"load", "--help", "--lang", "zh"}, []string{"参数：", "-c, --users", "闭合模型：并发用户数（未设置 --rate 时默认 10）", "显示 load 的帮助", "tuneloop load [URL] [参数]", `json（默认 "text"）`}, []string{"Flags:"}},
		{"zh_CN.UTF-8", []string{"check", "--help", "--lang", "en"}, []string{"Usage:", "Flags:"}, []string{"用法："}},
		{"", []string{"run", "--help"}, []string{"Usage:", "--target"}, []string{"用法："}},
	}
	for _, c := range cases {
		env, out, _ := testEnv()
		env.Getenv = func(k string) string {
			if k == "LANG" {
				return c.lang
			}
			return ""
		}
		if code := runRoot(t, env, c.args...); code != ExitOK {
			t.Errorf("%v: exit %d", c.args, code)
		}
		for _, w := range c.want {
			if w == "" || !strings.Contains(out.String(), w) {
				t.Errorf("LANG=%s %v: help lacks %q:\n%s", c.lang, c.args, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out.String(), n) {
				t.Errorf("LANG=%s %v: help has %q", c.lang, c.args, n)
			}
		}
	}
}

// Bad command lines exit 2 with the problem said in the user's language.
func TestCommandLineErrorsInBothLanguages(t *testing.T) {
	cases := []struct {
		args   []string
		en, zh string
	}{
		{[]string{"load", "--bogus"}, "unknown flag: --bogus", "未知参数：--bogus"},
		{[]string{"load", "-qz"}, "unknown flag: -z", "未知参数：-z"},
		{[]string{"load", "-c", "abc", "http://127.0.0.1:1/"}, `invalid value "abc" for -c, --users: not a whole number`, `参数 -c, --users 的值 "abc" 无效：不是整数`},
		{[]string{"load", "-d", "5", "http://127.0.0.1:1/"}, "not a duration", "不是时长"},
		{[]string{"load", "-c"}, "flag -c needs a value", "参数 -c 需要一个值"},
		{[]string{"bogus"}, `unknown command "bogus"`, `未知命令 "bogus"`},
		{[]string{"check", "extra"}, `tuneloop check takes no argument, got "extra"`, `tuneloop check 不接受参数，却收到了 "extra"`},
		{[]string{"load", "a", "b"}, "takes at most 1 argument(s), got 2", "最多接受 1 个参数，实际 2 个"},
		{[]string{"porting"}, "needs at least 1 argument(s), got 0", "至少需要 1 个参数，实际 0 个"},
	}
	for _, c := range cases {
		for _, lang := range []finding.Lang{finding.EN, finding.ZH} {
			env, _, errb := testEnv()
			env.Getenv = func(k string) string {
				if k == "LANG" && lang == finding.ZH {
					return "zh_CN.UTF-8"
				}
				return ""
			}
			code := runRoot(t, env, c.args...)
			want := c.en
			if lang == finding.ZH {
				want = c.zh
			}
			if code != ExitUsage || !strings.Contains(errb.String(), want) {
				t.Errorf("%s %v: exit %d, %q; want exit 2 and %q", lang, c.args, code, errb.String(), want)
			}
		}
	}
}
