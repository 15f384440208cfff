package compare

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// launch is one run of its own JVM: 12 steady seconds at tps (a little
// per-second noise), p99 = 50000/tps ms (a closed model's latency), the
// JVM's CPU cpuPerReq ms per request on a 2-CPU host, started at start.
func launch(dir string, start time.Time, tps, cpuPerReq float64) Input {
	l := &report.LoadView{TPS: tps}
	for i := range 12 {
		x := tps * (1 + 0.004*float64(i%3-1))
		l.Series = append(l.Series, report.LoadPoint{TPS: x, P50MS: 20000 / x, P99MS: 50000 / x})
	}
	run := &report.RunSummary{Start: start, Host: report.Host{Hostname: "ci-1", Kernel: "6.1.0", Logical: 2}}
	run.Stats.Ticks = 12
	run.Stats.ProcCPU = cpuPerReq * tps / 10 // % of one core: ms/req * req/s / 1000 * 100
	run.Stats.Busy = run.Stats.ProcCPU/2 + 5 // other processes: 5% of the CPUs
	return Input{Path: dir, Page: &report.RunPage{Title: "healthy @ http://127.0.0.1:8080/api", Run: run, Load: l}}
}

func set(name string, start time.Time, tps ...float64) []Input {
	var out []Input
	for i, v := range tps {
		// The slow mode costs the JVM more CPU per request (its JIT's
		// code, say): what the hint should find.
		cpu := 0.030
		if v < 52000 {
			cpu = 0.036
		}
		out = append(out, launch(fmt.Sprintf("%s/run-%d", name, i+1), start.Add(time.Duration(i)*30*time.Second), v, cpu))
	}
	return out
}

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// Issue 26's false alarm: three fast launches before, three slow after,
// one set after the other. The old gate failed it at 99%; now it is not
// a verdict, says why, and asks for launches enough for a rank test.
func TestGateIssue26Case(t *testing.T) {
	b := set("a", t0, 58100, 59800, 56500)
	a := set("b", t0.Add(2*time.Minute), 47200, 46300, 47900)
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	if c.Design != DesignUnpaired || c.Stats[0].Method != "welch-t-and-exact-u-over-launches" {
		t.Fatalf("design %s %+v", c.Design, c.Stats[0])
	}
	if c.Stats[0].GateHiPct >= -5 {
		t.Fatalf("the t interval alone would not fail it: %+v", c.Stats[0])
	}
	if c.Gate(5) {
		t.Fatalf("gated as a regression: %v", c.Regressions)
	}
	if len(c.Inconclusive) == 0 || !strings.Contains(c.Inconclusive[0].EN, "3 against 3 launches: no rank test over launches can reach 99% (its smallest p is 0.100)") ||
		!strings.Contains(c.Inconclusive[0].EN, "U-test over launches p = 0.100") || !strings.Contains(c.Inconclusive[0].EN, fmt.Sprintf("run %d more per side", c.Stats[0].GateMoreRuns)) ||
		c.Stats[0].GateMoreRuns < 2 || strings.Contains(c.Inconclusive[0].EN, "groups") {
		t.Errorf("inconclusive %v", c.Inconclusive)
	}
	if !strings.Contains(c.Inconclusive[0].ZH, "无法达到 99%") {
		t.Errorf("zh %s", c.Inconclusive[0].ZH)
	}
	// Each side in one group: the groups are the sides, which a change
	// would give too; no claim of modes.
	if c.LaunchGroups != nil {
		t.Errorf("groups claimed where the sides are the groups: %+v", c.LaunchGroups)
	}
	var txt bytes.Buffer
	if err := writeText(&txt, c, finding.EN, 5); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"the unit of replication is the JVM launch", "Throughput (steady state): 3 against 3 launches", "INCONCLUSIVE"} {
		if !strings.Contains(txt.String(), w) {
			t.Errorf("%q missing:\n%s", w, txt.String())
		}
	}
}

// Launches in two groups that cut across the sides are reported as modes,
// with the recorded number that separates them (here the JVM's CPU per
// request) and none that does not.
func TestLaunchGroupsAndHints(t *testing.T) {
	b := set("a", t0, 58100, 47100, 59800, 57400, 46600)
	a := set("b", t0.Add(3*time.Minute), 47200, 56800, 46300, 58900, 47900)
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	if len(c.LaunchGroups) != 2 {
		t.Fatalf("groups %+v", c.LaunchGroups)
	}
	g := groupsText(c.LaunchGroups)
	if g.EN != "launches fall into 2 groups (46-48k, 57-60k TPS): before 2/3 launches, after 3/2" {
		t.Errorf("groups text %q", g.EN)
	}
	if len(c.LaunchHints) != 1 || !strings.Contains(c.LaunchHints[0].EN, "the JVM spent 0.036 ms of CPU per request in the slower launches, 0.030 in the faster") {
		t.Errorf("hints %v", c.LaunchHints)
	}
	var warned bool
	for _, w := range c.Warnings {
		warned = warned || strings.HasPrefix(w.EN, "launches fall into 2 groups")
	}
	if !warned {
		t.Errorf("groups not in the warnings: %v", c.Warnings)
	}
	// A/A of a bimodal build: no verdict either way, the gate passes or
	// says inconclusive, never fails.
	if c.Gate(5) {
		t.Errorf("A/A of a bimodal build failed the gate: %v", c.Regressions)
	}
	// Nothing recorded separates them: said so.
	for _, in := range append(b, a...) {
		in.Page.Run.Stats.ProcCPU = 0.03 * in.Page.Load.TPS / 10
		in.Page.Run.Stats.Busy = in.Page.Run.Stats.ProcCPU/2 + 5
	}
	c = CompareSetsWith(b, a, Options{PowerPct: 5})
	if len(c.LaunchHints) != 1 || !strings.HasPrefix(c.LaunchHints[0].EN, "nothing the run folders recorded separates the groups") {
		t.Errorf("hints %v", c.LaunchHints)
	}
}

// One launch far off on one side: the rank test sees the sides apart, the
// t interval does not; inconclusive, naming the launch.
func TestWhyOutlier(t *testing.T) {
	b := set("a", t0, 58100, 58300, 57900, 58200, 58000)
	a := set("b", t0.Add(3*time.Minute), 55100, 55300, 54900, 55200, 31000)
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	st := c.Stats[0]
	if st.Agreement != "interval-not-significant" || st.Verdict != "inconclusive" || st.Why == nil ||
		!strings.Contains(st.Why.EN, "one launch lies apart: after run 5 at 31000") {
		t.Errorf("%+v why %v", st, st.Why)
	}
}

// A baseline from another JDK is refused by the gate, with the advice; the
// environments come from the manifests (LoadEnv on a real run folder).
func TestBaselineOtherEnvironment(t *testing.T) {
	env, ok := LoadEnv("../verdict/testdata/runs/healthy")
	if !ok || env.Host != "vm" || env.Kernel != "6.18.44-fc-v769" || env.CPUs != 2 || env.JDK != "Debian 17.0.15" || len(env.Flags) != 0 {
		t.Fatalf("env %+v %v", env, ok)
	}
	if _, ok := LoadEnv("../verdict/testdata/runs/healthy/report.json"); !ok {
		t.Error("a report.json's folder: no manifest read")
	}
	b := set("a", t0, 58100, 58300, 57900, 58200, 58000)
	a := set("b", t0.Add(3*time.Minute), 52100, 52300, 51900, 52200, 52000)
	other := env
	other.JDK, other.Flags = "Eclipse Adoptium 21.0.5", []string{"-XX:+UseZGC"}
	for i := range b {
		b[i].Env, a[i].Env = &env, &other
	}
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	if len(c.EnvDiffs) != 2 || !strings.Contains(c.EnvDiffs[0].EN, "JDK: Debian 17.0.15 before, Eclipse Adoptium 21.0.5 after") || !strings.Contains(c.EnvDiffs[1].EN, "JVM flags") {
		t.Errorf("diffs %v", c.EnvDiffs)
	}
	if c.Gate(5) || len(c.Inconclusive) != 1 || !strings.HasPrefix(c.Inconclusive[0].EN, "refused: the sides' launches ran in different environments") ||
		!strings.Contains(c.Inconclusive[0].EN, "--start-b NEW") {
		t.Errorf("gate: %v %v", c.Regressions, c.Inconclusive)
	}
	// Only the flags differ (a tuning step's change): warned, not refused.
	flagsOnly := env
	flagsOnly.Flags = []string{"-Xmx2g"}
	for i := range b {
		a[i].Env = &flagsOnly
	}
	c = CompareSetsWith(b, a, Options{PowerPct: 5})
	if len(c.EnvDiffs) != 1 || c.EnvRefused || !c.Gate(5) {
		t.Errorf("flags only: diffs %v refused %v regressions %v inconclusive %v", c.EnvDiffs, c.EnvRefused, c.Regressions, c.Inconclusive)
	}
	// The same environment: a 10% fall over 5 launches a side fails.
	for i := range b {
		a[i].Env = &env
	}
	c = CompareSetsWith(b, a, Options{PowerPct: 5})
	if len(c.EnvDiffs) != 0 || !c.Gate(5) {
		t.Errorf("same environment: diffs %v regressions %v inconclusive %v", c.EnvDiffs, c.Regressions, c.Inconclusive)
	}
}

// A baseline recorded a day before, and a set taken right after the
// other: warned, and, with no earlier sets to measure how far a set
// shifts, their intervals widened by a launch's spread; sets whose
// launches overlap in time are not.
func TestBaselineApart(t *testing.T) {
	b := set("a", t0, 58100, 59300, 57200, 58900, 57600)
	near := set("b", t0.Add(3*time.Minute), 56100, 57300, 55900, 56600, 55400)
	far := set("b", t0.Add(26*time.Hour), 56100, 57300, 55900, 56600, 55400)
	mixed := set("b", t0.Add(15*time.Second), 56100, 57300, 55900, 56600, 55400)
	unpaired := Options{PowerPct: 5, Design: DesignUnpaired}
	cn, cf, cm := CompareSetsWith(b, near, unpaired), CompareSetsWith(b, far, unpaired), CompareSetsWith(b, mixed, unpaired)
	if cn.ApartHours != 0 || cf.ApartHours < 25.9 || cf.ApartHours > 26.1 {
		t.Fatalf("apart %v %v", cn.ApartHours, cf.ApartHours)
	}
	wn, wf, wm := cn.Stats[0].HiPct-cn.Stats[0].LoPct, cf.Stats[0].HiPct-cf.Stats[0].LoPct, cm.Stats[0].HiPct-cm.Stats[0].LoPct
	if wf < 1.3*wm || wn < 1.3*wm || cm.Stats[0].SetSpread != nil {
		t.Errorf("intervals %.2f points wide a day apart, %.2f one set after the other, %.2f overlapping (%+v)", wf, wn, wm, cm.Stats[0].SetSpread)
	}
	if !slices.ContainsFunc(cn.Warnings, func(w finding.Text) bool { return strings.Contains(w.EN, "assumes as much as one launch's spread") }) {
		t.Errorf("one set after the other, warnings %v", cn.Warnings)
	}
	var warned bool
	for _, w := range cf.Warnings {
		warned = warned || strings.Contains(w.EN, "recorded 26.0 h apart")
	}
	if !warned {
		t.Errorf("warnings %v", cf.Warnings)
	}
}

// One launch a side never fails the gate; two runs of one running JVM
// (one target PID) are no launches, and are judged on their seconds as
// before.
func TestGateOneLaunchASide(t *testing.T) {
	b, a := set("a", t0, 58000), set("b", t0.Add(time.Minute), 46000)
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	if c.Gate(5) || len(c.Inconclusive) == 0 || !strings.Contains(c.Inconclusive[0].EN, "from one JVM launch a side") {
		t.Errorf("one launch a side: %v %v", c.Regressions, c.Inconclusive)
	}
	b[0].Page.Run.TargetPID, a[0].Page.Run.TargetPID = 4242, 4242
	c = CompareSetsWith(b, a, Options{PowerPct: 5})
	if !c.Gate(5) {
		t.Errorf("one JVM, two runs: %v %v", c.Regressions, c.Inconclusive)
	}
}

// climbing turns a launch's 12 seconds into a run cut off in its warm-up:
// throughput climbing from lo to hi, second by second (the JIT still
// compiling the hot path when the load stopped).
func climbing(in Input, lo, hi float64) Input {
	l := in.Page.Load
	for i := range l.Series {
		x := lo + (hi-lo)*float64(i)/11
		l.Series[i] = report.LoadPoint{TPS: x, P50MS: 20000 / x, P99MS: 50000 / x}
	}
	return in
}

// Six launches a side, the after side 20% slower: a regression when the
// runs are at steady state; not a verdict when the runs were all still
// warming up when their load stopped (their means say how far each
// warm-up got), and the warning names them and what to do; a regression
// again when only the baseline's were.
func TestGateRunsStillWarmingUp(t *testing.T) {
	tb := []float64{50000, 50400, 49800, 50900, 49500, 50200}
	ta := []float64{40100, 39800, 40500, 40300, 39600, 40000}
	b, a := set("a", t0, tb...), set("b", t0.Add(5*time.Minute), ta...)
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	if !c.Gate(5) {
		t.Fatalf("flat runs 20%% slower: no regression (%v)", c.Inconclusive)
	}
	for _, r := range c.Before.Runs {
		if r.RisingPct != nil {
			t.Errorf("%s: flat run called still rising (%.0f%%)", r.Dir, *r.RisingPct)
		}
	}
	for i := range b {
		b[i], a[i] = climbing(b[i], 0.4*tb[i], tb[i]), climbing(a[i], 0.4*ta[i], ta[i])
	}
	c = CompareSetsWith(b, a, Options{PowerPct: 5})
	if c.Gate(5) {
		t.Fatalf("runs still warming up gated as a regression: %v", c.Regressions)
	}
	if len(c.Inconclusive) == 0 || !strings.Contains(c.Inconclusive[0].EN, "is not a verdict: 12 of 12 runs were still warming up when their load ended") ||
		!strings.Contains(c.Inconclusive[0].EN, "lengthen --warm-up") || !strings.Contains(c.Inconclusive[0].ZH, "仍在预热") {
		t.Errorf("inconclusive %v", c.Inconclusive)
	}
	warned := false
	for _, w := range c.Warnings {
		warned = warned || strings.Contains(w.EN, "a/run-1, a/run-2")
	}
	if !warned {
		t.Errorf("no warning naming the runs still warming up: %v", c.Warnings)
	}
	// Only the baseline still warming up, the candidate level and slower:
	// its fall is if anything larger, and still a regression.
	b = set("a", t0, tb...)
	for i := range b {
		b[i] = climbing(b[i], 0.8*tb[i], 1.2*tb[i]) // its mean: tb
	}
	a = set("b", t0.Add(5*time.Minute), ta...)
	c = CompareSetsWith(b, a, Options{PowerPct: 5})
	if !c.Gate(5) {
		t.Errorf("a level candidate 20%% below a baseline still warming up: no regression (%v)", c.Inconclusive)
	}
}

// withFinding makes the finding id fail in the runs of in at idx.
func withFinding(in []Input, id string, idx ...int) {
	for _, i := range idx {
		in[i].Page.Run.Findings = append(in[i].Page.Run.Findings, finding.Finding{ID: id, Status: finding.Fail, Severity: finding.Critical, Title: finding.T(id, id)})
	}
}

// Over several launches a side, a finding that failed on one side only is
// gone or new when chance could hardly have put all its failures there
// (Fisher's exact test at 5%), else it is listed apart as unsure with its
// counts; each finding says in how many runs of each side it failed.
func TestFindingsOverLaunchesNeedMoreThanOneRun(t *testing.T) {
	b := set("a", t0, 58100, 59800, 56500, 57000, 58800)
	a := set("b", t0.Add(10*time.Minute), 58000, 59000, 57500, 56900, 58200)
	withFinding(b, "run.fixed", 0, 1, 2, 3, 4) // 5/5 before, 0/5 after: gone
	withFinding(a, "run.brought", 0, 1, 2, 4)  // 0/5, 4/5: new (p = 0.024)
	withFinding(a, "run.flaky", 3)             // 0/5, 1/5: unsure (p = 0.5)
	withFinding(b, "run.flaky-gone", 1, 2, 3)  // 3/5, 0/5: unsure (p = 0.083)
	withFinding(b, "run.both", 2)
	withFinding(a, "run.both", 0, 1)
	c := CompareSets(b, a, 5)
	keys := func(fs []FindingRef) string {
		var out []string
		for _, f := range fs {
			out = append(out, fmt.Sprintf("%s %d/%d", f.Key, f.RunsBefore, f.RunsAfter))
		}
		return strings.Join(out, ", ")
	}
	for _, g := range []struct{ name, got, want string }{
		{"gone", keys(c.Gone), "run.fixed 5/0"},
		{"new", keys(c.New), "run.brought 0/4"},
		{"still there", keys(c.Persist), "run.both 1/2"},
		{"unsure", keys(c.Unsure), "run.flaky-gone 3/0, run.flaky 0/1"},
	} {
		if g.got != g.want {
			t.Errorf("%s: %q, want %q", g.name, g.got, g.want)
		}
	}
	var out strings.Builder
	if err := Write(&out, c, nil, report.Text, finding.EN, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"On one side only, in too few runs to tell from chance", "(run.flaky; before 0/5, after 1/5)", "(run.brought; before 0/5, after 4/5)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, out.String())
		}
	}
	// One run a side: no test can tell; the single runs speak, as before.
	c = CompareSets(b[3:4], a[3:4], 5)
	if keys(c.New) != "run.flaky 0/1" || keys(c.Gone) != "run.fixed 1/0, run.flaky-gone 1/0" || len(c.Unsure) != 0 {
		t.Errorf("one run a side: new %q, gone %q, unsure %q", keys(c.New), keys(c.Gone), keys(c.Unsure))
	}
}

// The load generator on the host (tuneloop's own process, JMeter's) is
// the run's, not a neighbour: other processes' CPU leaves it out, so a
// fast service's generator does not read as noise.
func TestOtherCPULeavesOutTheGenerator(t *testing.T) {
	b, a := set("a", t0, 58100, 59800, 56500), set("b", t0.Add(10*time.Minute), 58000, 59000, 57500)
	for _, in := range append(b, a...) {
		in.Page.Load.ClientCPU = 30
		in.Page.Run.Stats.Busy += 30
	}
	if o := runInfo(b[0]).OtherCPUPct; o == nil || *o < 4.9 || *o > 5.1 {
		t.Errorf("other processes' CPU %v, want 5 (the generator's 30 left out)", o)
	}
	for _, w := range CompareSets(b, a, 5).Warnings {
		if strings.Contains(w.EN, "other processes") {
			t.Errorf("the generator read as a neighbour: %s", w.EN)
		}
	}
}

// A group's range prints as the user reads it: both ends when they differ
// at the printed precision, one value when they do not.
func TestTPSRange(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{46300, 47866, "46-48k"},
		{4900, 4902, "4.9k"},
		{4446, 4576, "4.4-4.6k"},
		{460, 480, "460-480"},
		{56566, 56600, "57k"},
	} {
		if got := tpsRange(c.lo, c.hi); got != c.want {
			t.Errorf("tpsRange(%v, %v) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

// A regression found over two sets taken one after the other says that a
// shift of the whole set fails the gate too, and how to confirm it; not
// when the change is not a regression.
func TestGateSaysSetsMayHaveShifted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 29, 12, 36, 0, 0, time.UTC)
	// Issue 26's bench, comparison 90 (p99 per launch 7.3-10.1 ms before,
	// 10.4-14.9 after, throughput within its spread), the after side's
	// p99 half as large again: what still fails once the interval allows
	// one launch's spread for a shift of the whole set.
	pop := func(p99 ...float64) []simLaunch {
		var out []simLaunch
		for i, p := range p99 {
			out = append(out, simLaunch{tps: 7000 + 100*float64(i), p99: p})
		}
		return out
	}
	caveat := func(c *Comparison) bool {
		return slices.ContainsFunc(c.Warnings, func(w finding.Text) bool { return strings.Contains(w.EN, "fails the gate as a change does") })
	}
	b := simSide(r, pop(7.26, 10.10, 7.41, 8.34, 7.88), 5, 0, t0)
	after := []float64{16.35, 15.65, 19.58, 20.00, 22.40}
	a := simSide(r, pop(after...), 5, 0, t0.Add(5*time.Minute))
	// simSide draws with replacement: make each side exactly its launches.
	for i, p := range []float64{7.26, 10.10, 7.41, 8.34, 7.88} {
		b[i].Page.Load.Series = b[i].Page.Load.Series[:0]
		for range 4 {
			b[i].Page.Load.Series = append(b[i].Page.Load.Series, report.LoadPoint{TPS: 7000, P99MS: p})
		}
	}
	for i, p := range after {
		a[i].Page.Load.Series = a[i].Page.Load.Series[:0]
		for range 4 {
			a[i].Page.Load.Series = append(a[i].Page.Load.Series, report.LoadPoint{TPS: 7000, P99MS: p})
		}
	}
	c := CompareSetsWith(b, a, Options{PowerPct: 5})
	if !c.Gate(5) || !caveat(c) || !strings.Contains(c.Warnings[len(c.Warnings)-1].ZH, "交替运行") {
		t.Fatalf("gate %v, regressions %v, warnings %v", c.Gate(5), c.Regressions, c.Warnings)
	}
	if n := len(c.Warnings); !c.Gate(5) || len(c.Warnings) != n {
		t.Errorf("judged twice, the caveat is said twice: %v", c.Warnings)
	}
	// The same sets the other way round: an improvement, no caveat.
	c = CompareSetsWith(a, b, Options{PowerPct: 5})
	if c.Gate(5) || caveat(c) {
		t.Errorf("an improvement: %v %v", c.Regressions, c.Warnings)
	}
}
