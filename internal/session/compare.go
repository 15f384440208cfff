package session

// The flows of `tuneloop compare`: two sides of runs (loaded once, judged,
// with the differential flame page when asked), the steps of a tuning in
// order, and two sides of profile files drawn as one flame diff.

import (
	"context"
	"io"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// CompareOptions are compare's of two sides.
type CompareOptions struct {
	Before, After []string // run folders, --repeat folders, or profile files
	Judge         compare.Options
	// FlameDiff is where the differential flame page goes ("": none), of
	// FlameKind's profiles.
	FlameDiff string
	FlameKind stacks.Kind
	Lang      finding.Lang
	// Catalog is the catalog whose earlier sets of the service measure the
	// set-to-set shift (SetHistory; "": none).
	Catalog string
}

// CompareRuns loads both sides' runs once and compares them; with
// FlameDiff it also writes the differential flame page of their JFR
// recordings (per request) and returns it.
func CompareRuns(ctx context.Context, o CompareOptions) (*compare.Comparison, *report.FlameDiffPage, error) {
	b, err := LoadInputs(ctx, o.Before, o.Lang)
	if err != nil {
		return nil, nil, err
	}
	a, err := LoadInputs(ctx, o.After, o.Lang)
	if err != nil {
		return nil, nil, err
	}
	if o.Catalog != "" && o.Judge.History == nil {
		o.Judge.History = SetHistory(ctx, o.Catalog, b, a, o.Lang)
	}
	c := compare.CompareSetsWith(b, a, o.Judge)
	if o.FlameDiff == "" {
		return c, nil, nil
	}
	fb, err := compare.RunFlameSide(b, o.FlameKind)
	if err != nil {
		return nil, nil, err
	}
	fa, err := compare.RunFlameSide(a, o.FlameKind)
	if err != nil {
		return nil, nil, err
	}
	page, err := writeFlameDiff(o.FlameDiff, fb, fa, o.Lang)
	return c, page, err
}

// CompareProfiles is `compare A.jfr B.jfr --flame-diff F` (or collapsed
// stacks, several a side): the differential flame page alone, per total
// (raw files do not know their requests), written to FlameDiff.
func CompareProfiles(ctx context.Context, o CompareOptions) (*report.FlameDiffPage, error) {
	b, err := ProfileFlameSide(ctx, o.Before, o.FlameKind)
	if err != nil {
		return nil, err
	}
	a, err := ProfileFlameSide(ctx, o.After, o.FlameKind)
	if err != nil {
		return nil, err
	}
	return writeFlameDiff(o.FlameDiff, b, a, o.Lang)
}

// CompareSteps loads each step (a run or a --repeat folder) and gives the
// gain of each over the one before it.
func CompareSteps(ctx context.Context, paths []string, lang finding.Lang) (*compare.Steps, error) {
	var steps [][]compare.Input
	for _, p := range paths {
		in, err := LoadInputs(ctx, []string{p}, lang)
		if err != nil {
			return nil, err
		}
		steps = append(steps, in)
	}
	return compare.CompareSteps(paths, steps, 0), nil
}

// writeFlameDiff builds the page of before against after and writes it to
// path.
func writeFlameDiff(path string, before, after compare.FlameSide, lang finding.Lang) (*report.FlameDiffPage, error) {
	page, err := compare.NewFlameDiffPage(before, after, lang)
	if err != nil {
		return nil, err
	}
	if err := report.WriteFile(path, func(w io.Writer) error { return compare.WriteFlame(w, page, report.HTML, lang) }); err != nil {
		return nil, err
	}
	return page, nil
}
