package threaddump

import (
	"sort"
	"strings"
)

// Report is the analysis of one dump.
type Report struct {
	Dump *Dump `json:"-"`

	Threads    int `json:"threads"`
	Java       int `json:"java"`        // threads with a Java state
	VMInternal int `json:"vm_internal"` // GC, compiler, VM Thread
	Unknown    int `json:"unknown"`     // Java threads without a state (JDK 21 JSON)
	Virtual    int `json:"virtual"`
	Carriers   int `json:"carriers"` // platform threads carrying a virtual thread

	States  []StateCount  `json:"states"`
	Details []DetailCount `json:"details"`

	// Idle counts Java threads waiting for work (pool workers on their task
	// queue, timers, selectors, reference handlers): not part of the problem.
	Idle int `json:"idle"`
	// Active = Java - Idle.
	Active  int `json:"active"`
	Blocked int `json:"blocked"` // active threads BLOCKED
	Waiting int `json:"waiting"` // active threads WAITING or TIMED_WAITING
	// BlockedWaitingShare = (Blocked+Waiting)/Active: the share of working
	// threads not running. RawBlockedWaitingShare counts idle threads too
	// (what a tool that does not recognise pools reports).
	BlockedWaitingShare    float64 `json:"blocked_waiting_share"`
	RawBlockedWaitingShare float64 `json:"raw_blocked_waiting_share"`

	Pools       []*Pool       `json:"pools"`
	StackGroups []*StackGroup `json:"stack_groups"`
	// Locks: every monitor and j.u.c lock seen (held, wanted or waited on),
	// most waiters first.
	Locks     []*Lock     `json:"locks"`
	Deadlocks []*Deadlock `json:"deadlocks"`
	Culprits  []*Culprit  `json:"culprits"`
	// Waits are working threads waiting on futures, permits or queues,
	// joined to the threads that serve them (waitgraph.go).
	Waits []*WaitGroup `json:"waits,omitempty"`

	idle    map[*Thread]bool
	culprit map[*Thread]*Fingerprint
}

// IsIdle reports whether t was recognised as waiting for work.
func (r *Report) IsIdle(t *Thread) bool { return r.idle[t] }

// StateCount is the number of Java threads in one state.
type StateCount struct {
	State State `json:"state"`
	Count int   `json:"count"`
}

// DetailCount splits a state by its detail ("WAITING (parking)").
type DetailCount struct {
	State  State  `json:"state"`
	Detail string `json:"detail,omitempty"`
	Count  int    `json:"count"`
}

// scanDepth bounds how deep fingerprints look: callers far below the top
// (servlet filters, main) say nothing about what the thread waits for.
const scanDepth = 32

// matcher caches, per distinct method, which patterns it starts with.
type matcher struct {
	fp     map[string]int // method -> index in Fingerprints, -1 none
	holder map[string]int
	flags  map[string]uint8
}

const (
	flagIdle uint8 = 1 << iota
	flagSocketRead
	flagQueueTake
	flagPause
	flagTask
)

func newMatcher() *matcher {
	return &matcher{fp: map[string]int{}, holder: map[string]int{}, flags: map[string]uint8{}}
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func (m *matcher) flag(method string) uint8 {
	f, ok := m.flags[method]
	if !ok {
		if hasAnyPrefix(method, idleFrames) {
			f |= flagIdle
		}
		if hasAnyPrefix(method, socketReadFrames) {
			f |= flagSocketRead
		}
		if hasAnyPrefix(method, queueTakeFrames) {
			f |= flagQueueTake
		}
		if hasAnyPrefix(method, pauseFrames) {
			f |= flagPause
		}
		if hasAnyPrefix(method, taskFrames) {
			f |= flagTask
		}
		m.flags[method] = f
	}
	return f
}

// fpFrame: index of the first fingerprint (table order) whose Frames match method.
func (m *matcher) fpFrame(method string) int {
	i, ok := m.fp[method]
	if !ok {
		i = -1
		for k, fp := range Fingerprints {
			if hasAnyPrefix(method, fp.Frames) {
				i = k
				break
			}
		}
		m.fp[method] = i
	}
	return i
}

// Analyze computes the report of one dump.
func Analyze(d *Dump) *Report {
	r := &Report{Dump: d, idle: map[*Thread]bool{}, culprit: map[*Thread]*Fingerprint{}}
	m := newMatcher()
	r.Threads = len(d.Threads)

	stateN := map[State]int{}
	type dk struct {
		s State
		d string
	}
	detailN := map[dk]int{}
	for _, t := range d.Threads {
		if t.Virtual {
			r.Virtual++
		}
		if t.Carrying != 0 {
			r.Carriers++
		}
		if t.State == StateNone {
			if d.Format == FormatJSON || d.Format == FormatPlain {
				r.Unknown++ // JDK 21 JSON prints no states; these are Java threads
			} else {
				r.VMInternal++
			}
			continue
		}
		r.Java++
		stateN[t.State]++
		detailN[dk{t.State, t.StateDetail}]++
	}
	for _, s := range States {
		if n := stateN[s]; n > 0 {
			r.States = append(r.States, StateCount{s, n})
		}
	}
	for k, n := range detailN {
		r.Details = append(r.Details, DetailCount{k.s, k.d, n})
	}
	sort.Slice(r.Details, func(i, j int) bool {
		a, b := r.Details[i], r.Details[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.State != b.State {
			return a.State < b.State
		}
		return a.Detail < b.Detail
	})

	r.locks(d)
	r.classify(d, m)
	for _, t := range d.Threads {
		if t.State == StateNone || r.idle[t] {
			continue
		}
		r.Active++
		switch t.State {
		case StateBlocked:
			r.Blocked++
		case StateWaiting, StateTimedWaiting:
			r.Waiting++
		}
	}
	if r.Active > 0 {
		r.BlockedWaitingShare = float64(r.Blocked+r.Waiting) / float64(r.Active)
	}
	if r.Java > 0 {
		r.RawBlockedWaitingShare = float64(stateN[StateBlocked]+stateN[StateWaiting]+stateN[StateTimedWaiting]) / float64(r.Java)
	}
	r.pools(d)
	r.stackGroups(d)
	r.deadlocks(d)
	r.culprits(d, m)
	r.waits(d)
	return r
}

// classify marks idle threads and attributes threads to fingerprints.
func (r *Report) classify(d *Dump, m *matcher) {
	for _, t := range d.Threads {
		if t.State == StateNone {
			continue
		}
		st := t.Stack()
		if len(st) > scanDepth {
			st = st[:scanDepth]
		}
		best := -1
		var wref *LockRef
		for _, f := range st {
			if i := m.fpFrame(f.Method); i >= 0 && (best < 0 || i < best) {
				best = i
			}
		}
		if best < 0 || Fingerprints[best].LockClasses != nil {
			// Lock-class-only fingerprints (synchronized collections).
			wref = waitTarget(t)
			if wref != nil {
				for k, fp := range Fingerprints {
					if len(fp.Frames) == 0 && hasAnyPrefix(wref.Class, fp.LockClasses) && (best < 0 || k < best) {
						best = k
						break
					}
				}
			}
		}
		if best >= 0 {
			fp := Fingerprints[best]
			if stateIn(t.State, fp.States) && (fp.LockClasses == nil || lockClassMatch(t, fp)) {
				r.culprit[t] = fp
				continue // a thread stuck on a known resource is not idle
			}
		}
		if m.isIdle(t) {
			r.idle[t] = true
			r.Idle++
		}
	}
}

func lockClassMatch(t *Thread, fp *Fingerprint) bool {
	ref := waitTarget(t)
	return ref != nil && hasAnyPrefix(ref.Class, fp.LockClasses)
}

func stateIn(s State, ss []State) bool {
	if len(ss) == 0 {
		return true
	}
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
