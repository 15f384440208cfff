package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/launch"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/testchild"
)

// TestTwoRunsOneJVMSameSecond: two runs switch GC logging and JFR on in
// one JVM in the same second (same pid, same start time). Each gets its
// own GC log and its own recording, and one run's end does not take the
// other's (they shared /tmp/tuneloop-PID-SECOND.jfr and name=tuneloop).
func TestTwoRunsOneJVMSameSecond(t *testing.T) {
	start, url, _ := tinyService(t)
	svc, err := launch.Start(start, filepath.Join(t.TempDir(), "svc.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	if err := launch.WaitReady(context.Background(), url, 60*time.Second, svc); err != nil {
		t.Fatal(err)
	}
	pid := svc.WaitJVM(context.Background(), hostfs.Live(), 10*time.Second)
	if pid == 0 {
		t.Fatal("no JVM")
	}
	ctx := context.Background()
	at := time.Now()
	a, b := &jvmSide{pid: pid}, &jvmSide{pid: pid}
	for _, j := range []*jvmSide{a, b} {
		if err := j.enableGCLog(ctx, at); err != nil {
			t.Fatal(err)
		}
		if err := j.startJFR(ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	if a.jfr == b.jfr || a.recording() == b.recording() || a.gc.File == b.gc.File {
		t.Fatalf("shared names: %s %s, %s %s, %s %s", a.jfr, b.jfr, a.recording(), b.recording(), a.gc.File, b.gc.File)
	}
	// A GC to log.
	if vm, err := attachTo(ctx, pid); err != nil {
		t.Fatal(err)
	} else if _, err := vm.Execute(ctx, "GC.run"); err != nil {
		t.Fatal(err)
	}
	// The first run abandons (a refused run), the second collects.
	a.abandon(ctx)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "raw"), 0o755); err != nil {
		t.Fatal(err)
	}
	var warns []error
	gcs, _ := b.collect(ctx, dir, func(err error) { warns = append(warns, err) })
	if len(warns) > 0 {
		t.Fatalf("the second run lost its evidence: %v", warns)
	}
	if st, err := os.Stat(filepath.Join(dir, JFRFile)); err != nil || st.Size() == 0 {
		t.Errorf("the second run's JFR: %v", err)
	}
	if len(gcs) == 0 {
		t.Error("the second run's GC log was not collected")
	}
	for _, l := range leftovers(pid) { // the JVM and its attach socket run on
		if strings.Contains(l, "/tuneloop-") {
			t.Errorf("left behind: %s", l)
		}
	}
	if on, err := ourSwitches(pid); err != nil || len(on) > 0 {
		t.Errorf("still on: %v %v", on, err)
	}
}

// TestTwoRecordsSameSecond: two `record` without --out started together
// get two folders (they shared runs/<second>-<host>), both complete and
// both in the catalog.
func TestTwoRecordsSameSecond(t *testing.T) {
	c := testchild.Start(t, "busy=1,idle=1", 2)
	t.Chdir(t.TempDir())
	db := filepath.Join(t.TempDir(), "runs.db")
	var wg sync.WaitGroup
	dirs := make([]string, 2)
	errs := make([]error, 2)
	for i := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Record(context.Background(), RecordOptions{Duration: 800 * time.Millisecond, Interval: 200 * time.Millisecond,
				PID: c.PID, Catalog: db}, RecordHooks{})
			errs[i] = err
			if err == nil {
				dirs[i] = res.Folder.Dir
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if dirs[0] == dirs[1] {
		t.Fatalf("both records wrote %s", dirs[0])
	}
	for _, d := range dirs {
		f, err := runfolder.Open(d)
		if err != nil || f.Manifest.Status != runfolder.Complete {
			t.Errorf("%s: %v", d, err)
		}
	}
	cat, err := catalog.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if es, err := cat.List(context.Background()); err != nil || len(es) != 2 {
		t.Errorf("catalog: %v %d entries, want 2", err, len(es))
	}
}

const recordChildEnv = "TUNELOOP_TEST_RECORD_CHILD"

type recordChild struct {
	PID          int
	Out, Catalog string
}

func init() {
	v := os.Getenv(recordChildEnv)
	if v == "" {
		return
	}
	var c recordChild
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		os.Exit(2)
	}
	_, err := Record(context.Background(), RecordOptions{Duration: 60 * time.Second, Interval: 200 * time.Millisecond,
		PID: c.PID, Out: c.Out, Catalog: c.Catalog}, RecordHooks{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestKilledRecordIsCatalogued: a record killed with SIGKILL is in the
// catalog, as recording (shown incomplete by `runs`); it was missing until
// `runs add`.
func TestKilledRecordIsCatalogued(t *testing.T) {
	c := testchild.Start(t, "idle=1", 1)
	dir := filepath.Join(t.TempDir(), "run")
	db := filepath.Join(t.TempDir(), "runs.db")
	v, _ := json.Marshal(recordChild{PID: c.PID, Out: dir, Catalog: db})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), recordChildEnv+"="+string(v))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Killed once it ticks.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st, err := os.Stat(filepath.Join(dir, runfolder.SamplesFile)); err == nil && st.Size() > 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the record never started")
		}
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	cat, err := catalog.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	es, err := cat.List(context.Background())
	if err != nil || len(es) != 1 || es[0].Dir != dir || es[0].Status != runfolder.Recording {
		t.Fatalf("catalog after SIGKILL: %v %+v, want the run as recording (incomplete)", err, es)
	}
	if !strings.HasPrefix(es[0].Command, "") || es[0].PID != c.PID {
		t.Errorf("entry %+v", es[0])
	}
}
