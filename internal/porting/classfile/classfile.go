// Package classfile reads the parts of a Java class file (JVMS §4) that show
// native code: methods flagged ACC_NATIVE and calls that load a native
// library (System.loadLibrary, JNA Native.load, JNR LibraryLoader, FFM
// SymbolLookup), with the library name when it is a string literal.
//
// Layout read, as `javap -v` shows a class that loads "snappyjava":
//
//	magic: CAFEBABE  minor version: 0  major version: 52
//	Constant pool:
//	   #7 = String     #8      // snappyjava
//	   #9 = Methodref  #10.#11 // java/lang/System.loadLibrary:(Ljava/lang/String;)V
//	  ...
//	static {};
//	  Code:
//	     0: ldc           #7   // String snappyjava
//	     2: invokestatic  #9   // Method java/lang/System.loadLibrary:(Ljava/lang/String;)V
//	public native int rawCompress(java.lang.Object, int, int, java.lang.Object, int);
//	  flags: (0x0101) ACC_PUBLIC, ACC_NATIVE
package classfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// Magic is the first four bytes of a class file.
const Magic = 0xCAFEBABE

// AccNative marks a method implemented in native code.
const AccNative = 0x0100

// Call is one call that loads native code.
type Call struct {
	// API is the method called, "java/lang/System.loadLibrary".
	API string `json:"api"`
	// Lib is the string literal passed, "" when computed at run time.
	Lib string `json:"lib,omitempty"`
}

// Info is what a porting scan keeps of one class.
type Info struct {
	Name          string   // this_class, "org/xerial/snappy/SnappyNative"
	Major         uint16   // 52 = Java 8
	NativeMethods []string // names of ACC_NATIVE methods
	Calls         []Call   // native-loading calls, literal names when known
}

// Native reports whether the class shows any sign of native code.
func (i *Info) Native() bool { return len(i.NativeMethods) > 0 || len(i.Calls) > 0 }

// loaders are the methods that load or bind native code, by class then name.
var loaders = map[string]map[string]bool{
	"java/lang/System":               {"loadLibrary": true, "load": true},
	"java/lang/Runtime":              {"loadLibrary": true, "load": true},
	"com/sun/jna/Native":             {"load": true, "loadLibrary": true, "register": true},
	"com/sun/jna/NativeLibrary":      {"getInstance": true},
	"jnr/ffi/LibraryLoader":          {"load": true, "create": true},
	"java/lang/foreign/SymbolLookup": {"libraryLookup": true},
}

// ErrNotClass is returned for input without the class-file magic.
var ErrNotClass = errors.New("not a class file")

var errTruncated = errors.New("truncated class file")

type cpEntry struct {
	tag  byte
	a, b uint16 // indexes (Class: a=name; String: a=utf8; refs: a=class, b=nameAndType; NAT: a=name, b=descriptor)
	s    []byte // Utf8, pointing into the class file
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) u1() byte {
	if r.err != nil || r.off+1 > len(r.b) {
		r.err = errTruncated
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u2() uint16 {
	if r.err != nil || r.off+2 > len(r.b) {
		r.err = errTruncated
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u4() uint32 {
	if r.err != nil || r.off+4 > len(r.b) {
		r.err = errTruncated
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		r.err = errTruncated
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

// Parse reads a class file held in memory. Malformed input is an error,
// never a panic.
func Parse(b []byte) (*Info, error) {
	var p Parser
	return p.Parse(b)
}

// Parser parses many class files, reusing its buffers.
type Parser struct {
	cp   []cpEntry
	apis map[uint16]string
	seen map[uint16]bool
}

// Parse is Parse with reused buffers; not safe for concurrent use.
func (p *Parser) Parse(b []byte) (*Info, error) {
	r := &reader{b: b}
	if r.u4() != Magic {
		return nil, ErrNotClass
	}
	r.u2() // minor
	info := &Info{Major: r.u2()}
	n := int(r.u2())
	if r.err != nil {
		return nil, r.err
	}
	if cap(p.cp) < n {
		p.cp = make([]cpEntry, n)
	}
	cp := p.cp[:n]
	clear(cp)
	interesting := false
	for i := 1; i < n; i++ {
		t := r.u1()
		e := cpEntry{tag: t}
		switch t {
		case 1: // Utf8
			l := int(r.u2())
			e.s = r.bytes(l)
		case 3, 4: // Integer, Float
			r.u4()
		case 5, 6: // Long, Double take two slots
			r.u4()
			r.u4()
			cp[i] = e
			i++
			continue
		case 7, 8, 16, 19, 20: // Class, String, MethodType, Module, Package
			e.a = r.u2()
		case 9, 10, 11, 12, 17, 18: // refs, NameAndType, Dynamic, InvokeDynamic
			e.a, e.b = r.u2(), r.u2()
		case 15: // MethodHandle
			r.u1()
			e.a = r.u2()
		default:
			if r.err == nil {
				return nil, fmt.Errorf("class file: constant pool entry %d has unknown tag %d", i, t)
			}
		}
		if r.err != nil {
			return nil, r.err
		}
		cp[i] = e
	}
	utf8b := func(i uint16) []byte {
		if int(i) < len(cp) && cp[i].tag == 1 {
			return cp[i].s
		}
		return nil
	}
	utf8 := func(i uint16) string { return string(utf8b(i)) }
	classNameB := func(i uint16) []byte {
		if int(i) < len(cp) && cp[i].tag == 7 {
			return utf8b(cp[i].a)
		}
		return nil
	}
	// apis[i] is the loader API a method ref at index i names, if any.
	if p.apis == nil {
		p.apis, p.seen = map[uint16]string{}, map[uint16]bool{}
	}
	apis := p.apis
	clear(apis)
	for i := range cp {
		e := &cp[i]
		if e.tag != 10 && e.tag != 11 {
			continue
		}
		names, ok := loaders[string(classNameB(e.a))]
		if !ok || int(e.b) >= len(cp) || cp[e.b].tag != 12 {
			continue
		}
		if name := utf8b(cp[e.b].a); names[string(name)] {
			apis[uint16(i)] = string(classNameB(e.a)) + "." + string(name)
			interesting = true
		}
	}
	r.u2() // access flags
	info.Name = string(classNameB(r.u2()))
	r.u2() // super
	r.bytes(2 * int(r.u2()))
	// fields
	for nf := int(r.u2()); nf > 0 && r.err == nil; nf-- {
		r.bytes(6)
		skipAttributes(r)
	}
	found := p.seen
	clear(found)
	for nm := int(r.u2()); nm > 0 && r.err == nil; nm-- {
		flags, name := r.u2(), r.u2()
		r.u2() // descriptor
		if flags&AccNative != 0 {
			info.NativeMethods = append(info.NativeMethods, utf8(name))
		}
		for na := int(r.u2()); na > 0 && r.err == nil; na-- {
			an := utf8b(r.u2())
			body := r.bytes(int(r.u4()))
			if string(an) != "Code" || !interesting || r.err != nil {
				continue
			}
			cr := &reader{b: body}
			cr.u2()
			cr.u2()
			code := cr.bytes(int(cr.u4()))
			if cr.err != nil {
				continue
			}
			info.Calls = append(info.Calls, scanCode(code, cp, apis, found)...)
		}
	}
	skipAttributes(r) // class attributes
	if r.err != nil {
		return nil, r.err
	}
	// References the bytecode scan did not place (e.g. only in a method
	// handle) still count, without a name.
	var rest []Call
	for i, api := range apis {
		if !found[i] {
			rest = append(rest, Call{API: api})
		}
	}
	sort.Slice(rest, func(a, b int) bool { return rest[a].API < rest[b].API })
	info.Calls = append(info.Calls, rest...)
	return info, nil
}

func skipAttributes(r *reader) {
	for na := int(r.u2()); na > 0 && r.err == nil; na-- {
		r.u2()
		r.bytes(int(r.u4()))
	}
}

// scanCode walks the instructions of one method and returns the loader
// calls, each with the string constant pushed shortly before it.
func scanCode(code []byte, cp []cpEntry, apis map[uint16]string, found map[uint16]bool) []Call {
	var calls []Call
	lastStr, lastAt := "", -100
	for pc, n := 0, 0; pc < len(code); n++ {
		op := code[pc]
		l := insnLen(code, pc)
		if l <= 0 || pc+l > len(code) {
			break
		}
		switch op {
		case 0x12, 0x13: // ldc, ldc_w
			idx := uint16(code[pc+1])
			if op == 0x13 {
				idx = binary.BigEndian.Uint16(code[pc+1:])
			}
			if int(idx) < len(cp) && cp[idx].tag == 8 {
				if s := cp[idx].a; int(s) < len(cp) && cp[s].tag == 1 {
					lastStr, lastAt = string(cp[s].s), n
				}
			}
		case 0xb6, 0xb7, 0xb8, 0xb9: // invokevirtual, invokespecial, invokestatic, invokeinterface
			idx := binary.BigEndian.Uint16(code[pc+1:])
			if api, ok := apis[idx]; ok {
				c := Call{API: api}
				if n-lastAt <= 4 {
					c.Lib = lastStr
				}
				calls = append(calls, c)
				found[idx] = true
			} else if takesString(cp, idx) {
				lastAt = -100 // the string went to another call (System.getProperty("os.arch"), append)
			}
		case 0xba: // invokedynamic: string concatenation consumes it
			lastAt = -100
		}
		pc += l
	}
	return calls
}

// takesString reports whether the method ref at idx has a String parameter.
func takesString(cp []cpEntry, idx uint16) bool {
	if int(idx) >= len(cp) || (cp[idx].tag != 10 && cp[idx].tag != 11) {
		return false
	}
	nat := cp[idx].b
	if int(nat) >= len(cp) || cp[nat].tag != 12 {
		return false
	}
	d := cp[nat].b
	if int(d) >= len(cp) || cp[d].tag != 1 {
		return false
	}
	desc := cp[d].s
	if i := bytes.IndexByte(desc, ')'); i >= 0 {
		desc = desc[:i]
	}
	return bytes.Contains(desc, []byte("Ljava/lang/String;"))
}

// insnLen is the length of the instruction at pc, 0 when it cannot be decoded.
func insnLen(code []byte, pc int) int {
	op := code[pc]
	switch {
	case op == 0x10, op == 0x12, op >= 0x15 && op <= 0x19, op >= 0x36 && op <= 0x3a, op == 0xa9, op == 0xbc:
		return 2
	case op == 0x11, op == 0x13, op == 0x14, op == 0x84, op >= 0x99 && op <= 0xa8,
		op >= 0xb2 && op <= 0xb8, op == 0xbb, op == 0xbd, op == 0xc0, op == 0xc1, op == 0xc6, op == 0xc7:
		return 3
	case op == 0xc5:
		return 4
	case op == 0xb9, op == 0xba, op == 0xc8, op == 0xc9:
		return 5
	case op == 0xc4: // wide
		if pc+1 < len(code) && code[pc+1] == 0x84 {
			return 6
		}
		return 4
	case op == 0xaa, op == 0xab: // tableswitch, lookupswitch
		p := (pc + 4) &^ 3
		if p+12 > len(code) {
			return 0
		}
		var n int64
		if op == 0xaa {
			lo := int64(int32(binary.BigEndian.Uint32(code[p+4:])))
			hi := int64(int32(binary.BigEndian.Uint32(code[p+8:])))
			if hi < lo {
				return 0
			}
			n = 12 + (hi-lo+1)*4
		} else {
			pairs := int64(int32(binary.BigEndian.Uint32(code[p+4:])))
			if pairs < 0 {
				return 0
			}
			n = 8 + pairs*8
		}
		total := int64(p-pc) + n
		if total > int64(len(code)) {
			return 0
		}
		return int(total)
	case op > 0xc9:
		return 0 // reserved or undefined opcodes
	}
	return 1
}
