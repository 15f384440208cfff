package cli

// Where a load's requests come from, for load and run alike: one URL (with
// its method, body and expectations), a YAML scenario, or a JMeter plan.

import (
	"fmt"
	"os"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/session"
)

// loadConfig turns the options (and the scenario file) into a run Config.
func loadConfig(o *LoadOptions, env *Env) (loadgen.Config, error) {
	var cfg loadgen.Config
	if o.JMX != "" {
		if o.URL != "" || o.Scenario != "" || o.Body != "" || o.BodyFile != "" || o.Method != "" {
			return cfg, usageErr(finding.T("--jmx runs a test plan: give no URL, --scenario, -X or --body with it", "--jmx 运行测试计划：不要同时给出 URL、--scenario、-X 或 --body"))
		}
		c, err := jmxConfig(o.JMX, o.JProps, o.JMXSkip, env)
		if err != nil {
			return cfg, err
		}
		cfg = c
	} else if len(o.JProps) > 0 || o.JMXSkip {
		return cfg, usageErr(finding.T("-J and --jmx-skip-unsupported apply to --jmx", "-J 与 --jmx-skip-unsupported 只用于 --jmx"))
	} else if o.Scenario != "" {
		if o.URL != "" || o.Body != "" || o.BodyFile != "" || o.Method != "" {
			return cfg, usageErr(finding.T("give either a URL (with -X/--body) or --scenario, not both", "URL（配合 -X/--body）与 --scenario 只能二选一"))
		}
		if err := loadgen.LoadScenario(o.Scenario, &cfg); err != nil {
			return cfg, usageErr(finding.T("%v", "%v"), err)
		}
	} else {
		if o.URL == "" {
			return cfg, usageErr(finding.T("give a URL, --scenario FILE or --import FILE", "请给出 URL、--scenario FILE 或 --import FILE"))
		}
		req := loadgen.Request{URL: o.URL, Method: o.Method, Body: []byte(o.Body),
			ExpectStatus: o.ExpectStatus, ExpectBody: o.ExpectBody}
		if o.BodyFile != "" {
			if o.Body != "" {
				return cfg, usageErr(finding.T("--body and --body-file exclude each other", "--body 与 --body-file 不能同时使用"))
			}
			b, err := os.ReadFile(o.BodyFile)
			if err != nil {
				return cfg, usageErr(finding.T("--body-file: %v", "--body-file:%v"), err)
			}
			req.Body = b
		}
		cfg.Requests = []loadgen.Request{req}
	}
	ov := loadgen.Overrides{Headers: o.Headers, Users: o.Users, Rate: o.Rate, Connections: o.Connections, Duration: o.Duration,
		Requests: o.Requests, RampUp: o.RampUp, WarmUp: o.WarmUp, Think: o.Think, Timeout: o.Timeout,
		NoKeepAlive: o.NoKeepAlive, Insecure: o.Insecure, HTTP2: o.HTTP2}
	if err := ov.Apply(&cfg); err != nil {
		return cfg, &ExitError{Code: ExitUsage, Err: err}
	}
	return cfg, nil
}

// runLoad is what sends a run's load: JMeter (jm set, cfg only its
// duration and users for the record) or the built-in generator with cfg.
// usersGiven: -c was given (else JMeter keeps the plan's users).
func runLoad(o *RunOptions, env *Env, lang finding.Lang, usersGiven bool) (jm *session.JMeterLoad, cfg loadgen.Config, err error) {
	ec, err := chooseEngine(o.Engine, o.JMX, o.JProps, o.JMXSkip, env)
	if err != nil {
		return nil, cfg, err
	}
	if ec.Install == nil {
		cfg, err = runLoadConfig(o, env, usersGiven)
		return nil, cfg, err
	}
	if o.JTLWatch != "" {
		return nil, cfg, usageErr(finding.T("--jtl-watch reads a JMeter you started yourself: not with --engine jmeter", "--jtl-watch 读取你自己启动的 JMeter：不能与 --engine jmeter 同时使用"))
	}
	if ec.Why.EN != "" {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", ec.Why.In(lang))
	}
	jm = &session.JMeterLoad{Install: ec.Install, Plan: o.JMX, Props: o.JProps, Engines: ec.Engines, Rate: o.Rate}
	if usersGiven {
		jm.Users = o.Users
	}
	return jm, loadgen.Config{Duration: o.Duration, Users: o.Users}, nil
}

// variantB is the second variant of run --start-b/--target-b; with the
// built-in generator, B's load goes to B's URL (a plan or scenario keeps
// its own requests).
func variantB(o *RunOptions, env *Env, builtin, usersGiven bool) (*session.Variant, error) {
	b := &session.Variant{Start: o.StartB, Target: o.TargetB}
	if builtin && o.TargetB != "" {
		ob := *o
		ob.Target = o.TargetB
		cfg, err := runLoadConfig(&ob, env, usersGiven)
		if err != nil {
			return nil, err
		}
		b.Load = &cfg
	}
	return b, nil
}

// runLoadConfig turns the flags, the plan or the scenario into a load
// config. As in `load`, the flags the user gave win over the plan's or the
// scenario's (loadgen.Overrides.Apply): -c (usersGiven) or --rate. The
// run's default users (o.Users when not given) apply only where the plan
// or scenario sets no model of its own. The run's duration bounds the
// load; a plan's loops do not end it early.
func runLoadConfig(o *RunOptions, env *Env, usersGiven bool) (loadgen.Config, error) {
	var cfg loadgen.Config
	switch {
	case o.JMX != "":
		c, err := jmxConfig(o.JMX, o.JProps, o.JMXSkip, env)
		if err != nil {
			return c, err
		}
		cfg = c
	case o.Scenario != "":
		if err := loadgen.LoadScenario(o.Scenario, &cfg); err != nil {
			return cfg, usageErr(finding.T("%v", "%v"), err) // as in load: a bad scenario is bad input (exit 2)
		}
	case o.Target != "":
		cfg.Requests = []loadgen.Request{{URL: o.Target}}
	}
	ov := loadgen.Overrides{Rate: o.Rate}
	if usersGiven || (o.Rate == 0 && cfg.Users == 0 && cfg.Rate == 0 && len(cfg.Groups) == 0) {
		ov.Users = o.Users
	}
	if err := ov.Apply(&cfg); err != nil {
		return cfg, &ExitError{Code: ExitUsage, Err: err}
	}
	cfg.Duration = o.Duration
	if o.JMX != "" {
		cfg.MaxRequests = 0
		cfg.Unloop()
	}
	return cfg, nil
}

// jmxConfig reads a JMeter plan into a load config (session.JMXConfig);
// what cannot be run and the notes go to stderr.
func jmxConfig(path string, jprops []string, skip bool, env *Env) (loadgen.Config, error) {
	props, err := jpropMap(jprops)
	if err != nil {
		return loadgen.Config{}, err
	}
	cfg, err := session.JMXConfig(path, props, skip, env.Lang(), func(line string) { fmt.Fprintln(env.Stderr, line) })
	return cfg, sessionErr(err)
}

// orDefaultStr is s, or d when s is empty.
func orDefaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
