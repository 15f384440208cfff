package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/session"
)

// hostList is the hosts of a multi-host run, from --hosts or the --host flags.
func (h *hostOptions) hostList() ([]multihost.Host, error) {
	if h.File != "" && len(h.Hosts) > 0 {
		return nil, usageErr(finding.T("--host and --hosts are exclusive", "--host 与 --hosts 不能同时使用"))
	}
	if h.File != "" {
		f, err := os.Open(h.File)
		if err != nil {
			return nil, usageErr(finding.T("--hosts: %v", "--hosts：%v"), err)
		}
		defer f.Close()
		hs, err := multihost.ParseFile(f)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: err}
		}
		return hs, nil
	}
	hs, err := multihost.FromFlags(h.Hosts)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return hs, nil
}

// hostsOptions are the options of a multi-host run common to record and
// run: the hosts, how to reach them, where the notes go.
func (h *hostOptions) hostsOptions(env *Env, output string, lang finding.Lang) (session.HostsOptions, error) {
	hosts, err := h.hostList()
	if err != nil {
		return session.HostsOptions{}, err
	}
	o := session.HostsOptions{Hosts: hosts, Lang: lang, Conn: h.conn(env, lang)}
	if output == "text" {
		o.Note = func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(lang)) }
	}
	return o, nil
}

// runHostsOptions are `run --host ...`'s: the load is generated here,
// every host records over the run's window (the app host its JVM), clocks
// aligned; the app host's folder gives the verdict, each host its own
// section.
func runHostsOptions(env *Env, o *RunOptions, cfg loadgen.Config, jm *session.JMeterLoad, dumps int, lang finding.Lang) (*session.HostsOptions, error) {
	switch {
	case o.Start != "" || o.StartB != "":
		return nil, usageErr(finding.T("--host: --start starts a service here; start it on its host and give --jvm auto or --pid", "--host：--start 在本机启动服务；请在其主机上启动，并用 --jvm auto 或 --pid"))
	case o.JTLWatch != "":
		return nil, usageErr(finding.T("--host: --jtl-watch is not available with remote hosts yet", "--host：远端主机暂不支持 --jtl-watch"))
	case o.TargetB != "" && jm != nil:
		return nil, usageErr(finding.T("--host with --engine jmeter: --target-b is not available (the plan names the targets); compare two runs with `tuneloop compare`",
			"--host 配合 --engine jmeter：不支持 --target-b（目标由计划指定）；请用 `tuneloop compare` 比较两次运行"))
	}
	if err := o.Prom.localOnly(); err != nil {
		return nil, err
	}
	ho, err := o.Remote.hostsOptions(env, o.Output, lang)
	if err != nil {
		return nil, err
	}
	ho.Out, ho.Duration, ho.Interval, ho.WarmUp = o.Out, o.Duration, o.Interval, o.WarmUp
	ho.PID, ho.JVM, ho.ThreadDumps = o.PID, o.JVM, dumps
	ho.Target, ho.JMeter = o.Target, jm
	if jm == nil {
		ho.Load = &cfg
	}
	return &ho, nil
}

// runRecordHosts is `record --host A --host B` (or --hosts): every host
// records for --duration at once, clocks aligned, into one folder.
func runRecordHosts(ctx context.Context, env *Env, o *RecordOptions, lang finding.Lang, failOn *finding.Severity) error {
	if err := o.Prom.localOnly(); err != nil {
		return err
	}
	ho, err := o.Remote.hostsOptions(env, o.Output, lang)
	if err != nil {
		return err
	}
	ho.Out, ho.Duration, ho.Interval = o.Out, o.Duration, o.Interval
	ho.PID, ho.JVM, ho.ThreadDumps = o.PID, o.JVM, o.ThreadDumps
	ho.Enable, ho.Disable = o.Enable, o.Disable
	res, err := session.RecordHosts(ctx, ho)
	if err != nil {
		return sessionErr(err)
	}
	return writeHosts(env.Stdout, res, o.Output, lang, failOn)
}

// writeHosts prints a multi-host run's page and every host's section; a
// lost host makes the exit status 1 after the report.
func writeHosts(w io.Writer, res *session.HostsResult, output string, lang finding.Lang, failOn *finding.Severity) error {
	if page := res.Page; page != nil {
		if err := writeRunReport(w, page, output); err != nil {
			return err
		}
	}
	if res.Lost != nil {
		return &ExitError{Code: ExitFailure, Err: res.Lost}
	}
	return failOnGate(failOn, res.Findings)
}
