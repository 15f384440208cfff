package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
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
	h.loginFlags(cmd, "--host")
	cmd.Flags().BoolVar(&h.Sudo, "sudo", false, helpText(finding.T("--host: run tuneloop there through sudo (a password is asked here, on the terminal, only if sudo wants one)", "--host：在该主机上通过 sudo 运行 tuneloop（仅当 sudo 需要时才在本地终端询问密码）")))
}

// flagsMulti are the flags of record and run: --host repeatable, --hosts.
func (h *hostOptions) flagsMulti(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&h.Hosts, "host", nil, helpText(finding.T("record on this host over SSH ([ROLE=][user@]host[:port] or a ~/.ssh/config alias; ROLE app, db, lb or other); repeat it for several hosts on one timeline", "通过 SSH 在该主机上记录（[ROLE=][user@]host[:port] 或 ~/.ssh/config 中的别名；ROLE 为 app、db、lb 或 other）；可重复使用，多台主机在同一时间轴上")))
	cmd.Flags().StringVar(&h.File, "hosts", "", helpText(finding.T("hosts file: one host a line, \"role name [user@]host[:port]\" (or YAML: hosts: [{name, role, address}])", "主机文件：每行一台主机，\"role name [user@]host[:port]\"（或 YAML：hosts: [{name, role, address}]）")))
	h.loginFlags(cmd, "--host")
	cmd.Flags().BoolVar(&h.Sudo, "sudo", false, helpText(finding.T("--host: run tuneloop there through sudo (a password is asked here, on the terminal, only if sudo wants one)", "--host：在该主机上通过 sudo 运行 tuneloop（仅当 sudo 需要时才在本地终端询问密码）")))
}

// loginFlags are --identity and --known-hosts, for the flag that names the
// host (--host, probe's --peer-ssh).
func (h *hostOptions) loginFlags(cmd *cobra.Command, of string) {
	cmd.Flags().StringSliceVar(&h.Identity, "identity", nil, helpText(finding.T(of+": private key file to log in with (besides ssh-agent and ~/.ssh/config)", of+"：登录所用的私钥文件（ssh-agent 与 ~/.ssh/config 之外）")))
	cmd.Flags().StringVar(&h.KnownHosts, "known-hosts", "", helpText(finding.T(of+": known_hosts file (default ~/.ssh/known_hosts); an unknown host key is refused", of+"：known_hosts 文件（默认 ~/.ssh/known_hosts）；未知的主机密钥会被拒绝")))
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

// remoteOptions are how to log in: the keys and known_hosts given.
func (h *hostOptions) remoteOptions(env *Env) remote.Options {
	return remote.Options{Identities: h.Identity, KnownHosts: h.KnownHosts, Getenv: env.Getenv}
}

// conn is how session reaches the one --host: the keys, sudo (its password
// asked on this terminal), the remote stderr to ours.
func (h *hostOptions) conn(env *Env, lang finding.Lang) multihost.Conn {
	return multihost.Conn{Options: h.remoteOptions(env), Exe: h.Exe, Sudo: h.Sudo, Password: h.password(env, lang), Stderr: env.Stderr}
}

// runCheckRemote is `check --host`: the audit runs there and prints here as
// if run there; its exit code is the command's.
func runCheckRemote(ctx context.Context, env *Env, o *CheckOptions, lang finding.Lang) error {
	local := func(v, def string) bool { return v != "" && v != def }
	if o.Root != "" || local(o.ProcRoot, "/proc") || local(o.SysRoot, "/sys") || local(o.EtcRoot, "/etc") {
		return usageErr(finding.T("--host: --root, --proc-root, --sys-root and --etc-root are for this host only", "--host：--root、--proc-root、--sys-root 与 --etc-root 只用于本机"))
	}
	code, err := session.CheckRemote(ctx, session.RemoteCheckOptions{Host: o.Remote.Host, Conn: o.Remote.conn(env, lang),
		Output: o.Output, Lang: string(lang), Profile: o.Profile, FailOn: o.FailOn, List: o.List, All: o.All,
		Stdout: env.Stdout, OutFile: o.OutFile})
	if err != nil {
		return err
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// runRecordRemote is `record --host`: the recorder runs there for
// --duration (bounded: a lost connection ends it by itself), its run folder
// comes back into --out here and is diagnosed and reported here.
func runRecordRemote(ctx context.Context, env *Env, o *RecordOptions, lang finding.Lang, failOn *finding.Severity) error {
	if err := o.Prom.localOnly(); err != nil {
		return err
	}
	res, err := session.RecordRemote(ctx, session.RemoteRecordOptions{Host: o.Remote.Host, Out: o.Out,
		Conn:     multihost.Conn{Options: o.Remote.remoteOptions(env), Exe: o.Remote.Exe, Sudo: o.Remote.Sudo, Stderr: env.Stderr}, // fetching needs NOPASSWD sudo (remote says so)
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

// runJVMRemote is `jvm --host H [PID]`: attach there (thread dumps, flags,
// a profile); the report is printed here, and the raw outputs (--raw) or
// the profile's files (--profile KIND) come back into the local folder.
func runJVMRemote(ctx context.Context, env *Env, o *JVMOptions, lang finding.Lang) error {
	res, err := session.JVMRemote(ctx, session.RemoteJVMOptions{Host: o.Remote.Host, Conn: o.Remote.conn(env, lang),
		PID: o.PID, Dumps: o.Dumps, Interval: o.Interval, Timeout: o.Timeout, Duration: o.Duration,
		Output: o.Output, Lang: string(lang), Via: o.Via, Profile: o.Profile, Flags: o.Flags, Props: o.Props, Heap: o.Heap,
		GCLog: o.GCLog, JCmd: o.JCmd, Raw: o.Raw, Out: o.Out, Stdout: env.Stdout})
	if err != nil {
		return err
	}
	if res.Dir != "" {
		// What it printed there, made terminal-safe here.
		for _, line := range strings.SplitAfter(string(res.Output), "\n") {
			if line != "" {
				fmt.Fprint(env.Stdout, finding.Safe(strings.TrimSuffix(line, "\n")), strings.Repeat("\n", strings.Count(line, "\n")))
			}
		}
		if o.Output == "text" {
			fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("files from the host:", "从该主机取回的文件：").In(lang), finding.SafeLine(res.Dir))
		}
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode}
	}
	return nil
}
