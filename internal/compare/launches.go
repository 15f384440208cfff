package compare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// LaunchEnv is what a run's JVM launch ran on, from its manifest: a stored
// baseline from another host, kernel, JDK, JVM flags or CPU count is not
// comparable launch for launch with a new build.
type LaunchEnv struct {
	Host   string `json:"host,omitempty"`
	Kernel string `json:"kernel,omitempty"`
	CPUs   int    `json:"cpus,omitempty"`
	// JDK is the target JVM's vendor and version; Flags its options (the
	// arguments before the main class or -jar), "" / nil when unknown.
	JDK   string   `json:"jdk,omitempty"`
	Flags []string `json:"flags,omitempty"`
}

// LoadEnv reads the launch environment of the run at path (a run folder,
// or its report.json): the manifest beside it, read as untrusted. Without
// a manifest, ok is false and EnvOf(page) is what is known.
func LoadEnv(path string) (env LaunchEnv, ok bool) {
	dir := path
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		dir = filepath.Dir(path)
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		return env, false
	}
	fa := f.Manifest.Facts
	env = LaunchEnv{Host: fa.Hostname.Value, Kernel: fa.Kernel.Release.Value, CPUs: fa.CPU.Logical.Value}
	pid := 0
	if f.Manifest.Target != nil {
		pid = f.Manifest.Target.PID
	}
	for _, j := range fa.JVMs.Value {
		if pid == 0 || j.PID != pid {
			continue
		}
		env.JDK = strings.TrimSpace(j.Vendor + " " + j.Version)
		for _, a := range j.Args[min(1, len(j.Args)):] {
			if a == "-jar" || a == "-cp" || a == "-classpath" || !strings.HasPrefix(a, "-") {
				break
			}
			env.Flags = append(env.Flags, a)
		}
	}
	return env, true
}

// EnvOf is the environment a run page alone tells: host, kernel, CPUs.
func EnvOf(p *report.RunPage) LaunchEnv {
	if p == nil || p.Run == nil {
		return LaunchEnv{}
	}
	return LaunchEnv{Host: p.Run.Host.Hostname, Kernel: p.Run.Host.Kernel, CPUs: p.Run.Host.Logical}
}

func (in Input) env() LaunchEnv {
	if in.Env != nil {
		return *in.Env
	}
	return EnvOf(in.Page)
}

// envDiffs lists what differs between the sides' launches: each field
// whose values on one side are not those of the other (unknown values
// left out). hostDiff: something other than the JVM flags differs (the
// flags may be the change under test: a tuning step).
func envDiffs(before, after []Input) (diffs []finding.Text, hostDiff bool) {
	type field struct {
		label finding.Text
		get   func(LaunchEnv) string
	}
	fields := []field{
		{finding.T("host", "主机"), func(e LaunchEnv) string { return e.Host }},
		{finding.T("kernel", "内核"), func(e LaunchEnv) string { return e.Kernel }},
		{finding.T("CPUs", "CPU 数"), func(e LaunchEnv) string {
			if e.CPUs == 0 {
				return ""
			}
			return fmt.Sprint(e.CPUs)
		}},
		{finding.T("JDK", "JDK"), func(e LaunchEnv) string { return e.JDK }},
		{finding.T("JVM flags", "JVM 参数"), func(e LaunchEnv) string {
			if e.JDK != "" && len(e.Flags) == 0 {
				return "(none)" // the JVM was found: it had none
			}
			return strings.Join(e.Flags, " ")
		}},
	}
	values := func(in []Input, get func(LaunchEnv) string) []string {
		var out []string
		for _, i := range in {
			if v := get(i.env()); v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	for i, f := range fields {
		b, a := values(before, f.get), values(after, f.get)
		if len(b) == 0 || len(a) == 0 || slices.Equal(b, a) {
			continue
		}
		show := func(v []string) string { return finding.SafeLine(strings.Join(v, " | ")) }
		diffs = append(diffs, finding.Tf(finding.T("%s: %s before, %s after", "%s：改动前 %s，改动后 %s"), f.label, show(b), show(a)))
		hostDiff = hostDiff || i < len(fields)-1
	}
	return diffs, hostDiff
}

// apartAfter: sides whose launches were taken more than this far apart
// (the latest start of one side to the earliest of the other, whichever
// came first) are a stored baseline, not one session: what changed on the
// host between them is in the difference, and no rank test over launches
// can tell it from the change.
const apartAfter = time.Hour

// apart is how far apart the sides were recorded (0: interleaved,
// overlapping or unknown).
func apart(before, after []Input) time.Duration {
	span := func(in []Input) (lo, hi time.Time, ok bool) {
		for _, i := range in {
			if i.Page == nil || i.Page.Run == nil || i.Page.Run.Start.IsZero() {
				return lo, hi, false
			}
			s := i.Page.Run.Start
			if lo.IsZero() || s.Before(lo) {
				lo = s
			}
			if s.After(hi) {
				hi = s
			}
		}
		return lo, hi, len(in) > 0
	}
	bl, bh, ok1 := span(before)
	al, ah, ok2 := span(after)
	switch {
	case !ok1 || !ok2:
		return 0
	case bh.Before(al):
		return al.Sub(bh)
	case ah.Before(bl):
		return bl.Sub(ah)
	}
	return 0
}

// launchVar is the variance of the log per-launch means within the sides
// (pooled over sides with 2 or more launches) and its degrees of freedom.
func launchVar(b, a []float64) (v float64, df int) {
	logs := func(x []float64) []float64 {
		l := make([]float64, len(x))
		for i, v := range x {
			l[i] = math.Log(v)
		}
		return l
	}
	return pooledVar(logs(b), logs(a))
}

// pooledVar is the sample variance pooled over the sides with 2 values or
// more, and its degrees of freedom (0, 0: none).
func pooledVar(sides ...[]float64) (v float64, df int) {
	var ss float64
	for _, x := range sides {
		if len(x) < 2 {
			continue
		}
		_, sv := meanVar(x)
		ss += sv * float64(len(x)-1)
		df += len(x) - 1
	}
	if df == 0 {
		return 0, 0
	}
	return ss / float64(df), df
}

// LaunchGroup is launches whose steady-state throughput lay close
// together (stats.Groups over every launch of both sides): its range and
// which runs of each side fell in it.
type LaunchGroup struct {
	LoTPS  float64  `json:"lo_tps"`
	HiTPS  float64  `json:"hi_tps"`
	Before []string `json:"before"`
	After  []string `json:"after"`
}

// launchGroups groups the launches of both sides by throughput; nil when
// they are one group.
func launchGroups(bi, ai []RunInfo) []LaunchGroup {
	var vals []float64
	var dirs []string
	for _, r := range slices.Concat(bi, ai) {
		v := math.NaN()
		if r.TPS != nil {
			v = *r.TPS
		}
		vals, dirs = append(vals, v), append(dirs, r.Dir)
	}
	gs := stats.Groups(vals)
	if len(gs) < 2 {
		return nil
	}
	out := make([]LaunchGroup, len(gs))
	for i, g := range gs {
		out[i] = LaunchGroup{LoTPS: g.Lo, HiTPS: g.Hi, Before: []string{}, After: []string{}}
		for _, m := range g.Members {
			if m < len(bi) {
				out[i].Before = append(out[i].Before, dirs[m])
			} else {
				out[i].After = append(out[i].After, dirs[m])
			}
		}
	}
	return out
}

// spansSides: some side has launches in two groups or more, so the groups
// are modes of the launches, not the two builds.
func spansSides(gs []LaunchGroup) bool {
	nb, na := 0, 0
	for _, g := range gs {
		if len(g.Before) > 0 {
			nb++
		}
		if len(g.After) > 0 {
			na++
		}
	}
	return nb > 1 || na > 1
}

// groupsText: "launches fall into two groups (46-48k, 56-60k TPS): before
// 1 and 2 launches, after 3 and 0".
func groupsText(gs []LaunchGroup) finding.Text {
	var ranges, bs, as []string
	for _, g := range gs {
		ranges = append(ranges, tpsRange(g.LoTPS, g.HiTPS))
		bs, as = append(bs, fmt.Sprint(len(g.Before))), append(as, fmt.Sprint(len(g.After)))
	}
	return finding.Tf(finding.T("launches fall into %d groups (%s TPS): before %s launches, after %s",
		"各次启动分成 %d 组（%s TPS）：改动前各组分别 %s 次，改动后 %s 次"),
		len(gs), strings.Join(ranges, ", "), strings.Join(bs, "/"), strings.Join(as, "/"))
}

// tpsRange writes a range compactly: "46-48k", "1.2-1.4k", "460-480",
// and one value when both ends print the same ("4.9k", not "4.9-4.9k").
func tpsRange(lo, hi float64) string {
	f := func(v float64) string { return num(v) }
	unit := ""
	switch {
	case hi >= 10000:
		f, unit = func(v float64) string { return fmt.Sprintf("%.0f", v/1000) }, "k"
	case hi >= 1000:
		f, unit = func(v float64) string { return fmt.Sprintf("%.1f", v/1000) }, "k"
	case hi >= 100:
		f = func(v float64) string { return fmt.Sprintf("%.0f", v) }
	}
	if a, b := f(lo), f(hi); a != b {
		return a + "-" + b + unit
	}
	return f(lo) + unit
}

// feature is one number a run folder recorded per launch that may tell
// where a group of launches comes from.
type feature struct {
	key   string
	value func(in Input) float64
	// points: a share in percent, compared by points (at least minPts
	// apart) rather than by ratio (at least 10% apart).
	points bool
	text   finding.Text // %s slow, %s fast
}

const (
	featMinRatio = 0.10
	featMinPts   = 3.0
)

var features = []feature{
	{"jvm_cpu_ms_per_req", func(in Input) float64 { return metrics(in.Page)["jvm_cpu_ms_per_req"] }, false,
		finding.T("the JVM spent %s ms of CPU per request in the slower launches, %s in the faster: the difference is inside the JVM (the code the JIT compiled, GC work), not in the load",
			"较慢的启动中 JVM 每请求消耗 %s ms CPU，较快的为 %s：差别在 JVM 内部（JIT 编译出的代码、GC 工作），而不在负载")},
	{"gc_throughput_pct", func(in Input) float64 { return metrics(in.Page)["gc_throughput_pct"] }, true,
		finding.T("GC throughput %s in the slower launches, %s in the faster: the collector did more in some launches (heap and region sizes chosen at start: fix -Xms/-Xmx and the collector)",
			"较慢的启动中 GC 吞吐率为 %s，较快的为 %s：某些启动中收集器的工作更多（堆与区域大小在启动时选定：固定 -Xms/-Xmx 和收集器）")},
	{"cpu_spread_pts", cpuSpread, true,
		finding.T("the busiest CPU minus the least busy: %s points in the slower launches, %s in the faster: the JVM's threads and the load generator shared the CPUs differently (pin them apart, e.g. taskset -c)",
			"最忙与最闲 CPU 之差：较慢的启动中为 %s 个百分点，较快的为 %s：JVM 线程与压测端分配到 CPU 的方式不同（将两者绑定到不同 CPU，例如 taskset -c）")},
	{"other_cpu_pct", func(in Input) float64 {
		if r := runInfo(in); r.OtherCPUPct != nil {
			return *r.OtherCPUPct
		}
		return math.NaN()
	}, true, finding.T("other processes kept %s of the CPUs busy in the slower launches, %s in the faster: a neighbour",
		"较慢的启动中其他进程占用 %s 的 CPU，较快的为 %s：有邻居进程干扰")},
	{"steal_pct", func(in Input) float64 {
		if r := runInfo(in); r.StealPct != nil {
			return *r.StealPct
		}
		return math.NaN()
	}, true, finding.T("the hypervisor stole %s of the CPU in the slower launches, %s in the faster", "较慢的启动中虚拟化层窃取了 %s 的 CPU，较快的为 %s")},
}

// cpuSpread is the mean over a run's ticks of the busiest CPU's busy share
// minus the least busy's, in points (NaN with fewer than 2 CPUs).
func cpuSpread(in Input) float64 {
	var sum float64
	n := 0
	for _, t := range in.Page.CPU {
		if len(t.PerCPU) < 2 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, c := range t.PerCPU {
			b := c.Us + c.Sy + c.Hi + c.Si + c.St
			lo, hi = math.Min(lo, b), math.Max(hi, b)
		}
		sum += hi - lo
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// launchHints says what the run folders recorded that separates the
// slowest group of launches from the fastest: a feature whose every value
// in one group lies beyond every value in the other, at least 10% (or 3
// points) apart by their medians. Nothing is claimed of a feature that
// does not separate them; when none does, it says so.
func launchHints(gs []LaunchGroup, byDir map[string]Input) []finding.Text {
	slow, fast := gs[0], gs[len(gs)-1]
	if len(slow.Before)+len(slow.After) < 2 || len(fast.Before)+len(fast.After) < 2 {
		return nil
	}
	vals := func(g LaunchGroup, f feature) []float64 {
		var out []float64
		for _, d := range slices.Concat(g.Before, g.After) {
			v := f.value(byDir[d])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil
			}
			out = append(out, v)
		}
		slices.Sort(out)
		return out
	}
	var hints []finding.Text
	for _, f := range features {
		s, q := vals(slow, f), vals(fast, f)
		if len(s) == 0 || len(q) == 0 {
			continue
		}
		separated := s[len(s)-1] < q[0] || q[len(q)-1] < s[0]
		ms, mq := s[len(s)/2], q[len(q)/2]
		apartEnough := math.Abs(ms-mq) >= featMinPts
		if !f.points {
			apartEnough = math.Max(ms, mq) > 0 && math.Abs(ms-mq)/math.Max(ms, mq) >= featMinRatio
		}
		if !separated || !apartEnough {
			continue
		}
		show := func(v []float64) string {
			unit := ""
			if f.points && f.key != "cpu_spread_pts" {
				unit = "%"
			}
			if v[0] == v[len(v)-1] {
				return num(v[0]) + unit
			}
			return num(v[0]) + "-" + num(v[len(v)-1]) + unit
		}
		hints = append(hints, finding.Tf(f.text, show(s), show(q)))
	}
	if len(hints) == 0 {
		hints = append(hints, finding.T("nothing the run folders recorded separates the groups (JVM CPU per request, GC throughput, per-CPU load, other processes, steal; CPU frequency is not recorded): pin the JVM and the load generator to CPUs and fix the heap to rule those out",
			"运行目录记录的数据都无法区分这些组（每请求 JVM CPU、GC 吞吐率、各 CPU 负载、其他进程、窃取；CPU 频率未记录）：可将 JVM 与压测端绑定 CPU 并固定堆大小来排除这些因素"))
	}
	return hints
}

// Judgement is the verdict on one metric at one confidence (stats.Decide,
// the one place it is decided) with, when the interval and the rank test
// over launches disagree, why.
type Judgement struct {
	stats.Decision
	Why *finding.Text
}

// Judge decides the change e at confidence conf for compare's table and
// gate, an A/B run and an experiment alike: stats.Decide (higher: +1 when
// more is better), and why the tests disagree from the launch means b and
// a (before and after, in the order of e's launches).
func Judge(e stats.Estimate, higher int, powerPct, conf float64, b, a []float64) Judgement {
	j := Judgement{Decision: stats.Decide(e, higher, powerPct, conf)}
	if j.Agreement != stats.Agree {
		w := whyText(j.Agreement, e, conf, b, a)
		j.Why = &w
	}
	return j
}

// whyText says why the interval and the rank test over launches disagree
// (ag at confidence conf), with what the launches of the metric show.
func whyText(ag stats.Agreement, s stats.Estimate, conf float64, b, a []float64) finding.Text {
	level := fmt.Sprintf("%.0f%%", 100*conf)
	p := 1.0
	if rp := s.RankTestP(); !math.IsNaN(rp) {
		p = rp
	}
	var t finding.Text
	switch {
	case s.Method == stats.MethodPairedLaunches:
		t = pairedWhy(ag, s, level, p)
	case ag == stats.RankUnreachable:
		t = finding.Tf(finding.T("%d against %d launches: no rank test over launches can reach %s (its smallest p is %.3f), and the t interval alone takes the launches' spread for a normal one",
			"%d 对 %d 次启动：任何基于启动的秩检验都无法达到 %s（最小 p 值为 %.3f），仅凭 t 区间则是把启动间的波动当作正态分布"),
			s.NBefore, s.NAfter, level, stats.RankMinP(s.NBefore, s.NAfter))
	case ag == stats.RankNotSignificant:
		t = finding.Tf(finding.T("the t interval excludes 0 at %s but the U-test over launches does not agree (p = %.3f): the launches overlap more than a normal spread would",
			"t 区间在 %s 水平下不含 0，但基于启动的 U 检验不一致（p = %.3f）：各次启动的重叠超出正态分布的预期"), level, p)
	case ag == stats.IntervalNotSignificant:
		t = finding.Tf(finding.T("the U-test over launches is significant at %s (p = %.3f) but the t interval is not: the launches' spread widens the t more than their order says",
			"基于启动的 U 检验在 %s 水平下显著（p = %.3f），但 t 区间不显著：启动间的波动使 t 区间变宽的程度超过了它们的排序所显示的差异"), level, p)
	default:
		return finding.Text{}
	}
	if t.IsZero() {
		return t
	}
	gs := stats.Groups(slices.Concat(b, a))
	// Groups that are the two sides are what a change gives too: only
	// groups that cut across a side say something about the launches.
	across := false
	for _, side := range []bool{false, true} {
		n := 0
		for _, g := range gs {
			if slices.ContainsFunc(g.Members, func(m int) bool { return (m >= len(b)) == side }) {
				n++
			}
		}
		across = across || n > 1
	}
	if !across {
		return t
	}
	for _, g := range gs {
		if len(g.Members) == 1 && len(gs) > 1 {
			side, i := finding.T("before", "改动前"), g.Members[0]+1
			if g.Members[0] >= len(b) {
				side, i = finding.T("after", "改动后"), g.Members[0]-len(b)+1
			}
			return finding.Tf(finding.T("%s; one launch lies apart: %s run %d at %s", "%s；有一次启动偏离其余：%s第 %d 次运行，%s"), t, side, i, num(g.Lo))
		}
	}
	if len(gs) > 1 {
		var ranges []string
		for _, g := range gs {
			ranges = append(ranges, tpsRange(g.Lo, g.Hi))
		}
		return finding.Tf(finding.T("%s; the launches fall into %d groups (%s)", "%s；各次启动分成 %d 组（%s）"), t, len(gs), strings.Join(ranges, ", "))
	}
	return t
}

// pairedWhy is whyText's first clause for interleaved pairs of launches,
// judged by the paired t and the exact signed-rank test on the same pairs.
func pairedWhy(ag stats.Agreement, s stats.Estimate, level string, p float64) finding.Text {
	switch ag {
	case stats.RankUnreachable:
		return finding.Tf(finding.T("%d pairs of launches: no signed-rank test over the pairs can reach %s (its smallest p is %.3f, all pairs the same way), and the paired t alone takes the pairs' spread for a normal one",
			"%d 对启动：任何基于配对的符号秩检验都无法达到 %s（最小 p 值为 %.3f，即所有配对方向一致），仅凭配对 t 区间则是把配对间的波动当作正态分布"),
			min(s.NBefore, s.NAfter), level, s.RankMin())
	case stats.RankNotSignificant:
		return finding.Tf(finding.T("the paired t interval excludes 0 at %s but the signed-rank test over the same pairs does not agree (p = %.3f): the pairs' ratios are not one tight spread (a pair went the other way, or launches fell into modes)",
			"配对 t 区间在 %s 水平下不含 0，但同样配对上的符号秩检验不一致（p = %.3f）：各配对之比并非集中的单一分布（有配对方向相反，或启动落入不同模态）"), level, p)
	case stats.IntervalNotSignificant:
		return finding.Tf(finding.T("the signed-rank test over the pairs is significant at %s (p = %.3f) but the paired t interval is not: one pair far from the others widens the t more than the pairs' signs say",
			"配对上的符号秩检验在 %s 水平下显著（p = %.3f），但配对 t 区间不显著：某一配对远离其余配对，使 t 区间变宽的程度超过了各配对的符号所显示的差异"), level, p)
	}
	return finding.Text{}
}
