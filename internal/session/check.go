package session

import (
	"context"
	"fmt"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/inspect"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/version"
)

// CheckOptions are `tuneloop check` on one host tree.
type CheckOptions struct {
	FS      hostfs.FS
	Source  string           // how the report names the tree: "live", a --root, the three roots
	Now     func() time.Time // nil: time.Now
	Profile rules.Profile
	// Probe is --probe (""= the newest of this host under ProbeRoot or in
	// the catalog, unless NoCatalog).
	Probe, ProbeRoot, Catalog string
	NoCatalog                 bool
	Getenv                    func(string) string
	Note                      func(finding.Text) // which probe the findings cite, or why none
}

// Check is the host audit: every fact of the tree, the knowledge base
// over them (citing the host's probe), and on the live host the logging
// configurations named on each JVM's command line; the check document.
// The error of a --probe that cannot be used is a UsageError.
func Check(ctx context.Context, o CheckOptions) (*report.Check, error) {
	kb := rules.All()
	if err := rules.Validate(kb); err != nil {
		return nil, err // a broken knowledge base is a bug; say so rather than audit with it
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	facts := sysinfo.Collect(o.FS, sysinfo.Options{Now: now})
	root := o.ProbeRoot
	if root == "" {
		root = probe.DefaultRoot
	}
	pr, prFile, note, err := probe.For(o.Probe, root, ProbeLookup(ctx, o.Catalog, o.NoCatalog, o.Getenv), facts)
	if err != nil {
		return nil, usageErr(finding.T("--probe: %v", "--probe：%v"), err)
	}
	if !note.IsZero() && o.Note != nil {
		o.Note(note)
	}
	fs := rules.EvaluateProbe(kb, facts, o.Profile, pr.Costs(prFile))
	if o.FS.IsLive() && facts.JVMs.OK {
		// Logging configurations named on each JVM's command line: only on
		// the live host, where /proc/PID/root reaches the JVM's files.
		for _, j := range facts.JVMs.Value {
			if len(j.Args) < 2 {
				continue
			}
			for _, l := range inspect.LoggingConfigs(j.PID, j.Args) {
				for _, f := range l.Findings {
					f.Subject = fmt.Sprintf("pid %d %s", j.PID, f.Subject)
					fs = append(fs, f)
				}
			}
		}
		finding.Sort(fs)
	}
	return report.NewCheck(version.Version, now(), string(o.Profile), report.HostOf(facts, o.Source), fs), nil
}
