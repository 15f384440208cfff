package native

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Parsers of what a process or the kernel shows: garbage gives fewer
// symbols, never a panic.
func FuzzParsers(f *testing.F) {
	f.Add([]byte("ffffffff81e0b6a0 T native_queued_spin_lock_slowpath\n7f1c2d0c5a20 1e0 Ljava/lang/String;::hashCode\n7f3c48a28000-7f3c48bbd000 r-xp 00028000 08:01 1311 /usr/lib/libc.so.6\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k := parseKallsyms(bytes.NewReader(b))
		m := parsePerfMap(bytes.NewReader(b))
		parseMaps(bytes.NewReader(b))
		for _, a := range []uint64{0, 1 << 40, ^uint64(0)} {
			k.find(a)
			m.find(a)
		}
	})
}

// A C program's functions are named from its symbol table, and a
// function's code is read from the file.
func TestOpenELF(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "crc.c"), filepath.Join(dir, "crc")
	if err := os.WriteFile(src, []byte(programs["crc.c"]), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	e, err := openELF("", bin)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	var fn sym
	for _, s := range e.syms {
		if s.Name == "crc32_buf" {
			fn = s
		}
	}
	if fn.Size == 0 {
		t.Fatalf("crc32_buf not among %d symbols", len(e.syms))
	}
	if got, ok := e.syms.find(fn.Start + fn.Size/2); !ok || got.Name != fn.Name {
		t.Errorf("the middle of %s resolves to %q", fn.Name, got.Name)
	}
	if c := e.code(fn, 4096); len(c) != int(fn.Size) || hasCRCInstruction(c, "amd64") {
		t.Errorf("code: %d bytes of %d", len(c), fn.Size)
	}
}
