package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
	"github.com/tuneloop/tuneloop/internal/session"
)

// newJMeterServeCmd is `tuneloop jmeter-serve`: start jmeter-server here,
// report its CPU and connections each second on stdout, stop it when stdin
// ends (the run's SSH session closed).
func newJMeterServeCmd(env *Env) *cobra.Command {
	var o jmeter.ServeOptions
	var home string
	cmd := &cobra.Command{
		Use:    session.JMeterServeCommand,
		Short:  helpText(finding.T("Internal: keep a jmeter-server engine for a run on this host", "内部命令：为一次运行在本机维持一个 jmeter-server 引擎")),
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := jmeter.Find(home, env.Getenv)
			if err != nil {
				env.Stdout.Write([]byte("error " + finding.SafeLine(err.Error()) + "\n"))
				return &ExitError{Code: ExitFailure, Err: err}
			}
			o.Install = in
			if o.Port <= 0 || o.Port > 65535 {
				return usageErr(finding.T("--port: want 1..65535", "--port：应为 1..65535"))
			}
			stdin := env.Stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			if err := jmeter.Serve(cmd.Context(), o, stdin, env.Stdout); err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&home, "jmeter", "", helpText(finding.T("JMETER_HOME (default: $JMETER_HOME, else jmeter on PATH)", "JMETER_HOME（默认：$JMETER_HOME，否则用 PATH 上的 jmeter）")))
	f.IntVar(&o.Port, "port", 1099, helpText(finding.T("RMI registry port (server_port)", "RMI 注册端口（server_port）")))
	f.IntVar(&o.ObjPort, "obj-port", 0, helpText(finding.T("RMI object port (server.rmi.localport; default a free port)", "RMI 对象端口（server.rmi.localport；默认取一个空闲端口）")))
	f.StringVar(&o.Hostname, "hostname", "", helpText(finding.T("java.rmi.server.hostname", "java.rmi.server.hostname")))
	f.StringArrayVarP(&o.Props, "jmeter-property", "J", nil, helpText(finding.T("JMeter property name=value", "JMeter 属性 name=value")))
	f.IntSliceVar(&o.SkipRemotePorts, "skip-remote-port", nil, helpText(finding.T("connections to these remote ports are not load", "到这些远端端口的连接不算负载")))
	return cmd
}
