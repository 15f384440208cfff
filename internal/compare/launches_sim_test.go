package compare

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tuneloop/tuneloop/internal/report"
)

// simLaunch is one recorded launch: its steady-state throughput and p99.
type simLaunch struct{ tps, p99 float64 }

// readLaunches reads a testdata/launches file: "#" comment lines (where the
// launches come from), then "tps<TAB>p99_ms" per launch.
func readLaunches(t *testing.T, path string) []simLaunch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []simLaunch
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		fs := strings.Fields(s)
		if len(fs) != 2 {
			t.Fatalf("%s:%d: want tps and p99_ms, got %q", path, line, s)
		}
		tps, err1 := strconv.ParseFloat(fs[0], 64)
		p99, err2 := strconv.ParseFloat(fs[1], 64)
		if err1 != nil || err2 != nil || tps <= 0 || p99 <= 0 {
			t.Fatalf("%s:%d: %q", path, line, s)
		}
		out = append(out, simLaunch{tps, p99})
	}
	if len(out) < 6 {
		t.Fatalf("%s: %d launches, want 6 or more", path, len(out))
	}
	return out
}

// simSide draws k launches (with replacement) from pop as run pages, one
// after the other, the change slow applied (+0.1: 10% more work per
// request, so TPS / 1.1 and p99 x 1.1).
func simSide(r *rand.Rand, pop []simLaunch, k int, slow float64, start time.Time) []Input {
	out := make([]Input, k)
	for i := range out {
		l := pop[r.IntN(len(pop))]
		tps, p99 := l.tps/(1+slow), l.p99*(1+slow)
		v := &report.LoadView{TPS: tps}
		for range 4 {
			v.Series = append(v.Series, report.LoadPoint{TPS: tps, P99MS: p99})
		}
		out[i] = Input{Path: fmt.Sprintf("run-%d", i+1), Page: &report.RunPage{Run: &report.RunSummary{Start: start.Add(time.Duration(i) * time.Minute)}, Load: v}}
	}
	return out
}

// simGate runs trials comparisons of k launches a side drawn from pop, B
// slowed by slow, each through CompareSetsWith and Gate(pct) as `compare
// --fail-on-regression` does; it returns how many failed the gate and how
// many were inconclusive.
func simGate(pop []simLaunch, k, trials int, slow, pct float64, seed uint64) (failed, inconclusive int) {
	return simGateDesign(pop, k, trials, slow, pct, seed, "")
}

// simGateDesign is simGate judged as design (DesignPaired: the i-th
// launches of the two sides are a pair, as run --start-b takes them).
func simGateDesign(pop []simLaunch, k, trials int, slow, pct float64, seed uint64, design string) (failed, inconclusive int) {
	r := rand.New(rand.NewPCG(seed, uint64(k)))
	t0 := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	for range trials {
		b := simSide(r, pop, k, 0, t0)
		a := simSide(r, pop, k, slow, t0.Add(time.Duration(k+1)*time.Minute))
		c := CompareSetsWith(b, a, Options{PowerPct: pct, Design: design})
		switch {
		case c.Gate(pct):
			failed++
		case len(c.Inconclusive) > 0:
			inconclusive++
		}
	}
	return failed, inconclusive
}

// upper95 is the exact (Clopper-Pearson) upper bound of a rate of x in n
// at 95% (two-sided).
func upper95(x, n int) float64 {
	if x >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(x + 1), Beta: float64(n - x)}.Quantile(0.975)
}

// gateLevel is the false-alarm rate the README documents for the gate.
const gateLevel = 0.01

// The gate's false alarms, measured rather than assumed: A/A comparisons
// of 3, 5 and 10 launches a side, each launch drawn (with replacement)
// from a per-launch distribution in testdata/launches (the zoo's cpu-hot
// and sync-logging launches recorded on the shared 2-core VM, and the
// bimodal one issue 26 reports, reconstructed from its ranges), both sides
// from the same distribution, one set after the other as CI runs them,
// each judged by CompareSetsWith and Gate(5) as `compare
// --fail-on-regression 5` judges it. The exact 95% upper bound of the rate
// of exit 3 over 4000 trials must stay at or below the documented 1%.
// Power at +10%, +20% and +50% work (TPS / 1.1, p99 x 1.1, ...) is
// logged for the README and asserted only where it follows: none at 3 a
// side, where no rank test can reach 1%. With -short or -race (ten times
// slower) 400 trials: too few to bound the rate at 1%, so only a loose 3%
// is asserted then; `go test ./internal/compare -run FalseAlarms -v`
// gives the numbers.
func TestGateFalseAlarmsSimulated(t *testing.T) {
	files, _ := filepath.Glob("testdata/launches/*.tsv")
	if len(files) == 0 {
		t.Fatal("no recorded launches in testdata/launches")
	}
	trials, level := 4000, gateLevel
	if testing.Short() || raceOn {
		trials, level = 400, 3*gateLevel
	}
	for _, path := range files {
		pop := readLaunches(t, path)
		name := strings.TrimSuffix(filepath.Base(path), ".tsv")
		for _, k := range []int{3, 5, 10} {
			f, inc := simGate(pop, k, trials, 0, 5, 1)
			up := upper95(f, trials)
			t.Logf("%-22s %2d a side: A/A failed the 5%% gate in %d of %d (%.2f%%, 95%% upper bound %.2f%%), inconclusive %d", name, k, f, trials, 100*float64(f)/float64(trials), 100*up, inc)
			if up > level {
				t.Errorf("%s, %d a side: false alarms %d of %d, upper bound %.2f%% above %.0f%%", name, k, f, trials, 100*up, 100*level)
			}
			if k == 3 && f > 0 {
				t.Errorf("%s, 3 a side: %d false alarms where no rank test can reach 1%%", name, f)
			}
			for _, slow := range []float64{0.10, 0.20, 0.50} {
				pt := trials / 4
				pf, pi := simGate(pop, k, pt, slow, 5, 2)
				t.Logf("%-22s %2d a side: +%.0f%% work caught in %d of %d (%.0f%%), inconclusive %d", name, k, 100*slow, pf, pt, 100*float64(pf)/float64(pt), pi)
				if k == 3 && pf > 0 {
					t.Errorf("%s, 3 a side: +%.0f%% 'caught' %d times where no rank test can reach 1%%", name, 100*slow, pf)
				}
			}
		}
	}
}

// TestGatePowerCurve (make bench-gate MODE=sim; skipped otherwise, a few
// minutes): the gate's power over the recorded launches at slowdowns from
// +5% to +100%, sequential sets of 5 and 10 launches a side and 8 and 10
// interleaved pairs (launches drawn alike, so no drift for the pairs to
// cancel: their price, the signed-rank test, without their gain), and the
// smallest slowdown caught in 90% of trials, interpolated between the
// grid's points.
func TestGatePowerCurve(t *testing.T) {
	if os.Getenv("TUNELOOP_GATE_POWER") == "" {
		t.Skip("make bench-gate MODE=sim")
	}
	files, _ := filepath.Glob("testdata/launches/*.tsv")
	grid := []float64{0.05, 0.10, 0.15, 0.20, 0.30, 0.40, 0.50, 0.60, 0.80, 1.00}
	const trials = 1000
	for _, path := range files {
		pop := readLaunches(t, path)
		name := strings.TrimSuffix(filepath.Base(path), ".tsv")
		for _, d := range []struct {
			k      int
			design string
		}{{5, ""}, {10, ""}, {8, DesignPaired}, {10, DesignPaired}} {
			k := d.k
			var row []string
			at90, prevSlow, prevP := "over +100%", 0.0, 0.0
			found := false
			for _, slow := range grid {
				f, _ := simGateDesign(pop, k, trials, slow, 5, 3, d.design)
				p := float64(f) / trials
				row = append(row, fmt.Sprintf("+%.0f%% %.0f%%", 100*slow, 100*p))
				if !found && p >= 0.9 {
					x := slow
					if p > prevP {
						x = prevSlow + (0.9-prevP)/(p-prevP)*(slow-prevSlow)
					}
					at90, found = fmt.Sprintf("+%.0f%%", 100*x), true
				}
				prevSlow, prevP = slow, p
			}
			unit := "a side"
			if d.design == DesignPaired {
				unit = "pairs"
			}
			fmt.Printf("%-24s %2d %-6s: caught %s; 90%% power at %s (%d trials a point)\n", name, k, unit, strings.Join(row, ", "), at90, trials)
		}
	}
}
