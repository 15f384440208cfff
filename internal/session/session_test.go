package session

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/rules"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/sample"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
	"github.com/tuneloop/tuneloop/internal/testchild"
)

// The test binary doubles as the target process (see testchild).
func TestMain(m *testing.M) {
	testchild.Serve()
	os.Exit(m.Run())
}

// A record of a process with known threads: the folder is complete, names
// the target, holds its NUMA placement, is in the catalog; the live status
// heard every tick after the first.
func TestRecordTarget(t *testing.T) {
	c := testchild.Start(t, "busy=1,idle=3,name=rec-worker", 2)
	dir := filepath.Join(t.TempDir(), "run")
	db := filepath.Join(t.TempDir(), "runs.db")
	var started string
	var ticks atomic.Int32
	var sawThread atomic.Bool
	res, err := Record(context.Background(), RecordOptions{Duration: 1200 * time.Millisecond, Interval: 200 * time.Millisecond,
		PID: c.PID, Out: dir, Catalog: db, Argv: []string{"tuneloop", "record"}}, RecordHooks{
		OnStart: func(d string) { started = d },
		OnTick: func(r *sample.Rates, el time.Duration) {
			ticks.Add(1)
			if r.Threads != nil && len(r.Threads.Threads) > 0 && r.Threads.Threads[0].Name == "rec-worker" {
				sawThread.Store(true)
			}
		},
		Warn: func(err error) { t.Errorf("warning: %v", err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if started != dir || res.Folder.Dir != dir {
		t.Errorf("OnStart %q, folder %q, want %q", started, res.Folder.Dir, dir)
	}
	m := res.Folder.Manifest
	if m.Status != runfolder.Complete || m.Target == nil || m.Target.PID != c.PID || m.Target.How != "pid" ||
		m.Samplers["threads"] != "on" || m.Ticks < 3 || m.Cost == nil { // about 7 ticks; a busy machine delays some
		t.Errorf("manifest: status %s target %+v samplers %v ticks %d cost %+v", m.Status, m.Target, m.Samplers, m.Ticks, m.Cost)
	}
	if n := ticks.Load(); n < 2 || int64(n) != m.Ticks-1 {
		t.Errorf("OnTick heard %d times for %d ticks", n, m.Ticks)
	}
	if !sawThread.Load() {
		t.Error("the spinning thread was never the top thread of a tick")
	}
	for _, p := range []string{runfolder.SamplesFile, runfolder.SeriesFile, runfolder.FindingsFile, runfolder.NUMAMapsFile} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	if res.Layers == nil || res.Layers.Series == nil || res.Decision == nil {
		t.Fatal("no diagnosis")
	}
	cat, err := catalog.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	es, err := cat.List(context.Background())
	if err != nil || len(es) != 1 || es[0].Dir != dir || es[0].PID != c.PID || es[0].Status != runfolder.Complete {
		t.Errorf("catalog: %v %+v", err, es)
	}
}

// The recording cost is the recorder's own work, not the CPU time of the
// whole process: under `run` the same process drives the load. A goroutine
// spinning beside the recorder must not show in the figure.
func TestRecordCostIsTheRecorders(t *testing.T) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the "load generator": one core, busy
		defer close(done)
		for x := 0; ; x++ {
			if x%1024 == 0 {
				select {
				case <-stop:
					return
				default:
				}
			}
		}
	}()
	res, err := Record(context.Background(), RecordOptions{Duration: 1500 * time.Millisecond, Interval: 100 * time.Millisecond,
		Out: filepath.Join(t.TempDir(), "run"), NoCatalog: true, Disable: []string{"tcp"}}, RecordHooks{})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	c := res.Folder.Manifest.Cost
	if c == nil || c.AvgTickUS <= 0 || c.CPUPctOfCore <= 0 {
		t.Fatalf("cost: %+v", c)
	}
	// The spinner alone is ~100% of a core; the samplers of the host take
	// a few percent at 100 ms (more under -race).
	if c.CPUPctOfCore > 40 {
		t.Errorf("recording cost %.1f%% of a core counts the spinning goroutine", c.CPUPctOfCore)
	}
	// Consistent with its parts: the mean tick cost over the interval.
	want := 100 * float64(c.AvgTickUS) / float64((100 * time.Millisecond).Microseconds())
	if c.CPUPctOfCore < want/2 || c.CPUPctOfCore > want*2 {
		t.Errorf("cost %.2f%% of a core, but the ticks average %d µs every 100 ms (%.2f%%)", c.CPUPctOfCore, c.AvgTickUS, want)
	}
}

func TestCheckOut(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	full := filepath.Join(tmp, "full")
	empty := filepath.Join(tmp, "empty")
	for _, p := range []string{full, empty} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{file, filepath.Join(full, "manifest.json")} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, ok := range []string{empty, filepath.Join(tmp, "new"), filepath.Join(tmp, "new", "deeper")} {
		if err := CheckOut(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for p, want := range map[string][2]string{file: {"is a file", "是一个文件"}, full: {"is not empty", "不是空目录"}} {
		err := CheckOut(p)
		if err == nil || !strings.Contains(err.Error(), want[0]) || !strings.Contains(finding.Localize(err, finding.ZH), want[1]) {
			t.Errorf("%s: %v / %s", p, err, finding.Localize(err, finding.ZH))
		}
	}
}

// run --out onto a used folder or a file fails at once, before the service
// is started (the start command would leave a marker).
func TestRunRefusesOutFirst(t *testing.T) {
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "started")
	full := filepath.Join(tmp, "earlier-run")
	if err := os.MkdirAll(filepath.Join(full, "raw"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{full, file} {
		start := time.Now()
		_, err := LoadAndRecord(context.Background(), RunOptions{Target: "http://127.0.0.1:9/", Start: "touch " + marker,
			Load: loadgen.Config{Users: 1, Duration: time.Second}, Interval: 100 * time.Millisecond, Out: out,
			StartTimeout: 30 * time.Second, Profile: rules.JavaWeb}, RunHooks{})
		if err == nil || !strings.Contains(err.Error(), "--out "+out) {
			t.Errorf("%s: %v", out, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s: took %s to refuse", out, el)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the service was started", out)
		}
	}
}

// The load and the recorder side by side: an error on the recorder's side
// stops the load at once, whether before or after the recorder started.
func TestTogetherStopsOnRecorderError(t *testing.T) {
	boom := errors.New("disk full")
	blockingLoad := func(ctx context.Context) (*loadgen.Summary, error) {
		select {
		case <-ctx.Done():
			return &loadgen.Summary{}, nil // a load generator returns what it has
		case <-time.After(20 * time.Second):
			return nil, errors.New("the load was not stopped")
		}
	}
	for name, rec := range map[string]func(context.Context, func()) (*recording, error){
		"before start": func(context.Context, func()) (*recording, error) { return nil, boom },
		"after start": func(_ context.Context, started func()) (*recording, error) {
			started()
			time.Sleep(50 * time.Millisecond)
			return nil, boom
		},
	} {
		start := time.Now()
		_, _, err := together(context.Background(), rec, blockingLoad)
		if !errors.Is(err, boom) {
			t.Errorf("%s: %v", name, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s: took %s", name, el)
		}
	}
	// A failing load stops the recorder.
	var recCancelled atomic.Bool
	rec := func(ctx context.Context, started func()) (*recording, error) {
		started()
		<-ctx.Done()
		recCancelled.Store(true)
		return &recording{}, nil
	}
	_, _, err := together(context.Background(), rec, func(context.Context) (*loadgen.Summary, error) {
		return nil, errors.New("connection refused")
	})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !recCancelled.Load() {
		t.Errorf("load error: %v, recorder stopped %v", err, recCancelled.Load())
	}
}

// A whole run against a small in-process server, with no JVM: the folder
// holds the load, the audit and the recording, diagnosed.
func TestRunWithoutJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("loads for 1.5 s")
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "run")
	var notes []string
	res, err := LoadAndRecord(context.Background(), RunOptions{Target: srv.URL, Load: loadgen.Config{Rate: 40, Duration: 1500 * time.Millisecond,
		Requests: []loadgen.Request{{URL: srv.URL}}}, WarmUp: 300 * time.Millisecond, Interval: 250 * time.Millisecond,
		ThreadDumps: 3, Out: dir, Profile: rules.JavaWeb, NoCatalog: true, Argv: []string{"tuneloop", "run"}},
		RunHooks{Note: func(m finding.Text) { notes = append(notes, m.EN) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folder.Dir != dir || res.Folder.Manifest.Status != runfolder.Complete || res.Folder.Manifest.Target != nil {
		t.Errorf("folder %s status %s target %+v", res.Folder.Dir, res.Folder.Manifest.Status, res.Folder.Manifest.Target)
	}
	if L := res.Layers; L.Load == nil || L.Load.Requests < 30 || L.Load.Errors != 0 {
		t.Errorf("load: %+v (server saw %d)", L.Load, hits.Load())
	}
	if L := res.Layers; len(L.Check) == 0 || res.Decision == nil || L.GCFiles != nil || res.JFR != "" || res.Recorder == nil {
		t.Errorf("result: check %d decision %v gc %v jfr %q cost %+v", len(L.Check), res.Decision != nil, L.GCFiles, res.JFR, res.Recorder)
	}
	for _, p := range []string{"load.json", "check.json", runfolder.SamplesFile, runfolder.FindingsFile} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "warming up for") {
		t.Errorf("notes: %q", notes)
	}
}

func TestPickTarget(t *testing.T) {
	f := &sysinfo.Facts{}
	h := hostfs.Live()
	if _, err := pickTarget(h, f, 0, true); err == nil || !strings.Contains(err.Error(), "no running JVM") {
		t.Fatalf("no JVM: %v", err)
	}
	f.JVMs = sysinfo.Got([]sysinfo.JVM{{PID: 10, RSSKB: 100, MainClass: "a.Small"}, {PID: 20, RSSKB: 900, MainClass: "b.Big"}}, "/proc")
	tg, err := pickTarget(h, f, 0, true)
	if err != nil || tg.PID != 20 || tg.Comm != "java b.Big" || tg.How != "jvm-auto" {
		t.Fatalf("%+v %v", tg, err)
	}
	if tg, err := pickTarget(h, f, 0, false); tg != nil || err != nil {
		t.Fatalf("no target wanted: %+v %v", tg, err)
	}
	var ue *UsageError
	if _, err := pickTarget(h, f, 1<<30, false); !errors.As(err, &ue) || !strings.Contains(finding.Localize(err, finding.ZH), "没有这个进程") {
		t.Errorf("missing pid: %v", err)
	}
	if tg, err := pickTarget(h, f, os.Getpid(), false); err != nil || tg.PID != os.Getpid() || tg.Comm == "" {
		t.Errorf("own pid: %+v %v", tg, err)
	}
}
