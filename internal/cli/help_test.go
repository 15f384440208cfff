package cli

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// helpTexts lists every English help text of the tree: what helpZH must cover.
func helpTexts(root *cobra.Command) []string {
	var out []string
	visitHelp(root, func(s *string) { out = append(out, *s) })
	return out
}

// Every help text of the tree has its Chinese, and the table holds nothing
// the tree no longer has.
func TestHelpAllTranslated(t *testing.T) {
	env, _, _ := testEnv()
	seen := map[string]bool{}
	var missing []string
	for _, s := range helpTexts(NewRoot(env)) {
		seen[s] = true
		if _, ok := helpZH[s]; !ok && !helpForRE.MatchString(s) && !seen["missing\x00"+s] {
			seen["missing\x00"+s] = true
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d help texts have no Chinese in helpZH (help_zh.go):\n%q", len(missing), missing)
	}
	var stale []string
	for en, zh := range helpZH {
		if !seen[en] {
			stale = append(stale, en)
		}
		if strings.TrimSpace(zh) == "" {
			t.Errorf("empty Chinese for %q", en)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("helpZH has texts no command uses any more:\n%q", stale)
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
		{"zh_CN.UTF-8", []string{"--help"}, []string{"用法：", "可用命令：", helpZH["Load an HTTP service (closed or open model) and report TPS, latency percentiles and errors"]}, []string{"Available Commands:"}},
		{"", []string{"load", "--help", "--lang", "zh"}, []string{"参数：", "-c, --users", helpZH["closed model: concurrent users (default 10 when --rate is not set)"], "显示 load 的帮助", "tuneloop load [URL] [参数]", `json（默认 "text"）`}, []string{"Flags:"}},
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
