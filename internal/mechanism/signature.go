package mechanism

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Signature is what a mechanism looks like in the evidence, as data. A
// slice of the request roles' time matches when its state is one of
// States, a frame of its stack one of Frames (prefixes; within the top
// Depth frames when Depth > 0), its lock one of Locks, and the lock's
// holder runs one of HolderFrames. The mechanism's share is the matched
// time over all the roles' time. Needs are facts that must hold besides
// (GC causes, JFR events, host findings); a signature with Needs and no
// slice criteria is scored by its Score fact instead of a time share.
type Signature struct {
	States    []State
	Frames    []string
	Depth     int
	NotFrames []string
	// NotCallers: the slice does not match when the first frame past the
	// matched one that is not the JDK's starts with one of these (a socket
	// read called by the server's connector is the server reading its
	// client, not a downstream).
	NotCallers   []string
	Locks        []string
	HolderFrames []string
	// NotLeafward excludes a slice when one of these frames stands on the
	// leaf side of its first application frame: the library's own work in
	// progress (a server writing its response), not the application's call.
	NotLeafward []string
	// AppSite: the frame that waits (the leaf, past the JDK's lock and
	// park machinery) must be the application's: a library's own lock
	// reached from application code is that library's.
	AppSite bool
	// NeedApp: the slice's stack must hold an application frame (a wait
	// inside a framework's own machinery, e.g. a selector's wake-up, is not
	// the application's call).
	NeedApp bool
	// Holders are frames of the threads that hold what the matched ones
	// wait for (a pool's connections: the JDBC driver's frames): the match
	// says where they are in the code and what they do.
	Holders []string
	// Roles whose time counts (nil: RequestRoles).
	Roles []string
	Needs []Need
	// Score names the fact (0-1 after Scale) that scores a facts-only signature.
	Score string
	Scale float64
	// MinShare is the least share that names the mechanism (0: 0.15).
	MinShare float64
	// OfWall: a Running-only signature keeps its share of all the roles'
	// time on saturated CPUs too, where the others are read as a share of
	// the CPU time (the share of the time the threads want a CPU, not
	// where that CPU goes).
	OfWall bool
}

// Need is a fact that must be at least Min (Max, when set, at most).
type Need struct {
	Fact string
	Min  float64
	Max  float64
}

// Match is how a signature met the evidence.
type Match struct {
	Share  float64 // of the request roles' (non-idle) time of the source
	Events int     // slices matched
	Of     int     // slices of the roles in the source
	Source Source
	// Code is the application frame most of the matched time runs under,
	// and CodeShare that frame's share of the matched time.
	Code      Frame
	CodeShare float64
	HasCode   bool
	// CodeTotal is the share of all the roles' time (any state) with Code
	// anywhere on the stack: the line's total, beside its share of the match.
	CodeTotal float64
	// Site is the signature's frame most matched (the library method).
	Site Frame
	// Lock, Holder (the holder's first application frame), Peer: the most
	// frequent among the matched slices.
	Lock, Peer string
	Holder     Frame
	// Holding: the Holders' snapshots (or events), their first
	// application frame and most common state.
	Holding      int
	HoldingCode  Frame
	HoldingState State
	// AllocBytes: the sampled bytes a GC match's code line was read from.
	AllocBytes float64
	// Facts says the facts a facts-only match read, with their values.
	Facts string
	// OfCPU: Share is of the roles' CPU time (CPU work on saturated CPUs).
	OfCPU bool
}

func (s *Signature) roles() []string {
	if s.Roles != nil {
		return s.Roles
	}
	return RequestRoles
}

func (s *Signature) sliceCriteria() bool {
	return len(s.States) > 0 || len(s.Frames) > 0 || len(s.Locks) > 0 || len(s.HolderFrames) > 0
}

// siteOf is the frame of st matching the signature's frames (-1: none).
func (s *Signature) siteOf(st []Frame) int {
	if len(s.Frames) == 0 {
		return 0
	}
	for i, f := range st {
		if s.Depth > 0 && i >= s.Depth {
			break
		}
		if matchAny(f.Method, s.Frames) {
			return i
		}
	}
	return -1
}

func (s *Signature) matches(sl *Slice) (int, bool) {
	if len(s.States) > 0 && !slices.Contains(s.States, sl.State) {
		return 0, false
	}
	if len(s.Locks) > 0 && !matchAny(sl.Lock, s.Locks) {
		return 0, false
	}
	if len(s.HolderFrames) > 0 && !slices.ContainsFunc(sl.Holder, func(f Frame) bool { return matchAny(f.Method, s.HolderFrames) }) {
		return 0, false
	}
	for _, f := range sl.Stack {
		if matchAny(f.Method, s.NotFrames) {
			return 0, false
		}
	}
	if s.NeedApp {
		if _, ok := FirstApp(sl.Stack); !ok {
			return 0, false
		}
	}
	if s.AppSite && !appSite(sl.Stack) {
		return 0, false
	}
	if len(s.NotLeafward) > 0 {
		for _, f := range sl.Stack {
			if !IsLibrary(f.Method) {
				break
			}
			if matchAny(f.Method, s.NotLeafward) {
				return 0, false
			}
		}
	}
	site := s.siteOf(sl.Stack)
	if site < 0 {
		return site, false
	}
	if len(s.NotCallers) > 0 {
		for _, f := range sl.Stack[site+1:] {
			if matchAny(f.Method, jdkPrefixes) {
				continue
			}
			if matchAny(f.Method, s.NotCallers) {
				return site, false
			}
			break
		}
	}
	return site, true
}

// jdkPrefixes are the JDK's own frames.
var jdkPrefixes = []string{"java.", "javax.", "jdk.", "sun.", "com.sun."}

// match measures the signature on one source's slices.
func (s *Signature) match(e *Evidence, src Source) Match {
	m := Match{Source: src}
	roles := s.roles()
	if s.Roles == nil {
		roles = e.servingRoles(src)
	}
	// CPU work on saturated CPUs is read as a share of the CPU time, not of
	// the wall clock: where the CPU goes is the cause, the queues it
	// makes are the symptom.
	ofRunning := e.Saturated && !s.OfWall && len(s.States) == 1 && s.States[0] == Running
	m.OfCPU = ofRunning
	var total, matched float64
	code, site, lock, peer, holder := map[Frame]float64{}, map[Frame]float64{}, map[string]float64{}, map[string]float64{}, map[Frame]float64{}
	holdCode, holdState := map[Frame]float64{}, map[State]float64{}
	for i := range e.Slices {
		sl := &e.Slices[i]
		if sl.Source != src || sl.State == Idle || !slices.Contains(roles, sl.Role) || (ofRunning && sl.State != Running) {
			continue
		}
		total += sl.Weight
		m.Of += max(sl.Events, 1)
		at, ok := s.matches(sl)
		if !ok {
			if len(s.Holders) > 0 && slices.ContainsFunc(sl.Stack, func(f Frame) bool { return matchAny(f.Method, s.Holders) }) {
				m.Holding += max(sl.Events, 1)
				if f, ok := FirstApp(sl.Stack); ok {
					holdCode[f] += sl.Weight
				}
				holdState[sl.State] += sl.Weight
			}
			continue
		}
		matched += sl.Weight
		m.Events += max(sl.Events, 1)
		if len(sl.Stack) > 0 {
			site[sl.Stack[at]] += sl.Weight
		}
		// The application's line: the first application frame at or
		// below the matched library frame (its caller).
		if f, ok := FirstApp(sl.Stack[at:]); ok {
			code[f] += sl.Weight
		} else if f, ok := FirstApp(sl.Stack); ok {
			code[f] += sl.Weight
		}
		if sl.Lock != "" {
			lock[sl.Lock] += sl.Weight
		}
		if sl.Peer != "" {
			peer[sl.Peer] += max(sl.Weight, 1) // weightless socket events still name the peer
		}
		if f, ok := FirstApp(sl.Holder); ok {
			holder[f] += sl.Weight
		}
	}
	if total == 0 || matched == 0 {
		return m
	}
	m.Share = matched / total
	var w float64
	m.Code, w = top(code)
	m.HasCode = w > 0
	m.CodeShare = w / matched
	if m.HasCode {
		// Total: the roles' time with the code line anywhere on the stack.
		var on float64
		for i := range e.Slices {
			sl := &e.Slices[i]
			if sl.Source == src && sl.State != Idle && slices.Contains(roles, sl.Role) && slices.Contains(sl.Stack, m.Code) {
				on += sl.Weight
			}
		}
		m.CodeTotal = on / total
	}
	m.Site, _ = top(site)
	m.Lock, _ = top(lock)
	m.Peer, _ = top(peer)
	m.Holder, _ = top(holder)
	m.HoldingCode, _ = top(holdCode)
	m.HoldingState, _ = top(holdState)
	return m
}

// top is the key of most weight (ties: the smallest key, for stable output).
func top[K comparable](m map[K]float64) (K, float64) {
	type kv struct {
		k K
		v float64
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return fmt.Sprint(all[i].k) < fmt.Sprint(all[j].k)
	})
	var zero K
	if len(all) == 0 {
		return zero, 0
	}
	return all[0].k, all[0].v
}

// minEvents: a source needs this many slices of the roles to be judged.
const (
	minJFREvents  = 20
	minDumpEvents = 2
)

// MinEvents is how many slices of the roles a source needs to be judged.
func MinEvents(src Source) int {
	if src == FromDumps {
		return minDumpEvents
	}
	return minJFREvents
}

// Measure is the signature on the evidence: of the sources with enough
// slices, the one whose share the evidence supports best (JFR's timed
// events miss short waits, the dumps see few instants; either may be the
// one that shows it). Sources are ranked by the share's lower confidence
// bound, not the share itself: 5 of 5 dump snapshots (a bound of 57%) must
// not outrank 673 of 678 JFR events (98%), or two entries read from
// different sources are ranked by the noise of the smaller one.
func (s *Signature) Measure(e *Evidence) (Match, bool) {
	if !s.needsMet(e) {
		return Match{}, false
	}
	if !s.sliceCriteria() {
		f := e.Facts()[s.Score]
		if s.Scale > 0 {
			f /= s.Scale
		}
		m := Match{Share: min(f, 1), Facts: s.factsSaid(e)}
		if strings.HasPrefix(s.Score, "gc.") || slices.ContainsFunc(s.Needs, func(n Need) bool { return strings.HasPrefix(n.Fact, "gc.") }) {
			allocSite(e, &m) // a collector's work: where the application allocates
		}
		return m, f > 0
	}
	var best Match
	bestLB := -1.0
	for _, src := range []Source{FromJFR, FromDumps} {
		m := s.match(e, src)
		need := MinEvents(src)
		if m.Of < need || m.Events == 0 {
			continue
		}
		if lb := shareLowerBound(m); lb > bestLB {
			best, bestLB = m, lb
		}
	}
	min := s.MinShare
	if min == 0 {
		min = 0.15
	}
	return best, best.Share >= min
}

// shareLowerBound is the Wilson score interval's lower end (95%) of a
// match's share over its m.Of slices.
func shareLowerBound(m Match) float64 {
	const z = 1.96
	n, p := float64(m.Of), m.Share
	if n <= 0 {
		return 0
	}
	c := z * z / n
	return (p + c/2 - z*math.Sqrt(p*(1-p)/n+c/(4*n))) / (1 + c)
}

func (s *Signature) needsMet(e *Evidence) bool {
	if len(s.Needs) == 0 {
		return true
	}
	facts := e.Facts()
	for _, n := range s.Needs {
		v := facts[n.Fact]
		if v < n.Min || (n.Max > 0 && v > n.Max) {
			return false
		}
	}
	return true
}

// Facts are the named numbers Needs and Score read: "gc.humongous",
// "gc.pause-pct", "event.jdk.CodeCacheFull", "host.busy", "host.saturated",
// "finding.run.net.delayed-ack", "deadlock", "framework.logback".
func (e *Evidence) Facts() map[string]float64 {
	if e.facts != nil {
		return e.facts
	}
	g := e.GC
	f := map[string]float64{
		"gc.pauses": float64(g.Pauses), "gc.pause-pct": g.PausePct, "gc.full": float64(g.Full), "gc.young": float64(g.Young),
		"gc.humongous": float64(g.Humongous), "gc.evac-failure": float64(g.EvacFailure), "gc.to-space-exhausted": float64(g.ToSpaceExhausted),
		"gc.explicit": float64(g.Explicit), "gc.metadata": float64(g.Metadata), "gc.promotion-failed": float64(g.PromotionFailed),
		"gc.concurrent-failure": float64(g.ConcurrentFailure), "gc.alloc-mbs": g.AllocMBs, "gc.heap-max-mb": g.HeapMaxMB,
		"gc.live-after-full-pct": g.LiveAfterFullPct,
		"host.busy":              e.BusyPct, "host.user": e.UserPct, "host.sys": e.SysPct, "host.cpus": float64(e.CPUs),
		"dumps": float64(e.Dumps), "jfr.events": float64(e.JFREvents),
	}
	if e.Saturated {
		f["host.saturated"] = 1
	}
	if e.Deadlock {
		f["deadlock"] = 1
	}
	for k, v := range e.Events {
		f["event."+k] = float64(v)
	}
	for _, h := range e.HostFindings {
		f["finding."+h] = 1
	}
	for fw, ok := range e.Frameworks {
		if ok {
			f["framework."+fw] = 1
		}
	}
	for _, id := range g.Findings {
		f["finding."+id] = 1
	}
	e.facts = f
	return f
}

// describe says the signature in words, for the docs.
func (s *Signature) describe() finding.Text {
	var en, zh []string
	if len(s.States) > 0 {
		var st []string
		for _, x := range s.States {
			st = append(st, string(x))
		}
		en = append(en, "time "+strings.Join(st, "/"))
		zh = append(zh, "状态 "+strings.Join(st, "/"))
	}
	if len(s.Frames) > 0 {
		en = append(en, "in "+strings.Join(s.Frames, " | "))
		zh = append(zh, "栈帧 "+strings.Join(s.Frames, " | "))
	}
	if len(s.NotCallers) > 0 {
		en = append(en, "not called by "+strings.Join(s.NotCallers, " | "))
		zh = append(zh, "调用者不是 "+strings.Join(s.NotCallers, " | "))
	}
	if len(s.Locks) > 0 {
		en = append(en, "on lock "+strings.Join(s.Locks, " | "))
		zh = append(zh, "锁 "+strings.Join(s.Locks, " | "))
	}
	if len(s.HolderFrames) > 0 {
		en = append(en, "holder in "+strings.Join(s.HolderFrames, " | "))
		zh = append(zh, "持有者位于 "+strings.Join(s.HolderFrames, " | "))
	}
	if r := s.roles(); !slices.Equal(r, RequestRoles) {
		en = append(en, "threads "+strings.Join(r, "/"))
		zh = append(zh, "线程 "+strings.Join(r, "/"))
	}
	for _, n := range s.Needs {
		c := fmt.Sprintf("%s >= %g", n.Fact, n.Min)
		if n.Max > 0 {
			c += fmt.Sprintf(" and <= %g", n.Max)
		}
		en = append(en, c)
		zh = append(zh, c)
	}
	if s.Score != "" {
		en = append(en, "scored by "+s.Score)
		zh = append(zh, "按 "+s.Score+" 计分")
	}
	return finding.T(strings.Join(en, "; "), strings.Join(zh, "；"))
}

// allocSite names, for a facts-only (GC) match, the application code that
// allocates most of the sampled bytes (JFR allocation samples).
func allocSite(e *Evidence, m *Match) {
	code := map[Frame]float64{}
	var total float64
	for i := range e.Alloc {
		a := &e.Alloc[i]
		total += a.Weight
		if f, ok := FirstApp(a.Stack); ok {
			code[f] += a.Weight
		}
	}
	if total == 0 {
		return
	}
	var w float64
	m.Code, w = top(code)
	m.HasCode, m.CodeShare, m.AllocBytes = w > 0, w/total, total
}

// factsSaid lists the facts a facts-only signature read, with their values.
func (s *Signature) factsSaid(e *Evidence) string {
	facts := e.Facts()
	var out []string
	for _, n := range s.Needs {
		out = append(out, fmt.Sprintf("%s = %g", n.Fact, facts[n.Fact]))
	}
	if s.Score != "" && !slices.ContainsFunc(s.Needs, func(n Need) bool { return n.Fact == s.Score }) {
		out = append(out, fmt.Sprintf("%s = %.3g", s.Score, facts[s.Score]))
	}
	return strings.Join(out, ", ")
}

// lockMachinery are the JDK's frames between a wait and the code that
// asked for the lock.
var lockMachinery = []string{"java.util.concurrent.locks.", "jdk.internal.misc.Unsafe.park", "sun.misc.Unsafe.park",
	"java.lang.Object.wait", "java.util.concurrent.locks.LockSupport."}

// appSite: the first frame past the lock machinery is the application's.
func appSite(st []Frame) bool {
	for _, f := range st {
		if matchAny(f.Method, lockMachinery) {
			continue
		}
		return !IsLibrary(f.Method)
	}
	return false
}
