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
		Short:  "Internal: keep a jmeter-server engine for a run on this host",
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
	f.StringVar(&home, "jmeter", "", "JMETER_HOME (default: $JMETER_HOME, else jmeter on PATH)")
	f.IntVar(&o.Port, "port", 1099, "RMI registry port (server_port)")
	f.IntVar(&o.ObjPort, "obj-port", 0, "RMI object port (server.rmi.localport; default a free port)")
	f.StringVar(&o.Hostname, "hostname", "", "java.rmi.server.hostname")
	f.StringArrayVarP(&o.Props, "jmeter-property", "J", nil, "JMeter property name=value")
	f.IntSliceVar(&o.SkipRemotePorts, "skip-remote-port", nil, "connections to these remote ports are not load")
	return cmd
}
