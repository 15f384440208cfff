package session

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// RemoteRecordOptions are `record --host H`: the recorder runs there for
// Duration (bounded: a lost connection ends it by itself) and its folder
// comes back into Out here.
type RemoteRecordOptions struct {
	Host        string
	Conn        multihost.Conn
	Out         string // "" = runs/<timestamp>-<host>; must be new or empty
	Duration    time.Duration
	Interval    time.Duration
	PID         int
	JVM         string
	ThreadDumps int
	Enable      []string
	Disable     []string
}

// RemoteRecordResult is the fetched folder, diagnosed here.
type RemoteRecordResult struct {
	Dir      string
	Layers   *verdict.Layers
	Decision *verdict.Decision
}

// RecordRemote records on one host over SSH, fetches its run folder and
// diagnoses it here.
func RecordRemote(ctx context.Context, o RemoteRecordOptions) (*RemoteRecordResult, error) {
	if o.Duration <= 0 {
		return nil, errNoDuration()
	}
	args := []string{"record", "--out", remote.FetchDir, "--no-catalog", "--quiet", "--output", "json",
		"--duration", o.Duration.String(), "--interval", o.Interval.String()}
	if o.PID != 0 {
		args = append(args, "--pid", strconv.Itoa(o.PID))
	}
	if o.JVM != "" {
		args = append(args, "--jvm", o.JVM)
	}
	if o.ThreadDumps > 0 {
		args = append(args, "--thread-dumps", strconv.Itoa(o.ThreadDumps))
	}
	for _, e := range o.Enable {
		args = append(args, "--enable", e)
	}
	for _, d := range o.Disable {
		args = append(args, "--disable", d)
	}
	into := o.Out
	if into == "" {
		into = filepath.Join("runs", time.Now().Format("20060102-150405")+"-"+o.Host)
	}
	if ents, err := os.ReadDir(into); err == nil && len(ents) > 0 {
		return nil, usageErr(finding.T("--out %s: the folder exists and is not empty", "--out %s：该目录已存在且非空"), finding.SafeLine(into))
	}
	if err := os.MkdirAll(into, 0o755); err != nil {
		return nil, err
	}
	c, bin, err := remote.Connect(ctx, o.Host, o.Conn.Options, o.Conn.Exe)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	// The recorder finishes its folder (diagnosis, manifest) after the
	// duration: two minutes more before the remote side stops it.
	// A lost connection is a LostError saying what arrived in into.
	if _, err := c.Exec(ctx, remote.Job{Binary: bin, Args: args, Limit: o.Duration + 2*time.Minute, Fetch: true, Into: into, Stderr: o.Conn.Stderr,
		Sudo: o.Conn.Sudo, FailOnExit: true}); err != nil {
		return nil, err
	}
	L, err := verdict.LoadContext(ctx, into)
	if err != nil {
		return nil, err
	}
	return &RemoteRecordResult{Dir: into, Layers: L, Decision: verdict.Decide(L)}, nil
}
