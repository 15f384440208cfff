package remote

import (
	"context"
	"testing"
	"time"
)

func TestEstimateOffset(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ss := []ClockSample{
		// 10 ms round trip: remote read at 5 s ahead + 4 ms into it.
		{Send: t0, Recv: t0.Add(10 * time.Millisecond), Remote: t0.Add(5*time.Second + 4*time.Millisecond)},
		// 2 ms round trip, the best: remote = local mid + 5 s.
		{Send: t0.Add(time.Second), Recv: t0.Add(time.Second + 2*time.Millisecond), Remote: t0.Add(6*time.Second + time.Millisecond)},
		{Send: t0.Add(2 * time.Second), Recv: t0.Add(2*time.Second + 30*time.Millisecond), Remote: t0.Add(7 * time.Second)},
	}
	o, ok := EstimateOffset(ss)
	if !ok || o.Offset != 5*time.Second || o.Bound != time.Millisecond || o.N != 3 || !o.At.Equal(t0.Add(time.Second+time.Millisecond)) {
		t.Errorf("%+v %v", o, ok)
	}
	if _, ok := EstimateOffset(nil); ok {
		t.Error("an offset from no round trip")
	}
}

// TestClockProbe measures a "host" whose clock is 5 s ahead (a stand-in
// binary adds it) through the real sshd: the offset is found within its
// bound, before and after, over one copy of the binary.
func TestClockProbe(t *testing.T) {
	d := startSSHD(t)
	c, err := Dial(context.Background(), d.Spec(), opts(d))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bin := script(t, `[ "$1" = clock ] || exit 9
echo ready
while read -r _; do echo $(( $(date +%s%N) + 5000000000 )); done
`)
	p, err := c.StartClock(context.Background(), bin, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for round := range 2 {
		ss, err := p.Measure(context.Background(), 8)
		if err != nil || len(ss) != 8 {
			t.Fatalf("round %d: %d samples, %v", round, len(ss), err)
		}
		o, _ := EstimateOffset(ss)
		// date runs in a fork: its read is inside the round trip; 1 ms of
		// slack for date's own start.
		if diff := o.Offset - 5*time.Second; diff < -o.Bound-time.Millisecond || diff > o.Bound+time.Millisecond || o.Bound > 50*time.Millisecond {
			t.Errorf("round %d: offset %v ±%v, want 5s", round, o.Offset, o.Bound)
		}
	}
}
