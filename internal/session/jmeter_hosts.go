package session

import (
	"context"
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

// JMeterServeCommand is the hidden command that keeps a jmeter-server
// engine on its host for a run (started there over SSH).
const JMeterServeCommand = "jmeter-serve"

// jmeterStartTimeout bounds JMeter's start (its JVM, the engines' handshake).
const jmeterStartTimeout = 2 * time.Minute

// jmeterHosts is `run --engine jmeter --host ...`: every engine on a
// --host host is started there over SSH (the others are running already),
// every host records as with `run --host`, and JMeter's controller here
// drives the engines; the engines' samples are moved onto this host's
// clock, their CPU and connections kept per engine.
func jmeterHosts(ctx context.Context, o HostsOptions, dir string) (*HostsResult, error) {
	jm := o.JMeter
	hosts := o.Hosts
	note := o.Note
	var engines []*sshEngine
	var running []string
	for _, sp := range jm.Engines {
		if h, ok := engineHost(hosts, sp.Host); ok {
			engines = append(engines, &sshEngine{spec: sp, host: h, watch: &jmeter.EngineWatch{}, lines: make(chan struct{})})
		} else {
			running = append(running, sp.Addr)
		}
	}
	if multihost.App(hosts) < 0 {
		note(finding.T("no app host (--host app=...): the load is kept in load.json and an engine that limited it is named, but no host's verdict weighs it",
			"没有 app 主机（--host app=...）：负载保存在 load.json 中，限制了负载的引擎会被指出，但没有主机的结论会参考它"))
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
	if err := startSSHEngines(ctx, o.Conn, engines, props, limit, note); err != nil {
		return nil, err
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
	planCopy, _, err := jm.planCopy(int(limit/time.Second), len(addrs))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(jdir, "plan.jmx"), planCopy, 0o644); err != nil {
		return nil, err
	}
	getenv := o.Conn.Options.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	wd, err := launch.StartWatchdog(launch.JournalDir(getenv))
	if err != nil {
		note(finding.Tf(finding.T("no watchdog: %v (a kill of tuneloop would leave JMeter running)", "没有看护进程：%v（杀死 tuneloop 会让 JMeter 继续运行）"), err))
	}
	defer wd.Done()
	eng, err := jmeter.Start(jmeter.Options{Install: jm.Install, Plan: filepath.Join(jdir, "plan.jmx"), Dir: jdir, Props: props, Remote: addrs})
	if err != nil {
		return nil, err
	}
	wd.Note(launch.Entry{Op: launch.OpEngine, PGID: eng.PID(), GraceMS: 2000, Started: launch.ProcStart(eng.PID())})
	defer func() {
		eng.Kill()
		wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: eng.PID()})
	}()
	note(finding.Tf(finding.T("JMeter started (pid %d) as the controller of %d engines", "JMeter 已启动（pid %d），作为 %d 个引擎的控制端"), eng.PID(), len(addrs)))
	if err := eng.WaitFirst(ctx, jmeterStartTimeout); err != nil {
		return nil, finding.Errorf(finding.T("%v\n(JMeter's files are kept in %s)", "%v\n（JMeter 的文件保留在 %s）"), err, jdir)
	}
	skipControllerPorts(eng.PID(), engines)

	load := func(ctx context.Context) (*loadgen.Summary, error) {
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
		defer wd.Note(launch.Entry{Op: launch.OpEngineOff, PGID: eng.PID()})
		return eng.Measure(ctx, jmeter.MeasureOptions{From: time.Now(), Duration: o.Duration, Target: target, Watch: watch, RampUp: jm.rampUp()})
	}
	// The clocks again: the offset's bound takes the drift over the run.
	return recordHosts(ctx, o, dir, load, func(sum *loadgen.Summary) { clockAfter(ctx, engines, sum, note) })
}

// skipControllerPorts tells each engine the controller's RMI ports: the
// engines' calls back are not load.
func skipControllerPorts(pid int, engines []*sshEngine) {
	ports := jmeter.ListenPorts("/proc", pid)
	if len(ports) == 0 {
		return
	}
	line := "skip"
	for _, p := range ports {
		line += " " + strconv.Itoa(p)
	}
	for _, e := range engines {
		e.served.Send(line)
	}
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
func startSSHEngines(ctx context.Context, conn multihost.Conn, engines []*sshEngine, props []string, limit time.Duration, note func(finding.Text)) error {
	var wg sync.WaitGroup
	for _, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.err = startSSHEngine(ctx, conn, e, props, limit)
		}()
	}
	wg.Wait()
	for _, e := range engines {
		if e.err != nil {
			return finding.Errorf(finding.T("JMeter engine %s on host %s: %v", "主机 %[2]s 上的 JMeter 引擎 %[1]s：%[3]v"),
				e.spec.Addr, finding.SafeLine(e.host.Name), e.err)
		}
		if e.before != nil {
			note(finding.Tf(finding.T("engine %s (pid %d there) serves; its clock offset %s ±%s", "引擎 %s（该主机上的 pid %d）已就绪；其时钟偏差 %s ±%s"), e.addr, e.watch.PID,
				multihost.ClockMS(msOf(e.watch.Offset), true), multihost.ClockMS(msOf(e.watch.Bound), false)))
		} else {
			note(finding.Tf(finding.T("engine %s (pid %d there) serves; its clock not measured: its samples keep its host's times", "引擎 %s（该主机上的 pid %d）已就绪；未能测量其时钟：其样本保留该主机的时间"),
				e.addr, e.watch.PID))
		}
	}
	return nil
}

func startSSHEngine(ctx context.Context, conn multihost.Conn, e *sshEngine, props []string, limit time.Duration) error {
	c, bin, err := remote.Connect(ctx, e.host.Address, conn.Options, conn.Exe)
	if err != nil {
		return err
	}
	e.client = c
	_, port, _ := net.SplitHostPort(e.spec.Addr)
	e.addr = net.JoinHostPort(c.Target.Host, port)
	if pr, err := c.StartClock(ctx, bin, limit); err == nil {
		e.probe = pr
		if e.before = multihost.MeasureClock(ctx, pr); e.before != nil {
			e.watch.Offset, e.watch.Bound = time.Duration(e.before.OffsetNS), time.Duration(e.before.BoundNS)
		}
	}
	args := []string{JMeterServeCommand, "--port", port, "--hostname", c.Target.Host}
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
		after := multihost.MeasureClock(ctx, e.probe)
		if after == nil {
			continue
		}
		drift := time.Duration(after.OffsetNS - e.before.OffsetNS)
		bound := time.Duration(max(after.BoundNS, e.before.BoundNS)) + absDur(drift)/2
		note(finding.Tf(finding.T("engine %s: clock drift over the run %s", "引擎 %s：运行期间时钟漂移 %s"), e.addr, multihost.ClockMS(msOf(drift), true)))
		if sum == nil {
			continue
		}
		for i := range sum.Engines {
			if sum.Engines[i].Name == e.addr {
				sum.Engines[i].ClockBoundMS = msOf(bound)
			}
		}
	}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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
