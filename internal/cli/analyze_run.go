package cli

import (
	"context"
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/report"
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

// analyzeRunDir diagnoses a saved run folder offline (session.Reanalyze)
// and writes its report; a folder whose recorder was killed (manifest
// still "recording") is reported as incomplete.
func analyzeRunDir(ctx context.Context, env *Env, dir string, o AnalyzeRunOptions) error {
	lang, failOn, err := o.check(env)
	if err != nil {
		return err
	}
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
	if run, host, ok := multihost.HostOf(dir); ok && o.Output == "text" {
		// One host's folder alone is judged over its whole recording, on
		// its own clock.
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Tf(finding.T("%s is host %s of the multi-host run %s: 'tuneloop analyze %[3]s' judges it over the load, on this machine's clock",
			"%s 是多主机运行 %s 中的主机 %s：'tuneloop analyze %[2]s' 会按负载期间、以本机时钟来判断它"), finding.SafeLine(dir), finding.SafeLine(host), finding.SafeLine(run)).In(lang))
	}
	if err := failOnGate(failOn, d.Findings); err != nil {
		return err
	}
	return ctx.Err()
}

// analyzeHostsDir diagnoses a multi-host run folder again (hosts.json and
// every host's folder) and prints its page as `run --host` did.
func analyzeHostsDir(ctx context.Context, env *Env, dir string, o AnalyzeRunOptions) error {
	lang, failOn, err := o.check(env)
	if err != nil {
		return err
	}
	res, err := session.AnalyzeHosts(ctx, dir, lang)
	if err != nil {
		return sessionErr(err)
	}
	if res.Page == nil {
		return &ExitError{Code: ExitFailure, Err: res.Lost}
	}
	if err := writeHosts(env.Stdout, res, o.Output, lang, failOn); err != nil {
		return err
	}
	return ctx.Err()
}

// check reads the language, the --fail-on level and the output format.
func (o *AnalyzeRunOptions) check(env *Env) (finding.Lang, *finding.Severity, error) {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return lang, nil, err
	}
	failOn, err := failOnOpt(o.FailOn)
	if err != nil {
		return lang, nil, err
	}
	if o.Output == "" {
		o.Output = "text"
	}
	format, err := outputFormat(o.Output, report.RunFormats())
	if err != nil {
		return lang, nil, err
	}
	o.Output = string(format)
	return lang, failOn, nil
}
