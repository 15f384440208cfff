package session

// `check --host H` and `jvm --host H`: one command run on one host over
// SSH, as if run there.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// RemoteCheckOptions are `check --host H`: the flags that go there, where
// its report goes here.
type RemoteCheckOptions struct {
	Host                          string
	Conn                          multihost.Conn
	Output, Lang, Profile, FailOn string
	List, All                     bool
	Stdout                        io.Writer // the report, unless OutFile
	OutFile                       string    // created once connected
}

// CheckRemote runs the audit on the host; its report is written here as
// it prints it there, its stderr to Conn.Stderr. The result is the remote
// command's exit code.
func CheckRemote(ctx context.Context, o RemoteCheckOptions) (int, error) {
	args := []string{"check", "--output", o.Output, "--lang", o.Lang, "--profile", o.Profile}
	if o.FailOn != "" {
		args = append(args, "--fail-on", o.FailOn)
	}
	if o.List {
		args = append(args, "--list")
	}
	if o.All {
		args = append(args, "--all")
	}
	c, bin, err := remote.Connect(ctx, o.Host, o.Conn.Options, o.Conn.Exe)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	out := o.Stdout
	if o.OutFile != "" {
		f, err := os.Create(o.OutFile)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		out = f
	}
	res, err := c.Exec(ctx, remote.Job{Binary: bin, Args: args, Limit: 10 * time.Minute, Stdout: out, Stderr: o.Conn.Stderr,
		Sudo: o.Conn.Sudo, Password: o.Conn.Password})
	if err != nil {
		return 0, err
	}
	return res.ExitCode, nil
}

// JVMStdout is the file of a fetched `jvm --host` folder holding what the
// remote jvm printed.
const JVMStdout = "jvm-output.txt"

// RemoteJVMOptions are `jvm --host H [PID]`: the flags that go there.
type RemoteJVMOptions struct {
	Host                        string
	Conn                        multihost.Conn
	PID, Dumps                  int
	Interval, Timeout, Duration time.Duration
	Output, Lang, Via           string
	Profile                     string // a kind: the profile's files come back into Out
	Flags, Props, Heap          bool
	GCLog, JCmd                 string
	Raw, Out                    string // where --raw's or the profile's folder comes back
	Stdout                      io.Writer
}

// RemoteJVMResult is what came back: the folder (none: Dir "") and what
// the remote jvm printed when its stdout was kept in the folder (Output,
// raw bytes from the host: not yet terminal-safe), and its exit code.
type RemoteJVMResult struct {
	Dir      string
	Output   []byte
	ExitCode int
}

// JVMRemote attaches there (thread dumps, flags, a profile); without a
// folder to fetch, what the remote jvm prints goes to Stdout as it comes.
func JVMRemote(ctx context.Context, o RemoteJVMOptions) (*RemoteJVMResult, error) {
	args := []string{"jvm"}
	if o.PID != 0 {
		args = append(args, strconv.Itoa(o.PID))
	}
	via := o.Via
	if via == "" {
		via = "auto"
	}
	args = append(args, "--dump", strconv.Itoa(o.Dumps), "--interval", o.Interval.String(), "--output", o.Output,
		"--lang", o.Lang, "--timeout", o.Timeout.String(), "--via", via)
	if o.Profile != "" {
		args = append(args, "--profile", o.Profile, "--duration", o.Duration.String())
	}
	for _, b := range []struct {
		on   bool
		flag string
	}{{o.Flags, "--flags"}, {o.Props, "--props"}, {o.Heap, "--heap"}} {
		if b.on {
			args = append(args, b.flag)
		}
	}
	if o.GCLog != "" {
		args = append(args, "--gc-log", o.GCLog)
	}
	if o.JCmd != "" {
		args = append(args, "--jcmd", o.JCmd)
	}
	// The folder that comes back: --raw, or the profile's --out.
	into := o.Raw
	if kind, err := stacks.ParseKind(o.Profile); err == nil && o.PID != 0 {
		into = o.Out
		if into == "" {
			into = fmt.Sprintf("tuneloop-profile-%d-%s", o.PID, kind)
		}
		args = append(args, "--out", remote.FetchDir)
	} else if o.Raw != "" {
		args = append(args, "--raw", remote.FetchDir)
	}
	c, bin, err := remote.Connect(ctx, o.Host, o.Conn.Options, o.Conn.Exe)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	limit := 10*time.Minute + o.Duration + time.Duration(o.Dumps)*o.Interval
	job := remote.Job{Binary: bin, Args: args, Limit: limit, Stdout: o.Stdout, Stderr: o.Conn.Stderr,
		Sudo: o.Conn.Sudo, Password: o.Conn.Password}
	if into != "" {
		if err := os.MkdirAll(into, 0o700); err != nil { // properties may hold passwords
			return nil, err
		}
		job.Fetch, job.Into, job.KeepStdout = true, into, JVMStdout
	}
	res, err := c.Exec(ctx, job)
	if err != nil {
		return nil, err
	}
	r := &RemoteJVMResult{Dir: into, ExitCode: res.ExitCode}
	if into != "" {
		r.Output, _ = os.ReadFile(filepath.Join(into, JVMStdout))
	}
	return r, nil
}
