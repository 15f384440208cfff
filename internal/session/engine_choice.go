package session

// Which engine sends a --jmx plan's load (run and load): tuneloop's own
// generator or JMeter, local or distributed.

import (
	"os"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
)

// EngineRequest is what the user asked: --engine, --jmeter,
// --jmeter-remote, whether the run has --host (where an engine may be
// started over SSH), the plan (""= no --jmx) with its -J properties, and
// --jmx-skip-unsupported.
type EngineRequest struct {
	Engine, JMeter, Remote string
	Hosts                  bool
	Plan                   string
	JProps                 []string
	Skip                   bool
	Getenv                 func(string) string
	// Note says why auto falls back to the generator (no JMeter found).
	Note func(finding.Text)
}

// EngineChoice is what sends the load: JMeter when Install is set.
type EngineChoice struct {
	Install *jmeter.Install
	Engines []jmeter.RemoteSpec // --jmeter-remote: the jmeter-server engines
	Why     finding.Text        // auto: why JMeter
}

// ChooseEngine decides between the built-in generator and JMeter. auto
// takes JMeter only for a plan with elements the generator cannot run,
// unless Skip asks to run it without them; bad combinations are usage
// errors (UsageError).
func ChooseEngine(r EngineRequest) (EngineChoice, error) {
	var c EngineChoice
	mode := strings.ToLower(strings.TrimSpace(r.Engine))
	switch mode {
	case "", "auto", "builtin", "jmeter":
	default:
		return c, usageErr(finding.T("--engine %q: want builtin, jmeter or auto", "--engine %q：应为 builtin、jmeter 或 auto"), r.Engine)
	}
	if r.Remote != "" {
		if mode == "builtin" {
			return c, usageErr(finding.T("--jmeter-remote needs --engine jmeter (the engines are JMeter's)", "--jmeter-remote 需要 --engine jmeter（这些引擎属于 JMeter）"))
		}
		mode = "jmeter"
	}
	if r.Plan == "" {
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
		if r.Skip {
			return c, nil
		}
		why, err := PlanNeedsJMeter(r.Plan, r.JProps)
		if err != nil {
			return c, err
		}
		if why.IsZero() {
			return c, nil // fully supported (or unreadable: the generator's reading says why)
		}
		c.Why = why
	}
	install, err := jmeter.Find(r.JMeter, r.Getenv)
	if err != nil {
		if mode == "auto" {
			// The generator's reading of the plan says what it cannot run.
			if r.Note != nil {
				r.Note(finding.Tf(finding.T("%v: the built-in generator reads the plan", "%v：由内置负载生成器读取计划"), err))
			}
			return EngineChoice{}, nil
		}
		return c, usageErr(finding.T("%v", "%v"), err)
	}
	c.Install = install
	if r.Remote != "" {
		specs, err := jmeter.ParseRemoteSpecs(r.Remote)
		if err != nil {
			return c, usageErr(finding.T("%v", "%v"), err)
		}
		for _, s := range specs {
			if s.Home != "" && !r.Hosts {
				return c, usageErr(finding.T("--jmeter-remote %s=%s: a JMETER_HOME is for an engine tuneloop starts over SSH (run --host naming its host)",
					"--jmeter-remote %s=%s：JMETER_HOME 只用于 tuneloop 通过 SSH 启动的引擎（run --host 指定其主机）"), s.Addr, s.Home)
			}
		}
		c.Engines = specs
	}
	if _, err := os.Stat(r.Plan); err != nil {
		return c, usageErr(finding.T("--jmx: %v", "--jmx：%v"), err)
	}
	return c, nil
}
