package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/remote"
)

// testClockSkewEnv shifts what `tuneloop clock` prints. TEST ONLY: the
// multi-host tests give a "remote" host (this one, through a second sshd)
// a known clock offset with it; nothing else reads it.
const testClockSkewEnv = "TUNELOOP_TEST_CLOCK_SKEW"

// newClockCmd is the hidden answerer of the clock probe (remote.StartClock):
// "ready", then one CLOCK_REALTIME in nanoseconds per line read.
func newClockCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:    remote.ClockCommand,
		Short:  helpText(finding.T("Internal: answer the clock probe of a multi-host run", "内部命令：回应多主机运行的时钟探测")),
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			skew, err := clockSkew(env.Getenv)
			if err != nil {
				return err
			}
			return remote.AnswerClock(env.Stdin, env.Stdout, skew)
		},
	}
}

// clockSkew reads the test-only skew ("" = none).
func clockSkew(getenv func(string) string) (time.Duration, error) {
	v := getenv(testClockSkewEnv)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, usageErr(finding.T("%s=%q: not a duration", "%s=%q：不是时长"), testClockSkewEnv, v)
	}
	return d, nil
}
