package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/analysis"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/units"
)

// AnalyzeOptions are the flags of `tuneloop analyze`.
type AnalyzeOptions struct {
	Output  string // text, json or markdown
	Lang    string
	Cmdline string // a pasted JVM command line
	Profile string
	FailOn  string
	// Format forces how every FILE is read (input.ParseFormat), "" = by content.
	Format string
	// MaxInput bounds the text read from one input ("2GiB", "512M"); "" = input.DefaultLimits.
	MaxInput string
	// Out is the file -o html writes (a self-contained page).
	Out string
	// JDK is the feature release the --cmdline runs on (0: inferred).
	JDK int
	// Collapsed and Pprof are where a profile input is also written.
	Collapsed, Pprof string
	// Save rewrites a RUN_DIR's derived/series.json and findings.json with
	// this diagnosis (AnalyzeRunOptions.Save).
	Save bool

	Now func() time.Time
}

func newAnalyzeCmd(env *Env) *cobra.Command {
	o := &AnalyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze FILE... | - | RUN_DIR | --cmdline 'java ...'",
		Short: helpText(finding.T("Analyse thread dumps, GC logs and JVM command lines offline", "离线分析线程转储、GC 日志和 JVM 命令行")),
		Long: helpText(finding.T(
			`Analyse evidence offline. A RUN_DIR written by 'tuneloop record' or 'run' is
diagnosed again from its raw samples (a folder copied from another machine
analyses the same); the folder of a multi-host run ('run --host') is read whole,
every host on this machine's clock and the app host over the load. Each FILE
(or - for standard input) is recognised by its content, also
gzip-compressed, inside a zip archive (each entry an input), in UTF-16 or with
Windows line ends:

  thread dumps   jstack / jcmd Thread.print / SIGQUIT output (also inside an
                 application log, several per file), JDK 21+ JSON dumps,
                 VisualVM/JMX dumps, HP-UX JDK dumps, OpenJ9/IBM javacores.
                 Several dumps are also compared over time (stuck threads, hot frames).
  GC logs        JDK 8 (-XX:+PrintGCDetails) and JDK 9+ unified (-Xlog:gc*) logs of
                 every collector, OpenJ9/IBM verbose GC XML and JRockit; several
                 files are joined as one rotated set.
  logging config logback.xml, log4j2.xml / .properties, log4j.properties / log4j.xml:
                 synchronous file appenders on the request path, flush and buffer
                 settings, console appenders, async queue sizes, caller data.
  profiles       JFR recordings (every kind they hold: cpu, alloc, lock, wall; or
                 --profile KIND) and async-profiler collapsed stacks: top frames by
                 self and total; -o html --out F draws the flame graph page of
                 'jvm --profile', --collapsed F and --pprof F write the stacks.

Each input is analysed or refused on its own: a file that cannot be read is
named with what it is (empty, binary, a JFR recording...) and the others are
still reported. --format forces a format for every FILE.

--cmdline runs the JVM rules of 'check' (heap, GC choice, GC logging, heap
dumps...) on a pasted command line, e.g. from a start script or 'ps'.

Exit status: 0 when every input was read and analysed, 1 when some input could
not be read (the others are still reported), 3 when all were read and --fail-on
is met, 2 on bad usage.`,
			`离线分析证据。'tuneloop record' 或 'run' 写出的 RUN_DIR 会根据其原始样本
重新诊断（从其他机器复制来的运行目录，分析结果相同）；多主机运行（'run --host'）
的目录会整体读取：每台主机都换算到本机时钟，应用主机按负载期间判断。
每个 FILE（或用 - 表示标准输入）
按其内容识别，也可以是 gzip 压缩的、zip 归档中的（每个条目是一个输入）、
UTF-16 编码的或带 Windows 换行符的：

  线程转储       jstack / jcmd Thread.print / SIGQUIT 的输出（也可以夹在应用
                 日志中，一个文件可含多份）、JDK 21+ 的 JSON 转储、
                 VisualVM/JMX 转储、HP-UX JDK 转储、OpenJ9/IBM javacore。
                 多份转储还会按时间对比（卡住的线程、热点栈帧）。
  GC 日志        各种收集器的 JDK 8（-XX:+PrintGCDetails）和 JDK 9+ 统一日志
                 （-Xlog:gc*）、OpenJ9/IBM verbose GC XML 和 JRockit；多个文件
                 合并为同一组滚动日志。
  日志配置       logback.xml、log4j2.xml / .properties、log4j.properties / log4j.xml：
                 请求路径上的同步文件 Appender、刷盘与缓冲设置、控制台
                 Appender、异步队列大小、调用者信息（caller data）。
  剖析           JFR 记录（其中的每种剖析：cpu、alloc、lock、wall；或用
                 --profile KIND 指定）和 async-profiler 折叠调用栈：按自身与总计
                 排序的热点帧；-o html --out F 绘制与 'jvm --profile' 相同的火焰图
                 页面，--collapsed F 与 --pprof F 写出调用栈。

每个输入各自分析或拒绝：无法读取的文件会说明它是什么（空文件、二进制、JFR
记录……），其余输入照常输出结果。--format 为所有 FILE 指定格式。

--cmdline 对粘贴进来的命令行（例如取自启动脚本或 'ps'）运行 'check' 的 JVM
规则（堆、GC 选择、GC 日志、堆转储……）。

退出码：所有输入都已读取并分析时为 0；有输入无法读取时为 1（其余结果照常
输出）；全部读取且达到 --fail-on 时为 3；用法错误时为 2。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop analyze dump1.txt dump2.txt dump3.txt
  tuneloop analyze gc.log gc.log.0 gc.log.1.gz --lang zh
  jstack 1234 | tuneloop analyze -
  tuneloop analyze javacore.20261125.txt -o markdown > report.md
  tuneloop analyze --cmdline 'java -Xms2g -Xmx8g -XX:+UseParallelGC -jar app.jar'
  tuneloop analyze /opt/app/conf/logback.xml
  tuneloop analyze recording.jfr --profile lock -o html --out lock.html`,
			`  tuneloop analyze dump1.txt dump2.txt dump3.txt
  tuneloop analyze gc.log gc.log.0 gc.log.1.gz --lang zh
  jstack 1234 | tuneloop analyze -
  tuneloop analyze javacore.20261125.txt -o markdown > report.md
  tuneloop analyze --cmdline 'java -Xms2g -Xmx8g -XX:+UseParallelGC -jar app.jar'
  tuneloop analyze /opt/app/conf/logback.xml
  tuneloop analyze recording.jfr --profile lock -o html --out lock.html`,
		)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunAnalyze(cmd.Context(), env, args, o)
		},
	}
	f := cmd.Flags()
	outputFlagNote(f, &o.Output, analysis.Formats(), finding.T("html: a self-contained page of the GC logs and thread dumps, with --out FILE", "html：GC 日志与线程转储的自包含页面，需配合 --out FILE"))
	f.StringVar(&o.Out, "out", "", helpText(finding.T("with -o html: the page to write", "与 -o html 一起使用：要写出的页面文件")))
	langFlag(f, &o.Lang)
	f.StringVar(&o.Cmdline, "cmdline", "", helpText(finding.T("a JVM command line to check (quote it)", "要检查的 JVM 命令行（请用引号括起来）")))
	f.IntVar(&o.JDK, "jdk", 0, helpText(finding.T("the JDK feature release the --cmdline runs on (8, 11, 17, 21, 25); default: inferred from the options", "--cmdline 所运行的 JDK 版本（8、11、17、21、25）；默认从参数推断")))
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("cpu, alloc, lock or wall: the profile kind of a JFR recording (default: every kind it holds); java-web, database or latency: workload profile for --cmdline", "cpu、alloc、lock 或 wall：JFR 记录中要分析的剖析类型（默认：记录中有的每一种）；java-web、database 或 latency：--cmdline 使用的负载配置档")))
	f.StringVar(&o.Collapsed, "collapsed", "", helpText(finding.T("write a profile input's stacks as collapsed stacks to this file (FlameGraph, speedscope)", "把剖析输入的调用栈以折叠调用栈格式写入该文件（FlameGraph、speedscope）")))
	f.StringVar(&o.Pprof, "pprof", "", helpText(finding.T("write a profile input's stacks in pprof's format to this file (go tool pprof)", "把剖析输入的调用栈以 pprof 格式写入该文件（go tool pprof）")))
	failOnFlag(f, &o.FailOn)
	f.BoolVar(&o.Save, "save", false, helpText(finding.T("with a RUN_DIR: rewrite its derived/series.json and findings.json with this diagnosis (the manifest and raw samples are never changed)", "用于 RUN_DIR：用本次诊断重写其 derived/series.json 与 findings.json（清单与原始样本不会改动）")))
	f.StringVar(&o.Format, "format", "", helpText(finding.T("read every FILE as this format instead of recognising it: "+formatNames(), "不按内容识别，而把每个 FILE 都按该格式读取："+strings.ReplaceAll(formatNames(), ", ", "、"))))
	f.StringVar(&o.MaxInput, "max-input", "", helpText(finding.T("the most text read from one input, e.g. 512M or 4G (default 2G)", "单个输入最多读取的文本量，例如 512M 或 4G（默认 2G）")))
	return cmd
}

func formatNames() string {
	var names []string
	for _, f := range input.Forcible() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// AnalyzeResult is the document of `analyze FILE...` (its JSON: --output json).
type AnalyzeResult = analysis.Result

// RunAnalyze is the whole `analyze` command; tests call it directly.
func RunAnalyze(ctx context.Context, env *Env, args []string, o *AnalyzeOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, analysis.Formats())
	if err != nil {
		return err
	}
	o.Output = string(format) // "md" is markdown
	if (format == report.HTML) != (o.Out != "") {
		return usageErr(finding.T("-o html writes a page: give both -o html and --out FILE", "-o html 会写出一个页面：请同时给出 -o html 与 --out FILE"))
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	if len(args) == 0 && o.Cmdline == "" {
		return usageErr(finding.T("nothing to analyse: give files, - for standard input, or --cmdline 'java ...'", "没有可分析的内容：请给出文件、- 表示标准输入，或使用 --cmdline 'java ...'"))
	}
	ao := analysis.Options{Lang: lang, Output: format, Out: o.Out, Cmdline: o.Cmdline, JDK: o.JDK, Profile: o.Profile,
		Limits: input.DefaultLimits(), Collapsed: o.Collapsed, Pprof: o.Pprof, Stdin: env.Stdin, Now: o.Now}
	if o.Format != "" {
		f, ok := input.ParseFormat(o.Format)
		if !ok {
			return usageErr(finding.T("--format: unknown format %q (want one of: %s)", "--format：未知格式 %q（应为以下之一：%s）"), o.Format, formatNames())
		}
		ao.Forced = f
	}
	if o.MaxInput != "" {
		n, err := units.ParseBytes(o.MaxInput)
		if err != nil || n <= 0 {
			return usageErr(finding.T("--max-input: want a size such as 512M or 4G, got %q", "--max-input：应为 512M 或 4G 这样的大小，实际为 %q"), o.MaxInput)
		}
		ao.Limits.MaxBytes = n
	}
	if o.Cmdline != "" {
		if _, err := profileOpt(o.Profile); err != nil {
			return err
		}
	}
	// A run folder is analysed on its own; any other directory is refused as an input.
	for _, path := range args {
		if hosts := path != "-" && multihost.IsDir(path); hosts || path != "-" && runfolder.IsRunDir(path) {
			if len(args) > 1 || o.Cmdline != "" {
				return usageErr(finding.T("a run folder is analysed on its own: tuneloop analyze %s", "运行目录需要单独分析：tuneloop analyze %s"), path)
			}
			ro := AnalyzeRunOptions{Output: o.Output, Lang: o.Lang, FailOn: o.FailOn, Save: o.Save}
			if hosts {
				return analyzeHostsDir(ctx, env, path, ro)
			}
			return analyzeRunDir(ctx, env, path, ro)
		}
	}
	doc, err := analysis.Files(ctx, args, ao)
	if err != nil {
		return analysisErr(err)
	}
	if format == report.HTML {
		err = writeAnalyzePage(env, o.Out, doc, lang)
	} else {
		err = analysis.Write(env.Stdout, doc, format)
	}
	if err != nil {
		return analysisErr(err)
	}
	if n := len(doc.Unreadable); n > 0 {
		// Each refusal is said on stderr, the summary is the exit message.
		if format != report.Text {
			for _, u := range doc.Unreadable {
				fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.SafeLine(u.Message))
			}
		}
		if n >= doc.Given {
			return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("no input could be read", "没有可以读取的输入"))}
		}
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%d of %d inputs could not be read (the others are reported above)",
			"%d 个输入（共 %d 个）无法读取（其余的结果见上）"), n, doc.Given)}
	}
	return failOnGate(failOn, doc.Findings)
}

// writeAnalyzePage writes -o html's page (the GC logs and thread dumps)
// to path when there is one, and names on stderr every page written (the
// profiles' flame pages were written with the analysis).
func writeAnalyzePage(env *Env, path string, doc *analysis.Result, lang finding.Lang) error {
	said := func(p string) { saidPage(env, p, lang) }
	for _, p := range doc.ProfilePages {
		if p != path {
			said(p)
		}
	}
	if len(doc.ProfilePages) > 0 && !doc.HasPage() {
		if doc.ProfilePages[0] == path {
			said(path)
		}
		return nil
	}
	var b bytes.Buffer
	if err := analysis.Write(&b, doc, report.HTML); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return err
	}
	said(path)
	return nil
}

// analysisErr is an analysis error as the command line says it: the
// options' fault is bad usage (exit 2).
func analysisErr(err error) error {
	var u *analysis.UsageError
	if errors.As(err, &u) {
		return &ExitError{Code: ExitUsage, Err: u.Err}
	}
	return err
}

func interrupted(ctx context.Context) error { return analysis.Interrupted(ctx) }
