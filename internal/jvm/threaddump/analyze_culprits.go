package threaddump

import (
	"sort"
	"strings"
)

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

// caughtTaking: the culprit's holder is its lock's owner, caught in the
// handoff (Lock.JustTaken).
func (c *Culprit) caughtTaking() bool {
	return c.Lock != nil && c.Holder == c.Lock.Owner && c.Lock.JustTaken()
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
