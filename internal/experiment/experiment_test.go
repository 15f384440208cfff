package experiment

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/report"
)

// fakeRunner measures arm "speed=S" at S*100 TPS with noise drawn from the
// trial's key (the same trial measures the same, run now or on resume).
type fakeRunner struct {
	calls  []string
	cancel func() // called instead of measuring on call number stopAt
	stopAt int
	refuse string // an arm ID refused as a knob that did not take effect
}

func (f *fakeRunner) Trial(ctx context.Context, t TrialSpec, note func(Record) error) (Measurement, error) {
	f.calls = append(f.calls, t.Key)
	if f.cancel != nil && len(f.calls) == f.stopAt {
		f.cancel()
		return Measurement{}, ctx.Err()
	}
	if t.Arm.ID == f.refuse {
		return Measurement{}, &RefusedError{Text: finding.T("-Xmx did not take effect", "-Xmx 未生效")}
	}
	speed := 1.0
	for _, kv := range t.Overlay.Env {
		if kv[0] == "SPEED" {
			speed, _ = strconv.ParseFloat(kv[1], 64)
		}
	}
	h := fnv.New64a()
	h.Write([]byte(t.Key))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	m := Measurement{Dir: t.Dir}
	for range 10 {
		v := 100 * speed * (1 + 0.03*r.NormFloat64())
		m.TPS = append(m.TPS, v)
		m.P99MS = append(m.P99MS, 1000/v)
		m.Requests += int64(v)
	}
	return m, nil
}

func fakePlan(values ...string) *Plan {
	p := &Plan{
		Service:     Service{Start: "true", Target: "http://127.0.0.1:1/"},
		Repetitions: 2, Seed: 5,
		Knobs: []Knob{{Name: "speed", Kind: KindEnv, Key: "SPEED", Values: values, Baseline: "1"}},
	}
	if err := p.validate(); err != nil {
		panic(err)
	}
	return p
}

func TestGridFindsTheFasterArm(t *testing.T) {
	p := fakePlan("1", "1.5", "0.8")
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: t.TempDir(), Runner: &fakeRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Mode != "grid" || doc.Winner != "arm1" || doc.Confirm == nil {
		t.Fatalf("mode %s winner %q confirm %v", doc.Mode, doc.Winner, doc.Confirm)
	}
	if g := doc.Confirm.Objective; g.Verdict != "better" || g.Pct < 40 || g.Pct > 60 {
		t.Errorf("confirmed gain %+v, want about +50%% better", g)
	}
	// 3 arms x 2 blocks + 2 x 4 confirmation trials (4 a side: the fewest
	// an exact rank test over launches can judge at 95%).
	if len(doc.Trials) != 14 || doc.Confirm.Trials != 4 {
		t.Errorf("%d trials", len(doc.Trials))
	}
	if doc.Arms[0].ID != "base" || doc.Arms[1].ID != "arm1" || doc.Arms[1].Status != "winner" {
		t.Errorf("table: %+v", doc.Arms)
	}
	// Two screening trials a side: the t interval sees arm2 20% slower,
	// but no rank test over 2 against 2 launches can reach 5% (its
	// smallest p is 1/3): inconclusive, 2 more a side, and why.
	if g := doc.Arms[2].Gain; g == nil || g.Verdict != "inconclusive" || g.HiPct >= 0 || g.MoreRuns != 2 || g.Why == nil ||
		!strings.Contains(g.Why.EN, "2 against 2 launches: no rank test over launches can reach 95% (its smallest p is 0.333)") || g.Why.ZH == "" {
		t.Errorf("arm2's gain over 2 trials a side: %+v why %v", g, g.Why)
	}
	var b bytes.Buffer
	if err := report.WriteExperiment(&b, doc, report.Text, finding.EN); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Gain of arm1 (speed=1.5) over the baseline") || !strings.Contains(b.String(), "better") ||
		!strings.Contains(b.String(), "inconclusive: run 2 more (2 against 2 launches: no rank test") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestHalvingNarrowsThenConfirms(t *testing.T) {
	// 1.3 and 1.29 cannot be told apart in one round: they go on.
	p := fakePlan("1", "1.29", "0.5", "0.6", "0.7", "1.3", "0.8")
	r := &fakeRunner{}
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: t.TempDir(), Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Mode != "successive halving" || doc.Winner == "" {
		t.Fatalf("mode %s winner %q", doc.Mode, doc.Winner)
	}
	if l := doc.Arms[1].Label; (l != "speed=1.3" && l != "speed=1.29") || doc.Winner != doc.Arms[1].ID {
		t.Errorf("winner %s, ranked first %+v", doc.Winner, doc.Arms[1])
	}
	// The worst arms get only the first round's trials; the survivors more.
	trials := map[string]int{}
	for _, a := range doc.Arms {
		trials[a.Label] = a.Trials
	}
	if trials["speed=0.5"] != 2 || trials["speed=1.3"] <= 2 || trials["speed=1.29"] <= 2 {
		t.Errorf("trials per arm: %v", trials)
	}
	grid := 7 * 2 * (1 + 2 + 4)
	if len(r.calls) >= grid {
		t.Errorf("%d trials: no fewer than a grid at the survivors' depth (%d)", len(r.calls), grid)
	}
}

func TestRefusedArmIsOutNotMeasured(t *testing.T) {
	p := fakePlan("1", "2", "1.5")
	r := &fakeRunner{refuse: "arm1"}
	doc, err := Conduct(context.Background(), Options{Plan: p, Out: t.TempDir(), Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	var refusedRow *report.ExperimentArm
	for i := range doc.Arms {
		if doc.Arms[i].ID == "arm1" {
			refusedRow = &doc.Arms[i]
		}
	}
	if doc.Winner != "arm2" || refusedRow == nil || refusedRow.Status != "refused" || !strings.Contains(refusedRow.Why.EN, "did not take effect") {
		t.Errorf("winner %s, refused row %+v", doc.Winner, refusedRow)
	}
	n := 0
	for _, c := range r.calls {
		if strings.HasSuffix(c, "/arm1") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the refused arm was tried %d times", n)
	}
}

func TestResumeAfterStopAndTornLog(t *testing.T) {
	p := fakePlan("1", "1.5")
	// The whole experiment in one go: the reference.
	ref, err := Conduct(context.Background(), Options{Plan: p, Out: t.TempDir(), Runner: &fakeRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	r1 := &fakeRunner{cancel: cancel, stopAt: 4}
	doc, err := Conduct(ctx, Options{Plan: p, Out: out, Runner: r1})
	if !errors.Is(err, ErrStopped) || doc.Stopped == nil || !strings.Contains(doc.Stopped.EN, "trial 4") {
		t.Fatalf("stop: err %v stopped %v", err, doc.Stopped)
	}
	log := readFile(t, filepath.Join(out, LogFile))
	if !strings.Contains(log, `"op":"stopped"`) {
		t.Errorf("the log does not say where it stopped:\n%s", log)
	}
	// A crash mid-write: the last record cut in half.
	lines := strings.SplitAfter(log, "\n")
	last := lines[len(lines)-2]
	torn := strings.Join(lines[:len(lines)-2], "") + last[:len(last)/2]
	if err := os.WriteFile(filepath.Join(out, LogFile), []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	r2 := &fakeRunner{}
	doc, err = Conduct(context.Background(), Options{Plan: p, Out: out, Runner: r2})
	if err != nil {
		t.Fatal(err)
	}
	// Trials 1-3 came from the log; 4 (stopped) and the rest ran now.
	if len(r2.calls) != len(ref.Trials)-3 || r2.calls[0] != r1.calls[3] {
		t.Errorf("resumed calls %v after %v", r2.calls, r1.calls)
	}
	if doc.Winner != ref.Winner || report.FmtGain(doc.Confirm.Objective) != report.FmtGain(ref.Confirm.Objective) {
		t.Errorf("resumed result %s %s, uninterrupted %s %s", doc.Winner, report.FmtGain(doc.Confirm.Objective), ref.Winner, report.FmtGain(ref.Confirm.Objective))
	}
	// A third run finds it all done: nothing measured again.
	r3 := &fakeRunner{}
	if _, err := Conduct(context.Background(), Options{Plan: p, Out: out, Runner: r3}); err != nil || len(r3.calls) != 0 {
		t.Errorf("third run: %v, %d calls", err, len(r3.calls))
	}
	// Another plan in the same folder is refused.
	if _, err := Conduct(context.Background(), Options{Plan: fakePlan("1", "3"), Out: out, Runner: r3}); err == nil || !strings.Contains(err.Error(), "another plan") {
		t.Errorf("other plan: %v", err)
	}
}

func TestTrialLogDamageBeforeTheEndIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LogFile), []byte("{\"op\":\"plan\"}\nGARBAGE\n{\"op\":\"end\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(dir); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("damaged log: %v", err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A kill between apply and revert leaves the transaction open in the
// journal: the next run of the same experiment reverts it (and only its own).
func TestRevertLeftOpen(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc/sys/vm"), 0o755); err != nil {
		t.Fatal(err)
	}
	swap := filepath.Join(dir, "proc/sys/vm/swappiness")
	dirty := filepath.Join(dir, "proc/sys/vm/dirty_expire_centisecs")
	for p, v := range map[string]string{swap: "60\n", dirty: "3000\n"} {
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roots := hostfs.Under(dir)
	j := &apply.Journal{Dir: filepath.Join(t.TempDir(), "journal")}
	for _, g := range []apply.Group{
		{Finding: "experiment:/tmp/exp-a:screen/0/0/arm1", Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "vm.swappiness", Value: "10"}}},
		{Finding: "experiment:/tmp/exp-b:screen/0/0/arm1", Changes: []finding.Change{{Kind: finding.ChangeSysctl, Key: "vm.dirty_expire_centisecs", Value: "500"}}},
	} {
		if _, err := apply.Apply(j, apply.NewPlan(roots, []apply.Group{g}), apply.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	done, err := RevertLeftOpen(j, "experiment:/tmp/exp-a")
	if err != nil || len(done) != 1 {
		t.Fatalf("reverted %v: %v", done, err)
	}
	if got := readFile(t, swap); got != "60\n" {
		t.Errorf("swappiness %q after the revert", got)
	}
	if got := readFile(t, dirty); got != "500\n" {
		t.Errorf("another experiment's knob was touched: %q", got)
	}
	if done, err := RevertLeftOpen(j, "experiment:/tmp/exp-a"); err != nil || len(done) != 0 {
		t.Errorf("second time: %v %v", done, err)
	}
}
