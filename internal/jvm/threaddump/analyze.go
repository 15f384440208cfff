package threaddump

import (
	"hash/maphash"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
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

// caughtTaking: the culprit's holder is its lock's owner, caught in the
// handoff (Lock.JustTaken).
func (c *Culprit) caughtTaking() bool {
	return c.Lock != nil && c.Holder == c.Lock.Owner && c.Lock.JustTaken()
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

// Culprit is a fingerprint matched by a group of threads.
type Culprit struct {
	FP      *Fingerprint `json:"-"`
	ID      string       `json:"id"`
	Threads []*Thread    `json:"-"`
	// Lock is what they wait for (KindLock), nil otherwise.
	Lock   *Lock   `json:"lock,omitempty"`
	Holder *Thread `json:"-"`
	// HolderConfirmed: the holder's stack has one of FP.HolderFrames.
	HolderConfirmed bool `json:"holder_confirmed"`
	// HolderFrame is the holder's first frame matching FP.HolderFrames, else its top frame.
	HolderFrame Frame `json:"holder_frame"`
	// HolderActivity is what the holder does inside the lock.
	HolderActivity Activity `json:"holder_activity,omitempty"`
	// Downstream names the service behind socket reads ("MySQL (JDBC)").
	Downstream string `json:"downstream,omitempty"`
	// Share of active threads.
	Share float64 `json:"share"`
	// Frame is the most common matching frame among the threads.
	Frame Frame `json:"frame"`
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
	return r
}

// lockish tells a parked-on object that is acquired (a lock, a semaphore)
// from one that is only awaited (a Condition, a Future, a queue).
func lockish(class string) bool {
	if strings.Contains(class, "ConditionObject") {
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
		idle, app := false, false
		var wref *LockRef
		for _, f := range st {
			if i := m.fpFrame(f.Method); i >= 0 && (best < 0 || i < best) {
				best = i
			}
			// Idle only when the wait-for-work frame comes before any
			// application frame: a worker running a task has the pool's
			// frames below the task's.
			if !app && !idle {
				if m.flag(f.Method)&flagIdle != 0 {
					idle = true
				} else if !isJDKFrame(f.Method) {
					app = true
				}
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
		if idle && t.State != StateBlocked {
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

func (r *Report) culprits(d *Dump, m *matcher) {
	type key struct {
		fp   *Fingerprint
		lock string
	}
	groups := map[key][]*Thread{}
	var order []key
	inDeadlock := map[*Thread]bool{}
	for _, dl := range r.Deadlocks {
		for _, t := range dl.Threads {
			inDeadlock[t] = true
		}
	}
	for _, t := range d.Threads {
		fp := r.culprit[t]
		if fp == nil {
			continue
		}
		k := key{fp: fp}
		if fp.Kind == KindLock {
			if ref := waitTarget(t); ref != nil {
				k.lock = ref.Key()
			}
		}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], t)
	}
	lockByKey := map[string]*Lock{}
	for _, l := range r.Locks {
		lockByKey[l.Ref.Key()] = l
	}
	claimed := map[*Lock]bool{}
	for _, k := range order {
		ts := groups[k]
		if len(ts) < k.fp.MinThreads {
			continue
		}
		c := &Culprit{FP: k.fp, ID: "threaddump." + k.fp.ID, Threads: ts}
		for _, t := range ts {
			// Whatever lock they wait for is explained by this culprit.
			if ref := waitTarget(t); ref != nil {
				if l := lockByKey[ref.Key()]; l != nil {
					claimed[l] = true
				}
			}
		}
		if l := lockByKey[k.lock]; l != nil {
			c.Lock = l
			claimed[l] = true
			c.Holder = l.Owner
		}
		if c.Lock == nil && k.fp.ID == "classloading" {
			if l := r.loaderLock(ts); l != nil {
				c.Lock, c.Holder = l, l.Owner
				claimed[l] = true
			}
		}
		c.Frame = commonFrame(ts, func(f Frame) bool { return hasAnyPrefix(f.Method, k.fp.Frames) })
		r.setHolder(c)
		r.Culprits = append(r.Culprits, c)
	}
	// Contended locks no fingerprint explains: name them by class.
	for _, l := range r.Locks {
		if claimed[l] || len(l.Waiters) < fpAppLock.MinThreads {
			continue
		}
		// Idle pool workers parked on their work queue's own lock (inside
		// getTask) wait for work, not for a resource: they are not contention.
		var waiters []*Thread
		dead := false
		for _, w := range l.Waiters {
			if inDeadlock[w] {
				dead = true
			}
			if !r.idle[w] {
				waiters = append(waiters, w)
			}
		}
		if dead {
			continue // reported as the deadlock
		}
		if len(waiters) < fpAppLock.MinThreads {
			continue
		}
		c := &Culprit{FP: fpAppLock, ID: "threaddump." + fpAppLock.ID, Threads: waiters, Lock: l, Holder: l.Owner}
		c.Frame = commonFrame(waiters, func(f Frame) bool { return !isJDKFrame(f.Method) })
		r.setHolder(c)
		r.Culprits = append(r.Culprits, c)
	}
	// Slow downstream: RUNNABLE in a socket read.
	var readers []*Thread
	hint := map[string]int{}
	for _, t := range d.Threads {
		if t.State != StateRunnable || r.idle[t] || r.culprit[t] != nil {
			continue
		}
		st := t.Stack()
		if len(st) == 0 || m.flag(st[0].Method)&flagSocketRead == 0 && (len(st) < 2 || m.flag(st[1].Method)&flagSocketRead == 0) {
			continue
		}
		readers = append(readers, t)
		for i, f := range st {
			if i >= scanDepth {
				break
			}
			found := false
			for _, h := range downstreamHints {
				if strings.HasPrefix(f.Method, h.prefix) {
					hint[h.name]++
					found = true
					break
				}
			}
			if found {
				break
			}
		}
	}
	if len(readers) >= fpSocketRead.MinThreads {
		c := &Culprit{FP: fpSocketRead, ID: "threaddump." + fpSocketRead.ID, Threads: readers}
		best := 0
		for n, k := range hint {
			if k > best || k == best && n < c.Downstream {
				best, c.Downstream = k, n
			}
		}
		c.Frame = commonFrame(readers, func(f Frame) bool { return !isJDKFrame(f.Method) })
		r.Culprits = append(r.Culprits, c)
	}
	for _, c := range r.Culprits {
		if r.Active > 0 {
			c.Share = float64(len(c.Threads)) / float64(r.Active)
		}
	}
	sort.SliceStable(r.Culprits, func(i, j int) bool { return len(r.Culprits[i].Threads) > len(r.Culprits[j].Threads) })
}

// loaderLock finds the class loader that threads blocked in Class.forName
// wait for. On a loader that is not parallel capable, HotSpot takes its
// monitor in native code and the waiters print no "waiting to lock" line;
// the holder does print "- locked" on the loader in ClassLoader.loadClass.
func (r *Report) loaderLock(waiters []*Thread) *Lock {
	waiting := make(map[*Thread]bool, len(waiters))
	for _, t := range waiters {
		waiting[t] = true
	}
	for _, l := range r.Locks {
		if l.Owner == nil || waiting[l.Owner] || l.Kind != "monitor" || !strings.HasSuffix(l.Ref.Class, "Loader") {
			continue
		}
		for _, f := range l.Owner.Stack() {
			if strings.HasPrefix(f.Method, "java.lang.ClassLoader.loadClass") {
				return l
			}
		}
	}
	return nil
}

// setHolder finds the holder for lock culprits whose lock owner is unknown
// (e.g. log4j 1.x waiters show the RootLogger, the holder also holds the
// appender) and picks the holder frame to report.
func (r *Report) setHolder(c *Culprit) {
	if c.Holder == nil && c.Lock != nil {
		c.Holder = c.Lock.Owner
	}
	if c.Holder == nil {
		return
	}
	if !c.caughtTaking() {
		// caught in the monitor handoff: what it does with the lock is in other dumps
		c.HolderActivity = ActivityOf(c.Holder)
	}
	st := c.Holder.Stack()
	for _, f := range st {
		if hasAnyPrefix(f.Method, c.FP.HolderFrames) {
			c.HolderConfirmed = true
			c.HolderFrame = f
			return
		}
	}
	if len(st) > 0 {
		c.HolderFrame = st[0]
	}
}

// commonFrame is the most frequent frame satisfying ok, first per thread.
func commonFrame(ts []*Thread, ok func(Frame) bool) Frame {
	n := map[Frame]int{}
	var best Frame
	bestN := 0
	for _, t := range ts {
		for i, f := range t.Stack() {
			if i >= scanDepth {
				break
			}
			if ok(f) {
				n[f]++
				if n[f] > bestN {
					best, bestN = f, n[f]
				}
				break
			}
		}
	}
	return best
}

func isJDKFrame(m string) bool {
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun."} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}
