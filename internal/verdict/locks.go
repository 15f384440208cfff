package verdict

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/stacks"
)

// The JFR lock profile reduced to what the lock table and the verdict cite:
// time waited per lock class and per call site. A thread dump says how many
// threads queue at one instant; the recording says how long they waited
// over the whole run (every jdk.JavaMonitorEnter and jdk.ThreadPark over
// the recording's threshold, 10 ms under settings=profile).

// ThinEvents: a lock wait resting on fewer events than this is said to be
// thin evidence (a handful of long waits, not a steady queue).
const ThinEvents = 20

// maxLockWaits and maxLockSites bound what is kept of a lock profile.
const (
	maxLockWaits = 20
	maxLockSites = 5
)

// LockWait is the time threads waited on one lock class over the run.
type LockWait struct {
	Class  string `json:"class"` // java.util.concurrent.locks.ReentrantLock$NonfairSync
	Kind   string `json:"kind"`  // monitor (synchronized) or juc (parked), as the dumps say
	WaitNS int64  `json:"wait_ns"`
	Events int    `json:"events"`
	// Share is WaitNS over the run's working-thread time (the working
	// threads the dumps saw, times the recorded span); 0 when unknown.
	Share float64    `json:"share,omitempty"`
	Sites []LockSite `json:"sites,omitempty"` // most waited first
}

// LockSite is where threads entered or parked on the lock: the first frame
// outside the JDK, from the leaf (the same "application frame" as the
// dumps' owner lines).
type LockSite struct {
	Frame  string `json:"frame"`
	WaitNS int64  `json:"wait_ns"`
	Events int    `json:"events"`
}

// Thin says the wait rests on too few events to weigh much.
func (w *LockWait) Thin() bool { return w.Events < ThinEvents }

// lockWaits groups a lock profile (idle waits already dropped) by lock
// class, then by call site; threadNS is the working-thread time the share
// is taken of (0: no share).
func lockWaits(p *stacks.Profile, threadNS float64) []LockWait {
	type site struct {
		ns int64
		n  int
	}
	type acc struct {
		w     LockWait
		sites map[string]*site
	}
	by := map[string]*acc{}
	for _, s := range p.Samples {
		if len(s.Stack) == 0 {
			continue
		}
		leaf := s.Stack[len(s.Stack)-1]
		kind := ""
		switch {
		case strings.HasPrefix(leaf, "[lock] "):
			kind = "monitor"
		case strings.HasPrefix(leaf, "[park] "):
			kind = "juc"
		default:
			continue
		}
		class := leaf[len("[lock] "):]
		a := by[class]
		if a == nil {
			a = &acc{w: LockWait{Class: class, Kind: kind}, sites: map[string]*site{}}
			by[class] = a
		}
		n := max(s.Events, 1)
		a.w.WaitNS += s.Value
		a.w.Events += n
		fr := callSite(s.Stack[:len(s.Stack)-1])
		st := a.sites[fr]
		if st == nil {
			st = &site{}
			a.sites[fr] = st
		}
		st.ns += s.Value
		st.n += n
	}
	out := make([]LockWait, 0, len(by))
	for _, a := range by {
		w := a.w
		if threadNS > 0 {
			w.Share = float64(w.WaitNS) / threadNS
		}
		for fr, s := range a.sites {
			w.Sites = append(w.Sites, LockSite{Frame: fr, WaitNS: s.ns, Events: s.n})
		}
		sort.Slice(w.Sites, func(i, j int) bool {
			if w.Sites[i].WaitNS != w.Sites[j].WaitNS {
				return w.Sites[i].WaitNS > w.Sites[j].WaitNS
			}
			return w.Sites[i].Frame < w.Sites[j].Frame
		})
		if len(w.Sites) > maxLockSites {
			w.Sites = w.Sites[:maxLockSites]
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].WaitNS != out[j].WaitNS {
			return out[i].WaitNS > out[j].WaitNS
		}
		return out[i].Class < out[j].Class
	})
	if len(out) > maxLockWaits {
		out = out[:maxLockWaits]
	}
	return out
}

// callSite is the first frame from the leaf outside the JDK (java., javax.,
// jdk., sun., com.sun.: the prefixes the thread dump analysis calls the
// JDK's), else the frame under the wait.
func callSite(stack []string) string {
	for i := len(stack) - 1; i >= 0; i-- {
		if !isJDK(stack[i]) {
			return stack[i]
		}
	}
	if len(stack) > 0 {
		return stack[len(stack)-1]
	}
	return "?"
}

func isJDK(frame string) bool {
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun."} {
		if strings.HasPrefix(frame, p) {
			return true
		}
	}
	return false
}

// LockWaitOf is the JFR wait on class (nil: none recorded).
func (L *Layers) LockWaitOf(class string) *LockWait {
	for i := range L.LockWaits {
		if L.LockWaits[i].Class == class {
			return &L.LockWaits[i]
		}
	}
	return nil
}

// culpritWait is the JFR wait on the lock class a dump culprit names (its
// subject is "Class@address"); nil when the recording has none.
func culpritWait(L *Layers, c *finding.Finding) *LockWait {
	class, _, _ := strings.Cut(c.Subject, "@")
	if class == "" {
		return nil
	}
	return L.LockWaitOf(monitorClass(class))
}

// waited is the verdict's line of what the JFR recording measured of the
// culprit's lock: the time threads waited on it and where.
func (e evidence) waited(c *finding.Finding) func() (finding.Text, bool) {
	return func() (finding.Text, bool) {
		w := culpritWait(e.L, c)
		if w == nil {
			return finding.Text{}, false
		}
		t := finding.Tf(finding.T("JFR: threads waited %s on %s over %d events", "JFR：线程在 %[2]s 上共等待 %[1]s，基于 %[3]d 个事件"),
			fmtWait(w.WaitNS), finding.SafeLine(w.Class), w.Events)
		if w.Share > 0 {
			t = finding.Tf(finding.T("%s (%s of the working threads' time)", "%s（占工作线程时间的 %s）"), t, SharePct(100*w.Share))
		}
		if len(w.Sites) > 0 {
			t = finding.Tf(finding.T("%s, most at %s", "%s，主要在 %s"), t, finding.SafeLine(w.Sites[0].Frame))
		}
		if w.Thin() {
			t = finding.Tf(finding.T("%s; thin evidence (under %d events)", "%s；证据较少（不足 %d 个事件）"), t, ThinEvents)
		}
		return finding.Tf(finding.T("%s.", "%s。"), t), true
	}
}

// waitEvidence adds the JFR wait on the culprit's lock to the verdict v's
// evidence (a copy: the root finding in the layers is left as it was).
func waitEvidence(L *Layers, root, v *finding.Finding) {
	w := culpritWait(L, root)
	if w == nil {
		return
	}
	v.Evidence = append(slices.Clip(v.Evidence), finding.Evidence{Key: "jfr_lock_wait_ms", Value: fmt.Sprintf("%.0f", float64(w.WaitNS)/1e6), Source: JFRFile},
		finding.Evidence{Key: "jfr_lock_events", Value: fmt.Sprint(w.Events), Source: JFRFile})
}

// fmtWait says a wait in ms under 10 s, else in s.
func fmtWait(ns int64) string {
	if ns < 10e9 {
		return fmt.Sprintf("%.0f ms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.1f s", float64(ns)/1e9)
}

// SharePct says a percentage of thread time: whole percents, one decimal
// under 1% (a small lock is not "0%").
func SharePct(pct float64) string {
	if pct < 1 {
		return fmt.Sprintf("%.1f%%", pct)
	}
	return fmt.Sprintf("%.0f%%", pct)
}

// monitorClass is a dump's lock class as JFR names it: a static
// synchronized method's monitor is "java.lang.Class for Foo" in a dump,
// the class Class to JFR.
func monitorClass(class string) string {
	if strings.HasPrefix(class, "java.lang.Class for ") {
		return "java.lang.Class"
	}
	return class
}
