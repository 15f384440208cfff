package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// HostsOptions are a run over several hosts (`record --host A --host B`,
// `run --host ...`): every host records at once, clocks aligned, into one
// folder; with Load the load is generated here meanwhile.
type HostsOptions struct {
	Hosts    []multihost.Host
	Conn     multihost.Conn
	Out      string // "" = runs/<timestamp>-hosts; must be new or empty
	Duration time.Duration
	Interval time.Duration
	// The app host's target and its thread dumps.
	PID         int
	JVM         string
	ThreadDumps int
	Enable      []string
	Disable     []string
	// Load is the load generated here over Duration after WarmUp (nil:
	// record only, each host for Duration); JMeter, when set, sends it
	// instead (its engines on a --host host started there).
	Load   *loadgen.Config
	JMeter *JMeterLoad
	WarmUp time.Duration
	Target string
	Lang   finding.Lang
	Note   func(finding.Text)
}

// HostsResult is a multi-host run, diagnosed and its reports written.
type HostsResult struct {
	Dir      string
	Page     *report.RunPage   // the app host's page with every host's section; nil: no host arrived
	Findings []finding.Finding // every host's, for --fail-on
	// Lost says what was lost, per host (the report covers what arrived).
	Lost error
}

// RecordHosts records every host of o at once (and sends the load when
// o.Load or o.JMeter is set), then diagnoses the folder and writes its
// reports.
func RecordHosts(ctx context.Context, o HostsOptions) (*HostsResult, error) {
	if o.Load == nil && o.JMeter == nil && o.Duration <= 0 {
		return nil, errNoDuration()
	}
	dir, err := hostsOut(o.Out)
	if err != nil {
		return nil, err
	}
	if o.Note == nil {
		o.Note = func(finding.Text) {}
	}
	switch {
	case o.JMeter != nil:
		return jmeterHosts(ctx, o, dir)
	case o.Load != nil:
		return recordHosts(ctx, o, dir, func(ctx context.Context) (*loadgen.Summary, error) { return hostsLoad(ctx, o) }, nil)
	}
	return recordHosts(ctx, o, dir, nil, nil)
}

// errNoDuration: a recorder on another host must end by itself.
func errNoDuration() error {
	return usageErr(finding.T("--host needs --duration: the remote recorder must end by itself if the connection is lost", "--host 需要 --duration：连接中断时远端记录必须能自行结束"))
}

// recordHosts records every host of o into dir while load (nil: none,
// each host records for o.Duration) sends the run's load here, keeps the
// load in load.json (after, when set, sees it first) and reports: the end
// of every multi-host run, whatever sends its load.
func recordHosts(ctx context.Context, o HostsOptions, dir string, load func(context.Context) (*loadgen.Summary, error), after func(*loadgen.Summary)) (*HostsResult, error) {
	var appArgs []string
	if o.PID != 0 {
		appArgs = append(appArgs, "--pid", strconv.Itoa(o.PID))
	}
	if o.JVM != "" {
		appArgs = append(appArgs, "--jvm", o.JVM)
	}
	if len(appArgs) > 0 && o.ThreadDumps > 0 {
		appArgs = append(appArgs, "--thread-dumps", strconv.Itoa(o.ThreadDumps))
	}
	p := multihost.Plan{Dir: dir, Hosts: o.Hosts, Conn: o.Conn, Duration: o.Duration, Interval: o.Interval,
		AppArgs: appArgs, Enable: o.Enable, Disable: o.Disable, Note: o.Note}
	var sum *loadgen.Summary
	var loadErr error
	if load != nil {
		// Each recorder covers the lead, the warm-up, the load and two ticks.
		p.Duration = multihost.RecordLead + o.WarmUp + o.Duration + 2*o.Interval + time.Second
		p.During = func(ctx context.Context) error {
			sum, loadErr = load(ctx)
			return nil
		}
	}
	m, err := multihost.Record(ctx, p)
	if err != nil && (load == nil || m == nil) {
		return nil, err
	}
	if after != nil {
		after(sum)
	}
	if sum != nil {
		// The app host's folder is then a whole run folder (analyze it alone).
		if werr := multihost.WriteLoad(dir, m, sum); werr != nil && err == nil {
			err = werr
		}
	}
	if loadErr != nil && sum == nil {
		return nil, finding.Errorf(finding.T("the load: %v (the hosts' recordings are kept in %s)", "负载：%v（各主机的记录保存在 %s）"), loadErr, finding.SafeLine(dir))
	}
	return ReportHosts(ctx, dir, sum, o.Lang)
}

// hostsLoad is the load of a multi-host run: the warm-up, then the
// measured load.
func hostsLoad(ctx context.Context, o HostsOptions) (*loadgen.Summary, error) {
	if o.WarmUp > 0 {
		o.Note(finding.Tf(finding.T("warming up for %s", "预热 %s"), o.WarmUp))
		w := *o.Load
		w.Duration, w.OnSecond = o.WarmUp, nil
		if _, err := loadgen.Generate(ctx, w); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	o.Note(finding.Tf(finding.T("loading %s for %s", "对 %s 施加负载 %s"), finding.SafeLine(o.Target), o.Duration))
	return loadgen.Generate(ctx, *o.Load)
}

// hostsOut is the run folder of a multi-host run: out, or
// runs/<timestamp>-hosts; it must be new or empty.
func hostsOut(out string) (string, error) {
	if out == "" {
		out = filepath.Join("runs", time.Now().Format("20060102-150405")+"-hosts")
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return "", usageErr(finding.T("--out %s: the folder exists and is not empty", "--out %s：该目录已存在且非空"), finding.SafeLine(out))
	}
	return out, os.MkdirAll(out, 0o755)
}

// ReportHosts loads the multi-host folder dir and writes its reports (the
// run page of the app host with every host's section); what was lost is
// the result's Lost.
func ReportHosts(ctx context.Context, dir string, sum *loadgen.Summary, lang finding.Lang) (*HostsResult, error) {
	if ctx.Err() != nil {
		// Interrupted during the run: what arrived is still reported (as a
		// single-host run does); a second Ctrl-C ends the process (main).
		ctx = context.WithoutCancel(ctx)
	}
	res, err := hostsPage(ctx, dir, sum, lang)
	if err != nil {
		return nil, err
	}
	if res.Page != nil {
		if err := WriteReports(dir, res.Page); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// AnalyzeHosts diagnoses a multi-host run folder again from what it holds
// (hosts.json, every host's folder, load.json), as `run --host` did at its
// end, and writes nothing: `analyze DIR` of such a folder.
func AnalyzeHosts(ctx context.Context, dir string, lang finding.Lang) (*HostsResult, error) {
	sum, err := verdict.ReadLoad(dir)
	if err != nil {
		return nil, finding.Errorf(finding.T("%s: %v", "%s：%v"), filepath.Join(dir, verdict.LoadFile), err)
	}
	res, err := hostsPage(ctx, dir, sum, lang)
	if err == nil && res.Page != nil {
		if _, serr := os.Stat(filepath.Join(dir, "report.html")); serr != nil {
			res.Page.Folder = "" // the run wrote none: name none
		}
	}
	return res, err
}

// hostsPage reads the multi-host folder dir and builds its page.
func hostsPage(ctx context.Context, dir string, sum *loadgen.Summary, lang finding.Lang) (*HostsResult, error) {
	mr, err := multihost.LoadContext(ctx, dir, sum)
	if err != nil {
		return nil, err
	}
	res := &HostsResult{Dir: dir}
	main := mr.App
	if main == nil {
		for _, h := range mr.Hosts {
			if h.Layers != nil {
				main = h
				break
			}
		}
	}
	if main != nil {
		page := report.NewRunPage(main.Layers, main.Decision, lang)
		page.Hosts = report.NewHosts(mr, lang)
		// The run is the folder here, not the app host's record folder.
		page.Title = "tuneloop run " + filepath.Base(dir)
		if sum != nil && sum.Target != "" {
			page.Title += " @ " + sum.Target
		}
		page.Title += " · " + hostNames(mr)
		if mr.Cross != nil {
			page.Run.Findings = append([]finding.Finding{*mr.Cross}, page.Run.Findings...)
		}
		// No app host: no host's verdict read the load, but an engine that
		// limited it is still said, first.
		if mr.App == nil {
			if f := verdict.EngineLimit(sum); f != nil {
				page.Run.Findings = append([]finding.Finding{*f}, page.Run.Findings...)
				res.Findings = append(res.Findings, *f)
			}
		}
		page.Folder = dir
		res.Page = page
		for _, h := range mr.Hosts {
			if h.Decision != nil {
				res.Findings = append(res.Findings, h.Decision.Findings...)
			}
		}
	}
	res.Lost = lostError(mr, dir, main == nil)
	return res, nil
}

// lostError says what was lost, per host in each language (nil: nothing,
// and a host's folder arrived).
func lostError(mr *multihost.Loaded, dir string, none bool) error {
	var lost finding.Text
	for _, h := range mr.Hosts {
		var t *finding.Text
		if h.Entry.Lost != nil {
			t = h.Entry.Lost
		} else if h.Err != nil {
			t = &finding.Text{EN: finding.Localize(h.Err, finding.EN), ZH: finding.Localize(h.Err, finding.ZH)}
		}
		if t != nil {
			lost.EN += "\n" + finding.SafeLine(h.Entry.Name) + ": " + finding.SafeLine(t.EN)
			lost.ZH += "\n" + finding.SafeLine(h.Entry.Name) + "：" + finding.SafeLine(t.ZH)
		}
	}
	if lost.EN == "" && !none {
		return nil
	}
	return finding.Errorf(finding.T("lost during the run, the report covers what arrived (%s):%s",
		"运行中丢失，报告只包含已收到的内容（%s）：%s"), finding.SafeLine(dir), lost)
}

// hostNames lists the hosts with their roles: "app1 (app), db1 (db)".
func hostNames(r *multihost.Loaded) string {
	var b strings.Builder
	for i, h := range r.Hosts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(h.Entry.Name + " (" + h.Entry.Role + ")")
	}
	return b.String()
}
