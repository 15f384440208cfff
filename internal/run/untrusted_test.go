package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileFolder is a complete run folder a hostile or careless hand then
// edits: each case replaces one file.
func hostileFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	w, err := Create(dir, Manifest{Host: "h", Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(snap(0, time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(Complete, time.Now(), nil, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// within fails the test when f does not return within d (a FIFO that blocks).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still reading after %v", d)
	}
}

func TestRunFolderReadsAsUntrusted(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("N0 secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("numa_maps link out of the folder", func(t *testing.T) {
		dir := hostileFolder(t)
		os.Symlink(secret, filepath.Join(dir, NUMAMapsFile))
		f, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Raw(NUMAMapsFile)
		if !errors.Is(err, ErrNotRegular) || b != nil {
			t.Fatalf("Raw = %q, %v; want ErrNotRegular", b, err)
		}
	})
	t.Run("raw folder is a link", func(t *testing.T) {
		dir := hostileFolder(t)
		other := t.TempDir()
		os.WriteFile(filepath.Join(other, "threaddump-1.txt"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(other, "numa_maps.txt"), []byte("x"), 0o644)
		os.RemoveAll(filepath.Join(dir, "raw"))
		os.Symlink(other, filepath.Join(dir, "raw"))
		f := &Folder{Dir: dir}
		if names, err := f.RawFiles(ThreadDumpPrefix); !errors.Is(err, ErrNotRegular) || len(names) > 0 {
			t.Errorf("RawFiles = %v, %v", names, err)
		}
		if _, err := f.Raw(NUMAMapsFile); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Raw through a linked raw/: %v", err)
		}
		if _, err := f.Samples(); err == nil {
			t.Error("samples read through a linked raw/")
		}
	})
	t.Run("manifest is a link", func(t *testing.T) {
		dir := hostileFolder(t)
		real := filepath.Join(t.TempDir(), "m.json")
		b, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
		os.WriteFile(real, b, 0o644)
		os.Remove(filepath.Join(dir, ManifestFile))
		os.Symlink(real, filepath.Join(dir, ManifestFile))
		if _, err := Open(dir); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open = %v", err)
		}
		if IsRunDir(dir) {
			t.Error("IsRunDir follows the link")
		}
	})
	t.Run("FIFOs do not block", func(t *testing.T) {
		dir := hostileFolder(t)
		for _, name := range []string{FindingsFile, NUMAMapsFile, SamplesFile} {
			os.Remove(filepath.Join(dir, name))
			if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
				t.Skip(err)
			}
		}
		f, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		within(t, 2*time.Second, func() {
			if _, err := f.Findings(); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Findings: %v", err)
			}
			if _, err := f.Raw(NUMAMapsFile); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Raw: %v", err)
			}
			if _, err := f.Samples(); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Samples: %v", err)
			}
		})
		os.Remove(filepath.Join(dir, ManifestFile))
		syscall.Mkfifo(filepath.Join(dir, ManifestFile), 0o644)
		within(t, 2*time.Second, func() {
			if _, err := Open(dir); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Open: %v", err)
			}
		})
	})
	t.Run("oversized file is refused with its cap", func(t *testing.T) {
		dir := hostileFolder(t)
		p := filepath.Join(dir, FindingsFile)
		fh, _ := os.Create(p)
		fh.Truncate(MaxFindings + 1) // sparse: no disk used
		fh.Close()
		f, _ := Open(dir)
		_, err := f.Findings()
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over 256 MB") {
			t.Errorf("Findings: %v", err)
		}
	})
	t.Run("dev zero", func(t *testing.T) {
		dir := hostileFolder(t)
		os.Symlink("/dev/zero", filepath.Join(dir, NUMAMapsFile))
		f, _ := Open(dir)
		within(t, 2*time.Second, func() {
			if _, err := f.Raw(NUMAMapsFile); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Raw: %v", err)
			}
		})
	})
}

func TestCappedReader(t *testing.T) {
	c := &cappedReader{r: strings.NewReader(strings.Repeat("x", 10)), left: 4, name: "s"}
	b := make([]byte, 100)
	n, err := c.Read(b)
	if n != 4 || err != nil {
		t.Fatalf("%d %v", n, err)
	}
	if _, err := c.Read(b); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("past the cap: %v", err)
	}
}
