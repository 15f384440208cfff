package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// RepeatOptions say how `tuneloop run --repeat N` repeats a run.
type RepeatOptions struct {
	N   int    // runs per arm
	Out string // parent folder: Out/run-1..N (default ./runs/<timestamp>-repeat)
	// Arms names two or more variants run interleaved (A B A B ...), so a
	// neighbour's noise or a drifting host hits every arm alike; each arm's
	// runs go to Out/<arm>/run-1..N. Empty: one arm, Out/run-1..N.
	Arms []string
	// Pause between runs, so one run's tail (GC, TIME_WAIT sockets) does
	// not land in the next.
	Pause time.Duration
}

// Repeat calls run N times per arm, interleaved, each with its own run
// folder; it stops at the first error or when ctx ends. Each run records
// its own host load and CPU steal (the run's samples), which compare
// reports per run.
func Repeat(ctx context.Context, o RepeatOptions, run func(ctx context.Context, arm, dir string) error) (string, error) {
	if o.N < 1 {
		return "", fmt.Errorf("repeat: %d runs", o.N)
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("runs", time.Now().UTC().Format("20060102-150405")+"-repeat")
	}
	arms := o.Arms
	if len(arms) == 0 {
		arms = []string{""}
	}
	for i := 1; i <= o.N; i++ {
		for _, arm := range arms {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			dir := filepath.Join(out, arm, fmt.Sprintf("run-%d", i))
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				return out, err
			}
			if err := run(ctx, arm, dir); err != nil {
				return out, fmt.Errorf("%s: %w", dir, err)
			}
			if o.Pause > 0 {
				select {
				case <-ctx.Done():
					return out, ctx.Err()
				case <-time.After(o.Pause):
				}
			}
		}
	}
	return out, nil
}

// Variant is what differs between the two arms of an A/B repeat: the
// command that starts the service and the URL loaded ("" keeps the run's
// own), with the load that goes to it.
type Variant struct {
	Start, Target string
	// Load is the variant's load (its requests go to its Target); nil
	// keeps the run's own.
	Load *loadgen.Config
}

// The folders of an A/B repeat's arms under its Out.
const (
	ArmA = "a"
	ArmB = "b"
)

// RepeatAB runs variants a and b interleaved, a1 b1 a2 b2 ..., n pairs into
// out/a/run-i and out/b/run-i: each b run follows its a run within seconds,
// so both see the same neighbour and `compare` judges the pairs (the paired
// interval) rather than two sets. It returns the two arms' folders.
func RepeatAB(ctx context.Context, o RepeatOptions, a, b Variant, run func(ctx context.Context, v Variant, dir string) error) (dirA, dirB string, err error) {
	o.Arms = []string{ArmA, ArmB}
	out, err := Repeat(ctx, o, func(ctx context.Context, arm, dir string) error {
		if arm == ArmA {
			return run(ctx, a, dir)
		}
		return run(ctx, b, dir)
	})
	return filepath.Join(out, ArmA), filepath.Join(out, ArmB), err
}
