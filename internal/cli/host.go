package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// hostOptions are --host and how to reach it (check, record, run).
type hostOptions struct {
	Host string
	// Hosts are the repeated --host of record and run ([ROLE=]spec), File
	// their --hosts file: several hosts are a multi-host run.
	Hosts      []string
	File       string
	Identity   []string
	KnownHosts string
	// Sudo runs tuneloop there through sudo (password-less, or asking here).
	Sudo bool
	// Exe is the local tuneloop binary to copy ("" = os.Executable; tests
	// set a built one, the test binary not being tuneloop).
	Exe string
}

func (h *hostOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&h.Host, "host", "", helpText(finding.T("run on this host over SSH ([user@]host[:port] or a ~/.ssh/config alias); nothing is installed there", "通过 SSH 在该主机上运行（[user@]host[:port] 或 ~/.ssh/config 中的别名）；不在该主机上安装任何东西")))
	cmd.Flags().StringSliceVar(&h.Identity, "identity", nil, helpText(finding.T("--host: private key file to log in with (besides ssh-agent and ~/.ssh/config)", "--host：登录所用的私钥文件（ssh-agent 与 ~/.ssh/config 之外）")))
	cmd.Flags().StringVar(&h.KnownHosts, "known-hosts", "", helpText(finding.T("--host: known_hosts file (default ~/.ssh/known_hosts); an unknown host key is refused", "--host：known_hosts 文件（默认 ~/.ssh/known_hosts）；未知的主机密钥会被拒绝")))
	cmd.Flags().BoolVar(&h.Sudo, "sudo", false, helpText(finding.T("--host: run tuneloop there through sudo (a password is asked here, on the terminal, only if sudo wants one)", "--host：在该主机上通过 sudo 运行 tuneloop（仅当 sudo 需要时才在本地终端询问密码）")))
}

// flagsMulti are the flags of record and run: --host repeatable, --hosts.
func (h *hostOptions) flagsMulti(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&h.Hosts, "host", nil, helpText(finding.T("record on this host over SSH ([ROLE=][user@]host[:port] or a ~/.ssh/config alias; ROLE app, db, lb or other); repeat it for several hosts on one timeline", "通过 SSH 在该主机上记录（[ROLE=][user@]host[:port] 或 ~/.ssh/config 中的别名；ROLE 为 app、db、lb 或 other）；可重复使用，多台主机在同一时间轴上")))
	cmd.Flags().StringVar(&h.File, "hosts", "", helpText(finding.T("hosts file: one host a line, \"role name [user@]host[:port]\" (or YAML: hosts: [{name, role, address}])", "主机文件：每行一台主机，\"role name [user@]host[:port]\"（或 YAML：hosts: [{name, role, address}]）")))
	cmd.Flags().StringSliceVar(&h.Identity, "identity", nil, helpText(finding.T("--host: private key file to log in with (besides ssh-agent and ~/.ssh/config)", "--host：登录所用的私钥文件（ssh-agent 与 ~/.ssh/config 之外）")))
	cmd.Flags().StringVar(&h.KnownHosts, "known-hosts", "", helpText(finding.T("--host: known_hosts file (default ~/.ssh/known_hosts); an unknown host key is refused", "--host：known_hosts 文件（默认 ~/.ssh/known_hosts）；未知的主机密钥会被拒绝")))
	cmd.Flags().BoolVar(&h.Sudo, "sudo", false, helpText(finding.T("--host: run tuneloop there through sudo (a password is asked here, on the terminal, only if sudo wants one)", "--host：在该主机上通过 sudo 运行 tuneloop（仅当 sudo 需要时才在本地终端询问密码）")))
}

// multi says whether the hosts make a multi-host run (several --host, a
// role, or --hosts); one plain --host is Host, the single-host path.
func (h *hostOptions) multi() bool {
	if h.File == "" && len(h.Hosts) == 1 && !strings.Contains(h.Hosts[0], "=") {
		h.Host = h.Hosts[0]
		return false
	}
	return h.any()
}

// any says whether hosts were named at all (--host or --hosts).
func (h *hostOptions) any() bool { return h.File != "" || len(h.Hosts) > 0 }

// password asks for sudo's password on the terminal, echo off; nil when
// standard input is not a terminal.
func (h *hostOptions) password(env *Env, lang finding.Lang) func(string) (string, error) {
	f, ok := env.Stdin.(*os.File)
	if !ok {
		return nil
	}
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil
	}
	return func(prompt string) (string, error) {
		fmt.Fprintf(env.Stderr, "%s %s", finding.T("tuneloop:", "tuneloop：").In(lang), finding.SafeLine(prompt))
		quiet := *old
		quiet.Lflag &^= unix.ECHO
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
			return "", err
		}
		defer func() { unix.IoctlSetTermios(fd, unix.TCSETS, old); fmt.Fprintln(env.Stderr) }()
		line, err := bufio.NewReader(f).ReadString('\n')
		return strings.TrimRight(line, "\r\n"), err
	}
}

// connect dials the host and picks the binary for its architecture.
func (h *hostOptions) connect(ctx context.Context, env *Env) (*remote.Client, string, error) {
	return h.connectTo(ctx, env, h.Host)
}

// connectTo dials spec with these options and picks the binary for its
// architecture.
func (h *hostOptions) connectTo(ctx context.Context, env *Env, spec string) (*remote.Client, string, error) {
	return remote.Connect(ctx, spec, h.remoteOptions(env), h.Exe)
}

// remoteOptions are how to log in: the keys and known_hosts given.
func (h *hostOptions) remoteOptions(env *Env) remote.Options {
	return remote.Options{Identities: h.Identity, KnownHosts: h.KnownHosts, Getenv: env.Getenv}
}

// runCheckRemote is `check --host`: the audit runs there and prints here as
// if run there; its exit code is the command's.
func runCheckRemote(ctx context.Context, env *Env, o *CheckOptions, lang finding.Lang) error {
	local := func(v, def string) bool { return v != "" && v != def }
	if o.Root != "" || local(o.ProcRoot, "/proc") || local(o.SysRoot, "/sys") || local(o.EtcRoot, "/etc") {
		return usageErr(finding.T("--host: --root, --proc-root, --sys-root and --etc-root are for this host only", "--host：--root、--proc-root、--sys-root 与 --etc-root 只用于本机"))
	}
	args := []string{"check", "--output", o.Output, "--lang", string(lang), "--profile", o.Profile}
	if o.FailOn != "" {
		args = append(args, "--fail-on", o.FailOn)
	}
	if o.List {
		args = append(args, "--list")
	}
	if o.All {
		args = append(args, "--all")
	}
	c, bin, err := o.Remote.connect(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	out := env.Stdout
	if o.OutFile != "" {
		f, err := os.Create(o.OutFile)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	res, err := c.Exec(ctx, remote.Job{Binary: bin, Args: args, Limit: 10 * time.Minute, Stdout: out, Stderr: env.Stderr,
		Sudo: o.Remote.Sudo, Password: o.Remote.password(env, lang)})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode}
	}
	return nil
}

// runRecordRemote is `record --host`: the recorder runs there for
// --duration (bounded: a lost connection ends it by itself), its run folder
// comes back into --out here and is diagnosed and reported here.
func runRecordRemote(ctx context.Context, env *Env, o *RecordOptions, lang finding.Lang, failOn *finding.Severity) error {
	if o.Duration <= 0 {
		return usageErr(finding.T("--host needs --duration: the remote recorder must end by itself if the connection is lost", "--host 需要 --duration：连接中断时远端记录必须能自行结束"))
	}
	if o.Prom.Listen != "" || o.Prom.Textfile != "" {
		return usageErr(finding.T("--host: --prometheus-listen and --prometheus-textfile are not available for a remote host yet", "--host：远端主机暂不支持 --prometheus-listen 与 --prometheus-textfile"))
	}
	res, err := session.RecordRemote(ctx, session.RemoteRecordOptions{Host: o.Remote.Host, Out: o.Out,
		Conn:     multihost.Conn{Options: o.Remote.remoteOptions(env), Exe: o.Remote.Exe, Sudo: o.Remote.Sudo, Stderr: env.Stderr},
		Duration: o.Duration, Interval: o.Interval, PID: o.PID, JVM: o.JVM, ThreadDumps: o.ThreadDumps, Enable: o.Enable, Disable: o.Disable})
	if err != nil {
		return sessionErr(err)
	}
	if err := writeRunReport(env.Stdout, report.NewRunBrief(res.Layers, res.Decision, lang), o.Output); err != nil {
		return err
	}
	if o.Output == "text" {
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("run folder:", "运行目录：").In(lang), finding.SafeLine(res.Dir))
	}
	return failOnGate(failOn, res.Decision.Findings)
}

// jvmStdout is the file of a fetched `jvm --host` folder holding what the
// remote jvm printed.
const jvmStdout = "jvm-output.txt"

// runJVMRemote is `jvm --host H [PID]`: attach there (thread dumps, flags,
// a profile); the report is printed here, and the raw outputs (--raw) or
// the profile's files (--profile KIND) come back into the local folder.
func runJVMRemote(ctx context.Context, env *Env, o *JVMOptions, lang finding.Lang) error {
	args := []string{"jvm"}
	if o.PID != 0 {
		args = append(args, strconv.Itoa(o.PID))
	}
	args = append(args, "--dump", strconv.Itoa(o.Dumps), "--interval", o.Interval.String(), "--output", o.Output,
		"--lang", string(lang), "--timeout", o.Timeout.String(), "--via", orDefaultStr(o.Via, "auto"))
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
	c, bin, err := o.Remote.connect(ctx, env)
	if err != nil {
		return err
	}
	defer c.Close()
	limit := 10*time.Minute + o.Duration + time.Duration(o.Dumps)*o.Interval
	job := remote.Job{Binary: bin, Args: args, Limit: limit, Stdout: env.Stdout, Stderr: env.Stderr,
		Sudo: o.Remote.Sudo, Password: o.Remote.password(env, lang)}
	if into != "" {
		if err := os.MkdirAll(into, 0o700); err != nil { // properties may hold passwords
			return err
		}
		job.Fetch, job.Into, job.KeepStdout = true, into, jvmStdout
	}
	res, err := c.Exec(ctx, job)
	if err != nil {
		return err
	}
	if into != "" {
		// What it printed there, made terminal-safe here.
		b, err := os.ReadFile(filepath.Join(into, jvmStdout))
		if err == nil {
			for _, line := range strings.SplitAfter(string(b), "\n") {
				if line != "" {
					fmt.Fprint(env.Stdout, finding.Safe(strings.TrimSuffix(line, "\n")), strings.Repeat("\n", strings.Count(line, "\n")))
				}
			}
		}
		if o.Output == "text" {
			fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("files from the host:", "从该主机取回的文件：").In(lang), finding.SafeLine(into))
		}
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode}
	}
	return nil
}
