package stacks

// Collapsed stacks, the text async-profiler writes with `-o collapsed`
// (and FlameGraph's stackcollapse-*.pl): one stack per line, root first,
// frames separated by ';', then a space and the count. Sample lines of a
// real file (async-profiler 3.0, `threads,ann`; testdata/asprof-pool.collapsed):
//
//	[hasher tid=32283];java/lang/Thread.run_[j];Pool.lambda$main$0_[j];java/util/zip/CRC32.update_[i] 14
//	[formatter tid=32284];java/lang/Thread.run_[j];...;java/lang/Integer.parseInt_[1];java/lang/Character.digit_[i] 1
//	[C2 CompilerThre tid=32240];thread_native_entry;...;asm_exc_page_fault_[k];exc_page_fault_[k] 1
//
// Frame suffixes: _[j] JIT-compiled Java, _[i] inlined, _[0] interpreted,
// _[1] C1-compiled, _[k] kernel. The Java suffixes are dropped (one method
// is one frame however it ran, as in a JFR profile) and Java class names
// written with slashes are written with dots, so a collapsed profile and a
// JFR one of the same code name the same frames; kernel frames keep _[k].
// A thread frame ("[name tid=N]", with -t) stays the stack's root.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxCollapsedLine is the longest line ReadCollapsed takes: 256 frames of
// a few hundred bytes each fit many times over.
const MaxCollapsedLine = 1 << 20

// collapsedProbe: that many lines without one stack refuse the input.
const collapsedProbe = 64

// ErrNotCollapsed is returned when no line of the input is a stack with a count.
var ErrNotCollapsed = errors.New("no collapsed stack (frame;frame;frame COUNT) in the input")

// ReadCollapsed reads collapsed stacks into a profile of kind (what the
// counts measure is not in the file: async-profiler writes sample counts
// unless --total was given). Blank lines and '#' comments are skipped; a
// line that is not a stack and a count is skipped and said in the Note.
func ReadCollapsed(r io.Reader, kind Kind) (*Profile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxCollapsedLine+1)
	acc := map[string]int64{}
	pr := &Profile{Kind: kind, Unit: "samples"}
	var bad, line, deep int
	firstBad := 0
	for sc.Scan() {
		line++
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		stack, v, ok := parseCollapsedLine(l)
		if !ok {
			if bad == 0 {
				firstBad = line
			}
			bad++
			if pr.Events == 0 && bad >= collapsedProbe {
				// Not the format: refused before reading on.
				return nil, fmt.Errorf("%w: the first %d lines are not a stack and a count (the first at line %d)", ErrNotCollapsed, bad, firstBad)
			}
			continue
		}
		if len(stack) > 1 {
			deep++
		} else if pr.Events+bad+1 >= collapsedProbe && deep == 0 {
			// Lines of text that end in a number, none of them frames
			// joined by ';': a log, not stacks.
			return nil, fmt.Errorf("%w: none of the first %d lines is frames joined by ';' (line %d: one \"frame\" and a count)", ErrNotCollapsed, pr.Events+bad+1, line)
		}
		if v == 0 {
			continue // a stack that was never sampled (async-profiler writes none, other tools may)
		}
		k := strings.Join(stack, "\x00")
		acc[k] = addSat(acc[k], v)
		pr.Events++
		pr.Total = addSat(pr.Total, v)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("collapsed stacks: line %d longer than %d bytes", line+1, MaxCollapsedLine)
		}
		return nil, err
	}
	if pr.Events == 0 {
		return nil, ErrNotCollapsed
	}
	if bad > pr.Events {
		// A few stacks among mostly other lines is not a profile (random
		// bytes hold the odd line ending in a number).
		return nil, fmt.Errorf("%w: %d lines are not a stack and a count, more than the %d that are (the first at line %d)", ErrNotCollapsed, bad, pr.Events, firstBad)
	}
	keys := make([]string, 0, len(acc))
	for k := range acc {
		keys = append(keys, k)
	}
	// Most value first, ties by the stack, so the order is stable.
	sort.Slice(keys, func(i, j int) bool {
		if vi, vj := acc[keys[i]], acc[keys[j]]; vi != vj {
			return vi > vj
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		pr.Samples = append(pr.Samples, Sample{Stack: strings.Split(k, "\x00"), Value: acc[k]})
	}
	if bad > 0 {
		pr.Note = fmt.Sprintf("%d lines are not a stack and a count and were skipped (the first: line %d)", bad, firstBad)
	}
	return pr, nil
}

// parseCollapsedLine splits "a;b;c 12" into its frames and count. The
// count is the last field; a frame may hold spaces ("[unknown Java]",
// "[http-nio-8080-exec-1 tid=42]", C++ signatures).
func parseCollapsedLine(l []byte) ([]string, int64, bool) {
	if !utf8.Valid(l) || bytes.IndexByte(l, 0) >= 0 {
		return nil, 0, false // binary, not text a profiler wrote (escapes in a name are the target's, sanitised on output)
	}
	sp := bytes.LastIndexAny(l, " \t")
	if sp <= 0 {
		return nil, 0, false
	}
	v, err := strconv.ParseInt(string(l[sp+1:]), 10, 64)
	if err != nil || v < 0 {
		return nil, 0, false
	}
	body := bytes.TrimRight(l[:sp], " \t")
	if len(body) == 0 {
		return nil, 0, false
	}
	parts := strings.Split(string(body), ";")
	stack := make([]string, 0, min(len(parts), MaxFrames))
	for _, p := range parts {
		if len(stack) == MaxFrames {
			break
		}
		if p = strings.TrimSpace(p); p != "" {
			stack = append(stack, collapsedFrame(p))
		}
	}
	if len(stack) == 0 {
		return nil, 0, false
	}
	return stack, v, true
}

// collapsedFrame names a frame the way the JFR reader does: Java frames
// without async-profiler's annotation and with dotted class names.
func collapsedFrame(f string) string {
	java := false
	if n := len(f); n > 4 && f[n-1] == ']' && f[n-4] == '_' && f[n-3] == '[' {
		switch f[n-2] {
		case 'j', 'i', '0', '1', '2':
			f, java = f[:n-4], true
		}
	}
	if strings.HasPrefix(f, "[") { // a thread frame or "[unknown]"
		return f
	}
	if java || looksJavaSlashed(f) {
		f = strings.ReplaceAll(f, "/", ".")
	}
	return f
}

// looksJavaSlashed: "java/util/HashMap.get" (a class path, a dot, a
// method), not a native symbol or a library path.
func looksJavaSlashed(f string) bool {
	slash := strings.IndexByte(f, '/')
	if slash <= 0 || strings.ContainsAny(f, " ():<>") && !strings.Contains(f, ".<init>") && !strings.Contains(f, ".<clinit>") {
		return false
	}
	return strings.LastIndexByte(f, '.') > strings.LastIndexByte(f, '/')
}

// addSat adds without wrapping past the largest int64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
