package cli

import (
	"context"
	"fmt"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
)

// runLoadJMeter is `tuneloop load --jmx PLAN` with JMeter sending the load
// (session.LoadJMeter): the flags JMeter's plan sets itself are refused,
// the summary written as the built-in generator's.
func runLoadJMeter(ctx context.Context, env *Env, o *LoadOptions, ec engineChoice) error {
	lang := env.Lang()
	for _, bad := range []struct {
		set  bool
		flag string
	}{{o.Requests > 0, "-n"}, {o.Connections > 0, "--connections"}, {o.RampUp > 0, "--ramp-up"},
		{o.Think > 0, "--think"}, {o.Timeout > 0, "--timeout"}, {len(o.Headers) > 0, "-H"}, {o.NoKeepAlive, "--no-keepalive"},
		{o.Insecure, "-k"}, {o.HTTP2, "--http2"}, {o.ExpectBody != "" || len(o.ExpectStatus) > 0, "--expect-*"}} {
		if bad.set {
			return usageErr(finding.T("%s: with JMeter as the engine the plan sets this (its timers, thread groups, HTTP settings); give --engine builtin to use the flag",
				"%s：以 JMeter 为引擎时由计划设置（其定时器、线程组、HTTP 设置）；要使用该参数请给出 --engine builtin"), bad.flag)
		}
	}
	if o.Users < 0 || o.Duration < 0 || o.WarmUp < 0 {
		return usageErr(finding.T("counts and durations must not be negative", "数量和时长不能为负数"))
	}
	if ec.Why.EN != "" {
		fmt.Fprintf(env.Stderr, "tuneloop: %s\n", ec.Why.In(lang))
	}
	say := func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(lang)) }
	jo := session.LoadJMeterOptions{
		JMeterLoad: session.JMeterLoad{Install: ec.Install, Plan: o.JMX, Props: o.JProps, Engines: ec.Engines, Users: o.Users, Rate: o.Rate},
		Duration:   o.Duration, WarmUp: o.WarmUp, Record: o.HTML != "", JTL: o.JTL, Getenv: env.Getenv, Note: say,
	}
	if !o.Quiet {
		jo.Progress = say
	}
	live := newLiveStatus(env, env.Stderr, o.Quiet)
	if live.on {
		jo.OnSecond = func(p loadgen.Progress) { live.show(report.LoadLiveLine(p, lang)) }
	}
	sum, rec, err := session.LoadJMeter(ctx, jo)
	live.clear()
	if err != nil {
		return loadErr(sessionErr(err))
	}
	return emitSummary(env, o, sum, rec)
}
