package cli

import (
	"context"
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/session"
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
func IsRunDir(path string) bool { return runfolder.IsRunDir(path) }

// RunAnalyzeRun is `analyze RUN_DIR` (tests call it directly).
func RunAnalyzeRun(ctx context.Context, env *Env, dir string, o AnalyzeRunOptions) error {
	return analyzeRunDir(ctx, env, dir, o)
}

// analyzeRunDir diagnoses a saved run folder offline (session.Reanalyze)
// and writes its report; a folder whose recorder was killed (manifest
// still "recording") is reported as incomplete.
func analyzeRunDir(ctx context.Context, env *Env, dir string, o AnalyzeRunOptions) error {
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
	L, d, err := session.Reanalyze(ctx, dir, o.Save)
	if err != nil {
		return err
	}
	if err := writeRunReport(env.Stdout, report.NewRunBrief(L, d, lang), o.Output); err != nil {
		return err
	}
	if L.Folder.Manifest.Incomplete() && o.Output == "text" {
		fmt.Fprintf(env.Stderr, "tuneloop: %s %s\n", dir, finding.T("is incomplete (recorder killed): diagnosed what was saved",
			"不完整（记录进程被杀）：已诊断保存下来的部分").In(lang))
	}
	if err := failOnGate(failOn, d.Findings); err != nil {
		return err
	}
	return ctx.Err()
}
