package runfolder

import (
	"errors"
	"io"
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

// diskFull mounts a 2 MB tmpfs (root only) and returns a folder in it and
// a function that fills what is left of it.
func diskFull(t *testing.T) (dir string, fill func()) {
	t.Helper()
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	return filepath.Join(mnt, "run"), func() {
		f, err := os.Create(filepath.Join(mnt, "filler"))
		if err != nil {
			return
		}
		defer f.Close()
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Write(buf); err != nil {
				break
			}
		}
		for { // the last partial block
			if _, err := f.Write(buf[:512]); err != nil {
				break
			}
		}
	}
}

// TestFinishOnFullDisk: the disk fills before the end: nothing written is
// lost, and the manifest says why the folder is not complete instead of
// still saying "recording" (which reads as a killed recorder).
func TestFinishOnFullDisk(t *testing.T) {
	dir, fill := diskFull(t)
	t0 := time.Now()
	w, err := Create(dir, Manifest{Host: "h", Start: t0, Facts: nil})
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(5) {
		if err := w.Append(snap(i, t0)); err != nil {
			t.Fatal(err)
		}
	}
	fill()
	big := make([]map[string]string, 20000)
	for i := range big {
		big[i] = map[string]string{"k": strings.Repeat("v", 40)}
	}
	err = w.Finish(Complete, t0.Add(5*time.Second), big, nil)
	var we *WriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) || !we.Marked {
		t.Fatalf("Finish on a full disk: %v (%+v)", err, we)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Manifest
	if m.Status != Interrupted || !strings.Contains(m.Reason, "no space left on device") || m.Ticks != 5 {
		t.Fatalf("manifest %s %q ticks %d", m.Status, m.Reason, m.Ticks)
	}
	rc, err := f.Samples()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b := make([]byte, 1<<20)
	n, _ := io.ReadFull(rc, b)
	if lines := strings.Count(string(b[:n]), "\n"); lines != 5 {
		t.Errorf("%d sample lines kept, want 5", lines)
	}
	if ents, _ := os.ReadDir(filepath.Dir(filepath.Join(dir, SeriesFile))); len(ents) != 0 {
		t.Errorf("a partial file left behind: %v", ents)
	}
}
