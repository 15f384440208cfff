package stacks

// Per-thread events of a JFR recording, with line numbers: what each thread
// did, for a time account by thread. What `jfr print` shows of the events
// read here (JDK 17):
//
//	jdk.ExecutionSample { startTime = 06:23:14.503  sampledThread = "spinner" (javaThreadId = 22)
//	  state = "STATE_RUNNABLE"  stackTrace = [ ThreadMix.spin() line: 17 ... ] }
//	jdk.SocketRead { startTime = 06:22:43.772  duration = 99.7 ms  host = "127.0.0.1"  address = "127.0.0.1"
//	  port = 60342  timeout = 0 s  bytesRead = 1 byte  endOfStream = false  eventThread = "reader" ... }
//	jdk.JavaMonitorEnter { duration = 148 ms  monitorClass = java.lang.Object  previousOwner = "holder" ... }
//	jdk.FileForce { duration = 21.3 ms  path = "/tmp/threadmix123.dat"  metaData = true ... }
//
// The JFR library decodes only a few of these events (execution samples,
// monitor enter, park); the others it skips. So every event here is read
// by one walk over the chunk's events with the field layout the chunk's
// metadata gives (the validator's, jfrcheck.go), fields found by name, and
// only the chunk's constant pools (threads, stack traces, methods, classes,
// strings) are taken from the library.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
)

// EventKind is what a thread was doing in one JFR event.
type EventKind string

// The per-thread event kinds and the JFR events they come from.
const (
	EvCPU         EventKind = "cpu"          // jdk.ExecutionSample: running Java code (a sample)
	EvNative      EventKind = "native"       // jdk.NativeMethodSample: in native code (a sample)
	EvMonitor     EventKind = "monitor"      // jdk.JavaMonitorEnter: blocked entering a synchronized block
	EvPark        EventKind = "park"         // jdk.ThreadPark: parked (j.u.c locks, queues, futures)
	EvWait        EventKind = "wait"         // jdk.JavaMonitorWait: Object.wait
	EvSleep       EventKind = "sleep"        // jdk.ThreadSleep: Thread.sleep
	EvSocketRead  EventKind = "socket-read"  // jdk.SocketRead
	EvSocketWrite EventKind = "socket-write" // jdk.SocketWrite
	EvFileRead    EventKind = "file-read"    // jdk.FileRead
	EvFileWrite   EventKind = "file-write"   // jdk.FileWrite
	EvFileForce   EventKind = "file-force"   // jdk.FileForce: fsync
	// EvCPUTime is JDK 25's CPU-time sampler (jdk.CPUTimeSample, Linux,
	// off in the default settings): a sample per period of CPU time a
	// thread used, in Java or native code; ThreadEvent.Period says how much.
	EvCPUTime EventKind = "cpu-time"
)

// jfrThreadEventKinds maps a JFR event type to its kind.
var jfrThreadEventKinds = map[string]EventKind{
	"jdk.ExecutionSample":    EvCPU,
	"jdk.NativeMethodSample": EvNative,
	"jdk.JavaMonitorEnter":   EvMonitor,
	"jdk.ThreadPark":         EvPark,
	"jdk.JavaMonitorWait":    EvWait,
	"jdk.ThreadSleep":        EvSleep,
	"jdk.SocketRead":         EvSocketRead,
	"jdk.SocketWrite":        EvSocketWrite,
	"jdk.FileRead":           EvFileRead,
	"jdk.FileWrite":          EvFileWrite,
	"jdk.FileForce":          EvFileForce,
	"jdk.CPUTimeSample":      EvCPUTime,
}

// JFREventType is the JFR event type a kind is read from.
func (k EventKind) JFREventType() string {
	for t, kk := range jfrThreadEventKinds {
		if kk == k {
			return t
		}
	}
	return ""
}

// Sampled says whether events of the kind are samples (each stands for its
// sampling period) rather than timed intervals.
func (k EventKind) Sampled() bool { return k == EvCPU || k == EvNative || k == EvCPUTime }

// Frame is one stack frame: "pkg.Class.method" and its source line (0 when
// the recording has none: native frames, classes compiled without lines).
type Frame struct {
	Method string
	Line   int
}

func (f Frame) String() string {
	if f.Line <= 0 {
		return f.Method
	}
	return fmt.Sprintf("%s:%d", f.Method, f.Line)
}

// ThreadEvent is one event of one thread.
type ThreadEvent struct {
	Kind EventKind
	// Thread is the thread's Java name; for a thread without one (a JVM
	// thread seen in native code) its OS name.
	Thread string
	// OSThreadID is the kernel's thread id (0 when the recording has none,
	// and for a virtual thread); JavaThreadID is Thread.getId() (0 for a
	// thread that is not Java's).
	OSThreadID, JavaThreadID uint64
	// Virtual: a virtual thread (JDK 21+; its name is "" unless the
	// application set one).
	Virtual bool
	// Start is the event's start in nanoseconds since the Unix epoch.
	Start int64
	// Duration is how long the event lasted, in nanoseconds (0 for samples).
	Duration int64
	// Period is, for a jdk.CPUTimeSample, the CPU time the sample stands
	// for (its samplingPeriod), in nanoseconds; 0 for the other events (a
	// cpu or native sample's period is JFRThreadRead.PeriodOrDefault).
	Period int64
	// Stack is the thread's stack, LEAF FIRST, at most MaxFrames frames
	// (the leaf side kept). It is shared by every event of the same stack
	// in a chunk: do not modify it.
	Stack []Frame
	// Truncated: JFR cut the stack at its stackdepth (64 by default).
	Truncated bool
	// State is a sample's thread state ("STATE_RUNNABLE"), else "".
	State string
	// Class is the monitor's class (monitor, wait) or the parked-on
	// object's class (park: "java.util.concurrent.locks.ReentrantLock$NonfairSync"),
	// "" when none.
	Class string
	// Other is the thread that held the monitor before (monitor) or that
	// notified the waiter (wait), "" when none or unknown.
	Other string
	// Peer is host:port for socket events ("127.0.0.1:8080"; the address
	// when the host is empty); Path the file of file events.
	Peer, Path string
	// Bytes read or written (socket and file events).
	Bytes int64
	// TimedOut: a wait that ended by its timeout; Timeout is a wait's or
	// park's timeout in nanoseconds (0: none).
	TimedOut bool
	Timeout  int64
}

// JFRThreadRead is what JFRThreadEvents found besides the events.
type JFRThreadRead struct {
	// Events counts the events yielded, by kind.
	Events map[EventKind]int
	// Period is the sampling period of each sampled kind (cpu, native) in
	// nanoseconds, the shortest any recording in the file asked for; 0 when
	// the recording does not say (see PeriodOrDefault).
	Period map[EventKind]int64
	// Enabled says, by kind, whether the recording had the event type on
	// (from its jdk.ActiveSetting events); a kind absent from the map: the
	// recording does not say (e.g. settings scrubbed).
	Enabled map[EventKind]bool
	// Threshold is, by timed kind, the shortest duration an event must last
	// to be recorded (ns; the lowest of the recordings): time in shorter
	// events is not in the recording.
	Threshold map[EventKind]int64
	// Chunks is how many whole chunks were read; Truncated says the
	// recording's last chunk was cut short and left out.
	Chunks    int
	Truncated bool
	// Start and End bound the time the whole chunks read cover (their
	// headers' start and duration), in nanoseconds since the Unix epoch: the
	// wall-clock span the events' time shares are of.
	Start, End int64
	// LostCPUTimeSamples is how many jdk.CPUTimeSample events the JVM
	// dropped (jdk.CPUTimeSamplesLost): the cpu-time view misses that much.
	LostCPUTimeSamples int
}

// PeriodOrDefault is the sampling period of a sampled kind, JFR's "profile"
// settings' when the recording does not say its own.
func (r *JFRThreadRead) PeriodOrDefault(k EventKind) int64 {
	if d := r.Period[k]; d > 0 {
		return d
	}
	switch k {
	case EvCPU:
		return defaultJavaPeriod
	case EvNative:
		return defaultNativePeriod
	}
	return 0
}

// JFRThreadEvents calls fn with every per-thread event of a JFR recording
// (the kinds above), chunk by chunk, in the order written (JFR writes a
// thread's events in buffers, so the order is not strictly by time). The
// recording is validated first (checkJFR); a recording cut short yields its
// whole chunks and reports Truncated; a panic in the third-party library
// on corrupt input becomes an error.
func JFRThreadEvents(buf []byte, fn func(ThreadEvent)) (read JFRThreadRead, err error) {
	read = JFRThreadRead{Events: map[EventKind]int{}, Period: map[EventKind]int64{}, Enabled: map[EventKind]bool{}, Threshold: map[EventKind]int64{}}
	if !bytes.HasPrefix(buf, []byte("FLR\x00")) {
		return read, ErrNotJFR
	}
	chunks, err := scanJFR(buf) // before the library sizes anything from it
	if err != nil {
		if !errors.Is(err, errJFRTruncated) || len(chunks) == 0 {
			return read, err
		}
		read.Truncated = true
	}
	n := 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt JFR recording after %d events: %v", n, r)
		}
	}()
	for _, ch := range chunks {
		if err := threadEventsChunk(buf, ch, &read, func(e ThreadEvent) { n++; fn(e) }); err != nil {
			return read, err
		}
		read.Chunks++
	}
	return read, nil
}

// threadEventsChunk reads one whole, validated chunk.
func threadEventsChunk(buf []byte, ch jfrChunk, read *JFRThreadRead, fn func(ThreadEvent)) error {
	// The library loads the chunk's constant pools on its first event.
	p := parser.NewParser(buf[ch.start:ch.end], parser.Options{})
	if _, err := p.ParseEvent(); err != nil && err != io.EOF {
		return fmt.Errorf("JFR chunk at byte %d: %w", ch.start, err)
	}
	c := &chunkCheck{buf: buf[:ch.end], start: ch.start, end: ch.end}
	h := p.ChunkHeader()
	if start := int64(h.StartNanos); read.Start == 0 || start < read.Start {
		read.Start = start
	}
	if end := int64(h.StartNanos + h.DurationNanos); end > read.End {
		read.End = end
	}
	if err := c.metadata(ch.start + h.OffsetMeta); err != nil {
		return err
	}
	virtual, err := c.virtualThreads(p)
	if err != nil {
		return err
	}
	tr := &threadResolver{p: p, methods: map[types.MethodRef]string{}, stacks: map[uint64]resolvedStack{}}
	tps := h.TicksPerSecond
	if tps == 0 {
		tps = 1_000_000_000
	}
	toNs := func(ticks uint64) int64 { return int64(mulDiv(ticks, 1_000_000_000, tps)) }
	pos := ch.start + jfrHeaderSize
	for pos < ch.end {
		r := &jfrReader{b: c.buf, pos: pos, end: ch.end}
		size, err := r.varlong("event size")
		if err != nil {
			return err
		}
		r.end = pos + int(size) // checked by scanJFR
		typ, err := r.varlong("event type")
		if err != nil {
			return err
		}
		pos = r.end
		cls := c.classes[int64(typ)]
		if typ <= 1 || cls == nil {
			continue
		}
		kind, isThread := jfrThreadEventKinds[cls.name]
		if !isThread && cls.name != "jdk.ActiveSetting" && cls.name != "jdk.CPUTimeSamplesLost" {
			continue
		}
		var v jfrFieldValues
		if err := c.readFields(r, cls, p, &v); err != nil {
			return err
		}
		if cls.name == "jdk.CPUTimeSamplesLost" {
			read.LostCPUTimeSamples += int(v.lost)
			continue
		}
		if !isThread {
			read.setting(c, v)
			continue
		}
		e := ThreadEvent{Kind: kind, Bytes: int64(v.bytes), TimedOut: v.timedOut}
		e.Start = int64(h.StartNanos) + toNs(v.start) - toNs(h.StartTicks)
		if !kind.Sampled() {
			e.Duration = toNs(v.duration)
		}
		th := v.sampledThread // samples; jdk.CPUTimeSample has an eventThread
		if th == 0 {
			th = v.eventThread
		}
		e.Thread, e.OSThreadID, e.JavaThreadID = tr.thread(th)
		e.Virtual = virtual[th]
		if kind == EvCPUTime {
			e.Period = toNs(v.duration) // samplingPeriod, in ticks
		}
		st := tr.stack(v.stack)
		e.Stack, e.Truncated = st.frames, st.truncated
		if kind.Sampled() {
			if s := p.GetThreadState(types.ThreadStateRef(v.state)); s != nil {
				e.State = s.Name
			}
		}
		e.Class = tr.class(v.class)
		e.Other, _, _ = tr.thread(v.other)
		if v.timeout > 0 && (kind == EvWait || kind == EvPark) {
			e.Timeout = v.timeout
			if kind == EvWait {
				e.Timeout *= 1_000_000 // Object.wait's timeout is in ms
			}
		}
		if kind == EvSocketRead || kind == EvSocketWrite {
			host := v.host
			if host == "" {
				host = v.addr
			}
			if host != "" || v.port != 0 {
				e.Peer = fmt.Sprintf("%s:%d", host, v.port)
			}
		}
		e.Path = v.path
		read.Events[kind]++
		fn(e)
	}
	return nil
}

// setting takes a jdk.ActiveSetting: period, enabled and threshold of the
// event types read here.
func (read *JFRThreadRead) setting(c *chunkCheck, v jfrFieldValues) {
	cls := c.classes[int64(v.id)]
	if cls == nil {
		return
	}
	kind, ok := jfrThreadEventKinds[cls.name]
	if !ok {
		return
	}
	switch v.name {
	case "enabled":
		// Several recordings at once: an event is on when any has it on.
		read.Enabled[kind] = read.Enabled[kind] || v.value == "true"
	case "period":
		if d, ok := parsePeriod(v.value); ok && (read.Period[kind] == 0 || d < read.Period[kind]) {
			read.Period[kind] = d
		}
	case "threshold":
		d, ok := parsePeriod(v.value)
		if !ok && strings.HasPrefix(strings.TrimSpace(v.value), "0") {
			d, ok = 0, true // "0 ns", "0 ms": every event
		}
		if old, seen := read.Threshold[kind]; ok && (!seen || d < old) {
			read.Threshold[kind] = d
		}
	}
}

// jfrFieldValues holds the fields of one event this file reads, by name;
// pool references are keys into the chunk's pools.
type jfrFieldValues struct {
	start, duration            uint64
	eventThread, sampledThread uint64 // java.lang.Thread keys
	other                      uint64 // previousOwner / notifier thread key
	stack                      uint64 // jdk.types.StackTrace key
	state                      uint64 // jdk.types.ThreadState key
	class                      uint64 // java.lang.Class key
	timeout                    int64
	timedOut                   bool
	host, addr, path           string
	port                       int64
	bytes                      uint64
	id                         uint64 // ActiveSetting: the event type
	name, value                string // ActiveSetting
	lost                       uint64 // CPUTimeSamplesLost
	virtual                    bool   // a java.lang.Thread pool entry
}

// virtualThreads reads the chunk's constant pools for the keys of its
// virtual threads (java.lang.Thread's "virtual" field, JDK 19+), which the
// library does not decode. Pools are written in checkpoint events, often
// after the events that use them: this is a pass of its own.
func (c *chunkCheck) virtualThreads(p *parser.Parser) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	pos := c.start + jfrHeaderSize
	for pos < c.end {
		r := &jfrReader{b: c.buf, pos: pos, end: c.end}
		size, err := r.varlong("event size")
		if err != nil {
			return nil, err
		}
		r.end = pos + int(size) // checked by scanJFR
		typ, err := r.varlong("event type")
		if err != nil {
			return nil, err
		}
		pos = r.end
		if typ != 1 {
			continue
		}
		for _, what := range []string{"checkpoint start", "checkpoint duration", "checkpoint delta"} {
			if _, err := r.varlong(what); err != nil {
				return nil, err
			}
		}
		if _, err := r.varint32("checkpoint type mask"); err != nil {
			return nil, err
		}
		npool, err := r.count("pool count", 2)
		if err != nil {
			return nil, err
		}
		for i := 0; i < npool; i++ {
			at := r.pos
			id, err := r.varlong("pool class id")
			if err != nil {
				return nil, err
			}
			cls := c.classes[int64(id)]
			if cls == nil {
				return nil, r.fail(at, "constant pool of unknown class %d", int64(id))
			}
			n, err := r.count("constant pool entry count", 1)
			if err != nil {
				return nil, err
			}
			for j := 0; j < n; j++ {
				key, err := r.varlong("constant pool key")
				if err != nil {
					return nil, err
				}
				switch {
				case c.prim[int64(id)] == primString:
					err = c.str(r)
				case cls.name == "java.lang.Thread":
					var v jfrFieldValues
					err = c.readFields(r, cls, p, &v)
					if v.virtual {
						out[key] = true
					}
				default:
					err = c.fields(r, cls, modeSpec, 0)
				}
				if err != nil {
					return nil, err
				}
			}
			if cls.name == "jdk.types.ChunkHeader" {
				break // the last pool of its checkpoint (checkJFR)
			}
		}
	}
	return out, nil
}

// readFields decodes one event's fields by name and type; fields of another
// name or shape are skipped the way the validator walks them.
func (c *chunkCheck) readFields(r *jfrReader, cls *jfrClass, p *parser.Parser, v *jfrFieldValues) error {
	for _, f := range cls.fields {
		if f.array {
			if err := c.field(r, cls, f, modeSpec, 0); err != nil {
				return err
			}
			continue
		}
		var typ string
		if t := c.classes[f.typ]; t != nil {
			typ = t.name
		}
		if f.cp {
			key, err := r.varlong(cls.name + "." + f.name)
			if err != nil {
				return err
			}
			if typ == "java.lang.String" {
				s := jfrPoolString(p, key)
				v.setString(f.name, s)
				continue
			}
			switch {
			case typ == "java.lang.Thread" && f.name == "eventThread":
				v.eventThread = key
			case typ == "java.lang.Thread" && f.name == "sampledThread":
				v.sampledThread = key
			case typ == "java.lang.Thread" && (f.name == "previousOwner" || f.name == "notifier"):
				v.other = key
			case typ == "jdk.types.StackTrace" && f.name == "stackTrace":
				v.stack = key
			case typ == "jdk.types.ThreadState" && f.name == "state":
				v.state = key
			case typ == "java.lang.Class" && (f.name == "monitorClass" || f.name == "parkedClass"):
				v.class = key
			}
			continue
		}
		switch c.prim[f.typ] {
		case primLong, primVarint:
			var x uint64
			var err error
			if c.prim[f.typ] == primLong {
				x, err = r.varlong(cls.name + "." + f.name)
			} else {
				var y uint32
				y, err = r.varint32(cls.name + "." + f.name)
				x = uint64(int64(int32(y)))
			}
			if err != nil {
				return err
			}
			switch f.name {
			case "startTime":
				v.start = x
			case "duration", "samplingPeriod":
				v.duration = x
			case "lostSamples":
				v.lost = x
			case "timeout":
				v.timeout = int64(x)
			case "port":
				v.port = int64(x)
			case "bytesRead", "bytesWritten":
				v.bytes = x
			case "id":
				v.id = x
			}
		case primBool:
			b, err := r.byte1(cls.name + "." + f.name)
			if err != nil {
				return err
			}
			switch f.name {
			case "timedOut":
				v.timedOut = b != 0
			case "virtual":
				v.virtual = b != 0
			}
		case primString:
			s, err := jfrReadString(r, p)
			if err != nil {
				return err
			}
			v.setString(f.name, s)
		default:
			if err := c.field(r, cls, f, modeSpec, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *jfrFieldValues) setString(name, s string) {
	switch name {
	case "host":
		v.host = s
	case "address":
		v.addr = s
	case "path":
		v.path = s
	case "name":
		v.name = s
	case "value":
		v.value = s
	}
}

// jfrMaxString caps a string read from an event (a path, a host).
const jfrMaxString = 4096

// jfrReadString reads an inline java.lang.String value: 0 null, 1 empty,
// 2 a key into the string pool, 3 UTF-8, 4 char array, 5 Latin-1.
func jfrReadString(r *jfrReader, p *parser.Parser) (string, error) {
	at := r.pos
	enc, err := r.byte1("string")
	if err != nil {
		return "", err
	}
	switch enc {
	case 0, 1:
		return "", nil
	case 2:
		key, err := r.varlong("string pool reference")
		return jfrPoolString(p, key), err
	case 3, 5:
		n, err := r.count("string length", 1)
		if err != nil {
			return "", err
		}
		b := r.b[r.pos : r.pos+n]
		r.pos += n
		if enc == 5 { // Latin-1: every byte is its code point
			rs := make([]rune, len(b))
			for i, c := range b {
				rs[i] = rune(c)
			}
			return capString(string(rs)), nil
		}
		return capString(string(b)), nil
	case 4:
		n, err := r.count("char array length", 1)
		if err != nil {
			return "", err
		}
		var sb strings.Builder
		for i := 0; i < n; i++ {
			ch, err := r.varint32("char")
			if err != nil {
				return "", err
			}
			if sb.Len() < jfrMaxString {
				sb.WriteRune(rune(ch))
			}
		}
		return sb.String(), nil
	}
	return "", r.fail(at, "unknown string encoding %d", enc)
}

func capString(s string) string {
	if len(s) > jfrMaxString {
		return capName(s[:jfrMaxString])
	}
	return s
}

// jfrPoolString is the string of a key into the chunk's string pool.
func jfrPoolString(p *parser.Parser, key uint64) string {
	if i, ok := p.Strings.IDMap[types.StringRef(key)]; ok && int(i) < len(p.Strings.String) {
		return capString(p.Strings.String[i].String)
	}
	return ""
}

// mulDiv is a*b/c without overflowing for the tick counts JFR writes.
func mulDiv(a, b, c uint64) uint64 {
	if c == 0 {
		return 0
	}
	return a/c*b + a%c*b/c
}

// threadResolver turns one chunk's pool keys into names and frames, cached.
type threadResolver struct {
	p       *parser.Parser
	methods map[types.MethodRef]string
	stacks  map[uint64]resolvedStack
}

type resolvedStack struct {
	frames    []Frame
	truncated bool
}

// thread is a thread key's name, OS thread id and Java thread id.
func (t *threadResolver) thread(key uint64) (string, uint64, uint64) {
	if key == 0 {
		return "", 0, 0
	}
	i, ok := t.p.Threads.IDMap[types.ThreadRef(key)]
	if !ok || int(i) >= len(t.p.Threads.Thread) {
		return "", 0, 0
	}
	th := &t.p.Threads.Thread[i]
	name := th.JavaName
	if name == "" {
		name = th.OsName
	}
	return capName(name), th.OsThreadId, th.JavaThreadId
}

// class is a class key's Java name ("java.lang.Object", arrays as "int[]").
func (t *threadResolver) class(key uint64) string {
	if key == 0 {
		return ""
	}
	c := t.p.GetClass(types.ClassRef(key))
	if c == nil {
		return ""
	}
	return capName(javaTypeName(t.p.GetSymbolString(c.Name)))
}

// stack is a stack trace key's frames, leaf first, shared by its events.
func (t *threadResolver) stack(key uint64) resolvedStack {
	if key == 0 {
		return resolvedStack{}
	}
	if s, ok := t.stacks[key]; ok {
		return s
	}
	var s resolvedStack
	if st := t.p.GetStacktrace(types.StackTraceRef(key)); st != nil {
		s.truncated = st.Truncated || len(st.Frames) > MaxFrames
		n := min(len(st.Frames), MaxFrames)
		s.frames = make([]Frame, n)
		for i := 0; i < n; i++ {
			fr := st.Frames[i]
			name, ok := t.methods[fr.Method]
			if !ok {
				name = methodName(t.p, fr.Method)
				t.methods[fr.Method] = name
			}
			line := int(int32(fr.LineNumber))
			if line < 0 {
				line = 0
			}
			s.frames[i] = Frame{Method: name, Line: line}
		}
	}
	t.stacks[key] = s
	return s
}
