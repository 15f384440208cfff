package analysis

// The text inputs: thread dumps (one set), GC logs (grouped by JVM),
// logging configurations, and a pasted JVM command line.

import (
	"context"
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/jvm/gclog"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// threadDumps reads the dump inputs as one set; each input that holds no
// dump is refused on its own.
func (r *Result) threadDumps(ctx context.Context, files []*input.File) error {
	if len(files) == 0 {
		return nil
	}
	in := make([]threaddump.Input, 0, len(files))
	cuts := map[string]*cutAtLimit{}
	for _, f := range files {
		rc, err := f.Open(ctx)
		if err != nil {
			r.refuse(f.Name, err)
			continue
		}
		c := &cutAtLimit{r: rc}
		cuts[f.Name] = c
		defer c.Close()
		in = append(in, threaddump.Input{Name: f.Name, R: c})
	}
	set := threaddump.ReadSetContext(ctx, in)
	if ctx.Err() != nil {
		return Interrupted(ctx)
	}
	for _, f := range files {
		if c := cuts[f.Name]; c != nil && c.err != nil {
			r.partial(f.Name, c.err)
		}
	}
	for _, u := range set.Unreadable {
		r.refuse(u.Name, u.Err)
	}
	set.Unreadable = nil // said once, with the other inputs
	if len(set.Dumps) == 0 {
		return nil
	}
	for _, d := range set.Dumps {
		if !d.Truncated.IsZero() || d.Dropped > 0 {
			r.DumpNotes = append(r.DumpNotes, DumpNote{Source: d.Source, Line: d.Line, Format: string(d.Format),
				Truncated: d.Truncated, Dropped: d.Dropped, DroppedWhy: d.DroppedWhy})
		}
	}
	r.Findings = append(r.Findings, set.Findings...)
	r.ThreadDumps = set.Reports
	r.DumpDuplicates, r.DumpsThinned = set.Duplicates, set.Thinned
	r.dumps = set
	r.section(finding.T("Thread dumps", "线程转储"), func(w io.Writer) error { return threaddump.WriteText(w, set, r.lang) })
	return nil
}

// gcLogs analyses the GC logs, grouped by JVM; when that fails on one
// file, each is analysed alone so the others are still reported.
func (r *Result) gcLogs(ctx context.Context, files []*input.File) error {
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
				r.partial(f.Name, c.err)
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
				r.refuse(f.Name, err)
				continue
			}
			reports, events = append(reports, rs...), append(events, evs...)
		}
	} else if err != nil {
		if ctx.Err() != nil {
			return Interrupted(ctx)
		}
		r.refuse(files[0].Name, err)
	}
	if ctx.Err() != nil {
		return Interrupted(ctx)
	}
	r.gcReports, r.gcEvents = reports, events
	for i, g := range reports {
		if i == 0 && len(reports) == 1 {
			r.GC = g
		} else {
			r.GCSets = append(r.GCSets, g)
		}
		r.Findings = append(r.Findings, g.Findings...)
		r.section(finding.T("GC log", "GC 日志"), func(w io.Writer) error {
			return report.WriteGC(w, report.NewGCPage([]*gclog.Report{g}, nil, r.lang), report.Text)
		})
	}
	return nil
}

// logConfigs reads each logging configuration; the JVM command line, when
// given, tells logconf about -Dlog4j2.contextSelector (all loggers async).
func (r *Result) logConfigs(ctx context.Context, files []*input.File, cmdline string) {
	var jvmArgs []string
	if cmdline != "" {
		jvmArgs = jvmopts.ParseCommandLine(cmdline)
	}
	for _, f := range files {
		rc, err := f.Open(ctx)
		if err != nil {
			r.refuse(f.Name, err)
			continue
		}
		c, err := logconf.Parse(f.Name, rc)
		rc.Close()
		if err != nil {
			r.refuse(f.Name, err)
			continue
		}
		fs := logconf.AnalyzeWith(c, logconf.OptionsFromArgs(jvmArgs))
		r.LogConfigs = append(r.LogConfigs, f.Name)
		r.Findings = append(r.Findings, fs...)
		name := f.Name
		r.section(finding.T("Logging configuration", "日志配置"), func(w io.Writer) error {
			if err := logconf.WriteSummary(w, c, r.lang); err != nil {
				return err
			}
			return logconf.WriteText(w, name, fs, r.lang)
		})
	}
}

// cmdline checks a pasted JVM command line with the JVM rules of the
// knowledge base, as if it were the only process on an unknown host: rules
// that need host facts (THP mode, cgroup limits, NUMA) say unavailable.
func (r *Result) cmdline(cmdline, profile string, jdk int) error {
	p, err := rules.ParseProfile(profile)
	if err != nil {
		return usage(finding.T("--profile: %v", "--profile：%v"), err)
	}
	args := jvmopts.ParseCommandLine(cmdline)
	if len(args) == 0 {
		return usage(finding.T("--cmdline: no JVM command found in %q", "--cmdline：在 %q 中没有找到 JVM 命令"), cmdline)
	}
	if err := jvmopts.CheckJava(args); err != nil {
		return usage(finding.T("--cmdline: %v", "--cmdline：%v"), err)
	}
	opts := jvmopts.Parse(args)
	opts.JDKGiven = jdk
	facts := &sysinfo.Facts{SchemaVersion: sysinfo.SchemaVersion}
	facts.JVMs = sysinfo.Got([]sysinfo.JVM{{PID: 0, Args: args, Options: opts, OpenFDs: -1}}, "--cmdline")
	// Only what the command line itself decides; the rest needs a live host (use check).
	fs := rules.EvaluateJVM(facts, p, "cmdline")
	r.Findings = append(r.Findings, fs...)
	r.section(finding.T("JVM command line", "JVM 命令行"), func(w io.Writer) error {
		writeCmdlineText(w, cmdline, fs, r.lang)
		return nil
	})
	return nil
}
