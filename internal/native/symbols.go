package native

// Symbolisation of sampled addresses:
//
//	/proc/kallsyms          ffffffff81e0b6a0 T native_queued_spin_lock_slowpath
//	/proc/PID/maps          7f3c48a28000-7f3c48bbd000 r-xp 00028000 08:01 1311 /usr/lib/x86_64-linux-gnu/libc.so.6
//	/tmp/perf-PID.map       7f1c2d0c5a20 1e0 Ljava/lang/String;::hashCode
//
// Kernel frames come from kallsyms, user frames from the ELF symbol tables
// of the file mapped at the address, JIT-compiled Java from the JVM's perf
// map (written on request by Compiler.perfmap, JDK 17+).

import (
	"bufio"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/units"
)

// sym is one function: [Start, Start+Size).
type sym struct {
	Start, Size uint64
	Name        string
}

// symTable is a sorted list of functions.
type symTable []sym

func (t symTable) sort() {
	sort.Slice(t, func(i, j int) bool { return t[i].Start < t[j].Start })
}

// find is the function holding addr: the last one starting at or below it,
// within its size (or, sizes unknown as in kallsyms, before the next).
func (t symTable) find(addr uint64) (sym, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].Start > addr }) - 1
	if i < 0 {
		return sym{}, false
	}
	s := t[i]
	if s.Size > 0 && addr >= s.Start+s.Size {
		return sym{}, false
	}
	return s, true
}

// parseKallsyms reads /proc/kallsyms' text symbols (t/T/w/W), skipping
// zero addresses (what an unprivileged reader sees).
func parseKallsyms(r io.Reader) symTable {
	var t symTable
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || !strings.ContainsAny(f[1], "tTwW") {
			continue
		}
		a, ok := units.ParseHex(f[0])
		if !ok || a == 0 {
			continue
		}
		t = append(t, sym{Start: a, Name: f[2]})
	}
	t.sort()
	return t
}

// parsePerfMap reads a JIT perf map: "START SIZE NAME" in hex.
func parsePerfMap(r io.Reader) symTable {
	var t symTable
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) < 3 {
			continue
		}
		a, err1 := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 64)
		n, err2 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		t = append(t, sym{Start: a, Size: n, Name: f[2]})
	}
	t.sort()
	return t
}

// mapping is one executable mapping of /proc/PID/maps.
type mapping struct {
	Start, End, Off uint64
	Path            string
}

// parseMaps reads the executable mappings of /proc/PID/maps.
func parseMaps(r io.Reader) []mapping {
	var out []mapping
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !strings.Contains(f[1], "x") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		a, ok1 := units.ParseHex(lo)
		b, ok2 := units.ParseHex(hi)
		off, ok3 := units.ParseHex(f[2])
		if !ok || !ok1 || !ok2 || !ok3 {
			continue
		}
		m := mapping{Start: a, End: b, Off: off}
		if len(f) >= 6 {
			m.Path = strings.Join(f[5:], " ")
		}
		out = append(out, m)
	}
	return out
}

// elfFile is one binary's functions and how file offsets map to its addresses.
type elfFile struct {
	syms  symTable
	loads []elf.ProgHeader
	f     *os.File
	ef    *elf.File
}

// openELF reads the binary at path (under root, the process's /proc/PID/root),
// and, when it is stripped of .symtab, the symbols of its separate debug
// file (/usr/lib/debug/.build-id/xx/yyyy.debug, from a -dbg/-debuginfo package).
func openELF(root, path string) (*elfFile, error) {
	path = root + path
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	e := &elfFile{f: f, ef: ef}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			e.loads = append(e.loads, p.ProgHeader)
		}
	}
	add := func(ss []elf.Symbol) {
		for _, s := range ss {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				e.syms = append(e.syms, sym{Start: s.Value, Size: s.Size, Name: s.Name})
			}
		}
	}
	if ss, err := ef.Symbols(); err == nil {
		add(ss)
	}
	if ss, err := ef.DynamicSymbols(); err == nil {
		add(ss)
	}
	if ef.Section(".symtab") == nil {
		if id := buildID(ef); id != "" {
			if df, err := elf.Open(root + "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug"); err == nil {
				if ss, err := df.Symbols(); err == nil {
					add(ss)
				}
				df.Close()
			}
		}
	}
	e.syms.sort()
	return e, nil
}

func (e *elfFile) close() { e.f.Close() }

// buildID is the hex GNU build ID of ef, "" when it has none.
func buildID(ef *elf.File) string {
	s := ef.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	// Elf_Nhdr: namesz, descsz, type (3 = NT_GNU_BUILD_ID), "GNU\0", desc.
	if err != nil || len(b) < 16 {
		return ""
	}
	namesz, descsz := ef.ByteOrder.Uint32(b[0:4]), ef.ByteOrder.Uint32(b[4:8])
	off := 12 + (namesz+3)&^3
	if ef.ByteOrder.Uint32(b[8:12]) != 3 || descsz < 2 || uint64(off)+uint64(descsz) > uint64(len(b)) {
		return ""
	}
	return fmt.Sprintf("%x", b[off:off+descsz])
}

// vaddr is the ELF virtual address of file offset off.
func (e *elfFile) vaddr(off uint64) (uint64, bool) {
	for _, p := range e.loads {
		if off >= p.Off && off < p.Off+p.Filesz {
			return p.Vaddr + off - p.Off, true
		}
	}
	return 0, false
}

// code is up to max bytes of the function s's body (for the catalogue's
// instruction checks).
func (e *elfFile) code(s sym, max uint64) []byte {
	for _, p := range e.loads {
		if s.Start >= p.Vaddr && s.Start < p.Vaddr+p.Filesz {
			n := min(s.Size, max, p.Vaddr+p.Filesz-s.Start)
			if n == 0 {
				return nil
			}
			b := make([]byte, n)
			if _, err := e.f.ReadAt(b, int64(p.Off+s.Start-p.Vaddr)); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}

// process symbolises one process's user addresses.
type process struct {
	pid    int
	comm   string
	maps   []mapping
	files  map[string]*elfFile // by path; nil when unreadable
	jit    symTable            // the JVM's perf map, if any
	isJava bool
}

func loadProcess(pid int) *process {
	p := &process{pid: pid, files: map[string]*elfFile{}}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		p.comm = strings.TrimSpace(string(b))
	}
	if f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid)); err == nil {
		p.maps = parseMaps(f)
		f.Close()
	}
	for _, m := range p.maps {
		if strings.HasSuffix(m.Path, "/libjvm.so") {
			p.isJava = true
		}
	}
	return p
}

// loadPerfMap reads /tmp/perf-NSPID.map through the process's root.
func (p *process) loadPerfMap(nspid int) error {
	f, err := os.Open(fmt.Sprintf("/proc/%d/root/tmp/perf-%d.map", p.pid, nspid))
	if err != nil {
		return err
	}
	defer f.Close()
	p.jit = parsePerfMap(f)
	return nil
}

func (p *process) close() {
	for _, e := range p.files {
		if e != nil {
			e.close()
		}
	}
}

// frame is one resolved user address.
type frame struct {
	name   string
	module string
	kind   frameKind
	code   func() []byte // the function's body, read on demand
	off    uint64        // the address's offset in the function
}

type frameKind int

const (
	userFrame frameKind = iota
	kernelFrame
	jitFrame
	unknownJIT // in an anonymous executable mapping of a JVM, not in its perf map
	unknownFrame
)

func (p *process) resolve(addr uint64) frame {
	for _, m := range p.maps {
		if addr < m.Start || addr >= m.End {
			continue
		}
		if m.Path == "" || strings.HasPrefix(m.Path, "[") {
			if s, ok := p.jit.find(addr); ok {
				return frame{name: s.Name, kind: jitFrame}
			}
			if p.isJava {
				return frame{name: "[unknown Java]", kind: unknownJIT}
			}
			return frame{name: fmt.Sprintf("[%s]", strings.Trim(m.Path, "[]")), kind: unknownFrame}
		}
		e, seen := p.files[m.Path]
		if !seen {
			e, _ = openELF(fmt.Sprintf("/proc/%d/root", p.pid), m.Path)
			p.files[m.Path] = e
		}
		mod := filepath.Base(m.Path)
		if e == nil {
			return frame{name: "[" + mod + "]", module: m.Path, kind: unknownFrame}
		}
		va, ok := e.vaddr(addr - m.Start + m.Off)
		if !ok {
			return frame{name: "[" + mod + "]", module: m.Path, kind: unknownFrame}
		}
		s, ok := e.syms.find(va)
		if !ok {
			return frame{name: "[" + mod + "]", module: m.Path, kind: unknownFrame}
		}
		return frame{name: s.Name, module: m.Path, kind: userFrame, code: func() []byte { return e.code(s, 4096) }, off: va - s.Start}
	}
	if s, ok := p.jit.find(addr); ok {
		return frame{name: s.Name, kind: jitFrame}
	}
	return frame{name: "[unknown]", kind: unknownFrame}
}
