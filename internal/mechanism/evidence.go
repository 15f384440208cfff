// Package mechanism is the diagnosis's catalogue of mechanisms: what, in
// the code or the runtime, makes a service slow, named from the evidence a
// run already holds. Its input is one time account of the threads that
// serve requests (where their wall-clock time went: running which
// application method, blocked on which lock, parked waiting for whom, in
// which I/O, asleep), read from JFR events and thread dumps, beside the GC
// and host facts. Every entry of the catalogue is a finding.Rule over that
// evidence, in the same shape as every other rule: a signature as data, a
// name, the specific fix for the framework in use, the trade-off and a
// public reference. Name picks the mechanism behind the largest share of
// the time, read against the CPUs' saturation.
package mechanism

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/jvm/threadrole"
)

// State is what a thread was doing in a slice of its time.
type State string

// The states of the account. Idle is time a pool thread waited for work:
// it is kept out of every share.
const (
	Running  State = "running"  // on a CPU (JFR execution sample, RUNNABLE in Java code)
	Blocked  State = "blocked"  // waiting to enter a monitor (synchronized)
	Parked   State = "parked"   // LockSupport.park: j.u.c locks, futures, latches, queues, permits
	Waiting  State = "waiting"  // Object.wait
	Sleeping State = "sleeping" // Thread.sleep
	Socket   State = "socket"   // in a socket read or write
	File     State = "file"     // in a file read, write or fsync
	Idle     State = "idle"     // a pool thread waiting for work
)

// States lists the states in display order.
var States = []State{Running, Blocked, Parked, Waiting, Sleeping, Socket, File}

// Frame is one stack frame: "pkg.Class.method" and its line (0: unknown).
type Frame struct {
	Method string `json:"method"`
	Line   int    `json:"line,omitempty"`
}

// String is "pkg.Class.method:line" (without ":line" when unknown).
func (f Frame) String() string {
	if f.Line <= 0 {
		return f.Method
	}
	return f.Method + ":" + strconv.Itoa(f.Line)
}

// Source says where a slice was read.
type Source string

const (
	FromJFR   Source = "jfr"
	FromDumps Source = "dumps"
)

// Slice is one piece of a thread's time: a JFR sample or timed event, or
// the thread as one dump saw it.
type Slice struct {
	Thread string
	// Role is the thread's role kind ("request-worker", "event-loop",
	// "jit-compiler", ...) and Pool its pool ("http-nio-8080-exec").
	Role, Pool string
	State      State
	// Stack is leaf first.
	Stack []Frame
	// Weight is nanoseconds for JFR, 1 for a thread in one dump; Events
	// how many samples, events or snapshots it merges.
	Weight float64
	Events int
	Source Source
	// Lock is the monitor's or the parked-on object's class.
	Lock string
	// Peer is the socket's host:port or the file's path.
	Peer string
	// Holder is the stack (leaf first) of the thread that held the lock a
	// blocked thread waited for, when a dump shows it.
	Holder []Frame
}

// RequestRoles are the roles whose time is the service's latency: the
// threads that serve requests.
var RequestRoles = []string{"request-worker", "event-loop", "virtual-carrier"}

// AppRoles are every role that runs the application's code: what a
// signature reads when no thread of a source is known to serve requests
// (a batch job, a crawler, a pool named "pool-1-thread-N" with no server
// frame in its stacks).
var AppRoles = []string{"request-worker", "event-loop", "virtual-carrier", "background", "forkjoin", "main", "timer", "unknown"}

// servingRoles are the roles whose time a signature without roles of its
// own reads in src: the request roles when the source has enough of their
// (non-idle) slices, else every application role.
func (e *Evidence) servingRoles(src Source) []string {
	if e.roles == nil {
		e.roles = map[Source][]string{}
	}
	if r, ok := e.roles[src]; ok {
		return r
	}
	n := 0
	for i := range e.Slices {
		if sl := &e.Slices[i]; sl.Source == src && sl.State != Idle && slices.Contains(RequestRoles, sl.Role) {
			n += max(sl.Events, 1)
		}
	}
	need := MinEvents(src)
	r := RequestRoles
	if n < need {
		r = AppRoles
	}
	e.roles[src] = r
	return r
}

// IsLibrary says whether a frame is the JDK's, a library's or generated
// (lambdas, proxies, accessors), or has no name: not the application's.
// threadrole.Library holds the one list of library frames.
func IsLibrary(method string) bool {
	return method == "" || threadrole.Library(method) != ""
}

// FirstApp is the first application frame of a stack (leaf first): the
// code line a user changes. ok is false when every frame is a library's.
func FirstApp(stack []Frame) (Frame, bool) {
	if i := threadrole.FirstAppFrameFunc(len(stack), func(i int) string { return stack[i].Method }); i >= 0 {
		return stack[i], true
	}
	return Frame{}, false
}

// matchAny: method starts with one of the prefixes.
func matchAny(method string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

// GCFacts are what the GC log and JFR say about the collector.
type GCFacts struct {
	Collector string
	// Pauses and their share of the wall time (0-100; -1: unknown).
	Pauses   int
	PausePct float64
	// Counts of pause causes and events.
	Full, Young, Humongous, EvacFailure, ToSpaceExhausted, Explicit, Metadata, PromotionFailed, ConcurrentFailure int
	// AllocMBs is the allocation rate (0: unknown); HeapMaxMB the heap's size.
	AllocMBs, HeapMaxMB float64
	// LiveAfterFullPct is the heap still used after full GCs, % of the heap (-1: unknown).
	LiveAfterFullPct float64
	// Findings are the GC findings' IDs at warning or above.
	Findings []string
}

// Evidence is everything the catalogue's signatures read.
type Evidence struct {
	Slices []Slice
	// Alloc are allocation samples by stack (leaf first), weights in bytes.
	Alloc []Slice
	GC    GCFacts
	// Events counts JFR events by type ("jdk.CodeCacheFull", "jdk.Deoptimization").
	Events map[string]int
	// Host: the CPUs' mean busy %, user and system %, CPU count; Saturated
	// when the service cannot get more CPU (busy >= 85% of the CPUs it may use).
	BusyPct, UserPct, SysPct float64
	CPUs                     int
	Saturated                bool
	// HostFindings are the run's host finding IDs at warning or above
	// (run.irq.softirq-concentrated, run.net.delayed-ack, ...).
	HostFindings []string
	// Frameworks seen in the stacks and the class path (logback, log4j2,
	// jul, tomcat, netty, spring, hikari, ...): the fix is said for them.
	Frameworks map[string]bool
	// Dumps and JFR events the account rests on.
	Dumps, JFREvents int
	// Deadlock: a dump showed a deadlock cycle.
	Deadlock bool

	account *Account
	facts   map[string]float64
	roles   map[Source][]string
	matches map[string]Match
}

// Account is the time account of e (built once).
func (e *Evidence) Account() *Account {
	if e.account == nil {
		e.account = NewAccount(e.Slices)
	}
	return e.account
}

// Has says whether a framework was seen.
func (e *Evidence) Has(fw string) bool { return e.Frameworks[fw] }

// Note adds a finding the verdict decided on (e.g. run.net.delayed-ack,
// made from the load and the kernel's counters) to the facts.
func (e *Evidence) Note(id string) {
	e.HostFindings = append(e.HostFindings, id)
	e.facts = nil
}

func (e *Evidence) hostFinding(id string) bool {
	for _, h := range e.HostFindings {
		if h == id {
			return true
		}
	}
	return false
}
