package cli

import (
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Help and command-line errors in the user's language. Every command's
// Short, Long and Example and every flag's usage is written once, where the
// command or flag is defined, as a finding.Text passed through helpText:
//
//	Short: helpText(finding.T("Audit this host", "审计本机")),
//	f.BoolVar(&o.All, "all", false, helpText(finding.T("show all", "显示全部")))
//
// cobra gets the English, the command or flag keeps the Chinese in its
// Annotations, put in place when help is shown in Chinese. A test walks the
// tree so a command or flag cannot ship without its pair.

// helpMark separates the two languages of a help text between helpText and
// splitHelp: cobra's fields are plain strings, and the pair travels in
// them from where a command or flag is defined to the built tree, which
// keeps no package-level table.
const helpMark = "\x00zh\x00"

// Annotation keys holding the Chinese: a command's for its Short, Long and
// Example, a flag's for its usage.
var (
	zhFieldKeys = [3]string{"tuneloop.zh.short", "tuneloop.zh.long", "tuneloop.zh.example"}
	zhFlagKey   = "tuneloop.zh"
)

// helpText is a help text in both languages for a cobra field or a flag's
// usage; NewRoot's splitHelp gives cobra the English and keeps the Chinese
// in the command's or flag's Annotations. (A command built without NewRoot,
// as some tests do, keeps both until splitHelp runs on it.)
func helpText(t finding.Text) string { return t.EN + helpMark + t.ZH }

// splitHelp gives every command and flag of the tree its English help and
// keeps the Chinese in its Annotations (see helpText). Idempotent.
func splitHelp(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for i, s := range []*string{&c.Short, &c.Long, &c.Example} {
			if en, zh, ok := strings.Cut(*s, helpMark); ok {
				*s = en
				if c.Annotations == nil {
					c.Annotations = map[string]string{}
				}
				c.Annotations[zhFieldKeys[i]] = zh
			}
		}
		split := func(f *pflag.Flag) {
			if en, zh, ok := strings.Cut(f.Usage, helpMark); ok {
				f.Usage = en
				if f.Annotations == nil {
					f.Annotations = map[string][]string{}
				}
				f.Annotations[zhFlagKey] = []string{zh}
			}
		}
		c.Flags().VisitAll(split)
		c.PersistentFlags().VisitAll(split)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// cobraHelp is the help cobra writes itself (the help and completion
// commands, --version), which no command file defines; cobraZH looks it up.
var cobraHelp = []finding.Text{
	// help and --version
	finding.T("Help about any command", "显示任意命令的帮助"),
	finding.T("version for tuneloop", "显示 tuneloop 的版本"),
	finding.T("Help provides help for any command in the application.\nSimply type tuneloop help [path to command] for full details.", "help 提供本程序中任意命令的帮助。\n输入 tuneloop help [命令路径] 即可查看完整说明。"),
	// completion
	finding.T("Generate the autocompletion script for the specified shell", "为指定的 shell 生成自动补全脚本"),
	finding.T("Generate the autocompletion script for tuneloop for the specified shell.\nSee each sub-command's help for details on how to use the generated script.\n", "为指定的 shell 生成 tuneloop 的自动补全脚本。\n生成的脚本如何使用，详见各子命令的帮助。\n"),
	finding.T("disable completion descriptions", "不显示补全项的说明"),
	finding.T("Generate the autocompletion script for bash", "生成 bash 的自动补全脚本"),
	finding.T("Generate the autocompletion script for the bash shell.\n\nThis script depends on the 'bash-completion' package.\nIf it is not installed already, you can install it via your OS's package manager.\n\nTo load completions in your current shell session:\n\n\tsource <(tuneloop completion bash)\n\nTo load completions for every new session, execute once:\n\n#### Linux:\n\n\ttuneloop completion bash > /etc/bash_completion.d/tuneloop\n\n#### macOS:\n\n\ttuneloop completion bash > $(brew --prefix)/etc/bash_completion.d/tuneloop\n\nYou will need to start a new shell for this setup to take effect.\n", "生成 bash shell 的自动补全脚本。\n\n该脚本依赖 'bash-completion' 软件包。\n如果尚未安装，可以用操作系统的包管理器安装。\n\n在当前 shell 会话中加载补全：\n\n\tsource <(tuneloop completion bash)\n\n要让每个新会话都加载补全，执行一次：\n\n#### Linux：\n\n\ttuneloop completion bash > /etc/bash_completion.d/tuneloop\n\n#### macOS：\n\n\ttuneloop completion bash > $(brew --prefix)/etc/bash_completion.d/tuneloop\n\n需要启动一个新的 shell，该设置才会生效。\n"),
	finding.T("Generate the autocompletion script for zsh", "生成 zsh 的自动补全脚本"),
	finding.T("Generate the autocompletion script for the zsh shell.\n\nIf shell completion is not already enabled in your environment you will need\nto enable it.  You can execute the following once:\n\n\techo \"autoload -U compinit; compinit\" >> ~/.zshrc\n\nTo load completions in your current shell session:\n\n\tsource <(tuneloop completion zsh)\n\nTo load completions for every new session, execute once:\n\n#### Linux:\n\n\ttuneloop completion zsh > \"${fpath[1]}/_tuneloop\"\n\n#### macOS:\n\n\ttuneloop completion zsh > $(brew --prefix)/share/zsh/site-functions/_tuneloop\n\nYou will need to start a new shell for this setup to take effect.\n", "生成 zsh shell 的自动补全脚本。\n\n如果你的环境尚未启用 shell 补全，需要先启用。可以执行一次：\n\n\techo \"autoload -U compinit; compinit\" >> ~/.zshrc\n\n在当前 shell 会话中加载补全：\n\n\tsource <(tuneloop completion zsh)\n\n要让每个新会话都加载补全，执行一次：\n\n#### Linux：\n\n\ttuneloop completion zsh > \"${fpath[1]}/_tuneloop\"\n\n#### macOS：\n\n\ttuneloop completion zsh > $(brew --prefix)/share/zsh/site-functions/_tuneloop\n\n需要启动一个新的 shell，该设置才会生效。\n"),
	finding.T("Generate the autocompletion script for fish", "生成 fish 的自动补全脚本"),
	finding.T("Generate the autocompletion script for the fish shell.\n\nTo load completions in your current shell session:\n\n\ttuneloop completion fish | source\n\nTo load completions for every new session, execute once:\n\n\ttuneloop completion fish > ~/.config/fish/completions/tuneloop.fish\n\nYou will need to start a new shell for this setup to take effect.\n", "生成 fish shell 的自动补全脚本。\n\n在当前 shell 会话中加载补全：\n\n\ttuneloop completion fish | source\n\n要让每个新会话都加载补全，执行一次：\n\n\ttuneloop completion fish > ~/.config/fish/completions/tuneloop.fish\n\n需要启动一个新的 shell，该设置才会生效。\n"),
	finding.T("Generate the autocompletion script for powershell", "生成 powershell 的自动补全脚本"),
	finding.T("Generate the autocompletion script for powershell.\n\nTo load completions in your current shell session:\n\n\ttuneloop completion powershell | Out-String | Invoke-Expression\n\nTo load completions for every new session, add the output of the above command\nto your powershell profile.\n", "生成 powershell 的自动补全脚本。\n\n在当前 shell 会话中加载补全：\n\n\ttuneloop completion powershell | Out-String | Invoke-Expression\n\n要让每个新会话都加载补全，把上面命令的输出加入你的 powershell 配置文件（profile）。\n"),
}

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
	splitHelp(root)
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

// cobraZH is the Chinese of cobra's own help texts (read-only once built).
var cobraZH = func() map[string]string {
	m := map[string]string{}
	for _, t := range cobraHelp {
		m[t.EN] = t.ZH
	}
	return m
}()

// visitHelp calls fn with a pointer to every help text of the tree and its
// Chinese (ok false when it has none).
func visitHelp(root *cobra.Command, fn func(s *string, zh string, ok bool)) {
	completeTree(root)
	splitHelp(root)
	cobraText := func(en string) (string, bool) {
		if zh, ok := cobraZH[en]; ok {
			return zh, true
		}
		if m := helpForRE.FindStringSubmatch(en); m != nil {
			return "显示 " + m[1] + " 的帮助", true
		}
		return "", false
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for i, s := range []*string{&c.Short, &c.Long, &c.Example} {
			if strings.TrimSpace(*s) == "" {
				continue
			}
			zh, ok := c.Annotations[zhFieldKeys[i]]
			if !ok {
				zh, ok = cobraText(*s)
			}
			fn(s, zh, ok)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if zh := f.Annotations[zhFlagKey]; len(zh) == 1 {
				fn(&f.Usage, zh[0], true)
				return
			}
			zh, ok := cobraText(f.Usage)
			fn(&f.Usage, zh, ok)
		})
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
	visitHelp(root, func(s *string, zh string, ok bool) {
		if ok {
			*s = zh
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
