package threadrole

// Pools remembers what the threads of each pool were seen doing, so that a
// thread whose name is shared by pools of any role ("pool-1-thread-2") and
// whose stack says nothing (idle in ThreadPoolExecutor.getTask) takes the
// role its siblings' stacks showed (pool-1-thread-1 running
// ServerImpl$Exchange.run: the pool serves HTTP requests). Feed it every
// thread of every dump (Observe), then ask (Role). Not safe for concurrent
// use.
type Pools struct {
	threads map[string]Role
	votes   map[string]map[poolVote]int // pool -> roles its threads' stacks showed
}

type poolVote struct {
	kind      Kind
	framework string
	rule      string
}

// NewPools returns an empty Pools.
func NewPools() *Pools {
	return &Pools{threads: map[string]Role{}, votes: map[string]map[poolVote]int{}}
}

// Observe classifies one thread (stack leaf first, as Classify) and
// remembers it; the thread's best-founded role over all observations stays.
func (p *Pools) Observe(name string, stack []string) Role {
	r := Classify(name, stack)
	if old, ok := p.threads[name]; !ok || evidence(r) >= evidence(old) {
		p.threads[name] = r
	}
	if r.By == "stack" {
		v := p.votes[r.Pool]
		if v == nil {
			v = map[poolVote]int{}
			p.votes[r.Pool] = v
		}
		v[poolVote{r.Kind, r.Framework, r.Rule}]++
	}
	return r
}

// Role is the role of the thread named name: its own when a specific name
// or its stack decided; else the role most of its pool's observed stacks
// showed (By "pool"); else what its name says.
func (p *Pools) Role(name string) Role {
	r, ok := p.threads[name]
	if !ok {
		r = Classify(name, nil)
	}
	if evidence(r) >= evidenceStack {
		return r
	}
	var best poolVote
	n := 0
	for v, c := range p.votes[r.Pool] {
		if c > n || (c == n && v.rule < best.rule) {
			best, n = v, c
		}
	}
	if n == 0 {
		return r
	}
	return Role{Kind: best.kind, Framework: best.framework, Pool: r.Pool, By: "pool", Rule: best.rule}
}

// How well founded a role is.
const (
	evidenceNone   = iota // nothing matched
	evidenceShared        // a name pools of any role share
	evidenceStack         // a frame of the stack
	evidenceName          // a name only one role uses
)

func evidence(r Role) int {
	switch r.By {
	case "stack":
		return evidenceStack
	case "name":
		if r.Shared {
			return evidenceShared
		}
		return evidenceName
	}
	return evidenceNone
}
