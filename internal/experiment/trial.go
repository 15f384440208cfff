package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
	"github.com/tuneloop/tuneloop/internal/stats"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// TrialSpec is one trial to run.
type TrialSpec struct {
	Key     string
	Arm     Arm
	Dir     string // the run folder (not yet created)
	Overlay Overlay
	Host    []finding.Change
}

// Runner runs one trial; note writes a record to the trial log (durably)
// before the step it announces goes on.
type Runner interface {
	Trial(ctx context.Context, t TrialSpec, note func(Record) error) (Measurement, error)
}

// RefusedError is a trial that could not measure its arm (a knob that did
// not take effect, a host key that cannot be set, a service that would not
// start with it): the arm is out, the experiment goes on.
type RefusedError struct{ Text finding.Text }

func (e *RefusedError) Error() string { return e.Text.EN }

// Localize is the message in l.
func (e *RefusedError) Localize(l finding.Lang) string { return e.Text.In(l) }

func refused(t finding.Text, args ...any) error {
	return &RefusedError{Text: finding.Tf(t, args...)}
}

// HostRunner runs trials on this host: host knobs through the apply
// journal, the service started with the arm's overlay, the load and
// recording by session.LoadAndRecord.
type HostRunner struct {
	Plan    *Plan
	Roots   hostfs.FS // where host knobs are written (hostfs.Live() but in tests)
	Journal *apply.Journal
	// Owner marks this experiment's transactions in the journal
	// ("experiment:" + its folder), so a resume finds those a kill left open.
	Owner     string
	Catalog   string
	NoCatalog bool
	Getenv    func(string) string
	Argv      []string
	Note      func(finding.Text)
}

func (h *HostRunner) note(t finding.Text, args ...any) {
	if h.Note != nil {
		h.Note(finding.Tf(t, args...))
	}
}

// Trial applies, starts, checks, measures, stops and reverts; the stop and
// the revert happen on every path, Ctrl-C included.
func (h *HostRunner) Trial(ctx context.Context, t TrialSpec, note func(Record) error) (m Measurement, err error) {
	p := h.Plan
	if len(t.Host) > 0 {
		tx, err := h.applyHost(t, note)
		if err != nil {
			return m, err
		}
		if tx != "" {
			defer func() {
				if rerr := h.revert(tx, note); rerr != nil && err == nil {
					err = rerr
				}
			}()
		}
	}
	getenv := h.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	pid := p.Service.PID
	if p.Service.Start != "" {
		var done func(*error)
		if pid, done, err = h.startService(ctx, &t, getenv); err != nil {
			return m, err
		}
		defer done(&err)
	}
	cfg := loadgen.Config{Requests: []loadgen.Request{{URL: p.Service.Target}}, Users: p.Load.Users, Rate: p.Load.Rate,
		Duration: p.Load.Duration, Timeout: p.Load.Timeout}
	res, err := session.LoadAndRecord(ctx, session.RunOptions{Target: p.Service.Target, Load: cfg, WarmUp: p.Load.WarmUp, Interval: time.Second,
		PID: pid, Out: t.Dir, Catalog: h.Catalog, NoCatalog: h.NoCatalog, Getenv: h.Getenv, NoJFR: true, Argv: h.Argv,
		StartTimeout: p.Service.StartTimeout, Detail: report.NewLoadRecorder()},
		session.RunHooks{Note: func(msg finding.Text) { h.note(finding.T("  %s", "  %s"), msg) }})
	if err != nil {
		return m, err
	}
	if ctx.Err() != nil {
		// The run ends a Ctrl-C'd load as an interrupted run: not a
		// measurement of the arm.
		return m, ctx.Err()
	}
	if res.Service != nil {
		return m, refused(finding.T("during the trial, %s", "试验期间，%s"), session.ServiceEndText(res.Service))
	}
	if res.Load == nil {
		return m, errors.New("the run measured no load")
	}
	m = measurementOf(res.Load)
	m.Dir = t.Dir
	return m, nil
}

// startService starts the service with the trial's overlay (configuration
// copies, a CPU and memory binding, limits checked on the started process,
// JVM flags checked back), told to the watchdog, and waits until it
// answers; pid is its JVM. done stops it and checks the originals of the
// copies, last step first; on an error it has run already.
func (h *HostRunner) startService(ctx context.Context, t *TrialSpec, getenv func(string) string) (pid int, done func(*error), err error) {
	p := h.Plan
	var undo []func(*error)
	stop := func(e *error) {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i](e)
		}
	}
	defer func() {
		if err != nil {
			stop(&err)
		}
	}()
	if err := os.MkdirAll(filepath.Dir(t.Dir), 0o755); err != nil {
		return 0, nil, err
	}
	// Configuration files: copies in the trial's folder, the service
	// pointed at them by a property (checked back like any property).
	var copies []ConfigCopy
	if len(t.Overlay.Configs) > 0 {
		if copies, err = copyConfigs(t.Overlay.Configs, t.Dir+".config"); err != nil {
			return 0, nil, refused(finding.T("%s: %v", "%s：%v"), t.Arm.Label, err)
		}
		jvm := append([]string(nil), t.Overlay.JVM...)
		for _, c := range copies {
			jvm = append(jvm, "-D"+c.Prop+"="+c.Copy)
			h.note(finding.T("  %s: a copy of %s (the original is only read)", "  %s：%s 的副本（原文件只读取）"), c.Copy, c.Src)
		}
		t.Overlay.JVM = jvm
		undo = append(undo, func(e *error) {
			if cerr := checkOriginals(copies); cerr != nil && *e == nil {
				*e = refused(finding.T("%s: %v", "%s：%v"), t.Arm.Label, cerr)
			}
		})
	}
	var bind *Binding
	numactl := ""
	if t.Overlay.Binding != "" {
		b, err := resolveBinding(t.Overlay.Binding, "/sys")
		if err != nil {
			return 0, nil, refused(finding.T("%s: %v", "%s：%v"), t.Arm.Label, err)
		}
		if b.Node >= 0 {
			if numactl = findNumactl(); numactl == "" {
				return 0, nil, refused(finding.T("%s: binding %s binds memory too, which only numactl can set for a process it starts, and numactl is not installed: install it, or give the node's CPUs (%s) to bind CPUs only",
					"%s：绑定 %s 同时绑定内存，这只能由 numactl 为其启动的进程设置，而本机未安装 numactl：请安装，或只给出该节点的 CPU（%s）以仅绑定 CPU"), t.Arm.Label, b.Value, sysinfo.FormatCPUList(b.CPUs))
			}
		}
		bind = &b
	}
	command := t.Overlay.Command(p.Service.Start, getenv)
	if t.Overlay.gated() {
		command = gateCommand(command, bind, numactl)
	}
	svc, err := launch.Start(command, t.Dir+".service.log")
	if err != nil {
		return 0, nil, err
	}
	svc.StopTimeout = p.Service.StopTimeout
	// Our own watchdog stops the service should tuneloop be killed.
	wd, werr := launch.StartWatchdog(launch.JournalDir(getenv))
	if werr == nil {
		grace := p.Service.StopTimeout
		if grace <= 0 {
			grace = launch.DefaultStopTimeout
		}
		wd.Note(launch.Entry{Op: launch.OpService, PGID: svc.Cmd.Process.Pid, GraceMS: grace.Milliseconds(), Started: launch.ProcStart(svc.Cmd.Process.Pid)})
	}
	undo = append(undo, func(*error) {
		svc.Stop()
		if werr == nil {
			wd.Done()
		}
		if _, serr := os.Stat(filepath.Join(t.Dir, "raw")); serr == nil {
			_ = os.Rename(svc.LogPath, filepath.Join(t.Dir, "raw", "service.log"))
			if len(copies) > 0 {
				_ = os.Rename(t.Dir+".config", filepath.Join(t.Dir, "config"))
			}
		}
	})
	if t.Overlay.gated() {
		if err := openGate(svc.Cmd.Process.Pid, t.Overlay.Limits, bind); err != nil {
			_ = syscall.Kill(svc.Cmd.Process.Pid, syscall.SIGKILL) // never run without what the arm asked for
			return 0, nil, refused(finding.T("%s: %v", "%s：%v"), t.Arm.Label, err)
		}
	}
	if err := launch.WaitReady(ctx, p.Service.Target, p.Service.StartTimeout, svc); err != nil {
		if ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		return 0, nil, refused(finding.T("the service did not start with %s: %v; its log ends with:\n%s", "服务在 %s 下未能启动：%v；其日志结尾：\n%s"),
			t.Arm.Label, err, finding.Safe(strings.Join(svc.LogLines(8), "\n")))
	}
	live := hostfs.Live()
	pid = launch.FindJVM(live, svc.Cmd.Process.Pid)
	if t.Overlay.gated() {
		vpid := pid
		if vpid == 0 {
			vpid = svc.Cmd.Process.Pid
		}
		seen, bads := checkLaunch(live.Proc, vpid, t.Overlay.Limits, bind)
		h.note(finding.T("  pid %d runs with %s", "  pid %d 实际为 %s"), vpid, strings.Join(seen, "; "))
		if len(bads) > 0 {
			msg := bads[0]
			for _, b := range bads[1:] {
				msg = finding.Tf(finding.T("%s; %s", "%s；%s"), msg, b)
			}
			return 0, nil, &RefusedError{Text: msg}
		}
	}
	if len(t.Overlay.JVM) > 0 {
		if pid == 0 {
			pid = svc.WaitJVM(ctx, live, 5*time.Second)
		}
		if err := h.checkJVM(ctx, pid, *t); err != nil {
			return 0, nil, err
		}
	}
	return pid, stop, nil
}

// measurementOf cuts the load's own warm-up off its per-second series.
func measurementOf(s *loadgen.Summary) Measurement {
	tps, p99 := make([]float64, len(s.Series)), make([]float64, len(s.Series))
	for i, sec := range s.Series {
		tps[i], p99[i] = float64(sec.Requests), sec.P99
	}
	w := stats.SteadyStart(tps, p99)
	m := Measurement{WarmUpS: w, Requests: s.Requests, Errors: s.Errors, TPS: []float64{}, P99MS: []float64{}}
	for i := w; i < len(tps); i++ {
		m.TPS = append(m.TPS, tps[i])
		if tps[i] > 0 {
			m.P99MS = append(m.P99MS, p99[i])
		}
	}
	return m
}

// applyHost applies the arm's host knobs as one transaction, noted in the
// trial log; a key that cannot be set or does not read back refuses the arm.
func (h *HostRunner) applyHost(t TrialSpec, note func(Record) error) (string, error) {
	plan := apply.NewPlan(h.Roots, []apply.Group{{Finding: h.Owner + ":" + t.Key, Changes: t.Host}})
	g := plan.Groups[0]
	if g.Err != nil {
		return "", refused(finding.T("host knobs of %s: %v", "%s 的主机设置：%v"), t.Arm.Label, g.Err)
	}
	if len(g.Steps) == 0 {
		return "", nil // every key holds its value already
	}
	for _, s := range g.Steps {
		h.note(finding.T("  set %s: %s -> %s", "  设置 %s：%s -> %s"), s.Key, finding.SafeLine(s.Before), s.Want)
	}
	res, err := apply.Apply(h.Journal, plan, apply.Options{})
	if res != nil && res.TxID != "" {
		if nerr := note(Record{Op: OpApplied, Key: t.Key, Arm: t.Arm.ID, Tx: res.TxID}); nerr != nil && err == nil {
			err = nerr
		}
	}
	if err != nil {
		if res != nil && res.TxID != "" {
			_ = h.revert(res.TxID, note)
		}
		return "", err
	}
	if gr := res.Groups[0]; gr.Err != nil {
		_ = h.revert(res.TxID, note)
		return "", refused(finding.T("host knobs of %s: %v", "%s 的主机设置：%v"), t.Arm.Label, gr.Err)
	}
	return res.TxID, nil
}

// revert undoes transaction tx and notes it.
func (h *HostRunner) revert(tx string, note func(Record) error) error {
	rr, err := apply.Revert(h.Journal, apply.RevertOptions{TxID: tx})
	if err != nil {
		return fmt.Errorf("revert %s: %w", tx, err)
	}
	if len(rr.Errs) > 0 {
		return fmt.Errorf("revert %s: %w", tx, errors.Join(rr.Errs...))
	}
	for _, r := range rr.Reverted {
		if !r.Already {
			h.note(finding.T("  put back %s: %s", "  恢复 %s：%s"), r.Key.Key, finding.SafeLine(r.To))
		}
	}
	return note(Record{Op: OpReverted, Tx: tx})
}

// RevertLeftOpen reverts the transactions of owner that are still open in
// the journal (a kill between apply and revert), newest first.
func RevertLeftOpen(j *apply.Journal, owner string) ([]string, error) {
	txs, err := apply.Status(j)
	if err != nil {
		return nil, err
	}
	var done []string
	for i := len(txs) - 1; i >= 0; i-- {
		t := txs[i]
		if !t.Open() || len(t.Findings) == 0 || !strings.HasPrefix(t.Findings[0], owner+":") {
			continue
		}
		rr, err := apply.Revert(j, apply.RevertOptions{TxID: t.ID})
		if err != nil {
			return done, err
		}
		if len(rr.Errs) > 0 {
			return done, errors.Join(rr.Errs...)
		}
		done = append(done, t.ID)
	}
	return done, nil
}

// checkJVM reads the running JVM's flags and properties back through the
// attach API and refuses the trial when an option of the overlay did not
// take effect.
func (h *HostRunner) checkJVM(ctx context.Context, pid int, t TrialSpec) error {
	if pid == 0 {
		return refused(finding.T("%s: no JVM found among the processes the start command started, so its options cannot be checked",
			"%s：启动命令启动的进程中没有 JVM，无法核对其选项"), t.Arm.Label)
	}
	ex, unchecked := expectations(t.Overlay.JVM)
	if len(unchecked) > 0 {
		h.note(finding.T("  not checked in the JVM (no flag to read back): %s", "  未在 JVM 中核对（没有可读回的标志）：%s"), strings.Join(unchecked, " "))
	}
	if len(ex) == 0 {
		return nil
	}
	vm, err := attach.AttachContext(ctx, pid, attach.Options{Timeout: 10 * time.Second})
	if err != nil {
		return refused(finding.T("%s: cannot read the JVM's flags back (attach to %d: %v)", "%s：无法读回 JVM 的标志（attach 到 %d：%v）"), t.Arm.Label, pid, err)
	}
	flagsOut, err := vm.Execute(ctx, "VM.flags", "-all")
	if err != nil {
		return refused(finding.T("%s: VM.flags -all: %v", "%s：VM.flags -all：%v"), t.Arm.Label, err)
	}
	props := map[string]string{}
	for _, e := range ex {
		if e.Prop != "" {
			out, err := vm.SystemProperties(ctx)
			if err != nil {
				return refused(finding.T("%s: VM.system_properties: %v", "%s：VM.system_properties：%v"), t.Arm.Label, err)
			}
			props = parseProperties(out)
			break
		}
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	cmdline := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if bad := checkFlags(ex, parseFlagsAll(flagsOut), props, cmdline); len(bad) > 0 {
		msg := bad[0]
		for _, b := range bad[1:] {
			msg = finding.Tf(finding.T("%s; %s", "%s；%s"), msg, b)
		}
		return &RefusedError{Text: msg}
	}
	return nil
}
