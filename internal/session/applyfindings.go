package session

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// maxCheckJSON caps a run's check.json (the host audit: tens of KB).
const maxCheckJSON = 64 << 20

// ApplyFindings are the findings `apply` picks from (apply.Request's
// Findings): a live audit of roots (as `check` runs it) or, with from, a
// run folder's check.json. The run folder may come from anyone:
// check.json is read as untrusted (no link followed, no FIFO or device, a
// size cap), as verdict reads it.
func ApplyFindings(from string, profile rules.Profile, roots hostfs.FS) func(context.Context) ([]finding.Finding, error) {
	return func(ctx context.Context) ([]finding.Finding, error) { return applyFindings(ctx, from, profile, roots) }
}

func applyFindings(ctx context.Context, from string, profile rules.Profile, roots hostfs.FS) ([]finding.Finding, error) {
	if from != "" {
		b, err := runfolder.ReadInside(from, verdict.CheckFile, maxCheckJSON)
		if err != nil {
			return nil, fmt.Errorf("--from: %w", runfolder.Refusal(err))
		}
		var fs []finding.Finding
		if err := json.Unmarshal(b, &fs); err != nil {
			return nil, fmt.Errorf("--from: %s: %w", filepath.Join(from, verdict.CheckFile), err)
		}
		return fs, nil
	}
	kb := rules.All()
	if err := rules.Validate(kb); err != nil {
		return nil, err
	}
	facts := sysinfo.Collect(roots, sysinfo.Options{Now: time.Now})
	return rules.Evaluate(kb, facts, profile), ctx.Err()
}
