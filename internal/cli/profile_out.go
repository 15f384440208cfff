package cli

// The differential flame graph of `compare BEFORE AFTER --flame-diff F`,
// of runs or of profile files (session.CompareRuns, CompareProfiles); one
// profile's page is analysis.WriteFlame.

import (
	"context"
	"fmt"

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

// saidPage names on stderr a page written (none when path is "").
func saidPage(env *Env, path string, lang finding.Lang) {
	if path != "" {
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("page:", "页面：").In(lang), finding.SafeLine(path))
	}
}

// compareProfileFiles is `compare A.jfr B.jfr --flame-diff F` (or
// collapsed files, several a side with --): the differential flame graph
// alone, per total (raw files do not know their requests).
func compareProfileFiles(ctx context.Context, env *Env, o *CompareOptions, so session.CompareOptions) error {
	if o.Output == "junit" {
		return usageErr(finding.T("-o junit gates runs: two profile files have no gate", "-o junit 用于运行的门禁：两个剖析文件没有门禁"))
	}
	page, err := session.CompareProfiles(ctx, so)
	if err != nil {
		return err
	}
	saidPage(env, o.FlameDiff, so.Lang)
	return compare.WriteFlame(env.Stdout, page, report.Format(o.Output), so.Lang)
}
