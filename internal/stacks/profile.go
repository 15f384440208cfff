package stacks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
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
//	       time: CPU samples plus the time blocked on locks and parked
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
}

// WallNativeGap says what a wall profile built from JFR's own events lacks
// (async-profiler's wall-clock samples have no such gap): a thread in native
// code (a socket or file read, an epoll wait) is sampled by JFR as
// jdk.NativeMethodSample, which the JFR library read here has no type for.
// Such a thread is missing from the view, so the view says so (EN, ZH).
func WallNativeGap() (en, zh string) {
	return "built from JFR's execution samples and lock and park times: threads in native code (socket and file reads, epoll waits) are not in it (JFR records them as jdk.NativeMethodSample, not read yet); a thread dump (tuneloop jvm PID --dump 3) shows them",
		"由 JFR 的执行采样与锁、park 时间构成：处于本地代码中的线程（socket 与文件读取、epoll 等待）不在其中（JFR 将其记为 jdk.NativeMethodSample，尚未读取）；线程转储（tuneloop jvm PID --dump 3）可以看到它们"
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
	type acc struct {
		pr    *Profile
		value map[string]int64
		count map[string]int
	}
	accs := map[Kind]*acc{}
	for _, k := range kinds {
		accs[k] = &acc{pr: &Profile{Kind: k, Unit: k.unit()}, value: map[string]int64{}, count: map[string]int{}}
	}
	wallSamples, err := jfrEvents(buf, kinds, func(k Kind, stack []string, v int64) {
		a := accs[k]
		key := strings.Join(stack, "\x00")
		a.value[key] += v
		a.count[key]++
		a.pr.Events++
		a.pr.Total += v
	})
	if err != nil {
		return nil, err
	}
	out := make(map[Kind]*Profile, len(accs))
	for kind, a := range accs {
		pr := a.pr
		if wallSamples && kind == Wall {
			pr.Unit = "samples"
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
	return out, nil
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

// jfrEvents calls fn with the kind, stack (root first) and value of every
// event of the kinds asked for. For wall it reports whether the recording had wall-clock samples
// (async-profiler's; values are then counts) or not (CPU samples at 10 ms
// each plus blocked and parked time, in nanoseconds). The parser is a
// third-party one: a panic on corrupt input is turned into an error.
func jfrEvents(buf []byte, kinds []Kind, fn func(k Kind, stack []string, v int64)) (wallSamples bool, err error) {
	if !bytes.HasPrefix(buf, []byte("FLR\x00")) {
		return false, ErrNotJFR
	}
	if whole, err := checkJFR(buf); err != nil { // before the library sizes anything from it
		if !errors.Is(err, errJFRTruncated) || whole == 0 {
			return false, err
		}
		buf = buf[:whole] // a recording cut short: its whole chunks stand
	}
	n := 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt JFR recording after %d events: %v", n, r)
		}
	}()
	p := parser.NewParser(buf, parser.Options{})
	resolve := newResolver(p).stack
	className := func(ref types.ClassRef) string {
		if c := p.GetClass(ref); c != nil {
			return capName(javaTypeName(p.GetSymbolString(c.Name)))
		}
		return "?"
	}
	want := map[Kind]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	emit := func(k Kind, st []string, v int64) {
		if st != nil && v > 0 {
			fn(k, st, v)
			n++
		}
	}
	type held struct {
		st []string
		v  int64
	}
	var wall, other []held // wall: decided at the end, when it is known whether wall-clock samples exist
	keep := func(to *[]held, st []string, v int64) {
		if st != nil && v > 0 {
			*to = append(*to, held{append([]string(nil), st...), v})
		}
	}
	for {
		typ, perr := p.ParseEvent()
		if perr == io.EOF {
			break
		}
		if perr != nil {
			if errors.Is(perr, io.ErrUnexpectedEOF) && n > 0 {
				break // a recording cut short: what was read stands
			}
			return false, fmt.Errorf("JFR recording after %d events: %w", n, perr)
		}
		switch {
		case typ == p.TypeMap.T_EXECUTION_SAMPLE && (want[CPU] || want[Wall]):
			st := resolve(p.ExecutionSample.StackTrace, "")
			if want[CPU] {
				emit(CPU, st, 1)
			}
			if want[Wall] {
				// JFR's own wall view: a CPU sample stands for one sampling
				// period; without the period at hand, 10 ms (the "profile" default).
				keep(&other, st, 10_000_000)
			}
		case typ == p.TypeMap.T_WALL_CLOCK_SAMPLE && want[Wall]:
			keep(&wall, resolve(p.WallClockSample.StackTrace, ""), 1)
		case typ == p.TypeMap.T_ALLOC_SAMPLE && want[Alloc]:
			emit(Alloc, resolve(p.ObjectAllocationSample.StackTrace, className(p.ObjectAllocationSample.ObjectClass)), int64(p.ObjectAllocationSample.Weight))
		case typ == p.TypeMap.T_ALLOC_IN_NEW_TLAB && want[Alloc]:
			e := &p.ObjectAllocationInNewTLAB
			emit(Alloc, resolve(e.StackTrace, className(e.ObjectClass)), int64(e.TlabSize))
		case typ == p.TypeMap.T_ALLOC_OUTSIDE_TLAB && want[Alloc]:
			e := &p.ObjectAllocationOutsideTLAB
			emit(Alloc, resolve(e.StackTrace, className(e.ObjectClass)), int64(e.AllocationSize))
		case typ == p.TypeMap.T_MONITOR_ENTER && (want[Lock] || want[Wall]):
			e := &p.JavaMonitorEnter
			st := resolve(e.StackTrace, "[lock] "+className(e.MonitorClass))
			if want[Lock] {
				emit(Lock, st, int64(e.Duration))
			}
			if want[Wall] {
				keep(&other, st, int64(e.Duration))
			}
		case typ == p.TypeMap.T_THREAD_PARK && (want[Lock] || want[Wall]):
			e := &p.ThreadPark
			st := resolve(e.StackTrace, "[park] "+className(e.ParkedClass))
			if want[Lock] {
				emit(Lock, st, int64(e.Duration))
			}
			if want[Wall] {
				keep(&other, st, int64(e.Duration))
			}
		}
	}
	use := other
	if len(wall) > 0 {
		use = wall
	}
	for _, h := range use {
		emit(Wall, h.st, h.v)
	}
	return len(wall) > 0, nil
}
