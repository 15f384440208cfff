package verdict

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/runfolder"
)

// loadCancelled runs LoadContext on dir, cancels it after delay and fails
// the test unless it then returns within two seconds; it returns the error.
func loadCancelled(t *testing.T, dir string, delay time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		L   *Layers
		err error
	}
	done := make(chan result, 1)
	go func() {
		L, err := LoadContext(ctx, dir)
		done <- result{L, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("LoadContext ended before it was cancelled (%v): the input is not large enough to test with", r.err)
	case <-time.After(delay):
	}
	cancel()
	start := time.Now()
	select {
	case r := <-done:
		if r.L != nil {
			t.Error("a cancelled LoadContext returned layers")
		}
		t.Logf("ended %v after the cancel: %v", time.Since(start), r.err)
		return r.err
	case <-time.After(2 * time.Second):
		t.Fatal("LoadContext still reading 2 s after its context was cancelled")
	}
	return nil
}

// baseline is how long a plain Load of dir takes on this machine.
func baseline(t *testing.T, dir string) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := Load(dir); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

func TestLoadContextCancelledBeforeIsNoLayers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	L, err := LoadContext(ctx, "testdata/runs/gc-pressure")
	if L != nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "gc-pressure") {
		t.Fatalf("LoadContext = %v, %v; want no layers and context.Canceled naming the folder", L, err)
	}
}

// A run folder from anyone may hold a GC log of gigabytes: cancelling
// stops the parse inside it, and the error names it.
func TestLoadContextCancelStopsAHugeGCLog(t *testing.T) {
	dir := copyRun(t, "testdata/runs/gc-pressure")
	base := baseline(t, dir)
	// The real log, then a hole to 6 GiB (sparse: no disk used; read it is
	// one endless line of NULs, the tail of a log truncated under a live
	// JVM, which takes the parser many seconds).
	gc := filepath.Join(dir, "raw", "gc-0.log")
	if err := os.Truncate(gc, 6<<30); err != nil {
		t.Skip(err)
	}
	// Past the time everything before the GC logs takes.
	err := loadCancelled(t, dir, base+500*time.Millisecond)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "raw/gc-0.log") {
		t.Fatalf("err = %v; want context.Canceled naming raw/gc-0.log", err)
	}
}

// Samples that decompress to gigabytes (gzip members concatenated, each a
// few KB for 1 MiB of lines): cancelling stops the replay.
func TestLoadContextCancelStopsEndlessSamples(t *testing.T) {
	dir := copyRun(t, "testdata/runs/healthy")
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(bytes.Repeat([]byte("{}\n"), 1<<20/3))
	zw.Close()
	f, err := os.Create(filepath.Join(dir, runfolder.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	for range 4096 { // 4 GiB of lines
		if _, err := f.Write(member.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	err = loadCancelled(t, dir, 300*time.Millisecond)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), runfolder.SamplesFile) {
		t.Fatalf("err = %v; want context.Canceled naming %s", err, runfolder.SamplesFile)
	}
}

// Not cancelled, LoadContext reads what Load reads.
func TestLoadContextReadsTheSame(t *testing.T) {
	a, err := Load("testdata/runs/gc-pressure")
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadContext(context.Background(), "testdata/runs/gc-pressure")
	if err != nil {
		t.Fatal(err)
	}
	if a.GC == nil || b.GC == nil || a.GC.Summary.Pauses != b.GC.Summary.Pauses || len(a.GCPauses) != len(b.GCPauses) ||
		len(a.Series.Ticks) != len(b.Series.Ticks) || len(a.Dumps) != len(b.Dumps) || len(b.Problems) != 0 {
		t.Errorf("LoadContext read differently from Load: GC %v/%v, ticks %d/%d, dumps %d/%d, problems %v",
			a.GC != nil, b.GC != nil, len(a.Series.Ticks), len(b.Series.Ticks), len(a.Dumps), len(b.Dumps), b.Problems)
	}
}
