package hostfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadsUnderRootsAndCitesHostPaths(t *testing.T) {
	dir := t.TempDir()
	h := Under(dir)
	must(t, os.MkdirAll(h.ProcPath("sys", "vm"), 0o755))
	must(t, os.WriteFile(h.ProcPath("sys", "vm", "swappiness"), []byte("60\n"), 0o644))
	must(t, os.WriteFile(h.ProcPath("garbage"), []byte("sixty\n"), 0o644))

	v, err := h.ReadInt(h.ProcPath("sys", "vm", "swappiness"))
	if err != nil || v != 60 {
		t.Fatalf("ReadInt = %d, %v", v, err)
	}
	if got := h.Display(h.ProcPath("sys", "vm", "swappiness")); got != "/proc/sys/vm/swappiness" {
		t.Errorf("Display = %q", got)
	}
	_, err = h.ReadInt(h.ProcPath("garbage"))
	if err == nil || !strings.Contains(err.Error(), "/proc/garbage: not an integer") {
		t.Errorf("garbage: %v", err)
	}
	_, err = h.ReadString(h.SysPath("kernel", "mm", "transparent_hugepage", "enabled"))
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "/sys/kernel/mm/transparent_hugepage/enabled: not present" {
		t.Errorf("missing file: %v", err)
	}
	if _, err := h.ReadFile(h.Proc); err == nil {
		t.Error("reading a directory succeeded")
	}
}

func TestReadFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big")
	must(t, os.WriteFile(p, make([]byte, MaxFileSize+10), 0o644))
	if _, err := Live().ReadFile(p); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}
}

func TestLiveProcReads(t *testing.T) {
	h := Live()
	if !h.IsLive() {
		t.Fatal("Live() not live")
	}
	b, err := h.ReadFile(h.ProcPath("self", "status"))
	if err != nil || !strings.Contains(string(b), "Name:") {
		t.Fatalf("/proc/self/status: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
