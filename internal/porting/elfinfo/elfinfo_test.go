package elfinfo

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func fixture(t testing.TB, arch string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "elf", "libdemo-"+arch+".so"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// header64 is a bare ELF64 header with no sections or segments.
func header64(m elf.Machine, order binary.ByteOrder, data elf.Data) []byte {
	b := make([]byte, 64)
	copy(b, Magic)
	b[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	b[elf.EI_DATA] = byte(data)
	b[elf.EI_VERSION] = 1
	order.PutUint16(b[16:], uint16(elf.ET_DYN))
	order.PutUint16(b[18:], uint16(m))
	order.PutUint32(b[20:], 1)
	order.PutUint16(b[52:], 64) // e_ehsize
	return b
}

func TestReadFixtures(t *testing.T) {
	for _, tc := range []struct {
		arch    string
		machine elf.Machine
		str     string
	}{
		{"x86_64", elf.EM_X86_64, "ELF64 LSB DYN x86_64 (EM_X86_64)"},
		{"aarch64", elf.EM_AARCH64, "ELF64 LSB DYN aarch64 (EM_AARCH64)"},
	} {
		b := fixture(t, tc.arch)
		i, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", tc.arch, err)
		}
		if i.Machine != tc.machine || i.Class != elf.ELFCLASS64 || i.Type != elf.ET_DYN || i.Arch() != tc.arch || i.String() != tc.str {
			t.Errorf("%s: %+v %q", tc.arch, i, i.String())
		}
		if i.MaxGlibc != "2.25" || !slices.Contains(i.Versions, "libc.so.6:GLIBC_2.25") || !slices.Contains(i.Needed, "libc.so.6") {
			t.Errorf("%s: glibc %q versions %v needed %v", tc.arch, i.MaxGlibc, i.Versions, i.Needed)
		}
		if i.Musl || i.Partial != "" {
			t.Errorf("%s: musl=%v partial=%q", tc.arch, i.Musl, i.Partial)
		}
	}
}

func TestReadHeaderOnly(t *testing.T) {
	for _, tc := range []struct {
		h    []byte
		arch string
	}{
		{header64(elf.EM_RISCV, binary.LittleEndian, elf.ELFDATA2LSB), "riscv64"},
		{header64(elf.EM_PPC64, binary.LittleEndian, elf.ELFDATA2LSB), "ppc64le"},
		{header64(elf.EM_PPC64, binary.BigEndian, elf.ELFDATA2MSB), "ppc64"},
		{header64(elf.EM_AARCH64, binary.BigEndian, elf.ELFDATA2MSB), "aarch64_be"},
		{header64(elf.EM_LOONGARCH, binary.LittleEndian, elf.ELFDATA2LSB), "loongarch64"},
	} {
		i, err := Read(bytes.NewReader(tc.h), int64(len(tc.h)))
		if err != nil {
			t.Fatalf("%s: %v", tc.arch, err)
		}
		if i.Arch() != tc.arch {
			t.Errorf("got %s want %s", i.Arch(), tc.arch)
		}
	}
}

func TestReadBadInput(t *testing.T) {
	if _, err := Read(bytes.NewReader([]byte("PK\x03\x04 not elf at all")), 20); !errors.Is(err, ErrNotELF) {
		t.Errorf("zip: %v", err)
	}
	if _, err := Read(bytes.NewReader(nil), 0); !errors.Is(err, ErrNotELF) {
		t.Errorf("empty: %v", err)
	}
	b := fixture(t, "aarch64")
	for _, n := range []int{16, 63, 64, 200, len(b) / 2, len(b) - 1} {
		i, err := Read(bytes.NewReader(b[:n]), int64(n))
		if err == nil && i == nil {
			t.Errorf("truncated at %d: nil info without error", n)
		}
	}
	garbage := append(append([]byte{}, Magic...), bytes.Repeat([]byte{0xff}, 100)...)
	if _, err := Read(bytes.NewReader(garbage), int64(len(garbage))); err == nil {
		t.Error("garbage after the magic accepted")
	}
}

func TestCompareDotted(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"2.17", "2.34", -1}, {"2.34", "2.4", 1}, {"2.28", "2.28", 0}, {"2.3.4", "2.3", 1}, {"2", "2.0", 0}} {
		if got := CompareDotted(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareDotted(%s,%s)=%d want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(fixture(f, "x86_64"))
	f.Add(fixture(f, "aarch64"))
	f.Add(header64(elf.EM_AARCH64, binary.LittleEndian, elf.ELFDATA2LSB))
	f.Fuzz(func(t *testing.T, b []byte) {
		i, err := Read(bytes.NewReader(b), int64(len(b)))
		if err == nil && i == nil {
			t.Fatal("nil info without error")
		}
		if err == nil {
			_ = i.String()
		}
	})
}

func BenchmarkRead(b *testing.B) {
	data := fixture(b, "aarch64")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}
