package stacks

import (
	"sort"
)

// FrameValue is one frame's share of a profile: Self where it is the leaf
// (the code that itself ran, allocated or waited), Total anywhere on the
// stack (counted once per stack, so recursion does not count twice).
type FrameValue struct {
	Frame string `json:"frame"`
	Self  int64  `json:"self"`
	Total int64  `json:"total"`
}

// Top is the n frames with the most self value and the n with the most
// total value, biggest first (ties by name, so the order is stable).
func (p *Profile) Top(n int) (bySelf, byTotal []FrameValue) {
	acc := map[string]*FrameValue{}
	get := func(f string) *FrameValue {
		v := acc[f]
		if v == nil {
			v = &FrameValue{Frame: f}
			acc[f] = v
		}
		return v
	}
	seen := map[string]bool{}
	for _, s := range p.Samples {
		if len(s.Stack) == 0 {
			continue
		}
		get(s.Stack[len(s.Stack)-1]).Self += s.Value
		clear(seen)
		for _, f := range s.Stack {
			if !seen[f] {
				seen[f] = true
				get(f).Total += s.Value
			}
		}
	}
	all := make([]FrameValue, 0, len(acc))
	for _, v := range acc {
		all = append(all, *v)
	}
	pick := func(key func(FrameValue) int64) []FrameValue {
		sort.Slice(all, func(i, j int) bool {
			if a, b := key(all[i]), key(all[j]); a != b {
				return a > b
			}
			return all[i].Frame < all[j].Frame
		})
		var out []FrameValue
		for _, v := range all {
			if len(out) == n || key(v) == 0 {
				break
			}
			out = append(out, v)
		}
		return out
	}
	bySelf = pick(func(v FrameValue) int64 { return v.Self })
	byTotal = pick(func(v FrameValue) int64 { return v.Total })
	return bySelf, byTotal
}
