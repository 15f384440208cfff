// Package stacks turns profiles into merged stacks for flame graphs: today
// the execution samples of a JDK Flight Recorder file (jdk.ExecutionSample
// events, what JFR's "profile" settings take every 10-20 ms per thread).
//
// A JFR file is binary chunks ("FLR\0" magic, version, then constant pools
// and events); sample of what one execution sample carries once resolved:
//
//	startTime=1732240815123456789 sampledThread="http-nio-8080-exec-7" state=STATE_RUNNABLE
//	stackTrace=[java.util.regex.Pattern.compile:1069, com.example.zoo.PriceCalculator.computeChecksum:41, ...]
package stacks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
)

// ErrNotJFR is returned for data that does not start like a JFR recording.
var ErrNotJFR = errors.New("not a JFR recording (no FLR magic)")

// MaxFrames caps one stack, root side kept, so a runaway recursion cannot
// make a flame graph unreadable.
const MaxFrames = 256

// JFRExecutionSamples calls fn with the stack of every execution sample in
// a JFR recording, root frame first ("java.lang.Thread.run" ...), as
// Class.method names. It returns the number of samples. The parser is a
// third-party one: a panic on corrupt input is turned into an error.
func JFRExecutionSamples(buf []byte, fn func(stack []string)) (n int, err error) {
	if !bytes.HasPrefix(buf, []byte("FLR\x00")) {
		return 0, ErrNotJFR
	}
	if _, err := checkJFR(buf); err != nil { // before the library sizes anything from it
		return 0, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt JFR recording after %d samples: %v", n, r)
		}
	}()
	p := parser.NewParser(buf, parser.Options{})
	r := newResolver(p)
	for {
		typ, err := p.ParseEvent()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("JFR recording after %d samples: %w", n, err)
		}
		if typ != p.TypeMap.T_EXECUTION_SAMPLE {
			continue
		}
		stack := r.stack(p.ExecutionSample.StackTrace, "")
		if stack == nil {
			continue
		}
		fn(stack)
		n++
	}
}

// resolver turns JFR stack traces into frame names, root first, the
// method names cached; the slice it returns is reused by the next call.
type resolver struct {
	p     *parser.Parser
	names map[types.MethodRef]string // -> "Class.method"
	buf   []string
}

func newResolver(p *parser.Parser) *resolver {
	return &resolver{p: p, names: map[types.MethodRef]string{}}
}

// stack resolves ref (nil when it has no frames), with leaf appended when
// set; JFR lists the leaf first, the flame graph wants the root first.
func (r *resolver) stack(ref types.StackTraceRef, leaf string) []string {
	st := r.p.GetStacktrace(ref)
	if st == nil || len(st.Frames) == 0 {
		return nil
	}
	r.buf = r.buf[:0]
	for i := len(st.Frames) - 1; i >= 0 && len(r.buf) < MaxFrames; i-- {
		m := st.Frames[i].Method
		name, ok := r.names[m]
		if !ok {
			name = methodName(r.p, m)
			r.names[m] = name
		}
		r.buf = append(r.buf, name)
	}
	if leaf != "" {
		r.buf = append(r.buf, leaf)
	}
	return r.buf
}

// methodName resolves a method to "pkg.Class.method" (JFR stores class
// names with slashes).
func methodName(p *parser.Parser, ref types.MethodRef) string {
	m := p.GetMethod(ref)
	if m == nil {
		return "?"
	}
	cls := "?"
	if c := p.GetClass(m.Type); c != nil {
		cls = strings.ReplaceAll(p.GetSymbolString(c.Name), "/", ".")
	}
	return capName(cls + "." + p.GetSymbolString(m.Name))
}

// maxFrameName caps a frame's name: the JVM limits a class or method name
// to 65535 bytes, and a recording that repeats such names in deep stacks
// would be multiplied into memory by every stack that holds them (an 87 KB
// recording made 2.9 GB of stack keys). Real names stay far below it.
const maxFrameName = 1024

// capName cuts name to maxFrameName bytes at a rune boundary, marked.
func capName(name string) string {
	if len(name) <= maxFrameName {
		return name
	}
	cut := maxFrameName
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}
