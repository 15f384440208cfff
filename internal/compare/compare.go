// Package compare sets two runs side by side: the before/after table the
// seeds' engineers pasted into their reports by hand (TPS, latency, CPU,
// blocked threads, GC), what each run's diagnosis said, which findings the
// change made go away and which it brought, and a regression gate for CI.
// It reads the report.json that `tuneloop run` writes in each run folder
// (the CLI pages a `tuneloop record` folder the same way first).
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
	// Verdict: "better", "worse", "same" (within 2%) or "" (no direction or no data).
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
}

// Side is what one run was.
type Side struct {
	Dir     string        `json:"dir"`
	Title   string        `json:"title"`
	Start   string        `json:"start"`
	Model   finding.Text  `json:"model"`
	Verdict *finding.Text `json:"verdict,omitempty"`
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
	// Regressions are the gate's reasons (empty: passed or no gate).
	Regressions []finding.Text `json:"regressions,omitempty"`
}

// Load reads a run's report.json: path is the run folder or the file.
func Load(path string) (*report.RunPage, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, "report.json")
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) && file != path {
		return nil, finding.Errorf(finding.T("%s: no report.json: not a run folder of tuneloop run", "%s：没有 report.json：不是 tuneloop run 的运行目录"), path)
	}
	if err != nil {
		return nil, err
	}
	var p report.RunPage
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, finding.Errorf(finding.T("%s: not a run report: %v", "%s：不是运行报告：%v"), file, err)
	}
	if p.Schema != report.RunPageSchema {
		return nil, finding.Errorf(finding.T("%s: schema %q, want %q", "%s：schema 为 %q，应为 %q"), file, p.Schema, report.RunPageSchema)
	}
	return &p, nil
}

// Compare sets two run pages side by side.
func Compare(before, after *report.RunPage) *Comparison {
	c := &Comparison{Schema: Schema, Before: side(before), After: side(after)}
	b, a := metrics(before), metrics(after)
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
	bf, af := failing(before), failing(after)
	for _, k := range sortedKeys(bf) {
		if _, ok := af[k]; ok {
			c.Persist = append(c.Persist, af[k])
		} else {
			c.Gone = append(c.Gone, bf[k])
		}
	}
	for _, k := range sortedKeys(af) {
		if _, ok := bf[k]; !ok {
			c.New = append(c.New, af[k])
		}
	}
	return c
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
	{"tps_steady", finding.T("Throughput, second half (median)", "吞吐量（后半程中位数）"), "TPS", Higher},
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

// steady is the median TPS of the second half of the run: a fresh JVM
// compiles its hot code in the first seconds.
func steady(series []report.LoadPoint) float64 {
	if len(series) < 4 {
		return 0
	}
	var v []float64
	for _, s := range series[len(series)/2:] {
		v = append(v, s.TPS)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func side(p *report.RunPage) Side {
	s := Side{Title: p.Title}
	if p.Run != nil {
		s.Dir = p.Run.Dir
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

// errorRisePts: the rise in the error rate, in percentage points, that the
// gate calls a regression.
const errorRisePts = 0.1

// Gate marks the rows that regressed: throughput down or latency p99 up by
// more than pct percent, or the error rate up by more than errorRisePts.
// It returns whether any did.
func (c *Comparison) Gate(pct float64) bool {
	c.Regressions = nil
	for _, r := range c.Rows {
		if math.IsNaN(r.Before) || math.IsNaN(r.After) {
			continue
		}
		switch r.Key {
		case "tps", "tps_steady":
			if r.Before > 0 && r.After < r.Before*(1-pct/100) {
				c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s fell %.1f%% (%s -> %s), more than %.0f%%", "%s 下降 %.1f%%（%s -> %s），超过 %.0f%%"),
					r.Label, -r.ChangePct, num(r.Before), num(r.After), pct))
			}
		case "p99_ms":
			if r.Before > 0 && r.After > r.Before*(1+pct/100) {
				c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s rose %.1f%% (%s -> %s ms), more than %.0f%%", "%s 上升 %.1f%%（%s -> %s ms），超过 %.0f%%"),
					r.Label, r.ChangePct, num(r.Before), num(r.After), pct))
			}
		case "error_pct":
			// Errors are judged on their own scale: a rise of more than 0.1
			// percentage point of all requests, whatever pct.
			if r.After > r.Before+errorRisePts {
				c.Regressions = append(c.Regressions, finding.Tf(finding.T("%s rose from %.2f%% to %.2f%%", "%s 从 %.2f%% 上升到 %.2f%%"), r.Label, r.Before, r.After))
			}
		}
	}
	return len(c.Regressions) > 0
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
