package cli

// The differential flame graph of `compare BEFORE AFTER --flame-diff F`,
// of runs or of profile files (session.ProfileFlameSide); one profile's
// page is analysis.WriteFlame.

import (
	"context"
	"fmt"
	"io"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// flameKind reads compare's --flame-kind.
func flameKind(o *CompareOptions) (stacks.Kind, error) {
	if o.FlameKind == "" {
		return stacks.CPU, nil
	}
	k, err := stacks.ParseKind(o.FlameKind)
	if err != nil {
		return "", usageErr(finding.T("--flame-kind: want cpu, alloc, lock or wall, got %q", "--flame-kind：应为 cpu、alloc、lock 或 wall，实际为 %q"), o.FlameKind)
	}
	return k, nil
}

// flameDiffRuns writes the differential flame graph of two sides of runs
// (their JFR recordings, per request) when --flame-diff asks for it, and
// returns its page for compare's output (nil when not asked).
func flameDiffRuns(env *Env, o *CompareOptions, before, after []compare.Input, lang finding.Lang) (*report.FlameDiffPage, error) {
	if o.FlameDiff == "" {
		return nil, nil
	}
	kind, err := flameKind(o)
	if err != nil {
		return nil, err
	}
	b, err := compare.RunFlameSide(before, kind)
	if err != nil {
		return nil, err
	}
	a, err := compare.RunFlameSide(after, kind)
	if err != nil {
		return nil, err
	}
	return writeFlameDiff(env, o.FlameDiff, b, a, lang)
}

// writeFlameDiff builds the page of before against after and writes it to path.
func writeFlameDiff(env *Env, path string, before, after compare.FlameSide, lang finding.Lang) (*report.FlameDiffPage, error) {
	page, err := compare.NewFlameDiffPage(before, after, lang)
	if err != nil {
		return nil, err
	}
	if err := report.WriteFile(path, func(w io.Writer) error { return compare.WriteFlame(w, page, report.HTML, lang) }); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("page:", "页面：").In(lang), finding.SafeLine(path))
	return page, nil
}

// compareProfileFiles is `compare A.jfr B.jfr --flame-diff F` (or
// collapsed files, several a side with --): the differential flame graph
// alone, per total (raw files do not know their requests).
func compareProfileFiles(ctx context.Context, env *Env, o *CompareOptions, bArgs, aArgs []string, lang finding.Lang) error {
	if o.Output == "junit" {
		return usageErr(finding.T("-o junit gates runs: two profile files have no gate", "-o junit 用于运行的门禁：两个剖析文件没有门禁"))
	}
	kind, err := flameKind(o)
	if err != nil {
		return err
	}
	b, err := session.ProfileFlameSide(ctx, bArgs, kind)
	if err != nil {
		return err
	}
	a, err := session.ProfileFlameSide(ctx, aArgs, kind)
	if err != nil {
		return err
	}
	page, err := writeFlameDiff(env, o.FlameDiff, b, a, lang)
	if err != nil {
		return err
	}
	return compare.WriteFlame(env.Stdout, page, report.Format(o.Output), lang)
}
