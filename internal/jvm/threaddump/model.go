// Package threaddump parses Java thread dumps (HotSpot text from JDK 6 to 25
// as printed by jstack, jcmd Thread.print and SIGQUIT, also inside prefixed
// application logs; and the JDK 21+ JSON dump) and diagnoses them: thread
// states, idle pools, lock owners and waiters, deadlocks, and the culprits
// behind contention (logging libraries, JDBC pools, slow downstreams).
//
// Parsers take an io.Reader and do no I/O of their own.
package threaddump

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// State is java.lang.Thread.State. VM-internal threads (GC, compiler) have
// none and use StateNone.
type State string

const (
	StateNone         State = ""
	StateNew          State = "NEW"
	StateRunnable     State = "RUNNABLE"
	StateBlocked      State = "BLOCKED"
	StateWaiting      State = "WAITING"
	StateTimedWaiting State = "TIMED_WAITING"
	StateTerminated   State = "TERMINATED"
)

// States lists the Java states in display order.
var States = []State{StateRunnable, StateBlocked, StateWaiting, StateTimedWaiting, StateNew, StateTerminated}

func parseState(s string) State {
	switch s {
	case "RUNNABLE":
		return StateRunnable
	case "BLOCKED":
		return StateBlocked
	case "WAITING":
		return StateWaiting
	case "TIMED_WAITING":
		return StateTimedWaiting
	case "NEW":
		return StateNew
	case "TERMINATED":
		return StateTerminated
	}
	return StateNone
}

// Format names the dialect a dump was read from.
type Format string

const (
	FormatHotSpot    Format = "hotspot"    // jstack / jcmd Thread.print / SIGQUIT
	FormatThreadInfo Format = "threadinfo" // JMX ThreadInfo: "name" id=3 in RUNNABLE, ThreadInfo.toString "name" Id=3 RUNNABLE
	FormatJSON       Format = "json"       // jcmd Thread.dump_to_file -format=json (JDK 21+)
	FormatPlain      Format = "plain"      // jcmd Thread.dump_to_file (plain, JDK 21+)
	FormatVisualVM   Format = "visualvm"   // VisualVM / JMX remote: "name" - Thread t@332
	FormatHPUX       Format = "hpux"       // HP-UX JDK: lwp_id=, tid= without 0x
	FormatJavacore   Format = "javacore"   // OpenJ9 / IBM J9 javacore
)

// Dump is one thread dump: the threads at one instant.
type Dump struct {
	Format Format `json:"format"`
	// Source names the input (the file path given to Parse), "" when unnamed.
	Source string `json:"source,omitempty"`
	// Line is where the dump starts in its input (1-based).
	Line int `json:"line"`
	// Time is the timestamp line as printed ("2026-11-21 22:41:08"), "" when absent.
	Time string `json:"time,omitempty"`
	// VM is the header text, e.g. "OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing)".
	VM string `json:"vm,omitempty"`
	// PID is known from a jcmd "<pid>:" line or the JSON processId.
	PID int64 `json:"pid,omitempty"`
	// Prefix is the log prefix stripped from each line ("" when none), as first seen.
	Prefix  string    `json:"prefix,omitempty"`
	Threads []*Thread `json:"threads"`
	// JVMDeadlocks are the cycles the JVM reported itself ("Found one Java-level deadlock").
	JVMDeadlocks []JVMDeadlock `json:"jvm_deadlocks,omitempty"`
	// HasOwnable is true when the dump carries "Locked ownable synchronizers"
	// (jstack -l / Thread.print -l): without it j.u.c lock owners are unknown.
	HasOwnable bool `json:"has_ownable"`
	// Truncated says why the dump is known to be cut short ("" when it is
	// whole): the input ended mid-dump, so threads past the cut are missing.
	Truncated finding.Text `json:"truncated,omitzero"`
	// Dropped counts records that could not be kept (a header line too long
	// to hold, a thread past the per-dump limit); DroppedWhy says the first.
	Dropped    int          `json:"dropped,omitempty"`
	DroppedWhy finding.Text `json:"dropped_why,omitzero"`
}

// JDKMajor guesses the Java major version from the VM header (0 when unknown).
func (d *Dump) JDKMajor() int {
	return jdkMajor(d.VM)
}

// jdkMajor reads the version from "OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode)",
// "Java HotSpot(TM) Client VM 1.6.0_03-b05" or a bare "25.0.3+9-LTS".
func jdkMajor(vm string) int {
	v := ""
	if i := strings.LastIndexByte(vm, '('); i >= 0 && i+1 < len(vm) && vm[i+1] >= '0' && vm[i+1] <= '9' {
		v = vm[i+1:]
	} else {
		for _, w := range strings.Fields(vm) {
			if w[0] >= '0' && w[0] <= '9' {
				v = w
			}
		}
	}
	if v == "" {
		return 0
	}
	// "1.6.0_03-b05", "25.91-b14" (JDK 8 prints its HotSpot version), "17.0.15+6", "21.0.2+13-LTS"
	if strings.HasPrefix(v, "1.") {
		return atoiPrefix(v[2:])
	}
	n := atoiPrefix(v)
	if n == 25 && strings.HasPrefix(v, "25.") && strings.Contains(v, "-b") {
		return 8
	}
	return n
}

func atoiPrefix(s string) int {
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1e6; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// JVMDeadlock is one deadlock as the JVM printed it.
type JVMDeadlock struct {
	Threads []string `json:"threads"`
	// Locks[i] is what Threads[i] waits for.
	Locks []LockRef `json:"locks"`
}

// Thread is one thread of a dump. Numbers absent from the format are zero.
type Thread struct {
	Name string `json:"name"`
	// ID is the Java thread id (#N, id=N, JSON tid); 0 for VM-internal threads.
	ID int64 `json:"id,omitempty"`
	// NativeID is the OS thread id (nid=0x.. hex up to JDK 17, decimal from 18; [N] from 19).
	NativeID int64 `json:"native_id,omitempty"`
	Daemon   bool  `json:"daemon,omitempty"`
	Priority int   `json:"priority,omitempty"`
	OSPrio   int   `json:"os_prio,omitempty"`
	// CPUMillis and ElapsedSec: JDK 11+ cpu= and elapsed=; -1 when not printed.
	CPUMillis  float64 `json:"cpu_ms"`
	ElapsedSec float64 `json:"elapsed_s"`
	// AllocatedBytes: allocated= with Thread.print -e (JDK 15+); -1 when not printed.
	AllocatedBytes int64 `json:"allocated_bytes"`
	// State is java.lang.Thread.State; StateNone for VM-internal threads.
	State State `json:"state,omitempty"`
	// StateDetail is the parenthesised part: "on object monitor", "parking", "sleeping".
	StateDetail string `json:"state_detail,omitempty"`
	// RawState is the OS-level text of the header: "waiting on condition", "runnable".
	RawState string  `json:"raw_state,omitempty"`
	Frames   []Frame `json:"frames,omitempty"`

	Locked        []LockRef `json:"locked,omitempty"`          // - locked, - eliminated
	WaitingToLock []LockRef `json:"waiting_to_lock,omitempty"` // - waiting to lock, - waiting to re-lock in wait()
	WaitingOn     []LockRef `json:"waiting_on,omitempty"`      // - waiting on (Object.wait)
	Parking       []LockRef `json:"parking,omitempty"`         // - parking to wait for
	// OwnableSynchronizers are the j.u.c locks this thread owns (-l only).
	OwnableSynchronizers []LockRef `json:"ownable_synchronizers,omitempty"`

	// Virtual is true for a virtual thread (JSON dumps, JDK 21 "virtual" header).
	Virtual bool `json:"virtual,omitempty"`
	// Carrying is the id of the virtual thread this carrier has mounted (0 when none).
	Carrying int64 `json:"carrying,omitempty"`
	// Carrier is the id of the carrier of a mounted virtual thread (JSON).
	Carrier int64 `json:"carrier,omitempty"`
	// MountedFrames are the virtual thread's frames a JDK 25 carrier prints
	// after "Mounted virtual thread #N"; Frames then hold the carrier's own.
	MountedFrames []Frame `json:"mounted_frames,omitempty"`

	// Line is the header's line in the input (1-based).
	Line int `json:"line"`

	parkOwner int64  // JSON parkBlocker.owner, resolved after all threads are read
	waitOwner string // ThreadInfo.toString "owned by", resolved likewise
}

// VMInternal reports a thread without a Java state: a JVM-internal thread
// (GC, compiler, VM Thread). Analysis counts these apart from Java threads.
func (t *Thread) VMInternal() bool { return t.State == StateNone }

// Stack returns the frames that describe what the thread runs: the mounted
// virtual thread's frames when a carrier has one, else its own.
func (t *Thread) Stack() []Frame {
	if len(t.MountedFrames) > 0 {
		return t.MountedFrames
	}
	return t.Frames
}

// Top is the first frame, or a zero Frame.
func (t *Thread) Top() Frame {
	if s := t.Stack(); len(s) > 0 {
		return s[0]
	}
	return Frame{}
}

// Frame is one "at" line.
type Frame struct {
	// Method is Class.method, e.g. "java.lang.Thread.sleep".
	Method string `json:"method"`
	// Source is the parenthesised part without module: "Thread.java:840", "Native Method".
	Source string `json:"source,omitempty"`
	// Module is the JDK 9+ module prefix, e.g. "java.base@17.0.15".
	Module string `json:"module,omitempty"`
}

// String renders the frame the way the JVM does, without the module.
func (f Frame) String() string {
	if f.Source == "" {
		return f.Method
	}
	return f.Method + "(" + f.Source + ")"
}

// Class is the class part of Method.
func (f Frame) Class() string {
	if i := strings.LastIndexByte(f.Method, '.'); i > 0 {
		return f.Method[:i]
	}
	return f.Method
}

// LockRef names a lock: the object address (or Class@hash in JSON dumps) and its class.
type LockRef struct {
	Addr  string `json:"addr"`
	Class string `json:"class,omitempty"`
	// Frame is the index in Thread.Frames of the frame the lock line follows (-1 when unknown).
	Frame int `json:"frame"`
}

// Key identifies the lock object within one dump.
func (l LockRef) Key() string {
	if l.Addr == "" {
		return l.Class
	}
	return l.Addr
}

// String renders "<0x..> (a Class)".
func (l LockRef) String() string {
	s := "<" + l.Addr + ">"
	if l.Class != "" {
		s += " (a " + l.Class + ")"
	}
	return s
}
