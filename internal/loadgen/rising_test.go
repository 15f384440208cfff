package loadgen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// A load that ended while the service was still warming up says so, in
// both languages; a level one does not, nor one whose climb is its own
// ramp-up. The climbing series is the first
// 13 s of a CPU-bound Java service's load after its start (2-core VM,
// 16 users: the JIT compiling its hot path).
func TestTextSaysNotSteady(t *testing.T) {
	summary := func(tps ...int64) *Summary {
		s := &Summary{Model: "closed", Users: 16}
		for i, n := range tps {
			s.Series = append(s.Series, Second{T: i, Requests: n, P99: 1000 * 16 / float64(n)})
			s.Requests += n
		}
		return s
	}
	climbing := summary(129, 160, 172, 177, 232, 238, 312, 578, 758, 1044, 1205, 1344, 1367)
	level := summary(1462, 1538, 1581, 1583, 1605, 1598, 1592, 1496, 1522, 1474, 1549, 1550, 1516)
	// The same climb while the load itself ramped its users up (ramp-up
	// past the warm-up): throughput rises by design there.
	ramped := summary(129, 160, 172, 177, 232, 238, 312, 578, 758, 1044, 1205, 1344, 1367)
	ramped.RampS = 13
	for _, c := range []struct {
		s    *Summary
		lang finding.Lang
		want string
		has  bool
	}{
		{climbing, finding.EN, "NOT STEADY: throughput was still rising when the load ended", true},
		{climbing, finding.ZH, "未达稳态：压测结束时吞吐量仍在上升", true},
		{level, finding.EN, "NOT STEADY", false},
		{ramped, finding.EN, "NOT STEADY", false},
	} {
		var b bytes.Buffer
		if err := WriteText(&b, c.s, c.lang); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), c.want) != c.has {
			t.Errorf("%q in the text: %v, want %v\n%s", c.want, !c.has, c.has, b.String())
		}
	}
}
