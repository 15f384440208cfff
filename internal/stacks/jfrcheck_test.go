package stacks

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// realJFRs lists the recordings kept in the repository (tests' fixtures).
func realJFRs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"../../internal", "../../testdata"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".jfr" {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Fatal("no .jfr recording in the repository")
	}
	return out
}

// Every real recording passes the check whole.
func TestCheckJFRAcceptsRealRecordings(t *testing.T) {
	for _, p := range append(realJFRs(t), os.Getenv("TUNELOOP_EXTRA_JFR")) {
		if p == "" {
			continue
		}
		buf, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := checkJFR(buf)
		if err != nil || ok != len(buf) {
			t.Errorf("%s: %d of %d bytes: %v", p, ok, len(buf), err)
		}
	}
}

const mixedJFR = "../../internal/cli/testdata/profiles/mixed.jfr"

func readJFR(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func uvarint(v uint64) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// wantCheckErr asserts buf is refused by the check and by both entry
// points, with an error that says what was wrong.
func wantCheckErr(t *testing.T, buf []byte, says string) {
	t.Helper()
	_, err := checkJFR(buf)
	if err == nil || !strings.Contains(err.Error(), says) {
		t.Fatalf("checkJFR: %v, want an error saying %q", err, says)
	}
	if _, err := JFRExecutionSamples(buf, func([]string) {}); err == nil {
		t.Error("JFRExecutionSamples accepted it")
	}
	if _, err := JFRProfiles(buf, CPU, Alloc, Lock, Wall); err == nil {
		t.Error("JFRProfiles accepted it")
	}
}

// The fuzzer's recording: a metadata string count of ~2^28 in 137 bytes
// made the library ask for a 30 GB slice.
func TestCheckJFRCrasher(t *testing.T) {
	b := readJFR(t, "testdata/fuzz/FuzzJFRExecutionSamples/b7ee641ae684fe58")
	i := bytes.IndexByte(b, '"')
	s, err := strconv.Unquote(string(b[i : bytes.LastIndexByte(b, '"')+1]))
	if err != nil {
		t.Fatal(err)
	}
	wantCheckErr(t, []byte(s), "invalid JFR recording at byte")
}

// metaCountAt is where the metadata string count of the first chunk is.
func metaCountAt(t *testing.T, b []byte) int {
	t.Helper()
	r := &jfrReader{b: b, pos: int(binary.BigEndian.Uint64(b[24:])), end: len(b)}
	for i := 0; i < 5; i++ { // size, type, start, duration, id
		if _, err := r.varlong("x"); err != nil {
			t.Fatal(err)
		}
	}
	return r.pos
}

func TestCheckJFRCorruptions(t *testing.T) {
	real := readJFR(t, mixedJFR)
	t.Run("string count 2^31", func(t *testing.T) {
		at := metaCountAt(t, real)
		r := &jfrReader{b: real, pos: at, end: len(real)}
		if _, err := r.varint32("n"); err != nil {
			t.Fatal(err)
		}
		b := append(append(append([]byte(nil), real[:at]...), uvarint(1<<31)...), real[r.pos:]...)
		wantCheckErr(t, b, "metadata string count 2147483648 does not fit")
	})
	t.Run("truncated chunk", func(t *testing.T) {
		wantCheckErr(t, real[:len(real)/2], "only 59380 bytes left in the file")
		wantCheckErr(t, real[:40], "chunk header needs 68 bytes")
	})
	t.Run("chunk size beyond the file", func(t *testing.T) {
		b := append([]byte(nil), real...)
		binary.BigEndian.PutUint64(b[8:], uint64(len(b)+1000))
		wantCheckErr(t, b, "chunk size 119761 but only 118761 bytes left")
	})
	t.Run("offsets outside the chunk", func(t *testing.T) {
		b := append([]byte(nil), real...)
		binary.BigEndian.PutUint64(b[16:], uint64(len(b)))
		wantCheckErr(t, b, "constant pool offset 118761 outside the chunk")
		b = append([]byte(nil), real...)
		binary.BigEndian.PutUint64(b[24:], 70)
		wantCheckErr(t, b, "at byte 71: metadata event type runs past the end of its event")
	})
	t.Run("magic and version", func(t *testing.T) {
		b := append(append([]byte(nil), real...), real...)
		b[len(real)+1] = 'X'
		wantCheckErr(t, b, "at byte 118761: no chunk magic")
		b = append([]byte(nil), real...)
		b[5] = 7
		wantCheckErr(t, b, "unknown format version 7.1")
	})
}

// A recording cut short in its second chunk: the profile keeps the first
// chunk's events; a cut inside the only chunk is an error.
func TestJFRProfileCutInSecondChunk(t *testing.T) {
	real := readJFR(t, mixedJFR)
	one, err := JFRProfile(real, CPU)
	if err != nil || one.Events == 0 {
		t.Fatalf("%v %+v", err, one)
	}
	two := append(append([]byte(nil), real...), real...)
	if ok, err := checkJFR(two); err != nil || ok != len(two) {
		t.Fatalf("two whole chunks: %d %v", ok, err)
	}
	cut := two[:len(real)+len(real)/3]
	ok, err := checkJFR(cut)
	if !errors.Is(err, errJFRTruncated) || ok != len(real) {
		t.Fatalf("cut: %d %v", ok, err)
	}
	p, err := JFRProfile(cut, CPU)
	if err != nil || p.Events != one.Events {
		t.Errorf("cut in the second chunk: %v, %d events, want the first chunk's %d", err, p.Events, one.Events)
	}
}

// jfrBuilder writes small recordings by hand: one chunk, one metadata
// event, one checkpoint, then the events given.
type jfrBuilder struct {
	strs []string
	idx  map[string]int
}

func (j *jfrBuilder) s(v string) []byte {
	if j.idx == nil {
		j.idx = map[string]int{}
	}
	i, ok := j.idx[v]
	if !ok {
		i = len(j.strs)
		j.idx[v] = i
		j.strs = append(j.strs, v)
	}
	return uvarint(uint64(i))
}

// el is a metadata element: name, attributes as name/value pairs, children.
func (j *jfrBuilder) el(name string, attrs []string, children ...[]byte) []byte {
	b := j.s(name)
	b = append(b, uvarint(uint64(len(attrs)/2))...)
	for i := 0; i+1 < len(attrs); i += 2 {
		b = append(append(b, j.s(attrs[i])...), j.s(attrs[i+1])...)
	}
	b = append(b, uvarint(uint64(len(children)))...)
	for _, c := range children {
		b = append(b, c...)
	}
	return b
}

// event prefixes body with its size varint (which counts itself).
func event(body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	for s := len(b) + 1; ; s++ {
		if len(uvarint(uint64(s)))+len(b) == s {
			return append(uvarint(uint64(s)), b...)
		}
	}
}

// build returns a one-chunk recording of the classes (metadata elements),
// a checkpoint holding pools (each class id, count, entries) and the events.
func (j *jfrBuilder) build(classes [][]byte, pools [][]byte, events ...[]byte) []byte {
	root := j.el("root", nil, j.el("metadata", nil, classes...), j.el("region", []string{"locale", "en_US"}))
	var meta []byte
	meta = append(meta, 0, 0, 0, 0) // type, start, duration, id
	meta = append(meta, uvarint(uint64(len(j.strs)))...)
	for _, v := range j.strs {
		meta = append(append(append(meta, 3), uvarint(uint64(len(v)))...), v...)
	}
	meta = append(meta, root...)
	metaEv := event(meta)
	cp := event([]byte{1, 0, 0, 0, 1}, uvarint(uint64(len(pools)))) // type, start, duration, delta 0, mask, pool count
	for _, p := range pools {
		cp = event(cp[len(uvarint(uint64(len(cp)))):], p)
	}
	body := append(append([]byte(nil), metaEv...), cp...)
	for _, e := range events {
		body = append(body, e...)
	}
	h := make([]byte, jfrHeaderSize)
	copy(h, "FLR\x00\x00\x02\x00\x01")
	binary.BigEndian.PutUint64(h[8:], uint64(jfrHeaderSize+len(body)))
	binary.BigEndian.PutUint64(h[16:], uint64(jfrHeaderSize+len(metaEv)))
	binary.BigEndian.PutUint64(h[24:], jfrHeaderSize)
	binary.BigEndian.PutUint32(h[64:], 1)
	return append(h, body...)
}

func (j *jfrBuilder) class(id, name string, fields ...[]byte) []byte {
	return j.el("class", []string{"id", id, "name", name}, fields...)
}

func (j *jfrBuilder) field(name, class string, more ...string) []byte {
	return j.el("field", append([]string{"name", name, "class", class}, more...))
}

// Hand-made recordings: counts against the bytes of their event, and the
// shapes the library would read out of step.
func TestCheckJFRHandMade(t *testing.T) {
	// mk writes a recording whose execution samples have one field.
	mk := func(samples []byte, fieldName, fieldClass string) []byte {
		j := &jfrBuilder{}
		classes := [][]byte{
			j.class("1", "int"), j.class("2", "long"), j.class("3", "float"), j.class("4", "java.lang.String"),
			j.class("10", "jdk.types.Symbol", j.field("string", "4")),
			j.class("11", "jdk.Demo", j.field("values", "1", "dimension", "1"), j.field("ratio", "3")),
			j.class("12", "jdk.ExecutionSample", j.field(fieldName, fieldClass)),
		}
		pool := []byte{10, 2, 1, 3, 1, 'a', 2, 4, 2, 'b', 0} // two symbols: UTF-8 "a", char array "b"
		return j.build(classes, [][]byte{pool},
			event([]byte{11, 3, 7, 8, 9, 0, 0, 0x80, 0x3f}), // jdk.Demo: three ints, a float
			event(append([]byte{12}, samples...)))
	}
	ok := mk([]byte{5}, "startTime", "2")
	if n, err := checkJFR(ok); err != nil || n != len(ok) {
		t.Fatalf("a well-formed recording refused: %v", err)
	}

	bad := append([]byte(nil), ok...)
	at := bytes.Index(bad, []byte{11, 3, 7, 8, 9})
	bad[at+1] = 100 // 100 ints in an event of 9 bytes
	if _, err := checkJFR(bad); err == nil || !strings.Contains(err.Error(), "array length of jdk.Demo.values 100 does not fit in the 7 bytes left") {
		t.Errorf("array count beyond its event: %v", err)
	}

	bad = append([]byte(nil), ok...)
	at = bytes.Index(bad, []byte{2, 4, 2, 'b'})
	bad[at+2] = 0x7f // a char array longer than the event
	if _, err := checkJFR(bad); err == nil || !strings.Contains(err.Error(), "char array length 127 does not fit") {
		t.Errorf("char array beyond its event: %v", err)
	}

	// The library reads a float of an event it decodes as a varint.
	float := mk([]byte{0, 0, 0x80, 0x3f}, "x", "3")
	if _, err := checkJFR(float); err == nil || !strings.Contains(err.Error(), "float field jdk.ExecutionSample.x") {
		t.Errorf("float in an execution sample: %v", err)
	}
	// A string longer than the event, in an event the library skips too.
	long := mk([]byte{3, 0x7f, 'x'}, "s", "4")
	if _, err := checkJFR(long); err == nil || !strings.Contains(err.Error(), "string length 127 does not fit in the 1 bytes left") {
		t.Errorf("string beyond its event: %v", err)
	}
}

// handMadeRecording is the smallest recording the library reads whole: the
// types it requires, one checkpoint (symbols A and m, a class, a method, a
// stack trace) and one execution sample in A.m.
func handMadeRecording() []byte {
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
	pools := [][]byte{
		{26, 2, 1, 3, 1, 'A', 2, 3, 1, 'm'}, // symbols 1 "A", 2 "m"
		{23, 1, 1, 0, 1, 0, 0},              // class 1 named A
		{27, 1, 1, 1, 2, 0, 0, 0},           // method 1: A.m
		{28, 1, 1, 0, 1, 1, 5, 0, 0},        // stack trace 1: one frame, A.m line 5
		{6, 1, 1, 3, 2, 'h', 'i'},           // string 1: "hi"
	}
	return j.build(classes, pools, event([]byte{30, 5, 0, 1, 0}))
}

// What the check accepts the library reads: the hand-made recording gives
// its one sample.
func TestCheckJFRHandMadeRecordingReads(t *testing.T) {
	b := handMadeRecording()
	if n, err := checkJFR(b); err != nil || n != len(b) {
		t.Fatalf("check: %v", err)
	}
	var got []string
	n, err := JFRExecutionSamples(b, func(st []string) { got = append(got, strings.Join(st, ";")) })
	if err != nil || n != 1 || len(got) != 1 || got[0] != "A.m" {
		t.Fatalf("%d samples %q: %v", n, got, err)
	}
	p, err := JFRProfile(b, CPU)
	if err != nil || p.Events != 1 {
		t.Fatalf("profile: %v %+v", err, p)
	}
	// The string pool's entry is a key and a string: one longer than its
	// event is refused.
	bad := append([]byte(nil), b...)
	bad[bytes.Index(bad, []byte{6, 1, 1, 3, 2, 'h', 'i'})+4] = 100
	if _, err := checkJFR(bad); err == nil || !strings.Contains(err.Error(), "string length 100 does not fit in the 2 bytes left") {
		t.Errorf("string pool entry beyond its event: %v", err)
	}
	// TUNELOOP_FUZZ_SEEDS=1 writes it as a seed of both fuzz targets: small
	// enough for the fuzzer to reach the checkpoint and event decoders.
	if os.Getenv("TUNELOOP_FUZZ_SEEDS") != "" {
		for dir, extra := range map[string]string{"FuzzJFRExecutionSamples": "", "FuzzJFRProfile": "\nbyte('\\x00')"} {
			seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)%s\n", b, extra)
			if err := os.WriteFile(filepath.Join("testdata/fuzz", dir, "handmade"), []byte(seed), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A metadata event far larger than any JDK writes is refused before its
// counts are read.
func TestCheckJFRMetadataCap(t *testing.T) {
	size := jfrMaxMetadata + 1
	b := make([]byte, jfrHeaderSize+size+1)
	copy(b, "FLR\x00\x00\x02\x00\x01")
	binary.BigEndian.PutUint64(b[8:], uint64(len(b)))
	binary.BigEndian.PutUint64(b[16:], uint64(len(b)-1))
	binary.BigEndian.PutUint64(b[24:], jfrHeaderSize)
	copy(b[jfrHeaderSize:], uvarint(uint64(size)))
	if _, err := checkJFR(b); err == nil || !strings.Contains(err.Error(), "at byte 68: metadata event of 16777217 bytes") {
		t.Errorf("got %v", err)
	}
}

// Empty pools of a wide class cost the library pools x fields to set up:
// more than the chunk's size warrants is refused.
func TestCheckJFRPoolWork(t *testing.T) {
	mk := func(npools int) []byte {
		j := &jfrBuilder{}
		fields := make([][]byte, 2000)
		for i := range fields {
			fields[i] = j.field("f", "1")
		}
		pools := make([][]byte, npools)
		for i := range pools {
			pools[i] = []byte{40, 0} // a pool of jdk.Wide with no entries
		}
		return j.build([][]byte{j.class("1", "int"), j.class("40", "jdk.Wide", fields...)}, pools)
	}
	if _, err := checkJFR(mk(10)); err != nil {
		t.Errorf("ten empty pools: %v", err)
	}
	if _, err := checkJFR(mk(1000)); err == nil || !strings.Contains(err.Error(), "constant pools of more fields than a chunk of") {
		t.Errorf("a thousand empty pools of 2000 fields: %v", err)
	}
}
