package stacks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// The JFR library (grafana/jfr-parser) sizes slices and maps from varints it
// has not checked against the input: one hostile count is a multi-gigabyte
// make() and a fatal "out of memory" no recover() can catch. checkJFR reads
// the recording first, the way the library will, and refuses any count or
// length that cannot fit in the bytes that hold it; what it accepts the
// library reads with every allocation bounded by the input's size. It also
// refuses the few shapes the library would read differently from the JFR
// format (and so out of step with this check): a float in a type it decodes,
// an array inside an inline struct, a metadata tree deeper than it walks.

// jfrHeaderSize is a chunk header's length: magic, version, size, constant
// pool and metadata offsets, start, duration, start ticks, ticks per
// second, features.
const jfrHeaderSize = 68

// jfrMaxMetadata caps the metadata event, whose counts the library turns
// into maps and slices at tens of bytes per input byte (a JDK 17/21
// recording's is 97 KB).
const jfrMaxMetadata = 16 << 20

// jfrMaxDepth bounds inline structs inside structs (the JDK nests two deep).
const jfrMaxDepth = 8

// errJFRTruncated marks a recording whose last chunk is cut short (a
// recording still being written, a copy interrupted): the chunks before it
// are whole.
var errJFRTruncated = errors.New("recording cut short")

// jfrLibEvent says whether the library decodes an event field by field (it
// skips every other event by its size).
func jfrLibEvent(name string) bool {
	switch name {
	case "jdk.ExecutionSample", "profiler.WallClockSample", "profiler.Malloc", "profiler.Free",
		"jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB", "jdk.ObjectAllocationSample",
		"profiler.LiveObject", "jdk.JavaMonitorEnter", "jdk.ThreadPark", "jdk.ActiveSetting":
		return true
	}
	return false
}

// jfrCheckError says where a recording stops making sense and why.
type jfrCheckError struct {
	off    int
	reason string
	cause  error
}

func (e *jfrCheckError) Error() string {
	return fmt.Sprintf("invalid JFR recording at byte %d: %s", e.off, e.reason)
}

func (e *jfrCheckError) Unwrap() error { return e.cause }

// jfrField is one field of a class from the metadata.
type jfrField struct {
	name  string
	typ   int64
	cp    bool // a constant pool reference (a varint key)
	array bool
}

type jfrClass struct {
	name   string
	fields []jfrField
}

// jfrPrim is how a primitive is encoded; 0 for a struct.
type jfrPrim int

const (
	primNone   jfrPrim = iota
	primBool           // boolean, byte: one byte
	primVarint         // char, short, int: varint
	primLong           // long: varint
	primFloat          // float: 4 bytes
	primDouble         // double: 8 bytes
	primString         // java.lang.String: encoding byte + payload
)

// jfrPrimOf is the encoding of a primitive class, primNone for others.
func jfrPrimOf(name string) jfrPrim {
	switch name {
	case "boolean", "byte":
		return primBool
	case "char", "short", "int":
		return primVarint
	case "long":
		return primLong
	case "float":
		return primFloat
	case "double":
		return primDouble
	case "java.lang.String":
		return primString
	}
	return primNone
}

// walkMode is how the library will read the fields being walked.
type walkMode int

const (
	modeSpec      walkMode = iota // events the library skips: the JFR format only
	modeLibTop                    // the fields of an event or pool entry the library decodes
	modeLibNested                 // the fields of an inline struct inside those
)

// jfrReader reads varints as the library does, never past end.
type jfrReader struct {
	b   []byte
	pos int
	end int
}

func (r *jfrReader) fail(off int, format string, a ...any) error {
	return &jfrCheckError{off: off, reason: fmt.Sprintf(format, a...)}
}

func (r *jfrReader) short(what string) error {
	return &jfrCheckError{off: r.pos, reason: what + " runs past the end of its event"}
}

func (r *jfrReader) left() int { return r.end - r.pos }

func (r *jfrReader) byte1(what string) (byte, error) {
	if r.pos >= r.end {
		return 0, r.short(what)
	}
	r.pos++
	return r.b[r.pos-1], nil
}

// varint32 is the library's varInt: at most 5 bytes, 32 bits.
func (r *jfrReader) varint32(what string) (uint32, error) {
	start := r.pos
	var v uint32
	for shift := uint(0); ; shift += 7 {
		if shift >= 32 {
			return 0, r.fail(start, "%s: varint longer than 32 bits", what)
		}
		c, err := r.byte1(what)
		if err != nil {
			return 0, err
		}
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
}

// varlong is the library's varLong: at most 9 bytes, the ninth whole.
func (r *jfrReader) varlong(what string) (uint64, error) {
	var v uint64
	for shift := uint(0); shift <= 56; shift += 7 {
		c, err := r.byte1(what)
		if err != nil {
			return 0, err
		}
		if shift == 56 {
			return v | uint64(c)<<shift, nil
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return v, nil
}

// count reads a count of things that take at least min bytes each and
// refuses one the rest of the event cannot hold.
func (r *jfrReader) count(what string, min int) (int, error) {
	start := r.pos
	n, err := r.varint32(what)
	if err != nil {
		return 0, err
	}
	if int64(n)*int64(min) > int64(r.left()) {
		return 0, r.fail(start, "%s %d does not fit in the %d bytes left in its event", what, n, r.left())
	}
	return int(n), nil
}

func (r *jfrReader) skip(n int, what string) error {
	if n > r.left() {
		return r.short(what)
	}
	r.pos += n
	return nil
}

// checkJFR validates a whole recording. ok is the length of the leading
// chunks that are whole and valid (all of buf when err is nil).
func checkJFR(buf []byte) (ok int, err error) {
	chunks, err := scanJFR(buf)
	if len(chunks) > 0 {
		ok = chunks[len(chunks)-1].end
	}
	return ok, err
}

// checkChunk validates the chunk at start and returns its native samples.
func checkChunk(buf []byte, start int) ([]jfrNative, error) {
	left := len(buf) - start
	if left < jfrHeaderSize {
		return nil, &jfrCheckError{off: start, reason: fmt.Sprintf("chunk header needs %d bytes, %d left", jfrHeaderSize, left), cause: errJFRTruncated}
	}
	h := buf[start:]
	if string(h[:4]) != "FLR\x00" {
		return nil, &jfrCheckError{off: start, reason: fmt.Sprintf("no chunk magic FLR\\0 (found %q)", h[:4])}
	}
	if major := binary.BigEndian.Uint16(h[4:]); major != 1 && major != 2 {
		return nil, &jfrCheckError{off: start + 4, reason: fmt.Sprintf("unknown format version %d.%d", major, binary.BigEndian.Uint16(h[6:]))}
	}
	size := binary.BigEndian.Uint64(h[8:])
	if size < jfrHeaderSize {
		return nil, &jfrCheckError{off: start + 8, reason: fmt.Sprintf("chunk size %d is smaller than its header", size)}
	}
	if size > uint64(left) {
		return nil, &jfrCheckError{off: start + 8, reason: fmt.Sprintf("chunk size %d but only %d bytes left in the file", size, left), cause: errJFRTruncated}
	}
	cpOff, metaOff := binary.BigEndian.Uint64(h[16:]), binary.BigEndian.Uint64(h[24:])
	if cpOff < jfrHeaderSize || cpOff >= size {
		return nil, &jfrCheckError{off: start + 16, reason: fmt.Sprintf("constant pool offset %d outside the chunk (size %d)", cpOff, size)}
	}
	if metaOff < jfrHeaderSize || metaOff >= size {
		return nil, &jfrCheckError{off: start + 24, reason: fmt.Sprintf("metadata offset %d outside the chunk (size %d)", metaOff, size)}
	}
	// The features flag's bit 0 says integers are varints; the library
	// ignores the flag and always reads varints, so this check does too
	// (the JDK has written compressed integers by default since JFR 2.0).
	end := start + int(size)
	c := &chunkCheck{buf: buf[:end], start: start, end: end, poolWork: 16*int(size) + 1<<16}
	if err := c.metadata(start + int(metaOff)); err != nil {
		return nil, err
	}
	if err := c.events(); err != nil {
		return nil, err
	}
	if !c.metas[start+int(metaOff)] {
		return nil, &jfrCheckError{off: start + int(metaOff), reason: "metadata offset does not point at an event"}
	}
	if err := c.poolChain(start + int(cpOff)); err != nil {
		return nil, err
	}
	return c.natives, nil
}

// chunkCheck holds one chunk's class table and the places of its
// metadata and checkpoint events.
type chunkCheck struct {
	buf         []byte // up to the chunk's end
	start, end  int
	classes     map[int64]*jfrClass
	prim        map[int64]jfrPrim
	metas       map[int]bool  // metadata event starts
	checkpoints map[int]int64 // checkpoint event start -> delta
	poolWork    int           // fields of pools the library may still set up
	natives     []jfrNative   // the jdk.NativeMethodSample events, in order
}

// metadata decodes the metadata event at pos into the class table.
func (c *chunkCheck) metadata(pos int) error {
	r := &jfrReader{b: c.buf, pos: pos, end: c.end}
	size, err := r.varint32("metadata size")
	if err != nil {
		return err
	}
	if size == 0 || int64(size) > int64(c.end-pos) {
		return r.fail(pos, "metadata event size %d does not fit in the %d bytes left in the chunk", size, c.end-pos)
	}
	if size > jfrMaxMetadata {
		return r.fail(pos, "metadata event of %d bytes (more than %d: a JDK's is about 100 KB)", size, jfrMaxMetadata)
	}
	r.end = pos + int(size)
	typ, err := r.varint32("metadata event type")
	if err != nil {
		return err
	}
	if typ != 0 {
		return r.fail(pos, "metadata offset points at an event of type %d, not metadata (0)", typ)
	}
	for _, what := range []string{"metadata start", "metadata duration", "metadata id"} {
		if _, err := r.varlong(what); err != nil {
			return err
		}
	}
	nstr, err := r.count("metadata string count", 1)
	if err != nil {
		return err
	}
	strs := make([]string, nstr)
	for i := range strs {
		if strs[i], err = c.metaString(r); err != nil {
			return err
		}
	}
	c.classes = map[int64]*jfrClass{}
	c.prim = map[int64]jfrPrim{}
	names := map[string]bool{}
	root, err := c.element(r, strs, 0)
	if err != nil {
		return err
	}
	if root.name != "root" {
		return r.fail(pos, "metadata root element is %q, not root", root.name)
	}
	for i := 0; i < root.children; i++ {
		at := r.pos
		e, err := c.element(r, strs, 1)
		if err != nil {
			return err
		}
		switch e.name {
		case "region":
			if e.children != 0 {
				return r.fail(at, "metadata region element has %d children (the library reads none)", e.children)
			}
		case "metadata":
			for j := 0; j < e.children; j++ {
				if err := c.classElement(r, strs, names); err != nil {
					return err
				}
			}
		default:
			return r.fail(at, "unexpected metadata element %q", e.name)
		}
	}
	return nil
}

// classElement reads one class of the metadata and its fields.
func (c *chunkCheck) classElement(r *jfrReader, strs []string, names map[string]bool) error {
	at := r.pos
	e, err := c.element(r, strs, 2)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(e.attrs["id"], 10, 64)
	if err != nil || int64(int(id)) != id {
		return r.fail(at, "class without a numeric id (%q)", e.attrs["id"])
	}
	name := e.attrs["name"]
	if name == "" {
		return r.fail(at, "class %d without a name", id)
	}
	// The library keys classes by id and by name, the last one winning:
	// a duplicate would make it and this check see different types.
	if c.classes[id] != nil || names[name] {
		return r.fail(at, "class %d %q declared twice", id, name)
	}
	names[name] = true
	cls := &jfrClass{name: name}
	c.classes[id] = cls
	if p := jfrPrimOf(name); p != primNone {
		c.prim[id] = p
	}
	for k := 0; k < e.children; k++ {
		at := r.pos
		f, err := c.element(r, strs, 3)
		if err != nil {
			return err
		}
		if f.name == "field" {
			typ, err := strconv.ParseInt(f.attrs["class"], 10, 64)
			if err != nil || int64(int(typ)) != typ {
				return r.fail(at, "field of class %q without a numeric type (%q)", name, f.attrs["class"])
			}
			fld := jfrField{name: f.attrs["name"], typ: typ, cp: f.attrs["constantPool"] == "true"}
			if fld.name == "" {
				return r.fail(at, "field of class %q without a name", name)
			}
			switch f.attrs["dimension"] {
			case "":
			case "1":
				fld.array = true
			default:
				return r.fail(at, "field %s.%s has dimension %q (only 1 is supported)", name, fld.name, f.attrs["dimension"])
			}
			cls.fields = append(cls.fields, fld)
		}
		for l := 0; l < f.children; l++ {
			at := r.pos
			a, err := c.element(r, strs, 4)
			if err != nil {
				return err
			}
			if a.children != 0 {
				return r.fail(at, "metadata element %q nested deeper than the format allows", a.name)
			}
		}
	}
	return nil
}

type jfrElement struct {
	name     string
	attrs    map[string]string
	children int
}

// element reads one metadata element's name, attributes and child count
// (the children follow it).
func (c *chunkCheck) element(r *jfrReader, strs []string, depth int) (jfrElement, error) {
	idx := func(what string) (string, error) {
		at := r.pos
		i, err := r.varint32(what)
		if err != nil {
			return "", err
		}
		if int64(i) >= int64(len(strs)) {
			return "", r.fail(at, "%s %d is not in the string table (%d strings)", what, i, len(strs))
		}
		return strs[i], nil
	}
	var e jfrElement
	var err error
	if e.name, err = idx("element name index"); err != nil {
		return e, err
	}
	// An attribute is two indexes, a child element at least three varints.
	nattr, err := r.count("attribute count", 2)
	if err != nil {
		return e, err
	}
	if depth >= 2 {
		e.attrs = make(map[string]string, nattr)
	}
	for i := 0; i < nattr; i++ {
		k, err := idx("attribute name index")
		if err != nil {
			return e, err
		}
		v, err := idx("attribute value index")
		if err != nil {
			return e, err
		}
		if e.attrs != nil {
			e.attrs[k] = v
		}
	}
	if e.children, err = r.count("child element count", 3); err != nil {
		return e, err
	}
	return e, nil
}

// metaString reads a metadata string the way the library does (it knows
// the encodings null, empty, UTF-8 and char array there).
func (c *chunkCheck) metaString(r *jfrReader) (string, error) {
	at := r.pos
	enc, err := r.byte1("metadata string")
	if err != nil {
		return "", err
	}
	switch enc {
	case 0, 1:
		return "", nil
	case 3:
		n, err := r.count("string length", 1)
		if err != nil {
			return "", err
		}
		s := string(r.b[r.pos : r.pos+n])
		r.pos += n
		return s, nil
	case 4:
		n, err := r.count("char array length", 1)
		if err != nil {
			return "", err
		}
		rs := make([]rune, n)
		for i := range rs {
			ch, err := r.varint32("char")
			if err != nil {
				return "", err
			}
			rs[i] = rune(ch)
		}
		return string(rs), nil
	}
	return "", r.fail(at, "metadata string encoding %d (the library reads 0, 1, 3 and 4)", enc)
}

// events walks every event of the chunk by its size, and inside it every
// field the class table gives.
func (c *chunkCheck) events() error {
	c.metas = map[int]bool{}
	c.checkpoints = map[int]int64{}
	pos := c.start + jfrHeaderSize
	for pos < c.end {
		r := &jfrReader{b: c.buf, pos: pos, end: c.end}
		size, err := r.varlong("event size")
		if err != nil {
			return err
		}
		if size == 0 || size > uint64(c.end-pos) {
			return r.fail(pos, "event size %d does not fit in the %d bytes left in the chunk", size, c.end-pos)
		}
		r.end = pos + int(size)
		typ, err := r.varlong("event type")
		if err != nil {
			return err
		}
		switch typ {
		case 0:
			c.metas[pos] = true
		case 1:
			delta, err := c.checkpoint(r)
			if err != nil {
				return err
			}
			c.checkpoints[pos] = delta
		default:
			if cls := c.classes[int64(typ)]; cls != nil {
				mode := modeSpec
				if jfrLibEvent(cls.name) {
					mode = modeLibTop
				}
				body := r.pos
				if err := c.fields(r, cls, mode, 0); err != nil {
					return err
				}
				if cls.name == "jdk.NativeMethodSample" {
					n, err := c.native(&jfrReader{b: c.buf, pos: body, end: r.end}, cls)
					if err != nil {
						return err
					}
					c.natives = append(c.natives, n)
				}
			}
		}
		pos = r.end
	}
	return nil
}

// checkpoint walks a constant pool event: start, duration, delta to the
// previous checkpoint, type mask, then pools of (class, count, entries).
func (c *chunkCheck) checkpoint(r *jfrReader) (delta int64, err error) {
	for _, what := range []string{"checkpoint start", "checkpoint duration"} {
		if _, err := r.varlong(what); err != nil {
			return 0, err
		}
	}
	d, err := r.varlong("checkpoint delta")
	if err != nil {
		return 0, err
	}
	if _, err := r.varint32("checkpoint type mask"); err != nil {
		return 0, err
	}
	npool, err := r.count("pool count", 2)
	if err != nil {
		return 0, err
	}
	for i := 0; i < npool; i++ {
		at := r.pos
		id, err := r.varlong("pool class id")
		if err != nil {
			return 0, err
		}
		cls := c.classes[int64(id)]
		if cls == nil {
			return 0, r.fail(at, "constant pool of unknown class %d", int64(id))
		}
		// The library builds a reader of every field for each pool, even
		// an empty one: many empty pools of a wide class would cost it
		// pools x fields.
		if c.poolWork -= len(cls.fields) + 1; c.poolWork < 0 {
			return 0, r.fail(at, "constant pools of more fields than a chunk of %d bytes warrants", c.end-c.start)
		}
		// A pool of strings holds (key, string) entries; the library reads
		// a pool of another primitive as keys alone, the format as values.
		prim := c.prim[int64(id)]
		if prim != primNone && prim != primString {
			return 0, r.fail(at, "constant pool of primitive %s", cls.name)
		}
		at = r.pos
		n, err := r.count("constant pool entry count", 1)
		if err != nil {
			return 0, err
		}
		for j := 0; j < n; j++ {
			if _, err := r.varlong("constant pool key"); err != nil {
				return 0, err
			}
			if prim == primString {
				err = c.str(r)
			} else {
				err = c.fields(r, cls, modeLibTop, 0)
			}
			if err != nil {
				return 0, err
			}
		}
		// The library skips a chunk header pool as 68 bytes whatever it
		// holds (the JDK writes 71): harmless only when no pool follows.
		if cls.name == "jdk.types.ChunkHeader" && i != npool-1 {
			return 0, r.fail(at, "a pool follows the chunk header pool in its checkpoint (the library would lose its place)")
		}
	}
	return int64(d), nil
}

// fields walks one value of cls: its fields in order.
func (c *chunkCheck) fields(r *jfrReader, cls *jfrClass, mode walkMode, depth int) error {
	if depth > jfrMaxDepth {
		return r.fail(r.pos, "inline structs nested more than %d deep (class %q)", jfrMaxDepth, cls.name)
	}
	for _, f := range cls.fields {
		if err := c.field(r, cls, f, mode, depth); err != nil {
			return err
		}
	}
	return nil
}

func (c *chunkCheck) field(r *jfrReader, cls *jfrClass, f jfrField, mode walkMode, depth int) error {
	at := r.pos
	prim, isPrim := c.prim[f.typ]
	elem := c.classes[f.typ]
	if !f.cp && !isPrim && elem == nil {
		return r.fail(at, "field %s.%s of unknown type %d", cls.name, f.name, f.typ)
	}
	inline := !f.cp && !isPrim
	switch mode {
	case modeLibTop:
		if !f.cp && prim == primFloat {
			return r.fail(at, "float field %s.%s (the library would read it as a varint)", cls.name, f.name)
		}
		// An array of inline structs the library reads with a second count,
		// but for the stack trace's frames, which it decodes itself.
		if inline && f.array && !(cls.name == "jdk.types.StackTrace" && f.name == "frames" && elem.name == "jdk.types.StackFrame") {
			return r.fail(at, "array of inline %s in %s.%s (the library cannot read it)", elem.name, cls.name, f.name)
		}
	case modeLibNested:
		// The library reads one value whatever the dimension, a float as a
		// varint, and no struct at all.
		if f.array || inline || (!f.cp && prim == primFloat) {
			return r.fail(at, "field %s.%s inside an inline struct is an array, a float or a struct (the library cannot read it)", cls.name, f.name)
		}
	}
	n := 1
	if f.array {
		var err error
		if n, err = r.count("array length of "+cls.name+"."+f.name, 1); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		before := r.pos
		if err := c.value(r, f, prim, elem, mode, depth); err != nil {
			return err
		}
		if r.pos == before {
			// An element of no bytes would let a count cost work without input.
			return r.fail(at, "field %s.%s of type %q takes no bytes", cls.name, f.name, elem.name)
		}
	}
	return nil
}

func (c *chunkCheck) value(r *jfrReader, f jfrField, prim jfrPrim, elem *jfrClass, mode walkMode, depth int) error {
	if f.cp {
		_, err := r.varlong("constant pool reference")
		return err
	}
	var err error
	switch prim {
	case primBool:
		_, err = r.byte1("byte")
	case primVarint:
		_, err = r.varint32("int")
	case primLong:
		_, err = r.varlong("long")
	case primFloat:
		err = r.skip(4, "float")
	case primDouble:
		err = r.skip(8, "double")
	case primString:
		err = c.str(r)
	default:
		next := modeSpec
		if mode != modeSpec {
			next = modeLibNested
			if elem.name == "jdk.types.StackFrame" && f.array {
				next = modeLibTop // the library decodes frames like top-level fields
			}
		}
		err = c.fields(r, elem, next, depth+1)
	}
	return err
}

// str skips a java.lang.String value, its length checked against the event.
func (c *chunkCheck) str(r *jfrReader) error {
	at := r.pos
	enc, err := r.byte1("string")
	if err != nil {
		return err
	}
	switch enc {
	case 0, 1:
		return nil
	case 2:
		_, err := r.varlong("string pool reference")
		return err
	case 3, 5:
		n, err := r.count("string length", 1)
		if err != nil {
			return err
		}
		r.pos += n
		return nil
	case 4:
		n, err := r.count("char array length", 1)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if _, err := r.varint32("char"); err != nil {
				return err
			}
		}
		return nil
	}
	return r.fail(at, "unknown string encoding %d", enc)
}

// poolChain follows the checkpoints from the header's constant pool offset
// back by their deltas, as the library does: each must land on a
// checkpoint this walk has checked, earlier than the last (no loop).
func (c *chunkCheck) poolChain(pos int) error {
	for {
		delta, ok := c.checkpoints[pos]
		if !ok {
			return &jfrCheckError{off: pos, reason: "constant pool offset does not point at a checkpoint event"}
		}
		if delta == 0 {
			return nil
		}
		if delta > 0 || delta < int64(c.start-pos) {
			return &jfrCheckError{off: pos, reason: fmt.Sprintf("checkpoint delta %d does not lead back to an earlier checkpoint in the chunk", delta)}
		}
		pos += int(delta)
	}
}
