package compare

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// demoPage is a real run page, written where the test says.
func demoPage(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile("testdata/demo-before.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// loadWithin is Load that fails the test when it has not returned within
// a second (a FIFO read blocks forever).
func loadWithin(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		t.Fatalf("Load(%s) still running after 1 s", path)
	}
	return nil
}

// A run folder's report.json is read as untrusted: a link out of the
// folder is not followed, a FIFO does not block, a huge file is not read.
func TestLoadRunFolderUntrusted(t *testing.T) {
	// A valid page outside the folder: were the link followed, Load would
	// return it.
	outside := filepath.Join(t.TempDir(), "secret-report.json")
	demoPage(t, outside)

	t.Run("report.json a link out of the folder", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(dir, "report.json")); err != nil {
			t.Fatal(err)
		}
		p, err := Load(dir)
		if p != nil || !errors.Is(err, runfolder.ErrNotRegular) {
			t.Fatalf("Load returned a page: %t, %v; want refused (ErrNotRegular)", p != nil, err)
		}
		want := filepath.Join(dir, "report.json")
		if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "symbolic link") || strings.Contains(msg, outside) {
			t.Errorf("message %q: want it to name %s and say it is a link, not the link's target", msg, want)
		}
		if zh := finding.Localize(err, finding.ZH); !strings.Contains(zh, "未读取") || !strings.Contains(zh, want) {
			t.Errorf("zh message %q", zh)
		}
	})

	t.Run("the folder itself a link (the user's own path)", func(t *testing.T) {
		// report.json is at the top; a link in place of the folder itself
		// is the user's own path and is followed (runs/latest -> ...).
		real := t.TempDir()
		demoPage(t, filepath.Join(real, "report.json"))
		link := filepath.Join(t.TempDir(), "latest")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if p, err := Load(link); err != nil || p.Schema == "" {
			t.Fatalf("Load of a linked folder = %v, %v", p, err)
		}
	})

	t.Run("report.json a FIFO", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "report.json")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		// A writer holds it open and never writes: a read would wait forever.
		w, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := loadWithin(t, dir); !errors.Is(err, runfolder.ErrNotRegular) || !strings.Contains(err.Error(), fifo) {
			t.Fatalf("Load = %v; want refused, naming %s", err, fifo)
		}
	})

	t.Run("report.json a character device", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink("/dev/zero", filepath.Join(dir, "report.json")); err != nil {
			t.Fatal(err)
		}
		if err := loadWithin(t, dir); !errors.Is(err, runfolder.ErrNotRegular) {
			t.Fatalf("Load = %v; want refused", err)
		}
	})

	t.Run("report.json over the cap", func(t *testing.T) {
		dir := t.TempDir()
		big := filepath.Join(dir, "report.json")
		demoPage(t, big)
		// Sparse: no disk used, refused by its size before a byte is read.
		if err := os.Truncate(big, maxPageLen+1); err != nil {
			t.Fatal(err)
		}
		if err := loadWithin(t, dir); !errors.Is(err, runfolder.ErrTooLarge) || !strings.Contains(err.Error(), big) {
			t.Fatalf("Load = %v; want ErrTooLarge naming %s", err, big)
		}
	})

	t.Run("a file named on the command line", func(t *testing.T) {
		// The user's own path may be a link to a page; a FIFO named
		// directly is still refused without blocking.
		link := filepath.Join(t.TempDir(), "before.json")
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		if p, err := Load(link); err != nil || p.Schema == "" {
			t.Fatalf("Load of a named link = %v, %v", p, err)
		}
		fifo := filepath.Join(t.TempDir(), "page.json")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		w, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := loadWithin(t, fifo); !errors.Is(err, runfolder.ErrNotRegular) {
			t.Fatalf("Load of a named FIFO = %v; want refused", err)
		}
	})

	t.Run("a folder without report.json", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is not a run folder") {
			t.Fatalf("Load = %v; want 'is not a run folder'", err)
		}
	})
}
