package session

import (
	"context"
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/inspect"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// JVMOptions are `tuneloop jvm PID`: what to read from the JVM, and the
// workload profile its checks are judged for.
type JVMOptions struct {
	inspect.Options
	Profile rules.Profile
}

// InspectJVM is `tuneloop jvm PID`: inspect.Inspect reads the JVM, then
// the knowledge base's jvm.* rules and the logging configurations its
// command line names are checked on this process as check sees it; their
// findings come first in the result's Findings, before the dumps'.
func InspectJVM(ctx context.Context, o JVMOptions) (*inspect.Result, error) {
	res, err := inspect.Inspect(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	checkJVM(res, o.Profile)
	return res, nil
}

// checkJVM evaluates the checks of the JVM res read: its command line,
// limits, the host's THP mode and cgroup limits (sysinfo's facts of that
// one process), and the logging configurations its command line names.
// A JVM no longer listed (gone, or not readable) gets no checks.
func checkJVM(res *inspect.Result, p rules.Profile) {
	facts := sysinfo.Collect(hostfs.Live(), sysinfo.Options{NoEthtool: true})
	if !facts.JVMs.OK {
		return
	}
	var mine []sysinfo.JVM
	for _, j := range facts.JVMs.Value {
		if j.PID == res.PID {
			mine = append(mine, j)
		}
	}
	if len(mine) != 1 {
		return
	}
	facts.JVMs.Value = mine
	res.Config = rules.EvaluateJVM(facts, p, fmt.Sprintf("pid %d", res.PID))
	res.Logging = inspect.LoggingConfigs(res.PID, mine[0].Args)
	fs := append([]finding.Finding(nil), res.Config...)
	for _, l := range res.Logging {
		fs = append(fs, l.Findings...)
	}
	res.Findings = append(fs, res.Findings...)
}
