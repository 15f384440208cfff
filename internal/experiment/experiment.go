package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// Options say how to run an experiment.
type Options struct {
	Plan   *Plan
	Out    string // the experiment folder: trials.jsonl, trials/NNN-ARM run folders
	Runner Runner
	// LeftOpen reverts what a killed earlier run of this experiment left
	// applied (HostRunner: RevertLeftOpen); nil when there is nothing to do.
	LeftOpen func() ([]string, error)
	Note     func(finding.Text)
	Tool     report.Tool
}

// ErrStopped wraps the context's error when the experiment was interrupted:
// the document says where, a rerun with the same folder continues.
var ErrStopped = errors.New("experiment stopped")

// flow is one run of an experiment over its log.
type flow struct {
	o     Options
	p     *Plan
	arms  []Arm
	log   *TrialLog
	st    resumeState
	seq   int
	doc   *report.Experiment
	drops map[string]bool // "round/arm" already logged
}

func (f *flow) note(t finding.Text, args ...any) {
	if f.o.Note != nil {
		f.o.Note(finding.Tf(t, args...))
	}
}

// Conduct runs (or continues) the experiment in o.Out and returns its
// document; with an interruption the document holds what was measured and
// the error wraps ErrStopped.
func Conduct(ctx context.Context, o Options) (*report.Experiment, error) {
	p := o.Plan
	log, err := OpenLog(o.Out)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	hash := PlanHash(p)
	resumed := false
	for _, r := range log.Recs {
		if r.Op == OpPlan {
			if r.PlanHash != hash {
				return nil, finding.Errorf(finding.T("%s holds an experiment of another plan (hash %s, this plan %s): give another --out",
					"%s 中是另一个计划的实验（哈希 %s，本计划 %s）：请换一个 --out"), o.Out, r.PlanHash, hash)
			}
			resumed = true
			break
		}
	}
	f := &flow{o: o, p: p, arms: Arms(p.Knobs), log: log, drops: map[string]bool{}}
	if log.Torn {
		f.note(finding.T("the trial log's last line was cut short (a crash mid-write): dropped", "试验日志最后一行不完整（写入中途崩溃）：已丢弃"))
	}
	if !resumed {
		if err := log.Add(Record{Op: OpPlan, PlanHash: hash, Seed: p.Seed}); err != nil {
			return nil, err
		}
	} else {
		f.note(finding.T("continuing the experiment in %s", "继续 %s 中的实验"), o.Out)
	}
	for _, r := range log.Recs {
		if r.Op == OpDrop {
			f.drops[r.Key+"/"+r.Arm] = true
		}
	}
	f.st = log.state()
	if o.LeftOpen != nil {
		txs, err := o.LeftOpen()
		if err != nil {
			return nil, fmt.Errorf("reverting what an earlier run left applied: %w", err)
		}
		for _, tx := range txs {
			f.note(finding.T("reverted transaction %s left open by an earlier run", "已撤销上次运行遗留的事务 %s"), tx)
			if err := log.Add(Record{Op: OpReverted, Tx: tx}); err != nil {
				return nil, err
			}
		}
	}
	f.doc = f.newDoc()
	err = f.run(ctx)
	if err == nil {
		f.finish()
	}
	if err != nil {
		if ctx.Err() != nil {
			return f.doc, fmt.Errorf("%w: %w", ErrStopped, ctx.Err())
		}
		return f.doc, err
	}
	return f.doc, nil
}

// run is the search: screening rounds, then the confirmation.
func (f *flow) run(ctx context.Context) error {
	p := f.p
	metric, dir := p.Objective.Metric()
	data := make([]*ArmData, len(f.arms))
	for i := range data {
		data[i] = &ArmData{Arm: i}
	}
	survivors := make([]int, 0, len(f.arms)-1)
	for i := 1; i < len(f.arms); i++ {
		survivors = append(survivors, i)
	}
	halving := len(f.arms) >= p.HalvingFrom
	f.doc.Mode = "grid"
	if halving {
		f.doc.Mode = "successive halving"
	}
	dropRound := map[int]int{}
	dropWhy := map[int]finding.Text{}
	for round := 0; ; round++ {
		reps := p.Repetitions
		if halving {
			reps <<= min(round, 6)
		}
		for b := 0; b < reps; b++ {
			order := Block(p.Seed, fmt.Sprintf("screen/%d/%d", round, b), append([]int{0}, survivors...))
			for _, a := range order {
				key := fmt.Sprintf("screen/%d/%d/%s", round, b, f.arms[a].ID)
				if err := f.trial(ctx, key, f.arms[a], data[a]); err != nil {
					f.fill(data, nil, nil, dropRound, dropWhy)
					return err
				}
				if data[0].Failed != nil {
					// Without the reference nothing else means anything.
					f.fill(data, nil, nil, dropRound, dropWhy)
					return finding.Errorf(finding.T("the baseline cannot be measured: %s", "无法测量基线：%s"), *data[0].Failed)
				}
			}
		}
		if !halving || len(survivors) <= 1 {
			break
		}
		cands := make([]*ArmData, len(survivors))
		for i, a := range survivors {
			cands[i] = data[a]
		}
		keep, drops := Halve(cands, metric, dir, p.Objective.Constraints)
		for _, d := range drops {
			dropRound[d.Arm], dropWhy[d.Arm] = round, d.Reason
			k := fmt.Sprintf("screen/%d", round)
			if !f.drops[k+"/"+f.arms[d.Arm].ID] {
				r := d.Reason
				if err := f.log.Add(Record{Op: OpDrop, Key: k, Arm: f.arms[d.Arm].ID, Reason: &r}); err != nil {
					return err
				}
			}
			f.note(finding.T("round %d: %s (%s) out: %s", "第 %d 轮：淘汰 %s（%s）：%s"), round, f.arms[d.Arm].ID, f.arms[d.Arm].Label, d.Reason)
		}
		sort.Ints(keep)
		survivors = keep
		if len(survivors) <= 1 {
			break
		}
	}
	// The winner: the best candidate left that meets the constraints.
	var winner *ArmData
	cands := make([]*ArmData, 0, len(survivors))
	for _, a := range survivors {
		cands = append(cands, data[a])
	}
	if r := Rank(cands, metric, dir, p.Objective.Constraints); len(r) > 0 && r[0].Violation(p.Objective.Constraints) == nil {
		winner = r[0]
	}
	if winner == nil {
		f.fill(data, nil, nil, dropRound, dropWhy)
		return nil
	}
	f.doc.Winner = f.arms[winner.Arm].ID
	cb, cw := &ArmData{Arm: 0}, &ArmData{Arm: winner.Arm}
	f.note(finding.T("re-measuring %s (%s) against the baseline in a fresh interleaved block", "在新的交错区组中重测 %s（%s）与基线"),
		f.arms[winner.Arm].ID, f.arms[winner.Arm].Label)
	for b := 0; b < p.ConfirmRepetitions; b++ {
		for _, a := range Block(p.Seed, fmt.Sprintf("confirm/%d", b), []int{0, winner.Arm}) {
			d := cb
			if a != 0 {
				d = cw
			}
			if err := f.trial(ctx, fmt.Sprintf("confirm/%d/%s", b, f.arms[a].ID), f.arms[a], d); err != nil {
				f.fill(data, cb, cw, dropRound, dropWhy)
				return err
			}
		}
	}
	f.fill(data, cb, cw, dropRound, dropWhy)
	return nil
}

// trial runs one trial, or takes its result from the log of an earlier run.
func (f *flow) trial(ctx context.Context, key string, arm Arm, d *ArmData) error {
	f.seq++
	seq := f.seq
	dir := filepath.Join(f.o.Out, "trials", fmt.Sprintf("%03d-%s", seq, arm.ID))
	if m, ok := f.st.done[key]; ok {
		d.Trials = append(d.Trials, m)
		f.doc.Trials = append(f.doc.Trials, trialRow(seq, key, arm, m, "done"))
		return nil
	}
	if why, ok := f.st.failed[key]; ok {
		d.Failed = &why
		f.doc.Trials = append(f.doc.Trials, report.ExperimentTrial{Seq: seq, Key: key, Arm: arm.ID, Status: "refused"})
		return nil
	}
	if d.Failed != nil {
		f.doc.Trials = append(f.doc.Trials, report.ExperimentTrial{Seq: seq, Key: key, Arm: arm.ID, Status: "not run"})
		return nil
	}
	// What an interrupted trial left (its folder, its service's log) is
	// kept aside, not measured over.
	for _, p := range []string{dir, dir + ".service.log", dir + ".config"} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		for i := 1; ; i++ {
			aside := fmt.Sprintf("%s.stopped-%d", p, i)
			if _, err := os.Lstat(aside); os.IsNotExist(err) {
				if err := os.Rename(p, aside); err != nil {
					return err
				}
				break
			}
		}
	}
	if err := f.log.Add(Record{Op: OpStart, Key: key, Arm: arm.ID, Dir: dir}); err != nil {
		return err
	}
	f.note(finding.T("trial %d: %s (%s)", "试验 %d：%s（%s）"), seq, arm.ID, arm.Label)
	spec := TrialSpec{Key: key, Arm: arm, Dir: dir, Overlay: overlayOf(f.p.Knobs, arm.Values), Host: hostChanges(f.p.Knobs, arm.Values)}
	m, err := f.o.Runner.Trial(ctx, spec, f.log.Add)
	if err != nil {
		var re *RefusedError
		switch {
		case ctx.Err() != nil:
			why := finding.Tf(finding.T("stopped by the user during trial %d (%s, %s); what it changed was undone; rerun with the same --out to continue",
				"试验 %d（%s，%s）期间被用户停止；它的更改已撤销；用同一个 --out 重新运行即可继续"), seq, key, arm.ID)
			f.doc.Stopped = &why
			_ = f.log.Add(Record{Op: OpStopped, Key: key, Arm: arm.ID, Reason: &why})
			f.doc.Trials = append(f.doc.Trials, report.ExperimentTrial{Seq: seq, Key: key, Arm: arm.ID, Dir: dir, Status: "stopped"})
			return ctx.Err()
		case errors.As(err, &re):
			why := re.Text
			d.Failed = &why
			f.note(finding.T("trial %d refused: %s", "试验 %d 被拒绝：%s"), seq, why)
			f.doc.Trials = append(f.doc.Trials, report.ExperimentTrial{Seq: seq, Key: key, Arm: arm.ID, Dir: dir, Status: "refused"})
			return f.log.Add(Record{Op: OpFailed, Key: key, Arm: arm.ID, Reason: &why})
		default:
			why := finding.Tf(finding.T("trial %d (%s, %s) failed: %v; rerun with the same --out to continue", "试验 %d（%s，%s）失败：%v；用同一个 --out 重新运行即可继续"), seq, key, arm.ID, err)
			f.doc.Stopped = &why
			_ = f.log.Add(Record{Op: OpStopped, Key: key, Arm: arm.ID, Reason: &why})
			return err
		}
	}
	if err := f.log.Add(Record{Op: OpDone, Key: key, Arm: arm.ID, Dir: dir, M: &m}); err != nil {
		return err
	}
	d.Trials = append(d.Trials, m)
	row := trialRow(seq, key, arm, m, "done")
	f.note(finding.T("trial %d: %s %.1f TPS, p99 %.1f ms", "试验 %d：%s %.1f TPS，p99 %.1f ms"), seq, arm.ID, row.TPS, row.P99MS)
	f.doc.Trials = append(f.doc.Trials, row)
	return nil
}

func trialRow(seq int, key string, arm Arm, m Measurement, status string) report.ExperimentTrial {
	d := &ArmData{Trials: []Measurement{m}}
	return report.ExperimentTrial{Seq: seq, Key: key, Arm: arm.ID, Dir: m.Dir, TPS: finite(d.Mean(MetricTPS)), P99MS: finite(d.Mean(MetricP99)), Status: status}
}

// finite is v, or 0 for NaN and infinities (JSON has neither).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// hostChanges are the arm's host knobs as apply changes.
func hostChanges(knobs []Knob, values []string) []finding.Change {
	var out []finding.Change
	for i, k := range knobs {
		if k.Host() && values[i] != "" {
			out = append(out, finding.Change{Kind: k.Kind, Key: k.Key, Value: values[i]})
		}
	}
	return out
}

func (f *flow) newDoc() *report.Experiment {
	p := f.p
	metric, dir := p.Objective.Metric()
	svc := p.Service.Start
	if svc == "" {
		svc = fmt.Sprintf("pid %d", p.Service.PID)
	}
	load := finding.Tf(finding.T("%d users, %s measured after %s warm-up", "%d 个用户，预热 %[3]s 后测量 %[2]s"), p.Load.Users, p.Load.Duration, p.Load.WarmUp)
	if p.Load.Rate > 0 {
		load = finding.Tf(finding.T("%g req/s, %s measured after %s warm-up", "%g 请求/秒，预热 %[3]s 后测量 %[2]s"), p.Load.Rate, p.Load.Duration, p.Load.WarmUp)
	}
	doc := &report.Experiment{Schema: report.ExperimentSchema, Tool: f.o.Tool, Dir: f.o.Out, Service: svc, Target: p.Service.Target, Load: load,
		Repetitions: p.Repetitions, Seed: p.Seed, Metric: metric, Higher: dir, P99BoundMS: p.Objective.Constraints.P99MS,
		ErrorBoundPct: p.Objective.Constraints.ErrorPct, PowerPct: p.PowerPct, Trials: []report.ExperimentTrial{}, Changes: []report.ExperimentChange{},
		Overlay: finding.T("JVM options and system properties through JAVA_TOOL_OPTIONS (read by every JVM 8-25, HotSpot and OpenJ9), exported before the start command; each checked back in the running JVM (VM.flags -all, VM.system_properties), a trial whose option did not take effect is refused",
			"JVM 选项与系统属性通过 JAVA_TOOL_OPTIONS 传入（JDK 8-25 的 HotSpot 与 OpenJ9 都读取），在启动命令前导出；每项都在运行中的 JVM 里读回核对（VM.flags -all、VM.system_properties），未生效的试验被拒绝")}
	launchKnob, configKnob := false, false
	for _, k := range p.Knobs {
		launchKnob = launchKnob || k.Kind == KindLimit || k.Kind == KindBinding
		configKnob = configKnob || k.Kind == KindConfigFile
	}
	if launchKnob {
		doc.Overlay = finding.Tf(finding.T("%s; process limits and the CPU/NUMA binding set on the start command before it runs, read back from /proc/PID/limits and /proc/PID/status (a trial where they did not take is refused)",
			"%s；进程限制与 CPU/NUMA 绑定在启动命令运行前设置，并从 /proc/PID/limits 与 /proc/PID/status 读回（未生效的试验被拒绝）"), doc.Overlay)
	}
	if configKnob {
		doc.Overlay = finding.Tf(finding.T("%s; configuration files copied into each trial's folder and passed as their property, the originals only read (hash checked after each trial)",
			"%s；配置文件复制到每次试验的目录并经其属性传入，原文件只读取（每次试验后核对哈希）"), doc.Overlay)
	}
	for _, k := range p.Knobs {
		doc.Knobs = append(doc.Knobs, report.ExperimentKnob{Name: k.Name, Kind: k.Kind, Key: k.Key, Values: k.Values, Baseline: k.Baseline})
	}
	return doc
}

// interval is the mean of the trials' steady means with a 95% t interval
// over trials taken on the log scale (the spread of a rate is
// multiplicative: the bounds stay positive, as in stats.Compare); with one
// trial, over its seconds (within-trial noise only), clipped at 0.
func interval(d *ArmData, metric string) report.Interval {
	var ms []float64
	for _, r := range d.runs(metric) {
		if len(r) > 0 {
			ms = append(ms, stat.Mean(r, nil))
		}
	}
	switch {
	case len(ms) == 0:
		return report.Interval{} // N 0: nothing measured (JSON has no NaN)
	case len(ms) == 1:
		for _, r := range d.runs(metric) {
			if len(r) > 0 {
				iv := tInterval(r)
				iv.Lo, iv.N = math.Max(0, iv.Lo), 1
				return iv
			}
		}
	}
	logs := make([]float64, len(ms))
	for i, m := range ms {
		if m <= 0 {
			return tInterval(ms)
		}
		logs[i] = math.Log(m)
	}
	li := tInterval(logs)
	return report.Interval{Mean: stat.Mean(ms, nil), Lo: math.Exp(li.Lo), Hi: math.Exp(li.Hi), N: len(ms)}
}

func tInterval(v []float64) report.Interval {
	m, sd := stat.MeanStdDev(v, nil)
	if len(v) < 2 || math.IsNaN(sd) {
		return report.Interval{Mean: m, Lo: m, Hi: m, N: len(v)}
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(v) - 1)}.Quantile(1 - (1-stats.Confidence)/2)
	h := t * sd / math.Sqrt(float64(len(v)))
	return report.Interval{Mean: m, Lo: m - h, Hi: m + h, N: len(v)}
}

// gain compares after with before on metric (dir: +1 higher is better).
// Each trial started its own JVM: the trials are launches, judged as
// compare judges two sets of launches (compare.Judge, the one decision:
// Welch's t and the exact U-test over the trials must agree, else
// inconclusive with why and the trials to add).
func gain(before, after *ArmData, metric string, dir int, powerPct float64) *report.Gain {
	b, a := before.runs(metric), after.runs(metric)
	e, ok := stats.CompareLaunches(b, a)
	if !ok {
		return nil
	}
	j := compare.Judge(e, dir, powerPct, stats.Confidence, trialMeans(b), trialMeans(a))
	return &report.Gain{Pct: e.ChangePct, LoPct: e.LoPct, HiPct: e.HiPct, Method: e.Method, Verdict: j.Verdict, MoreRuns: j.More, Why: j.Why}
}

// trialMeans is each measured trial's mean, in trial order.
func trialMeans(runs [][]float64) []float64 {
	var out []float64
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, stat.Mean(r, nil))
		}
	}
	return out
}

// fill writes the table, the confirmation and the changes into the document.
func (f *flow) fill(data []*ArmData, cb, cw *ArmData, dropRound map[int]int, dropWhy map[int]finding.Text) {
	p, doc := f.p, f.doc
	metric, dir := p.Objective.Metric()
	c := p.Objective.Constraints
	ranked := Rank(data[1:], metric, dir, c)
	doc.Arms = doc.Arms[:0]
	for _, d := range append([]*ArmData{data[0]}, ranked...) {
		a := f.arms[d.Arm]
		row := report.ExperimentArm{ID: a.ID, Label: a.Label, Values: a.Values, Trials: len(d.Trials), TPS: interval(d, MetricTPS),
			P99MS: interval(d, MetricP99), ErrorPct: finite(d.ErrorPct()), Status: "measured"}
		switch {
		case d.Arm == 0:
			row.Status = "baseline"
			if d.Failed != nil {
				row.Why = *d.Failed
			}
		case d.Failed != nil:
			row.Status, row.Why = "refused", *d.Failed
		case dropWhy[d.Arm] != (finding.Text{}):
			row.Status, row.Why, row.Round = "dropped", finding.Tf(finding.T("after round %d: %s", "第 %d 轮后：%s"), dropRound[d.Arm], dropWhy[d.Arm]), dropRound[d.Arm]
		case a.ID == doc.Winner:
			row.Status = "winner"
		case len(d.Trials) > 0 && d.Violation(c) != nil:
			row.Status, row.Why = "constraint", *d.Violation(c)
		}
		if d.Arm != 0 && len(d.Trials) > 0 {
			row.Gain = gain(data[0], d, metric, dir, p.PowerPct)
		}
		if d.Arm == 0 && len(d.Trials) > 0 {
			if v := d.Violation(c); v != nil {
				row.Why = *v
			}
		}
		doc.Arms = append(doc.Arms, row)
	}
	if cw != nil && len(cw.Trials) > 0 && len(cb.Trials) > 0 {
		w := f.arms[cw.Arm]
		conf := &report.ExperimentConfirm{Arm: w.ID, Label: w.Label, Trials: min(len(cb.Trials), len(cw.Trials)),
			Base: interval(cb, MetricTPS), Win: interval(cw, MetricTPS), BaseP: interval(cb, MetricP99), WinP: interval(cw, MetricP99),
			TPS: gain(cb, cw, MetricTPS, +1, p.PowerPct), P99: gain(cb, cw, MetricP99, -1, p.PowerPct)}
		conf.Objective = conf.TPS
		if metric == MetricP99 {
			conf.Objective = conf.P99
		}
		doc.Confirm = conf
	}
	f.changes(data)
}

// changes lists, per arm that ran, what it changed and how it was undone:
// the overlay lived and died with each launch; host keys went through the
// journal, one transaction per trial, each reverted (or still open).
func (f *flow) changes(data []*ArmData) {
	doc := f.doc
	doc.Changes = doc.Changes[:0]
	txArm := map[string][]string{} // arm -> transactions
	open := map[string]bool{}
	for _, r := range f.log.Recs {
		switch r.Op {
		case OpApplied:
			txArm[r.Arm] = append(txArm[r.Arm], r.Tx)
			open[r.Tx] = true
		case OpReverted:
			delete(open, r.Tx)
		}
	}
	ran := map[string]bool{}
	for _, t := range doc.Trials {
		if t.Status == "done" || t.Status == "stopped" || t.Status == "refused" {
			ran[t.Arm] = true
		}
	}
	for _, a := range f.arms {
		if !ran[a.ID] {
			continue
		}
		ov := overlayOf(f.p.Knobs, a.Values)
		if len(ov.JVM) > 0 {
			doc.Changes = append(doc.Changes, report.ExperimentChange{Arm: a.ID, What: overlayVar + "=" + strings.Join(ov.JVM, " "), Undone: true,
				Undo: finding.T("set for each launch of the service only; ended with it (no file edited)", "仅对该次启动的服务设置；随服务结束（未修改任何文件）")})
		}
		for _, kv := range ov.Env {
			doc.Changes = append(doc.Changes, report.ExperimentChange{Arm: a.ID, What: "env " + kv[0] + "=" + kv[1], Undone: true,
				Undo: finding.T("set for each launch of the service only; ended with it", "仅对该次启动的服务设置；随服务结束")})
		}
		for _, l := range ov.Limits {
			doc.Changes = append(doc.Changes, report.ExperimentChange{Arm: a.ID, What: "limit " + l.Resource + "=" + l.Value, Undone: true,
				Undo: finding.T("set on each launch's start command only (prlimit before it ran), read back from /proc/PID/limits; ended with it", "仅对每次启动命令设置（运行前 prlimit），从 /proc/PID/limits 读回；随服务结束")})
		}
		if ov.Binding != "" {
			doc.Changes = append(doc.Changes, report.ExperimentChange{Arm: a.ID, What: "binding " + ov.Binding, Undone: true,
				Undo: finding.T("set on each launch's start command only (CPU affinity before it ran; memory through numactl), read back from /proc/PID/status; ended with it", "仅对每次启动命令设置（运行前设置 CPU 亲和性；内存经 numactl），从 /proc/PID/status 读回；随服务结束")})
		}
		for _, c := range ov.Configs {
			doc.Changes = append(doc.Changes, report.ExperimentChange{Arm: a.ID, What: "config-file -D" + c.Prop + "=" + c.Src, Undone: true,
				Undo: finding.T("a copy in each trial's folder (config/) was used; the original was only read, its hash checked unchanged after each trial", "使用的是每次试验目录中的副本（config/）；原文件只读取，每次试验后核对其哈希未变")})
		}
		for _, c := range hostChanges(f.p.Knobs, a.Values) {
			txs := txArm[a.ID]
			undone := true
			for _, tx := range txs {
				if open[tx] {
					undone = false
				}
			}
			u := finding.Tf(finding.T("journal transactions %s, each reverted after its trial", "日志事务 %s，每次试验后均已撤销"), strings.Join(txs, ", "))
			if len(txs) == 0 {
				u = finding.T("already at this value: nothing written", "已是该值：未写入")
			}
			if !undone {
				u = finding.T("STILL APPLIED: run `tuneloop revert --all`", "仍处于应用状态：请运行 `tuneloop revert --all`")
			}
			doc.Changes = append(doc.Changes, report.ExperimentChange{Arm: a.ID, What: c.Kind + " " + c.Key + "=" + c.Value, Undone: undone, Undo: u, Txs: txs})
		}
	}
}

// finish marks an experiment that ran to its end in the log.
func (f *flow) finish() {
	if !f.st.ended {
		_ = f.log.Add(Record{Op: OpEnd})
	}
}
