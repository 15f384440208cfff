package stacks

// The difference between two profiles of the same code, before and after a
// change: which frames grew and which shrank. Raw counts of two recordings
// do not compare (one ran longer, or under more load), so each side is
// normalised first: per request when both sides know how many requests they
// served (a run's load.json), else per total (each frame's share of its own
// profile).

import (
	"fmt"
	"regexp"
	"sort"
)

// Norm says how a Diff's values were normalised.
type Norm string

const (
	// PerRequest: each side's values divided by the requests it served.
	PerRequest Norm = "per-request"
	// PerTotal: each side's values divided by its own total (a share).
	PerTotal Norm = "per-total"
)

// DiffNode is one frame of the merged before/after tree, with the
// normalised value of the stacks through it on each side.
type DiffNode struct {
	Name     string      `json:"name"`
	Before   float64     `json:"before"`
	After    float64     `json:"after"`
	Children []*DiffNode `json:"children,omitempty"`
}

// FrameDelta is one frame's self value (where it is the leaf: the code
// that itself ran) on each side, normalised, and the change.
type FrameDelta struct {
	Frame  string  `json:"frame"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Delta  float64 `json:"delta"`
	// New: the frame is on no stack of before; Gone: on no stack of after.
	New  bool `json:"new,omitempty"`
	Gone bool `json:"gone,omitempty"`
}

// Diff is two profiles compared.
type Diff struct {
	Kind Kind   `json:"kind"`
	Unit string `json:"unit"`
	Norm Norm   `json:"norm"`
	// Totals are the raw totals; Denoms what each side was divided by
	// (requests, or the total).
	BeforeTotal int64     `json:"before_total"`
	AfterTotal  int64     `json:"after_total"`
	BeforeDenom float64   `json:"before_denom"`
	AfterDenom  float64   `json:"after_denom"`
	Root        *DiffNode `json:"-"`
	// Grew are the frames whose self value grew most, biggest growth
	// first; Shrank those that shrank most, biggest fall first.
	Grew   []FrameDelta `json:"grew"`
	Shrank []FrameDelta `json:"shrank"`
}

// threadID is the " tid=N" of async-profiler's thread frames: a new
// number in every run, so it would make every thread new and gone.
var threadID = regexp.MustCompile(` tid=\d+\]$`)

// threadRooted: async-profiler's -t output, every stack under a thread
// frame ("[worker-1 tid=42]").
func threadRooted(p *Profile) bool {
	for _, s := range p.Samples {
		if len(s.Stack) == 0 || !threadID.MatchString(s.Stack[0]) || s.Stack[0][0] != '[' {
			return false
		}
	}
	return len(p.Samples) > 0
}

func diffFrame(f string) string {
	if len(f) > 0 && f[0] == '[' {
		return threadID.ReplaceAllString(f, "]")
	}
	return f
}

// NewDiff compares before and after, per request when both request
// counts are positive, else per total; Grew and Shrank hold up to n
// frames each.
func NewDiff(before, after *Profile, beforeReq, afterReq int64, n int) (*Diff, error) {
	if before == nil || after == nil {
		return nil, fmt.Errorf("flame diff: a side has no profile")
	}
	if before.Kind != after.Kind {
		return nil, fmt.Errorf("flame diff: a %s profile and a %s profile do not compare", before.Kind, after.Kind)
	}
	d := &Diff{Kind: after.Kind, Unit: after.Unit, Norm: PerRequest, BeforeTotal: before.Total, AfterTotal: after.Total,
		BeforeDenom: float64(beforeReq), AfterDenom: float64(afterReq)}
	if beforeReq <= 0 || afterReq <= 0 {
		d.Norm, d.BeforeDenom, d.AfterDenom = PerTotal, float64(before.Total), float64(after.Total)
	}
	// A side split by thread against one that is not (a JFR recording, or
	// collapsed stacks without -t): the thread frames go, so the same code
	// meets the same code.
	skip := map[bool]int{}
	if tb, ta := threadRooted(before), threadRooted(after); tb != ta {
		if tb {
			skip[false] = 1
		} else {
			skip[true] = 1
		}
	}
	d.Root = &DiffNode{Name: "all"}
	kids := map[*DiffNode]map[string]*DiffNode{}
	self := map[string]*FrameDelta{}
	onBefore, onAfter := map[string]bool{}, map[string]bool{}
	add := func(p *Profile, den float64, after bool) {
		if den <= 0 {
			return
		}
		on := onBefore
		if after {
			on = onAfter
		}
		for _, s := range p.Samples {
			if len(s.Stack) <= skip[after] {
				continue
			}
			v := float64(s.Value) / den
			cur := d.Root
			bump := func(n *DiffNode) {
				if after {
					n.After += v
				} else {
					n.Before += v
				}
			}
			bump(cur)
			var leaf string
			for _, f := range s.Stack[skip[after]:] {
				f = diffFrame(f)
				on[f] = true
				m := kids[cur]
				if m == nil {
					m = map[string]*DiffNode{}
					kids[cur] = m
				}
				next := m[f]
				if next == nil {
					next = &DiffNode{Name: f}
					m[f] = next
					cur.Children = append(cur.Children, next)
				}
				bump(next)
				cur, leaf = next, f
			}
			fd := self[leaf]
			if fd == nil {
				fd = &FrameDelta{Frame: leaf}
				self[leaf] = fd
			}
			if after {
				fd.After += v
			} else {
				fd.Before += v
			}
		}
	}
	add(before, d.BeforeDenom, false)
	add(after, d.AfterDenom, true)
	all := make([]FrameDelta, 0, len(self))
	for _, fd := range self {
		fd.Delta = fd.After - fd.Before
		fd.New, fd.Gone = !onBefore[fd.Frame], !onAfter[fd.Frame]
		all = append(all, *fd)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Delta != all[j].Delta {
			return all[i].Delta > all[j].Delta
		}
		return all[i].Frame < all[j].Frame
	})
	for _, fd := range all {
		if len(d.Grew) == n || fd.Delta <= 0 {
			break
		}
		d.Grew = append(d.Grew, fd)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Delta < all[j].Delta })
	for _, fd := range all {
		if len(d.Shrank) == n || fd.Delta >= 0 {
			break
		}
		d.Shrank = append(d.Shrank, fd)
	}
	return d, nil
}
