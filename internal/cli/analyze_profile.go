package cli

// `analyze FILE.jfr` and `analyze FILE.collapsed`: a JFR recording (every
// profile kind it holds, one section each, or the --profile kind) or
// async-profiler's collapsed stacks, summarised like `jvm PID --profile`
// (top frames by self and total, the lock or allocated class as the leaf),
// and written on request as the same flame page (-o html --out F), as
// collapsed stacks (--collapsed F) and as pprof (--pprof F).

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// analyzedProfile is one profile of one input, with its page.
type analyzedProfile struct {
	input string
	prof  *stacks.Profile
	page  *report.FlamePage
}

// profileKinds is what --profile asks of a recording: one kind, or every
// kind (the default; --profile's other values are the --cmdline's).
func profileKinds(flag string) (kinds []stacks.Kind, asked bool) {
	if k, err := stacks.ParseKind(flag); err == nil {
		return []stacks.Kind{k}, true
	}
	return []stacks.Kind{stacks.CPU, stacks.Alloc, stacks.Lock, stacks.Wall}, false
}

// readProfiles reads one profile input into its profiles: every kind asked
// that the file holds (all asked when one was named; the CPU one, empty,
// with its note when the recording holds none).
func readProfiles(ctx context.Context, f *input.File, format input.Format, kinds []stacks.Kind, asked bool) ([]*stacks.Profile, recSpan, error) {
	var span recSpan
	if format == input.Collapsed {
		rc, err := f.Open(ctx)
		if err != nil {
			return nil, span, err
		}
		c := &cutAtLimit{r: rc}
		defer c.Close()
		p, err := stacks.ReadCollapsed(c, kinds[0])
		span.cut = c.err
		if err != nil {
			return nil, span, finding.Errorf(finding.T("%s: collapsed stacks that cannot be read: %v", "%s：无法读取的折叠调用栈：%v"), f.Name, err)
		}
		return []*stacks.Profile{p}, span, nil
	}
	rb, err := f.OpenBinary(ctx)
	if err != nil {
		return nil, span, err
	}
	rc := &cutAtLimit{r: rb} // cut at --max-input: the whole chunks before stand
	defer rc.Close()
	var out []*stacks.Profile
	var empty *stacks.Profile
	// One pass over the recording for every kind, a chunk at a time.
	all, info, err := stacks.JFRProfilesFrom(ctx, rc, kinds...)
	span = recSpan{start: info.Start, d: info.Duration, cut: rc.err}
	if err != nil {
		if ctx.Err() != nil {
			return nil, span, ctx.Err()
		}
		return nil, span, finding.Errorf(finding.T("%s: a JFR recording that cannot be read: %v", "%s：无法读取的 JFR 记录：%v"), f.Name, err)
	}
	for _, k := range kinds {
		p := all[k]
		if p == nil {
			continue
		}
		// JFR's own wall view is CPU samples plus blocked time, not a kind
		// of its own: listed by default only from real wall-clock samples.
		derivedWall := k == stacks.Wall && p.Unit != "samples"
		switch {
		case asked:
			out = append(out, p)
		case p.Total > 0 && !derivedWall:
			out = append(out, p)
		case k == stacks.CPU:
			empty = p
		}
	}
	if len(out) == 0 && empty != nil {
		out = append(out, empty)
	}
	return out, span, nil
}

// recSpan is when a recording started and how long it ran.
type recSpan struct {
	start time.Time
	d     time.Duration
	cut   error // the input was cut at --max-input (read in part)
}

// profileNotes says in both languages what a profile lacks or left out.
func profileNotes(p *stacks.Profile, format input.Format) []finding.Text {
	var notes []finding.Text
	if p.Kind == stacks.Lock {
		if d := p.DropIdleWaits(); d > 0 {
			notes = append(notes, finding.T(
				fmt.Sprintf("%.1f s of pool threads waiting for work left out: idle, not blocked", float64(d)/1e9),
				fmt.Sprintf("已略去线程池线程等待任务的 %.1f 秒：属于空闲而非阻塞", float64(d)/1e9)))
		}
	}
	if format == input.Collapsed {
		notes = append(notes, finding.T("collapsed stacks: counts as written (async-profiler counts samples unless --total was given)",
			"折叠调用栈：按文件中的计数（async-profiler 未加 --total 时为采样数）"))
	}
	if p.LacksNative() && format != input.Collapsed {
		notes = append(notes, finding.T(stacks.WallNativeGap()))
	}
	if p.Note != "" {
		zh := map[stacks.Kind]string{
			stacks.CPU:   "记录中没有 jdk.ExecutionSample 事件：请用 settings=profile 记录",
			stacks.Alloc: "记录中没有分配事件：请用 settings=profile 记录（JDK 16+：jdk.ObjectAllocationSample）",
			stacks.Lock:  "记录中没有超过阈值的 jdk.JavaMonitorEnter 或 jdk.ThreadPark 事件：请用 settings=profile 或更低的 locking-threshold",
			stacks.Wall:  "记录中没有任何采样",
		}[p.Kind]
		if format == input.Collapsed || zh == "" {
			zh = p.Note // a count of skipped lines: said as read
		}
		notes = append(notes, finding.T(p.Note, zh))
	}
	return notes
}

// profileInputs analyses the profile inputs: a section each, and the
// files asked for (--collapsed, --pprof, and with -o html the flame pages).
func (a *analysis) profileInputs(ctx context.Context, files []*input.File, forced input.Format, o *AnalyzeOptions) error {
	if len(files) == 0 {
		if o.Collapsed != "" || o.Pprof != "" {
			return usageErr(finding.T("--collapsed and --pprof write a profile: none of the inputs is a JFR recording or collapsed stacks",
				"--collapsed 与 --pprof 用于写出剖析：输入中没有 JFR 记录或折叠调用栈"))
		}
		return nil
	}
	kinds, asked := profileKinds(o.Profile)
	var all []analyzedProfile
	for _, f := range files {
		format := f.Format
		if forced != "" {
			format = forced
		}
		ps, span, err := readProfiles(ctx, f, format, kinds, asked)
		if ctx.Err() != nil {
			return interrupted(ctx)
		}
		if err != nil {
			a.refuse(f.Name, err)
			continue
		}
		if span.cut != nil {
			a.partial(f.Name, span.cut)
		}
		for _, p := range ps {
			page := report.NewFlamePage(p, report.FlameMeta{Target: f.Name, Start: span.start, Duration: span.d,
				Notes: profileNotes(p, format), Files: map[string]string{}}, a.lang)
			all = append(all, analyzedProfile{input: f.Name, prof: p, page: page})
			if format == input.JFR {
				a.jfrRead = append(a.jfrRead, f.Name) // read whole: the time account may read it again
			}
		}
	}
	// One profile takes the names given; several are told apart by kind
	// (and input, when there are several inputs).
	many := len(all) > 1 || (o.Output == "html" && (len(a.gcReports) > 0 || a.dumps != nil))
	manyInputs := len(files) > 1
	name := func(path string, ap analyzedProfile) string {
		if !many || path == "" {
			return path
		}
		tag := string(ap.prof.Kind)
		if manyInputs {
			tag = strings.TrimSuffix(filepath.Base(ap.input), filepath.Ext(ap.input)) + "." + tag
		}
		ext := filepath.Ext(path)
		if ext == ".gz" { // profile.pb.gz -> profile.cpu.pb.gz
			ext = filepath.Ext(strings.TrimSuffix(path, ext)) + ext
		}
		return strings.TrimSuffix(path, ext) + "." + tag + ext
	}
	for _, ap := range all {
		forms := profileForms(ap.prof)
		for role, path := range map[string]string{"collapsed": o.Collapsed, "pprof": o.Pprof} {
			if path == "" {
				continue
			}
			p := name(path, ap)
			if err := writeProfileFile(p, forms[role]); err != nil {
				return err
			}
			ap.page.Files[role] = p
		}
		if o.Output == "html" {
			p := name(o.Out, ap)
			if err := writeFlameHTML(p, ap.page); err != nil {
				return err
			}
			ap.page.Files["html"] = p
			a.profilePages = append(a.profilePages, p)
		}
		a.res.Profiles = append(a.res.Profiles, ap.page)
		title := finding.T("Profile", "剖析")
		if err := a.section(title, func(w io.Writer) error { return report.WriteFlameText(w, ap.page, 10) }); err != nil {
			return err
		}
	}
	return nil
}

// writeAnalyzeHTMLAll writes the GC and thread dump page when there is
// one; the profiles' flame pages were written with the profiles.
func writeAnalyzeHTMLAll(env *Env, path string, a *analysis, lang finding.Lang) error {
	for _, p := range a.profilePages {
		if p != path {
			fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("page:", "页面：").In(lang), finding.SafeLine(p))
		}
	}
	if len(a.profilePages) > 0 && len(a.gcReports) == 0 && (a.dumps == nil || len(a.dumps.Dumps) == 0) {
		if a.profilePages[0] == path {
			fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("page:", "页面：").In(lang), finding.SafeLine(path))
		}
		return nil
	}
	if err := writeAnalyzeHTML(path, a, lang); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("page:", "页面：").In(lang), finding.SafeLine(path))
	return nil
}
