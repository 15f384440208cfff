package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

func snap(tick int64, t0 time.Time) *sample.Snapshot {
	return &sample.Snapshot{Time: t0.Add(time.Duration(tick) * time.Second), Tick: tick,
		Stat: &sample.Stat{All: sample.CPUTimes{CPU: -1, User: uint64(100 * tick), Idle: uint64(100 * tick)}}}
}

func TestWriterLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r1")
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	w, err := Create(dir, Manifest{Host: "h", Start: t0, Argv: []string{"tuneloop", "record"},
		Facts: &sysinfo.Facts{SchemaVersion: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Manifest.Incomplete() || f.Manifest.ID != "r1" {
		t.Fatalf("fresh manifest: %+v", f.Manifest)
	}
	for i := int64(1); i <= 7; i++ {
		if err := w.Append(snap(i, t0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.SaveRaw(NUMAMapsFile, []byte("7f00 default N0=1\n")); err != nil {
		t.Fatal(err)
	}
	fs := []finding.Finding{{ID: "cpu.saturated", Status: finding.Fail}}
	if err := w.Finish(Complete, t0.Add(7*time.Second), map[string]int{"x": 1}, fs); err != nil {
		t.Fatal(err)
	}
	f, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Incomplete() || f.Manifest.Ticks != 7 || f.Manifest.Status != Complete {
		t.Fatalf("final manifest: %+v", f.Manifest)
	}
	if b, err := f.Raw(NUMAMapsFile); err != nil || string(b) != "7f00 default N0=1\n" {
		t.Errorf("raw: %q %v", b, err)
	}
	for _, n := range []string{"raw/threaddump-10.txt", "raw/threaddump-2.txt", "raw/threaddump-1.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	if got, err := f.RawFiles(ThreadDumpPrefix); err != nil || strings.Join(got, " ") != "raw/threaddump-1.txt raw/threaddump-2.txt raw/threaddump-10.txt" {
		t.Errorf("raw files: %v %v", got, err)
	}
	if b, err := f.Raw("raw/nothing"); err != nil || b != nil {
		t.Errorf("missing raw: %q %v", b, err)
	}
	got, err := f.Findings()
	if err != nil || len(got) != 1 {
		t.Fatalf("findings %v %v", got, err)
	}
	r, err := f.Samples()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	if err := sample.Replay(r, func(*sample.Rates, *sample.Snapshot) error { n++; return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Fatalf("replayed %d intervals, want 6", n)
	}
	if _, err := Create(dir, Manifest{}); err == nil {
		t.Fatal("Create over an existing run folder succeeded")
	}
	// No temp files left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

// A recorder killed mid-way leaves "recording" and maybe a torn last line.
func TestKilledFolderReadable(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	w, err := Create(dir, Manifest{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		if err := w.Append(snap(i, t0)); err != nil {
			t.Fatal(err)
		}
	}
	// Killed while writing the fourth line: part of it reached the file,
	// the gzip trailer never did.
	w.gz.Write([]byte(`{"t":"2026-11-22T00:00:04Z","tick":4,"stat":{"al`))
	w.gz.Flush()
	w.Abort()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Manifest.Incomplete() {
		t.Fatal("killed run not marked incomplete")
	}
	if fs, err := f.Findings(); err != nil || fs != nil {
		t.Fatalf("findings of a killed run: %v %v", fs, err)
	}
	r, _ := f.Samples()
	defer r.Close()
	n, bad := 0, 0
	if err := sample.Replay(r, func(*sample.Rates, *sample.Snapshot) error { n++; return nil }, func(error) { bad++ }); err != nil {
		t.Fatal(err)
	}
	if n != 2 || bad != 1 {
		t.Fatalf("intervals %d bad %d, want 2 and 1", n, bad)
	}
}

// A kill can cut the compressed file anywhere, even inside a block: every
// tick flushed before the cut replays, the rest is gone, nothing fails.
func TestSamplesCutAnywhere(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	w, err := Create(dir, Manifest{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64 // file size after each tick
	for i := int64(1); i <= 6; i++ {
		if err := w.Append(snap(i, t0)); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(filepath.Join(dir, SamplesFile))
		sizes = append(sizes, st.Size())
	}
	w.Abort()
	whole, _ := os.ReadFile(filepath.Join(dir, SamplesFile))
	for cut := int64(0); cut <= int64(len(whole)); cut++ {
		os.WriteFile(filepath.Join(dir, SamplesFile), whole[:cut], 0o644)
		f, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.Samples()
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		ticks := 0
		err = sample.Replay(r, func(*sample.Rates, *sample.Snapshot) error { ticks++; return nil }, func(error) {})
		r.Close()
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		flushed := 0
		for _, sz := range sizes {
			if sz <= cut {
				flushed++
			}
		}
		if want := max(flushed-1, 0); ticks < want {
			t.Fatalf("cut at %d of %d: %d intervals, want at least %d", cut, len(whole), ticks, want)
		}
	}
}

// Runs recorded before the samples were compressed still read.
func TestPlainSamplesOfOlderRuns(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	w, err := Create(dir, Manifest{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	os.Remove(filepath.Join(dir, SamplesFile))
	fh, _ := os.Create(filepath.Join(dir, SamplesFilePlain))
	enc := sample.NewEncoder(fh)
	for i := int64(1); i <= 4; i++ {
		enc.Encode(snap(i, t0))
	}
	fh.Close()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Samples()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	if err := sample.Replay(r, func(*sample.Rates, *sample.Snapshot) error { n++; return nil }, nil); err != nil || n != 3 {
		t.Fatalf("intervals %d, err %v", n, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a run folder") {
		t.Fatalf("empty dir: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"schema":"other/v9"}`), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Fatalf("other schema: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"schema":`), 0o644)
	if _, err := Open(dir); err == nil {
		t.Fatal("garbage manifest accepted")
	}
}
