package stacks

// Node is one frame of a merged stack tree (a flame graph's data): Value
// counts the samples through it, and its children sum to at most Value.
type Node struct {
	Name     string  `json:"name"`
	Value    int     `json:"value"`
	Children []*Node `json:"children,omitempty"`
}

// Add merges one stack (root frame first) into the tree, count times.
func (n *Node) Add(stack []string, count int) {
	n.Value += count
	cur := n
	for _, fr := range stack {
		var next *Node
		for _, c := range cur.Children {
			if c.Name == fr {
				next = c
				break
			}
		}
		if next == nil {
			next = &Node{Name: fr}
			cur.Children = append(cur.Children, next)
		}
		next.Value += count
		cur = next
	}
}
