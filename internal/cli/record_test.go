package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/diagnose"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/verdict"
)

func recEnv(t *testing.T) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	tmp := t.TempDir()
	vars := map[string]string{"XDG_DATA_HOME": filepath.Join(tmp, "xdg"), "HOME": tmp, "LANG": "en_US.UTF-8"}
	return &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}, &out, &errb
}

// recordJSON records the target for d at 250 ms and returns the report.
func recordJSON(t *testing.T, pid int, d time.Duration, opts ...func(*RecordOptions)) (*report.RunSummary, string) {
	t.Helper()
	env, out, errb := recEnv(t)
	dir := filepath.Join(t.TempDir(), "run")
	o := &RecordOptions{Duration: d, Interval: 250 * time.Millisecond, PID: pid, Out: dir, Output: "json",
		Argv: []string{"tuneloop", "record", "--pid", "x"}}
	for _, fn := range opts {
		fn(o)
	}
	if err := RunRecord(context.Background(), env, o); err != nil {
		t.Fatalf("record: %v\n%s", err, errb.String())
	}
	validateJSON(t, compileSchema(t, "run-report-v1.schema.json"), "run-report-v1.schema.json", out.Bytes())
	var r report.RunSummary
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	return &r, dir
}

// sampleLines counts the ticks a recorder has flushed so far.
func sampleLines(dir string) int {
	fh, err := os.Open(filepath.Join(dir, runfolder.SamplesFile))
	if err != nil {
		return 0
	}
	r, err := runfolder.OpenSamples(fh)
	if err != nil {
		return 0
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return bytes.Count(b, []byte("\n"))
}

func recFinding(fs []finding.Finding, id string) *finding.Finding {
	for i := range fs {
		if fs[i].ID == id && fs[i].Status == finding.Fail {
			return &fs[i]
		}
	}
	return nil
}

func recKeys(fs []finding.Finding) []string {
	var k []string
	for _, f := range fs {
		k = append(k, f.Key()+"("+f.Severity.String()+")")
	}
	return k
}

// A CPU burner (more spinning threads than CPUs) must be diagnosed as CPU
// saturated, naming one of the burner's threads as the hottest.
func TestRecordCPUBurner(t *testing.T) {
	if testing.Short() {
		t.Skip("records for 3 s")
	}
	n := runtime.NumCPU() + 1
	c := startTestChild(t, "busy="+recItoa(n)+",idle=4,name=burner", n)
	r, dir := recordJSON(t, c.PID, 3*time.Second)
	f := recFinding(r.Findings, diagnose.IDCPUSaturated)
	if f == nil {
		t.Fatalf("no %s; got %v (stats %+v)", diagnose.IDCPUSaturated, recKeys(r.Findings), r.Stats)
	}
	// On a host other jobs keep busy (a shared CI machine) the burner gets a
	// small part of the CPU, and the product must then say that other
	// processes saturated it. Either way the claim must match the numbers.
	busyCores := r.Stats.Busy / 100 * float64(runtime.NumCPU())
	if strings.Contains(f.Title.EN, "other processes") {
		if r.Stats.ProcCPU/100 > 1.2*diagnose.OthersShare*busyCores {
			t.Errorf("blamed other processes although the burner used %.0f%% of a core of %.1f busy cores", r.Stats.ProcCPU, busyCores)
		}
		t.Logf("the host was busy with other work: the burner had %.0f%% of a core of %.1f busy cores", r.Stats.ProcCPU, busyCores)
	} else if !strings.Contains(f.Observed.EN, `"burner" tid=`) {
		t.Errorf("hot thread not named: %s", f.Observed.EN)
	}
	named := strings.Contains(f.Title.EN, "other processes")
	for _, e := range f.Evidence {
		if e.Key == "hot_thread_1" {
			for _, tid := range c.Busy {
				if strings.Contains(e.Value, "tid="+recItoa(tid)+" ") {
					named = true
				}
			}
		}
	}
	if !named {
		t.Errorf("hottest thread is not one of the burner's %v: %v", c.Busy, f.Evidence)
	}
	if r.Status != string(runfolder.Complete) || r.Incomplete || r.TargetPID != c.PID {
		t.Errorf("status %s incomplete %v pid %d", r.Status, r.Incomplete, r.TargetPID)
	}
	// The folder is whole, in the catalog, and analyses the same offline.
	for _, p := range []string{runfolder.ManifestFile, runfolder.SamplesFile, runfolder.SeriesFile, runfolder.FindingsFile, runfolder.NUMAMapsFile} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	env, out, _ := recEnv(t)
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{Output: "json"}); err != nil {
		t.Fatal(err)
	}
	var again report.RunSummary
	if err := json.Unmarshal(out.Bytes(), &again); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recKeys(again.Findings), recKeys(r.Findings)) {
		t.Errorf("offline analysis differs:\n%v\n%v", recKeys(again.Findings), recKeys(r.Findings))
	}
}

// One busy thread among 20 idle ones: the serial-bottleneck finding names it.
func TestRecordSerialThread(t *testing.T) {
	if testing.Short() {
		t.Skip("records for 3 s")
	}
	c := startTestChild(t, "busy=1,idle=20,name=hot-worker", 2)
	r, _ := recordJSON(t, c.PID, 3*time.Second)
	f := recFinding(r.Findings, diagnose.IDSerialThread)
	if f == nil {
		t.Fatalf("no %s; got %v (stats %+v)", diagnose.IDSerialThread, recKeys(r.Findings), r.Stats)
	}
	tid := c.Busy[0]
	if f.Subject != "tid "+recItoa(tid) || !strings.Contains(f.Observed.EN, `"hot-worker" tid=`+recItoa(tid)) ||
		!strings.Contains(f.Fix.Apply, "tuneloop jvm ") || !strings.Contains(f.Fix.Note.EN, "nid=0x") {
		t.Errorf("thread not named: %s %s / %s / %s", f.Subject, f.Observed.EN, f.Fix.Apply, f.Fix.Note.EN)
	}
	// The verdict comes first and names the serial thread as the root cause.
	if k := recKeys(r.Findings); len(k) < 2 || !strings.HasPrefix(k[0], verdict.ID+"/"+diagnose.IDSerialThread) || !strings.HasPrefix(k[1], diagnose.IDSerialThread) {
		t.Errorf("serial bottleneck buried: %v", k)
	}
}

// Ctrl-C ends the run cleanly (status interrupted), in the catalog.
func TestRecordInterruptAndRuns(t *testing.T) {
	env, out, errb := recEnv(t)
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	o := &RecordOptions{Interval: 100 * time.Millisecond, Out: dir, Output: "text", Argv: []string{"tuneloop", "record"},
		OnStart: func(dir string) {
			go func() { // cancel once a few ticks are on disk (Ctrl-C)
				defer cancel()
				for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
					if sampleLines(dir) >= 4 {
						return
					}
				}
			}()
		}}
	if err := RunRecord(ctx, env, o); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Status != runfolder.Interrupted || f.Manifest.Ticks < 3 || f.Manifest.End.IsZero() || f.Manifest.Cost == nil {
		t.Fatalf("manifest %+v", f.Manifest)
	}
	if !strings.Contains(out.String(), "tuneloop run run") || !strings.Contains(errb.String(), "run folder:") {
		t.Errorf("report:\n%s\n%s", out.String(), errb.String())
	}
	out.Reset()
	if err := RunRuns(context.Background(), env, &RunsOptions{Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "interrupted") || !strings.Contains(out.String(), dir) {
		t.Errorf("runs:\n%s", out.String())
	}
	// Removed, then added back (as for a folder copied from elsewhere).
	if err := RunRunsRemove(context.Background(), env, "", []string{dir}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	RunRuns(context.Background(), env, &RunsOptions{Output: "json"})
	if strings.TrimSpace(out.String()) != "[]" {
		t.Errorf("after rm: %s", out.String())
	}
	if err := RunRunsAdd(context.Background(), env, "", []string{dir}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	RunRuns(context.Background(), env, &RunsOptions{Output: "json"})
	var es []catalog.Entry
	if err := json.Unmarshal(out.Bytes(), &es); err != nil || len(es) != 1 || es[0].Status != runfolder.Interrupted {
		t.Errorf("after add: %v %s", err, out.String())
	}
}

// A recorder killed with SIGKILL leaves a folder analyze reads, marked
// incomplete.
func TestRecordKilled(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "killed")
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TUNELOOP_TEST_RECORD="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if sampleLines(dir) >= 8 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("recorder wrote no samples")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // our own child, by PID
		t.Fatal(err)
	}
	cmd.Wait()
	env, out, errb := recEnv(t)
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{}); err != nil {
		t.Fatalf("analyze a killed run: %v", err)
	}
	if !strings.Contains(out.String(), "INCOMPLETE") || !strings.Contains(out.String(), "status recording") ||
		!strings.Contains(errb.String(), "incomplete") {
		t.Errorf("not marked incomplete:\n%s\n%s", out.String(), errb.String())
	}
	out.Reset()
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{Output: "json"}); err != nil {
		t.Fatal(err)
	}
	var r report.RunSummary
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || !r.Incomplete || r.Stats.Ticks < 5 {
		t.Fatalf("%v incomplete=%v ticks=%d", err, r.Incomplete, r.Stats.Ticks)
	}
}

func TestAnalyzeSoftirqFixture(t *testing.T) {
	dir := filepath.Join("..", "diagnose", "testdata", "runs", "kunpeng-softirq")
	env, out, _ := recEnv(t)
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{FailOn: "critical"}); err == nil {
		t.Fatal("--fail-on critical: no exit 3")
	} else if ee := (*ExitError)(nil); !errors.As(err, &ee) || ee.Code != ExitFindings {
		t.Fatalf("want exit 3, got %v", err)
	}
	s := out.String()
	golden(t, "analyze-run/kunpeng-softirq.txt", s)
	i := strings.Index(s, "[CRITICAL] "+diagnose.IDSoftirqConcentrated)
	j := strings.Index(s, diagnose.IDHotCPU)
	if i < 0 || j < i || !strings.Contains(s, "ethtool -L enp125s0f0 combined 4") || !strings.Contains(s, "Kunpeng 920") {
		t.Errorf("report:\n%s", s)
	}
	out.Reset()
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{Output: "markdown"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "analyze-run/kunpeng-softirq.md", out.String())
	out.Reset()
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{Output: "json"}); err != nil {
		t.Fatal(err)
	}
	validateJSON(t, compileSchema(t, "run-report-v1.schema.json"), "run-report-v1.schema.json", out.Bytes())
	out.Reset()
	env.Getenv = func(k string) string { return map[string]string{"LANG": "zh_CN.UTF-8"}[k] }
	if err := analyzeRunDir(context.Background(), env, dir, AnalyzeRunOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "analyze-run/kunpeng-softirq.zh.txt", out.String())
	if !strings.Contains(out.String(), "中断/软中断集中在 CPU 0") {
		t.Errorf("zh report:\n%s", out.String())
	}
}

func TestRecordUsage(t *testing.T) {
	env, _, _ := recEnv(t)
	for _, o := range []RecordOptions{
		{Interval: time.Millisecond, Output: "text"},
		{Interval: time.Second, Duration: time.Second, Output: "text"},
		{Interval: time.Second, Output: "yaml"},
		{Interval: time.Second, Output: "text", PID: 1, JVM: "auto"},
		{Interval: time.Second, Output: "text", JVM: "first"},
		{Interval: time.Second, Output: "text", PID: 1 << 30},
		{Interval: time.Second, Output: "text", Lang: "fr"},
		{Interval: time.Second, Output: "text", FailOn: "info"},
		{Interval: time.Second, Output: "text", Enable: []string{"nosuch"}},
		{Interval: time.Second, Output: "text", ThreadDumps: 2},
		{Interval: time.Second, Output: "text", PID: 1, ThreadDumps: -1},
	} {
		err := RunRecord(context.Background(), env, &o)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%+v: want usage error, got %v", o, err)
		}
	}
	if err := analyzeRunDir(context.Background(), env, t.TempDir(), AnalyzeRunOptions{}); err == nil || !errors.Is(err, runfolder.ErrNotRun) {
		t.Errorf("not a run folder: %v", err)
	}
}

func recItoa(i int) string { return strconv.Itoa(i) }
