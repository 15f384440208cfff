package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/inspect"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/units"
	"github.com/tuneloop/tuneloop/internal/version"
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
	// Collapsed and Pprof are where a profile input is also written (analyze_profile.go).
	Collapsed, Pprof string

	Now func() time.Time
}

func newAnalyzeCmd(env *Env) *cobra.Command {
	o := &AnalyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze FILE... | - | RUN_DIR | --cmdline 'java ...'",
		Short: helpText(finding.T("Analyse thread dumps, GC logs and JVM command lines offline", "离线分析线程转储、GC 日志和 JVM 命令行")),
		Long: helpText(finding.T(
			`Analyse evidence offline. A RUN_DIR written by 'tuneloop record' is diagnosed
again from its raw samples (a folder copied from another machine analyses the
same). Each FILE (or - for standard input) is recognised by its content, also
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
			`离线分析证据。'tuneloop record' 写出的 RUN_DIR 会根据其原始样本重新诊断
（从其他机器复制来的运行目录，分析结果相同）。每个 FILE（或用 - 表示标准输入）
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
	f.StringVarP(&o.Output, "output", "o", "text", helpText(finding.T("output format: text, json, markdown, or html (a self-contained page of the GC logs and thread dumps, with --out FILE)", "输出格式：text、json、markdown，或 html（GC 日志与线程转储的自包含页面，需配合 --out FILE）")))
	f.StringVar(&o.Out, "out", "", helpText(finding.T("with -o html: the page to write", "与 -o html 一起使用：要写出的页面文件")))
	f.StringVar(&o.Lang, "lang", "", helpText(finding.T("language: en or zh (default from LANG)", "语言：en 或 zh（默认取自 LANG）")))
	f.StringVar(&o.Cmdline, "cmdline", "", helpText(finding.T("a JVM command line to check (quote it)", "要检查的 JVM 命令行（请用引号括起来）")))
	f.IntVar(&o.JDK, "jdk", 0, helpText(finding.T("the JDK feature release the --cmdline runs on (8, 11, 17, 21, 25); default: inferred from the options", "--cmdline 所运行的 JDK 版本（8、11、17、21、25）；默认从参数推断")))
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), helpText(finding.T("cpu, alloc, lock or wall: the profile kind of a JFR recording (default: every kind it holds); java-web, database or latency: workload profile for --cmdline", "cpu、alloc、lock 或 wall：JFR 记录中要分析的剖析类型（默认：记录中有的每一种）；java-web、database 或 latency：--cmdline 使用的负载配置档")))
	f.StringVar(&o.Collapsed, "collapsed", "", helpText(finding.T("write a profile input's stacks as collapsed stacks to this file (FlameGraph, speedscope)", "把剖析输入的调用栈以折叠调用栈格式写入该文件（FlameGraph、speedscope）")))
	f.StringVar(&o.Pprof, "pprof", "", helpText(finding.T("write a profile input's stacks in pprof's format to this file (go tool pprof)", "把剖析输入的调用栈以 pprof 格式写入该文件（go tool pprof）")))
	f.StringVar(&o.FailOn, "fail-on", "", helpText(finding.T("exit 3 if a finding is at least this severe: warning or critical", "存在至少达到该严重级别的发现时以退出码 3 退出：warning 或 critical")))
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

// AnalyzeResult is the JSON document of `analyze --output json`.
type AnalyzeResult struct {
	Schema      string    `json:"schema"` // tuneloop.analyze/v1
	Tool        string    `json:"tool"`
	GeneratedAt time.Time `json:"generated_at"`
	// ThreadDumps summarises each dump (without the threads themselves).
	ThreadDumps []*threaddump.Report `json:"thread_dumps,omitempty"`
	// DumpDuplicates are dumps given twice (the same file, or the same
	// content), counted once.
	DumpDuplicates []threaddump.Duplicate `json:"thread_dump_duplicates,omitempty"`
	// DumpsThinned: the inputs held more dumps than a set keeps; these
	// were kept evenly over them.
	DumpsThinned *threaddump.Thinning `json:"thread_dumps_thinned,omitempty"`
	GC           *gclog.Report        `json:"gc,omitempty"`
	// GCSets holds one report per JVM when the GC logs came from several.
	GCSets     []*gclog.Report   `json:"gc_sets,omitempty"`
	LogConfigs []string          `json:"logging_configs,omitempty"`
	Findings   []finding.Finding `json:"findings"`
	Inputs     []string          `json:"inputs"`

	// Profiles are the JFR recordings' and collapsed stacks' profiles, one page each.
	Profiles []*report.FlamePage `json:"profiles,omitempty"`

	// Read lists each input read, with its format and what was undone.
	Read []InputRead `json:"read,omitempty"`
	// Unreadable are the inputs that could not be read, each with why.
	Unreadable []InputError `json:"unreadable,omitempty"`
	// DumpNotes are the dumps read only in part: cut short, or with records left out.
	DumpNotes []DumpNote `json:"thread_dump_notes,omitempty"`
	// ReadInPart are the inputs --max-input cut: what came before the
	// limit is analysed, the rest was not read.
	ReadInPart []InputError `json:"read_in_part,omitempty"`
}

// DumpNote says what is missing from one dump.
type DumpNote struct {
	Source     string       `json:"source"`
	Line       int          `json:"line"`
	Format     string       `json:"format"`
	Truncated  finding.Text `json:"truncated,omitzero"`
	Dropped    int          `json:"dropped,omitempty"`
	DroppedWhy finding.Text `json:"dropped_why,omitzero"`
}

// InputRead is one input that was read.
type InputRead struct {
	Name     string `json:"name"`
	Format   string `json:"format"`
	Encoding string `json:"encoding,omitempty"`
	// LongLines counts lines cut at the line limit.
	LongLines int `json:"long_lines,omitempty"`
}

// InputError is one input refused, and why (in the report's language).
type InputError struct {
	Name    string `json:"name"`
	Message string `json:"error"`
}

// analysis gathers the results of one analyze call.
type analysis struct {
	res      *AnalyzeResult
	lang     finding.Lang
	text     bytes.Buffer // sections rendered as text, in input order of kinds
	sections []mdSection  // the same, for Markdown
	failed   []error
	inputs   int // files and archive entries given (refused ones too)
	// For -o html: the GC analyses with their points, and the dump set.
	gcReports []*gclog.Report
	gcEvents  []*report.GCEvents
	dumps     *threaddump.Set
	// profilePages are the flame pages -o html wrote (analyze_profile.go).
	profilePages []string
	// jfrRead are the JFR recordings read whole as profiles (a refused one
	// is not read again for the time account).
	jfrRead []string
}

type mdSection struct {
	title finding.Text
	text  string
}

func (a *analysis) refuse(name string, err error) {
	a.failed = append(a.failed, err)
	a.res.Unreadable = append(a.res.Unreadable, InputError{Name: name, Message: finding.Localize(err, a.lang)})
}

// cutAtLimit ends an input at --max-input as if it ended there (what came
// before is analysed, and the input is said to be read in part), instead
// of failing the whole input.
type cutAtLimit struct {
	r   io.ReadCloser
	err error // the limit's error, once reached
}

func (c *cutAtLimit) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && errors.Is(err, input.ErrLimit) {
		c.err = err
		return n, io.EOF
	}
	return n, err
}

func (c *cutAtLimit) Close() error { return c.r.Close() }

// partial notes an input cut at --max-input.
func (a *analysis) partial(name string, err error) {
	a.res.ReadInPart = append(a.res.ReadInPart, InputError{Name: name, Message: finding.Localize(err, a.lang)})
}

// section renders one kind of input with its text writer.
func (a *analysis) section(title finding.Text, write func(w io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	if a.text.Len() > 0 {
		a.text.WriteString("\n")
	}
	a.text.Write(b.Bytes())
	a.sections = append(a.sections, mdSection{title: title, text: b.String()})
	return nil
}

// RunAnalyze is the whole `analyze` command; tests call it directly.
func RunAnalyze(ctx context.Context, env *Env, args []string, o *AnalyzeOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, analyzeFormats())
	if err != nil {
		return err
	}
	o.Output = string(format) // "md" is markdown
	if (o.Output == "html") != (o.Out != "") {
		return usageErr(finding.T("-o html writes a page: give both -o html and --out FILE", "-o html 会写出一个页面：请同时给出 -o html 与 --out FILE"))
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	if len(args) == 0 && o.Cmdline == "" {
		return usageErr(finding.T("nothing to analyse: give files, - for standard input, or --cmdline 'java ...'", "没有可分析的内容：请给出文件、- 表示标准输入，或使用 --cmdline 'java ...'"))
	}
	forced := input.Format("")
	if o.Format != "" {
		f, ok := input.ParseFormat(o.Format)
		if !ok {
			return usageErr(finding.T("--format: unknown format %q (want one of: %s)", "--format：未知格式 %q（应为以下之一：%s）"), o.Format, formatNames())
		}
		forced = f
	}
	lim := input.DefaultLimits()
	if o.MaxInput != "" {
		n, err := units.ParseBytes(o.MaxInput)
		if err != nil || n <= 0 {
			return usageErr(finding.T("--max-input: want a size such as 512M or 4G, got %q", "--max-input：应为 512M 或 4G 这样的大小，实际为 %q"), o.MaxInput)
		}
		lim.MaxBytes = n
	}
	if o.Cmdline != "" {
		if _, err := rules.ParseProfile(o.Profile); err != nil {
			return profileErr(o.Profile)
		}
	}
	// A run folder is analysed on its own; any other directory is refused below.
	for _, path := range args {
		if path != "-" && IsRunDir(path) {
			if len(args) > 1 || o.Cmdline != "" {
				return usageErr(finding.T("a run folder is analysed on its own: tuneloop analyze %s", "运行目录需要单独分析：tuneloop analyze %s"), path)
			}
			return analyzeRunDir(ctx, env, path, AnalyzeRunOptions{Output: o.Output, Lang: o.Lang, FailOn: o.FailOn})
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	a := &analysis{lang: lang, res: &AnalyzeResult{Schema: "tuneloop.analyze/v1", Tool: "tuneloop " + version.Version, GeneratedAt: now().UTC(), Inputs: args}}

	in, err := a.open(ctx, env, args, forced, lim)
	for _, fs := range in {
		for _, f := range fs {
			defer f.Close()
		}
	}
	if err != nil {
		return err
	}
	dumps, gcs, confs, profs := in[input.KindThreadDump], in[input.KindGCLog], in[input.KindLogConfig], in[input.KindProfile]
	if err := a.threadDumps(ctx, dumps); err != nil {
		return err
	}
	if err := a.gcLogs(ctx, gcs); err != nil {
		return err
	}
	if err := a.logConfigs(ctx, confs, o.Cmdline); err != nil {
		return err
	}
	if err := a.profileInputs(ctx, profs, forced, o); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return interrupted(ctx)
	}
	if err := a.mechanisms(ctx, profs, forced); err != nil {
		return err
	}
	for i := range a.res.Read {
		for _, f := range append(append(dumps, gcs...), confs...) {
			if f.Name == a.res.Read[i].Name {
				a.res.Read[i].LongLines = f.LongLines()
			}
		}
	}
	if o.Cmdline != "" {
		fs, err := analyzeCmdline(o.Cmdline, o.Profile, o.JDK)
		if err != nil {
			return err
		}
		a.res.Findings = append(a.res.Findings, fs...)
		a.section(finding.T("JVM command line", "JVM 命令行"), func(w io.Writer) error {
			writeCmdlineText(w, o.Cmdline, fs, lang)
			return nil
		})
	}
	res := a.res
	finding.Sort(res.Findings)
	if res.Findings == nil {
		res.Findings = []finding.Finding{}
	}

	switch o.Output {
	case "json":
		err = report.WriteJSON(env.Stdout, res)
	case "markdown":
		err = writeAnalyzeMarkdown(env.Stdout, a)
	case "html":
		err = writeAnalyzeHTMLAll(env, o.Out, a, lang)
	default:
		err = writeAnalyzeText(env.Stdout, a)
	}
	if err != nil {
		return err
	}
	if len(a.failed) > 0 {
		// Each refusal is said on stderr, the summary is the exit message.
		if o.Output != "text" {
			for _, u := range res.Unreadable {
				fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.SafeLine(u.Message))
			}
		}
		if len(a.failed) >= a.inputs {
			return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("no input could be read", "没有可以读取的输入"))}
		}
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%d of %d inputs could not be read (the others are reported above)",
			"%d 个输入（共 %d 个）无法读取（其余的结果见上）"), len(a.failed), a.inputs)}
	}
	return failOnGate(failOn, res.Findings)
}

// open opens every input (a zip: each entry; - : standard input) and
// sorts them by kind (forced: every input read as that format); an input
// that cannot be opened or is no kind analyze reads is refused on its own.
// The caller closes the files.
func (a *analysis) open(ctx context.Context, env *Env, args []string, forced input.Format, lim input.Limits) (map[input.Kind][]*input.File, error) {
	in := map[input.Kind][]*input.File{}
	stdinUsed := false
	for _, path := range args {
		var files []*input.File
		var err error
		switch {
		case path == "-" && stdinUsed:
			return in, usageErr(finding.T("- (standard input) is given twice", "- （标准输入）给出了两次"))
		case path == "-":
			stdinUsed = true
			files, err = input.OpenStream(ctx, "stdin", env.Stdin, lim)
		default:
			files, err = input.OpenAll(ctx, path, lim)
		}
		if err != nil {
			if ctx.Err() != nil {
				return in, interrupted(ctx)
			}
			if errors.Is(err, input.ErrNotFile) && dirExists(path) {
				err = finding.Errorf(finding.T("%s: a directory, but not a run folder (no manifest.json from 'tuneloop record')",
					"%s：是一个目录，但不是运行目录（没有 'tuneloop record' 写出的 manifest.json）"), path)
			}
			a.inputs++
			a.refuse(path, err)
			continue
		}
		a.inputs += len(files)
		for _, f := range files {
			format := f.Format
			if forced != "" {
				format = forced
			}
			switch k := format.Kind(); k {
			case input.KindThreadDump, input.KindGCLog, input.KindLogConfig, input.KindProfile:
				in[k] = append(in[k], f)
			default:
				f.Close()
				d := input.Describe(format, f.Head)
				a.refuse(f.Name, finding.Errorf(finding.T("%s: %s", "%s：%s"), f.Name, d))
				continue
			}
			a.res.Read = append(a.res.Read, InputRead{Name: f.Name, Format: string(format), Encoding: f.Encoding})
		}
	}
	return in, nil
}

// profileErr is an unknown --profile, said whole in each language.
func profileErr(p string) error {
	return usageErr(finding.T("--profile: unknown profile %q (want java-web, database or latency)",
		"--profile：未知的负载配置档 %q（应为 java-web、database 或 latency）"), p)
}

func interrupted(ctx context.Context) error {
	return finding.Errorf(finding.T("interrupted (%v): nothing reported", "已中断（%v）：没有输出报告"), ctx.Err())
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// threadDumps reads the dump inputs as one set; each input that holds no
// dump is refused on its own.
func (a *analysis) threadDumps(ctx context.Context, files []*input.File) error {
	if len(files) == 0 {
		return nil
	}
	in := make([]threaddump.Input, 0, len(files))
	cuts := map[string]*cutAtLimit{}
	for _, f := range files {
		rc, err := f.Open(ctx)
		if err != nil {
			a.refuse(f.Name, err)
			continue
		}
		c := &cutAtLimit{r: rc}
		cuts[f.Name] = c
		defer c.Close()
		in = append(in, threaddump.Input{Name: f.Name, R: c})
	}
	set := threaddump.ReadSetContext(ctx, in)
	if ctx.Err() != nil {
		return interrupted(ctx)
	}
	for _, f := range files {
		if c := cuts[f.Name]; c != nil && c.err != nil {
			a.partial(f.Name, c.err)
		}
	}
	for _, u := range set.Unreadable {
		a.refuse(u.Name, u.Err)
	}
	set.Unreadable = nil // said once, with the other inputs
	if len(set.Dumps) == 0 {
		return nil
	}
	for _, d := range set.Dumps {
		if !d.Truncated.IsZero() || d.Dropped > 0 {
			a.res.DumpNotes = append(a.res.DumpNotes, DumpNote{Source: d.Source, Line: d.Line, Format: string(d.Format),
				Truncated: d.Truncated, Dropped: d.Dropped, DroppedWhy: d.DroppedWhy})
		}
	}
	a.res.Findings = append(a.res.Findings, set.Findings...)
	a.res.ThreadDumps = set.Reports
	a.res.DumpDuplicates, a.res.DumpsThinned = set.Duplicates, set.Thinned
	a.dumps = set
	return a.section(finding.T("Thread dumps", "线程转储"), func(w io.Writer) error { return threaddump.WriteText(w, set, a.lang) })
}

// gcLogs analyses the GC logs, grouped by JVM; when that fails on one
// file, each is analysed alone so the others are still reported.
func (a *analysis) gcLogs(ctx context.Context, files []*input.File) error {
	if len(files) == 0 {
		return nil
	}
	cuts := map[string]*cutAtLimit{}
	src := func(f *input.File) gclog.Source {
		return gclog.Source{Name: f.Name, Open: func() (io.ReadCloser, error) {
			rc, err := f.Open(ctx)
			if err != nil {
				return nil, err
			}
			c := &cutAtLimit{r: rc}
			cuts[f.Name] = c
			return c, nil
		}}
	}
	defer func() {
		for _, f := range files {
			if c := cuts[f.Name]; c != nil && c.err != nil {
				a.partial(f.Name, c.err)
			}
		}
	}()
	var srcs []gclog.Source
	for _, f := range files {
		srcs = append(srcs, src(f))
	}
	reports, events, err := report.AnalyzeGC(ctx, srcs, gclog.DefaultThresholds())
	if err != nil && len(files) > 1 && ctx.Err() == nil {
		reports, events = nil, nil
		for _, f := range files {
			rs, evs, err := report.AnalyzeGC(ctx, []gclog.Source{src(f)}, gclog.DefaultThresholds())
			if err != nil {
				a.refuse(f.Name, err)
				continue
			}
			reports, events = append(reports, rs...), append(events, evs...)
		}
	} else if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx)
		}
		a.refuse(files[0].Name, err)
	}
	if ctx.Err() != nil {
		return interrupted(ctx)
	}
	a.gcReports, a.gcEvents = reports, events
	for i, r := range reports {
		if i == 0 && len(reports) == 1 {
			a.res.GC = r
		} else {
			a.res.GCSets = append(a.res.GCSets, r)
		}
		a.res.Findings = append(a.res.Findings, r.Findings...)
		if err := a.section(finding.T("GC log", "GC 日志"), func(w io.Writer) error { return gclog.WriteText(w, r.Summary, r.Findings, a.lang) }); err != nil {
			return err
		}
	}
	return nil
}

// logConfigs reads each logging configuration; the JVM command line, when
// given, tells logconf about -Dlog4j2.contextSelector (all loggers async).
func (a *analysis) logConfigs(ctx context.Context, files []*input.File, cmdline string) error {
	var jvmArgs []string
	if cmdline != "" {
		jvmArgs = jvmopts.ParseCommandLine(cmdline)
	}
	for _, f := range files {
		rc, err := f.Open(ctx)
		if err != nil {
			a.refuse(f.Name, err)
			continue
		}
		c, err := logconf.Parse(f.Name, rc)
		rc.Close()
		if err != nil {
			a.refuse(f.Name, err)
			continue
		}
		fs := logconf.AnalyzeWith(c, logconf.OptionsFromArgs(jvmArgs))
		a.res.LogConfigs = append(a.res.LogConfigs, f.Name)
		a.res.Findings = append(a.res.Findings, fs...)
		err = a.section(finding.T("Logging configuration", "日志配置"), func(w io.Writer) error {
			if err := logconf.WriteSummary(w, c, a.lang); err != nil {
				return err
			}
			return logconf.WriteText(w, f.Name, fs, a.lang)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeAnalyzeText prints the inputs not read first, then each section.
func writeAnalyzeText(w io.Writer, a *analysis) error {
	var b bytes.Buffer
	t := func(en, zh string) string { return finding.T(en, zh).In(a.lang) }
	for _, u := range a.res.Unreadable {
		fmt.Fprintf(&b, "%s%s\n", t("Not read: ", "未能读取："), finding.SafeLine(u.Message))
	}
	for _, u := range a.res.ReadInPart {
		fmt.Fprintf(&b, "%s%s%s\n", t("Read in part: ", "只读取了一部分："), finding.SafeLine(u.Message), t(" (what came before is analysed below)", "（之前的内容已在下面分析）"))
	}
	for _, r := range a.res.Read {
		if r.LongLines > 0 {
			fmt.Fprintf(&b, t("%s: %d lines longer than the line limit were cut\n", "%s：%d 行超过行长上限，已截断\n"), finding.SafeLine(r.Name), r.LongLines)
		}
	}
	if b.Len() > 0 && a.text.Len() > 0 {
		b.WriteString("\n")
	}
	b.Write(a.text.Bytes())
	_, err := w.Write(b.Bytes())
	return err
}

// writeAnalyzeMarkdown is the same report as Markdown: each section's text
// in a fence (it is already sanitised; the fence outgrows any backticks in
// it), the findings as a table and one entry each.
func writeAnalyzeMarkdown(w io.Writer, a *analysis) error {
	bw := bufio.NewWriter(w)
	t := func(en, zh string) string { return finding.T(en, zh).In(a.lang) }
	fmt.Fprintf(bw, "# tuneloop analyze\n\n")
	if len(a.res.Read) > 0 {
		fmt.Fprintf(bw, "| %s | %s | %s |\n|---|---|---|\n", t("Input", "输入"), t("Format", "格式"), t("Encoding", "编码"))
		for _, r := range a.res.Read {
			fmt.Fprintf(bw, "| %s | %s | %s |\n", report.MarkdownCell(r.Name), r.Format, r.Encoding)
		}
		bw.WriteString("\n")
	}
	if len(a.res.Unreadable) > 0 {
		fmt.Fprintf(bw, "## %s\n\n", t("Not read", "未能读取"))
		for _, u := range a.res.Unreadable {
			fmt.Fprintf(bw, "- %s\n", report.MarkdownCell(u.Message))
		}
		bw.WriteString("\n")
	}
	if len(a.res.ReadInPart) > 0 {
		fmt.Fprintf(bw, "## %s\n\n", t("Read in part", "只读取了一部分"))
		for _, u := range a.res.ReadInPart {
			fmt.Fprintf(bw, "- %s\n", report.MarkdownCell(u.Message))
		}
		bw.WriteString("\n")
	}
	for _, s := range a.sections {
		fence := "```"
		for strings.Contains(s.text, fence) {
			fence += "`"
		}
		fmt.Fprintf(bw, "## %s\n\n%stext\n%s\n%s\n\n", s.title.In(a.lang), fence, strings.TrimRight(s.text, "\n"), fence)
	}
	fs := a.res.Findings
	fmt.Fprintf(bw, "## %s (%d)\n\n", t("Findings", "发现"), len(fs))
	if len(fs) > 0 {
		fmt.Fprintf(bw, "| %s | ID | %s | %s |\n|---|---|---|---|\n", t("Severity", "严重级别"), t("Status", "状态"), t("Title", "标题"))
		for i := range fs {
			f := &fs[i]
			fmt.Fprintf(bw, "| %s | `%s` | %s | %s |\n", f.Severity.Label(a.lang), strings.ReplaceAll(report.MarkdownCode(f.Key()), "|", `\|`), f.Status, report.MarkdownCell(f.Title.In(a.lang)))
		}
		bw.WriteString("\n")
	}
	for i := range fs {
		f := &fs[i]
		if f.Status != finding.Fail {
			continue
		}
		fmt.Fprintf(bw, "### %s\n\n", report.MarkdownCell(f.Title.In(a.lang)))
		for _, p := range []struct{ k, v string }{
			{t("Seen", "现象"), f.Observed.In(a.lang)},
			{t("Why", "原因"), f.Why.In(a.lang)},
			{t("Do", "建议"), f.Recommended.In(a.lang)},
			{t("Risk", "风险"), f.Risk.In(a.lang)},
		} {
			if strings.TrimSpace(p.v) != "" {
				fmt.Fprintf(bw, "- **%s**: %s\n", p.k, report.MarkdownCell(p.v))
			}
		}
		if f.Fix.Apply != "" {
			fmt.Fprintf(bw, "- **%s**: `%s`\n", t("Apply", "执行"), report.MarkdownCode(f.Fix.Apply))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// analyzeCmdline checks a pasted JVM command line with the JVM rules of the
// knowledge base, as if it were the only process on an unknown host: rules
// that need host facts (THP mode, cgroup limits, NUMA) say unavailable.
func analyzeCmdline(cmdline, profile string, jdk int) ([]finding.Finding, error) {
	p, err := rules.ParseProfile(profile)
	if err != nil {
		return nil, profileErr(profile)
	}
	args := jvmopts.ParseCommandLine(cmdline)
	if len(args) == 0 {
		return nil, usageErr(finding.T("--cmdline: no JVM command found in %q", "--cmdline：在 %q 中没有找到 JVM 命令"), cmdline)
	}
	if err := jvmopts.CheckJava(args); err != nil {
		return nil, usageErr(finding.T("--cmdline: %v", "--cmdline：%v"), err)
	}
	opts := jvmopts.Parse(args)
	opts.JDKGiven = jdk
	facts := &sysinfo.Facts{SchemaVersion: sysinfo.SchemaVersion}
	facts.JVMs = sysinfo.Got([]sysinfo.JVM{{PID: 0, Args: args, Options: opts, OpenFDs: -1}}, "--cmdline")
	// Only what the command line itself decides; the rest needs a live host (use check).
	return inspect.JVMRules(facts, p, "cmdline"), nil
}

func writeCmdlineText(w io.Writer, cmdline string, fs []finding.Finding, l finding.Lang) {
	fmt.Fprintf(w, "%s: %s\n", finding.T("JVM command line", "JVM 命令行").In(l), finding.SafeOneLine(cmdline))
	writeJVMRuleText(w, fs, l)
}

// writeJVMRuleText prints the failed jvm.* checks compactly: what was seen,
// what to do, the literal change.
func writeJVMRuleText(w io.Writer, fs []finding.Finding, l finding.Lang) {
	fails := 0
	for i := range fs {
		f := &fs[i]
		if f.Status != finding.Fail {
			continue
		}
		fails++
		fmt.Fprintf(w, "\n[%s] %s  %s\n", strings.ToUpper(f.Severity.Label(l)), f.ID, f.Title.In(l))
		fmt.Fprintf(w, "  %s\n", f.Observed.In(l))
		if rec := f.Recommended.In(l); rec != "" {
			fmt.Fprintf(w, "  -> %s\n", rec)
		}
		for _, line := range strings.Split(f.Fix.Apply, "\n") {
			if line != "" {
				fmt.Fprintf(w, "     %s\n", finding.SafeLine(line))
			}
		}
	}
	if fails == 0 {
		fmt.Fprintf(w, "%s\n", finding.T("No problem found in the JVM options.", "JVM 参数未发现问题。").In(l))
	}
}

// writeAnalyzeHTML writes the GC logs' and the thread dumps' page: one
// self-contained file, no network, in the report's language.
func writeAnalyzeHTML(path string, a *analysis, lang finding.Lang) error {
	var gc *report.GCPage
	if len(a.gcReports) > 0 {
		gc = report.NewGCPage(a.gcReports, a.gcEvents, lang)
	}
	var dp *report.DumpPage
	if a.dumps != nil && len(a.dumps.Dumps) > 0 {
		dp = report.NewDumpPage(a.dumps, lang)
	}
	if gc == nil && dp == nil {
		return usageErr(finding.T("-o html draws GC logs and thread dumps: none of the inputs is either", "-o html 只绘制 GC 日志与线程转储：输入中两者都没有"))
	}
	var b bytes.Buffer
	if err := html.WriteAnalyze(&b, gc, dp); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// oneLineCLI is finding.SafeOneLine; the name stays only for run.go, which
// another branch is rewriting (use finding.SafeOneLine in new code).
func oneLineCLI(s string) string { return finding.SafeOneLine(s) }
