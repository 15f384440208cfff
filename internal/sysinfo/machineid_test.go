package sysinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// A machine ID is kept as a hash for tuneloop: stable for one host,
// different between hosts, never the ID; what is not an ID is refused
// without being quoted.
func TestMachineID(t *testing.T) {
	const id = "b08dfa6083e7567a1921a715000001fb"
	a, err := machineID(id + "\n")
	if err != nil || len(a) != 32 || strings.Contains(a, id[:8]) {
		t.Fatalf("machineID(%q) = %q, %v", id, a, err)
	}
	if again, _ := machineID(strings.ToUpper(id)); again != a {
		t.Errorf("the same ID in capitals hashed otherwise: %q against %q", again, a)
	}
	if other, _ := machineID("c08dfa6083e7567a1921a715000001fb"); other == a {
		t.Error("two IDs gave one hash")
	}
	for _, bad := range []string{"", "uninitialized", id[:30], id + "00", "00000000000000000000000000000000", "g08dfa6083e7567a1921a715000001fb"} {
		if v, err := machineID(bad); err == nil || strings.Contains(err.Error(), "b08dfa") {
			t.Errorf("machineID(%q) = %q, %v", bad, v, err)
		}
	}
}

// Collect reads a tree's etc/machine-id, and says so when there is none
// (the captured fixtures have none).
func TestCollectMachineID(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"proc", "sys", "etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h := hostfs.FS{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Etc: filepath.Join(root, "etc")}
	if f := Collect(h, Options{}); f.MachineID.OK || f.MachineID.Err == "" {
		t.Errorf("no etc/machine-id: %+v", f.MachineID)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "machine-id"), []byte("b08dfa6083e7567a1921a715000001fb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := machineID("b08dfa6083e7567a1921a715000001fb")
	if f := Collect(h, Options{}); !f.MachineID.OK || f.MachineID.Value != want {
		t.Errorf("etc/machine-id: %+v, want %q", f.MachineID, want)
	}
}

// machineID never fails open: whatever it is given, it answers a 32-digit
// hash or an error, and never the input.
func FuzzMachineID(f *testing.F) {
	for _, s := range []string{"b08dfa6083e7567a1921a715000001fb\n", "", "uninitialized\n", "0000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := machineID(s)
		if err == nil && (len(v) != 32 || strings.TrimSpace(s) == v) {
			t.Errorf("machineID(%q) = %q", s, v)
		}
	})
}
