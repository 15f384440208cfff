package compare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// DefaultPowerPct is the change the "run K more" advice is sized for when
// no gate is given.
const DefaultPowerPct = 5.0

// Input is one run: the path the user gave and its page.
type Input struct {
	Path string
	Page *report.RunPage
	// Env is the launch's environment from its manifest (LoadEnv); nil:
	// what the page tells (EnvOf).
	Env *LaunchEnv
}

// RunInfo is one run of a side: its steady state and what else the host
// was doing, so a noisy neighbour shows in the comparison.
type RunInfo struct {
	Dir   string `json:"dir"`
	Start string `json:"start,omitempty"`
	// Service is the target URL (or the target process's name).
	Service string `json:"service,omitempty"`
	// WarmUpS seconds were dropped as warm-up; SteadyS seconds are compared.
	WarmUpS int `json:"warm_up_s"`
	SteadyS int `json:"steady_s"`
	// RisingPct: throughput still climbed this much across the steady
	// seconds (stats.StillRising): the run ended before its warm-up did.
	RisingPct *float64 `json:"still_rising_pct,omitempty"`
	// TPS and P99MS are the steady-state means (null without a series).
	TPS   *float64 `json:"tps"`
	P99MS *float64 `json:"p99_ms"`
	// HostBusyPct is the host's CPU busy share (all CPUs); OtherCPUPct the
	// part of it spent neither by the target JVM nor by the run's load
	// generator on this host (the noise a neighbour makes); StealPct CPU
	// stolen by the hypervisor. Null when the run recorded no CPU.
	HostBusyPct *float64 `json:"host_busy_pct"`
	OtherCPUPct *float64 `json:"other_cpu_pct"`
	StealPct    *float64 `json:"steal_pct"`
}

// Stat is one metric's change between the sides with its interval.
type Stat struct {
	Key    string       `json:"key"`
	Label  finding.Text `json:"label"`
	Unit   string       `json:"unit"`
	Better Better       `json:"better"`
	// Before and After are means over runs of the steady-state means
	// (geometric with 2+ runs a side: After/Before-1 is ChangePct).
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	ChangePct float64 `json:"change_pct"`
	// LoPct and HiPct bound the change with 95% confidence.
	LoPct   float64 `json:"ci_low_pct"`
	HiPct   float64 `json:"ci_high_pct"`
	Method  string  `json:"method"`
	NBefore int     `json:"runs_before"`
	NAfter  int     `json:"runs_after"`
	// UTestP is the Mann-Whitney U p-value over per-run means (null with
	// fewer than 2 runs a side).
	UTestP *float64 `json:"u_test_p"`
	// GateLoPct and GateHiPct bound the change with GateConfidence: the
	// interval the regression gate judges.
	GateLoPct float64 `json:"gate_ci_low_pct"`
	GateHiPct float64 `json:"gate_ci_high_pct"`
	// Verdict: better, worse, "no significant change" or inconclusive;
	// MoreRuns is then how many runs per side to add.
	Verdict  string `json:"verdict"`
	MoreRuns int    `json:"more_runs,omitempty"`
	// Over launches (stats.MethodLaunches): RankShiftPct is the
	// Hodges-Lehmann shift of the launch means; Agreement and
	// GateAgreement say whether the t interval and the exact U-test agree
	// at 95% and at the gate's 99% ("" they do, else agreementKey's
	// values), Why and GateWhy why not; GateMoreRuns is the launches a side to add
	// before the gate can judge this metric.
	RankShiftPct *float64 `json:"rank_shift_pct,omitempty"`
	// RankP is the exact signed-rank p over the pairs' log ratios, for
	// interleaved pairs of launches (their rank test; UTestP is then
	// shown only).
	RankP         *float64      `json:"rank_p,omitempty"`
	Agreement     string        `json:"agreement,omitempty"`
	GateAgreement string        `json:"gate_agreement,omitempty"`
	Why           *finding.Text `json:"why,omitempty"`
	GateWhy       *finding.Text `json:"gate_why,omitempty"`
	GateMoreRuns  int           `json:"gate_more_runs,omitempty"`
	// SetSpread is the set-to-set shift earlier sets of the service
	// measured (History), when they were enough to say it.
	SetSpread *SetSpread `json:"set_spread,omitempty"`
}

// agreementKey names a stats.Agreement in the JSON.
var agreementKey = map[stats.Agreement]string{
	stats.RankUnreachable:        "rank-unreachable",
	stats.RankNotSignificant:     "rank-not-significant",
	stats.IntervalNotSignificant: "interval-not-significant",
}

// statDefs are the metrics with a per-second series.
var statDefs = []metricDef{
	{"tps", finding.T("Throughput (steady state)", "吞吐量（稳态）"), "TPS", Higher},
	{"p50_ms", finding.T("Latency p50 (steady state, per second)", "时延 p50（稳态，逐秒）"), "ms", Lower},
	{"p99_ms", finding.T("Latency p99 (steady state, per second)", "时延 p99（稳态，逐秒）"), "ms", Lower},
}

// CompareSets compares the runs before with the runs after, paired when
// their start times show them interleaved. powerPct sizes the "run K more"
// advice (0: DefaultPowerPct).
func CompareSets(before, after []Input, powerPct float64) *Comparison {
	return CompareSetsWith(before, after, Options{PowerPct: powerPct})
}

// CompareSetsWith compares the runs before with the runs after under o:
// interleaved pairs (o.Design, or detected by Interleaved) are judged by
// the paired interval; unpaired sets over their JVM launches, each run one
// launch (stats.CompareLaunches: Welch's t and an exact U-test that must
// agree), with the launches' groups, what separates them, and what
// differs in the launches' environment (a stored baseline).
func CompareSetsWith(before, after []Input, o Options) *Comparison {
	powerPct := o.PowerPct
	if powerPct <= 0 {
		powerPct = DefaultPowerPct
	}
	before, after, paired := pairing(before, after, o.Design)
	c := &Comparison{Schema: Schema, Before: sideOf(before), After: sideOf(after), PowerPct: powerPct, Stats: []Stat{}, Design: DesignUnpaired}
	if paired {
		c.Design, c.Pairs = DesignPaired, len(before)
	}
	c.rows(before, after)
	c.findings(before, after)
	bs, as := steadyAll(before), steadyAll(after)
	if !paired {
		c.launches(before, after)
	}
	for _, d := range statDefs {
		e, ok := stats.CompareLaunches(bs.metric(d.key), as.metric(d.key))
		if paired {
			e, ok = stats.ComparePairedLaunches(bs.metric(d.key), as.metric(d.key))
		}
		if !ok {
			continue
		}
		lb, la := launchMeans(bs.metric(d.key)), launchMeans(as.metric(d.key))
		var spread *SetSpread
		if paired {
			lb, la = pairedMeans(bs.metric(d.key), as.metric(d.key))
		} else {
			spread = c.widenForSets(&e, o.History, d.key, lb, la, powerPct)
		}
		st := estimateStat(d, e, powerPct)
		st.SetSpread = spread
		if e.OverLaunches() {
			launchStat(&st, e, powerPct, lb, la)
		}
		c.Stats = append(c.Stats, st)
		for i := range c.Rows {
			if c.Rows[i].Key == d.key && c.Rows[i].Verdict != "" {
				c.Rows[i].Verdict = st.Verdict
			}
		}
	}
	c.warn(before, after)
	c.launchWarnings()
	if w, _ := c.warming(); w != nil {
		c.Warnings = append(c.Warnings, *w)
	}
	return c
}

// warming says which runs were still warming up at their end (RisingPct),
// nil when none was: their means measure how far each warm-up got.
// afterHalf: at least half the after side's runs were, so a worse after
// side may only have warmed up more slowly, and the gate calls no
// regression on it (Gate); a baseline still warming makes a slower
// candidate's fall, if anything, larger.
func (c *Comparison) warming() (t *finding.Text, afterHalf bool) {
	var dirs []string
	n, lo, hi := 0, math.Inf(1), math.Inf(-1)
	after := 0
	for i, r := range slices.Concat(c.Before.Runs, c.After.Runs) {
		n++
		if r.RisingPct != nil {
			dirs = append(dirs, finding.SafeLine(r.Dir))
			lo, hi = min(lo, *r.RisingPct), max(hi, *r.RisingPct)
			if i >= len(c.Before.Runs) {
				after++
			}
		}
	}
	if len(dirs) == 0 {
		return nil, false
	}
	rise := fmt.Sprintf("%.0f%%", lo)
	if hi-lo >= 1 {
		rise = fmt.Sprintf("%.0f-%.0f%%", lo, hi)
	}
	w := finding.Tf(finding.T("%d of %d runs were still warming up when their load ended (throughput rose %s across the seconds kept as steady state: %s): their means say how far each warm-up got, not what the build does; lengthen --warm-up (or the run) until throughput is flat",
		"%d/%d 次运行在压测结束时仍在预热（被视为稳态的秒数内吞吐量仍上升了 %s：%s）：其均值反映的是预热进行到哪一步，而不是版本本身的性能；请加长 --warm-up（或运行时长）直到吞吐量平稳"),
		len(dirs), n, rise, strings.Join(dirs, ", "))
	return &w, 2*after >= len(c.After.Runs)
}

// estimateStat is metric d's Stat from its estimate: the table's 95% interval,
// the gate's 99% one, the verdict and the runs to add.
func estimateStat(d metricDef, e stats.Estimate, powerPct float64) Stat {
	st := Stat{Key: d.key, Label: d.label, Unit: d.unit, Better: d.better, Before: e.Before, After: e.After,
		ChangePct: e.ChangePct, LoPct: e.LoPct, HiPct: e.HiPct, Method: e.Method, NBefore: e.NBefore, NAfter: e.NAfter}
	if !math.IsNaN(e.UTestP) {
		p := e.UTestP
		st.UTestP = &p
	}
	st.GateLoPct, st.GateHiPct = e.Interval(GateConfidence)
	dec := stats.Decide(e, int(d.better), powerPct, stats.Confidence)
	st.Verdict, st.MoreRuns = dec.Verdict, dec.More
	return st
}

// launchStat adds to st what a comparison over launches has: the
// Hodges-Lehmann shift, whether the t interval and the U-test agree at
// the table's and the gate's confidence, why not (from the launch means b
// and a), and the launches to add before the gate can judge.
func launchStat(st *Stat, e stats.Estimate, powerPct float64, b, a []float64) {
	st.RankShiftPct = ptr(e.RankShiftPct)
	if e.Method == stats.MethodPairedLaunches {
		st.RankP = ptr(e.RankP)
	}
	t, g := Judge(e, int(st.Better), powerPct, stats.Confidence, b, a), Judge(e, int(st.Better), powerPct, GateConfidence, b, a)
	st.Agreement, st.GateAgreement = agreementKey[t.Agreement], agreementKey[g.Agreement]
	st.Why, st.GateWhy, st.GateMoreRuns = t.Why, g.Why, g.More
}

// pairedMeans are the launch means of the pairs with both sides measured,
// in pair order (as ComparePairedLaunches takes them).
func pairedMeans(before, after [][]float64) (b, a []float64) {
	for i := range min(len(before), len(after)) {
		if len(before[i]) > 0 && len(after[i]) > 0 {
			b, a = append(b, mean(before[i])), append(a, mean(after[i]))
		}
	}
	return b, a
}

// launchMeans is each run's mean (runs without values left out).
func launchMeans(runs [][]float64) []float64 {
	var out []float64
	for _, r := range runs {
		if len(r) > 0 {
			out = append(out, mean(r))
		}
	}
	return out
}

// launches fills what the unpaired sets' launches show: their groups and
// what separates them, how the launches' environments differ, how far
// apart the sides were recorded.
func (c *Comparison) launches(before, after []Input) {
	c.EnvDiffs, c.EnvRefused = envDiffs(before, after)
	c.oneJVM = oneJVM(slices.Concat(before, after))
	if d := apart(before, after); d > apartAfter {
		c.ApartHours = math.Round(d.Hours()*10) / 10
	}
	gs := launchGroups(c.Before.Runs, c.After.Runs)
	if gs == nil || !spansSides(gs) {
		return
	}
	c.LaunchGroups = gs
	byDir := map[string]Input{}
	for _, in := range slices.Concat(before, after) {
		byDir[runInfo(in).Dir] = in
	}
	c.LaunchHints = launchHints(gs, byDir)
}

// oneJVM: every run names the same target JVM (one PID, not 0): runs of
// one running service, not launches.
func oneJVM(in []Input) bool {
	pid := 0
	for _, i := range in {
		if i.Page == nil || i.Page.Run == nil || i.Page.Run.TargetPID == 0 || pid != 0 && i.Page.Run.TargetPID != pid {
			return false
		}
		pid = i.Page.Run.TargetPID
	}
	return pid != 0
}

// launchWarnings are the warnings of a comparison over launches: the
// environments that differ, the time between the sides, the launches'
// groups and what separates them.
func (c *Comparison) launchWarnings() {
	switch {
	case c.EnvRefused:
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("the sides' launches ran in different environments (%s): the difference mixes the change with the environment's; compare builds on one host, interleaved: tuneloop run --start OLD --start-b NEW --repeat 8",
			"两侧的启动运行在不同环境中（%s）：差异中混有环境的影响；请在同一主机上交替比较两个版本：tuneloop run --start 旧版本 --start-b 新版本 --repeat 8"), joinTexts(c.EnvDiffs, "; ")))
	case len(c.EnvDiffs) > 0:
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("the sides' JVMs ran with different flags (%s): unless the flags are the change under test, the difference is partly theirs",
			"两侧 JVM 的启动参数不同（%s）：除非这些参数正是要比较的改动，否则差异中有一部分来自参数"), joinTexts(c.EnvDiffs, "; ")))
	}
	note := c.spreadNote()
	assumed := slices.ContainsFunc(c.Stats, func(s Stat) bool { return s.SetSpread != nil && s.SetSpread.Assumed })
	switch {
	case c.ApartHours == 0 && assumed:
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("the two sets were taken one after the other, and what moves a whole set between them is in the difference: with no earlier sets of this service in the catalog to measure it (at least %d 'run --repeat' sets), the interval assumes as much as one launch's spread; interleaved runs need no such assumption (tuneloop run --start OLD --start-b NEW --repeat 8)",
			"两组运行是先后进行的，整组之间的偏移也混在差异里：运行记录目录中没有此服务之前的运行组可以测量它（至少需要 %d 组 'run --repeat'），区间按一次启动的波动假定其大小；交替运行则无需这一假定（tuneloop run --start 旧版本 --start-b 新版本 --repeat 8）"), minHistoryPairs+1))
	case c.ApartHours > 0 && assumed:
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("the sides were recorded %.1f h apart (a stored baseline): whatever changed on the host in between is in the difference, so the interval is widened by one launch's spread; to gate a build, run it interleaved with the baseline build (tuneloop run --start OLD --start-b NEW --repeat 8)",
			"两侧相隔 %.1f 小时记录（存储的基线）：期间主机上的任何变化都混在差异里，因此区间按一次启动的波动加宽；要对版本设门禁，请与基线版本交替运行（tuneloop run --start 旧版本 --start-b 新版本 --repeat 8）"), c.ApartHours))
	case c.ApartHours > 0:
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("the sides were recorded %.1f h apart (a stored baseline): whatever changed on the host in between is in the difference; to gate a build, run it interleaved with the baseline build (tuneloop run --start OLD --start-b NEW --repeat 8)",
			"两侧相隔 %.1f 小时记录（存储的基线）：期间主机上的任何变化都混在差异里；要对版本设门禁，请与基线版本交替运行（tuneloop run --start 旧版本 --start-b 新版本 --repeat 8）"), c.ApartHours))
	}
	if !note.IsZero() {
		c.Warnings = append(c.Warnings, note)
	}
	if len(c.LaunchGroups) > 0 {
		c.Warnings = append(c.Warnings, groupsText(c.LaunchGroups))
		for _, h := range c.LaunchHints {
			c.Warnings = append(c.Warnings, h)
		}
	}
}

// joinTexts joins texts language by language.
func joinTexts(ts []finding.Text, sep string) finding.Text {
	var en, zh []string
	for _, t := range ts {
		en, zh = append(en, t.EN), append(zh, t.ZH)
	}
	return finding.T(strings.Join(en, sep), strings.Join(zh, "；"))
}

func sideOf(in []Input) Side {
	s := side(in[0])
	for _, i := range in {
		s.Runs = append(s.Runs, runInfo(i))
	}
	return s
}

// steadyRun is a run's per-second values over its steady state.
type steadyRun struct {
	warmUp        int
	tps, p50, p99 []float64
}

// steadySeries cuts the warm-up off a run's series; seconds without a
// response carry no latency and are left out of p50 and p99.
func steadySeries(series []report.LoadPoint) steadyRun {
	tps, p99 := make([]float64, len(series)), make([]float64, len(series))
	for i, s := range series {
		tps[i], p99[i] = s.TPS, s.P99MS
	}
	w := stats.SteadyStart(tps, p99)
	r := steadyRun{warmUp: w}
	for _, s := range series[w:] {
		r.tps = append(r.tps, s.TPS)
		if s.TPS > 0 {
			r.p50 = append(r.p50, s.P50MS)
			r.p99 = append(r.p99, s.P99MS)
		}
	}
	return r
}

type steadySet []steadyRun

func steadyAll(in []Input) steadySet {
	var out steadySet
	for _, i := range in {
		// A run without a series stays as an empty entry, so that the
		// i-th entries of two sides are still the i-th pair.
		var r steadyRun
		if l := i.Page.Load; l != nil && len(l.Series) > 0 {
			r = steadySeries(l.Series)
		}
		out = append(out, r)
	}
	return out
}

func (s steadySet) metric(key string) [][]float64 {
	var out [][]float64
	for _, r := range s {
		switch key {
		case "tps":
			out = append(out, r.tps)
		case "p50_ms":
			out = append(out, r.p50)
		case "p99_ms":
			out = append(out, r.p99)
		}
	}
	return out
}

func runInfo(in Input) RunInfo {
	p := in.Page
	ri := RunInfo{Dir: in.Path, Service: Service(p)}
	if p.Run != nil {
		if ri.Dir == "" {
			ri.Dir = p.Run.Dir
		}
		if !p.Run.Start.IsZero() {
			ri.Start = p.Run.Start.UTC().Format("2006-01-02 15:04:05Z")
		}
		if st := p.Run.Stats; st.Ticks > 0 {
			ri.HostBusyPct, ri.StealPct = ptr(st.Busy), ptr(st.Steal)
			// The target's CPU is in % of one core; the host's busy share
			// is of all CPUs.
			if ncpu := cpus(p); st.ProcCPU >= 0 && ncpu > 0 {
				gen := 0.0
				if p.Load != nil {
					gen = p.Load.ClientCPU // % of the cores, as Busy
				}
				ri.OtherCPUPct = ptr(max(0, st.Busy-st.ProcCPU/float64(ncpu)-gen))
			}
		}
	}
	if l := p.Load; l != nil && len(l.Series) > 0 {
		r := steadySeries(l.Series)
		ri.WarmUpS, ri.SteadyS = r.warmUp, len(r.tps)
		// Past the load's own ramp-up, where throughput rises by design.
		if skip := max(0, int(math.Ceil(l.RampS))-r.warmUp); skip < len(r.tps) {
			if rise, ok := stats.StillRising(r.tps[skip:]); ok {
				ri.RisingPct = ptr(100 * rise)
			}
		}
		if len(r.tps) > 0 {
			ri.TPS = ptr(mean(r.tps))
		}
		if len(r.p99) > 0 {
			ri.P99MS = ptr(mean(r.p99))
		}
	}
	return ri
}

// cpus is the host's CPU count: from the per-CPU ticks, else the facts.
func cpus(p *report.RunPage) int {
	for _, t := range p.CPU {
		if len(t.PerCPU) > 0 {
			return len(t.PerCPU)
		}
	}
	if p.Run != nil {
		return p.Run.Host.Logical
	}
	return 0
}

func ptr(v float64) *float64 { return &v }

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Service names what a run loaded: the target URL of its command line or
// title, else the target process's name.
func Service(p *report.RunPage) string {
	if p.Run != nil {
		if s := ServiceOfCommand(p.Run.Command); s != "" {
			return s
		}
	}
	if _, url, ok := strings.Cut(p.Title, " @ "); ok {
		return url
	}
	if p.Run != nil && p.Run.TargetComm != "" {
		return p.Run.TargetComm
	}
	return ""
}

// ServiceOfCommand is the --target of a tuneloop command line ("": none).
func ServiceOfCommand(command string) string {
	f := strings.Fields(command)
	for i, a := range f {
		if a == "--target" && i+1 < len(f) {
			return f[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--target="); ok {
			return v
		}
	}
	return ""
}

// meanMetrics is each metric's mean over the runs that have it.
func meanMetrics(in []Input) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, i := range in {
		for k, v := range metrics(i.Page) {
			if !math.IsNaN(v) {
				sum[k] += v
				n[k]++
			}
		}
	}
	out := map[string]float64{}
	for _, d := range metricDefs {
		out[d.key] = math.NaN()
		if n[d.key] > 0 {
			out[d.key] = sum[d.key] / float64(n[d.key])
		}
	}
	return out
}

// failingAll is every finding failing in a run of a side, at its highest
// severity, with the number of the side's runs it failed in (RunsAfter
// for the after side, else RunsBefore).
func failingAll(in []Input, after bool) map[string]FindingRef {
	out := map[string]FindingRef{}
	for _, i := range in {
		for k, f := range failing(i.Page) {
			old, ok := out[k]
			if ok && f.Severity <= old.Severity {
				f = old
			}
			if n := old.RunsBefore + old.RunsAfter + 1; after {
				f.RunsBefore, f.RunsAfter = 0, n
			} else {
				f.RunsBefore, f.RunsAfter = n, 0
			}
			out[k] = f
		}
	}
	return out
}

// Thresholds of the host warnings: steal and other processes' CPU above
// these make a run's numbers suspect.
const (
	stealWarnPct = 5.0
	otherWarnPct = 20.0
)

func (c *Comparison) warn(before, after []Input) {
	services := map[string]bool{}
	var names []string
	for _, i := range slices.Concat(before, after) {
		if s := Service(i.Page); s != "" && !services[s] {
			services[s] = true
			names = append(names, s)
		}
	}
	if len(names) > 1 {
		c.Warnings = append(c.Warnings, finding.Tf(finding.T("the runs loaded different services: %s", "这些运行压测的是不同的服务：%s"),
			finding.SafeLine(strings.Join(names, ", "))))
	}
	if len(c.Stats) > 0 && (len(c.Before.Runs) < 2 || len(c.After.Runs) < 2) {
		c.Warnings = append(c.Warnings, finding.T(
			"one run on a side: its interval covers the noise within that run only, not from run to run; repeat it (tuneloop run --repeat 3) before trusting a small change",
			"有一侧只有一次运行：区间只包含这次运行内部的波动，不含运行之间的波动；在相信小幅变化之前请重复运行（tuneloop run --repeat 3）"))
	}
	for _, r := range slices.Concat(c.Before.Runs, c.After.Runs) {
		if r.StealPct != nil && *r.StealPct > stealWarnPct {
			c.Warnings = append(c.Warnings, finding.Tf(finding.T("%s: the hypervisor stole %.1f%% of the CPU", "%s：虚拟化层窃取了 %.1f%% 的 CPU"), finding.SafeLine(r.Dir), *r.StealPct))
		}
		if r.OtherCPUPct != nil && *r.OtherCPUPct > otherWarnPct {
			c.Warnings = append(c.Warnings, finding.Tf(finding.T("%s: other processes kept %.0f%% of the CPUs busy", "%s：其他进程占用了 %.0f%% 的 CPU"), finding.SafeLine(r.Dir), *r.OtherCPUPct))
		}
	}
}

// ExpandRuns lists the run folders path stands for: path itself, or, for
// a folder of `tuneloop run --repeat N` (run-1 ... run-N inside, no report
// of its own), those runs in order.
func ExpandRuns(path string) []string {
	if _, err := os.Stat(filepath.Join(path, "report.json")); err == nil {
		return []string{path}
	}
	if _, err := os.Stat(filepath.Join(path, "manifest.json")); err == nil {
		return []string{path}
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return []string{path}
	}
	type numbered struct {
		n   int
		dir string
	}
	var runs []numbered
	for _, e := range ents {
		if v, ok := strings.CutPrefix(e.Name(), "run-"); ok && e.IsDir() {
			if n, err := strconv.Atoi(v); err == nil {
				runs = append(runs, numbered{n, filepath.Join(path, e.Name())})
			}
		}
	}
	if len(runs) == 0 {
		return []string{path}
	}
	slices.SortFunc(runs, func(a, b numbered) int { return a.n - b.n })
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.dir
	}
	return out
}
