package session

import (
	"context"
	"os"
	"path/filepath"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// Reported is one run of `tuneloop run` finished: diagnosed, its page
// built and report.html, report.md and report.json written.
type Reported struct {
	*RunResult
	Page *report.RunPage
	// WriteErr is the folder or its reports that could not be completed
	// (a full disk): the page is what was measured, the manifest says why.
	WriteErr error
}

// Failure is why a finished run failed although its report stands: the
// service ended, it never answered, the folder is incomplete or the load
// got no answer (nil: none).
func (r *Reported) Failure() error {
	switch {
	case r.Service != nil:
		return finding.Errorf(finding.T("%s: the run stopped then; the report covers the run until that moment",
			"%s：运行随即停止；报告只覆盖到这一刻"), serviceEndText(r.Service))
	case r.Unready != nil:
		return finding.Errorf(finding.T("%v: the report above says what the JVM was doing instead (thread dumps, GC)",
			"%v：上面的报告说明了 JVM 当时在做什么（线程转储、GC）"), r.Unready)
	case r.WriteErr != nil:
		return finding.Errorf(finding.T("the run folder %s could not be completed (%v): the summary above is what was measured; the folder keeps what was written and its manifest says why",
			"运行目录 %s 未能写完整（%v）：上面的摘要就是测得的结果；目录保留了已写入的内容，其 manifest 记录了原因"), r.Folder.Dir, r.WriteErr)
	case r.Load != nil && r.Load.NoSuccess() != nil:
		return r.Load.NoSuccess()
	}
	return nil
}

// RunReported is one run (Run) with its page built and its report files
// written.
func RunReported(ctx context.Context, o RunOptions, hooks RunHooks, lang finding.Lang) (*Reported, error) {
	res, err := LoadAndRecord(ctx, o, hooks)
	if err != nil {
		return nil, err
	}
	r := &Reported{RunResult: res, Page: report.NewRunPage(res.Layers, res.Decision, lang), WriteErr: res.WriteErr}
	// A report that cannot be written (a full disk) does not hide what was
	// measured: the caller prints it and the manifest says why.
	if r.WriteErr == nil {
		if err := WriteReports(res.Folder.Dir, r.Page); err != nil {
			r.WriteErr = err
			runfolder.MarkFailed(res.Folder.Dir, &res.Folder.Manifest, err)
		}
	}
	return r, nil
}

// SeriesOptions are `tuneloop run` whole: one run, Repeat runs of it, or
// variants A (Run's Start and Target) and B interleaved, then compared.
type SeriesOptions struct {
	Run    RunOptions // Out the series' folder; each run gets its own Detail
	Hooks  RunHooks
	Lang   finding.Lang
	Repeat int      // runs per variant into Run.Out/run-1..N; <= 1: one run into Run.Out
	B      *Variant // A/B: variant B ("" fields and a nil Load keep A's)
	// FailOnRegPct is the A/B comparison's gate (compare --fail-on-regression).
	FailOnRegPct float64
	// Hosts, when set, makes each run a run over several hosts
	// (RecordHosts; its Out, Target and Load are each run's).
	Hosts *HostsOptions
	// Done (DoneHosts with Hosts) is given each finished run (its writer
	// and gate): an error it returns ends the series with that error.
	Done      func(*Reported) error
	DoneHosts func(*HostsResult) error
}

// SeriesResult is what the series leaves: the A/B comparison (nil
// otherwise; each run was given to Done).
type SeriesResult struct {
	Comparison *compare.Comparison
}

// Series runs o: one run, --repeat N runs, or A and B in turn (RepeatAB)
// and then their comparison, judged pair by pair.
func Series(ctx context.Context, o SeriesOptions) (*SeriesResult, error) {
	done := o.Done
	if done == nil {
		done = func(*Reported) error { return nil }
	}
	one := func(ctx context.Context, v Variant, dir string) error {
		if o.Hosts != nil {
			return o.hostsRun(ctx, v, dir)
		}
		ro := o.Run
		ro.Out, ro.Start, ro.Target = dir, v.Start, v.Target
		if v.Load != nil {
			ro.Load = *v.Load
		}
		ro.Detail = report.NewLoadRecorder() // each run its own load over time
		r, err := RunReported(ctx, ro, o.Hooks, o.Lang)
		if err != nil {
			return err
		}
		return done(r)
	}
	a := Variant{Start: o.Run.Start, Target: o.Run.Target}
	switch {
	case o.B != nil:
		b := Variant{Start: orDefault(o.B.Start, a.Start), Target: orDefault(o.B.Target, a.Target), Load: o.B.Load}
		dirA, dirB, err := RepeatAB(ctx, RepeatOptions{N: o.Repeat, Out: o.Run.Out}, a, b, one)
		if err != nil {
			return nil, err
		}
		c, err := ComparePaired(ctx, dirA, dirB, o.FailOnRegPct, o.Lang)
		return &SeriesResult{Comparison: c}, err
	case o.Repeat > 1:
		_, err := Repeat(ctx, RepeatOptions{N: o.Repeat, Out: o.Run.Out}, func(ctx context.Context, _, dir string) error {
			return one(ctx, a, dir)
		})
		return &SeriesResult{}, err
	}
	return &SeriesResult{}, one(ctx, a, o.Run.Out)
}

// hostsRun is one run of the series over several hosts.
func (o SeriesOptions) hostsRun(ctx context.Context, v Variant, dir string) error {
	ho := *o.Hosts
	ho.Out, ho.Target = dir, v.Target
	if v.Load != nil {
		ho.Load = v.Load
	}
	r, err := RecordHosts(ctx, ho)
	if err != nil {
		return err
	}
	if o.DoneHosts == nil {
		return nil
	}
	return o.DoneHosts(r)
}

// ComparePaired compares the runs of an A/B repeat's arms, B against A,
// pair by pair (powerPct: the gate's percent, 0 none).
func ComparePaired(ctx context.Context, dirA, dirB string, powerPct float64, lang finding.Lang) (*compare.Comparison, error) {
	a, err := LoadInputs(ctx, []string{dirA}, lang)
	if err != nil {
		return nil, err
	}
	b, err := LoadInputs(ctx, []string{dirB}, lang)
	if err != nil {
		return nil, err
	}
	return compare.CompareSetsWith(a, b, compare.Options{PowerPct: powerPct, Design: compare.DesignPaired}), nil
}

// LoadInputs pages every run the paths stand for (a --repeat folder
// stands for its run-1..N), each named by the path as the user gave it,
// with its launch's environment from the manifest beside it.
func LoadInputs(ctx context.Context, paths []string, lang finding.Lang) ([]compare.Input, error) {
	var out []compare.Input
	for _, p := range paths {
		for _, d := range compare.ExpandRuns(p) {
			if ctx.Err() != nil {
				return nil, Interrupted(ctx)
			}
			page, err := LoadRunPage(ctx, d, lang)
			if err != nil {
				return nil, err
			}
			in := compare.Input{Path: d, Page: page}
			if env, ok := compare.LoadEnv(d); ok {
				in.Env = &env
			}
			out = append(out, in)
		}
	}
	return out, nil
}

// LoadRunPage reads a run's report.json; a run folder without one (made by
// `tuneloop record`, with or without a load.json beside it) is diagnosed
// and paged the way `run` does.
func LoadRunPage(ctx context.Context, path string, lang finding.Lang) (*report.RunPage, error) {
	if _, err := os.Stat(filepath.Join(path, "report.json")); err == nil || !runfolder.IsRunDir(path) {
		return compare.Load(path)
	}
	L, err := verdict.LoadContext(ctx, path)
	if err != nil && ctx.Err() != nil {
		return nil, Interrupted(ctx)
	}
	if err != nil {
		return nil, err
	}
	return report.NewRunPage(L, verdict.Decide(L), lang), nil
}

// interrupted is the error of a reading stopped by ctx.
func Interrupted(ctx context.Context) error {
	return finding.Errorf(finding.T("interrupted (%v): nothing reported", "已中断（%v）：没有输出报告"), ctx.Err())
}
