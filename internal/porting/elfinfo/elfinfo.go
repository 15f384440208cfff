// Package elfinfo reads what a porting scan needs from an ELF file: class,
// byte order, type, machine, the libraries it needs and the highest glibc
// symbol version it requires. It trusts the header, never the file name.
//
// The fields read, as `readelf -h -V` shows them for an aarch64 shared object:
//
//	Magic:   7f 45 4c 46 02 01 01 00 00 00 00 00 00 00 00 00
//	Class:                             ELF64            (e_ident[4]: 1=32, 2=64)
//	Data:                              2's complement, little endian (e_ident[5])
//	Type:                              DYN (Shared object file)   (e_type, offset 16)
//	Machine:                           AArch64          (e_machine, offset 18: 62=x86-64, 183=AArch64)
//	Version needs section '.gnu.version_r' contains 1 entry:
//	  000000: Version: 1  File: libc.so.6  Cnt: 2
//	  0x0010:   Name: GLIBC_2.17  Flags: none  Version: 3
//	  0x0020:   Name: GLIBC_2.34  Flags: none  Version: 2
package elfinfo

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Magic is the first four bytes of every ELF file.
var Magic = []byte{0x7f, 'E', 'L', 'F'}

// IsELF reports whether b starts with the ELF magic.
func IsELF(b []byte) bool { return len(b) >= 4 && bytes.Equal(b[:4], Magic) }

// Info is what the scan keeps of one ELF file.
type Info struct {
	Class   elf.Class   // ELFCLASS32 or ELFCLASS64
	Data    elf.Data    // byte order
	Type    elf.Type    // ET_DYN for shared objects and PIEs
	Machine elf.Machine // EM_X86_64, EM_AARCH64, ...
	OSABI   elf.OSABI   // ELFOSABI_NONE or ELFOSABI_LINUX for Linux; FreeBSD, Solaris... set theirs
	// Needed are the DT_NEEDED libraries (libc.so.6, libstdc++.so.6...).
	Needed []string
	// Versions are the symbol versions needed, "libc.so.6:GLIBC_2.17".
	Versions []string
	// MaxGlibc is the highest GLIBC_x.y needed ("" when none).
	MaxGlibc string
	// Musl is true when the object links against musl libc.
	Musl bool
	// Interp is the program interpreter of an executable.
	Interp string
	// Partial says why the dynamic part could not be read (header still valid).
	Partial string
}

// Arch is a short, stable name of the machine and class: "x86_64", "aarch64",
// "x86", "arm", "ppc64le", "s390x", "riscv64", "loongarch64" or "machine-N".
func (i *Info) Arch() string { return ArchName(i.Machine, i.Class, i.Data) }

// String is how evidence shows the header: "ELF64 LSB DYN aarch64 (EM_AARCH64)".
func (i *Info) String() string {
	bits := "ELF32"
	if i.Class == elf.ELFCLASS64 {
		bits = "ELF64"
	}
	order := "LSB"
	if i.Data == elf.ELFDATA2MSB {
		order = "MSB"
	}
	t := strings.TrimPrefix(i.Type.String(), "ET_")
	return fmt.Sprintf("%s %s %s %s (%s)", bits, order, t, i.Arch(), i.Machine)
}

// ArchName names a machine the way multi-arch jars do.
func ArchName(m elf.Machine, c elf.Class, d elf.Data) string {
	switch m {
	case elf.EM_X86_64:
		if c == elf.ELFCLASS32 {
			return "x32"
		}
		return "x86_64"
	case elf.EM_386:
		return "x86"
	case elf.EM_AARCH64:
		if c == elf.ELFCLASS32 {
			return "aarch64_ilp32"
		}
		if d == elf.ELFDATA2MSB {
			return "aarch64_be"
		}
		return "aarch64"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_PPC64:
		if d == elf.ELFDATA2LSB {
			return "ppc64le"
		}
		return "ppc64"
	case elf.EM_PPC:
		return "ppc"
	case elf.EM_S390:
		return "s390x"
	case elf.EM_RISCV:
		return "riscv64"
	case elf.EM_LOONGARCH:
		return "loongarch64"
	case elf.EM_MIPS:
		return "mips"
	case elf.EM_SPARCV9:
		return "sparcv9"
	}
	return "machine-" + strconv.Itoa(int(m))
}

// ErrNotELF is returned for input without the ELF magic.
var ErrNotELF = errors.New("not an ELF file")

// Read parses the ELF file in r (size bytes). A header that parses but whose
// dynamic sections do not is returned with Partial set; a header that does
// not parse is an error. Read never panics on hostile input.
func Read(r io.ReaderAt, size int64) (info *Info, err error) {
	defer func() {
		if p := recover(); p != nil { // debug/elf is fuzzed, but a scan must not die on one file
			info, err = nil, fmt.Errorf("corrupt ELF file: %v", p)
		}
	}()
	var id [elf.EI_NIDENT]byte
	if size < int64(len(id)) {
		return nil, ErrNotELF
	}
	if _, err := r.ReadAt(id[:], 0); err != nil {
		return nil, fmt.Errorf("reading the ELF header: %w", err)
	}
	if !IsELF(id[:]) {
		return nil, ErrNotELF
	}
	f, err := elf.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("corrupt ELF file: %w", err)
	}
	defer f.Close()
	info = &Info{Class: f.Class, Data: f.Data, Type: f.Type, Machine: f.Machine, OSABI: f.OSABI}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP && p.Filesz > 0 && p.Filesz < 4096 {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err == nil {
				info.Interp = strings.TrimRight(string(b), "\x00")
			}
		}
	}
	if f.Section(".dynamic") == nil && f.SectionByType(elf.SHT_GNU_VERNEED) == nil {
		return info, nil // a static executable or a relocatable object
	}
	var partial []string
	if libs, err := f.ImportedLibraries(); err == nil {
		info.Needed = libs
	} else {
		partial = append(partial, "DT_NEEDED: "+err.Error())
	}
	if needs, err := versionNeeds(f); err == nil {
		for _, n := range needs {
			info.Versions = append(info.Versions, n)
			_, dep, _ := strings.Cut(n, ":")
			if v, ok := strings.CutPrefix(dep, "GLIBC_"); ok && isVersion(v) {
				if info.MaxGlibc == "" || CompareDotted(v, info.MaxGlibc) > 0 {
					info.MaxGlibc = v
				}
			}
		}
	} else {
		partial = append(partial, ".gnu.version_r: "+err.Error())
	}
	for _, l := range info.Needed {
		if strings.HasPrefix(l, "libc.musl-") || strings.HasPrefix(l, "ld-musl-") {
			info.Musl = true
		}
	}
	if strings.Contains(info.Interp, "ld-musl-") {
		info.Musl = true
	}
	info.Partial = strings.Join(partial, "; ")
	return info, nil
}

// maxVersionEntries bounds the verneed walk; real libraries have a few dozen.
const maxVersionEntries = 4096

// versionNeeds reads SHT_GNU_VERNEED ("libc.so.6:GLIBC_2.17", ...). It does
// not use (*elf.File).DynamicVersionNeeds: on a crafted section that walk
// is quadratic (every vn_next step may rescan 65535 aux entries), which
// turns one hostile file into a hang. This walk stops after
// maxVersionEntries entries and only moves forward.
func versionNeeds(f *elf.File) ([]string, error) {
	vn := f.SectionByType(elf.SHT_GNU_VERNEED)
	if vn == nil {
		return nil, nil
	}
	if int(vn.Link) >= len(f.Sections) || vn.Link == 0 {
		return nil, errors.New("string table link out of range")
	}
	const maxSection = 16 << 20
	if vn.Size > maxSection || f.Sections[vn.Link].Size > maxSection {
		return nil, errors.New("section too large")
	}
	d, err := vn.Data()
	if err != nil {
		return nil, err
	}
	str, err := f.Sections[vn.Link].Data()
	if err != nil {
		return nil, err
	}
	order := f.ByteOrder
	var out []string
	for i, n := 0, 0; i+16 <= len(d) && n < maxVersionEntries; n++ {
		if v := order.Uint16(d[i:]); v != 1 {
			return out, fmt.Errorf("unexpected verneed version %d", v)
		}
		cnt := int(order.Uint16(d[i+2:]))
		file := cString(str, order.Uint32(d[i+4:]))
		aux := int64(order.Uint32(d[i+8:]))
		next := int64(order.Uint32(d[i+12:]))
		j := int64(i) + aux
		for c := 0; c < cnt && j+16 <= int64(len(d)) && len(out) < maxVersionEntries; c++ {
			out = append(out, file+":"+cString(str, order.Uint32(d[j+8:])))
			an := int64(order.Uint32(d[j+12:]))
			if an == 0 {
				break
			}
			j += an
		}
		if next == 0 || int64(i)+next > int64(len(d)) {
			break
		}
		i += int(next)
	}
	return out, nil
}

func cString(b []byte, off uint32) string {
	if int64(off) >= int64(len(b)) {
		return ""
	}
	s := b[off:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}

func isVersion(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// CompareDotted compares dotted numeric versions ("2.17" < "2.34"); parts
// that are not numbers compare as 0.
func CompareDotted(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
