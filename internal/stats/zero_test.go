package stats

import (
	"math"
	"testing"
)

// Per-second values that are mostly 0 (JMeter's latency in whole
// milliseconds against a fast server): a resampled mean of 0 leaves the
// ratio undefined; Compare says so (not ok) instead of an interval of NaN.
func TestCompareMostlyZeroSeconds(t *testing.T) {
	b := [][]float64{{0, 0, 0, 1, 0, 0, 0, 0, 0, 0}}
	a := [][]float64{{0, 0, 0, 0, 0, 1, 0, 0, 0, 0}}
	e, ok := Compare(b, a)
	if ok || math.IsNaN(e.ChangePct) {
		t.Fatalf("ok %v, %+v", ok, e)
	}
	b = [][]float64{{3, 0, 2, 1, 2, 3, 1, 2, 2, 1, 2, 3}}
	if e, ok := Compare(b, b); !ok || math.IsNaN(e.LoPct) || math.IsNaN(e.HiPct) || e.LoPct > 0 || e.HiPct < 0 {
		t.Fatalf("a few zero seconds: ok %v, %+v", ok, e)
	}
}
