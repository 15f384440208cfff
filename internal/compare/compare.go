// Package compare sets two runs, or two sets of repeated runs, side by side:
// the before/after table the seeds' engineers pasted into their reports by
// hand (TPS, latency, CPU, blocked threads, GC), the change of throughput
// and latency with a 95% confidence interval and a verdict that can say
// "not sure" (internal/stats), what each run's diagnosis said, which
// findings the change made go away and which it brought, the tuning table
// of several steps, and a regression gate for CI that judges the interval,
// not the point. It reads the report.json that `tuneloop run` writes in each
// run folder (the CLI pages a `tuneloop record` folder the same way first).
package compare

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// Schema of Comparison in JSON.
const Schema = "tuneloop.compare/v1"

// Better says which way a metric improves.
type Better int

// Directions.
const (
	Higher Better = 1
	Lower  Better = -1
	None   Better = 0 // a reading, neither better nor worse
)

// Row is one metric of both runs; NaN where a run does not have it.
type Row struct {
	Key    string       `json:"key"`
	Label  finding.Text `json:"label"`
	Unit   string       `json:"unit,omitempty"`
	Before float64      `json:"before"`
	After  float64      `json:"after"`
	// ChangePct is (after-before)/before in percent; NaN when undefined.
	ChangePct float64 `json:"change_pct"`
	Better    Better  `json:"better"`
	// Verdict: for a metric with a per-second series the verdict of its
	// Stat ("better", "worse", "no significant change", "inconclusive");
	// for the others "better", "worse", "same" (within 2%: a reading, no
	// interval) or "" (no direction or no data).
	Verdict string `json:"verdict"`
}

// MarshalJSON writes a missing value (NaN) as null.
func (r Row) MarshalJSON() ([]byte, error) {
	opt := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	type row Row // no MarshalJSON: no recursion
	return json.Marshal(struct {
		row
		Before    *float64 `json:"before"`
		After     *float64 `json:"after"`
		ChangePct *float64 `json:"change_pct"`
	}{row(r), opt(r.Before), opt(r.After), opt(r.ChangePct)})
}

// FindingRef names a failing finding of a run.
type FindingRef struct {
	Key      string           `json:"key"`
	Severity finding.Severity `json:"severity"`
	Title    finding.Text     `json:"title"`
	// RunsBefore and RunsAfter: how many runs of each side it failed in.
	RunsBefore int `json:"runs_before"`
	RunsAfter  int `json:"runs_after"`
}

// Side is what one run was (the first, when a side has several).
type Side struct {
	// Dir is the path as the user gave it (not the one stored in the run).
	Dir     string        `json:"dir"`
	Title   string        `json:"title"`
	Start   string        `json:"start"`
	Model   finding.Text  `json:"model"`
	Verdict *finding.Text `json:"verdict,omitempty"`
	// Runs are every run of the side, with its steady state and host load.
	Runs []RunInfo `json:"runs"`
}

// Comparison is the whole result.
type Comparison struct {
	Schema string `json:"schema"`
	Before Side   `json:"before"`
	After  Side   `json:"after"`
	Rows   []Row  `json:"metrics"`
	// Findings that fail in before only (fixed), after only (new) and in both.
	Gone    []FindingRef `json:"gone"`
	New     []FindingRef `json:"new"`
	Persist []FindingRef `json:"persist"`
	// Unsure: failed on one side only, but in too few of its runs to tell
	// from chance (oneSideByChance); neither gone nor new.
	Unsure []FindingRef `json:"unsure"`
	// Stats are throughput and latency with confidence intervals and a
	// verdict each (empty without per-second load series).
	Stats []Stat `json:"stats"`
	// Design is how the runs were taken: "paired" (interleaved, judged
	// pair by pair; Pairs of them) or "unpaired" (two sets, Welch).
	Design string `json:"design"`
	Pairs  int    `json:"pairs,omitempty"`
	// PowerPct is the change the "run K more" advice is sized to detect:
	// the gate's PCT, else DefaultPowerPct.
	PowerPct float64 `json:"power_pct"`
	// Warnings: the two sides loaded different services, a side was run
	// once, the host was busy or stolen from.
	Warnings []finding.Text `json:"warnings,omitempty"`
	// Regressions are the gate's reasons (empty: passed or no gate);
	// Inconclusive the gated metrics it could not judge.
	Regressions []finding.Text `json:"regressions,omitempty"`
	// RegressedKeys are the metric keys of Regressions, index by index.
	RegressedKeys []string       `json:"regressed_keys,omitempty"`
	Inconclusive  []finding.Text `json:"inconclusive,omitempty"`
	// InconclusiveKeys are the metric keys of Inconclusive, index by
	// index ("": the whole comparison, refused).
	InconclusiveKeys []string `json:"inconclusive_keys,omitempty"`
	// Over launches (unpaired sets): LaunchGroups are the groups the
	// launches' throughput falls into when some side has launches in two
	// or more (nil otherwise), LaunchHints what the run folders recorded
	// that separates them; EnvDiffs what differs between the sides'
	// launches (host, kernel, CPUs, JDK, JVM flags: the flags alone are
	// warned about, they may be the change); ApartHours how far
	// apart the sides were recorded when more than an hour (a stored
	// baseline: the interval is widened by one launch's spread).
	LaunchGroups []LaunchGroup  `json:"launch_groups,omitempty"`
	LaunchHints  []finding.Text `json:"launch_hints,omitempty"`
	EnvDiffs     []finding.Text `json:"env_diffs,omitempty"`
	// EnvRefused: more than the JVM flags differ (host, kernel, CPUs,
	// JDK): the gate refuses to judge.
	EnvRefused bool    `json:"env_refused,omitempty"`
	ApartHours float64 `json:"apart_hours,omitempty"`
	// oneJVM: every run loaded the same JVM (one target PID), so the runs
	// are not launches and one a side is judged as before.
	oneJVM bool
	// historySource names where the earlier sets came from (History).
	historySource string
}

// Load reads a run's report.json: path is the run folder or the file.
// Errors name path as given. A run folder may come from anyone: its
// report.json is read as untrusted (runfolder.ReadInside: no link followed, no
// FIFO or device read, a size cap). A file named on the command line is the
// user's own path and may be a link, but is read only as a regular file
// under the same cap.
func Load(path string) (*report.RunPage, error) {
	dir, name := path, "report.json"
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, err
		}
		dir, name = filepath.Split(real)
	}
	b, err := runfolder.ReadInside(dir, name, maxPageLen)
	if errors.Is(err, fs.ErrNotExist) && dir == path {
		return nil, finding.Errorf(finding.T("%s is not a run folder (no manifest.json / report.json)",
			"%s 不是运行目录（没有 manifest.json / report.json）"), finding.SafeLine(path))
	}
	if err != nil {
		return nil, runfolder.Refusal(err)
	}
	var p report.RunPage
	if err := json.Unmarshal(b, &p); err != nil {
		// The decoder's "invalid character 'J' looking for beginning of
		// value" tells a user nothing: say what the file is not.
		return nil, finding.Errorf(finding.T("%s is not a run folder (no manifest.json / report.json), nor a run's report.json",
			"%s 不是运行目录（没有 manifest.json / report.json），也不是运行的 report.json"), finding.SafeLine(path))
	}
	if p.Schema != report.RunPageSchema {
		return nil, finding.Errorf(finding.T("%s: schema %q, want %q", "%s：schema 为 %q，应为 %q"), finding.SafeLine(path), p.Schema, report.RunPageSchema)
	}
	return &p, nil
}

// Compare sets two run pages side by side.
func Compare(before, after *report.RunPage) *Comparison {
	return CompareSets([]Input{{Page: before}}, []Input{{Page: after}}, 0)
}

// rows fills c's table: each metric's mean over a side's runs.
func (c *Comparison) rows(before, after []Input) {
	b, a := meanMetrics(before), meanMetrics(after)
	for _, m := range metricDefs {
		r := Row{Key: m.key, Label: m.label, Unit: m.unit, Better: m.better, Before: b[m.key], After: a[m.key], ChangePct: math.NaN()}
		if math.IsNaN(r.Before) && math.IsNaN(r.After) {
			continue
		}
		if !math.IsNaN(r.Before) && !math.IsNaN(r.After) {
			if r.Before != 0 {
				r.ChangePct = 100 * (r.After - r.Before) / math.Abs(r.Before)
			}
			r.Verdict = verdict(r)
		}
		c.Rows = append(c.Rows, r)
	}
}

// findings fills gone/new/persist/unsure: a finding counts for a side
// when it failed in any of its runs, and says in how many of each side's.
// With several runs a side, one that failed on one side only is gone or
// new when chance could hardly have put all its failures there (see
// oneSideByChance); else it is unsure: a finding that fires in one run of
// five on either side is the run's noise, not the change's.
func (c *Comparison) findings(before, after []Input) {
	bf, af := failingAll(before, false), failingAll(after, true)
	nb, na := len(before), len(after)
	for _, k := range sortedKeys(bf) {
		f := bf[k]
		if a, ok := af[k]; ok {
			a.RunsBefore = f.RunsBefore
			c.Persist = append(c.Persist, a)
		} else if oneSideByChance(f.RunsBefore, nb, na) {
			c.Unsure = append(c.Unsure, f)
		} else {
			c.Gone = append(c.Gone, f)
		}
	}
	for _, k := range sortedKeys(af) {
		if _, ok := bf[k]; ok {
			continue
		}
		if f := af[k]; oneSideByChance(f.RunsAfter, na, nb) {
			c.Unsure = append(c.Unsure, f)
		} else {
			c.New = append(c.New, f)
		}
	}
}

// oneSideByChance says whether a finding that failed in x of one side's n
// runs and in none of the other's m could have landed so by chance:
// Fisher's exact test, one-sided, p = C(n,x)/C(n+m,x) above 5% (5 runs a
// side: 4 of 5 against 0 of 5 is p = 0.024, 3 of 5 p = 0.083; 3 a side
// needs 3 of 3, p = 0.05). With one run on either side no test can tell:
// the finding is gone or new as that run shows, its counts beside it.
func oneSideByChance(x, n, m int) bool {
	if n < 2 || m < 2 {
		return false
	}
	p := 1.0
	for i := range x {
		p *= float64(n-i) / float64(n+m-i)
	}
	return p > 0.05
}

// sameBand: changes within it are noise on a shared machine.
const sameBand = 2.0

func verdict(r Row) string {
	if r.Better == None {
		return ""
	}
	d := r.After - r.Before
	if r.Before != 0 && math.Abs(100*d/r.Before) < sameBand || d == 0 {
		return "same"
	}
	if (d > 0) == (r.Better == Higher) {
		return "better"
	}
	return "worse"
}

type metricDef struct {
	key    string
	label  finding.Text
	unit   string
	better Better
}

var metricDefs = []metricDef{
	{"tps", finding.T("Throughput", "吞吐量"), "TPS", Higher},
	{"tps_steady", finding.T("Throughput, steady state (mean)", "吞吐量（稳态均值）"), "TPS", Higher},
	{"p50_ms", finding.T("Latency p50", "时延 p50"), "ms", Lower},
	{"p90_ms", finding.T("Latency p90", "时延 p90"), "ms", Lower},
	{"p99_ms", finding.T("Latency p99", "时延 p99"), "ms", Lower},
	{"max_ms", finding.T("Latency max", "时延最大值"), "ms", Lower},
	{"error_pct", finding.T("Errors", "错误率"), "%", Lower},
	{"cpu_busy_pct", finding.T("CPU busy (all CPUs)", "CPU 繁忙（全部 CPU）"), "%", None},
	{"cpu_us_pct", finding.T("CPU user", "CPU 用户态"), "%", None},
	{"cpu_sy_pct", finding.T("CPU system", "CPU 内核态"), "%", None},
	{"cpu_si_pct", finding.T("CPU softirq + irq", "CPU 软中断 + 硬中断"), "%", None},
	{"jvm_cpu_pct", finding.T("JVM CPU (% of one core)", "JVM CPU（占单核百分比）"), "%", None},
	{"jvm_cpu_ms_per_req", finding.T("JVM CPU per request", "每请求 JVM CPU 时间"), "ms", Lower},
	{"blocked_pct", finding.T("Working threads blocked or waiting", "阻塞或等待的工作线程"), "%", Lower},
	{"gc_throughput_pct", finding.T("GC throughput", "GC 吞吐率"), "%", Higher},
	{"gc_p99_ms", finding.T("GC pause p99", "GC 停顿 p99"), "ms", Lower},
	{"gc_full", finding.T("Full GCs", "Full GC 次数"), "", Lower},
}

// metrics reads a run page's numbers by key; NaN where it has none.
func metrics(p *report.RunPage) map[string]float64 {
	m := map[string]float64{}
	for _, d := range metricDefs {
		m[d.key] = math.NaN()
	}
	if l := p.Load; l != nil {
		m["tps"], m["p50_ms"], m["p90_ms"], m["p99_ms"], m["max_ms"] = l.TPS, l.P50MS, l.P90MS, l.P99MS, l.MaxMS
		if l.Requests > 0 {
			m["error_pct"] = 100 * float64(l.Errors) / float64(l.Requests)
		}
		if s := steady(l.Series); s > 0 {
			m["tps_steady"] = s
		}
	}
	if p.Run != nil && p.Run.Stats.Ticks > 0 {
		s := p.Run.Stats
		m["cpu_busy_pct"], m["cpu_us_pct"], m["cpu_sy_pct"], m["cpu_si_pct"] = s.Busy, s.User, s.System, s.Soft
		if s.ProcCPU >= 0 {
			m["jvm_cpu_pct"] = s.ProcCPU
			if p.Load != nil && p.Load.TPS > 0 {
				m["jvm_cpu_ms_per_req"] = s.ProcCPU / 100 * 1000 / p.Load.TPS
			}
		}
	}
	// The mean over the run's dumps of the share of working threads blocked
	// or waiting, idle pool threads left out.
	var sum float64
	n := 0
	for _, ts := range p.ThreadStates {
		if ts.BlockedWaitingPct != nil {
			sum += *ts.BlockedWaitingPct
			n++
		}
	}
	if n > 0 {
		m["blocked_pct"] = sum / float64(n)
	}
	if g := p.GC; g != nil {
		if g.ThroughputPct >= 0 {
			m["gc_throughput_pct"] = g.ThroughputPct
		}
		if g.Pauses > 0 {
			m["gc_p99_ms"] = g.PauseP99MS
		}
		m["gc_full"] = float64(g.FullGCs)
	}
	return m
}

// steady is the mean TPS over the steady state (stats.SteadyStart): a
// fresh JVM compiles its hot code in the first seconds.
func steady(series []report.LoadPoint) float64 {
	if len(series) < 4 {
		return 0
	}
	v := steadySeries(series).tps
	if len(v) == 0 {
		return 0
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

func side(in Input) Side {
	p := in.Page
	s := Side{Title: p.Title, Dir: in.Path}
	if p.Run != nil {
		if s.Dir == "" {
			s.Dir = p.Run.Dir
		}
		if !p.Run.Start.IsZero() {
			s.Start = p.Run.Start.UTC().Format("2006-01-02 15:04:05Z")
		}
	}
	if p.Load != nil {
		s.Model = report.ModelText(p.Load.Model)
	}
	if p.Verdict != nil {
		t := p.Verdict.Title
		s.Verdict = &t
	}
	return s
}

// failing keys a run's failing findings by StableKey, the verdict left
// out (it repeats its root cause).
func failing(p *report.RunPage) map[string]FindingRef {
	out := map[string]FindingRef{}
	if p.Run == nil {
		return out
	}
	for _, f := range p.Run.Findings {
		if f.Status != finding.Fail || f.ID == "run.verdict" {
			continue
		}
		k := f.StableKey()
		if old, ok := out[k]; !ok || f.Severity > old.Severity {
			out[k] = FindingRef{Key: k, Severity: f.Severity, Title: f.Title}
		}
	}
	return out
}

func sortedKeys(m map[string]FindingRef) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b string) int {
		if m[a].Severity != m[b].Severity {
			return int(m[b].Severity) - int(m[a].Severity)
		}
		return strings.Compare(a, b)
	})
	return ks
}

// num renders a metric value compactly: 12509, 3.21, 0.041.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "-"
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// maxPageLen caps a report.json read by compare: a run page is a few MiB; a
// runaway file is refused, not read into memory.
const maxPageLen = runfolder.MaxFindings
