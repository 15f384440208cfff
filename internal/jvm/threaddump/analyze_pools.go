package threaddump

import (
	"hash/maphash"
	"sort"
)

// Pool is the threads whose names differ only by a counter.
type Pool struct {
	Name     string    `json:"name"` // "http-nio-8080-exec-N"
	Threads  []*Thread `json:"-"`
	Size     int       `json:"size"`
	Busy     int       `json:"busy"`
	Idle     int       `json:"idle"`
	Runnable int       `json:"runnable"`
	Blocked  int       `json:"blocked"`
	Waiting  int       `json:"waiting"` // WAITING + TIMED_WAITING, idle ones excluded
}

// StackGroup is threads with the same state and identical stacks.
type StackGroup struct {
	State   State     `json:"state"`
	Frames  []Frame   `json:"frames"`
	Threads []*Thread `json:"-"`
	Names   []string  `json:"names"`
}

// PoolName is the thread name with its counter replaced by N:
// "http-nio-8080-exec-12" -> "http-nio-8080-exec-N", "GC Thread#3" -> "GC Thread#N",
// "RMI TCP Connection(23)-127.0.0.1" -> "RMI TCP Connection(N)-127.0.0.1".
func PoolName(name string) string {
	b := []byte(name)
	// Parenthesised counters first.
	out := make([]byte, 0, len(b))
	changed := false
	for i := 0; i < len(b); i++ {
		if b[i] == '(' {
			j := i + 1
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			if j > i+1 && j < len(b) && b[j] == ')' {
				out = append(out, '(', 'N', ')')
				i = j
				changed = true
				continue
			}
		}
		out = append(out, b[i])
	}
	// Then the last digit run, when it ends the name (ignoring a closing ] or )).
	end := len(out)
	for end > 0 && (out[end-1] == ']' || out[end-1] == ')' || out[end-1] == ' ') {
		end--
	}
	j := end
	for j > 0 && isDigit(out[j-1]) {
		j--
	}
	if j < end && !(j > 0 && out[j-1] == '.') { // not the end of an IP address or version
		out = append(append(out[:j:j], 'N'), out[end:]...)
		changed = true
	}
	if !changed {
		return name
	}
	return string(out)
}

func (r *Report) pools(d *Dump) {
	by := map[string]*Pool{}
	var order []string
	for _, t := range d.Threads {
		if t.State == StateNone {
			continue
		}
		n := PoolName(t.Name)
		if n == t.Name {
			continue
		}
		p := by[n]
		if p == nil {
			p = &Pool{Name: n}
			by[n] = p
			order = append(order, n)
		}
		p.Threads = append(p.Threads, t)
		p.Size++
		switch {
		case r.idle[t]:
			p.Idle++
		case t.State == StateBlocked:
			p.Blocked++
		case t.State == StateWaiting || t.State == StateTimedWaiting:
			p.Waiting++
		case t.State == StateRunnable:
			p.Runnable++
		}
		if !r.idle[t] {
			p.Busy++
		}
	}
	for _, n := range order {
		if p := by[n]; p.Size >= 2 {
			r.Pools = append(r.Pools, p)
		}
	}
	sort.SliceStable(r.Pools, func(i, j int) bool { return r.Pools[i].Size > r.Pools[j].Size })
}

var seed = maphash.MakeSeed()

func (r *Report) stackGroups(d *Dump) {
	type key struct {
		h uint64
		s State
	}
	by := map[key]*StackGroup{}
	var order []key
	var h maphash.Hash
	h.SetSeed(seed)
	for _, t := range d.Threads {
		st := t.Stack()
		if len(st) == 0 {
			continue
		}
		h.Reset()
		for _, f := range st {
			h.WriteString(f.Method)
			h.WriteByte(0)
			h.WriteString(f.Source)
			h.WriteByte(1)
		}
		k := key{h.Sum64(), t.State}
		g := by[k]
		if g == nil {
			g = &StackGroup{State: t.State, Frames: st}
			by[k] = g
			order = append(order, k)
		}
		g.Threads = append(g.Threads, t)
	}
	for _, k := range order {
		g := by[k]
		if len(g.Threads) < 2 {
			continue
		}
		for i, t := range g.Threads {
			if i == 10 {
				break
			}
			g.Names = append(g.Names, t.Name)
		}
		r.StackGroups = append(r.StackGroups, g)
	}
	sort.SliceStable(r.StackGroups, func(i, j int) bool { return len(r.StackGroups[i].Threads) > len(r.StackGroups[j].Threads) })
}
