package stacks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
	"github.com/grafana/jfr-parser/parser/types/def"
)

// Kind is what a profile's samples measure.
type Kind string

// The profile kinds, each read from the JFR events that measure it:
//
//	cpu    jdk.ExecutionSample: Java code running on a CPU (a sample every 10-20 ms per thread)
//	alloc  jdk.ObjectAllocationSample (weight = bytes it stands for; JDK 16+), else the TLAB
//	       events jdk.ObjectAllocationInNewTLAB / jdk.ObjectAllocationOutsideTLAB (JDK 11-15)
//	lock   jdk.JavaMonitorEnter and jdk.ThreadPark: time blocked, in nanoseconds, with the lock's
//	       class as the leaf frame ("[lock] java.lang.Object")
//	wall   async-profiler's wall-clock samples when the recording has them, else every thread's
//	       time: CPU samples (jdk.ExecutionSample), samples in native code such as socket reads
//	       (jdk.NativeMethodSample), and the time blocked on locks and parked
const (
	CPU   Kind = "cpu"
	Alloc Kind = "alloc"
	Lock  Kind = "lock"
	Wall  Kind = "wall"
)

// ParseKind reads a --profile value.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(s)); k {
	case CPU, Alloc, Lock, Wall:
		return k, nil
	}
	return "", fmt.Errorf("unknown profile kind %q (want cpu, alloc, lock or wall)", s)
}

// unit is what one unit of a sample's value is.
func (k Kind) unit() string {
	switch k {
	case Alloc:
		return "bytes"
	case Lock, Wall:
		return "nanoseconds"
	}
	return "samples"
}

// Sample is one stack of a profile, root frame first, with its value in
// the kind's unit.
type Sample struct {
	Stack []string
	Value int64
	// Events is how many events were merged into it (0 when not known,
	// e.g. read from collapsed stacks).
	Events int
}

// Profile is a merged profile: every distinct stack once, with its total.
type Profile struct {
	Kind    Kind
	Unit    string // samples, bytes or nanoseconds
	Events  int    // JFR events read into it
	Total   int64
	Samples []Sample // most value first
	// Note says what the recording lacked for this kind (e.g. no allocation
	// events: the recording was not started with them on).
	Note string
	// NativeEvents is how many of a wall view's events were JFR's samples
	// of threads in native code (jdk.NativeMethodSample); NativeOn says the
	// recording sampled them (none: no thread was in native code).
	NativeEvents int
	NativeOn     bool
}

// LacksNative says whether a wall view built from JFR's own events misses
// the threads in native code: the recording neither holds a
// jdk.NativeMethodSample nor says it had them on (WallNativeGap says so).
// Wall-clock samples (async-profiler's) and collapsed stacks have no such gap.
func (p *Profile) LacksNative() bool {
	return p.Kind == Wall && p.Unit == "nanoseconds" && !p.NativeOn
}

// WallNativeGap is the note on a wall view built from JFR's own events of a
// recording without jdk.NativeMethodSample events (LacksNative): a thread in
// native code (a socket or file read, an epoll wait) is sampled only as
// such an event, so those threads are missing from the view (EN, ZH).
func WallNativeGap() (en, zh string) {
	return "the recording has no jdk.NativeMethodSample events: threads in native code (socket and file reads, epoll waits) are not in this wall view (JFR samples them when the event is on, as in settings=profile); a thread dump (tuneloop jvm PID --dump 3) shows them",
		"记录中没有 jdk.NativeMethodSample 事件：处于本地代码中的线程（socket 与文件读取、epoll 等待）不在此 wall 视图中（打开该事件时 JFR 才会采样它们，settings=profile 即打开）；线程转储（tuneloop jvm PID --dump 3）可以看到它们"
}

// JFRProfile reads the events of kind from a JFR recording and merges
// their stacks. A recording without any event of the kind gives an empty
// profile with a Note, not an error.
func JFRProfile(buf []byte, kind Kind) (*Profile, error) {
	ps, err := JFRProfiles(buf, kind)
	if err != nil {
		return nil, err
	}
	return ps[kind], nil
}

// JFRProfiles is JFRProfile of several kinds read in one pass over the
// recording (a run's report wants CPU, allocation and lock together).
func JFRProfiles(buf []byte, kinds ...Kind) (map[Kind]*Profile, error) {
	ps, _, err := JFRProfilesFrom(context.Background(), bytes.NewReader(buf), kinds...)
	return ps, err
}

// JFRProfilesFrom is JFRProfiles read from r one chunk at a time (memory is
// one chunk and the profiles, not the file; a header that is not JFR's is
// refused before reading on), stopped once ctx is done; it also returns
// what the chunk headers say of the recording.
func JFRProfilesFrom(ctx context.Context, r io.Reader, kinds ...Kind) (map[Kind]*Profile, JFRInfo, error) {
	type acc struct {
		pr    *Profile
		value map[string]int64
		count map[string]int
	}
	accs := map[Kind]*acc{}
	for _, k := range kinds {
		accs[k] = &acc{pr: &Profile{Kind: k, Unit: k.unit()}, value: map[string]int64{}, count: map[string]int{}}
	}
	read, info, err := jfrEvents(ctx, r, kinds, func(k Kind, stack []string, v int64) {
		a := accs[k]
		key := strings.Join(stack, "\x00")
		a.value[key] += v
		a.count[key]++
		a.pr.Events++
		a.pr.Total += v
	})
	if err != nil {
		return nil, info, err
	}
	out := make(map[Kind]*Profile, len(accs))
	for kind, a := range accs {
		pr := a.pr
		if kind == Wall {
			if read.wallSamples {
				pr.Unit = "samples"
			}
			pr.NativeEvents = read.natives
			pr.NativeOn = read.nativeOn || read.natives > 0
		}
		for k, v := range a.value {
			pr.Samples = append(pr.Samples, Sample{Stack: strings.Split(k, "\x00"), Value: v, Events: a.count[k]})
		}
		sort.Slice(pr.Samples, func(i, j int) bool {
			if pr.Samples[i].Value != pr.Samples[j].Value {
				return pr.Samples[i].Value > pr.Samples[j].Value
			}
			return strings.Join(pr.Samples[i].Stack, ";") < strings.Join(pr.Samples[j].Stack, ";")
		})
		if pr.Events == 0 {
			pr.Note = map[Kind]string{
				CPU:   "no jdk.ExecutionSample events: record with settings=profile (or method-profiling on)",
				Alloc: "no allocation events: record with settings=profile (JDK 16+: jdk.ObjectAllocationSample)",
				Lock:  "no jdk.JavaMonitorEnter or jdk.ThreadPark events over their threshold: record with settings=profile or a lower locking-threshold",
				Wall:  "no samples at all in the recording",
			}[kind]
		}
		out[kind] = pr
	}
	return out, info, nil
}

// Add merges a stack (root first) of value v that did not come from the
// profile's own events (Events is left as it is): into the sample of the
// same stack when there is one, else as a sample of its own, the samples
// kept most value first.
func (p *Profile) Add(stack []string, v int64) {
	if len(stack) == 0 || v <= 0 {
		return
	}
	p.Total += v
	key := strings.Join(stack, "\x00")
	i := 0
	for ; i < len(p.Samples); i++ {
		if strings.Join(p.Samples[i].Stack, "\x00") == key {
			break
		}
	}
	if i == len(p.Samples) {
		p.Samples = append(p.Samples, Sample{Stack: append([]string(nil), stack...)})
	}
	p.Samples[i].Value += v
	sort.SliceStable(p.Samples, func(i, j int) bool {
		if p.Samples[i].Value != p.Samples[j].Value {
			return p.Samples[i].Value > p.Samples[j].Value
		}
		return strings.Join(p.Samples[i].Stack, ";") < strings.Join(p.Samples[j].Stack, ";")
	})
}

// Tree merges the profile into a flame graph tree.
func (p *Profile) Tree() *Node {
	root := &Node{Name: "all"}
	for _, s := range p.Samples {
		root.Add(s.Stack, int(min(s.Value, int64(^uint(0)>>1))))
	}
	return root
}

// WriteCollapsed writes the profile as collapsed stacks, one line per
// stack ("root;...;leaf value"), the input of FlameGraph's flamegraph.pl and
// of speedscope.
func (p *Profile) WriteCollapsed(w io.Writer) error {
	var b bytes.Buffer
	for _, s := range p.Samples {
		for i, f := range s.Stack {
			if i > 0 {
				b.WriteByte(';')
			}
			// A ';' or a line break in a frame name would split the stack.
			b.WriteString(strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(f))
		}
		fmt.Fprintf(&b, " %d\n", s.Value)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WritePprof writes the profile in pprof's format (gzipped protobuf), for
// `go tool pprof` and the tools that read it.
func (p *Profile) WritePprof(w io.Writer) error {
	typ := map[Kind]string{CPU: "cpu", Alloc: "alloc_space", Lock: "delay", Wall: "wall"}[p.Kind]
	out := &profile.Profile{SampleType: []*profile.ValueType{{Type: typ, Unit: p.Unit}}}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for _, s := range p.Samples {
		ps := &profile.Sample{Value: []int64{s.Value}}
		for i := len(s.Stack) - 1; i >= 0; i-- { // pprof lists the leaf first
			name := s.Stack[i]
			loc := locs[name]
			if loc == nil {
				fn := &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name}
				funcs[name] = fn
				out.Function = append(out.Function, fn)
				loc = &profile.Location{ID: uint64(len(locs) + 1), Line: []profile.Line{{Function: fn}}}
				locs[name] = loc
				out.Location = append(out.Location, loc)
			}
			ps.Location = append(ps.Location, loc)
		}
		out.Sample = append(out.Sample, ps)
	}
	if err := out.CheckValid(); err != nil {
		return err
	}
	return out.Write(w)
}

// jfrRead is what jfrEvents found besides the events themselves.
type jfrRead struct {
	// wallSamples: the recording has async-profiler's wall-clock samples
	// (the wall view is then theirs, values counts).
	wallSamples bool
	// natives is how many jdk.NativeMethodSample events joined the wall view.
	natives int
	// nativeOn: the recording's settings sample threads in native code.
	nativeOn bool
}

// The sampling periods of JFR's "profile" settings, for a recording that
// does not say its own (no jdk.ActiveSetting events, e.g. one cut down
// with `jfr scrub`).
const (
	defaultJavaPeriod   = 10_000_000 // jdk.ExecutionSample, ns
	defaultNativePeriod = 20_000_000 // jdk.NativeMethodSample, ns
)

// nativeWindow is the span over which JFR's native samples are counted per
// thread: JFR samples one thread in native code per period, in turn, so a
// sample stands for the period times the threads found in native code over
// the span around it (a thread seen once counts for the whole span: an
// estimate, high for threads only briefly in native code, and low when
// more threads than the span's periods wait in native code).
const nativeWindow = 1_000_000_000 // ns

// jfrEvents calls fn with the kind, stack (root first) and value of every
// event of the kinds asked for. For wall: async-profiler's wall-clock
// samples (counts) when the recording has them, else JFR's own view in
// nanoseconds: execution samples (each its sampling period), native-method
// samples (each its period times the threads then in native code) and the
// time blocked on locks and parked. The parser is a third-party one: a panic
// on corrupt input is turned into an error.
func jfrEvents(ctx context.Context, r io.Reader, kinds []Kind, fn func(k Kind, stack []string, v int64)) (read jfrRead, info JFRInfo, err error) {
	src := &jfrChunks{ctx: ctx, r: r}
	defer func() { info = src.info }()
	w := &jfrWalk{ctx: ctx, fn: fn, want: map[Kind]bool{}, periods: map[string]int64{}}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt JFR recording after %d events: %v", w.n, r)
		}
	}()
	for _, k := range kinds {
		w.want[k] = true
	}
	for {
		chunk, off, cerr := src.next()
		if cerr == io.EOF {
			break
		}
		var natives []jfrNative
		if cerr == nil {
			// Checked before the library sizes anything from it.
			natives, cerr = checkAt(chunk, off)
		}
		if cerr != nil {
			if errors.Is(cerr, errJFRTruncated) && off > 0 {
				break // a recording cut short: its whole chunks stand
			}
			return w.read, info, cerr
		}
		cut, err := w.chunk(chunk, natives)
		if err != nil {
			return w.read, info, err
		}
		if cut {
			break // a recording cut short: what was read stands
		}
	}
	w.wallView()
	return w.read, info, nil
}

// held is a wall sample kept until the wall view is decided: whether
// wall-clock samples exist is known only at the end, and so are the
// sampling periods (its value is then v times its event's period; "": v
// is the value).
type held struct {
	st     []string
	v      int64
	period string // the sampling event whose period v counts
}

// jfrWalk is one jfrEvents: what is asked, what was read, the wall samples
// held and the shortest period any recording in the file asked for (JFR
// samples at the shortest of the running recordings' periods).
type jfrWalk struct {
	ctx         context.Context
	fn          func(k Kind, stack []string, v int64)
	want        map[Kind]bool
	n           int // events given to fn
	read        jfrRead
	wall, other []held
	periods     map[string]int64
}

func (w *jfrWalk) emit(k Kind, st []string, v int64) {
	if st != nil && v > 0 {
		w.fn(k, st, v)
		w.n++
	}
}

func (w *jfrWalk) keep(to *[]held, st []string, v int64, period string) bool {
	if st == nil || v <= 0 {
		return false
	}
	*to = append(*to, held{append([]string(nil), st...), v, period})
	return true
}

// chunk reads one chunk's events, then its native samples; cut is true
// when the chunk ends short after some events (what was read stands).
func (w *jfrWalk) chunk(chunk []byte, natives []jfrNative) (cut bool, err error) {
	// A parser per chunk: a native sample's keys point into its own
	// chunk's pools, which the library holds only while in that chunk.
	p := parser.NewParser(chunk, parser.Options{})
	resolve := newResolver(p).stack
	for events := 0; ; events++ {
		if events&4095 == 0 {
			if err := w.ctx.Err(); err != nil {
				return false, err
			}
		}
		typ, perr := p.ParseEvent()
		if perr == io.EOF {
			break
		}
		if perr != nil {
			if errors.Is(perr, io.ErrUnexpectedEOF) && w.n > 0 {
				return true, nil
			}
			return false, fmt.Errorf("JFR recording after %d events: %w", w.n, perr)
		}
		w.event(p, typ, resolve)
	}
	if w.want[Wall] && len(natives) > 0 {
		w.natives(p, natives, resolve)
	}
	return false, nil
}

// event hands one parsed event to fn, or holds it for the wall view.
func (w *jfrWalk) event(p *parser.Parser, typ def.TypeID, resolve func(types.StackTraceRef, string) []string) {
	className := func(ref types.ClassRef) string {
		if c := p.GetClass(ref); c != nil {
			return capName(javaTypeName(p.GetSymbolString(c.Name)))
		}
		return "?"
	}
	switch {
	case typ == p.TypeMap.T_ACTIVE_SETTING:
		e := &p.ActiveSetting
		c := p.TypeMap.IDMap[def.TypeID(e.Id)]
		switch {
		case c == nil:
		case e.Name == "period":
			if d, ok := parsePeriod(e.Value); ok && (w.periods[c.Name] == 0 || d < w.periods[c.Name]) {
				w.periods[c.Name] = d
			}
		case e.Name == "enabled" && e.Value == "true" && c.Name == "jdk.NativeMethodSample":
			w.read.nativeOn = true
		}
	case typ == p.TypeMap.T_EXECUTION_SAMPLE && (w.want[CPU] || w.want[Wall]):
		st := resolve(p.ExecutionSample.StackTrace, "")
		if w.want[CPU] {
			w.emit(CPU, st, 1)
		}
		if w.want[Wall] {
			// JFR samples up to a few threads running Java per period:
			// on a machine of few cores, each stands for one period.
			w.keep(&w.other, st, 1, "jdk.ExecutionSample")
		}
	case typ == p.TypeMap.T_WALL_CLOCK_SAMPLE && w.want[Wall]:
		w.keep(&w.wall, resolve(p.WallClockSample.StackTrace, ""), 1, "")
	case typ == p.TypeMap.T_ALLOC_SAMPLE && w.want[Alloc]:
		w.emit(Alloc, resolve(p.ObjectAllocationSample.StackTrace, className(p.ObjectAllocationSample.ObjectClass)), int64(p.ObjectAllocationSample.Weight))
	case typ == p.TypeMap.T_ALLOC_IN_NEW_TLAB && w.want[Alloc]:
		e := &p.ObjectAllocationInNewTLAB
		w.emit(Alloc, resolve(e.StackTrace, className(e.ObjectClass)), int64(e.TlabSize))
	case typ == p.TypeMap.T_ALLOC_OUTSIDE_TLAB && w.want[Alloc]:
		e := &p.ObjectAllocationOutsideTLAB
		w.emit(Alloc, resolve(e.StackTrace, className(e.ObjectClass)), int64(e.AllocationSize))
	case typ == p.TypeMap.T_MONITOR_ENTER && (w.want[Lock] || w.want[Wall]):
		e := &p.JavaMonitorEnter
		st := resolve(e.StackTrace, "[lock] "+className(e.MonitorClass))
		if w.want[Lock] {
			w.emit(Lock, st, int64(e.Duration))
		}
		if w.want[Wall] {
			w.keep(&w.other, st, int64(e.Duration), "")
		}
	case typ == p.TypeMap.T_THREAD_PARK && (w.want[Lock] || w.want[Wall]):
		e := &p.ThreadPark
		st := resolve(e.StackTrace, "[park] "+className(e.ParkedClass))
		if w.want[Lock] {
			w.emit(Lock, st, int64(e.Duration))
		}
		if w.want[Wall] {
			w.keep(&w.other, st, int64(e.Duration), "")
		}
	}
}

// natives holds a chunk's native-method samples for the wall view, each
// weighing the threads in native code in its window; the chunk's pools are
// the parser's now.
func (w *jfrWalk) natives(p *parser.Parser, natives []jfrNative, resolve func(types.StackTraceRef, string) []string) {
	tps := p.ChunkHeader().TicksPerSecond
	if tps == 0 {
		tps = 1_000_000_000
	}
	window := func(ticks uint64) uint64 { return ticks / max(1, tps*nativeWindow/1_000_000_000) }
	threads := map[uint64]map[uint64]bool{} // window -> threads seen in native code
	for _, s := range natives {
		win := window(s.ticks)
		if threads[win] == nil {
			threads[win] = map[uint64]bool{}
		}
		threads[win][s.thread] = true
	}
	for _, s := range natives {
		if w.keep(&w.other, resolve(types.StackTraceRef(s.stack), ""), int64(len(threads[window(s.ticks)])), "jdk.NativeMethodSample") {
			w.read.natives++
		}
	}
}

// wallView gives fn the wall samples: async-profiler's wall-clock ones
// when there are any, else JFR's own, each weighing its period.
func (w *jfrWalk) wallView() {
	use := w.other
	if len(w.wall) > 0 {
		use = w.wall
		w.read.wallSamples = true
		w.read.natives = 0
	}
	for _, h := range use {
		v := h.v
		if h.period != "" {
			d := w.periods[h.period]
			if d == 0 {
				d = map[string]int64{"jdk.ExecutionSample": defaultJavaPeriod, "jdk.NativeMethodSample": defaultNativePeriod}[h.period]
			}
			v *= d
		}
		w.emit(Wall, h.st, v)
	}
}

// parsePeriod reads a JFR period setting ("20 ms", "1 s"; JFR's units ns,
// us, ms, s, m, h, d) in nanoseconds; false for the others ("everyChunk",
// "0", garbage).
func parsePeriod(s string) (int64, bool) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(num, 10, 64)
	scale := map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}[strings.TrimSpace(unit)]
	if err != nil || v <= 0 || scale == 0 || v > (1<<62)/scale {
		return 0, false
	}
	return v * scale, true
}
