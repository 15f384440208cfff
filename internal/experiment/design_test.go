package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestArmsBaselineFirstAndLabels(t *testing.T) {
	arms := Arms([]Knob{
		{Name: "heap", Kind: KindJVM, Values: []string{"-Xmx64m", "-Xmx256m"}, Baseline: "-Xmx64m"},
		{Name: "gc", Kind: KindJVM, Values: []string{"-XX:+UseParallelGC", "-XX:+UseG1GC"}, Baseline: "-XX:+UseG1GC"},
	})
	var labels []string
	for _, a := range arms {
		labels = append(labels, a.ID+" "+a.Label)
	}
	want := []string{"base baseline", "arm1 gc=-XX:+UseParallelGC", "arm2 heap=-Xmx256m, gc=-XX:+UseParallelGC", "arm3 heap=-Xmx256m"}
	if !slices.Equal(labels, want) {
		t.Errorf("arms\n got %q\nwant %q", labels, want)
	}
}

func TestBlockIsASeededPermutation(t *testing.T) {
	arms := []int{0, 1, 2, 3, 4}
	seen := map[string]bool{}
	for b := 0; b < 20; b++ {
		name := fmt.Sprintf("screen/0/%d", b)
		o := Block(42, name, arms)
		s := slices.Clone(o)
		slices.Sort(s)
		if !slices.Equal(s, arms) {
			t.Fatalf("block %d is not a permutation: %v", b, o)
		}
		if !slices.Equal(o, Block(42, name, arms)) {
			t.Fatalf("block %d not reproducible", b)
		}
		seen[fmt.Sprint(o)] = true
	}
	// 20 blocks of 5 arms: a fixed order would give one; fresh ones many.
	if len(seen) < 10 {
		t.Errorf("only %d distinct orders in 20 blocks", len(seen))
	}
	// Each arm leads some block: no arm always runs first (warm caches, a cold host).
	first := map[int]bool{}
	for b := 0; b < 20; b++ {
		first[Block(42, fmt.Sprintf("screen/0/%d", b), arms)[0]] = true
	}
	if len(first) < 4 {
		t.Errorf("arms leading a block: %v", first)
	}
	if slices.Equal(Block(1, "x", arms), Block(2, "x", arms)) && slices.Equal(Block(1, "y", arms), Block(2, "y", arms)) {
		t.Errorf("the seed does not change the order")
	}
}

// synth is an arm measured n trials of 10 s at level TPS with 3% noise
// between trials and 5% between seconds.
func synth(r *rand.Rand, arm, n int, level, p99 float64) *ArmData {
	d := &ArmData{Arm: arm}
	for range n {
		lv := level * (1 + 0.03*r.NormFloat64())
		m := Measurement{Requests: int64(lv * 10)}
		for range 10 {
			m.TPS = append(m.TPS, lv*(1+0.05*r.NormFloat64()))
			m.P99MS = append(m.P99MS, p99*(1+0.05*r.NormFloat64()))
		}
		d.Trials = append(d.Trials, m)
	}
	return d
}

func TestHalve(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	// Six candidates: 1 and 2 close at the top, 3 and 4 clearly worse, 5
	// the fastest but over the p99 bound, 6 close to the leader too.
	cands := []*ArmData{
		synth(r, 1, 3, 1000, 50), synth(r, 2, 3, 990, 50), synth(r, 3, 3, 600, 50),
		synth(r, 4, 3, 500, 50), synth(r, 5, 3, 2000, 900), synth(r, 6, 3, 985, 50),
	}
	keep, drops := Halve(cands, MetricTPS, +1, Constraints{P99MS: 500})
	if len(keep) < 2 || len(keep) > 3 {
		t.Fatalf("kept %v (want at most half of 6, the two near the top at least)", keep)
	}
	for _, a := range []int{1, 2} {
		if !slices.Contains(keep, a) {
			t.Errorf("arm %d (near the top) dropped: keep %v", a, keep)
		}
	}
	why := map[int]string{}
	for _, d := range drops {
		why[d.Arm] = d.Reason.EN
	}
	if !strings.Contains(why[5], "p99") {
		t.Errorf("arm 5 (over the p99 bound): %q", why[5])
	}
	for _, a := range []int{3, 4} {
		if !strings.Contains(why[a], "significantly worse") {
			t.Errorf("arm %d: %q", a, why[a])
		}
	}
	// Minimising p99: the lowest p99 leads.
	lat := []*ArmData{synth(r, 1, 3, 100, 80), synth(r, 2, 3, 100, 20), synth(r, 3, 3, 100, 40)}
	keep, _ = Halve(lat, MetricP99, -1, Constraints{})
	if len(keep) > 2 || !slices.Contains(keep, 2) || slices.Contains(keep, 1) {
		t.Errorf("p99 halving kept %v", keep)
	}
	// Two indistinguishable arms: one goes by the mean (halving always halves), said so.
	same := []*ArmData{synth(r, 1, 2, 1000, 50), synth(r, 2, 2, 1000, 50)}
	keep, drops = Halve(same, MetricTPS, +1, Constraints{})
	if len(keep) != 1 || len(drops) != 1 || !strings.Contains(drops[0].Reason.EN, "lower half") {
		t.Errorf("tie: keep %v drops %v", keep, drops)
	}
}

func TestArmIntervalStaysPositive(t *testing.T) {
	d := &ArmData{Trials: []Measurement{{TPS: []float64{100, 110}}, {TPS: []float64{900, 1100}}}}
	iv := interval(d, MetricTPS)
	if iv.N != 2 || iv.Lo <= 0 || iv.Lo > iv.Mean || iv.Hi < iv.Mean || iv.Mean != 552.5 {
		t.Errorf("interval %+v", iv)
	}
	one := interval(&ArmData{Trials: []Measurement{{TPS: []float64{1, 100, 2}}}}, MetricTPS)
	if one.N != 1 || one.Lo != 0 {
		t.Errorf("one trial: %+v", one)
	}
}
