package session

import (
	"context"
	"os"
	"path/filepath"

	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// Reanalyze diagnoses a saved run folder offline (`analyze RUN_DIR`): host
// facts from its manifest, series replayed from its raw samples; a folder
// whose recorder was killed is read as far as it goes. With save, the
// folder's derived/series.json and findings.json are rewritten with this
// diagnosis (the manifest and raw samples are never changed).
func Reanalyze(ctx context.Context, dir string, save bool) (*verdict.Layers, *verdict.Decision, error) {
	L, err := verdict.LoadContext(ctx, dir)
	if err != nil && ctx.Err() != nil {
		return nil, nil, Interrupted(ctx)
	}
	if err != nil {
		return nil, nil, err
	}
	d := verdict.Decide(L)
	if save {
		// A folder copied without its derived files has no derived/.
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(runfolder.SeriesFile)), 0o755); err != nil {
			return nil, nil, err
		}
		if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.SeriesFile), L.Series); err != nil {
			return nil, nil, err
		}
		if err := runfolder.WriteJSONAtomic(filepath.Join(dir, runfolder.FindingsFile), d.Findings); err != nil {
			return nil, nil, err
		}
	}
	return L, d, nil
}
