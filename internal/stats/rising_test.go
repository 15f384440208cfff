package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 is n seconds of throughput around level: stationary AR(1) noise
// (a second leans on the one before, as a run's seconds do) with
// coefficient of variation cv, plus climb spread linearly over the
// seconds (0.5: the last second 50% above the first).
func ar1(rng *rand.Rand, n int, level, cv, phi, climb float64) []float64 {
	v := make([]float64, n)
	e := rng.NormFloat64() * cv * level
	for i := range v {
		e = phi*e + rng.NormFloat64()*cv*level*math.Sqrt(1-phi*phi)
		v[i] = level*(1+climb*float64(i)/float64(max(1, n-1))) + e
	}
	return v
}

// A level run is seldom called still warming up, whatever its noise, its
// seconds' autocorrelation and its length (a false call is a warning, and
// holds the gate back only when half the worse side's runs have one); a
// run that climbs 50% is, once it has the seconds to show it. Each run is
// cut by SteadyStart first, as compare does.
func TestStillRisingFalseCallsAndPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	const trials = 2000
	most := map[float64]float64{0.03: 0.005, 0.05: 0.02, 0.10: 0.05}
	for _, phi := range []float64{0.5, 0.8, 0.9} {
		for _, cv := range []float64{0.03, 0.05, 0.10} {
			for _, n := range []int{8, 20, 40} {
				flat, climbing := 0, 0
				for range trials {
					v := ar1(rng, n, 1000, cv, phi, 0)
					if _, ok := StillRising(v[SteadyStart(v, nil):]); ok {
						flat++
					}
					v = ar1(rng, n, 1000, cv, phi, 0.5)
					if _, ok := StillRising(v[SteadyStart(v, nil):]); ok {
						climbing++
					}
				}
				t.Logf("phi %.1f, cv %2.0f%%, %2d s: level called rising %5.2f%%, a 50%% climb %5.1f%%", phi, 100*cv, n, 100*float64(flat)/trials, 100*float64(climbing)/trials)
				if float64(flat)/trials > most[cv] {
					t.Errorf("phi %.1f, %d s at cv %.0f%%: %d of %d level runs called still rising, want at most %.1f%%", phi, n, 100*cv, flat, trials, 100*most[cv])
				}
				if cv == 0.03 && n == 40 && float64(climbing)/trials < 0.9 {
					t.Errorf("phi %.1f, 40 s at cv 3%%: a 50%% climb called rising in %d of %d, want 90%%+", phi, climbing, trials)
				}
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
