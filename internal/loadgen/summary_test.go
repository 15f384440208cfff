package loadgen

import (
	"fmt"
	"testing"
	"time"
)

func TestAggregatorBoundsLabels(t *testing.T) {
	g := NewAggregator()
	t0 := time.UnixMilli(1700000000000)
	for i := range 1000 {
		g.Add(&Sample{Start: t0.Add(time.Duration(i) * time.Millisecond), Elapsed: time.Millisecond,
			Label: fmt.Sprintf("GET /orders/%d", i), Code: 200, Success: true})
	}
	s := g.Summary("test")
	if len(s.Labels) != MaxLabels || s.Labels[MaxLabels-1].Label != OtherLabel || s.Labels[MaxLabels-1].Requests != 1000-MaxLabels+1 || s.Requests != 1000 {
		t.Fatalf("%d labels, last %+v", len(s.Labels), s.Labels[len(s.Labels)-1])
	}
}
