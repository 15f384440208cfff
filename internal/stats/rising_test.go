package stats

import (
	"math/rand/v2"
	"testing"
)

// ar1 is n seconds of throughput around level: AR(1) noise (a second
// leans on the one before, as a run's seconds do) with coefficient of
// variation cv, plus climb spread linearly over the seconds (0.2: the
// last second 20% above the first).
func ar1(rng *rand.Rand, n int, level, cv, phi, climb float64) []float64 {
	v := make([]float64, n)
	e := 0.0
	for i := range v {
		e = phi*e + rng.NormFloat64()*cv*level*0.87 // 0.87: sqrt(1-phi^2) at 0.5, so the SD is cv
		v[i] = level*(1+climb*float64(i)/float64(max(1, n-1))) + e
	}
	return v
}

// A flat run is not called still warming, whatever its noise and length
// (false calls: how often the gate's regression is held back for
// nothing); a run that climbs is, once it has the seconds to show it.
func TestStillRisingFalseCallsAndPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	const trials = 2000
	for _, n := range []int{6, 8, 10, 20, 30, 60} {
		for _, cv := range []float64{0.03, 0.10} {
			flat, climbing := 0, 0
			for range trials {
				if _, ok := StillRising(ar1(rng, n, 1000, cv, 0.5, 0)); ok {
					flat++
				}
				if _, ok := StillRising(ar1(rng, n, 1000, cv, 0.5, 0.5)); ok {
					climbing++
				}
			}
			t.Logf("%2d s, cv %.0f%%: flat called rising %5.2f%%, +50%% climb called %5.1f%%", n, 100*cv, 100*float64(flat)/trials, 100*float64(climbing)/trials)
			// A quiet run's seconds spread 3% (this VM's zoo services at
			// steady state: 3-4%), a very noisy one's 10%.
			if most := map[float64]float64{0.03: 0.005, 0.10: 0.03}[cv]; float64(flat)/trials > most {
				t.Errorf("%d s at cv %.0f%%: %d of %d flat runs called still rising, want at most %.1f%%", n, 100*cv, flat, trials, 100*most)
			}
			if (cv == 0.03 || n >= 30) && float64(climbing)/trials < 0.9 {
				t.Errorf("%d s at cv %.0f%%: a +50%% climb called rising in %d of %d, want 90%%+", n, 100*cv, climbing, trials)
			}
		}
	}
}

// A run cut short while the JIT still compiles: the first 13 s of a
// CPU-bound Java service's load after its start (recorded on a 2-core VM,
// 16 users). SteadyStart keeps most of the climb; StillRising says so.
// The same service's run of 40 s levels off, and is not called rising.
func TestStillRisingOnARecordedWarmUp(t *testing.T) {
	run := []float64{129, 160, 172, 177, 232, 238, 312, 578, 758, 1044, 1205, 1344, 1367, 1366, 1357, 1393, 1433, 1395, 1513, 1566,
		1587, 1462, 1538, 1581, 1583, 1605, 1598, 1592, 1496, 1522, 1474, 1549, 1550, 1516, 1507, 1487, 1559, 1582, 1577, 1592}
	short := run[:13]
	w := SteadyStart(short, nil)
	if rise, ok := StillRising(short[w:]); !ok {
		t.Errorf("13 s cut short in its warm-up (kept from second %d): rise %.0f%%, not called rising", w, 100*rise)
	}
	w = SteadyStart(run, nil)
	if rise, ok := StillRising(run[w:]); ok {
		t.Errorf("the 40 s run, kept from second %d: called rising (%.0f%%)", w, 100*rise)
	}
}
