package rules

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func testProbe(figs map[string]ProbeFigure) *Probe {
	return &Probe{Source: "probes/x/probe.json", Taken: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC), Figures: figs}
}

func TestProbeCite(t *testing.T) {
	sc := ProbeFigure{Median: 412.25, Lo: 398, Hi: 22345, Unit: "ns", Rounds: 7, OK: true}
	cs := ProbeFigure{Median: 1800, Lo: 1700, Hi: 1900, Unit: "ns", Rounds: 3, OK: false}
	p := testProbe(map[string]ProbeFigure{"cpu.syscall": sc, "cpu.ctxswitch": cs})

	f := finding.Finding{ID: "security.mitigations", Status: finding.Fail, Why: T("Mitigations cost.", "缓解措施有开销。")}
	p.Cite(&f)
	if got := f.EvidenceValue("probe cpu.syscall"); got != "412.2 ns (interval 398-22340, 7 rounds)" {
		t.Errorf("syscall evidence %q", got)
	}
	if got := f.EvidenceValue("probe cpu.ctxswitch"); !strings.HasSuffix(got, "3 rounds, too few for a 95% interval)") {
		t.Errorf("too few rounds not said: %q", got)
	}
	if !strings.Contains(f.Why.EN, "a system call costs 412.2 ns, a context switch 1800 ns") || !strings.Contains(f.Why.ZH, "一次系统调用 412.2 ns") {
		t.Errorf("why: %q / %q", f.Why.EN, f.Why.ZH)
	}
	for _, e := range f.Evidence {
		if !strings.Contains(e.Source, "probes/x/probe.json") || !strings.Contains(e.Source, "2026-11-27T09:00:00Z") {
			t.Errorf("source %q does not say where and when", e.Source)
		}
	}

	// A passing finding recommends nothing: nothing to explain.
	pass := finding.Finding{ID: "security.mitigations", Status: finding.Pass}
	p.Cite(&pass)
	if len(pass.Evidence) != 0 {
		t.Errorf("a pass cites the probe: %+v", pass.Evidence)
	}
	// A figure not measured (no rounds, NaN): nothing half-said.
	p2 := testProbe(map[string]ProbeFigure{"cpu.syscall": sc, "cpu.ctxswitch": {Median: math.NaN(), Unit: "ns"}})
	g := finding.Finding{ID: "security.mitigations", Status: finding.Fail}
	p2.Cite(&g)
	if len(g.Evidence) != 0 || g.Why.EN != "" {
		t.Errorf("cited with a figure missing: %+v %q", g.Evidence, g.Why.EN)
	}
	// No probe: nothing.
	var none *Probe
	none.Cite(&g)
}

func TestProbeCiteNUMANeedsSeveralNodes(t *testing.T) {
	lat := func(v float64) ProbeFigure {
		return ProbeFigure{Median: v, Lo: v, Hi: v, Unit: "ns", Rounds: 7, OK: true}
	}
	one := testProbe(map[string]ProbeFigure{"mem.lat": lat(90), "mem.read": {Median: 10, Unit: "GB/s", Rounds: 7}})
	f := finding.Finding{ID: "numa.topology", Status: finding.Fail}
	one.Cite(&f)
	if len(f.Evidence) != 0 {
		t.Errorf("one node cited as NUMA: %+v", f.Evidence)
	}
	// Two nodes, latency only (bandwidth not measured): the ratio alone.
	two := testProbe(map[string]ProbeFigure{"mem.lat.cpu0_mem0": lat(100), "mem.lat.cpu0_mem1": lat(130),
		"mem.lat.cpu1_mem1": lat(110), "mem.lat.cpu1_mem0": lat(140)})
	g := finding.Finding{ID: "jvm.numa.bind/pid 42", Status: finding.Fail}
	two.Cite(&g)
	if !strings.Contains(g.Why.EN, "remote memory latency 135 ns against 105 ns local (1.29x, mean of 2 remote and 2 local node pairs)") ||
		strings.Contains(g.Why.EN, "GB/s") {
		t.Errorf("why %q", g.Why.EN)
	}
	if len(g.Evidence) != 4 {
		t.Errorf("evidence %+v, want the 4 pairs", g.Evidence)
	}
}
