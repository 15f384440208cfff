package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// Clock probing: round trips per measurement (the least RTT is kept).
const clockTrips = 8

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

// hostsPlan is what each host records and what happens here meanwhile.
type hostsPlan struct {
	Dir      string
	Hosts    []multihost.Host
	Duration time.Duration // each remote record's --duration
	Interval time.Duration
	// AppArgs are added to the app host's record (--jvm/--pid, dumps).
	AppArgs []string
	Enable  []string
	Disable []string
	// During runs here once every host records (the load; nil = wait).
	During func(ctx context.Context) error
	Note   func(finding.Text)
}

// hostJob is one host's connection, clock probe and record job.
type hostJob struct {
	entry   multihost.Entry
	client  *remote.Client
	bin     string
	probe   *remote.ClockProbe
	started chan struct{}
	done    chan struct{}
	res     *remote.Result
	err     error
}

// recordOnHosts records every host of p at once into p.Dir/hosts/NAME,
// their clocks measured before and after, and writes hosts.json. During
// runs once all have started (or failed to). What a lost host sent is
// kept and said in its entry.
func recordOnHosts(ctx context.Context, env *Env, ho *hostOptions, p hostsPlan) (*multihost.Manifest, error) {
	note := p.Note
	if note == nil {
		note = func(finding.Text) {}
	}
	jobs := make([]*hostJob, len(p.Hosts))
	// Connect to all first: a host that cannot be reached stops the run
	// before any load (the user fixes the name, the key, the known_hosts).
	var wg sync.WaitGroup
	errs := make([]error, len(p.Hosts))
	for i, h := range p.Hosts {
		jobs[i] = &hostJob{entry: multihost.Entry{Host: h}, started: make(chan struct{}), done: make(chan struct{})}
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := jobs[i]
			j.client, j.bin, errs[i] = ho.connectTo(ctx, env, h.Address)
			if errs[i] == nil {
				j.entry.Arch = filepath.Base(j.bin)
				if a, err := j.client.Arch(); err == nil {
					j.entry.Arch = a
				}
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, j := range jobs {
			if j.probe != nil {
				j.probe.Close()
			}
			if j.client != nil {
				j.client.Close()
			}
		}
	}()
	for i, err := range errs {
		if err != nil {
			return nil, finding.Errorf(finding.T("host %s (%s): %v", "主机 %s（%s）：%v"), finding.SafeLine(p.Hosts[i].Name), finding.SafeLine(p.Hosts[i].Address), err)
		}
	}
	limit := p.Duration + 3*time.Minute
	// Clocks before: one probe per host, kept open for the measure after.
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, err := j.client.StartClock(ctx, j.bin, limit+2*time.Minute)
			if err != nil {
				note(finding.Tf(finding.T("%s: clock not measured: %v", "%s：未能测量时钟：%v"), j.entry.Name, err))
				return
			}
			j.probe = pr
			j.entry.Before = measureClock(ctx, pr)
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if off, bound, ok := j.entry.Offset(); ok {
			note(finding.Tf(finding.T("%s (%s): clock offset %s ±%s", "%s（%s）：时钟偏差 %s ±%s"), j.entry.Name, j.entry.Arch,
				report.ClockMS(ms(off), true), report.ClockMS(ms(bound), false)))
		}
	}
	m := &multihost.Manifest{Start: time.Now()}
	// Every recorder waits, copied, for the others: they start together.
	gate := make(chan struct{})
	var openGate sync.Once
	defer openGate.Do(func() { close(gate) })
	for i, j := range jobs {
		args := []string{"record", "--out", remote.FetchDir, "--no-catalog", "--quiet", "--output", "json",
			"--duration", p.Duration.String(), "--interval", p.Interval.String()}
		if j.entry.Role == multihost.RoleApp {
			args = append(args, p.AppArgs...)
		}
		for _, e := range p.Enable {
			args = append(args, "--enable", e)
		}
		for _, d := range p.Disable {
			args = append(args, "--disable", d)
		}
		into := multihost.Dir(p.Dir, p.Hosts[i].Name)
		if err := os.MkdirAll(into, 0o755); err != nil {
			return nil, err
		}
		var once sync.Once
		job := remote.Job{Binary: j.bin, Args: args, Limit: p.Duration + 2*time.Minute, Fetch: true, Into: into,
			Stderr: prefixWriter(env.Stderr, j.entry.Name), Sudo: ho.Sudo, FailOnExit: true,
			Started: func() { once.Do(func() { close(j.started) }) }, Gate: gate}
		if len(jobs) == 1 {
			job.Password = ho.password(env, env.Lang())
		}
		go func() {
			defer close(j.done)
			defer once.Do(func() { close(j.started) }) // ended before it started
			j.res, j.err = j.client.Run(ctx, job)
		}()
	}
	// The copies can take a while over a slow link: the recorders start
	// together once all are copied, and the load a moment later (a
	// recorder's own start).
	for _, j := range jobs {
		select {
		case <-j.started:
		case <-ctx.Done():
		}
	}
	openGate.Do(func() { close(gate) })
	var duringErr error
	if p.During != nil && ctx.Err() == nil {
		time.Sleep(recordLead)
		duringErr = p.During(ctx)
	}
	for _, j := range jobs {
		<-j.done
	}
	m.End = time.Now()
	for _, j := range jobs {
		if j.res != nil {
			j.entry.Files = len(j.res.Files)
		}
		if j.err != nil {
			var le *remote.LostError
			var t finding.Text
			if errors.As(j.err, &le) {
				j.entry.Files = len(le.Arrived)
				t = finding.T(le.Localize(finding.EN), le.Localize(finding.ZH))
			} else {
				t = finding.T(finding.Localize(j.err, finding.EN), finding.Localize(j.err, finding.ZH))
			}
			j.entry.Lost = &t
			if j.probe != nil { // its connection is gone
				j.probe.Close()
				j.probe = nil
			}
		}
		if j.probe != nil {
			j.entry.After = measureClock(ctx, j.probe)
		}
		if d, ok := j.entry.Drift(); ok {
			note(finding.Tf(finding.T("%s: clock drift over the run %s", "%s：运行期间时钟漂移 %s"), j.entry.Name, report.ClockMS(ms(d), true)))
		}
		m.Hosts = append(m.Hosts, j.entry)
	}
	if err := multihost.Write(p.Dir, m); err != nil {
		return m, err
	}
	return m, duringErr
}

// recordLead is the time a remote recorder has, once its binary runs, to
// take its first sample before the load starts.
const recordLead = 2 * time.Second

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measureClock does one measurement (nil: the probe failed).
func measureClock(ctx context.Context, pr *remote.ClockProbe) *multihost.Clock {
	ss, _ := pr.Measure(ctx, clockTrips)
	off, ok := remote.EstimateOffset(ss)
	if !ok {
		return nil
	}
	return &multihost.Clock{OffsetNS: int64(off.Offset), BoundNS: int64(off.Bound), At: off.At, Trips: off.N}
}

// prefixWriter is the host's remote stderr, each line prefixed by its name.
func prefixWriter(w interface{ Write([]byte) (int, error) }, name string) *linePrefix {
	return &linePrefix{w: w, prefix: "[" + name + "] "}
}

type linePrefix struct {
	mu     sync.Mutex
	w      interface{ Write([]byte) (int, error) }
	prefix string
	pen    []byte
}

func (l *linePrefix) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pen = append(l.pen, p...)
	for {
		i := strings.IndexByte(string(l.pen), '\n')
		if i < 0 {
			break
		}
		l.w.Write([]byte(l.prefix + string(l.pen[:i+1])))
		l.pen = l.pen[i+1:]
	}
	return len(p), nil
}

// multiOut is the run folder of a multi-host run: --out, or
// runs/<timestamp>-hosts; it must be new or empty.
func multiOut(out string) (string, error) {
	if out == "" {
		out = filepath.Join("runs", time.Now().Format("20060102-150405")+"-hosts")
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return "", usageErr(finding.T("--out %s: the folder exists and is not empty", "--out %s：该目录已存在且非空"), finding.SafeLine(out))
	}
	return out, os.MkdirAll(out, 0o755)
}

// runRunHosts is `run --host ...`: the load is generated here, every host
// records over the run's window (the app host its JVM), clocks aligned;
// the app host's folder gives the verdict, each host its own section.
func runRunHosts(ctx context.Context, env *Env, o *RunOptions, cfg loadgen.Config, dumps int, lang finding.Lang, failOn *finding.Severity) error {
	switch {
	case o.Start != "":
		return usageErr(finding.T("--host: --start starts a service here; start it on its host and give --jvm auto or --pid", "--host：--start 在本机启动服务；请在其主机上启动，并用 --jvm auto 或 --pid"))
	case o.JTLWatch != "":
		return usageErr(finding.T("--host: --jtl-watch is not available with remote hosts yet", "--host：远端主机暂不支持 --jtl-watch"))
	case o.Target == "":
		return usageErr(finding.T("--host needs --target: the load is generated here", "--host 需要 --target：负载由本机产生"))
	case o.Prom.Listen != "" || o.Prom.Textfile != "":
		return usageErr(finding.T("--host: --prometheus-listen and --prometheus-textfile are not available for a remote host yet", "--host：远端主机暂不支持 --prometheus-listen 与 --prometheus-textfile"))
	}
	hosts, err := o.Remote.hostList()
	if err != nil {
		return err
	}
	dir, err := multiOut(o.Out)
	if err != nil {
		return err
	}
	var appArgs []string
	if o.PID != 0 {
		appArgs = append(appArgs, "--pid", strconv.Itoa(o.PID))
	}
	if o.JVM != "" {
		appArgs = append(appArgs, "--jvm", o.JVM)
	}
	if len(appArgs) > 0 && dumps > 0 {
		appArgs = append(appArgs, "--thread-dumps", strconv.Itoa(dumps))
	}
	note := func(finding.Text) {}
	if o.Output == "text" {
		note = func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(lang)) }
	}
	var sum *loadgen.Summary
	var loadErr error
	during := func(ctx context.Context) error {
		if o.WarmUp > 0 {
			note(finding.Tf(finding.T("warming up for %s", "预热 %s"), o.WarmUp))
			w := cfg
			w.Duration, w.OnSecond = o.WarmUp, nil
			if _, err := loadgen.Run(ctx, w); err != nil {
				loadErr = fmt.Errorf("warm-up: %w", err)
				return nil
			}
		}
		note(finding.Tf(finding.T("loading %s for %s", "对 %s 施加负载 %s"), finding.SafeLine(o.Target), o.Duration))
		sum, loadErr = loadgen.Run(ctx, cfg)
		return nil
	}
	// Each recorder covers the lead, the warm-up, the load and two ticks.
	recDur := recordLead + o.WarmUp + o.Duration + 2*o.Interval + time.Second
	m, err := recordOnHosts(ctx, env, &o.Remote, hostsPlan{Dir: dir, Hosts: hosts, Duration: recDur, Interval: o.Interval,
		AppArgs: appArgs, During: during, Note: note})
	if err != nil && m == nil {
		return err
	}
	if sum != nil {
		if werr := run.WriteJSONAtomic(filepath.Join(dir, verdict.LoadFile), sum); werr != nil && err == nil {
			err = werr
		}
		// The app host's folder is then a whole run folder (analyze it alone).
		if i := multihost.App(hosts); i >= 0 {
			app := multihost.Dir(dir, hosts[i].Name)
			if _, serr := os.Stat(filepath.Join(app, run.ManifestFile)); serr == nil {
				run.WriteJSONAtomic(filepath.Join(app, verdict.LoadFile), sum)
			}
		}
	}
	if loadErr != nil && sum == nil {
		return finding.Errorf(finding.T("the load: %v (the hosts' recordings are kept in %s)", "负载：%v（各主机的记录保存在 %s）"), loadErr, finding.SafeLine(dir))
	}
	return reportHosts(ctx, env, dir, sum, o.Output, lang, failOn)
}

// runRecordHosts is `record --host A --host B` (or --hosts): every host
// records for --duration at once, clocks aligned, into one folder.
func runRecordHosts(ctx context.Context, env *Env, o *RecordOptions, lang finding.Lang, failOn *finding.Severity) error {
	if o.Duration <= 0 {
		return usageErr(finding.T("--host needs --duration: the remote recorder must end by itself if the connection is lost", "--host 需要 --duration：连接中断时远端记录必须能自行结束"))
	}
	if o.Prom.Listen != "" || o.Prom.Textfile != "" {
		return usageErr(finding.T("--host: --prometheus-listen and --prometheus-textfile are not available for a remote host yet", "--host：远端主机暂不支持 --prometheus-listen 与 --prometheus-textfile"))
	}
	hosts, err := o.Remote.hostList()
	if err != nil {
		return err
	}
	dir, err := multiOut(o.Out)
	if err != nil {
		return err
	}
	var appArgs []string
	if o.PID != 0 {
		appArgs = append(appArgs, "--pid", strconv.Itoa(o.PID))
	}
	if o.JVM != "" {
		appArgs = append(appArgs, "--jvm", o.JVM)
	}
	if o.ThreadDumps > 0 {
		appArgs = append(appArgs, "--thread-dumps", strconv.Itoa(o.ThreadDumps))
	}
	note := func(finding.Text) {}
	if o.Output == "text" {
		note = func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(lang)) }
	}
	if _, err := recordOnHosts(ctx, env, &o.Remote, hostsPlan{Dir: dir, Hosts: hosts, Duration: o.Duration, Interval: o.Interval,
		AppArgs: appArgs, Enable: o.Enable, Disable: o.Disable, Note: note}); err != nil {
		return err
	}
	return reportHosts(ctx, env, dir, nil, o.Output, lang, failOn)
}

// reportHosts loads the multi-host folder, writes its reports (the run
// page of the app host with every host's section) and prints the summary;
// a lost host makes the exit status 1 after the report.
func reportHosts(ctx context.Context, env *Env, dir string, sum *loadgen.Summary, output string, lang finding.Lang, failOn *finding.Severity) error {
	if ctx.Err() != nil {
		// Interrupted during the run: what arrived is still reported (as a
		// single-host run does); a second Ctrl-C ends the process (main).
		ctx = context.WithoutCancel(ctx)
	}
	mr, err := multihost.LoadContext(ctx, dir, sum)
	if err != nil {
		return err
	}
	main := mr.App
	if main == nil {
		for _, h := range mr.Hosts {
			if h.Layers != nil {
				main = h
				break
			}
		}
	}
	var all []finding.Finding
	if main != nil {
		page := report.NewRunPage(main.Layers, main.Decision, lang)
		page.Hosts = report.NewHosts(mr, lang)
		// The run is the folder here, not the app host's record folder.
		page.Title = "tuneloop run " + filepath.Base(dir)
		if sum != nil && sum.Target != "" {
			page.Title += " @ " + sum.Target
		}
		page.Title += " · " + hostNames(mr)
		page.Folder = dir
		if mr.Cross != nil {
			page.Run.Findings = append([]finding.Finding{*mr.Cross}, page.Run.Findings...)
		}
		if err := writeRunReports(dir, page); err != nil {
			return err
		}
		if err := writeRunReport(env.Stdout, page, output); err != nil {
			return err
		}
		for _, h := range mr.Hosts {
			if h.Decision != nil {
				all = append(all, h.Decision.Findings...)
			}
		}
	}
	// What was lost, said per host in each language.
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
	if lost.EN != "" || main == nil {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("lost during the run, the report covers what arrived (%s):%s",
			"运行中丢失，报告只包含已收到的内容（%s）：%s"), finding.SafeLine(dir), lost)}
	}
	if failOn != nil {
		if worst, any := finding.Worst(all); any && worst >= *failOn {
			return &ExitError{Code: ExitFindings}
		}
	}
	return nil
}

// hostNames lists the hosts with their roles: "app1 (app), db1 (db)".
func hostNames(r *multihost.Run) string {
	var b strings.Builder
	for i, h := range r.Hosts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(h.Entry.Name + " (" + h.Entry.Role + ")")
	}
	return b.String()
}
