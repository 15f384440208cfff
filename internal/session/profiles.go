package session

// `compare A.jfr B.jfr --flame-diff F`: profile files read into the sides
// of a differential flame graph.

import (
	"context"
	"os"

	"github.com/tuneloop/tuneloop/internal/analysis"
	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/input"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// AllProfileFiles says whether every path is a JFR recording or collapsed
// stacks (by content; not a run folder, not a report.json).
func AllProfileFiles(ctx context.Context, paths []string) bool {
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return false
		}
		f, err := input.Open(ctx, p, input.DefaultLimits())
		if err != nil {
			return false
		}
		f.Close()
		if f.Format.Kind() != input.KindProfile {
			return false
		}
	}
	return len(paths) > 0
}

// ProfileFlameSide is one side of a flame diff made of profile files: the
// kind's profiles of every file, idle frames dropped, merged (per total:
// raw files do not know their requests).
func ProfileFlameSide(ctx context.Context, paths []string, kind stacks.Kind) (compare.FlameSide, error) {
	s := compare.FlameSide{Names: paths}
	var ps []*stacks.Profile
	for _, path := range paths {
		f, err := input.Open(ctx, path, input.DefaultLimits())
		if err != nil {
			return s, err
		}
		got, _, err := analysis.ReadProfiles(ctx, f, f.Format, []stacks.Kind{kind}, true)
		f.Close()
		if err != nil {
			return s, err
		}
		for _, p := range got {
			compare.DropIdle(p)
		}
		ps = append(ps, got...)
	}
	s.Profile = compare.MergeProfiles(ps)
	return s, nil
}
