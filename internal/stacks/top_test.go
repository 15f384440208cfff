package stacks

import "testing"

func TestTop(t *testing.T) {
	p := &Profile{Samples: []Sample{
		{Stack: []string{"main", "serve", "parse"}, Value: 5},
		{Stack: []string{"main", "serve", "log", "log"}, Value: 3},
		{Stack: []string{"main", "gc"}, Value: 1},
	}}
	self, total := p.Top(2)
	if len(self) != 2 || self[0] != (FrameValue{"parse", 5, 5}) || self[1] != (FrameValue{"log", 3, 3}) {
		t.Errorf("self %+v", self)
	}
	// log is on its stack twice (recursion) and counts once.
	if len(total) != 2 || total[0] != (FrameValue{"main", 0, 9}) || total[1] != (FrameValue{"serve", 0, 8}) {
		t.Errorf("total %+v", total)
	}
	if s, tt := (&Profile{}).Top(5); s != nil || tt != nil {
		t.Errorf("empty profile: %v %v", s, tt)
	}
}
