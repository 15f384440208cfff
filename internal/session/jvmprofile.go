package session

// `jvm PID --profile KIND`: a profile of a live JVM, its files and its
// page in a folder.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/analysis"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/inspect"
	"github.com/tuneloop/tuneloop/internal/native"
	"github.com/tuneloop/tuneloop/internal/profile"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// ProfileOptions are one profile of pid: Kind is a stacks.Kind (through
// the JVM's own JFR) or "native" (perf_event_open); the files go into Dir.
type ProfileOptions struct {
	PID      int
	Kind     string
	Duration time.Duration
	Dir      string
	Attach   attach.Options
	Lang     finding.Lang // the page's and the errors' language
}

// ProfileJVM records the profile (Ctrl-C stops it early and what it holds
// is kept), writes the recording, the collapsed stacks, pprof and the
// flame page (profile.html) into Dir, and returns the page, its files
// named.
func ProfileJVM(ctx context.Context, o ProfileOptions) (*report.FlamePage, error) {
	var page *report.FlamePage
	var err error
	if o.Kind == "native" {
		page, err = nativeProfile(ctx, o)
	} else {
		page, err = jfrProfile(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	hp := filepath.Join(o.Dir, profile.FileHTML)
	if err := report.WriteFile(hp, func(w io.Writer) error { return analysis.WriteFlame(w, page, report.HTML) }); err != nil {
		return nil, err
	}
	page.Files["html"] = hp
	return page, nil
}

// jfrProfile is a profile of one kind through the JVM's own JFR.
func jfrProfile(ctx context.Context, o ProfileOptions) (*report.FlamePage, error) {
	kind, err := stacks.ParseKind(o.Kind)
	if err != nil {
		return nil, err
	}
	res, err := profile.Capture(ctx, o.PID, kind, o.Duration, profile.Options{Attach: o.Attach})
	if err != nil && (res == nil || len(res.JFR) == 0) {
		var se *profile.StartError
		if errors.As(err, &se) {
			return nil, errors.New(se.Message(o.Lang))
		}
		return nil, inspect.Localize(err, o.Lang)
	}
	files, ferr := res.WriteFiles(o.Dir)
	if ferr != nil {
		return nil, ferr
	}
	if err != nil || res.Profile == nil {
		return nil, fmt.Errorf("%v (%s: %s)", err, finding.T("the recording is kept", "记录已保留").In(o.Lang), files["jfr"])
	}
	return report.NewFlamePage(res.Profile, report.FlameMeta{Target: fmt.Sprintf("pid %d", o.PID), Version: res.Version,
		Command: res.Command, Start: res.Start, Duration: res.Duration, Interrupted: res.Interrupted, Notes: res.Notes, Files: files}, o.Lang), nil
}

// nativeProfile is the process's stacks on the CPU, Java (JIT, named
// through its perf map), native and kernel, sampled with perf_event_open,
// and the native catalogue's findings.
func nativeProfile(ctx context.Context, o ProfileOptions) (*report.FlamePage, error) {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", o.PID)); err != nil {
		return nil, finding.Errorf(finding.T("pid %d: no such process", "pid %d：进程不存在"), o.PID)
	}
	start := time.Now()
	rec, err := native.Sample(ctx, o.Duration, native.Options{PID: o.PID})
	if err != nil {
		var u *native.Unavailable
		if errors.As(err, &u) {
			return nil, errors.New(u.Message(o.Lang))
		}
		return nil, err
	}
	notes := rec.Notes
	if rec.JITFrames > 0 {
		notes = append(notes, finding.T(fmt.Sprintf("%.1f%% of %d JIT frames named to Java methods", 100*rec.JITShare(), rec.JITFrames),
			fmt.Sprintf("%d 个 JIT 帧中 %.1f%% 已命名为 Java 方法", rec.JITFrames, 100*rec.JITShare())))
	}
	if rec.Samples == 0 {
		notes = append(notes, finding.T(fmt.Sprintf("no sample of pid %d on a CPU: it was idle (or exited)", o.PID),
			fmt.Sprintf("没有 pid %d 在 CPU 上的采样：该进程空闲（或已退出）", o.PID)))
	}
	if rec.Lost > 0 {
		notes = append(notes, finding.T(fmt.Sprintf("%d samples lost (ring buffer full)", rec.Lost), fmt.Sprintf("丢失 %d 个采样（环形缓冲区已满）", rec.Lost)))
	}
	res := &profile.Result{Kind: "native", PID: o.PID, Start: start, Duration: rec.Duration, Profile: rec.Profile}
	files, err := res.WriteFiles(o.Dir)
	if err != nil {
		return nil, err
	}
	return report.NewFlamePage(rec.Profile, report.FlameMeta{Target: fmt.Sprintf("pid %d", o.PID), Start: start, Duration: rec.Duration,
		Interrupted: ctx.Err() != nil, Command: fmt.Sprintf("perf_event_open cpu-clock %d Hz, every CPU, pid %d", rec.Hz, o.PID),
		Notes: notes, Files: files, Findings: native.Catalogue(rec, native.ReadCPU())}, o.Lang), nil
}
