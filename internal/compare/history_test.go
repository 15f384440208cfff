package compare

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// benchSets reads the sets bench's launches (docs/bench/gate-sets: real
// zoo JVMs, one launch per run, sets taken one after the other in set
// order) as Inputs, by set: each launch 4 steady seconds at its TPS and
// p99, set s started s*10 minutes in, its launches a minute apart.
func benchSets(t *testing.T) (sets map[int][]Input, service map[int]string) {
	t.Helper()
	f, err := os.Open("../../docs/bench/gate-sets/launches.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	sets, service = map[int][]Input{}, map[int]string{}
	for _, row := range rows[1:] { // set service work_pct run tps p99_ms
		s, _ := strconv.Atoi(row[0])
		run, _ := strconv.Atoi(row[3])
		tps, _ := strconv.ParseFloat(row[4], 64)
		p99, _ := strconv.ParseFloat(row[5], 64)
		v := &report.LoadView{TPS: tps}
		for range 4 {
			v.Series = append(v.Series, report.LoadPoint{TPS: tps, P99MS: p99})
		}
		start := t0.Add(time.Duration(s)*10*time.Minute + time.Duration(run)*time.Minute)
		sets[s] = append(sets[s], Input{Path: fmt.Sprintf("set-%d/run-%d", s, run),
			Page: &report.RunPage{Run: &report.RunSummary{Start: start}, Load: v}})
		service[s] = row[1]
	}
	return sets, service
}

// benchComparisons are the sets bench's comparisons of 5 launches a side:
// set A (the unchanged build), set B and B's work in % of A's.
func benchComparisons(t *testing.T) (out [][3]int) {
	t.Helper()
	b, err := os.ReadFile("../../docs/bench/gate-sets/results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(l, "\t") // n service k work_b set_a set_b ...
		if f[2] != "5" {
			continue
		}
		work, _ := strconv.Atoi(f[3])
		a, _ := strconv.Atoi(f[4])
		sb, _ := strconv.Atoi(f[5])
		out = append(out, [3]int{a, sb, work})
	}
	return out
}

// TestGateOverSetsWithHistory replays the sets bench's comparisons (5
// real launches a side, sets taken one after the other) through the gate
// twice: alone, and with the sets taken before as the catalog's history
// of the service (other builds' sets included, as a catalog holds them).
// The history measures how far a whole set moves, and the widened gate
// must raise no more false alarms than the gate alone; the comparison the
// bench failed on a whole-set shift of p99 no longer fails.
func TestGateOverSetsWithHistory(t *testing.T) {
	sets, service := benchSets(t)
	type tally struct{ n, failed, inconclusive int }
	count := map[string]*tally{}
	add := func(key string, c *Comparison) {
		if count[key] == nil {
			count[key] = &tally{}
		}
		count[key].n++
		if c.Gate(5) {
			count[key].failed++
		} else if len(c.Inconclusive) > 0 {
			count[key].inconclusive++
		}
	}
	widened := 0
	for _, cmp := range benchComparisons(t) {
		a, b, work := cmp[0], cmp[1], cmp[2]
		h := &History{Source: "bench"}
		for s := max(a, b) - 1; s >= 1 && len(h.Sets) < 24; s-- {
			if s != a && service[s] == service[a] && len(sets[s]) >= 5 {
				h.Sets = append(h.Sets, sets[s][:5])
			}
		}
		kind := fmt.Sprintf("work %d%%", work)
		add(kind+" alone", CompareSetsWith(sets[a][:5], sets[b][:5], Options{PowerPct: 5}))
		c := CompareSetsWith(sets[a][:5], sets[b][:5], Options{PowerPct: 5, History: h})
		add(kind+" with history", c)
		if slices.ContainsFunc(c.Stats, func(s Stat) bool { return s.SetSpread != nil && s.SetSpread.Used }) {
			widened++
			if !slices.ContainsFunc(c.Warnings, func(w finding.Text) bool {
				return strings.Contains(w.EN, "intervals include that shift") && strings.Contains(w.ZH, "区间已计入该偏移")
			}) {
				t.Errorf("sets %d and %d: widened without saying so: %v", a, b, c.Warnings)
			}
		}
		if a == 94 && b == 96 && c.Gate(5) {
			t.Errorf("sets 94 and 96 (one build, p99 shifted as a whole) still fail with %d earlier sets: %+v", len(h.Sets), c.Regressions)
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := count[k]
		t.Logf("%-26s %d comparisons: gate failed %d, inconclusive %d", k, c.n, c.failed, c.inconclusive)
	}
	if widened == 0 {
		t.Fatal("no comparison had history enough to widen")
	}
	if alone, with := count["work 100% alone"], count["work 100% with history"]; with == nil || with.failed > alone.failed {
		t.Errorf("A/A: %d false alarms with history, %d alone", with.failed, alone.failed)
	}
}

// TestSetSpreadIsTheSetsNotTheLaunches: the same real launches, once in
// their sets and once dealt into sets at random (no set moves as a whole
// any more, each launch spread as before): the spread the estimator finds
// is the sets', not the launches', so it all but vanishes when dealt.
func TestSetSpreadIsTheSetsNotTheLaunches(t *testing.T) {
	sets, service := benchSets(t)
	for _, svc := range []string{"cpu-hot", "sync-logging"} {
		real := &History{}
		var pool []Input
		for s := 1; s <= 140; s++ {
			if service[s] == svc && len(sets[s]) >= 5 {
				real.Sets = append(real.Sets, sets[s][:5])
				pool = append(pool, sets[s][:5]...)
			}
		}
		r := rand.New(rand.NewPCG(7, 9))
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		dealt := &History{}
		for i, s := range real.Sets {
			runs := make([]Input, 5)
			for j := range runs {
				// Each dealt launch keeps its values, in the slot's time.
				runs[j] = pool[5*i+j]
				runs[j].Page = &report.RunPage{Run: s[j].Page.Run, Load: pool[5*i+j].Page.Load}
			}
			dealt.Sets = append(dealt.Sets, runs)
		}
		for _, key := range []string{"tps", "p99_ms"} {
			vr, pairs, _, ok1 := setSpread(real, key)
			vd, _, _, ok2 := setSpread(dealt, key)
			t.Logf("%s %s: %d pairs, set shift sd %.1f%% in the sets, %.1f%% dealt", svc, key, pairs, 100*math.Sqrt(vr), 100*math.Sqrt(vd))
			if !ok1 || !ok2 || vd >= vr/4 {
				t.Errorf("%s %s: variance %.5f in the sets, %.5f dealt at random", svc, key, vr, vd)
			}
		}
	}
}
