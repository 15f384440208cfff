// Package threadrole says what a JVM thread is for: a request worker of a
// pool, an event loop, an acceptor, a JIT compiler, a GC worker, the VM's
// own, a scheduler, a connection pool's housekeeper, a logging thread, and
// the framework behind it, from its name and, when known, its stack. The
// time account by thread role reads it, so a JIT or GC thread is never
// taken for the application's hottest thread.
//
// What it reads (a name, the stack leaf first as jstack prints it, and the
// same thread as /proc/PID/task/TID/comm shows it, cut to 15 bytes):
//
//	"http-nio-8080-exec-12"  [sun.nio.ch.SocketDispatcher.read0 ... org.apache.tomcat.util.net.SocketProcessorBase.run ...]
//	"pool-1-thread-3"        [... sun.net.httpserver.ServerImpl$Exchange.run, java.util.concurrent.ThreadPoolExecutor.runWorker ...]
//	"C2 CompilerThre"        (comm of "C2 CompilerThread0")
//
// Names alone are ambiguous: an Executors pool ("pool-1-thread-3") may serve
// requests, a Jetty "qtp" thread selects, accepts or serves in turn, a
// ForkJoinPool worker may carry virtual threads. The rules (rules.go, one
// table of names and one of frames, in order of precedence) decide: a name
// entry that only one role uses wins; otherwise the first frame entry found
// in the stack; otherwise a shared ("weak") name entry; otherwise any thread
// with Java frames is background work of the application.
//
// Library and FirstAppFrame read the third table: the packages of the JDK
// and of the common libraries, so the first frame of a stack that is none
// of them is the application's own code (where a sample's time goes).
package threadrole

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Kind is a thread's role.
type Kind string

// The roles.
const (
	RequestWorker  Kind = "request-worker"  // runs requests (servlet, handler, RPC, message listener) for a pool
	EventLoop      Kind = "event-loop"      // selector / I/O loop (Netty, Tomcat poller, JDK HttpServer dispatcher)
	Acceptor       Kind = "acceptor"        // accepts connections
	JIT            Kind = "jit-compiler"    // HotSpot C1/C2, Graal, OpenJ9 JIT threads
	GC             Kind = "gc"              // garbage collector workers and concurrent threads
	JFR            Kind = "jfr"             // JDK Flight Recorder
	Attach         Kind = "attach"          // attach listener, JMX over RMI, JDWP: tools looking at the JVM
	VM             Kind = "vm"              // the VM's and JDK's own: VM Thread, Signal Dispatcher, Finalizer, Reference Handler, Common-Cleaner, Service Thread ...
	Timer          Kind = "timer"           // schedulers: java.util.Timer, ScheduledThreadPoolExecutor, Quartz, Spring @Scheduled
	DBPool         Kind = "db-pool"         // a JDBC connection pool's own threads (HikariCP housekeeper, Druid create/destroy)
	Logging        Kind = "logging"         // asynchronous appenders' and loggers' threads
	Background     Kind = "background"      // other application work
	ForkJoin       Kind = "forkjoin"        // ForkJoinPool workers (common pool, custom pools, parallel streams)
	VirtualCarrier Kind = "virtual-carrier" // a carrier thread running virtual threads
	Main           Kind = "main"            // the main thread
	Unknown        Kind = "unknown"         // nothing tells (no rule matched the name and no stack)
)

// Kinds lists every role, in display order.
var Kinds = []Kind{RequestWorker, EventLoop, Acceptor, VirtualCarrier, ForkJoin, Background, Main, Timer, DBPool, Logging, JIT, GC, JFR, Attach, VM, Unknown}

// Internal says whether the role is the JVM's own work (JIT, GC, JFR,
// attach and management, VM threads): never the application's code.
func (k Kind) Internal() bool {
	switch k {
	case JIT, GC, JFR, Attach, VM:
		return true
	}
	return false
}

// Serving says whether threads of the role take the service's requests or
// connections (request workers, event loops, acceptors, virtual-thread carriers).
func (k Kind) Serving() bool {
	switch k {
	case RequestWorker, EventLoop, Acceptor, VirtualCarrier:
		return true
	}
	return false
}

// Role is what a thread is for.
type Role struct {
	Kind Kind
	// Pool is the thread's pool: its name without the thread's number
	// ("http-nio-8080-exec" for "http-nio-8080-exec-12"), the name itself
	// for a thread of its own.
	Pool string
	// Framework names the server, library or runtime behind the thread
	// (tomcat, jetty, undertow, netty, vertx, grpc, kafka, hikari, spring,
	// jdk-httpserver, reactor, okhttp, hotspot, openj9 ...); "" when none
	// is known (the JDK's own executors, the application's threads).
	Framework string
	// By says what decided: "name", "stack", "pool" (Pools: the pool's
	// other threads' stacks) or "" (nothing matched).
	By string
	// Shared: a name that pools of any role use decided (an Executors
	// "pool-1-thread-3", a Jetty "qtp" thread without its stack), or a name
	// cut to 15 bytes that several entries could complete: a guess.
	Shared bool
	// Rule is the table entry that decided (rules.go), "" when none.
	Rule string
}

func (r Role) String() string {
	s := string(r.Kind)
	if r.Framework != "" {
		s += "/" + r.Framework
	}
	if r.Pool != "" {
		s += " " + r.Pool
	}
	return s
}

// compiled rules: built once from the tables (read-only afterwards).
type cNameRule struct {
	nameRule
	re   *regexp.Regexp
	prog *syntax.Prog // for names cut short (comm)
	// anyStart: the entry matches names starting with anything ("(.*)-\d+-acceptor-...");
	// a cut name cannot reach the part that tells, so such entries do not
	// take cut names.
	anyStart bool
	literal  string // every name the entry matches starts with it
}

type cStackRule struct {
	stackRule
	dotted []string // "." + each frame prefix, for shaded copies
}

var (
	cNames  = compileNames(nameRules)
	cStacks = compileStacks(stackRules)
)

func compileNames(rules []nameRule) []cNameRule {
	out := make([]cNameRule, len(rules))
	for i, r := range rules {
		re := regexp.MustCompile(r.re)
		parsed, err := syntax.Parse(r.re, syntax.Perl)
		if err != nil {
			panic(fmt.Sprintf("threadrole: rule %s: %v", r.id, err))
		}
		prog, err := syntax.Compile(parsed.Simplify())
		if err != nil {
			panic(fmt.Sprintf("threadrole: rule %s: %v", r.id, err))
		}
		lit, _ := re.LiteralPrefix()
		out[i] = cNameRule{nameRule: r, re: re, prog: prog, anyStart: viablePrefix(prog, "\x00\x7f~\x00"), literal: lit}
	}
	return out
}

func compileStacks(rules []stackRule) []cStackRule {
	out := make([]cStackRule, len(rules))
	for i, r := range rules {
		out[i] = cStackRule{stackRule: r}
		for _, f := range r.frames {
			out[i].dotted = append(out[i].dotted, "."+f)
		}
	}
	return out
}

// Classify says what the thread named name is for. stack is its frames
// "pkg.Class.method", LEAF FIRST, as jstack and JFR list them (nil when
// unknown); a frame may carry a source suffix ("(Foo.java:12)"), ignored.
func Classify(name string, stack []string) Role {
	return classify(name, func(yield func(string) bool) {
		for _, f := range stack {
			if !yield(f) {
				return
			}
		}
	}, len(stack) > 0, false)
}

// ClassifyRootFirst is Classify for a stack listed root first, as collapsed
// stacks and flame graphs hold it.
func ClassifyRootFirst(name string, stack []string) Role {
	return classify(name, func(yield func(string) bool) {
		for i := len(stack) - 1; i >= 0; i-- {
			if !yield(stack[i]) {
				return
			}
		}
	}, len(stack) > 0, false)
}

// CommLen is the longest thread name the kernel keeps (/proc/PID/task/TID/comm,
// TASK_COMM_LEN 16 with the NUL).
const CommLen = 15

// ClassifyComm classifies a thread from its kernel name alone (comm): a
// Java name cut to 15 bytes ("C2 CompilerThre", "http-nio-8080-e"). A
// name of 15 bytes may be cut: it matches an entry when some name the
// entry matches starts with it. No stack is known, so ambiguous names stay
// so (a Jetty "qtp..." thread is a request worker by its name).
func ClassifyComm(comm string) Role {
	comm = strings.TrimRight(comm, "\n")
	if comm == "java" {
		// The launcher's first thread and the Java main thread keep the
		// process's name; every thread the JVM starts is renamed.
		return Role{Kind: Main, Pool: "java", By: "name", Rule: "comm-java"}
	}
	return classify(comm, nil, false, len(comm) >= CommLen)
}

// classify is the one decision: strong name entry, stack entry, weak name
// entry, then the fallback.
func classify(name string, frames func(func(string) bool), hasStack, cut bool) Role {
	var weak *cNameRule
	nr, ambiguous := matchName(name, cut)
	if nr != nil {
		if !nr.weak {
			r := nr.role(name, cut)
			r.Shared = ambiguous
			return r
		}
		weak = nr
	}
	if frames != nil {
		if sr := matchStack(frames); sr != nil {
			r := Role{Kind: sr.kind, Framework: sr.framework, Pool: PoolName(name), By: "stack", Rule: sr.id}
			if weak != nil && r.Framework == "" && weak.kind == r.Kind {
				r.Framework = weak.framework
			}
			return r
		}
	}
	if weak != nil {
		r := weak.role(name, cut)
		r.Shared = true
		return r
	}
	if hasStack {
		return Role{Kind: Background, Pool: PoolName(name)}
	}
	return Role{Kind: Unknown, Pool: PoolName(name)}
}

// matchName is the first name entry matching name (cut: name may be the
// start of a longer name).
func matchName(name string, cut bool) (*cNameRule, bool) {
	if cut {
		// A cut may split a multi-byte character: drop its first bytes.
		for len(name) > 0 {
			r, size := utf8.DecodeLastRuneInString(name)
			if r != utf8.RuneError || size != 1 {
				break
			}
			name = name[:len(name)-1]
		}
	}
	var first *cNameRule
	var scratch nfaScratch
	for i := range cNames {
		nr := &cNames[i]
		if !strings.HasPrefix(name, nr.literal) && !(cut && strings.HasPrefix(nr.literal, name)) {
			continue // cheap: most entries start with a literal
		}
		if nr.re.MatchString(name) {
			if first == nil {
				return nr, false
			}
			return first, first.kind != nr.kind
		}
		if cut && !nr.anyStart && viable(nr.prog, name, &scratch) {
			if first == nil {
				first = nr
			} else if first.kind != nr.kind {
				return first, true // the cut hides which
			}
		}
	}
	return first, false
}

func (nr *cNameRule) role(name string, cut bool) Role {
	r := Role{Kind: nr.kind, Framework: nr.framework, By: "name", Rule: nr.id}
	if nr.pool != "" && !cut {
		if m := nr.re.FindStringSubmatchIndex(name); m != nil {
			r.Pool = string(nr.re.ExpandString(nil, nr.pool, name, m))
		}
	}
	if r.Pool == "" {
		r.Pool = PoolName(name)
	}
	return r
}

// matchStack is the first stack entry (in table order) with a frame in the
// stack.
func matchStack(frames func(func(string) bool)) *cStackRule {
	var list []string
	frames(func(f string) bool {
		if i := strings.IndexByte(f, '('); i > 0 {
			f = f[:i]
		}
		if strings.IndexByte(f, '/') >= 0 { // OpenJ9 and JFR's internal form: java/lang/Thread.run
			f = strings.ReplaceAll(f, "/", ".")
		}
		list = append(list, strings.TrimSpace(f))
		return len(list) < maxFrames
	})
	shaded := make([]bool, len(list))
	for i, f := range list {
		shaded[i] = strings.Contains(f, "shade")
	}
	for i := range cStacks {
		sr := &cStacks[i]
		for k, f := range list {
			for j, p := range sr.frames {
				if strings.HasPrefix(f, p) || (shaded[k] && shadedPrefix(f, sr.dotted[j])) {
					return sr
				}
			}
		}
	}
	return nil
}

// shadedPrefix says whether frame f holds dotted ("." + a frame prefix)
// inside a shaded copy of the library: gRPC ships Netty as
// io.grpc.netty.shaded.io.netty..., Nacos as
// com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty...
func shadedPrefix(f, dotted string) bool {
	i := strings.Index(f, dotted)
	return i > 0 && strings.Contains(f[:i], "shade")
}

// maxFrames bounds the frames looked at: entry loops sit within the
// deepest real stacks (Spring's run to 300 frames); a runaway recursion
// stops here.
const maxFrames = 2048

// trailingNumber is a thread's number at the end of its name, with the
// separator before it ("-12", "#3", " 7", "0" in "CompilerThread0").
var trailingNumber = regexp.MustCompile(`^(.*?)[-_ #.:]*\d+$`)

// PoolName is name without the thread's number at its end:
// "http-nio-8080-exec" for "http-nio-8080-exec-12", "nioEventLoopGroup-3"
// for "nioEventLoopGroup-3-1", "GC Thread" for "GC Thread#2"; the name
// itself when it ends in no number or is nothing but one.
func PoolName(name string) string {
	if m := trailingNumber.FindStringSubmatch(name); m != nil && strings.TrimSpace(m[1]) != "" {
		return m[1]
	}
	return name
}

// viablePrefix says whether s is the start of some string prog matches: a
// breadth-first run of the program over s that succeeds when any thread is
// still alive at its end (zero-width assertions are taken as met: the
// names here use only ^ and $).
func viablePrefix(prog *syntax.Prog, s string) bool {
	return viable(prog, s, &nfaScratch{})
}

// nfaScratch is viable's memory, reused over the entries of one lookup.
type nfaScratch struct {
	seen      []bool
	cur, next []uint32
}

func viable(prog *syntax.Prog, s string, m *nfaScratch) bool {
	if cap(m.seen) < len(prog.Inst) {
		m.seen = make([]bool, len(prog.Inst))
	}
	seen := m.seen[:len(prog.Inst)]
	clear(seen)
	cur := addThread(prog, m.cur[:0], uint32(prog.Start), seen)
	next := m.next[:0]
	defer func() { m.cur, m.next = cur, next }()
	for _, r := range s {
		if len(cur) == 0 {
			return false
		}
		clear(seen)
		next = next[:0]
		for _, pc := range cur {
			inst := &prog.Inst[pc]
			switch inst.Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				if inst.MatchRune(r) {
					next = addThread(prog, next, inst.Out, seen)
				}
			}
		}
		cur, next = next, cur
	}
	return len(cur) > 0
}

// addThread adds pc and what it reaches without reading a character.
func addThread(prog *syntax.Prog, list []uint32, pc uint32, seen []bool) []uint32 {
	if seen[pc] {
		return list
	}
	seen[pc] = true
	inst := &prog.Inst[pc]
	switch inst.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		list = addThread(prog, list, inst.Out, seen)
		return addThread(prog, list, inst.Arg, seen)
	case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
		return addThread(prog, list, inst.Out, seen)
	case syntax.InstFail:
		return list
	}
	return append(list, pc) // a rune to read, or Match
}
