package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmeter"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/multihost"
	"github.com/tuneloop/tuneloop/internal/remote"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

// sshEngine is a jmeter-server engine tuneloop starts on a --host host for
// the run (`tuneloop jmeter-serve` there, over SSH): it lives as long as
// the SSH session, which ends with the run or with tuneloop.
type sshEngine struct {
	spec   jmeter.RemoteSpec
	host   multihost.Host
	addr   string // host:port the controller reaches (-R)
	client *remote.Client
	served *remote.Served
	probe  *remote.ClockProbe
	watch  *jmeter.EngineWatch
	before *multihost.Clock
	lines  chan struct{} // closed when its output has ended
	err    error
}

// JMeterDir is where a multi-host run keeps the controller's plan copy,
// JTL and logs.
const JMeterDir = "jmeter"

// runJMeterHosts is `run --engine jmeter --host ...`: every engine of
// --jmeter-remote on a --host host is started there over SSH (the others
// are running already), every host records as with `run --host`, and
// JMeter's controller here drives the engines; the engines' samples are
// moved onto this host's clock, their CPU and connections kept per engine.
func runJMeterHosts(ctx context.Context, env *Env, o *RunOptions, ec engineChoice, jm *session.JMeterLoad, lang finding.Lang, failOn *finding.Severity) error {
	switch {
	case o.Start != "":
		return usageErr(finding.T("--host: --start starts a service here; start it on its host and give --jvm auto or --pid", "--host：--start 在本机启动服务；请在其主机上启动，并用 --jvm auto 或 --pid"))
	case o.Prom.Listen != "" || o.Prom.Textfile != "":
		return usageErr(finding.T("--host: --prometheus-listen and --prometheus-textfile are not available for a remote host yet", "--host：远端主机暂不支持 --prometheus-listen 与 --prometheus-textfile"))
	}
	hosts, err := o.Remote.hostList()
	if err != nil {
		return err
	}
	var specs []jmeter.RemoteSpec
	if o.Engine.Remote != "" {
		if specs, err = jmeter.ParseRemoteSpecs(o.Engine.Remote); err != nil {
			return usageErr(finding.T("%v", "%v"), err)
		}
	}
	var engines []*sshEngine
	var running []string
	for _, sp := range specs {
		if h, ok := engineHost(hosts, sp.Host); ok {
			engines = append(engines, &sshEngine{spec: sp, host: h, watch: &jmeter.EngineWatch{}, lines: make(chan struct{})})
		} else {
			running = append(running, sp.Addr)
		}
	}
	dir, err := multiOut(o.Out)
	if err != nil {
		return err
	}
	note := func(finding.Text) {}
	if o.Output == "text" {
		note = func(t finding.Text) { fmt.Fprintf(env.Stderr, "tuneloop: %s\n", t.In(lang)) }
	}
	if multihost.App(hosts) < 0 {
		note(finding.T("no app host (--host app=...): the load is kept in load.json, but no host's verdict weighs it, the engines' included",
			"没有 app 主机（--host app=...）：负载保存在 load.json 中，但没有主机的结论会参考它，包括对引擎的判断"))
	}
	// RMI over SSL needs a keystore on every host: engines tuneloop
	// starts run without, as does the controller then, unless the
	// plan's properties say otherwise.
	props := append([]string(nil), jm.Props...)
	if len(engines) > 0 && !hasProp(props, "server.rmi.ssl.disable") {
		props = append(props, "server.rmi.ssl.disable=true")
	}
	limit := o.WarmUp + o.Duration + jmeterStartTimeout + 5*time.Minute
	defer stopSSHEngines(engines)
	if err := startSSHEngines(ctx, env, o, engines, props, limit, note); err != nil {
		return err
	}
	watch := map[string]*jmeter.EngineWatch{}
	var addrs []string
	for _, e := range engines {
		addrs = append(addrs, e.addr)
		watch[e.addr] = e.watch
	}
	addrs = append(addrs, running...)

	// The controller here, started before the recorders: its JVM and the
	// engines' handshake take seconds; the recorders then cover the lead,
	// the warm-up and the window, as for the built-in generator.
	jdir := filepath.Join(dir, JMeterDir)
	b, err := os.ReadFile(jm.Plan)
	if err != nil {
		return usageErr(finding.T("--jmx: %v", "--jmx：%v"), err)
	}
	rp := jmeter.RunPlan{Users: jm.Users, Seconds: int(limit / time.Second), Rate: jm.Rate}
	if len(addrs) > 0 {
		rp.Rate /= float64(len(addrs)) // each engine runs the whole plan
	} else if abs, err := filepath.Abs(jm.Plan); err == nil {
		rp.BaseDir = filepath.Dir(abs)
	}
	planCopy, _, err := jmeter.ForRun(b, rp)
	if err != nil {
		return usageErr(finding.T("--jmx %s: %v", "--jmx %s：%v"), jm.Plan, err)
	}
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(jdir, "plan.jmx"), planCopy, 0o644); err != nil {
		return err
	}
	wd, err := launch.StartWatchdog(launch.JournalDir(env.Getenv))
	if err != nil {
		note(finding.Tf(finding.T("no watchdog: %v (a kill of tuneloop would leave JMeter running)", "没有看护进程：%v（杀死 tuneloop 会让 JMeter 继续运行）"), err))
	}
	defer wd.Done()
	eng, err := jmeter.Start(jmeter.Options{Install: ec.Install, Plan: filepath.Join(jdir, "plan.jmx"), Dir: jdir, Props: props, Remote: addrs})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	wd.Note(launch.Entry{Op: launch.OpEngine, PGID: eng.PID(), GraceMS: 2000, Started: launch.ProcStart(eng.PID())})
	defer func() {
		eng.Kill()
		wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: eng.PID()})
	}()
	note(finding.Tf(finding.T("JMeter started (pid %d) as the controller of %d engines", "JMeter 已启动（pid %d），作为 %d 个引擎的控制端"), eng.PID(), len(addrs)))
	if err := eng.WaitFirst(ctx, jmeterStartTimeout); err != nil {
		return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("%v\n(JMeter's files are kept in %s)", "%v\n（JMeter 的文件保留在 %s）"), err, jdir)}
	}
	// The controller's RMI ports: the engines' calls back are not load.
	if ports := jmeter.ListenPorts("/proc", eng.PID()); len(ports) > 0 {
		line := "skip"
		for _, p := range ports {
			line += " " + strconv.Itoa(p)
		}
		for _, e := range engines {
			e.served.Send(line)
		}
	}

	var sum *loadgen.Summary
	var loadErr error
	during := func(ctx context.Context) error {
		if o.WarmUp > 0 {
			note(finding.Tf(finding.T("warming up for %s", "预热 %s"), o.WarmUp))
			select {
			case <-ctx.Done():
			case <-eng.Done():
			case <-time.After(o.WarmUp):
			}
		}
		note(finding.Tf(finding.T("loading for %s (JMeter, %d engines)", "施加负载 %s（JMeter，%d 个引擎）"), o.Duration, len(addrs)))
		target := o.Target
		if target == "" {
			target = jm.Plan
		}
		sum, loadErr = eng.Measure(ctx, jmeter.MeasureOptions{From: time.Now(), Duration: o.Duration, Target: target, Watch: watch})
		wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: eng.PID()})
		return nil
	}
	recDur := recordLead + o.WarmUp + o.Duration + 2*o.Interval + time.Second
	var appArgs []string
	if o.PID != 0 {
		appArgs = append(appArgs, "--pid", strconv.Itoa(o.PID))
	}
	if o.JVM != "" {
		appArgs = append(appArgs, "--jvm", o.JVM)
	}
	m, err := recordOnHosts(ctx, env, &o.Remote, hostsPlan{Dir: dir, Hosts: hosts, Duration: recDur, Interval: o.Interval,
		AppArgs: appArgs, During: during, Note: note})
	if err != nil && m == nil {
		return err
	}
	// The clocks again: the offset's bound takes the drift over the run.
	clockAfter(ctx, engines, sum, note)
	if sum != nil {
		if werr := run.WriteJSONAtomic(filepath.Join(dir, verdict.LoadFile), sum); werr != nil && err == nil {
			err = werr
		}
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

// engineHost is the --host entry an engine's host names: its name, or
// the host of its address.
func engineHost(hosts []multihost.Host, host string) (multihost.Host, bool) {
	for _, h := range hosts {
		if h.Name == host {
			return h, true
		}
	}
	for _, h := range hosts {
		if t, err := remote.ParseTarget(h.Address); err == nil && t.Host == host {
			return h, true
		}
	}
	return multihost.Host{}, false
}

func hasProp(props []string, name string) bool {
	for _, kv := range props {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == name {
			return true
		}
	}
	return false
}

// startSSHEngines connects to each engine's host, measures its clock,
// starts the engine there and waits until it serves (all at once).
func startSSHEngines(ctx context.Context, env *Env, o *RunOptions, engines []*sshEngine, props []string, limit time.Duration, note func(finding.Text)) error {
	var wg sync.WaitGroup
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.err = startSSHEngine(ctx, env, o, e, props, limit)
		}()
	}
	wg.Wait()
	for _, e := range engines {
		if e.err != nil {
			return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("JMeter engine %s on host %s: %v", "主机 %[2]s 上的 JMeter 引擎 %[1]s：%[3]v"),
				e.spec.Addr, finding.SafeLine(e.host.Name), e.err)}
		}
		if e.before != nil {
			note(finding.Tf(finding.T("engine %s (pid %d there) serves; its clock offset %s ±%s", "引擎 %s（该主机上的 pid %d）已就绪；其时钟偏差 %s ±%s"), e.addr, e.watch.PID,
				report.ClockMS(ms(e.watch.Offset), true), report.ClockMS(ms(e.watch.Bound), false)))
		} else {
			note(finding.Tf(finding.T("engine %s (pid %d there) serves; its clock not measured: its samples keep its host's times", "引擎 %s（该主机上的 pid %d）已就绪；未能测量其时钟：其样本保留该主机的时间"),
				e.addr, e.watch.PID))
		}
	}
	return nil
}

func startSSHEngine(ctx context.Context, env *Env, o *RunOptions, e *sshEngine, props []string, limit time.Duration) error {
	c, bin, err := o.Remote.connectTo(ctx, env, e.host.Address)
	if err != nil {
		return err
	}
	e.client = c
	_, port, _ := net.SplitHostPort(e.spec.Addr)
	e.addr = net.JoinHostPort(c.Target.Host, port)
	if pr, err := c.StartClock(ctx, bin, limit); err == nil {
		e.probe = pr
		if e.before = measureClock(ctx, pr); e.before != nil {
			e.watch.Offset, e.watch.Bound = time.Duration(e.before.OffsetNS), time.Duration(e.before.BoundNS)
		}
	}
	args := []string{jmeterServeCommand, "--port", port, "--hostname", c.Target.Host}
	if e.spec.Home != "" {
		args = append(args, "--jmeter", e.spec.Home)
	}
	for _, kv := range props {
		args = append(args, "-J", kv)
	}
	if e.served, err = c.StartServed(ctx, bin, args, limit); err != nil {
		return err
	}
	timeout := time.NewTimer(jmeterStartTimeout)
	defer timeout.Stop()
	for {
		select {
		case line, ok := <-e.served.Lines:
			if !ok {
				return finding.Errorf(finding.T("it ended before it served (%v)", "它在就绪前就结束了（%v）"), e.served.Close(5*time.Second))
			}
			l, err := jmeter.ParseServeLine(line)
			if err != nil {
				continue // not ours (a login banner)
			}
			switch l.Kind {
			case "error":
				return finding.Errorf(finding.T("jmeter-server did not start there: %s", "jmeter-server 未能在该主机启动：%s"), finding.SafeLine(l.Text))
			case "ready":
				e.watch.PID, e.watch.Cores = l.PID, l.Cores
				go func() {
					defer close(e.lines)
					for line := range e.served.Lines {
						if l, err := jmeter.ParseServeLine(line); err == nil {
							e.watch.Add(l, time.Now())
						}
					}
				}()
				return nil
			}
		case <-timeout.C:
			return finding.Errorf(finding.T("jmeter-server did not serve within %s", "jmeter-server 在 %s 内未就绪"), jmeterStartTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// clockAfter measures each engine's clock again: the offset's bound
// widens by half the drift over the run (as multihost.Entry.Offset).
func clockAfter(ctx context.Context, engines []*sshEngine, sum *loadgen.Summary, note func(finding.Text)) {
	for _, e := range engines {
		if e.probe == nil || e.before == nil {
			continue
		}
		after := measureClock(ctx, e.probe)
		if after == nil {
			continue
		}
		drift := time.Duration(after.OffsetNS - e.before.OffsetNS)
		bound := time.Duration(max(after.BoundNS, e.before.BoundNS)) + absDur(drift)/2
		note(finding.Tf(finding.T("engine %s: clock drift over the run %s", "引擎 %s：运行期间时钟漂移 %s"), e.addr, report.ClockMS(ms(drift), true)))
		if sum == nil {
			continue
		}
		for i := range sum.Engines {
			if sum.Engines[i].Name == e.addr {
				sum.Engines[i].ClockBoundMS = ms(bound)
			}
		}
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// stopSSHEngines ends every engine's session: its keeper stops
// jmeter-server there when its input ends.
func stopSSHEngines(engines []*sshEngine) {
	var wg sync.WaitGroup
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e.served != nil {
				e.served.Close(15 * time.Second)
			}
			if e.probe != nil {
				e.probe.Close()
			}
			if e.client != nil {
				e.client.Close()
			}
		}()
	}
	wg.Wait()
}
