package threaddump

import (
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Lock is one monitor or j.u.c lock seen in the dump.
type Lock struct {
	Ref LockRef `json:"ref"`
	// Kind is "monitor" or "juc".
	Kind  string  `json:"kind"`
	Owner *Thread `json:"-"`
	// OwnerName is "" when no thread shows it as held (a VM thread holds it,
	// or the dump was taken without -l for j.u.c locks).
	OwnerName string `json:"owner,omitempty"`
	// Waiters want to acquire it: BLOCKED on the monitor or parked on the lock.
	Waiters []*Thread `json:"-"`
	// Waiting are in Object.wait() on it: they released it and wait for notify.
	Waiting []*Thread `json:"-"`
	NWaiter int       `json:"waiters"`
}

// OwnerDoing describes what the owner runs: its state and top frame.
func (l *Lock) OwnerDoing() string { return l.OwnerDoingIn(finding.EN) }

// OwnerDoingIn is OwnerDoing in lang: "RUNNABLE at <top frame> in <first
// application frame>" (states and frames stay as the JVM prints them).
func (l *Lock) OwnerDoingIn(lang finding.Lang) string {
	if l.Owner == nil {
		return ""
	}
	at, in := " at ", " in "
	if lang == finding.ZH {
		at, in = "，位于 ", "，所在应用方法 "
	}
	s := string(l.Owner.State)
	if l.Owner.StateDetail != "" {
		s += " (" + l.Owner.StateDetail + ")"
	}
	st := l.Owner.Stack()
	if len(st) > 0 {
		s += at + st[0].String()
	}
	// The first application frame says more than Thread.sleep or a native write.
	for _, f := range st {
		if !isJDKFrame(f.Method) {
			if f != st[0] {
				s += in + f.String()
			}
			break
		}
	}
	return s
}

// BetweenOwners: a j.u.c lock with waiters and no owner in a dump that
// lists owners (-l): released, and the next waiter not yet running to take
// it. Under a convoy this is often what a dump catches.
func (l *Lock) BetweenOwners(d *Dump) bool {
	return l.Owner == nil && l.Kind == "juc" && len(l.Waiters) > 0 && d != nil && d.HasOwnable
}

// JustTaken: the owner still shows BLOCKED although it holds the lock. HotSpot
// updates the thread state after the monitor handoff, so a dump can catch the
// new owner in between; what it does with the lock is in other dumps.
func (l *Lock) JustTaken() bool {
	return l.Owner != nil && l.Owner.State == StateBlocked && len(l.Owner.WaitingToLock) == 0 && containsKey(l.Owner.Locked, l.Ref.Key())
}

// Deadlock is a cycle of threads each waiting for a lock the next one owns.
type Deadlock struct {
	Threads []*Thread `json:"-"`
	Names   []string  `json:"threads"`
	// Locks[i] is what Threads[i] waits for.
	Locks []LockRef `json:"locks"`
	// ReportedByJVM: the dump's own deadlock section lists this cycle.
	ReportedByJVM bool `json:"reported_by_jvm"`
	// Detected: found by cycle detection over the parsed owners and waiters.
	Detected bool `json:"detected"`
}

// lockish tells a parked-on object that is acquired (a lock, a semaphore)
// from one that is only awaited (a Condition, a Future, a queue).
func lockish(class string) bool {
	// Latches and semaphores have no owner: their waiters wait for other
	// threads' progress (the wait-for graph, waitgraph.go), not a holder.
	if strings.Contains(class, "ConditionObject") || strings.HasPrefix(class, "java.util.concurrent.CountDownLatch") || strings.HasPrefix(class, "java.util.concurrent.Semaphore") {
		return false
	}
	return strings.HasSuffix(class, "Sync") || strings.Contains(class, "StampedLock") || strings.HasSuffix(class, "Lock")
}

// waitTarget is the lock t is trying to acquire, if any.
func waitTarget(t *Thread) *LockRef {
	if len(t.WaitingToLock) > 0 {
		return &t.WaitingToLock[0]
	}
	for i := range t.Parking {
		if lockish(t.Parking[i].Class) {
			return &t.Parking[i]
		}
	}
	return nil
}

func containsKey(refs []LockRef, key string) bool {
	for _, r := range refs {
		if r.Key() == key {
			return true
		}
	}
	return false
}

func (r *Report) locks(d *Dump) {
	byKey := map[string]*Lock{}
	get := func(ref LockRef, kind string) *Lock {
		k := ref.Key()
		l := byKey[k]
		if l == nil {
			l = &Lock{Ref: ref, Kind: kind}
			l.Ref.Frame = -1
			byKey[k] = l
		}
		if l.Ref.Class == "" {
			l.Ref.Class = ref.Class
		}
		return l
	}
	for _, t := range d.Threads {
		for _, ref := range t.Locked {
			k := ref.Key()
			// Object.wait() releases the monitor the stack still shows as locked.
			if containsKey(t.WaitingOn, k) || containsKey(t.WaitingToLock, k) {
				continue
			}
			l := get(ref, "monitor")
			if l.Owner == nil {
				l.Owner = t
			}
		}
		for _, ref := range t.OwnableSynchronizers {
			l := get(ref, "juc")
			l.Kind = "juc"
			if l.Owner == nil {
				l.Owner = t
			}
		}
	}
	for _, t := range d.Threads {
		for _, ref := range t.WaitingOn {
			l := get(ref, "monitor")
			l.Waiting = append(l.Waiting, t)
		}
		if ref := waitTarget(t); ref != nil {
			kind := "monitor"
			if len(t.WaitingToLock) == 0 {
				kind = "juc"
			}
			l := get(*ref, kind)
			l.Kind = kind
			l.Waiters = append(l.Waiters, t)
		}
	}
	for _, l := range byKey {
		if l.Owner != nil {
			l.OwnerName = l.Owner.Name
		}
		l.NWaiter = len(l.Waiters)
		r.Locks = append(r.Locks, l)
	}
	sort.Slice(r.Locks, func(i, j int) bool {
		a, b := r.Locks[i], r.Locks[j]
		if a.NWaiter != b.NWaiter {
			return a.NWaiter > b.NWaiter
		}
		return a.Ref.Key() < b.Ref.Key()
	})
}

// LockOf returns the lock t is trying to acquire, nil when none.
func (r *Report) LockOf(t *Thread) *Lock {
	ref := waitTarget(t)
	if ref == nil {
		return nil
	}
	k := ref.Key()
	for _, l := range r.Locks {
		if l.Ref.Key() == k {
			return l
		}
	}
	return nil
}

// deadlocks finds cycles in the wait-for graph (thread -> owner of the lock
// it waits for), monitors and j.u.c locks alike, and merges the JVM's own.
func (r *Report) deadlocks(d *Dump) {
	owner := map[string]*Thread{}
	for _, l := range r.Locks {
		if l.Owner != nil {
			owner[l.Ref.Key()] = l.Owner
		}
	}
	next := map[*Thread]*Thread{}
	what := map[*Thread]LockRef{}
	for _, t := range d.Threads {
		if ref := waitTarget(t); ref != nil {
			if o := owner[ref.Key()]; o != nil && o != t {
				next[t] = o
				what[t] = *ref
			}
		}
	}
	const (
		white = 0
		grey  = 1
		black = 2
	)
	color := map[*Thread]int{}
	for _, start := range d.Threads {
		if color[start] != white {
			continue
		}
		var path []*Thread
		t := start
		for t != nil && color[t] == white {
			color[t] = grey
			path = append(path, t)
			t = next[t]
		}
		if t != nil && color[t] == grey {
			// Cycle: from t's position in path to the end.
			i := 0
			for path[i] != t {
				i++
			}
			dl := &Deadlock{Detected: true}
			for _, x := range path[i:] {
				dl.Threads = append(dl.Threads, x)
				dl.Names = append(dl.Names, x.Name)
				dl.Locks = append(dl.Locks, what[x])
			}
			r.Deadlocks = append(r.Deadlocks, dl)
		}
		for _, x := range path {
			color[x] = black
		}
	}
	byName := map[string]*Thread{}
	for _, t := range d.Threads {
		byName[t.Name] = t
	}
	for _, jd := range d.JVMDeadlocks {
		matched := false
		for _, dl := range r.Deadlocks {
			if sameSet(dl.Names, jd.Threads) {
				dl.ReportedByJVM = true
				matched = true
			}
		}
		if !matched {
			dl := &Deadlock{ReportedByJVM: true, Names: jd.Threads, Locks: jd.Locks}
			for _, n := range jd.Threads {
				if t := byName[n]; t != nil {
					dl.Threads = append(dl.Threads, t)
				}
			}
			r.Deadlocks = append(r.Deadlocks, dl)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		if m[x] == 0 {
			return false
		}
		m[x]--
	}
	return true
}
