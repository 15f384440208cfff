package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// Probe is what `tuneloop probe` measured on this host, as the audit cites
// it: a rule's why that is a platform cost gets the cost measured here
// (this package cannot import probe, which imports it: probe.Result.Costs
// builds one).
type Probe struct {
	// Source is the probe.json it was read from; Taken when it started.
	Source  string
	Taken   time.Time
	Quick   bool
	Figures map[string]ProbeFigure
}

// ProbeFigure is one measured figure: the median of Rounds repeats with its
// 95% interval [Lo, Hi] (OK: the interval reaches 95%).
type ProbeFigure struct {
	Median, Lo, Hi float64
	Unit           string
	Rounds         int
	OK             bool
}

// figure is the figure id when it was measured (a median from rounds).
func (p *Probe) figure(id string) (ProbeFigure, bool) {
	f, ok := p.Figures[id]
	if !ok || f.Rounds == 0 || math.IsNaN(f.Median) || math.IsInf(f.Median, 0) {
		return ProbeFigure{}, false
	}
	return f, true
}

// where says where a figure was read: the file and when it was taken.
func (p *Probe) where() string {
	return fmt.Sprintf("%s (tuneloop probe, %s)", p.Source, p.Taken.UTC().Format(time.RFC3339))
}

// evidence is a figure as evidence: median, interval, rounds, and a word
// when the rounds were too few for a 95% interval.
func (p *Probe) evidence(id string) (finding.Evidence, bool) {
	f, ok := p.figure(id)
	if !ok {
		return finding.Evidence{}, false
	}
	return finding.Evidence{Key: "probe " + id, Value: FigureString(f.Median, f.Lo, f.Hi, f.Unit, f.Rounds, f.OK), Source: p.where()}, true
}

// FigureString writes a measured figure with the evidence it rests on:
// "412 ns (95% interval 398-440, 7 rounds)".
func FigureString(median, lo, hi float64, unit string, rounds int, ok bool) string {
	s := sig4(median) + " " + unit + " ("
	if !math.IsNaN(lo) && !math.IsNaN(hi) {
		s += fmt.Sprintf("interval %s-%s, ", sig4(lo), sig4(hi))
	}
	s += fmt.Sprintf("%d rounds", rounds)
	if !ok {
		s += ", too few for a 95% interval"
	}
	return s + ")"
}

// sig4 writes x with 4 significant digits and no exponent: 22340, 235.5, 0.01234.
func sig4(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Sprint(x)
	}
	v, _ := strconv.ParseFloat(fmt.Sprintf("%.4g", x), 64)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// probeCite is a rule whose why is a platform cost the probe measures.
type probeCite struct {
	rules []string
	cite  func(p *Probe) (finding.Text, []finding.Evidence)
}

var probeCites = []probeCite{
	{rules: []string{"security.mitigations"}, cite: func(p *Probe) (finding.Text, []finding.Evidence) {
		return figuresSay(p, []string{"cpu.syscall", "cpu.ctxswitch"},
			T("what the mitigations move, measured on this host: a system call costs %s, a context switch %s", "缓解措施所影响的开销在本机实测：一次系统调用 %s，一次上下文切换 %s"))
	}},
	{rules: []string{"kernel.clocksource"}, cite: func(p *Probe) (finding.Text, []finding.Evidence) {
		return figuresSay(p, []string{"cpu.clock"}, T("a clock read (time.Now, System.nanoTime) costs %s on this host", "本机实测一次读时钟（time.Now、System.nanoTime）耗时 %s"))
	}},
	{rules: []string{"mem.thp.enabled"}, cite: func(p *Probe) (finding.Text, []finding.Evidence) {
		id := "mem.lat"
		if _, ok := p.figure(id); !ok {
			if loc := localRemote(p, "mem.lat"); loc.local > 0 {
				id = loc.localID
			}
		}
		return figuresSay(p, []string{id}, T("a random memory load (where TLB misses show) costs %s on this host in the current THP mode", "本机当前 THP 模式下一次随机内存加载（TLB 缺失在此体现）耗时 %s"))
	}},
	{rules: []string{"numa.topology", "jvm.numa.bind", "jvm.numa.use-numa", "numa.nic-locality"}, cite: numaCite},
}

// figuresSay fills say's %s with the figures ids (all of them measured, or
// nothing is said).
func figuresSay(p *Probe, ids []string, say finding.Text) (finding.Text, []finding.Evidence) {
	var ev []finding.Evidence
	var args []any
	for _, id := range ids {
		e, ok := p.evidence(id)
		if !ok {
			return finding.Text{}, nil
		}
		f, _ := p.figure(id)
		ev = append(ev, e)
		args = append(args, sig4(f.Median)+" "+f.Unit)
	}
	return T(fmt.Sprintf(say.EN, args...), fmt.Sprintf(say.ZH, args...)), ev
}

// nodePair is the mean over node pairs of a per-pair figure, local
// (cpuN_memN) and remote (cpuN_memM), and one local pair's id.
type nodePair struct {
	local, remote   float64
	nLocal, nRemote int
	localID         string
	ids             []string
}

func localRemote(p *Probe, prefix string) nodePair {
	var r nodePair
	ids := make([]string, 0, len(p.Figures))
	for id := range p.Figures {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rest, ok := strings.CutPrefix(id, prefix+".")
		if !ok {
			continue
		}
		var cpu, mem int
		if n, err := fmt.Sscanf(rest, "cpu%d_mem%d", &cpu, &mem); err != nil || n != 2 {
			continue
		}
		f, ok := p.figure(id)
		if !ok {
			continue
		}
		r.ids = append(r.ids, id)
		if cpu == mem {
			r.local += f.Median
			r.nLocal++
			if r.localID == "" {
				r.localID = id
			}
		} else {
			r.remote += f.Median
			r.nRemote++
		}
	}
	if r.nLocal > 0 {
		r.local /= float64(r.nLocal)
	}
	if r.nRemote > 0 {
		r.remote /= float64(r.nRemote)
	}
	return r
}

// numaCite: what remote memory costs here, local against remote latency
// and bandwidth over the node pairs the probe measured (several nodes only).
func numaCite(p *Probe) (finding.Text, []finding.Evidence) {
	lat, bw := localRemote(p, "mem.lat"), localRemote(p, "mem.read")
	if lat.nLocal == 0 || lat.nRemote == 0 || lat.local <= 0 {
		return finding.Text{}, nil
	}
	var ev []finding.Evidence
	for _, id := range append(slices.Clone(lat.ids), bw.ids...) {
		if e, ok := p.evidence(id); ok {
			ev = append(ev, e)
		}
	}
	en := fmt.Sprintf("measured on this host: remote memory latency %.4g ns against %.4g ns local (%.2fx, mean of %d remote and %d local node pairs)",
		lat.remote, lat.local, lat.remote/lat.local, lat.nRemote, lat.nLocal)
	zh := fmt.Sprintf("本机实测：远端内存延迟 %.4g ns，本地 %.4g ns（%.2f 倍，%d 个远端与 %d 个本地节点对的平均）",
		lat.remote, lat.local, lat.remote/lat.local, lat.nRemote, lat.nLocal)
	if bw.nLocal > 0 && bw.nRemote > 0 && bw.remote > 0 {
		en += fmt.Sprintf("; one core reads %.4g GB/s remote against %.4g GB/s local (%.0f%% less)", bw.remote, bw.local, 100*(1-bw.remote/bw.local))
		zh += fmt.Sprintf("；单核读带宽远端 %.4g GB/s，本地 %.4g GB/s（低 %.0f%%）", bw.remote, bw.local, 100*(1-bw.remote/bw.local))
	}
	return T(en, zh), ev
}

// Cite adds to f, when its why is a platform cost p measured, the figures
// with where they were read. Only failed findings (a recommendation)
// are explained; p may be nil.
func (p *Probe) Cite(f *finding.Finding) {
	if p == nil || f.Status != finding.Fail {
		return
	}
	for _, c := range probeCites {
		if !slices.Contains(c.rules, f.ID) && !slices.ContainsFunc(c.rules, func(id string) bool { return strings.HasPrefix(f.ID, id+"/") }) {
			continue
		}
		say, ev := c.cite(p)
		if say.IsZero() {
			return
		}
		f.Why = T(strings.TrimSpace(f.Why.EN+" Probe: "+say.EN+"."), strings.TrimSpace(f.Why.ZH+" 探测："+say.ZH+"。"))
		f.Evidence = append(slices.Clip(f.Evidence), ev...)
		return
	}
}

// EvaluateProbe is Evaluate with what a probe of this host measured (nil:
// none): findings whose why is a cost it measured cite it.
func EvaluateProbe(rs []Rule, f *sysinfo.Facts, prof Profile, p *Probe) []finding.Finding {
	fs := finding.Evaluate(rs, &Ctx{F: f, Profile: prof, Probe: p})
	for i := range fs {
		p.Cite(&fs[i])
	}
	return fs
}
