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
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/version"
)

// AnalyzeOptions are the flags of `tuneloop analyze`.
type AnalyzeOptions struct {
	Output  string // text or json
	Lang    string
	Cmdline string // a pasted JVM command line
	Profile string
	FailOn  string
	Now     func() time.Time
}

func newAnalyzeCmd(env *Env) *cobra.Command {
	o := &AnalyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze FILE... | RUN_DIR | --cmdline 'java ...'",
		Short: "Analyse thread dumps, GC logs and JVM command lines offline",
		Long: `Analyse evidence offline. A RUN_DIR written by 'tuneloop record' is diagnosed
again from its raw samples (a folder copied from another machine analyses the
same). Each FILE is recognised by its content:

  thread dumps   jstack / jcmd Thread.print / SIGQUIT output (also inside an
                 application log, several per file), JDK 21+ JSON dumps.
                 Several dumps are also compared over time (stuck threads, hot frames).
  GC logs        JDK 8 (-XX:+PrintGCDetails) and JDK 9+ unified (-Xlog:gc*) logs of
                 every collector; several files are joined as one rotated set.
  logging config logback.xml, log4j2.xml / .properties, log4j.properties / log4j.xml:
                 synchronous file appenders on the request path, flush and buffer
                 settings, console appenders, async queue sizes, caller data.

--cmdline runs the JVM rules of 'check' (heap, GC choice, GC logging, heap
dumps...) on a pasted command line, e.g. from a start script or 'ps'.

Exit status: 0 when the analysis ran, 3 when --fail-on is met, 1 when an input
could not be read or recognised, 2 on bad usage.`,
		Example: `  tuneloop analyze dump1.txt dump2.txt dump3.txt
  tuneloop analyze gc.log gc.log.0 gc.log.1 --lang zh
  tuneloop analyze --cmdline 'java -Xms2g -Xmx8g -XX:+UseParallelGC -jar app.jar'
  tuneloop analyze /opt/app/conf/logback.xml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunAnalyze(cmd.Context(), env, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json (and markdown for a run folder)")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.StringVar(&o.Cmdline, "cmdline", "", "a JVM command line to check (quote it)")
	f.StringVar(&o.Profile, "profile", string(rules.JavaWeb), "workload profile for --cmdline: java-web, database or latency")
	f.StringVar(&o.FailOn, "fail-on", "", "exit 3 if a finding is at least this severe: warning or critical")
	return cmd
}

// inputKind is what a file turned out to be.
type inputKind int

const (
	kindUnknown inputKind = iota
	kindThreadDump
	kindGCLog
	kindLogConfig
)

// sniffLen is how much of a file is read to recognise it.
const sniffLen = 256 << 10

// sniff recognises a file from its beginning. A thread dump header wins over
// GC lines, since a SIGQUIT dump inside a console log may follow GC output.
func sniff(name string, head []byte) inputKind {
	if bytes.Contains(head, []byte("Full thread dump")) || bytes.Contains(head, []byte(`"threadDump"`)) {
		return kindThreadDump
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 0; sc.Scan() && n < 200; n++ {
		if gclog.Detect(sc.Bytes()) != gclog.FormatUnknown {
			return kindGCLog
		}
	}
	if k, err := logconf.Detect(name, bytes.NewReader(head)); err == nil && k != logconf.KindUnknown {
		return kindLogConfig
	}
	return kindUnknown
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
	GC             *gclog.Report          `json:"gc,omitempty"`
	LogConfigs     []string               `json:"logging_configs,omitempty"`
	Findings       []finding.Finding      `json:"findings"`
	Inputs         []string               `json:"inputs"`
}

// RunAnalyze is the whole `analyze` command; tests call it directly.
func RunAnalyze(ctx context.Context, env *Env, args []string, o *AnalyzeOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if o.Output != "text" && o.Output != "json" && !(o.Output == "markdown" && len(args) == 1) {
		return usageErr(finding.T("--output: unknown format %q (want text or json; markdown for a run folder)", "--output：未知格式 %q（应为 text 或 json；运行目录还可用 markdown）"), o.Output)
	}
	var failOn *finding.Severity
	if o.FailOn != "" {
		s, err := finding.ParseSeverity(o.FailOn)
		if err != nil || s == finding.Info {
			return usageErr(finding.T("--fail-on: want warning or critical, got %q", "--fail-on：应为 warning 或 critical，实际为 %q"), o.FailOn)
		}
		failOn = &s
	}
	if len(args) == 0 && o.Cmdline == "" {
		return usageErr(finding.T("nothing to analyse: give files, or --cmdline 'java ...'", "没有可分析的内容：请给出文件，或使用 --cmdline 'java ...'"))
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	res := &AnalyzeResult{Schema: "tuneloop.analyze/v1", Tool: "tuneloop " + version.Version, GeneratedAt: now().UTC(), Inputs: args}

	var dumpFiles, gcFiles, logFiles []string
	for _, path := range args {
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		if st.IsDir() {
			if !IsRunDir(path) {
				return fmt.Errorf("%s is a directory but not a run folder (no manifest.json from 'tuneloop record')", path)
			}
			if len(args) > 1 || o.Cmdline != "" {
				return usageErr(finding.T("a run folder is analysed on its own: tuneloop analyze %s", "运行目录需要单独分析：tuneloop analyze %s"), path)
			}
			return RunAnalyzeRun(ctx, env, path, AnalyzeRunOptions{Output: o.Output, Lang: o.Lang, FailOn: o.FailOn})
		}
		head, err := readHead(path)
		if err != nil {
			return err
		}
		switch sniff(path, head) {
		case kindGCLog:
			gcFiles = append(gcFiles, path)
		case kindLogConfig:
			logFiles = append(logFiles, path)
		case kindThreadDump:
			dumpFiles = append(dumpFiles, path)
		default:
			// No header and no GC line: the dump parser gets the last word
			// (a bare thread list) and explains what the file is otherwise.
			dumpFiles = append(dumpFiles, path)
		}
	}

	var out bytes.Buffer // rendered text, written only when everything parsed
	if len(dumpFiles) > 0 {
		set, err := readDumpSet(dumpFiles)
		if err != nil {
			return err
		}
		// A file that is no dump fails the command (exit 1): analyze was
		// asked about that file, and a partial answer would hide it.
		if len(set.Unreadable) > 0 {
			u := set.Unreadable[0]
			if errors.Is(u.Err, threaddump.ErrNotThreadDump) {
				return fmt.Errorf("%w (nor a GC log or a log4j/log4j2/logback configuration)", u.Err)
			}
			return u.Err
		}
		res.Findings = append(res.Findings, set.Findings...)
		res.ThreadDumps = set.Reports
		res.DumpDuplicates = set.Duplicates
		if o.Output == "text" {
			if err := threaddump.WriteText(&out, set, lang); err != nil {
				return err
			}
		}
	}
	if len(gcFiles) > 0 {
		r, err := gclog.Analyze(gclog.FileSources(gcFiles...), gclog.DefaultThresholds())
		if err != nil {
			return err
		}
		res.GC = r
		res.Findings = append(res.Findings, r.Findings...)
		if o.Output == "text" {
			if out.Len() > 0 {
				out.WriteString("\n")
			}
			if err := gclog.WriteText(&out, r.Summary, r.Findings, lang); err != nil {
				return err
			}
		}
	}
	if len(logFiles) > 0 {
		// The JVM command line, when given, tells logconf about
		// -Dlog4j2.contextSelector (all loggers async).
		var jvmArgs []string
		if o.Cmdline != "" {
			jvmArgs = jvmopts.ParseCommandLine(o.Cmdline)
		}
		for _, path := range logFiles {
			c, err := logconf.LoadFile(path)
			if err != nil {
				return err
			}
			fs := logconf.AnalyzeWith(c, logconf.OptionsFromArgs(jvmArgs))
			res.LogConfigs = append(res.LogConfigs, path)
			res.Findings = append(res.Findings, fs...)
			if o.Output == "text" {
				if out.Len() > 0 {
					out.WriteString("\n")
				}
				if err := logconf.WriteSummary(&out, c, lang); err != nil {
					return err
				}
				if err := logconf.WriteText(&out, path, fs, lang); err != nil {
					return err
				}
			}
		}
	}
	if o.Cmdline != "" {
		fs, err := analyzeCmdline(o.Cmdline, o.Profile)
		if err != nil {
			return err
		}
		res.Findings = append(res.Findings, fs...)
		if o.Output == "text" {
			if out.Len() > 0 {
				out.WriteString("\n")
			}
			writeCmdlineText(&out, o.Cmdline, fs, lang)
		}
	}
	finding.Sort(res.Findings)
	if res.Findings == nil {
		res.Findings = []finding.Finding{}
	}

	if o.Output == "json" {
		if err := report.WriteJSON(env.Stdout, res); err != nil {
			return err
		}
	} else if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if failOn != nil {
		if worst, any := finding.Worst(res.Findings); any && worst >= *failOn {
			return &ExitError{Code: ExitFindings}
		}
	}
	return ctx.Err()
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, sniffLen))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return head, nil
}

// readDumpSet reads the thread dump files as one set (threaddump.ReadSet).
func readDumpSet(paths []string) (*threaddump.Set, error) {
	in := make([]threaddump.Input, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = append(in, threaddump.Input{Name: p, R: f})
	}
	return threaddump.ReadSet(in), nil
}

// analyzeCmdline checks a pasted JVM command line with the JVM rules of the
// knowledge base, as if it were the only process on an unknown host: rules
// that need host facts (THP mode, cgroup limits, NUMA) say unavailable.
func analyzeCmdline(cmdline, profile string) ([]finding.Finding, error) {
	p, err := rules.ParseProfile(profile)
	if err != nil {
		return nil, usageErr(finding.T("--profile: %v", "--profile:%v"), err)
	}
	args := jvmopts.ParseCommandLine(cmdline)
	if len(args) == 0 {
		return nil, usageErr(finding.T("--cmdline: no JVM command found in %q", "--cmdline：在 %q 中没有找到 JVM 命令"), cmdline)
	}
	opts := jvmopts.Parse(args)
	facts := &sysinfo.Facts{SchemaVersion: sysinfo.SchemaVersion}
	facts.JVMs = sysinfo.Got([]sysinfo.JVM{{PID: 0, Args: args, Options: opts, OpenFDs: -1}}, "--cmdline")
	// Only what the command line itself decides; the rest needs a live host (use check).
	return jvmRuleFindings(facts, p, "cmdline"), nil
}

// jvmRuleFindings runs the knowledge base's jvm.* rules on facts and keeps
// the checks that could decide (fail or pass), each named after subject.
func jvmRuleFindings(facts *sysinfo.Facts, p rules.Profile, subject string) []finding.Finding {
	var jvmRules []rules.Rule
	for _, r := range rules.All() {
		if r.Category == "jvm" {
			jvmRules = append(jvmRules, r)
		}
	}
	var out []finding.Finding
	for _, f := range rules.Evaluate(jvmRules, facts, p) {
		if f.Status == finding.Fail || f.Status == finding.Pass {
			f.Subject = subject
			out = append(out, f)
		}
	}
	return out
}

func writeCmdlineText(w io.Writer, cmdline string, fs []finding.Finding, l finding.Lang) {
	fmt.Fprintf(w, "%s: %s\n", finding.T("JVM command line", "JVM 命令行").In(l), oneLineCLI(cmdline))
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
		if f.Fix.Apply != "" {
			fmt.Fprintf(w, "     %s\n", f.Fix.Apply)
		}
	}
	if fails == 0 {
		fmt.Fprintf(w, "%s\n", finding.T("No problem found in the JVM options.", "JVM 参数未发现问题。").In(l))
	}
}

func oneLineCLI(s string) string { return strings.Join(strings.Fields(s), " ") }
