package analysis

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

// ReadProfiles reads one profile input into its profiles: every kind asked
// that the file holds (all asked when one was named; the CPU one, empty,
// with its note when the recording holds none).
func ReadProfiles(ctx context.Context, f *input.File, format input.Format, kinds []stacks.Kind, asked bool) ([]*stacks.Profile, Span, error) {
	var span Span
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
	span = Span{Start: info.Start, Duration: info.Duration, cut: rc.err}
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

// Span is when a recording started and how long it ran.
type Span struct {
	Start    time.Time
	Duration time.Duration
	cut      error // the input was cut at --max-input (read in part)
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
func (r *Result) profileInputs(ctx context.Context, files []*input.File, o Options) error {
	if len(files) == 0 {
		if o.Collapsed != "" || o.Pprof != "" {
			return usage(finding.T("--collapsed and --pprof write a profile: none of the inputs is a JFR recording or collapsed stacks",
				"--collapsed 与 --pprof 用于写出剖析：输入中没有 JFR 记录或折叠调用栈"))
		}
		return nil
	}
	kinds, asked := profileKinds(o.Profile)
	var all []analyzedProfile
	for _, f := range files {
		format := f.Format
		if o.Forced != "" {
			format = o.Forced
		}
		ps, span, err := ReadProfiles(ctx, f, format, kinds, asked)
		if ctx.Err() != nil {
			return Interrupted(ctx)
		}
		if err != nil {
			r.refuse(f.Name, err)
			continue
		}
		if span.cut != nil {
			r.partial(f.Name, span.cut)
		}
		for _, p := range ps {
			page := report.NewFlamePage(p, report.FlameMeta{Target: f.Name, Start: span.Start, Duration: span.Duration,
				Notes: profileNotes(p, format), Files: map[string]string{}}, r.lang)
			all = append(all, analyzedProfile{input: f.Name, prof: p, page: page})
			if format == input.JFR {
				r.jfrRead = append(r.jfrRead, f.Name) // read whole: the time account may read it again
			}
		}
	}
	// One profile takes the names given; several are told apart by kind
	// (and input, when there are several inputs).
	many := len(all) > 1 || (o.Output == report.HTML && (len(r.gcReports) > 0 || r.dumps != nil))
	for _, ap := range all {
		if err := r.writeProfile(ap, o, many, len(files) > 1); err != nil {
			return err
		}
	}
	return nil
}

// writeProfile writes the files asked of one profile and adds its page
// and section.
func (r *Result) writeProfile(ap analyzedProfile, o Options, many, manyInputs bool) error {
	name := func(path string) string {
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
	forms := map[string]func(io.Writer) error{"collapsed": ap.prof.WriteCollapsed, "pprof": ap.prof.WritePprof}
	for role, path := range map[string]string{"collapsed": o.Collapsed, "pprof": o.Pprof} {
		if path == "" {
			continue
		}
		p := name(path)
		if err := report.WriteFile(p, forms[role]); err != nil {
			return err
		}
		ap.page.Files[role] = p
	}
	if o.Output == report.HTML {
		p := name(o.Out)
		if err := report.WriteFile(p, func(w io.Writer) error { return WriteFlame(w, ap.page, report.HTML) }); err != nil {
			return err
		}
		ap.page.Files["html"] = p
		r.ProfilePages = append(r.ProfilePages, p)
	}
	r.Profiles = append(r.Profiles, ap.page)
	r.section(finding.T("Profile", "剖析"), func(w io.Writer) error { return WriteFlame(w, ap.page, report.Text) })
	return nil
}
