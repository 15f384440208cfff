package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// AnalyzeRunOptions tune `tuneloop analyze RUN_DIR`.
type AnalyzeRunOptions struct {
	Output string // text (default), json or markdown
	Lang   string // en, zh; "" = from the environment
	FailOn string // "", warning, critical
	// Save rewrites the folder's derived/series.json and findings.json with
	// this diagnosis (the manifest and raw samples are never changed).
	Save bool
}

// IsRunDir reports whether path is a run folder (for the analyze command).
func IsRunDir(path string) bool { return run.IsRunDir(path) }

// RunAnalyzeRun diagnoses a saved run folder offline: host facts from its
// manifest, series replayed from its raw samples. A folder whose recorder
// was killed (manifest still "recording") is read as far as it goes and
// reported as incomplete.
func RunAnalyzeRun(ctx context.Context, env *Env, dir string, o AnalyzeRunOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return err
	}
	if o.Output == "" {
		o.Output = "text"
	}
	format, err := outputFormat(o.Output, report.RunFormats())
	if err != nil {
		return err
	}
	o.Output = string(format)
	L, err := verdict.LoadContext(ctx, dir)
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx)
	}
	if err != nil {
		return err
	}
	d := verdict.Decide(L)
	if o.Save {
		if err := run.WriteJSONAtomic(filepath.Join(dir, run.SeriesFile), L.Series); err != nil {
			return err
		}
		if err := run.WriteJSONAtomic(filepath.Join(dir, run.FindingsFile), d.Findings); err != nil {
			return err
		}
	}
	if err := writeRunReport(env.Stdout, report.NewRunBrief(L, d, lang), o.Output); err != nil {
		return err
	}
	if L.Folder.Manifest.Incomplete() && o.Output == "text" {
		fmt.Fprintf(env.Stderr, "tuneloop: %s %s\n", dir, finding.T("is incomplete (recorder killed): diagnosed what was saved",
			"不完整（记录进程被杀）：已诊断保存下来的部分").In(lang))
	}
	if failOn != nil {
		if worst, any := finding.Worst(d.Findings); any && worst >= *failOn {
			return &ExitError{Code: ExitFindings}
		}
	}
	return ctx.Err()
}
