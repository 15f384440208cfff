package stacks

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func ampEventN(body []byte) []byte {
	for s := len(body) + 1; ; s++ {
		if len(uvarint(uint64(s)))+len(body) == s {
			return append(uvarint(uint64(s)), body...)
		}
	}
}

// A recording that repeats a 64 KiB method name through deep stacks must
// not be multiplied into memory: frame names are capped (maxFrameName).
// Before the cap this 87 KB input made JFRProfile allocate 2.9 GB.
func TestLongFrameNamesAreCapped(t *testing.T) {
	j := &jfrBuilder{}
	cp := func(name, class string) []byte { return j.field(name, class, "constantPool", "true") }
	classes := [][]byte{
		j.class("1", "int"), j.class("2", "long"), j.class("3", "short"), j.class("4", "float"),
		j.class("5", "boolean"), j.class("6", "java.lang.String"),
		j.class("20", "jdk.types.FrameType", j.field("description", "6")),
		j.class("21", "jdk.types.ThreadState", j.field("name", "6")),
		j.class("22", "java.lang.Thread", j.field("osName", "6"), j.field("javaName", "6")),
		j.class("23", "java.lang.Class", cp("classLoader", "24"), cp("name", "26"), cp("package", "25"), j.field("modifiers", "1")),
		j.class("24", "jdk.types.ClassLoader", cp("type", "23"), cp("name", "26")),
		j.class("25", "jdk.types.Package", cp("name", "26")),
		j.class("26", "jdk.types.Symbol", j.field("string", "6")),
		j.class("27", "jdk.types.Method", cp("type", "23"), cp("name", "26"), cp("descriptor", "26"), j.field("modifiers", "1"), j.field("hidden", "5")),
		j.class("28", "jdk.types.StackTrace", j.field("truncated", "5"), j.field("frames", "29", "dimension", "1")),
		j.class("29", "jdk.types.StackFrame", cp("method", "27"), j.field("lineNumber", "1"), j.field("bytecodeIndex", "1"), cp("type", "20")),
		j.class("30", "jdk.ExecutionSample", j.field("startTime", "2"), cp("sampledThread", "22"), cp("stackTrace", "28"), cp("state", "21")),
	}
	const L, K = 64 << 10, 20
	long := strings.Repeat("m", L)
	sym := append([]byte{26, 3, 1, 3, 1, 'A', 2, 3}, uvarint(L)...)
	sym = append(append(sym, long...), 3, 3, 1, 'n')
	pool := append(sym, 23, 1, 1, 0, 1, 0, 0, 27, 2, 1, 1, 2, 0, 0, 0, 2, 1, 3, 0, 0, 0, 28)
	pool = append(pool, uvarint(K)...)
	var evs []byte
	for k := 1; k <= K; k++ {
		pool = append(pool, uvarint(uint64(k))...)
		pool = append(pool, 0, 0xff, 1) // 255 frames
		for f := 0; f < 255; f++ {
			m := byte(1)
			if f < 8 && (k>>f)&1 == 1 {
				m = 2
			}
			pool = append(pool, m, 5, 0, 0)
		}
		evs = append(evs, ampEventN(append([]byte{30, 5, 0}, append(uvarint(uint64(k)), 0)...))...)
	}
	b := j.build(classes, nil, nil)
	// replace the empty checkpoint with ours
	empty := []byte{7, 1, 0, 0, 0, 1, 0}
	i := bytes.Index(b, empty)
	cpEv := ampEventN(append([]byte{1, 0, 0, 0, 1, 4}, pool...))
	b = append(append(append(b[:i:i], cpEv...), evs...), b[i+len(empty):]...)
	// fix chunk size
	putU64 := func(at int, v uint64) {
		for s := 0; s < 8; s++ {
			b[at+s] = byte(v >> (56 - 8*s))
		}
	}
	putU64(8, uint64(len(b)))
	if _, err := checkJFR(b); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	p, err := JFRProfile(b, CPU)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	mb := (m1.TotalAlloc - m0.TotalAlloc) >> 20
	t.Logf("input %d bytes, %d events, %d distinct stacks, allocated %d MB", len(b), p.Events, len(p.Samples), mb)
	if mb > 256 {
		t.Errorf("a %d-byte recording made %d MB of allocations", len(b), mb)
	}
	for _, s := range p.Samples {
		for _, f := range s.Stack {
			if len(f) > maxFrameName+len("…") {
				t.Fatalf("a frame name of %d bytes kept", len(f))
			}
		}
	}
}
