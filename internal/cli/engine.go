package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/session"
)

// engineOptions are the flags that choose what sends a --jmx plan's load
// (run and load).
type engineOptions struct {
	Engine string // builtin, jmeter or auto
	JMeter string // --jmeter PATH
	Remote string // --jmeter-remote host:port[=JMETER_HOME],...
	// hosts: the run has --host/--hosts, where engines may be started
	// over SSH (then an engine may name its JMETER_HOME).
	hosts bool
}

func (e *engineOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.Engine, "engine", "auto", helpText(finding.T("what sends a --jmx plan's load: builtin (tuneloop's generator), jmeter (JMeter itself, non-GUI), or auto (builtin when it runs every element of the plan, else JMeter)", "由谁发送 --jmx 计划的负载：builtin（tuneloop 的负载生成器）、jmeter（JMeter 本身，非 GUI 模式）或 auto（内置生成器能执行计划中每个元素时用它，否则用 JMeter）")))
	f.StringVar(&e.JMeter, "jmeter", "", helpText(finding.T("JMeter to run (its home, bin/jmeter or bin/ApacheJMeter.jar; default: $JMETER_HOME, else jmeter on PATH)", "要运行的 JMeter（其主目录、bin/jmeter 或 bin/ApacheJMeter.jar；默认：$JMETER_HOME，否则为 PATH 中的 jmeter）")))
	f.StringVar(&e.Remote, "jmeter-remote", "", helpText(finding.T("distributed JMeter: jmeter-server engines host:port,host:port that send the load (JMeter's -R); an engine on a --host host is started there over SSH (host[:port][=JMETER_HOME]), the others must be running; implies --engine jmeter", "分布式 JMeter：由 jmeter-server 引擎 host:port,host:port 发送负载（JMeter 的 -R）；位于 --host 主机上的引擎由 tuneloop 通过 SSH 在那里启动（host[:port][=JMETER_HOME]），其余引擎须已在运行；隐含 --engine jmeter")))
}

// engineChoice is what sends the load (session.ChooseEngine).
type engineChoice = session.EngineChoice

// chooseEngine is session.ChooseEngine of the flags: a note on stderr
// when auto falls back to the generator, exit 2 on a bad combination.
func chooseEngine(e engineOptions, plan string, jprops []string, skip bool, env *Env) (engineChoice, error) {
	c, err := session.ChooseEngine(session.EngineRequest{Engine: e.Engine, JMeter: e.JMeter, Remote: e.Remote, Hosts: e.hosts,
		Plan: plan, JProps: jprops, Skip: skip, Getenv: env.Getenv,
		Note: func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(env.Lang())) }})
	return c, sessionErr(err)
}

// jpropMap is -J name=value as a map (exit 2 on a malformed one).
func jpropMap(jprops []string) (map[string]string, error) {
	props, err := session.JProps(jprops)
	return props, sessionErr(err)
}
