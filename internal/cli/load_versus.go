package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
)

// runVersus is `load URL --versus URL2`: both services up, one load
// alternating between them in windows, judged as pairs of adjacent
// windows (compare.FromWindows); the exit code is compare's.
func runVersus(ctx context.Context, env *Env, o *LoadOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	switch {
	case o.Versus == "":
		return usageErr(finding.T("--fail-on-regression gates an A/B load: give --versus URL", "--fail-on-regression 用于 A/B 负载：请给出 --versus URL"))
	case o.URL == "":
		return usageErr(finding.T("--versus compares two URLs: give the first as the argument", "--versus 比较两个 URL：请以参数给出第一个"))
	case o.Scenario != "" || o.JMX != "" || o.JTL != "" || o.HTML != "" || o.Requests > 0:
		return usageErr(finding.T("--versus takes one URL a side, without --scenario, --jmx, --jtl, --html or -n", "--versus 每侧一个 URL，不能与 --scenario、--jmx、--jtl、--html 或 -n 同用"))
	case o.Window < time.Second:
		return usageErr(finding.T("--window %s: at least 1s (a window must hold enough requests for its p99)", "--window %s：至少 1s（一个窗口须有足够的请求来计算 p99）"), o.Window)
	case o.FailOnRegPct < 0:
		return usageErr(finding.T("--fail-on-regression: %v is negative", "--fail-on-regression：%v 为负数"), o.FailOnRegPct)
	}
	d := o.Duration
	if d <= 0 {
		d = 16 * o.Window // 8 pairs
	}
	pairs := max(2, int(d/(2*o.Window)))
	warm := o.WarmUp
	if warm <= 0 {
		warm = 3 * time.Second
	}
	a, err := loadConfig(o, env)
	if err != nil {
		return err
	}
	ob := *o
	ob.URL = o.Versus
	b, err := loadConfig(&ob, env)
	if err != nil {
		return err
	}
	live := newLiveStatus(env, env.Stderr, o.Quiet)
	vo := session.VersusOptions{Window: o.Window, Pairs: pairs, WarmUp: warm}
	if live.on {
		vo.OnWindow = func(i, n int, w session.Window) {
			live.show(report.WindowLiveLine(i, n, w.Side, w.TPS, w.P99, lang))
		}
	}
	got, err := session.Versus(ctx, a, b, vo)
	live.clear()
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	c, err := session.VersusCompare(got, o.URL, o.Versus, o.Window, o.FailOnRegPct)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	regressed := o.FailOnRegPct > 0 && c.Gate(o.FailOnRegPct)
	if o.Save != "" { // the comparison's JSON too, beside the text (the demo keeps both)
		err := report.WriteFile(o.Save, func(w io.Writer) error { return compare.WriteWindows(w, c, report.JSON, lang, o.FailOnRegPct) })
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--save: %w", err)}
		}
	}
	format, _ := report.LoadFormats().Parse(o.Output) // validated by RunLoad
	if err := compare.WriteWindows(env.Stdout, c, format, lang, o.FailOnRegPct); err != nil {
		return err
	}
	return comparisonExit(c, o.FailOnRegPct, regressed)
}
