package html

// The flame graph's data: the merged stack tree cut to the biggest frames,
// laid out as absolutely positioned boxes the page's script can zoom.

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// flameHTML is the flame graph section: Shown of Nodes frames, Total samples.
type flameHTML struct {
	Source string
	Height int // pixels
	Total  int
	Shown  int
	Nodes  int
	Frames []flameFrame
}

// flameFrame is one box of the graph, placed in percent of the width and
// pixels from the bottom.
type flameFrame struct {
	Left, Width, Bottom string // CSS numbers
	Name, Title, Color  string
	Label               bool
}

type flameItem struct {
	n     *report.FlameNode
	depth int
}

// flameHeap is a max-heap of frames by samples.
type flameHeap []flameItem

func (h flameHeap) Len() int           { return len(h) }
func (h flameHeap) Less(i, j int) bool { return h[i].n.Value > h[j].n.Value }
func (h flameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *flameHeap) Push(x any)        { *h = append(*h, x.(flameItem)) }
func (h *flameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// flameSection lays out the tree under root, cut to maxFlameNodes frames;
// nil when there are no samples.
func flameSection(root *report.FlameNode, source string, L map[string]string) *flameHTML {
	return flameSectionUnit(root, source, "", L)
}

// flameSectionUnit is flameSection of a profile whose values are in unit
// (bytes, nanoseconds; "" or samples: counts), said so in each tooltip.
func flameSectionUnit(root *report.FlameNode, source, unit string, L map[string]string) *flameHTML {
	if root == nil || root.Value <= 0 {
		return nil
	}
	total := 0
	var count func(n *report.FlameNode)
	count = func(n *report.FlameNode) {
		total++
		for _, c := range n.Children {
			if c != nil {
				count(c)
			}
		}
	}
	count(root)
	// Keep the biggest nodes: a child is never bigger than its parent, so
	// taking from a max-heap seeded with the root keeps the set connected.
	keep := map[*report.FlameNode]bool{}
	h := &flameHeap{{root, 0}}
	for h.Len() > 0 && len(keep) < maxFlameNodes {
		it := heap.Pop(h).(flameItem)
		if it.n.Value <= 0 {
			continue
		}
		keep[it.n] = true
		for _, c := range it.n.Children {
			if c != nil {
				heap.Push(h, flameItem{c, it.depth + 1})
			}
		}
	}
	f := &flameHTML{Source: source, Total: root.Value, Nodes: total}
	const rowH = 17
	maxDepth := 0
	rv := float64(root.Value)
	var walk func(n *report.FlameNode, x float64, depth int)
	walk = func(n *report.FlameNode, x float64, depth int) {
		maxDepth = max(maxDepth, depth)
		w := float64(n.Value) / rv
		name := finding.SafeOneLine(n.Name)
		if depth == 0 && name == "" {
			name = "all"
		}
		pct := 100 * w
		f.Frames = append(f.Frames, flameFrame{
			Left: fmt.Sprintf("%.4f", 100*x), Width: fmt.Sprintf("%.4f", 100*w), Bottom: fmt.Sprint(depth * rowH),
			Name:  name,
			Title: fmt.Sprintf("%s\n%s (%.2f%%)", name, fmtUnitValue(int64(n.Value), unit, L), pct),
			Color: flameColor(name, depth == 0), Label: pct >= 2.5,
		})
		kids := make([]*report.FlameNode, 0, len(n.Children))
		for _, c := range n.Children {
			if c != nil && keep[c] {
				kids = append(kids, c)
			}
		}
		// alphabetical, like the classic flame graph, so the order is stable
		slices.SortStableFunc(kids, func(a, b *report.FlameNode) int { return cmp.Compare(a.Name, b.Name) })
		cx := x
		for _, c := range kids {
			walk(c, cx, depth+1)
			cx += float64(c.Value) / rv
		}
	}
	walk(root, 0, 0)
	f.Shown = len(f.Frames)
	f.Height = (maxDepth + 1) * rowH
	return f
}

// flameColor is a warm colour derived from the frame name (stable across
// renders), JVM/JDK frames slightly cooler so application code stands out.
func flameColor(name string, root bool) string {
	if root {
		return "#c8c8c8"
	}
	var hsh uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		hsh = (hsh ^ uint32(name[i])) * 16777619
	}
	f := float64(hsh%1000) / 1000
	if strings.HasPrefix(name, "java.") || strings.HasPrefix(name, "jdk.") || strings.HasPrefix(name, "sun.") {
		return fmt.Sprintf("#%02x%02x%02x", 200+int(40*f), 170+int(50*f), 90+int(40*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", 225+int(30*f), 110+int(100*f), 50+int(40*f))
}
