package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
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

// engineChoice is what sends the load: JMeter when Install is set.
type engineChoice struct {
	Install *jmeter.Install
	Remote  []string
	Why     finding.Text // auto: why JMeter
}

// chooseEngine decides between the built-in generator and JMeter for a
// load of plan (""= no --jmx). auto takes JMeter only for a plan with
// elements the generator cannot run, unless skip asks to run it without them.
func chooseEngine(e engineOptions, plan string, jprops []string, skip bool, env *Env) (engineChoice, error) {
	var c engineChoice
	mode := strings.ToLower(strings.TrimSpace(e.Engine))
	switch mode {
	case "", "auto", "builtin", "jmeter":
	default:
		return c, usageErr(finding.T("--engine %q: want builtin, jmeter or auto", "--engine %q：应为 builtin、jmeter 或 auto"), e.Engine)
	}
	if e.Remote != "" {
		if mode == "builtin" {
			return c, usageErr(finding.T("--jmeter-remote needs --engine jmeter (the engines are JMeter's)", "--jmeter-remote 需要 --engine jmeter（这些引擎属于 JMeter）"))
		}
		mode = "jmeter"
	}
	if plan == "" {
		if mode == "jmeter" {
			return c, usageErr(finding.T("--engine jmeter runs a JMeter test plan: give --jmx PLAN", "--engine jmeter 运行 JMeter 测试计划：请给出 --jmx PLAN"))
		}
		return c, nil
	}
	if mode == "builtin" {
		return c, nil
	}
	if mode == "" {
		mode = "auto" // the flag's default
	}
	if mode == "auto" {
		if skip {
			return c, nil
		}
		why, err := session.PlanNeedsJMeter(plan, jprops)
		if err != nil {
			return c, sessionErr(err)
		}
		if why.IsZero() {
			return c, nil // fully supported (or unreadable: the generator's reading says why)
		}
		c.Why = why
	}
	install, err := jmeter.Find(e.JMeter, env.Getenv)
	if err != nil {
		if mode == "auto" {
			// The generator's reading of the plan says what it cannot run.
			fmt.Fprintf(env.Stderr, "tuneloop: %s\n", finding.Tf(finding.T("%v: the built-in generator reads the plan", "%v：由内置负载生成器读取计划"), err).In(env.Lang()))
			return engineChoice{}, nil
		}
		return c, usageErr(finding.T("%v", "%v"), err)
	}
	c.Install = install
	if e.Remote != "" {
		specs, err := jmeter.ParseRemoteSpecs(e.Remote)
		if err != nil {
			return c, usageErr(finding.T("%v", "%v"), err)
		}
		for _, s := range specs {
			if s.Home != "" && !e.hosts {
				return c, usageErr(finding.T("--jmeter-remote %s=%s: a JMETER_HOME is for an engine tuneloop starts over SSH (run --host naming its host)",
					"--jmeter-remote %s=%s：JMETER_HOME 只用于 tuneloop 通过 SSH 启动的引擎（run --host 指定其主机）"), s.Addr, s.Home)
			}
			c.Remote = append(c.Remote, s.Addr)
		}
	}
	if _, err := os.Stat(plan); err != nil {
		return c, usageErr(finding.T("--jmx: %v", "--jmx：%v"), err)
	}
	return c, nil
}

// jpropMap is -J name=value as a map (exit 2 on a malformed one).
func jpropMap(jprops []string) (map[string]string, error) {
	props, err := session.JProps(jprops)
	return props, sessionErr(err)
}
